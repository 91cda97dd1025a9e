/* test_poller.c -- the poller core with pollers that succeed, fail, hang and
 * are disabled: snapshots, error counts, deadlines, events, stale data, and
 * the settings of a poller's own config keys handed to its init().  The
 * registry is this test's own, handed to the core as main.c hands the
 * agent's. */
#include "pna_autoconf.h"
#include "core/config.h"
#include "core/cache.h"
#include "core/events.h"
#include "core/poller.h"
#include "unit.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <unistd.h>

struct test_snap {
    struct pna_snap snap;
    int value;
};

static atomic_int destroyed;

static void destroy(struct pna_snap *s)
{
    atomic_fetch_add(&destroyed, 1);
    free(s);
}

static struct pna_snap *make_snap(int value)
{
    struct test_snap *s = calloc(1, sizeof *s);
    pna_snap_init(&s->snap, destroy);
    s->value = value;
    return &s->snap;
}

/* "good": counts up from its previous snapshot. */
static int good_collect(void *state, const struct pna_snap *prev,
                        const struct pna_poller_inputs *in, struct pna_snap **out,
                        char *err, size_t errlen)
{
    (void)state, (void)in, (void)err, (void)errlen;
    *out = make_snap(prev ? ((const struct test_snap *)prev)->value + 1 : 1);
    return 0;
}

/* "flaky": works until told to fail, then works again. */
static atomic_int flaky_broken;
static int flaky_collect(void *state, const struct pna_snap *prev,
                         const struct pna_poller_inputs *in, struct pna_snap **out,
                         char *err, size_t errlen)
{
    (void)state, (void)prev, (void)in;
    if (atomic_load(&flaky_broken)) {
        snprintf(err, errlen, "source said no");
        return -1;
    }
    *out = make_snap(42);
    return 0;
}

/* "hang": the second poll never returns until released. */
static atomic_int hang_release, hang_calls;
static int hang_collect(void *state, const struct pna_snap *prev,
                        const struct pna_poller_inputs *in, struct pna_snap **out,
                        char *err, size_t errlen)
{
    (void)state, (void)prev, (void)in, (void)err, (void)errlen;
    if (atomic_fetch_add(&hang_calls, 1) == 1)
        while (!atomic_load(&hang_release))
            usleep(10000);
    *out = make_snap(7);
    return 0;
}

/* "partial": succeeds but says what it had to leave out. */
static int partial_collect(void *state, const struct pna_snap *prev,
                           const struct pna_poller_inputs *in, struct pna_snap **out,
                           char *err, size_t errlen)
{
    (void)state, (void)prev, (void)in;
    snprintf(err, errlen, "1 file unreadable");
    *out = make_snap(9);
    return 0;
}

static int absent_init(void **state, const struct pna_config *cfg, const void *settings,
                       char *err, size_t errlen)
{
    (void)state, (void)cfg, (void)settings;
    snprintf(err, errlen, "no such hardware");
    return PNA_POLLER_DISABLED;
}

/* "late": its source appears while the agent runs (a driver installed after
 * boot): ABSENT until late_present is set. */
static atomic_int late_present, late_inits;
static int late_init(void **state, const struct pna_config *cfg, const void *settings,
                     char *err, size_t errlen)
{
    (void)state, (void)cfg, (void)settings;
    atomic_fetch_add(&late_inits, 1);
    if (atomic_load(&late_present))
        return 0;
    snprintf(err, errlen, "not there yet");
    return PNA_POLLER_ABSENT;
}

/* "reader": declares the "good" poller's domain as its input and publishes
 * what it saw there; it asks for the "flaky" poller's domain too, which it
 * did not declare and must not be given. */
static atomic_int reader_undeclared_seen;
static int reader_collect(void *state, const struct pna_snap *prev,
                          const struct pna_poller_inputs *in, struct pna_snap **out,
                          char *err, size_t errlen)
{
    (void)state, (void)prev, (void)err, (void)errlen;
    const struct pna_snap *node = pna_poller_input(in, PNA_DOM_NODE);
    if (pna_poller_input(in, PNA_DOM_GPU))
        atomic_fetch_add(&reader_undeclared_seen, 1);
    *out = make_snap(node ? ((const struct test_snap *)node)->value : 0);
    return 0;
}

/* "keyed": declares one config key; init() sees the config's value of it. */
struct keyed_settings {
    unsigned value;
};
static const struct pna_config_key keyed_keys[] = {
    { .token = "keyedValue", .type = PNA_KEY_UINT, .offset = offsetof(struct keyed_settings, value),
      .min = 0, .max = 100, .def = 7 },
    { .token = NULL },
};
static atomic_int keyed_seen = -1;
static int keyed_init(void **state, const struct pna_config *cfg, const void *settings,
                      char *err, size_t errlen)
{
    (void)state, (void)cfg, (void)err, (void)errlen;
    atomic_store(&keyed_seen, (int)((const struct keyed_settings *)settings)->value);
    return 0;
}

#define OPS(n, i, dom, tmo, init_fn, collect_fn) \
    { .name = n, .index = i, .domain = dom, .default_interval_ms = 50, \
      .default_timeout_ms = tmo, .init = init_fn, .collect = collect_fn }
static const struct pna_poller_ops good = OPS("good", 1, PNA_DOM_NODE, 1000, NULL, good_collect);
static const struct pna_poller_ops flaky = OPS("flaky", 2, PNA_DOM_GPU, 1000, NULL, flaky_collect);
static const struct pna_poller_ops hang = OPS("hang", 3, PNA_DOM_IB, 200, NULL, hang_collect);
static const struct pna_poller_ops absent = OPS("absent", 4, PNA_DOM_PFC, 1000, absent_init,
                                                good_collect);
static const struct pna_poller_ops partial = OPS("partial", 5, PNA_DOM_KUBELET, 1000, NULL,
                                                 partial_collect);
static const struct pna_poller_ops late = OPS("late", 6, PNA_DOM_CONTAINERS, 1000, late_init,
                                              good_collect);
static const struct pna_poller_ops reader = {
    .name = "reader", .index = 7, .domain = PNA_DOM_STORAGE,
    .inputs = PNA_DOM_BIT(PNA_DOM_NODE),
    .default_interval_ms = 50, .default_timeout_ms = 1000, .collect = reader_collect,
};

static const struct pna_poller_ops keyed = {
    .name = "keyed", .index = 8, .domain = PNA_DOM_PODRES, .keys = keyed_keys,
    .settings_size = sizeof(struct keyed_settings), .default_interval_ms = 50,
    .default_timeout_ms = 1000, .init = keyed_init, .collect = good_collect,
};

/* This test's registry, handed to the config and the core. */
static const struct pna_poller_ops *const registry[] = { &good, &flaky, &hang, &absent, &partial,
                                                         &late, &reader, &keyed };
#define NREGISTRY (sizeof registry / sizeof registry[0])

static struct pna_poller_info info_of(const char *name)
{
    struct pna_poller_info info = { 0 };
    for (size_t i = 0; i < pna_pollers_count(); i++)
        if (pna_pollers_info(i, &info) && strcmp(info.name, name) == 0)
            return info;
    CHECK(0);
    return info;
}

static int count_events(enum pna_event_type type, const char *subject)
{
    int n = 0;
    for (size_t i = 0; i < pna_events_count(); i++) {
        const struct pna_event *ev = pna_events_at(i);
        if (ev->type == type && strcmp(ev->subject, subject) == 0)
            n++;
    }
    return n;
}

/* Let time pass while the "main thread" drains events and runs the watchdog. */
static void run_main_for(int ms)
{
    for (int t = 0; t < ms; t += 10) {
        pna_pollers_watchdog();
        pna_events_drain(NULL, NULL);
        usleep(10000);
    }
}

int main(void)
{
    struct pna_config cfg;
    char err[256];
    pna_config_defaults(&cfg);
    cfg.stale_after_s = 1;
    CHECK_INT(pna_config_set_pollers(&cfg, registry, NREGISTRY, err, sizeof err), 0);
    struct keyed_settings *ks = pna_config_settings(&cfg, &keyed);
    CHECK(ks && ks->value == 7); /* the key's default */
    if (ks)
        ks->value = 9;           /* as a "keyedValue 9" line would */
    CHECK_INT(pna_events_init(100), 0);
    CHECK_INT(pna_pollers_start(&cfg, registry, NREGISTRY), 0);
    run_main_for(400);

    /* good: several polls, each snapshot built on the previous one. */
    struct pna_poller_info g = info_of("good");
    CHECK_INT(g.status, PNA_POLLER_OK);
    CHECK(g.runs >= 3);
    CHECK_INT(g.errors, 0);
    struct pna_snap *s = pna_cache_acquire(PNA_DOM_NODE);
    CHECK(s != NULL);
    CHECK(s && ((struct test_snap *)s)->value >= 3);
    CHECK(s && s->generation == (uint64_t)((struct test_snap *)s)->value);
    pna_snap_release(s);
    CHECK(atomic_load(&destroyed) > 0); /* old snapshots are freed */

    /* absent: disabled, never polled, no error. */
    struct pna_poller_info a = info_of("absent");
    CHECK_INT(a.status, PNA_POLLER_OFF);
    CHECK_INT(a.runs, 0);
    CHECK_INT(a.errors, 0);
    CHECK_STR(a.last_error, "no such hardware");

    /* late: disabled with its reason while absent, init retried quietly (no
     * error, no event); polled once its source appears. */
    struct pna_poller_info l = info_of("late");
    CHECK_INT(l.status, PNA_POLLER_OFF);
    CHECK_INT(l.runs, 0);
    CHECK_INT(l.errors, 0);
    CHECK_STR(l.last_error, "not there yet");
    CHECK(atomic_load(&late_inits) >= 3);
    CHECK(pna_cache_acquire(PNA_DOM_CONTAINERS) == NULL);
    atomic_store(&late_present, 1);
    run_main_for(300);
    l = info_of("late");
    CHECK_INT(l.status, PNA_POLLER_OK);
    CHECK(l.runs >= 2);
    CHECK_INT(l.errors, 0);
    s = pna_cache_acquire(PNA_DOM_CONTAINERS);
    CHECK(s != NULL);
    pna_snap_release(s);
    CHECK_INT(count_events(PNA_EV_POLLER_FAILED, "poller late"), 0);

    /* partial: published, status ok, each poll's problem counted and shown,
     * no failure event. */
    struct pna_poller_info pi = info_of("partial");
    CHECK_INT(pi.status, PNA_POLLER_OK);
    CHECK(pi.errors >= 3 && pi.errors == pi.runs);
    CHECK_INT(pi.consecutive_failures, 0);
    CHECK_STR(pi.last_error, "1 file unreadable");
    s = pna_cache_acquire(PNA_DOM_KUBELET);
    CHECK(s && ((struct test_snap *)s)->value == 9);
    pna_snap_release(s);
    CHECK_INT(count_events(PNA_EV_POLLER_FAILED, "poller partial"), 0);

    /* flaky: failure keeps the last snapshot, counts, and posts one event. */
    atomic_store(&flaky_broken, 1);
    run_main_for(300);
    struct pna_poller_info f = info_of("flaky");
    CHECK_INT(f.status, PNA_POLLER_FAILING);
    CHECK(f.errors >= 2);
    CHECK(f.consecutive_failures >= 2);
    CHECK_STR(f.last_error, "source said no");
    s = pna_cache_acquire(PNA_DOM_GPU);
    CHECK(s && ((struct test_snap *)s)->value == 42);
    pna_snap_release(s);
    CHECK_INT(count_events(PNA_EV_POLLER_FAILED, "poller flaky"), 1);
    atomic_store(&flaky_broken, 0);
    run_main_for(300);
    f = info_of("flaky");
    CHECK_INT(f.status, PNA_POLLER_OK);
    CHECK_INT(f.consecutive_failures, 0);
    CHECK_INT(count_events(PNA_EV_POLLER_RECOVERED, "poller flaky"), 1);

    /* hang: the watchdog marks it timed out after 200 ms; data stays until
     * staleAfter (1 s), then is dropped; release brings it back. */
    struct pna_poller_info h = info_of("hang");
    CHECK_INT(h.status, PNA_POLLER_TIMED_OUT);
    CHECK_INT(h.errors, 1);
    CHECK(strstr(h.last_error, "200 ms deadline") != NULL);
    CHECK_INT(count_events(PNA_EV_POLLER_FAILED, "poller hang"), 1);
    run_main_for(1200);
    s = pna_cache_acquire(PNA_DOM_IB);
    CHECK(s == NULL); /* older than staleAfter: no longer served */
    pna_snap_release(s);
    atomic_store(&hang_release, 1);
    run_main_for(300);
    h = info_of("hang");
    CHECK_INT(h.status, PNA_POLLER_OK);
    CHECK_INT(h.errors, 1); /* the overdue poll counted once, not twice */
    s = pna_cache_acquire(PNA_DOM_IB);
    CHECK(s != NULL);
    pna_snap_release(s);

    /* reader: given its declared input, never an undeclared one. */
    struct pna_poller_info r = info_of("reader");
    CHECK_INT(r.status, PNA_POLLER_OK);
    s = pna_cache_acquire(PNA_DOM_STORAGE);
    CHECK(s && ((struct test_snap *)s)->value >= 3);
    pna_snap_release(s);
    CHECK_INT(atomic_load(&reader_undeclared_seen), 0);
    CHECK(pna_poller_input(NULL, PNA_DOM_NODE) == NULL);

    /* keyed: its init() was handed the config's settings. */
    CHECK_INT(atomic_load(&keyed_seen), 9);

    /* The pollers are the registry's, in its order. */
    struct pna_poller_info first, last;
    CHECK_INT(pna_pollers_count(), NREGISTRY);
    CHECK(pna_pollers_info(0, &first) && strcmp(first.name, "good") == 0);
    CHECK(pna_pollers_info(NREGISTRY - 1, &last) && strcmp(last.name, "keyed") == 0);

    CHECK(pna_pollers_all_ran());
    pna_pollers_stop();

    /* A poller with keys cannot run on a config that was not given it. */
    struct pna_config bare;
    pna_config_defaults(&bare);
    const struct pna_poller_ops *const only_keyed[] = { &keyed };
    CHECK_INT(pna_pollers_start(&bare, only_keyed, 1), -1);
    pna_pollers_stop();
    pna_config_free(&cfg);

    /* A retained snapshot outlives the cache's reference (nothing publishes
     * any more, so only this one can be destroyed here). */
    s = pna_cache_acquire(PNA_DOM_NODE);
    CHECK(s && pna_snap_retain(s) == s);
    int before = atomic_load(&destroyed);
    pna_cache_drop(PNA_DOM_NODE);
    pna_snap_release(s);
    CHECK_INT(atomic_load(&destroyed), before);
    pna_snap_release(s);
    CHECK_INT(atomic_load(&destroyed), before + 1);
    pna_cache_clear();
    pna_events_shutdown();
    UNIT_END();
}
