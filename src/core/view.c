/* core/view.c -- taking and releasing views of the cache and of the agent's
 * own state (see view.h).  Any thread. */
#include "pna_autoconf.h"
#include "core/view.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/health.h"

static struct pna_agent_identity identity;
static _Atomic uint64_t series_served, series_dropped_limit, series_dropped_duplicate;

void pna_agent_series_served(uint64_t series)
{
    atomic_store(&series_served, series);
}

void pna_agent_series_dropped(uint64_t limit, uint64_t duplicate)
{
    atomic_fetch_add(&series_dropped_limit, limit);
    atomic_fetch_add(&series_dropped_duplicate, duplicate);
}

void pna_agent_series_dropped_now(uint64_t *limit, uint64_t *duplicate)
{
    *limit = atomic_load(&series_dropped_limit);
    *duplicate = atomic_load(&series_dropped_duplicate);
}

void pna_agent_set_identity(const char *version, bool standalone)
{
    identity.version = version;
    identity.standalone = standalone;
    identity.started_ms = pna_now_ms();
}

static void take_agent_state(struct pna_view *v)
{
    size_t n = pna_pollers_count();
    v->pollers = n ? calloc(n, sizeof *v->pollers) : NULL;
    v->n_pollers = 0;
    for (size_t i = 0; v->pollers && i < n; i++)
        if (pna_pollers_info(i, &v->pollers[v->n_pollers]))
            v->n_pollers++;
    v->all_ran = pna_pollers_all_ran();
    v->agent = identity;
    /* The counters are kept by the main thread; a 64-bit load that may be one
     * event behind is all an answer needs. */
    v->events_total = pna_events_total();
    v->events_dropped = pna_events_dropped();
    v->event_capacity = pna_events_capacity();
    for (int t = 1; t <= PNA_EV_TYPE_MAX; t++)
        v->events_by_type[t] = pna_events_total_of((enum pna_event_type)t);
    v->series_served = atomic_load(&series_served);
    v->series_dropped_limit = atomic_load(&series_dropped_limit);
    v->series_dropped_duplicate = atomic_load(&series_dropped_duplicate);
}

void pna_view_take(struct pna_view *v, uint32_t what)
{
    memset(v, 0, sizeof *v);
    pna_view_need(v, what);
    v->now_ms = pna_now_ms();
}

void pna_view_need(struct pna_view *v, uint32_t what)
{
    uint32_t missing = what & ~v->taken;
    if (!missing)
        return;
    for (int d = 0; d < PNA_DOM_COUNT; d++)
        if (missing & PNA_VIEW_DOMAIN(d))
            v->snap[d] = pna_cache_acquire((enum pna_domain)d);
    if (missing & PNA_VIEW_POLLERS)
        take_agent_state(v);
    v->taken |= missing;
}

void pna_view_release(struct pna_view *v)
{
    for (int d = 0; d < PNA_DOM_COUNT; d++)
        pna_snap_release(v->snap[d]);
    free(v->pollers);
    memset(v, 0, sizeof *v);
}

bool pna_view_ready(const struct pna_view *v)
{
    if (!v->all_ran)
        return false;
    for (size_t i = 0; i < v->n_pollers; i++)
        if (pna_poller_failing(&v->pollers[i]))
            return false;
    return true;
}

bool pna_view_degraded(const struct pna_view *v)
{
    for (size_t i = 0; i < v->n_pollers; i++)
        if (pna_poller_degraded(&v->pollers[i], v->now_ms))
            return true;
    return false;
}

void pna_view_of_inputs(struct pna_view *v, const struct pna_poller_inputs *in,
                        enum pna_domain domain, const struct pna_snap *own, int64_t now_ms)
{
    memset(v, 0, sizeof *v);
    v->now_ms = now_ms;
    for (int d = 0; d < PNA_DOM_COUNT; d++) {
        /* the view's slots are not const: the front ends' views own references */
        v->snap[d] = (struct pna_snap *)pna_poller_input(in, (enum pna_domain)d);
        if (v->snap[d])
            v->taken |= PNA_VIEW_DOMAIN(d);
    }
    v->snap[domain] = (struct pna_snap *)own;
    if (own)
        v->taken |= PNA_VIEW_DOMAIN(domain);
}
