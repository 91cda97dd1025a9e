/* util/strpool.c -- strings kept in large blocks (see strpool.h). */
#include "pna_autoconf.h"
#include "util/strpool.h"

#include <stdlib.h>
#include <string.h>

/* Below glibc's mmap threshold as the agent sets it (core/heap.c), so blocks
 * come from the heap and are reused; a string longer than a block gets a
 * block of its own. */
#define BLOCK_BYTES (16 * 1024 - 64)

struct pna_strpool_block {
    struct pna_strpool_block *next;
    size_t used, cap;
    char data[];
};

static struct pna_strpool_block *new_block(size_t cap)
{
    struct pna_strpool_block *b = malloc(sizeof *b + cap);
    if (b) {
        b->next = NULL;
        b->used = 0;
        b->cap = cap;
    }
    return b;
}

const char *pna_strpool_add(struct pna_strpool *pool, const char *s)
{
    if (!s || !*s)
        return "";
    size_t n = strlen(s) + 1;
    struct pna_strpool_block *b = pool->blocks;
    if (!b || b->cap - b->used < n) {
        struct pna_strpool_block *fresh = new_block(n > BLOCK_BYTES ? n : BLOCK_BYTES);
        if (!fresh)
            return NULL;
        if (b && n > BLOCK_BYTES) {
            /* A long one goes behind the current block, which keeps its room. */
            fresh->next = b->next;
            b->next = fresh;
        } else {
            fresh->next = b;
            pool->blocks = fresh;
        }
        b = fresh;
    }
    char *out = b->data + b->used;
    memcpy(out, s, n);
    b->used += n;
    return out;
}

static void free_chain(struct pna_strpool_block *b)
{
    while (b) {
        struct pna_strpool_block *next = b->next;
        free(b);
        b = next;
    }
}

void pna_strpool_clear(struct pna_strpool *pool)
{
    struct pna_strpool_block *keep = pool->blocks;
    if (!keep)
        return;
    /* The last block of the chain is the oldest: keep the newest, which is
     * a full-sized one unless only long strings were ever added. */
    free_chain(keep->next);
    keep->next = NULL;
    keep->used = 0;
}

void pna_strpool_free(struct pna_strpool *pool)
{
    free_chain(pool->blocks);
    pool->blocks = NULL;
}

void pna_strpool_take(struct pna_strpool *to, struct pna_strpool *from)
{
    if (!from->blocks)
        return;
    struct pna_strpool_block *last = from->blocks;
    while (last->next)
        last = last->next;
    /* FROM's newest block stays first: TO's next strings fill its room. */
    last->next = to->blocks;
    to->blocks = from->blocks;
    from->blocks = NULL;
}
