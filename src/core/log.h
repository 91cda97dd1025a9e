/* core/log.h -- logging from any thread.
 *
 * net-snmp's logging is not thread-safe and rule 1 keeps net-snmp on the main
 * thread, so poller threads hand their lines to a queue that the main loop
 * drains into snmp_log().  Before the agent is up (config errors), and in unit
 * tests, lines go straight to stderr. */
#ifndef PNA_LOG_H
#define PNA_LOG_H

#include <syslog.h>

void pna_log(int priority, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Main thread: route lines to net-snmp from now on (after snmp_log_options). */
void pna_log_use_netsnmp(int on);

/* Main thread: write out lines queued by other threads. */
void pna_log_flush(void);

#endif
