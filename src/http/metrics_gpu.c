/* http/metrics_gpu.c -- /metrics for GPUs (primusGpu, primusGpuTable): every
 * GPU column as a primus_gpu_* metric in base units (bytes, watts, joules,
 * hertz, ratios 0..1), and the seed names unchanged: the node exporter's
 * gpu_utilization{gpu_id} and the system-info exporter's hw_gpu_* set.
 *
 * Every primus_gpu_* series carries gpu (the vendor tool's GPU number, as the
 * seeds use it), pci_bus_id (the stable identity, primusGpuIndex's source) and
 * uuid.  A figure the GPU does not offer is absent, as in the MIB, never 0. */
#include "pna_autoconf.h"
#include "model/gpu.h"
#include "model/containers.h"
#include "http/render.h"

#include <stdio.h>
#include <string.h>

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

struct gpu_labels {
    char number[16];
    struct pna_prom_label l[3];
};

static void gpu_labels(struct gpu_labels *gl, const struct pna_gpu_snap *s, size_t i)
{
    snprintf(gl->number, sizeof gl->number, "%u", (unsigned)pna_http_gpu_number(s, i));
    gl->l[0] = (struct pna_prom_label){ "gpu", gl->number };
    gl->l[1] = (struct pna_prom_label){ "pci_bus_id", s->gpus[i].pci_bus_id };
    gl->l[2] = (struct pna_prom_label){ "uuid", s->gpus[i].uuid };
}

/* One metric per GPU column: how to read it from the model. */
enum val_kind { V_U64, V_I64, V_FIXED };
struct gpu_value {
    bool present;
    enum val_kind kind;
    int64_t v;          /* V_I64 / V_FIXED */
    uint64_t u;         /* V_U64 */
    unsigned decimals;  /* V_FIXED */
};

typedef struct gpu_value (*gpu_getter)(const struct pna_gpu *g);

#define U64(cond, x) ((struct gpu_value){ .present = (cond), .kind = V_U64, .u = (uint64_t)(x) })
#define I64(cond, x) ((struct gpu_value){ .present = (cond), .kind = V_I64, .v = (int64_t)(x) })
#define FIX(cond, x, d) \
    ((struct gpu_value){ .present = (cond), .kind = V_FIXED, .v = (int64_t)(x), .decimals = (d) })

static struct gpu_value g_util(const struct pna_gpu *g) { return FIX(g->has_util_gpu, g->util_gpu_pct, 2); }
static struct gpu_value g_mem_util(const struct pna_gpu *g) { return FIX(g->has_util_mem, g->util_mem_pct, 2); }
static struct gpu_value g_mem_total(const struct pna_gpu *g) { return U64(g->has_mem_total, g->mem_total_bytes); }
static struct gpu_value g_mem_used(const struct pna_gpu *g) { return U64(g->has_mem_used, g->mem_used_bytes); }
static struct gpu_value g_mem_free(const struct pna_gpu *g) { return U64(g->has_mem_free, g->mem_free_bytes); }
static struct gpu_value g_temp(const struct pna_gpu *g) { return I64(g->has_temp, g->temp_c); }
static struct gpu_value g_temp_hot(const struct pna_gpu *g) { return I64(g->has_temp_hotspot, g->temp_hotspot_c); }
static struct gpu_value g_temp_mem(const struct pna_gpu *g) { return I64(g->has_temp_mem, g->temp_mem_c); }
static struct gpu_value g_temp_slow(const struct pna_gpu *g) { return I64(g->has_temp_slowdown, g->temp_slowdown_c); }
static struct gpu_value g_temp_shut(const struct pna_gpu *g) { return I64(g->has_temp_shutdown, g->temp_shutdown_c); }
static struct gpu_value g_power(const struct pna_gpu *g) { return FIX(g->has_power, g->power_mw, 3); }
static struct gpu_value g_power_limit(const struct pna_gpu *g) { return FIX(g->has_power_limit, g->power_limit_mw, 3); }
static struct gpu_value g_energy(const struct pna_gpu *g) { return FIX(g->has_energy, g->energy_mj, 3); }
static struct gpu_value g_clock_sm(const struct pna_gpu *g) { return U64(g->has_clock_sm, (uint64_t)g->clock_sm_mhz * 1000000u); }
static struct gpu_value g_clock_mem(const struct pna_gpu *g) { return U64(g->has_clock_mem, (uint64_t)g->clock_mem_mhz * 1000000u); }
static struct gpu_value g_fan(const struct pna_gpu *g) { return FIX(g->has_fan, g->fan_pct, 2); }
static struct gpu_value g_fan_rpm(const struct pna_gpu *g) { return U64(g->has_fan_rpm, g->fan_rpm); }
static struct gpu_value g_pcie_gen(const struct pna_gpu *g) { return U64(g->has_pcie_gen, g->pcie_gen); }
static struct gpu_value g_pcie_width(const struct pna_gpu *g) { return U64(g->has_pcie_width, g->pcie_width); }
static struct gpu_value g_pcie_gen_max(const struct pna_gpu *g) { return U64(g->has_pcie_gen_max, g->pcie_gen_max); }
static struct gpu_value g_pcie_width_max(const struct pna_gpu *g) { return U64(g->has_pcie_width_max, g->pcie_width_max); }
static struct gpu_value g_perf_state(const struct pna_gpu *g) { return U64(g->has_perf_state, g->perf_state); }
static struct gpu_value g_xid_errors(const struct pna_gpu *g) { return U64(g->has_xid, g->xid_errors); }
static struct gpu_value g_last_xid(const struct pna_gpu *g) { return U64(g->has_xid, g->last_xid); }
static struct gpu_value g_pcie_replay(const struct pna_gpu *g) { return U64(g->has_pcie_replay, g->pcie_replay); }
static struct gpu_value g_ecc_corr(const struct pna_gpu *g) { return U64(g->has_ecc, g->ecc_corrected); }
static struct gpu_value g_ecc_unc(const struct pna_gpu *g) { return U64(g->has_ecc, g->ecc_uncorrected); }
static struct gpu_value g_remap_pending(const struct pna_gpu *g) { return U64(g->has_remapped_rows, g->remap_pending); }
static struct gpu_value g_remap_failure(const struct pna_gpu *g) { return U64(g->has_remapped_rows, g->remap_failure); }
static struct gpu_value g_throttle(const struct pna_gpu *g) { return U64(g->has_throttle, g->throttle_reasons); }
static struct gpu_value g_procs(const struct pna_gpu *g) { return U64(g->has_processes, g->process_count); }
static struct gpu_value g_mig(const struct pna_gpu *g) { return U64(g->has_mig, g->mig_enabled); }
static struct gpu_value g_holders(const struct pna_gpu *g) { return U64(true, g->has_holder ? g->holder_count : 0); }

static const struct {
    const char *name;
    enum pna_prom_type type;
    gpu_getter get;
    const char *help;
} gpu_columns[] = {
    { "primus_gpu_utilization_ratio", PNA_PROM_GAUGE, g_util,
      "Share of the last sample period a kernel ran on the GPU, 0..1 (primusGpuUtilization)." },
    { "primus_gpu_memory_utilization_ratio", PNA_PROM_GAUGE, g_mem_util,
      "Share of the last sample period device memory was read or written, 0..1 "
      "(primusGpuMemUtilization)." },
    { "primus_gpu_memory_total_bytes", PNA_PROM_GAUGE, g_mem_total,
      "Total device memory (primusGpuMemTotal)." },
    { "primus_gpu_memory_used_bytes", PNA_PROM_GAUGE, g_mem_used,
      "Device memory in use (primusGpuMemUsed)." },
    { "primus_gpu_memory_free_bytes", PNA_PROM_GAUGE, g_mem_free,
      "Device memory free (primusGpuMemFree)." },
    { "primus_gpu_temperature_celsius", PNA_PROM_GAUGE, g_temp,
      "GPU die (NVIDIA) or edge (AMD) temperature (primusGpuTemperature)." },
    { "primus_gpu_hotspot_temperature_celsius", PNA_PROM_GAUGE, g_temp_hot,
      "GPU junction (hotspot) temperature, where offered." },
    { "primus_gpu_memory_temperature_celsius", PNA_PROM_GAUGE, g_temp_mem,
      "Device memory (HBM) temperature (primusGpuMemTemperature)." },
    { "primus_gpu_slowdown_temperature_celsius", PNA_PROM_GAUGE, g_temp_slow,
      "Temperature at which the GPU slows its clocks (primusGpuTempSlowdown)." },
    { "primus_gpu_shutdown_temperature_celsius", PNA_PROM_GAUGE, g_temp_shut,
      "Temperature at which the GPU shuts down (primusGpuTempShutdown)." },
    { "primus_gpu_power_watts", PNA_PROM_GAUGE, g_power,
      "Power drawn by the board (primusGpuPowerDraw / 1000)." },
    { "primus_gpu_power_limit_watts", PNA_PROM_GAUGE, g_power_limit,
      "Enforced power limit (primusGpuPowerLimit / 1000)." },
    { "primus_gpu_energy_joules_total", PNA_PROM_COUNTER, g_energy,
      "Energy consumed since the driver was loaded (primusGpuEnergy / 1000)." },
    { "primus_gpu_sm_clock_hertz", PNA_PROM_GAUGE, g_clock_sm,
      "Current SM (shader) clock (primusGpuSmClock x 10^6)." },
    { "primus_gpu_memory_clock_hertz", PNA_PROM_GAUGE, g_clock_mem,
      "Current memory clock (primusGpuMemClock x 10^6)." },
    { "primus_gpu_fan_speed_ratio", PNA_PROM_GAUGE, g_fan,
      "Fan speed as a share of its maximum, 0..1 (primusGpuFanSpeed)." },
    { "primus_gpu_fan_speed_rpm", PNA_PROM_GAUGE, g_fan_rpm,
      "Fan speed in revolutions per minute, where offered." },
    { "primus_gpu_pcie_link_generation", PNA_PROM_GAUGE, g_pcie_gen,
      "Current PCIe link generation (primusGpuPcieGen)." },
    { "primus_gpu_pcie_link_width", PNA_PROM_GAUGE, g_pcie_width,
      "Current PCIe link width in lanes (primusGpuPcieWidth)." },
    { "primus_gpu_pcie_link_generation_max", PNA_PROM_GAUGE, g_pcie_gen_max,
      "Highest PCIe generation the GPU and its slot support (primusGpuPcieGenMax)." },
    { "primus_gpu_pcie_link_width_max", PNA_PROM_GAUGE, g_pcie_width_max,
      "Widest PCIe link the GPU supports, in lanes (primusGpuPcieWidthMax)." },
    { "primus_gpu_pcie_replays_total", PNA_PROM_COUNTER, g_pcie_replay,
      "PCIe replays counted by the GPU (primusGpuPcieReplays)." },
    { "primus_gpu_ecc_corrected_errors_total", PNA_PROM_COUNTER, g_ecc_corr,
      "Corrected ECC errors over the GPU's lifetime (primusGpuEccCorrected)." },
    { "primus_gpu_ecc_uncorrected_errors_total", PNA_PROM_COUNTER, g_ecc_unc,
      "Uncorrected ECC errors over the GPU's lifetime (primusGpuEccUncorrected)." },
    { "primus_gpu_row_remap_pending", PNA_PROM_GAUGE, g_remap_pending,
      "1 when a row remapping waits for a GPU reset (primusGpuRemapPending)." },
    { "primus_gpu_row_remap_failure", PNA_PROM_GAUGE, g_remap_failure,
      "1 when a row remapping failed." },
    { "primus_gpu_throttle_reasons", PNA_PROM_GAUGE, g_throttle,
      "Why the clocks are held down, NVML's bit mask (primusGpuThrottleReasons)." },
    { "primus_gpu_performance_state", PNA_PROM_GAUGE, g_perf_state,
      "Performance state, 0 (P0, fastest) to 15 (primusGpuPerfState)." },
    { "primus_gpu_xid_errors_total", PNA_PROM_COUNTER, g_xid_errors,
      "XID errors the driver reported for the GPU since the agent started (primusGpuXidErrors)." },
    { "primus_gpu_last_xid", PNA_PROM_GAUGE, g_last_xid,
      "Code of the last XID error reported since the agent started; 0 when none "
      "(primusGpuLastXid)." },
    { "primus_gpu_processes", PNA_PROM_GAUGE, g_procs,
      "Processes with a context on the GPU (primusGpuProcessCount)." },
    { "primus_gpu_mig_enabled", PNA_PROM_GAUGE, g_mig,
      "1 when Multi-Instance GPU mode is on, 0 when off; absent without MIG (primusGpuMigMode)." },
    { "primus_gpu_holders", PNA_PROM_GAUGE, g_holders,
      "Containers holding the GPU (its device in their device lists); more than 1 when it is "
      "shared (primusGpuHolderCount)." },
};

static void write_value(struct pna_prom *p, const struct pna_prom_label *l, size_t n,
                        struct gpu_value v)
{
    switch (v.kind) {
    case V_U64: pna_prom_u64(p, l, n, v.u); break;
    case V_I64: pna_prom_i64(p, l, n, v.v); break;
    case V_FIXED: pna_prom_fixed(p, l, n, v.v, v.decimals); break;
    }
}

static const char *source_label(enum pna_gpu_source s)
{
    switch (s) {
    case PNA_GPU_SRC_NVML: return "nvml";
    case PNA_GPU_SRC_NVIDIA_SMI: return "nvidiaSmi";
    case PNA_GPU_SRC_ROCM_SMI: return "rocmSmi";
    case PNA_GPU_SRC_AMDGPU_SYSFS: return "amdgpuSysfs";
    }
    return "";
}

static void gpu_info(struct pna_prom *p, const struct pna_gpu_snap *s)
{
    pna_prom_family(p, "primus_gpu_info", PNA_PROM_GAUGE,
                    "One series per GPU with its identity: name, vendor, serial, driver, compute "
                    "and VBIOS versions, PCI ids, data source and DRM nodes; always 1 "
                    "(primusGpuTable identity columns).");
    for (size_t i = 0; i < s->count; i++) {
        const struct pna_gpu *g = &s->gpus[i];
        struct gpu_labels gl;
        gpu_labels(&gl, s, i);
        char pci_ids[16] = "";
        if (g->has_pci_ids)
            snprintf(pci_ids, sizeof pci_ids, "%04x:%04x", g->pci_vendor_id, g->pci_device_id);
        const struct pna_prom_label l[] = {
            gl.l[0], gl.l[1], gl.l[2],
            { "name", g->name },
            { "vendor", g->vendor == PNA_GPU_VND_NVIDIA ? "nvidia"
                        : g->vendor == PNA_GPU_VND_AMD  ? "amd" : "other" },
            { "serial", g->serial },
            { "driver_version", g->driver_version },
            { "compute_version", g->cuda_version },
            { "vbios", g->vbios },
            { "pci_device_id", pci_ids },
            { "source", source_label(g->source) },
            { "drm_card", g->drm_card },
            { "drm_render", g->drm_render },
        };
        pna_prom_u64(p, l, sizeof l / sizeof l[0], 1);
    }
}

static void gpu_lost(struct pna_prom *p, const struct pna_gpu_snap *s)
{
    pna_prom_family(p, "primus_gpu_lost", PNA_PROM_GAUGE,
                    "1 when the GPU stopped answering its driver or fell off the bus "
                    "(its other figures are then absent), else 0.");
    for (size_t i = 0; i < s->count; i++) {
        struct gpu_labels gl;
        gpu_labels(&gl, s, i);
        pna_prom_u64(p, gl.l, 3, s->gpus[i].lost ? 1 : 0);
    }
}

/* Retired pages and remapped rows carry their cause as a label. */
static void gpu_memory_repairs(struct pna_prom *p, const struct pna_gpu_snap *s)
{
    pna_prom_family(p, "primus_gpu_retired_pages", PNA_PROM_GAUGE,
                    "Device memory pages retired for ECC errors, by cause: single_bit "
                    "(multiple single-bit errors) or double_bit (primusGpuRetiredPages is "
                    "their sum).");
    for (size_t i = 0; i < s->count; i++) {
        const struct pna_gpu *g = &s->gpus[i];
        if (!g->has_retired_pages)
            continue;
        struct gpu_labels gl;
        gpu_labels(&gl, s, i);
        struct pna_prom_label l[4] = { gl.l[0], gl.l[1], gl.l[2], { "cause", "single_bit" } };
        pna_prom_u64(p, l, 4, g->retired_pages_sbe);
        l[3].value = "double_bit";
        pna_prom_u64(p, l, 4, g->retired_pages_dbe);
    }
    pna_prom_family(p, "primus_gpu_remapped_rows", PNA_PROM_GAUGE,
                    "Device memory rows remapped for ECC errors, by error type: correctable or "
                    "uncorrectable (primusGpuRemappedRows is their sum).");
    for (size_t i = 0; i < s->count; i++) {
        const struct pna_gpu *g = &s->gpus[i];
        if (!g->has_remapped_rows)
            continue;
        struct gpu_labels gl;
        gpu_labels(&gl, s, i);
        struct pna_prom_label l[4] = { gl.l[0], gl.l[1], gl.l[2], { "type", "correctable" } };
        pna_prom_u64(p, l, 4, g->remapped_rows_corr);
        l[3].value = "uncorrectable";
        pna_prom_u64(p, l, 4, g->remapped_rows_unc);
    }
}

static void holder_series(struct pna_prom *p, const struct gpu_labels *gl, const char *id,
                          const char *name, const char *pod, const char *ns)
{
    const struct pna_prom_label l[] = {
        gl->l[0], gl->l[1], gl->l[2],
        { "container_id", id }, { "container", name }, { "pod", pod }, { "namespace", ns },
    };
    pna_prom_u64(p, l, sizeof l / sizeof l[0], 1);
}

/* One series per container holding the GPU, shared GPUs included: the
 * containers snapshot of this view joined with the GPU rows, as
 * primusContainerDeviceTable links them.  Without that snapshot, the holder
 * the GPU poller recorded (primusGpuHolderContainer). */
static void gpu_holders(struct pna_prom *p, const struct pna_http_view *v)
{
    const struct pna_gpu_snap *s = v->gpu;
    pna_prom_family(p, "primus_gpu_holder_info", PNA_PROM_GAUGE,
                    "A container (and pod) holding the GPU: one series per container that has "
                    "one of its device nodes; always 1 (primusContainerDeviceGpu; the lowest "
                    "container id is primusGpuHolderContainer).");
    const struct pna_container_set *set = v->containers ? &v->containers->set : NULL;
    for (size_t i = 0; i < s->count; i++) {
        const struct pna_gpu *g = &s->gpus[i];
        struct gpu_labels gl;
        gpu_labels(&gl, s, i);
        if (!set) {
            if (g->has_holder)
                holder_series(p, &gl, g->holder_container, "", g->holder_pod,
                              g->holder_namespace);
            continue;
        }
        for (size_t k = 0; k < set->count; k++) {
            const struct pna_container *c = &set->rows[k];
            if (pna_container_holds_gpu(set, c, g->index))
                holder_series(p, &gl, c->id, c->name, c->pod_name, c->pod_namespace);
        }
    }
}

static void primus_gpus(struct pna_prom *p, const struct pna_http_view *v)
{
    const struct pna_gpu_snap *s = v->gpu;
    pna_prom_gauge_u64(p, "primus_gpus", "GPUs found on the node (primusGpuCount).", s->count);
    gpu_info(p, s);
    gpu_lost(p, s);
    for (size_t c = 0; c < sizeof gpu_columns / sizeof gpu_columns[0]; c++) {
        pna_prom_family(p, gpu_columns[c].name, gpu_columns[c].type, gpu_columns[c].help);
        for (size_t i = 0; i < s->count; i++) {
            struct gpu_value val = gpu_columns[c].get(&s->gpus[i]);
            if (!val.present || s->gpus[i].lost)
                continue;
            struct gpu_labels gl;
            gpu_labels(&gl, s, i);
            write_value(p, gl.l, 3, val);
        }
    }
    gpu_memory_repairs(p, s);
    gpu_holders(p, v);
}

/* ---- the seeds' names --------------------------------------------------------- */

/* Node exporter: gpu_utilization{gpu_id} in percent. */
static void seed_node_exporter(struct pna_prom *p, const struct pna_gpu_snap *s)
{
    pna_prom_family(p, "gpu_utilization", PNA_PROM_GAUGE, "GPU utilization percentage");
    for (size_t i = 0; i < s->count; i++) {
        const struct pna_gpu *g = &s->gpus[i];
        if (!g->has_util_gpu || g->lost)
            continue;
        char id[16];
        snprintf(id, sizeof id, "%u", (unsigned)pna_http_gpu_number(s, i));
        const struct pna_prom_label l[] = { { "gpu_id", id } };
        pna_prom_u64(p, l, 1, g->util_gpu_pct);
    }
}

/* In use, as the system-info exporter counts it: busy or holding memory. */
static bool gpu_in_use(const struct pna_gpu *g)
{
    return (g->has_util_gpu && g->util_gpu_pct > 0) || (g->has_mem_used && g->mem_used_bytes > 0);
}

/* hw_gpu_count and friends end in "_count", which the linter refuses for a
 * gauge (it reads like a histogram's), so they are served untyped: same
 * names and labels, and Prometheus stores them as before. */
static void seed_hw_counts(struct pna_prom *p, const struct pna_gpu_snap *s, const char *node)
{
    const struct pna_prom_label nl[] = { { "node", node } };
    size_t used = 0;
    for (size_t i = 0; i < s->count; i++)
        used += gpu_in_use(&s->gpus[i]);
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

static const struct {
    const char *name;
    gpu_getter get;
    bool percent;       /* the getter gives a ratio; the seed wants percent */
    const char *help;
} hw_gpu_columns[] = {
    { "hw_gpu_memory_total_bytes", g_mem_total, false, "GPU total memory in bytes" },
    { "hw_gpu_memory_used_bytes", g_mem_used, false, "GPU used memory in bytes" },
    { "hw_gpu_memory_free_bytes", g_mem_free, false, "GPU free memory in bytes" },
    { "hw_gpu_utilization_percent", g_util, true, "GPU utilization percentage" },
    { "hw_gpu_temperature_celsius", g_temp, false, "GPU temperature in Celsius" },
    { "hw_gpu_power_draw_watts", g_power, false, "GPU power draw in watts" },
    { "hw_gpu_power_limit_watts", g_power_limit, false, "GPU power limit in watts" },
};

static void seed_hw_gpus(struct pna_prom *p, const struct pna_gpu_snap *s, const char *node)
{
    for (size_t c = 0; c < sizeof hw_gpu_columns / sizeof hw_gpu_columns[0]; c++) {
        pna_prom_family(p, hw_gpu_columns[c].name, PNA_PROM_GAUGE, hw_gpu_columns[c].help);
        for (size_t i = 0; i < s->count; i++) {
            const struct pna_gpu *g = &s->gpus[i];
            struct gpu_value val = hw_gpu_columns[c].get(g);
            if (!val.present || g->lost)
                continue;
            if (hw_gpu_columns[c].percent)
                val.decimals -= 2;      /* percent / 100 -> percent */
            char index[16];
            snprintf(index, sizeof index, "%u", (unsigned)pna_http_gpu_number(s, i));
            const struct pna_prom_label l[] = {
                { "node", node }, { "gpu_index", index },
                { "gpu_name", g->name }, { "gpu_uuid", g->uuid },
            };
            write_value(p, l, 4, val);
        }
    }
}

void pna_metrics_gpu(struct pna_prom *p, const struct pna_http_view *v)
{
    if (!v->gpu)
        return;
    primus_gpus(p, v);
    seed_node_exporter(p, v->gpu);
    /* The system-info exporter writes its GPU metrics only on GPU nodes. */
    if (v->gpu->count) {
        seed_hw_counts(p, v->gpu, v->node_name);
        seed_hw_gpus(p, v->gpu, v->node_name);
    }
}
