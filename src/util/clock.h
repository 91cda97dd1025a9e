/* util/clock.h -- the agent's two clocks in milliseconds: the wall clock
 * (times an operator reads: CLOCK_REALTIME) and the monotonic one
 * (deadlines and intervals: CLOCK_MONOTONIC, which no clock change moves).
 * Any thread. */
#ifndef PNA_UTIL_CLOCK_H
#define PNA_UTIL_CLOCK_H

#include <stdint.h>

/* Milliseconds since the epoch and on the monotonic clock. */
int64_t pna_now_ms(void);
int64_t pna_mono_ms(void);

#endif
