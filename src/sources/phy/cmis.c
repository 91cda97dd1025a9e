/* sources/phy/cmis.c -- a QSFP-DD/OSFP/QSFP112 module's EEPROM as CMIS
 * (4.0 to 5.x) lays it out: identity, module monitors and module flags from
 * page 00h; which monitors exist and the TX bias scale from page 01h;
 * thresholds from page 02h; lane flags and lane monitors from page 11h of
 * bank 0 (see module.h).
 *
 * Offsets are the specification's byte addresses: 0-127 the lower page,
 * 128-255 an upper page (PAGE1, PAGE2 and PAGE11 hold upper pages, indexed
 * from 128).  Every value is big-endian.  A flat-memory module (byte 2 bit 7:
 * passive copper) has only page 00h: no monitors, no thresholds.
 *
 * Lanes are the media lanes of the module's first application (a 400GBASE-DR4
 * module has 8 host lanes but 4 lasers); the lane monitors and flags of page
 * 11h are per media lane. */
#include "pna_autoconf.h"
#include "sources/phy/module.h"

#include <stdio.h>
#include <string.h>

#include "sources/phy/sff8024.h"

/* Lower page 00h. */
#define REV_COMPLIANCE 1
#define MEMORY_MODEL 2
#define MEMORY_MODEL_FLAT 0x80
#define FLAGS_TEMP_VCC 9           /* bits 0-3 temperature, 4-7 voltage */
#define MON_TEMP 14
#define MON_VCC 16
#define MEDIA_TYPE 85
#define APP1_MEDIA_ID 87           /* the first application descriptor: 86-89 */
#define APP1_LANE_COUNTS 88        /* bits 7-4 host lanes, 3-0 media lanes */

/* Upper page 00h. */
#define UP_IDENTIFIER 128
#define UP_VENDOR_NAME 129
#define UP_VENDOR_OUI 145
#define UP_VENDOR_PN 148
#define UP_VENDOR_REV 164
#define UP_VENDOR_SN 166
#define UP_DATE_CODE 182

/* Page 01h. */
#define P1_MODULE_MONITORS 159
#define P1_TEMP_MON 0x01
#define P1_VCC_MON 0x02
#define P1_LANE_MONITORS 160
#define P1_BIAS_MON 0x01
#define P1_TX_POWER_MON 0x02
#define P1_RX_POWER_MON 0x04
#define P1_BIAS_SCALE_SHIFT 3      /* bits 4-3: x1, x2, x4, reserved */

/* Page 02h: four thresholds per quantity (high alarm, low alarm, high
 * warning, low warning). */
#define THR_TEMP 128
#define THR_VCC 136
#define THR_TX_POWER 176
#define THR_TX_BIAS 184
#define THR_RX_POWER 192

/* Page 11h: one bit per media lane (bit 0 lane 1) per flag. */
#define F_TX_POWER 139             /* 139-142: high alarm, low alarm, high warn, low warn */
#define F_TX_BIAS 143              /* 143-146 */
#define F_RX_POWER 149             /* 149-152 */
#define M_TX_POWER 154             /* 8 lanes, 2 bytes each */
#define M_TX_BIAS 170
#define M_RX_POWER 186

#define CMIS_BANK_LANES 8

static const uint8_t *upper(const uint8_t *page, int offset)
{
    return page + (offset - 128);
}

static uint8_t module_flags(uint8_t nibble)
{
    /* CMIS orders a nibble as PNA_MODULE_FLAG_* does: bit 0 high alarm, 1
     * low alarm, 2 high warning, 3 low warning. */
    return nibble & 0x0f;
}

/* Lane LANE's flags from the four lane bitmaps at OFFSET of page 11h. */
static uint8_t lane_flags(const uint8_t *page11, int offset, int lane)
{
    const uint8_t *f = upper(page11, offset);
    uint8_t bit = (uint8_t)(1u << lane);
    return (uint8_t)((f[0] & bit ? PNA_MODULE_FLAG_HIGH_ALARM : 0) |
                     (f[1] & bit ? PNA_MODULE_FLAG_LOW_ALARM : 0) |
                     (f[2] & bit ? PNA_MODULE_FLAG_HIGH_WARNING : 0) |
                     (f[3] & bit ? PNA_MODULE_FLAG_LOW_WARNING : 0));
}

/* Media lanes of the first application; 0 when it is unused (0xFF host
 * interface) or says 0, so the bank's 8 are described.  -1: impossible. */
static int media_lanes(const uint8_t *p, char *err, size_t errlen)
{
    unsigned count = p[APP1_LANE_COUNTS] & 0x0f;
    if (p[86] == 0xff || count == 0)
        return CMIS_BANK_LANES;
    if (count > CMIS_BANK_LANES) {
        snprintf(err, errlen, "application 1 claims %u media lanes (at most %d)", count,
                 CMIS_BANK_LANES);
        return -1;
    }
    return (int)count;
}

static void identity(const uint8_t *p, struct pna_module *out)
{
    out->identifier = p[0];
    snprintf(out->identifier_text, sizeof out->identifier_text, "%s",
             pna_sff8024_identifier_name(p[0]));
    snprintf(out->spec_revision, sizeof out->spec_revision, "%u.%u",
             (unsigned)(p[REV_COMPLIANCE] >> 4), (unsigned)(p[REV_COMPLIANCE] & 0x0f));
    pna_module_text(out->vendor, sizeof out->vendor, p + UP_VENDOR_NAME, 16);
    pna_module_oui(out->vendor_oui, sizeof out->vendor_oui, p + UP_VENDOR_OUI);
    pna_module_text(out->part_number, sizeof out->part_number, p + UP_VENDOR_PN, 16);
    pna_module_text(out->revision, sizeof out->revision, p + UP_VENDOR_REV, 2);
    pna_module_text(out->serial, sizeof out->serial, p + UP_VENDOR_SN, 16);
    pna_module_text(out->date_code, sizeof out->date_code, p + UP_DATE_CODE, 8);
    if (p[86] != 0xff)
        snprintf(out->media, sizeof out->media, "%s",
                 pna_sff8024_media_name(p[MEDIA_TYPE], p[APP1_MEDIA_ID]));
}

/* Four thresholds at OFFSET of page 02h, each raw value times SCALE. */
static void thresholds(const uint8_t *page2, int offset, int64_t scale,
                       struct pna_module_thresholds *t)
{
    pna_module_thresholds(upper(page2, offset), scale, t);
}

static void temp_thresholds(const uint8_t *page2, struct pna_module_thresholds *t)
{
    pna_module_temp_thresholds(upper(page2, THR_TEMP), t);
}

static void module_monitors(const uint8_t *p, const uint8_t *page1, const uint8_t *page2,
                            struct pna_module *out)
{
    uint8_t supported = upper(page1, P1_MODULE_MONITORS)[0];
    out->has_module_flags = true;
    out->temperature_flags = module_flags(p[FLAGS_TEMP_VCC]);
    out->voltage_flags = module_flags(p[FLAGS_TEMP_VCC] >> 4);
    if (supported & P1_TEMP_MON) {
        out->has_temperature = true;
        out->temperature_mc = (int32_t)pna_module_temp_mc(pna_be16s(p + MON_TEMP));
        temp_thresholds(page2, &out->temperature_thr);
    }
    if (supported & P1_VCC_MON) {
        out->has_voltage = true;
        out->voltage_uv = pna_be16(p + MON_VCC) * 100u;
        thresholds(page2, THR_VCC, 100, &out->voltage_thr);
    }
}

/* Lane monitors; BIAS_UA is the microamperes of one bias unit (2 uA times
 * the multiplier of page 01h). */
static void lane_monitors(uint8_t supported, unsigned bias_ua, const uint8_t *page2,
                          const uint8_t *page11, struct pna_module *out)
{
    bool bias = supported & P1_BIAS_MON, tx = supported & P1_TX_POWER_MON,
         rx = supported & P1_RX_POWER_MON;
    if (bias)
        thresholds(page2, THR_TX_BIAS, bias_ua, &out->bias_thr);
    if (tx)
        thresholds(page2, THR_TX_POWER, 1, &out->tx_power_thr);
    if (rx)
        thresholds(page2, THR_RX_POWER, 1, &out->rx_power_thr);
    for (uint32_t i = 0; i < out->lanes; i++) {
        struct pna_module_lane *l = &out->lane[i];
        int lane = (int)i;
        l->has_flags = bias || tx || rx;
        l->has_bias = bias;
        l->has_tx_power = tx;
        l->has_rx_power = rx;
        if (bias) {
            l->bias_ua = pna_be16(upper(page11, M_TX_BIAS) + 2 * lane) * bias_ua;
            l->bias_flags = lane_flags(page11, F_TX_BIAS, lane);
        }
        if (tx) {
            l->tx_power_dw = pna_be16(upper(page11, M_TX_POWER) + 2 * lane);
            l->tx_power_flags = lane_flags(page11, F_TX_POWER, lane);
        }
        if (rx) {
            l->rx_power_dw = pna_be16(upper(page11, M_RX_POWER) + 2 * lane);
            l->rx_power_flags = lane_flags(page11, F_RX_POWER, lane);
        }
    }
}

/* The diagnostics of a paged module. */
static int diagnostics(const uint8_t *p, const uint8_t *page1, const uint8_t *page2,
                       const uint8_t *page11, struct pna_module *out, char *err, size_t errlen)
{
    if (!page1 || !page2 || !page11) {
        snprintf(err, errlen, "paged CMIS module without its page %s",
                 !page1 ? "01h" : !page2 ? "02h" : "11h");
        return -1;
    }
    uint8_t lane_supported = upper(page1, P1_LANE_MONITORS)[0];
    unsigned scale = (lane_supported >> P1_BIAS_SCALE_SHIFT) & 0x3;
    if (scale == 3) {
        snprintf(err, errlen, "page 01h byte 160: reserved TX bias multiplier (bits 4-3 = 11b)");
        return -1;
    }
    module_monitors(p, page1, page2, out);
    lane_monitors(lane_supported, 2u << scale, page2, page11, out);
    return 0;
}

int pna_cmis_decode(const uint8_t *lower_upper0, const uint8_t *page1, const uint8_t *page2,
                    const uint8_t *page11, struct pna_module *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    const uint8_t *p = lower_upper0;
    if (pna_sff8024_spec(p[0]) != PNA_MODULE_SPEC_CMIS) {
        snprintf(err, errlen, "identifier 0x%02x (%s) is not a CMIS module", p[0],
                 pna_sff8024_identifier_name(p[0]));
        return -1;
    }
    if (p[REV_COMPLIANCE] < 0x10) {
        /* Major revision 0 was never published: a blank or half-written
         * page 00h, not a module to trust. */
        snprintf(err, errlen, "CMIS revision %u.%u does not exist", p[REV_COMPLIANCE] >> 4,
                 p[REV_COMPLIANCE] & 0x0f);
        return -1;
    }
    if (p[UP_IDENTIFIER] != p[0] && pna_sff8024_spec(p[UP_IDENTIFIER]) != PNA_MODULE_SPEC_CMIS) {
        snprintf(err, errlen, "upper page 00h identifier 0x%02x contradicts byte 0 (0x%02x)",
                 p[UP_IDENTIFIER], p[0]);
        return -1;
    }
    int lanes = media_lanes(p, err, errlen);
    if (lanes < 0)
        return -1;
    out->spec = PNA_MODULE_SPEC_CMIS;
    out->flat_memory = p[MEMORY_MODEL] & MEMORY_MODEL_FLAT;
    out->lanes = (uint32_t)lanes;
    identity(p, out);
    if (!out->flat_memory && diagnostics(p, page1, page2, page11, out, err, errlen) != 0) {
        memset(out, 0, sizeof *out);
        return -1;
    }
    out->present = true;
    return 0;
}
