/* pollers/storage_poller.c -- the "storage" poller: statvfs() of the kubelet
 * root, the node ephemeral storage figures when no kubelet answers (see
 * pna_node_storage_pick()). */
#include "pna_autoconf.h"
#include "core/config.h"
#include "pollers/pollers.h"
#include "sources/storage/statvfs.h"
#include "model/storage.h"
#include "util/fileio.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct storage_state {
    struct pna_roots roots;
    const char *rel;
};

static int storage_init(void **state, const struct pna_config *cfg, const void *settings,
                        char *err, size_t errlen)
{
    const struct pna_storage_settings *set = settings;
    char path[512];
    struct stat sb;
    const char *rel = set->kubelet_root;
    if (pna_path(path, sizeof path, cfg->roots.rootfs, "/%s", rel) < 0 || stat(path, &sb) < 0 ||
        !S_ISDIR(sb.st_mode)) {
        snprintf(err, errlen, "no kubelet root directory %.120s", path);
        return PNA_POLLER_DISABLED;
    }
    struct storage_state *st = calloc(1, sizeof *st);
    if (!st) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    st->roots = cfg->roots;
    st->rel = rel;
    *state = st;
    return 0;
}

static void destroy_snap(struct pna_snap *snap)
{
    free(snap);
}

static int storage_collect(void *state, const struct pna_snap *prev,
                           const struct pna_poller_inputs *in, struct pna_snap **out,
                           char *err, size_t errlen)
{
    (void)in; /* reads no other domain */
    struct storage_state *st = state;
    (void)prev;
    struct pna_storage_snap *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (pna_storage_statvfs(&st->roots, st->rel, &s->node_fs, s->path, sizeof s->path,
                            err, errlen) < 0) {
        free(s);
        return -1;
    }
    /* Show the directory as the host names it, not under --rootfs. */
    snprintf(s->path, sizeof s->path, "/%s", st->rel[0] == '/' ? st->rel + 1 : st->rel);
    pna_snap_init(&s->base, destroy_snap);
    s->base.taken_ms = pna_now_ms();
    *out = &s->base;
    return 0;
}

static void storage_fini(void *state)
{
    free(state);
}

/* The storage poller's token (docs/configuration.md, "Containers and
 * Kubernetes"). */
static const struct pna_config_key storage_keys[] = {
    { .token = "kubeletRoot", .type = PNA_KEY_STRING,
      .offset = offsetof(struct pna_storage_settings, kubelet_root), .def_str = "var/lib/kubelet" },
    { .token = NULL },
};

const struct pna_poller_ops pna_storage_poller = {
    .name = "storage",
    .index = 7,
    .domain = PNA_DOM_STORAGE,
    .default_interval_ms = 60000,
    /* statvfs() of a hung network filesystem blocks: the core's watchdog
     * reports it rather than this poller waiting. */
    .default_timeout_ms = 2000,
    .keys = storage_keys,
    .settings_size = sizeof(struct pna_storage_settings),
    .init = storage_init,
    .collect = storage_collect,
    .fini = storage_fini,
};
