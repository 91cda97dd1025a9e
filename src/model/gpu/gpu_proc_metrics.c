/* model/gpu/gpu_proc_metrics.c -- primusGpuProcTable: one row per GPU and
 * process with a context on it, one descriptor per value (see metric.h,
 * gpu.h).
 *
 * A row's record is the process; its parent is the GPU.  The container
 * columns join the process's cgroup with the containers snapshot of the same
 * view: the container whose cgroup is the process's, or holds it. */
#include "pna_autoconf.h"
#include "model/metric_tables.h"

#include <string.h>

#include "model/containers.h"
#include "model/gpu/gpu.h"
#include "model/gpu/gpu_key.h"
#include "model/metric.h"
#include "model/oids.h"

static const struct pna_gpu_snap *gpu_snap(const struct pna_view *v)
{
    return pna_view_snap(v, PNA_DOM_GPU);
}

static size_t proc_rows(const struct pna_view *v)
{
    const struct pna_gpu_snap *s = gpu_snap(v);
    return s ? s->proc_count : 0;
}

static bool proc_row(const struct pna_view *v, size_t i, struct pna_row *out)
{
    const struct pna_gpu_snap *s = gpu_snap(v);
    const struct pna_gpu_proc *p = &s->procs[i];
    out->rec = p;
    out->parent = pna_gpu_find(s->gpus, s->count, p->gpu_index);
    return out->parent != NULL;
}

static const struct pna_gpu_proc *proc_of(const struct pna_row *r)
{
    return r->rec;
}

/* The container the process runs in: the deepest container cgroup holding it. */
static const struct pna_container *container_of(const struct pna_row *r)
{
    const struct pna_containers_snap *cs = pna_view_snap(r->view, PNA_DOM_CONTAINERS);
    return cs ? pna_container_of_cgroup(&cs->set, proc_of(r)->cgroup) : NULL;
}

static void get_container(const struct pna_row *r, struct pna_value *out)
{
    const struct pna_container *c = container_of(r);
    pna_value_text(out, c ? c->id : "");
}

static void get_pod(const struct pna_row *r, struct pna_value *out)
{
    const struct pna_container *c = container_of(r);
    pna_value_text(out, c ? c->pod_name : "");
}

static void get_namespace(const struct pna_row *r, struct pna_value *out)
{
    const struct pna_container *c = container_of(r);
    pna_value_text(out, c ? c->pod_namespace : "");
}

static const char *const type_names[] = {
    [PNA_GPU_PROC_TYPE_COMPUTE] = "compute", [PNA_GPU_PROC_TYPE_GRAPHICS] = "graphics",
    [PNA_GPU_PROC_TYPE_COMPUTE_AND_GRAPHICS] = "computeAndGraphics",
};
static const struct pna_enum type_enum = PNA_ENUM(type_names);

/* The MIB's values are the model's bits: compute 1, graphics 2, both 3. */
static void get_type(const struct pna_row *r, struct pna_value *out)
{
    uint32_t t = proc_of(r)->type & (PNA_GPU_PROC_COMPUTE | PNA_GPU_PROC_GRAPHICS);
    if (t)
        pna_value_i64(out, t);
}

#define U32 PNA_SYNTAX_UNSIGNED
#define TEXT PNA_SYNTAX_TEXT
#define PROC(member) PNA_FIELD(struct pna_gpu_proc, member)
#define PROC_IF(member, has) PNA_FIELD_IF(struct pna_gpu_proc, member, has)

static const struct pna_metric proc_metrics[] = {
    { .column = 2, .object = "primusGpuProcName", .syntax = TEXT, .field = PROC(name),
      .label = "process", .json = "process" },
    { .column = 3, .object = "primusGpuProcType", .syntax = PNA_SYNTAX_INTEGER, .get = get_type,
      .enums = &type_enum, .label = "type", .json = "type" },
    { .column = 4, .object = "primusGpuProcMemUsed", .syntax = PNA_SYNTAX_COUNTER64,
      .field = PROC_IF(mem_bytes, has_mem), .family = "primus_gpu_process_memory_used_bytes",
      .type = PNA_FAMILY_GAUGE, .json = "memory_used_bytes",
      .help = "Device memory the process holds on the GPU" },
    { .column = 5, .object = "primusGpuProcSmUtil", .syntax = U32, .max = 100,
      .field = PROC_IF(sm_pct, has_util), .family = "primus_gpu_process_sm_utilization_ratio",
      .type = PNA_FAMILY_GAUGE, .scale = PNA_SCALE_E(-2),
      .help = "Share of time the process's kernels ran on the SMs, newest sample since the last "
              "poll, 0..1" },
    { .column = 6, .object = "primusGpuProcMemUtil", .syntax = U32, .max = 100,
      .field = PROC_IF(mem_pct, has_util), .family = "primus_gpu_process_memory_utilization_ratio",
      .type = PNA_FAMILY_GAUGE, .scale = PNA_SCALE_E(-2),
      .help = "Share of time the process read or wrote device memory, newest sample since the "
              "last poll, 0..1" },
    { .column = 7, .object = "primusGpuProcContainer", .syntax = TEXT, .get = get_container,
      .label = "container_id", .json = "container_id" },
    { .column = 8, .object = "primusGpuProcPod", .syntax = TEXT, .get = get_pod, .label = "pod",
      .json = "pod" },
    { .column = 9, .object = "primusGpuProcNamespace", .syntax = TEXT, .get = get_namespace,
      .label = "namespace", .json = "namespace" },
    { .column = 10, .object = "primusGpuProcGpuInstance", .syntax = U32,
      .field = PROC_IF(gpu_instance, has_instance), .label = "gpu_instance" },
    { .column = 11, .object = "primusGpuProcComputeInstance", .syntax = U32,
      .field = PROC_IF(compute_instance, has_instance), .label = "compute_instance" },
    { .column = 12, .object = "primusGpuProcOrphan", .syntax = PNA_SYNTAX_TRUTH,
      .field = PROC_IF(orphan, has_orphan), .family = "primus_gpu_process_orphan",
      .type = PNA_FAMILY_GAUGE, .json = "orphan",
      .help = "1 when the process's cgroup is in no container and no Slurm job (judged at the "
              "gpu poller's poll), else 0; absent when its cgroup is not known" },
};

/* The GPU's key, then the process's pid. */
static const struct pna_key_part proc_key[] = {
    PNA_GPU_KEY_PARTS(PNA_KEY_FROM_PARENT),
    PNA_KEY_INDEX_FIELD("primusGpuProcPid", "pid", PNA_KEY_FROM_REC, struct pna_gpu_proc, pid),
};

const struct pna_metric_table pna_gpu_proc_metrics = {
    .object = "primusGpuProcTable",
    .kind = PNA_TABLE_ROWS,
    .domain = PNA_DOM_GPU,
    .view = PNA_VIEW_DOMAIN(PNA_DOM_GPU) | PNA_VIEW_DOMAIN(PNA_DOM_CONTAINERS),
    PNA_TABLE_OID(PNA_OID_GPU, 12),
    PNA_KEY(proc_key),
    .index_ordered = true,
    .metrics = proc_metrics,
    .count = sizeof proc_metrics / sizeof proc_metrics[0],
    .rows = proc_rows,
    .row = proc_row,
    .info_family = "primus_gpu_process_info",
    .info_help = "One series per process on a GPU: its command name, type (compute, graphics), "
                 "the container and pod it runs in and its MIG instance; always 1",
};
