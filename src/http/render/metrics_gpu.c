/* http/render/metrics_gpu.c -- /metrics for GPUs (primusGpu, primusGpuTable): every
 * descriptor of model/gpu/gpu_metrics.c in base units (bytes, watts, joules,
 * hertz, ratios 0..1), the per-cause split of primusGpuRetiredPages, one series
 * per container holding a GPU, the seed names unchanged: the node exporter's
 * gpu_utilization{gpu_id} and the system-info exporter's hw_gpu_* set, and the
 * other exporters' names prometheusCompat asks for (compat.c).
 *
 * primusGpuLinkTable's families add link (the link's number), primusGpuProcTable's
 * pid, primusGpuMigTable's gpu_instance and compute_instance.
 * Every primus_gpu_* series carries gpu (the vendor tool's GPU number, as the
 * seeds use it), pci_bus_id (the stable identity, primusGpuIndex's source) and
 * uuid.  A figure the GPU does not offer is absent, as in the MIB, never 0. */
#include "pna_autoconf.h"
#include "http/render/render.h"
#include "model/kubernetes/holders.h"

#include <stdio.h>
#include <string.h>

#include "model/containers.h"
#include "model/gpu/gpu.h"
#include "model/metric_tables.h"

/* The GPU's number as the vendor tools and the seeds show it, when every GPU
 * has one and no two are equal (a node mixing vendors numbers each vendor from
 * 0); else its position in PCI order, so that gpu_id never repeats. */
static bool vendor_numbers_usable(const struct pna_gpu_snap *s)
{
    for (size_t i = 0; i < s->count; i++) {
        if (!s->gpus[i].has_vendor_index)
            return false;
        for (size_t j = 0; j < i; j++)
            if (s->gpus[j].vendor_index == s->gpus[i].vendor_index)
                return false;
    }
    return true;
}

uint32_t pna_http_gpu_number(const struct pna_gpu_snap *s, size_t i)
{
    return vendor_numbers_usable(s) ? s->gpus[i].vendor_index : (uint32_t)i;
}

/* gpu, pci_bus_id, uuid */
static void gpu_labels(const struct pna_http_view *v, const struct pna_row *row,
                       struct pna_row_labels *out)
{
    const struct pna_gpu *g = row->rec;
    snprintf(out->buf, sizeof out->buf, "%u", (unsigned)pna_http_gpu_number(v->gpu, row->pos));
    out->l[0] = (struct pna_prom_label){ "gpu", out->buf };
    out->l[1] = (struct pna_prom_label){ "pci_bus_id", g->pci_bus_id };
    out->l[2] = (struct pna_prom_label){ "uuid", g->uuid };
    out->n = 3;
}

/* gpu, pci_bus_id, uuid, then the GPU's holder (model/kubernetes/holders.h:
 * the first the kubelet assigned it to, else the first container holding it)
 * as container, pod and namespace, empty when none: every per-GPU series can
 * be summed by pod, as dcgm-exporter's can.  primus_gpu_holder_info has every
 * holder of a shared GPU. */
static void gpu_series_labels(const struct pna_http_view *v, const struct pna_row *row,
                              struct pna_row_labels *out)
{
    gpu_labels(v, row, out);
    struct pna_holder h;
    pna_gpu_holder(&v->base, row->rec, &h);
    out->l[out->n++] = (struct pna_prom_label){ "container", h.container_name };
    out->l[out->n++] = (struct pna_prom_label){ "pod", h.pod };
    out->l[out->n++] = (struct pna_prom_label){ "namespace", h.pod_namespace };
}

/* gpu, pci_bus_id, uuid of a sub-table row's GPU (its owner), then the row's
 * own index: N numbers under NAMES (a link number, a pid, MIG instance ids). */
static void sub_labels(const struct pna_http_view *v, const struct pna_row *row,
                       const char *const *names, const uint32_t *nums, size_t n,
                       struct pna_row_labels *out)
{
    const struct pna_gpu *g = row->owner;
    size_t pos = (size_t)(g - v->gpu->gpus), used = 0;
    uint32_t gpu = pna_http_gpu_number(v->gpu, pos);
    out->n = 0;
    for (size_t k = 0; k <= n; k++) {
        char *at = out->buf + used;
        int w = snprintf(at, sizeof out->buf - used, "%u", (unsigned)(k ? nums[k - 1] : gpu));
        if (w < 0 || (size_t)w >= sizeof out->buf - used)
            return; /* cannot happen: at most three 10-digit numbers */
        used += (size_t)w + 1;
        out->l[out->n++] = (struct pna_prom_label){ k ? names[k - 1] : "gpu", at };
        if (k == 0) {
            out->l[out->n++] = (struct pna_prom_label){ "pci_bus_id", g->pci_bus_id };
            out->l[out->n++] = (struct pna_prom_label){ "uuid", g->uuid };
        }
    }
}

static void link_labels(const struct pna_http_view *v, const struct pna_row *row,
                        struct pna_row_labels *out)
{
    const struct pna_gpu_link *l = row->rec;
    static const char *const names[] = { "link" };
    sub_labels(v, row, names, &l->number, 1, out);
}

static void proc_labels(const struct pna_http_view *v, const struct pna_row *row,
                        struct pna_row_labels *out)
{
    const struct pna_gpu_proc *p = row->rec;
    static const char *const names[] = { "pid" };
    sub_labels(v, row, names, &p->pid, 1, out);
}

static void mig_labels(const struct pna_http_view *v, const struct pna_row *row,
                       struct pna_row_labels *out)
{
    const struct pna_gpu_mig *m = row->rec;
    static const char *const names[] = { "gpu_instance", "compute_instance" };
    const uint32_t ids[] = { m->gpu_instance, m->compute_instance };
    sub_labels(v, row, names, ids, 2, out);
}

static void partition_labels(const struct pna_http_view *v, const struct pna_row *row,
                             struct pna_row_labels *out)
{
    const struct pna_gpu_partition *p = row->rec;
    static const char *const names[] = { "partition" };
    const uint32_t ids[] = { p->id };
    sub_labels(v, row, names, ids, 1, out);
}

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
        struct pna_row_labels rl = { .n = 0 };
        gpu_series_labels(v, &row, &rl);
        rl.l[rl.n] = (struct pna_prom_label){ s->key, s->part_name[0] };
        pna_prom_u64(p, rl.l, rl.n + 1, part[0]);
        rl.l[rl.n].value = s->part_name[1];
        pna_prom_u64(p, rl.l, rl.n + 1, part[1]);
    }
}

/* One series per holder of a GPU (model/kubernetes/holders.h: the kubelet's
 * assignments, then the containers given its device node), shared GPUs
 * included, as primusGpuHolderCount counts them. */
struct holder_series {
    struct pna_prom *p;
    const struct pna_http_view *v;
    const struct pna_row *row;
};

static void holder_series(const struct pna_holder *h, void *arg)
{
    const struct holder_series *hs = arg;
    struct pna_row_labels rl = { .n = 0 };
    gpu_labels(hs->v, hs->row, &rl);
    rl.l[rl.n++] = (struct pna_prom_label){ "container_id", h->container_id };
    rl.l[rl.n++] = (struct pna_prom_label){ "container", h->container_name };
    rl.l[rl.n++] = (struct pna_prom_label){ "pod", h->pod };
    rl.l[rl.n++] = (struct pna_prom_label){ "namespace", h->pod_namespace };
    pna_prom_u64(hs->p, rl.l, rl.n, 1);
}

static void holders(struct pna_prom *p, const struct pna_http_view *v)
{
    const struct pna_metric_table *t = &pna_gpu_metrics;
    pna_prom_family(p, "primus_gpu_holder_info", PNA_PROM_GAUGE,
                    "A container (and pod) holding the GPU: one series per container the kubelet "
                    "gave it (pod-resources; container_id empty when its runtime record is not "
                    "seen) or that has one of its device nodes; always 1 (their number is "
                    "primusGpuHolderCount).");
    for (size_t i = 0; i < t->rows(&v->base); i++) {
        struct pna_row row;
        if (!pna_http_row(t, v, i, &row))
            continue;
        struct holder_series hs = { p, v, &row };
        pna_gpu_holders_each(&v->base, row.rec, holder_series, &hs);
    }
}

/* ---- the seeds' names --------------------------------------------------------- */

/* Node exporter: gpu_utilization{gpu_id} in percent. */
static void seed_gpu_id(const struct pna_http_view *v, const struct pna_row *row,
                        struct pna_row_labels *out)
{
    snprintf(out->buf, sizeof out->buf, "%u", (unsigned)pna_http_gpu_number(v->gpu, row->pos));
    out->l[0] = (struct pna_prom_label){ "gpu_id", out->buf };
    out->n = 1;
}

/* System-info exporter: {node, gpu_index, gpu_name, gpu_uuid}. */
static void seed_hw_labels(const struct pna_http_view *v, const struct pna_row *row,
                           struct pna_row_labels *out)
{
    const struct pna_gpu *g = row->rec;
    snprintf(out->buf, sizeof out->buf, "%u", (unsigned)pna_http_gpu_number(v->gpu, row->pos));
    out->l[0] = (struct pna_prom_label){ "node", v->node_name };
    out->l[1] = (struct pna_prom_label){ "gpu_index", out->buf };
    out->l[2] = (struct pna_prom_label){ "gpu_name", g->name };
    out->l[3] = (struct pna_prom_label){ "gpu_uuid", g->uuid };
    out->n = 4;
}

static const struct pna_seed seed_utilization = {
    "gpu_utilization", PNA_PROM_GAUGE, "primusGpuUtilization", { 0, 0 }, "GPU utilization percentage",
};

static const struct pna_seed hw_gpu_seeds[] = {
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
static void seed_hw_counts(struct pna_prom *p, const struct pna_gpu_snap *s, const char *node)
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

void pna_metrics_gpu(struct pna_prom *p, const struct pna_http_view *v)
{
    pna_prom_table(p, v, &pna_gpu_scalar_metrics, NULL);
    if (!v->gpu)
        return;
    pna_prom_table(p, v, &pna_gpu_metrics, gpu_series_labels);
    pna_prom_table(p, v, &pna_gpu_link_metrics, link_labels);
    pna_prom_table(p, v, &pna_gpu_proc_metrics, proc_labels);
    pna_prom_table(p, v, &pna_gpu_mig_metrics, mig_labels);
    pna_prom_table(p, v, &pna_gpu_partition_metrics, partition_labels);
    for (size_t i = 0; i < sizeof splits / sizeof splits[0]; i++)
        split_family(p, v, &splits[i]);
    holders(p, v);
    pna_prom_seed(p, v, &pna_gpu_metrics, &seed_utilization, seed_gpu_id);
    pna_metrics_compat(p, v);
    /* The system-info exporter writes its GPU metrics only on GPU nodes. */
    if (!v->gpu->count)
        return;
    seed_hw_counts(p, v->gpu, v->node_name);
    pna_prom_seeds(p, v, &pna_gpu_metrics, hw_gpu_seeds, sizeof hw_gpu_seeds / sizeof hw_gpu_seeds[0],
                   seed_hw_labels);
}
