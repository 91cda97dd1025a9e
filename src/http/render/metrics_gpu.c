/* http/render/metrics_gpu.c -- what /metrics serves for GPUs besides the
 * descriptor tables of model/gpu/ (whose series carry the GPU's key: gpu,
 * pci_bus_id, uuid, and on per-GPU series the holder's container, pod and
 * namespace): the per-cause split of primusGpuRetiredPages, one series per
 * container holding a GPU, the replaced exporters' names unchanged (the node
 * exporter's gpu_utilization{gpu_id} and the system-info exporter's hw_gpu_*
 * set), and the other exporters' names prometheusCompat asks for
 * (compat.c).  A figure the GPU does not offer is absent, as in the MIB,
 * never 0. */
#include "pna_autoconf.h"
#include "http/render/render.h"
#include "model/kubernetes/holders.h"
#include "model/slurm/slurm_holders.h"

#include <stdio.h>
#include <string.h>

#include "model/containers.h"
#include "model/gpu/gpu.h"
#include "model/metric_tables.h"

/* A MIB sum served split by its parts, the part named by label KEY. */
struct split {
    const char *family, *object, *key, *help;
    const char *part_name[2];
    bool (*parts)(const struct pna_gpu *g, uint64_t part[2]);
};

static bool retired_pages(const struct pna_gpu *g, uint64_t part[2])
{
    part[0] = g->retired_pages_sbe;
    part[1] = g->retired_pages_dbe;
    return g->has_retired_pages;
}

static const struct split splits[] = {
    { "primus_gpu_retired_pages", "primusGpuRetiredPages", "cause",
      "Device memory pages retired for ECC errors, by cause: single_bit (multiple single-bit "
      "errors) or double_bit",
      { "single_bit", "double_bit" }, retired_pages },
};

/* Only where the MIB column has its sum: the same presence, lost GPUs included. */
static void split_family(struct pna_prom *p, const struct pna_http_view *v, const struct split *s)
{
    const struct pna_metric_table *t = &pna_gpu_metrics;
    const struct pna_metric *sum = pna_metric_by_object(t, s->object);
    char help[256];
    snprintf(help, sizeof help, "%s (%s is their sum).", s->help, s->object);
    pna_prom_family(p, s->family, PNA_PROM_GAUGE, help);
    for (size_t i = 0; i < t->rows(&v->base); i++) {
        struct pna_row row;
        struct pna_value total;
        uint64_t part[2];
        if (!pna_http_row(t, v, i, &row))
            continue;
        pna_metric_value(t, sum, &row, &total);
        if (total.state != PNA_PRESENT || !s->parts(row.rec, part))
            continue;
        struct pna_row_labels rl;
        pna_prom_key_labels(v, t, &row, &rl);
        rl.l[rl.n] = (struct pna_prom_label){ s->key, s->part_name[0] };
        pna_prom_u64(p, rl.l, rl.n + 1, part[0]);
        rl.l[rl.n].value = s->part_name[1];
        pna_prom_u64(p, rl.l, rl.n + 1, part[1]);
    }
}

/* One series per holder of a GPU (model/kubernetes/holders.h: the kubelet's
 * assignments, then the containers given its device node), shared GPUs
 * included, as primusGpuHolderCount counts them, then one per Slurm job. */
static void gpu_holders_each(const struct pna_view *v, const void *rec, pna_holder_fn fn,
                             void *arg)
{
    pna_gpu_holders_each(v, rec, fn, arg);
}

static size_t gpu_jobs(const struct pna_view *v, const void *rec, uint32_t *jobs)
{
    return pna_slurm_gpu_jobs(v, rec, jobs);
}

static void holders(struct pna_prom *p, const struct pna_http_view *v)
{
    static const struct pna_holder_source src = { &pna_gpu_metrics, gpu_holders_each, gpu_jobs };
    pna_prom_holders(p, v, &src, "primus_gpu_holder_info",
                     "A container (and pod) holding the GPU: one series per container the kubelet "
                     "gave it (pod-resources; container_id empty when its runtime record is not "
                     "seen) or that has one of its device nodes; always 1 (their number is "
                     "primusGpuHolderCount).  A Slurm job holding it (its processes on the GPU, "
                     "or its device list) has a series of its own with the job label "
                     "(primusGpuHolderJob), container labels empty.");
}

/* ---- the replaced exporters' names ------------------------------------------ */

/* Node exporter: gpu_utilization{gpu_id} in percent. */
static void gpu_id_label(const struct pna_http_view *v, const struct pna_metric_table *t,
                         const struct pna_row *row, struct pna_row_labels *out)
{
    (void)t;
    snprintf(out->buf, sizeof out->buf, "%u",
             (unsigned)pna_gpu_number(pna_view_snap(&v->base, PNA_DOM_GPU), row->pos));
    out->l[0] = (struct pna_prom_label){ "gpu_id", out->buf };
    out->n = 1;
}

/* System-info exporter: {node, gpu_index, gpu_name, gpu_uuid}. */
static void hw_gpu_labels(const struct pna_http_view *v, const struct pna_metric_table *t,
                          const struct pna_row *row, struct pna_row_labels *out)
{
    (void)t;
    const struct pna_gpu *g = row->rec;
    snprintf(out->buf, sizeof out->buf, "%u",
             (unsigned)pna_gpu_number(pna_view_snap(&v->base, PNA_DOM_GPU), row->pos));
    out->l[0] = (struct pna_prom_label){ "node", v->node_name };
    out->l[1] = (struct pna_prom_label){ "gpu_index", out->buf };
    out->l[2] = (struct pna_prom_label){ "gpu_name", g->name };
    out->l[3] = (struct pna_prom_label){ "gpu_uuid", g->uuid };
    out->n = 4;
}

static const struct pna_replaced_metric node_exporter_utilization = {
    "gpu_utilization", PNA_PROM_GAUGE, "primusGpuUtilization", { 0, 0 }, "GPU utilization percentage",
};

static const struct pna_replaced_metric hw_gpu_names[] = {
    { "hw_gpu_memory_total_bytes", PNA_PROM_GAUGE, "primusGpuMemTotal", { 0, 0 },
      "GPU total memory in bytes" },
    { "hw_gpu_memory_used_bytes", PNA_PROM_GAUGE, "primusGpuMemUsed", { 0, 0 },
      "GPU used memory in bytes" },
    { "hw_gpu_memory_free_bytes", PNA_PROM_GAUGE, "primusGpuMemFree", { 0, 0 },
      "GPU free memory in bytes" },
    { "hw_gpu_utilization_percent", PNA_PROM_GAUGE, "primusGpuUtilization", { 0, 0 },
      "GPU utilization percentage" },
    { "hw_gpu_temperature_celsius", PNA_PROM_GAUGE, "primusGpuTemperature", { 0, 0 },
      "GPU temperature in Celsius" },
    { "hw_gpu_power_draw_watts", PNA_PROM_GAUGE, "primusGpuPowerDraw", { 0, -3 },
      "GPU power draw in watts" },
    { "hw_gpu_power_limit_watts", PNA_PROM_GAUGE, "primusGpuPowerLimit", { 0, -3 },
      "GPU power limit in watts" },
};

/* hw_gpu_count and friends end in "_count", which the linter refuses for a
 * gauge (it reads like a histogram's), so they are served untyped: same
 * names and labels, and Prometheus stores them as before. */
static void hw_gpu_counts(struct pna_prom *p, const struct pna_gpu_snap *s, const char *node)
{
    const struct pna_prom_label nl[] = { { "node", node } };
    size_t used = pna_gpu_count_in_use(s->gpus, s->count);
    pna_prom_family(p, "hw_gpu_count", PNA_PROM_UNTYPED, "Total number of GPUs per node");
    pna_prom_u64(p, nl, 1, s->count);
    pna_prom_family(p, "hw_gpu_used_count", PNA_PROM_UNTYPED,
                    "Number of GPUs currently in use per node");
    pna_prom_u64(p, nl, 1, used);
    pna_prom_family(p, "hw_gpu_type_count", PNA_PROM_UNTYPED, "Number of GPUs by type per node");
    for (size_t i = 0; i < s->count; i++) {
        bool first = true;
        for (size_t j = 0; j < i && first; j++)
            first = strcmp(s->gpus[j].name, s->gpus[i].name) != 0;
        if (!first)
            continue;
        size_t n = 0;
        for (size_t j = i; j < s->count; j++)
            n += strcmp(s->gpus[j].name, s->gpus[i].name) == 0;
        const struct pna_prom_label l[] = { { "node", node }, { "gpu_type", s->gpus[i].name } };
        pna_prom_u64(p, l, 2, n);
    }
}

void pna_metrics_gpu_extras(struct pna_prom *p, const struct pna_http_view *v)
{
    const struct pna_gpu_snap *gpu = pna_view_snap(&v->base, PNA_DOM_GPU);
    if (!gpu)
        return;
    for (size_t i = 0; i < sizeof splits / sizeof splits[0]; i++)
        split_family(p, v, &splits[i]);
    holders(p, v);
    pna_prom_replaced(p, v, &pna_gpu_metrics, &node_exporter_utilization, gpu_id_label);
    pna_metrics_compat(p, v);
    /* The system-info exporter writes its GPU metrics only on GPU nodes. */
    if (!gpu->count)
        return;
    hw_gpu_counts(p, gpu, v->node_name);
    pna_prom_replaced_all(p, v, &pna_gpu_metrics, hw_gpu_names,
                          sizeof hw_gpu_names / sizeof hw_gpu_names[0], hw_gpu_labels);
}
