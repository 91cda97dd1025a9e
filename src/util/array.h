/* util/array.h -- the one way a growable array grows: room for NEED items,
 * doubling (at least PNA_ARRAY_MIN_CAP items), with every size computation
 * checked for overflow.  Used by every list the agent builds (GPUs,
 * containers, devices, ports, directory entries, credentials, table rows...). */
#ifndef PNA_UTIL_ARRAY_H
#define PNA_UTIL_ARRAY_H

#include <stddef.h>

#define PNA_ARRAY_MIN_CAP 8

/* Make room for NEED items of ITEM_SIZE bytes in *ITEMS, which has room for
 * *CAP: when NEED > *CAP the array is reallocated to the larger of NEED, twice
 * *CAP and PNA_ARRAY_MIN_CAP (NEED alone if doubling would overflow), and
 * *ITEMS / *CAP are updated.  New room is not zeroed.  Returns 0, or -1 with
 * *ITEMS and *CAP unchanged when memory runs out or NEED * ITEM_SIZE does not
 * fit a size_t. */
int pna_array_reserve(void **items, size_t *cap, size_t need, size_t item_size);

/* pna_array_reserve() for an array held in the pointer ITEMS with room CAP,
 * both lvalues: PNA_ARRAY_RESERVE(list->gpus, list->cap, list->count + 1). */
#define PNA_ARRAY_RESERVE(items, cap, need) \
    pna_array_reserve((void **)&(items), &(cap), (need), sizeof *(items))

#endif
