/* test_events.c -- the event queue: order, history bound, sequence numbers,
 * the main loop's waker, and posting from many threads at once. */
#include "pna_autoconf.h"
#include "core/events.h"
#include "unit.h"

#include <pthread.h>
#include <stdatomic.h>

static int seen;
static uint32_t last_seq;

static void sink(const struct pna_event *ev, void *arg)
{
    (void)arg;
    CHECK(ev->seq > last_seq);
    last_seq = ev->seq;
    seen++;
}

static void post(enum pna_event_type type, const char *subject)
{
    struct pna_event ev = { 0 };
    ev.type = type;
    ev.severity = PNA_SEV_WARNING;
    snprintf(ev.subject, sizeof ev.subject, "%s", subject);
    pna_event_post(&ev);
}

/* The waker the main loop would set: counts its calls (from any thread). */
static atomic_int wakes;
static void count_wake(void)
{
    atomic_fetch_add(&wakes, 1);
}

static void test_order_and_bound(void)
{
    CHECK_INT(pna_events_init(3), 0);
    pna_events_set_waker(count_wake);
    CHECK_INT(atomic_load(&wakes), 0);
    post(PNA_EV_POLLER_FAILED, "a");
    CHECK_INT(atomic_load(&wakes), 1);
    post(PNA_EV_POLLER_RECOVERED, "b");
    post(PNA_EV_IB_PORT_DOWN, "c");
    post(PNA_EV_IB_PORT_UP, "d");
    CHECK_INT(atomic_load(&wakes), 4); /* once a post: merging them is the waker's job */
    pna_events_drain(sink, NULL);
    CHECK_INT(atomic_load(&wakes), 4); /* draining wakes nobody */
    CHECK_INT(seen, 4);
    /* Only the last 3 are kept, oldest first, numbered 2..4. */
    CHECK_INT(pna_events_count(), 3);
    CHECK_STR(pna_events_at(0)->subject, "b");
    CHECK_INT(pna_events_at(0)->seq, 2);
    CHECK_STR(pna_events_at(2)->subject, "d");
    CHECK_INT(pna_events_at(2)->seq, 4);
    CHECK(pna_events_at(3) == NULL);
    CHECK(pna_events_at(0)->time_ms > 0);
    CHECK_U64(pna_events_total(), 4);
    /* The copy other threads get: the newest N, oldest first. */
    struct pna_event copy[5];
    CHECK_INT(pna_events_copy(copy, 5), 3);
    CHECK_STR(copy[0].subject, "b");
    CHECK_STR(copy[2].subject, "d");
    CHECK_INT(pna_events_copy(copy, 2), 2);
    CHECK_STR(copy[0].subject, "c");
    CHECK_INT(copy[1].seq, 4);
    CHECK_INT(pna_events_copy(copy, 0), 0);
    /* Counted by type, dropped-from-history ones included. */
    CHECK_U64(pna_events_total_of(PNA_EV_POLLER_FAILED), 1);
    CHECK_U64(pna_events_total_of(PNA_EV_IB_PORT_UP), 1);
    CHECK_U64(pna_events_total_of(PNA_EV_GPU_XID), 0);
    CHECK_U64(pna_events_total_of((enum pna_event_type)0), 0);
    CHECK_U64(pna_events_total_of((enum pna_event_type)(PNA_EV_TYPE_MAX + 1)), 0);
    pna_events_shutdown();
    CHECK_INT(pna_events_copy(copy, 5), 0); /* after shutdown: nothing, no crash */
}

/* The MIB's labels (PRIMUS-NODE-MIB primusEventType, primusEventSeverity). */
static void test_names(void)
{
    CHECK_STR(pna_event_type_name(PNA_EV_POLLER_FAILED), "pollerFailed");
    CHECK_STR(pna_event_type_name(PNA_EV_CONTAINER_OOM), "containerOomKill");
    CHECK_STR(pna_event_type_name(PNA_EV_GPU_XID), "gpuXid");
    CHECK_STR(pna_event_type_name(PNA_EV_PFC_PAUSE_STORM), "pfcPauseStorm");
    CHECK_STR(pna_event_type_name((enum pna_event_type)42), "unknown");
    for (int t = 1; t <= PNA_EV_TYPE_MAX; t++)
        CHECK(strcmp(pna_event_type_name((enum pna_event_type)t), "unknown") != 0);
    CHECK_STR(pna_severity_name(PNA_SEV_INFO), "info");
    CHECK_STR(pna_severity_name(PNA_SEV_CRITICAL), "critical");
    CHECK_STR(pna_severity_name((enum pna_severity)9), "unknown");
}

static void *poster(void *arg)
{
    (void)arg;
    for (int i = 0; i < 50; i++)
        post(PNA_EV_CONTAINER_OOM, "thread");
    return NULL;
}

/* 4 threads x 50 events: the 256-slot inbox holds them all, none lost. */
static void test_threads(void)
{
    CHECK_INT(pna_events_init(1000), 0);
    seen = 0;
    last_seq = 0;
    pna_events_set_waker(count_wake);
    atomic_store(&wakes, 0);
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, poster, NULL);
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    pna_events_drain(sink, NULL);
    CHECK_INT(seen, 200);
    CHECK_INT(pna_events_count(), 200);
    CHECK_U64(pna_events_dropped(), 0);
    CHECK_INT(atomic_load(&wakes), 200);
    pna_events_shutdown();
    /* Shut down, the waker is gone: a late post wakes nothing. */
    post(PNA_EV_CONTAINER_OOM, "late");
    CHECK_INT(atomic_load(&wakes), 200);
    pna_events_shutdown();
}

/* A full inbox drops and counts rather than blocking a poller. */
static void test_overflow(void)
{
    CHECK_INT(pna_events_init(10), 0);
    for (int i = 0; i < 300; i++)
        post(PNA_EV_GPU_XID, "x");
    CHECK_U64(pna_events_dropped(), 44);
    seen = 0;
    last_seq = 0;
    pna_events_drain(sink, NULL);
    CHECK_INT(seen, 256);
    pna_events_shutdown();
}

int main(void)
{
    test_names();
    test_order_and_bound();
    test_threads();
    test_overflow();
    UNIT_END();
}
