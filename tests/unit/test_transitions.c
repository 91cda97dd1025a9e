/* test_transitions.c -- core/transitions.c, the rule every poller's
 * notifications go through: the start-up policy (a key first seen good says
 * nothing, first seen bad reports, at start-up and later), changes and a
 * change held back, keys that go away (forgotten, or kept when the rule says
 * their absence is not news), a rule where a key appearing is a change, a key
 * seen twice in one poll, the caller's per-key data, and thousands of keys
 * fed in different orders giving the same calls. */
#include "pna_autoconf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/transitions.h"
#include "unit.h"

enum { GOOD = 1, BAD = 2, WORSE = 3 };
enum call_kind { FIRST, CHANGED, GONE };

struct call {
    enum call_kind kind;
    struct pna_transition_key key;
    int32_t old_state, new_state;
};

/* What the callbacks saw, and what they answer. */
struct log {
    struct call *calls;
    size_t n, cap;
    bool hold_changes;      /* changed() returns false: held back */
    bool keep_gone;         /* gone() returns false: kept */
    const void *last_obs;
};

struct mydata {
    int observed;           /* how many polls saw the key (the caller's own count) */
    int first_seen_calls;
};

static void record(struct log *l, enum call_kind kind, const struct pna_transition_key *key,
                   int32_t old_state, int32_t new_state)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 64;
        struct call *c = realloc(l->calls, cap * sizeof *c);
        CHECK(c != NULL);
        if (!c)
            return;
        l->calls = c;
        l->cap = cap;
    }
    l->calls[l->n++] = (struct call){ kind, *key, old_state, new_state };
}

static bool is_bad(int32_t state)
{
    return state >= BAD;
}

static void on_first(void *arg, const struct pna_transition_key *key, void *data, int32_t state,
                     const void *obs)
{
    struct log *l = arg;
    ((struct mydata *)data)->first_seen_calls++;
    l->last_obs = obs;
    record(l, FIRST, key, 0, state);
}

static bool on_changed(void *arg, const struct pna_transition_key *key, void *data,
                       int32_t old_state, int32_t new_state, const void *obs)
{
    (void)data;
    struct log *l = arg;
    l->last_obs = obs;
    if (l->hold_changes)
        return false;
    record(l, CHANGED, key, old_state, new_state);
    return true;
}

static bool on_gone(void *arg, const struct pna_transition_key *key, void *data, int32_t last)
{
    (void)data;
    struct log *l = arg;
    record(l, GONE, key, last, 0);
    return !l->keep_gone;
}

static const struct pna_transition_rule rule = {
    .bad = is_bad,
    .first_seen = on_first,
    .changed = on_changed,
    .gone = on_gone,
};

static void see(struct pna_transitions *t, const char *name, uint32_t a, int32_t state)
{
    struct pna_transition_key k = pna_transition_key(name, a, 0);
    struct mydata *d = pna_transitions_observe(t, &k, state, name);
    CHECK(d != NULL);
    if (d)
        d->observed++;
}

static bool call_is(const struct log *l, size_t i, enum call_kind kind, const char *name,
                    int32_t old_state, int32_t new_state)
{
    if (i >= l->n)
        return false;
    const struct call *c = &l->calls[i];
    return c->kind == kind && strcmp(c->key.name, name) == 0 && c->old_state == old_state &&
           c->new_state == new_state;
}

static void test_startup_policy(void)
{
    struct log l = { 0 };
    struct pna_transitions *t = pna_transitions_new(&rule, sizeof(struct mydata), &l);
    CHECK(t != NULL);
    if (!t)
        return;
    /* the first poll: the good key says nothing, the bad ones report */
    pna_transitions_begin(t);
    see(t, "eth0", 0, GOOD);
    see(t, "eth1", 0, BAD);
    see(t, "eth2", 0, WORSE);
    pna_transitions_end(t);
    CHECK_U64(l.n, 2);
    CHECK(call_is(&l, 0, FIRST, "eth1", 0, BAD));
    CHECK(call_is(&l, 1, FIRST, "eth2", 0, WORSE));
    CHECK_STR(l.last_obs, "eth2"); /* the observation reaches the callback */
    CHECK_U64(pna_transitions_count(t), 3);

    /* a later poll: the same states are no news; a key appearing good says
     * nothing, one appearing bad reports */
    l.n = 0;
    pna_transitions_begin(t);
    see(t, "eth0", 0, GOOD);
    see(t, "eth1", 0, BAD);
    see(t, "eth2", 0, WORSE);
    see(t, "eth3", 0, GOOD);
    see(t, "eth4", 0, BAD);
    pna_transitions_end(t);
    CHECK_U64(l.n, 1);
    CHECK(call_is(&l, 0, FIRST, "eth4", 0, BAD));

    /* the caller's data: zeroed at first sight, kept across polls */
    struct pna_transition_key k = pna_transition_key("eth1", 0, 0);
    int32_t state = 0;
    struct mydata *d = pna_transitions_find(t, &k, &state);
    CHECK(d && d->observed == 2 && d->first_seen_calls == 1);
    CHECK_INT(state, BAD);
    k = pna_transition_key("eth3", 0, 0);
    d = pna_transitions_find(t, &k, NULL);
    CHECK(d && d->observed == 1 && d->first_seen_calls == 0);
    k = pna_transition_key("eth9", 0, 0);
    CHECK(pna_transitions_find(t, &k, &state) == NULL);
    pna_transitions_free(t);
    free(l.calls);
}

static void test_changes(void)
{
    struct log l = { 0 };
    struct pna_transitions *t = pna_transitions_new(&rule, sizeof(struct mydata), &l);
    CHECK(t != NULL);
    if (!t)
        return;
    pna_transitions_begin(t);
    see(t, "mlx5_0", 1, GOOD);
    see(t, "mlx5_0", 2, GOOD);
    pna_transitions_end(t);
    CHECK_U64(l.n, 0);

    /* port 1 goes bad, port 2 stays: one change, old and new */
    pna_transitions_begin(t);
    see(t, "mlx5_0", 1, BAD);
    see(t, "mlx5_0", 2, GOOD);
    pna_transitions_end(t);
    CHECK_U64(l.n, 1);
    CHECK(call_is(&l, 0, CHANGED, "mlx5_0", GOOD, BAD));
    CHECK_INT(l.n ? l.calls[0].key.a : 0, 1);

    /* worse, then a change the rule holds back: compared with the state
     * reported, not the one seen, until the rule takes it */
    l.n = 0;
    pna_transitions_begin(t);
    see(t, "mlx5_0", 1, WORSE);
    see(t, "mlx5_0", 2, GOOD);
    pna_transitions_end(t);
    CHECK_U64(l.n, 1);
    CHECK(call_is(&l, 0, CHANGED, "mlx5_0", BAD, WORSE));
    l.n = 0;
    l.hold_changes = true;
    for (int i = 0; i < 2; i++) {
        pna_transitions_begin(t);
        see(t, "mlx5_0", 1, GOOD);
        see(t, "mlx5_0", 2, GOOD);
        pna_transitions_end(t);
    }
    CHECK_U64(l.n, 0);
    l.hold_changes = false;
    pna_transitions_begin(t);
    see(t, "mlx5_0", 1, GOOD);
    see(t, "mlx5_0", 2, GOOD);
    pna_transitions_end(t);
    CHECK_U64(l.n, 1);
    CHECK(call_is(&l, 0, CHANGED, "mlx5_0", WORSE, GOOD));

    /* a change the caller reported itself between polls (an event): the
     * poll that sees the same state says nothing */
    l.n = 0;
    struct pna_transition_key k = pna_transition_key("mlx5_0", 2, 0);
    CHECK(pna_transitions_set(t, &k, BAD));
    k = pna_transition_key("mlx5_0", 3, 0);
    CHECK(!pna_transitions_set(t, &k, BAD)); /* not known */
    pna_transitions_begin(t);
    see(t, "mlx5_0", 1, GOOD);
    see(t, "mlx5_0", 2, BAD);
    pna_transitions_end(t);
    CHECK_U64(l.n, 0);
    pna_transitions_free(t);
    free(l.calls);
}

static void test_gone(void)
{
    struct log l = { 0 };
    struct pna_transitions *t = pna_transitions_new(&rule, sizeof(struct mydata), &l);
    CHECK(t != NULL);
    if (!t)
        return;
    pna_transitions_begin(t);
    see(t, "c", 0, GOOD);
    see(t, "a", 0, BAD);
    see(t, "b", 7, GOOD);
    see(t, "b", 3, GOOD);
    pna_transitions_end(t);
    l.n = 0;

    /* all four go: one gone call each, in key order, with the last state */
    pna_transitions_begin(t);
    pna_transitions_end(t);
    CHECK_U64(l.n, 4);
    CHECK(call_is(&l, 0, GONE, "a", BAD, 0));
    CHECK(call_is(&l, 1, GONE, "b", GOOD, 0) && l.calls[1].key.a == 3);
    CHECK(call_is(&l, 2, GONE, "b", GOOD, 0) && l.calls[2].key.a == 7);
    CHECK(call_is(&l, 3, GONE, "c", GOOD, 0));
    CHECK_U64(pna_transitions_count(t), 0);
    /* forgotten: once, and a key that comes back is a first sighting */
    l.n = 0;
    pna_transitions_begin(t);
    see(t, "a", 0, BAD);
    see(t, "c", 0, GOOD);
    pna_transitions_end(t);
    CHECK_U64(l.n, 1);
    CHECK(call_is(&l, 0, FIRST, "a", 0, BAD));

    /* the rule keeps a key whose absence is not news: asked at each poll it
     * is missing, and when it is back in the same state nothing fires again;
     * back in another state is a change */
    l.n = 0;
    l.keep_gone = true;
    for (int i = 0; i < 2; i++) {
        pna_transitions_begin(t);
        see(t, "c", 0, GOOD);
        pna_transitions_end(t);
    }
    CHECK_U64(l.n, 2);
    CHECK(call_is(&l, 0, GONE, "a", BAD, 0) && call_is(&l, 1, GONE, "a", BAD, 0));
    CHECK_U64(pna_transitions_count(t), 2);
    l.n = 0;
    pna_transitions_begin(t);
    see(t, "a", 0, BAD);
    see(t, "c", 0, GOOD);
    pna_transitions_end(t);
    CHECK_U64(l.n, 0);
    pna_transitions_begin(t);
    see(t, "c", 0, GOOD);
    pna_transitions_end(t);
    l.n = 0;
    pna_transitions_begin(t);
    see(t, "a", 0, GOOD);
    see(t, "c", 0, GOOD);
    pna_transitions_end(t);
    CHECK_U64(l.n, 1);
    CHECK(call_is(&l, 0, CHANGED, "a", BAD, GOOD));

    /* no gone callback: forgotten quietly */
    static const struct pna_transition_rule quiet = { .bad = is_bad, .first_seen = on_first,
                                                      .changed = on_changed };
    struct pna_transitions *q = pna_transitions_new(&quiet, sizeof(struct mydata), &l);
    CHECK(q != NULL);
    if (q) {
        pna_transitions_begin(q);
        see(q, "x", 0, GOOD);
        pna_transitions_end(q);
        l.n = 0;
        pna_transitions_begin(q);
        pna_transitions_end(q);
        CHECK_U64(l.n, 0);
        CHECK_U64(pna_transitions_count(q), 0);
        pna_transitions_free(q);
    }
    pna_transitions_free(t);
    free(l.calls);
}

static void test_seen_twice(void)
{
    struct log l = { 0 };
    struct pna_transitions *t = pna_transitions_new(&rule, sizeof(struct mydata), &l);
    CHECK(t != NULL);
    if (!t)
        return;
    /* new and twice in the first poll: one first sighting, the repeat's
     * other state ignored */
    pna_transitions_begin(t);
    see(t, "dup", 0, BAD);
    see(t, "dup", 0, GOOD);
    pna_transitions_end(t);
    CHECK_U64(l.n, 1);
    CHECK(call_is(&l, 0, FIRST, "dup", 0, BAD));
    /* known and twice in a later poll: one change, not two */
    l.n = 0;
    pna_transitions_begin(t);
    see(t, "dup", 0, GOOD);
    see(t, "dup", 0, WORSE);
    see(t, "dup", 0, GOOD);
    pna_transitions_end(t);
    CHECK_U64(l.n, 1);
    CHECK(call_is(&l, 0, CHANGED, "dup", BAD, GOOD));
    struct pna_transition_key k = pna_transition_key("dup", 0, 0);
    int32_t state = 0;
    struct mydata *d = pna_transitions_find(t, &k, &state);
    CHECK_INT(state, GOOD);
    CHECK(d && d->observed == 5); /* the same data for every observation */
    pna_transitions_free(t);
    free(l.calls);
}

static void test_appearing_is_change(void)
{
    static const struct pna_transition_rule appear = { .appearing_is_change = true,
                                                       .changed = on_changed,
                                                       .gone = on_gone };
    struct log l = { 0 };
    struct pna_transitions *t = pna_transitions_new(&appear, sizeof(struct mydata), &l);
    CHECK(t != NULL);
    if (!t)
        return;
    /* the first poll takes every key as it is, bad ones too (no bad()) */
    pna_transitions_begin(t);
    see(t, "p1", 0, GOOD);
    see(t, "p2", 0, BAD);
    pna_transitions_end(t);
    CHECK_U64(l.n, 0);
    /* later, a key that appears is a change from 0 */
    pna_transitions_begin(t);
    see(t, "p1", 0, GOOD);
    see(t, "p2", 0, BAD);
    see(t, "p3", 0, GOOD);
    pna_transitions_end(t);
    CHECK_U64(l.n, 1);
    CHECK(call_is(&l, 0, CHANGED, "p3", 0, GOOD));
    pna_transitions_free(t);
    free(l.calls);
}

/* ---- many keys ------------------------------------------------------------------ */

#define MANY 5000

static int cmp_call(const void *x, const void *y)
{
    const struct call *a = x, *b = y;
    if (a->kind != b->kind)
        return (int)a->kind - (int)b->kind;
    int c = strcmp(a->key.name, b->key.name);
    if (c)
        return c;
    if (a->key.a != b->key.a)
        return a->key.a < b->key.a ? -1 : 1;
    if (a->key.b != b->key.b)
        return a->key.b < b->key.b ? -1 : 1;
    if (a->old_state != b->old_state)
        return a->old_state - b->old_state;
    return a->new_state - b->new_state;
}

/* Key i's state at poll P: a pattern in which keys go bad, recover, vanish
 * (every 7th key at poll 2) and appear (from MANY - 50 on, at poll 1). */
static int32_t state_at(unsigned i, int poll)
{
    if (poll == 2 && i % 7 == 0)
        return 0; /* not observed */
    if (poll == 0 && i >= MANY - 50)
        return 0;
    unsigned v = (i * 2654435761u + (unsigned)poll * 40503u) >> 28;
    return v < 5 ? BAD : v < 6 ? WORSE : GOOD;
}

static void feed(struct pna_transitions *t, const unsigned *order, int poll)
{
    pna_transitions_begin(t);
    for (unsigned k = 0; k < MANY; k++) {
        unsigned i = order[k];
        int32_t s = state_at(i, poll);
        if (!s)
            continue;
        char name[32];
        snprintf(name, sizeof name, "if%u", i % 97);
        struct pna_transition_key key = pna_transition_key(name, i / 97, i & 1);
        CHECK(pna_transitions_observe(t, &key, s, NULL) != NULL);
    }
    pna_transitions_end(t);
}

static void test_many_keys(void)
{
    static unsigned forward[MANY], shuffled[MANY];
    for (unsigned i = 0; i < MANY; i++)
        forward[i] = shuffled[i] = i;
    srand(7);
    for (unsigned i = MANY - 1; i > 0; i--) {
        unsigned j = (unsigned)rand() % (i + 1);
        unsigned x = shuffled[i];
        shuffled[i] = shuffled[j];
        shuffled[j] = x;
    }
    struct log a = { 0 }, b = { 0 };
    struct pna_transitions *ta = pna_transitions_new(&rule, 0, &a);
    struct pna_transitions *tb = pna_transitions_new(&rule, 0, &b);
    CHECK(ta && tb);
    if (ta && tb) {
        /* the same observations, one set always in order, the other
         * shuffled differently at each poll */
        size_t expect_first = 0;
        for (unsigned i = 0; i < MANY; i++)
            expect_first += is_bad(state_at(i, 0));
        for (int poll = 0; poll < 4; poll++) {
            feed(ta, forward, poll);
            feed(tb, poll % 2 ? forward : shuffled, poll);
            if (poll == 0) {
                CHECK_U64(a.n, expect_first);
                CHECK_U64(pna_transitions_count(ta), MANY - 50);
            }
            if (poll == 2)
                CHECK_U64(pna_transitions_count(ta), MANY - (MANY + 6) / 7);
            for (unsigned i = MANY - 1; i > 0 && poll == 1; i--) {
                unsigned j = (unsigned)rand() % (i + 1);
                unsigned x = shuffled[i];
                shuffled[i] = shuffled[j];
                shuffled[j] = x;
            }
        }
        CHECK_U64(a.n, b.n);
        CHECK(a.n > 1000);
        if (a.n == b.n && a.calls && b.calls) {
            qsort(a.calls, a.n, sizeof *a.calls, cmp_call);
            qsort(b.calls, b.n, sizeof *b.calls, cmp_call);
            size_t differ = 0;
            for (size_t i = 0; i < a.n; i++)
                differ += cmp_call(&a.calls[i], &b.calls[i]) != 0;
            CHECK_U64(differ, 0);
        }
        /* and each key's state is the last one seen */
        size_t wrong = 0;
        for (unsigned i = 0; i < MANY; i++) {
            char name[32];
            snprintf(name, sizeof name, "if%u", i % 97);
            struct pna_transition_key key = pna_transition_key(name, i / 97, i & 1);
            int32_t s = 0;
            wrong += !pna_transitions_find(ta, &key, &s) || s != state_at(i, 3);
        }
        CHECK_U64(wrong, 0);
    }
    pna_transitions_free(ta);
    pna_transitions_free(tb);
    free(a.calls);
    free(b.calls);
}

static void count_key(void *arg, const struct pna_transition_key *key, void *data, int32_t state)
{
    (void)key;
    (void)data;
    *(int32_t *)arg += state;
}

static void test_foreach_and_keys(void)
{
    struct log l = { 0 };
    struct pna_transitions *t = pna_transitions_new(&rule, sizeof(struct mydata), &l);
    CHECK(t != NULL);
    if (!t)
        return;
    pna_transitions_begin(t);
    see(t, "x", 1, GOOD);
    see(t, "x", 2, BAD);
    see(t, "", 1, GOOD); /* numbers only: another key */
    pna_transitions_end(t);
    int32_t sum = 0;
    pna_transitions_foreach(t, count_key, &sum);
    CHECK_INT(sum, GOOD + BAD + GOOD);
    /* a name longer than the key holds is cut, not overrun */
    char longname[100];
    memset(longname, 'n', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    struct pna_transition_key k = pna_transition_key(longname, 0, 0);
    CHECK_U64(strlen(k.name), sizeof k.name - 1);
    k = pna_transition_key(NULL, 4, 5);
    CHECK_STR(k.name, "");
    CHECK(k.a == 4 && k.b == 5);
    pna_transitions_free(t);
    free(l.calls);
    CHECK(pna_transitions_new(&(struct pna_transition_rule){ .bad = is_bad }, 0, NULL) == NULL);
}

int main(void)
{
    test_startup_policy();
    test_changes();
    test_gone();
    test_seen_twice();
    test_appearing_is_change();
    test_many_keys();
    test_foreach_and_keys();
    UNIT_END();
}
