/* model/counter.c -- 32-bit wrap widening, saturation, high-water marks and rates
 * (see counter.h). */
#include "pna_autoconf.h"
#include "model/counter.h"

#define TWO_POW_32 (UINT64_C(1) << 32)
#define HALF_RANGE_32 (UINT64_C(1) << 31)

enum pna_widen pna_counter_widen64(bool have_prev, uint64_t prev_raw, uint64_t prev_value,
                                   uint64_t raw, uint64_t *value)
{
    if (!have_prev) {
        *value = raw;
        return PNA_WIDEN_FIRST;
    }
    if (raw >= prev_raw) {
        *value = prev_value + (raw - prev_raw);
        return PNA_WIDEN_STEP;
    }
    *value = prev_value + raw;
    return PNA_WIDEN_RESTART;
}

enum pna_widen pna_counter_widen32(bool have_prev, uint64_t prev_raw, uint64_t prev_value,
                                   uint64_t raw, uint64_t *value)
{
    if (!have_prev || raw >= prev_raw)
        return pna_counter_widen64(have_prev, prev_raw, prev_value, raw, value);
    /* raw < prev_raw: wrapped, or restarted? */
    if (prev_raw < TWO_POW_32) {
        uint64_t moved = (TWO_POW_32 - prev_raw) + raw;
        if (moved < HALF_RANGE_32) {
            *value = prev_value + moved;
            return PNA_WIDEN_WRAP;
        }
    }
    *value = prev_value + raw;
    return PNA_WIDEN_RESTART;
}

enum pna_hold pna_counter_hold(uint64_t *mark, uint64_t raw, bool same_source,
                               uint64_t *new_counts)
{
    *new_counts = 0;
    if (!same_source) {
        *new_counts = raw;
        *mark = raw;
        return PNA_HOLD_RESTART;
    }
    if (raw < *mark)
        return PNA_HOLD_DROP;
    if (raw == *mark)
        return PNA_HOLD_SAME;
    *new_counts = raw - *mark;
    *mark = raw;
    return PNA_HOLD_UP;
}

uint64_t pna_counter_max(unsigned width_bits)
{
    if (width_bits == 0 || width_bits >= 64)
        return UINT64_MAX;
    return (UINT64_C(1) << width_bits) - 1;
}

bool pna_counter_saturated(uint64_t value, unsigned width_bits)
{
    if (width_bits == 0 || width_bits >= 64)
        return false;
    return value == pna_counter_max(width_bits);
}

uint64_t pna_counter_delta(uint64_t prev, uint64_t cur)
{
    return cur >= prev ? cur - prev : 0;
}

uint64_t pna_counter_rate(uint64_t delta, int64_t interval_ms, uint64_t scale)
{
    if (interval_ms <= 0)
        return 0;
    /* delta * scale * 1000 / interval_ms without overflow: 128-bit arithmetic
     * (gcc and clang provide it on every 64-bit target we build for). */
    unsigned __int128 num = (unsigned __int128)delta * scale * 1000u;
    unsigned __int128 q = num / (uint64_t)interval_ms;
    return q > UINT64_MAX ? UINT64_MAX : (uint64_t)q;
}
