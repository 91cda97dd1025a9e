/* model/gpu/gpu_partition_metrics.c -- primusGpuPartitionTable: one row per
 * compute partition of an AMD GPU (a KFD node of a GPU with a compute
 * partition mode), one descriptor per value (see metric.h, gpu.h).
 *
 * A row's record is the partition; its parent is the GPU.  The holder columns
 * are model/kubernetes/holders.h's: the containers given the partition's
 * render node. */
#include "pna_autoconf.h"
#include "model/metric_tables.h"

#include "model/kubernetes/holders.h"
#include "model/slurm/slurm_holders.h"
#include "model/gpu/gpu.h"
#include "model/gpu/gpu_key.h"
#include "model/metric.h"
#include "model/oids.h"

static const struct pna_gpu_snap *gpu_snap(const struct pna_view *v)
{
    return pna_view_snap(v, PNA_DOM_GPU);
}

static size_t part_rows(const struct pna_view *v)
{
    const struct pna_gpu_snap *s = gpu_snap(v);
    return s ? s->part_count : 0;
}

static bool part_row(const struct pna_view *v, size_t i, struct pna_row *out)
{
    const struct pna_gpu_snap *s = gpu_snap(v);
    const struct pna_gpu_partition *p = &s->parts[i];
    out->rec = p;
    out->parent = pna_gpu_find(s->gpus, s->count, p->gpu_index);
    return out->parent != NULL;
}

static const struct pna_gpu_partition *part_of(const struct pna_row *r)
{
    return r->rec;
}

static void get_render(const struct pna_row *r, struct pna_value *out)
{
    const struct pna_gpu_partition *p = part_of(r);
    if (p->has_render)
        pna_value_printf(out, "/dev/dri/renderD%u", (unsigned)p->render_minor);
}

static void get_container(const struct pna_row *r, struct pna_value *out)
{
    struct pna_holder h;
    pna_partition_holder(r->view, part_of(r), &h);
    pna_value_text(out, h.container_id);
}

static void get_pod(const struct pna_row *r, struct pna_value *out)
{
    struct pna_holder h;
    pna_partition_holder(r->view, part_of(r), &h);
    pna_value_text(out, h.pod);
}

static void get_namespace(const struct pna_row *r, struct pna_value *out)
{
    struct pna_holder h;
    pna_partition_holder(r->view, part_of(r), &h);
    pna_value_text(out, h.pod_namespace);
}

/* The Slurm job whose device list has the partition's render node
 * (model/slurm/slurm_holders.h), the lowest of several; none (0) when none. */
static void get_job(const struct pna_row *r, struct pna_value *out)
{
    uint32_t job = pna_slurm_partition_job(r->view, part_of(r));
    if (job)
        pna_value_u64(out, job);
    else
        pna_value_none(out);
}

#define U32 PNA_SYNTAX_UNSIGNED
#define C64 PNA_SYNTAX_COUNTER64
#define TEXT PNA_SYNTAX_TEXT
#define PART(member) PNA_FIELD(struct pna_gpu_partition, member)
#define PART_IF(member, has) PNA_FIELD_IF(struct pna_gpu_partition, member, has)

static const struct pna_metric part_metrics[] = {
    { .column = 2, .object = "primusGpuPartitionKfdId", .syntax = U32, .field = PART(kfd_gpu_id),
      .label = "kfd_gpu_id", .json = "kfd_gpu_id" },
    { .column = 3, .object = "primusGpuPartitionRenderNode", .syntax = TEXT, .get = get_render,
      .label = "render_node", .json = "render_node" },
    { .column = 4, .object = "primusGpuPartitionXccCount", .syntax = U32,
      .field = PART_IF(xcc_count, has_xcc), .family = "primus_gpu_partition_xccs",
      .type = PNA_FAMILY_GAUGE, .json = "xccs", .help = "Compute dies (XCCs) of the partition" },
    { .column = 5, .object = "primusGpuPartitionComputeUnits", .syntax = U32,
      .field = PART_IF(cu_count, has_cus), .family = "primus_gpu_partition_compute_units",
      .type = PNA_FAMILY_GAUGE, .json = "compute_units", .help = "Compute units of the partition" },
    { .column = 6, .object = "primusGpuPartitionGfxActive", .syntax = U32, .max = 10000,
      .field = PART_IF(gfx_active_bp, has_gfx_active),
      .family = "primus_gpu_partition_graphics_engine_active_ratio", .type = PNA_FAMILY_GAUGE,
      .scale = PNA_SCALE_E(-4),
      .help = "Share of time the partition's compute dies were busy (the mean of their "
              "gfx_busy_inst), 0..1" },
    { .column = 7, .object = "primusGpuPartitionVideoActive", .syntax = U32, .max = 10000,
      .field = PART_IF(video_active_bp, has_video_active),
      .family = "primus_gpu_partition_multimedia_active_ratio", .type = PNA_FAMILY_GAUGE,
      .scale = PNA_SCALE_E(-4),
      .help = "Share of time the partition's video engines were busy (the mean of their "
              "vcn_busy), 0..1" },
    { .column = 8, .object = "primusGpuPartitionMemUsed", .syntax = C64,
      .field = PART_IF(mem_used_bytes, has_mem), .family = "primus_gpu_partition_memory_used_bytes",
      .type = PNA_FAMILY_GAUGE, .json = "memory_used_bytes",
      .help = "Device memory the ROCm processes on the partition hold (KFD)" },
    { .column = 9, .object = "primusGpuPartitionHolderContainer", .syntax = TEXT,
      .get = get_container, .label = "container_id", .json = "container_id" },
    { .column = 10, .object = "primusGpuPartitionHolderPod", .syntax = TEXT, .get = get_pod,
      .label = "pod", .json = "pod" },
    { .column = 11, .object = "primusGpuPartitionHolderNamespace", .syntax = TEXT,
      .get = get_namespace, .label = "namespace", .json = "namespace" },
    { .column = 12, .object = "primusGpuPartitionHolderJob", .syntax = U32, .get = get_job,
      .label = "job", .json = "holder_job" },
};

/* The GPU's key, then the partition's id. */
static const struct pna_key_part part_key[] = {
    PNA_GPU_KEY_PARTS(PNA_KEY_FROM_PARENT),
    PNA_KEY_INDEX_FIELD("primusGpuPartitionId", "partition", PNA_KEY_FROM_REC,
                        struct pna_gpu_partition, id),
};

const struct pna_metric_table pna_gpu_partition_metrics = {
    .object = "primusGpuPartitionTable",
    .kind = PNA_TABLE_ROWS,
    .domain = PNA_DOM_GPU,
    .view = PNA_VIEW_DOMAIN(PNA_DOM_GPU) | PNA_VIEW_DOMAIN(PNA_DOM_CONTAINERS) |
            PNA_VIEW_DOMAIN(PNA_DOM_PODRES) | PNA_VIEW_DOMAIN(PNA_DOM_SLURM),
    PNA_TABLE_OID(PNA_OID_GPU, 14),
    PNA_KEY(part_key),
    .index_ordered = true,
    .metrics = part_metrics,
    .count = sizeof part_metrics / sizeof part_metrics[0],
    .rows = part_rows,
    .row = part_row,
    .info_family = "primus_gpu_partition_info",
    .info_help = "One series per compute partition of an AMD GPU: its KFD id, render node and the "
                 "container and pod given that node; always 1",
};
