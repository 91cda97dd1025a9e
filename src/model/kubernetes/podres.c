/* model/kubernetes/podres.c -- the pod-resources rows: what an id or a DRA
 * device's nodes name, row order and indexes (see podres.h). */
#include "pna_autoconf.h"
#include "model/kubernetes/podres.h"
#include "model/containers.h"
#include "model/gpu/gpu.h"
#include "model/row_index.h"
#include "util/array.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct pna_podres_row *pna_podres_add(struct pna_podres_snap *s)
{
    if (PNA_ARRAY_RESERVE(s->rows, s->cap, s->count + 1) != 0)
        return NULL;
    struct pna_podres_row *r = &s->rows[s->count++];
    memset(r, 0, sizeof *r);
    r->numa_node = -1;
    return r;
}

struct pna_podres_dra *pna_podres_dra_new(void)
{
    struct pna_podres_dra *d = calloc(1, sizeof *d);
    if (d) {
        d->nv_minor = d->render_minor = -1;
        d->mig_caps[0] = d->mig_caps[1] = -1;
    }
    return d;
}

bool pna_podres_has_assigned(const struct pna_podres_snap *s, const char *resource,
                             const char *id)
{
    for (size_t i = 0; i < s->count; i++)
        if (s->rows[i].assigned && strcmp(s->rows[i].id, id) == 0 &&
            strcmp(s->rows[i].resource, resource) == 0)
            return true;
    return false;
}

static bool starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* NVIDIA's device plugin names a share of a GPU (time-slicing, MPS) by the
 * GPU's UUID and a replica number: "GPU-<uuid>::<n>". */
static void gpu_key_of(const char *id, char *key, size_t cap)
{
    const char *sep = strstr(id, "::");
    size_t n = sep ? (size_t)(sep - id) : strlen(id);
    if (n >= cap)
        n = cap - 1;
    memcpy(key, id, n);
    key[n] = '\0';
}

/* N of PATH when it is PREFIX followed by a decimal number alone; -1 else. */
static int32_t numbered(const char *path, const char *prefix)
{
    size_t n = strlen(prefix);
    if (strncmp(path, prefix, n) != 0 || !path[n] || strlen(path + n) > 9 ||
        strspn(path + n, "0123456789") != strlen(path + n))
        return -1;
    return (int32_t)strtol(path + n, NULL, 10);
}

#define NVIDIA_MAJOR 195
#define NVIDIA_MINOR_CTL 254   /* 254 nvidia-modeset, 255 nvidiactl: no one GPU's */

/* What a DRA device's nodes are: the GPU's /dev/nvidiaN, its MIG access
 * capabilities, an AMD render node.  The host path names the host's device
 * (a spec may give the container another path); a node whose path says
 * none of these but has NVIDIA's fixed major and a GPU's minor is the GPU
 * too. */
static void read_dra_node(struct pna_podres_dra *r, const struct pna_podres_node *n,
                          size_t *ncaps)
{
    const char *path = n->host_path[0] ? n->host_path : n->path;
    int32_t v;
    if ((v = numbered(path, "/dev/nvidia-caps/nvidia-cap")) >= 0) {
        if (*ncaps < 2)
            r->mig_caps[(*ncaps)++] = v;
    } else if ((v = numbered(path, "/dev/dri/renderD")) >= 0) {
        r->render_minor = v;
    } else if ((v = numbered(path, "/dev/nvidia")) >= 0) {
        r->nv_minor = v;
    } else if (n->has_numbers && n->type != 'b' && n->major == NVIDIA_MAJOR &&
               n->minor < NVIDIA_MINOR_CTL && strncmp(path, "/dev/nvidia", 11) != 0) {
        r->nv_minor = (int32_t)n->minor;
    }
}

static void read_dra_nodes(struct pna_podres_dra *r)
{
    size_t ncaps = 0;
    r->nv_minor = r->render_minor = -1;
    r->mig_caps[0] = r->mig_caps[1] = -1;
    for (size_t i = 0; i < r->n_nodes; i++)
        read_dra_node(r, &r->nodes[i], &ncaps);
}

/* A DRA device is what its nodes (or its name, for a NIC) resolved to;
 * nothing resolved: a plain row. */
static void classify_dra(struct pna_podres_row *r)
{
    const struct pna_podres_dra *d = r->dra;
    read_dra_nodes(r->dra);
    if (d->mig_caps[0] >= 0)
        r->kind = PNA_POD_RESOURCE_KIND_MIG;
    else if (d->nv_minor >= 0 || d->render_minor >= 0 || r->gpu_key[0])
        r->kind = PNA_POD_RESOURCE_KIND_GPU;
    else if (r->rdma_dev[0])
        r->kind = PNA_POD_RESOURCE_KIND_RDMA;
    else
        r->kind = PNA_POD_RESOURCE_KIND_OTHER;
}

static void classify(struct pna_podres_row *r)
{
    if (pna_podres_row_is_dra(r)) {
        classify_dra(r);   /* gpu_key is the poller's (an AMD GPU's PCI address) */
        return;
    }
    r->gpu_key[0] = '\0';
    if (starts_with(r->id, "MIG-") || starts_with(r->resource, "nvidia.com/mig-")) {
        r->kind = PNA_POD_RESOURCE_KIND_MIG;
        gpu_key_of(r->id, r->gpu_key, sizeof r->gpu_key);
    } else if (r->rdma_dev[0]) {
        r->kind = PNA_POD_RESOURCE_KIND_RDMA;
    } else if (starts_with(r->id, "GPU-") || starts_with(r->resource, "nvidia.com/gpu") ||
               starts_with(r->resource, "amd.com/gpu")) {
        r->kind = PNA_POD_RESOURCE_KIND_GPU;
        gpu_key_of(r->id, r->gpu_key, sizeof r->gpu_key);
    } else if (strstr(r->resource, "rdma") || strstr(r->resource, "hca")) {
        r->kind = PNA_POD_RESOURCE_KIND_RDMA;   /* a shared-device slot: names no one device */
    } else {
        r->kind = PNA_POD_RESOURCE_KIND_OTHER;
    }
}

static int cmp_rows(const void *a, const void *b)
{
    const struct pna_podres_row *x = a, *y = b;
    int c;
    if ((c = strcmp(x->pod_namespace, y->pod_namespace)) || (c = strcmp(x->pod_name, y->pod_name)) ||
        (c = strcmp(x->container, y->container)) || (c = strcmp(x->resource, y->resource)) ||
        (c = strcmp(x->id, y->id)))
        return c;
    /* DRA devices (resource and id empty) after a device plugin's, by
     * claim, then driver, pool, device. */
    if (!x->dra || !y->dra)
        return (x->dra != NULL) - (y->dra != NULL);
    const struct pna_podres_dra *p = x->dra, *q = y->dra;
    if ((c = strcmp(p->claim_namespace, q->claim_namespace)) ||
        (c = strcmp(p->claim_name, q->claim_name)) || (c = strcmp(p->driver, q->driver)) ||
        (c = strcmp(p->pool, q->pool)))
        return c;
    return strcmp(p->device, q->device);
}


/* The identity hashed for a new row's index. */
static uint32_t row_key(const void *ctx, size_t i)
{
    const struct pna_podres_row *r = &((const struct pna_podres_snap *)ctx)->rows[i];
    const struct pna_podres_dra *d = r->dra;
    char buf[sizeof r->pod_namespace + sizeof r->pod_name + sizeof r->container +
             sizeof r->resource + sizeof r->id + sizeof d->claim_namespace +
             sizeof d->claim_name + sizeof d->driver + sizeof d->pool + sizeof d->device + 10];
    size_t n = 0;
    const char *parts[] = { r->pod_namespace, r->pod_name, r->container, r->resource, r->id,
                            d ? d->claim_namespace : "", d ? d->claim_name : "",
                            d ? d->driver : "", d ? d->pool : "", d ? d->device : "" };
    /* A device plugin's row hashes its first five parts alone, as before DRA. */
    size_t nparts = d ? sizeof parts / sizeof parts[0] : 5;
    for (size_t k = 0; k < nparts; k++) {
        size_t len = strlen(parts[k]);
        memcpy(buf + n, parts[k], len);
        n += len;
        buf[n++] = '/';
    }
    buf[n - 1] = '\0';
    return pna_row_index_hash(0, buf);
}

/* Counted once per poll (pna_podres_finish), not per request: a device
 * several containers hold (an init container's, reused) is one row per
 * holder, so each allocatable id is counted once by comparing it with every
 * row before it. */
/* Whether rows A and B of one snapshot are the same GPU or MIG device of
 * the same resource. */
static bool same_device(const struct pna_podres_row *a, const struct pna_podres_row *b)
{
    return strcmp(a->id, b->id) == 0 && strcmp(a->resource, b->resource) == 0;
}

static bool is_gpu_row(const struct pna_podres_row *r)
{
    return r->kind == PNA_POD_RESOURCE_KIND_GPU || r->kind == PNA_POD_RESOURCE_KIND_MIG;
}

/* Distinct GPU and MIG devices among the rows that are allocatable (ASSIGNED
 * false) or assigned (ASSIGNED true).  Rows are few (one per device id): the
 * quadratic walk is cheaper than a set. */
static uint32_t count_gpus(const struct pna_podres_snap *s, bool assigned)
{
    uint32_t n = 0;
    for (size_t i = 0; i < s->count; i++) {
        const struct pna_podres_row *r = &s->rows[i];
        if ((assigned ? !r->assigned : !r->allocatable) || !is_gpu_row(r))
            continue;
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = (assigned ? s->rows[j].assigned : s->rows[j].allocatable) &&
                   same_device(&s->rows[j], r);
        n += !seen;
    }
    return n;
}

int pna_podres_finish(struct pna_podres_snap *s, const struct pna_podres_snap *prev)
{
    for (size_t i = 0; i < s->count; i++)
        classify(&s->rows[i]);
    if (s->count > 1)
        qsort(s->rows, s->count, sizeof *s->rows, cmp_rows);
    s->gpus_allocatable = count_gpus(s, false);
    s->gpus_assigned = count_gpus(s, true);
    if (!s->count)
        return 0;
    uint32_t *old = calloc(s->count * 2, sizeof *old);
    if (!old)
        return -1;
    /* Both sorted the same way: one merge walk finds each row's old index. */
    for (size_t i = 0, j = 0; prev && i < s->count && j < prev->count;) {
        int c = cmp_rows(&s->rows[i], &prev->rows[j]);
        if (c == 0)
            old[i++] = prev->rows[j++].index;
        else if (c < 0)
            i++;
        else
            j++;
    }
    pna_row_index_assign(s->count, old, old + s->count, row_key, s);
    for (size_t i = 0; i < s->count; i++)
        s->rows[i].index = old[s->count + i];
    free(old);
    return 0;
}

/* "0000:3b:00.0" and "3b:00.0" name the GPU whose canonical bus id is
 * "0000:3b:00.0", whatever the case of the hex digits. */
static bool same_pci(const char *key, const char *pci_bus_id)
{
    if (!pci_bus_id[0])
        return false;
    if (strcasecmp(key, pci_bus_id) == 0)
        return true;
    return strlen(pci_bus_id) > 5 && strcasecmp(key, pci_bus_id + 5) == 0;
}

bool pna_podres_names_container(const struct pna_podres_row *r, const struct pna_container *c)
{
    return c->pod_name[0] && strcmp(r->pod_namespace, c->pod_namespace) == 0 &&
           strcmp(r->pod_name, c->pod_name) == 0 && strcmp(r->container, c->name) == 0;
}

bool pna_podres_names_gpu(const char *gpu_key, const char *uuid, const char *pci_bus_id)
{
    if (!gpu_key[0])
        return false;
    return (uuid[0] && strcmp(gpu_key, uuid) == 0) || same_pci(gpu_key, pci_bus_id);
}

bool pna_podres_row_on_gpu(const struct pna_podres_row *r, const struct pna_gpu *g)
{
    /* The PCI address behind a DRA device's nodes says which GPU; its
     * minor only where sysfs and procfs did not say (a minor is NVML's and
     * the driver's, and two sources could disagree). */
    if (r->gpu_key[0])
        return pna_podres_names_gpu(r->gpu_key, g->uuid, g->pci_bus_id);
    return r->dra && r->dra->nv_minor >= 0 && g->has_minor &&
           g->minor == (uint32_t)r->dra->nv_minor;
}

const struct pna_gpu_mig *pna_podres_row_mig(const struct pna_podres_row *r,
                                             const struct pna_gpu_snap *gs)
{
    const struct pna_gpu_mig *m = pna_gpu_mig_by_uuid(gs, r->gpu_key);
    const int32_t *caps = r->dra ? r->dra->mig_caps : NULL;
    for (size_t i = 0; !m && gs && caps && caps[0] >= 0 && i < gs->mig_count; i++)
        for (size_t k = 0; k < 2; k++)
            if (gs->migs[i].has_cap && caps[k] >= 0 && gs->migs[i].cap_minor == (uint32_t)caps[k])
                m = &gs->migs[i];
    return m;
}

bool pna_podres_row_on_partition(const struct pna_podres_row *r,
                                 const struct pna_gpu_partition *p)
{
    return r->dra && r->dra->render_minor >= 0 && p->has_render &&
           p->render_minor == (uint32_t)r->dra->render_minor;
}

uint32_t pna_podres_gpus_allocatable(const struct pna_podres_snap *s)
{
    return s->gpus_allocatable;
}

uint32_t pna_podres_gpus_assigned(const struct pna_podres_snap *s)
{
    return s->gpus_assigned;
}

void pna_podres_snap_free(struct pna_podres_snap *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->count; i++)
        free(s->rows[i].dra);
    free(s->rows);
    free(s);
}
