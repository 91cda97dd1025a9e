/* snmp/log_gate.h -- every line net-snmp writes, the agent's own included,
 * passes one gate: the per-kind rate limit of core/ratelimit.h.
 *
 * net-snmp writes through its list of log handlers (stderr, file, syslog, as
 * -L set them up).  The gate takes their place: it disables them, registers
 * itself as the one enabled handler, and hands each admitted line to the
 * handlers it replaced, by their own priority ranges.  Main thread only
 * (ARCHITECTURE.md rule 1). */
#ifndef PNA_LOG_GATE_H
#define PNA_LOG_GATE_H

#include <stdbool.h>

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>

/* After the log handlers are set up (and after daemonizing: net-snmp decides
 * from its stderr handler whether to keep stderr open).  INTERVAL_S as
 * pna_ratelimit_configure(); summaries are written once a second. */
void pna_log_gate_install(unsigned interval_s);

/* While true, net-snmp's two lines about turning a notification into an
 * SNMPv1 trap are dropped: said around a send when no SNMPv1 sink exists to
 * miss it. */
void pna_log_gate_mute_v1_conversion(bool mute);

/* Give net-snmp its handlers back (at shutdown). */
void pna_log_gate_remove(void);

/* A net-snmp log handler calling FN for every line of every priority (the
 * gate itself, or an observer for a while); NULL if net-snmp has no memory. */
netsnmp_log_handler *pna_log_handler_add(NetsnmpLogHandler *fn);

/* Stop H: disabled, never removed (see log_gate.c). */
void pna_log_handler_retire(netsnmp_log_handler *h);

#endif
