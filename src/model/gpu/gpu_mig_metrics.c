/* model/gpu/gpu_mig_metrics.c -- primusGpuMigTable: one row per MIG device
 * (compute instance of a GPU instance) of each GPU, one descriptor per value
 * (see metric.h, gpu.h).
 *
 * A row's record is the MIG device; its parent is the GPU.  The holder columns
 * are model/kubernetes/holders.h's: the kubelet's assignment of the MIG UUID, else the
 * container given the device's access capability (/dev/nvidia-caps/nvidia-capN). */
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

static size_t mig_rows(const struct pna_view *v)
{
    const struct pna_gpu_snap *s = gpu_snap(v);
    return s ? s->mig_count : 0;
}

static bool mig_row(const struct pna_view *v, size_t i, struct pna_row *out)
{
    const struct pna_gpu_snap *s = gpu_snap(v);
    const struct pna_gpu_mig *m = &s->migs[i];
    out->rec = m;
    out->parent = pna_gpu_find(s->gpus, s->count, m->gpu_index);
    return out->parent != NULL;
}

static const struct pna_gpu_mig *mig_of(const struct pna_row *r)
{
    return r->rec;
}

static void get_cap_device(const struct pna_row *r, struct pna_value *out)
{
    const struct pna_gpu_mig *m = mig_of(r);
    if (m->has_cap)
        pna_value_printf(out, "/dev/nvidia-caps/nvidia-cap%u", (unsigned)m->cap_minor);
}

/* The MIG device's holders (model/kubernetes/holders.h): the kubelet's assignment of
 * its MIG UUID first, then the containers given its capability node. */
static void get_container(const struct pna_row *r, struct pna_value *out)
{
    struct pna_holder h;
    pna_mig_holder(r->view, mig_of(r), &h);
    pna_value_text(out, h.container_id);
}

static void get_pod(const struct pna_row *r, struct pna_value *out)
{
    struct pna_holder h;
    pna_mig_holder(r->view, mig_of(r), &h);
    pna_value_text(out, h.pod);
}

static void get_namespace(const struct pna_row *r, struct pna_value *out)
{
    struct pna_holder h;
    pna_mig_holder(r->view, mig_of(r), &h);
    pna_value_text(out, h.pod_namespace);
}

/* The Slurm job whose processes run on the MIG device (model/slurm/slurm_holders.h); none (0)
 * when none. */
static void get_job(const struct pna_row *r, struct pna_value *out)
{
    uint32_t job = pna_slurm_mig_job(r->view, mig_of(r));
    if (job)
        pna_value_u64(out, job);
    else
        pna_value_none(out);
}

#define U32 PNA_SYNTAX_UNSIGNED
#define C64 PNA_SYNTAX_COUNTER64
#define TEXT PNA_SYNTAX_TEXT
#define MIG(member) PNA_FIELD(struct pna_gpu_mig, member)
#define MIG_IF(member, has) PNA_FIELD_IF(struct pna_gpu_mig, member, has)
#define MIG_NZ(member) PNA_FIELD_NZ(struct pna_gpu_mig, member)

static const struct pna_metric mig_metrics[] = {
    { .column = 3, .object = "primusGpuMigUuid", .syntax = TEXT, .field = MIG_NZ(uuid),
      .label = "mig_uuid", .json = "mig_uuid" },
    { .column = 4, .object = "primusGpuMigProfile", .syntax = TEXT, .field = MIG_NZ(profile),
      .label = "profile", .json = "profile" },
    { .column = 5, .object = "primusGpuMigMemTotal", .syntax = C64,
      .field = MIG_IF(mem_total_bytes, has_mem), .family = "primus_gpu_mig_memory_total_bytes",
      .type = PNA_FAMILY_GAUGE, .json = "memory_total_bytes",
      .help = "Device memory of the MIG device" },
    { .column = 6, .object = "primusGpuMigMemUsed", .syntax = C64,
      .field = MIG_IF(mem_used_bytes, has_mem), .family = "primus_gpu_mig_memory_used_bytes",
      .type = PNA_FAMILY_GAUGE, .json = "memory_used_bytes",
      .help = "Device memory in use on the MIG device" },
    { .column = 7, .object = "primusGpuMigSmCount", .syntax = U32,
      .field = MIG_IF(sm_count, has_sm_count), .family = "primus_gpu_mig_multiprocessors",
      .type = PNA_FAMILY_GAUGE, .json = "multiprocessors",
      .help = "Streaming multiprocessors of the MIG device" },
    { .column = 8, .object = "primusGpuMigCapDevice", .syntax = TEXT, .get = get_cap_device,
      .label = "cap_device", .json = "cap_device" },
    { .column = 9, .object = "primusGpuMigHolderContainer", .syntax = TEXT, .get = get_container,
      .label = "container_id", .json = "container_id" },
    { .column = 10, .object = "primusGpuMigHolderPod", .syntax = TEXT, .get = get_pod,
      .label = "pod", .json = "pod" },
    { .column = 11, .object = "primusGpuMigHolderNamespace", .syntax = TEXT, .get = get_namespace,
      .label = "namespace", .json = "namespace" },
    { .column = 12, .object = "primusGpuMigSmActive", .syntax = U32, .max = 10000,
      .field = MIG_IF(sm_active_bp, has_sm_active), .family = "primus_gpu_mig_sm_active_ratio",
      .type = PNA_FAMILY_GAUGE, .scale = PNA_SCALE_E(-4),
      .help = "Share of time the MIG device's SMs had at least one warp resident, over the last "
              "poll interval, 0..1" },
    { .column = 13, .object = "primusGpuMigTensorActive", .syntax = U32, .max = 10000,
      .field = MIG_IF(tensor_active_bp, has_tensor_active),
      .family = "primus_gpu_mig_tensor_active_ratio", .type = PNA_FAMILY_GAUGE,
      .scale = PNA_SCALE_E(-4),
      .help = "Share of time a tensor pipe of the MIG device was active, over the last poll "
              "interval, 0..1" },
    { .column = 14, .object = "primusGpuMigHolderJob", .syntax = U32, .get = get_job,
      .label = "job", .json = "holder_job" },
};

/* The GPU's key, then the GPU and compute instance ids. */
static const struct pna_key_part mig_key[] = {
    PNA_GPU_KEY_PARTS(PNA_KEY_FROM_PARENT),
    PNA_KEY_INDEX_FIELD("primusGpuMigGpuInstance", "gpu_instance", PNA_KEY_FROM_REC,
                        struct pna_gpu_mig, gpu_instance),
    PNA_KEY_INDEX_FIELD("primusGpuMigComputeInstance", "compute_instance", PNA_KEY_FROM_REC,
                        struct pna_gpu_mig, compute_instance),
};

const struct pna_metric_table pna_gpu_mig_metrics = {
    .object = "primusGpuMigTable",
    .kind = PNA_TABLE_ROWS,
    .domain = PNA_DOM_GPU,
    .view = PNA_VIEW_DOMAIN(PNA_DOM_GPU) | PNA_VIEW_DOMAIN(PNA_DOM_CONTAINERS) |
            PNA_VIEW_DOMAIN(PNA_DOM_PODRES) | PNA_VIEW_DOMAIN(PNA_DOM_SLURM),
    PNA_TABLE_OID(PNA_OID_GPU, 13),
    PNA_KEY(mig_key),
    .index_ordered = true,
    .metrics = mig_metrics,
    .count = sizeof mig_metrics / sizeof mig_metrics[0],
    .rows = mig_rows,
    .row = mig_row,
    .info_family = "primus_gpu_mig_info",
    .info_help = "One series per MIG device: its UUID (mig_uuid), profile, the access capability "
                 "node (cap_device) and the container and pod given it; always 1",
};
