/* snmp/notify.h -- turns events into SNMP notifications (main thread). */
#ifndef PNA_SNMP_NOTIFY_H
#define PNA_SNMP_NOTIFY_H

#include "core/events.h"

/* An event sink for pna_events_drain(): sends EV's notification.  A subagent
 * hands it to the master (AgentX Notify), which sends traps or informs to its
 * configured sinks; a standalone agent sends to its own sinks. */
void pna_notify_event(const struct pna_event *ev, void *arg);

/* Sees each net-snmp directive of the config (LINE as written): a trapsink or
 * an SNMPv1 trapsess means SNMPv1 sinks exist. */
void pna_notify_note_directive(const char *line);

#endif
