/* http/render/metrics_agent.c -- what /metrics serves for the agent itself
 * besides its descriptor tables (primusAgent and primusPollerTable, computed
 * from the view's copy of the poller counters and agent figures): the event
 * counters by type and each poller's fixed index.
 *
 * primusEventTable's rows are kept by the main thread (core/events.h): /metrics
 * shows the event counters, /events (json_events.c) a copy of the rows. */
#include "pna_autoconf.h"
#include "http/render/render.h"

#include <stdio.h>

#include "core/events.h"
#include "model/metric_tables.h"

/* Every type, zeros included, so that increase() sees the first one. */
static void events_by_type(struct pna_prom *p, const struct pna_http_view *v)
{
    pna_prom_family(p, "primus_events_total", PNA_PROM_COUNTER,
                    "Events recorded since the agent started, by primusEventType (each is also "
                    "sent as the notification of that name).");
    for (int t = 1; t <= PNA_EV_TYPE_MAX; t++) {
        const struct pna_prom_label l[] = { { "type", pna_event_type_name((enum pna_event_type)t) } };
        pna_prom_u64(p, l, 1, v->base.events_by_type[t]);
    }
}

/* primus_poller_info{poller, index}: the fixed primusPollerIndex of each poller. */
static void poller_index(struct pna_prom *p, const struct pna_http_view *v)
{
    pna_prom_family(p, "primus_poller_info", PNA_PROM_GAUGE,
                    "One series per poller: its name and fixed primusPollerIndex; always 1.");
    for (size_t i = 0; i < v->base.n_pollers; i++) {
        char index[16];
        snprintf(index, sizeof index, "%u", (unsigned)v->base.pollers[i].index);
        const struct pna_prom_label l[] = { { "poller", v->base.pollers[i].name }, { "index", index } };
        pna_prom_u64(p, l, 2, 1);
    }
}

void pna_metrics_agent_extras(struct pna_prom *p, const struct pna_http_view *v)
{
    events_by_type(p, v);
    if (v->base.n_pollers)
        poller_index(p, v);
}
