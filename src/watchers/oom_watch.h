/* watchers/oom_watch.h -- OOM kills as they happen.
 *
 * The kernel's notification of each watched container's OOMs
 * (pna_cgroup_oom_notify(), sources/containers/cgroup.h: v2 an inotify
 * watch on memory.events, v1 an eventfd on memory.oom_control) is read on an
 * event loop (core/event_loop.h), and what it says goes to the OOM-kill
 * ledger (oom_ledger.h), which decides which kills are news: once per
 * increase of a cgroup's count, the count a high-water mark per cgroup.  A
 * signalled OOM (v1, a runtime's notice) has its count read again every
 * 50 ms for a second, by a timer on the loop: the kernel signals before the
 * victim dies.
 *
 * ON_OOM runs on the thread whose call found the kill (the loop's for the
 * kernel's notifications and the re-reads; the caller's for sync, observe
 * and a runtime's notice), never with the watch's lock held.
 *
 * Thread ownership: the ledger and the kernel notifications are shared
 * between the caller's thread (sync, observe, runtime notice) and the loop's
 * thread, under the watch's lock; notifications are armed and disarmed under
 * that lock, so an event is never matched against a freed entry. */
#ifndef PNA_WATCHERS_OOM_WATCH_H
#define PNA_WATCHERS_OOM_WATCH_H

#include <stddef.h>
#include <stdint.h>

#include "sources/containers/cgroup.h"
#include "watchers/oom_ledger.h"

#define PNA_OOM_MAX_WATCHES 16384   /* kernel notifications; beyond this only polls see OOMs */

struct pna_loop;

typedef void (*pna_oom_fn)(void *arg, const struct pna_oom_hit *hit);

struct pna_oom_watch;

/* A watch of the cgroups of ENV on LOOP; ON_OOM is called with ARG for every
 * kill reported.  Returns NULL with ERR on failure. */
struct pna_oom_watch *pna_oom_watch_new(struct pna_loop *loop, const struct pna_cgroup_env *env,
                                        pna_oom_fn on_oom, void *arg, char *err, size_t errlen);

/* Make the watched set exactly TARGETS (pna_oom_ledger_sync()).  Returns 0,
 * or -1 when out of memory (the old set stays). */
int pna_oom_watch_sync(struct pna_oom_watch *w, const struct pna_oom_target *targets, size_t n);

/* A count read by the poll (pna_oom_ledger_observe()): returns the count the
 * container's row should say. */
uint64_t pna_oom_watch_observe(struct pna_oom_watch *w, const char *id, uint64_t count);

/* A runtime (Docker's "oom" event) says container ID (named NAME, "" when
 * not said) was OOM-killed (pna_oom_ledger_runtime_notice()). */
void pna_oom_watch_runtime_notice(struct pna_oom_watch *w, const char *id, const char *name);

/* Kernel notifications armed now, reports made so far, the kills they add
 * up to, and decreases of a count within one cgroup ignored so far.  The
 * kills total moves with the counts pna_oom_watch_observe() answers (one
 * lock), while the callback for a report runs after it: a total read after
 * the observe calls includes every count they gave. */
size_t pna_oom_watch_active(struct pna_oom_watch *w);
uint64_t pna_oom_watch_reported(struct pna_oom_watch *w);
uint64_t pna_oom_watch_kills(struct pna_oom_watch *w);
uint64_t pna_oom_watch_decreases(struct pna_oom_watch *w);

/* Off the loop, everything disarmed and freed.  NULL is allowed. */
void pna_oom_watch_free(struct pna_oom_watch *w);

#endif
