/* model/gpu/gpu_metrics.c -- the served values of the GPU domain (primusGpu): the
 * GPU count and primusGpuTable, one descriptor per value (see metric.h, gpu.h).
 *
 * A figure the GPU or its source does not offer is absent; a GPU that fell off
 * the bus keeps only its identity (PNA_METRIC_IDENTITY).  The holder columns
 * join the GPU with the containers snapshot of the same view: the containers
 * whose device lists hold one of the GPU's device nodes. */
#include "pna_autoconf.h"
#include "model/metric_tables.h"

#include "model/accounting/usage.h"
#include "model/containers.h"
#include "model/kubernetes/holders.h"
#include "model/slurm/slurm_holders.h"
#include "model/gpu/gpu.h"
#include "model/gpu/gpu_key.h"
#include "model/metric.h"
#include "model/oids.h"
#include "model/topology/topology.h"

static const struct pna_gpu_snap *gpu_snap(const struct pna_view *v)
{
    return pna_view_snap(v, PNA_DOM_GPU);
}

static const struct pna_gpu *gpu_of(const struct pna_row *r)
{
    return r->rec;
}

#define U32 PNA_SYNTAX_UNSIGNED
#define C64 PNA_SYNTAX_COUNTER64
#define INT PNA_SYNTAX_INTEGER
#define TEXT PNA_SYNTAX_TEXT
#define GAUGE PNA_FAMILY_GAUGE
#define COUNTER PNA_FAMILY_COUNTER
#define ID PNA_METRIC_IDENTITY

/* ---- primusGpuCount ------------------------------------------------------------ */

/* One row even before a first poll: primusGpuCount is 0 then, not absent. */
static size_t count_rows(const struct pna_view *v)
{
    (void)v;
    return 1;
}

static bool snap_row(const struct pna_view *v, size_t i, struct pna_row *out)
{
    (void)i;
    out->rec = gpu_snap(v);
    return true;
}

static void get_count(const struct pna_row *r, struct pna_value *out)
{
    const struct pna_gpu_snap *s = r->rec;
    pna_value_u64(out, s ? s->count : 0);
}

static const struct pna_metric gpu_scalar_metrics[] = {
    { .column = 1, .object = "primusGpuCount", .syntax = U32, .get = get_count,
      .family = "primus_gpus", .type = GAUGE, .help = "GPUs found on the node" },
};

const struct pna_metric_table pna_gpu_scalar_metrics = {
    .object = "primusGpu",
    .kind = PNA_TABLE_SCALARS,
    .domain = PNA_DOM_GPU,
    .view = PNA_VIEW_DOMAIN(PNA_DOM_GPU),
    PNA_TABLE_OID(PNA_OID_GPU),
    .metrics = gpu_scalar_metrics,
    .count = 1,
    .rows = count_rows,
    .row = snap_row,
};

/* ---- primusGpuTable ------------------------------------------------------------- */

static size_t gpu_rows(const struct pna_view *v)
{
    return gpu_snap(v) ? gpu_snap(v)->count : 0;
}

static bool gpu_row(const struct pna_view *v, size_t i, struct pna_row *out)
{
    out->rec = &gpu_snap(v)->gpus[i];
    return true;
}

void pna_gpu_key_number(const struct pna_row *row, const void *gpu, struct pna_value *out)
{
    const struct pna_gpu_snap *s = gpu_snap(row->view);
    const struct pna_gpu *g = gpu;
    pna_value_u64(out, pna_gpu_number(s, (size_t)(g - s->gpus)));
}

static bool gpu_lost(const struct pna_row *r)
{
    return gpu_of(r)->lost;
}

static const char *const vendor_names[] = {
    [PNA_GPU_VENDOR_NVIDIA] = "nvidia", [PNA_GPU_VENDOR_AMD] = "amd", [PNA_GPU_VENDOR_OTHER] = "other",
};
static const struct pna_enum vendor_enum = PNA_ENUM(vendor_names);

static void get_vendor(const struct pna_row *r, struct pna_value *out)
{
    switch (gpu_of(r)->vendor) {
    case PNA_GPU_VND_NVIDIA: pna_value_i64(out, PNA_GPU_VENDOR_NVIDIA); return;
    case PNA_GPU_VND_AMD: pna_value_i64(out, PNA_GPU_VENDOR_AMD); return;
    }
    pna_value_i64(out, PNA_GPU_VENDOR_OTHER);
}

static const char *const source_names[] = {
    [PNA_GPU_DATA_SOURCE_NVML] = "nvml", [PNA_GPU_DATA_SOURCE_NVIDIA_SMI] = "nvidiaSmi",
    [PNA_GPU_DATA_SOURCE_ROCM_SMI] = "rocmSmi", [PNA_GPU_DATA_SOURCE_AMDGPU_SYSFS] = "amdgpuSysfs",
};
static const struct pna_enum source_enum = PNA_ENUM(source_names);

static void get_source(const struct pna_row *r, struct pna_value *out)
{
    switch (gpu_of(r)->source) {
    case PNA_GPU_SRC_NVML: pna_value_i64(out, PNA_GPU_DATA_SOURCE_NVML); return;
    case PNA_GPU_SRC_NVIDIA_SMI: pna_value_i64(out, PNA_GPU_DATA_SOURCE_NVIDIA_SMI); return;
    case PNA_GPU_SRC_ROCM_SMI: pna_value_i64(out, PNA_GPU_DATA_SOURCE_ROCM_SMI); return;
    case PNA_GPU_SRC_AMDGPU_SYSFS: pna_value_i64(out, PNA_GPU_DATA_SOURCE_AMDGPU_SYSFS); return;
    }
}

/* As lspci -n prints it: "10de:2330". */
static void get_pci_device_id(const struct pna_row *r, struct pna_value *out)
{
    const struct pna_gpu *g = gpu_of(r);
    if (g->has_pci_ids)
        pna_value_printf(out, "%04x:%04x", g->pci_vendor_id, g->pci_device_id);
}

/* The GPU's holders (model/kubernetes/holders.h): the kubelet's assignments first, then
 * the containers given its device node. */
static void get_holder_container(const struct pna_row *r, struct pna_value *out)
{
    struct pna_holder h;
    pna_gpu_holder(r->view, gpu_of(r), &h);
    pna_value_text(out, h.container_id);
}

static void get_holder_pod(const struct pna_row *r, struct pna_value *out)
{
    struct pna_holder h;
    pna_gpu_holder(r->view, gpu_of(r), &h);
    pna_value_text(out, h.pod);
}

static void get_holder_namespace(const struct pna_row *r, struct pna_value *out)
{
    struct pna_holder h;
    pna_gpu_holder(r->view, gpu_of(r), &h);
    pna_value_text(out, h.pod_namespace);
}

static void get_holder_count(const struct pna_row *r, struct pna_value *out)
{
    struct pna_holder h;
    pna_gpu_holder(r->view, gpu_of(r), &h);
    pna_value_u64(out, h.count);
}

/* The Slurm job holding the GPU (model/slurm/slurm_holders.h), the lowest of several; none (0)
 * when no job holds it. */
/* The gpu poller's time, or the MIB's 0 when the GPU is not below the threshold. */
static void get_low_since(const struct pna_row *r, struct pna_value *out)
{
    int64_t since = gpu_of(r)->low_activity_since_s;
    if (since > 0)
        pna_value_u64(out, (uint64_t)since);
    else
        pna_value_none(out);
}

static void get_holder_job(const struct pna_row *r, struct pna_value *out)
{
    uint32_t job = pna_slurm_gpu_job(r->view, gpu_of(r));
    if (job)
        pna_value_u64(out, job);
    else
        pna_value_none(out);
}

/* The accounting poller's figures of the GPU: absent before its first sample. */
static const struct pna_usage_gpu *accounted(const struct pna_row *r)
{
    const struct pna_usage_gpu *u = pna_usage_gpu_in_view(r->view, gpu_of(r)->index);
    return u && u->has_sample ? u : NULL;
}

static void get_idle_energy(const struct pna_row *r, struct pna_value *out)
{
    const struct pna_usage_gpu *u = accounted(r);
    if (u)
        pna_value_u64(out, u->idle_mj);
}

static void get_idle_created(const struct pna_row *r, struct pna_value *out)
{
    const struct pna_usage_gpu *u = accounted(r);
    if (u)
        pna_value_u64(out, (uint64_t)(u->created_ms / 1000));
}

static void get_retired_pages(const struct pna_row *r, struct pna_value *out)
{
    const struct pna_gpu *g = gpu_of(r);
    if (g->has_retired_pages)
        pna_value_u64(out, (uint64_t)g->retired_pages_sbe + g->retired_pages_dbe);
}

static void get_remapped_rows(const struct pna_row *r, struct pna_value *out)
{
    const struct pna_gpu *g = gpu_of(r);
    if (g->has_remapped_rows)
        pna_value_u64(out, (uint64_t)g->remapped_rows_corr + g->remapped_rows_unc);
}

static const char *const mig_names[] = {
    [PNA_GPU_MIG_MODE_DISABLED] = "disabled", [PNA_GPU_MIG_MODE_ENABLED] = "enabled",
};
static const struct pna_enum mig_enum = PNA_ENUM(mig_names);

static void get_mig(const struct pna_row *r, struct pna_value *out)
{
    const struct pna_gpu *g = gpu_of(r);
    if (g->has_mig)
        pna_value_i64(out, g->mig_enabled ? PNA_GPU_MIG_MODE_ENABLED : PNA_GPU_MIG_MODE_DISABLED);
}

static const char *const health_names[] = {
    [PNA_GPU_HEALTH_OK] = "ok", [PNA_GPU_HEALTH_WARNING] = "warning",
    [PNA_GPU_HEALTH_CRITICAL] = "critical", [PNA_GPU_HEALTH_UNKNOWN] = "unknown",
};
static const struct pna_enum health_enum = PNA_ENUM(health_names);

/* The verdict is computed from the row (model/gpu/gpu_health.c): the same
 * rules for SNMP, the bridge and the notification. */
static void get_health(const struct pna_row *r, struct pna_value *out)
{
    char reason[PNA_GPU_HEALTH_REASON_MAX];
    pna_value_i64(out, pna_gpu_health(gpu_of(r), reason, sizeof reason));
}

static void get_health_reason(const struct pna_row *r, struct pna_value *out)
{
    pna_gpu_health(gpu_of(r), out->buf, sizeof out->buf);
    pna_value_text(out, out->buf);
}

static const char *const recovery_names[] = {
    [PNA_GPU_RECOVERY_ACTION_NONE] = "none", [PNA_GPU_RECOVERY_ACTION_RESET] = "reset",
    [PNA_GPU_RECOVERY_ACTION_REBOOT] = "reboot", [PNA_GPU_RECOVERY_ACTION_DRAIN_P2P] = "drainP2p",
    [PNA_GPU_RECOVERY_ACTION_DRAIN_AND_RESET] = "drainAndReset",
};
static const struct pna_enum recovery_enum = PNA_ENUM(recovery_names);

static void get_recovery(const struct pna_row *r, struct pna_value *out)
{
    const struct pna_gpu *g = gpu_of(r);
    if (g->has_recovery_action)
        pna_value_i64(out, PNA_GPU_RECOVERY_ACTION_NONE + (int64_t)g->recovery_action);
}

static const char *const fabric_names[] = {
    [PNA_GPU_FABRIC_STATE_NOT_STARTED] = "notStarted", [PNA_GPU_FABRIC_STATE_IN_PROGRESS] = "inProgress",
    [PNA_GPU_FABRIC_STATE_COMPLETED] = "completed", [PNA_GPU_FABRIC_STATE_FAILED] = "failed",
};
static const struct pna_enum fabric_enum = PNA_ENUM(fabric_names);

static void get_fabric(const struct pna_row *r, struct pna_value *out)
{
    const struct pna_gpu *g = gpu_of(r);
    if (!g->has_fabric)
        return;
    if (g->fabric_failed)
        pna_value_i64(out, PNA_GPU_FABRIC_STATE_FAILED);
    else
        pna_value_i64(out, g->fabric_state); /* enum pna_gpu_fabric numbers the MIB's */
}

#define GPU(member) PNA_FIELD(struct pna_gpu, member)
#define GPU_NZ(member) PNA_FIELD_NZ(struct pna_gpu, member)
#define GPU_IF(member, has) PNA_FIELD_IF(struct pna_gpu, member, has)

#define ACTIVITY(col, obj, act, fam, what)                                                     \
    { .column = (col), .object = (obj), .syntax = U32, .max = 10000,                           \
      .field = GPU_IF(activity_bp[act], has_activity[act]), .family = (fam), .type = GAUGE,    \
      .scale = PNA_SCALE_E(-4), .help = what " over the last poll interval, 0..1" }
#define HELD(col, obj, cause, name)                                                            \
    { .column = (col), .object = (obj), .syntax = C64,                                         \
      .field = GPU_IF(held_us[cause], has_held[cause]), .family = "primus_gpu_throttle_seconds_total", \
      .type = COUNTER, .scale = PNA_SCALE_E(-6), .label = "cause", .label_value = (name),       \
      .help = "Time the GPU's clocks were held back since the driver loaded, by cause" }

#define RESIDENCY(col, obj, res, name)                                                        \
    { .column = (col), .object = (obj), .syntax = PNA_SYNTAX_COUNTER32,                         \
      .field = GPU_IF(residency_cycles[res], has_residency[res]),                               \
      .family = "primus_gpu_throttle_residency_cycles_total", .type = COUNTER, .label = "cause", \
      .label_value = (name),                                                                    \
      .help = "AMD: firmware accumulation cycles in which the GPU was held back, by cause (32-bit, " \
              "wraps); against primus_gpu_throttle_accumulation_cycles_total, the share held back" }

/* The RDMA devices at the GPU's closest class in the topology snapshot (a
 * join); none ("") when the GPU is in it but has no RDMA device at a known
 * class, absent while no topology poll has placed it. */
static void get_nearest_rdma(const struct pna_row *r, struct pna_value *out)
{
    const struct pna_topo_snap *t = pna_view_snap(r->view, PNA_DOM_TOPOLOGY);
    if (!t || !pna_topo_has_gpu(&t->matrix, gpu_of(r)->pci_bus_id))
        return;
    if (pna_topo_nearest_text(&t->matrix, gpu_of(r)->pci_bus_id, out->buf, sizeof out->buf))
        pna_value_text(out, out->buf);
    else
        pna_value_none(out);
}

static const struct pna_metric gpu_metrics[] = {
    /* identity: every row has it, a lost GPU too */
    { .column = 2, .object = "primusGpuVendor", .syntax = INT, .flags = ID, .get = get_vendor,
      .enums = &vendor_enum, .label = "vendor", .json = "vendor" },
    { .column = 3, .object = "primusGpuOrdinal", .syntax = U32, .flags = ID,
      .field = GPU_IF(vendor_index, has_vendor_index) },
    { .column = 4, .object = "primusGpuName", .syntax = TEXT, .flags = ID, .field = GPU_NZ(name),
      .label = "name", .json = "name" },
    { .column = 5, .object = "primusGpuUuid", .syntax = TEXT, .flags = ID, .field = GPU_NZ(uuid),
      .json = "uuid" },
    { .column = 6, .object = "primusGpuSerial", .syntax = TEXT, .flags = ID, .field = GPU_NZ(serial),
      .label = "serial" },
    { .column = 7, .object = "primusGpuPciBusId", .syntax = TEXT, .flags = ID, .field = GPU(pci_bus_id),
      .json = "pci_bus_id" },
    { .column = 8, .object = "primusGpuDriverVersion", .syntax = TEXT, .flags = ID,
      .field = GPU_NZ(driver_version), .label = "driver_version" },
    { .column = 9, .object = "primusGpuComputeVersion", .syntax = TEXT, .flags = ID,
      .field = GPU_NZ(cuda_version), .label = "compute_version" },
    { .column = 10, .object = "primusGpuVbios", .syntax = TEXT, .flags = ID, .field = GPU_NZ(vbios),
      .label = "vbios" },
    { .column = 11, .object = "primusGpuPciDeviceId", .syntax = TEXT, .flags = ID,
      .get = get_pci_device_id, .label = "pci_device_id" },
    { .column = 12, .object = "primusGpuDataSource", .syntax = INT, .flags = ID, .get = get_source,
      .enums = &source_enum, .label = "source" },
    { .column = 46, .object = "primusGpuDrmCard", .syntax = TEXT, .flags = ID, .field = GPU(drm_card),
      .label = "drm_card" },
    { .column = 47, .object = "primusGpuDrmRender", .syntax = TEXT, .flags = ID,
      .field = GPU(drm_render), .label = "drm_render" },
    { .column = 48, .object = "primusGpuHolderContainer", .syntax = TEXT, .flags = ID,
      .get = get_holder_container },
    { .column = 49, .object = "primusGpuHolderPod", .syntax = TEXT, .flags = ID, .get = get_holder_pod },
    { .column = 50, .object = "primusGpuHolderNamespace", .syntax = TEXT, .flags = ID,
      .get = get_holder_namespace },
    { .column = 54, .object = "primusGpuXidErrors", .syntax = PNA_SYNTAX_COUNTER32, .flags = ID,
      .field = GPU_IF(xid_errors, has_xid), .family = "primus_gpu_xid_errors_total", .type = COUNTER,
      .help = "XID errors the driver reported for the GPU since the agent started" },
    { .column = 55, .object = "primusGpuLastXid", .syntax = U32, .flags = ID,
      .field = GPU_IF(last_xid, has_xid), .family = "primus_gpu_last_xid", .type = GAUGE,
      .help = "Code of the last XID error reported since the agent started; 0 when none" },
    { .column = 56, .object = "primusGpuHolderCount", .syntax = U32, .flags = ID,
      .get = get_holder_count, .family = "primus_gpu_holders", .type = GAUGE,
      .help = "Containers holding the GPU (its device in their device lists); more than 1 when it "
              "is shared" },
    { .flags = ID | PNA_METRIC_JSON_BOOL, .field = GPU(lost), .family = "primus_gpu_lost",
      .type = GAUGE, .json = "lost",
      .help = "1 when the GPU stopped answering its driver or fell off the bus (its other figures "
              "are then absent), else 0" },

    /* figures: absent for a lost GPU */
    { .column = 20, .object = "primusGpuUtilization", .syntax = U32, .max = 100,
      .field = GPU_IF(util_gpu_pct, has_util_gpu), .family = "primus_gpu_utilization_ratio",
      .type = GAUGE, .scale = PNA_SCALE_E(-2), .json = "utilization_percent",
      .help = "Share of the last sample period a kernel ran on the GPU, 0..1" },
    { .column = 21, .object = "primusGpuMemUtilization", .syntax = U32, .max = 100,
      .field = GPU_IF(util_mem_pct, has_util_mem), .family = "primus_gpu_memory_utilization_ratio",
      .type = GAUGE, .scale = PNA_SCALE_E(-2),
      .help = "Share of the last sample period device memory was read or written, 0..1" },
    { .column = 22, .object = "primusGpuMemTotal", .syntax = C64,
      .field = GPU_IF(mem_total_bytes, has_mem_total), .family = "primus_gpu_memory_total_bytes",
      .type = GAUGE, .json = "memory_total_bytes", .help = "Total device memory" },
    { .column = 23, .object = "primusGpuMemUsed", .syntax = C64,
      .field = GPU_IF(mem_used_bytes, has_mem_used), .family = "primus_gpu_memory_used_bytes",
      .type = GAUGE, .json = "memory_used_bytes", .help = "Device memory in use" },
    { .column = 24, .object = "primusGpuMemFree", .syntax = C64,
      .field = GPU_IF(mem_free_bytes, has_mem_free), .family = "primus_gpu_memory_free_bytes",
      .type = GAUGE, .json = "memory_free_bytes", .help = "Device memory free" },
    { .column = 25, .object = "primusGpuTemperature", .syntax = INT, .field = GPU_IF(temp_c, has_temp),
      .family = "primus_gpu_temperature_celsius", .type = GAUGE, .json = "temperature_celsius",
      .help = "GPU die (NVIDIA) or edge (AMD) temperature" },
    { .field = GPU_IF(temp_hotspot_c, has_temp_hotspot), .family = "primus_gpu_hotspot_temperature_celsius",
      .type = GAUGE, .help = "GPU junction (hotspot) temperature, where offered" },
    { .column = 26, .object = "primusGpuMemTemperature", .syntax = INT,
      .field = GPU_IF(temp_mem_c, has_temp_mem), .family = "primus_gpu_memory_temperature_celsius",
      .type = GAUGE, .help = "Device memory (HBM) temperature" },
    { .column = 27, .object = "primusGpuTempSlowdown", .syntax = INT,
      .field = GPU_IF(temp_slowdown_c, has_temp_slowdown),
      .family = "primus_gpu_slowdown_temperature_celsius", .type = GAUGE,
      .help = "Temperature at which the GPU slows its clocks" },
    { .column = 28, .object = "primusGpuTempShutdown", .syntax = INT,
      .field = GPU_IF(temp_shutdown_c, has_temp_shutdown),
      .family = "primus_gpu_shutdown_temperature_celsius", .type = GAUGE,
      .help = "Temperature at which the GPU shuts down" },
    { .column = 29, .object = "primusGpuPowerDraw", .syntax = U32, .field = GPU_IF(power_mw, has_power),
      .family = "primus_gpu_power_watts", .type = GAUGE, .scale = PNA_SCALE_E(-3),
      .json = "power_draw_watts", .json_scale = PNA_SCALE_E(-3), .help = "Power drawn by the board" },
    { .column = 30, .object = "primusGpuPowerLimit", .syntax = U32,
      .field = GPU_IF(power_limit_mw, has_power_limit), .family = "primus_gpu_power_limit_watts",
      .type = GAUGE, .scale = PNA_SCALE_E(-3), .json = "power_limit_watts",
      .json_scale = PNA_SCALE_E(-3), .help = "Enforced power limit" },
    { .column = 31, .object = "primusGpuEnergy", .syntax = C64, .field = GPU_IF(energy_mj, has_energy),
      .family = "primus_gpu_energy_joules_total", .type = COUNTER, .scale = PNA_SCALE_E(-3),
      .help = "Energy consumed since the driver was loaded" },
    { .column = 32, .object = "primusGpuSmClock", .syntax = U32, .field = GPU_IF(clock_sm_mhz, has_clock_sm),
      .family = "primus_gpu_sm_clock_hertz", .type = GAUGE, .scale = PNA_SCALE_E(6),
      .help = "Current SM (shader) clock" },
    { .column = 33, .object = "primusGpuMemClock", .syntax = U32,
      .field = GPU_IF(clock_mem_mhz, has_clock_mem), .family = "primus_gpu_memory_clock_hertz",
      .type = GAUGE, .scale = PNA_SCALE_E(6), .help = "Current memory clock" },
    { .column = 34, .object = "primusGpuFanSpeed", .syntax = U32, .max = 100,
      .field = GPU_IF(fan_pct, has_fan), .family = "primus_gpu_fan_speed_ratio", .type = GAUGE,
      .scale = PNA_SCALE_E(-2), .help = "Fan speed as a share of its maximum, 0..1" },
    { .field = GPU_IF(fan_rpm, has_fan_rpm), .family = "primus_gpu_fan_speed_rpm", .type = GAUGE,
      .help = "Fan speed in revolutions per minute, where offered" },
    { .column = 35, .object = "primusGpuPcieGen", .syntax = U32, .field = GPU_IF(pcie_gen, has_pcie_gen),
      .family = "primus_gpu_pcie_link_generation", .type = GAUGE,
      .help = "Current PCIe link generation" },
    { .column = 36, .object = "primusGpuPcieWidth", .syntax = U32,
      .field = GPU_IF(pcie_width, has_pcie_width), .family = "primus_gpu_pcie_link_width",
      .type = GAUGE, .help = "Current PCIe link width in lanes" },
    { .column = 37, .object = "primusGpuPcieReplays", .syntax = C64,
      .field = GPU_IF(pcie_replay, has_pcie_replay), .family = "primus_gpu_pcie_replays_total",
      .type = COUNTER, .help = "PCIe replays counted by the GPU" },
    { .column = 38, .object = "primusGpuEccCorrected", .syntax = C64,
      .field = GPU_IF(ecc_corrected, has_ecc), .family = "primus_gpu_ecc_corrected_errors_total",
      .type = COUNTER, .help = "Corrected ECC errors over the GPU's lifetime" },
    { .column = 39, .object = "primusGpuEccUncorrected", .syntax = C64,
      .field = GPU_IF(ecc_uncorrected, has_ecc), .family = "primus_gpu_ecc_uncorrected_errors_total",
      .type = COUNTER, .help = "Uncorrected ECC errors over the GPU's lifetime" },
    { .column = 40, .object = "primusGpuRetiredPages", .syntax = U32, .get = get_retired_pages },
    { .column = 41, .object = "primusGpuRemappedRows", .syntax = U32, .get = get_remapped_rows },
    /* primusGpuRemappedRows's two parts, one family split by type (bridge only) */
    { .field = GPU_IF(remapped_rows_corr, has_remapped_rows), .family = "primus_gpu_remapped_rows",
      .type = GAUGE, .label = "type", .label_value = "correctable",
      .help = "Device memory rows remapped for ECC errors, by error type: correctable or "
              "uncorrectable (primusGpuRemappedRows is their sum)" },
    { .field = GPU_IF(remapped_rows_unc, has_remapped_rows), .family = "primus_gpu_remapped_rows",
      .type = GAUGE, .label = "type", .label_value = "uncorrectable" },
    { .column = 42, .object = "primusGpuRemapPending", .syntax = PNA_SYNTAX_TRUTH,
      .field = GPU_IF(remap_pending, has_remapped_rows), .family = "primus_gpu_row_remap_pending",
      .type = GAUGE, .help = "1 when a row remapping waits for a GPU reset" },
    { .field = GPU_IF(remap_failure, has_remapped_rows), .family = "primus_gpu_row_remap_failure",
      .type = GAUGE, .help = "1 when a row remapping failed" },
    { .column = 43, .object = "primusGpuThrottleReasons", .syntax = U32,
      .field = GPU_IF(throttle_reasons, has_throttle), .family = "primus_gpu_throttle_reasons",
      .type = GAUGE, .help = "Why the clocks are held down, NVML's bit mask" },
    { .column = 44, .object = "primusGpuProcessCount", .syntax = U32,
      .field = GPU_IF(process_count, has_processes), .family = "primus_gpu_processes", .type = GAUGE,
      .help = "Processes with a context on the GPU" },
    { .column = 45, .object = "primusGpuMigMode", .syntax = INT, .get = get_mig, .enums = &mig_enum,
      .family = "primus_gpu_mig_enabled", .type = GAUGE, .true_value = PNA_GPU_MIG_MODE_ENABLED,
      .help = "1 when Multi-Instance GPU mode is on, 0 when off; absent without MIG" },
    { .column = 51, .object = "primusGpuPcieGenMax", .syntax = U32,
      .field = GPU_IF(pcie_gen_max, has_pcie_gen_max), .family = "primus_gpu_pcie_link_generation_max",
      .type = GAUGE, .help = "Highest PCIe generation the GPU and its slot support" },
    { .column = 52, .object = "primusGpuPcieWidthMax", .syntax = U32,
      .field = GPU_IF(pcie_width_max, has_pcie_width_max), .family = "primus_gpu_pcie_link_width_max",
      .type = GAUGE, .help = "Widest PCIe link the GPU supports, in lanes" },
    { .column = 53, .object = "primusGpuPerfState", .syntax = U32, .max = 15,
      .field = GPU_IF(perf_state, has_perf_state), .family = "primus_gpu_performance_state",
      .type = GAUGE, .help = "Performance state, 0 (P0, fastest) to 15" },

    /* activity: what the engines did, not only whether a kernel ran */
    ACTIVITY(57, "primusGpuGrEngineActive", PNA_GPU_ACT_GRAPHICS, "primus_gpu_graphics_engine_active_ratio",
             "Share of time the graphics/compute engine was active"),
    ACTIVITY(58, "primusGpuSmActive", PNA_GPU_ACT_SM, "primus_gpu_sm_active_ratio",
             "Share of time the SMs had at least one warp resident, averaged over the SMs"),
    ACTIVITY(59, "primusGpuSmOccupancy", PNA_GPU_ACT_SM_OCCUPANCY, "primus_gpu_sm_occupancy_ratio",
             "Warps resident on the SMs against the most they can hold"),
    ACTIVITY(60, "primusGpuTensorActive", PNA_GPU_ACT_TENSOR, "primus_gpu_tensor_active_ratio",
             "Share of time a tensor pipe was active"),
    ACTIVITY(61, "primusGpuDramActive", PNA_GPU_ACT_DRAM, "primus_gpu_dram_active_ratio",
             "Device memory bandwidth used against its peak"),
    ACTIVITY(62, "primusGpuFp64Active", PNA_GPU_ACT_FP64, "primus_gpu_fp64_active_ratio",
             "Share of time the FP64 pipe was active (tensor cores excluded)"),
    ACTIVITY(63, "primusGpuFp32Active", PNA_GPU_ACT_FP32, "primus_gpu_fp32_active_ratio",
             "Share of time the FP32 pipe was active (tensor cores excluded)"),
    ACTIVITY(64, "primusGpuFp16Active", PNA_GPU_ACT_FP16, "primus_gpu_fp16_active_ratio",
             "Share of time the FP16 pipe was active (tensor cores excluded)"),
    { .column = 65, .object = "primusGpuPcieTxRate", .syntax = C64,
      .field = GPU_IF(pcie_tx_rate, has_pcie_rate), .family = "primus_gpu_pcie_transmit_bytes_per_second",
      .type = GAUGE, .help = "Bytes per second the GPU sent over PCIe, protocol headers included" },
    { .column = 66, .object = "primusGpuPcieRxRate", .syntax = C64,
      .field = GPU_IF(pcie_rx_rate, has_pcie_rate), .family = "primus_gpu_pcie_receive_bytes_per_second",
      .type = GAUGE, .help = "Bytes per second the GPU received over PCIe, protocol headers included" },
    { .column = 67, .object = "primusGpuNvLinkTxRate", .syntax = C64,
      .field = GPU_IF(nvlink_tx_rate, has_nvlink_rate),
      .family = "primus_gpu_nvlink_transmit_bytes_per_second", .type = GAUGE,
      .help = "Bytes per second the GPU sent over all its NVLinks" },
    { .column = 68, .object = "primusGpuNvLinkRxRate", .syntax = C64,
      .field = GPU_IF(nvlink_rx_rate, has_nvlink_rate),
      .family = "primus_gpu_nvlink_receive_bytes_per_second", .type = GAUGE,
      .help = "Bytes per second the GPU received over all its NVLinks" },

    /* time held back, one family split by cause */
    HELD(69, "primusGpuThrottleTimePower", PNA_GPU_HELD_POWER, "power"),
    HELD(70, "primusGpuThrottleTimeThermal", PNA_GPU_HELD_THERMAL, "thermal"),
    HELD(71, "primusGpuThrottleTimeSyncBoost", PNA_GPU_HELD_SYNC_BOOST, "sync_boost"),
    HELD(72, "primusGpuThrottleTimeBoardLimit", PNA_GPU_HELD_BOARD_LIMIT, "board_limit"),
    HELD(73, "primusGpuThrottleTimeLowUtil", PNA_GPU_HELD_LOW_UTIL, "low_utilization"),
    HELD(74, "primusGpuThrottleTimeReliability", PNA_GPU_HELD_RELIABILITY, "reliability"),
    HELD(75, "primusGpuThrottleTimeSwThermal", PNA_GPU_HELD_SW_THERMAL, "sw_thermal"),
    HELD(76, "primusGpuThrottleTimeHwThermal", PNA_GPU_HELD_HW_THERMAL, "hw_thermal"),
    HELD(77, "primusGpuThrottleTimeHwPowerBrake", PNA_GPU_HELD_HW_POWER_BRAKE, "hw_power_brake"),

    /* health: a lost GPU keeps its verdict (critical) */
    { .column = 78, .object = "primusGpuHealth", .syntax = INT, .flags = ID, .get = get_health,
      .enums = &health_enum, .family = "primus_gpu_health", .type = PNA_FAMILY_STATESET,
      .label = "state", .json = "health",
      .help = "The agent's verdict on the GPU: one series per state, 1 for the current one" },
    { .column = 79, .object = "primusGpuHealthReason", .syntax = TEXT, .flags = ID,
      .get = get_health_reason, .label = "health_reason", .json = "health_reason" },
    { .column = 80, .object = "primusGpuRecoveryAction", .syntax = INT, .get = get_recovery,
      .enums = &recovery_enum, .family = "primus_gpu_recovery_action", .type = PNA_FAMILY_STATE,
      .label = "action", .help = "What the driver recommends to recover the GPU; always 1" },
    { .column = 81, .object = "primusGpuFabricState", .syntax = INT, .get = get_fabric,
      .enums = &fabric_enum, .family = "primus_gpu_fabric_state", .type = PNA_FAMILY_STATE,
      .label = "state", .help = "NVSwitch fabric registration of the GPU; always 1" },
    { .column = 82, .object = "primusGpuEccUncorrectedVolatile", .syntax = C64,
      .field = GPU_IF(ecc_uncorrected_volatile, has_ecc_volatile),
      .family = "primus_gpu_ecc_uncorrected_volatile_errors_total", .type = COUNTER,
      .help = "Uncorrected ECC errors since the driver was loaded or the GPU reset" },
    { .column = 83, .object = "primusGpuWorstXid", .syntax = U32, .flags = ID,
      .field = GPU_IF(worst_xid, has_xid), .family = "primus_gpu_worst_xid", .type = GAUGE,
      .help = "The most severe XID reported since the agent started (by NVIDIA's XID catalogue); "
              "0 when none" },
    { .column = 84, .object = "primusGpuProcessesOmitted", .syntax = U32,
      .field = GPU_IF(processes_omitted, has_processes), .family = "primus_gpu_processes_omitted",
      .type = GAUGE, .help = "Processes on the GPU left out of the process rows (gpuProcessRows keeps "
                             "those holding the most memory)" },
    { .column = 85, .object = "primusGpuXgmiHiveId", .syntax = TEXT, .field = GPU_NZ(xgmi_hive_id),
      .label = "xgmi_hive_id" },
    { .column = 86, .object = "primusGpuComputePartition", .syntax = TEXT,
      .field = GPU_NZ(compute_partition), .label = "compute_partition" },
    { .column = 87, .object = "primusGpuMemoryPartition", .syntax = TEXT,
      .field = GPU_NZ(memory_partition), .label = "memory_partition" },
    { .column = 88, .object = "primusGpuNumaNode", .syntax = PNA_SYNTAX_INTEGER, .max = 65535,
      .field = GPU_IF(numa_node, has_numa_node), .family = "primus_gpu_numa_node", .type = GAUGE,
      .help = "NUMA node of the GPU's PCI function, -1 for none" },
    { .column = 89, .object = "primusGpuLocalCpus", .syntax = TEXT, .field = GPU_NZ(local_cpus),
      .label = "local_cpus" },

    /* AMD gpu_metrics: multimedia engines, PCIe bandwidth, throttle residency */
    ACTIVITY(90, "primusGpuMultimediaActive", PNA_GPU_ACT_MULTIMEDIA,
             "primus_gpu_multimedia_active_ratio",
             "Share of time the video decode/encode engines were busy (AMD), the firmware's average"),
    { .column = 91, .object = "primusGpuPcieBandwidth", .syntax = C64,
      .field = GPU_IF(pcie_bandwidth_mbps, has_pcie_bandwidth),
      .family = "primus_gpu_pcie_bandwidth_bytes_per_second", .type = GAUGE,
      .scale = PNA_SCALE_MUL(125000),
      .help = "AMD: PCIe traffic of both directions together, the firmware's instantaneous figure "
              "(amd-smi's BANDWIDTH in Mb/s, here in bytes per second)" },
    { .column = 92, .object = "primusGpuThrottleAccCycles", .syntax = PNA_SYNTAX_COUNTER32,
      .field = GPU_IF(acc_cycles, has_acc_cycles),
      .family = "primus_gpu_throttle_accumulation_cycles_total", .type = COUNTER,
      .help = "AMD: the firmware's accumulation cycles, the base of the throttle residency "
              "counters (32-bit, wraps)" },
    RESIDENCY(93, "primusGpuThrottleResProchot", PNA_GPU_RES_PROCHOT, "prochot"),
    RESIDENCY(94, "primusGpuThrottleResPpt", PNA_GPU_RES_PPT, "ppt"),
    RESIDENCY(95, "primusGpuThrottleResSocketThermal", PNA_GPU_RES_SOCKET_THERMAL, "socket_thermal"),
    RESIDENCY(96, "primusGpuThrottleResVrThermal", PNA_GPU_RES_VR_THERMAL, "vr_thermal"),
    RESIDENCY(97, "primusGpuThrottleResHbmThermal", PNA_GPU_RES_HBM_THERMAL, "hbm_thermal"),
    { .column = 98, .object = "primusGpuHolderJob", .syntax = U32, .flags = ID,
      .get = get_holder_job },
    /* accounting (model/accounting/usage.h): the energy no holder was charged */
    { .column = 99, .object = "primusGpuIdleEnergy", .syntax = C64, .get = get_idle_energy,
      .family = "primus_gpu_idle_energy_joules_total", .type = COUNTER, .scale = PNA_SCALE_E(-3),
      .json = "idle_energy_mj",
      .help = "GPU energy charged to no holder (the idle residual): with the holders' "
              "primusGpuUsageEnergy it makes the GPU's own counter" },
    { .column = 100, .object = "primusGpuIdleEnergyDiscontinuityTime", .syntax = U32,
      .get = get_idle_created, .json = "idle_energy_discontinuity_time" },
    { .get = get_idle_created, .family = "primus_gpu_idle_energy_joules_created", .type = GAUGE,
      .help = "When the idle energy counter last started anew, seconds since 1970-01-01 UTC" },
    /* the gpu poller's verdicts on the GPU's work (model/gpu/gpu_idle.h) */
    { .column = 101, .object = "primusGpuIdleAllocated", .syntax = PNA_SYNTAX_TRUTH,
      .field = GPU_IF(idle_allocated, has_idle_allocated), .family = "primus_gpu_idle_allocated",
      .type = GAUGE, .json = "idle_allocated",
      .help = "1 when the GPU is held by a container, pod or Slurm job and its activity stayed "
              "below accountingIdleThreshold for the whole window, else 0; absent when a held "
              "GPU reports no activity" },
    { .column = 102, .object = "primusGpuOrphanProcesses", .syntax = U32,
      .field = GPU_IF(orphan_processes, has_orphans), .family = "primus_gpu_orphan_processes",
      .type = GAUGE, .json = "orphan_processes",
      .help = "Processes on the GPU whose cgroup is in no container and no Slurm job" },
    { .column = 103, .object = "primusGpuLowActivitySince", .syntax = U32,
      .get = get_low_since,
      .family = "primus_gpu_low_activity_since_timestamp_seconds", .type = GAUGE,
      .json = "low_activity_since",
      .help = "Since when the held GPU's activity has stayed below accountingIdleThreshold, "
              "seconds since 1970-01-01 UTC; no sample when it is not below" },
    { .column = 105, .object = "primusGpuNearestRdma", .syntax = PNA_SYNTAX_TEXT,
      .get = get_nearest_rdma, .label = "nearest_rdma", .json = "nearest_rdma" },
};

/* The row's key: the GPU's (gpu_key.h), then its holder (the first the
 * kubelet assigned it to, else the first container holding it) as
 * container, pod and namespace, empty when none: every per-GPU series can be
 * summed by pod, as dcgm-exporter's can.  primus_gpu_holder_info has every
 * holder of a shared GPU. */
static const struct pna_key_part gpu_key[] = { PNA_GPU_KEY_PARTS(PNA_KEY_FROM_REC) };
static const char *const holder_labels[] = { "container", "pod", "namespace", NULL };

static void holder_join(const struct pna_row *r, const char **values)
{
    struct pna_holder h;
    pna_gpu_holder(r->view, gpu_of(r), &h);
    values[0] = h.container_name;
    values[1] = h.pod;
    values[2] = h.pod_namespace;
}

const struct pna_metric_table pna_gpu_metrics = {
    .object = "primusGpuTable",
    .kind = PNA_TABLE_ROWS,
    .domain = PNA_DOM_GPU,
    .view = PNA_VIEW_DOMAIN(PNA_DOM_GPU) | PNA_VIEW_DOMAIN(PNA_DOM_CONTAINERS) |
            PNA_VIEW_DOMAIN(PNA_DOM_PODRES) | PNA_VIEW_DOMAIN(PNA_DOM_SLURM) |
            PNA_VIEW_DOMAIN(PNA_DOM_ACCOUNTING) |
            PNA_VIEW_DOMAIN(PNA_DOM_TOPOLOGY),
    PNA_TABLE_OID(PNA_OID_GPU, 10),
    PNA_KEY_JOINED(gpu_key, holder_labels, holder_join),
    .index_ordered = true,
    .metrics = gpu_metrics,
    .count = sizeof gpu_metrics / sizeof gpu_metrics[0],
    .rows = gpu_rows,
    .row = gpu_row,
    .figures_gone = gpu_lost,
    .info_family = "primus_gpu_info",
    .info_help = "One series per GPU with its identity: name, vendor, serial, driver, compute and "
                 "VBIOS versions, PCI ids, data source, DRM nodes, and for AMD GPUs the XGMI hive "
                 "and partition modes; always 1",
};
