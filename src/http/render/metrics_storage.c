/* http/render/metrics_storage.c -- what /metrics serves for ephemeral storage
 * and Kubernetes besides their descriptor tables (primusStorage,
 * primusPodStorageTable, primusKubernetes, primusPodResourceTable): the node
 * exporter's names unchanged: node_ephemeral_storage_*{node},
 * pod_ephemeral_storage_usage_bytes{namespace,pod,node} and
 * node_k8s_gpu_allocation_rate. */
#include "pna_autoconf.h"
#include "http/render/render.h"

#include "model/metric_tables.h"
#include "model/storage.h"

/* the node exporter's {namespace, pod, node} */
static void pod_labels(const struct pna_http_view *v, const struct pna_metric_table *t,
                       const struct pna_row *row, struct pna_row_labels *out)
{
    (void)t;
    const struct pna_pod *pod = row->rec;
    out->l[0] = (struct pna_prom_label){ "namespace", pod->namespace_ };
    out->l[1] = (struct pna_prom_label){ "pod", pod->name };
    out->l[2] = (struct pna_prom_label){ "node", v->node_name };
    out->n = 3;
}
static const struct pna_replaced_metric storage_names[] = {
    { "node_ephemeral_storage_usage_bytes", PNA_PROM_GAUGE, "primusStorageUsed", { 0, 0 },
      "Node ephemeral storage usage in bytes" },
    { "node_ephemeral_storage_available_bytes", PNA_PROM_GAUGE, "primusStorageAvailable", { 0, 0 },
      "Node ephemeral storage available in bytes" },
    { "node_ephemeral_storage_capacity_bytes", PNA_PROM_GAUGE, "primusStorageCapacity", { 0, 0 },
      "Node ephemeral storage capacity in bytes" },
    { "node_ephemeral_storage_usage_percent", PNA_PROM_GAUGE, "primusStorageUsage", { 0, -2 },
      "Node ephemeral storage usage percentage (used / capacity x 100)" },
};

static const struct pna_replaced_metric pod_usage = {
    "pod_ephemeral_storage_usage_bytes", PNA_PROM_GAUGE, "primusPodStorageUsed", { 0, 0 },
    "Pod ephemeral storage usage in bytes",
};

static const struct pna_replaced_metric gpu_allocation_rate = {
    "node_k8s_gpu_allocation_rate", PNA_PROM_GAUGE, "primusK8sGpuAllocRate", { 0, -2 },
    "Percentage of GPUs allocated by Kubernetes",
};

void pna_metrics_storage_extras(struct pna_prom *p, const struct pna_http_view *v)
{
    pna_prom_replaced_all(p, v, &pna_storage_metrics, storage_names,
                          sizeof storage_names / sizeof storage_names[0], pna_prom_node_label);
    if (!pna_view_snap(&v->base, PNA_DOM_KUBELET))
        return;
    pna_prom_replaced(p, v, &pna_pod_metrics, &pod_usage, pod_labels);
    pna_prom_replaced(p, v, &pna_k8s_metrics, &gpu_allocation_rate, NULL);
}
