/* http/metrics_agent.c -- /metrics for the agent itself (primusAgent and
 * primusPollerTable): version and mode, health, events, and per poller its
 * schedule, last success, duration, runs, errors, status and the age of the
 * data it serves, all computed at scrape time from the view's copy of the
 * poller counters.
 *
 * primusEventTable's rows are kept by the main thread (events.h): /metrics
 * shows the event counters, /events (json_events.c) a copy of the rows. */
#include "pna_autoconf.h"
#include "core/health.h"
#include "http/render.h"

#include <stdio.h>

static void agent_scalars(struct pna_prom *p, const struct pna_http_view *v)
{
    const struct pna_prom_label info[] = {
        { "version", v->agent.version ? v->agent.version : "" },
        { "mode", v->agent.standalone ? "standalone" : "subagent" },
    };
    pna_prom_family(p, "primus_agent_info", PNA_PROM_GAUGE,
                    "The agent's version and mode, subagent or standalone; always 1 "
                    "(primusAgentVersion, primusAgentMode).");
    pna_prom_u64(p, info, 2, 1);

    int64_t up_ms = v->agent.started_ms ? v->now_ms - v->agent.started_ms : 0;
    pna_prom_family(p, "primus_agent_uptime_seconds", PNA_PROM_GAUGE,
                    "Seconds since the agent started (primusAgentUptime).");
    pna_prom_fixed(p, NULL, 0, up_ms > 0 ? up_ms : 0, 3);

    pna_prom_gauge_u64(p, "primus_agent_degraded",
                       "1 when a poller is failing, timed out or serves stale data, else 0 "
                       "(primusAgentStatus degraded(2)).",
                       pna_http_view_degraded(v) ? 1 : 0);
    pna_prom_gauge_u64(p, "primus_agent_ready",
                       "1 once every enabled poller has finished a first run (/ready), else 0.",
                       pna_http_view_all_ran(v) ? 1 : 0);

    pna_prom_family(p, "primus_agent_events_total", PNA_PROM_COUNTER,
                    "Events recorded since the agent started (primusAgentEventsTotal).");
    pna_prom_u64(p, NULL, 0, v->agent.events_total);
    /* Every type, zeros included, so that increase() sees the first one. */
    pna_prom_family(p, "primus_events_total", PNA_PROM_COUNTER,
                    "Events recorded since the agent started, by primusEventType (each is also "
                    "sent as the notification of that name).");
    for (int t = 1; t <= PNA_EV_TYPE_MAX; t++) {
        const struct pna_prom_label l[] = { { "type", pna_event_type_name((enum pna_event_type)t) } };
        pna_prom_u64(p, l, 1, v->agent.events_by_type[t]);
    }
    pna_prom_gauge_u64(p, "primus_agent_event_capacity",
                       "Events the event table keeps (primusAgentEventCapacity).",
                       v->agent.event_capacity);
    pna_prom_family(p, "primus_agent_events_dropped_total", PNA_PROM_COUNTER,
                    "Events lost because the queue to the main thread was full "
                    "(primusAgentEventsDropped).");
    pna_prom_u64(p, NULL, 0, v->agent.events_dropped);
}

/* primusPollerStatus labels, in the MIB's spelling. */
static const struct {
    enum pna_poller_status status;
    const char *name;
} poller_states[] = {
    { PNA_POLLER_OK, "ok" },
    { PNA_POLLER_FAILING, "failing" },
    { PNA_POLLER_TIMED_OUT, "timedOut" },
    { PNA_POLLER_OFF, "disabled" },
    { PNA_POLLER_PENDING, "pending" },
};

enum poller_metric {
    PM_INTERVAL, PM_TIMEOUT, PM_LAST_SUCCESS, PM_LAST_DURATION, PM_RUNS, PM_ERRORS,
    PM_CONSECUTIVE, PM_DATA_AGE, PM_DEGRADED, PM_COUNT
};

static const struct {
    const char *name;
    enum pna_prom_type type;
    const char *help;
} poller_metrics[PM_COUNT] = {
    [PM_INTERVAL] = { "primus_poller_interval_seconds", PNA_PROM_GAUGE,
                      "Configured time between the starts of two runs (primusPollerInterval)." },
    [PM_TIMEOUT] = { "primus_poller_timeout_seconds", PNA_PROM_GAUGE,
                     "Deadline of one run (primusPollerTimeout)." },
    [PM_LAST_SUCCESS] = { "primus_poller_last_success_timestamp_seconds", PNA_PROM_GAUGE,
                          "When the last successful run finished, seconds since 1970-01-01 UTC; "
                          "0 when none (primusPollerLastSuccess)." },
    [PM_LAST_DURATION] = { "primus_poller_last_duration_seconds", PNA_PROM_GAUGE,
                           "How long the last run took (primusPollerLastDuration)." },
    [PM_RUNS] = { "primus_poller_runs_total", PNA_PROM_COUNTER,
                  "Runs started since the agent started (primusPollerRuns)." },
    [PM_ERRORS] = { "primus_poller_errors_total", PNA_PROM_COUNTER,
                    "Runs that failed or timed out since the agent started (primusPollerErrors)." },
    [PM_CONSECUTIVE] = { "primus_poller_consecutive_failures", PNA_PROM_GAUGE,
                         "Failed runs since the last successful one "
                         "(primusPollerConsecutiveFailures)." },
    [PM_DATA_AGE] = { "primus_poller_data_age_seconds", PNA_PROM_GAUGE,
                      "Age of the snapshot served, at scrape time; absent before the first "
                      "successful run (primusPollerDataAge)." },
    [PM_DEGRADED] = { "primus_poller_degraded", PNA_PROM_GAUGE,
                      "1 when the poller is failing, timed out or its data is stale (the "
                      "rule behind primusAgentStatus), else 0." },
};

static void poller_sample(struct pna_prom *p, enum poller_metric m,
                          const struct pna_poller_info *pi, int64_t now_ms)
{
    const struct pna_prom_label l[] = { { "poller", pi->name } };
    switch (m) {
    case PM_INTERVAL: pna_prom_fixed(p, l, 1, pi->interval_ms, 3); break;
    case PM_TIMEOUT: pna_prom_fixed(p, l, 1, pi->timeout_ms, 3); break;
    case PM_LAST_SUCCESS: pna_prom_fixed(p, l, 1, pi->last_success_ms, 3); break;
    case PM_LAST_DURATION: pna_prom_fixed(p, l, 1, pi->last_duration_ms, 3); break;
    case PM_RUNS: pna_prom_u64(p, l, 1, pi->runs); break;
    case PM_ERRORS: pna_prom_u64(p, l, 1, pi->errors); break;
    case PM_CONSECUTIVE: pna_prom_u64(p, l, 1, pi->consecutive_failures); break;
    case PM_DATA_AGE:
        if (pi->data_taken_ms) {
            int64_t age = now_ms - pi->data_taken_ms;
            pna_prom_fixed(p, l, 1, age > 0 ? age : 0, 3);
        }
        break;
    case PM_DEGRADED: pna_prom_u64(p, l, 1, pna_poller_degraded(pi, now_ms) ? 1 : 0); break;
    case PM_COUNT: break;
    }
}

static void poller_table(struct pna_prom *p, const struct pna_http_view *v)
{
    if (!v->n_pollers)
        return;
    pna_prom_family(p, "primus_poller_info", PNA_PROM_GAUGE,
                    "One series per poller: its name and fixed primusPollerIndex; always 1.");
    for (size_t i = 0; i < v->n_pollers; i++) {
        char index[16];
        snprintf(index, sizeof index, "%u", (unsigned)v->pollers[i].index);
        const struct pna_prom_label l[] = { { "poller", v->pollers[i].name }, { "index", index } };
        pna_prom_u64(p, l, 2, 1);
    }
    for (int m = 0; m < PM_COUNT; m++) {
        pna_prom_family(p, poller_metrics[m].name, poller_metrics[m].type, poller_metrics[m].help);
        for (size_t i = 0; i < v->n_pollers; i++)
            poller_sample(p, (enum poller_metric)m, &v->pollers[i], v->now_ms);
    }
    /* A state set: one series per state, 1 for the current one. */
    pna_prom_family(p, "primus_poller_status", PNA_PROM_GAUGE,
                    "1 for the poller's current primusPollerStatus (ok, failing, timedOut, "
                    "disabled, pending), 0 for the others.");
    for (size_t i = 0; i < v->n_pollers; i++) {
        for (size_t s = 0; s < sizeof poller_states / sizeof poller_states[0]; s++) {
            const struct pna_prom_label l[] = {
                { "poller", v->pollers[i].name }, { "status", poller_states[s].name },
            };
            pna_prom_u64(p, l, 2, v->pollers[i].status == poller_states[s].status);
        }
    }
}

void pna_metrics_agent(struct pna_prom *p, const struct pna_http_view *v)
{
    agent_scalars(p, v);
    poller_table(p, v);
}
