/* util/clock.c -- the wall and monotonic clocks in milliseconds (see
 * clock.h). */
#include "pna_autoconf.h"
#include "util/clock.h"

#include <time.h>

static int64_t clock_ms(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t pna_now_ms(void)
{
    return clock_ms(CLOCK_REALTIME);
}

int64_t pna_mono_ms(void)
{
    return clock_ms(CLOCK_MONOTONIC);
}
