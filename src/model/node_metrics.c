/* model/node_metrics.c -- the served values of the node itself: primusSystem,
 * primusCpu and primusMemory, one descriptor per value (see metric.h, node.h).
 *
 * Shares are kept in hundredths of a percent, as the MIB serves them; the
 * bridge's *_ratio metrics are 0..1 (x 10^-4) and the JSON *_percent members
 * 0..100 (x 10^-2). */
#include "pna_autoconf.h"
#include "model/metric_tables.h"

#include "model/metric.h"
#include "model/node.h"
#include "model/oids.h"

static size_t node_rows(const struct pna_view *v)
{
    return pna_view_snap(v, PNA_DOM_NODE) ? 1 : 0;
}

static bool node_row(const struct pna_view *v, size_t i, struct pna_row *out)
{
    const struct pna_node_snap *s = pna_view_snap(v, PNA_DOM_NODE);
    (void)i;
    out->rec = &s->node;
    return true;
}

#define U32 PNA_SYNTAX_UNSIGNED
#define C64 PNA_SYNTAX_COUNTER64
#define TEXT PNA_SYNTAX_TEXT
#define GAUGE PNA_FAMILY_GAUGE
#define NODE(member) PNA_FIELD(struct pna_node, member)
#define NODE_NZ(member) PNA_FIELD_NZ(struct pna_node, member)
#define NODE_IF(member, has) PNA_FIELD_IF(struct pna_node, member, has)
#define RATIO PNA_SCALE_E(-4)     /* hundredths of a percent to 0..1 */
#define PERCENT PNA_SCALE_E(-2)   /* hundredths of a percent, or hundredths, to units */

static const struct pna_metric system_metrics[] = {
    { .column = 1, .object = "primusNodeHostname", .syntax = TEXT,
      .field = NODE(hostname), .label = "hostname", .json = "hostname" },
    { .column = 2, .object = "primusNodeOsName", .syntax = TEXT,
      .field = NODE_NZ(os_name), .label = "os", .json = "os_pretty_name" },
    { .column = 3, .object = "primusNodeKernel", .syntax = TEXT,
      .field = NODE_NZ(kernel), .label = "kernel", .json = "kernel" },
    { .column = 5, .object = "primusNodeUptime", .syntax = U32,
      .field = NODE(uptime_s), .family = "primus_node_uptime_seconds", .type = GAUGE,
      .json = "uptime_seconds", .help = "Seconds since the node booted" },
    { .column = 6, .object = "primusNodeArchitecture", .syntax = TEXT,
      .field = NODE_NZ(arch), .label = "architecture", .json = "architecture" },
    { .column = 4, .object = "primusNodeCpuModel", .syntax = TEXT,
      .field = NODE_NZ(cpu_model), .label = "cpu_model", .json = "cpu_model" },
    { .column = 7, .object = "primusNodeBootTime", .syntax = U32,
      .field = NODE(boot_time_s), .family = "primus_node_boot_time_seconds", .type = GAUGE,
      .json = "boot_time", .help = "When the node booted, seconds since 1970-01-01 UTC" },
};

const struct pna_metric_table pna_system_metrics = {
    .object = "primusSystem",
    .kind = PNA_TABLE_SCALARS,
    .domain = PNA_DOM_NODE,
    .view = PNA_VIEW_DOMAIN(PNA_DOM_NODE),
    PNA_TABLE_OID(PNA_OID_SYSTEM),
    .metrics = system_metrics,
    .count = sizeof system_metrics / sizeof system_metrics[0],
    .rows = node_rows,
    .row = node_row,
    .info_family = "primus_node_info",
    .info_help = "Node identity: host name, OS (os-release PRETTY_NAME), kernel release, "
                 "architecture and CPU model; always 1",
};

static const struct pna_metric cpu_metrics[] = {
    { .column = 1, .object = "primusCpuCores", .syntax = U32, .field = NODE(cpu_cores),
      .family = "primus_cpu_cores", .type = GAUGE, .json = "cores", .help = "Physical CPU cores" },
    { .column = 2, .object = "primusCpuThreads", .syntax = U32,
      .field = NODE(cpu_threads), .family = "primus_cpu_threads", .type = GAUGE, .json = "threads",
      .help = "Logical CPUs, hardware threads" },
    /* Usage needs two samples: absent until the second poll. */
    { .column = 3, .object = "primusCpuUsage", .syntax = U32, .max = 10000,
      .field = NODE_IF(cpu_usage_hundredths, have_cpu_usage), .family = "primus_cpu_usage_ratio",
      .type = GAUGE, .scale = RATIO, .json = "usage_percent", .json_scale = PERCENT,
      .help = "Share of CPU time busy over the last poll interval, all CPUs, 0..1" },
    { .column = 4, .object = "primusCpuSockets", .syntax = U32,
      .field = NODE(cpu_sockets), .family = "primus_cpu_sockets", .type = GAUGE, .json = "sockets",
      .help = "CPU sockets" },
    { .column = 5, .object = "primusCpuLoad1", .syntax = U32,
      .field = NODE(load1_hundredths), .family = "primus_cpu_load1", .type = GAUGE, .scale = PERCENT,
      .json = "load1", .json_scale = PERCENT, .help = "1-minute load average" },
    { .column = 6, .object = "primusCpuLoad5", .syntax = U32,
      .field = NODE(load5_hundredths), .family = "primus_cpu_load5", .type = GAUGE, .scale = PERCENT,
      .json = "load5", .json_scale = PERCENT, .help = "5-minute load average" },
    { .column = 7, .object = "primusCpuLoad15", .syntax = U32,
      .field = NODE(load15_hundredths), .family = "primus_cpu_load15", .type = GAUGE, .scale = PERCENT,
      .json = "load15", .json_scale = PERCENT, .help = "15-minute load average" },
    { .column = 8, .object = "primusCpuIowait", .syntax = U32, .max = 10000,
      .field = NODE_IF(cpu_iowait_hundredths, have_cpu_usage), .family = "primus_cpu_iowait_ratio",
      .type = GAUGE, .scale = RATIO, .json = "iowait_percent", .json_scale = PERCENT,
      .help = "Share of CPU time idle waiting for I/O over the last poll interval, 0..1" },
};

const struct pna_metric_table pna_cpu_metrics = {
    .object = "primusCpu",
    .kind = PNA_TABLE_SCALARS,
    .domain = PNA_DOM_NODE,
    .view = PNA_VIEW_DOMAIN(PNA_DOM_NODE),
    PNA_TABLE_OID(PNA_OID_CPU),
    .metrics = cpu_metrics,
    .count = sizeof cpu_metrics / sizeof cpu_metrics[0],
    .rows = node_rows,
    .row = node_row,
};

static const struct pna_metric memory_metrics[] = {
    { .column = 1, .object = "primusMemTotal", .syntax = C64,
      .field = NODE(mem_total_bytes), .family = "primus_memory_total_bytes", .type = GAUGE,
      .json = "total_bytes", .help = "Total usable memory, MemTotal" },
    { .column = 2, .object = "primusMemUsed", .syntax = C64, .field = NODE(mem_used_bytes),
      .family = "primus_memory_used_bytes", .type = GAUGE, .json = "used_bytes",
      .help = "Memory in use: total minus available" },
    { .column = 3, .object = "primusMemAvailable", .syntax = C64,
      .field = NODE(mem_available_bytes), .family = "primus_memory_available_bytes", .type = GAUGE,
      .json = "available_bytes", .help = "Memory available without swapping, MemAvailable" },
    { .column = 4, .object = "primusMemUsage", .syntax = U32, .max = 10000,
      .field = NODE(mem_usage_hundredths), .family = "primus_memory_usage_ratio", .type = GAUGE,
      .scale = RATIO, .json = "usage_percent", .json_scale = PERCENT,
      .help = "Used memory as a share of total, 0..1" },
    { .column = 5, .object = "primusMemSwapTotal", .syntax = C64,
      .field = NODE(swap_total_bytes), .family = "primus_memory_swap_total_bytes", .type = GAUGE,
      .json = "swap_total_bytes", .help = "Total swap space" },
    { .column = 6, .object = "primusMemSwapUsed", .syntax = C64,
      .field = NODE(swap_used_bytes), .family = "primus_memory_swap_used_bytes", .type = GAUGE,
      .json = "swap_used_bytes", .help = "Swap space in use" },
};

const struct pna_metric_table pna_memory_metrics = {
    .object = "primusMemory",
    .kind = PNA_TABLE_SCALARS,
    .domain = PNA_DOM_NODE,
    .view = PNA_VIEW_DOMAIN(PNA_DOM_NODE),
    PNA_TABLE_OID(PNA_OID_MEMORY),
    .metrics = memory_metrics,
    .count = sizeof memory_metrics / sizeof memory_metrics[0],
    .rows = node_rows,
    .row = node_row,
};
