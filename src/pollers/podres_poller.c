/* pollers/podres_poller.c -- the "podresources" poller: the kubelet's
 * pod-resources API (List and GetAllocatableResources) on its unix socket,
 * each id resolved to what it names on this node, each DRA claim's device
 * through the node's CDI specs (sources/kubernetes/dra.h).  Shown as disabled, and
 * retried quietly, while the socket does not exist (a node without a
 * kubelet); a socket that stops answering is an error like any source's, the
 * last good rows still served. */
#include "pna_autoconf.h"
#include "core/config.h"
#include "model/kubernetes/podres.h"
#include "pollers/pollers.h"
#include "util/fileio.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#if HAVE_PROTOBUF_C
#include "sources/containers/cdi.h"
#include "sources/kubernetes/dra.h"
#include "sources/kubernetes/podresources.h"
#include "transport/grpc_client.h"
#endif

#define PODRES_CALL_TIMEOUT_MS 2000

#if HAVE_PROTOBUF_C

struct podres_state {
    struct pna_roots roots;
    char socket[512];
    const char *node_name;   /* nodeName, NULL unset: carried into each snapshot */
    struct pna_grpc_client *grpc;
    struct pna_cdi_registry *cdi;   /* the node's CDI specs, for DRA devices; cached by mtime */
};

/* What the DRA devices of one poll left unresolved (plain rows), said as
 * the poll's partial error. */
struct dra_misses {
    unsigned count;
    char first[200];
};

static bool socket_present(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISSOCK(st.st_mode);
}

static int podres_init(void **state, const struct pna_config *cfg, const void *settings,
                       char *err, size_t errlen)
{
    const char *sock = ((const struct pna_podres_settings *)settings)->socket;
    char path[512];
    /* Under the rootfs root, whether the path was written absolute or not. */
    if (pna_path(path, sizeof path, cfg->roots.rootfs, "/%s", sock + strspn(sock, "/")) < 0) {
        snprintf(err, errlen, "podResourcesSocket: path too long");
        return -1;
    }
    if (!socket_present(path)) {
        snprintf(err, errlen, "no kubelet pod-resources socket at %s", path);
        return PNA_POLLER_ABSENT;
    }
    struct podres_state *st = calloc(1, sizeof *st);
    if (!st || !(st->grpc = pna_grpc_client_new())) {
        free(st);
        snprintf(err, errlen, "cannot set up libcurl with HTTP/2");
        return -1;
    }
    st->roots = cfg->roots;
    st->node_name = cfg->node_name;
    st->cdi = pna_cdi_registry_new();   /* NULL (out of memory): no DRA device resolves */
    memcpy(st->socket, path, sizeof st->socket);
    *state = st;
    return 0;
}

/* Take the DRA part of D into R and resolve the device (a miss is counted
 * in MISSES: the row stays, kind other). */
static void add_dra(struct podres_state *st, struct pna_podres_row *r, struct pna_podres_device *d,
                    struct dra_misses *misses)
{
    r->dra = d->dra;
    d->dra = NULL;
    char why[200];
    if (!pna_dra_resolve(&st->roots, st->cdi, r, why, sizeof why) && !misses->count++)
        pna_strlcpy(misses->first, why, sizeof misses->first);
}

static int add_row(struct pna_podres_snap *s, struct pna_podres_device *d, bool assigned,
                   struct podres_state *st, struct dra_misses *misses)
{
    struct pna_podres_row *r = pna_podres_add(s);
    if (!r)
        return -1;
    r->assigned = assigned;
    r->allocatable = !assigned;
    r->numa_node = d->numa_node;
    memcpy(r->resource, d->resource, sizeof r->resource);
    memcpy(r->id, d->id, sizeof r->id);
    if (assigned) {
        memcpy(r->pod_name, d->pod_name, sizeof r->pod_name);
        memcpy(r->pod_namespace, d->pod_namespace, sizeof r->pod_namespace);
        memcpy(r->container, d->container, sizeof r->container);
    }
    if (d->dra)
        add_dra(st, r, d, misses);
    else
        pna_podres_rdma_of(&st->roots, r->id, r->rdma_dev, sizeof r->rdma_dev);
    return 0;
}

/* One row per assignment, then one per allocatable id no container holds;
 * an assignment of an allocatable id is marked so. */
static int build_rows(struct pna_podres_snap *s, struct pna_podres_set *assigned,
                      struct pna_podres_set *allocatable, struct podres_state *st,
                      struct dra_misses *misses)
{
    for (size_t i = 0; i < assigned->count; i++)
        if (add_row(s, &assigned->rows[i], true, st, misses) < 0)
            return -1;
    size_t n_assigned = s->count;
    for (size_t i = 0; i < allocatable->count; i++) {
        struct pna_podres_device *d = &allocatable->rows[i];
        bool held = false;
        for (size_t j = 0; j < n_assigned; j++) {
            struct pna_podres_row *r = &s->rows[j];
            /* A DRA device is never allocatable: GetAllocatableResources
             * lists device plugins' ids alone. */
            if (!pna_podres_row_is_dra(r) && strcmp(r->id, d->id) == 0 &&
                strcmp(r->resource, d->resource) == 0) {
                r->allocatable = true;
                if (r->numa_node < 0)
                    r->numa_node = d->numa_node;
                held = true;
            }
        }
        if (!held && add_row(s, d, false, st, misses) < 0)
            return -1;
    }
    return 0;
}

/* The poll's partial error for its DRA devices: those left plain rows, and
 * malformed CDI spec files (skipped, the others still read). */
static void dra_partial(const struct podres_state *st, bool has_dra, const struct dra_misses *m,
                        char *err, size_t errlen)
{
    const char *cdi_why = "";
    unsigned cdi_bad = has_dra && st->cdi ? pna_cdi_registry_error(st->cdi, &cdi_why) : 0;
    if (m->count)
        snprintf(err, errlen, "%u DRA device(s) not resolved, kept as plain rows: %s%s", m->count,
                 m->first, cdi_bad ? " (and malformed CDI specs)" : "");
    else if (cdi_bad)
        snprintf(err, errlen, "%u malformed CDI spec(s), skipped: %s", cdi_bad, cdi_why);
}

static void destroy_snap(struct pna_snap *snap)
{
    pna_podres_snap_free((struct pna_podres_snap *)snap);
}

static int podres_collect(void *state, const struct pna_snap *prev,
                          const struct pna_poller_inputs *in, struct pna_snap **out,
                          char *err, size_t errlen)
{
    (void)in; /* reads no other domain: GPUs are joined at render time */
    struct podres_state *st = state;
    struct pna_podres_set assigned, allocatable;
    int has_allocatable = 0;
    pna_podres_set_init(&assigned);
    pna_podres_set_init(&allocatable);
    if (pna_podres_fetch(st->grpc, st->socket, PODRES_CALL_TIMEOUT_MS, &assigned, &allocatable,
                         &has_allocatable, err, errlen) < 0)
        return -1;
    /* The CDI specs are looked at only when a claim needs them: a stat per
     * spec file, a parse only of a new or changed one. */
    bool has_dra = assigned.n_dra > 0;
    if (has_dra && st->cdi)
        pna_cdi_registry_refresh(st->cdi, &st->roots);
    struct dra_misses misses = { 0, "" };
    struct pna_podres_snap *s = calloc(1, sizeof *s);
    int rc = s ? build_rows(s, &assigned, &allocatable, st, &misses) : -1;
    if (rc == 0)
        rc = pna_podres_finish(s, (const struct pna_podres_snap *)prev);
    if (s) {
        s->socket_seen = true;
        s->has_allocatable = has_allocatable != 0;
        s->dropped = assigned.dropped + allocatable.dropped;
        pna_strlcpy(s->node_name, st->node_name ? st->node_name : "", sizeof s->node_name);
    }
    pna_podres_set_free(&assigned);
    pna_podres_set_free(&allocatable);
    if (rc < 0) {
        pna_podres_snap_free(s);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    pna_snap_init(&s->base, destroy_snap);
    s->base.taken_ms = pna_now_ms();
    *out = &s->base;
    if (s->dropped)
        snprintf(err, errlen, "%llu device ids too long to keep whole or over %u per answer "
                 "(%u DRA devices), left out", (unsigned long long)s->dropped,
                 (unsigned)PNA_PODRES_MAX_DEVICES, (unsigned)PNA_PODRES_MAX_DRA_DEVICES);
    else
        dra_partial(st, has_dra, &misses, err, errlen);
    return 0;
}

static void podres_fini(void *state)
{
    struct podres_state *st = state;
    if (!st)
        return;
    pna_grpc_client_free(st->grpc);
    pna_cdi_registry_free(st->cdi);
    free(st);
}

#else /* !HAVE_PROTOBUF_C */

static int podres_init(void **state, const struct pna_config *cfg, const void *settings,
                       char *err, size_t errlen)
{
    (void)state;
    (void)cfg;
    (void)settings;
    snprintf(err, errlen, "built without protobuf-c: the kubelet pod-resources API is not read");
    return PNA_POLLER_DISABLED;
}

static int podres_collect(void *state, const struct pna_snap *prev,
                          const struct pna_poller_inputs *in, struct pna_snap **out,
                          char *err, size_t errlen)
{
    (void)state, (void)prev, (void)in, (void)out;
    snprintf(err, errlen, "built without protobuf-c");
    return -1;
}

static void podres_fini(void *state)
{
    (void)state;
}

#endif

/* The podresources poller's token (docs/configuration.md, "Containers and
 * Kubernetes"), taken whether the API is built or not; "" means the default. */
static const struct pna_config_key podres_keys[] = {
    { .token = "podResourcesSocket", .type = PNA_KEY_STRING,
      .offset = offsetof(struct pna_podres_settings, socket),
      .def_str = "/var/lib/kubelet/pod-resources/kubelet.sock", .empty_is_default = true },
    { .token = NULL },
};

const struct pna_poller_ops pna_podres_poller = {
    .name = "podresources",
    .index = 8,
    .domain = PNA_DOM_PODRES,
    .default_interval_ms = 10000,
    .default_timeout_ms = 3 * PODRES_CALL_TIMEOUT_MS,
    .keys = podres_keys,
    .settings_size = sizeof(struct pna_podres_settings),
    .init = podres_init,
    .collect = podres_collect,
    .fini = podres_fini,
};
