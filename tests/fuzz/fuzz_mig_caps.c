/* fuzz_mig_caps.c -- libFuzzer harness for the MIG capability reader
 * (sources/gpu/mig_caps.c): the driver's proc/driver/nvidia-caps/mig-minors,
 * lines "gpu<minor>/gi<G>/ci<C>/access <N>".  The input is a file tree (see
 * fuzz.h); two GPUs (minors 0 and 1) with MIG rows on both, one GPU without a
 * minor, are matched against it as the GPU poller matches its rows. */
#include "pna_autoconf.h"
#include "sources/gpu/mig_caps.h"
#include "fuzz.h"

#include <stdlib.h>
#include <string.h>

static void add_gpu(struct pna_gpu_list *list, uint32_t index, int minor)
{
    struct pna_gpu *g = pna_gpu_list_add(list);
    if (!g)
        abort();
    g->index = index;
    g->has_minor = minor >= 0;
    g->minor = minor >= 0 ? (uint32_t)minor : 0;
}

static void add_mig(struct pna_gpu_list *list, uint32_t index, uint32_t gi, uint32_t ci)
{
    struct pna_gpu_mig *m = pna_gpu_list_add_mig(list);
    if (!m)
        abort();
    m->gpu_index = index;
    m->gpu_instance = gi;
    m->compute_instance = ci;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const struct pna_roots *roots = fz_tree_build(data, size);
    struct pna_gpu_list list;
    memset(&list, 0, sizeof list);
    add_gpu(&list, 48, 0);
    add_gpu(&list, 256, 1);
    add_gpu(&list, 512, -1);
    add_mig(&list, 48, 1, 0);
    add_mig(&list, 48, 2, 0);
    add_mig(&list, 256, 7, 1);
    add_mig(&list, 512, 1, 0);
    pna_gpu_mig_caps(roots, &list);
    pna_gpu_list_free(&list);
    fz_tree_clear();
    return 0;
}
