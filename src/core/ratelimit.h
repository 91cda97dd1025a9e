/* core/ratelimit.h -- log lines limited per kind: the first line of a kind is
 * written, the rest of its interval is counted, and one line at the
 * interval's end says how many were suppressed.
 *
 * A kind is a message with its numbers taken out: every run of digits counts
 * as the same word, so "Connection from [127.0.0.1]:40112" and
 * "...:40113" are one kind while two different cgroups' complaints are two.
 * Besides the kinds, all lines together are held to a burst per second, so
 * that a flood whose every line differs (a new user name each time) is held
 * too.  docs/configuration.md (logRateInterval) says it for operators.
 *
 * Not thread-safe: the main thread owns it (log lines reach it there, see
 * core/log.h).  Time is passed in, in seconds of a monotonic clock. */
#ifndef PNA_RATELIMIT_H
#define PNA_RATELIMIT_H

#include <stdbool.h>
#include <stdint.h>

#define PNA_RATELIMIT_DEFAULT_INTERVAL 60   /* seconds */
#define PNA_RATELIMIT_BURST 50              /* lines a second, all kinds together */

/* Writes one summary line (no newline at its end) at a syslog PRIORITY. */
typedef void pna_ratelimit_emit(int priority, const char *line, void *arg);

/* INTERVAL seconds per kind; 0 turns limiting off (every line written).
 * Forgets every kind and count. */
void pna_ratelimit_configure(unsigned interval_s);

/* May a line of TEXT at PRIORITY be written at NOW?  False: it is counted
 * and a later pna_ratelimit_tick() reports it. */
bool pna_ratelimit_admit(int priority, const char *text, int64_t now);

/* Once a second or so: one "suppressed N similar messages ..." line through
 * EMIT for every kind whose interval has ended with lines counted, and one for
 * the lines held by the per-second burst. */
void pna_ratelimit_tick(int64_t now, pna_ratelimit_emit *emit, void *arg);

/* At the end: the summaries of every kind still counting, whatever its
 * interval. */
void pna_ratelimit_flush(int64_t now, pna_ratelimit_emit *emit, void *arg);

/* Lines suppressed since start (every kind, and the burst). */
uint64_t pna_ratelimit_suppressed_total(void);

#endif
