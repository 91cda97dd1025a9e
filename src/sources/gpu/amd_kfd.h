/* sources/gpu/amd_kfd.h -- processes on AMD GPUs from the KFD (ROCm compute)
 * driver's sysfs: ROOT/class/kfd/kfd/proc/<pid>/vram_<gpu_id> holds the bytes
 * of device memory process <pid> has on the GPU whose KFD id is <gpu_id>
 * (as amdkfd's kfd_process.c creates them), and ROOT/class/kfd/kfd/topology/nodes/N/{gpu_id,
 * properties} maps a gpu_id to its PCI address (location_id, domain). */
#ifndef PNA_GPU_AMD_KFD_H
#define PNA_GPU_AMD_KFD_H

#include "core/roots.h"
#include "model/gpu/gpu.h"

/* Add a compute process row (pid, device memory) to LIST for every process
 * and AMD GPU of LIST that KFD lists, and set those GPUs' process counts.
 * The gpu_ids of one GPU's partitions (several KFD nodes at one PCI address)
 * are summed into one row per process.  Nothing happens where KFD has no
 * proc directory; a process that exits meanwhile is skipped.  Returns 0, or
 * -1 when out of memory. */
int pna_amd_kfd_procs(const struct pna_roots *roots, struct pna_gpu_list *list);

#endif
