/* http/render/metrics_names.c -- the names the bridge renders in code, not
 * from a descriptor table (model/export/export.h's struct pna_export_names):
 * the replaced exporters' families, the joins and splits, the agent's own,
 * the compat exporters' (from their mapping tables), and the labels these
 * families carry.  The export control checks its patterns and labels
 * against them at start-up.  test_agree renders every family of the
 * fixture node and fails on a family or label that is in neither the
 * descriptors nor these lists, so they cannot fall behind the renderers. */
#include "pna_autoconf.h"
#include "http/render/render.h"

#include <pthread.h>
#include <stdlib.h>

#include "http/render/compat.h"

/* Families of metrics_*.c: the replaced exporters' names (node exporter's
 * hw_*, rdma_*, node_ephemeral_storage_*; the system-info exporter's), the
 * joins and splits, the agent's own.  A name ending in '*' stands for the
 * names made at run time with that prefix. */
static const char *const code_families[] = {
    "hw_node_info", "hw_node_uptime_seconds", "hw_cpu_cores", "hw_cpu_threads",
    "hw_cpu_usage_percent", "hw_memory_total_bytes", "hw_memory_used_bytes",
    "hw_memory_available_bytes", "hw_memory_usage_percent",
    "hw_gpu_count", "hw_gpu_used_count", "hw_gpu_type_count", "hw_gpu_memory_total_bytes",
    "hw_gpu_memory_used_bytes", "hw_gpu_memory_free_bytes", "hw_gpu_utilization_percent",
    "hw_gpu_temperature_celsius", "hw_gpu_power_draw_watts", "hw_gpu_power_limit_watts",
    "gpu_utilization", "primus_gpu_holder_info", "primus_gpu_retired_pages",
    "primus_ib_port_saturated", "rdma_stat_*", "rdma_ecn_marked_packets", "rdma_cnp_sent",
    "rdma_cnp_handled", "rdma_out_of_sequence", "rdma_rx_write_requests",
    "node_ephemeral_storage_available_bytes", "node_ephemeral_storage_capacity_bytes",
    "node_ephemeral_storage_usage_bytes", "node_ephemeral_storage_usage_percent",
    "pod_ephemeral_storage_usage_bytes", "node_k8s_gpu_allocation_rate",
    "primus_pod_labels_info", "primus_events_total", "primus_poller_info",
    PNA_SERIES_FAMILY, PNA_SERIES_LIMITED_FAMILY, PNA_SERIES_DROPPED_FAMILY,
    "primus_rdma_holder_info",
};

/* Labels that tell two series of one of those families apart. */
static const char *const identity_labels[] = {
    "cause", "counter", "type", "poller", "index", "family", "reason", "gpu_id", "gpu_index",
    "gpu_type", "device", "port", "gpu", "UUID", "gpu_uuid", "job", "container_id",
    "clock_index",
    NULL,
};

/* Their other labels (label_*: a pod's labels, named at run time). */
static const char *const other_labels[] = {
    "node", "os", "os_version", "kernel", "cpu_model", "gpu_name", "container", "pod",
    "namespace", "pod_uid", "label_*", "Hostname", "modelName", "pci_bus_id",
    "DCGM_FI_DRIVER_VERSION", "card_model", "card_series", "driver_version", "hostname",
    "serial_number", "vbios_version", "clock_type", "clock",
    NULL,
};

static const char **families;
static pthread_once_t families_once = PTHREAD_ONCE_INIT;

/* code_families then every compat exporter's family, NULL-terminated;
 * made once, kept for the process. */
static void make_families(void)
{
    static const struct pna_compat_exporter *const exporters[] = { &pna_compat_dcgm,
                                                                   &pna_compat_amd };
    size_t n = sizeof code_families / sizeof code_families[0], k = 0;
    for (size_t e = 0; e < sizeof exporters / sizeof exporters[0]; e++)
        n += exporters[e]->count;
    families = calloc(n + 2, sizeof *families);
    if (!families)
        return;
    for (size_t i = 0; i < sizeof code_families / sizeof code_families[0]; i++)
        families[k++] = code_families[i];
    for (size_t e = 0; e < sizeof exporters / sizeof exporters[0]; e++)
        for (size_t i = 0; i < exporters[e]->count; i++)
            families[k++] = exporters[e]->maps[i].name;
    families[k] = "gpu_nodes_total";   /* AMD's count (compat_amd.c's extra) */
}

struct pna_export_names pna_metrics_export_names(void)
{
    pthread_once(&families_once, make_families);
    struct pna_export_names n = { families, identity_labels, other_labels };
    return n;
}
