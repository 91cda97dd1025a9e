/* http/render/metrics_agent.c -- /metrics for the agent itself (primusAgent and
 * primusPollerTable): the descriptors of model/agent_metrics.c computed from
 * the view's copy of the poller counters and agent figures, plus the event
 * counters by type.
 *
 * primusEventTable's rows are kept by the main thread (core/events.h): /metrics
 * shows the event counters, /events (json_events.c) a copy of the rows. */
#include "pna_autoconf.h"
#include "http/render/render.h"

#include <stdio.h>

#include "core/events.h"
#include "model/metric_tables.h"

/* poller */
static void poller_labels(const struct pna_http_view *v, const struct pna_row *row,
                          struct pna_row_labels *out)
{
    (void)v;
    const struct pna_poller_info *pi = row->rec;
    out->l[0] = (struct pna_prom_label){ "poller", pi->name };
    out->n = 1;
}

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

void pna_metrics_agent(struct pna_prom *p, const struct pna_http_view *v)
{
    pna_prom_table(p, v, &pna_agent_metrics, NULL);
    events_by_type(p, v);
    if (!v->base.n_pollers)
        return;
    poller_index(p, v);
    pna_prom_table(p, v, &pna_poller_metrics, poller_labels);
}
