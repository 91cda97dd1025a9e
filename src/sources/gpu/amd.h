/* sources/gpu/amd.h -- AMD GPUs: amdgpu sysfs (always available) and
 * rocm-smi-lib (built with --with-rocm-smi).
 *
 * sysfs units, as the amdgpu driver documents them: hwmon power*_average /
 * power*_cap in microwatts, temp*_input in millidegrees Celsius, freq*_input
 * in hertz, energy*_input in microjoules; mem_info_* in bytes. */
#ifndef PNA_GPU_AMD_H
#define PNA_GPU_AMD_H

#include <stddef.h>

#include "model/gpu/gpu.h"
#include "core/roots.h"
#include "sources/gpu/amd_gpu_metrics.h"

/* Number of DRM cards bound to the amdgpu driver under ROOTS->sysfs. */
int pna_amd_sysfs_count(const struct pna_roots *roots);

/* Append every amdgpu card under ROOTS->sysfs/class/drm to LIST.  DRIVER
 * receives the driver version (the amdgpu module's own version, or the
 * kernel release for the in-tree driver; "" when unknown).  A card whose
 * files cannot be read is skipped; a gpu_metrics blob refused is counted in
 * REFUSALS (the caller's; may be NULL).  Returns 0, or -1 with ERR when the
 * class directory cannot be listed. */
int pna_amd_sysfs_collect(const struct pna_roots *roots, struct pna_gpu_list *list,
                          struct pna_amd_gpu_metrics_refusals *refusals, char *driver,
                          size_t driver_len, char *err, size_t errlen);

/* Name of a PCI device from the pci.ids database under ROOTFS
 * (usr/share/misc/pci.ids or usr/share/hwdata/pci.ids), the device entry.
 * Results are cached per (rootfs, vendor, device).  Returns 0, -1 when unknown. */
int pna_pciids_name(const char *rootfs, unsigned vendor, unsigned device, char *buf, size_t cap);

/* rocm-smi-lib.  Without HAVE_ROCM_SMI, open always answers "not built". */
struct pna_rocm;

/* Initialise rocm-smi-lib.  It reads the real /sys whatever the roots say,
 * prints to stderr when it finds no AMD GPU, and answers status 8 then; so the
 * caller only tries it when the sysfs scan found an amdgpu card.  Returns 0,
 * or -1 with ERR. */
int pna_rocm_open(struct pna_rocm **out, char *err, size_t errlen);
void pna_rocm_close(struct pna_rocm *rocm);
int pna_rocm_collect(struct pna_rocm *rocm, struct pna_gpu_list *list, char *driver,
                     size_t driver_len, char *err, size_t errlen);

#endif
