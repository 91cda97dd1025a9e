/* watchers/oom_ledger.h -- the OOM-kill ledger: which containers are
 * watched, what each one's oom_kill count was, and which kills are news.
 * No descriptors and no clock of its own: the OOM watch (oom_watch.h) tells
 * it what the kernel signalled and when, and it reads counts and arms
 * notifications through the hooks it is given, so that it can be tested on
 * its own with counts and times the test decides.
 *
 * A kill is reported once per increase of the cgroup's oom_kill count (one
 * OOM can signal many times: count, do not count signals).  Counts read
 * elsewhere (the periodic poll) go through the same rules with
 * pna_oom_ledger_observe().  The one kill counted without the count: an OOM
 * signalled (v1 eventfd, a runtime's notice) whose cgroup vanishes within
 * SAME_KILL_MS, its count unmoved (PID 1 was the victim and the runtime
 * removed the cgroup before a re-read).
 *
 * The count is a high-water mark per cgroup.  A lower count is taken as a new
 * start only when the cgroup directory is another one (struct pna_cgroup_id:
 * the container's cgroup was made anew), and then all of its count is new
 * kills; within one cgroup's life a decrease is ignored, counted
 * (pna_oom_ledger_decreases()) and logged once, so a count that flips between
 * 0 and 1000 is 1000 kills, once, however often it flips.
 *
 * A container that leaves the watched set is kept for GONE_KEEP_MS (10 s):
 * a runtime's notice of the kill that ended it can come after the poll that
 * saw it go.  One that no sync has brought yet is known from the notice, and
 * a sync that brings it within that time goes on from its count.
 *
 * Not thread-safe: its owner serialises the calls (the OOM watch, under its
 * lock).  Every time is CLOCK_MONOTONIC in ms, given by the caller. */
#ifndef PNA_WATCHERS_OOM_LEDGER_H
#define PNA_WATCHERS_OOM_LEDGER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sources/containers/cgroup.h"

/* After a signalled OOM (v1's eventfd, a runtime's notice) the count is read
 * again this often, for this long: the kernel signals when the cgroup enters
 * OOM, before the victim dies. */
#define PNA_OOM_RECHECK_EVERY_MS 50
#define PNA_OOM_RECHECK_FOR_MS 1000

/* A container to watch, as pna_oom_ledger_sync() takes it: the strings are
 * the caller's, read during the call only (the ledger keeps its own copy, as
 * small as the strings are). */
struct pna_oom_target {
    const char *id;
    const char *name;         /* "" when not known; never NULL */
    const char *pod;
    const char *namespace_;
    const char *cgroup_path;  /* hierarchy path, as cgroup.h takes it; "" not known */
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

/* The kills one call found, for the caller to report once it holds no lock. */
struct pna_oom_hits {
    struct pna_oom_hit *v;
    size_t n, cap;
};

void pna_oom_hits_free(struct pna_oom_hits *h);

/* What the ledger asks of its owner. */
struct pna_oom_ledger_hooks {
    /* The oom_kill count of cgroup PATH and the identity of the directory it
     * was read in (pna_cgroup_read_oom_state()): 0, -ENOENT when the cgroup
     * is gone, another -errno when it cannot be read. */
    int (*read)(void *ctx, const char *cgroup_path, uint64_t *count, struct pna_cgroup_id *cg);
    /* Arm the kernel's notification for container ID's cgroup PATH: a handle
     * the ledger keeps with the container, or NULL (not armed: no room, not
     * allowed, no such cgroup). */
    void *(*arm)(void *ctx, const char *id, const char *cgroup_path);
    /* Disarm what ARM gave. */
    void (*disarm)(void *ctx, void *armed);
    void *ctx;
};

struct pna_oom_ledger;

/* NULL when out of memory.  HOOKS is copied. */
struct pna_oom_ledger *pna_oom_ledger_new(const struct pna_oom_ledger_hooks *hooks);

/* Disarm everything and free.  NULL is allowed. */
void pna_oom_ledger_free(struct pna_oom_ledger *l);

/* Make the watched set exactly TARGETS (any order).  The first call takes the
 * counts as they are (kills from before the agent started are not reported);
 * containers added later start from zero, so a kill in their first moments is
 * reported.  Returns 0, or -1 when out of memory (the old set stays). */
int pna_oom_ledger_sync(struct pna_oom_ledger *l, const struct pna_oom_target *targets, size_t n,
                        int64_t now, struct pna_oom_hits *hits);

/* A count read by someone else (the poll).  One that differs from the
 * ledger's is read again through the hooks, with the cgroup's identity, and
 * goes through the rules above; the caller's count is used as it is only
 * when the cgroup cannot be read.  Returns the count the ledger now holds for
 * ID (its high-water mark: what the container's row should say), or COUNT
 * when ID is not watched. */
uint64_t pna_oom_ledger_observe(struct pna_oom_ledger *l, const char *id, uint64_t count,
                                int64_t now, struct pna_oom_hits *hits);

/* Another source (Docker's "oom" event) says container ID (named NAME, ""
 * when not said) was OOM-killed: its count is read now and for the next
 * PNA_OOM_RECHECK_FOR_MS.  When its cgroup cannot be read at all (or its
 * path is not known yet), the kill is reported with the last count plus
 * one, unless a read of that cgroup counted a kill in the SAME_KILL_MS
 * before (the notice is about that one). */
void pna_oom_ledger_runtime_notice(struct pna_oom_ledger *l, const char *id, const char *name,
                                   int64_t now, struct pna_oom_hits *hits);

/* The kernel's notification for container ID fired: v2, its memory.events
 * changed (read it); v1, its cgroup entered OOM (read it now and for the
 * next PNA_OOM_RECHECK_FOR_MS). */
void pna_oom_ledger_cgroup_changed(struct pna_oom_ledger *l, const char *id, int64_t now,
                                   struct pna_oom_hits *hits);
void pna_oom_ledger_cgroup_oom(struct pna_oom_ledger *l, const char *id, int64_t now,
                               struct pna_oom_hits *hits);

/* The kernel dropped container ID's notification (v2: the cgroup was
 * removed): disarmed, and the cgroup taken as gone.  The next sync arms it
 * again if the cgroup is back. */
void pna_oom_ledger_notify_lost(struct pna_oom_ledger *l, const char *id, int64_t now,
                                struct pna_oom_hits *hits);

/* Notifications were lost (inotify's queue overflowed): every watched
 * container is read again at the next pna_oom_ledger_recheck(). */
void pna_oom_ledger_recheck_all(struct pna_oom_ledger *l, int64_t now);

/* Read again the containers (watched or lately gone) still waiting for a
 * count to move.  Returns whether some still wait: then call it again in
 * PNA_OOM_RECHECK_EVERY_MS. */
bool pna_oom_ledger_recheck(struct pna_oom_ledger *l, int64_t now, struct pna_oom_hits *hits);

/* Whether some container waits for a re-read (pna_oom_ledger_recheck()). */
bool pna_oom_ledger_recheck_pending(const struct pna_oom_ledger *l, int64_t now);

/* Reports made so far, the kills they add up to, and decreases of a count
 * within one cgroup ignored so far. */
uint64_t pna_oom_ledger_reported(const struct pna_oom_ledger *l);
uint64_t pna_oom_ledger_kills(const struct pna_oom_ledger *l);
uint64_t pna_oom_ledger_decreases(const struct pna_oom_ledger *l);

#endif
