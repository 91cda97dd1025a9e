/* model/accounting/usage_metrics.c -- the accounting tables: primusGpuUsageTable
 * (a holder on a GPU), primusPodGpuUsageTable (a pod's sum) and
 * primusSlurmJobGpuUsageTable (a Slurm job's sum), and the GPU table's idle
 * residual (primusGpuIdleEnergy, read by gpu_metrics.c through
 * pna_usage_gpu_idle()).  Rows come from the accounting domain's snapshot
 * (model/accounting/usage.h), one descriptor per value.
 *
 * Units in SNMP: energy in millijoules, times in centiseconds, memory in
 * byte-seconds, discontinuity times in seconds since 1970-01-01 UTC; on
 * /metrics joules, seconds and byte-seconds (the descriptors' scale).  Each
 * counter family has its `_created` gauge: the row's discontinuity time, as
 * OpenMetrics' _created (a Prometheus text exposition has no other way to
 * carry it). */
#include "pna_autoconf.h"
#include "model/metric_tables.h"

#include "model/accounting/usage.h"
#include "model/metric.h"
#include "model/oids.h"

#include <string.h>

static const struct pna_usage_snap *usage_snap(const struct pna_view *v)
{
    return pna_view_snap(v, PNA_DOM_ACCOUNTING);
}

/* ---- values shared by the three tables ------------------------------------- */

/* A row's figures: the holder row's, or a sum's (REC is either; FIGURES_AT
 * says where its figures are). */
static const struct pna_usage_figures *figures_of(const struct pna_row *r)
{
    return r->key_number ? &((const struct pna_usage_sum *)r->rec)->f
                         : &((const struct pna_usage_row *)r->rec)->f;
}

static int64_t created_of(const struct pna_row *r)
{
    return r->key_number ? ((const struct pna_usage_sum *)r->rec)->created_ms
                         : ((const struct pna_usage_row *)r->rec)->created_ms;
}

/* Absent while no interval had the GPU's energy (no counter, no power). */
static void get_energy(const struct pna_row *r, struct pna_value *out)
{
    if (figures_of(r)->has_energy)
        pna_value_u64(out, figures_of(r)->energy_mj);
}

static void get_held(const struct pna_row *r, struct pna_value *out)
{
    pna_value_u64(out, figures_of(r)->held_ms / 10);
}

/* Absent until an interval had the device's activity. */
static void get_sm_active(const struct pna_row *r, struct pna_value *out)
{
    if (figures_of(r)->has_sm_active)
        pna_value_u64(out, figures_of(r)->sm_active_ms / 10);
}

/* Absent while no interval knew the memory the holder held. */
static void get_mem(const struct pna_row *r, struct pna_value *out)
{
    if (figures_of(r)->has_mem)
        pna_value_u64(out, figures_of(r)->mem_byte_s);
}

static void get_created(const struct pna_row *r, struct pna_value *out)
{
    pna_value_u64(out, (uint64_t)(created_of(r) / 1000));
}

#define U32 PNA_SYNTAX_UNSIGNED
#define C64 PNA_SYNTAX_COUNTER64
#define TEXT PNA_SYNTAX_TEXT
#define INT PNA_SYNTAX_INTEGER
#define COUNTER PNA_FAMILY_COUNTER
#define GAUGE PNA_FAMILY_GAUGE

/* The four counters and their _created gauges, columns COL.. of a table
 * whose families start PREFIX. */
#define FIGURE_METRICS(col, obj, prefix, whose)                                                  \
    { .column = (col), .object = obj "Energy", .syntax = C64, .get = get_energy,                 \
      .family = prefix "energy_joules_total", .type = COUNTER, .scale = PNA_SCALE_E(-3),         \
      .json = "energy_mj", .help = "GPU energy charged to " whose },                             \
    { .column = (col) + 1, .object = obj "Seconds", .syntax = C64, .get = get_held,              \
      .family = prefix "seconds_total", .type = COUNTER, .scale = PNA_SCALE_E(-2),               \
      .json = "gpu_centiseconds",                                                                 \
      .help = "GPU time held by " whose ", a share of a GPU counting its share" },               \
    { .column = (col) + 2, .object = obj "SmActive", .syntax = C64, .get = get_sm_active,        \
      .family = prefix "sm_active_seconds_total", .type = COUNTER, .scale = PNA_SCALE_E(-2),     \
      .json = "sm_active_centiseconds",                                                           \
      .help = "GPU time held by " whose " times the SM activity of what it held" },              \
    { .column = (col) + 3, .object = obj "MemoryByteSeconds", .syntax = C64, .get = get_mem,     \
      .family = prefix "memory_byte_seconds_total", .type = COUNTER,                             \
      .json = "memory_byte_seconds", .help = "GPU memory held by " whose " times the time held" }, \
    { .column = (col) + 4, .object = obj "CounterDiscontinuityTime", .syntax = U32,              \
      .get = get_created, .json = "counter_discontinuity_time" }

/* The _created series of the four families (bridge-only: SNMP has the one
 * discontinuity column). */
#define CREATED_METRICS(prefix)                                                                   \
    { .get = get_created, .family = prefix "energy_joules_created", .type = GAUGE,               \
      .help = "When the energy counter last started from zero or was interrupted, seconds since " \
              "1970-01-01 UTC" },                                                                 \
    { .get = get_created, .family = prefix "seconds_created", .type = GAUGE,                     \
      .help = "When the GPU time counter last started from zero or was interrupted" },           \
    { .get = get_created, .family = prefix "sm_active_seconds_created", .type = GAUGE,           \
      .help = "When the SM-active time counter last started from zero or was interrupted" },     \
    { .get = get_created, .family = prefix "memory_byte_seconds_created", .type = GAUGE,         \
      .help = "When the memory time counter last started from zero or was interrupted" }

/* ---- primusGpuUsageTable ----------------------------------------------------- */

/* A Slurm job holder's id; none (0) for a container. */
static void get_job(const struct pna_row *r, struct pna_value *out)
{
    uint32_t job = ((const struct pna_usage_row *)r->rec)->who.job;
    if (job)
        pna_value_u64(out, job);
    else
        pna_value_none(out);
}

static size_t usage_rows(const struct pna_view *v)
{
    return usage_snap(v) ? usage_snap(v)->l.n_rows : 0;
}

static bool usage_row(const struct pna_view *v, size_t i, struct pna_row *out)
{
    const struct pna_usage_row *r = &usage_snap(v)->l.rows[i];
    out->rec = r;
    out->key_number = 0;
    /* an id over the MIB's SIZE cannot be an index */
    return strlen(r->who.id) <= 100;
}

static const char *const source_names[] = { NULL, "counter", "powerTime" };
static const struct pna_enum source_enum = PNA_ENUM(source_names);
static const char *const rule_names[] = { NULL, "whole", "migSlices", "processSamples", "even" };
static const struct pna_enum rule_enum = PNA_ENUM(rule_names);

#define ROW(member) PNA_FIELD(struct pna_usage_row, member)

static const struct pna_metric usage_metrics[] = {
    { .column = 4, .object = "primusGpuUsageNamespace", .syntax = TEXT,
      .field = ROW(who.pod_namespace) },
    { .column = 5, .object = "primusGpuUsagePod", .syntax = TEXT, .field = ROW(who.pod) },
    { .column = 6, .object = "primusGpuUsageContainer", .syntax = TEXT,
      .field = ROW(who.container) },
    { .column = 7, .object = "primusGpuUsageJob", .syntax = U32, .get = get_job,
      .json = "job" },
    { .column = 8, .object = "primusGpuUsageEnergySource", .syntax = INT, .field = ROW(energy_from),
      .enums = &source_enum, .label = "energy_source", .json = "energy_source" },
    { .column = 9, .object = "primusGpuUsageShareRule", .syntax = INT, .field = ROW(rule),
      .enums = &rule_enum, .label = "share_rule", .json = "share_rule" },
    { .column = 10, .object = "primusGpuUsageHeld", .syntax = PNA_SYNTAX_TRUTH, .field = ROW(held),
      .flags = PNA_METRIC_JSON_BOOL, .family = "primus_gpu_usage_held", .type = GAUGE,
      .json = "held", .help = "1 while the holder held the GPU at the last GPU poll, 0 while its "
                              "row is kept after it went (accountingRetention)" },
    FIGURE_METRICS(11, "primusGpuUsage", "primus_gpu_usage_", "the holder on this GPU"),
    CREATED_METRICS("primus_gpu_usage_"),
};

static void usage_gpu_number(const struct pna_row *row, const void *rec, struct pna_value *out)
{
    (void)row;
    pna_value_u64(out, ((const struct pna_usage_row *)rec)->gpu_number);
}

static void usage_job_label(const struct pna_row *row, const void *rec, struct pna_value *out)
{
    (void)row;
    uint32_t job = ((const struct pna_usage_row *)rec)->who.job;
    if (job)   /* absent for a container: "" on /metrics, no member in JSON */
        pna_value_printf(out, "%u", (unsigned)job);
}

/* Holder kind, holder id, then the GPU: a holder's rows are together in a
 * walk, and a holder that holds several GPUs is one prefix. */
static const struct pna_key_part usage_key[] = {
    PNA_KEY_INDEX_FIELD("primusGpuUsageHolderKind", NULL, PNA_KEY_FROM_REC, struct pna_usage_row,
                        who.kind),
    PNA_KEY_INDEX_FIELD("primusGpuUsageHolderId", "holder_id", PNA_KEY_FROM_REC,
                        struct pna_usage_row, who.id),
    PNA_KEY_INDEX_FIELD("primusGpuIndex", NULL, PNA_KEY_FROM_REC, struct pna_usage_row, gpu_index),
    PNA_KEY_LABEL_GET("gpu", PNA_KEY_FROM_REC, false, usage_gpu_number),
    PNA_KEY_LABEL_FIELD("pci_bus_id", PNA_KEY_FROM_REC, struct pna_usage_row, pci_bus_id),
    PNA_KEY_LABEL_FIELD("uuid", PNA_KEY_FROM_REC, struct pna_usage_row, uuid),
    PNA_KEY_LABEL_FIELD("namespace", PNA_KEY_FROM_REC, struct pna_usage_row, who.pod_namespace),
    PNA_KEY_LABEL_FIELD("pod", PNA_KEY_FROM_REC, struct pna_usage_row, who.pod),
    PNA_KEY_LABEL_FIELD("container", PNA_KEY_FROM_REC, struct pna_usage_row, who.container),
    PNA_KEY_LABEL_GET("job", PNA_KEY_FROM_REC, true, usage_job_label),
};

const struct pna_metric_table pna_gpu_usage_metrics = {
    .object = "primusGpuUsageTable",
    .kind = PNA_TABLE_ROWS,
    .domain = PNA_DOM_ACCOUNTING,
    .view = PNA_VIEW_DOMAIN(PNA_DOM_ACCOUNTING),
    PNA_TABLE_OID(PNA_OID_GPU, 15),
    PNA_KEY(usage_key),
    .metrics = usage_metrics,
    .count = sizeof usage_metrics / sizeof usage_metrics[0],
    .rows = usage_rows,
    .row = usage_row,
    .info_family = "primus_gpu_usage_info",
    .info_help = "One series per holder of a GPU the agent accounts (kept accountingRetention "
                 "after it went): where its energy came from and how the GPU was shared; always 1",
};

/* ---- primusPodGpuUsageTable ----------------------------------------------------- */

static size_t pod_rows(const struct pna_view *v)
{
    return usage_snap(v) ? usage_snap(v)->l.n_pods : 0;
}

static bool pod_row(const struct pna_view *v, size_t i, struct pna_row *out)
{
    const struct pna_usage_sum *s = &usage_snap(v)->l.pods[i];
    out->rec = s;
    out->key_number = 1;   /* a sum (figures_of()) */
    /* the index: both strings with their lengths, within an OID */
    return strlen(s->pod_namespace) + strlen(s->pod) <= 100;
}

static const struct pna_metric pod_metrics[] = {
    FIGURE_METRICS(3, "primusPodGpuUsage", "primus_pod_gpu_", "the pod's containers"),
    CREATED_METRICS("primus_pod_gpu_"),
};

static const struct pna_key_part pod_key[] = {
    PNA_KEY_INDEX_FIELD("primusPodGpuUsageNamespace", "namespace", PNA_KEY_FROM_REC,
                        struct pna_usage_sum, pod_namespace),
    PNA_KEY_INDEX_FIELD("primusPodGpuUsagePod", "pod", PNA_KEY_FROM_REC, struct pna_usage_sum,
                        pod),
};

const struct pna_metric_table pna_pod_gpu_usage_metrics = {
    .object = "primusPodGpuUsageTable",
    .kind = PNA_TABLE_ROWS,
    .domain = PNA_DOM_ACCOUNTING,
    .view = PNA_VIEW_DOMAIN(PNA_DOM_ACCOUNTING),
    PNA_TABLE_OID(PNA_OID_GPU, 16),
    PNA_KEY(pod_key),
    .metrics = pod_metrics,
    .count = sizeof pod_metrics / sizeof pod_metrics[0],
    .rows = pod_rows,
    .row = pod_row,
};

/* ---- primusSlurmJobGpuUsageTable ---------------------------------------------------- */

static size_t job_rows(const struct pna_view *v)
{
    return usage_snap(v) ? usage_snap(v)->l.n_jobs : 0;
}

static bool job_row(const struct pna_view *v, size_t i, struct pna_row *out)
{
    out->rec = &usage_snap(v)->l.jobs[i];
    out->key_number = 1;
    return true;
}

static const struct pna_metric job_metrics[] = {
    FIGURE_METRICS(2, "primusSlurmJobGpuUsage", "primus_slurm_job_gpu_", "the Slurm job"),
    CREATED_METRICS("primus_slurm_job_gpu_"),
};

static const struct pna_key_part job_key[] = {
    PNA_KEY_INDEX_FIELD("primusSlurmJobGpuUsageJob", "job", PNA_KEY_FROM_REC, struct pna_usage_sum,
                        job),
};

const struct pna_metric_table pna_slurm_job_gpu_usage_metrics = {
    .object = "primusSlurmJobGpuUsageTable",
    .kind = PNA_TABLE_ROWS,
    .domain = PNA_DOM_ACCOUNTING,
    .view = PNA_VIEW_DOMAIN(PNA_DOM_ACCOUNTING),
    PNA_TABLE_OID(PNA_OID_GPU, 17),
    PNA_KEY(job_key),
    .index_ordered = true,
    .metrics = job_metrics,
    .count = sizeof job_metrics / sizeof job_metrics[0],
    .rows = job_rows,
    .row = job_row,
};

/* ---- the GPU table's columns ---------------------------------------------------------- */

const struct pna_usage_gpu *pna_usage_gpu_in_view(const struct pna_view *v, uint32_t index)
{
    const struct pna_usage_snap *s = usage_snap(v);
    return s ? pna_usage_find_gpu(s->l.gpus, s->l.n_gpus, index) : NULL;
}
