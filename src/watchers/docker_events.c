/* watchers/docker_events.c -- dockerd's GET /events stream (container events
 * only) read on the event loop through transport/http_client's line stream:
 * each parsed event goes to the callback, and the stream is opened again
 * with back-off when it ends or fails (see docker_events.h).
 *
 * Thread ownership: everything but the two counters is the loop thread's
 * (the callbacks below); pna_docker_events_stop() takes it over inside
 * pna_loop_call(), with no callback running. */
#include "pna_autoconf.h"
#include "watchers/docker_events.h"
#include "core/event_loop.h"
#include "sources/containers/docker.h"
#include "transport/http_client.h"
#include "util/array.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Only container events; the daemon filters so network chatter never arrives. */
#define EVENTS_PATH "/events?filters=%7B%22type%22%3A%5B%22container%22%5D%7D"

/* A socket of the stream the loop watches. */
struct watched {
    int fd;
    uint64_t reg;
};

struct pna_docker_events {
    struct pna_loop *loop;
    char *socket_path;
    unsigned timeout_ms, retry_ms, backoff_ms;
    pna_docker_event_fn fn;
    pna_docker_connect_fn on_connect;
    void *arg;
    struct pna_hstream *stream;   /* NULL between two attempts */
    unsigned connects_before;     /* CONNECTS when the stream was opened */
    uint64_t stream_timer;        /* the stream's timer on the loop, 0 none */
    uint64_t retry_timer;         /* the next attempt, 0 none */
    struct watched *socks;
    size_t nsocks, cap_socks;
    atomic_uint connects, failures;
};

static int on_event_line(void *arg, const char *line, size_t len)
{
    struct pna_docker_events *e = arg;
    struct pna_docker_event ev;
    if (pna_docker_parse_event(line, len, &ev) == 0 && strcmp(ev.type, "container") == 0)
        e->fn(e->arg, &ev);
    return 0;
}

static void on_open(void *arg)
{
    struct pna_docker_events *e = arg;
    atomic_fetch_add(&e->connects, 1);
    if (e->on_connect)
        e->on_connect(e->arg);
}

/* ---- the stream's sockets and timer on the loop --------------------------------- */

static void end_stream(struct pna_docker_events *e, int rc);

static void on_socket_ready(void *arg, int fd, unsigned ready)
{
    struct pna_docker_events *e = arg;
    char err[256];
    unsigned what = (ready & PNA_LOOP_READ ? PNA_HSTREAM_IN : 0) |
                    (ready & PNA_LOOP_WRITE ? PNA_HSTREAM_OUT : 0) |
                    (ready & PNA_LOOP_ERROR ? PNA_HSTREAM_ERR : 0);
    int rc = e->stream ? pna_hstream_ready(e->stream, fd, what, err, sizeof err) : 1;
    if (rc != 1)
        end_stream(e, rc);
}

static int64_t on_stream_timer(void *arg)
{
    struct pna_docker_events *e = arg;
    char err[256];
    e->stream_timer = 0;   /* this one is done; the stream may ask for another */
    int rc = e->stream ? pna_hstream_timeout(e->stream, err, sizeof err) : 1;
    if (rc != 1)
        end_stream(e, rc);
    return PNA_LOOP_TIMER_DONE;
}

static unsigned loop_interest(unsigned what)
{
    return (what & PNA_HSTREAM_IN ? PNA_LOOP_READ : 0) |
           (what & PNA_HSTREAM_OUT ? PNA_LOOP_WRITE : 0);
}

/* struct pna_hstream_io: watch FD for WHAT (0: no longer). */
static void watch_socket(void *ctx, int fd, unsigned what)
{
    struct pna_docker_events *e = ctx;
    size_t i = 0;
    while (i < e->nsocks && e->socks[i].fd != fd)
        i++;
    if (i < e->nsocks && !what) {
        pna_loop_remove_fd(e->loop, e->socks[i].reg);
        e->socks[i] = e->socks[--e->nsocks];
    } else if (i < e->nsocks) {
        pna_loop_set_fd(e->loop, e->socks[i].reg, loop_interest(what));
    } else if (what && PNA_ARRAY_RESERVE(e->socks, e->cap_socks, e->nsocks + 1) == 0) {
        uint64_t reg = pna_loop_add_fd(e->loop, fd, loop_interest(what), on_socket_ready, e);
        if (reg)
            e->socks[e->nsocks++] = (struct watched){ fd, reg };
    }
    /* A socket that cannot be watched (out of memory): the stream's header
     * deadline or libcurl's own timeouts end the attempt. */
}

/* struct pna_hstream_io: the stream's one timer. */
static void set_stream_timer(void *ctx, long ms)
{
    struct pna_docker_events *e = ctx;
    pna_loop_cancel_timer(e->loop, e->stream_timer);
    e->stream_timer = ms < 0 ? 0 : pna_loop_add_timer(e->loop, ms, on_stream_timer, e);
}

/* ---- attempts ---------------------------------------------------------------------- */

static int64_t on_retry_due(void *arg);

/* The stream ended (RC 0) or failed (-1): closed, and the next attempt
 * planned.  A stream that was up resets the back-off; repeated failures
 * double it, up to 8 times RETRY_MS. */
static void end_stream(struct pna_docker_events *e, int rc)
{
    pna_hstream_close(e->stream);
    e->stream = NULL;
    pna_loop_cancel_timer(e->loop, e->stream_timer);
    e->stream_timer = 0;
    if (rc < 0)
        atomic_fetch_add(&e->failures, 1);
    if (atomic_load(&e->connects) != e->connects_before)
        e->backoff_ms = e->retry_ms;
    else if (e->backoff_ms < e->retry_ms * 8)
        e->backoff_ms *= 2;
    e->retry_timer = pna_loop_add_timer(e->loop, e->backoff_ms, on_retry_due, e);
}

static int64_t on_retry_due(void *arg)
{
    struct pna_docker_events *e = arg;
    e->retry_timer = 0;
    struct pna_hclient_target t = {
        .unix_socket = e->socket_path, .base_url = "http://localhost",
        .timeout_ms = e->timeout_ms, .connect_timeout_ms = e->timeout_ms,
    };
    struct pna_hstream_io io = { .watch = watch_socket, .timer = set_stream_timer, .ctx = e };
    char err[160];
    e->connects_before = atomic_load(&e->connects);
    e->stream = pna_hstream_open(&t, EVENTS_PATH, PNA_DOCKER_EVENT_LINE_MAX, on_event_line,
                                 on_open, e, &io, err, sizeof err);
    if (!e->stream)
        end_stream(e, -1);
    return PNA_LOOP_TIMER_DONE;
}

struct pna_docker_events *pna_docker_events_start(struct pna_loop *loop, const char *socket_path,
                                                  unsigned timeout_ms, unsigned retry_ms,
                                                  pna_docker_event_fn fn,
                                                  pna_docker_connect_fn on_connect, void *arg)
{
    struct pna_docker_events *e = calloc(1, sizeof *e);
    if (!e)
        return NULL;
    e->loop = loop;
    e->socket_path = strdup(socket_path);
    e->timeout_ms = timeout_ms;
    e->retry_ms = e->backoff_ms = retry_ms ? retry_ms : 500;
    e->fn = fn;
    e->on_connect = on_connect;
    e->arg = arg;
    if (!e->socket_path || !(e->retry_timer = pna_loop_add_timer(loop, 0, on_retry_due, e))) {
        free(e->socket_path);
        free(e);
        return NULL;
    }
    return e;
}

/* With no callback running: the stream closed, the timers cancelled. */
static void leave_loop(void *arg)
{
    struct pna_docker_events *e = arg;
    pna_loop_cancel_timer(e->loop, e->retry_timer);
    pna_hstream_close(e->stream);
    e->stream = NULL;
    pna_loop_cancel_timer(e->loop, e->stream_timer);
    for (size_t i = 0; i < e->nsocks; i++)
        pna_loop_remove_fd(e->loop, e->socks[i].reg);
    e->nsocks = 0;
}

void pna_docker_events_stop(struct pna_docker_events *e)
{
    if (!e)
        return;
    pna_loop_call(e->loop, leave_loop, e);
    free(e->socks);
    free(e->socket_path);
    free(e);
}

uint32_t pna_docker_events_connects(const struct pna_docker_events *e)
{
    return atomic_load(&e->connects);
}

uint32_t pna_docker_events_failures(const struct pna_docker_events *e)
{
    return atomic_load(&e->failures);
}
