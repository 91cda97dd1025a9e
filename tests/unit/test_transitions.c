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

/* One observation of a poll: key (NAME, A) in STATE. */
struct obs {
    const char *name;
    uint32_t a;
    int32_t state;
};

struct fixture {
    struct log l;
    struct pna_transitions *t;
};

static bool setup(struct fixture *f, const struct pna_transition_rule *r)
{
    memset(f, 0, sizeof *f);
    f->t = pna_transitions_new(r, sizeof(struct mydata), &f->l);
    CHECK(f->t != NULL);
    return f->t != NULL;
}

static void teardown(struct fixture *f)
{
    pna_transitions_free(f->t);
    free(f->l.calls);
}

/* One poll of the N observations OBS: the log then holds its calls, and
 * their count is returned. */
static size_t poll_keys(struct fixture *f, const struct obs *obs, size_t n)
{
    f->l.n = 0;
    pna_transitions_begin(f->t);
    for (size_t i = 0; i < n; i++) {
        struct pna_transition_key k = pna_transition_key(obs[i].name, obs[i].a, 0);
        struct mydata *d = pna_transitions_observe(f->t, &k, obs[i].state, obs[i].name);
        CHECK(d != NULL);
        if (d)
            d->observed++;
    }
    pna_transitions_end(f->t);
    return f->l.n;
}

#define POLL(f, ...) \
    poll_keys((f), (const struct obs[]){ __VA_ARGS__ }, \
              sizeof((const struct obs[]){ __VA_ARGS__ }) / sizeof(struct obs))

/* Call I of the last poll is KIND for key NAME, from OLD_STATE to NEW_STATE. */
static bool call_is(const struct fixture *f, size_t i, enum call_kind kind, const char *name,
                    int32_t old_state, int32_t new_state)
{
    if (i >= f->l.n)
        return false;
    const struct call *c = &f->l.calls[i];
    return c->kind == kind && strcmp(c->key.name, name) == 0 && c->old_state == old_state &&
           c->new_state == new_state;
}

/* Key (NAME, A)'s data, and its state in *STATE; NULL when not known. */
static struct mydata *known(const struct fixture *f, const char *name, uint32_t a, int32_t *state)
{
    struct pna_transition_key k = pna_transition_key(name, a, 0);
    return pna_transitions_find(f->t, &k, state);
}

static void test_startup_policy(void)
{
    struct fixture f;
    if (!setup(&f, &rule))
        return;
    /* the first poll: the good key says nothing, the bad ones report */
    CHECK_U64(POLL(&f, { "eth0", 0, GOOD }, { "eth1", 0, BAD }, { "eth2", 0, WORSE }), 2);
    CHECK(call_is(&f, 0, FIRST, "eth1", 0, BAD));
    CHECK(call_is(&f, 1, FIRST, "eth2", 0, WORSE));
    CHECK_STR(f.l.last_obs, "eth2"); /* the observation reaches the callback */
    CHECK_U64(pna_transitions_count(f.t), 3);

    /* a later poll: the same states are no news; a key appearing good says
     * nothing, one appearing bad reports */
    CHECK_U64(POLL(&f, { "eth0", 0, GOOD }, { "eth1", 0, BAD }, { "eth2", 0, WORSE },
                   { "eth3", 0, GOOD }, { "eth4", 0, BAD }), 1);
    CHECK(call_is(&f, 0, FIRST, "eth4", 0, BAD));

    /* the caller's data: zeroed at first sight, kept across polls */
    int32_t state = 0;
    struct mydata *d = known(&f, "eth1", 0, &state);
    CHECK(d && d->observed == 2 && d->first_seen_calls == 1);
    CHECK_INT(state, BAD);
    d = known(&f, "eth3", 0, NULL);
    CHECK(d && d->observed == 1 && d->first_seen_calls == 0);
    CHECK(known(&f, "eth9", 0, &state) == NULL);
    teardown(&f);
}

static void test_changes(void)
{
    struct fixture f;
    if (!setup(&f, &rule))
        return;
    CHECK_U64(POLL(&f, { "mlx5_0", 1, GOOD }, { "mlx5_0", 2, GOOD }), 0);

    /* port 1 goes bad, port 2 stays: one change, old and new */
    CHECK_U64(POLL(&f, { "mlx5_0", 1, BAD }, { "mlx5_0", 2, GOOD }), 1);
    CHECK(call_is(&f, 0, CHANGED, "mlx5_0", GOOD, BAD));
    CHECK_INT(f.l.n ? f.l.calls[0].key.a : 0, 1);

    /* worse, then a change the rule holds back: compared with the state
     * reported, not the one seen, until the rule takes it */
    CHECK_U64(POLL(&f, { "mlx5_0", 1, WORSE }, { "mlx5_0", 2, GOOD }), 1);
    CHECK(call_is(&f, 0, CHANGED, "mlx5_0", BAD, WORSE));
    f.l.hold_changes = true;
    for (int i = 0; i < 2; i++)
        CHECK_U64(POLL(&f, { "mlx5_0", 1, GOOD }, { "mlx5_0", 2, GOOD }), 0);
    f.l.hold_changes = false;
    CHECK_U64(POLL(&f, { "mlx5_0", 1, GOOD }, { "mlx5_0", 2, GOOD }), 1);
    CHECK(call_is(&f, 0, CHANGED, "mlx5_0", WORSE, GOOD));

    /* a change the caller reported itself between polls (an event): the
     * poll that sees the same state says nothing */
    struct pna_transition_key k = pna_transition_key("mlx5_0", 2, 0);
    CHECK(pna_transitions_set(f.t, &k, BAD));
    k = pna_transition_key("mlx5_0", 3, 0);
    CHECK(!pna_transitions_set(f.t, &k, BAD)); /* not known */
    CHECK_U64(POLL(&f, { "mlx5_0", 1, GOOD }, { "mlx5_0", 2, BAD }), 0);
    teardown(&f);
}

static void test_gone(void)
{
    struct fixture f;
    if (!setup(&f, &rule))
        return;
    POLL(&f, { "c", 0, GOOD }, { "a", 0, BAD }, { "b", 7, GOOD }, { "b", 3, GOOD });

    /* all four go: one gone call each, in key order, with the last state */
    CHECK_U64(poll_keys(&f, NULL, 0), 4);
    CHECK(call_is(&f, 0, GONE, "a", BAD, 0));
    CHECK(call_is(&f, 1, GONE, "b", GOOD, 0) && f.l.calls[1].key.a == 3);
    CHECK(call_is(&f, 2, GONE, "b", GOOD, 0) && f.l.calls[2].key.a == 7);
    CHECK(call_is(&f, 3, GONE, "c", GOOD, 0));
    CHECK_U64(pna_transitions_count(f.t), 0);
    /* forgotten: once, and a key that comes back is a first sighting */
    CHECK_U64(POLL(&f, { "a", 0, BAD }, { "c", 0, GOOD }), 1);
    CHECK(call_is(&f, 0, FIRST, "a", 0, BAD));

    /* the rule keeps a key whose absence is not news: asked at each poll it
     * is missing, and when it is back in the same state nothing fires again;
     * back in another state is a change */
    f.l.keep_gone = true;
    for (int i = 0; i < 2; i++) {
        CHECK_U64(POLL(&f, { "c", 0, GOOD }), 1);
        CHECK(call_is(&f, 0, GONE, "a", BAD, 0));
    }
    CHECK_U64(pna_transitions_count(f.t), 2);
    CHECK_U64(POLL(&f, { "a", 0, BAD }, { "c", 0, GOOD }), 0);
    POLL(&f, { "c", 0, GOOD });
    CHECK_U64(POLL(&f, { "a", 0, GOOD }, { "c", 0, GOOD }), 1);
    CHECK(call_is(&f, 0, CHANGED, "a", BAD, GOOD));
    teardown(&f);

    /* no gone callback: forgotten quietly */
    static const struct pna_transition_rule quiet = { .bad = is_bad, .first_seen = on_first,
                                                      .changed = on_changed };
    if (!setup(&f, &quiet))
        return;
    POLL(&f, { "x", 0, GOOD });
    CHECK_U64(poll_keys(&f, NULL, 0), 0);
    CHECK_U64(pna_transitions_count(f.t), 0);
    teardown(&f);
}

static void test_seen_twice(void)
{
    struct fixture f;
    if (!setup(&f, &rule))
        return;
    /* new and twice in the first poll: one first sighting, the repeat's
     * other state ignored */
    CHECK_U64(POLL(&f, { "dup", 0, BAD }, { "dup", 0, GOOD }), 1);
    CHECK(call_is(&f, 0, FIRST, "dup", 0, BAD));
    /* known and seen three times in a later poll: one change, not two */
    CHECK_U64(POLL(&f, { "dup", 0, GOOD }, { "dup", 0, WORSE }, { "dup", 0, GOOD }), 1);
    CHECK(call_is(&f, 0, CHANGED, "dup", BAD, GOOD));
    int32_t state = 0;
    struct mydata *d = known(&f, "dup", 0, &state);
    CHECK_INT(state, GOOD);
    CHECK(d && d->observed == 5); /* the same data for every observation */
    teardown(&f);
}

static void test_appearing_is_change(void)
{
    static const struct pna_transition_rule appear = { .appearing_is_change = true,
                                                       .changed = on_changed,
                                                       .gone = on_gone };
    struct fixture f;
    if (!setup(&f, &appear))
        return;
    /* the first poll takes every key as it is, bad ones too (no bad()) */
    CHECK_U64(POLL(&f, { "p1", 0, GOOD }, { "p2", 0, BAD }), 0);
    /* later, a key that appears is a change from 0 */
    CHECK_U64(POLL(&f, { "p1", 0, GOOD }, { "p2", 0, BAD }, { "p3", 0, GOOD }), 1);
    CHECK(call_is(&f, 0, CHANGED, "p3", 0, GOOD));
    teardown(&f);
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
    struct pna_transitions *ta = pna_transitions_new(&rule, sizeof(struct mydata), &a);
    struct pna_transitions *tb = pna_transitions_new(&rule, sizeof(struct mydata), &b);
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
    struct fixture f;
    if (!setup(&f, &rule))
        return;
    POLL(&f, { "x", 1, GOOD }, { "x", 2, BAD }, { "", 1, GOOD }); /* "": numbers only */
    int32_t sum = 0;
    pna_transitions_foreach(f.t, count_key, &sum);
    CHECK_INT(sum, GOOD + BAD + GOOD);
    CHECK_U64(pna_transitions_count(f.t), 3);
    teardown(&f);
    /* a name longer than the key holds is cut, not overrun */
    char longname[100];
    memset(longname, 'n', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    struct pna_transition_key k = pna_transition_key(longname, 0, 0);
    CHECK_U64(strlen(k.name), sizeof k.name - 1);
    k = pna_transition_key(NULL, 4, 5);
    CHECK_STR(k.name, "");
    CHECK(k.a == 4 && k.b == 5);
    /* a rule without changed() is refused */
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
