/* core/heap.c -- malloc settings for a long-lived poller (see heap.h). */
#include "pna_autoconf.h"
#include "core/heap.h"
#include "core/cache.h"

#include <stdatomic.h>
#include <stdint.h>
#if defined(HAVE_MALLOPT) || defined(HAVE_MALLOC_TRIM)
#include <malloc.h>
#endif

/* A table of more than this many bytes is mapped on its own.  Setting it
 * also stops glibc from raising it after a large free (its default goes up
 * to 32 MiB), which is what let the tables settle in the arenas.  It is
 * above 64 KiB on purpose: net-snmp reads every packet into a fresh buffer of
 * SNMP_MAX_RCV_MSG_SIZE (65536) bytes, and at exactly 64 KiB, whenever a trim
 * had left the heap's top smaller than that, glibc mapped and unmapped that
 * buffer for every request (two system calls and page faults: the subagent's
 * CPU per AgentX request went from 14 to 37 us until the heap grew again). */
#define HEAP_MMAP_THRESHOLD (68 * 1024)
/* The main thread's arena and one the pollers share: they run a few
 * milliseconds every few seconds, so they seldom meet on its lock. */
#define HEAP_ARENAS 2
#define HEAP_RELEASE_EVERY_MS 1000

bool pna_heap_init(void)
{
#ifdef HAVE_MALLOPT
    return mallopt(M_MMAP_THRESHOLD, HEAP_MMAP_THRESHOLD) && mallopt(M_ARENA_MAX, HEAP_ARENAS);
#else
    return false;
#endif
}

void pna_heap_release(void)
{
#ifdef HAVE_MALLOC_TRIM
    static atomic_int_fast64_t last_ms;
    int64_t now = pna_mono_ms(), before = atomic_load(&last_ms);
    if (now - before < HEAP_RELEASE_EVERY_MS ||
        !atomic_compare_exchange_strong(&last_ms, &before, now))
        return;
    malloc_trim(0);
#endif
}
