/* watchers/dir_watch.h -- a set of directories watched with inotify for
 * entries made, removed, renamed, written or given other rights: the
 * containerd bundle directories, whose changes are a container coming or
 * going, and whose quiet lets the containers poller take its cached bundles
 * as they were (sources/containers/bundle_cache.h).
 *
 * It runs on an event loop (core/event_loop.h): the inotify descriptor is
 * registered there, and ON_CHANGE is called on the loop's thread after each
 * batch of events that touched a watched directory.
 *
 * Thread ownership: the list of directories and the count of events are
 * shared between the caller (pna_dir_watch_set(), _events()) and the loop's
 * thread, under the watch's lock; the inotify descriptor is read on the
 * loop's thread only. */
#ifndef PNA_WATCHERS_DIR_WATCH_H
#define PNA_WATCHERS_DIR_WATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pna_loop;

typedef void (*pna_dir_change_fn)(void *arg);

struct pna_dir_watch;

/* A watch on LOOP with no directory yet.  ON_CHANGE (may be NULL) is called
 * with ARG when a watched directory changed.  NULL with ERR on failure. */
struct pna_dir_watch *pna_dir_watch_new(struct pna_loop *loop, pna_dir_change_fn on_change,
                                        void *arg, char *err, size_t errlen);

/* Watch these directories (replaces the previous list; missing directories
 * are skipped; one still wanted keeps its watch, so no change to it is
 * missed in between).  Returns how many of them were not watched before (a
 * caller that scanned them before the watch was in place scans again: an
 * entry made in between raised no event), or -1 when out of memory. */
int pna_dir_watch_set(struct pna_dir_watch *w, const char *const *dirs, size_t n);

/* Events seen so far on the directories (entries made, removed, renamed,
 * written, their rights changed; a directory gone; lost events), and in
 * *COMPLETE whether every directory of the last pna_dir_watch_set() is
 * watched now.  While COMPLETE holds and the count stays the same, nothing
 * in them changed (an event not yet read by the loop wakes the caller
 * through ON_CHANGE when it is). */
uint64_t pna_dir_watch_events(struct pna_dir_watch *w, bool *complete);

/* Off the loop, and freed.  NULL is allowed. */
void pna_dir_watch_free(struct pna_dir_watch *w);

#endif
