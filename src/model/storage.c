/* model/storage.c -- the rules of the storage model (see model/storage.h):
 * used bytes and the usage ratio from capacity and available, which source
 * the node storage figures come from, and the GPU allocation ratio. */
#include "pna_autoconf.h"
#include "model/storage.h"

#include <string.h>

void pna_node_storage_finish(struct pna_node_storage *s)
{
    if (s->used_bytes == 0 && s->capacity_bytes >= s->available_bytes)
        s->used_bytes = s->capacity_bytes - s->available_bytes;
    s->usage_percent_x100 = 0;
    if (s->capacity_bytes) {
        /* 128-bit intermediate: used * 10000 overflows 64 bits past ~1.8 EB. */
        unsigned __int128 r = ((unsigned __int128)s->used_bytes * 10000 + s->capacity_bytes / 2) /
                              s->capacity_bytes;
        s->usage_percent_x100 = r > 10000 ? 10000 : (uint32_t)r;
    }
}

const struct pna_node_storage *pna_node_storage_pick(const struct pna_kubelet_snap *kubelet,
                                                     const struct pna_storage_snap *storage)
{
    if (kubelet && kubelet->node_fs.valid)
        return &kubelet->node_fs;
    if (storage && storage->node_fs.valid)
        return &storage->node_fs;
    return NULL;
}

void pna_k8s_gpu_compute(struct pna_k8s_gpu *g, uint32_t allocated, uint32_t total)
{
    memset(g, 0, sizeof *g);
    g->allocated = allocated;
    g->total = total;
    if (total == 0)
        return;    /* no GPUs: the rate is absent, not 0 % */
    g->valid = true;
    uint64_t r = ((uint64_t)allocated * 10000 + total / 2) / total;
    g->rate_x100 = r > UINT32_MAX ? UINT32_MAX : (uint32_t)r;
}
