/* core/log.h -- logging from any thread.
 *
 * Lines go to a sink the front end installs on the main thread (the SNMP
 * agent's: net-snmp's logging, which is not thread-safe and is kept on the
 * main thread by rule 1).  Lines from other threads are queued and written to
 * the sink by pna_log_flush() on the main thread, which the main loop runs
 * when woken.  Before a sink is installed (config errors), and in unit tests,
 * lines go straight to stderr. */
#ifndef PNA_LOG_H
#define PNA_LOG_H

#include <syslog.h>

/* Writes one line (no newline at its end) at a syslog PRIORITY. */
typedef void pna_log_sink(int priority, const char *line);

void pna_log(int priority, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Main thread: send lines to SINK from now on; the calling thread becomes
 * the one whose lines are written at once.  NULL: back to stderr. */
void pna_log_set_sink(pna_log_sink *sink);

/* Main thread: write out lines queued by other threads. */
void pna_log_flush(void);

#endif
