/* http/render/metrics_rdma.c -- what /metrics serves for InfiniBand and RoCE
 * besides the descriptor tables of model/ib_metrics.c (whose port series
 * carry device, "mlx5_0", and port, "1"): primusIbPortSaturated as one series
 * per saturated counter, and the replaced exporters' names unchanged: the
 * node exporter's rdma_stat_<counter>{device,port} and the RDMA stats
 * exporter's rdma_ecn_marked_packets, rdma_cnp_sent, rdma_cnp_handled,
 * rdma_rx_write_requests and rdma_out_of_sequence; and who holds each
 * device, one primus_rdma_holder_info series per holder.  Those are served
 * untyped (the replaced exporters' ones): they are counters without
 * "_total", which the linter refuses for a typed counter. */
#include "pna_autoconf.h"
#include "http/render/render.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/ib.h"
#include "model/kubernetes/holders.h"
#include "model/metric_tables.h"
#include "model/slurm/slurm_holders.h"

/* primusIbPortSaturated's bits as one series per saturated counter, named by
 * its sysfs file: the same bits, from the same model function. */
static void saturated(struct pna_prom *p, const struct pna_http_view *v)
{
    const struct pna_metric_table *t = &pna_ib_port_metrics;
    pna_prom_family(p, "primus_ib_port_saturated", PNA_PROM_GAUGE,
                    "1 for a port counter stopped at the maximum of its hardware width (IB PMA "
                    "error counters saturate, they do not wrap), named in the counter label; "
                    "absent otherwise (primusIbPortSaturated: one bit per counter column).");
    for (size_t i = 0; i < t->rows(&v->base); i++) {
        struct pna_row row;
        if (!pna_http_row(t, v, i, &row))
            continue;
        uint32_t bits = pna_ib_saturated_columns(row.rec);
        for (unsigned b = 0; bits && b < 32; b++) {
            if (!(bits & (UINT32_C(1) << b)))
                continue;
            struct pna_row_labels rl;
            pna_prom_key_labels(v, t, &row, &rl);
            rl.l[rl.n] = (struct pna_prom_label){ "counter", pna_ib_saturated_counter_file(b) };
            pna_prom_u64(p, rl.l, rl.n + 1, 1);
        }
    }
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The port rows of primusHwCounterTable whose counter is NAME, as samples
 * labelled device and port (the replaced exporters' label set). */
static void port_counter_samples(struct pna_prom *p, const struct pna_http_view *v, const char *name)
{
    const struct pna_metric_table *t = &pna_hw_counter_metrics;
    const struct pna_metric *value = pna_metric_by_object(t, "primusHwCounterValue");
    size_t rows = t->rows(&v->base);
    for (size_t i = 0; i < rows; i++) {
        struct pna_row row;
        struct pna_value val;
        if (!pna_http_row(t, v, i, &row) || row.key_number == 0 ||
            strcmp(((const struct pna_hw_counter *)row.rec)->name, name) != 0)
            continue;
        pna_metric_value(t, value, &row, &val);
        struct pna_row_labels rl;
        pna_prom_key_labels(v, t, &row, &rl);
        pna_prom_scaled(p, rl.l, 2, &val, value->scale); /* device, port */
    }
}

/* The node exporter made one family per counter name (rdma_stat_<name>) from
 * `rdma statistic show`, which lists the ports' hw_counters: the values of
 * primusHwCounterTable's port rows.  Families must not interleave, so the
 * distinct names are collected first. */
static void node_exporter_rdma_stat(struct pna_prom *p, const struct pna_http_view *v)
{
    const struct pna_metric_table *t = &pna_hw_counter_metrics;
    size_t rows = t->rows(&v->base);
    if (!rows)
        return;
    const char **names = malloc(rows * sizeof *names);
    if (!names) {
        p->out->failed = true;
        return;
    }
    size_t n = 0;
    for (size_t i = 0; i < rows; i++) {
        struct pna_row row;
        if (pna_http_row(t, v, i, &row) && row.key_number != 0)
            names[n++] = ((const struct pna_hw_counter *)row.rec)->name;
    }
    qsort(names, n, sizeof *names, cmp_str);
    for (size_t k = 0; k < n; k++) {
        if (k > 0 && strcmp(names[k], names[k - 1]) == 0)
            continue;
        char family[PNA_PROM_NAME_MAX];
        pna_prom_name_join(family, sizeof family, "rdma_stat_", names[k]);
        pna_prom_family(p, family, PNA_PROM_UNTYPED, "RDMA statistic from rdma statistic show");
        port_counter_samples(p, v, names[k]);
    }
    free(names);
}

/* The RDMA stats exporter's congestion names (its label set is not documented;
 * device and port are used, as rdma_stat_* has them): primusRoceCongTable
 * columns, and one hw counter under its driver name. */
static const struct pna_replaced_metric roce_names[] = {
    { "rdma_ecn_marked_packets", PNA_PROM_UNTYPED, "primusRoceNpEcnMarkedRocePackets", { 0, 0 },
      "ECN-marked RoCE packets (np_ecn_marked_roce_packets)" },
    { "rdma_cnp_sent", PNA_PROM_UNTYPED, "primusRoceNpCnpSent", { 0, 0 },
      "CNP packets sent (np_cnp_sent)" },
    { "rdma_cnp_handled", PNA_PROM_UNTYPED, "primusRoceRpCnpHandled", { 0, 0 },
      "CNP packets handled (rp_cnp_handled)" },
};

static const struct pna_replaced_metric out_of_sequence = {
    "rdma_out_of_sequence", PNA_PROM_UNTYPED, "primusRoceOutOfSequence", { 0, 0 },
    "Out-of-sequence packets received",
};

static void write_requests(struct pna_prom *p, const struct pna_http_view *v)
{
    pna_prom_family(p, "rdma_rx_write_requests", PNA_PROM_UNTYPED, "RDMA write requests received");
    port_counter_samples(p, v, "rx_write_requests");
}

/* One series per holder of an RDMA device, as primusRdmaHolderCount counts
 * them (the kubelet's assignments, then the containers given one of its
 * nodes), then one per Slurm job using it: the shape of
 * primus_gpu_holder_info. */
static void rdma_holders_each(const struct pna_view *v, const void *rec, pna_holder_fn fn,
                              void *arg)
{
    pna_rdma_holders_each(v, ((const struct pna_ib_device *)rec)->name, fn, arg);
}

static size_t rdma_jobs(const struct pna_view *v, const void *rec, uint32_t *jobs)
{
    return pna_slurm_rdma_jobs(v, rec, jobs);
}

static void holders(struct pna_prom *p, const struct pna_http_view *v)
{
    static const struct pna_holder_source src = { &pna_rdma_device_metrics, rdma_holders_each,
                                                  rdma_jobs };
    pna_prom_holders(p, v, &src, "primus_rdma_holder_info",
                     "A container (and pod) holding the RDMA device: one series per container the "
                     "kubelet gave it or whose device list has one of its nodes; always 1 (their "
                     "number is primusRdmaHolderCount).  A Slurm job using it (its verbs node "
                     "open in one of the job's processes, or allowed by a constraining "
                     "devices.list) has a series of its own with the job label "
                     "(primusRdmaHolderJob), container labels empty.");
}

void pna_metrics_rdma_extras(struct pna_prom *p, const struct pna_http_view *v)
{
    if (!pna_view_snap(&v->base, PNA_DOM_IB))
        return;
    saturated(p, v);
    holders(p, v);
    node_exporter_rdma_stat(p, v);
    pna_prom_replaced_all(p, v, &pna_roce_cong_metrics, roce_names,
                          sizeof roce_names / sizeof roce_names[0], pna_prom_key_labels);
    write_requests(p, v);
    pna_prom_replaced(p, v, &pna_roce_cong_metrics, &out_of_sequence, pna_prom_key_labels);
}
