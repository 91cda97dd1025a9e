/* watchers/docker_events.h -- dockerd's GET /events stream followed on an
 * event loop (core/event_loop.h), reconnecting when dockerd restarts.  Each
 * container event (sources/containers/docker.h) goes to the caller's
 * function, on the loop's thread. */
#ifndef PNA_WATCHERS_DOCKER_EVENTS_H
#define PNA_WATCHERS_DOCKER_EVENTS_H

#include <stdint.h>

struct pna_docker_event;
struct pna_loop;

/* Lines of the stream longer than this are dropped. */
#define PNA_DOCKER_EVENT_LINE_MAX 65536

typedef void (*pna_docker_event_fn)(void *arg, const struct pna_docker_event *ev);
/* The stream is open (again): events from before it are not coming. */
typedef void (*pna_docker_connect_fn)(void *arg);
struct pna_docker_events;

/* Follow GET /events (container events only) on LOOP; reconnect after
 * RETRY_MS (doubling up to 8x) whenever the stream ends or fails; a daemon
 * that sends no headers within TIMEOUT_MS is a failure.  ON_CONNECT (may be
 * NULL) is called each time the stream opens, before its first event, so the
 * caller can rescan what it missed while it was down. */
struct pna_docker_events *pna_docker_events_start(struct pna_loop *loop, const char *socket_path,
                                                  unsigned timeout_ms, unsigned retry_ms,
                                                  pna_docker_event_fn fn,
                                                  pna_docker_connect_fn on_connect, void *arg);
/* Off the loop at once (an open stream is closed, not waited for), freed.
 * NULL is allowed. */
void pna_docker_events_stop(struct pna_docker_events *e);
/* Successful connections so far, and failed attempts. */
uint32_t pna_docker_events_connects(const struct pna_docker_events *e);
uint32_t pna_docker_events_failures(const struct pna_docker_events *e);

#endif
