/* model/slurm/slurm.h -- the Slurm jobs running on this node, as their cgroups
 * show them (PNA_DOM_SLURM), and the one rule that reads a cgroup path as a
 * Slurm job, step and user.
 *
 * Slurm's cgroup plugins give every job a directory of its own, and every
 * step one under it (slurm's cgroup.conf documentation, "cgroup/v1" and
 * "cgroup/v2" plugins):
 *
 *   v1: <hierarchy>/slurm[_<node>]/uid_<uid>/job_<job>/step_<step>[/task_<n>]
 *       in each controller's hierarchy (memory, freezer, devices, ...);
 *       "slurm_<node>" where slurmd was built to run several per host
 *   v2: <unified>/[system.slice/][<node>_]slurmstepd.scope/job_<job>/
 *       step_<step>[/user[/task_<n>] | /slurm]; slurmstepd's own processes
 *       are in the scope's "system" directory, which is no job's
 *
 * <step> is a number, or "batch", "extern" or "interactive".  Nothing is
 * read from a job's processes' environment and no Slurm command is run: the
 * cgroup tree is what Slurm itself wrote.
 *
 * The GPUs, MIG devices and RDMA devices a job holds are joins made at
 * answer time (model/slurm/slurm_holders.h): the GPU processes whose cgroup is in
 * the job, the device nodes the job's processes have open
 * (sources/slurm/slurm_fds.h), and on v1 a devices.list that constrains.
 * Stock Slurm's ConstrainDevices does not show in devices.list (v1) and its
 * v2 plugin's eBPF program cannot be read back, so there the processes alone
 * say it. */
#ifndef PNA_MODEL_SLURM_H
#define PNA_MODEL_SLURM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/cache.h"

/* Slurm's own numbers for the steps that have names (slurm.h:
 * SLURM_INTERACTIVE_STEP, SLURM_BATCH_SCRIPT, SLURM_EXTERN_CONT); numbered
 * steps are below them. */
#define PNA_SLURM_STEP_INTERACTIVE 0xfffffffau
#define PNA_SLURM_STEP_BATCH 0xfffffffbu
#define PNA_SLURM_STEP_EXTERN 0xfffffffcu
#define PNA_SLURM_STEP_NUMBERED_MAX 0xffffffefu

/* The longest directory name of Slurm's part of a path the parser takes:
 * "uid_4294967295" and "job_4294967295" are 14 octets, a node name in
 * "slurm_<node>" or "<node>_slurmstepd.scope" at most 64 (HOST_NAME_MAX). */
#define PNA_SLURM_NAME_MAX 96

/* Jobs one snapshot keeps, and devices of one job's devices.list. */
#define PNA_SLURM_MAX_JOBS 4096
#define PNA_SLURM_MAX_DEVICES 64

enum pna_slurm_layout {
    PNA_SLURM_LAYOUT_V1 = 1,
    PNA_SLURM_LAYOUT_V2 = 2,
};

/* What a cgroup path says of a Slurm job. */
struct pna_slurm_cgroup {
    uint8_t layout;          /* enum pna_slurm_layout */
    bool has_uid;            /* v1 names the user: uid_<uid> */
    uint32_t uid;
    uint32_t job_id;
    bool has_step;
    uint32_t step;           /* a number or PNA_SLURM_STEP_* */
    size_t job_len;          /* PATH's first JOB_LEN octets are the job's own cgroup */
};

/* Read cgroup PATH ("/slurm_n1/uid_1000/job_42/step_0/task_0", as
 * /proc/PID/cgroup shows it, or a directory relative to a hierarchy's root).
 * Returns 1 when it is in a Slurm job (OUT filled), 0 when it is in none (not
 * Slurm's, or Slurm's own directories above the jobs), -1 when it has
 * Slurm's shape with a name Slurm does not make (job_abc, a job id over 32
 * bits, a name longer than PNA_SLURM_NAME_MAX, a job inside a job): REASON
 * then says which, in a few words. */
int pna_slurm_cgroup_parse(const char *path, struct pna_slurm_cgroup *out, const char **reason);

/* Whether NAME is a directory of Slurm's above its jobs: v1's "slurm" or
 * "slurm_<node>", v2's "slurmstepd.scope" or "<node>_slurmstepd.scope". */
bool pna_slurm_is_v1_root(const char *name);
bool pna_slurm_is_v2_scope(const char *name);

/* Fixed character majors (the kernel's devices.txt; NVIDIA's is its
 * driver's): /dev/nvidiaN, DRM nodes (render nodes from minor 128), and
 * InfiniBand (uverbsN is minor 192 + N). */
#define PNA_SLURM_NVIDIA_MAJOR 195u
#define PNA_SLURM_DRM_MAJOR 226u
#define PNA_SLURM_INFINIBAND_MAJOR 231u
#define PNA_SLURM_UVERBS_FIRST_MINOR 192u

/* A device of a job's devices.list: "c 195:0 rwm" (char), major and minor;
 * MINOR -1 for "*". */
struct pna_slurm_device {
    char type;               /* 'c' or 'b' */
    uint32_t major;
    int32_t minor;
};

/* Parse devices.list TEXT into DEVS (at most CAP).  Returns how many were
 * kept, or -1 when the list allows every device ("a *:* rwm": the job's
 * devices are not constrained) or is not a devices.list. */
int pna_slurm_parse_devices(const char *text, struct pna_slurm_device *devs, size_t cap);

struct pna_slurm_job {
    uint32_t job_id;         /* primusSlurmJobId */
    bool has_uid;
    uint32_t uid;
    char user[64];           /* the passwd database's name of UID; "" unknown */
    uint32_t steps;          /* step directories */
    int64_t start_s;         /* when its cgroup was made, seconds since 1970; 0 unknown */
    bool has_mem_usage, has_mem_limit;
    uint64_t mem_usage_bytes, mem_limit_bytes;
    char cgroup[256];        /* the job's cgroup, relative to its hierarchy's root */
    bool devices_known;      /* a constraining devices.list was read (v1) */
    uint16_t n_devices;
    struct pna_slurm_device devices[PNA_SLURM_MAX_DEVICES];
    bool opened_known;       /* a process of the job had its descriptors read */
    uint16_t n_opened;       /* GPU, render and uverbs nodes its processes have open */
    struct pna_slurm_device opened[PNA_SLURM_MAX_DEVICES];
};

/* PNA_DOM_SLURM.  Jobs in ascending job id. */
struct pna_slurm_snap {
    struct pna_snap base;
    uint8_t layout;          /* enum pna_slurm_layout the jobs were found in */
    struct pna_slurm_job *jobs;
    size_t count, cap;
    uint64_t rejected;       /* directories with Slurm's shape and a name it does not make */
    uint64_t dropped;        /* jobs over PNA_SLURM_MAX_JOBS */
    uint32_t procs_read;     /* the jobs' processes whose open files were read */
    uint32_t procs_unreadable; /* ... and those whose /proc/PID/fd was refused */
};

/* Append a zeroed job; NULL when out of memory. */
struct pna_slurm_job *pna_slurm_add(struct pna_slurm_snap *s);
void pna_slurm_sort(struct pna_slurm_snap *s);
const struct pna_slurm_job *pna_slurm_find(const struct pna_slurm_snap *s, uint32_t job_id);
void pna_slurm_snap_free(struct pna_slurm_snap *s);

/* Whether job J uses char device MAJOR:MINOR: one of its processes has it
 * open, or its devices.list lets it open it (false when neither is known). */
bool pna_slurm_job_allows(const struct pna_slurm_job *j, uint32_t major, uint32_t minor);

/* The uverbs numbers (N of /dev/infiniband/uverbsN) job J uses, as
 * pna_slurm_job_allows() says, into OUT (at most CAP, ascending, each once);
 * their number, or -1 when neither its device list nor its open files are
 * known, or the list allows every uverbs node ("c 231:* rwm"). */
int pna_slurm_job_uverbs(const struct pna_slurm_job *j, uint32_t *out, size_t cap);

/* The job a process in cgroup PATH runs in: its id, 0 when none. */
uint32_t pna_slurm_job_of_cgroup(const char *path);

#endif
