/* fuzz_amd_kfd.c -- libFuzzer harness for the KFD process and partition
 * reader (sources/gpu/amd_kfd.c): sys/class/kfd/kfd/topology/nodes/N/{gpu_id,
 * properties} and sys/class/kfd/kfd/proc/<pid>/vram_<gpu_id>.  The input is a
 * file tree (see fuzz.h); two GPUs at fixed PCI addresses take the rows, the
 * second one partitioned (CPX, with two partitions' gpu_metrics activity). */
#include "pna_autoconf.h"
#include "sources/gpu/amd_kfd.h"
#include "fuzz.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const struct pna_roots *roots = fz_tree_build(data, size);
    struct pna_gpu_list list;
    memset(&list, 0, sizeof list);
    static const char *const buses[] = { "0000:0c:00.0", "0000:64:00.0" };
    for (size_t i = 0; i < sizeof buses / sizeof buses[0]; i++) {
        struct pna_gpu *g = pna_gpu_list_add(&list);
        if (!g || pna_gpu_set_pci(g, buses[i]) != 0)
            abort();
        g->vendor = PNA_GPU_VND_AMD;
    }
    struct pna_gpu *cpx = &list.gpus[1];
    strcpy(cpx->compute_partition, "CPX");
    cpx->xcp_count = 2;
    cpx->has_xcp_gfx[0] = cpx->has_xcp_video[1] = true;
    cpx->xcp_gfx_bp[0] = 4200;
    cpx->xcp_video_bp[1] = 900;
    pna_amd_kfd_read(roots, &list);
    pna_gpu_list_free(&list);
    fz_tree_clear();
    return 0;
}
