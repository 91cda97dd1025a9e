/* sources/gpu/mig_caps.c -- the MIG access capabilities (see mig_caps.h).
 *
 * The NVIDIA driver lists one line per capability it can hand out, for every
 * GPU instance and compute instance that may exist, whether it exists or not:
 *   config 1
 *   monitor 2
 *   gpu0/gi0/access 3
 *   gpu0/gi0/ci0/access 4
 * where the number is the minor of /dev/nvidia-caps/nvidia-capN.  A GPU
 * instance's "access" node opens the GPU instance; the compute instance's
 * opens the MIG device itself, and is the one served (a container running on
 * one MIG device is given both). */
#include "pna_autoconf.h"
#include "sources/gpu/mig_caps.h"
#include "util/fileio.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The real file lists every possible instance of 32 GPUs: about 100 KiB. */
#define MIG_MINORS_MAX (1024 * 1024)

static struct pna_gpu_mig *mig_of(struct pna_gpu_list *list, uint32_t minor, uint32_t gi,
                                  uint32_t ci)
{
    for (size_t i = 0; i < list->mig_count; i++) {
        struct pna_gpu_mig *m = &list->migs[i];
        const struct pna_gpu *g = pna_gpu_find(list->gpus, list->count, m->gpu_index);
        if (g && g->has_minor && g->minor == minor && m->gpu_instance == gi &&
            m->compute_instance == ci)
            return m;
    }
    return NULL;
}

/* Call FN(ctx, gpu minor, GI, CI, cap) for every compute instance's access
 * line of ROOTS->procfs/driver/nvidia-caps/mig-minors (none when it is
 * missing or unreadable); FN returns false to stop. */
static void each_access(const struct pna_roots *roots,
                        bool (*fn)(void *ctx, unsigned minor, unsigned gi, unsigned ci,
                                   unsigned cap),
                        void *ctx)
{
    char path[512];
    char *text = NULL;
    size_t len = 0;
    if (pna_path(path, sizeof path, roots->procfs, "/driver/nvidia-caps/mig-minors") < 0 ||
        pna_read_alloc(path, MIG_MINORS_MAX, &text, &len) < 0)
        return;
    for (char *save = NULL, *line = strtok_r(text, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save)) {
        unsigned minor, gi, ci, cap;
        char tail;
        if (sscanf(line, "gpu%u/gi%u/ci%u/access %u %c", &minor, &gi, &ci, &cap, &tail) == 4 &&
            !fn(ctx, minor, gi, ci, cap))
            break;
    }
    free(text);
}

static bool set_list_cap(void *ctx, unsigned minor, unsigned gi, unsigned ci, unsigned cap)
{
    struct pna_gpu_mig *m = mig_of(ctx, minor, gi, ci);
    if (m) {
        m->has_cap = true;
        m->cap_minor = cap;
    }
    return true;
}

void pna_gpu_mig_caps(const struct pna_roots *roots, struct pna_gpu_list *list)
{
    if (list->mig_count)
        each_access(roots, set_list_cap, list);
}

struct cap_query {
    unsigned minor, gi, ci;
    int32_t cap;
};

static bool match_cap(void *ctx, unsigned minor, unsigned gi, unsigned ci, unsigned cap)
{
    struct cap_query *q = ctx;
    if (minor != q->minor || gi != q->gi || ci != q->ci || cap > INT32_MAX)
        return true;
    q->cap = (int32_t)cap;
    return false;
}

int32_t pna_gpu_mig_cap_of(const struct pna_roots *roots, uint32_t gpu_minor, uint32_t gi,
                           uint32_t ci)
{
    struct cap_query q = { gpu_minor, gi, ci, -1 };
    each_access(roots, match_cap, &q);
    return q.cap;
}
