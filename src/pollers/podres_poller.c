/* pollers/podres_poller.c -- the "podresources" poller: the kubelet's
 * pod-resources API (List and GetAllocatableResources) on its unix socket,
 * each id resolved to what it names on this node.  Shown as disabled, and
 * retried quietly, while the socket does not exist (a node without a
 * kubelet); a socket that stops answering is an error like any source's, the
 * last good rows still served. */
#include "pna_autoconf.h"
#include "core/config.h"
#include "model/kubernetes/podres.h"
#include "pollers/pollers.h"
#include "util/fileio.h"

#include <dirent.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#if HAVE_PROTOBUF_C
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
    memcpy(st->socket, path, sizeof st->socket);
    *state = st;
    return 0;
}

/* The first entry of DIR that is not "." or "..", into NAME; false if none. */
static bool first_entry(const char *dir, char *name, size_t cap)
{
    DIR *d = opendir(dir);
    if (!d)
        return false;
    const struct dirent *e;
    bool found = false;
    while (!found && (e = readdir(d)))
        if (e->d_name[0] != '.' && strlen(e->d_name) < cap) {
            memcpy(name, e->d_name, strlen(e->d_name) + 1);
            found = true;
        }
    closedir(d);
    return found;
}

/* The RDMA device behind ID when it is a PCI address (an SR-IOV VF, a whole
 * HCA) or a network interface: sysfs bus/pci/devices/<id>/infiniband/<dev>
 * or class/net/<id>/device/infiniband/<dev>.  Ids with '/' or ".." name no
 * sysfs entry of that kind and are not looked up. */
static void resolve_rdma(const struct pna_roots *roots, struct pna_podres_row *r)
{
    if (strchr(r->id, '/') || strstr(r->id, "..") || !r->id[0])
        return;
    char dir[600];
    if (pna_path(dir, sizeof dir, roots->sysfs, "/bus/pci/devices/%s/infiniband", r->id) == 0 &&
        first_entry(dir, r->rdma_dev, sizeof r->rdma_dev))
        return;
    if (pna_path(dir, sizeof dir, roots->sysfs, "/class/net/%s/device/infiniband", r->id) == 0)
        first_entry(dir, r->rdma_dev, sizeof r->rdma_dev);
}

static int add_row(struct pna_podres_snap *s, const struct pna_podres_device *d, bool assigned,
                   const struct pna_roots *roots)
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
    resolve_rdma(roots, r);
    return 0;
}

/* One row per assignment, then one per allocatable id no container holds;
 * an assignment of an allocatable id is marked so. */
static int build_rows(struct pna_podres_snap *s, const struct pna_podres_set *assigned,
                      const struct pna_podres_set *allocatable, const struct pna_roots *roots)
{
    for (size_t i = 0; i < assigned->count; i++)
        if (add_row(s, &assigned->rows[i], true, roots) < 0)
            return -1;
    size_t n_assigned = s->count;
    for (size_t i = 0; i < allocatable->count; i++) {
        const struct pna_podres_device *d = &allocatable->rows[i];
        bool held = false;
        for (size_t j = 0; j < n_assigned; j++) {
            struct pna_podres_row *r = &s->rows[j];
            if (strcmp(r->id, d->id) == 0 && strcmp(r->resource, d->resource) == 0) {
                r->allocatable = true;
                if (r->numa_node < 0)
                    r->numa_node = d->numa_node;
                held = true;
            }
        }
        if (!held && add_row(s, d, false, roots) < 0)
            return -1;
    }
    return 0;
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
    struct pna_podres_snap *s = calloc(1, sizeof *s);
    int rc = s ? build_rows(s, &assigned, &allocatable, &st->roots) : -1;
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
        snprintf(err, errlen, "%llu device ids too long to keep whole or over %u per answer, left out",
                 (unsigned long long)s->dropped, (unsigned)PNA_PODRES_MAX_DEVICES);
    return 0;
}

static void podres_fini(void *state)
{
    struct podres_state *st = state;
    if (!st)
        return;
    pna_grpc_client_free(st->grpc);
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
