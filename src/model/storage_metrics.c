/* model/storage_metrics.c -- the served values of ephemeral storage and
 * Kubernetes: primusStorage (node ephemeral storage), primusPodStorageTable
 * and primusKubernetes, one descriptor per value (see metric.h, storage.h).
 *
 * The node figures are the kubelet's while it has a snapshot, else statvfs of
 * the kubelet root (pna_node_storage_pick): a join of the kubelet and storage
 * snapshots of the same view. */
#include "pna_autoconf.h"
#include "model/metric_tables.h"

#include "model/metric.h"
#include "model/oids.h"
#include "model/kubernetes/podres.h"
#include "model/storage.h"

_Static_assert(PNA_POD_UID_MAX == PNA_MAX_POD_UID_LEN, "primusPodUid SIZE");

#define U32 PNA_SYNTAX_UNSIGNED
#define INT PNA_SYNTAX_INTEGER
#define C64 PNA_SYNTAX_COUNTER64
#define TEXT PNA_SYNTAX_TEXT
#define GAUGE PNA_FAMILY_GAUGE

static const struct pna_kubelet_snap *kubelet_snap(const struct pna_view *v)
{
    return pna_view_snap(v, PNA_DOM_KUBELET);
}

static const struct pna_storage_snap *storage_snap(const struct pna_view *v)
{
    return pna_view_snap(v, PNA_DOM_STORAGE);
}

/* ---- primusStorage -------------------------------------------------------------- */

static const struct pna_node_storage *picked(const struct pna_view *v)
{
    return pna_node_storage_pick(kubelet_snap(v), storage_snap(v));
}

static size_t storage_rows(const struct pna_view *v)
{
    return picked(v) ? 1 : 0;
}

/* REC the figures picked, PARENT the statvfs snapshot (its path), or NULL. */
static bool storage_row(const struct pna_view *v, size_t i, struct pna_row *out)
{
    (void)i;
    out->rec = picked(v);
    out->parent = storage_snap(v);
    return true;
}

static const struct pna_node_storage *fs_of(const struct pna_row *r)
{
    return r->rec;
}

static const char *const source_names[] = {
    [PNA_STORAGE_SOURCE_KUBELET] = "kubelet", [PNA_STORAGE_SOURCE_STATVFS] = "statvfs",
};
static const struct pna_enum source_enum = PNA_ENUM(source_names);

static void get_source(const struct pna_row *r, struct pna_value *out)
{
    pna_value_i64(out, fs_of(r)->source == PNA_STORAGE_KUBELET ? PNA_STORAGE_SOURCE_KUBELET
                                                               : PNA_STORAGE_SOURCE_STATVFS);
}

static void get_path(const struct pna_row *r, struct pna_value *out)
{
    const struct pna_storage_snap *s = r->parent;
    if (s)
        pna_value_text(out, s->path);
}

/* Inode figures exist when the source counts inodes at all. */
static void get_inodes_used(const struct pna_row *r, struct pna_value *out)
{
    const struct pna_node_storage *s = fs_of(r);
    if (s->inodes && s->inodes >= s->inodes_free)
        pna_value_u64(out, s->inodes - s->inodes_free);
}

#define FS(member) PNA_FIELD(struct pna_node_storage, member)
#define FS_NZ(member) PNA_FIELD_NZ(struct pna_node_storage, member)

static void get_inodes_free(const struct pna_row *r, struct pna_value *out)
{
    if (fs_of(r)->inodes)
        pna_value_u64(out, fs_of(r)->inodes_free);
}

static const struct pna_metric storage_metrics[] = {
    { .column = 1, .object = "primusStorageCapacity", .syntax = C64,
      .field = FS(capacity_bytes), .family = "primus_storage_capacity_bytes", .type = GAUGE,
      .help = "Capacity of the filesystem holding node ephemeral storage" },
    { .column = 2, .object = "primusStorageAvailable", .syntax = C64,
      .field = FS(available_bytes), .family = "primus_storage_available_bytes", .type = GAUGE,
      .help = "Bytes of it available to unprivileged users" },
    { .column = 3, .object = "primusStorageUsed", .syntax = C64, .field = FS(used_bytes),
      .family = "primus_storage_used_bytes", .type = GAUGE, .help = "Bytes of it in use" },
    { .column = 4, .object = "primusStorageUsage", .syntax = U32, .max = 10000,
      .field = FS(usage_percent_x100), .family = "primus_storage_usage_ratio", .type = GAUGE,
      .scale = PNA_SCALE_E(-4), .help = "Used as a share of capacity, 0..1" },
    { .column = 5, .object = "primusStorageSource", .syntax = PNA_SYNTAX_INTEGER,
      .get = get_source, .enums = &source_enum, .label = "source" },
    { .column = 6, .object = "primusStoragePath", .syntax = TEXT, .get = get_path,
      .label = "path" },
    { .column = 7, .object = "primusStorageInodes", .syntax = C64,
      .field = FS_NZ(inodes), .family = "primus_storage_inodes", .type = GAUGE,
      .help = "Inodes of the filesystem" },
    { .column = 8, .object = "primusStorageInodesFree", .syntax = C64,
      .get = get_inodes_free, .family = "primus_storage_inodes_free", .type = GAUGE,
      .help = "Free inodes" },
    { .column = 9, .object = "primusStorageInodesUsed", .syntax = C64,
      .get = get_inodes_used, .family = "primus_storage_inodes_used", .type = GAUGE,
      .help = "Inodes in use" },
};

const struct pna_metric_table pna_storage_metrics = {
    .object = "primusStorage",
    .kind = PNA_TABLE_SCALARS,
    .domain = PNA_DOM_STORAGE,
    .view = PNA_VIEW_DOMAIN(PNA_DOM_STORAGE) | PNA_VIEW_DOMAIN(PNA_DOM_KUBELET),
    PNA_TABLE_OID(PNA_OID_STORAGE),
    .metrics = storage_metrics,
    .count = sizeof storage_metrics / sizeof storage_metrics[0],
    .rows = storage_rows,
    .row = storage_row,
    .info_family = "primus_storage_info",
    .info_help = "Where the node ephemeral storage figures come from: kubelet or statvfs of path; "
                 "always 1",
};

/* ---- primusPodStorageTable ----------------------------------------------------------- */

static size_t pod_rows(const struct pna_view *v)
{
    return kubelet_snap(v) ? kubelet_snap(v)->pods.count : 0;
}

/* A pod without a UID (none given, or one over the MIB's 64 characters) has
 * no index, so no row anywhere. */
static bool pod_row(const struct pna_view *v, size_t i, struct pna_row *out)
{
    const struct pna_pod *p = &kubelet_snap(v)->pods.rows[i];
    out->rec = p;
    return p->uid[0] != '\0';
}

static const char *const phase_names[] = {
    [PNA_POD_PENDING] = "Pending", [PNA_POD_RUNNING] = "Running", [PNA_POD_SUCCEEDED] = "Succeeded",
    [PNA_POD_FAILED] = "Failed", [PNA_POD_UNKNOWN] = "Unknown",
};
static const struct pna_enum phase_enum = PNA_ENUM(phase_names);

static void get_phase(const struct pna_row *r, struct pna_value *out)
{
    uint8_t phase = ((const struct pna_pod *)r->rec)->phase;
    pna_value_u64(out, phase >= PNA_POD_PENDING && phase <= PNA_POD_FAILED ? phase : PNA_POD_UNKNOWN);
}

/* The sum of the containers' limits; none (0) when no container sets one. */
static void get_limit(const struct pna_row *r, struct pna_value *out)
{
    uint64_t limit = ((const struct pna_pod *)r->rec)->ephemeral_limit_bytes;
    if (limit)
        pna_value_u64(out, limit);
    else
        pna_value_none(out);
}

#define POD(member) PNA_FIELD(struct pna_pod, member)
#define POD_IF(member, has) PNA_FIELD_IF(struct pna_pod, member, has)

static const struct pna_metric pod_metrics[] = {
    { .column = 2, .object = "primusPodName", .syntax = TEXT, .field = POD(name) },
    { .column = 3, .object = "primusPodNamespace", .syntax = TEXT, .field = POD(namespace_) },
    { .get = get_phase, .enums = &phase_enum, .label = "phase" },
    { .column = 4, .object = "primusPodStorageUsed", .syntax = C64,
      .field = POD_IF(ephemeral_used_bytes, has_ephemeral),
      .family = "primus_pod_ephemeral_storage_used_bytes", .type = GAUGE,
      .help = "Ephemeral storage the pod uses: writable layers, logs, emptyDir" },
    { .column = 5, .object = "primusPodStorageInodesUsed", .syntax = C64,
      .field = POD_IF(ephemeral_inodes_used, has_inodes),
      .family = "primus_pod_ephemeral_storage_inodes_used", .type = GAUGE,
      .help = "Inodes the pod's ephemeral storage uses" },
    { .column = 6, .object = "primusPodStorageLimit", .syntax = C64, .get = get_limit,
      .family = "primus_pod_ephemeral_storage_limit_bytes", .type = GAUGE,
      .help = "Sum of the pod's containers' ephemeral-storage limits; absent when none is set" },
    { .field = POD(gpus_requested), .family = "primus_pod_gpus_requested", .type = GAUGE,
      .help = "GPUs the pod's containers request (nvidia.com/gpu, amd.com/gpu)" },
};

/* Pods are indexed by their UID; the labels add name and namespace. */
static const struct pna_key_part pod_key[] = {
    PNA_KEY_INDEX_FIELD("primusPodUid", "pod_uid", PNA_KEY_FROM_REC, struct pna_pod, uid),
    PNA_KEY_LABEL_FIELD("pod", PNA_KEY_FROM_REC, struct pna_pod, name),
    PNA_KEY_LABEL_FIELD("namespace", PNA_KEY_FROM_REC, struct pna_pod, namespace_),
};

const struct pna_metric_table pna_pod_metrics = {
    .object = "primusPodStorageTable",
    .kind = PNA_TABLE_ROWS,
    .domain = PNA_DOM_KUBELET,
    .view = PNA_VIEW_DOMAIN(PNA_DOM_KUBELET),
    PNA_TABLE_OID(PNA_OID_STORAGE, 10),
    PNA_KEY(pod_key),
    .metrics = pod_metrics,
    .count = sizeof pod_metrics / sizeof pod_metrics[0],
    .rows = pod_rows,
    .row = pod_row,
    .info_family = "primus_pod_info",
    .info_help = "One series per pod on the node with its phase; always 1",
};

/* ---- primusKubernetes ------------------------------------------------------------------ */

/* The group is served from whichever of the kubelet and pod-resources pollers
 * answers: a node that has the pod-resources socket but no kubeletUrl (the
 * kubelet's read-only port is off in most clusters) still has its
 * allocatable GPUs.  Each value below says which it reads first. */

static const struct pna_podres_snap *podres_snap(const struct pna_view *v)
{
    return pna_view_snap(v, PNA_DOM_PODRES);
}

static size_t kubelet_rows(const struct pna_view *v)
{
    return kubelet_snap(v) || podres_snap(v) ? 1 : 0;
}

/* REC is the kubelet snapshot, NULL when only pod-resources answered: the
 * values read both through the view. */
static bool kubelet_row(const struct pna_view *v, size_t i, struct pna_row *out)
{
    (void)i;
    out->rec = kubelet_snap(v);
    return true;
}

/* The kubelet's node name (or nodeName when it gave none), else nodeName as
 * the pod-resources poller carries it; absent when neither knows one. */
static void get_node_name(const struct pna_row *r, struct pna_value *out)
{
    const struct pna_kubelet_snap *k = kubelet_snap(r->view);
    const struct pna_podres_snap *ps = podres_snap(r->view);
    const char *name = k ? k->node_name : ps ? ps->node_name : "";
    if (name[0])
        pna_value_text(out, name);   /* else absent: an empty name would be a claim */
}

/* GPUs held by pods: the kubelet's count from the pod specs, else the GPU
 * devices the pod-resources API has given to containers.  False with
 * neither (not met: the group has a row only when one answered). */
static bool gpus_allocated(const struct pna_view *v, uint32_t *n)
{
    const struct pna_kubelet_snap *k = kubelet_snap(v);
    const struct pna_podres_snap *ps = podres_snap(v);
    if (k)
        *n = k->gpu.allocated;
    else if (ps)
        *n = pna_podres_gpus_assigned(ps);
    else
        return false;
    return true;
}

/* GPUs the kubelet can allocate: its pod-resources API's count where that
 * answered GetAllocatableResources, else the node's GPU device nodes (which
 * only the kubelet poller counts).  False when neither is known. */
static bool gpu_allocation(const struct pna_row *r, struct pna_k8s_gpu *g, int *source)
{
    const struct pna_kubelet_snap *k = kubelet_snap(r->view);
    const struct pna_podres_snap *ps = podres_snap(r->view);
    uint32_t allocated = 0;
    bool have_allocated = gpus_allocated(r->view, &allocated);
    if (ps && ps->has_allocatable && have_allocated) {
        pna_k8s_gpu_compute(g, allocated, pna_podres_gpus_allocatable(ps));
        *source = PNA_K8S_GPU_ALLOCATABLE_SOURCE_POD_RESOURCES;
        return true;
    }
    if (!k)
        return false;
    *g = k->gpu;
    *source = PNA_K8S_GPU_ALLOCATABLE_SOURCE_DEVICE_NODES;
    return true;
}

/* None (0) without any GPU; absent when no source counts them (a
 * pod-resources API without GetAllocatableResources, and no kubelet). */
static void get_allocatable(const struct pna_row *r, struct pna_value *out)
{
    struct pna_k8s_gpu g;
    int source;
    if (!gpu_allocation(r, &g, &source))
        return;
    if (g.valid)
        pna_value_u64(out, g.total);
    else
        pna_value_none(out);
}

static void get_allocatable_source(const struct pna_row *r, struct pna_value *out)
{
    struct pna_k8s_gpu g;
    int source;
    if (gpu_allocation(r, &g, &source))
        pna_value_i64(out, source);
}

static void get_allocated(const struct pna_row *r, struct pna_value *out)
{
    uint32_t n;
    if (gpus_allocated(r->view, &n))
        pna_value_u64(out, n);
}

/* Hundredths of a percent; none (0) when the node has no GPU, absent as
 * primusK8sGpuAllocatable is. */
static void get_alloc_rate(const struct pna_row *r, struct pna_value *out)
{
    struct pna_k8s_gpu g;
    int source;
    if (!gpu_allocation(r, &g, &source))
        return;
    if (g.valid)
        pna_value_u64(out, g.rate_x100);
    else
        pna_value_none(out);
}

static const char *const allocatable_source_names[] = {
    [PNA_K8S_GPU_ALLOCATABLE_SOURCE_POD_RESOURCES] = "podResources",
    [PNA_K8S_GPU_ALLOCATABLE_SOURCE_DEVICE_NODES] = "deviceNodes",
};
static const struct pna_enum allocatable_source_enum = PNA_ENUM(allocatable_source_names);

/* From the kubelet's pod list only: pod-resources lists pods, not phases. */
static void get_pods_running(const struct pna_row *r, struct pna_value *out)
{
    const struct pna_kubelet_snap *k = kubelet_snap(r->view);
    if (!k)
        return;
    const struct pna_pod_set *pods = &k->pods;
    uint64_t n = 0;
    for (size_t i = 0; i < pods->count; i++)
        n += pods->rows[i].phase == PNA_POD_RUNNING;
    pna_value_u64(out, n);
}

static const struct pna_metric k8s_metrics[] = {
    { .column = 1, .object = "primusK8sNodeName", .syntax = TEXT,
      .get = get_node_name, .label = "node" },
    { .column = 2, .object = "primusK8sGpuAllocatable", .syntax = U32,
      .get = get_allocatable, .family = "primus_k8s_gpus_allocatable", .type = GAUGE,
      .help = "GPUs the kubelet can allocate: its pod-resources API's allocatable devices, else "
              "the node's GPU device nodes (primus_k8s_gpus_allocatable_source says which)" },
    { .column = 3, .object = "primusK8sGpuAllocated", .syntax = U32,
      .get = get_allocated, .family = "primus_k8s_gpus_allocated", .type = GAUGE,
      .help = "GPUs requested by the node's running pods (the kubelet's pod list), else the GPU "
              "devices the pod-resources API gave to containers" },
    { .column = 4, .object = "primusK8sGpuAllocRate", .syntax = U32, .max = 10000,
      .get = get_alloc_rate, .family = "primus_k8s_gpu_allocation_ratio", .type = GAUGE,
      .scale = PNA_SCALE_E(-4), .help = "Allocated GPUs as a share of allocatable, 0..1" },
    { .column = 5, .object = "primusK8sPodCount", .syntax = U32,
      .get = get_pods_running, .family = "primus_k8s_pods_running", .type = GAUGE,
      .help = "Running pods on the node" },
    { .column = 6, .object = "primusK8sGpuAllocatableSource", .syntax = INT,
      .get = get_allocatable_source, .enums = &allocatable_source_enum,
      .family = "primus_k8s_gpus_allocatable_source", .type = PNA_FAMILY_STATE, .label = "source",
      .help = "Where primus_k8s_gpus_allocatable comes from (podResources, deviceNodes); always 1" },
};

const struct pna_metric_table pna_k8s_metrics = {
    .object = "primusKubernetes",
    .kind = PNA_TABLE_SCALARS,
    .domain = PNA_DOM_KUBELET,
    .view = PNA_VIEW_DOMAIN(PNA_DOM_KUBELET) | PNA_VIEW_DOMAIN(PNA_DOM_PODRES),
    PNA_TABLE_OID(PNA_OID_KUBERNETES),
    .metrics = k8s_metrics,
    .count = sizeof k8s_metrics / sizeof k8s_metrics[0],
    .rows = kubelet_rows,
    .row = kubelet_row,
    .info_family = "primus_k8s_node_info",
    .info_help = "The Kubernetes node name; always 1",
};
