/* model/counter.h -- generic rules for counters: widening 32-bit counters
 * that wrap into 64-bit ones that keep counting, recognising counters that
 * saturate, holding a high-water mark for counters that must not go down
 * while their source lives, and per-second rates over a poll interval.
 *
 * Two kinds of narrow counter exist in RDMA hardware:
 *  - counters that WRAP (mlx5 Q counters in hw_counters are 32-bit and go from
 *    4294967295 back to 0): they are widened here, the way net-snmp widens the
 *    kernel's 32-bit interface counters into IF-MIB Counter64s;
 *  - counters that SATURATE (the InfiniBand PMA PortCounters error counters are
 *    4 to 32 bits wide and stop at their maximum until reset): a value equal to
 *    the maximum is flagged, it cannot be widened.
 * Pure functions, no state: callers keep the previous raw and widened values. */
#ifndef PNA_MODEL_COUNTER_H
#define PNA_MODEL_COUNTER_H

#include <stdbool.h>
#include <stdint.h>

/* One counter value.  PRESENT is false when the source has no such counter
 * or cannot read it ("N/A (no PMA)" on iWARP): absent is not zero.
 * SATURATED: the value sits at the maximum of a counter that stops there
 * (IB PMA error counters) and no longer counts.  FROM_EXT: the value came from
 * a 64-bit source (counters_ext/<name>_64) rather than the PortCounters file.
 * FROM_PMA: it came from the PMA's PortCountersExtended through libibmad
 * (src/sources/rdma/ib_mad.c). */
struct pna_counter {
    uint64_t value;
    bool present;
    bool saturated;
    bool from_ext;
    bool from_pma;
};

/* What happened between the previous sample and this one. */
enum pna_widen {
    PNA_WIDEN_FIRST = 0,   /* no previous sample: the widened value is the raw one */
    PNA_WIDEN_STEP = 1,    /* counted up normally (or stood still) */
    PNA_WIDEN_WRAP = 2,    /* a 32-bit counter passed 2^32 - 1 and started again at 0 */
    PNA_WIDEN_RESTART = 3, /* it went backwards: reset, driver reload, device replaced */
};

/* Widen RAW, a counter that wraps at 2^32.  With HAVE_PREV, PREV_RAW and
 * PREV_VALUE are the raw and widened values of the previous sample.
 *
 * A decrease is a wrap when the distance it implies, (2^32 - prev_raw) + raw,
 * is below 2^31: a counter that moved more than half its range in one poll
 * interval would already be unreadable, so such a decrease (and any raw value
 * above 32 bits) is taken as a restart instead.  After a restart the counts
 * since the restart are added to the widened value, so it never goes backwards
 * (an SNMP Counter64 must not).  Writes the widened value to *VALUE. */
enum pna_widen pna_counter_widen32(bool have_prev, uint64_t prev_raw, uint64_t prev_value,
                                   uint64_t raw, uint64_t *value);

/* The same for a counter that is already 64 bits wide: it never wraps in
 * practice, so any decrease is a restart. */
enum pna_widen pna_counter_widen64(bool have_prev, uint64_t prev_raw, uint64_t prev_value,
                                   uint64_t raw, uint64_t *value);

/* A counter that only goes up while its source lives, and starts again at 0
 * when the source is made anew (a cgroup's oom_kill: the cgroup directory is
 * the source).  The caller keeps its high-water MARK and says whether RAW was
 * read from the same source as the mark.  Unlike pna_counter_widen64(), a
 * decrease in the same source is not a restart: a source that flips between
 * 1000 and 0 would otherwise add 1000 at every climb back. */
enum pna_hold {
    PNA_HOLD_SAME = 0,     /* RAW equals the mark: nothing new */
    PNA_HOLD_UP = 1,       /* higher, same source: RAW - mark new counts */
    PNA_HOLD_RESTART = 2,  /* another source: all of RAW is new counts (0 counts is a restart too) */
    PNA_HOLD_DROP = 3,     /* lower, same source: ignored, the mark stays */
};

/* Apply RAW to *MARK by the rules above; *NEW_COUNTS gets the counts it adds
 * (0 for SAME and DROP). */
enum pna_hold pna_counter_hold(uint64_t *mark, uint64_t raw, bool same_source,
                               uint64_t *new_counts);

/* Largest value of a WIDTH_BITS-wide counter (1..64). */
uint64_t pna_counter_max(unsigned width_bits);

/* True when VALUE sits at the maximum of a saturating counter WIDTH_BITS wide.
 * A width of 0 or 64 means "does not saturate": always false. */
bool pna_counter_saturated(uint64_t value, unsigned width_bits);

/* Increase from PREV to CUR, or 0 when CUR < PREV (a reset: no rate is known). */
uint64_t pna_counter_delta(uint64_t prev, uint64_t cur);

/* DELTA events over INTERVAL_MS as a rate per second multiplied by SCALE
 * (1 for per second, 1000 for thousandths per second), rounded down and
 * clamped to UINT64_MAX.  0 when INTERVAL_MS <= 0. */
uint64_t pna_counter_rate(uint64_t delta, int64_t interval_ms, uint64_t scale);

#endif
