/* sources/slurm/slurm_fds.h -- the device nodes a Slurm job's processes have
 * open: which GPUs, render nodes and RDMA devices it uses, where its cgroup
 * cannot say.
 *
 * Stock Slurm's ConstrainDevices leaves a job's v1 devices.list at
 * "a *:* rwm" (it writes its denials as exceptions the kernel does not
 * list), and its v2 plugin's eBPF program cannot be read back; a process
 * that opened /dev/infiniband/uverbsN, /dev/nvidiaN or a render node holds a
 * file descriptor whose /proc/PID/fd entry leads to that node.  For every
 * process of the job (the cgroup.procs of its cgroup and the cgroups below
 * it) each descriptor is stat()ed through /proc/PID/fd; a character device
 * of a GPU, render or uverbs major is kept by its numbers.  Nothing else of
 * the process is read: no path, no other file's identity is kept or
 * served.  Reading another user's /proc/PID/fd needs CAP_SYS_PTRACE (the
 * systemd unit keeps it); without it the processes are counted as not
 * readable and the job's open devices stay unknown. */
#ifndef PNA_SOURCES_SLURM_FDS_H
#define PNA_SOURCES_SLURM_FDS_H

#include "core/roots.h"
#include "model/slurm/slurm.h"

/* Bounds of one job's read: processes, descriptors of one process, cgroup
 * directory depth below the job's. */
#define PNA_SLURM_FD_MAX_PIDS 512
#define PNA_SLURM_FD_MAX_FDS 8192
#define PNA_SLURM_FD_MAX_DEPTH 4

struct pna_slurm_fd_stats {
    unsigned pids;      /* processes whose descriptors were read */
    unsigned denied;    /* processes whose /proc/PID/fd was not readable (EACCES, EPERM) */
    unsigned capped;    /* processes or descriptors past the bounds above, not read */
};

/* Read the open device nodes of the processes in the cgroup directory
 * JOB_DIR (an absolute path) and the cgroups below it into JOB->opened
 * (JOB->opened_known set when at least one process was read).  Adds to ST. */
void pna_slurm_read_opened(const struct pna_roots *roots, const char *job_dir,
                           struct pna_slurm_job *job, struct pna_slurm_fd_stats *st);

#endif
