/* sources/slurm/slurm_cgroup.h -- the Slurm jobs of this node, read from the
 * cgroup tree Slurm's cgroup plugins make (model/slurm/slurm.h has the layouts).
 *
 * For each job directory: its steps (step_* directories), when it was made
 * (the directory's change time, which cgroupfs sets when the directory is
 * created: slurmstepd makes it as the job's first step starts), its memory
 * usage and limit (the job's own memory cgroup), on v1 the devices its
 * devices.list lets it open, the device nodes its processes have open
 * (slurm_fds.h), and its user: v1's uid_<uid> directory, v2's
 * owner of a task's /proc/PID (v2 has no uid in its paths).  User names come
 * from the passwd database (getpwuid_r).  Nothing else is read: no process's
 * environment or command line, and no Slurm command or library. */
#ifndef PNA_SOURCES_SLURM_CGROUP_H
#define PNA_SOURCES_SLURM_CGROUP_H

#include <stddef.h>

#include "core/roots.h"
#include "model/slurm/slurm.h"

/* Read the jobs under ROOTS->sysfs/CGROUP_REL ("fs/cgroup") into S (its
 * jobs sorted; names Slurm does not make counted in S->rejected and left
 * out).  Returns 0 (ERR says the first rejected name, "" when none), or -1
 * with ERR when there is no cgroup hierarchy to read. */
int pna_slurm_read(const struct pna_roots *roots, const char *cgroup_rel,
                   struct pna_slurm_snap *s, char *err, size_t errlen);

/* Whether any hierarchy under ROOTS->sysfs/CGROUP_REL has one of Slurm's
 * directories (a node where slurmstepd has run). */
bool pna_slurm_present(const struct pna_roots *roots, const char *cgroup_rel);

/* The passwd database's name of UID into BUF; false (BUF "") when it has
 * none. */
bool pna_slurm_user_name(uint32_t uid, char *buf, size_t cap);

#endif
