/* core/event_loop.c -- descriptors and timers on one thread (see
 * event_loop.h).
 *
 * Registrations live in a table of slots; an id is the slot's number plus
 * one in its low 32 bits and the slot's generation in its high 32 bits, and
 * it is what epoll hands back for the descriptor.  Removing a registration
 * frees its slot and moves the generation on, so an event already fetched
 * for it (in the same epoll batch, or for a descriptor number that was
 * closed and reused since) no longer names a live registration and is
 * dropped.  The timers are an array sorted by (deadline, id): a handful at
 * a time (one per watcher), so a sorted insertion is all they need.
 *
 * Locks: `lock` guards the slots, the timers and the stop request, and is
 * never held while a callback runs.  `run_lock` is held by the loop thread
 * while it calls the callbacks of one turn (not while it waits in epoll),
 * and by pna_loop_call() around its function: that is what keeps the two
 * apart. */
#include "pna_autoconf.h"
#include "core/event_loop.h"
#include "core/cache.h"
#include "core/log.h"
#include "util/array.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#define WAKE_TAG 0           /* epoll tag of the wake-up eventfd: no id is 0 */
#define BATCH 64             /* epoll events taken per turn */

struct slot {
    bool used;
    uint32_t gen;            /* moves on when the slot is freed */
    int fd;
    unsigned interest;
    pna_loop_fd_fn fn;
    void *arg;
};

struct timer {
    int64_t when_ms;         /* CLOCK_MONOTONIC */
    uint64_t id;
    pna_loop_timer_fn fn;
    void *arg;
};

struct pna_loop {
    int epfd, wakefd;
    pthread_mutex_t lock;    /* guards what follows, up to run_lock */
    struct slot *slots;
    size_t nslots, cap_slots;
    size_t *free_slots;      /* numbers of unused slots, a stack */
    size_t nfree, cap_free;
    struct timer *timers;    /* sorted by (when_ms, id) */
    size_t ntimers, cap_timers;
    uint64_t next_timer_id;
    uint64_t firing;         /* the timer whose callback runs now, 0 none */
    bool firing_cancelled;   /* ... and it was cancelled meanwhile */
    uint64_t *due;           /* the ids of one turn's due timers (runner only) */
    size_t ndue, cap_due;
    bool stop;
    bool running;            /* pna_loop_run() is under way */
    pthread_t runner;        /* its thread, while running */

    pthread_mutex_t run_lock;
    bool dispatching;        /* the runner holds run_lock (runner only) */

    pthread_t thread;        /* pna_loop_start()'s */
    bool thread_started;
};

static uint64_t slot_id(const struct pna_loop *l, size_t i)
{
    return ((uint64_t)l->slots[i].gen << 32) | (uint64_t)(i + 1);
}

/* Under the lock: the slot of live registration ID, or NULL. */
static struct slot *find_slot(struct pna_loop *l, uint64_t id)
{
    size_t i = (size_t)(id & 0xffffffffu);
    if (i == 0 || i > l->nslots)
        return NULL;
    struct slot *s = &l->slots[i - 1];
    return s->used && s->gen == (uint32_t)(id >> 32) ? s : NULL;
}

static uint32_t epoll_mask(unsigned interest)
{
    return (interest & PNA_LOOP_READ ? EPOLLIN : 0) | (interest & PNA_LOOP_WRITE ? EPOLLOUT : 0);
}

/* Whether the caller is the thread running the loop. */
static bool is_runner(struct pna_loop *l)
{
    pthread_mutex_lock(&l->lock);
    bool runner = l->running && pthread_equal(l->runner, pthread_self());
    pthread_mutex_unlock(&l->lock);
    return runner;
}

/* Whether the caller is the loop's thread, inside a turn's callbacks. */
static bool in_callback(struct pna_loop *l)
{
    return is_runner(l) && l->dispatching;
}

struct pna_loop *pna_loop_new(char *err, size_t errlen)
{
    struct pna_loop *l = calloc(1, sizeof *l);
    if (!l) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    l->epfd = epoll_create1(EPOLL_CLOEXEC);
    l->wakefd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    struct epoll_event ev = { .events = EPOLLIN, .data.u64 = WAKE_TAG };
    if (l->epfd < 0 || l->wakefd < 0 || epoll_ctl(l->epfd, EPOLL_CTL_ADD, l->wakefd, &ev) < 0) {
        snprintf(err, errlen, "epoll/eventfd: %s", strerror(errno));
        if (l->epfd >= 0)
            close(l->epfd);
        if (l->wakefd >= 0)
            close(l->wakefd);
        free(l);
        return NULL;
    }
    pthread_mutex_init(&l->lock, NULL);
    pthread_mutex_init(&l->run_lock, NULL);
    l->next_timer_id = 1;
    return l;
}

void pna_loop_wake(struct pna_loop *l)
{
    uint64_t one = 1;
    if (write(l->wakefd, &one, sizeof one) < 0) {
        /* EAGAIN: the counter is full, a wake-up is pending anyway */
    }
}

/* After a change made from another thread than the loop's: the wait it is
 * in may be for the old state. */
static void wake_unless_runner(struct pna_loop *l)
{
    if (!is_runner(l))
        pna_loop_wake(l);
}

/* ---- descriptors ------------------------------------------------------------ */

/* Under the lock: a free slot's number, or -1 when memory runs out. */
static long take_slot(struct pna_loop *l)
{
    if (l->nfree)
        return (long)l->free_slots[--l->nfree];
    /* Room in the free stack for every slot, so freeing never allocates. */
    if (PNA_ARRAY_RESERVE(l->slots, l->cap_slots, l->nslots + 1) != 0 ||
        PNA_ARRAY_RESERVE(l->free_slots, l->cap_free, l->nslots + 1) != 0)
        return -1;
    memset(&l->slots[l->nslots], 0, sizeof l->slots[0]);
    return (long)l->nslots++;
}

uint64_t pna_loop_add_fd(struct pna_loop *l, int fd, unsigned interest, pna_loop_fd_fn fn,
                         void *arg)
{
    pthread_mutex_lock(&l->lock);
    long i = take_slot(l);
    if (i < 0) {
        pthread_mutex_unlock(&l->lock);
        errno = ENOMEM;
        return 0;
    }
    struct slot *s = &l->slots[i];
    struct epoll_event ev = { .events = epoll_mask(interest), .data.u64 = 0 };
    s->used = true;
    ev.data.u64 = slot_id(l, (size_t)i);
    if (epoll_ctl(l->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
        int e = errno;
        s->used = false;
        l->free_slots[l->nfree++] = (size_t)i;
        pthread_mutex_unlock(&l->lock);
        errno = e;
        return 0;
    }
    s->fd = fd;
    s->interest = interest;
    s->fn = fn;
    s->arg = arg;
    pthread_mutex_unlock(&l->lock);
    return ev.data.u64;
}

int pna_loop_set_fd(struct pna_loop *l, uint64_t id, unsigned interest)
{
    pthread_mutex_lock(&l->lock);
    struct slot *s = find_slot(l, id);
    int rc = -1;
    if (!s) {
        errno = ENOENT;
    } else {
        struct epoll_event ev = { .events = epoll_mask(interest), .data.u64 = id };
        rc = epoll_ctl(l->epfd, EPOLL_CTL_MOD, s->fd, &ev);
        if (rc == 0)
            s->interest = interest;
    }
    pthread_mutex_unlock(&l->lock);
    return rc;
}

void pna_loop_remove_fd(struct pna_loop *l, uint64_t id)
{
    pthread_mutex_lock(&l->lock);
    struct slot *s = find_slot(l, id);
    if (s) {
        /* Fails harmlessly when the descriptor was closed first: closing
         * took it out of the set already. */
        epoll_ctl(l->epfd, EPOLL_CTL_DEL, s->fd, NULL);
        s->used = false;
        s->gen++;
        l->free_slots[l->nfree++] = (size_t)(s - l->slots);
    }
    pthread_mutex_unlock(&l->lock);
}

/* One ready descriptor: its callback, if its registration still lives. */
static void dispatch_fd(struct pna_loop *l, const struct epoll_event *ev)
{
    pthread_mutex_lock(&l->lock);
    struct slot *s = find_slot(l, ev->data.u64);
    pna_loop_fd_fn fn = s ? s->fn : NULL;
    void *arg = s ? s->arg : NULL;
    int fd = s ? s->fd : -1;
    unsigned interest = s ? s->interest : 0;
    pthread_mutex_unlock(&l->lock);
    if (!fn)
        return;
    unsigned ready = (ev->events & EPOLLIN ? PNA_LOOP_READ : 0) |
                     (ev->events & EPOLLOUT ? PNA_LOOP_WRITE : 0);
    if (ev->events & (EPOLLERR | EPOLLHUP))
        ready |= PNA_LOOP_ERROR | interest;
    ready &= interest | PNA_LOOP_ERROR;
    if (ready)
        fn(arg, fd, ready);
}

/* ---- timers ----------------------------------------------------------------- */

/* Under the lock: T in its place.  Returns -1 when memory runs out. */
static int insert_timer(struct pna_loop *l, const struct timer *t)
{
    if (PNA_ARRAY_RESERVE(l->timers, l->cap_timers, l->ntimers + 1) != 0)
        return -1;
    size_t at = l->ntimers;
    while (at > 0 && (l->timers[at - 1].when_ms > t->when_ms ||
                      (l->timers[at - 1].when_ms == t->when_ms && l->timers[at - 1].id > t->id)))
        at--;
    memmove(&l->timers[at + 1], &l->timers[at], (l->ntimers - at) * sizeof *l->timers);
    l->timers[at] = *t;
    l->ntimers++;
    return 0;
}

uint64_t pna_loop_add_timer(struct pna_loop *l, int64_t delay_ms, pna_loop_timer_fn fn,
                            void *arg)
{
    struct timer t = { .when_ms = pna_mono_ms() + (delay_ms > 0 ? delay_ms : 0), .fn = fn,
                       .arg = arg };
    pthread_mutex_lock(&l->lock);
    t.id = l->next_timer_id++;
    int rc = insert_timer(l, &t);
    pthread_mutex_unlock(&l->lock);
    if (rc < 0)
        return 0;
    wake_unless_runner(l);
    return t.id;
}

/* Under the lock: the timer ID, taken out of the list into *OUT; false when
 * it is not there (cancelled by an earlier callback of this turn). */
static bool take_timer(struct pna_loop *l, uint64_t id, struct timer *out)
{
    for (size_t i = 0; i < l->ntimers; i++) {
        if (l->timers[i].id != id)
            continue;
        *out = l->timers[i];
        memmove(&l->timers[i], &l->timers[i + 1], (l->ntimers - i - 1) * sizeof *l->timers);
        l->ntimers--;
        return true;
    }
    return false;
}

void pna_loop_cancel_timer(struct pna_loop *l, uint64_t id)
{
    if (!id)
        return;
    struct timer t;
    pthread_mutex_lock(&l->lock);
    if (l->firing == id)
        l->firing_cancelled = true;
    take_timer(l, id, &t);
    pthread_mutex_unlock(&l->lock);
}

/* Under the lock: the ids of the timers due at NOW, earliest first, into
 * l->due. */
static void list_due(struct pna_loop *l, int64_t now)
{
    l->ndue = 0;
    for (size_t i = 0; i < l->ntimers && l->timers[i].when_ms <= now; i++) {
        if (PNA_ARRAY_RESERVE(l->due, l->cap_due, l->ndue + 1) != 0)
            break;   /* out of memory: the others wait for the next turn */
        l->due[l->ndue++] = l->timers[i].id;
    }
}

/* Fire the timers that were due when the turn began, each once: one that
 * asks to run again at once is put back for the next turn. */
static void run_timers(struct pna_loop *l, int64_t now)
{
    pthread_mutex_lock(&l->lock);
    list_due(l, now);
    for (size_t k = 0; k < l->ndue; k++) {
        struct timer t;
        if (!take_timer(l, l->due[k], &t))
            continue;
        l->firing = t.id;
        l->firing_cancelled = false;
        pthread_mutex_unlock(&l->lock);

        int64_t again = t.fn(t.arg);

        pthread_mutex_lock(&l->lock);
        if (again >= 0 && !l->firing_cancelled) {
            t.when_ms = pna_mono_ms() + again;
            insert_timer(l, &t);   /* out of memory: the timer is lost */
        }
        l->firing = 0;
    }
    pthread_mutex_unlock(&l->lock);
}

/* Under the lock: how long epoll may wait, in ms (-1: no timer). */
static int wait_ms(const struct pna_loop *l)
{
    if (!l->ntimers)
        return -1;
    int64_t left = l->timers[0].when_ms - pna_mono_ms();
    if (left <= 0)
        return 0;
    return left > 60000 ? 60000 : (int)left;
}

/* ---- running ------------------------------------------------------------------ */

static void drain_wake(struct pna_loop *l)
{
    uint64_t v;
    if (read(l->wakefd, &v, sizeof v) < 0) {
        /* EAGAIN: drained already */
    }
}

/* One turn's callbacks: the ready descriptors, then the due timers. */
static void dispatch(struct pna_loop *l, const struct epoll_event *evs, int n)
{
    pthread_mutex_lock(&l->run_lock);
    l->dispatching = true;
    for (int i = 0; i < n; i++) {
        if (evs[i].data.u64 == WAKE_TAG)
            drain_wake(l);
        else
            dispatch_fd(l, &evs[i]);
    }
    run_timers(l, pna_mono_ms());
    l->dispatching = false;
    pthread_mutex_unlock(&l->run_lock);
}

int pna_loop_run(struct pna_loop *l)
{
    pthread_mutex_lock(&l->lock);
    l->running = true;
    l->runner = pthread_self();
    pthread_mutex_unlock(&l->lock);
    int rc = 0;
    for (;;) {
        pthread_mutex_lock(&l->lock);
        bool stop = l->stop;
        int timeout = wait_ms(l);
        pthread_mutex_unlock(&l->lock);
        if (stop)
            break;
        struct epoll_event evs[BATCH];
        int n = epoll_wait(l->epfd, evs, BATCH, timeout);
        if (n < 0 && errno != EINTR) {
            rc = -1;
            break;
        }
        dispatch(l, evs, n < 0 ? 0 : n);
    }
    int e = errno;
    pthread_mutex_lock(&l->lock);
    l->running = false;
    l->stop = false;   /* the request is answered: the loop may run again */
    pthread_mutex_unlock(&l->lock);
    errno = e;
    return rc;
}

void pna_loop_stop(struct pna_loop *l)
{
    pthread_mutex_lock(&l->lock);
    l->stop = true;
    pthread_mutex_unlock(&l->lock);
    pna_loop_wake(l);
}

void pna_loop_call(struct pna_loop *l, pna_loop_call_fn fn, void *arg)
{
    if (in_callback(l)) {
        fn(arg);
        return;
    }
    pthread_mutex_lock(&l->run_lock);
    fn(arg);
    pthread_mutex_unlock(&l->run_lock);
}

static void *loop_main(void *arg)
{
    struct pna_loop *l = arg;
    if (pna_loop_run(l) != 0)
        pna_log(LOG_ERR, "event loop: epoll failed (%s); the watchers' changes are seen by "
                "the polls only", strerror(errno));
    return NULL;
}

int pna_loop_start(struct pna_loop *l, char *err, size_t errlen)
{
    int e = pthread_create(&l->thread, NULL, loop_main, l);
    if (e != 0) {
        snprintf(err, errlen, "cannot start the event loop's thread: %s", strerror(e));
        return -1;
    }
    l->thread_started = true;
    return 0;
}

void pna_loop_free(struct pna_loop *l)
{
    if (!l)
        return;
    if (l->thread_started) {
        pna_loop_stop(l);
        pthread_join(l->thread, NULL);
    }
    close(l->epfd);
    close(l->wakefd);
    pthread_mutex_destroy(&l->lock);
    pthread_mutex_destroy(&l->run_lock);
    free(l->slots);
    free(l->free_slots);
    free(l->timers);
    free(l->due);
    free(l);
}

/* ---- the agent's loop ------------------------------------------------------ */

static pthread_mutex_t shared_lock = PTHREAD_MUTEX_INITIALIZER;
static struct pna_loop *shared;
static unsigned shared_users;

struct pna_loop *pna_loop_shared_acquire(char *err, size_t errlen)
{
    pthread_mutex_lock(&shared_lock);
    if (!shared) {
        shared = pna_loop_new(err, errlen);
        if (shared && pna_loop_start(shared, err, errlen) != 0) {
            pna_loop_free(shared);
            shared = NULL;
        }
    }
    if (shared)
        shared_users++;
    struct pna_loop *l = shared;
    pthread_mutex_unlock(&shared_lock);
    return l;
}

void pna_loop_shared_release(struct pna_loop *l)
{
    if (!l)
        return;
    pthread_mutex_lock(&shared_lock);
    struct pna_loop *done = NULL;
    if (l == shared && --shared_users == 0) {
        done = shared;
        shared = NULL;
    }
    pthread_mutex_unlock(&shared_lock);
    pna_loop_free(done);
}
