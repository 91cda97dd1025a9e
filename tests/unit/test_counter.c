/* test_counter.c -- 32-bit widening, high-water marks, saturation and rate helpers. */
#include "pna_autoconf.h"
#include "model/counter.h"

#include "unit.h"

#define U32MAX UINT64_C(4294967295)

static void test_widen32(void)
{
    uint64_t v;
    /* first sample: the raw value */
    CHECK_INT(pna_counter_widen32(false, 0, 0, 123, &v), PNA_WIDEN_FIRST);
    CHECK_U64(v, 123);
    /* normal step and standing still */
    CHECK_INT(pna_counter_widen32(true, 123, 123, 200, &v), PNA_WIDEN_STEP);
    CHECK_U64(v, 200);
    CHECK_INT(pna_counter_widen32(true, 200, 200, 200, &v), PNA_WIDEN_STEP);
    CHECK_U64(v, 200);
    /* wrap: 4294967290 -> 5 is 11 counts (6 to reach 2^32, then 5) */
    CHECK_INT(pna_counter_widen32(true, U32MAX - 5, U32MAX - 5, 5, &v), PNA_WIDEN_WRAP);
    CHECK_U64(v, U32MAX - 5 + 11);
    /* keeps counting in the 64-bit range after the wrap */
    uint64_t wide = v;
    CHECK_INT(pna_counter_widen32(true, 5, wide, 1005, &v), PNA_WIDEN_STEP);
    CHECK_U64(v, wide + 1000);
    /* second wrap on top of an already widened value */
    CHECK_INT(pna_counter_widen32(true, U32MAX, UINT64_C(3) << 32, 0, &v), PNA_WIDEN_WRAP);
    CHECK_U64(v, (UINT64_C(3) << 32) + 1);
    /* wrap exactly to the maximum step allowed (just under 2^31) */
    CHECK_INT(pna_counter_widen32(true, UINT64_C(1) << 31, 1000, (UINT64_C(1) << 31) - 2, &v),
              PNA_WIDEN_RESTART); /* moved 2^32 - 2: implausible, a restart */
    CHECK_U64(v, 1000 + (UINT64_C(1) << 31) - 2);
    CHECK_INT(pna_counter_widen32(true, U32MAX - 10, 50, (UINT64_C(1) << 31) - 20, &v),
              PNA_WIDEN_WRAP); /* moved 11 + 2^31 - 20 < 2^31 */
    CHECK_U64(v, 50 + 11 + (UINT64_C(1) << 31) - 20);
    /* reset after a driver reload: small previous value, smaller new one */
    CHECK_INT(pna_counter_widen32(true, 5000, 9000, 10, &v), PNA_WIDEN_RESTART);
    CHECK_U64(v, 9010); /* never goes backwards; counts since the restart added */
    /* a raw value beyond 32 bits that decreases is not a wrap */
    CHECK_INT(pna_counter_widen32(true, UINT64_C(1) << 40, UINT64_C(1) << 40, 7, &v),
              PNA_WIDEN_RESTART);
    CHECK_U64(v, (UINT64_C(1) << 40) + 7);
}

static void test_widen64(void)
{
    uint64_t v;
    CHECK_INT(pna_counter_widen64(false, 0, 0, UINT64_C(1) << 40, &v), PNA_WIDEN_FIRST);
    CHECK_U64(v, UINT64_C(1) << 40);
    CHECK_INT(pna_counter_widen64(true, 100, 100, 150, &v), PNA_WIDEN_STEP);
    CHECK_U64(v, 150);
    /* 64-bit counters do not wrap at 2^32: a decrease is a restart */
    CHECK_INT(pna_counter_widen64(true, U32MAX - 1, U32MAX - 1, 3, &v), PNA_WIDEN_RESTART);
    CHECK_U64(v, U32MAX + 2);
}

/* High-water marks: a flapping source must not add at every climb back. */
static void test_hold(void)
{
    uint64_t mark = 0, added = 9;
    CHECK_INT(pna_counter_hold(&mark, 0, true, &added), PNA_HOLD_SAME);
    CHECK_U64(added, 0);
    CHECK_INT(pna_counter_hold(&mark, 1000, true, &added), PNA_HOLD_UP);
    CHECK_U64(added, 1000);
    CHECK_U64(mark, 1000);
    /* 0 <-> 1000 a thousand times in the same source: nothing more. */
    uint64_t total = 1000;
    for (int i = 0; i < 1000; i++) {
        CHECK_INT(pna_counter_hold(&mark, 0, true, &added), PNA_HOLD_DROP);
        total += added;
        CHECK_INT(pna_counter_hold(&mark, 1000, true, &added), PNA_HOLD_SAME);
        total += added;
    }
    CHECK_U64(total, 1000);
    CHECK_U64(mark, 1000);
    /* The drop was ignored: climbing past the old mark counts only the rest. */
    CHECK_INT(pna_counter_hold(&mark, 0, true, &added), PNA_HOLD_DROP);
    CHECK_INT(pna_counter_hold(&mark, 1002, true, &added), PNA_HOLD_UP);
    CHECK_U64(added, 2);
    /* Another source (the cgroup made anew): all of its count is new, a
     * smaller one included, and it becomes the mark. */
    CHECK_INT(pna_counter_hold(&mark, 3, false, &added), PNA_HOLD_RESTART);
    CHECK_U64(added, 3);
    CHECK_U64(mark, 3);
    CHECK_INT(pna_counter_hold(&mark, 0, false, &added), PNA_HOLD_RESTART);
    CHECK_U64(added, 0);
    CHECK_U64(mark, 0);
    CHECK_INT(pna_counter_hold(&mark, 5000, false, &added), PNA_HOLD_RESTART);
    CHECK_U64(added, 5000);
    /* The whole range. */
    mark = 0;
    CHECK_INT(pna_counter_hold(&mark, UINT64_MAX, true, &added), PNA_HOLD_UP);
    CHECK_U64(added, UINT64_MAX);
    CHECK_INT(pna_counter_hold(&mark, UINT64_MAX - 1, true, &added), PNA_HOLD_DROP);
    CHECK_U64(mark, UINT64_MAX);
}

static void test_saturation(void)
{
    CHECK_U64(pna_counter_max(4), 15);
    CHECK_U64(pna_counter_max(8), 255);
    CHECK_U64(pna_counter_max(16), 65535);
    CHECK_U64(pna_counter_max(32), U32MAX);
    CHECK_U64(pna_counter_max(64), UINT64_MAX);
    CHECK_U64(pna_counter_max(0), UINT64_MAX);
    CHECK(pna_counter_saturated(15, 4));
    CHECK(!pna_counter_saturated(14, 4));
    CHECK(pna_counter_saturated(65535, 16));
    CHECK(!pna_counter_saturated(65536, 16)); /* not a 16-bit value at all */
    CHECK(pna_counter_saturated(U32MAX, 32));
    CHECK(!pna_counter_saturated(UINT64_MAX, 64));
    CHECK(!pna_counter_saturated(UINT64_MAX, 0));
}

static void test_rates(void)
{
    CHECK_U64(pna_counter_delta(10, 15), 5);
    CHECK_U64(pna_counter_delta(15, 10), 0);
    CHECK_U64(pna_counter_rate(5000, 5000, 1), 1000);
    CHECK_U64(pna_counter_rate(1, 3000, 1000), 333);  /* thousandths per second */
    CHECK_U64(pna_counter_rate(7, 0, 1), 0);
    CHECK_U64(pna_counter_rate(7, -5, 1), 0);
    CHECK_U64(pna_counter_rate(UINT64_MAX, 1, 1000), UINT64_MAX); /* clamped */
    CHECK_U64(pna_counter_rate(UINT64_MAX / 1000, 1000, 1), UINT64_MAX / 1000);
}

int main(void)
{
    test_widen32();
    test_widen64();
    test_hold();
    test_saturation();
    test_rates();
    UNIT_END();
}
