/* http/render/compat_amd.c -- AMD device-metrics-exporter's names (prometheusCompat amd).
 *
 * The exporter's GPU fields the agent reads for AMD GPUs (from amdgpu sysfs
 * or rocm-smi-lib), under its names and HELP texts (every one a gauge, as it
 * declares them), with its label names in lower case as it writes them:
 *
 *   card_model, card_series, driver_version, gpu_id, gpu_uuid, hostname,
 *   serial_number, vbios_version and, for a GPU a pod holds, container,
 *   namespace, pod.
 *
 * A value the agent does not know (a consumer card's serial) is written
 * empty, as the exporter writes it.  Its labels the agent has no source for
 * (card_vendor, gpu_partition_id, gpu_compute_partition_type,
 * gpu_memory_partition_type, kfd_process_id, deployment_mode, job_*) are left
 * out: Prometheus stores an empty label as no label, so leaving them out is
 * what the exporter's empty values amount to. */
#include "pna_autoconf.h"
#include "http/render/compat.h"

#include <stdio.h>
#include <string.h>

#include "core/config.h"

/* One line: the family NAME of TYPE with HELP, from descriptor SOURCE,
 * then the conversion and marks as designated members. */
#define MAP(name_, type_, help_, source_, ...) \
    { .name = (name_), .type = (type_), .help = (help_), .source = (source_), __VA_ARGS__ }
#define GAUGE PNA_PROM_GAUGE
#define MILLI { 0, -3 }     /* milliwatts -> watts */
#define KILO { 0, 3 }       /* millijoules -> microjoules */
#define MIB 20              /* bytes -> whole MiB ("MB" in the exporter's help, amdsmi's MiB) */

static const struct pna_compat_map amd_maps[] = {
    MAP("gpu_gfx_activity", GAUGE, "Graphics engine usage in Percentage (0-100)", "primusGpuUtilization"),
    MAP("gpu_umc_activity", GAUGE, "Memory engine usage in Percentage (0-100)",
      "primusGpuMemUtilization"),
    MAP("gpu_edge_temperature", GAUGE, "Current edge temperature in Celsius", "primusGpuTemperature"),
    MAP("gpu_junction_temperature", GAUGE, "Current junction/hotspot temperature in Celsius",
      "primus_gpu_hotspot_temperature_celsius"),
    MAP("gpu_memory_temperature", GAUGE, "Current memory temperature in Celsius",
      "primusGpuMemTemperature"),
    MAP("gpu_power_usage", GAUGE, "GPU Power usage in Watts", "primusGpuPowerDraw", .scale = MILLI),
    MAP("gpu_energy_consumed", GAUGE, "Accumulated energy consumed by the GPU in uJ", "primusGpuEnergy",
      .scale = KILO),
    MAP("gpu_clock", GAUGE, "List of current GPU clock frequencies in MHz", "primusGpuSmClock",
      .extra = { { "clock_index", "0" }, { "clock_type", "system" } }),
    MAP("gpu_clock", GAUGE, NULL, "primusGpuMemClock",
      .extra = { { "clock_index", "1" }, { "clock_type", "memory" } }),
    MAP("gpu_total_vram", GAUGE, "Total VRAM memory of the GPU (in MB)", "primusGpuMemTotal", .shift = MIB),
    MAP("gpu_used_vram", GAUGE, "Used VRAM memory of the GPU (in MB)", "primusGpuMemUsed", .shift = MIB),
    MAP("gpu_free_vram", GAUGE, "Free VRAM memory of the GPU (in MB)", "primusGpuMemFree", .shift = MIB),
    MAP("pcie_replay_count", GAUGE, "Total number of PCIe replays", "primusGpuPcieReplays"),
    MAP("gpu_ecc_correct_total", GAUGE, "Total Correctable error count", "primusGpuEccCorrected"),
    MAP("gpu_ecc_uncorrect_total", GAUGE, "Total Uncorrectable error count", "primusGpuEccUncorrected"),
    MAP("pcie_bandwidth", GAUGE, "Current PCIe bandwidth in Mb/s", "primusGpuPcieBandwidth"),
    /* MI300: the throttle residency accumulators (gpu_metrics 1.6+) */
    MAP("gpu_violation_current_accumulated_counter", GAUGE, "current accumulated violation counter",
      "primusGpuThrottleAccCycles"),
    MAP("gpu_violation_processor_hot_residency_accumulated", GAUGE,
      "process hot residency accumulated violation counter", "primusGpuThrottleResProchot"),
    MAP("gpu_violation_ppt_residency_accumulated", GAUGE,
      "package power tracking accumulated violation counter", "primusGpuThrottleResPpt"),
    MAP("gpu_violation_socket_thermal_residency_accumulated", GAUGE,
      "socket thermal accumulated violation counter", "primusGpuThrottleResSocketThermal"),
    MAP("gpu_violation_vr_thermal_residency_accumulated", GAUGE,
      "voltage rail accumulated violation counter", "primusGpuThrottleResVrThermal"),
    MAP("gpu_violation_hbm_thermal_residency_accumulated", GAUGE, "HBM accumulated violation counter",
      "primusGpuThrottleResHbmThermal"),
};

/* card_model: the PCI device id as the exporter prints ids, "0x73bf", from
 * primusGpuPciDeviceId's "1002:73bf". */
static void card_model(const struct pna_row *row, char *buf, size_t cap)
{
    char ids[32];
    const char *colon = strchr(pna_compat_text(row, "primusGpuPciDeviceId", ids, sizeof ids), ':');
    buf[0] = '\0';
    if (colon && colon[1])
        snprintf(buf, cap, "0x%s", colon + 1);
}

static void amd_labels(const struct pna_http_view *v, const struct pna_row *row, size_t number,
                       struct pna_compat_labels *out)
{
    char text[PNA_COMPAT_LABEL_TEXT];
    out->n = 0;
    card_model(row, text, sizeof text);
    pna_compat_put(out, "card_model", text);
    pna_compat_put(out, "card_series", pna_compat_text(row, "primusGpuName", text, sizeof text));
    pna_compat_put(out, "driver_version",
                   pna_compat_text(row, "primusGpuDriverVersion", text, sizeof text));
    pna_compat_gpu_number(row, number, text, sizeof text);
    pna_compat_put(out, "gpu_id", text);
    pna_compat_put(out, "gpu_uuid", pna_compat_text(row, "primusGpuUuid", text, sizeof text));
    pna_compat_put(out, "hostname", v->node_name);
    pna_compat_put(out, "serial_number", pna_compat_text(row, "primusGpuSerial", text, sizeof text));
    pna_compat_put(out, "vbios_version", pna_compat_text(row, "primusGpuVbios", text, sizeof text));
    pna_compat_holder(v, row, out);
}

/* gpu_nodes_total{hostname}: the AMD GPUs of the node (rows of primusGpuTable
 * whose primusGpuVendor is amd). */
static void amd_gpu_count(struct pna_prom *p, const struct pna_http_view *v, size_t gpus)
{
    const struct pna_prom_label l[] = { { "hostname", v->node_name } };
    pna_prom_family(p, "gpu_nodes_total", GAUGE, "Number of GPUs in the node");
    pna_prom_u64(p, l, 1, gpus);
}

const struct pna_compat_exporter pna_compat_amd = {
    .name = "amd",
    .bit = PNA_COMPAT_AMD,
    .vendor = "amd",
    .maps = amd_maps,
    .count = sizeof amd_maps / sizeof amd_maps[0],
    .labels = amd_labels,
    .extra = amd_gpu_count,
};
