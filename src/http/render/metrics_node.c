/* http/render/metrics_node.c -- what /metrics serves for the node besides its
 * descriptor tables (primusSystem, primusCpu, primusMemory): the
 * system-info exporter's hw_* names and labels, unchanged, so its dashboards
 * keep working. */
#include "pna_autoconf.h"
#include "http/render/render.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "model/metric_tables.h"
#include "model/node.h"

/* The system-info exporter labels hw_node_info with os="Ubuntu" and os_version="22.04"; the node
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

/* The system-info exporter's names, labels and help texts, unchanged.  It typed
 * hw_node_uptime_seconds a counter; a counter without "_total" fails promtool's
 * lint, so it is served untyped (Prometheus stores both the same way). */
static const struct pna_replaced_metric system_names[] = {
    { "hw_node_uptime_seconds", PNA_PROM_UNTYPED, "primusNodeUptime", { 0, 0 },
      "Node uptime in seconds" },
};
static const struct pna_replaced_metric cpu_names[] = {
    { "hw_cpu_cores", PNA_PROM_GAUGE, "primusCpuCores", { 0, 0 }, "Number of physical CPU cores" },
    { "hw_cpu_threads", PNA_PROM_GAUGE, "primusCpuThreads", { 0, 0 }, "Number of logical CPU threads" },
    { "hw_cpu_usage_percent", PNA_PROM_GAUGE, "primusCpuUsage", { 0, -2 }, "CPU usage percentage" },
};
static const struct pna_replaced_metric memory_names[] = {
    { "hw_memory_total_bytes", PNA_PROM_GAUGE, "primusMemTotal", { 0, 0 }, "Total memory in bytes" },
    { "hw_memory_used_bytes", PNA_PROM_GAUGE, "primusMemUsed", { 0, 0 }, "Used memory in bytes" },
    { "hw_memory_available_bytes", PNA_PROM_GAUGE, "primusMemAvailable", { 0, 0 },
      "Available memory in bytes" },
    { "hw_memory_usage_percent", PNA_PROM_GAUGE, "primusMemUsage", { 0, -2 },
      "Memory usage percentage" },
};

/* hw_node_info{node, os, os_version, kernel, cpu_model}: os and os_version
 * split from primusNodeOsName. */
static void node_info(struct pna_prom *p, const struct pna_http_view *v,
                      const struct pna_node *n)
{
    char os[128], version[64];
    pna_http_split_os(n->os_name, os, sizeof os, version, sizeof version);
    const struct pna_prom_label info[] = {
        { "node", v->node_name }, { "os", os }, { "os_version", version },
        { "kernel", n->kernel }, { "cpu_model", n->cpu_model },
    };
    pna_prom_family(p, "hw_node_info", PNA_PROM_GAUGE, "Node hardware information");
    pna_prom_u64(p, info, 5, 1);
}

#define REPLACED(p, v, table, names) \
    pna_prom_replaced_all((p), (v), (table), (names), sizeof(names) / sizeof(names)[0], \
                          pna_prom_node_label)

void pna_metrics_node_extras(struct pna_prom *p, const struct pna_http_view *v)
{
    const struct pna_node_snap *node = pna_view_snap(&v->base, PNA_DOM_NODE);
    if (!node)
        return;
    node_info(p, v, &node->node);
    REPLACED(p, v, &pna_system_metrics, system_names);
    REPLACED(p, v, &pna_cpu_metrics, cpu_names);
    REPLACED(p, v, &pna_memory_metrics, memory_names);
}
