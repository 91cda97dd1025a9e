/* core/view.h -- what one answer is built from: a reference to the current
 * snapshot of the cache domains it needs, copies of the poller counters and
 * the agent's own figures, all taken at one moment.
 *
 * The SNMP front end takes a view per request (the domains of the table asked
 * for and of the joins its cells make), the HTTP bridge one per response (every
 * domain).  Every value is then computed from the view alone, so an answer is
 * consistent in itself and both front ends compute it the same way: a join of
 * two domains (the containers that hold a GPU) is made when the answer is
 * built, from the snapshots of the view.  Any thread. */
#ifndef PNA_CORE_VIEW_H
#define PNA_CORE_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/cache.h"
#include "core/events.h"
#include "core/poller.h"

/* What to take: one bit per cache domain, plus the agent state. */
#define PNA_VIEW_DOMAIN(d) (1u << (d))
#define PNA_VIEW_POLLERS (1u << 30)       /* poller counters and the agent's figures */
#define PNA_VIEW_ALL (((1u << PNA_DOM_COUNT) - 1) | PNA_VIEW_POLLERS)

/* The agent itself, set once at start-up (pna_agent_set_identity). */
struct pna_agent_identity {
    const char *version;
    bool standalone;
    int64_t started_ms;                   /* CLOCK_REALTIME */
};

struct pna_view {
    int64_t now_ms;                       /* CLOCK_REALTIME when taken */
    uint32_t taken;                       /* PNA_VIEW_* bits taken so far */
    struct pna_snap *snap[PNA_DOM_COUNT]; /* references; NULL: not taken, or no data yet */
    /* With PNA_VIEW_POLLERS: */
    struct pna_poller_info *pollers;      /* copies, in registry order */
    size_t n_pollers;
    bool all_ran;                         /* every enabled poller finished a run */
    struct pna_agent_identity agent;
    uint64_t events_total, events_dropped, event_capacity;
    uint64_t events_by_type[PNA_EV_TYPE_MAX + 1];
    /* The bridge's export control: series on its last /metrics answer, and
     * those dropped since start by the series limit and the duplicate guard. */
    uint64_t series_served, series_dropped_limit, series_dropped_duplicate;
};

void pna_agent_set_identity(const char *version, bool standalone);

/* The bridge's figures for the views (primusAgentSeries,
 * primusAgentSeriesDropped): any thread. */
void pna_agent_series_served(uint64_t series);
void pna_agent_series_dropped(uint64_t limit, uint64_t duplicate);
/* Those counts now: /metrics shows them with its own body's drops, which
 * were counted after the answer's view was taken. */
void pna_agent_series_dropped_now(uint64_t *limit, uint64_t *duplicate);

void pna_view_take(struct pna_view *v, uint32_t what);
void pna_view_release(struct pna_view *v);

/* Take what of WHAT V does not hold yet (an SNMP request takes a domain when
 * the first table that reads it is reached).  NOW_MS stays the first take's. */
void pna_view_need(struct pna_view *v, uint32_t what);

/* A view over a poller's inputs IN (core/poller.h) and, as its own DOMAIN,
 * the snapshot OWN it is building (may be NULL), taken at NOW_MS: for a
 * poller that makes at poll time the joins the front ends make at answer
 * time, with the same functions.  It holds no references of its own (the
 * poller core holds the inputs' for the length of collect(), the poller its
 * own snapshot): never released, and not kept past the call. */
void pna_view_of_inputs(struct pna_view *v, const struct pna_poller_inputs *in,
                        enum pna_domain domain, const struct pna_snap *own, int64_t now_ms);

/* The snapshot of DOMAIN in V, or NULL. */
static inline const void *pna_view_snap(const struct pna_view *v, enum pna_domain domain)
{
    return v->snap[domain];
}

/* Any poller of V is degraded (failing, timed out or stale): the rule behind
 * primusAgentStatus, /health and primus_agent_degraded. */
bool pna_view_degraded(const struct pna_view *v);

/* Ready to be relied on: every enabled poller finished a run and none is
 * failing now.  The rule behind /ready, /health's "ready" and
 * primus_agent_ready. */
bool pna_view_ready(const struct pna_view *v);

#endif
