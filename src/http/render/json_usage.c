/* http/render/json_usage.c -- /gpuUsage: the GPU accounting counters
 * (model/accounting/usage_metrics.c) in the node exporter's envelope:
 *   {"holders":[{"holder_id","gpu","pci_bus_id","uuid","namespace","pod",
 *                "container","job", and the members of primusGpuUsageTable}],
 *    "pods":[{"namespace","pod", the members of primusPodGpuUsageTable}],
 *    "jobs":[{"job", the members of primusSlurmJobGpuUsageTable}],
 *    "gpus":[{"gpu","pci_bus_id","uuid","idle_energy_mj",
 *             "idle_energy_discontinuity_time"}]}
 * Every member is a descriptor's (its JSON name, in the MIB's units: mJ,
 * centiseconds, byte-seconds, seconds since 1970), so the endpoint, SNMP and
 * /metrics cannot disagree. */
#include "pna_autoconf.h"
#include "http/render/render.h"
#include "model/metric_tables.h"

/* Each GPU's identity and idle residual, once the accounting sampled it. */
static json_t *gpu_idle(const struct pna_http_view *v)
{
    const struct pna_metric_table *t = &pna_gpu_metrics;
    json_t *list = json_array();
    size_t n = t->rows(&v->base);
    for (size_t i = 0; i < n; i++) {
        struct pna_row row;
        if (!pna_http_row(t, v, i, &row))
            continue;
        json_t *o = json_object();
        pna_json_put_own_key(o, t, &row);
        pna_json_put(o, t, "primusGpuIdleEnergy", &row);
        pna_json_put(o, t, "primusGpuIdleEnergyDiscontinuityTime", &row);
        if (json_object_get(o, "idle_energy_mj"))
            json_array_append_new(list, o);
        else
            json_decref(o);
    }
    return list;
}

struct pna_json_reply pna_json_gpu_usage(const struct pna_http_view *v)
{
    json_t *data = json_object();
    json_object_set_new(data, "holders", pna_json_rows(v, &pna_gpu_usage_metrics));
    json_object_set_new(data, "pods", pna_json_rows(v, &pna_pod_gpu_usage_metrics));
    json_object_set_new(data, "jobs", pna_json_rows(v, &pna_slurm_job_gpu_usage_metrics));
    json_object_set_new(data, "gpus", gpu_idle(v));
    return pna_json_envelope(data);
}
