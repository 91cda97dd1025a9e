/* snmp/agent_tables.c -- primusAgent: the agent's own scalars, the poller
 * table and the event table.  These read agent-internal state (the poller
 * counters and the event history) rather than a cache snapshot. */
#include "pna_autoconf.h"
#include "core/cache.h"
#include "core/events.h"
#include "core/health.h"
#include "core/poller.h"
#include "snmp/agent.h"
#include "snmp/oids.h"
#include "snmp/table.h"

static int64_t agent_started_ms;
static bool standalone_mode;

void pna_agent_tables_set_mode(bool standalone)
{
    standalone_mode = standalone;
}

static int get_agent(const void *ctx, unsigned subid, struct pna_cell *out)
{
    (void)ctx;
    switch (subid) {
    case PNA_SC_AGENT_VERSION: return pna_cell_str(out, PACKAGE_VERSION);
    case PNA_SC_AGENT_UPTIME:
        return pna_cell_u32(out, (uint32_t)((pna_now_ms() - agent_started_ms) / 1000));
    case PNA_SC_AGENT_STATUS:
        return pna_cell_int(out, pna_agent_degraded() ? PNA_AGENT_STATUS_DEGRADED : PNA_AGENT_STATUS_OK);
    case PNA_SC_AGENT_MODE:
        return pna_cell_int(out, standalone_mode ? PNA_AGENT_MODE_STANDALONE : PNA_AGENT_MODE_SUBAGENT);
    case PNA_SC_AGENT_EVENTS_TOTAL: return pna_cell_counter64(out, pna_events_total());
    case PNA_SC_AGENT_EVENT_CAPACITY: return pna_cell_u32(out, (uint32_t)pna_events_capacity());
    case PNA_SC_AGENT_EVENTS_DROPPED: return pna_cell_counter64(out, pna_events_dropped());
    }
    return PNA_CELL_ABSENT;
}

/* ---- primusPollerTable -------------------------------------------------- */

static size_t poller_rows(const void *ctx)
{
    (void)ctx;
    return pna_pollers_count();
}

static size_t poller_index(const void *ctx, size_t row, oid *idx)
{
    (void)ctx;
    struct pna_poller_info p;
    idx[0] = pna_pollers_info(row, &p) ? p.index : 0;
    return 1;
}

static uint32_t data_age_s(const struct pna_poller_info *p)
{
    if (!p->data_taken_ms)
        return 0;
    int64_t age = pna_now_ms() - p->data_taken_ms;
    return age > 0 ? (uint32_t)(age / 1000) : 0;
}

static int poller_cell(const void *ctx, size_t row, unsigned col, struct pna_cell *out)
{
    (void)ctx;
    struct pna_poller_info p;
    if (!pna_pollers_info(row, &p))
        return PNA_CELL_ABSENT;
    switch (col) {
    case PNA_COL_POLLER_LAST_ERROR: return pna_cell_strcopy(out, p.last_error);
    case PNA_COL_POLLER_INTERVAL: return pna_cell_u32(out, p.interval_ms);
    case PNA_COL_POLLER_LAST_SUCCESS: return pna_cell_u32(out, (uint32_t)(p.last_success_ms / 1000));
    case PNA_COL_POLLER_LAST_DURATION: return pna_cell_u32(out, p.last_duration_ms);
    case PNA_COL_POLLER_ERRORS: return pna_cell_counter32(out, p.errors);
    case PNA_COL_POLLER_NAME: return pna_cell_strcopy(out, p.name);
    case PNA_COL_POLLER_DATA_AGE: return pna_cell_u32(out, data_age_s(&p));
    case PNA_COL_POLLER_STATUS: return pna_cell_int(out, p.status);
    case PNA_COL_POLLER_RUNS: return pna_cell_counter32(out, p.runs);
    case PNA_COL_POLLER_CONSECUTIVE_FAILURES: return pna_cell_u32(out, p.consecutive_failures);
    case PNA_COL_POLLER_TIMEOUT: return pna_cell_u32(out, p.timeout_ms);
    }
    return PNA_CELL_ABSENT;
}

/* ---- primusEventTable --------------------------------------------------- */

static size_t event_rows(const void *ctx)
{
    (void)ctx;
    return pna_events_count();
}

static size_t event_index(const void *ctx, size_t row, oid *idx)
{
    (void)ctx;
    const struct pna_event *ev = pna_events_at(row);
    idx[0] = ev ? ev->seq : 0;
    return 1;
}

static int event_cell(const void *ctx, size_t row, unsigned col, struct pna_cell *out)
{
    (void)ctx;
    const struct pna_event *ev = pna_events_at(row);
    if (!ev)
        return PNA_CELL_ABSENT;
    switch (col) {
    case PNA_COL_EVENT_TIME: return pna_cell_u32(out, (uint32_t)(ev->time_ms / 1000));
    case PNA_COL_EVENT_TYPE: return pna_cell_int(out, ev->type);
    case PNA_COL_EVENT_SEVERITY: return pna_cell_int(out, ev->severity);
    case PNA_COL_EVENT_SUBJECT: return pna_cell_str(out, ev->subject);
    case PNA_COL_EVENT_TEXT: return pna_cell_str(out, ev->text);
    }
    return PNA_CELL_ABSENT;
}

static const oid agent_oid[] = { PNA_OID_AGENT };
static const oid poller_table_oid[] = { PNA_OID_POLLER_TABLE };
static const oid event_table_oid[] = { PNA_OID_EVENT_TABLE };

static const struct pna_scalar_def agent_def = {
    "primusAgent", agent_oid, OID_LENGTH(agent_oid), PNA_DOM_NONE,
    PNA_SC_AGENT_VERSION, PNA_SC_AGENT_EVENTS_DROPPED, get_agent,
};

static const struct pna_table_def poller_table_def = {
    .name = "primusPollerTable",
    .table_oid = poller_table_oid,
    .table_oid_len = OID_LENGTH(poller_table_oid),
    .domain = PNA_DOM_NONE,
    .min_col = PNA_COL_POLLER_NAME,
    .max_col = PNA_COL_POLLER_TIMEOUT,
    .rows_in_index_order = false,
    .row_count = poller_rows,
    .row_index = poller_index,
    .get_cell = poller_cell,
};

static const struct pna_table_def event_table_def = {
    .name = "primusEventTable",
    .table_oid = event_table_oid,
    .table_oid_len = OID_LENGTH(event_table_oid),
    .domain = PNA_DOM_NONE,
    .min_col = PNA_COL_EVENT_TIME,
    .max_col = PNA_COL_EVENT_TEXT,
    .rows_in_index_order = true,   /* sequence numbers only grow */
    .row_count = event_rows,
    .row_index = event_index,
    .get_cell = event_cell,
};

void pna_agent_tables_register(void)
{
    agent_started_ms = pna_now_ms();
    pna_scalars_register(&agent_def);
    pna_table_register(&poller_table_def);
    pna_table_register(&event_table_def);
}
