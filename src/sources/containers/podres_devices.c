/* sources/containers/podres_devices.c -- the device node(s) each assigned
 * pod-resources row stands for, added to its container (see
 * podres_devices.h). */
#include "pna_autoconf.h"
#include "sources/containers/podres_devices.h"
#include "sources/containers/devmap.h"
#include "sources/gpu/mig_caps.h"
#include "core/roots.h"
#include "util/array.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Fixed major numbers (the kernel's devices.txt); uverbsN is minor 192+N. */
#define NVIDIA_MAJOR 195
#define DRM_MAJOR 226
#define INFINIBAND_MAJOR 231
#define UVERBS_MINOR_BASE 192
#define MAX_ROW_NODES PNA_PODRES_DRA_NODES   /* a DRA device's nodes; a device
                                                plugin's MIG device: its capability and its GPU */

struct lookup {
    const struct pna_roots *roots;
    const struct pna_gpu_snap *gpus;
    bool nv_loaded;       /* procfs is read once per call, and only when needed */
    size_t nnv;
    struct pna_nvidia_gpu nv[PNA_DEVMAP_MAX_NVIDIA_GPUS];
};

static const struct pna_nvidia_gpu *nvidia_gpus(struct lookup *lk, size_t *n)
{
    if (!lk->nv_loaded) {
        lk->nnv = pna_devmap_nvidia_gpus(lk->roots, lk->nv, PNA_DEVMAP_MAX_NVIDIA_GPUS);
        lk->nv_loaded = true;
    }
    *n = lk->nnv;
    return lk->nv;
}

/* The minor number of the NVIDIA GPU with UUID (when not NULL), else the
 * one with PCI key KEY; -1 unknown. */
static int32_t nvidia_minor(struct lookup *lk, const char *uuid, uint32_t key)
{
    size_t n;
    const struct pna_nvidia_gpu *g = nvidia_gpus(lk, &n);
    for (size_t i = 0; i < n; i++)
        if (uuid ? g[i].uuid[0] && strcmp(g[i].uuid, uuid) == 0 : g[i].pci_key == key)
            return g[i].minor;
    return -1;
}

/* A character device the kernel numbers MAJOR:MINOR at PATH. */
static void numbered_node(struct pna_container_device *d, const char *path, uint32_t major,
                          uint32_t minor)
{
    memset(d, 0, sizeof *d);
    snprintf(d->path, sizeof d->path, "%s", path);
    d->type = 'c';
    d->has_numbers = true;
    d->major = major;
    d->minor = minor;
    d->source = PNA_DEVS_POD_RESOURCES;
    pna_devmap_classify(d);
}

/* /dev/nvidiaMINOR; nothing when the minor is unknown. */
static size_t nvidia_gpu_node(int32_t minor, struct pna_container_device *out)
{
    if (minor < 0)
        return 0;
    char path[32];
    snprintf(path, sizeof path, "/dev/nvidia%d", minor);
    numbered_node(out, path, NVIDIA_MAJOR, (uint32_t)minor);
    return 1;
}

/* The AMD device plugin names a GPU by its PCI address. */
static size_t amd_gpu_nodes(struct lookup *lk, const struct pna_podres_row *r,
                            struct pna_container_device *out)
{
    int32_t n = pna_devmap_render_of_pci(lk->roots, r->gpu_key);
    if (n < 0)
        return 0;
    char path[32];
    snprintf(path, sizeof path, "/dev/dri/renderD%d", n);
    numbered_node(out, path, DRM_MAJOR, (uint32_t)n);
    return 1;
}

/* The parent GPU's minor and the instance ids of MIG device R: the old
 * device plugin's id says them ("MIG-GPU-<uuid>/<gi>/<ci>"); a MIG UUID is
 * looked up in the GPU snapshot.  False when neither knows it. */
static bool mig_instance(struct lookup *lk, const struct pna_podres_row *r, int32_t *minor,
                         uint32_t *gi, uint32_t *ci)
{
    char uuid[72] = "GPU-";
    char tail;
    if (sscanf(r->gpu_key, "MIG-GPU-%63[^/]/%u/%u%c", uuid + 4, gi, ci, &tail) == 3) {
        *minor = nvidia_minor(lk, uuid, 0);
        return *minor >= 0;
    }
    const struct pna_gpu_mig *m = pna_gpu_mig_by_uuid(lk->gpus, r->gpu_key);
    if (!m)
        return false;
    *gi = m->gpu_instance;
    *ci = m->compute_instance;
    *minor = nvidia_minor(lk, NULL, m->gpu_index);
    return *minor >= 0;
}

/* The MIG device's access capability (its major is dynamic: taken from the
 * node when devfs has it, else the path alone names it) and its GPU. */
static size_t mig_nodes(struct lookup *lk, const struct pna_podres_row *r,
                        struct pna_container_device *out)
{
    int32_t minor;
    uint32_t gi, ci;
    if (!mig_instance(lk, r, &minor, &gi, &ci))
        return 0;
    size_t n = 0;
    int32_t cap = pna_gpu_mig_cap_of(lk->roots, (uint32_t)minor, gi, ci);
    if (cap >= 0) {
        struct pna_container_device *d = &out[n++];
        memset(d, 0, sizeof *d);
        snprintf(d->path, sizeof d->path, "/dev/nvidia-caps/nvidia-cap%d", cap);
        d->source = PNA_DEVS_POD_RESOURCES;
        if (!pna_devmap_host_numbers(lk->roots, d->path, d))
            pna_devmap_classify(d);
    }
    return n + nvidia_gpu_node(minor, out + n);
}

static size_t rdma_nodes(struct lookup *lk, const struct pna_podres_row *r,
                         struct pna_container_device *out)
{
    int32_t n = pna_devmap_uverbs_of(lk->roots, r->rdma_dev);
    if (n < 0)
        return 0;
    char path[40];
    snprintf(path, sizeof path, "/dev/infiniband/uverbs%d", n);
    numbered_node(out, path, INFINIBAND_MAJOR, UVERBS_MINOR_BASE + (uint32_t)n);
    return 1;
}

/* A DRA device's nodes, as its CDI spec gave them (the container's path,
 * numbers from the spec or else from the host's node). */
static size_t dra_nodes(struct lookup *lk, const struct pna_podres_row *r,
                        struct pna_container_device *out)
{
    for (size_t i = 0; i < r->dra->n_nodes; i++) {
        const struct pna_podres_node *n = &r->dra->nodes[i];
        struct pna_container_device *d = &out[i];
        memset(d, 0, sizeof *d);
        snprintf(d->path, sizeof d->path, "%s", n->path);
        d->type = n->type;
        d->has_numbers = n->has_numbers;
        d->major = n->major;
        d->minor = n->minor;
        d->source = PNA_DEVS_DRA_CLAIM;
        if (d->has_numbers ||
            !pna_devmap_host_numbers(lk->roots, n->host_path[0] ? n->host_path : n->path, d))
            pna_devmap_classify(d);
    }
    return r->dra->n_nodes;
}

/* The nodes row R stands for, into OUT (MAX_ROW_NODES); how many. */
static size_t row_nodes(struct lookup *lk, const struct pna_podres_row *r,
                        struct pna_container_device *out)
{
    if (pna_podres_row_is_dra(r))
        return dra_nodes(lk, r, out);
    switch (r->kind) {
    case PNA_POD_RESOURCE_KIND_GPU:
        if (strncmp(r->resource, "amd.com/", 8) == 0)
            return amd_gpu_nodes(lk, r, out);
        return r->gpu_key[0] ? nvidia_gpu_node(nvidia_minor(lk, r->gpu_key, 0), out) : 0;
    case PNA_POD_RESOURCE_KIND_MIG:
        return mig_nodes(lk, r, out);
    case PNA_POD_RESOURCE_KIND_RDMA:
        return r->rdma_dev[0] ? rdma_nodes(lk, r, out) : 0;
    default:
        return 0;   /* no node known for it */
    }
}

/* Append the nodes of PODRES's rows naming row I of SET to *EXTRA. */
static int collect_row(struct lookup *lk, const struct pna_podres_snap *podres,
                       const struct pna_container_set *set, size_t i,
                       struct pna_container_extra **extra, size_t *n, size_t *cap)
{
    for (size_t k = 0; k < podres->count; k++) {
        if (!podres->rows[k].assigned || !pna_podres_names_container(&podres->rows[k], &set->rows[i]))
            continue;
        struct pna_container_device nodes[MAX_ROW_NODES];
        size_t m = row_nodes(lk, &podres->rows[k], nodes);
        if (m && PNA_ARRAY_RESERVE(*extra, *cap, *n + m) != 0)
            return -1;
        for (size_t j = 0; j < m; j++)
            (*extra)[(*n)++] = (struct pna_container_extra){ i, nodes[j] };
    }
    return 0;
}

int pna_podres_devices_apply(const struct pna_roots *roots, const struct pna_podres_snap *podres,
                             const struct pna_gpu_snap *gpus, struct pna_container_set *set)
{
    if (!podres || !podres->count)
        return 0;
    struct lookup *lk = calloc(1, sizeof *lk);
    if (!lk)
        return -1;
    lk->roots = roots;
    lk->gpus = gpus;
    struct pna_container_extra *extra = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < set->count; i++)
        rc = collect_row(lk, podres, set, i, &extra, &n, &cap);
    if (rc == 0)
        rc = pna_container_set_add_devices(set, extra, n);
    free(extra);
    free(lk);
    return rc;
}
