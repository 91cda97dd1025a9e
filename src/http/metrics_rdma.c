/* http/metrics_rdma.c -- /metrics for InfiniBand and RoCE (primusRdma: the
 * device, port, RoCE congestion and hardware counter tables), and the seeds'
 * names unchanged: the node exporter's rdma_stat_<counter>{device,port} and the
 * RDMA stats exporter's rdma_ecn_marked_packets, rdma_cnp_sent,
 * rdma_cnp_handled, rdma_rx_write_requests and rdma_out_of_sequence.
 *
 * Port series carry device ("mlx5_0") and port ("1").  Counters are absent when
 * the source has none (iWARP "N/A (no PMA)"), never 0; data counters are
 * already octets in the model (the kernel's 4-octet words multiplied).  The
 * seed names are served untyped: they are counters without "_total", which
 * the linter refuses for a typed counter. */
#include "pna_autoconf.h"
#include "model/ib.h"
#include "http/render.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *name;
    const char *help;
} port_counters[PNA_IBC_COUNT] = {
    [PNA_IBC_XMIT_DATA] = { "primus_ib_port_transmit_data_bytes_total",
                            "Data octets transmitted, port_xmit_data x 4 (primusIbPortXmitData)." },
    [PNA_IBC_RCV_DATA] = { "primus_ib_port_receive_data_bytes_total",
                           "Data octets received, port_rcv_data x 4 (primusIbPortRcvData)." },
    [PNA_IBC_XMIT_PACKETS] = { "primus_ib_port_transmit_packets_total",
                               "Packets transmitted (primusIbPortXmitPkts)." },
    [PNA_IBC_RCV_PACKETS] = { "primus_ib_port_receive_packets_total",
                              "Packets received (primusIbPortRcvPkts)." },
    [PNA_IBC_UNICAST_XMIT_PACKETS] = { "primus_ib_port_unicast_transmit_packets_total",
                                       "Unicast packets transmitted (primusIbPortUnicastXmitPkts)." },
    [PNA_IBC_UNICAST_RCV_PACKETS] = { "primus_ib_port_unicast_receive_packets_total",
                                      "Unicast packets received (primusIbPortUnicastRcvPkts)." },
    [PNA_IBC_MULTICAST_XMIT_PACKETS] = { "primus_ib_port_multicast_transmit_packets_total",
                                         "Multicast packets transmitted (primusIbPortMcastXmitPkts)." },
    [PNA_IBC_MULTICAST_RCV_PACKETS] = { "primus_ib_port_multicast_receive_packets_total",
                                        "Multicast packets received (primusIbPortMcastRcvPkts)." },
    [PNA_IBC_SYMBOL_ERROR] = { "primus_ib_port_symbol_errors_total",
                               "Minor link errors on physical lanes (primusIbPortSymbolErrors)." },
    [PNA_IBC_LINK_ERROR_RECOVERY] = { "primus_ib_port_link_error_recovery_total",
                                      "Successful link error recoveries (primusIbPortLinkErrRecovery)." },
    [PNA_IBC_LINK_DOWNED] = { "primus_ib_port_link_downed_total",
                              "Failed link error recoveries: link went down (primusIbPortLinkDowned)." },
    [PNA_IBC_RCV_ERRORS] = { "primus_ib_port_receive_errors_total",
                             "Received packets containing an error (primusIbPortRcvErrors)." },
    [PNA_IBC_RCV_REMOTE_PHYSICAL_ERRORS] = {
        "primus_ib_port_receive_remote_physical_errors_total",
        "Received packets marked with the EBP delimiter (primusIbPortRcvRemPhysErrors)." },
    [PNA_IBC_RCV_SWITCH_RELAY_ERRORS] = {
        "primus_ib_port_receive_switch_relay_errors_total",
        "Received packets that could not be forwarded (primusIbPortRcvSwRelayErrors)." },
    [PNA_IBC_XMIT_DISCARDS] = { "primus_ib_port_transmit_discards_total",
                                "Outbound packets discarded: port down or congested "
                                "(primusIbPortXmitDiscards)." },
    [PNA_IBC_XMIT_CONSTRAINT_ERRORS] = { "primus_ib_port_transmit_constraint_errors_total",
                                         "Outbound packets not sent for constraints such as "
                                         "partitions (primusIbPortXmitConstrErrors)." },
    [PNA_IBC_RCV_CONSTRAINT_ERRORS] = { "primus_ib_port_receive_constraint_errors_total",
                                        "Inbound packets discarded for constraints "
                                        "(primusIbPortRcvConstrErrors)." },
    [PNA_IBC_LOCAL_LINK_INTEGRITY_ERRORS] = {
        "primus_ib_port_local_link_integrity_errors_total",
        "Times local physical errors exceeded their threshold (primusIbPortLocalIntegrityErrs)." },
    [PNA_IBC_EXCESSIVE_BUFFER_OVERRUN_ERRORS] = {
        "primus_ib_port_excessive_buffer_overrun_errors_total",
        "Flow control update periods with overruns (primusIbPortExcessBufOverruns)." },
    [PNA_IBC_VL15_DROPPED] = { "primus_ib_port_vl15_dropped_total",
                               "Subnet management (VL15) packets dropped (primusIbPortVl15Dropped)." },
    [PNA_IBC_XMIT_WAIT] = { "primus_ib_port_transmit_wait_total",
                            "Ticks the port had data to send but no credits (primusIbPortXmitWait)." },
    [PNA_IBC_RCV_DISCARDS] = { "primus_ib_port_receive_discards_total",
                               "Received packets discarded by the driver, where it counts them." },
};

struct port_labels {
    char num[16];
    struct pna_prom_label l[2];
};

static void port_labels(struct port_labels *pl, const struct pna_ib_device *d,
                        const struct pna_ib_port *p)
{
    snprintf(pl->num, sizeof pl->num, "%u", (unsigned)p->num);
    pl->l[0] = (struct pna_prom_label){ "device", d->name };
    pl->l[1] = (struct pna_prom_label){ "port", pl->num };
}

#define FOR_EACH_PORT(m, d, p)                                                  \
    for (const struct pna_ib_device *d = (m)->devices; d < (m)->devices + (m)->n_devices; d++) \
        for (const struct pna_ib_port *p = d->ports; p < d->ports + d->n_ports; p++)

static void devices(struct pna_prom *p, const struct pna_ib_model *m)
{
    pna_prom_gauge_u64(p, "primus_rdma_devices", "RDMA devices on the node (primusRdmaDeviceCount).",
                       m->n_devices);
    pna_prom_family(p, "primus_rdma_device_info", PNA_PROM_GAUGE,
                    "One series per RDMA device: node type, firmware, HCA type, board id, GUIDs, "
                    "PCI address and driver; always 1 (primusRdmaDeviceTable).");
    for (size_t i = 0; i < m->n_devices; i++) {
        const struct pna_ib_device *d = &m->devices[i];
        const struct pna_prom_label l[] = {
            { "device", d->name }, { "node_type", d->node_type_text },
            { "firmware", d->fw_ver }, { "hca_type", d->hca_type }, { "board_id", d->board_id },
            { "node_guid", d->node_guid_text }, { "sys_image_guid", d->sys_image_guid_text },
            { "pci_bus_id", d->pci_addr }, { "driver", d->driver },
        };
        pna_prom_u64(p, l, sizeof l / sizeof l[0], 1);
    }
    pna_prom_family(p, "primus_rdma_device_ports", PNA_PROM_GAUGE,
                    "Ports of the RDMA device (primusRdmaPortCount).");
    for (size_t i = 0; i < m->n_devices; i++) {
        const struct pna_prom_label l[] = { { "device", m->devices[i].name } };
        pna_prom_u64(p, l, 1, m->devices[i].n_ports);
    }
}

/* primusIbPortCounterSource's labels: the widest source any counter came from. */
static const char *counter_source(const struct pna_ib_port *port)
{
    bool ext = false;
    for (int c = 0; c < PNA_IBC_COUNT; c++) {
        if (!port->counters[c].present)
            continue;
        if (port->counters[c].from_pma)
            return "pmaExtended";
        ext |= port->counters[c].from_ext;
    }
    return ext ? "sysfsExt64" : "sysfs";
}

/* One gauge family with a sample for every port that has the value: VALUE
 * returns false where the port lacks it (absent, never a made-up 0). */
typedef bool (*port_value_fn)(const struct pna_ib_port *port, uint64_t *v);

static void port_gauge(struct pna_prom *p, const struct pna_ib_model *m, const char *name,
                       const char *help, port_value_fn value)
{
    pna_prom_family(p, name, PNA_PROM_GAUGE, help);
    FOR_EACH_PORT(m, d, port) {
        uint64_t v;
        if (!value(port, &v))
            continue;
        struct port_labels pl;
        port_labels(&pl, d, port);
        pna_prom_u64(p, pl.l, 2, v);
    }
}

static bool port_state_value(const struct pna_ib_port *port, uint64_t *v)
{
    *v = (uint64_t)port->state;
    return port->has_state;
}

static bool port_phys_state_value(const struct pna_ib_port *port, uint64_t *v)
{
    *v = (uint64_t)port->phys_state;
    return port->has_phys_state;
}

static bool port_width_value(const struct pna_ib_port *port, uint64_t *v)
{
    *v = port->width;
    return port->width != 0;
}

static bool port_rate_value(const struct pna_ib_port *port, uint64_t *v)
{
    *v = (uint64_t)port->rate_mbps * 125000u; /* Mb/s to bytes/s */
    return port->rate_mbps != 0;
}

static bool port_active_mtu_value(const struct pna_ib_port *port, uint64_t *v)
{
    *v = port->active_mtu;
    return port->active_mtu != 0;
}

static bool port_max_mtu_value(const struct pna_ib_port *port, uint64_t *v)
{
    *v = port->max_mtu;
    return port->max_mtu != 0;
}

static bool port_lid_value(const struct pna_ib_port *port, uint64_t *v)
{
    *v = port->lid;
    return port->has_lid;
}

static bool port_sm_lid_value(const struct pna_ib_port *port, uint64_t *v)
{
    *v = port->sm_lid;
    return port->has_sm_lid;
}

static void port_state(struct pna_prom *p, const struct pna_ib_model *m)
{
    pna_prom_family(p, "primus_ib_port_info", PNA_PROM_GAUGE,
                    "One series per port: link layer, netdev and its ifIndex (RoCE), GID 0, rate "
                    "text and counter source; always 1 (primusIbPortTable).");
    FOR_EACH_PORT(m, d, port) {
        struct port_labels pl;
        port_labels(&pl, d, port);
        char ifindex[16] = "";
        if (port->ifindex > 0)
            snprintf(ifindex, sizeof ifindex, "%d", (int)port->ifindex);
        const struct pna_prom_label l[] = {
            pl.l[0], pl.l[1], { "link_layer", port->link_layer }, { "netdev", port->netdev },
            { "if_index", ifindex }, { "gid", port->gid0 }, { "rate", port->rate_text },
            { "counter_source", counter_source(port) },
        };
        pna_prom_u64(p, l, sizeof l / sizeof l[0], 1);
    }
    port_gauge(p, m, "primus_ib_port_state",
               "Logical port state: 1 down, 2 init, 3 armed, 4 active, 5 activeDefer "
               "(primusIbPortState).", port_state_value);
    port_gauge(p, m, "primus_ib_port_phys_state",
               "Physical port state: 1 sleep, 2 polling, 3 disabled, 4 training, 5 linkUp, "
               "6 linkErrorRecovery, 7 phyTest (primusIbPortPhysState).", port_phys_state_value);
    port_gauge(p, m, "primus_ib_port_link_width", "Link width in lanes (primusIbPortWidth).",
               port_width_value);
    port_gauge(p, m, "primus_ib_port_rate_bytes_per_second",
               "Link rate per direction (primusIbPortRate, Mb/s, x 125000).", port_rate_value);
    port_gauge(p, m, "primus_ib_port_active_mtu_bytes",
               "The port's active MTU, from libibverbs (primusIbPortActiveMtu).",
               port_active_mtu_value);
    port_gauge(p, m, "primus_ib_port_max_mtu_bytes",
               "The largest MTU the port supports, from libibverbs (primusIbPortMaxMtu).",
               port_max_mtu_value);
    port_gauge(p, m, "primus_ib_port_lid", "The port's LID (primusIbPortLid).", port_lid_value);
    port_gauge(p, m, "primus_ib_port_sm_lid", "The subnet manager's LID (primusIbPortSmLid).",
               port_sm_lid_value);
}

static void port_counters_all(struct pna_prom *p, const struct pna_ib_model *m)
{
    for (int c = 0; c < PNA_IBC_COUNT; c++) {
        if (!port_counters[c].name)
            continue;
        pna_prom_family(p, port_counters[c].name, PNA_PROM_COUNTER, port_counters[c].help);
        FOR_EACH_PORT(m, d, port) {
            if (!port->counters[c].present)
                continue;
            struct port_labels pl;
            port_labels(&pl, d, port);
            pna_prom_u64(p, pl.l, 2, port->counters[c].value);
        }
    }
    pna_prom_family(p, "primus_ib_port_saturated", PNA_PROM_GAUGE,
                    "1 for a port counter stopped at the maximum of its hardware width (IB PMA "
                    "error counters saturate, they do not wrap), named in the counter label; "
                    "absent otherwise (primusIbPortSaturated).");
    FOR_EACH_PORT(m, d, port) {
        for (int c = 0; c < PNA_IBC_COUNT; c++) {
            if (!port->counters[c].present || !port->counters[c].saturated || !port_counters[c].name)
                continue;
            struct port_labels pl;
            port_labels(&pl, d, port);
            const struct pna_prom_label l[] = { pl.l[0], pl.l[1],
                                                { "counter", pna_ib_counter_descs[c].file } };
            pna_prom_u64(p, l, 3, 1);
        }
    }
}

enum rate_metric { RM_RX, RM_TX, RM_RX_UTIL, RM_TX_UTIL, RM_ERRORS, RM_INTERVAL, RM_COUNT };

static const struct {
    const char *name;
    const char *help;
} rate_metrics[RM_COUNT] = {
    [RM_RX] = { "primus_ib_port_receive_bytes_per_second",
                "Bytes received per second over the last poll interval (primusIbPortRxBytesPerSec)." },
    [RM_TX] = { "primus_ib_port_transmit_bytes_per_second",
                "Bytes transmitted per second over the last poll interval "
                "(primusIbPortTxBytesPerSec)." },
    [RM_RX_UTIL] = { "primus_ib_port_receive_utilization_ratio",
                     "Receive rate as a share of the link rate, 0..1 (primusIbPortRxUtilization)." },
    [RM_TX_UTIL] = { "primus_ib_port_transmit_utilization_ratio",
                     "Transmit rate as a share of the link rate, 0..1 (primusIbPortTxUtilization)." },
    [RM_ERRORS] = { "primus_ib_port_errors_per_second",
                    "Port errors per second over the last poll interval (primusIbPortErrorRate / 100)." },
    [RM_INTERVAL] = { "primus_ib_port_rate_interval_seconds",
                      "The interval the per-second figures were computed over "
                      "(primusIbPortRateInterval)." },
};

static void port_rates(struct pna_prom *p, const struct pna_ib_model *m)
{
    for (int r = 0; r < RM_COUNT; r++) {
        pna_prom_family(p, rate_metrics[r].name, PNA_PROM_GAUGE, rate_metrics[r].help);
        FOR_EACH_PORT(m, d, port) {
            const struct pna_ib_rates *rt = &port->rates;
            if (!rt->valid)
                continue;
            struct port_labels pl;
            port_labels(&pl, d, port);
            switch ((enum rate_metric)r) {
            case RM_RX: pna_prom_u64(p, pl.l, 2, rt->rx_bytes_per_s); break;
            case RM_TX: pna_prom_u64(p, pl.l, 2, rt->tx_bytes_per_s); break;
            case RM_RX_UTIL: pna_prom_fixed(p, pl.l, 2, rt->rx_util_cpct, 4); break;
            case RM_TX_UTIL: pna_prom_fixed(p, pl.l, 2, rt->tx_util_cpct, 4); break;
            case RM_ERRORS: pna_prom_fixed(p, pl.l, 2, (int64_t)rt->error_rate_cps, 2); break;
            case RM_INTERVAL: pna_prom_fixed(p, pl.l, 2, rt->interval_ms, 3); break;
            case RM_COUNT: break;
            }
        }
    }
}

/* primus_roce_<counter>_total; "roce_adp_retrans" becomes primus_roce_adp_retrans_total. */
static void roce_congestion(struct pna_prom *p, const struct pna_ib_model *m)
{
    for (int c = 0; c < PNA_CC_COUNT; c++) {
        const char *cc = pna_roce_cc_names[c];
        if (!cc)
            continue;
        char name[PNA_PROM_NAME_MAX], help[160];
        char suffix[96];
        snprintf(suffix, sizeof suffix, "%s_total", strncmp(cc, "roce_", 5) == 0 ? cc + 5 : cc);
        pna_prom_name_join(name, sizeof name, "primus_roce_", suffix);
        snprintf(help, sizeof help,
                 "RoCE congestion or retransmission counter %s of the port (primusRoceCongTable).",
                 cc);
        pna_prom_family(p, name, PNA_PROM_COUNTER, help);
        FOR_EACH_PORT(m, d, port) {
            if (!port->cc[c].present)
                continue;
            struct port_labels pl;
            port_labels(&pl, d, port);
            pna_prom_u64(p, pl.l, 2, port->cc[c].value);
        }
    }
}

static void hw_counter_table(struct pna_prom *p, const struct pna_ib_model *m)
{
    pna_prom_family(p, "primus_rdma_hw_stat_total", PNA_PROM_COUNTER,
                    "Every hw_counters entry of every RDMA device (port 0) and port under the "
                    "driver's name, 32-bit wrapping ones widened to 64 bits "
                    "(primusHwCounterTable; \"counter\" in the name is refused by the linter).");
    for (const struct pna_ib_device *d = m->devices; d < m->devices + m->n_devices; d++) {
        for (size_t k = 0; k < d->n_hw; k++) {
            const struct pna_prom_label l[] = { { "device", d->name }, { "port", "0" },
                                                { "counter", d->hw[k].name } };
            pna_prom_u64(p, l, 3, d->hw[k].value);
        }
        for (const struct pna_ib_port *port = d->ports; port < d->ports + d->n_ports; port++) {
            struct port_labels pl;
            port_labels(&pl, d, port);
            for (size_t k = 0; k < port->n_hw; k++) {
                const struct pna_prom_label l[] = { pl.l[0], pl.l[1], { "counter", port->hw[k].name } };
                pna_prom_u64(p, l, 3, port->hw[k].value);
            }
        }
    }
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The node exporter made one family per counter name (rdma_stat_<name>) from
 * `rdma statistic show`, which lists the ports' hw_counters.  Families must not
 * interleave, so the distinct names are collected first. */
static void seed_rdma_stat(struct pna_prom *p, const struct pna_ib_model *m)
{
    size_t total = 0;
    FOR_EACH_PORT(m, d, port)
        total += port->n_hw;
    if (!total)
        return;
    const char **names = malloc(total * sizeof *names);
    if (!names) {
        p->out->failed = true;
        return;
    }
    size_t n = 0;
    FOR_EACH_PORT(m, d, port)
        for (size_t k = 0; k < port->n_hw; k++)
            names[n++] = port->hw[k].name;
    qsort(names, n, sizeof *names, cmp_str);
    for (size_t i = 0; i < n; i++) {
        if (i > 0 && strcmp(names[i], names[i - 1]) == 0)
            continue;
        char name[PNA_PROM_NAME_MAX];
        pna_prom_name_join(name, sizeof name, "rdma_stat_", names[i]);
        pna_prom_family(p, name, PNA_PROM_UNTYPED, "RDMA statistic from rdma statistic show");
        FOR_EACH_PORT(m, d, port) {
            const struct pna_hw_counter *h = pna_ib_find_hw(port->hw, port->n_hw, names[i]);
            if (!h)
                continue;
            struct port_labels pl;
            port_labels(&pl, d, port);
            pna_prom_u64(p, pl.l, 2, h->value);
        }
    }
    free(names);
}

/* The RDMA stats exporter's congestion names (its label set is not documented;
 * device and port are used, as rdma_stat_* has them). */
static void seed_rdma_exporter(struct pna_prom *p, const struct pna_ib_model *m)
{
    static const struct {
        const char *name;
        int cc;                 /* index into port->cc, or -1 */
        const char *hw;         /* else this hw counter */
        const char *help;
    } seed[] = {
        { "rdma_ecn_marked_packets", PNA_CC_NP_ECN_MARKED_ROCE_PACKETS, NULL,
          "ECN-marked RoCE packets (np_ecn_marked_roce_packets)" },
        { "rdma_cnp_sent", PNA_CC_NP_CNP_SENT, NULL, "CNP packets sent (np_cnp_sent)" },
        { "rdma_cnp_handled", PNA_CC_RP_CNP_HANDLED, NULL, "CNP packets handled (rp_cnp_handled)" },
        { "rdma_rx_write_requests", -1, "rx_write_requests", "RDMA write requests received" },
        { "rdma_out_of_sequence", PNA_CC_OUT_OF_SEQUENCE, NULL, "Out-of-sequence packets received" },
    };
    for (size_t s = 0; s < sizeof seed / sizeof seed[0]; s++) {
        pna_prom_family(p, seed[s].name, PNA_PROM_UNTYPED, seed[s].help);
        FOR_EACH_PORT(m, d, port) {
            uint64_t value;
            if (seed[s].cc >= 0) {
                if (!port->cc[seed[s].cc].present)
                    continue;
                value = port->cc[seed[s].cc].value;
            } else {
                const struct pna_hw_counter *h = pna_ib_find_hw(port->hw, port->n_hw, seed[s].hw);
                if (!h)
                    continue;
                value = h->value;
            }
            struct port_labels pl;
            port_labels(&pl, d, port);
            pna_prom_u64(p, pl.l, 2, value);
        }
    }
}

void pna_metrics_rdma(struct pna_prom *p, const struct pna_http_view *v)
{
    if (!v->ib)
        return;
    devices(p, v->ib);
    port_state(p, v->ib);
    port_counters_all(p, v->ib);
    port_rates(p, v->ib);
    roce_congestion(p, v->ib);
    hw_counter_table(p, v->ib);
    seed_rdma_stat(p, v->ib);
    seed_rdma_exporter(p, v->ib);
}
