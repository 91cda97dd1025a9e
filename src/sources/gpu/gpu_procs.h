/* sources/gpu/gpu_procs.h -- what /proc says about the processes on GPUs:
 * the command name and the cgroup, by which a process is joined to its
 * container.  NVML gives the pids only. */
#ifndef PNA_GPU_PROCS_H
#define PNA_GPU_PROCS_H

#include "core/roots.h"
#include "model/gpu/gpu.h"

/* Name (ROOTS->procfs/PID/comm: the command name, never the arguments) and
 * cgroup (the memory controller's path on cgroup v1, the unified path on v2)
 * of every process row of LIST.  A process that exited in between keeps
 * neither; nothing fails. */
void pna_gpu_procs_identify(const struct pna_roots *roots, struct pna_gpu_list *list);

#endif
