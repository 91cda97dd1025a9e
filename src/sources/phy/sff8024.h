/* sources/phy/sff8024.h -- what the module decoders share: the SFF-8024 code
 * tables (identifiers, media interface codes, extended compliance codes) and
 * the reading of the EEPROM's fixed-width fields (big-endian numbers, ASCII
 * text, the vendor OUI).  Private to sources/phy/. */
#ifndef PNA_SOURCES_PHY_SFF8024_H
#define PNA_SOURCES_PHY_SFF8024_H

#include <stddef.h>
#include <stdint.h>

#include "model/phy/phy.h"

/* The management interface a module with this identifier (SFF-8024 Table
 * 4-1, byte 0) follows; PNA_MODULE_SPEC_UNKNOWN for one not decoded here. */
enum pna_module_spec pna_sff8024_spec(uint8_t identifier);

/* SFF-8024's name of the identifier ("QSFP28 or later with SFF-8636 ...",
 * "Reserved", "Vendor specific"), shortened to fit identifier_text. */
const char *pna_sff8024_identifier_name(uint8_t identifier);

/* The media interface of a CMIS application: MEDIA_TYPE is CMIS byte 85
 * (1 MMF, 2 SMF, 3 passive copper, 4 active cable, 5 BASE-T), CODE the
 * descriptor's media interface ID.  "400GBASE-DR4"; "" not named here. */
const char *pna_sff8024_media_name(uint8_t media_type, uint8_t code);

/* SFF-8024 Table 4-4, extended specification compliance (SFF-8636 byte 192,
 * SFF-8472 byte 36).  "" unspecified or not named here. */
const char *pna_sff8024_ext_compliance_name(uint8_t code);

/* Big-endian 16-bit values, as every SFF and CMIS monitor is stored. */
static inline uint16_t pna_be16(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}

static inline int16_t pna_be16s(const uint8_t *p)
{
    return (int16_t)pna_be16(p);
}

/* An ASCII field of LEN bytes into DST (CAP bytes, always terminated):
 * padding (spaces and NULs) trimmed at both ends, any other byte outside
 * printable ASCII written as '?', so a damaged field stays visible as such. */
void pna_module_text(char *dst, size_t cap, const uint8_t *field, size_t len);

/* Three bytes of OUI as "00:1c:73" (DST holds at least 9). */
void pna_module_oui(char *dst, size_t cap, const uint8_t *oui);

/* Thousandths of a degree from the SFF/CMIS signed 1/256 degree unit,
 * rounded to nearest. */
int64_t pna_module_temp_mc(int16_t raw);

/* The four thresholds of one monitored value as SFF-8636 (page 03h) and
 * CMIS (page 02h) both lay them out at P: high alarm, low alarm, high
 * warning, low warning, big-endian 16-bit, each times SCALE; the
 * temperature's are signed 1/256 degrees, into thousandths of a degree. */
void pna_module_thresholds(const uint8_t *p, int64_t scale, struct pna_module_thresholds *t);
void pna_module_temp_thresholds(const uint8_t *p, struct pna_module_thresholds *t);

#endif
