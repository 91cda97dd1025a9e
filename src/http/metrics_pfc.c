/* http/metrics_pfc.c -- /metrics for pause and PFC (primusPfc: the pause,
 * per-priority PFC and generic ethtool statistic tables) of every watched
 * interface, from the kernel's ethtool statistics as the collector mapped them.
 *
 * Series carry interface ("ens1f0np0") and, per priority, priority ("0".."7").
 * Durations are microseconds in the model and seconds here.  A counter the
 * driver does not offer is absent. */
#include "pna_autoconf.h"
#include "model/pfc.h"
#include "http/render.h"

#include <stdio.h>

static const struct {
    const char *name;
    bool usec;          /* microseconds in the model: served as seconds */
    const char *help;
} if_fields[PNA_PFC_IF_COUNT] = {
    [PNA_PFC_RX_PAUSE] = { "primus_pause_rx_frames_total", false,
                           "Global (802.3x) pause frames received (primusPauseRxFrames)." },
    [PNA_PFC_RX_PAUSE_DURATION_US] = { "primus_pause_rx_duration_seconds_total", true,
                                       "Time the link partner held this port's transmitter paused "
                                       "(primusPauseRxDuration)." },
    [PNA_PFC_RX_PAUSE_TRANSITION] = { "primus_pause_rx_transitions_total", false,
                                      "Transitions into the paused state (primusPauseRxTransitions)." },
    [PNA_PFC_TX_PAUSE] = { "primus_pause_tx_frames_total", false,
                           "Global pause frames sent (primusPauseTxFrames)." },
    [PNA_PFC_TX_PAUSE_DURATION_US] = { "primus_pause_tx_duration_seconds_total", true,
                                       "Time this port asked its link partner to pause "
                                       "(primusPauseTxDuration)." },
    [PNA_PFC_RX_PAUSE_CTRL_PHY] = { "primus_pause_rx_ctrl_phy_frames_total", false,
                                    "All link-level pause frames received, global and PFC "
                                    "(mlx5 rx_pause_ctrl_phy)." },
    [PNA_PFC_TX_PAUSE_CTRL_PHY] = { "primus_pause_tx_ctrl_phy_frames_total", false,
                                    "All link-level pause frames sent, global and PFC "
                                    "(mlx5 tx_pause_ctrl_phy)." },
    [PNA_PFC_RX_PFC_FRAMES] = { "primus_pause_rx_pfc_frames_total", false,
                                "PFC frames received, all priorities together." },
    [PNA_PFC_TX_PFC_FRAMES] = { "primus_pause_tx_pfc_frames_total", false,
                                "PFC frames sent, all priorities together." },
    [PNA_PFC_STORM_WARNING_EVENTS] = { "primus_pause_storm_warning_events_total", false,
                                       "Pause sent past the device's warning threshold "
                                       "(primusPauseStormWarnings)." },
    [PNA_PFC_STORM_ERROR_EVENTS] = { "primus_pause_storm_error_events_total", false,
                                     "Pause-storm protection stopped sending pause frames "
                                     "(primusPauseStormErrors)." },
    [PNA_PFC_RX_DISCARDS_PHY] = { "primus_pause_rx_discards_phy_packets_total", false,
                                  "Received packets the physical port discarded "
                                  "(primusPauseRxDiscardsPhy)." },
    [PNA_PFC_TX_DISCARDS_PHY] = { "primus_pause_tx_discards_phy_packets_total", false,
                                  "Packets the physical port discarded on transmit." },
    [PNA_PFC_RX_OUT_OF_BUFFER] = { "primus_pause_rx_out_of_buffer_packets_total", false,
                                   "Packets dropped for lack of receive buffers." },
};

static const struct {
    const char *name;
    bool usec;
    const char *help;
} prio_fields[PNA_PFCP_COUNT] = {
    [PNA_PFCP_RX_PAUSE] = { "primus_pfc_rx_frames_total", false,
                            "PFC pause frames received for the priority (primusPfcRxFrames)." },
    [PNA_PFCP_RX_PAUSE_DURATION_US] = { "primus_pfc_rx_duration_seconds_total", true,
                                        "Time the priority was paused by the link partner "
                                        "(primusPfcRxDuration)." },
    [PNA_PFCP_RX_PAUSE_TRANSITION] = { "primus_pfc_rx_transitions_total", false,
                                       "Transitions of the priority into the paused state "
                                       "(primusPfcRxTransitions)." },
    [PNA_PFCP_TX_PAUSE] = { "primus_pfc_tx_frames_total", false,
                            "PFC pause frames sent for the priority (primusPfcTxFrames)." },
    [PNA_PFCP_TX_PAUSE_DURATION_US] = { "primus_pfc_tx_duration_seconds_total", true,
                                        "Time this port asked the link partner to pause the "
                                        "priority (primusPfcTxDuration)." },
    [PNA_PFCP_RX_BYTES] = { "primus_pfc_rx_bytes_total", false, "Bytes received on the priority." },
    [PNA_PFCP_RX_PACKETS] = { "primus_pfc_rx_packets_total", false,
                              "Packets received on the priority." },
    [PNA_PFCP_TX_BYTES] = { "primus_pfc_tx_bytes_total", false, "Bytes sent on the priority." },
    [PNA_PFCP_TX_PACKETS] = { "primus_pfc_tx_packets_total", false, "Packets sent on the priority." },
    [PNA_PFCP_RX_DISCARDS] = { "primus_pfc_rx_discards_total", false,
                               "Packets of the priority discarded on receive." },
};

static void write_counter(struct pna_prom *p, const struct pna_prom_label *l, size_t n,
                          const struct pna_counter *c, bool usec)
{
    if (usec)
        pna_prom_fixed(p, l, n, (int64_t)(c->value > INT64_MAX ? INT64_MAX : c->value), 6);
    else
        pna_prom_u64(p, l, n, c->value);
}

static void interfaces(struct pna_prom *p, const struct pna_pfc_model *m)
{
    pna_prom_family(p, "primus_pfc_interface_info", PNA_PROM_GAUGE,
                    "One series per watched interface: driver, ifIndex and the RDMA device and "
                    "port using it; always 1 (primusPauseTable identity columns).");
    for (size_t i = 0; i < m->n_ifs; i++) {
        const struct pna_pfc_if *pif = &m->ifs[i];
        char ifindex[16] = "", port[16] = "";
        if (pif->ifindex > 0)
            snprintf(ifindex, sizeof ifindex, "%d", (int)pif->ifindex);
        if (pif->rdma_device[0])
            snprintf(port, sizeof port, "%u", (unsigned)pif->rdma_port);
        const struct pna_prom_label l[] = {
            { "interface", pif->ifname }, { "driver", pif->driver }, { "if_index", ifindex },
            { "rdma_device", pif->rdma_device }, { "rdma_port", port },
        };
        pna_prom_u64(p, l, 5, 1);
    }
    for (int f = 0; f < PNA_PFC_IF_COUNT; f++) {
        if (!if_fields[f].name)
            continue;
        pna_prom_family(p, if_fields[f].name, PNA_PROM_COUNTER, if_fields[f].help);
        for (size_t i = 0; i < m->n_ifs; i++) {
            if (!m->ifs[i].f[f].present)
                continue;
            const struct pna_prom_label l[] = { { "interface", m->ifs[i].ifname } };
            write_counter(p, l, 1, &m->ifs[i].f[f], if_fields[f].usec);
        }
    }
}

static void interface_rates(struct pna_prom *p, const struct pna_pfc_model *m)
{
    pna_prom_family(p, "primus_pause_rx_frames_per_second", PNA_PROM_GAUGE,
                    "Pause frames received per second over the last poll interval, global and "
                    "PFC together (primusPauseRxRate).");
    for (size_t i = 0; i < m->n_ifs; i++) {
        const struct pna_prom_label l[] = { { "interface", m->ifs[i].ifname } };
        if (m->ifs[i].rates_valid)
            pna_prom_u64(p, l, 1, m->ifs[i].rx_pause_per_s);
    }
    pna_prom_family(p, "primus_pause_tx_frames_per_second", PNA_PROM_GAUGE,
                    "Pause frames sent per second over the last poll interval, global and PFC "
                    "together (primusPauseTxRate).");
    for (size_t i = 0; i < m->n_ifs; i++) {
        const struct pna_prom_label l[] = { { "interface", m->ifs[i].ifname } };
        if (m->ifs[i].rates_valid)
            pna_prom_u64(p, l, 1, m->ifs[i].tx_pause_per_s);
    }
    pna_prom_family(p, "primus_pause_storm", PNA_PROM_GAUGE,
                    "1 when the last poll interval saw a pause storm on the interface (rate "
                    "above the configured threshold, or storm events), else 0.");
    for (size_t i = 0; i < m->n_ifs; i++) {
        const struct pna_prom_label l[] = { { "interface", m->ifs[i].ifname } };
        if (m->ifs[i].rates_valid)
            pna_prom_u64(p, l, 1, m->ifs[i].storm ? 1 : 0);
    }
}

/* A priority has a row when its driver offers any of its counters. */
static bool prio_present(const struct pna_pfc_if *pif, int prio)
{
    for (int f = 0; f < PNA_PFCP_COUNT; f++)
        if (pif->prio[prio][f].present)
            return true;
    return false;
}

static void priorities(struct pna_prom *p, const struct pna_pfc_model *m)
{
    static const char *const prio_text[PNA_PFC_PRIOS] = { "0", "1", "2", "3", "4", "5", "6", "7" };
    for (int f = 0; f < PNA_PFCP_COUNT; f++) {
        if (!prio_fields[f].name)
            continue;
        pna_prom_family(p, prio_fields[f].name, PNA_PROM_COUNTER, prio_fields[f].help);
        for (size_t i = 0; i < m->n_ifs; i++) {
            for (int q = 0; q < PNA_PFC_PRIOS; q++) {
                if (!m->ifs[i].prio[q][f].present)
                    continue;
                const struct pna_prom_label l[] = { { "interface", m->ifs[i].ifname },
                                                    { "priority", prio_text[q] } };
                write_counter(p, l, 2, &m->ifs[i].prio[q][f], prio_fields[f].usec);
            }
        }
    }
    for (int dir = 0; dir < 2; dir++) {
        pna_prom_family(p, dir ? "primus_pfc_tx_frames_per_second" : "primus_pfc_rx_frames_per_second",
                        PNA_PROM_GAUGE,
                        dir ? "PFC pause frames sent per second for the priority over the last "
                              "poll interval (primusPfcTxRate)."
                            : "PFC pause frames received per second for the priority over the "
                              "last poll interval (primusPfcRxRate).");
        for (size_t i = 0; i < m->n_ifs; i++) {
            const struct pna_pfc_if *pif = &m->ifs[i];
            if (!pif->rates_valid)
                continue;
            for (int q = 0; q < PNA_PFC_PRIOS; q++) {
                if (!prio_present(pif, q))
                    continue;
                const struct pna_prom_label l[] = { { "interface", pif->ifname },
                                                    { "priority", prio_text[q] } };
                pna_prom_u64(p, l, 2, dir ? pif->prio_tx_pause_per_s[q] : pif->prio_rx_pause_per_s[q]);
            }
        }
    }
}

/* The statistics the named columns do not map, under the driver's names. */
static void other_statistics(struct pna_prom *p, const struct pna_pfc_model *m)
{
    pna_prom_family(p, "primus_ethtool_statistic_total", PNA_PROM_COUNTER,
                    "Every other ethtool statistic of the watched interfaces, under the "
                    "driver's name (primusEthtoolCounterTable).");
    for (size_t i = 0; i < m->n_ifs; i++) {
        const struct pna_pfc_if *pif = &m->ifs[i];
        for (size_t k = 0; k < pif->n_stats; k++) {
            if (pif->stats[k].map_kind != 0)
                continue;
            const struct pna_prom_label l[] = { { "interface", pif->ifname },
                                                { "statistic", pif->stats[k].name } };
            pna_prom_u64(p, l, 2, pif->stats[k].value);
        }
    }
}

void pna_metrics_pfc(struct pna_prom *p, const struct pna_http_view *v)
{
    if (!v->pfc)
        return;
    interfaces(p, v->pfc);
    interface_rates(p, v->pfc);
    priorities(p, v->pfc);
    other_statistics(p, v->pfc);
}
