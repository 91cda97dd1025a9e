/* core/health.c -- the agent's health rule (see health.h). */
#include "pna_autoconf.h"
#include "core/health.h"

/* The data P serves is older than its poller's schedule allows at NOW_MS. */
static bool poller_stale(const struct pna_poller_info *p, int64_t now_ms)
{
    if (p->status == PNA_POLLER_OFF || p->status == PNA_POLLER_PENDING)
        return false;
    int64_t limit = 2 * ((int64_t)p->interval_ms + p->timeout_ms);
    return !p->data_taken_ms || now_ms - p->data_taken_ms > limit;
}

bool pna_poller_failing(const struct pna_poller_info *p)
{
    return p->status == PNA_POLLER_FAILING || p->status == PNA_POLLER_TIMED_OUT;
}

bool pna_poller_degraded(const struct pna_poller_info *p, int64_t now_ms)
{
    return pna_poller_failing(p) || poller_stale(p, now_ms);
}
