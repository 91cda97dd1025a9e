/* model/phy/module_metrics.c -- the served values of the pluggable modules,
 * one descriptor per value (see model/metric.h, phy.h):
 *  - primusModuleTable: one row per interface whose module EEPROM was read
 *    (or tried): identity, temperature and supply voltage, the module's own
 *    alarm and warning thresholds, and where each reading stands against them;
 *  - primusModuleLaneTable: one row per lane of a module that was read: TX
 *    bias, TX and RX optical power (in tenths of a microwatt and in dBm) and
 *    their levels. */
#include "pna_autoconf.h"
#include "model/metric_tables.h"

#include <string.h>

#include "model/metric.h"
#include "model/oids.h"
#include "model/phy/phy.h"

/* ---- primusModuleTable -------------------------------------------------------- */

/* Interfaces whose module was read, in the model's (name) order. */
static bool has_module_row(const struct pna_phy_if *pif)
{
    return pif->module_read_mono_ms != 0;
}

static size_t module_rows(const struct pna_view *v)
{
    const struct pna_phy_model *m = pna_phy_view_model(v);
    size_t n = 0;
    for (size_t i = 0; m && i < m->n_ifs; i++)
        n += has_module_row(&m->ifs[i]);
    return n;
}

static bool module_row(const struct pna_view *v, size_t i, struct pna_row *out)
{
    const struct pna_phy_model *m = pna_phy_view_model(v);
    for (size_t k = 0; k < m->n_ifs; k++) {
        if (!has_module_row(&m->ifs[k]))
            continue;
        if (i-- == 0) {
            out->rec = &m->ifs[k];
            return pna_phy_ifname_ok(m->ifs[k].ifname);
        }
    }
    return false;
}

static const struct pna_phy_if *pif_of(const struct pna_row *r)
{
    return r->rec;
}

static const struct pna_module *mod(const struct pna_row *r)
{
    return pif_of(r)->module.present ? &pif_of(r)->module : NULL;
}

static const char *const state_names[] = { [1] = "present", [2] = "unreadable" };
static const struct pna_enum state_enum = PNA_ENUM(state_names);

static void get_state(const struct pna_row *r, struct pna_value *out)
{
    pna_value_i64(out, mod(r) ? 1 : 2);
}

static const char *const spec_names[] = {
    [PNA_MODULE_SPEC_SFF8636] = "sff8636", [PNA_MODULE_SPEC_CMIS] = "cmis",
    [PNA_MODULE_SPEC_SFF8472] = "sff8472",
};
static const struct pna_enum spec_enum = PNA_ENUM(spec_names);

static void get_spec(const struct pna_row *r, struct pna_value *out)
{
    if (mod(r) && mod(r)->spec != PNA_MODULE_SPEC_UNKNOWN)
        pna_value_i64(out, mod(r)->spec);
}

static const struct pna_enum level_enum = PNA_ENUM(pna_module_level_names);

static void level_value(enum pna_module_level level, struct pna_value *out)
{
    if (level != PNA_MODULE_LEVEL_UNKNOWN)
        pna_value_i64(out, level);
}

static void get_temperature_level(const struct pna_row *r, struct pna_value *out)
{
    if (mod(r))
        level_value(pna_module_level(mod(r), PNA_MODQ_TEMPERATURE, 0), out);
}

static void get_voltage_level(const struct pna_row *r, struct pna_value *out)
{
    if (mod(r))
        level_value(pna_module_level(mod(r), PNA_MODQ_VOLTAGE, 0), out);
}

static void get_worst_level(const struct pna_row *r, struct pna_value *out)
{
    if (mod(r))
        level_value(pna_module_worst_level(mod(r)), out);
}

/* Seconds since the EEPROM was read; the model's time is the poll's. */
static void get_age(const struct pna_row *r, struct pna_value *out)
{
    const struct pna_phy_snap *s = pna_view_snap(r->view, PNA_DOM_PHY);
    int64_t age_ms = s ? s->model.sample_mono_ms - pif_of(r)->module_read_mono_ms : 0;
    pna_value_u64(out, age_ms > 0 ? (uint64_t)age_ms / 1000 : 0);
}

#define TEXT PNA_SYNTAX_TEXT
#define U32 PNA_SYNTAX_UNSIGNED
#define INT PNA_SYNTAX_INTEGER
#define GAUGE PNA_FAMILY_GAUGE
#define STATE PNA_FAMILY_STATE
#define MOD_FIELD(member) PNA_FIELD_IF(struct pna_phy_if, module.member, module.present)
#define MOD_TEXT(col, obj, member, name)                                                      \
    { .column = (col), .object = (obj), .syntax = TEXT, .field = MOD_FIELD(member),         \
      .label = (name), .json = (name) }
#define THR_FIELD(q, which) PNA_FIELD_IF(struct pna_phy_if, module.q.which, module.q.present)
/* The four thresholds of one quantity: columns COL..COL+3, one family
 * labelled threshold. */
#define THRESHOLDS(col, obj, q, syn, fam, js, scl, text)                                      \
    { .column = (col), .object = obj "HighAlarm", .syntax = (syn),                           \
      .field = THR_FIELD(q, high_alarm), .family = (fam), .type = GAUGE, .scale = scl,       \
      .label = "threshold", .label_value = "high_alarm", .json = js "_high_alarm",            \
      .help = (text) },                                                                       \
    { .column = (col) + 1, .object = obj "HighWarning", .syntax = (syn),                     \
      .field = THR_FIELD(q, high_warning), .family = (fam), .type = GAUGE, .scale = scl,     \
      .label = "threshold", .label_value = "high_warning", .json = js "_high_warning",        \
      .help = (text) },                                                                       \
    { .column = (col) + 2, .object = obj "LowWarning", .syntax = (syn),                      \
      .field = THR_FIELD(q, low_warning), .family = (fam), .type = GAUGE, .scale = scl,      \
      .label = "threshold", .label_value = "low_warning", .json = js "_low_warning",          \
      .help = (text) },                                                                       \
    { .column = (col) + 3, .object = obj "LowAlarm", .syntax = (syn),                        \
      .field = THR_FIELD(q, low_alarm), .family = (fam), .type = GAUGE, .scale = scl,        \
      .label = "threshold", .label_value = "low_alarm", .json = js "_low_alarm",              \
      .help = (text) }

static const struct pna_metric module_metrics[] = {
    { .column = 1, .object = "primusModuleState", .syntax = INT, .get = get_state,
      .enums = &state_enum, .label = "state", .json = "state" },
    { .column = 2, .object = "primusModuleError", .syntax = TEXT,
      .field = PNA_FIELD(struct pna_phy_if, module_error), .label = "error", .json = "error" },
    { .column = 3, .object = "primusModuleIdentifier", .syntax = U32, .max = 255,
      .field = MOD_FIELD(identifier), .label = "identifier", .json = "identifier" },
    MOD_TEXT(4, "primusModuleType", identifier_text, "type"),
    { .column = 5, .object = "primusModuleSpec", .syntax = INT, .get = get_spec,
      .enums = &spec_enum, .label = "spec", .json = "spec" },
    MOD_TEXT(6, "primusModuleSpecRevision", spec_revision, "spec_revision"),
    MOD_TEXT(7, "primusModuleVendor", vendor, "vendor"),
    MOD_TEXT(8, "primusModuleVendorOui", vendor_oui, "vendor_oui"),
    MOD_TEXT(9, "primusModulePartNumber", part_number, "part_number"),
    MOD_TEXT(10, "primusModuleRevision", revision, "revision"),
    MOD_TEXT(11, "primusModuleSerial", serial, "serial"),
    MOD_TEXT(12, "primusModuleDateCode", date_code, "date_code"),
    MOD_TEXT(13, "primusModuleMedia", media, "media"),
    { .column = 14, .object = "primusModuleLanes", .syntax = U32, .max = PNA_MODULE_MAX_LANES,
      .field = MOD_FIELD(lanes), .label = "lanes", .json = "lane_count" },
    { .column = 15, .object = "primusModuleTemperature", .syntax = INT,
      .field = PNA_FIELD_IF(struct pna_phy_if, module.temperature_mc, module.has_temperature),
      .family = "primus_module_temperature_celsius", .type = GAUGE, .scale = PNA_SCALE_E(-3),
      .json = "temperature", .json_scale = PNA_SCALE_E(-3),
      .help = "The module's temperature" },
    { .column = 16, .object = "primusModuleVoltage", .syntax = U32,
      .field = PNA_FIELD_IF(struct pna_phy_if, module.voltage_uv, module.has_voltage),
      .family = "primus_module_voltage_volts", .type = GAUGE, .scale = PNA_SCALE_E(-6),
      .json = "voltage", .json_scale = PNA_SCALE_E(-6), .help = "The module's supply voltage" },
    { .column = 17, .object = "primusModuleTemperatureLevel", .syntax = INT,
      .get = get_temperature_level, .enums = &level_enum,
      .family = "primus_module_temperature_level", .type = STATE, .label = "level",
      .json = "temperature_level",
      .help = "Where the temperature stands against the module's own thresholds" },
    { .column = 18, .object = "primusModuleVoltageLevel", .syntax = INT, .get = get_voltage_level,
      .enums = &level_enum, .family = "primus_module_voltage_level", .type = STATE,
      .label = "level", .json = "voltage_level",
      .help = "Where the supply voltage stands against the module's own thresholds" },
    { .column = 19, .object = "primusModuleWorstLevel", .syntax = INT, .get = get_worst_level,
      .enums = &level_enum, .family = "primus_module_worst_level", .type = STATE, .label = "level",
      .json = "worst_level",
      .help = "The worst level over the module's readings (temperature, voltage, every lane's "
              "bias and power): an alarm is worse than a warning" },
    THRESHOLDS(20, "primusModuleTemperature", temperature_thr, INT,
               "primus_module_temperature_threshold_celsius", "temperature", PNA_SCALE_E(-3),
               "The module's own temperature thresholds"),
    THRESHOLDS(24, "primusModuleVoltage", voltage_thr, U32,
               "primus_module_voltage_threshold_volts", "voltage", PNA_SCALE_E(-6),
               "The module's own supply voltage thresholds"),
    THRESHOLDS(28, "primusModuleBias", bias_thr, U32, "primus_module_bias_threshold_amperes",
               "bias", PNA_SCALE_E(-6), "The module's own TX bias current thresholds (per lane)"),
    THRESHOLDS(32, "primusModuleTxPower", tx_power_thr, U32,
               "primus_module_tx_power_threshold_watts", "tx_power", PNA_SCALE_E(-7),
               "The module's own TX optical power thresholds (per lane)"),
    THRESHOLDS(36, "primusModuleRxPower", rx_power_thr, U32,
               "primus_module_rx_power_threshold_watts", "rx_power", PNA_SCALE_E(-7),
               "The module's own RX optical power thresholds (per lane)"),
    { .column = 40, .object = "primusModuleAge", .syntax = U32, .get = get_age,
      .family = "primus_module_age_seconds", .type = GAUGE, .json = "age",
      .help = "Seconds since the module's EEPROM was read (at most moduleInterval)" },
};

static const struct pna_key_part module_key[] = { PNA_PHY_IF_KEY_PART(PNA_KEY_FROM_REC) };

const struct pna_metric_table pna_module_metrics = {
    .object = "primusModuleTable",
    .kind = PNA_TABLE_ROWS,
    .domain = PNA_DOM_PHY,
    .view = PNA_VIEW_DOMAIN(PNA_DOM_PHY),
    PNA_TABLE_OID(PNA_OID_RDMA, 60),
    PNA_KEY(module_key),
    .metrics = module_metrics,
    .count = sizeof module_metrics / sizeof module_metrics[0],
    .rows = module_rows,
    .row = module_row,
    .info_family = "primus_module_info",
    .info_help = "One series per interface whose module was read: its type, vendor, part "
                 "number, serial and why it could not be read; always 1",
};

/* ---- primusModuleLaneTable ---------------------------------------------------- */

static uint32_t lanes_of(const struct pna_phy_if *pif)
{
    if (!pif->module.present)
        return 0;
    return pif->module.lanes < PNA_MODULE_MAX_LANES ? pif->module.lanes : PNA_MODULE_MAX_LANES;
}

static size_t lane_rows(const struct pna_view *v)
{
    const struct pna_phy_model *m = pna_phy_view_model(v);
    size_t n = 0;
    for (size_t i = 0; m && i < m->n_ifs; i++)
        n += lanes_of(&m->ifs[i]);
    return n;
}

/* REC is the lane, PARENT its interface, KEY_NUMBER the lane number (1..). */
static bool lane_row(const struct pna_view *v, size_t i, struct pna_row *out)
{
    const struct pna_phy_model *m = pna_phy_view_model(v);
    for (size_t k = 0; k < m->n_ifs; k++) {
        uint32_t n = lanes_of(&m->ifs[k]);
        if (i < n) {
            out->parent = &m->ifs[k];
            out->rec = &m->ifs[k].module.lane[i];
            out->key_number = (uint32_t)i + 1;
            return pna_phy_ifname_ok(m->ifs[k].ifname);
        }
        i -= n;
    }
    return false;
}

static const struct pna_module *lane_module(const struct pna_row *r)
{
    return &((const struct pna_phy_if *)r->parent)->module;
}

static void lane_level(const struct pna_row *r, enum pna_module_quantity q, struct pna_value *out)
{
    level_value(pna_module_level(lane_module(r), q, r->key_number), out);
}

static void get_bias_level(const struct pna_row *r, struct pna_value *out)
{
    lane_level(r, PNA_MODQ_BIAS, out);
}

static void get_tx_level(const struct pna_row *r, struct pna_value *out)
{
    lane_level(r, PNA_MODQ_TX_POWER, out);
}

static void get_rx_level(const struct pna_row *r, struct pna_value *out)
{
    lane_level(r, PNA_MODQ_RX_POWER, out);
}

/* dBm of a power; none (no sample, 0 over SNMP as the MIB says) for no
 * light at all: minus infinity has no number. */
static void dbm_value(bool has, uint32_t power_dw, struct pna_value *out)
{
    int32_t centi;
    if (!has)
        return;
    if (pna_module_dbm(power_dw, &centi))
        pna_value_i64(out, centi);
    else
        pna_value_none(out);
}

static void get_tx_dbm(const struct pna_row *r, struct pna_value *out)
{
    const struct pna_module_lane *l = r->rec;
    dbm_value(l->has_tx_power, l->tx_power_dw, out);
}

static void get_rx_dbm(const struct pna_row *r, struct pna_value *out)
{
    const struct pna_module_lane *l = r->rec;
    dbm_value(l->has_rx_power, l->rx_power_dw, out);
}

#define LANE_IF(member, has) PNA_FIELD_IF(struct pna_module_lane, member, has)

static const struct pna_metric lane_metrics[] = {
    { .column = 2, .object = "primusModuleLaneBias", .syntax = U32,
      .field = LANE_IF(bias_ua, has_bias), .family = "primus_module_lane_bias_amperes",
      .type = GAUGE, .scale = PNA_SCALE_E(-6), .json = "bias", .json_scale = PNA_SCALE_E(-6),
      .help = "The lane's TX laser bias current" },
    { .column = 3, .object = "primusModuleLaneTxPower", .syntax = U32,
      .field = LANE_IF(tx_power_dw, has_tx_power), .family = "primus_module_lane_tx_power_watts",
      .type = GAUGE, .scale = PNA_SCALE_E(-7), .json = "tx_power",
      .json_scale = PNA_SCALE_E(-7), .help = "The lane's transmitted optical power" },
    { .column = 4, .object = "primusModuleLaneRxPower", .syntax = U32,
      .field = LANE_IF(rx_power_dw, has_rx_power), .family = "primus_module_lane_rx_power_watts",
      .type = GAUGE, .scale = PNA_SCALE_E(-7), .json = "rx_power",
      .json_scale = PNA_SCALE_E(-7), .help = "The lane's received optical power" },
    { .column = 5, .object = "primusModuleLaneTxPowerDbm", .syntax = INT, .get = get_tx_dbm,
      .family = "primus_module_lane_tx_power_dbm", .type = GAUGE, .scale = PNA_SCALE_E(-2),
      .json = "tx_power_dbm", .json_scale = PNA_SCALE_E(-2),
      .help = "The lane's transmitted optical power in dBm; no sample without light" },
    { .column = 6, .object = "primusModuleLaneRxPowerDbm", .syntax = INT, .get = get_rx_dbm,
      .family = "primus_module_lane_rx_power_dbm", .type = GAUGE, .scale = PNA_SCALE_E(-2),
      .json = "rx_power_dbm", .json_scale = PNA_SCALE_E(-2),
      .help = "The lane's received optical power in dBm; no sample without light" },
    { .column = 7, .object = "primusModuleLaneBiasLevel", .syntax = INT, .get = get_bias_level,
      .enums = &level_enum, .family = "primus_module_lane_bias_level", .type = STATE,
      .label = "level", .json = "bias_level",
      .help = "Where the lane's bias stands against the module's own thresholds" },
    { .column = 8, .object = "primusModuleLaneTxPowerLevel", .syntax = INT, .get = get_tx_level,
      .enums = &level_enum, .family = "primus_module_lane_tx_power_level", .type = STATE,
      .label = "level", .json = "tx_power_level",
      .help = "Where the lane's TX power stands against the module's own thresholds" },
    { .column = 9, .object = "primusModuleLaneRxPowerLevel", .syntax = INT, .get = get_rx_level,
      .enums = &level_enum, .family = "primus_module_lane_rx_power_level", .type = STATE,
      .label = "level", .json = "rx_power_level",
      .help = "Where the lane's RX power stands against the module's own thresholds" },
};

/* The interface, then the lane (1..). */
static const struct pna_key_part lane_key[] = {
    PNA_PHY_IF_KEY_PART(PNA_KEY_FROM_PARENT),
    PNA_KEY_INDEX_NUMBER("primusModuleLane", "lane"),
};

const struct pna_metric_table pna_module_lane_metrics = {
    .object = "primusModuleLaneTable",
    .kind = PNA_TABLE_ROWS,
    .domain = PNA_DOM_PHY,
    .view = PNA_VIEW_DOMAIN(PNA_DOM_PHY),
    PNA_TABLE_OID(PNA_OID_RDMA, 61),
    PNA_KEY(lane_key),
    .metrics = lane_metrics,
    .count = sizeof lane_metrics / sizeof lane_metrics[0],
    .rows = lane_rows,
    .row = lane_row,
};
