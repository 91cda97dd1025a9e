/* fuzz_pfc_names.c -- libFuzzer harness for the ethtool statistic names and
 * the pause/PFC figures derived from them (sources/pfc/pfc_names.c).
 *
 * The kernel hands the driver's statistics over as ETH_SS_STATS strings
 * (ETH_GSTRING_LEN = 32 octets each, NUL-padded, not NUL-ended at full length)
 * and one u64 per string.  The input is:
 *   byte 0        bit 0: the previous poll's counters look like a reset
 *   bytes 1..8    pause-storm threshold, frames/s (little endian)
 *   then records  32 name octets + 8 value octets (little endian)
 * Names are copied as sources/pfc/ethtool.c copies them; the statistics fill one
 * interface, a second interface with the same names and smaller (or larger)
 * values is the previous poll, and pna_pfc_derive() computes rates and storms. */
#include "pna_autoconf.h"
#include "sources/pfc/pfc_names.h"
#include "fuzz.h"

#include <stdlib.h>
#include <string.h>

#define GSTRING_LEN 32
#define RECORD (GSTRING_LEN + 8)

static uint64_t le64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 9)
        return 0;
    bool reset = data[0] & 1;
    uint64_t storm_pps = le64(data + 1);
    data += 9;
    size -= 9;
    size_t n = size / RECORD;
    struct pna_eth_stat *now = calloc(n ? n : 1, sizeof *now);
    struct pna_eth_stat *then = calloc(n ? n : 1, sizeof *then);
    if (!now || !then)
        abort();
    for (size_t i = 0; i < n; i++) {
        memcpy(now[i].name, data + i * RECORD, GSTRING_LEN);
        now[i].name[GSTRING_LEN] = '\0';
        now[i].value = le64(data + i * RECORD + GSTRING_LEN);
        then[i] = now[i];
        then[i].value = reset ? now[i].value * 2 + 1 : now[i].value / 2;
        struct pna_pfc_slot slot;
        pna_pfc_map_name(now[i].name, &slot);
    }

    struct pna_pfc_if cur, prev;
    memset(&cur, 0, sizeof cur);
    memset(&prev, 0, sizeof prev);
    if (pna_pfc_fill(&prev, then, n) == 0 && pna_pfc_fill(&cur, now, n) == 0) {
        uint64_t frames;
        pna_pfc_pause_frames(&cur, false, &frames);
        pna_pfc_pause_frames(&cur, true, &frames);
        pna_pfc_derive(&prev, NULL, 1000, storm_pps);
        pna_pfc_derive(&cur, &prev, 1 + (int64_t)(size % 10007), storm_pps);
    }
    pna_pfc_if_clear(&cur);
    pna_pfc_if_clear(&prev);
    free(now);
    free(then);
    return 0;
}
