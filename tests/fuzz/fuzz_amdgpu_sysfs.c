/* fuzz_amdgpu_sysfs.c -- libFuzzer harness for the amdgpu sysfs reader
 * (sources/gpu/amd_sysfs.c).
 *
 * The input is a file tree (see fuzz.h): sys/class/drm/cardN/device/ (uevent,
 * product_name, unique_id, gpu_busy_percent, mem_info_vram_*, link speeds and
 * widths, pp_dpm_sclk, pp_dpm_mclk, hwmon/hwmonM/ sensors, ras/ error counts,
 * drm/renderD...), sys/class/kfd/kfd/topology/nodes/N/properties,
 * sys/module/amdgpu/version, proc/sys/kernel/osrelease and
 * root/usr/share/misc/pci.ids (the name of a card without product_name).
 * Both entry points run: the count and the collect. */
#include "pna_autoconf.h"
#include "sources/gpu/amd.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const struct pna_roots *roots = fz_tree_build(data, size);
    struct pna_gpu_list list = { 0 };
    char driver[128], err[256];
    pna_amd_sysfs_count(roots);
    struct pna_amd_gpu_metrics_refusals refusals = { 0 };
    pna_amd_sysfs_collect(roots, &list, &refusals, driver, sizeof driver, err, sizeof err);
    pna_gpu_list_sort(&list);
    pna_gpu_list_free(&list);
    fz_tree_clear();
    return 0;
}
