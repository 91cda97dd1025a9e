/* core/cache.c -- per-domain current snapshots, swapped atomically (see cache.h). */
#include "pna_autoconf.h"
#include "core/cache.h"

#include <pthread.h>

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static struct pna_snap *current[PNA_DOM_COUNT];
static uint64_t generations[PNA_DOM_COUNT];

void pna_snap_init(struct pna_snap *snap, void (*destroy)(struct pna_snap *))
{
    atomic_init(&snap->refs, 1);
    snap->generation = 0;
    snap->taken_ms = pna_now_ms();
    snap->destroy = destroy;
}

struct pna_snap *pna_snap_retain(struct pna_snap *snap)
{
    if (snap)
        atomic_fetch_add_explicit(&snap->refs, 1, memory_order_relaxed);
    return snap;
}

void pna_snap_release(struct pna_snap *snap)
{
    if (snap && atomic_fetch_sub_explicit(&snap->refs, 1, memory_order_acq_rel) == 1)
        snap->destroy(snap);
}

static int valid_domain(enum pna_domain d)
{
    return d >= 0 && d < PNA_DOM_COUNT;
}

void pna_cache_publish(enum pna_domain domain, struct pna_snap *snap)
{
    if (!valid_domain(domain)) {
        pna_snap_release(snap);
        return;
    }
    pthread_mutex_lock(&cache_lock);
    struct pna_snap *old = current[domain];
    snap->generation = ++generations[domain];
    current[domain] = snap;
    pthread_mutex_unlock(&cache_lock);
    pna_snap_release(old); /* outside the lock: destroy may take a while */
}

struct pna_snap *pna_cache_acquire(enum pna_domain domain)
{
    if (!valid_domain(domain))
        return NULL;
    pthread_mutex_lock(&cache_lock);
    struct pna_snap *snap = current[domain];
    if (snap)
        atomic_fetch_add_explicit(&snap->refs, 1, memory_order_relaxed);
    pthread_mutex_unlock(&cache_lock);
    return snap;
}

void pna_cache_drop(enum pna_domain domain)
{
    if (!valid_domain(domain))
        return;
    pthread_mutex_lock(&cache_lock);
    struct pna_snap *old = current[domain];
    current[domain] = NULL;
    pthread_mutex_unlock(&cache_lock);
    pna_snap_release(old);
}

void pna_cache_clear(void)
{
    for (int d = 0; d < PNA_DOM_COUNT; d++)
        pna_cache_drop((enum pna_domain)d);
}

