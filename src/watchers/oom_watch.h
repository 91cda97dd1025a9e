/* watchers/oom_watch.h -- OOM kills as they happen, and container lifecycle
 * changes.
 *
 * One thread per watch blocks in epoll on:
 *   - inotify: each container's cgroup v2 memory.events (the kernel signals a
 *     modification when any of its counters moves) and the runtime directories
 *     whose entries appear and vanish as containers come and go;
 *   - one eventfd per cgroup v1 container, registered through
 *     cgroup.event_control on memory.oom_control (fires when the cgroup hits
 *     OOM; the oom_kill count follows a moment later, so it is re-read for up to
 *     a second).
 * A kill is reported once per increase of the cgroup's oom_kill count (one OOM
 * can signal many times: count, do not count signals).  Counts read elsewhere
 * (the periodic poll) go through the same de-duplication with observe().  The
 * one kill counted without the count: an OOM signalled (v1 eventfd, runtime
 * notice) whose cgroup vanishes within 5 s, its count unmoved (PID 1 was the
 * victim and the runtime removed the cgroup before a re-read).
 *
 * The count is a high-water mark per cgroup.  A lower count is taken as a new
 * start only when the cgroup directory is another one (struct pna_cgroup_id:
 * the container's cgroup was made anew), and then all of its count is new
 * kills; within one cgroup's life a decrease is ignored, counted
 * (pna_oom_watch_decreases()) and logged once, so a count that flips between
 * 0 and 1000 is 1000 kills, once, however often it flips.
 *
 * Callbacks run on the watch thread, never with its lock held. */
#ifndef PNA_WATCHERS_OOM_WATCH_H
#define PNA_WATCHERS_OOM_WATCH_H

#include <stddef.h>
#include <stdint.h>

#include "sources/containers/cgroup.h"

#define PNA_OOM_MAX_WATCHES 16384   /* kernel watches; beyond this only polls see OOMs */

/* A container to watch, as pna_oom_watch_sync() takes it: the strings are
 * the caller's, read during the call only (the watch keeps its own copy, as
 * small as the strings are). */
struct pna_oom_target {
    const char *id;
    const char *name;         /* "" when not known; never NULL */
    const char *pod;
    const char *namespace_;
    const char *cgroup_path;  /* hierarchy path, as cgroup.h takes it */
};

/* Who was killed, as reported: copies, for the callback to keep. */
struct pna_oom_who {
    char id[80];
    char name[128];
    char pod[128];
    char namespace_[64];
    char cgroup_path[256];
};

struct pna_oom_hit {
    struct pna_oom_who who;
    uint64_t kill_count;      /* the new count */
    uint64_t prev_count;      /* the count reported (or taken as the start) before */
};

typedef void (*pna_oom_fn)(void *arg, const struct pna_oom_hit *hit);
typedef void (*pna_change_fn)(void *arg);

struct pna_oom_watch;

/* Start the thread.  ON_CHANGE (may be NULL) is called when a watched directory
 * changes.  Returns NULL with ERR on failure. */
struct pna_oom_watch *pna_oom_watch_new(const struct pna_cgroup_env *env, pna_oom_fn on_oom,
                                        pna_change_fn on_change, void *arg,
                                        char *err, size_t errlen);

/* Make the watched set exactly TARGETS (any order).  The first call takes the
 * counts as they are (kills from before the agent started are not reported);
 * containers added later start from zero, so a kill in their first moments is
 * reported.  Returns 0, or -1 when out of memory (the old set stays). */
int pna_oom_watch_sync(struct pna_oom_watch *w, const struct pna_oom_target *targets, size_t n);

/* Watch these directories for entries created, deleted or moved (replaces the
 * previous list; missing directories are skipped).  Returns how many of them
 * were not watched before (a caller that scanned them before the watch was in
 * place scans again: an entry made in between raised no event), or -1 when
 * out of memory. */
int pna_oom_watch_dirs(struct pna_oom_watch *w, const char *const *dirs, size_t n);

/* Events seen so far on the directories of pna_oom_watch_dirs() (entries
 * made, removed, renamed, written, their rights changed; a directory gone;
 * lost events), and in *COMPLETE whether every one of those directories is
 * watched now.  While COMPLETE holds and the count stays the same, nothing
 * in them changed (an event not yet read by the watch's thread wakes the
 * caller through on_change when it is). */
uint64_t pna_oom_watch_dir_events(struct pna_oom_watch *w, bool *complete);

/* A count read by someone else (the poll).  One that differs from the
 * watch's is read again by the watch itself, with the cgroup's identity, and
 * goes through the rules above; the caller's count is used as it is only when
 * the cgroup cannot be read.  Returns the count the watch now holds for ID
 * (its high-water mark: what the container's row should say), or COUNT when
 * ID is not watched. */
uint64_t pna_oom_watch_observe(struct pna_oom_watch *w, const char *id, uint64_t count);

/* Another source (Docker's "oom" event) says container ID (named NAME, ""
 * when not said) was OOM-killed: read its count now and for the next second.
 * When its cgroup cannot be read at all (or its path is not known yet), the
 * kill is reported with the last count plus one, unless a read of that cgroup
 * counted a kill in the 5 s before (the notice is about that one).  A
 * container that left the watched set in the last 10 s is still known here:
 * the notice of a kill that ended the container can come after the poll that
 * saw it exit, and its cgroup may be gone before the watch read the count.
 * One no sync has brought yet (started and killed between two polls) is
 * reported from the notice, and a sync that brings it within 10 s goes on
 * from that count rather than reporting the kill again. */
void pna_oom_watch_poke(struct pna_oom_watch *w, const char *id, const char *name);

/* Kernel watches in place (inotify + eventfd), reports made so far, the
 * kills they add up to, and decreases of a count within one cgroup ignored
 * so far.  The kills total moves with the counts pna_oom_watch_observe()
 * answers (one lock), while the callback for a report runs after it: a
 * total read after the observe calls includes every count they gave. */
size_t pna_oom_watch_active(struct pna_oom_watch *w);
uint64_t pna_oom_watch_reported(struct pna_oom_watch *w);
uint64_t pna_oom_watch_kills(struct pna_oom_watch *w);
uint64_t pna_oom_watch_decreases(struct pna_oom_watch *w);

/* Stop the thread and free everything. NULL is allowed. */
void pna_oom_watch_free(struct pna_oom_watch *w);

#endif
