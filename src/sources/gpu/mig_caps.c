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

void pna_gpu_mig_caps(const struct pna_roots *roots, struct pna_gpu_list *list)
{
    char path[512];
    char *text = NULL;
    size_t len = 0;
    if (!list->mig_count ||
        pna_path(path, sizeof path, roots->procfs, "/driver/nvidia-caps/mig-minors") < 0 ||
        pna_read_alloc(path, MIG_MINORS_MAX, &text, &len) < 0)
        return;
    for (char *save = NULL, *line = strtok_r(text, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save)) {
        unsigned minor, gi, ci, cap;
        char tail;
        if (sscanf(line, "gpu%u/gi%u/ci%u/access %u %c", &minor, &gi, &ci, &cap, &tail) != 4)
            continue;
        struct pna_gpu_mig *m = mig_of(list, minor, gi, ci);
        if (m) {
            m->has_cap = true;
            m->cap_minor = cap;
        }
    }
    free(text);
}
