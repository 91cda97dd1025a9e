/* http/guard.c -- the bridge's connection guard: the table of open
 * connections, the room made for newcomers, the deadlines and the reaper
 * thread that applies them (see guard.h for the policy and why). */
#include "pna_autoconf.h"
#include "http/guard.h"

#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/cache.h"
#include "core/log.h"

#define HEADER_DEADLINE_MS 5000    /* a LAN client sends its request in milliseconds */
#define REQUEST_DEADLINE_MS 30000  /* Prometheus gives up a scrape after 10 s by default */
#define REAP_EVERY_MS 100
#define SUMMARY_EVERY_MS 60000

enum conn_phase {
    PHASE_FREE,        /* unused slot */
    PHASE_WAITING,     /* TLS handshake or request headers not complete */
    PHASE_ANSWERING,   /* the request reached the handler */
};

struct pna_http_conn {
    enum conn_phase phase;
    bool cut;                  /* shut down here; the library closes it soon */
    int fd;
    unsigned char addr[16];    /* IPv6, or IPv4 mapped (::ffff:a.b.c.d) */
    int64_t since_ms;          /* when the current request began: accept, or the previous one's end */
    uint64_t tag;              /* what it is being sent (0: nothing named) */
};

struct pna_http_guard {
    pthread_mutex_t lock;
    struct pna_http_guard_cfg cfg;
    struct pna_http_conn *conns;   /* cfg.capacity slots */
    struct pna_http_guard_counts counts;
    /* the reaper */
    pthread_t thread;
    pthread_cond_t wake;
    bool running, stop;
};

void pna_http_guard_defaults(struct pna_http_guard_cfg *cfg, unsigned max_connections)
{
    unsigned g = max_connections ? max_connections : 32;
    cfg->max_connections = g;
    cfg->per_address = g / 4 > 2 ? g / 4 : 2;
    /* Room above the limit for the connections cut but not yet closed by
     * the library (it closes them on its next round). */
    cfg->capacity = g + g / 4 + 8;
    cfg->header_deadline_ms = HEADER_DEADLINE_MS;
    cfg->request_deadline_ms = REQUEST_DEADLINE_MS;
}

/* ---- the table ------------------------------------------------------------------ */

/* The client "address" the per-address share counts, as 16 bytes: an IPv4
 * address (mapped: ::ffff:a.b.c.d, as a dual-stack socket shows it), an IPv6
 * /64 prefix (one host commonly has a whole /64 to pick addresses from),
 * anything else zero. */
static void addr_key(const struct sockaddr *sa, unsigned char out[16])
{
    static const unsigned char v4mapped[12] = { [10] = 0xff, [11] = 0xff };
    memset(out, 0, 16);
    if (sa && sa->sa_family == AF_INET6) {
        memcpy(out, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
        if (memcmp(out, v4mapped, sizeof v4mapped) != 0)
            memset(out + 8, 0, 8);
    } else if (sa && sa->sa_family == AF_INET) {
        out[10] = out[11] = 0xff;
        memcpy(out + 12, &((const struct sockaddr_in *)sa)->sin_addr, 4);
    }
}

static bool live(const struct pna_http_conn *c)
{
    return c->phase != PHASE_FREE && !c->cut;
}

static size_t count_live(const struct pna_http_guard *g, const unsigned char *addr)
{
    size_t n = 0;
    for (size_t i = 0; i < g->cfg.capacity; i++) {
        const struct pna_http_conn *c = &g->conns[i];
        if (live(c) && (!addr || memcmp(c->addr, addr, 16) == 0))
            n++;
    }
    return n;
}

static void cut(struct pna_http_conn *c, uint64_t *counter)
{
    shutdown(c->fd, SHUT_RDWR);
    c->cut = true;
    (*counter)++;
}

/* Which of A and B to give up first: one still waiting for its request
 * before one being answered; within a phase, the one whose request began
 * first. */
static bool cut_before(const struct pna_http_conn *a, const struct pna_http_conn *b)
{
    if (a->phase != b->phase)
        return a->phase == PHASE_WAITING;
    return a->since_ms < b->since_ms;
}

/* The live connection (of ADDR only, when given) to give up for a newcomer. */
static struct pna_http_conn *victim(struct pna_http_guard *g, const unsigned char *addr)
{
    struct pna_http_conn *best = NULL;
    for (size_t i = 0; i < g->cfg.capacity; i++) {
        struct pna_http_conn *c = &g->conns[i];
        if (!live(c) || (addr && memcmp(c->addr, addr, 16) != 0))
            continue;
        if (!best || cut_before(c, best))
            best = c;
    }
    return best;
}

static struct pna_http_conn *free_slot(struct pna_http_guard *g)
{
    for (size_t i = 0; i < g->cfg.capacity; i++)
        if (g->conns[i].phase == PHASE_FREE)
            return &g->conns[i];
    return NULL;
}

/* Make room for a newcomer from ADDR: its address's share first, then the
 * table's. */
static void make_room(struct pna_http_guard *g, const unsigned char *addr)
{
    struct pna_http_conn *v;
    if (count_live(g, addr) >= g->cfg.per_address && (v = victim(g, addr)))
        cut(v, &g->counts.evicted_address);
    if (count_live(g, NULL) >= g->cfg.max_connections && (v = victim(g, NULL)))
        cut(v, &g->counts.evicted_limit);
}

struct pna_http_conn *pna_http_guard_open(struct pna_http_guard *g, int fd,
                                          const struct sockaddr *sa, int64_t now_ms)
{
    unsigned char addr[16];
    addr_key(sa, addr);
    pthread_mutex_lock(&g->lock);
    make_room(g, addr);
    struct pna_http_conn *c = free_slot(g);
    if (c) {
        *c = (struct pna_http_conn){ .phase = PHASE_WAITING, .fd = fd, .since_ms = now_ms };
        memcpy(c->addr, addr, 16);
    } else {
        shutdown(fd, SHUT_RDWR);
        g->counts.refused++;
    }
    pthread_mutex_unlock(&g->lock);
    return c;
}

void pna_http_guard_answering(struct pna_http_guard *g, struct pna_http_conn *c, uint64_t tag)
{
    if (!c)
        return;
    pthread_mutex_lock(&g->lock);
    c->phase = PHASE_ANSWERING;
    if (tag)
        c->tag = tag;
    pthread_mutex_unlock(&g->lock);
}

void pna_http_guard_done(struct pna_http_guard *g, struct pna_http_conn *c, int64_t now_ms)
{
    if (!c)
        return;
    pthread_mutex_lock(&g->lock);
    c->phase = PHASE_WAITING;
    c->since_ms = now_ms;
    c->tag = 0;
    pthread_mutex_unlock(&g->lock);
}

void pna_http_guard_close(struct pna_http_guard *g, struct pna_http_conn *c)
{
    if (!c)
        return;
    pthread_mutex_lock(&g->lock);
    memset(c, 0, sizeof *c);   /* PHASE_FREE */
    pthread_mutex_unlock(&g->lock);
}

size_t pna_http_guard_cut_tag(struct pna_http_guard *g, uint64_t tag)
{
    size_t n = 0;
    pthread_mutex_lock(&g->lock);
    for (size_t i = 0; tag && i < g->cfg.capacity; i++) {
        struct pna_http_conn *c = &g->conns[i];
        if (live(c) && c->tag == tag) {
            cut(c, &g->counts.tagged);
            n++;
        }
    }
    pthread_mutex_unlock(&g->lock);
    return n;
}

/* The counter C's deadline belongs to when it is past it at NOW_MS, else NULL. */
static uint64_t *late(struct pna_http_guard *g, const struct pna_http_conn *c, int64_t now_ms)
{
    int64_t age = now_ms - c->since_ms;
    if (c->phase == PHASE_WAITING && age >= g->cfg.header_deadline_ms)
        return &g->counts.late_headers;
    if (c->phase == PHASE_ANSWERING && age >= g->cfg.request_deadline_ms)
        return &g->counts.late_requests;
    return NULL;
}

size_t pna_http_guard_reap(struct pna_http_guard *g, int64_t now_ms)
{
    size_t n = 0;
    pthread_mutex_lock(&g->lock);
    for (size_t i = 0; i < g->cfg.capacity; i++) {
        struct pna_http_conn *c = &g->conns[i];
        uint64_t *counter = live(c) ? late(g, c, now_ms) : NULL;
        if (counter) {
            cut(c, counter);
            n++;
        }
    }
    pthread_mutex_unlock(&g->lock);
    return n;
}

size_t pna_http_guard_live(struct pna_http_guard *g, const struct sockaddr *sa)
{
    unsigned char addr[16];
    addr_key(sa, addr);
    pthread_mutex_lock(&g->lock);
    size_t n = count_live(g, sa ? addr : NULL);
    pthread_mutex_unlock(&g->lock);
    return n;
}

void pna_http_guard_counts(struct pna_http_guard *g, struct pna_http_guard_counts *out)
{
    pthread_mutex_lock(&g->lock);
    *out = g->counts;
    pthread_mutex_unlock(&g->lock);
}

/* ---- life ------------------------------------------------------------------------- */

struct pna_http_guard *pna_http_guard_new(const struct pna_http_guard_cfg *cfg)
{
    struct pna_http_guard *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->cfg = *cfg;
    g->conns = calloc(cfg->capacity ? cfg->capacity : 1, sizeof *g->conns);
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&g->wake, &attr);
    pthread_condattr_destroy(&attr);
    pthread_mutex_init(&g->lock, NULL);
    if (!g->conns) {
        pna_http_guard_free(g);
        return NULL;
    }
    return g;
}

void pna_http_guard_free(struct pna_http_guard *g)
{
    if (!g)
        return;
    if (g->running) {
        pthread_mutex_lock(&g->lock);
        g->stop = true;
        pthread_cond_signal(&g->wake);
        pthread_mutex_unlock(&g->lock);
        pthread_join(g->thread, NULL);
    }
    pthread_cond_destroy(&g->wake);
    pthread_mutex_destroy(&g->lock);
    free(g->conns);
    free(g);
}

static uint64_t cut_total(const struct pna_http_guard_counts *k)
{
    return k->evicted_address + k->evicted_limit + k->refused + k->late_headers +
           k->late_requests + k->tagged;
}

/* One line a minute at most, and only when something was cut: an attack
 * must not flood the log with a line per connection. */
static void log_summary(struct pna_http_guard *g, struct pna_http_guard_counts *last)
{
    struct pna_http_guard_counts now;
    pna_http_guard_counts(g, &now);
    if (cut_total(&now) == cut_total(last))
        return;
    pna_log(LOG_WARNING,
            "http: connections cut in the last minute: %llu to make room (%llu of the "
            "same address), %llu late headers or TLS handshake, %llu late requests, "
            "%llu slow /metrics readers",
            (unsigned long long)(now.evicted_address + now.evicted_limit + now.refused -
                                 last->evicted_address - last->evicted_limit - last->refused),
            (unsigned long long)(now.evicted_address - last->evicted_address),
            (unsigned long long)(now.late_headers - last->late_headers),
            (unsigned long long)(now.late_requests - last->late_requests),
            (unsigned long long)(now.tagged - last->tagged));
    *last = now;
}

/* Wait REAP_EVERY_MS or until told to stop; true when told. */
static bool nap(struct pna_http_guard *g)
{
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_nsec += REAP_EVERY_MS * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&g->lock);
    int rc = 0;
    while (!g->stop && rc != ETIMEDOUT)
        rc = pthread_cond_timedwait(&g->wake, &g->lock, &until);
    bool stop = g->stop;
    pthread_mutex_unlock(&g->lock);
    return stop;
}

static void *reaper(void *arg)
{
    struct pna_http_guard *g = arg;
    struct pna_http_guard_counts last = { 0 };
    int64_t next_summary = pna_mono_ms() + SUMMARY_EVERY_MS;
    while (!nap(g)) {
        int64_t now = pna_mono_ms();
        pna_http_guard_reap(g, now);
        if (now >= next_summary) {
            log_summary(g, &last);
            next_summary = now + SUMMARY_EVERY_MS;
        }
    }
    return NULL;
}

int pna_http_guard_run(struct pna_http_guard *g)
{
    if (g->running)
        return 0;
    if (pthread_create(&g->thread, NULL, reaper, g) != 0)
        return -1;
    g->running = true;
    return 0;
}
