/* test_event_loop.c -- the watchers' event loop (core/event_loop.c):
 * descriptors (read and write interest, level-triggered, interest changed),
 * timers in deadline order (equal deadlines in the order added, re-armed,
 * cancelled, one that re-arms at once does not starve the descriptors), a
 * wake-up from another thread (a timer added there, a stop asked there),
 * registrations removed inside a callback (another one ready in the same
 * turn, and its descriptor number reused at once), pna_loop_call() kept
 * apart from the callbacks, a loop on its own thread, the shared loop's
 * references.  A loop that would hang is ended by alarm(): a failure, not a
 * stuck test. */
#include "pna_autoconf.h"
#include "core/event_loop.h"
#include "unit.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

static void sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

static struct pna_loop *new_loop(void)
{
    char err[160];
    struct pna_loop *l = pna_loop_new(err, sizeof err);
    if (!l) {
        fprintf(stderr, "pna_loop_new: %s\n", err);
        exit(99);
    }
    return l;
}

static void make_pipe(int p[2])
{
    if (pipe2(p, O_NONBLOCK | O_CLOEXEC) != 0) {
        perror("pipe2");
        exit(99);
    }
}

static int64_t stop_loop(void *arg)
{
    pna_loop_stop(arg);
    return PNA_LOOP_TIMER_DONE;
}

/* ---- descriptors ------------------------------------------------------------- */

struct reader {
    struct pna_loop *loop;
    int calls;
    unsigned last_ready;
    char got[16];
    size_t len;
    bool drain;        /* read what is there (else leave it: level-triggered) */
};

static void on_read(void *arg, int fd, unsigned ready)
{
    struct reader *r = arg;
    r->calls++;
    r->last_ready = ready;
    if (r->drain) {
        ssize_t n = read(fd, r->got + r->len, sizeof r->got - 1 - r->len);
        if (n > 0)
            r->len += (size_t)n;
    }
    if (r->calls >= 3)
        pna_loop_stop(r->loop);
}

static void test_descriptors(void)
{
    struct pna_loop *l = new_loop();
    int p[2];
    make_pipe(p);
    /* Read interest: data drained at each call, the loop stopped at the
     * third; a timer writes between turns. */
    struct reader r = { .loop = l, .drain = true };
    uint64_t id = pna_loop_add_fd(l, p[0], PNA_LOOP_READ, on_read, &r);
    CHECK(id != 0);
    CHECK(write(p[1], "a", 1) == 1);
    pna_loop_add_timer(l, 0, stop_loop, l);
    CHECK_INT(pna_loop_run(l), 0);
    CHECK_INT(r.calls, 1);
    CHECK_INT(r.last_ready, PNA_LOOP_READ);
    CHECK(write(p[1], "bc", 2) == 2);
    pna_loop_add_timer(l, 0, stop_loop, l);
    CHECK_INT(pna_loop_run(l), 0);   /* the loop runs again after a stop */
    CHECK_INT(r.calls, 2);
    CHECK_STR(r.got, "abc");

    /* Level-triggered: data left unread calls again at every turn. */
    r.drain = false;
    CHECK(write(p[1], "d", 1) == 1);
    CHECK_INT(pna_loop_run(l), 0);   /* stops itself at the third call */
    CHECK_INT(r.calls, 3);

    /* Interest changed to nothing: the data waits, no call. */
    CHECK_INT(pna_loop_set_fd(l, id, 0), 0);
    pna_loop_add_timer(l, 20, stop_loop, l);
    CHECK_INT(pna_loop_run(l), 0);
    CHECK_INT(r.calls, 3);
    pna_loop_remove_fd(l, id);
    CHECK_INT(pna_loop_set_fd(l, id, PNA_LOOP_READ), -1);
    pna_loop_remove_fd(l, id);   /* twice: nothing */

    /* Write interest on the pipe's other end: ready at once; the reader
     * gone, an error with it. */
    struct reader w = { .loop = l };
    id = pna_loop_add_fd(l, p[1], PNA_LOOP_WRITE, on_read, &w);
    CHECK(id != 0);
    CHECK_INT(pna_loop_run(l), 0);
    CHECK_INT(w.calls, 3);
    CHECK_INT(w.last_ready, PNA_LOOP_WRITE);
    close(p[0]);
    w.calls = 2;
    CHECK_INT(pna_loop_run(l), 0);
    CHECK_INT(w.last_ready, PNA_LOOP_WRITE | PNA_LOOP_ERROR);
    pna_loop_remove_fd(l, id);
    close(p[1]);

    /* A descriptor epoll refuses (a regular file): 0, errno set. */
    int f = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
    errno = 0;
    CHECK(pna_loop_add_fd(l, f, PNA_LOOP_READ, on_read, &r) == 0);
    CHECK_INT(errno, EPERM);
    close(f);
    pna_loop_free(l);
}

/* ---- timers ----------------------------------------------------------------- */

struct order {
    struct pna_loop *loop;
    char seen[32];
    size_t n;
};

struct mark {
    struct order *o;
    char c;
    int again;         /* times to re-arm, at once */
    uint64_t cancel;   /* a timer to cancel when this one fires */
};

static int64_t on_mark(void *arg)
{
    struct mark *m = arg;
    if (m->o->n < sizeof m->o->seen - 1)
        m->o->seen[m->o->n++] = m->c;
    if (m->cancel)
        pna_loop_cancel_timer(m->o->loop, m->cancel);
    if (m->again > 0) {
        m->again--;
        return 0;
    }
    return PNA_LOOP_TIMER_DONE;
}

static void test_timers(void)
{
    struct pna_loop *l = new_loop();
    struct order o = { .loop = l };
    /* Deadline order, equal deadlines in the order added; a timer cancels a
     * later one; one cancelled before it was due never runs. */
    struct mark m[] = { { &o, 'e', 0, 0 }, { &o, 'b', 0, 0 }, { &o, 'c', 0, 0 },
                        { &o, 'a', 0, 0 }, { &o, 'd', 0, 0 }, { &o, 'x', 0, 0 },
                        { &o, 'y', 0, 0 } };
    pna_loop_add_timer(l, 90, on_mark, &m[0]);
    pna_loop_add_timer(l, 30, on_mark, &m[1]);
    pna_loop_add_timer(l, 30, on_mark, &m[2]);
    pna_loop_add_timer(l, 0, on_mark, &m[3]);
    uint64_t d = pna_loop_add_timer(l, 60, on_mark, &m[4]);
    uint64_t x = pna_loop_add_timer(l, 60, on_mark, &m[5]);
    uint64_t y = pna_loop_add_timer(l, 10, on_mark, &m[6]);
    CHECK(d && x && y && x != d);
    m[4].cancel = x;      /* d fires first (added first) and cancels x */
    pna_loop_cancel_timer(l, y);
    pna_loop_cancel_timer(l, y);   /* twice: nothing */
    pna_loop_add_timer(l, 120, stop_loop, l);
    CHECK_INT(pna_loop_run(l), 0);
    CHECK_STR(o.seen, "abcde");

    /* A timer re-armed at once runs once a turn, so descriptors ready
     * meanwhile are served between its runs. */
    o.n = 0;
    memset(o.seen, 0, sizeof o.seen);
    int p[2];
    make_pipe(p);
    struct reader r = { .loop = l, .drain = true };
    pna_loop_add_fd(l, p[0], PNA_LOOP_READ, on_read, &r);
    CHECK(write(p[1], "z", 1) == 1);
    struct mark rep = { &o, 'r', 4, 0 };
    pna_loop_add_timer(l, 0, on_mark, &rep);
    pna_loop_add_timer(l, 50, stop_loop, l);
    CHECK_INT(pna_loop_run(l), 0);
    CHECK_STR(o.seen, "rrrrr");
    CHECK_INT(r.calls, 1);
    CHECK_STR(r.got, "z");

    /* A timer that cancels itself is not re-armed, whatever it answers. */
    struct mark self = { &o, 's', 5, 0 };
    self.cancel = pna_loop_add_timer(l, 0, on_mark, &self);
    pna_loop_add_timer(l, 30, stop_loop, l);
    o.n = 0;
    memset(o.seen, 0, sizeof o.seen);
    CHECK_INT(pna_loop_run(l), 0);
    CHECK_STR(o.seen, "s");
    close(p[0]);
    close(p[1]);
    pna_loop_free(l);
}

/* ---- wake-ups from another thread ------------------------------------------- */

struct poke {
    struct pna_loop *loop;
    atomic_int fired;
    bool by_stop;      /* stop the loop from the thread (else through a timer) */
};

static int64_t count_fire(void *arg)
{
    struct poke *k = arg;
    atomic_fetch_add(&k->fired, 1);
    pna_loop_stop(k->loop);
    return PNA_LOOP_TIMER_DONE;
}

static void *poke_main(void *arg)
{
    struct poke *k = arg;
    sleep_ms(50);   /* the loop is waiting, with nothing to wait for */
    if (k->by_stop)
        pna_loop_stop(k->loop);
    else
        pna_loop_add_timer(k->loop, 0, count_fire, k);
    return NULL;
}

static void test_wake(void)
{
    struct pna_loop *l = new_loop();
    /* No descriptor, no timer: the loop waits for ever unless the other
     * thread's timer wakes it. */
    struct poke k = { .loop = l };
    pthread_t t;
    pthread_create(&t, NULL, poke_main, &k);
    CHECK_INT(pna_loop_run(l), 0);
    pthread_join(t, NULL);
    CHECK_INT(atomic_load(&k.fired), 1);

    /* A stop from the other thread. */
    k.by_stop = true;
    pthread_create(&t, NULL, poke_main, &k);
    CHECK_INT(pna_loop_run(l), 0);
    pthread_join(t, NULL);
    CHECK_INT(atomic_load(&k.fired), 1);

    /* A far timer cancelled from the other thread, then the loop woken:
     * it waits no more for that timer (the stop timer is what ends it). */
    uint64_t far = pna_loop_add_timer(l, 3600 * 1000, count_fire, &k);
    pna_loop_cancel_timer(l, far);
    pna_loop_wake(l);
    pna_loop_add_timer(l, 10, stop_loop, l);
    CHECK_INT(pna_loop_run(l), 0);
    CHECK_INT(atomic_load(&k.fired), 1);
    pna_loop_free(l);
}

/* ---- removal inside a callback ---------------------------------------------- */

struct pair {
    struct pna_loop *loop;
    int fds[2][2];         /* two pipes, both readable */
    uint64_t ids[2];
    int calls[2];
    int fresh[2];          /* a pipe made in the callback, on the other's number */
    uint64_t fresh_id;
    int fresh_calls;
};

static void on_fresh(void *arg, int fd, unsigned ready)
{
    (void)fd, (void)ready;
    struct pair *p = arg;
    p->fresh_calls++;
}

/* Whichever of the two runs first removes the other, closes its pipe and
 * registers a new, empty pipe (which the kernel gives the lowest numbers:
 * the ones just closed).  The other's event, fetched in the same turn, must
 * reach neither its old callback nor the new registration. */
static void on_one(void *arg, int fd, unsigned ready, int me)
{
    (void)ready;
    struct pair *p = arg;
    char c;
    if (read(fd, &c, 1) != 1)
        return;
    p->calls[me]++;
    int other = 1 - me;
    if (!p->ids[other])
        return;
    pna_loop_remove_fd(p->loop, p->ids[other]);
    p->ids[other] = 0;
    close(p->fds[other][0]);
    close(p->fds[other][1]);
    make_pipe(p->fresh);
    p->fresh_id = pna_loop_add_fd(p->loop, p->fresh[0], PNA_LOOP_READ, on_fresh, p);
    pna_loop_add_timer(p->loop, 20, stop_loop, p->loop);
}

static void on_first(void *arg, int fd, unsigned ready)
{
    on_one(arg, fd, ready, 0);
}

static void on_second(void *arg, int fd, unsigned ready)
{
    on_one(arg, fd, ready, 1);
}

/* A callback that removes itself is not called again. */
static void on_self(void *arg, int fd, unsigned ready)
{
    (void)fd, (void)ready;
    struct pair *p = arg;
    p->calls[0]++;
    pna_loop_remove_fd(p->loop, p->ids[0]);
    pna_loop_add_timer(p->loop, 20, stop_loop, p->loop);
}

static void test_remove_in_callback(void)
{
    struct pna_loop *l = new_loop();
    struct pair p = { .loop = l };
    make_pipe(p.fds[0]);
    make_pipe(p.fds[1]);
    CHECK(write(p.fds[0][1], "1", 1) == 1 && write(p.fds[1][1], "2", 1) == 1);
    p.ids[0] = pna_loop_add_fd(l, p.fds[0][0], PNA_LOOP_READ, on_first, &p);
    p.ids[1] = pna_loop_add_fd(l, p.fds[1][0], PNA_LOOP_READ, on_second, &p);
    CHECK_INT(pna_loop_run(l), 0);
    CHECK_INT(p.calls[0] + p.calls[1], 1);
    CHECK_INT(p.fresh_calls, 0);
    int kept = p.calls[0] ? 0 : 1;
    /* The new registration works: data on it calls it. */
    CHECK(write(p.fresh[1], "3", 1) == 1);
    pna_loop_add_timer(l, 20, stop_loop, l);
    CHECK_INT(pna_loop_run(l), 0);
    CHECK(p.fresh_calls >= 1);
    pna_loop_remove_fd(l, p.fresh_id);
    pna_loop_remove_fd(l, p.ids[kept]);
    for (int i = 0; i < 2; i++)
        close(p.fresh[i]), close(p.fds[kept][i]);

    /* Removing itself. */
    struct pair q = { .loop = l };
    make_pipe(q.fds[0]);
    CHECK(write(q.fds[0][1], "xyz", 3) == 3);   /* stays readable */
    q.ids[0] = pna_loop_add_fd(l, q.fds[0][0], PNA_LOOP_READ, on_self, &q);
    CHECK_INT(pna_loop_run(l), 0);
    CHECK_INT(q.calls[0], 1);
    close(q.fds[0][0]);
    close(q.fds[0][1]);
    pna_loop_free(l);
}

/* ---- pna_loop_call() and a loop on its own thread ----------------------------- */

struct busy {
    struct pna_loop *loop;
    atomic_bool inside;     /* a callback is running */
    atomic_int ticks;
    atomic_bool overlapped; /* pna_loop_call()'s function saw a callback running */
    int calls;
};

static int64_t busy_tick(void *arg)
{
    struct busy *b = arg;
    atomic_store(&b->inside, true);
    sleep_ms(2);
    atomic_fetch_add(&b->ticks, 1);
    atomic_store(&b->inside, false);
    return 0;
}

static void in_call(void *arg)
{
    struct busy *b = arg;
    if (atomic_load(&b->inside))
        atomic_store(&b->overlapped, true);
    b->calls++;
}

/* pna_loop_call() from a callback runs at once (it would deadlock if it
 * waited for the callbacks to end). */
static int64_t call_from_callback(void *arg)
{
    struct busy *b = arg;
    pna_loop_call(b->loop, in_call, b);
    return PNA_LOOP_TIMER_DONE;
}

static void test_own_thread(void)
{
    struct pna_loop *l = new_loop();
    struct busy b = { .loop = l };
    char err[160];
    pna_loop_add_timer(l, 0, busy_tick, &b);
    CHECK_INT(pna_loop_start(l, err, sizeof err), 0);
    for (int i = 0; i < 200 && atomic_load(&b.ticks) < 5; i++)
        sleep_ms(5);
    CHECK(atomic_load(&b.ticks) >= 5);
    for (int i = 0; i < 100; i++)
        pna_loop_call(l, in_call, &b);
    CHECK_INT(b.calls, 100);
    CHECK(!atomic_load(&b.overlapped));
    pna_loop_add_timer(l, 0, call_from_callback, &b);
    for (int i = 0; i < 200 && b.calls < 101; i++)
        sleep_ms(5);
    pna_loop_call(l, in_call, &b);   /* orders the read of calls after the callback's */
    CHECK_INT(b.calls, 102);
    pna_loop_free(l);   /* stops and joins the thread, the busy timer still armed */

    /* The shared loop: one for all its users, made anew after the last. */
    struct pna_loop *a = pna_loop_shared_acquire(err, sizeof err);
    struct pna_loop *c = pna_loop_shared_acquire(err, sizeof err);
    CHECK(a && a == c);
    struct busy s = { .loop = a };
    pna_loop_add_timer(a, 0, busy_tick, &s);
    for (int i = 0; i < 200 && atomic_load(&s.ticks) < 1; i++)
        sleep_ms(5);
    CHECK(atomic_load(&s.ticks) >= 1);
    pna_loop_shared_release(c);
    int before = atomic_load(&s.ticks);
    for (int i = 0; i < 200 && atomic_load(&s.ticks) == before; i++)
        sleep_ms(5);
    CHECK(atomic_load(&s.ticks) > before);   /* still running: one user left */
    pna_loop_shared_release(a);   /* the last: stopped and freed */
    struct pna_loop *again = pna_loop_shared_acquire(err, sizeof err);
    CHECK(again != NULL);
    pna_loop_shared_release(again);
}

int main(void)
{
    alarm(60);   /* a loop that never returns fails the test */
    test_descriptors();
    test_timers();
    test_wake();
    test_remove_in_callback();
    test_own_thread();
    UNIT_END();
}
