/* model/agent_metrics.c -- the served values of the agent itself: primusAgent
 * (version, uptime, status, mode, event counters) and primusPollerTable, one
 * descriptor per value (see metric.h).  They read the agent state a view
 * copies (core/view.h: poller counters, event counters, identity), so SNMP,
 * /metrics and /health compute them the same way at the moment the view is
 * taken.  primusEventTable's rows are the main thread's (core/events.h) and
 * are served by code of their own. */
#include "pna_autoconf.h"
#include "model/metric_tables.h"

#include "core/events.h"
#include "core/health.h"
#include "model/metric.h"
#include "model/oids.h"

#define U32 PNA_SYNTAX_UNSIGNED
#define C64 PNA_SYNTAX_COUNTER64
#define INT PNA_SYNTAX_INTEGER
#define GAUGE PNA_FAMILY_GAUGE
#define COUNTER PNA_FAMILY_COUNTER

/* ---- primusAgent scalars ------------------------------------------------------ */

static size_t agent_rows(const struct pna_view *v)
{
    (void)v;
    return 1;
}

static bool agent_row(const struct pna_view *v, size_t i, struct pna_row *out)
{
    (void)i;
    out->rec = v;
    return true;
}

static const struct pna_view *view_of(const struct pna_row *r)
{
    return r->rec;
}

static void get_version(const struct pna_row *r, struct pna_value *out)
{
    const char *v = view_of(r)->agent.version;
    pna_value_text(out, v ? v : "");
}

/* Whole seconds, as the MIB has them. */
static void get_uptime(const struct pna_row *r, struct pna_value *out)
{
    const struct pna_view *v = view_of(r);
    int64_t ms = v->agent.started_ms ? v->now_ms - v->agent.started_ms : 0;
    pna_value_u64(out, ms > 0 ? (uint64_t)(ms / 1000) : 0);
}

static const char *const status_names[] = {
    [PNA_AGENT_STATUS_OK] = "ok", [PNA_AGENT_STATUS_DEGRADED] = "degraded",
};
static const struct pna_enum status_enum = PNA_ENUM(status_names);

static void get_status(const struct pna_row *r, struct pna_value *out)
{
    pna_value_i64(out, pna_view_degraded(view_of(r)) ? PNA_AGENT_STATUS_DEGRADED
                                                      : PNA_AGENT_STATUS_OK);
}

static void get_ready(const struct pna_row *r, struct pna_value *out)
{
    pna_value_u64(out, pna_view_ready(view_of(r)) ? 1 : 0);
}

static const char *const mode_names[] = {
    [PNA_AGENT_MODE_SUBAGENT] = "subagent", [PNA_AGENT_MODE_STANDALONE] = "standalone",
};
static const struct pna_enum mode_enum = PNA_ENUM(mode_names);

static void get_mode(const struct pna_row *r, struct pna_value *out)
{
    pna_value_i64(out, view_of(r)->agent.standalone ? PNA_AGENT_MODE_STANDALONE
                                                     : PNA_AGENT_MODE_SUBAGENT);
}

static void get_series_dropped(const struct pna_row *r, struct pna_value *out)
{
    const struct pna_view *v = view_of(r);
    pna_value_u64(out, v->series_dropped_limit + v->series_dropped_duplicate);
}

#define VIEW(member) PNA_FIELD(struct pna_view, member)

static const struct pna_metric agent_metrics[] = {
    { .column = 1, .object = "primusAgentVersion", .syntax = PNA_SYNTAX_TEXT,
      .get = get_version, .label = "version", .json = "version" },
    { .column = 2, .object = "primusAgentUptime", .syntax = U32, .get = get_uptime,
      .family = "primus_agent_uptime_seconds", .type = GAUGE, .json = "uptime_seconds",
      .help = "Seconds since the agent started" },
    { .column = 3, .object = "primusAgentStatus", .syntax = INT, .get = get_status,
      .enums = &status_enum, .family = "primus_agent_degraded", .type = GAUGE,
      .true_value = PNA_AGENT_STATUS_DEGRADED, .json = "status",
      .help = "1 when a poller is failing, timed out or serves stale data, else 0 (degraded(2))" },
    { .column = 4, .object = "primusAgentMode", .syntax = INT, .get = get_mode,
      .enums = &mode_enum, .label = "mode" },
    { .column = 5, .object = "primusAgentEventsTotal", .syntax = C64,
      .field = VIEW(events_total), .family = "primus_agent_events_total", .type = COUNTER,
      .help = "Events recorded since the agent started" },
    { .column = 6, .object = "primusAgentEventCapacity", .syntax = U32,
      .field = VIEW(event_capacity), .family = "primus_agent_event_capacity", .type = GAUGE,
      .help = "Events the event table keeps" },
    { .column = 7, .object = "primusAgentEventsDropped", .syntax = C64,
      .field = VIEW(events_dropped), .family = "primus_agent_events_dropped_total", .type = COUNTER,
      .help = "Events lost because the queue to the main thread was full" },
    { .get = get_ready, .family = "primus_agent_ready", .type = GAUGE,
      .help = "1 once every enabled poller has finished a first run and none is failing "
              "(/ready), else 0" },
    /* The bridge's export control.  /metrics serves these figures split by
     * family and reason (primus_agent_series{family},
     * primus_agent_series_dropped_total{reason}: http/render/metrics_series.c,
     * from the same view fields), so no family of their own here. */
    { .column = 30, .object = "primusAgentSeries", .syntax = U32,
      .field = VIEW(series_served) },
    { .column = 31, .object = "primusAgentSeriesDropped", .syntax = C64, .get = get_series_dropped },
};

const struct pna_metric_table pna_agent_metrics = {
    .object = "primusAgent",
    .kind = PNA_TABLE_SCALARS,
    .domain = PNA_DOM_NONE,
    .view = PNA_VIEW_POLLERS,
    PNA_TABLE_OID(PNA_OID_AGENT),
    .metrics = agent_metrics,
    .count = sizeof agent_metrics / sizeof agent_metrics[0],
    .rows = agent_rows,
    .row = agent_row,
    .info_family = "primus_agent_info",
    .info_help = "The agent's version and mode, subagent or standalone; always 1",
};

/* ---- primusPollerTable -------------------------------------------------------- */

static size_t poller_rows(const struct pna_view *v)
{
    return v->n_pollers;
}

static bool poller_row(const struct pna_view *v, size_t i, struct pna_row *out)
{
    out->rec = &v->pollers[i];
    return true;
}

static const struct pna_poller_info *poller_of(const struct pna_row *r)
{
    return r->rec;
}

static void get_last_success(const struct pna_row *r, struct pna_value *out)
{
    pna_value_u64(out, (uint64_t)(poller_of(r)->last_success_ms / 1000));
}

/* Whole seconds since the snapshot served was taken; none (0) before the
 * first successful run. */
static void get_data_age(const struct pna_row *r, struct pna_value *out)
{
    const struct pna_poller_info *p = poller_of(r);
    if (!p->data_taken_ms) {
        pna_value_none(out);
        return;
    }
    int64_t age = r->view->now_ms - p->data_taken_ms;
    pna_value_u64(out, age > 0 ? (uint64_t)(age / 1000) : 0);
}

static const char *const poller_status_names[] = {
    [PNA_POLLER_STATUS_OK] = "ok", [PNA_POLLER_STATUS_FAILING] = "failing",
    [PNA_POLLER_STATUS_TIMED_OUT] = "timedOut", [PNA_POLLER_STATUS_DISABLED] = "disabled",
    [PNA_POLLER_STATUS_PENDING] = "pending",
};
static const struct pna_enum poller_status_enum = PNA_ENUM(poller_status_names);

static void get_poller_status(const struct pna_row *r, struct pna_value *out)
{
    pna_value_i64(out, poller_of(r)->status);
}

static void get_degraded(const struct pna_row *r, struct pna_value *out)
{
    pna_value_u64(out, pna_poller_degraded(poller_of(r), r->view->now_ms) ? 1 : 0);
}

#define POLLER(member) PNA_FIELD(struct pna_poller_info, member)
#define MS_TO_S PNA_SCALE_E(-3)

static const struct pna_metric poller_metrics[] = {
    { .column = 2, .object = "primusPollerName", .syntax = PNA_SYNTAX_TEXT, .field = POLLER(name),
      .json = "name" },
    { .column = 3, .object = "primusPollerInterval", .syntax = U32, .field = POLLER(interval_ms),
      .family = "primus_poller_interval_seconds", .type = GAUGE, .scale = MS_TO_S,
      .json = "interval_seconds", .json_scale = MS_TO_S,
      .help = "Configured time between the starts of two runs" },
    { .column = 4, .object = "primusPollerLastSuccess", .syntax = U32, .get = get_last_success,
      .family = "primus_poller_last_success_timestamp_seconds", .type = GAUGE,
      .help = "When the last successful run finished, seconds since 1970-01-01 UTC; 0 when none" },
    { .column = 5, .object = "primusPollerLastDuration", .syntax = U32, .field = POLLER(last_duration_ms),
      .family = "primus_poller_last_duration_seconds", .type = GAUGE, .scale = MS_TO_S,
      .json = "last_duration_seconds", .json_scale = MS_TO_S, .help = "How long the last run took" },
    { .column = 6, .object = "primusPollerErrors", .syntax = PNA_SYNTAX_COUNTER32, .field = POLLER(errors),
      .family = "primus_poller_errors_total", .type = COUNTER, .json = "errors",
      .help = "Runs that failed or timed out since the agent started" },
    { .column = 7, .object = "primusPollerLastError", .syntax = PNA_SYNTAX_TEXT,
      .field = POLLER(last_error), .json = "last_error" },
    { .column = 8, .object = "primusPollerDataAge", .syntax = U32, .get = get_data_age,
      .family = "primus_poller_data_age_seconds", .type = GAUGE, .json = "data_age_seconds",
      .help = "Age of the snapshot served, at scrape time; absent before the first successful run" },
    { .column = 9, .object = "primusPollerStatus", .syntax = INT, .get = get_poller_status,
      .enums = &poller_status_enum, .family = "primus_poller_status", .type = PNA_FAMILY_STATESET,
      .label = "status", .json = "status",
      .help = "1 for the poller's current status (ok, failing, timedOut, disabled, pending), 0 for "
              "the others" },
    { .column = 10, .object = "primusPollerRuns", .syntax = PNA_SYNTAX_COUNTER32, .field = POLLER(runs),
      .family = "primus_poller_runs_total", .type = COUNTER, .json = "runs",
      .help = "Runs started since the agent started" },
    { .column = 11, .object = "primusPollerConsecutiveFailures", .syntax = U32,
      .field = POLLER(consecutive_failures), .family = "primus_poller_consecutive_failures",
      .type = GAUGE, .json = "consecutive_failures", .help = "Failed runs since the last successful one" },
    { .column = 12, .object = "primusPollerTimeout", .syntax = U32, .field = POLLER(timeout_ms),
      .family = "primus_poller_timeout_seconds", .type = GAUGE, .scale = MS_TO_S,
      .json = "timeout_seconds", .json_scale = MS_TO_S, .help = "Deadline of one run" },
    { .get = get_degraded, .family = "primus_poller_degraded", .type = GAUGE,
      .flags = PNA_METRIC_JSON_BOOL, .json = "degraded",
      .help = "1 when the poller is failing, timed out or its data is stale (the rule behind "
              "primusAgentStatus), else 0" },
};

/* primusPollerIndex: fixed per poller, not the registry position; the
 * label is its name. */
static const struct pna_key_part poller_key[] = {
    PNA_KEY_INDEX_FIELD("primusPollerIndex", NULL, PNA_KEY_FROM_REC, struct pna_poller_info,
                        index),
    PNA_KEY_LABEL_FIELD("poller", PNA_KEY_FROM_REC, struct pna_poller_info, name),
};

const struct pna_metric_table pna_poller_metrics = {
    .object = "primusPollerTable",
    .kind = PNA_TABLE_ROWS,
    .domain = PNA_DOM_NONE,
    .view = PNA_VIEW_POLLERS,
    PNA_TABLE_OID(PNA_OID_AGENT, 10),
    PNA_KEY(poller_key),
    .metrics = poller_metrics,
    .count = sizeof poller_metrics / sizeof poller_metrics[0],
    .rows = poller_rows,
    .row = poller_row,
};

/* ---- primusEventTable ---------------------------------------------------------- */

/* The history is the main thread's (core/events.h): only the SNMP front end,
 * which runs there, reads these rows; /events copies the history under its
 * lock instead. */
static size_t event_rows(const struct pna_view *v)
{
    (void)v;
    return pna_events_count();
}

static bool event_row(const struct pna_view *v, size_t i, struct pna_row *out)
{
    (void)v;
    out->rec = pna_events_at(i);
    return out->rec != NULL;
}

static const struct pna_event *event_of(const struct pna_row *r)
{
    return r->rec;
}

static void get_event_time(const struct pna_row *r, struct pna_value *out)
{
    int64_t ms = event_of(r)->time_ms;
    pna_value_u64(out, ms > 0 ? (uint64_t)(ms / 1000) : 0);
}

static const struct pna_enum event_type_enum = { PNA_EV_TYPE_MAX + 1, pna_event_type_names };
static const struct pna_enum severity_enum = { PNA_SEV_CRITICAL + 1, pna_severity_names };

static void get_event_type(const struct pna_row *r, struct pna_value *out)
{
    pna_value_i64(out, event_of(r)->type);
}

static void get_event_severity(const struct pna_row *r, struct pna_value *out)
{
    pna_value_i64(out, event_of(r)->severity);
}

static const struct pna_metric event_metrics[] = {
    { .column = 2, .object = "primusEventTime", .syntax = U32, .get = get_event_time },
    { .column = 3, .object = "primusEventType", .syntax = INT, .get = get_event_type,
      .enums = &event_type_enum },
    { .column = 4, .object = "primusEventSeverity", .syntax = INT, .get = get_event_severity,
      .enums = &severity_enum },
    { .column = 5, .object = "primusEventSubject", .syntax = PNA_SYNTAX_TEXT,
      .field = PNA_FIELD(struct pna_event, subject) },
    { .column = 6, .object = "primusEventText", .syntax = PNA_SYNTAX_TEXT,
      .field = PNA_FIELD(struct pna_event, text) },
};

/* primusEventIndex: the event's sequence number, which only grows. */
static const struct pna_key_part event_key[] = {
    PNA_KEY_INDEX_FIELD("primusEventIndex", NULL, PNA_KEY_FROM_REC, struct pna_event, seq),
};

const struct pna_metric_table pna_event_metrics = {
    .object = "primusEventTable",
    .kind = PNA_TABLE_ROWS,
    .domain = PNA_DOM_NONE,
    .view = 0,
    PNA_TABLE_OID(PNA_OID_AGENT, 20),
    PNA_KEY(event_key),
    .index_ordered = true,
    .metrics = event_metrics,
    .count = sizeof event_metrics / sizeof event_metrics[0],
    .rows = event_rows,
    .row = event_row,
};
