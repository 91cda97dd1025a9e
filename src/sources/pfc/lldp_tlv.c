/* sources/pfc/lldp_tlv.c -- the IEEE 802.1Qaz PFC Configuration TLV a
 * neighbour advertises (see lldp.h).  Pure: bytes in, fields out, so that it
 * is built without liblldpctl and fuzzed alone (tests/fuzz/fuzz_lldp_tlv.c).
 *
 * lldpd does not decode this TLV itself: it keeps every organizationally
 * specific TLV it does not know (802.1 subtypes other than 1..4 included) as
 * a "custom" TLV of the neighbour, OUI, subtype and information string as
 * received, which liblldpctl hands over unchanged.
 *
 * The TLV (type 127, length 6) after its OUI 00-80-C2 and subtype 0x0B:
 *
 *   octet 1   bit 8 willing, bit 7 MBC, bits 6..5 reserved, bits 4..1 PFC cap
 *   octet 2   PFC enable: bit p (LSB = priority 0) set when PFC is on for p
 *
 * The length is fixed by the standard, so any other is refused rather than
 * guessed at.  Reserved bits are ignored on receipt, as 802.1 asks of every
 * receiver; a capability above 8 cannot be (there are 8 traffic classes) and
 * marks the TLV as garbage. */
#include "pna_autoconf.h"
#include "sources/pfc/lldp.h"

#define PFC_WILLING 0x80u
#define PFC_MBC 0x40u
#define PFC_CAP_MASK 0x0fu

bool pna_lldp_parse_pfc_tlv(const uint8_t *info, size_t len, uint8_t *pfc_en, uint8_t *pfc_cap,
                            bool *mbc, bool *willing)
{
    if (!info || len != PNA_LLDP_PFC_INFO_LEN)
        return false;
    uint8_t cap = info[0] & PFC_CAP_MASK;
    if (cap > PNA_LLDP_PFC_CAP_MAX)
        return false;
    if (pfc_en)
        *pfc_en = info[1];
    if (pfc_cap)
        *pfc_cap = cap;
    if (mbc)
        *mbc = (info[0] & PFC_MBC) != 0;
    if (willing)
        *willing = (info[0] & PFC_WILLING) != 0;
    return true;
}

bool pna_lldp_org_tlv_pfc(const uint8_t *oui, size_t oui_len, long subtype, const uint8_t *info,
                          size_t len, struct pna_lldp_neighbor *n)
{
    if (!oui || oui_len != 3 || subtype != PNA_LLDP_SUBTYPE_PFC)
        return false;
    uint32_t id = (uint32_t)oui[0] << 16 | (uint32_t)oui[1] << 8 | oui[2];
    if (id != PNA_LLDP_OUI_IEEE_8021)
        return false;
    uint8_t en;
    if (!pna_lldp_parse_pfc_tlv(info, len, &en, NULL, NULL, NULL))
        return false;
    n->pfc_known = true;
    n->pfc_en = en;
    return true;
}
