/* test_poller.c -- the poller core with pollers that succeed, fail, hang and
 * are disabled: snapshots, error counts, deadlines, events, stale data. */
#include "core/config.h"
#include "core/cache.h"
#include "core/events.h"
#include "core/poller.h"
#include "unit.h"

#include <stdatomic.h>
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
static int good_collect(void *state, const struct pna_snap *prev, struct pna_snap **out,
                        char *err, size_t errlen)
{
    (void)state, (void)err, (void)errlen;
    *out = make_snap(prev ? ((const struct test_snap *)prev)->value + 1 : 1);
    return 0;
}

/* "flaky": works until told to fail, then works again. */
static atomic_int flaky_broken;
static int flaky_collect(void *state, const struct pna_snap *prev, struct pna_snap **out,
                         char *err, size_t errlen)
{
    (void)state, (void)prev;
    if (atomic_load(&flaky_broken)) {
        snprintf(err, errlen, "source said no");
        return -1;
    }
    *out = make_snap(42);
    return 0;
}

/* "hang": the second poll never returns until released. */
static atomic_int hang_release, hang_calls;
static int hang_collect(void *state, const struct pna_snap *prev, struct pna_snap **out,
                        char *err, size_t errlen)
{
    (void)state, (void)prev, (void)err, (void)errlen;
    if (atomic_fetch_add(&hang_calls, 1) == 1)
        while (!atomic_load(&hang_release))
            usleep(10000);
    *out = make_snap(7);
    return 0;
}

/* "partial": succeeds but says what it had to leave out. */
static int partial_collect(void *state, const struct pna_snap *prev, struct pna_snap **out,
                           char *err, size_t errlen)
{
    (void)state, (void)prev;
    snprintf(err, errlen, "1 file unreadable");
    *out = make_snap(9);
    return 0;
}

static int absent_init(void **state, const struct pna_config *cfg, char *err, size_t errlen)
{
    (void)state, (void)cfg;
    snprintf(err, errlen, "no such hardware");
    return PNA_POLLER_DISABLED;
}

/* "late": its source appears while the agent runs (a driver installed after
 * boot): ABSENT until late_present is set. */
static atomic_int late_present, late_inits;
static int late_init(void **state, const struct pna_config *cfg, char *err, size_t errlen)
{
    (void)state, (void)cfg;
    atomic_fetch_add(&late_inits, 1);
    if (atomic_load(&late_present))
        return 0;
    snprintf(err, errlen, "not there yet");
    return PNA_POLLER_ABSENT;
}

static const struct pna_poller_ops good = { "good", 1, PNA_DOM_NODE, 50, 1000, NULL, good_collect, NULL };
static const struct pna_poller_ops flaky = { "flaky", 2, PNA_DOM_GPU, 50, 1000, NULL, flaky_collect, NULL };
static const struct pna_poller_ops hang = { "hang", 3, PNA_DOM_IB, 50, 200, NULL, hang_collect, NULL };
static const struct pna_poller_ops absent = { "absent", 4, PNA_DOM_PFC, 50, 1000, absent_init, good_collect, NULL };
static const struct pna_poller_ops partial = { "partial", 5, PNA_DOM_KUBELET, 50, 1000, NULL, partial_collect, NULL };
static const struct pna_poller_ops late = { "late", 6, PNA_DOM_CONTAINERS, 50, 1000, late_init, good_collect, NULL };

/* This test's registry replaces the agent's (src/pollers.c is not linked). */
const struct pna_poller_ops *const pna_poller_registry[] = { &good, &flaky, &hang, &absent, &partial,
                                                             &late };
const size_t pna_poller_registry_len = 6;

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
    pna_config_defaults(&cfg);
    cfg.stale_after_s = 1;
    CHECK_INT(pna_events_init(100), 0);
    CHECK_INT(pna_pollers_start(&cfg), 0);
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

    CHECK(pna_pollers_all_ran());
    pna_pollers_stop();
    pna_cache_clear();
    pna_events_shutdown();
    UNIT_END();
}
