/* core/event_loop.h -- one event loop for the watchers: descriptors and
 * timers, dispatched one callback at a time on one thread.
 *
 * A loop is an epoll set, an eventfd that wakes it, and its timers kept in
 * deadline order.  Each turn it waits for the first of: a descriptor ready
 * for what it was registered for, the next timer's deadline, a wake-up; then
 * it calls the callbacks of the descriptors that are ready, then those of the
 * timers that are due (earliest deadline first; equal deadlines in the order
 * the timers were added).  A timer added while the due ones run, even with no
 * delay, waits for the next turn, so a timer that re-adds itself cannot keep
 * the loop from its descriptors.
 *
 * Callbacks must not block: they read what is ready (non-blocking
 * descriptors) and return.  A call that may hang (a driver's, say) has no
 * place on the loop: it would stop every watcher on it.
 *
 * Thread ownership:
 *   - The loop runs on one thread: its own, started by pna_loop_start(), or
 *     the caller's, in pna_loop_run().  Every callback runs there, never two
 *     at once.
 *   - pna_loop_add_fd(), _set_fd(), _remove_fd(), _add_timer(),
 *     _cancel_timer(), _wake() and _stop() may be called from any thread,
 *     callbacks included.  Each holds the loop's lock for a moment and wakes
 *     the loop when what it waits for changed; no callback is ever called
 *     with that lock held.
 *   - Once pna_loop_remove_fd() or pna_loop_cancel_timer() returns, the
 *     callback is not called again -- except that a callback already running
 *     on the loop thread when another thread removes it runs to its end.  So
 *     what a callback's argument points to is freed either on the loop
 *     thread or inside pna_loop_call(), which no callback runs beside.
 *   - pna_loop_call(FN) runs FN on the calling thread while no callback runs
 *     (none starts until FN returns); called from a callback it runs FN at
 *     once.  The caller must not hold a lock that a callback takes.
 *   - pna_loop_free() is called once the loop no longer runs, or on a loop
 *     that runs on its own thread (it stops and joins it), never from a
 *     callback.
 *
 * The agent has one loop that every watcher uses (pna_loop_shared_acquire()):
 * the OOM watch, the bundle directory watch, the link watch and the Docker
 * event stream share its thread. */
#ifndef PNA_CORE_EVENT_LOOP_H
#define PNA_CORE_EVENT_LOOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What a descriptor is registered for, and what it is ready for. */
#define PNA_LOOP_READ 1u
#define PNA_LOOP_WRITE 2u
/* Ready only: an error or hang-up on the descriptor (epoll reports those
 * whatever was asked; READ and/or WRITE come with it, as registered, so
 * that the callback's read or write sees the error). */
#define PNA_LOOP_ERROR 4u

/* A timer callback's answer: run again after this many ms, or this: done. */
#define PNA_LOOP_TIMER_DONE (-1)

typedef void (*pna_loop_fd_fn)(void *arg, int fd, unsigned ready);
typedef int64_t (*pna_loop_timer_fn)(void *arg);
typedef void (*pna_loop_call_fn)(void *arg);

struct pna_loop;

/* A loop that runs nowhere yet.  NULL with ERR when epoll or the eventfd
 * cannot be had. */
struct pna_loop *pna_loop_new(char *err, size_t errlen);

/* Call FN(ARG, FD, ready) whenever FD is ready for INTEREST (PNA_LOOP_READ,
 * PNA_LOOP_WRITE or both; level-triggered: again at every turn while it stays
 * ready).  FD stays the caller's: it is closed after its removal.  Returns the
 * registration's id (never 0), or 0 with errno set (epoll refused FD, out of
 * memory). */
uint64_t pna_loop_add_fd(struct pna_loop *l, int fd, unsigned interest, pna_loop_fd_fn fn,
                         void *arg);

/* What registration ID waits for from now on.  Returns 0, or -1 with errno
 * (ENOENT: no such registration). */
int pna_loop_set_fd(struct pna_loop *l, uint64_t id, unsigned interest);

/* Forget registration ID (0 or one already removed: nothing). */
void pna_loop_remove_fd(struct pna_loop *l, uint64_t id);

/* Call FN(ARG) once DELAY_MS (0 or more) have passed, on the loop thread.  FN
 * returns when to run again (ms from then) or PNA_LOOP_TIMER_DONE; a timer
 * cancelled while its callback runs is not run again, whatever it returns.
 * Returns the timer's id (never 0), or 0 when memory runs out. */
uint64_t pna_loop_add_timer(struct pna_loop *l, int64_t delay_ms, pna_loop_timer_fn fn,
                            void *arg);

/* Forget timer ID (0, or one done or cancelled: nothing). */
void pna_loop_cancel_timer(struct pna_loop *l, uint64_t id);

/* Make the loop leave its wait and look at its timers and its stop request
 * again (the functions above do it themselves when called from another
 * thread). */
void pna_loop_wake(struct pna_loop *l);

/* Ask the loop to stop: pna_loop_run() returns once the callbacks of the
 * current turn are done.  From any thread. */
void pna_loop_stop(struct pna_loop *l);

/* Run the loop on this thread until pna_loop_stop().  Returns 0 when
 * stopped, -1 with errno when epoll failed. */
int pna_loop_run(struct pna_loop *l);

/* Run the loop on a thread of its own.  Returns 0, or -1 with ERR. */
int pna_loop_start(struct pna_loop *l, char *err, size_t errlen);

/* Run FN(ARG) with no callback running beside it (see the top). */
void pna_loop_call(struct pna_loop *l, pna_loop_call_fn fn, void *arg);

/* Stop the loop's own thread (if it has one) and free the loop.  Its
 * registrations and timers are dropped, their descriptors left open. */
void pna_loop_free(struct pna_loop *l);

/* The agent's loop, running on its own thread from the first acquire to the
 * last release.  Returns NULL with ERR when it cannot be made. */
struct pna_loop *pna_loop_shared_acquire(char *err, size_t errlen);
void pna_loop_shared_release(struct pna_loop *l);

#endif
