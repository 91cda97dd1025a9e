/* model/lossless/lossless_metrics.c -- the served values of the lossless-RoCE
 * configuration (primusPfc 1-5 and primusRoceConfigTable), one descriptor per
 * value (see model/metric.h, lossless.h).  The table's rows are the pfc
 * snapshot's interfaces, those of primusPauseTable (pna_pfc_if_rows). */
#include "pna_autoconf.h"
#include "model/metric_tables.h"

#include "model/lossless/lossless.h"
#include "model/metric.h"
#include "model/oids.h"
#include "model/pfc.h"

static const struct pna_pfc_model *pfc_model(const struct pna_view *v)
{
    const struct pna_pfc_snap *s = pna_view_snap(v, PNA_DOM_PFC);
    return s ? &s->model : NULL;
}

static const struct pna_pfc_if *pfc_if(const struct pna_row *r)
{
    return r->rec;
}

static const struct pna_lossless_if *cfg(const struct pna_row *r)
{
    return &pfc_if(r)->lossless;
}

static const struct pna_dcb *dcb(const struct pna_row *r)
{
    return &cfg(r)->dcb;
}

/* ---- the node: primusPfc 1-5 ---------------------------------------------------- */

static size_t node_rows(const struct pna_view *v)
{
    return pfc_model(v) ? 1 : 0;
}

static bool node_row(const struct pna_view *v, size_t i, struct pna_row *out)
{
    (void)i;
    out->rec = pfc_model(v);
    return true;
}

static const struct pna_pfc_model *model_of(const struct pna_row *r)
{
    return r->rec;
}

/* enum pna_lossless_verdict is numbered as PrimusLossless (mib_oids_h.sh checks
 * the names against the MIB). */
static const struct pna_enum verdict_enum = PNA_ENUM(pna_lossless_verdict_names);

/* enum pna_lossless_verdict is numbered as PrimusLossless; 0 (not judged) is absent. */
static void verdict_value(uint8_t verdict, struct pna_value *out)
{
    if (verdict >= PNA_LOSSLESS_READY && verdict <= PNA_LOSSLESS_NOT_APPLICABLE)
        pna_value_i64(out, verdict);
}

static void get_node_verdict(const struct pna_row *r, struct pna_value *out)
{
    verdict_value(model_of(r)->lossless.verdict, out);
}

/* Not ready or not readable: not known to be lossless. */
static void get_ports_not_ready(const struct pna_row *r, struct pna_value *out)
{
    const struct pna_lossless_node *n = &model_of(r)->lossless;
    pna_value_u64(out, (uint64_t)n->ports_not_ready + n->ports_unreadable);
}

#define TEXT PNA_SYNTAX_TEXT
#define U32 PNA_SYNTAX_UNSIGNED
#define INT PNA_SYNTAX_INTEGER
#define GAUGE PNA_FAMILY_GAUGE

static const struct pna_metric node_metrics[] = {
    { .column = 1, .object = "primusRoceNodeLossless", .syntax = INT, .get = get_node_verdict,
      .enums = &verdict_enum, .family = "primus_roce_node_lossless", .type = PNA_FAMILY_STATESET,
      .label = "state", .json = "lossless",
      .help = "The node's lossless-RoCE verdict over its watched interfaces: one series per "
              "state, 1 for the current one" },
    { .column = 2, .object = "primusRoceNodeLosslessReason", .syntax = TEXT,
      .field = PNA_FIELD(struct pna_pfc_model, lossless.reason), .label = "reason",
      .json = "lossless_reason" },
    { .column = 3, .object = "primusRoceNodePortsReady", .syntax = U32,
      .field = PNA_FIELD(struct pna_pfc_model, lossless.ports_ready),
      .family = "primus_roce_node_ports_ready", .type = GAUGE, .json = "ports_ready",
      .help = "Watched interfaces configured for lossless RoCE" },
    { .column = 4, .object = "primusRoceNodePortsNotReady", .syntax = U32, .get = get_ports_not_ready,
      .family = "primus_roce_node_ports_not_ready", .type = GAUGE, .json = "ports_not_ready",
      .help = "Watched interfaces not configured for lossless RoCE, or whose configuration could "
              "not be read" },
    { .column = 5, .object = "primusRoceLldpStatus", .syntax = TEXT,
      .field = PNA_FIELD(struct pna_pfc_model, lldp_error), .label = "lldp_status",
      .json = "lldp_status" },
};

const struct pna_metric_table pna_roce_node_metrics = {
    .object = "primusPfc",
    .kind = PNA_TABLE_SCALARS,
    .domain = PNA_DOM_PFC,
    .view = PNA_VIEW_DOMAIN(PNA_DOM_PFC),
    PNA_TABLE_OID(PNA_OID_PFC),
    .metrics = node_metrics,
    .count = sizeof node_metrics / sizeof node_metrics[0],
    .rows = node_rows,
    .row = node_row,
    .info_family = "primus_roce_node_info",
    .info_help = "Why the node is not ready for lossless RoCE, and why lldpd could not be asked; "
                 "always 1",
};

/* ---- primusRoceConfigTable ---------------------------------------------------------- */

static void get_verdict(const struct pna_row *r, struct pna_value *out)
{
    verdict_value(cfg(r)->verdict, out);
}

static void get_reason(const struct pna_row *r, struct pna_value *out)
{
    if (cfg(r)->verdict)
        pna_value_text(out, cfg(r)->reason);
}

/* A priority list ("3,4") of MASK, present when HAVE. */
static void prio_list(bool have, uint8_t mask, struct pna_value *out)
{
    char list[24];
    if (have)
        pna_value_printf(out, "%s", pna_prio_list(mask, list, sizeof list));
}

static void get_pfc_enabled(const struct pna_row *r, struct pna_value *out)
{
    prio_list(dcb(r)->read && dcb(r)->has_pfc, dcb(r)->pfc_en, out);
}

static void get_pfc_mask(const struct pna_row *r, struct pna_value *out)
{
    if (dcb(r)->read && dcb(r)->has_pfc)
        pna_value_u64(out, dcb(r)->pfc_en);
}

static void get_pfc_delay(const struct pna_row *r, struct pna_value *out)
{
    if (dcb(r)->read && dcb(r)->has_pfc)
        pna_value_u64(out, dcb(r)->pfc_delay);
}

/* The eight numbers of ARRAY, comma-separated, when the port has ETS. */
static void ets_list(const struct pna_row *r, const uint8_t *array, struct pna_value *out)
{
    if (!dcb(r)->read || !dcb(r)->has_ets)
        return;
    const uint8_t *a = array;
    pna_value_printf(out, "%u,%u,%u,%u,%u,%u,%u,%u", a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]);
}

static void get_ets_prio_tc(const struct pna_row *r, struct pna_value *out)
{
    ets_list(r, dcb(r)->prio_tc, out);
}

static void get_ets_bandwidth(const struct pna_row *r, struct pna_value *out)
{
    ets_list(r, dcb(r)->tc_tx_bw, out);
}

static const char *tsa_name(uint8_t tsa, char *buf, size_t len)
{
    switch (tsa) {
    case PNA_ETS_TSA_STRICT: return "strict";
    case PNA_ETS_TSA_CB_SHAPER: return "cbs";
    case PNA_ETS_TSA_ETS: return "ets";
    case PNA_ETS_TSA_VENDOR: return "vendor";
    }
    snprintf(buf, len, "%u", tsa);
    return buf;
}

static void get_ets_tsa(const struct pna_row *r, struct pna_value *out)
{
    if (!dcb(r)->read || !dcb(r)->has_ets)
        return;
    char b[PNA_LOSSLESS_PRIOS][4];
    const uint8_t *t = dcb(r)->tc_tsa;
    pna_value_printf(out, "%s,%s,%s,%s,%s,%s,%s,%s", tsa_name(t[0], b[0], 4), tsa_name(t[1], b[1], 4),
                     tsa_name(t[2], b[2], 4), tsa_name(t[3], b[3], 4), tsa_name(t[4], b[4], 4),
                     tsa_name(t[5], b[5], 4), tsa_name(t[6], b[6], 4), tsa_name(t[7], b[7], 4));
}

static const char *const trust_names[] = {
    [PNA_ROCE_TRUST_PCP] = "pcp", [PNA_ROCE_TRUST_DSCP] = "dscp",
};
static const struct pna_enum trust_enum = PNA_ENUM(trust_names);

static void get_trust(const struct pna_row *r, struct pna_value *out)
{
    switch (cfg(r)->trust) {
    case PNA_TRUST_PCP: pna_value_i64(out, PNA_ROCE_TRUST_PCP); return;
    case PNA_TRUST_DSCP: pna_value_i64(out, PNA_ROCE_TRUST_DSCP); return;
    }
}

static const char *const trust_source_names[] = {
    [PNA_ROCE_TRUST_SOURCE_DRIVER] = "driver", [PNA_ROCE_TRUST_SOURCE_APP_TABLE] = "appTable",
};
static const struct pna_enum trust_source_enum = PNA_ENUM(trust_source_names);

static void get_trust_source(const struct pna_row *r, struct pna_value *out)
{
    switch (cfg(r)->trust_source) {
    case PNA_TRUST_FROM_DRIVER: pna_value_i64(out, PNA_ROCE_TRUST_SOURCE_DRIVER); return;
    case PNA_TRUST_FROM_APP: pna_value_i64(out, PNA_ROCE_TRUST_SOURCE_APP_TABLE); return;
    }
}

static void get_dscp_map(const struct pna_row *r, struct pna_value *out)
{
    if (dcb(r)->read)
        pna_value_text(out, cfg(r)->dscp_map);
}

static void get_ecn_np(const struct pna_row *r, struct pna_value *out)
{
    const struct pna_ecn *e = &cfg(r)->ecn;
    prio_list(e->present && e->np_known, e->np_enabled, out);
}

static void get_ecn_rp(const struct pna_row *r, struct pna_value *out)
{
    const struct pna_ecn *e = &cfg(r)->ecn;
    prio_list(e->present && e->rp_known, e->rp_enabled, out);
}

/* A small signed field of the configuration: present when not negative. */
static void non_negative(int value, struct pna_value *out)
{
    if (value >= 0)
        pna_value_u64(out, (uint64_t)value);
}

static void get_cnp_dscp(const struct pna_row *r, struct pna_value *out)
{
    non_negative(cfg(r)->ecn.cnp_dscp, out);
}

static void get_cnp_802p(const struct pna_row *r, struct pna_value *out)
{
    non_negative(cfg(r)->ecn.cnp_802p_prio, out);
}

static void get_tos(const struct pna_row *r, struct pna_value *out)
{
    non_negative(cfg(r)->roce_tos, out);
}

static void get_rdma_prio(const struct pna_row *r, struct pna_value *out)
{
    non_negative(cfg(r)->rdma_prio, out);
}

static void get_cnp_prio(const struct pna_row *r, struct pna_value *out)
{
    non_negative(cfg(r)->cnp_prio, out);
}

static const struct pna_lldp_neighbor *lldp(const struct pna_row *r)
{
    return cfg(r)->lldp.present ? &cfg(r)->lldp : NULL;
}

static void get_lldp_pfc(const struct pna_row *r, struct pna_value *out)
{
    const struct pna_lldp_neighbor *n = lldp(r);
    prio_list(n && n->pfc_known, n ? n->pfc_en : 0, out);
}

static void get_lldp_pvid(const struct pna_row *r, struct pna_value *out)
{
    const struct pna_lldp_neighbor *n = lldp(r);
    if (n && n->pvid)
        pna_value_u64(out, n->pvid);
}

static void get_lldp_age(const struct pna_row *r, struct pna_value *out)
{
    const struct pna_lldp_neighbor *n = lldp(r);
    if (n)
        pna_value_u64(out, n->age_s);
}

#define LLDP_TEXT(member) PNA_FIELD_IF(struct pna_pfc_if, lossless.lldp.member, lossless.lldp.present)
#define DCB(member) PNA_FIELD_IF(struct pna_pfc_if, lossless.dcb.member, lossless.dcb.has_pfc)

static const struct pna_metric config_metrics[] = {
    { .column = 2, .object = "primusRoceRdmaDevice", .syntax = TEXT, .get = pna_pfc_get_rdma_device,
      .label = "rdma_device", .json = "rdma_device" },
    { .column = 3, .object = "primusRoceRdmaPort", .syntax = U32, .max = 255,
      .get = pna_pfc_get_rdma_port,
      .label = "rdma_port", .json = "rdma_port" },
    { .column = 4, .object = "primusRoceLossless", .syntax = INT, .get = get_verdict,
      .enums = &verdict_enum, .family = "primus_roce_lossless", .type = PNA_FAMILY_STATESET,
      .label = "state", .json = "lossless",
      .help = "The interface's lossless-RoCE verdict: one series per state, 1 for the current one" },
    { .column = 5, .object = "primusRoceLosslessReason", .syntax = TEXT, .get = get_reason,
      .label = "reason", .json = "lossless_reason" },
    { .column = 6, .object = "primusRoceDcbError", .syntax = TEXT,
      .field = PNA_FIELD(struct pna_pfc_if, lossless.dcb.error), .label = "dcb_error",
      .json = "dcb_error" },
    { .column = 7, .object = "primusRocePfcEnabled", .syntax = TEXT, .get = get_pfc_enabled,
      .label = "pfc_enabled", .json = "pfc_enabled" },
    { .column = 8, .object = "primusRocePfcEnabledMask", .syntax = U32, .max = 255,
      .get = get_pfc_mask, .family = "primus_roce_pfc_enabled_mask", .type = GAUGE,
      .json = "pfc_enabled_mask",
      .help = "Priorities with PFC enabled as a bit mask (bit p for priority p)" },
    { .column = 9, .object = "primusRocePfcCap", .syntax = U32, .max = 8, .field = DCB(pfc_cap),
      .family = "primus_roce_pfc_capability", .type = GAUGE, .json = "pfc_cap",
      .help = "Traffic classes that may have PFC at once" },
    { .column = 10, .object = "primusRocePfcMbc", .syntax = PNA_SYNTAX_TRUTH, .field = DCB(pfc_mbc),
      .label = "pfc_mbc", .json = "pfc_mbc" },
    { .column = 11, .object = "primusRocePfcDelay", .syntax = U32, .max = 65535,
      .get = get_pfc_delay, .family = "primus_roce_pfc_delay_bit_times", .type = GAUGE,
      .json = "pfc_delay", .help = "The cable allowance made before pause takes effect, in bit times" },
    { .column = 12, .object = "primusRoceEtsPrioTc", .syntax = TEXT, .get = get_ets_prio_tc,
      .label = "ets_prio_tc", .json = "ets_prio_tc" },
    { .column = 13, .object = "primusRoceEtsTcBandwidth", .syntax = TEXT, .get = get_ets_bandwidth,
      .label = "ets_tc_bandwidth", .json = "ets_tc_bandwidth" },
    { .column = 14, .object = "primusRoceEtsTcTsa", .syntax = TEXT, .get = get_ets_tsa,
      .label = "ets_tc_tsa", .json = "ets_tc_tsa" },
    { .column = 15, .object = "primusRoceTrust", .syntax = INT, .get = get_trust, .enums = &trust_enum,
      .label = "trust", .json = "trust" },
    { .column = 16, .object = "primusRoceTrustSource", .syntax = INT, .get = get_trust_source,
      .enums = &trust_source_enum, .label = "trust_source", .json = "trust_source" },
    { .column = 17, .object = "primusRoceDscpMap", .syntax = TEXT, .get = get_dscp_map,
      .label = "dscp_map", .json = "dscp_map" },
    { .column = 18, .object = "primusRoceEcnNpEnabled", .syntax = TEXT, .get = get_ecn_np,
      .label = "ecn_np_enabled", .json = "ecn_np_enabled" },
    { .column = 19, .object = "primusRoceEcnRpEnabled", .syntax = TEXT, .get = get_ecn_rp,
      .label = "ecn_rp_enabled", .json = "ecn_rp_enabled" },
    { .column = 20, .object = "primusRoceCnpDscp", .syntax = U32, .max = 63, .get = get_cnp_dscp,
      .family = "primus_roce_cnp_dscp", .type = GAUGE, .json = "cnp_dscp",
      .help = "The DSCP the interface marks its CNPs with (mlx5 ecn/roce_np/cnp_dscp)" },
    { .column = 21, .object = "primusRoceCnp802pPrio", .syntax = U32, .max = 7, .get = get_cnp_802p,
      .family = "primus_roce_cnp_802p_priority", .type = GAUGE, .json = "cnp_802p_prio",
      .help = "The 802.1p priority of the interface's CNPs (mlx5 ecn/roce_np/cnp_802p_prio)" },
    { .column = 22, .object = "primusRoceDefaultTos", .syntax = U32, .max = 255, .get = get_tos,
      .family = "primus_roce_default_tos", .type = GAUGE, .json = "default_roce_tos",
      .help = "The RDMA CM default ToS of the RDMA port on the interface" },
    { .column = 23, .object = "primusRoceRdmaPriority", .syntax = U32, .max = 7, .get = get_rdma_prio,
      .family = "primus_roce_rdma_priority", .type = GAUGE, .json = "rdma_priority",
      .help = "The priority RoCE traffic lands on (the default ToS's DSCP through the APP table)" },
    { .column = 24, .object = "primusRoceCnpPriority", .syntax = U32, .max = 7, .get = get_cnp_prio,
      .family = "primus_roce_cnp_priority", .type = GAUGE, .json = "cnp_priority",
      .help = "The priority CNPs land on" },
    { .column = 25, .object = "primusRoceLldpSysName", .syntax = TEXT, .field = LLDP_TEXT(sys_name),
      .label = "lldp_sys_name", .json = "lldp_sys_name" },
    { .column = 26, .object = "primusRoceLldpChassisId", .syntax = TEXT,
      .field = LLDP_TEXT(chassis_id), .label = "lldp_chassis_id", .json = "lldp_chassis_id" },
    { .column = 27, .object = "primusRoceLldpPortId", .syntax = TEXT, .field = LLDP_TEXT(port_id),
      .label = "lldp_port_id", .json = "lldp_port_id" },
    { .column = 28, .object = "primusRoceLldpPortDescr", .syntax = TEXT,
      .field = LLDP_TEXT(port_descr), .label = "lldp_port_descr", .json = "lldp_port_descr" },
    { .column = 29, .object = "primusRoceLldpMgmtAddr", .syntax = TEXT,
      .field = LLDP_TEXT(mgmt_addr), .label = "lldp_mgmt_addr", .json = "lldp_mgmt_addr" },
    { .column = 30, .object = "primusRoceLldpPvid", .syntax = U32, .max = 4094, .get = get_lldp_pvid,
      .label = "lldp_pvid", .json = "lldp_pvid" },
    { .column = 31, .object = "primusRoceLldpPfcEnabled", .syntax = TEXT, .get = get_lldp_pfc,
      .label = "lldp_pfc_enabled", .json = "lldp_pfc_enabled" },
    { .column = 32, .object = "primusRoceLldpAge", .syntax = U32, .get = get_lldp_age,
      .family = "primus_roce_lldp_age_seconds", .type = GAUGE, .json = "lldp_age",
      .help = "Seconds since lldpd first heard the interface's LLDP neighbour, or heard it change" },
};

static const struct pna_key_part config_key[] = { PNA_PFC_IF_KEY_PART(PNA_KEY_FROM_REC) };

const struct pna_metric_table pna_roce_config_metrics = {
    .object = "primusRoceConfigTable",
    .kind = PNA_TABLE_ROWS,
    .domain = PNA_DOM_PFC,
    .view = PNA_VIEW_DOMAIN(PNA_DOM_PFC) | PNA_VIEW_DOMAIN(PNA_DOM_IB),
    PNA_TABLE_OID(PNA_OID_PFC, 40),
    PNA_KEY(config_key),
    .metrics = config_metrics,
    .count = sizeof config_metrics / sizeof config_metrics[0],
    .rows = pna_pfc_if_rows,
    .row = pna_pfc_if_row,
    .info_family = "primus_roce_config_info",
    .info_help = "One series per watched interface: its RDMA port, PFC and ETS settings, trust, "
                 "DSCP map, ECN switches, LLDP neighbour (the switch port it is cabled to) and why "
                 "it is not ready for lossless RoCE; always 1",
};
