/* http/render/compat_dcgm.c -- NVIDIA dcgm-exporter's names (prometheusCompat dcgm).
 *
 * The fields of dcgm-exporter's default counter set (etc/default-counters.csv)
 * the agent reads, under dcgm-exporter's names, types, units and HELP texts,
 * for the NVIDIA GPUs, labelled as dcgm-exporter labels them:
 *
 *   gpu, UUID, pci_bus_id, device, modelName, Hostname, DCGM_FI_DRIVER_VERSION
 *   and, for a GPU a pod holds, container, namespace, pod.
 *
 * dcgm-exporter writes counters without "_total" (TYPE counter all the same)
 * and memory in whole MiB.  A line marked pending is not served, with the
 * reason; docs say which fields are not served and why. */
#include "pna_autoconf.h"
#include "http/render/compat.h"

#include <stdio.h>

#include "core/config.h"
#include "model/gpu/gpu.h"

/* One line: the family NAME of TYPE with HELP, from descriptor SOURCE,
 * then the conversion and marks as designated members. */
#define MAP(name_, type_, help_, source_, ...) \
    { .name = (name_), .type = (type_), .help = (help_), .source = (source_), __VA_ARGS__ }
#define GAUGE PNA_PROM_GAUGE
#define COUNTER PNA_PROM_COUNTER_FOREIGN
#define MILLI { 0, -3 }             /* milliwatts -> watts */
#define HUNDREDTHS_PCT { 0, -4 }    /* hundredths of a percent (0..10000) -> ratio */
#define MIB 20                      /* bytes -> whole MiB */
/* DCGM sums the links' counters in a unit it does not document: the links'
 * own byte counters are served instead (primus_gpu_link_*_bytes_total). */
#define NO_TOTAL "no per-GPU NVLink byte total: see primusGpuLinkTxBytes/RxBytes"

static const struct pna_compat_map dcgm_maps[] = {
    /* clocks, temperatures, power */
    MAP("DCGM_FI_DEV_SM_CLOCK", GAUGE, "SM clock frequency (in MHz).", "primusGpuSmClock"),
    MAP("DCGM_FI_DEV_MEM_CLOCK", GAUGE, "Memory clock frequency (in MHz).", "primusGpuMemClock"),
    MAP("DCGM_FI_DEV_MEMORY_TEMP", GAUGE, "Memory temperature (in C).", "primusGpuMemTemperature"),
    MAP("DCGM_FI_DEV_GPU_TEMP", GAUGE, "GPU temperature (in C).", "primusGpuTemperature"),
    MAP("DCGM_FI_DEV_POWER_USAGE", GAUGE, "Power draw (in W).", "primusGpuPowerDraw", .scale = MILLI),
    MAP("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", COUNTER, "Total energy consumption since boot (in mJ).",
      "primusGpuEnergy"),
    /* PCIe */
    MAP("DCGM_FI_DEV_PCIE_REPLAY_COUNTER", COUNTER, "Total number of PCIe retries.",
      "primusGpuPcieReplays"),
    /* utilization */
    MAP("DCGM_FI_DEV_GPU_UTIL", GAUGE, "GPU utilization (in %).", "primusGpuUtilization"),
    MAP("DCGM_FI_DEV_MEM_COPY_UTIL", GAUGE, "Memory utilization (in %).", "primusGpuMemUtilization"),
    /* errors and violations (DCGM's violation fields count microseconds,
     * whatever the CSV's "(in ns)" says; so do the primusGpuThrottleTime*) */
    MAP("DCGM_FI_DEV_XID_ERRORS", GAUGE, "Value of the last XID error encountered.", "primusGpuLastXid"),
    MAP("DCGM_FI_DEV_POWER_VIOLATION", COUNTER,
      "Throttling duration due to power constraints (in ns).", "primusGpuThrottleTimePower"),
    MAP("DCGM_FI_DEV_THERMAL_VIOLATION", COUNTER,
      "Throttling duration due to thermal constraints (in ns).", "primusGpuThrottleTimeThermal"),
    MAP("DCGM_FI_DEV_SYNC_BOOST_VIOLATION", COUNTER,
      "Throttling duration due to sync-boost constraints (in ns).", "primusGpuThrottleTimeSyncBoost"),
    MAP("DCGM_FI_DEV_BOARD_LIMIT_VIOLATION", COUNTER,
      "Throttling duration due to board limit constraints (in ns).",
      "primusGpuThrottleTimeBoardLimit"),
    MAP("DCGM_FI_DEV_LOW_UTIL_VIOLATION", COUNTER, "Throttling duration due to low utilization (in ns).",
      "primusGpuThrottleTimeLowUtil"),
    MAP("DCGM_FI_DEV_RELIABILITY_VIOLATION", COUNTER,
      "Throttling duration due to reliability constraints (in ns).",
      "primusGpuThrottleTimeReliability"),
    /* memory usage */
    MAP("DCGM_FI_DEV_FB_FREE", GAUGE, "Framebuffer memory free (in MiB).", "primusGpuMemFree",
      .shift = MIB),
    MAP("DCGM_FI_DEV_FB_USED", GAUGE, "Framebuffer memory used (in MiB).", "primusGpuMemUsed",
      .shift = MIB),
    /* NVLink total: not served (NO_TOTAL) */
    MAP("DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL", COUNTER,
      "Total number of NVLink bandwidth counters for all lanes.", "primusGpuNvLinkBytes",
      .pending = NO_TOTAL),
    /* remapped rows */
    MAP("DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS", COUNTER,
      "Number of remapped rows for uncorrectable errors", "primus_gpu_remapped_rows",
      .source_label = "uncorrectable"),
    MAP("DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS", COUNTER, "Number of remapped rows for correctable errors",
      "primus_gpu_remapped_rows",
      .source_label = "correctable"),
    MAP("DCGM_FI_DEV_ROW_REMAP_FAILURE", GAUGE, "Whether remapping of rows has failed",
      "primus_gpu_row_remap_failure"),
    /* datacenter profiling (DCP): ratios from hundredths of a percent */
    MAP("DCGM_FI_PROF_GR_ENGINE_ACTIVE", GAUGE, "Ratio of time the graphics engine is active.",
      "primusGpuGrEngineActive", .scale = HUNDREDTHS_PCT),
    MAP("DCGM_FI_PROF_SM_ACTIVE", GAUGE, "The ratio of cycles an SM has at least 1 warp assigned.",
      "primusGpuSmActive", .scale = HUNDREDTHS_PCT),
    MAP("DCGM_FI_PROF_SM_OCCUPANCY", GAUGE, "The ratio of number of warps resident on an SM.",
      "primusGpuSmOccupancy", .scale = HUNDREDTHS_PCT),
    MAP("DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", GAUGE, "Ratio of cycles the tensor (HMMA) pipe is active.",
      "primusGpuTensorActive", .scale = HUNDREDTHS_PCT),
    MAP("DCGM_FI_PROF_DRAM_ACTIVE", GAUGE,
      "Ratio of cycles the device memory interface is active sending or receiving data.",
      "primusGpuDramActive", .scale = HUNDREDTHS_PCT),
    MAP("DCGM_FI_PROF_PIPE_FP64_ACTIVE", GAUGE, "Ratio of cycles the fp64 pipes are active.",
      "primusGpuFp64Active", .scale = HUNDREDTHS_PCT),
    MAP("DCGM_FI_PROF_PIPE_FP32_ACTIVE", GAUGE, "Ratio of cycles the fp32 pipes are active.",
      "primusGpuFp32Active", .scale = HUNDREDTHS_PCT),
    MAP("DCGM_FI_PROF_PIPE_FP16_ACTIVE", GAUGE, "Ratio of cycles the fp16 pipes are active.",
      "primusGpuFp16Active", .scale = HUNDREDTHS_PCT),
    MAP("DCGM_FI_PROF_PCIE_TX_BYTES", GAUGE,
      "The rate of data transmitted over the PCIe bus - including both protocol headers and data "
      "payloads - in bytes per second.", "primusGpuPcieTxRate"),
    MAP("DCGM_FI_PROF_PCIE_RX_BYTES", GAUGE,
      "The rate of data received over the PCIe bus - including both protocol headers and data "
      "payloads - in bytes per second.", "primusGpuPcieRxRate"),
    MAP("DCGM_FI_PROF_NVLINK_TX_BYTES", GAUGE,
      "The rate of data transmitted over NVLink, not including protocol headers, in bytes per second.",
      "primusGpuNvLinkTxRate"),
    MAP("DCGM_FI_PROF_NVLINK_RX_BYTES", GAUGE,
      "The rate of data received over NVLink, not including protocol headers, in bytes per second.",
      "primusGpuNvLinkRxRate"),
};

/* NVML's spelling of a PCI address, as dcgm-exporter copies it:
 * "00000000:3B:00.0" from the model's canonical "0000:3b:00.0". */
static void nvml_bus_id(const char *canon, char *buf, size_t cap)
{
    unsigned dom, bus, dev, fn;
    buf[0] = '\0';
    if (sscanf(canon, "%x:%x:%x.%x", &dom, &bus, &dev, &fn) == 4)
        snprintf(buf, cap, "%08X:%02X:%02X.%X", dom, bus, dev, fn);
}

/* device="nvidia<minor>": the minor number of /dev/nvidiaN is no MIB object
 * (no descriptor serves it), so it is read from the row's record here, the
 * one place it is served. */
static void nvidia_device(const struct pna_row *row, char *buf, size_t cap)
{
    const struct pna_gpu *g = row->rec;
    buf[0] = '\0';
    if (g->has_minor)
        snprintf(buf, cap, "nvidia%u", (unsigned)g->minor);
}

static void dcgm_labels(const struct pna_http_view *v, const struct pna_row *row, size_t number,
                        struct pna_compat_labels *out)
{
    char text[PNA_COMPAT_LABEL_TEXT], bus[32];
    out->n = 0;
    pna_compat_gpu_number(row, number, text, sizeof text);
    pna_compat_put(out, "gpu", text);
    pna_compat_put(out, "UUID", pna_compat_text(row, "primusGpuUuid", text, sizeof text));
    nvml_bus_id(pna_compat_text(row, "primusGpuPciBusId", text, sizeof text), bus, sizeof bus);
    pna_compat_put(out, "pci_bus_id", bus);
    nvidia_device(row, text, sizeof text);
    pna_compat_put(out, "device", text);
    pna_compat_put(out, "modelName", pna_compat_text(row, "primusGpuName", text, sizeof text));
    pna_compat_put(out, "Hostname", v->node_name);
    pna_compat_put(out, "DCGM_FI_DRIVER_VERSION",
                   pna_compat_text(row, "primusGpuDriverVersion", text, sizeof text));
    pna_compat_holder(v, row, out);
}

const struct pna_compat_exporter pna_compat_dcgm = {
    .name = "dcgm",
    .bit = PNA_COMPAT_DCGM,
    .vendor = "nvidia",
    .maps = dcgm_maps,
    .count = sizeof dcgm_maps / sizeof dcgm_maps[0],
    .labels = dcgm_labels,
};
