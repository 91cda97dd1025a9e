/* watchers/docker_events.c -- the thread that follows dockerd's GET /events
 * stream (container events only) through transport/http_client, hands each
 * parsed event to its callback, and reconnects with back-off when the stream
 * ends or fails (see docker_events.h). */
#include "pna_autoconf.h"
#include "watchers/docker_events.h"
#include "sources/containers/docker.h"
#include "transport/http_client.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Only container events; the daemon filters so network chatter never arrives. */
#define EVENTS_PATH "/events?filters=%7B%22type%22%3A%5B%22container%22%5D%7D"

struct pna_docker_events {
    char *socket_path;
    unsigned timeout_ms, retry_ms;
    pna_docker_event_fn fn;
    pna_docker_connect_fn on_connect;
    void *arg;
    pthread_t thread;
    atomic_bool stop;
    pthread_mutex_t lock;
    pthread_cond_t cond;
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

/* Sleep MS unless stopped first. */
static void pause_ms(struct pna_docker_events *e, unsigned ms)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += ms / 1000;
    ts.tv_nsec += (long)(ms % 1000) * 1000000;
    if (ts.tv_nsec >= 1000000000) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000;
    }
    pthread_mutex_lock(&e->lock);
    while (!atomic_load(&e->stop))
        if (pthread_cond_timedwait(&e->cond, &e->lock, &ts) != 0)
            break;
    pthread_mutex_unlock(&e->lock);
}

static void *events_main(void *arg)
{
    struct pna_docker_events *e = arg;
    struct pna_hclient *http = pna_hclient_new();
    struct pna_hclient_target t = {
        .unix_socket = e->socket_path, .base_url = "http://localhost",
        .timeout_ms = e->timeout_ms, .connect_timeout_ms = e->timeout_ms,
    };
    unsigned backoff = e->retry_ms;
    while (http && !atomic_load(&e->stop)) {
        char err[160];
        unsigned before = atomic_load(&e->connects);
        int rc = pna_hclient_stream_lines(http, &t, EVENTS_PATH, PNA_DOCKER_EVENT_LINE_MAX,
                                          on_event_line, on_open, e, &e->stop, err, sizeof err);
        if (atomic_load(&e->stop))
            break;
        if (rc < 0)
            atomic_fetch_add(&e->failures, 1);
        /* A stream that was up resets the back-off; repeated failures double it. */
        if (atomic_load(&e->connects) != before)
            backoff = e->retry_ms;
        else if (backoff < e->retry_ms * 8)
            backoff *= 2;
        pause_ms(e, backoff);
    }
    pna_hclient_free(http);
    return NULL;
}

struct pna_docker_events *pna_docker_events_start(const char *socket_path, unsigned timeout_ms,
                                                  unsigned retry_ms, pna_docker_event_fn fn,
                                                  pna_docker_connect_fn on_connect, void *arg)
{
    struct pna_docker_events *e = calloc(1, sizeof *e);
    if (!e)
        return NULL;
    e->socket_path = strdup(socket_path);
    e->timeout_ms = timeout_ms;
    e->retry_ms = retry_ms ? retry_ms : 500;
    e->fn = fn;
    e->on_connect = on_connect;
    e->arg = arg;
    pthread_mutex_init(&e->lock, NULL);
    pthread_cond_init(&e->cond, NULL);
    if (!e->socket_path || pthread_create(&e->thread, NULL, events_main, e) != 0) {
        free(e->socket_path);
        pthread_mutex_destroy(&e->lock);
        pthread_cond_destroy(&e->cond);
        free(e);
        return NULL;
    }
    return e;
}

void pna_docker_events_stop(struct pna_docker_events *e)
{
    if (!e)
        return;
    pthread_mutex_lock(&e->lock);
    atomic_store(&e->stop, true);
    pthread_cond_broadcast(&e->cond);
    pthread_mutex_unlock(&e->lock);
    pthread_join(e->thread, NULL);
    free(e->socket_path);
    pthread_mutex_destroy(&e->lock);
    pthread_cond_destroy(&e->cond);
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
