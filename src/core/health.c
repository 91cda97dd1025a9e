/* core/health.c -- the agent's health rule (see health.h). */
#include "pna_autoconf.h"
#include "core/health.h"
#include "core/cache.h"

bool pna_poller_stale(const struct pna_poller_info *p, int64_t now_ms)
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
    return pna_poller_failing(p) || pna_poller_stale(p, now_ms);
}

bool pna_agent_degraded(void)
{
    int64_t now = pna_now_ms();
    for (size_t i = 0; i < pna_pollers_count(); i++) {
        struct pna_poller_info p;
        if (pna_pollers_info(i, &p) && pna_poller_degraded(&p, now))
            return true;
    }
    return false;
}
