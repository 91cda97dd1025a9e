/* test_array.c -- the array-growth helper (util/array.c): room, doubling,
 * overflow refused with the array untouched. */
#include "pna_autoconf.h"
#include "util/array.h"
#include "unit.h"

#include <stdint.h>

static void test_reserve(void)
{
    int *v = NULL;
    size_t cap = 0;
    CHECK_INT(PNA_ARRAY_RESERVE(v, cap, 0), 0);      /* nothing needed: nothing done */
    CHECK(v == NULL);
    CHECK_INT(cap, 0);
    CHECK_INT(PNA_ARRAY_RESERVE(v, cap, 1), 0);
    CHECK(v != NULL);
    CHECK_INT(cap, PNA_ARRAY_MIN_CAP);
    for (int i = 0; i < PNA_ARRAY_MIN_CAP; i++)
        v[i] = i;
    int *before = v;
    CHECK_INT(PNA_ARRAY_RESERVE(v, cap, PNA_ARRAY_MIN_CAP), 0); /* fits: unchanged */
    CHECK(v == before);
    CHECK_INT(PNA_ARRAY_RESERVE(v, cap, PNA_ARRAY_MIN_CAP + 1), 0);
    CHECK_INT(cap, 2 * PNA_ARRAY_MIN_CAP);                      /* doubled */
    CHECK_INT(v[PNA_ARRAY_MIN_CAP - 1], PNA_ARRAY_MIN_CAP - 1); /* kept */
    CHECK_INT(PNA_ARRAY_RESERVE(v, cap, 100), 0);
    CHECK_INT(cap, 100);                                        /* more than double */

    /* A size that does not fit a size_t is refused, the array untouched. */
    before = v;
    size_t old_cap = cap;
    CHECK_INT(PNA_ARRAY_RESERVE(v, cap, SIZE_MAX / sizeof *v + 1), -1);
    CHECK(v == before);
    CHECK_INT(cap, old_cap);
    CHECK_INT(pna_array_reserve((void **)&v, &cap, 200, 0), -1);
    CHECK_INT(cap, old_cap);
    free(v);
}

int main(void)
{
    test_reserve();
    UNIT_END();
}
