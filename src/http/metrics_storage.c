/* http/metrics_storage.c -- /metrics for ephemeral storage and Kubernetes
 * (primusStorage, primusPodStorageTable, primusKubernetes), and the node
 * exporter's names unchanged: node_ephemeral_storage_*{node},
 * pod_ephemeral_storage_usage_bytes{namespace,pod,node} and
 * node_k8s_gpu_allocation_rate.
 *
 * The node figures come from the kubelet while its snapshot is fresh, else from
 * statvfs of the kubelet root: pna_node_storage_pick(), the same choice the
 * SNMP scalars make. */
#include "pna_autoconf.h"
#include "model/storage.h"
#include "http/render.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

static const char *storage_source_name(uint8_t s)
{
    switch (s) {
    case PNA_STORAGE_KUBELET: return "kubelet";
    case PNA_STORAGE_STATVFS: return "statvfs";
    }
    return "";
}

static const char *pod_phase_name(uint8_t phase)
{
    switch (phase) {
    case PNA_POD_PENDING: return "Pending";
    case PNA_POD_RUNNING: return "Running";
    case PNA_POD_SUCCEEDED: return "Succeeded";
    case PNA_POD_FAILED: return "Failed";
    }
    return "Unknown";
}

static void node_storage(struct pna_prom *p, const struct pna_http_view *v,
                         const struct pna_node_storage *s)
{
    const char *path = v->storage ? v->storage->path : "";
    const struct pna_prom_label info[] = {
        { "source", storage_source_name(s->source) }, { "path", path },
    };
    pna_prom_family(p, "primus_storage_info", PNA_PROM_GAUGE,
                    "Where the node ephemeral storage figures come from: kubelet or statvfs of "
                    "path; always 1 (primusStorageSource, primusStoragePath).");
    pna_prom_u64(p, info, 2, 1);
    pna_prom_gauge_u64(p, "primus_storage_capacity_bytes",
                       "Capacity of the filesystem holding node ephemeral storage "
                       "(primusStorageCapacity).", s->capacity_bytes);
    pna_prom_gauge_u64(p, "primus_storage_available_bytes",
                       "Bytes of it available to unprivileged users (primusStorageAvailable).",
                       s->available_bytes);
    pna_prom_gauge_u64(p, "primus_storage_used_bytes", "Bytes of it in use (primusStorageUsed).",
                       s->used_bytes);
    pna_prom_family(p, "primus_storage_usage_ratio", PNA_PROM_GAUGE,
                    "Used as a share of capacity, 0..1 (primusStorageUsage).");
    pna_prom_fixed(p, NULL, 0, s->usage_percent_x100, 4);
    if (s->inodes) {
        pna_prom_gauge_u64(p, "primus_storage_inodes", "Inodes of the filesystem "
                           "(primusStorageInodes).", s->inodes);
        pna_prom_gauge_u64(p, "primus_storage_inodes_free", "Free inodes (primusStorageInodesFree).",
                           s->inodes_free);
        pna_prom_gauge_u64(p, "primus_storage_inodes_used", "Inodes in use (primusStorageInodesUsed).",
                           s->inodes >= s->inodes_free ? s->inodes - s->inodes_free : 0);
    }

    const struct pna_prom_label nl[] = { { "node", v->node_name } };
    pna_prom_family(p, "node_ephemeral_storage_usage_bytes", PNA_PROM_GAUGE,
                    "Node ephemeral storage usage in bytes");
    pna_prom_u64(p, nl, 1, s->used_bytes);
    pna_prom_family(p, "node_ephemeral_storage_available_bytes", PNA_PROM_GAUGE,
                    "Node ephemeral storage available in bytes");
    pna_prom_u64(p, nl, 1, s->available_bytes);
    pna_prom_family(p, "node_ephemeral_storage_capacity_bytes", PNA_PROM_GAUGE,
                    "Node ephemeral storage capacity in bytes");
    pna_prom_u64(p, nl, 1, s->capacity_bytes);
    pna_prom_family(p, "node_ephemeral_storage_usage_percent", PNA_PROM_GAUGE,
                    "Node ephemeral storage usage percentage (used / capacity x 100)");
    pna_prom_fixed(p, nl, 1, s->usage_percent_x100, 2);
}

/* The per-pod gauges, labelled pod_uid, pod, namespace; absent figures have
 * no series. */
struct pod_value {
    bool present;
    uint64_t value;
};
static struct pod_value pod_used(const struct pna_pod *p)
{
    return (struct pod_value){ p->has_ephemeral, p->ephemeral_used_bytes };
}
static struct pod_value pod_limit(const struct pna_pod *p)
{
    return (struct pod_value){ p->ephemeral_limit_bytes != 0, p->ephemeral_limit_bytes };
}
static struct pod_value pod_gpus(const struct pna_pod *p)
{
    return (struct pod_value){ true, p->gpus_requested };
}

static const struct {
    const char *name;
    struct pod_value (*get)(const struct pna_pod *pod);
    const char *help;
} pod_gauges[] = {
    { "primus_pod_ephemeral_storage_used_bytes", pod_used,
      "Ephemeral storage the pod uses: writable layers, logs, emptyDir (primusPodStorageUsed)." },
    { "primus_pod_ephemeral_storage_limit_bytes", pod_limit,
      "Sum of the pod's containers' ephemeral-storage limits; absent when none is set "
      "(primusPodStorageLimit)." },
    { "primus_pod_gpus_requested", pod_gpus,
      "GPUs the pod's containers request (nvidia.com/gpu, amd.com/gpu)." },
};

static void pods(struct pna_prom *p, const struct pna_http_view *v)
{
    const struct pna_pod_set *set = &v->kubelet->pods;
    pna_prom_family(p, "primus_pod_info", PNA_PROM_GAUGE,
                    "One series per pod on the node with its phase; always 1.");
    for (size_t i = 0; i < set->count; i++) {
        const struct pna_pod *pod = &set->rows[i];
        const struct pna_prom_label l[] = {
            { "pod_uid", pod->uid }, { "pod", pod->name }, { "namespace", pod->namespace_ },
            { "phase", pod_phase_name(pod->phase) },
        };
        pna_prom_u64(p, l, 4, 1);
    }
    for (size_t c = 0; c < sizeof pod_gauges / sizeof pod_gauges[0]; c++) {
        pna_prom_family(p, pod_gauges[c].name, PNA_PROM_GAUGE, pod_gauges[c].help);
        for (size_t i = 0; i < set->count; i++) {
            const struct pna_pod *pod = &set->rows[i];
            struct pod_value val = pod_gauges[c].get(pod);
            if (!val.present)
                continue;
            const struct pna_prom_label l[] = {
                { "pod_uid", pod->uid }, { "pod", pod->name }, { "namespace", pod->namespace_ },
            };
            pna_prom_u64(p, l, 3, val.value);
        }
    }
    pna_prom_family(p, "pod_ephemeral_storage_usage_bytes", PNA_PROM_GAUGE,
                    "Pod ephemeral storage usage in bytes");
    for (size_t i = 0; i < set->count; i++) {
        const struct pna_pod *pod = &set->rows[i];
        if (!pod->has_ephemeral)
            continue;
        const struct pna_prom_label l[] = {
            { "namespace", pod->namespace_ }, { "pod", pod->name }, { "node", v->node_name },
        };
        pna_prom_u64(p, l, 3, pod->ephemeral_used_bytes);
    }
}

static void kubernetes(struct pna_prom *p, const struct pna_http_view *v)
{
    const struct pna_kubelet_snap *k = v->kubelet;
    const struct pna_prom_label nl[] = { { "node", k->node_name[0] ? k->node_name : v->node_name } };
    pna_prom_family(p, "primus_k8s_node_info", PNA_PROM_GAUGE,
                    "The Kubernetes node name; always 1 (primusK8sNodeName).");
    pna_prom_u64(p, nl, 1, 1);
    size_t running = 0;
    for (size_t i = 0; i < k->pods.count; i++)
        running += k->pods.rows[i].phase == PNA_POD_RUNNING;
    pna_prom_gauge_u64(p, "primus_k8s_pods_running", "Running pods on the node (primusK8sPodCount).",
                       running);
    if (!k->gpu.valid)
        return;
    pna_prom_gauge_u64(p, "primus_k8s_gpus_allocatable",
                       "GPUs on the node, counted from its device nodes (primusK8sGpuAllocatable).", k->gpu.total);
    pna_prom_gauge_u64(p, "primus_k8s_gpus_allocated",
                       "GPUs requested by the node's running pods (primusK8sGpuAllocated).",
                       k->gpu.allocated);
    pna_prom_family(p, "primus_k8s_gpu_allocation_ratio", PNA_PROM_GAUGE,
                    "Allocated GPUs as a share of allocatable, 0..1 (primusK8sGpuAllocRate).");
    pna_prom_fixed(p, NULL, 0, k->gpu.rate_x100, 4);
    pna_prom_family(p, "node_k8s_gpu_allocation_rate", PNA_PROM_GAUGE,
                    "Percentage of GPUs allocated by Kubernetes");
    pna_prom_fixed(p, NULL, 0, k->gpu.rate_x100, 2);
}

void pna_metrics_storage(struct pna_prom *p, const struct pna_http_view *v)
{
    const struct pna_node_storage *s =
        pna_node_storage_pick(v->kubelet, v->storage, v->now_ms, v->agent.storage_max_age_ms);
    if (s)
        node_storage(p, v, s);
    if (v->kubelet) {
        pods(p, v);
        kubernetes(p, v);
    }
}
