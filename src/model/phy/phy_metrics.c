/* model/phy/phy_metrics.c -- the served values of the phy domain, one
 * descriptor per value (see model/metric.h, phy.h): primusPhyTable (per
 * interface: link state and why it is down, FEC, the 802.3 statistics
 * groups, the pre-FEC bit error rate), primusModuleTable (per interface
 * whose module was read: identity, temperature, voltage, the module's own
 * thresholds and levels) and primusModuleLaneTable (per module lane: bias,
 * TX and RX power). */
#include "pna_autoconf.h"
#include "model/metric_tables.h"

#include <stdio.h>
#include <string.h>

#include "model/metric.h"
#include "model/oids.h"
#include "model/phy/phy.h"

const struct pna_phy_model *pna_phy_view_model(const struct pna_view *v)
{
    const struct pna_phy_snap *s = pna_view_snap(v, PNA_DOM_PHY);
    return s ? &s->model : NULL;
}

bool pna_phy_ifname_ok(const char *name)
{
    size_t n = strlen(name);
    return n >= 1 && n <= PNA_MAX_PHY_IF_NAME_LEN;
}

static const struct pna_phy_if *phy_if(const struct pna_row *r)
{
    return r->rec;
}

/* ---- primusPhyTable --------------------------------------------------------- */

static size_t phy_rows(const struct pna_view *v)
{
    const struct pna_phy_model *m = pna_phy_view_model(v);
    return m ? m->n_ifs : 0;
}

static bool phy_row(const struct pna_view *v, size_t i, struct pna_row *out)
{
    const struct pna_phy_if *pif = &pna_phy_view_model(v)->ifs[i];
    out->rec = pif;
    return pna_phy_ifname_ok(pif->ifname);
}

static void get_rdma_device(const struct pna_row *r, struct pna_value *out)
{
    pna_netdev_rdma_device(r->view, phy_if(r)->ifname, out);
}

static void get_rdma_port(const struct pna_row *r, struct pna_value *out)
{
    pna_netdev_rdma_port(r->view, phy_if(r)->ifname, out);
}

static void get_link_up(const struct pna_row *r, struct pna_value *out)
{
    const struct pna_phy_link *l = &phy_if(r)->link;
    if (l->read && l->has_link)
        pna_value_u64(out, l->link ? 1 : 0);
}

/* enum ethtool_link_ext_state + 1, as PrimusLinkExtState numbers it. */
static const char *const ext_state_names[] = {
    [1] = "autoneg", [2] = "linkTrainingFailure", [3] = "linkLogicalMismatch",
    [4] = "badSignalIntegrity", [5] = "noCable", [6] = "cableIssue", [7] = "eepromIssue",
    [8] = "calibrationFailure", [9] = "powerBudgetExceeded", [10] = "overheat",
    [11] = "moduleIssue",
};
static const struct pna_enum ext_state_enum = PNA_ENUM(ext_state_names);

static void get_ext_state(const struct pna_row *r, struct pna_value *out)
{
    const struct pna_phy_link *l = &phy_if(r)->link;
    if (l->read && l->has_ext_state && l->ext_state >= 1 && l->ext_state <= 11)
        pna_value_i64(out, l->ext_state);
}

static void get_ext_substate(const struct pna_row *r, struct pna_value *out)
{
    const struct pna_phy_link *l = &phy_if(r)->link;
    if (l->read && l->has_ext_state && l->ext_substate)
        pna_value_u64(out, l->ext_substate);
}

static void get_down_reason(const struct pna_row *r, struct pna_value *out)
{
    const struct pna_phy_link *l = &phy_if(r)->link;
    if (!l->read)
        return;
    if (!l->has_ext_state || l->ext_state == 0) {
        pna_value_text(out, "");
        return;
    }
    char text[96];
    pna_value_printf(out, "%s", pna_link_down_reason(l->ext_state, l->ext_substate, text,
                                                     sizeof text));
}

static const char *const fec_names[] = {
    [PNA_FEC_OFF] = "off", [PNA_FEC_BASER] = "baser", [PNA_FEC_RS] = "rs",
    [PNA_FEC_LLRS] = "llrs", [PNA_FEC_OTHER] = "other",
};
static const struct pna_enum fec_enum = PNA_ENUM(fec_names);

static void get_fec_mode(const struct pna_row *r, struct pna_value *out)
{
    const struct pna_phy_fec *f = &phy_if(r)->fec;
    if (f->read && f->active != PNA_FEC_UNKNOWN)
        pna_value_i64(out, f->active);
}

static void get_fec_configured(const struct pna_row *r, struct pna_value *out)
{
    if (phy_if(r)->fec.read)
        pna_value_text(out, phy_if(r)->fec.configured);
}

/* "1.23e-08"; "0" when nothing was corrected in the interval. */
static void get_ber_text(const struct pna_row *r, struct pna_value *out)
{
    const struct pna_phy_if *p = phy_if(r);
    if (!p->ber_valid)
        return;
    if (p->ber_mantissa == 0)
        pna_value_text(out, "0");
    else
        pna_value_printf(out, "%u.%02ue%+03d", p->ber_mantissa / 100, p->ber_mantissa % 100,
                         p->ber_exponent + 2);
}

/* The same rate as a number for Prometheus: in units of 10^-18, the finest
 * a 64-bit integer scaled by 10^-18 carries (a rate below 10^-18 is 0). */
static void get_ber_e18(const struct pna_row *r, struct pna_value *out)
{
    const struct pna_phy_if *p = phy_if(r);
    if (!p->ber_valid)
        return;
    int e = p->ber_exponent + 18;
    uint64_t v = 0;
    if (p->ber_mantissa && e >= 0 && e <= 16)
        v = p->ber_mantissa * pna_pow10((unsigned)e);
    pna_value_u64(out, v);
}

#define TEXT PNA_SYNTAX_TEXT
#define U32 PNA_SYNTAX_UNSIGNED
#define INT PNA_SYNTAX_INTEGER
#define C64 PNA_SYNTAX_COUNTER64
#define TRUTH PNA_SYNTAX_TRUTH
#define GAUGE PNA_FAMILY_GAUGE
#define COUNTER PNA_FAMILY_COUNTER
#define PHY_COUNTER(col, obj, which, fam, js, text)                                              \
    { .column = (col), .object = (obj), .syntax = C64,                                         \
      .field = PNA_FIELD(struct pna_phy_if, c[which]), .family = (fam), .type = COUNTER,      \
      .json = (js), .help = (text) }

static const struct pna_metric phy_metrics[] = {
    { .column = 2, .object = "primusPhyRdmaDevice", .syntax = TEXT, .get = get_rdma_device,
      .label = "rdma_device", .json = "rdma_device" },
    { .column = 3, .object = "primusPhyRdmaPort", .syntax = U32, .max = 255, .get = get_rdma_port,
      .label = "rdma_port", .json = "rdma_port" },
    { .column = 4, .object = "primusPhyLinkUp", .syntax = TRUTH, .get = get_link_up,
      .family = "primus_phy_link_up", .type = GAUGE,
      .json = "link_up", .help = "1 when the link is up, as ethtool netlink's link state says" },
    { .column = 5, .object = "primusPhyLinkDownReason", .syntax = TEXT, .get = get_down_reason,
      .label = "link_down_reason", .json = "link_down_reason" },
    { .column = 6, .object = "primusPhyLinkExtState", .syntax = INT, .get = get_ext_state,
      .enums = &ext_state_enum, .family = "primus_phy_link_ext_state", .type = PNA_FAMILY_STATE,
      .label = "state", .json = "link_ext_state",
      .help = "Why the link is down, as the driver says (extended link state); no series while "
              "the driver says nothing" },
    { .column = 7, .object = "primusPhyLinkExtSubstate", .syntax = U32, .max = 255,
      .get = get_ext_substate, .label = "link_ext_substate", .json = "link_ext_substate" },
    PHY_COUNTER(8, "primusPhyLinkDownEvents", PNA_PHY_LINK_DOWN_EVENTS,
                "primus_phy_link_down_events_total", "link_down_events",
                "Times the link went down, counted by the kernel (ethtool link-down events)"),
    { .column = 9, .object = "primusPhyFecMode", .syntax = INT, .get = get_fec_mode,
      .enums = &fec_enum, .label = "fec_mode", .json = "fec_mode" },
    { .column = 10, .object = "primusPhyFecAuto", .syntax = TRUTH,
      .field = PNA_FIELD_IF(struct pna_phy_if, fec.auto_, fec.read), .family = "primus_phy_fec_auto",
      .type = GAUGE, .json = "fec_auto",
      .help = "1 when the driver picks the FEC mode itself" },
    { .column = 11, .object = "primusPhyFecConfigured", .syntax = TEXT, .get = get_fec_configured,
      .label = "fec_configured", .json = "fec_configured" },
    PHY_COUNTER(12, "primusPhyFecCorrectedBlocks", PNA_PHY_FEC_CORRECTED_BLOCKS,
                "primus_phy_fec_corrected_blocks_total", "fec_corrected_blocks",
                "FEC codewords (blocks) received with errors the FEC corrected"),
    PHY_COUNTER(13, "primusPhyFecUncorrectableBlocks", PNA_PHY_FEC_UNCORRECTABLE_BLOCKS,
                "primus_phy_fec_uncorrectable_blocks_total", "fec_uncorrectable_blocks",
                "FEC codewords (blocks) received with errors the FEC could not correct"),
    PHY_COUNTER(14, "primusPhyFecCorrectedBits", PNA_PHY_FEC_CORRECTED_BITS,
                "primus_phy_fec_corrected_bits_total", "fec_corrected_bits",
                "Bits the FEC corrected"),
    { .column = 15, .object = "primusPhyPreFecBer", .syntax = TEXT, .get = get_ber_text,
      .label = "pre_fec_ber", .json = "pre_fec_ber" },
    { .get = get_ber_e18, .family = "primus_phy_pre_fec_ber", .type = GAUGE,
      .scale = PNA_SCALE_E(-18),
      .help = "Bit error rate before FEC over the last interval, from the driver's own counters "
              "(mlx5: rx_corrected_bits_phy / rx_bits_phy; primusPhyPreFecBer as a number)" },
    PHY_COUNTER(16, "primusPhySymbolErrors", PNA_PHY_SYMBOL_ERRORS,
                "primus_phy_symbol_errors_total", "symbol_errors",
                "Symbol errors during carrier (IEEE 802.3 SymbolErrorDuringCarrier)"),
    PHY_COUNTER(17, "primusPhyFramesTxOk", PNA_PHY_FRAMES_TX_OK,
                "primus_phy_frames_transmitted_total", "frames_tx_ok",
                "Frames transmitted without error (aFramesTransmittedOK)"),
    PHY_COUNTER(18, "primusPhyFramesRxOk", PNA_PHY_FRAMES_RX_OK,
                "primus_phy_frames_received_total", "frames_rx_ok",
                "Frames received without error (aFramesReceivedOK)"),
    PHY_COUNTER(19, "primusPhyFcsErrors", PNA_PHY_FCS_ERRORS, "primus_phy_fcs_errors_total",
                "fcs_errors", "Frames received with a bad frame check sequence "
                "(aFrameCheckSequenceErrors)"),
    PHY_COUNTER(20, "primusPhyAlignmentErrors", PNA_PHY_ALIGNMENT_ERRORS,
                "primus_phy_alignment_errors_total", "alignment_errors",
                "Frames received misaligned (aAlignmentErrors)"),
    PHY_COUNTER(21, "primusPhyOctetsTxOk", PNA_PHY_OCTETS_TX_OK,
                "primus_phy_transmitted_bytes_total", "octets_tx_ok",
                "Octets of frames transmitted without error (aOctetsTransmittedOK)"),
    PHY_COUNTER(22, "primusPhyOctetsRxOk", PNA_PHY_OCTETS_RX_OK,
                "primus_phy_received_bytes_total", "octets_rx_ok",
                "Octets of frames received without error (aOctetsReceivedOK)"),
    PHY_COUNTER(23, "primusPhyFrameTooLongErrors", PNA_PHY_FRAME_TOO_LONG_ERRORS,
                "primus_phy_frame_too_long_errors_total", "frame_too_long_errors",
                "Frames received longer than the maximum (aFrameTooLongErrors)"),
    PHY_COUNTER(24, "primusPhyInRangeLengthErrors", PNA_PHY_IN_RANGE_LENGTH_ERRORS,
                "primus_phy_in_range_length_errors_total", "in_range_length_errors",
                "Frames whose length field disagreed with their size (aInRangeLengthErrors)"),
    PHY_COUNTER(25, "primusPhyMacInternalTxErrors", PNA_PHY_MAC_INTERNAL_TX_ERRORS,
                "primus_phy_mac_internal_tx_errors_total", "mac_internal_tx_errors",
                "Frames lost to an internal MAC transmit error "
                "(aFramesLostDueToIntMACXmitError)"),
    PHY_COUNTER(26, "primusPhyMacInternalRxErrors", PNA_PHY_MAC_INTERNAL_RX_ERRORS,
                "primus_phy_mac_internal_rx_errors_total", "mac_internal_rx_errors",
                "Frames lost to an internal MAC receive error (aFramesLostDueToIntMACRcvError)"),
    PHY_COUNTER(27, "primusPhyCtrlFramesTx", PNA_PHY_CTRL_FRAMES_TX,
                "primus_phy_control_frames_transmitted_total", "ctrl_frames_tx",
                "MAC control frames transmitted (aMACControlFramesTransmitted)"),
    PHY_COUNTER(28, "primusPhyCtrlFramesRx", PNA_PHY_CTRL_FRAMES_RX,
                "primus_phy_control_frames_received_total", "ctrl_frames_rx",
                "MAC control frames received (aMACControlFramesReceived)"),
    PHY_COUNTER(29, "primusPhyCtrlUnsupportedOpcodes", PNA_PHY_CTRL_UNSUPPORTED_OPCODES,
                "primus_phy_control_unsupported_opcodes_total", "ctrl_unsupported_opcodes",
                "MAC control frames received with an unsupported opcode "
                "(aUnsupportedOpcodesReceived)"),
    PHY_COUNTER(30, "primusPhyRmonUndersize", PNA_PHY_RMON_UNDERSIZE,
                "primus_phy_rmon_undersize_total", "rmon_undersize",
                "Well-formed frames received shorter than 64 octets (etherStatsUndersizePkts)"),
    PHY_COUNTER(31, "primusPhyRmonOversize", PNA_PHY_RMON_OVERSIZE,
                "primus_phy_rmon_oversize_total", "rmon_oversize",
                "Well-formed frames received longer than the maximum (etherStatsOversizePkts)"),
    PHY_COUNTER(32, "primusPhyRmonFragments", PNA_PHY_RMON_FRAGMENTS,
                "primus_phy_rmon_fragments_total", "rmon_fragments",
                "Short frames received with a bad FCS (etherStatsFragments)"),
    PHY_COUNTER(33, "primusPhyRmonJabbers", PNA_PHY_RMON_JABBERS, "primus_phy_rmon_jabbers_total",
                "rmon_jabbers", "Long frames received with a bad FCS (etherStatsJabbers)"),
    PHY_COUNTER(34, "primusPhyPauseTxFrames", PNA_PHY_PAUSE_TX_FRAMES,
                "primus_phy_pause_transmitted_frames_total", "pause_tx_frames",
                "Pause frames transmitted, the kernel's standard pause statistics"),
    PHY_COUNTER(35, "primusPhyPauseRxFrames", PNA_PHY_PAUSE_RX_FRAMES,
                "primus_phy_pause_received_frames_total", "pause_rx_frames",
                "Pause frames received, the kernel's standard pause statistics"),
    { .column = 36, .object = "primusPhyError", .syntax = TEXT,
      .field = PNA_FIELD(struct pna_phy_if, error), .label = "error", .json = "error" },
};

static const struct pna_key_part phy_key[] = { PNA_PHY_IF_KEY_PART(PNA_KEY_FROM_REC) };

const struct pna_metric_table pna_phy_metrics = {
    .object = "primusPhyTable",
    .kind = PNA_TABLE_ROWS,
    .domain = PNA_DOM_PHY,
    .view = PNA_VIEW_DOMAIN(PNA_DOM_PHY) | PNA_VIEW_DOMAIN(PNA_DOM_IB),
    PNA_TABLE_OID(PNA_OID_RDMA, 50),
    PNA_KEY(phy_key),
    .metrics = phy_metrics,
    .count = sizeof phy_metrics / sizeof phy_metrics[0],
    .rows = phy_rows,
    .row = phy_row,
    .info_family = "primus_phy_info",
    .info_help = "One series per interface: its RDMA port, FEC mode, pre-FEC bit error rate and "
                 "why its link is down; always 1",
};
