/* model/pfc_metrics.c -- the served values of the pause/PFC domain (primusPfc):
 * primusPauseTable, primusPfcTable and primusEthtoolCounterTable, one
 * descriptor per value (see metric.h, pfc.h).
 *
 * Which counter is which, per driver (the why is in docs/rdma.md):
 *  - primusPauseRxFrames/TxFrames are ALL link-level pause frames, global
 *    (802.3x) and per-priority (802.1Qbb) together: mlx5's physical-port
 *    rx/tx_pause_ctrl_phy, else the driver's global count plus its PFC count
 *    (ionic frames_rx_pause + frames_rx_pripause, or the sum over priorities).
 *    primusPauseRxRate is their rate, and pause storms are judged on it.
 *  - A driver statistic that a named column serves as it is (one counter, one
 *    column) is not repeated in primusEthtoolCounterTable; one that only
 *    enters a sum (ionic's global frames_rx_pause, mlx5's rx_global_pause
 *    next to rx_pause_ctrl_phy) stays there under its own name. */
#include "pna_autoconf.h"
#include "model/metric_tables.h"

#include <string.h>

#include "model/ib.h"
#include "model/metric.h"
#include "model/oids.h"
#include "model/pfc.h"

static const struct pna_pfc_model *pfc_model(const struct pna_view *v)
{
    const struct pna_pfc_snap *s = pna_view_snap(v, PNA_DOM_PFC);
    return s ? &s->model : NULL;
}

/* primusPfcIfName is SIZE (1..15): a longer name cannot index a row. */
static bool ifname_ok(const char *name)
{
    size_t n = strlen(name);
    return n >= 1 && n <= PNA_MAX_PFC_IF_NAME_LEN;
}

static const struct pna_pfc_if *pause_if(const struct pna_row *r)
{
    return r->rec;
}

/* ---- primusPauseTable ------------------------------------------------------- */

size_t pna_pfc_if_rows(const struct pna_view *v)
{
    const struct pna_pfc_model *m = pfc_model(v);
    return m ? m->n_ifs : 0;
}

bool pna_pfc_if_row(const struct pna_view *v, size_t i, struct pna_row *out)
{
    const struct pna_pfc_if *pif = &pfc_model(v)->ifs[i];
    out->rec = pif;
    return ifname_ok(pif->ifname);
}

/* InterfaceIndexOrZero: 0 when the interface's index is not known. */
static void get_if_index(const struct pna_row *r, struct pna_value *out)
{
    int32_t ifindex = pause_if(r)->ifindex;
    if (ifindex > 0)
        pna_value_i64(out, ifindex);
    else
        pna_value_none(out);
}

/* The RDMA port whose netdev IFNAME is: joined when the answer is built,
 * from view V's IB snapshot (as every join is). */
static bool rdma_port_of(const struct pna_view *v, const char *ifname,
                         const struct pna_ib_device **d, const struct pna_ib_port **p)
{
    const struct pna_ib_snap *ib = pna_view_snap(v, PNA_DOM_IB);
    return ib && pna_ib_find_netdev(&ib->model, ifname, d, p);
}

void pna_netdev_rdma_device(const struct pna_view *v, const char *ifname, struct pna_value *out)
{
    const struct pna_ib_device *d;
    const struct pna_ib_port *p;
    pna_value_text(out, rdma_port_of(v, ifname, &d, &p) ? d->name : "");
}

void pna_netdev_rdma_port(const struct pna_view *v, const char *ifname, struct pna_value *out)
{
    const struct pna_ib_device *d;
    const struct pna_ib_port *p;
    if (rdma_port_of(v, ifname, &d, &p))
        pna_value_u64(out, p->num);
    else
        pna_value_none(out);
}

void pna_pfc_get_rdma_device(const struct pna_row *r, struct pna_value *out)
{
    pna_netdev_rdma_device(r->view, pause_if(r)->ifname, out);
}

void pna_pfc_get_rdma_port(const struct pna_row *r, struct pna_value *out)
{
    pna_netdev_rdma_port(r->view, pause_if(r)->ifname, out);
}

static void pause_frames(const struct pna_row *r, bool tx, struct pna_value *out)
{
    uint64_t frames;
    if (pna_pfc_pause_frames(pause_if(r), tx, &frames) != PNA_PAUSE_FROM_NONE)
        pna_value_u64(out, frames);
}

static void get_rx_frames(const struct pna_row *r, struct pna_value *out)
{
    pause_frames(r, false, out);
}

static void get_tx_frames(const struct pna_row *r, struct pna_value *out)
{
    pause_frames(r, true, out);
}

/* No known driver counts transitions into pausing the partner. */
static void get_absent(const struct pna_row *r, struct pna_value *out)
{
    (void)r;
    (void)out;
}

/* The rate of primusPauseRx/TxFrames over the last interval. */
static void pause_rate(const struct pna_row *r, bool tx, struct pna_value *out)
{
    const struct pna_pfc_if *pif = pause_if(r);
    uint64_t frames;
    if (pif->rates_valid && pna_pfc_pause_frames(pif, tx, &frames) != PNA_PAUSE_FROM_NONE)
        pna_value_u64(out, tx ? pif->tx_pause_per_s : pif->rx_pause_per_s);
}

static void get_rx_rate(const struct pna_row *r, struct pna_value *out)
{
    pause_rate(r, false, out);
}

static void get_tx_rate(const struct pna_row *r, struct pna_value *out)
{
    pause_rate(r, true, out);
}

static void get_storm(const struct pna_row *r, struct pna_value *out)
{
    if (pause_if(r)->rates_valid)
        pna_value_u64(out, pause_if(r)->storm ? 1 : 0);
}

#define IF_COUNTER(field) PNA_FIELD(struct pna_pfc_if, f[field])
#define C64 PNA_SYNTAX_COUNTER64
#define COUNTER PNA_FAMILY_COUNTER
#define GAUGE PNA_FAMILY_GAUGE
#define US_TO_S PNA_SCALE_E(-6)

static const struct pna_metric pause_metrics[] = {
    { .column = 2, .object = "primusPauseIfIndex", .syntax = PNA_SYNTAX_INTEGER, .get = get_if_index,
      .label = "if_index" },
    { .column = 3, .object = "primusPauseRdmaDevice", .syntax = PNA_SYNTAX_TEXT,
      .get = pna_pfc_get_rdma_device,
      .label = "rdma_device" },
    { .column = 4, .object = "primusPauseRdmaPort", .syntax = PNA_SYNTAX_UNSIGNED, .max = 255,
      .get = pna_pfc_get_rdma_port, .label = "rdma_port" },
    { .column = 5, .object = "primusPauseDriver", .syntax = PNA_SYNTAX_TEXT,
      .field = PNA_FIELD(struct pna_pfc_if, driver), .label = "driver" },
    { .column = 6, .object = "primusPauseRxFrames", .syntax = C64, .get = get_rx_frames,
      .family = "primus_pause_rx_frames_total", .type = COUNTER,
      .help = "Link-level pause frames received, global and PFC together (mlx5 rx_pause_ctrl_phy)" },
    { .column = 7, .object = "primusPauseTxFrames", .syntax = C64, .get = get_tx_frames,
      .family = "primus_pause_tx_frames_total", .type = COUNTER,
      .help = "Link-level pause frames sent, global and PFC together (mlx5 tx_pause_ctrl_phy)" },
    { .column = 8, .object = "primusPauseRxDuration", .syntax = C64,
      .field = IF_COUNTER(PNA_PFC_RX_PAUSE_DURATION_US),
      .family = "primus_pause_rx_duration_seconds_total", .type = COUNTER, .scale = US_TO_S,
      .help = "Time the link partner held this port's transmitter paused" },
    { .column = 9, .object = "primusPauseTxDuration", .syntax = C64,
      .field = IF_COUNTER(PNA_PFC_TX_PAUSE_DURATION_US),
      .family = "primus_pause_tx_duration_seconds_total", .type = COUNTER, .scale = US_TO_S,
      .help = "Time this port asked its link partner to pause" },
    { .column = 10, .object = "primusPauseRxTransitions", .syntax = C64,
      .field = IF_COUNTER(PNA_PFC_RX_PAUSE_TRANSITION),
      .family = "primus_pause_rx_transitions_total", .type = COUNTER,
      .help = "Transitions into the paused state" },
    { .column = 11, .object = "primusPauseTxTransitions", .syntax = C64, .get = get_absent },
    { .column = 12, .object = "primusPauseStormWarnings", .syntax = C64,
      .field = IF_COUNTER(PNA_PFC_STORM_WARNING_EVENTS),
      .family = "primus_pause_storm_warning_events_total", .type = COUNTER,
      .help = "Pause sent past the device's warning threshold" },
    { .column = 13, .object = "primusPauseStormErrors", .syntax = C64,
      .field = IF_COUNTER(PNA_PFC_STORM_ERROR_EVENTS),
      .family = "primus_pause_storm_error_events_total", .type = COUNTER,
      .help = "Pause-storm protection stopped sending pause frames" },
    { .column = 14, .object = "primusPauseRxDiscardsPhy", .syntax = C64,
      .field = IF_COUNTER(PNA_PFC_RX_DISCARDS_PHY),
      .family = "primus_pause_rx_discards_phy_packets_total", .type = COUNTER,
      .help = "Received packets the physical port discarded for lack of buffers" },
    { .column = 15, .object = "primusPauseRxRate", .syntax = PNA_SYNTAX_UNSIGNED, .get = get_rx_rate,
      .family = "primus_pause_rx_frames_per_second", .type = GAUGE,
      .help = "Pause frames received per second over the last poll interval, global and PFC "
              "together" },
    { .column = 16, .object = "primusPauseTxRate", .syntax = PNA_SYNTAX_UNSIGNED, .get = get_tx_rate,
      .family = "primus_pause_tx_frames_per_second", .type = GAUGE,
      .help = "Pause frames sent per second over the last poll interval, global and PFC together" },
    { .column = 17, .object = "primusPauseTxDiscardsPhy", .syntax = C64,
      .field = IF_COUNTER(PNA_PFC_TX_DISCARDS_PHY),
      .family = "primus_pause_tx_discards_phy_packets_total", .type = COUNTER,
      .help = "Packets the physical port discarded on transmit" },
    { .column = 18, .object = "primusPauseRxOutOfBuffer", .syntax = C64,
      .field = IF_COUNTER(PNA_PFC_RX_OUT_OF_BUFFER),
      .family = "primus_pause_rx_out_of_buffer_packets_total", .type = COUNTER,
      .help = "Packets dropped for lack of receive buffers" },
    { .column = 19, .object = "primusPauseRxPfcFrames", .syntax = C64,
      .field = IF_COUNTER(PNA_PFC_RX_PFC_FRAMES),
      .family = "primus_pause_rx_pfc_frames_total", .type = COUNTER,
      .help = "PFC frames received, all priorities together, where the driver counts them so" },
    { .column = 20, .object = "primusPauseTxPfcFrames", .syntax = C64,
      .field = IF_COUNTER(PNA_PFC_TX_PFC_FRAMES),
      .family = "primus_pause_tx_pfc_frames_total", .type = COUNTER,
      .help = "PFC frames sent, all priorities together, where the driver counts them so" },
    { .get = get_storm, .family = "primus_pause_storm", .type = GAUGE,
      .help = "1 when the last poll interval saw a pause storm on the interface (the pause rate "
              "of the interface or of one priority above pauseStormThreshold, or the NIC's storm "
              "events rose), else 0" },
};

static const struct pna_key_part pause_key[] = { PNA_PFC_IF_KEY_PART(PNA_KEY_FROM_REC) };

const struct pna_metric_table pna_pause_metrics = {
    .object = "primusPauseTable",
    .kind = PNA_TABLE_ROWS,
    .domain = PNA_DOM_PFC,
    .view = PNA_VIEW_DOMAIN(PNA_DOM_PFC) | PNA_VIEW_DOMAIN(PNA_DOM_IB),
    PNA_TABLE_OID(PNA_OID_PFC, 10),
    PNA_KEY(pause_key),
    .metrics = pause_metrics,
    .count = sizeof pause_metrics / sizeof pause_metrics[0],
    .rows = pna_pfc_if_rows,
    .row = pna_pfc_if_row,
    .info_family = "primus_pfc_interface_info",
    .info_help = "One series per watched interface: driver, ifIndex and the RDMA device and port "
                 "using it; always 1",
};

/* ---- primusPfcTable --------------------------------------------------------- */

/* Rows: every interface times priorities 0-7.  REC is the priority's counter
 * array (pna_pfc_if.prio[p]), PARENT the interface, KEY_NUMBER the priority; a
 * priority the driver counts nothing for has no cells, so no row. */
static size_t pfc_rows(const struct pna_view *v)
{
    const struct pna_pfc_model *m = pfc_model(v);
    return m ? m->n_ifs * PNA_PFC_PRIOS : 0;
}

static bool pfc_row(const struct pna_view *v, size_t i, struct pna_row *out)
{
    const struct pna_pfc_if *pif = &pfc_model(v)->ifs[i / PNA_PFC_PRIOS];
    out->parent = pif;
    out->key_number = (uint32_t)(i % PNA_PFC_PRIOS);
    out->rec = pif->prio[out->key_number];
    return ifname_ok(pif->ifname) && pna_pfc_prio_counted(pif, (int)out->key_number);
}

/* Per-priority pause frames per second: present with the counter it is the rate of. */
static void prio_rate(const struct pna_row *r, int field, const uint64_t *rates,
                      struct pna_value *out)
{
    const struct pna_pfc_if *pif = r->parent;
    if (pif->rates_valid && pif->prio[r->key_number][field].present)
        pna_value_u64(out, rates[r->key_number]);
}

static void get_prio_rx_rate(const struct pna_row *r, struct pna_value *out)
{
    const struct pna_pfc_if *pif = r->parent;
    prio_rate(r, PNA_PFCP_RX_PAUSE, pif->prio_rx_pause_per_s, out);
}

static void get_prio_tx_rate(const struct pna_row *r, struct pna_value *out)
{
    const struct pna_pfc_if *pif = r->parent;
    prio_rate(r, PNA_PFCP_TX_PAUSE, pif->prio_tx_pause_per_s, out);
}

/* Counter FIELD of the priority's counter array. */
#define PRIO_COUNTER(field) \
    { PNA_FIELD_COUNTER, PNA_WHEN_ALWAYS, (field) * sizeof(struct pna_counter), 0 }

static const struct pna_metric pfc_metrics[] = {
    { .column = 2, .object = "primusPfcRxFrames", .syntax = C64, .field = PRIO_COUNTER(PNA_PFCP_RX_PAUSE),
      .family = "primus_pfc_rx_frames_total", .type = COUNTER,
      .help = "PFC pause frames received for the priority" },
    { .column = 3, .object = "primusPfcTxFrames", .syntax = C64, .field = PRIO_COUNTER(PNA_PFCP_TX_PAUSE),
      .family = "primus_pfc_tx_frames_total", .type = COUNTER,
      .help = "PFC pause frames sent for the priority" },
    { .column = 4, .object = "primusPfcRxDuration", .syntax = C64,
      .field = PRIO_COUNTER(PNA_PFCP_RX_PAUSE_DURATION_US),
      .family = "primus_pfc_rx_duration_seconds_total", .type = COUNTER, .scale = US_TO_S,
      .help = "Time the priority was paused by the link partner" },
    { .column = 5, .object = "primusPfcTxDuration", .syntax = C64,
      .field = PRIO_COUNTER(PNA_PFCP_TX_PAUSE_DURATION_US),
      .family = "primus_pfc_tx_duration_seconds_total", .type = COUNTER, .scale = US_TO_S,
      .help = "Time this port asked the link partner to pause the priority" },
    { .column = 6, .object = "primusPfcRxTransitions", .syntax = C64,
      .field = PRIO_COUNTER(PNA_PFCP_RX_PAUSE_TRANSITION),
      .family = "primus_pfc_rx_transitions_total", .type = COUNTER,
      .help = "Transitions of the priority into the paused state" },
    { .column = 7, .object = "primusPfcTxTransitions", .syntax = C64, .get = get_absent },
    { .column = 8, .object = "primusPfcRxRate", .syntax = PNA_SYNTAX_UNSIGNED, .get = get_prio_rx_rate,
      .family = "primus_pfc_rx_frames_per_second", .type = GAUGE,
      .help = "PFC pause frames received per second for the priority over the last poll interval" },
    { .column = 9, .object = "primusPfcTxRate", .syntax = PNA_SYNTAX_UNSIGNED, .get = get_prio_tx_rate,
      .family = "primus_pfc_tx_frames_per_second", .type = GAUGE,
      .help = "PFC pause frames sent per second for the priority over the last poll interval" },
    { .column = 10, .object = "primusPfcRxBytes", .syntax = C64, .field = PRIO_COUNTER(PNA_PFCP_RX_BYTES),
      .family = "primus_pfc_rx_bytes_total", .type = COUNTER, .help = "Bytes received on the priority" },
    { .column = 11, .object = "primusPfcRxPackets", .syntax = C64,
      .field = PRIO_COUNTER(PNA_PFCP_RX_PACKETS),
      .family = "primus_pfc_rx_packets_total", .type = COUNTER, .help = "Packets received on the priority" },
    { .column = 12, .object = "primusPfcTxBytes", .syntax = C64, .field = PRIO_COUNTER(PNA_PFCP_TX_BYTES),
      .family = "primus_pfc_tx_bytes_total", .type = COUNTER, .help = "Bytes sent on the priority" },
    { .column = 13, .object = "primusPfcTxPackets", .syntax = C64,
      .field = PRIO_COUNTER(PNA_PFCP_TX_PACKETS),
      .family = "primus_pfc_tx_packets_total", .type = COUNTER, .help = "Packets sent on the priority" },
    { .column = 14, .object = "primusPfcRxDiscards", .syntax = C64,
      .field = PRIO_COUNTER(PNA_PFCP_RX_DISCARDS),
      .family = "primus_pfc_rx_discards_total", .type = COUNTER,
      .help = "Packets of the priority discarded on receive for lack of buffers" },
};

/* The interface, then the priority. */
static const struct pna_key_part pfc_key[] = {
    PNA_PFC_IF_KEY_PART(PNA_KEY_FROM_PARENT),
    PNA_KEY_INDEX_NUMBER("primusPfcPriority", "priority"),
};

const struct pna_metric_table pna_pfc_metrics = {
    .object = "primusPfcTable",
    .kind = PNA_TABLE_ROWS,
    .domain = PNA_DOM_PFC,
    .view = PNA_VIEW_DOMAIN(PNA_DOM_PFC),
    PNA_TABLE_OID(PNA_OID_PFC, 20),
    PNA_KEY(pfc_key),
    .metrics = pfc_metrics,
    .count = sizeof pfc_metrics / sizeof pfc_metrics[0],
    .rows = pfc_rows,
    .row = pfc_row,
};

/* ---- primusEthtoolCounterTable ---------------------------------------------- */

/* Rows: every statistic of every interface, in the model's flat order.  REC
 * is the statistic, PARENT its interface.  A statistic a named column serves
 * has no row here. */
static size_t ethtool_rows(const struct pna_view *v)
{
    const struct pna_pfc_model *m = pfc_model(v);
    return m ? m->total_stats : 0;
}

static bool ethtool_row(const struct pna_view *v, size_t i, struct pna_row *out)
{
    const struct pna_pfc_if *pif;
    const struct pna_eth_stat *s;
    if (!pna_pfc_stat_at(pfc_model(v), i, &pif, &s))
        return false;
    out->rec = s;
    out->parent = pif;
    size_t n = strlen(s->name);
    return ifname_ok(pif->ifname) && n >= 1 && n <= PNA_MAX_ETHTOOL_COUNTER_NAME_LEN &&
           !pna_pfc_stat_has_column(pif, s);
}

static const struct pna_metric ethtool_metrics[] = {
    { .column = 2, .object = "primusEthtoolCounterValue", .syntax = C64,
      .field = PNA_FIELD(struct pna_eth_stat, value),
      .family = "primus_ethtool_statistic_total", .type = COUNTER,
      .help = "Every other ethtool statistic of the watched interfaces, under the driver's name" },
};

/* The interface, then the statistic's name as the driver spells it. */
static const struct pna_key_part ethtool_key[] = {
    PNA_PFC_IF_KEY_PART(PNA_KEY_FROM_PARENT),
    PNA_KEY_INDEX_FIELD("primusEthtoolCounterName", "statistic", PNA_KEY_FROM_REC,
                        struct pna_eth_stat, name),
};

const struct pna_metric_table pna_ethtool_metrics = {
    .object = "primusEthtoolCounterTable",
    .kind = PNA_TABLE_ROWS,
    .domain = PNA_DOM_PFC,
    .view = PNA_VIEW_DOMAIN(PNA_DOM_PFC),
    PNA_TABLE_OID(PNA_OID_PFC, 30),
    PNA_KEY(ethtool_key),
    .metrics = ethtool_metrics,
    .count = sizeof ethtool_metrics / sizeof ethtool_metrics[0],
    .rows = ethtool_rows,
    .row = ethtool_row,
};
