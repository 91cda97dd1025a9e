/* sources/gpu/mig_caps.h -- which /dev/nvidia-caps/nvidia-capN node gives
 * access to each MIG device, from the driver's list of MIG capabilities.
 * A container given that node holds the MIG device (model/containers.h). */
#ifndef PNA_GPU_MIG_CAPS_H
#define PNA_GPU_MIG_CAPS_H

#include "core/roots.h"
#include "model/gpu/gpu.h"

/* Fill has_cap and cap_minor of every MIG row of LIST whose GPU has a minor
 * number, from ROOTS->procfs/driver/nvidia-caps/mig-minors: the line
 * "gpu<minor>/gi<GI>/ci<CI>/access <N>" of the row's compute instance.  A
 * missing or unreadable file leaves every row without one. */
void pna_gpu_mig_caps(const struct pna_roots *roots, struct pna_gpu_list *list);

/* The N of the access capability /dev/nvidia-caps/nvidia-capN of compute
 * instance CI of GPU instance GI on the GPU with minor number GPU_MINOR, from
 * the same file; -1 when it lists none. */
int32_t pna_gpu_mig_cap_of(const struct pna_roots *roots, uint32_t gpu_minor, uint32_t gi,
                           uint32_t ci);

#endif
