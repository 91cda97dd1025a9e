/* watchers/oom_watch.c -- the kernel's OOM notifications read on the event
 * loop and handed to the OOM-kill ledger (see oom_watch.h).
 *
 * Each container whose notification is armed has a `struct notifier`, the
 * ledger's handle for it: v2 an inotify watch in the watch's one instance,
 * v1 an eventfd registered on the loop.  The loop's callbacks get the watch
 * itself and find the notifier by its watch descriptor or eventfd under the
 * lock: a notifier may be disarmed by the caller's thread at any time, and
 * is never reached through a pointer the loop could still hold. */
#include "pna_autoconf.h"
#include "watchers/oom_watch.h"
#include "core/cache.h"
#include "core/event_loop.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

struct notifier {
    char *id;                        /* the container's */
    struct pna_cgroup_oom_notify n;
    uint64_t reg;                    /* the loop's registration of the v1 eventfd, 0 none */
    struct notifier *next;
};

struct pna_oom_watch {
    struct pna_loop *loop;
    struct pna_cgroup_env env;
    pna_oom_fn on_oom;
    void *arg;
    int ifd;                         /* v2's inotify instance, -1 none */
    uint64_t ifd_reg;

    pthread_mutex_t lock;            /* guards what follows */
    struct pna_oom_ledger *ledger;
    struct notifier *armed;          /* every notifier, newest first */
    size_t active;
    uint64_t recheck_timer;          /* the loop's timer of the ledger's re-reads, 0 none */
};

/* ---- the ledger's hooks (lock held) ------------------------------------------ */

static int read_count(void *ctx, const char *cgroup_path, uint64_t *count, struct pna_cgroup_id *cg)
{
    struct pna_oom_watch *w = ctx;
    return pna_cgroup_read_oom_state(&w->env, cgroup_path, count, cg);
}

static void on_eventfd(void *arg, int fd, unsigned ready);

static void *arm(void *ctx, const char *id, const char *cgroup_path)
{
    struct pna_oom_watch *w = ctx;
    if (w->active >= PNA_OOM_MAX_WATCHES)
        return NULL;
    struct notifier *n = calloc(1, sizeof *n);
    if (!n || !(n->id = strdup(id)) ||
        pna_cgroup_oom_notify(&w->env, w->ifd, cgroup_path, &n->n) < 0) {
        if (n)
            free(n->id);
        free(n);
        return NULL;
    }
    if (n->n.fd >= 0 &&
        !(n->reg = pna_loop_add_fd(w->loop, n->n.fd, PNA_LOOP_READ, on_eventfd, w))) {
        pna_cgroup_oom_unnotify(w->ifd, &n->n);
        free(n->id);
        free(n);
        return NULL;
    }
    n->next = w->armed;
    w->armed = n;
    w->active++;
    return n;
}

static void disarm(void *ctx, void *armed)
{
    struct pna_oom_watch *w = ctx;
    struct notifier *n = armed;
    for (struct notifier **p = &w->armed; *p; p = &(*p)->next)
        if (*p == n) {
            *p = n->next;
            break;
        }
    pna_loop_remove_fd(w->loop, n->reg);
    pna_cgroup_oom_unnotify(w->ifd, &n->n);
    w->active--;
    free(n->id);
    free(n);
}

/* ---- re-reads --------------------------------------------------------------------- */

static void report(struct pna_oom_watch *w, struct pna_oom_hits *h)
{
    for (size_t i = 0; i < h->n; i++)
        w->on_oom(w->arg, &h->v[i]);
    pna_oom_hits_free(h);
}

/* Loop thread: the ledger's re-reads, every PNA_OOM_RECHECK_EVERY_MS while
 * some container waits for its count to move. */
static int64_t on_recheck(void *arg)
{
    struct pna_oom_watch *w = arg;
    struct pna_oom_hits h = { 0 };
    pthread_mutex_lock(&w->lock);
    bool pending = pna_oom_ledger_recheck(w->ledger, pna_mono_ms(), &h);
    if (!pending)
        w->recheck_timer = 0;
    pthread_mutex_unlock(&w->lock);
    report(w, &h);
    return pending ? PNA_OOM_RECHECK_EVERY_MS : PNA_LOOP_TIMER_DONE;
}

/* Lock held: the re-reads started, once some container waits for them.  The
 * first comes at once, as the ledger's other reads of the moment did. */
static void schedule_rechecks(struct pna_oom_watch *w, int64_t now)
{
    if (!w->recheck_timer && pna_oom_ledger_recheck_pending(w->ledger, now))
        w->recheck_timer = pna_loop_add_timer(w->loop, 0, on_recheck, w);
}

/* ---- the kernel's notifications (loop thread) ------------------------------------ */

static struct notifier *by_wd(struct pna_oom_watch *w, int wd)
{
    for (struct notifier *n = w->armed; n; n = n->next)
        if (n->n.wd == wd)
            return n;
    return NULL;
}

static struct notifier *by_fd(struct pna_oom_watch *w, int fd)
{
    for (struct notifier *n = w->armed; n; n = n->next)
        if (n->n.fd == fd)
            return n;
    return NULL;
}

/* Lock held: one inotify event of v2's memory.events watches. */
static void take_inotify(struct pna_oom_watch *w, const struct inotify_event *ev, int64_t now,
                         struct pna_oom_hits *h)
{
    if (ev->mask & IN_Q_OVERFLOW) {   /* events were lost: read every count again */
        pna_oom_ledger_recheck_all(w->ledger, now);
        return;
    }
    struct notifier *n = by_wd(w, ev->wd);
    if (!n)
        return;
    if (!(ev->mask & IN_IGNORED)) {
        pna_oom_ledger_cgroup_changed(w->ledger, n->id, now, h);
        return;
    }
    /* The cgroup went away, and the kernel's watch with it: the ledger
     * disarms the notifier (freeing it, so its id is taken first). */
    char *id = n->id;
    n->id = NULL;
    n->n.wd = -1;
    pna_oom_ledger_notify_lost(w->ledger, id, now, h);
    free(id);
}

static void on_inotify(void *arg, int fd, unsigned ready)
{
    (void)ready;
    struct pna_oom_watch *w = arg;
    char buf[8192] __attribute__((aligned(__alignof__(struct inotify_event))));
    struct pna_oom_hits h = { 0 };
    ssize_t len;
    while ((len = read(fd, buf, sizeof buf)) > 0) {
        int64_t now = pna_mono_ms();
        pthread_mutex_lock(&w->lock);
        for (char *p = buf; p < buf + len;) {
            const struct inotify_event *ev = (const struct inotify_event *)p;
            p += sizeof *ev + ev->len;
            take_inotify(w, ev, now, &h);
        }
        schedule_rechecks(w, now);
        pthread_mutex_unlock(&w->lock);
    }
    report(w, &h);
}

/* v1: a cgroup entered OOM (or was removed). */
static void on_eventfd(void *arg, int fd, unsigned ready)
{
    (void)ready;
    struct pna_oom_watch *w = arg;
    struct pna_oom_hits h = { 0 };
    int64_t now = pna_mono_ms();
    uint64_t v;
    pthread_mutex_lock(&w->lock);
    struct notifier *n = by_fd(w, fd);
    if (n && (read(fd, &v, sizeof v) >= 0 || errno == EAGAIN)) {
        pna_oom_ledger_cgroup_oom(w->ledger, n->id, now, &h);
        schedule_rechecks(w, now);
    }
    pthread_mutex_unlock(&w->lock);
    report(w, &h);
}

/* ---- public ---------------------------------------------------------------------- */

struct pna_oom_watch *pna_oom_watch_new(struct pna_loop *loop, const struct pna_cgroup_env *env,
                                        pna_oom_fn on_oom, void *arg, char *err, size_t errlen)
{
    struct pna_oom_watch *w = calloc(1, sizeof *w);
    if (!w) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    w->loop = loop;
    w->env = *env;
    w->on_oom = on_oom;
    w->arg = arg;
    w->ifd = -1;
    pthread_mutex_init(&w->lock, NULL);
    struct pna_oom_ledger_hooks hooks = { .read = read_count, .arm = arm, .disarm = disarm,
                                          .ctx = w };
    w->ledger = pna_oom_ledger_new(&hooks);
    if (!w->ledger) {
        snprintf(err, errlen, "out of memory");
        pna_oom_watch_free(w);
        return NULL;
    }
    if (env->mode == PNA_CG_V2) {
        w->ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
        if (w->ifd >= 0)
            w->ifd_reg = pna_loop_add_fd(loop, w->ifd, PNA_LOOP_READ, on_inotify, w);
        if (w->ifd < 0 || !w->ifd_reg) {
            snprintf(err, errlen, "inotify: %s", strerror(errno));
            pna_oom_watch_free(w);
            return NULL;
        }
    }
    return w;
}

int pna_oom_watch_sync(struct pna_oom_watch *w, const struct pna_oom_target *targets, size_t n)
{
    struct pna_oom_hits h = { 0 };
    int64_t now = pna_mono_ms();
    pthread_mutex_lock(&w->lock);
    int rc = pna_oom_ledger_sync(w->ledger, targets, n, now, &h);
    schedule_rechecks(w, now);
    pthread_mutex_unlock(&w->lock);
    report(w, &h);
    return rc;
}

uint64_t pna_oom_watch_observe(struct pna_oom_watch *w, const char *id, uint64_t count)
{
    struct pna_oom_hits h = { 0 };
    pthread_mutex_lock(&w->lock);
    uint64_t kept = pna_oom_ledger_observe(w->ledger, id, count, pna_mono_ms(), &h);
    pthread_mutex_unlock(&w->lock);
    report(w, &h);
    return kept;
}

void pna_oom_watch_runtime_notice(struct pna_oom_watch *w, const char *id, const char *name)
{
    struct pna_oom_hits h = { 0 };
    int64_t now = pna_mono_ms();
    pthread_mutex_lock(&w->lock);
    pna_oom_ledger_runtime_notice(w->ledger, id, name, now, &h);
    schedule_rechecks(w, now);
    pthread_mutex_unlock(&w->lock);
    report(w, &h);
}

size_t pna_oom_watch_active(struct pna_oom_watch *w)
{
    pthread_mutex_lock(&w->lock);
    size_t n = w->active;
    pthread_mutex_unlock(&w->lock);
    return n;
}

/* The ledger's counters, read under the lock that moves them with the counts
 * observe() answers. */
static uint64_t counter(struct pna_oom_watch *w, uint64_t (*get)(const struct pna_oom_ledger *))
{
    pthread_mutex_lock(&w->lock);
    uint64_t v = get(w->ledger);
    pthread_mutex_unlock(&w->lock);
    return v;
}

uint64_t pna_oom_watch_reported(struct pna_oom_watch *w)
{
    return counter(w, pna_oom_ledger_reported);
}

uint64_t pna_oom_watch_kills(struct pna_oom_watch *w)
{
    return counter(w, pna_oom_ledger_kills);
}

uint64_t pna_oom_watch_decreases(struct pna_oom_watch *w)
{
    return counter(w, pna_oom_ledger_decreases);
}

/* With no callback running: off the loop, every notification disarmed. */
static void leave_loop(void *arg)
{
    struct pna_oom_watch *w = arg;
    pna_loop_remove_fd(w->loop, w->ifd_reg);
    pna_loop_cancel_timer(w->loop, w->recheck_timer);
    pthread_mutex_lock(&w->lock);
    pna_oom_ledger_free(w->ledger);
    w->ledger = NULL;
    pthread_mutex_unlock(&w->lock);
}

void pna_oom_watch_free(struct pna_oom_watch *w)
{
    if (!w)
        return;
    pna_loop_call(w->loop, leave_loop, w);
    if (w->ifd >= 0)
        close(w->ifd);
    pthread_mutex_destroy(&w->lock);
    free(w);
}
