/* sources/phy/sff8024.c -- SFF-8024 code tables and the EEPROM field readers
 * the SFF-8636, CMIS and SFF-8472 decoders share (see sff8024.h).  The names
 * are SFF-8024's own, without the clause references, and only the codes an
 * AI/HPC fabric is likely to carry are named: an unnamed code gives "", never
 * a guess. */
#include "pna_autoconf.h"
#include "sources/phy/sff8024.h"

#include <stdio.h>
#include <string.h>

struct code_name {
    uint8_t code;
    const char *name;
};

static const char *lookup(const struct code_name *table, size_t n, uint8_t code)
{
    for (size_t i = 0; i < n; i++)
        if (table[i].code == code)
            return table[i].name;
    return "";
}

#define LOOKUP(table, code) lookup(table, sizeof table / sizeof table[0], code)

/* SFF-8024 Table 4-1 (Identifier Values). */
static const struct code_name identifiers[] = {
    {0x00, "Unknown or unspecified"},
    {0x01, "GBIC"},
    {0x02, "Module soldered to motherboard"},
    {0x03, "SFP/SFP+/SFP28"},
    {0x04, "300 pin XBI"},
    {0x05, "XENPAK"},
    {0x06, "XFP"},
    {0x07, "XFF"},
    {0x08, "XFP-E"},
    {0x09, "XPAK"},
    {0x0A, "X2"},
    {0x0B, "DWDM-SFP/SFP+"},
    {0x0C, "QSFP"},
    {0x0D, "QSFP+ or later with SFF-8636"},
    {0x0E, "CXP or later"},
    {0x0F, "Shielded Mini Multilane HD 4X"},
    {0x10, "Shielded Mini Multilane HD 8X"},
    {0x11, "QSFP28 or later with SFF-8636"},
    {0x12, "CXP2 (CXP28)"},
    {0x13, "CDFP (Style 1/Style 2)"},
    {0x14, "Shielded Mini Multilane HD 4X Fanout Cable"},
    {0x15, "Shielded Mini Multilane HD 8X Fanout Cable"},
    {0x16, "CDFP (Style 3)"},
    {0x17, "microQSFP"},
    {0x18, "QSFP-DD Double Density 8X Pluggable Transceiver"},
    {0x19, "OSFP 8X Pluggable Transceiver"},
    {0x1A, "SFP-DD Double Density 2X Pluggable Transceiver"},
    {0x1B, "DSFP Dual Small Form Factor Pluggable"},
    {0x1C, "x4 MiniLink/OcuLink"},
    {0x1D, "x8 MiniLink"},
    {0x1E, "QSFP+ or later with CMIS"},
    {0x1F, "SFP-DD with CMIS"},
    {0x20, "SFP+ and later with CMIS"},
    {0x21, "OSFP-XD with CMIS"},
    {0x22, "OIF-ELSFP with CMIS"},
    {0x23, "CDFP (x4 PCIe) with CMIS"},
    {0x24, "CDFP (x8 PCIe) with CMIS"},
    {0x25, "CDFP (x16 PCIe) with CMIS"},
};

enum pna_module_spec pna_sff8024_spec(uint8_t identifier)
{
    switch (identifier) {
    case 0x03:
        return PNA_MODULE_SPEC_SFF8472;
    case 0x0C: /* QSFP: INF-8438, whose memory map SFF-8636 kept */
    case 0x0D:
    case 0x11:
        return PNA_MODULE_SPEC_SFF8636;
    case 0x18:
    case 0x19:
    case 0x1E:
    case 0x1F:
    case 0x20:
    case 0x21:
    case 0x22:
    case 0x23:
    case 0x24:
    case 0x25:
        return PNA_MODULE_SPEC_CMIS;
    default:
        /* 0x1A SFP-DD has its own management interface and 0x1B DSFP its
         * own MSA: neither is decoded here. */
        return PNA_MODULE_SPEC_UNKNOWN;
    }
}

const char *pna_sff8024_identifier_name(uint8_t identifier)
{
    const char *name = LOOKUP(identifiers, identifier);
    if (*name)
        return name;
    return identifier >= 0x80 ? "Vendor specific" : "Reserved";
}

/* SFF-8024 Table 4-6 (MMF media interface codes). */
static const struct code_name mmf_media[] = {
    {0x01, "10GBASE-SW"},     {0x02, "10GBASE-SR"},    {0x03, "25GBASE-SR"},
    {0x04, "40GBASE-SR4"},    {0x05, "40GE SWDM4"},    {0x06, "40GE BiDi"},
    {0x07, "50GBASE-SR"},     {0x08, "100GBASE-SR10"}, {0x09, "100GBASE-SR4"},
    {0x0A, "100GE SWDM4"},    {0x0B, "100GE BiDi"},    {0x0C, "100GBASE-SR2"},
    {0x0D, "100GBASE-SR1"},   {0x0E, "200GBASE-SR4"},  {0x0F, "400GBASE-SR16"},
    {0x10, "400GBASE-SR8"},   {0x11, "400GBASE-SR4"},  {0x12, "800GBASE-SR8"},
    {0x1A, "400GBASE-SR4.2"},
};

/* SFF-8024 Table 4-7 (SMF media interface codes). */
static const struct code_name smf_media[] = {
    {0x01, "10GBASE-LW"},     {0x02, "10GBASE-EW"},    {0x03, "10G-ZW"},
    {0x04, "10GBASE-LR"},     {0x05, "10GBASE-ER"},    {0x06, "10G-ZR"},
    {0x07, "25GBASE-LR"},     {0x08, "25GBASE-ER"},    {0x09, "40GBASE-LR4"},
    {0x0A, "40GBASE-FR"},     {0x0B, "50GBASE-FR"},    {0x0C, "50GBASE-LR"},
    {0x0D, "100GBASE-LR4"},   {0x0E, "100GBASE-ER4"},  {0x0F, "100G PSM4"},
    {0x10, "100G CWDM4"},     {0x11, "100G 4WDM-10"},  {0x12, "100G 4WDM-20"},
    {0x13, "100G 4WDM-40"},   {0x14, "100GBASE-DR"},   {0x15, "100GBASE-FR1"},
    {0x16, "100GBASE-LR1"},   {0x17, "200GBASE-DR4"},  {0x18, "200GBASE-FR4"},
    {0x19, "200GBASE-LR4"},   {0x1A, "400GBASE-FR8"},  {0x1B, "400GBASE-LR8"},
    {0x1C, "400GBASE-DR4"},   {0x1D, "400GBASE-FR4"},  {0x1E, "400G-LR4-10"},
};

const char *pna_sff8024_media_name(uint8_t media_type, uint8_t code)
{
    switch (media_type) {
    case 0x01:
        return LOOKUP(mmf_media, code);
    case 0x02:
        return LOOKUP(smf_media, code);
    case 0x03: /* Table 4-8: one code */
        return code == 0x01 ? "Copper cable" : "";
    default:
        return "";
    }
}

/* SFF-8024 Table 4-4 (extended specification compliance codes). */
static const struct code_name ext_compliance[] = {
    {0x01, "100G AOC or 25GAUI C2M AOC"},
    {0x02, "100GBASE-SR4 or 25GBASE-SR"},
    {0x03, "100GBASE-LR4 or 25GBASE-LR"},
    {0x04, "100GBASE-ER4 or 25GBASE-ER"},
    {0x05, "100GBASE-SR10"},
    {0x06, "100G CWDM4"},
    {0x07, "100G PSM4 Parallel SMF"},
    {0x08, "100G ACC or 25GAUI C2M ACC"},
    {0x0B, "100GBASE-CR4 or 25GBASE-CR CA-25G-L"},
    {0x0C, "25GBASE-CR CA-25G-S"},
    {0x0D, "25GBASE-CR CA-25G-N"},
    {0x10, "40GBASE-ER4"},
    {0x11, "4 x 10GBASE-SR"},
    {0x12, "40G PSM4 Parallel SMF"},
    {0x16, "10GBASE-T with SFI electrical interface"},
    {0x17, "100G CLR4"},
    {0x18, "100G AOC or 25GAUI C2M AOC"},
    {0x19, "100G ACC or 25GAUI C2M ACC"},
};

const char *pna_sff8024_ext_compliance_name(uint8_t code)
{
    return LOOKUP(ext_compliance, code);
}

static int is_padding(uint8_t c)
{
    return c == ' ' || c == '\0';
}

void pna_module_text(char *dst, size_t cap, const uint8_t *field, size_t len)
{
    if (!cap)
        return;
    size_t start = 0, end = len;
    while (start < end && is_padding(field[start]))
        start++;
    while (end > start && is_padding(field[end - 1]))
        end--;
    size_t n = 0;
    for (size_t i = start; i < end && n + 1 < cap; i++)
        dst[n++] = field[i] >= 0x20 && field[i] < 0x7f ? (char)field[i] : '?';
    dst[n] = '\0';
}

void pna_module_oui(char *dst, size_t cap, const uint8_t *oui)
{
    snprintf(dst, cap, "%02x:%02x:%02x", oui[0], oui[1], oui[2]);
}

int64_t pna_module_temp_mc(int16_t raw)
{
    int64_t scaled = (int64_t)raw * 1000;
    return scaled >= 0 ? (scaled + 128) / 256 : -((-scaled + 128) / 256);
}

void pna_module_thresholds(const uint8_t *p, int64_t scale, struct pna_module_thresholds *t)
{
    t->present = true;
    t->high_alarm = pna_be16(p) * scale;
    t->low_alarm = pna_be16(p + 2) * scale;
    t->high_warning = pna_be16(p + 4) * scale;
    t->low_warning = pna_be16(p + 6) * scale;
}

void pna_module_temp_thresholds(const uint8_t *p, struct pna_module_thresholds *t)
{
    t->present = true;
    t->high_alarm = pna_module_temp_mc(pna_be16s(p));
    t->low_alarm = pna_module_temp_mc(pna_be16s(p + 2));
    t->high_warning = pna_module_temp_mc(pna_be16s(p + 4));
    t->low_warning = pna_module_temp_mc(pna_be16s(p + 6));
}
