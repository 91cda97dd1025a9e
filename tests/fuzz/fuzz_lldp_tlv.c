/* fuzz_lldp_tlv.c -- libFuzzer harness for the IEEE 802.1Qaz PFC
 * Configuration TLV decoder (sources/pfc/lldp_tlv.c), which reads octets any
 * LLDP neighbour may send.  The input is one organizationally specific TLV as
 * lldpd hands it over:
 *   bytes 0..2   OUI (00 80 c2 for IEEE 802.1)
 *   byte 3       subtype (0x0b: PFC Configuration)
 *   the rest     the information string
 * pna_lldp_org_tlv_pfc() takes it so, and pna_lldp_parse_pfc_tlv() takes the
 * information string, then the whole input.  What they report must be the
 * octets' bits: a decoder that accepts and reports something else aborts. */
#include "pna_autoconf.h"
#include "sources/pfc/lldp.h"
#include "fuzz.h"

#include <stdlib.h>
#include <string.h>

static void parse_and_check(const uint8_t *info, size_t len)
{
    uint8_t en = 0, cap = 0;
    bool mbc = false, willing = false;
    if (!pna_lldp_parse_pfc_tlv(info, len, &en, &cap, &mbc, &willing))
        return;
    if (len != 2 || en != info[1] || cap != (info[0] & 0x0f) || cap > 8 ||
        mbc != ((info[0] & 0x40) != 0) || willing != ((info[0] & 0x80) != 0))
        abort();
    pna_lldp_parse_pfc_tlv(info, len, NULL, NULL, NULL, NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t oui_len = size < 3 ? size : 3;
    long subtype = size > 3 ? data[3] : -1;
    const uint8_t *info = size > 4 ? data + 4 : NULL;
    size_t len = size > 4 ? size - 4 : 0;

    struct pna_lldp_neighbor n;
    memset(&n, 0, sizeof n);
    bool pfc = pna_lldp_org_tlv_pfc(size ? data : NULL, oui_len, subtype, info, len, &n);
    if (pfc != n.pfc_known || (pfc && (len != 2 || n.pfc_en != info[1])))
        abort();
    parse_and_check(info, len);
    parse_and_check(data, size);
    return 0;
}
