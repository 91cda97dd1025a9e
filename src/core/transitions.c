/* core/transitions.c -- the state last reported per key, and the rules for a
 * key first seen, changed or gone (see transitions.h).
 *
 * Storage: the entries in one array, each a header followed by the caller's
 * data at a stride aligned for any type, found through an open-addressing
 * hash index of their positions (linear probing, never more than half full).
 * Forgetting keys compacts the array and rebuilds the index in place, once
 * per poll that lost some. */
#include "pna_autoconf.h"
#include "core/transitions.h"

#include <stdalign.h>
#include <stdlib.h>
#include <string.h>

#include "util/array.h"
#include "util/fileio.h"

struct entry {
    struct pna_transition_key key;
    uint32_t hash;
    int32_t state;     /* the state last reported (or taken quietly) */
    bool seen;         /* observed in the current poll */
    bool forget;       /* gone, and the rule let it go: removed at end() */
};

#define ALIGN_UP(n) (((n) + alignof(max_align_t) - 1) / alignof(max_align_t) * alignof(max_align_t))
#define HEAD_SIZE ALIGN_UP(sizeof(struct entry))
#define MIN_SLOTS 16
#define NO_ENTRY SIZE_MAX

struct pna_transitions {
    const struct pna_transition_rule *rule;
    void *arg;
    size_t stride;             /* HEAD_SIZE + the caller's data, aligned */
    unsigned char *entries;
    size_t n, cap;
    uint32_t *slots;           /* an entry's position + 1; 0: free */
    size_t nslots;             /* a power of two, at least twice n */
    bool primed;               /* a first poll has ended */
};

struct pna_transition_key pna_transition_key(const char *name, uint32_t a, uint32_t b)
{
    struct pna_transition_key k;
    memset(&k, 0, sizeof k);
    if (name)
        pna_strlcpy(k.name, name, sizeof k.name);
    k.a = a;
    k.b = b;
    return k;
}

static struct entry *entry_at(const struct pna_transitions *t, size_t pos)
{
    return (struct entry *)(void *)(t->entries + pos * t->stride);
}

static void *data_of(struct entry *e)
{
    return (unsigned char *)e + HEAD_SIZE;
}

/* FNV-1a over the name's bytes, then the numbers'. */
static uint32_t hash_key(const struct pna_transition_key *k)
{
    uint32_t h = 2166136261u;
    for (const unsigned char *s = (const unsigned char *)k->name; *s; s++)
        h = (h ^ *s) * 16777619u;
    const uint32_t nums[2] = { k->a, k->b };
    for (int i = 0; i < 2; i++)
        for (int byte = 0; byte < 4; byte++)
            h = (h ^ ((nums[i] >> (8 * byte)) & 0xffu)) * 16777619u;
    return h;
}

static bool same_key(const struct pna_transition_key *x, const struct pna_transition_key *y)
{
    return x->a == y->a && x->b == y->b && strcmp(x->name, y->name) == 0;
}

static int cmp_key(const struct pna_transition_key *x, const struct pna_transition_key *y)
{
    int c = strcmp(x->name, y->name);
    if (c)
        return c;
    if (x->a != y->a)
        return x->a < y->a ? -1 : 1;
    return (x->b > y->b) - (x->b < y->b);
}

static size_t lookup(const struct pna_transitions *t, const struct pna_transition_key *key,
                     uint32_t hash)
{
    if (!t->nslots)
        return NO_ENTRY;
    for (size_t i = hash & (t->nslots - 1);; i = (i + 1) & (t->nslots - 1)) {
        uint32_t s = t->slots[i];
        if (!s)
            return NO_ENTRY;
        struct entry *e = entry_at(t, s - 1);
        if (e->hash == hash && same_key(&e->key, key))
            return s - 1;
    }
}

static void index_entry(uint32_t *slots, size_t nslots, uint32_t hash, size_t pos)
{
    size_t i = hash & (nslots - 1);
    while (slots[i])
        i = (i + 1) & (nslots - 1);
    slots[i] = (uint32_t)(pos + 1);
}

/* Index every entry again in SLOTS (NSLOTS of them, zeroed). */
static void reindex(struct pna_transitions *t, uint32_t *slots, size_t nslots)
{
    for (size_t pos = 0; pos < t->n; pos++)
        index_entry(slots, nslots, entry_at(t, pos)->hash, pos);
    t->slots = slots;
    t->nslots = nslots;
}

/* Room in the index for one more entry. */
static int reserve_slot(struct pna_transitions *t)
{
    if ((t->n + 1) * 2 <= t->nslots)
        return 0;
    size_t nslots = t->nslots ? t->nslots * 2 : MIN_SLOTS;
    if (t->n + 1 >= UINT32_MAX || nslots > SIZE_MAX / sizeof *t->slots)
        return -1;
    uint32_t *slots = calloc(nslots, sizeof *slots);
    if (!slots)
        return -1;
    free(t->slots);
    reindex(t, slots, nslots);
    return 0;
}

/* A new entry for KEY, zeroed, indexed; NO_ENTRY when memory runs out. */
static size_t add(struct pna_transitions *t, const struct pna_transition_key *key, uint32_t hash)
{
    void *entries = t->entries;
    if (pna_array_reserve(&entries, &t->cap, t->n + 1, t->stride) != 0)
        return NO_ENTRY;
    t->entries = entries;
    if (reserve_slot(t) != 0)
        return NO_ENTRY;
    size_t pos = t->n++;
    struct entry *e = entry_at(t, pos);
    memset(e, 0, t->stride);
    e->key = *key;
    e->hash = hash;
    index_entry(t->slots, t->nslots, hash, pos);
    return pos;
}

struct pna_transitions *pna_transitions_new(const struct pna_transition_rule *rule,
                                            size_t data_size, void *arg)
{
    if (!rule || !rule->changed || data_size > SIZE_MAX / 2)
        return NULL;
    struct pna_transitions *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->rule = rule;
    t->arg = arg;
    t->stride = HEAD_SIZE + ALIGN_UP(data_size);
    return t;
}

void pna_transitions_free(struct pna_transitions *t)
{
    if (!t)
        return;
    free(t->entries);
    free(t->slots);
    free(t);
}

void pna_transitions_begin(struct pna_transitions *t)
{
    for (size_t pos = 0; pos < t->n; pos++)
        entry_at(t, pos)->seen = false;
}

/* A key seen for the first time: the start-up policy, or (a rule where a
 * key appearing is news, after the first poll) a change from state 0. */
static void first_sighting(struct pna_transitions *t, struct entry *e, int32_t state,
                           const void *obs)
{
    const struct pna_transition_rule *r = t->rule;
    if (t->primed && r->appearing_is_change) {
        e->state = 0;
        if (state != 0 && r->changed(t->arg, &e->key, data_of(e), 0, state, obs))
            e->state = state;
        return;
    }
    e->state = state;
    if (r->bad && r->first_seen && r->bad(state))
        r->first_seen(t->arg, &e->key, data_of(e), state, obs);
}

void *pna_transitions_observe(struct pna_transitions *t, const struct pna_transition_key *key,
                              int32_t state, const void *obs)
{
    uint32_t hash = hash_key(key);
    size_t pos = lookup(t, key, hash);
    if (pos == NO_ENTRY) {
        if ((pos = add(t, key, hash)) == NO_ENTRY)
            return NULL;
        struct entry *e = entry_at(t, pos);
        e->seen = true;
        first_sighting(t, e, state, obs);
        return data_of(e);
    }
    struct entry *e = entry_at(t, pos);
    if (e->seen)
        return data_of(e); /* twice in one poll: the first observation decided */
    e->seen = true;
    if (e->state != state && t->rule->changed(t->arg, &e->key, data_of(e), e->state, state, obs))
        e->state = state;
    return data_of(e);
}

static int cmp_entry_key(const void *x, const void *y)
{
    const struct entry *const *a = x, *const *b = y;
    return cmp_key(&(*a)->key, &(*b)->key);
}

static void report_gone(struct pna_transitions *t, struct entry *e)
{
    e->forget = !t->rule->gone || t->rule->gone(t->arg, &e->key, data_of(e), e->state);
}

/* The gone callbacks in key order (in storage order if there is no memory
 * to sort them). */
static void report_unseen(struct pna_transitions *t, size_t unseen)
{
    struct entry **order = malloc(unseen * sizeof *order);
    size_t k = 0;
    for (size_t pos = 0; pos < t->n; pos++) {
        struct entry *e = entry_at(t, pos);
        if (e->seen)
            continue;
        if (order)
            order[k++] = e;
        else
            report_gone(t, e);
    }
    if (!order)
        return;
    qsort(order, k, sizeof *order, cmp_entry_key);
    for (size_t i = 0; i < k; i++)
        report_gone(t, order[i]);
    free(order);
}

/* Drop the entries marked forget and index the rest again. */
static void compact(struct pna_transitions *t)
{
    size_t w = 0;
    for (size_t pos = 0; pos < t->n; pos++) {
        if (entry_at(t, pos)->forget)
            continue;
        if (w != pos)
            memcpy(entry_at(t, w), entry_at(t, pos), t->stride);
        w++;
    }
    if (w == t->n)
        return;
    t->n = w;
    memset(t->slots, 0, t->nslots * sizeof *t->slots);
    reindex(t, t->slots, t->nslots);
}

void pna_transitions_end(struct pna_transitions *t)
{
    size_t unseen = 0;
    for (size_t pos = 0; pos < t->n; pos++)
        unseen += !entry_at(t, pos)->seen;
    if (unseen) {
        report_unseen(t, unseen);
        compact(t);
    }
    t->primed = true;
}

void *pna_transitions_find(const struct pna_transitions *t, const struct pna_transition_key *key,
                           int32_t *state)
{
    size_t pos = lookup(t, key, hash_key(key));
    if (pos == NO_ENTRY)
        return NULL;
    struct entry *e = entry_at(t, pos);
    if (state)
        *state = e->state;
    return data_of(e);
}

bool pna_transitions_set(struct pna_transitions *t, const struct pna_transition_key *key,
                         int32_t state)
{
    size_t pos = lookup(t, key, hash_key(key));
    if (pos == NO_ENTRY)
        return false;
    entry_at(t, pos)->state = state;
    return true;
}

void pna_transitions_foreach(struct pna_transitions *t,
                             void (*fn)(void *arg, const struct pna_transition_key *key,
                                        void *data, int32_t state),
                             void *arg)
{
    for (size_t pos = 0; pos < t->n; pos++) {
        struct entry *e = entry_at(t, pos);
        fn(arg, &e->key, data_of(e), e->state);
    }
}

size_t pna_transitions_count(const struct pna_transitions *t)
{
    return t->n;
}
