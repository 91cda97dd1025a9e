/* model/phy/phy.c -- the rules of the phy domain's model: the pre-FEC bit
 * error rate, where a module's reading stands against its own thresholds,
 * and optical power in dBm.  Pure functions on model/phy/phy.h. */
#include "pna_autoconf.h"
#include "model/phy/phy.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void pna_phy_model_free(struct pna_phy_model *m)
{
    if (!m)
        return;
    free(m->ifs);
    memset(m, 0, sizeof *m);
}

static int cmp_ifname(const void *key, const void *elem)
{
    return strcmp(key, ((const struct pna_phy_if *)elem)->ifname);
}

const struct pna_phy_if *pna_phy_find_if(const struct pna_phy_model *m, const char *ifname)
{
    if (!m || m->n_ifs == 0)
        return NULL;
    return bsearch(ifname, m->ifs, m->n_ifs, sizeof *m->ifs, cmp_ifname);
}

const char *pna_fec_mode_name(enum pna_fec_mode mode)
{
    switch (mode) {
    case PNA_FEC_OFF: return "off";
    case PNA_FEC_BASER: return "baser";
    case PNA_FEC_RS: return "rs";
    case PNA_FEC_LLRS: return "llrs";
    case PNA_FEC_OTHER: return "other";
    case PNA_FEC_UNKNOWN: break;
    }
    return "";
}

bool pna_phy_ber(uint64_t corrected, uint64_t bits, uint32_t *mantissa, int32_t *exponent)
{
    if (bits == 0)
        return false;
    *mantissa = 0;
    *exponent = 0;
    if (corrected == 0)
        return true;
    /* Three significant digits of a ratio the counters give exactly: a
     * double carries 15, and the decimal exponent comes from log10. */
    double ratio = (double)corrected / (double)bits;
    int e = (int)floor(log10(ratio)) - 2;
    double m = round(ratio / pow(10.0, e));
    if (m >= 1000.0) {   /* 9.995e-x rounds up to the next decade */
        m /= 10.0;
        e++;
    }
    *mantissa = (uint32_t)m;
    *exponent = e;
    return true;
}

const char *const pna_module_level_names[6] = {
    [PNA_MODULE_LEVEL_NORMAL] = "normal",
    [PNA_MODULE_LEVEL_LOW_WARNING] = "lowWarning",
    [PNA_MODULE_LEVEL_HIGH_WARNING] = "highWarning",
    [PNA_MODULE_LEVEL_LOW_ALARM] = "lowAlarm",
    [PNA_MODULE_LEVEL_HIGH_ALARM] = "highAlarm",
};

const char *const pna_module_quantity_names[PNA_MODQ_COUNT] = {
    [PNA_MODQ_TEMPERATURE] = "temperature", [PNA_MODQ_VOLTAGE] = "voltage",
    [PNA_MODQ_BIAS] = "bias", [PNA_MODQ_TX_POWER] = "txPower", [PNA_MODQ_RX_POWER] = "rxPower",
};

enum pna_module_level pna_module_level_of(int64_t value, const struct pna_module_thresholds *t)
{
    if (!t->present)
        return PNA_MODULE_LEVEL_UNKNOWN;
    if (value >= t->high_alarm)
        return PNA_MODULE_LEVEL_HIGH_ALARM;
    if (value <= t->low_alarm)
        return PNA_MODULE_LEVEL_LOW_ALARM;
    if (value >= t->high_warning)
        return PNA_MODULE_LEVEL_HIGH_WARNING;
    if (value <= t->low_warning)
        return PNA_MODULE_LEVEL_LOW_WARNING;
    return PNA_MODULE_LEVEL_NORMAL;
}

enum pna_module_level pna_module_level(const struct pna_module *m, enum pna_module_quantity q,
                                       uint32_t lane)
{
    if (!m->present)
        return PNA_MODULE_LEVEL_UNKNOWN;
    if (q == PNA_MODQ_TEMPERATURE)
        return m->has_temperature ? pna_module_level_of(m->temperature_mc, &m->temperature_thr)
                                  : PNA_MODULE_LEVEL_UNKNOWN;
    if (q == PNA_MODQ_VOLTAGE)
        return m->has_voltage ? pna_module_level_of(m->voltage_uv, &m->voltage_thr)
                              : PNA_MODULE_LEVEL_UNKNOWN;
    if (lane == 0 || lane > m->lanes || lane > PNA_MODULE_MAX_LANES)
        return PNA_MODULE_LEVEL_UNKNOWN;
    const struct pna_module_lane *l = &m->lane[lane - 1];
    switch (q) {
    case PNA_MODQ_BIAS:
        return l->has_bias ? pna_module_level_of(l->bias_ua, &m->bias_thr)
                           : PNA_MODULE_LEVEL_UNKNOWN;
    case PNA_MODQ_TX_POWER:
        return l->has_tx_power ? pna_module_level_of(l->tx_power_dw, &m->tx_power_thr)
                               : PNA_MODULE_LEVEL_UNKNOWN;
    case PNA_MODQ_RX_POWER:
        return l->has_rx_power ? pna_module_level_of(l->rx_power_dw, &m->rx_power_thr)
                               : PNA_MODULE_LEVEL_UNKNOWN;
    default:
        return PNA_MODULE_LEVEL_UNKNOWN;
    }
}

/* Alarms outrank warnings, warnings outrank normal. */
static int severity(enum pna_module_level l)
{
    switch (l) {
    case PNA_MODULE_LEVEL_HIGH_ALARM:
    case PNA_MODULE_LEVEL_LOW_ALARM: return 3;
    case PNA_MODULE_LEVEL_HIGH_WARNING:
    case PNA_MODULE_LEVEL_LOW_WARNING: return 2;
    case PNA_MODULE_LEVEL_NORMAL: return 1;
    case PNA_MODULE_LEVEL_UNKNOWN: break;
    }
    return 0;
}

enum pna_module_level pna_module_worst_level(const struct pna_module *m)
{
    enum pna_module_level worst = PNA_MODULE_LEVEL_UNKNOWN;
    for (int q = 0; q < PNA_MODQ_COUNT; q++) {
        bool per_lane = q != PNA_MODQ_TEMPERATURE && q != PNA_MODQ_VOLTAGE;
        uint32_t last = per_lane ? m->lanes : 0;
        for (uint32_t lane = per_lane ? 1 : 0; lane <= last; lane++) {
            enum pna_module_level l = pna_module_level(m, (enum pna_module_quantity)q, lane);
            if (severity(l) > severity(worst))
                worst = l;
        }
    }
    return worst;
}

bool pna_module_dbm(uint32_t power_dw, int32_t *centi_dbm)
{
    if (power_dw == 0)
        return false;
    /* tenths of a microwatt to milliwatts: 1e-4 */
    *centi_dbm = (int32_t)lround(1000.0 * log10((double)power_dw * 1e-4));
    return true;
}

const char *pna_phy_first_error(const struct pna_phy_model *m)
{
    for (size_t i = 0; i < m->n_ifs; i++)
        if (m->ifs[i].error[0])
            return m->ifs[i].error;
    return "";
}

/* The kernel's enum ethtool_link_ext_state (+1 here) and, for the states
 * that have them, its substates (numbered from 1): uapi linux/ethtool.h. */
static const char *const ext_states[] = {
    "", "autonegotiation failure", "link training failure", "logical mismatch",
    "bad signal integrity", "no cable", "cable issue", "module EEPROM issue",
    "calibration failure", "power budget exceeded", "overheat", "module issue",
};
static const char *const an_substates[] = {
    "", "no partner detected", "ack not received", "next page exchange failed",
    "no partner detected in forced mode", "FEC mismatch during override", "no common mode",
};
static const char *const lt_substates[] = {
    "", "KR frame lock not acquired", "KR link inhibit timeout",
    "link partner did not set receiver ready", "remote fault",
};
static const char *const llm_substates[] = {
    "", "PCS did not acquire block lock", "PCS did not acquire AM lock",
    "PCS did not get align status", "FC FEC not locked", "RS FEC not locked",
};
static const char *const bsi_substates[] = {
    "", "many physical errors", "unsupported rate", "SerDes reference clock lost",
    "SerDes loss of signal",
};
static const char *const ci_substates[] = { "", "unsupported cable", "cable test failure" };
static const char *const module_substates[] = { "", "CMIS module not ready" };

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static const char *substate_name(uint8_t state, uint8_t sub)
{
    const char *const *names = NULL;
    size_t n = 0;
    switch (state) {
    case 1: names = an_substates; n = N_OF(an_substates); break;
    case 2: names = lt_substates; n = N_OF(lt_substates); break;
    case 3: names = llm_substates; n = N_OF(llm_substates); break;
    case 4: names = bsi_substates; n = N_OF(bsi_substates); break;
    case 6: names = ci_substates; n = N_OF(ci_substates); break;
    case 11: names = module_substates; n = N_OF(module_substates); break;
    }
    return names && sub < n ? names[sub] : NULL;
}

const char *pna_link_down_reason(uint8_t ext_state, uint8_t ext_substate, char *buf, size_t cap)
{
    if (ext_state == 0 || ext_state >= N_OF(ext_states)) {
        snprintf(buf, cap, ext_state ? "link state %u" : "", ext_state);
        return buf;
    }
    const char *sub = ext_substate ? substate_name(ext_state, ext_substate) : "";
    if (!sub)
        snprintf(buf, cap, "%s: substate %u", ext_states[ext_state], ext_substate);
    else if (sub[0])
        snprintf(buf, cap, "%s: %s", ext_states[ext_state], sub);
    else
        snprintf(buf, cap, "%s", ext_states[ext_state]);
    return buf;
}
