/* http/render/metrics_storage.c -- /metrics for ephemeral storage and Kubernetes
 * (primusStorage, primusPodStorageTable, primusKubernetes): the descriptors of
 * model/storage_metrics.c, and the node exporter's names unchanged:
 * node_ephemeral_storage_*{node}, pod_ephemeral_storage_usage_bytes{namespace,
 * pod,node} and node_k8s_gpu_allocation_rate. */
#include "pna_autoconf.h"
#include "http/render/render.h"

#include "model/metric_tables.h"
#include "model/kubernetes/podres.h"
#include "model/storage.h"

#include <stdio.h>

/* pod_uid, pod, namespace */
static void pod_labels(const struct pna_http_view *v, const struct pna_row *row,
                       struct pna_row_labels *out)
{
    (void)v;
    const struct pna_pod *pod = row->rec;
    out->l[0] = (struct pna_prom_label){ "pod_uid", pod->uid };
    out->l[1] = (struct pna_prom_label){ "pod", pod->name };
    out->l[2] = (struct pna_prom_label){ "namespace", pod->namespace_ };
    out->n = 3;
}

/* the seed's {namespace, pod, node} */
static void seed_pod_labels(const struct pna_http_view *v, const struct pna_row *row,
                            struct pna_row_labels *out)
{
    const struct pna_pod *pod = row->rec;
    out->l[0] = (struct pna_prom_label){ "namespace", pod->namespace_ };
    out->l[1] = (struct pna_prom_label){ "pod", pod->name };
    out->l[2] = (struct pna_prom_label){ "node", v->node_name };
    out->n = 3;
}

/* pod_resource_index: primusPodResourceIndex, the row's identity */
static void pod_resource_labels(const struct pna_http_view *v, const struct pna_row *row,
                                struct pna_row_labels *out)
{
    (void)v;
    const struct pna_podres_row *r = row->rec;
    snprintf(out->buf, sizeof out->buf, "%u", (unsigned)r->index);
    out->l[0] = (struct pna_prom_label){ "pod_resource_index", out->buf };
    out->n = 1;
}

static const struct pna_seed storage_seeds[] = {
    { "node_ephemeral_storage_usage_bytes", PNA_PROM_GAUGE, "primusStorageUsed", { 0, 0 },
      "Node ephemeral storage usage in bytes" },
    { "node_ephemeral_storage_available_bytes", PNA_PROM_GAUGE, "primusStorageAvailable", { 0, 0 },
      "Node ephemeral storage available in bytes" },
    { "node_ephemeral_storage_capacity_bytes", PNA_PROM_GAUGE, "primusStorageCapacity", { 0, 0 },
      "Node ephemeral storage capacity in bytes" },
    { "node_ephemeral_storage_usage_percent", PNA_PROM_GAUGE, "primusStorageUsage", { 0, -2 },
      "Node ephemeral storage usage percentage (used / capacity x 100)" },
};

static const struct pna_seed pod_seed = {
    "pod_ephemeral_storage_usage_bytes", PNA_PROM_GAUGE, "primusPodStorageUsed", { 0, 0 },
    "Pod ephemeral storage usage in bytes",
};

static const struct pna_seed k8s_seed = {
    "node_k8s_gpu_allocation_rate", PNA_PROM_GAUGE, "primusK8sGpuAllocRate", { 0, -2 },
    "Percentage of GPUs allocated by Kubernetes",
};

void pna_metrics_storage(struct pna_prom *p, const struct pna_http_view *v)
{
    pna_prom_table(p, v, &pna_podres_metrics, pod_resource_labels);
    pna_prom_table(p, v, &pna_storage_metrics, NULL);
    pna_prom_seeds(p, v, &pna_storage_metrics, storage_seeds,
                   sizeof storage_seeds / sizeof storage_seeds[0], pna_prom_node_label);
    if (!v->kubelet)
        return;
    pna_prom_table(p, v, &pna_pod_metrics, pod_labels);
    pna_prom_seed(p, v, &pna_pod_metrics, &pod_seed, seed_pod_labels);
    pna_prom_table(p, v, &pna_k8s_metrics, NULL);
    pna_prom_seed(p, v, &pna_k8s_metrics, &k8s_seed, NULL);
}
