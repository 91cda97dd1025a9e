/* util/strpool.h -- strings kept together, freed together.
 *
 * A table of thousands of rows with a handful of short strings each (ids,
 * names, paths) costs several times more as fixed buffers sized for the
 * longest value than as the strings themselves.  A pool copies each string
 * into large blocks that never move, so pointers to them stay valid until the
 * pool is cleared or freed; one pool belongs to one table. */
#ifndef PNA_UTIL_STRPOOL_H
#define PNA_UTIL_STRPOOL_H

#include <stddef.h>

struct pna_strpool_block;

struct pna_strpool {
    struct pna_strpool_block *blocks;   /* newest first */
};

#define PNA_STRPOOL_INIT { NULL }

/* A copy of S (NULL: "") in the pool, or NULL when out of memory.  The empty
 * string costs nothing. */
const char *pna_strpool_add(struct pna_strpool *pool, const char *s);

/* All strings given out become invalid; the blocks go back (all but the
 * first, which is kept for the next use). */
void pna_strpool_clear(struct pna_strpool *pool);
void pna_strpool_free(struct pna_strpool *pool);

/* Move every block of FROM into TO (FROM is left empty): strings of both stay
 * valid, now owned by TO. */
void pna_strpool_take(struct pna_strpool *to, struct pna_strpool *from);

#endif
