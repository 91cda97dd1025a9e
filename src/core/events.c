/* core/events.c -- the event queue between pollers and the main thread, and the
 * history behind primusEventTable (see events.h).
 *
 * Two stores: a bounded inbox filled by any thread under a mutex, and the
 * history ring that only the main thread writes (so the SNMP handler, on the
 * main thread, reads it without a lock; the HTTP bridge copies it under
 * history_lock, which the main thread takes only to write).  The main loop's
 * owner says how it is woken (pna_events_set_waker); this file does not know
 * how. */
#include "pna_autoconf.h"
#include "core/events.h"
#include "core/cache.h"

#include <stdatomic.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define INBOX_LEN 256

static pthread_mutex_t inbox_lock = PTHREAD_MUTEX_INITIALIZER;
static struct pna_event inbox[INBOX_LEN];
static size_t inbox_head, inbox_len;
static uint64_t dropped;

static _Atomic(pna_waker) waker;

/* Written by the main thread only, under history_lock. */
static pthread_mutex_t history_lock = PTHREAD_MUTEX_INITIALIZER;
static struct pna_event *history;
static size_t history_cap, history_start, history_len;
static uint32_t next_seq = 1;
/* Written by the main thread, read by HTTP threads for /metrics. */
static _Atomic uint64_t total;
static _Atomic uint64_t total_by_type[PNA_EV_TYPE_MAX + 1];

int pna_events_init(size_t capacity)
{
    if (capacity == 0)
        capacity = 1;
    history = calloc(capacity, sizeof *history);
    if (!history)
        return -1;
    history_cap = capacity;
    history_start = history_len = 0;
    return 0;
}

void pna_events_shutdown(void)
{
    atomic_store(&waker, NULL);
    pthread_mutex_lock(&history_lock);
    free(history);
    history = NULL;
    history_cap = history_start = history_len = 0;
    pthread_mutex_unlock(&history_lock);
    inbox_head = inbox_len = 0;
}

void pna_events_set_waker(pna_waker wake)
{
    atomic_store(&waker, wake);
}

void pna_wake_main(void)
{
    pna_waker wake = atomic_load(&waker);
    if (wake)
        wake();
}

void pna_event_post(const struct pna_event *ev)
{
    pthread_mutex_lock(&inbox_lock);
    if (inbox_len == INBOX_LEN) {
        dropped++;
    } else {
        struct pna_event *slot = &inbox[(inbox_head + inbox_len) % INBOX_LEN];
        *slot = *ev;
        if (slot->time_ms == 0)
            slot->time_ms = pna_now_ms();
        inbox_len++;
    }
    pthread_mutex_unlock(&inbox_lock);
    pna_wake_main();
}

static int take_one(struct pna_event *out)
{
    int got = 0;
    pthread_mutex_lock(&inbox_lock);
    if (inbox_len > 0) {
        *out = inbox[inbox_head];
        inbox_head = (inbox_head + 1) % INBOX_LEN;
        inbox_len--;
        got = 1;
    }
    pthread_mutex_unlock(&inbox_lock);
    return got;
}

static const struct pna_event *remember(struct pna_event *ev)
{
    ev->seq = next_seq++;
    atomic_fetch_add_explicit(&total, 1, memory_order_relaxed);
    if (ev->type >= 1 && ev->type <= PNA_EV_TYPE_MAX)
        atomic_fetch_add_explicit(&total_by_type[ev->type], 1, memory_order_relaxed);
    size_t slot;
    pthread_mutex_lock(&history_lock);
    if (history_len < history_cap) {
        slot = (history_start + history_len) % history_cap;
        history_len++;
    } else {
        slot = history_start;
        history_start = (history_start + 1) % history_cap;
    }
    history[slot] = *ev;
    pthread_mutex_unlock(&history_lock);
    return &history[slot];
}

void pna_events_drain(pna_event_sink sink, void *arg)
{
    struct pna_event ev;
    while (take_one(&ev)) {
        const struct pna_event *kept = remember(&ev);
        if (sink)
            sink(kept, arg);
    }
}

size_t pna_events_count(void)
{
    return history_len;
}

const struct pna_event *pna_events_at(size_t i)
{
    if (i >= history_len)
        return NULL;
    return &history[(history_start + i) % history_cap];
}

size_t pna_events_copy(struct pna_event *out, size_t max)
{
    pthread_mutex_lock(&history_lock);
    size_t n = history_len < max ? history_len : max;
    for (size_t i = 0; i < n; i++)
        out[i] = history[(history_start + history_len - n + i) % history_cap];
    pthread_mutex_unlock(&history_lock);
    return n;
}

uint64_t pna_events_total_of(enum pna_event_type type)
{
    if (type < 1 || type > PNA_EV_TYPE_MAX)
        return 0;
    return atomic_load_explicit(&total_by_type[type], memory_order_relaxed);
}

const char *const pna_event_type_names[PNA_EV_TYPE_MAX + 1] = {
    [PNA_EV_POLLER_FAILED] = "pollerFailed",     [PNA_EV_POLLER_RECOVERED] = "pollerRecovered",
    [PNA_EV_IB_PORT_DOWN] = "ibPortDown",        [PNA_EV_IB_PORT_UP] = "ibPortUp",
    [PNA_EV_CONTAINER_OOM] = "containerOomKill", [PNA_EV_GPU_XID] = "gpuXid",
    [PNA_EV_GPU_THERMAL] = "gpuThermal",         [PNA_EV_GPU_LOST] = "gpuLost",
    [PNA_EV_PFC_PAUSE_STORM] = "pfcPauseStorm",
    [PNA_EV_GPU_LINK_DOWN] = "gpuLinkDown", [PNA_EV_GPU_LINK_UP] = "gpuLinkUp",
    [PNA_EV_GPU_HEALTH] = "gpuHealth",
    [PNA_EV_ROCE_LOSSLESS] = "roceLossless", [PNA_EV_ROCE_NODE_LOSSLESS] = "roceNodeLossless",
    [PNA_EV_PCIE_DOWNTRAINED] = "pcieDowntrained", [PNA_EV_PCIE_RESTORED] = "pcieRestored",
    [PNA_EV_MODULE_THRESHOLD] = "moduleThreshold",
    [PNA_EV_MODULE_THRESHOLD_CLEAR] = "moduleThresholdClear",
    [PNA_EV_SLURM_JOB_END] = "slurmJobEnd",
    [PNA_EV_GPU_IDLE_ALLOCATED] = "gpuIdleAllocated",
    [PNA_EV_GPU_ORPHAN_PROCESS] = "gpuOrphanProcess",
};

const char *const pna_severity_names[PNA_SEV_CRITICAL + 1] = {
    [PNA_SEV_INFO] = "info", [PNA_SEV_WARNING] = "warning", [PNA_SEV_ERROR] = "error",
    [PNA_SEV_CRITICAL] = "critical",
};

const char *pna_event_type_name(enum pna_event_type type)
{
    return type >= 1 && type <= PNA_EV_TYPE_MAX ? pna_event_type_names[type] : "unknown";
}

const char *pna_severity_name(enum pna_severity severity)
{
    return severity >= PNA_SEV_INFO && severity <= PNA_SEV_CRITICAL ? pna_severity_names[severity]
                                                                      : "unknown";
}

uint64_t pna_events_total(void)
{
    return atomic_load_explicit(&total, memory_order_relaxed);
}

uint64_t pna_events_dropped(void)
{
    pthread_mutex_lock(&inbox_lock);
    uint64_t d = dropped;
    pthread_mutex_unlock(&inbox_lock);
    return d;
}

size_t pna_events_capacity(void)
{
    return history_cap;
}
