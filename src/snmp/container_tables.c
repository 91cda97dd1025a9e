/* snmp/container_tables.c -- primusContainers (count, OOM kills, the container
 * and container-to-device tables), primusStorage (node ephemeral storage and
 * the pod storage table) and primusKubernetes (node name, GPU allocation),
 * answered from the containers, kubelet and storage snapshots.
 *
 * Containers are indexed by their full ID and pods by their UID (strings), so
 * a living row keeps its OID whatever else comes and goes.  Figures a source
 * did not give are absent cells, never zero.  Main thread only (net-snmp). */
#include "pna_autoconf.h"
#include "snmp/container_tables.h"

#include <limits.h>
#include <string.h>

#include "core/cache.h"
#include "model/containers.h"
#include "model/storage.h"
#include "snmp/oids.h"
#include "snmp/table.h"

/* The model's name limits are the MIB's index SIZEs. */
_Static_assert(PNA_CONTAINER_ID_MAX == PNA_MAX_CONTAINER_ID_LEN, "primusContainerId SIZE");
_Static_assert(PNA_CONTAINER_DEVICE_NAME_MAX == PNA_MAX_CONTAINER_DEVICE_PATH_LEN,
               "primusContainerDevicePath SIZE");
_Static_assert(PNA_POD_UID_MAX == PNA_MAX_POD_UID_LEN, "primusPodUid SIZE");

/* A row that cannot be indexed within the MIB's SIZEs (the sources already
 * leave such IDs out; this keeps a bad one from ever reaching an OID) gets
 * the impossible index "" (SIZE starts at 1) and no cells, so no walk shows it. */
static size_t hidden_index(oid *idx)
{
    idx[0] = 0;
    return 1;
}

/* The node storage figures: the kubelet's when it answers, else statvfs.  A
 * kubelet that stopped answering loses its snapshot after staleAfter (the
 * poller core drops it), so age needs no second check here. */
#define KUBELET_STORAGE_MAX_AGE_MS (INT64_MAX / 2)

/* ---- primusContainers scalars ----------------------------------------------- */

static const struct pna_containers_snap *containers_of(const void *ctx)
{
    return ctx;
}

/* Rows the container table shows. */
static uint32_t indexable_containers(const struct pna_container_set *set)
{
    uint32_t n = 0;
    for (size_t i = 0; i < set->count; i++)
        n += pna_container_id_ok(set->rows[i].id);
    return n;
}

static int get_containers_scalar(const void *ctx, unsigned subid, struct pna_cell *out)
{
    const struct pna_containers_snap *s = containers_of(ctx);
    switch (subid) {
    case PNA_SC_CONTAINER_COUNT: return pna_cell_u32(out, indexable_containers(&s->set));
    case PNA_SC_CONTAINER_OOM_KILLS_TOTAL: return pna_cell_counter64(out, s->oom_kills);
    default: return PNA_CELL_ABSENT;
    }
}

static const oid containers_oid[] = { PNA_OID_CONTAINERS };
const struct pna_scalar_def pna_containers_scalars = {
    .name = "primusContainers",
    .group_oid = containers_oid,
    .group_oid_len = OID_LENGTH(containers_oid),
    .domain = PNA_DOM_CONTAINERS,
    .min_subid = PNA_SC_CONTAINER_COUNT,
    .max_subid = PNA_SC_CONTAINER_OOM_KILLS_TOTAL,
    .get = get_containers_scalar,
};

/* ---- primusContainerTable ------------------------------------------------------ */

static size_t container_rows(const void *ctx)
{
    return containers_of(ctx)->set.count;
}

static size_t container_index(const void *ctx, size_t row, oid *idx)
{
    const char *id = containers_of(ctx)->set.rows[row].id;
    if (!pna_container_id_ok(id))
        return hidden_index(idx);
    return pna_index_put_string(idx, PNA_MAX_INDEX_LEN, id);
}

static int runtime_value(uint8_t rt)
{
    switch (rt) {
    case PNA_RUNTIME_CONTAINERD: return PNA_CONTAINER_RUNTIME_CONTAINERD;
    case PNA_RUNTIME_DOCKER: return PNA_CONTAINER_RUNTIME_DOCKER;
    default: return PNA_CONTAINER_RUNTIME_OTHER;
    }
}

static int state_value(uint8_t st)
{
    switch (st) {
    case PNA_CSTATE_CREATED: return PNA_CONTAINER_STATE_CREATED;
    case PNA_CSTATE_RUNNING: return PNA_CONTAINER_STATE_RUNNING;
    case PNA_CSTATE_PAUSED: return PNA_CONTAINER_STATE_PAUSED;
    case PNA_CSTATE_EXITED: return PNA_CONTAINER_STATE_STOPPED;
    default: return PNA_CONTAINER_STATE_UNKNOWN;
    }
}

static int container_cell(const void *ctx, size_t row, unsigned col, struct pna_cell *out)
{
    const struct pna_container *c = &containers_of(ctx)->set.rows[row];
    if (!pna_container_id_ok(c->id))
        return PNA_CELL_ABSENT;
    switch (col) {
    case PNA_COL_CONTAINER_RUNTIME: return pna_cell_int(out, runtime_value(c->runtime));
    case PNA_COL_CONTAINER_NAME: return pna_cell_str(out, c->name);
    case PNA_COL_CONTAINER_POD_NAME: return pna_cell_str(out, c->pod_name);
    case PNA_COL_CONTAINER_POD_NAMESPACE: return pna_cell_str(out, c->pod_namespace);
    case PNA_COL_CONTAINER_POD_UID: return pna_cell_str(out, c->pod_uid);
    case PNA_COL_CONTAINER_IMAGE: return pna_cell_str(out, c->image);
    case PNA_COL_CONTAINER_STATE: return pna_cell_int(out, state_value(c->state));
    case PNA_COL_CONTAINER_START_TIME: {
        int64_t s = c->start_ms > 0 ? c->start_ms / 1000 : 0;
        return pna_cell_u32(out, s > UINT32_MAX ? UINT32_MAX : (uint32_t)s);
    }
    case PNA_COL_CONTAINER_CGROUP_PATH: return pna_cell_str(out, c->cgroup_path);
    case PNA_COL_CONTAINER_MEM_USAGE:
        return c->has_memory ? pna_cell_counter64(out, c->mem_usage_bytes) : PNA_CELL_ABSENT;
    case PNA_COL_CONTAINER_MEM_LIMIT:
        /* 0 = unlimited, which is only known when the cgroup (or spec) was read. */
        if (c->has_limit)
            return pna_cell_counter64(out, c->mem_limit_bytes);
        return c->has_memory ? pna_cell_counter64(out, 0) : PNA_CELL_ABSENT;
    case PNA_COL_CONTAINER_OOM_KILLS:
        return c->has_oom ? pna_cell_counter64(out, c->oom_kills) : PNA_CELL_ABSENT;
    case PNA_COL_CONTAINER_GPU_COUNT: return pna_cell_u32(out, c->gpu_count);
    case PNA_COL_CONTAINER_RDMA_COUNT: return pna_cell_u32(out, c->rdma_count);
    case PNA_COL_CONTAINER_RUNTIME_NS:
        /* Docker's own containers live in containerd's "moby" namespace; the
         * MIB shows the namespace for containerd containers only. */
        return pna_cell_str(out, c->runtime == PNA_RUNTIME_CONTAINERD ? c->rt_namespace : "");
    default: return PNA_CELL_ABSENT;
    }
}

static const oid container_table_oid[] = { PNA_OID_CONTAINER_TABLE };
const struct pna_table_def pna_container_table = {
    .name = "primusContainerTable",
    .table_oid = container_table_oid,
    .table_oid_len = OID_LENGTH(container_table_oid),
    .domain = PNA_DOM_CONTAINERS,
    .min_col = PNA_COL_CONTAINER_RUNTIME,
    .max_col = PNA_COL_CONTAINER_RUNTIME_NS,
    .row_count = container_rows,
    .row_index = container_index,
    .get_cell = container_cell,
};

/* ---- primusContainerDeviceTable -------------------------------------------------- */

static size_t device_rows(const void *ctx)
{
    return containers_of(ctx)->set.dev_count;
}

/* The device's index strings: its container's ID and its name.  The model
 * names every device within PNA_CONTAINER_DEVICE_NAME_MAX (36) characters and the
 * table engine holds PNA_MAX_INDEX_LEN (114) sub-identifiers, the MIB's
 * 1 + 76 + 1 + 36; the budget check below stays as a guard should either
 * limit change.  A path over it is named by its numbers as the MIB says
 * ("/dev/char/MAJ:MIN", at most 23 characters).  A device that fits neither
 * way is not shown.  NAME is BUF or the device's own path. */
struct device_key {
    const char *id;
    const char *name;
    char buf[40];
};

static bool device_key(const struct pna_container_set *set, size_t row, struct device_key *k)
{
    const struct pna_container *c = pna_container_of_device(set, row);
    if (!c || !pna_container_id_ok(c->id))
        return false;
    const struct pna_container_device *d = &set->devs[row];
    size_t budget = PNA_MAX_INDEX_LEN - 2 - strlen(c->id);
    if (budget > PNA_CONTAINER_DEVICE_NAME_MAX)
        budget = PNA_CONTAINER_DEVICE_NAME_MAX;
    k->id = c->id;
    k->name = d->path;
    size_t len = strlen(d->path);
    if (len >= 1 && len <= budget)
        return true;
    len = pna_container_device_number_name(d, k->buf, sizeof k->buf);
    k->name = k->buf;
    return len >= 1 && len <= budget;
}

static size_t device_index(const void *ctx, size_t row, oid *idx)
{
    struct device_key k;
    if (!device_key(&containers_of(ctx)->set, row, &k))
        return hidden_index(idx);
    size_t n = pna_index_put_string(idx, PNA_MAX_INDEX_LEN, k.id);
    return n + pna_index_put_string(idx + n, PNA_MAX_INDEX_LEN - n, k.name);
}

static int device_kind_value(uint8_t kind)
{
    switch (kind) {
    case PNA_DEV_GPU: return PNA_CONTAINER_DEVICE_KIND_GPU;
    case PNA_DEV_RDMA: return PNA_CONTAINER_DEVICE_KIND_RDMA;
    default: return PNA_CONTAINER_DEVICE_KIND_OTHER;
    }
}

static int device_cell(const void *ctx, size_t row, unsigned col, struct pna_cell *out)
{
    const struct pna_container_set *set = &containers_of(ctx)->set;
    const struct pna_container_device *d = &set->devs[row];
    struct device_key k;
    if (!device_key(set, row, &k))
        return PNA_CELL_ABSENT;
    switch (col) {
    case PNA_COL_CONTAINER_DEVICE_KIND: return pna_cell_int(out, device_kind_value(d->kind));
    case PNA_COL_CONTAINER_DEVICE_MAJOR:
        return d->has_numbers ? pna_cell_u32(out, d->major) : PNA_CELL_ABSENT;
    case PNA_COL_CONTAINER_DEVICE_MINOR:
        return d->has_numbers ? pna_cell_u32(out, d->minor) : PNA_CELL_ABSENT;
    case PNA_COL_CONTAINER_DEVICE_GPU: return pna_cell_u32(out, d->gpu_index);
    case PNA_COL_CONTAINER_DEVICE_RDMA: return pna_cell_str(out, d->rdma_dev);
    default: return PNA_CELL_ABSENT;
    }
}

static const oid device_table_oid[] = { PNA_OID_CONTAINER_DEVICE_TABLE };
const struct pna_table_def pna_container_device_table = {
    .name = "primusContainerDeviceTable",
    .table_oid = device_table_oid,
    .table_oid_len = OID_LENGTH(device_table_oid),
    .domain = PNA_DOM_CONTAINERS,
    .min_col = PNA_COL_CONTAINER_DEVICE_KIND,
    .max_col = PNA_COL_CONTAINER_DEVICE_RDMA,
    .row_count = device_rows,
    .row_index = device_index,
    .get_cell = device_cell,
};

/* ---- primusStorage scalars ------------------------------------------------------------ */

static int storage_value(const struct pna_node_storage *s, const struct pna_storage_snap *vfs,
                         unsigned subid, struct pna_cell *out)
{
    switch (subid) {
    case PNA_SC_STORAGE_CAPACITY: return pna_cell_counter64(out, s->capacity_bytes);
    case PNA_SC_STORAGE_AVAILABLE: return pna_cell_counter64(out, s->available_bytes);
    case PNA_SC_STORAGE_USED: return pna_cell_counter64(out, s->used_bytes);
    case PNA_SC_STORAGE_USAGE: return pna_cell_u32(out, s->usage_percent_x100);
    case PNA_SC_STORAGE_SOURCE:
        return pna_cell_int(out, s->source == PNA_STORAGE_KUBELET ? PNA_STORAGE_SOURCE_KUBELET
                                                                  : PNA_STORAGE_SOURCE_STATVFS);
    case PNA_SC_STORAGE_PATH:
        return vfs ? pna_cell_str(out, vfs->path) : PNA_CELL_ABSENT;
    case PNA_SC_STORAGE_INODES:
        return s->inodes ? pna_cell_counter64(out, s->inodes) : PNA_CELL_ABSENT;
    case PNA_SC_STORAGE_INODES_FREE:
        return s->inodes ? pna_cell_counter64(out, s->inodes_free) : PNA_CELL_ABSENT;
    case PNA_SC_STORAGE_INODES_USED:
        return s->inodes && s->inodes >= s->inodes_free
                   ? pna_cell_counter64(out, s->inodes - s->inodes_free)
                   : PNA_CELL_ABSENT;
    default: return PNA_CELL_ABSENT;
    }
}

/* Registered as agent-internal (no single domain): it reads both snapshots.
 * The cell's string points into the storage snapshot, so the snapshots are
 * held here until the next call replaces them (one scalar at a time). */
static struct pna_snap *held_kubelet, *held_storage;

static int get_storage_scalar(const void *ctx, unsigned subid, struct pna_cell *out)
{
    (void)ctx;
    pna_snap_release(held_kubelet);
    pna_snap_release(held_storage);
    held_kubelet = pna_cache_acquire(PNA_DOM_KUBELET);
    held_storage = pna_cache_acquire(PNA_DOM_STORAGE);
    const struct pna_kubelet_snap *k = (const struct pna_kubelet_snap *)held_kubelet;
    const struct pna_storage_snap *v = (const struct pna_storage_snap *)held_storage;
    const struct pna_node_storage *s = pna_node_storage_pick(k, v, pna_now_ms(),
                                                             KUBELET_STORAGE_MAX_AGE_MS);
    return s ? storage_value(s, v, subid, out) : PNA_CELL_ABSENT;
}

static const oid storage_oid[] = { PNA_OID_STORAGE };
const struct pna_scalar_def pna_storage_scalars = {
    .name = "primusStorage",
    .group_oid = storage_oid,
    .group_oid_len = OID_LENGTH(storage_oid),
    .domain = PNA_DOM_NONE,
    .min_subid = PNA_SC_STORAGE_CAPACITY,
    .max_subid = PNA_SC_STORAGE_INODES_USED,
    .get = get_storage_scalar,
};

/* ---- primusPodStorageTable --------------------------------------------------------------- */

static const struct pna_kubelet_snap *kubelet_of(const void *ctx)
{
    return ctx;
}

static size_t pod_rows(const void *ctx)
{
    return kubelet_of(ctx)->pods.count;
}

static size_t pod_index(const void *ctx, size_t row, oid *idx)
{
    const struct pna_pod *p = &kubelet_of(ctx)->pods.rows[row];
    /* A pod without a UID (the kubelet named none, or one over 64
     * characters) has no index: the MIB's index is the UID alone. */
    if (!p->uid[0] || strlen(p->uid) > PNA_POD_UID_MAX)
        return hidden_index(idx);
    return pna_index_put_string(idx, PNA_MAX_INDEX_LEN, p->uid);
}

static int pod_cell(const void *ctx, size_t row, unsigned col, struct pna_cell *out)
{
    const struct pna_pod *p = &kubelet_of(ctx)->pods.rows[row];
    if (!p->uid[0])
        return PNA_CELL_ABSENT;
    switch (col) {
    case PNA_COL_POD_NAME: return pna_cell_str(out, p->name);
    case PNA_COL_POD_NAMESPACE: return pna_cell_str(out, p->namespace_);
    case PNA_COL_POD_STORAGE_USED:
        return p->has_ephemeral ? pna_cell_counter64(out, p->ephemeral_used_bytes) : PNA_CELL_ABSENT;
    case PNA_COL_POD_STORAGE_INODES_USED:
        return p->has_inodes ? pna_cell_counter64(out, p->ephemeral_inodes_used) : PNA_CELL_ABSENT;
    case PNA_COL_POD_STORAGE_LIMIT: return pna_cell_counter64(out, p->ephemeral_limit_bytes);
    default: return PNA_CELL_ABSENT;
    }
}

static const oid pod_table_oid[] = { PNA_OID_POD_STORAGE_TABLE };
const struct pna_table_def pna_pod_storage_table = {
    .name = "primusPodStorageTable",
    .table_oid = pod_table_oid,
    .table_oid_len = OID_LENGTH(pod_table_oid),
    .domain = PNA_DOM_KUBELET,
    .min_col = PNA_COL_POD_NAME,
    .max_col = PNA_COL_POD_STORAGE_LIMIT,
    .row_count = pod_rows,
    .row_index = pod_index,
    .get_cell = pod_cell,
};

/* ---- primusKubernetes scalars ---------------------------------------------------------------- */

static int get_k8s_scalar(const void *ctx, unsigned subid, struct pna_cell *out)
{
    const struct pna_kubelet_snap *k = kubelet_of(ctx);
    switch (subid) {
    case PNA_SC_K8S_NODE_NAME: return pna_cell_str(out, k->node_name);
    case PNA_SC_K8S_GPU_ALLOCATABLE: return pna_cell_u32(out, k->gpu.total);
    case PNA_SC_K8S_GPU_ALLOCATED: return pna_cell_u32(out, k->gpu.allocated);
    case PNA_SC_K8S_GPU_ALLOC_RATE:
        /* 0 without GPUs; capped at the MIB's 10000 should pods hold more
         * than the node's device count. */
        return pna_cell_u32(out, !k->gpu.valid ? 0 : k->gpu.rate_x100 > 10000 ? 10000
                                                                              : k->gpu.rate_x100);
    case PNA_SC_K8S_POD_COUNT: {
        uint32_t n = 0;
        for (size_t i = 0; i < k->pods.count; i++)
            n += k->pods.rows[i].phase == PNA_POD_RUNNING;
        return pna_cell_u32(out, n);
    }
    default: return PNA_CELL_ABSENT;
    }
}

static const oid k8s_oid[] = { PNA_OID_KUBERNETES };
const struct pna_scalar_def pna_kubernetes_scalars = {
    .name = "primusKubernetes",
    .group_oid = k8s_oid,
    .group_oid_len = OID_LENGTH(k8s_oid),
    .domain = PNA_DOM_KUBELET,
    .min_subid = PNA_SC_K8S_NODE_NAME,
    .max_subid = PNA_SC_K8S_POD_COUNT,
    .get = get_k8s_scalar,
};

void pna_container_tables_register(void)
{
    pna_scalars_register(&pna_containers_scalars);
    pna_table_register(&pna_container_table);
    pna_table_register(&pna_container_device_table);
    pna_scalars_register(&pna_storage_scalars);
    pna_table_register(&pna_pod_storage_table);
    pna_scalars_register(&pna_kubernetes_scalars);
}
