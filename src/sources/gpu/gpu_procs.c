/* sources/gpu/gpu_procs.c -- names and cgroups of GPU processes (see gpu_procs.h). */
#include "pna_autoconf.h"
#include "sources/gpu/gpu_procs.h"

#include <stdio.h>

#include "sources/containers/cgroup.h"
#include "util/fileio.h"

static void identify(const struct pna_roots *roots, struct pna_gpu_proc *p)
{
    char path[512];
    if (pna_path(path, sizeof path, roots->procfs, "/%u/comm", (unsigned)p->pid) != 0 ||
        pna_read_text(path, p->name, sizeof p->name) < 0)
        p->name[0] = '\0';
    /* v1's memory hierarchy is what the containers' cgroup paths are in
     * (model/containers.h); a v2-only node has the unified line alone. */
    if (pna_cgroup_path_of_pid(roots, PNA_CG_V1, (int)p->pid, p->cgroup, sizeof p->cgroup) != 0 &&
        pna_cgroup_path_of_pid(roots, PNA_CG_V2, (int)p->pid, p->cgroup, sizeof p->cgroup) != 0)
        p->cgroup[0] = '\0';
}

void pna_gpu_procs_identify(const struct pna_roots *roots, struct pna_gpu_list *list)
{
    for (size_t i = 0; i < list->nprocs; i++)
        identify(roots, &list->procs[i]);
}
