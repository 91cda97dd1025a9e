/* util/array.c -- growable arrays: room for one more, or for N (see array.h). */
#include "pna_autoconf.h"
#include "util/array.h"

#include <stdint.h>
#include <stdlib.h>

int pna_array_reserve(void **items, size_t *cap, size_t need, size_t item_size)
{
    if (need <= *cap)
        return 0;
    if (item_size == 0 || need > SIZE_MAX / item_size)
        return -1;
    size_t ncap = *cap <= SIZE_MAX / 2 ? *cap * 2 : need;
    if (ncap < PNA_ARRAY_MIN_CAP)
        ncap = PNA_ARRAY_MIN_CAP;
    if (ncap < need || ncap > SIZE_MAX / item_size)
        ncap = need;   /* doubling would not fit: exactly what is needed */
    void *grown = realloc(*items, ncap * item_size);
    if (!grown)
        return -1;
    *items = grown;
    *cap = ncap;
    return 0;
}
