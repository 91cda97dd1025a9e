/* model/row_index.c -- see row_index.h. */
#include "pna_autoconf.h"
#include "model/row_index.h"

#include <stdbool.h>
#include <stdlib.h>

/* FNV-1a, 32 bits, folded into 1..2^31-1 (SNMP index values must be > 0). */
uint32_t pna_row_index_hash(uint8_t salt, const char *s)
{
    uint32_t h = 2166136261u;
    h = (h ^ salt) * 16777619u;
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 16777619u;
    h &= 0x7fffffffu;
    return h ? h : 1;
}

/* A small open-addressing set of the indexes already handed out in one pass. */
struct used_set {
    uint32_t *slots;
    size_t mask;
};

static int used_init(struct used_set *u, size_t n)
{
    size_t cap = 16;
    while (cap < n * 2)
        cap *= 2;
    u->slots = calloc(cap, sizeof *u->slots);
    u->mask = cap - 1;
    return u->slots ? 0 : -1;
}

static bool used_has(const struct used_set *u, uint32_t v)
{
    for (size_t i = v & u->mask;; i = (i + 1) & u->mask) {
        if (u->slots[i] == 0)
            return false;
        if (u->slots[i] == v)
            return true;
    }
}

static void used_put(struct used_set *u, uint32_t v)
{
    size_t i = v & u->mask;
    while (u->slots[i] != 0 && u->slots[i] != v)
        i = (i + 1) & u->mask;
    u->slots[i] = v;
}

static uint32_t next_index(uint32_t v)
{
    return v >= 0x7fffffffu ? 1 : v + 1;
}

void pna_row_index_assign(size_t n, const uint32_t *old, uint32_t *out,
                          uint32_t (*key)(const void *ctx, size_t i), const void *ctx)
{
    struct used_set u;
    if (used_init(&u, n) < 0) {
        /* No memory for the probe table: fall back to positions, still unique. */
        for (size_t i = 0; i < n; i++)
            out[i] = (uint32_t)i + 1;
        return;
    }
    /* Living rows keep their index first, so a newcomer can never take it. */
    for (size_t i = 0; i < n; i++) {
        out[i] = 0;
        if (old[i] && !used_has(&u, old[i])) {
            out[i] = old[i];
            used_put(&u, old[i]);
        }
    }
    for (size_t i = 0; i < n; i++) {
        if (out[i])
            continue;
        uint32_t v = key(ctx, i);
        while (used_has(&u, v))
            v = next_index(v);
        out[i] = v;
        used_put(&u, v);
    }
    free(u.slots);
}

