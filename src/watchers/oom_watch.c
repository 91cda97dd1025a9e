/* watchers/oom_watch.c -- event-driven OOM-kill and lifecycle notices (see
 * oom_watch.h).
 *
 * Thread ownership: the entry table is shared between the caller's thread
 * (sync, dirs, observe, poke) and the watch thread, under `lock`.  Kernel
 * objects (inotify watches, eventfds) are created and removed under the same
 * lock, so an event is never matched against a freed entry. */
#include "pna_autoconf.h"
#include "watchers/oom_watch.h"
#include "core/cache.h"
#include "core/log.h"
#include "model/counter.h"
#include "util/fileio.h"
#include "util/array.h"
#include "util/held_files.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <unistd.h>

/* After a v1 notification (or a poke) the count is re-read this often, for this
 * long: the kernel signals when the cgroup enters OOM, before the victim dies. */
#define RECHECK_EVERY_MS 50
#define RECHECK_FOR_MS 1000
/* A container gone from the watched set stays known this long: the runtime's
 * own OOM notice (Docker's "oom" event) can come after the poll that saw the
 * container exit.  A notice within SAME_KILL_MS of a kill the watch counted,
 * for a cgroup that cannot be read any more, is taken as that same kill.
 *
 * An OOM is signalled before its kill is counted: v1's eventfd and the
 * runtime's notice fire when the cgroup enters OOM, and the kernel counts the
 * kill only after it has chosen the victim and written its report.  When the
 * victim is the container's PID 1, the runtime may remove the cgroup before a
 * re-read sees the count go up; a cgroup that vanishes within SAME_KILL_MS of
 * such a signal, its count unmoved, takes that kill with it, and it is
 * counted then. */
#define GONE_KEEP_MS 10000
#define GONE_MAX 4096
#define SAME_KILL_MS 5000

/* epoll tags: the low values name fixed fds, entries use their serial. */
#define TAG_STOP 1
#define TAG_INOTIFY 2
#define TAG_WAKE 3
#define TAG_FIRST_ENTRY 16

/* One watched container.  2,000 of them are kept, and the table is rebuilt at
 * every sync: its strings are one block each, as long as they are, and the
 * file watched is derived from the cgroup path when needed, not stored. */
struct entry {
    char *names;             /* id, name, pod, namespace, cgroup path: NUL after each */
    const char *id, *name, *pod, *namespace_, *cgroup_path;   /* into NAMES */
    bool has_file;           /* the path of memory.events (v1: memory.oom_control) fits */
    uint64_t serial;         /* epoll tag of its eventfd */
    uint64_t last;           /* last count reported or taken as the start: the
                                cgroup's high-water mark, never lowered while
                                the cgroup is the same (see account()) */
    struct pna_cgroup_id cg; /* the directory LAST was read in, when has_cg */
    bool has_cg;
    bool from_zero;          /* kills since it was first seen count (not at the first sync) */
    bool warned;             /* a decrease in this cgroup has been logged */
    bool readable;           /* the last read of FILE worked */
    int wd;                  /* inotify watch (v2), -1 none */
    int efd;                 /* eventfd of its OOM notification (v1), -1 none */
    int64_t recheck_until;   /* monotonic ms; 0 none */
    int64_t read_kill_ms;    /* monotonic ms of the last kill counted from the cgroup
                                itself: a read of its count, or an OOM it signalled
                                before it vanished (not a runtime's notice); 0 none */
    int64_t oom_signal_ms;   /* monotonic ms of an OOM signalled (v1 eventfd, runtime
                                notice) that the count has not shown yet; 0 none */
    int64_t gone_until;      /* in the gone list: forgotten after this (monotonic ms) */
};

struct dirwatch {
    int wd;
    char *path;
};

struct pna_oom_watch {
    struct pna_cgroup_env env;
    pna_oom_fn on_oom;
    pna_change_fn on_change;
    void *arg;

    int ifd, epfd, stopfd, wakefd;
    pthread_t thread;
    bool thread_started;

    pthread_mutex_t lock;    /* guards everything below */
    struct entry *entries;   /* sorted by id */
    size_t count;
    struct entry *gone;      /* left the set lately, unwatched; oldest first */
    size_t ngone, gone_cap;
    bool primed;             /* sync ran once */
    uint64_t next_serial;
    size_t active;
    struct dirwatch *dirs;
    size_t ndirs;
    bool dirs_complete;      /* every directory of the last pna_oom_watch_dirs() is watched */
    atomic_uint_fast64_t reported;
    /* Kills in all reports, added under the lock with the entry's count, so
     * a poll that serves a row's count serves a total that includes it. */
    atomic_uint_fast64_t kills;
    atomic_uint_fast64_t decreases;   /* counts that went down in the same cgroup */
    atomic_uint_fast64_t dir_events;  /* events on the watched directories, overflows */
};

/* ---- kernel watches (lock held) ------------------------------------------- */

static void unwatch(struct pna_oom_watch *w, struct entry *e)
{
    if (e->wd >= 0) {
        inotify_rm_watch(w->ifd, e->wd);
        e->wd = -1;
        w->active--;
    }
    if (e->efd >= 0) {
        epoll_ctl(w->epfd, EPOLL_CTL_DEL, e->efd, NULL);
        close(e->efd);
        e->efd = -1;
        w->active--;
    }
}

/* v1: "<eventfd> <fd of memory.oom_control>" written to cgroup.event_control
 * arms an OOM notification for that cgroup.  The kernel takes what it needs
 * of memory.oom_control during that write (which cgroup, which event), so
 * that file is closed after it; the notification lasts while the eventfd is
 * open, and the eventfd, kept for as long as the container, is numbered
 * high as held files are (util/held_files.h). */
static int watch_v1(struct pna_oom_watch *w, struct entry *e, const char *file)
{
    char ctl[600], line[64];
    if (pna_cgroup_event_control(&w->env, e->cgroup_path, ctl, sizeof ctl) < 0)
        return -1;
    int ofd = open(file, O_RDONLY | O_CLOEXEC);
    if (ofd < 0)
        return -1;
    int efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (efd < 0) {
        close(ofd);
        return -1;
    }
    int high = pna_fd_renumber_high(efd);
    if (high >= 0)
        efd = high;
    int cfd = open(ctl, O_WRONLY | O_CLOEXEC);
    int n = snprintf(line, sizeof line, "%d %d", efd, ofd);
    bool ok = cfd >= 0 && write(cfd, line, (size_t)n) == n;
    if (cfd >= 0)
        close(cfd);
    close(ofd);
    struct epoll_event ev = { .events = EPOLLIN, .data.u64 = e->serial };
    if (!ok || epoll_ctl(w->epfd, EPOLL_CTL_ADD, efd, &ev) < 0) {
        close(efd);
        return -1;
    }
    e->efd = efd;
    return 0;
}

static void watch(struct pna_oom_watch *w, struct entry *e)
{
    char file[600];   /* memory.events or memory.oom_control */
    if (w->active >= PNA_OOM_MAX_WATCHES || !e->has_file ||
        pna_cgroup_oom_file(&w->env, e->cgroup_path, file, sizeof file) < 0)
        return;
    if (w->env.mode == PNA_CG_V2) {
        e->wd = inotify_add_watch(w->ifd, file, IN_MODIFY);
        if (e->wd >= 0)
            w->active++;
    } else if (w->env.mode == PNA_CG_V1) {
        if (watch_v1(w, e, file) == 0)
            w->active++;
    }
}

/* ---- counting (lock held) -------------------------------------------------- */

struct hits {
    struct pna_oom_hit *v;
    size_t n, cap;
};

static void add_hit(struct hits *h, const struct entry *e, uint64_t prev, uint64_t count)
{
    if (PNA_ARRAY_RESERVE(h->v, h->cap, h->n + 1) != 0)
        return;
    struct pna_oom_who *who = &h->v[h->n].who;
    pna_strlcpy(who->id, e->id, sizeof who->id);
    pna_strlcpy(who->name, e->name, sizeof who->name);
    pna_strlcpy(who->pod, e->pod, sizeof who->pod);
    pna_strlcpy(who->namespace_, e->namespace_, sizeof who->namespace_);
    pna_strlcpy(who->cgroup_path, e->cgroup_path, sizeof who->cgroup_path);
    h->v[h->n].kill_count = count;
    h->v[h->n].prev_count = prev;
    h->n++;
}

/* A count lower than the high-water mark in the same cgroup: the kernel's
 * oom_kill never goes down while a cgroup lives, so the file is not telling
 * the truth (or something rewrites it).  Taking the drop as a new start would
 * count every climb back as new kills (a count flipping between 0 and 1000
 * would add 1000 per flip), so it is ignored, counted, and logged once per
 * cgroup: a file that flips a thousand times a second makes one line. */
static void ignore_decrease(struct pna_oom_watch *w, struct entry *e, uint64_t count)
{
    atomic_fetch_add(&w->decreases, 1);
    if (e->warned)
        return;
    e->warned = true;
    pna_log(LOG_WARNING,
            "containers: oom_kill of container %.80s went down from %llu to %llu in the same "
            "cgroup (%.200s); ignored (further decreases in this cgroup are counted, not logged)",
            e->id, (unsigned long long)e->last, (unsigned long long)count, e->cgroup_path);
}

/* COUNT was read in the cgroup directory CG (NULL: not known, a count from
 * elsewhere, taken as the same cgroup).  The rule is pna_counter_hold()'s:
 * another directory than the one counted so far means the container's cgroup
 * was made anew (a restarted Docker container keeps its id and path), its
 * count started at zero, so all of it is new kills; in the same cgroup a
 * higher count is one report, however many kills it covers, and a lower one
 * is ignored (ignore_decrease()). */
static void account(struct pna_oom_watch *w, struct entry *e, uint64_t count,
                    const struct pna_cgroup_id *cg, struct hits *h)
{
    bool same = !cg || !e->has_cg || pna_cgroup_id_equal(cg, &e->cg);
    uint64_t prev = e->last, added;
    if (cg) {
        e->cg = *cg;
        e->has_cg = true;
    }
    switch (pna_counter_hold(&e->last, count, same, &added)) {
    case PNA_HOLD_RESTART:
        e->warned = false;   /* a new cgroup: its first decrease is news again */
        prev = 0;
        break;
    case PNA_HOLD_DROP:
        ignore_decrease(w, e, count);
        return;
    case PNA_HOLD_SAME:
    case PNA_HOLD_UP:
        break;
    }
    if (added) {
        add_hit(h, e, prev, count);
        if (cg)
            e->read_kill_ms = pna_mono_ms();
        e->oom_signal_ms = 0;
        atomic_fetch_add(&w->reported, 1);
        atomic_fetch_add(&w->kills, added);
    }
}

/* A kill of E's cgroup's own (read, or taken at its end) in the last
 * SAME_KILL_MS: a signal or notice now is about that kill. */
static bool recent_own_kill(const struct entry *e, int64_t now)
{
    return e->read_kill_ms && now - e->read_kill_ms < SAME_KILL_MS;
}

/* An OOM signalled in the last SAME_KILL_MS whose kill the count has not
 * shown yet. */
static bool signal_pending(const struct entry *e, int64_t now)
{
    return e->oom_signal_ms && now - e->oom_signal_ms < SAME_KILL_MS;
}

/* An OOM was signalled for E (v1 eventfd, a runtime's notice) and a read
 * just now found its count unmoved: the kill is still to be counted, unless
 * a kill read from the cgroup in the last SAME_KILL_MS was this OOM's. */
static void note_signal(struct entry *e, uint64_t count_before, int64_t now)
{
    if (e->readable && e->last == count_before && !recent_own_kill(e, now))
        e->oom_signal_ms = now;
}

/* E's cgroup cannot be read any more.  An OOM signalled in the last
 * SAME_KILL_MS whose kill the count never showed was that cgroup's end (see
 * SAME_KILL_MS): counted now, as a kill of the cgroup's own. */
static void cgroup_vanished(struct pna_oom_watch *w, struct entry *e, struct hits *h)
{
    int64_t now = pna_mono_ms();
    bool pending = signal_pending(e, now);
    e->oom_signal_ms = 0;
    if (!pending)
        return;
    account(w, e, e->last + 1, NULL, h);
    e->read_kill_ms = now;
}

/* Read the count and the identity of the directory it is in, together.
 * Returns 0, -ENOENT when the cgroup (or its file) is not there, or another
 * negative errno. */
static int read_state(struct pna_oom_watch *w, const struct entry *e, uint64_t *count,
                      struct pna_cgroup_id *cg)
{
    if (!e->has_file)
        return -EINVAL;
    return pna_cgroup_read_oom_state(&w->env, e->cgroup_path, count, cg);
}

static void recheck(struct pna_oom_watch *w, struct entry *e, struct hits *h)
{
    uint64_t count;
    struct pna_cgroup_id cg;
    int rc = read_state(w, e, &count, &cg);
    e->readable = rc == 0;
    if (e->readable)
        account(w, e, count, &cg, h);
    else if (rc == -ENOENT)   /* not a file that did not parse: the cgroup is gone */
        cgroup_vanished(w, e, h);
}

static void flush(struct pna_oom_watch *w, struct hits *h)
{
    for (size_t i = 0; i < h->n; i++)
        w->on_oom(w->arg, &h->v[i]);
    free(h->v);
    h->v = NULL;
    h->n = h->cap = 0;
}

static struct entry *find(struct pna_oom_watch *w, const char *id)
{
    size_t lo = 0, hi = w->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(w->entries[mid].id, id);
        if (c == 0)
            return &w->entries[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* ---- the thread -------------------------------------------------------------- */

static struct dirwatch *find_dir_wd(struct pna_oom_watch *w, int wd)
{
    for (size_t i = 0; i < w->ndirs; i++)
        if (w->dirs[i].wd == wd)
            return &w->dirs[i];
    return NULL;
}

/* Lock held.  Returns true when a watched directory changed. */
static bool drain_inotify(struct pna_oom_watch *w, struct hits *h, int64_t now)
{
    char buf[8192] __attribute__((aligned(__alignof__(struct inotify_event))));
    bool changed = false;
    for (;;) {
        ssize_t n = read(w->ifd, buf, sizeof buf);
        if (n <= 0)
            break;
        for (char *p = buf; p < buf + n;) {
            struct inotify_event *ev = (struct inotify_event *)p;
            p += sizeof *ev + ev->len;
            if (ev->mask & IN_Q_OVERFLOW) {
                /* Events were lost: treat it as "everything may have changed". */
                changed = true;
                atomic_fetch_add(&w->dir_events, 1);
                for (size_t i = 0; i < w->count; i++)
                    w->entries[i].recheck_until = now + RECHECK_EVERY_MS;
                continue;
            }
            struct dirwatch *d = find_dir_wd(w, ev->wd);
            if (d) {
                changed = true;
                atomic_fetch_add(&w->dir_events, 1);
                /* The directory went away: no watch any more.  One made
                 * again at the same path is watched at the next sync. */
                if (ev->mask & IN_IGNORED)
                    d->wd = -1;
                continue;
            }
            for (size_t i = 0; i < w->count; i++) {
                struct entry *e = &w->entries[i];
                if (e->wd != ev->wd)
                    continue;
                if (ev->mask & IN_IGNORED) {   /* the cgroup went away */
                    e->wd = -1;
                    w->active--;
                    cgroup_vanished(w, e, h);
                } else {
                    recheck(w, e, h);
                }
                break;
            }
        }
    }
    return changed;
}

static void on_eventfd(struct pna_oom_watch *w, uint64_t tag, struct hits *h, int64_t now)
{
    for (size_t i = 0; i < w->count; i++) {
        struct entry *e = &w->entries[i];
        if (e->serial != tag || e->efd < 0)
            continue;
        uint64_t v, before = e->last;
        if (read(e->efd, &v, sizeof v) < 0 && errno != EAGAIN)
            break;
        recheck(w, e, h);
        /* Fired with the cgroup still there: an OOM, not its removal (v1
         * signals that too, once the directory is gone). */
        note_signal(e, before, now);
        e->recheck_until = now + RECHECK_FOR_MS;
        break;
    }
}

/* Lock held: re-read E if it waits for its count to move; returns whether
 * it still waits. */
static bool recheck_one(struct pna_oom_watch *w, struct entry *e, struct hits *h, int64_t now)
{
    if (!e->recheck_until)
        return false;
    uint64_t before = e->last;
    recheck(w, e, h);
    /* A signalled OOM not counted yet is read until its cgroup goes or
     * SAME_KILL_MS passes (cgroup_vanished() needs to see it go). */
    if ((now >= e->recheck_until && !signal_pending(e, now)) || e->last != before ||
        !e->readable) {
        e->recheck_until = 0;
        return false;
    }
    return true;
}

/* Lock held: re-read entries (watched or lately gone) still waiting for a
 * count to move; returns the epoll timeout until the next such read. */
static int run_rechecks(struct pna_oom_watch *w, struct hits *h, int64_t now)
{
    bool pending = false;
    for (size_t i = 0; i < w->count; i++)
        pending |= recheck_one(w, &w->entries[i], h, now);
    for (size_t i = 0; i < w->ngone; i++)
        if (w->gone[i].gone_until > now)   /* not forgotten (see add_entry()) */
            pending |= recheck_one(w, &w->gone[i], h, now);
    return pending ? RECHECK_EVERY_MS : 1000;
}

static void *watch_main(void *arg)
{
    struct pna_oom_watch *w = arg;
    int timeout = 1000;
    for (;;) {
        struct epoll_event evs[32];
        int n = epoll_wait(w->epfd, evs, 32, timeout);
        if (n < 0 && errno != EINTR)
            break;
        struct hits h = { 0 };
        bool changed = false, stop = false;
        int64_t now = pna_mono_ms();
        pthread_mutex_lock(&w->lock);
        for (int i = 0; i < n; i++) {
            uint64_t tag = evs[i].data.u64;
            if (tag == TAG_STOP)
                stop = true;
            else if (tag == TAG_INOTIFY)
                changed |= drain_inotify(w, &h, now);
            else if (tag == TAG_WAKE) {
                uint64_t v;
                if (read(w->wakefd, &v, sizeof v) < 0) {
                    /* EAGAIN: already drained */
                }
            }
            else
                on_eventfd(w, tag, &h, now);
        }
        timeout = run_rechecks(w, &h, now);
        pthread_mutex_unlock(&w->lock);
        if (stop)
            break;
        flush(w, &h);
        if (changed && w->on_change)
            w->on_change(w->arg);
    }
    return NULL;
}

/* ---- public ---------------------------------------------------------------------- */

struct pna_oom_watch *pna_oom_watch_new(const struct pna_cgroup_env *env, pna_oom_fn on_oom,
                                        pna_change_fn on_change, void *arg,
                                        char *err, size_t errlen)
{
    struct pna_oom_watch *w = calloc(1, sizeof *w);
    if (!w) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    w->env = *env;
    w->on_oom = on_oom;
    w->on_change = on_change;
    w->arg = arg;
    w->next_serial = TAG_FIRST_ENTRY;
    w->ifd = w->epfd = w->stopfd = w->wakefd = -1;
    pthread_mutex_init(&w->lock, NULL);
    w->ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    w->epfd = epoll_create1(EPOLL_CLOEXEC);
    w->stopfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    w->wakefd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    struct epoll_event ei = { .events = EPOLLIN, .data.u64 = TAG_INOTIFY };
    struct epoll_event es = { .events = EPOLLIN, .data.u64 = TAG_STOP };
    struct epoll_event ew = { .events = EPOLLIN, .data.u64 = TAG_WAKE };
    if (w->ifd < 0 || w->epfd < 0 || w->stopfd < 0 || w->wakefd < 0 ||
        epoll_ctl(w->epfd, EPOLL_CTL_ADD, w->ifd, &ei) < 0 ||
        epoll_ctl(w->epfd, EPOLL_CTL_ADD, w->stopfd, &es) < 0 ||
        epoll_ctl(w->epfd, EPOLL_CTL_ADD, w->wakefd, &ew) < 0) {
        snprintf(err, errlen, "inotify/epoll setup failed: %s", strerror(errno));
        pna_oom_watch_free(w);
        return NULL;
    }
    if (pthread_create(&w->thread, NULL, watch_main, w) != 0) {
        snprintf(err, errlen, "cannot start the OOM watch thread");
        pna_oom_watch_free(w);
        return NULL;
    }
    w->thread_started = true;
    return w;
}

static int cmp_targets(const void *a, const void *b)
{
    return strcmp((*(const struct pna_oom_target *const *)a)->id,
                  (*(const struct pna_oom_target *const *)b)->id);
}

static bool same_names(const struct entry *e, const struct pna_oom_target *t)
{
    return strcmp(e->id, t->id) == 0 && strcmp(e->name, t->name) == 0 &&
           strcmp(e->pod, t->pod) == 0 && strcmp(e->namespace_, t->namespace_) == 0 &&
           strcmp(e->cgroup_path, t->cgroup_path) == 0;
}

/* Copy T's strings into one block for E.  Returns -1 when out of memory (E
 * unchanged). */
static int set_names(struct entry *e, const struct pna_oom_target *t)
{
    const char *parts[5] = { t->id, t->name, t->pod, t->namespace_, t->cgroup_path };
    size_t len[5], total = 0;
    for (int i = 0; i < 5; i++)
        total += (len[i] = strlen(parts[i])) + 1;
    char *block = malloc(total), *p = block;
    if (!block)
        return -1;
    const char **into[5] = { &e->id, &e->name, &e->pod, &e->namespace_, &e->cgroup_path };
    for (int i = 0; i < 5; i++) {
        memcpy(p, parts[i], len[i] + 1);
        *into[i] = p;
        p += len[i] + 1;
    }
    free(e->names);
    e->names = block;
    return 0;
}

static void drop_entry(struct pna_oom_watch *w, struct entry *e)
{
    unwatch(w, e);
    free(e->names);
    e->names = NULL;
}

/* Forget the gone entries whose time is up, and the oldest quarter when the
 * list is full. */
static void expire_gone(struct pna_oom_watch *w, int64_t now)
{
    size_t k = 0;
    while (k < w->ngone && (w->gone[k].gone_until <= now || (w->ngone >= GONE_MAX &&
                                                             k < GONE_MAX / 4)))
        free(w->gone[k++].names);
    if (k) {
        memmove(w->gone, w->gone + k, (w->ngone - k) * sizeof *w->gone);
        w->ngone -= k;
    }
}

/* E left the watched set: unwatched, and kept for GONE_KEEP_MS (E is left
 * owning nothing).  Returns the kept copy, or NULL when out of memory (E
 * dropped). */
static struct entry *bury(struct pna_oom_watch *w, struct entry *e, int64_t now)
{
    unwatch(w, e);
    expire_gone(w, now);
    if (PNA_ARRAY_RESERVE(w->gone, w->gone_cap, w->ngone + 1) != 0) {
        drop_entry(w, e);
        return NULL;
    }
    e->gone_until = now + GONE_KEEP_MS;
    if (!e->oom_signal_ms)   /* else read until the count moves or the cgroup goes */
        e->recheck_until = 0;
    w->gone[w->ngone] = *e;
    e->names = NULL;
    return &w->gone[w->ngone++];
}

static struct entry *find_gone(struct pna_oom_watch *w, const char *id, int64_t now)
{
    for (size_t i = w->ngone; i-- > 0;)   /* the newest first */
        if (w->gone[i].gone_until > now && strcmp(w->gone[i].id, id) == 0)
            return &w->gone[i];
    return NULL;
}

static int init_entry(struct pna_oom_watch *w, struct entry *e, const struct pna_oom_target *t,
                      bool from_zero)
{
    memset(e, 0, sizeof *e);
    if (set_names(e, t) < 0)
        return -1;
    char file[600];
    e->wd = e->efd = -1;
    e->serial = w->next_serial++;
    /* No cgroup path yet (the runtime has not said): nothing to read or
     * watch, but the container is known, so a runtime's notice counts. */
    e->has_file = t->cgroup_path[0] &&
                  pna_cgroup_oom_file(&w->env, t->cgroup_path, file, sizeof file) == 0;
    uint64_t count = 0;
    e->readable = read_state(w, e, &count, &e->cg) == 0;
    e->has_cg = e->readable;
    e->last = from_zero ? 0 : count;
    e->from_zero = from_zero;
    return 0;
}

/* E takes over what FROM counted: a kill already reported for the same
 * container is not reported again.  A cgroup made anew since is told apart
 * by its identity, as always (account()). */
static void resume_entry(struct entry *e, const struct entry *from)
{
    e->last = from->last;
    e->cg = from->cg;
    e->has_cg = from->has_cg;
    e->warned = from->warned;
    e->read_kill_ms = from->read_kill_ms;
    e->oom_signal_ms = from->oom_signal_ms;
}

/* A container seen for the first time (or again): watched from now on. */
static int add_entry(struct pna_oom_watch *w, struct entry *out, const struct pna_oom_target *t,
                     bool from_zero, struct hits *h, int64_t now)
{
    if (init_entry(w, out, t, from_zero) < 0)
        return -1;
    watch(w, out);
    /* Back within GONE_KEEP_MS (or known so far from a notice only).  Not
     * at the first sync, which takes every count as it is. */
    struct entry *gone = from_zero ? find_gone(w, t->id, now) : NULL;
    if (gone) {
        resume_entry(out, gone);
        gone->gone_until = 0;   /* forgotten: OUT speaks for it now */
    }
    /* A kill in its first moments, before it was watched, counts too. */
    if (from_zero)
        recheck(w, out, h);
    return 0;
}

/* A container still there: its entry E carried over into OUT (E is left
 * owning nothing).  Returns -1 when out of memory, with E dropped. */
static int carry_entry(struct pna_oom_watch *w, struct entry *e, const struct pna_oom_target *t,
                       struct entry *out, struct hits *h)
{
    if (strcmp(e->cgroup_path, t->cgroup_path) != 0) {
        /* Its cgroup is known only now: a kill since it was first seen
         * counts, unless a notice already counted it.  Otherwise the same id
         * has a new cgroup (restarted): start over from its count. */
        bool resume = !e->cgroup_path[0] && e->from_zero;
        struct entry was = *e;
        drop_entry(w, e);
        if (init_entry(w, out, t, resume) < 0)
            return -1;
        watch(w, out);
        if (resume) {
            resume_entry(out, &was);
            recheck(w, out, h);
        }
        return 0;
    }
    *out = *e;
    e->names = NULL;
    /* Names may have been filled in since; when the copy fails the old ones
     * serve until the next sync. */
    if (!same_names(out, t))
        set_names(out, t);
    if (out->wd < 0 && out->efd < 0) {
        watch(w, out);
        /* The watch was lost (the cgroup went away) and is back: the cgroup
         * may be a new one, whose count raised no event. */
        if (out->wd >= 0 || out->efd >= 0)
            recheck(w, out, h);
    }
    return 0;
}

/* The targets sorted by id, as pointers (the caller's array is not copied). */
static const struct pna_oom_target **sort_targets(const struct pna_oom_target *targets, size_t n)
{
    const struct pna_oom_target **sorted = malloc(n * sizeof *sorted);
    if (!sorted)
        return NULL;
    for (size_t i = 0; i < n; i++)
        sorted[i] = &targets[i];
    qsort(sorted, n, sizeof *sorted, cmp_targets);
    return sorted;
}

int pna_oom_watch_sync(struct pna_oom_watch *w, const struct pna_oom_target *targets, size_t n)
{
    const struct pna_oom_target **sorted = NULL;
    struct entry *next = NULL;
    if (n) {
        sorted = sort_targets(targets, n);
        next = malloc(n * sizeof *next);
        if (!sorted || !next) {
            free(sorted);
            free(next);
            return -1;
        }
    }
    struct hits h = { 0 };
    int64_t now = pna_mono_ms();
    pthread_mutex_lock(&w->lock);
    bool from_zero = w->primed;
    size_t i = 0, j = 0, k = 0;
    while (i < w->count || j < n) {
        int c = i >= w->count ? 1 : j >= n ? -1 : strcmp(w->entries[i].id, sorted[j]->id);
        if (c < 0) {                     /* gone */
            struct entry *e = &w->entries[i++];
            /* An OOM under way: its count may be readable one last time. */
            if (e->oom_signal_ms)
                recheck(w, e, &h);
            bury(w, e, now);
            continue;
        }
        if (c == 0 && j > 0 && strcmp(sorted[j - 1]->id, sorted[j]->id) == 0) {
            j++;                         /* duplicate id in the input */
            continue;
        }
        if (c > 0) {                     /* new */
            bool dup = k > 0 && strcmp(next[k - 1].id, sorted[j]->id) == 0;
            if (!dup && add_entry(w, &next[k], sorted[j], from_zero, &h, now) == 0)
                k++;
            j++;
            continue;
        }
        if (carry_entry(w, &w->entries[i++], sorted[j++], &next[k], &h) == 0)
            k++;
    }
    free(w->entries);
    w->entries = next;
    w->count = k;
    w->primed = true;
    pthread_mutex_unlock(&w->lock);
    free(sorted);
    flush(w, &h);
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void free_dirs(struct dirwatch *d, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(d[i].path);
    free(d);
}

int pna_oom_watch_dirs(struct pna_oom_watch *w, const char *const *dirs, size_t n)
{
    /* Merge the sorted new list with the sorted old one: directories still
     * wanted keep their watch (removing and re-adding would open a window in
     * which a container's arrival is missed). */
    char **sorted = n ? malloc(n * sizeof *sorted) : NULL;
    struct dirwatch *nd = n ? calloc(n, sizeof *nd) : NULL;
    if (n && (!sorted || !nd)) {
        free(sorted);
        free(nd);
        return -1;
    }
    if (n) {
        memcpy(sorted, dirs, n * sizeof *sorted);
        qsort(sorted, n, sizeof *sorted, cmp_str);
    }
    pthread_mutex_lock(&w->lock);
    size_t i = 0, j = 0, k = 0, unwatched = 0;
    int added = 0;
    while (i < w->ndirs || j < n) {
        int c = i >= w->ndirs ? 1 : j >= n ? -1 : strcmp(w->dirs[i].path, sorted[j]);
        if (c < 0) {
            if (w->dirs[i].wd >= 0)   /* -1: its directory went, and the watch with it */
                inotify_rm_watch(w->ifd, w->dirs[i].wd);
            free(w->dirs[i].path);
            i++;
        } else if (c == 0 && w->dirs[i].wd >= 0) {
            nd[k++] = w->dirs[i++];
            j++;
        } else {
            if (c == 0) {   /* its watch was lost: watched again below */
                free(w->dirs[i].path);
                i++;
            }
            if (k > 0 && strcmp(nd[k - 1].path, sorted[j]) == 0) {
                j++;
                continue;
            }
            /* Entries made, removed, renamed, written or given other
             * rights: what can change a bundle's files. */
            int wd = inotify_add_watch(w->ifd, sorted[j], IN_CREATE | IN_DELETE | IN_MOVED_FROM |
                                       IN_MOVED_TO | IN_CLOSE_WRITE | IN_ATTRIB | IN_ONLYDIR);
            char *copy = wd >= 0 ? strdup(sorted[j]) : NULL;
            if (copy) {
                nd[k].wd = wd;
                nd[k].path = copy;
                k++;
                added++;
            } else {
                if (wd >= 0)
                    inotify_rm_watch(w->ifd, wd);
                unwatched++;
            }
            j++;
        }
    }
    free(w->dirs);
    w->dirs = nd;
    w->ndirs = k;
    w->dirs_complete = unwatched == 0;
    pthread_mutex_unlock(&w->lock);
    free(sorted);
    return added;
}

uint64_t pna_oom_watch_observe(struct pna_oom_watch *w, const char *id, uint64_t count)
{
    struct hits h = { 0 };
    pthread_mutex_lock(&w->lock);
    struct entry *e = find(w, id);
    uint64_t kept = count;
    if (e) {
        /* A count that differs is read again here, with its directory's
         * identity: only that can tell a new cgroup from a file that went
         * backwards.  The caller's count serves when the cgroup cannot be read. */
        if (count != e->last) {
            recheck(w, e, &h);
            if (!e->readable)
                account(w, e, count, NULL, &h);
        }
        kept = e->last;
    }
    pthread_mutex_unlock(&w->lock);
    flush(w, &h);
    return kept;
}

/* A notice names a container no sync has brought (started and killed
 * between two polls, or its row had not been read yet): it is known from
 * the notice alone, kept as if gone, so the poll that brings it takes its
 * count over (add_entry()).  Returns NULL when out of memory. */
static struct entry *known_from_notice(struct pna_oom_watch *w, const char *id, const char *name,
                                       int64_t now)
{
    struct pna_oom_target t = { .id = id, .name = name, .pod = "", .namespace_ = "",
                                .cgroup_path = "" };
    struct entry e;
    if (init_entry(w, &e, &t, true) < 0)
        return NULL;
    pna_log(LOG_INFO, "containers: an OOM kill in container %.80s (%.100s), not yet seen by a "
            "poll, is counted from the runtime's notice", id, name[0] ? name : "no name given");
    return bury(w, &e, now);
}

void pna_oom_watch_poke(struct pna_oom_watch *w, const char *id, const char *name)
{
    struct hits h = { 0 };
    int64_t now = pna_mono_ms();
    pthread_mutex_lock(&w->lock);
    struct entry *e = find(w, id);
    if (!e)
        e = find_gone(w, id, now);
    if (!e)
        e = known_from_notice(w, id, name, now);
    if (e) {
        uint64_t before = e->last;
        recheck(w, e, &h);
        note_signal(e, before, now);
        if (!e->readable) {
            /* No cgroup to count in (not mounted here, or removed with the
             * container): the runtime's word is all there is, one kill per
             * notice, unless a read of the cgroup counted one just before
             * it went (the notice is about that kill). */
            if (!recent_own_kill(e, now))
                account(w, e, e->last + 1, NULL, &h);
        } else {
            e->recheck_until = pna_mono_ms() + RECHECK_FOR_MS;
            uint64_t one = 1;
            /* Wake the thread so it starts re-reading now, not at its next
             * one-second timeout. */
            if (write(w->wakefd, &one, sizeof one) < 0) {
                /* EAGAIN: a wake-up is already pending */
            }
        }
    }
    pthread_mutex_unlock(&w->lock);
    flush(w, &h);
}

size_t pna_oom_watch_active(struct pna_oom_watch *w)
{
    pthread_mutex_lock(&w->lock);
    size_t n = w->active;
    pthread_mutex_unlock(&w->lock);
    return n;
}

uint64_t pna_oom_watch_dir_events(struct pna_oom_watch *w, bool *complete)
{
    pthread_mutex_lock(&w->lock);
    bool all = w->dirs_complete;
    for (size_t i = 0; all && i < w->ndirs; i++)
        all = w->dirs[i].wd >= 0;
    pthread_mutex_unlock(&w->lock);
    *complete = all;
    return atomic_load(&w->dir_events);
}

uint64_t pna_oom_watch_reported(struct pna_oom_watch *w)
{
    return atomic_load(&w->reported);
}

uint64_t pna_oom_watch_kills(struct pna_oom_watch *w)
{
    return atomic_load(&w->kills);
}

uint64_t pna_oom_watch_decreases(struct pna_oom_watch *w)
{
    return atomic_load(&w->decreases);
}

void pna_oom_watch_free(struct pna_oom_watch *w)
{
    if (!w)
        return;
    if (w->thread_started) {
        uint64_t one = 1;
        if (write(w->stopfd, &one, sizeof one) != sizeof one) {
            /* cannot fail on an eventfd below its maximum */
        }
        pthread_join(w->thread, NULL);
    }
    for (size_t i = 0; i < w->count; i++)
        drop_entry(w, &w->entries[i]);
    free(w->entries);
    for (size_t i = 0; i < w->ngone; i++)
        free(w->gone[i].names);
    free(w->gone);
    free_dirs(w->dirs, w->ndirs);
    if (w->ifd >= 0)
        close(w->ifd);
    if (w->epfd >= 0)
        close(w->epfd);
    if (w->stopfd >= 0)
        close(w->stopfd);
    if (w->wakefd >= 0)
        close(w->wakefd);
    pthread_mutex_destroy(&w->lock);
    free(w);
}
