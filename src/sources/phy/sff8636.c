/* sources/phy/sff8636.c -- a QSFP/QSFP+/QSFP28 module's EEPROM as SFF-8636
 * rev 2.10a lays it out: identity from upper page 00h, monitors and latched
 * flags from lower page 00h, thresholds from upper page 03h (see module.h).
 *
 * Offsets are the specification's byte addresses: 0-127 the lower page,
 * 128-255 an upper page (PAGE3 holds upper page 03h, indexed from 128).
 * Every value is big-endian.  A flat-memory module (byte 2 bit 2: passive
 * copper) has no page 03h and no diagnostics. */
#include "pna_autoconf.h"
#include "sources/phy/module.h"

#include <stdio.h>
#include <string.h>

#include "sources/phy/sff8024.h"

#define SFF8636_LANES 4

/* Lower page 00h. */
#define REV_COMPLIANCE 1
#define STATUS 2
#define STATUS_FLAT_MEM 0x04
#define STATUS_DATA_NOT_READY 0x01
#define FLAGS_TEMP 6               /* bits 7..4: high alarm, low alarm, high warn, low warn */
#define FLAGS_VCC 7
#define FLAGS_RX_POWER 9           /* 9-10: lanes 1-2, 3-4, a nibble each, odd lane high */
#define FLAGS_TX_BIAS 11           /* 11-12 */
#define FLAGS_TX_POWER 13          /* 13-14 */
#define MON_TEMP 22
#define MON_VCC 26
#define MON_RX_POWER 34            /* lanes 1-4, 2 bytes each */
#define MON_TX_BIAS 42
#define MON_TX_POWER 50

/* Upper page 00h. */
#define UP_IDENTIFIER 128
#define UP_COMPLIANCE 131          /* 10/40/100G Ethernet compliance bits */
#define UP_COMPLIANCE_EXTENDED 0x80
#define UP_VENDOR_NAME 148
#define UP_VENDOR_OUI 165
#define UP_VENDOR_PN 168
#define UP_VENDOR_REV 184
#define UP_EXT_COMPLIANCE 192
#define UP_VENDOR_SN 196
#define UP_DATE_CODE 212
#define UP_DIAG_TYPE 220
#define DIAG_TEMP 0x20
#define DIAG_VCC 0x10
#define DIAG_TX_POWER 0x04

/* Upper page 03h: four thresholds per quantity (high alarm, low alarm, high
 * warning, low warning). */
#define THR_TEMP 128
#define THR_VCC 144
#define THR_RX_POWER 176
#define THR_TX_BIAS 184
#define THR_TX_POWER 192

/* Byte 1, SFF-8636 Table 6-3, named by the revisions it covers. */
static const char *revision_name(uint8_t code)
{
    static const char *const names[] = {
        "", "8436-4.8", "8436-4.8", "1.3", "1.4", "1.5", "2.0", "2.5-2.7", "2.8-2.10",
    };
    return code < sizeof names / sizeof names[0] ? names[code] : "";
}

/* The four flag bits of a nibble (high alarm, low alarm, high warning, low
 * warning from its most significant bit) as PNA_MODULE_FLAG_*. */
static uint8_t nibble_flags(uint8_t nibble)
{
    return (uint8_t)((nibble & 0x8 ? PNA_MODULE_FLAG_HIGH_ALARM : 0) |
                     (nibble & 0x4 ? PNA_MODULE_FLAG_LOW_ALARM : 0) |
                     (nibble & 0x2 ? PNA_MODULE_FLAG_HIGH_WARNING : 0) |
                     (nibble & 0x1 ? PNA_MODULE_FLAG_LOW_WARNING : 0));
}

/* Lane LANE's (0-3) flags from the two bytes at OFFSET. */
static uint8_t lane_flags(const uint8_t *p, int offset, int lane)
{
    uint8_t byte = p[offset + lane / 2];
    return nibble_flags(lane % 2 ? byte & 0x0f : byte >> 4);
}

static void media_text(const uint8_t *p, struct pna_module *out)
{
    static const char *const compliance[] = {
        "40G Active Cable (XLPPI)", "40GBASE-LR4", "40GBASE-SR4", "40GBASE-CR4",
        "10GBASE-SR", "10GBASE-LR", "10GBASE-LRM",
    };
    const char *name = "";
    if (p[UP_COMPLIANCE] & UP_COMPLIANCE_EXTENDED)
        name = pna_sff8024_ext_compliance_name(p[UP_EXT_COMPLIANCE]);
    else
        for (int bit = 6; bit >= 0 && !*name; bit--)
            if (p[UP_COMPLIANCE] & 1u << bit)
                name = compliance[bit];
    snprintf(out->media, sizeof out->media, "%s", name);
}

static void identity(const uint8_t *p, struct pna_module *out)
{
    out->identifier = p[0];
    snprintf(out->identifier_text, sizeof out->identifier_text, "%s",
             pna_sff8024_identifier_name(p[0]));
    snprintf(out->spec_revision, sizeof out->spec_revision, "%s",
             revision_name(p[REV_COMPLIANCE]));
    pna_module_text(out->vendor, sizeof out->vendor, p + UP_VENDOR_NAME, 16);
    pna_module_oui(out->vendor_oui, sizeof out->vendor_oui, p + UP_VENDOR_OUI);
    pna_module_text(out->part_number, sizeof out->part_number, p + UP_VENDOR_PN, 16);
    pna_module_text(out->revision, sizeof out->revision, p + UP_VENDOR_REV, 2);
    pna_module_text(out->serial, sizeof out->serial, p + UP_VENDOR_SN, 16);
    pna_module_text(out->date_code, sizeof out->date_code, p + UP_DATE_CODE, 8);
    media_text(p, out);
    out->lanes = SFF8636_LANES;
}

/* Four thresholds at OFFSET of page 03h, each raw value times SCALE. */
static void thresholds(const uint8_t *page3, int offset, int64_t scale,
                       struct pna_module_thresholds *t)
{
    pna_module_thresholds(page3 + (offset - 128), scale, t);
}

static void temp_thresholds(const uint8_t *page3, struct pna_module_thresholds *t)
{
    pna_module_temp_thresholds(page3 + (THR_TEMP - 128), t);
}

/* Monitors and flags of lower page 00h; units: bias 2 uA, power 0.1 uW,
 * voltage 100 uV, temperature 1/256 degree. */
static void monitors(const uint8_t *p, uint8_t diag, struct pna_module *out)
{
    out->has_module_flags = true;
    out->temperature_flags = nibble_flags(p[FLAGS_TEMP] >> 4);
    out->voltage_flags = nibble_flags(p[FLAGS_VCC] >> 4);
    bool ready = !(p[STATUS] & STATUS_DATA_NOT_READY);
    out->has_temperature = ready && (diag & DIAG_TEMP);
    if (out->has_temperature)
        out->temperature_mc = (int32_t)pna_module_temp_mc(pna_be16s(p + MON_TEMP));
    out->has_voltage = ready && (diag & DIAG_VCC);
    if (out->has_voltage)
        out->voltage_uv = pna_be16(p + MON_VCC) * 100u;
    for (int i = 0; i < SFF8636_LANES; i++) {
        struct pna_module_lane *l = &out->lane[i];
        l->has_flags = true;
        l->rx_power_flags = lane_flags(p, FLAGS_RX_POWER, i);
        l->bias_flags = lane_flags(p, FLAGS_TX_BIAS, i);
        l->tx_power_flags = lane_flags(p, FLAGS_TX_POWER, i);
        l->has_bias = ready;
        l->has_rx_power = ready;
        l->has_tx_power = ready && (diag & DIAG_TX_POWER);
        if (l->has_bias)
            l->bias_ua = pna_be16(p + MON_TX_BIAS + 2 * i) * 2u;
        if (l->has_rx_power)
            l->rx_power_dw = pna_be16(p + MON_RX_POWER + 2 * i);
        if (l->has_tx_power)
            l->tx_power_dw = pna_be16(p + MON_TX_POWER + 2 * i);
    }
}

int pna_sff8636_decode(const uint8_t *lower_upper0, const uint8_t *page3, struct pna_module *out,
                       char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    const uint8_t *p = lower_upper0;
    if (pna_sff8024_spec(p[0]) != PNA_MODULE_SPEC_SFF8636) {
        snprintf(err, errlen, "identifier 0x%02x (%s) is not an SFF-8636 module", p[0],
                 pna_sff8024_identifier_name(p[0]));
        return -1;
    }
    if (p[UP_IDENTIFIER] != p[0] && pna_sff8024_spec(p[UP_IDENTIFIER]) != PNA_MODULE_SPEC_SFF8636) {
        snprintf(err, errlen, "upper page 00h identifier 0x%02x contradicts byte 0 (0x%02x)",
                 p[UP_IDENTIFIER], p[0]);
        return -1;
    }
    out->flat_memory = p[STATUS] & STATUS_FLAT_MEM;
    if (!out->flat_memory && !page3) {
        snprintf(err, errlen, "paged SFF-8636 module without its page 03h");
        return -1;
    }
    out->spec = PNA_MODULE_SPEC_SFF8636;
    identity(p, out);
    if (!out->flat_memory) {
        uint8_t diag = p[UP_DIAG_TYPE];
        monitors(p, diag, out);
        if (diag & DIAG_TEMP)
            temp_thresholds(page3, &out->temperature_thr);
        if (diag & DIAG_VCC)
            thresholds(page3, THR_VCC, 100, &out->voltage_thr);
        thresholds(page3, THR_TX_BIAS, 2, &out->bias_thr);
        thresholds(page3, THR_RX_POWER, 1, &out->rx_power_thr);
        if (diag & DIAG_TX_POWER)
            thresholds(page3, THR_TX_POWER, 1, &out->tx_power_thr);
    }
    out->present = true;
    return 0;
}
