/* http/metrics_node.c -- /metrics for the node itself: identity, CPU and memory
 * (primusSystem, primusCpu, primusMemory), as primus_* metrics in base units and
 * under the system-info exporter's hw_* names and labels, unchanged, so its
 * dashboards keep working.
 *
 * Units: the model keeps shares in hundredths of a percent; primus_*_ratio
 * metrics are 0..1 (the Prometheus base unit) and the seed's *_percent ones
 * 0..100, both printed exactly from the integer. */
#include "pna_autoconf.h"
#include "model/node.h"
#include "http/render.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* The seed labels hw_node_info with os="Ubuntu" and os_version="22.04"; the node
 * model keeps os-release's PRETTY_NAME only, so both are taken from it (see
 * render.h). */
void pna_http_split_os(const char *pretty, char *os, size_t os_cap, char *version,
                       size_t version_cap)
{
    const char *p = pretty;
    const char *word = NULL;
    while (*p) {
        while (*p == ' ')
            p++;
        if (isdigit((unsigned char)*p)) {
            word = p;
            break;
        }
        while (*p && *p != ' ')
            p++;
    }
    if (!word) {
        snprintf(os, os_cap, "%s", pretty);
        snprintf(version, version_cap, "%s", "");
        return;
    }
    size_t name_len = (size_t)(word - pretty);
    while (name_len > 0 && pretty[name_len - 1] == ' ')
        name_len--;
    size_t ver_len = strcspn(word, " ");
    snprintf(os, os_cap, "%.*s", (int)name_len, pretty);
    snprintf(version, version_cap, "%.*s", (int)ver_len, word);
}

static void primus_node(struct pna_prom *p, const struct pna_node *n)
{
    const struct pna_prom_label info[] = {
        { "hostname", n->hostname }, { "os", n->os_name }, { "kernel", n->kernel },
        { "architecture", n->arch }, { "cpu_model", n->cpu_model },
    };
    pna_prom_family(p, "primus_node_info", PNA_PROM_GAUGE,
                    "Node identity: host name, OS (os-release PRETTY_NAME), kernel release, "
                    "architecture and CPU model; always 1 (primusSystem).");
    pna_prom_u64(p, info, sizeof info / sizeof info[0], 1);
    pna_prom_gauge_u64(p, "primus_node_uptime_seconds",
                       "Seconds since the node booted (primusNodeUptime).", n->uptime_s);
    pna_prom_gauge_u64(p, "primus_node_boot_time_seconds",
                       "When the node booted, seconds since 1970-01-01 UTC (primusNodeBootTime).",
                       n->boot_time_s);
}

static void primus_cpu(struct pna_prom *p, const struct pna_node *n)
{
    pna_prom_gauge_u64(p, "primus_cpu_cores", "Physical CPU cores (primusCpuCores).", n->cpu_cores);
    pna_prom_gauge_u64(p, "primus_cpu_threads",
                       "Logical CPUs, hardware threads (primusCpuThreads).", n->cpu_threads);
    pna_prom_gauge_u64(p, "primus_cpu_sockets", "CPU sockets (primusCpuSockets).", n->cpu_sockets);
    /* Usage needs two samples: absent after the first poll, as in the MIB. */
    if (n->have_cpu_usage) {
        pna_prom_family(p, "primus_cpu_usage_ratio", PNA_PROM_GAUGE,
                        "Share of CPU time busy over the last poll interval, all CPUs, 0..1 "
                        "(primusCpuUsage).");
        pna_prom_fixed(p, NULL, 0, n->cpu_usage_hundredths, 4);
        pna_prom_family(p, "primus_cpu_iowait_ratio", PNA_PROM_GAUGE,
                        "Share of CPU time idle waiting for I/O over the last poll interval, "
                        "0..1 (primusCpuIowait).");
        pna_prom_fixed(p, NULL, 0, n->cpu_iowait_hundredths, 4);
    }
    pna_prom_family(p, "primus_cpu_load1", PNA_PROM_GAUGE,
                    "1-minute load average (primusCpuLoad1 / 100).");
    pna_prom_fixed(p, NULL, 0, n->load1_hundredths, 2);
    pna_prom_family(p, "primus_cpu_load5", PNA_PROM_GAUGE,
                    "5-minute load average (primusCpuLoad5 / 100).");
    pna_prom_fixed(p, NULL, 0, n->load5_hundredths, 2);
    pna_prom_family(p, "primus_cpu_load15", PNA_PROM_GAUGE,
                    "15-minute load average (primusCpuLoad15 / 100).");
    pna_prom_fixed(p, NULL, 0, n->load15_hundredths, 2);
}

static void primus_memory(struct pna_prom *p, const struct pna_node *n)
{
    pna_prom_gauge_u64(p, "primus_memory_total_bytes",
                       "Total usable memory, MemTotal (primusMemTotal).", n->mem_total_bytes);
    pna_prom_gauge_u64(p, "primus_memory_used_bytes",
                       "Memory in use: total minus available (primusMemUsed).", n->mem_used_bytes);
    pna_prom_gauge_u64(p, "primus_memory_available_bytes",
                       "Memory available without swapping, MemAvailable (primusMemAvailable).",
                       n->mem_available_bytes);
    pna_prom_family(p, "primus_memory_usage_ratio", PNA_PROM_GAUGE,
                    "Used memory as a share of total, 0..1 (primusMemUsage).");
    pna_prom_fixed(p, NULL, 0, n->mem_usage_hundredths, 4);
    pna_prom_gauge_u64(p, "primus_memory_swap_total_bytes",
                       "Total swap space (primusMemSwapTotal).", n->swap_total_bytes);
    pna_prom_gauge_u64(p, "primus_memory_swap_used_bytes",
                       "Swap space in use (primusMemSwapUsed).", n->swap_used_bytes);
}

/* The system-info exporter's names, labels and help texts, unchanged.  It typed
 * hw_node_uptime_seconds a counter; a counter without "_total" fails promtool's
 * lint, so it is served untyped (Prometheus stores both the same way). */
static void seed_node(struct pna_prom *p, const struct pna_node *n, const char *node)
{
    char os[128], version[64];
    pna_http_split_os(n->os_name, os, sizeof os, version, sizeof version);
    const struct pna_prom_label info[] = {
        { "node", node }, { "os", os }, { "os_version", version },
        { "kernel", n->kernel }, { "cpu_model", n->cpu_model },
    };
    const struct pna_prom_label l[] = { { "node", node } };

    pna_prom_family(p, "hw_node_info", PNA_PROM_GAUGE, "Node hardware information");
    pna_prom_u64(p, info, 5, 1);
    pna_prom_family(p, "hw_node_uptime_seconds", PNA_PROM_UNTYPED, "Node uptime in seconds");
    pna_prom_u64(p, l, 1, n->uptime_s);

    pna_prom_family(p, "hw_cpu_cores", PNA_PROM_GAUGE, "Number of physical CPU cores");
    pna_prom_u64(p, l, 1, n->cpu_cores);
    pna_prom_family(p, "hw_cpu_threads", PNA_PROM_GAUGE, "Number of logical CPU threads");
    pna_prom_u64(p, l, 1, n->cpu_threads);
    if (n->have_cpu_usage) {
        pna_prom_family(p, "hw_cpu_usage_percent", PNA_PROM_GAUGE, "CPU usage percentage");
        pna_prom_fixed(p, l, 1, n->cpu_usage_hundredths, 2);
    }

    pna_prom_family(p, "hw_memory_total_bytes", PNA_PROM_GAUGE, "Total memory in bytes");
    pna_prom_u64(p, l, 1, n->mem_total_bytes);
    pna_prom_family(p, "hw_memory_used_bytes", PNA_PROM_GAUGE, "Used memory in bytes");
    pna_prom_u64(p, l, 1, n->mem_used_bytes);
    pna_prom_family(p, "hw_memory_available_bytes", PNA_PROM_GAUGE, "Available memory in bytes");
    pna_prom_u64(p, l, 1, n->mem_available_bytes);
    pna_prom_family(p, "hw_memory_usage_percent", PNA_PROM_GAUGE, "Memory usage percentage");
    pna_prom_fixed(p, l, 1, n->mem_usage_hundredths, 2);
}

void pna_metrics_node(struct pna_prom *p, const struct pna_http_view *v)
{
    if (!v->node)
        return;
    primus_node(p, v->node);
    primus_cpu(p, v->node);
    primus_memory(p, v->node);
    seed_node(p, v->node, v->node_name);
}
