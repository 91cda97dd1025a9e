/* sources/gpu/amd_kfd.h -- processes and compute partitions of AMD GPUs from
 * the KFD (ROCm compute) driver's sysfs:
 *  - ROOT/class/kfd/kfd/topology/nodes/N/{gpu_id,properties}: one node per
 *    GPU, or per compute partition of a partitioned GPU, in partition order;
 *    location_id and domain give its PCI address, drm_render_minor its render
 *    node, num_xcc and simd_count / simd_per_cu its dies and compute units;
 *  - ROOT/class/kfd/kfd/proc/<pid>/vram_<gpu_id>: the bytes of device memory
 *    process <pid> has on the GPU (partition) whose KFD id is <gpu_id>, as
 *    amdkfd's kfd_process.c creates them. */
#ifndef PNA_GPU_AMD_KFD_H
#define PNA_GPU_AMD_KFD_H

#include "core/roots.h"
#include "model/gpu/gpu.h"

/* For the AMD GPUs of LIST: a partition row per KFD node of each GPU with a
 * compute partition mode (with its partition's activity from the GPU's
 * gpu_metrics, already read), and a compute process row (pid, device memory)
 * per process KFD lists, with the GPUs' process counts and the partitions'
 * memory.  The gpu_ids of one GPU's partitions are summed into one process
 * row per GPU.  Nothing happens where KFD has no topology or proc directory;
 * a process that exits meanwhile is skipped.  Returns 0, or -1 when out of
 * memory. */
int pna_amd_kfd_read(const struct pna_roots *roots, struct pna_gpu_list *list);

#endif
