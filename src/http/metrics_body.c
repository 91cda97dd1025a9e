/* http/metrics_body.c -- the shared part of /metrics, one body per set of
 * cache generations (see metrics_body.h). */
#include "pna_autoconf.h"
#include "http/metrics_body.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"

struct pna_metrics_body {
    unsigned refs;                    /* under the lock */
    uint64_t serial;
    uint64_t gen[PNA_DOM_COUNT];      /* the key: each domain's generation, 0 = none */
    char *data;
    size_t len;
    struct pna_prom_stats stats;      /* its families' series counts (export control) */
    struct pna_metrics_body *older;   /* the list of live bodies, newest first */
};

static struct {
    pthread_mutex_t lock;
    struct pna_metrics_body *newest;  /* head of the live list */
    struct pna_metrics_body *current; /* holds one reference; NULL before the first */
    size_t alive;
    uint64_t serials;
    size_t last_len;                  /* the length of the last body rendered */
} bodies = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void key_of(const struct pna_http_view *v, uint64_t gen[PNA_DOM_COUNT])
{
    for (int d = 0; d < PNA_DOM_COUNT; d++)
        gen[d] = v->base.snap[d] ? v->base.snap[d]->generation : 0;
}

/* Under the lock. */
static void unref(struct pna_metrics_body *b)
{
    if (!b || --b->refs > 0)
        return;
    for (struct pna_metrics_body **p = &bodies.newest; *p; p = &(*p)->older)
        if (*p == b) {
            *p = b->older;
            break;
        }
    bodies.alive--;
    pna_prom_stats_free(&b->stats);
    free(b->data);
    free(b);
}

static struct pna_metrics_body *render(const struct pna_http_view *v, const uint64_t *gen)
{
    struct pna_metrics_body *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    struct pna_buf out;
    pna_buf_init(&out);
    /* The next body is about as long as the last one: one allocation with an
     * eighth to spare, instead of a chain of doublings whose last step holds
     * the old and the new buffer at once (a body of 7.5 MB peaked at 12). */
    if (bodies.last_len)
        pna_buf_reserve(&out, bodies.last_len + bodies.last_len / 8);
    size_t errors = pna_metrics_render_domains_counted(&out, v, &b->stats);
    if (out.failed) {
        pna_buf_free(&out);
        pna_prom_stats_free(&b->stats);
        free(b);
        return NULL;
    }
    pna_metrics_series_count_drops(&b->stats);
    if (errors)
        pna_log(LOG_WARNING, "http: /metrics rendered with %zu dropped samples", errors);
    b->data = pna_buf_steal(&out, &b->len);
    bodies.last_len = b->len;
    memcpy(b->gen, gen, sizeof b->gen);
    b->serial = ++bodies.serials;
    return b;
}

/* Under the lock: B becomes the current body, first of the live list; the
 * serial of the oldest body when there is now one too many, else 0. */
static uint64_t install(struct pna_metrics_body *b)
{
    b->refs = 1;                      /* the current body's reference */
    b->older = bodies.newest;
    bodies.newest = b;
    bodies.alive++;
    unref(bodies.current);
    bodies.current = b;
    if (bodies.alive <= PNA_METRICS_BODIES_MAX)
        return 0;
    struct pna_metrics_body *oldest = b;
    while (oldest->older)
        oldest = oldest->older;
    return oldest->serial;
}

struct pna_metrics_body *pna_metrics_body_get(const struct pna_http_view *v, uint64_t *cut)
{
    uint64_t gen[PNA_DOM_COUNT];
    key_of(v, gen);
    *cut = 0;
    pthread_mutex_lock(&bodies.lock);
    struct pna_metrics_body *b = bodies.current;
    if (!b || memcmp(b->gen, gen, sizeof gen) != 0) {
        b = render(v, gen);
        if (b)
            *cut = install(b);
    }
    if (b)
        b->refs++;
    pthread_mutex_unlock(&bodies.lock);
    return b;
}

void pna_metrics_body_release(struct pna_metrics_body *b)
{
    if (!b)
        return;
    pthread_mutex_lock(&bodies.lock);
    unref(b);
    /* Nobody reads the current body any more: it is not kept for a reader
     * that may come later, since by then a poller has most likely published
     * (every 5 s by default) and the body no longer fits; a large node's
     * body is megabytes held for nothing.  Its length stays in last_len,
     * to size the next one's buffer. */
    if (bodies.current && bodies.current->refs == 1) {
        struct pna_metrics_body *idle = bodies.current;
        bodies.current = NULL;
        unref(idle);
    }
    pthread_mutex_unlock(&bodies.lock);
}

const char *pna_metrics_body_data(const struct pna_metrics_body *b, size_t *len)
{
    *len = b->len;
    return b->data ? b->data : "";
}

const struct pna_prom_stats *pna_metrics_body_stats(const struct pna_metrics_body *b)
{
    return &b->stats;
}

uint64_t pna_metrics_body_serial(const struct pna_metrics_body *b)
{
    return b->serial;
}

size_t pna_metrics_bodies_alive(void)
{
    pthread_mutex_lock(&bodies.lock);
    size_t n = bodies.alive;
    pthread_mutex_unlock(&bodies.lock);
    return n;
}

void pna_metrics_body_reset(void)
{
    pthread_mutex_lock(&bodies.lock);
    struct pna_metrics_body *b = bodies.current;
    bodies.current = NULL;
    unref(b);
    pthread_mutex_unlock(&bodies.lock);
}
