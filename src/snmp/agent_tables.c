/* snmp/agent_tables.c -- primusAgent: the agent's own scalars, the poller
 * table and the event table, from the descriptors of model/agent_metrics.c
 * (the poller counters and agent figures of the request's view; the event
 * history of the main thread). */
#include "pna_autoconf.h"
#include "snmp/tables.h"

#include "core/events.h"
#include "core/poller.h"
#include "model/metric_tables.h"
#include "model/oids.h"

/* primusPollerIndex: fixed per poller, not the registry position. */
static size_t poller_index(const struct pna_row *row, oid *idx)
{
    const struct pna_poller_info *p = row->rec;
    idx[0] = p->index;
    return 1;
}

/* primusEventIndex: the event's sequence number, which only grows. */
static size_t event_index(const struct pna_row *row, oid *idx)
{
    const struct pna_event *ev = row->rec;
    idx[0] = ev->seq;
    return 1;
}

static const oid agent_oid[] = { PNA_OID_AGENT };
static const oid poller_table_oid[] = { PNA_OID_POLLER_TABLE };
static const oid event_table_oid[] = { PNA_OID_EVENT_TABLE };

const struct pna_scalar_def pna_agent_scalars = {
    &pna_agent_metrics, agent_oid, OID_LENGTH(agent_oid),
};
const struct pna_table_def pna_poller_table = {
    &pna_poller_metrics, poller_table_oid, OID_LENGTH(poller_table_oid), false, poller_index,
};
const struct pna_table_def pna_event_table = {
    &pna_event_metrics, event_table_oid, OID_LENGTH(event_table_oid), true, event_index,
};
