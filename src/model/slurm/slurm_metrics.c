/* model/slurm/slurm_metrics.c -- primusSlurmJobTable: the Slurm jobs of this node
 * (model/slurm/slurm.h), one descriptor per value.  The GPU and MIG columns join
 * the job with the GPU snapshot of the same view (model/slurm/slurm_holders.h). */
#include "pna_autoconf.h"
#include "model/metric_tables.h"

#include "model/metric.h"
#include "model/oids.h"
#include "model/slurm/slurm.h"
#include "model/slurm/slurm_holders.h"

static const struct pna_slurm_snap *slurm_snap(const struct pna_view *v)
{
    return pna_view_snap(v, PNA_DOM_SLURM);
}

static size_t slurm_rows(const struct pna_view *v)
{
    return slurm_snap(v) ? slurm_snap(v)->count : 0;
}

static bool slurm_row(const struct pna_view *v, size_t i, struct pna_row *out)
{
    out->rec = &slurm_snap(v)->jobs[i];
    return true;
}

static const struct pna_slurm_job *job_of(const struct pna_row *r)
{
    return r->rec;
}

static void get_gpus(const struct pna_row *r, struct pna_value *out)
{
    pna_value_u64(out, pna_slurm_job_gpus(r->view, job_of(r)));
}

static void get_migs(const struct pna_row *r, struct pna_value *out)
{
    pna_value_u64(out, pna_slurm_job_migs(r->view, job_of(r)));
}

/* Absent where the job's devices are not known (cgroup v2, or no
 * ConstrainDevices). */
static void get_rdma(const struct pna_row *r, struct pna_value *out)
{
    uint32_t n;
    if (pna_slurm_job_rdma(job_of(r), &n))
        pna_value_u64(out, n);
}

/* The limit; none (0) when the cgroup was read and sets none. */
static void get_mem_limit(const struct pna_row *r, struct pna_value *out)
{
    const struct pna_slurm_job *j = job_of(r);
    if (j->has_mem_limit)
        pna_value_u64(out, j->mem_limit_bytes);
    else if (j->has_mem_usage)
        pna_value_none(out);
}

#define U32 PNA_SYNTAX_UNSIGNED
#define C64 PNA_SYNTAX_COUNTER64
#define TEXT PNA_SYNTAX_TEXT
#define GAUGE PNA_FAMILY_GAUGE
#define JOB(member) PNA_FIELD(struct pna_slurm_job, member)
#define JOB_IF(member, has) PNA_FIELD_IF(struct pna_slurm_job, member, has)

static const struct pna_metric slurm_job_metrics[] = {
    { .column = 2, .object = "primusSlurmJobUid", .syntax = U32, .field = JOB_IF(uid, has_uid),
      .label = "uid" },
    { .column = 3, .object = "primusSlurmJobUser", .syntax = TEXT, .field = JOB(user),
      .label = "user" },
    { .column = 4, .object = "primusSlurmJobSteps", .syntax = U32, .field = JOB(steps),
      .family = "primus_slurm_job_steps", .type = GAUGE,
      .help = "Steps of the job running on this node (step directories of its cgroup, the "
              "batch and extern steps included)" },
    { .column = 5, .object = "primusSlurmJobGpus", .syntax = U32, .get = get_gpus,
      .family = "primus_slurm_job_gpus", .type = GAUGE,
      .help = "GPUs the job holds: its processes on them, or its device list's GPU device nodes" },
    { .column = 6, .object = "primusSlurmJobMigDevices", .syntax = U32, .get = get_migs,
      .family = "primus_slurm_job_mig_devices", .type = GAUGE,
      .help = "MIG devices the job's processes run on" },
    { .column = 7, .object = "primusSlurmJobRdmaDevices", .syntax = U32, .get = get_rdma,
      .family = "primus_slurm_job_rdma_devices", .type = GAUGE,
      .help = "RDMA devices (uverbs nodes) the job's device list lets it open" },
    { .column = 8, .object = "primusSlurmJobStartTime", .syntax = U32,
      .field = PNA_FIELD_NZ(struct pna_slurm_job, start_s),
      .family = "primus_slurm_job_start_time_seconds", .type = GAUGE,
      .help = "When the job's cgroup was made on this node, seconds since 1970-01-01 UTC" },
    { .column = 9, .object = "primusSlurmJobMemUsage", .syntax = C64,
      .field = JOB_IF(mem_usage_bytes, has_mem_usage),
      .family = "primus_slurm_job_memory_usage_bytes", .type = GAUGE,
      .help = "Memory the job's cgroup uses" },
    { .column = 10, .object = "primusSlurmJobMemLimit", .syntax = C64, .get = get_mem_limit,
      .family = "primus_slurm_job_memory_limit_bytes", .type = GAUGE,
      .help = "The job's memory limit; absent when unlimited" },
};

/* primusSlurmJobId: Slurm's own job id. */
static const struct pna_key_part slurm_job_key[] = {
    PNA_KEY_INDEX_FIELD("primusSlurmJobId", "job", PNA_KEY_FROM_REC, struct pna_slurm_job, job_id),
};

const struct pna_metric_table pna_slurm_job_metrics = {
    .object = "primusSlurmJobTable",
    .kind = PNA_TABLE_ROWS,
    .domain = PNA_DOM_SLURM,
    .view = PNA_VIEW_DOMAIN(PNA_DOM_SLURM) | PNA_VIEW_DOMAIN(PNA_DOM_GPU),
    PNA_TABLE_OID(PNA_OID_SLURM, 10),
    PNA_KEY(slurm_job_key),
    .index_ordered = true,
    .metrics = slurm_job_metrics,
    .count = sizeof slurm_job_metrics / sizeof slurm_job_metrics[0],
    .rows = slurm_rows,
    .row = slurm_row,
    .info_family = "primus_slurm_job_info",
    .info_help = "One series per Slurm job running on this node, from its cgroup: job id, uid and "
                 "user name; always 1",
};
