/* fuzz_ethtool_nl.c -- libFuzzer harness for the ethtool netlink reply
 * parsers (sources/phy/ethtool_nl_*.c).  The first octet picks the parser
 * (modulo 5): 0 pna_ethnl_parse_linkstate, 1 _fec, 2 _stats, 3 _pause,
 * 4 pna_ethnl_parse_eeprom, whose requested length is the second octet
 * modulo 128, plus 1.  The rest is the byte stream the kernel sends for
 * that request, as pna_ethnl_read_phy() hands it over (seeds:
 * tests/fixtures/ethtool-nl/, real and built).
 *
 * Besides the sanitizers, the harness aborts when an answer breaks its
 * promises: 0 with an error line, a negative errno without one, anything
 * above 0; an error line or FEC mode text not NUL-terminated; after a
 * failure, anything left of the request's part; a counter of another
 * request's part touched; EEPROM data written when the read failed.  The parsers build without libmnl, so this harness
 * runs the same in both builds.
 *
 * Each phy input is parsed twice, over counters marked from two different
 * bases: libFuzzer learns constants from comparisons and will hand a parser
 * one marker as a real counter value, but a deterministic parser cannot
 * produce both. */
#include "pna_autoconf.h"
#include "sources/phy/ethtool_nl.h"
#include "fuzz.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

typedef int parse_fn(const void *buf, size_t len, struct pna_phy_if *out);

/* The counters each phy request owns (phy.h's order). */
static bool owned(unsigned which, int c)
{
    switch (which) {
    case 0: return c == PNA_PHY_LINK_DOWN_EVENTS;
    case 1: return c <= PNA_PHY_FEC_CORRECTED_BITS;
    case 2: return c >= PNA_PHY_SYMBOL_ERRORS && c <= PNA_PHY_RMON_JABBERS;
    default: return c == PNA_PHY_PAUSE_TX_FRAMES || c == PNA_PHY_PAUSE_RX_FRAMES;
    }
}

/* Parse with every counter present and marked from BASE; abort on a broken
 * promise other than "its own part was cleared", which needs both runs.
 * Marks in cleared[] the owned counters still carrying their marker. */
static void phy_once(unsigned which, const uint8_t *data, size_t size, uint32_t base,
                     bool *cleared)
{
    static parse_fn *const fns[] = {pna_ethnl_parse_linkstate, pna_ethnl_parse_fec,
                                    pna_ethnl_parse_stats, pna_ethnl_parse_pause};
    struct pna_phy_if p;
    memset(&p, 0, sizeof p);
    memcpy(p.ifname, "eth0", 5);
    /* every counter present with a marker: a request may change only its own */
    for (int c = 0; c < PNA_PHY_COUNT; c++)
        p.c[c] = (struct pna_counter){.value = base + (unsigned)c, .present = true};
    int rc = fns[which](data, size, &p);
    size_t elen = strnlen(p.error, sizeof p.error);
    if (elen == sizeof p.error || strnlen(p.fec.configured, sizeof p.fec.configured) ==
                                      sizeof p.fec.configured)
        abort();
    if (rc == 0 && elen != 0)
        abort();
    if (rc != 0 && (rc > 0 || elen == 0))
        abort();
    if (strcmp(p.ifname, "eth0") != 0)
        abort();
    for (int c = 0; c < PNA_PHY_COUNT; c++) {
        bool marker = p.c[c].present && p.c[c].value == base + (unsigned)c;
        if (!owned(which, c) && !marker)
            abort(); /* another part was touched */
        if (owned(which, c) && marker)
            cleared[c] = false;
        if (owned(which, c) && rc != 0 && p.c[c].present)
            abort();
    }
    if (rc != 0 && (p.link.read || p.fec.read || p.stats_read || p.link.has_link ||
                    p.fec.configured[0] || p.fec.active != PNA_FEC_UNKNOWN))
        abort();
    if (p.fec.active > PNA_FEC_OTHER || (p.link.has_sqi && !p.link.read))
        abort();
}

static void phy(unsigned which, const uint8_t *data, size_t size)
{
    bool cleared_a[PNA_PHY_COUNT], cleared_b[PNA_PHY_COUNT];
    memset(cleared_a, 1, sizeof cleared_a);
    memset(cleared_b, 1, sizeof cleared_b);
    phy_once(which, data, size, 0x5eed0000u, cleared_a);
    phy_once(which, data, size, 0xfeed0000u, cleared_b);
    for (int c = 0; c < PNA_PHY_COUNT; c++)
        if (!cleared_a[c] && !cleared_b[c])
            abort(); /* its own part was not cleared */
}

static void eeprom(const uint8_t *data, size_t size)
{
    if (size == 0)
        return;
    uint32_t length = (uint32_t)(data[0] % 128) + 1;
    uint8_t page[129];
    memset(page, 0xa5, sizeof page);
    char err[160];
    memset(err, 'x', sizeof err);
    int rc = pna_ethnl_parse_eeprom(data + 1, size - 1, page, length, err, sizeof err);
    size_t elen = strnlen(err, sizeof err);
    if (elen == sizeof err || (rc == 0 && elen != 0) || (rc != 0 && (rc > 0 || elen == 0)))
        abort();
    if (page[length] != 0xa5)
        abort(); /* written past the length asked */
    if (rc != 0)
        for (uint32_t i = 0; i < length; i++)
            if (page[i] != 0xa5)
                abort(); /* written although the read failed */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    unsigned which = data[0] % 5;
    if (which < 4)
        phy(which, data + 1, size - 1);
    else
        eeprom(data + 1, size - 1);
    return 0;
}
