/* core/cache.h -- the one in-memory cache every front end reads.
 *
 * The cache holds, per domain, the newest complete snapshot a poller built.  A
 * poller builds a whole new snapshot off to the side and publishes it with one
 * pointer swap; readers take a reference and are never shown a half-built one.
 * The mutex guards only the pointer swap and the reference count increment: no
 * lock is ever held while a source is read or a snapshot is built.
 *
 * Thread ownership: any thread may publish, acquire and release. */
#ifndef PNA_CACHE_H
#define PNA_CACHE_H

#include <stdatomic.h>
#include <stdint.h>

enum pna_domain {
    PNA_DOM_NODE,
    PNA_DOM_GPU,
    PNA_DOM_IB,
    PNA_DOM_PFC,
    PNA_DOM_CONTAINERS,
    PNA_DOM_KUBELET,
    PNA_DOM_STORAGE,
    PNA_DOM_PODRES,
    PNA_DOM_PHY,
    PNA_DOM_SLURM,
    PNA_DOM_ACCOUNTING,
    PNA_DOM_TOPOLOGY,
    PNA_DOM_COUNT,
    PNA_DOM_NONE = -1 /* agent-internal data (poller and event tables) */
};

/* Embedded as the first member of every domain snapshot. */
struct pna_snap {
    atomic_uint refs;
    uint64_t generation;   /* set by pna_cache_publish(): 1, 2, 3... per domain */
    int64_t taken_ms;      /* CLOCK_REALTIME, ms: when the poll that built it ended */
    void (*destroy)(struct pna_snap *snap);
};

/* Start a snapshot with one reference (the builder's). */
void pna_snap_init(struct pna_snap *snap, void (*destroy)(struct pna_snap *));

/* Take one more reference to SNAP, which the caller already holds one of (a
 * poller keeping the snapshot it publishes); returns SNAP.  NULL is allowed. */
struct pna_snap *pna_snap_retain(struct pna_snap *snap);

/* Give up one reference; the last one destroys the snapshot. NULL is allowed. */
void pna_snap_release(struct pna_snap *snap);

/* Make SNAP the current snapshot of DOMAIN.  Takes over the caller's reference;
 * the previous snapshot is released. */
void pna_cache_publish(enum pna_domain domain, struct pna_snap *snap);

/* The current snapshot of DOMAIN with a reference taken, or NULL before the
 * first successful poll.  Release it with pna_snap_release(). */
struct pna_snap *pna_cache_acquire(enum pna_domain domain);

/* Stop serving DOMAIN (its data grew too old to be trusted). */
void pna_cache_drop(enum pna_domain domain);

/* Drop every snapshot (shutdown, tests). */
void pna_cache_clear(void);

/* pna_now_ms(), pna_mono_ms(): the clocks every snapshot's times are read on. */
#include "util/clock.h"

#endif
