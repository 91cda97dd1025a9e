/* core/poller.c -- scheduling, deadlines, error counting and poller state events,
 * written once for every collector (see poller.h).
 *
 * Each enabled poller gets one thread.  The thread owns the collector's state
 * and is the only one that calls into it.  The main thread reads the counters
 * (under the poller's mutex) for the poller table, and runs the watchdog that
 * notices a collect() stuck past its deadline: the thread itself cannot, since
 * it is the one that is stuck.  A stuck poll keeps the last good snapshot in
 * the cache; after `staleAfter` seconds without a success that snapshot is
 * dropped so nobody is shown data older than the operator allows. */
#include "pna_autoconf.h"
#include "core/poller.h"
#include "core/config.h"
#include "core/events.h"
#include "core/health.h"
#include "core/heap.h"
#include "core/log.h"
#include "util/fileio.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

struct poller {
    const struct pna_poller_ops *ops;
    const struct pna_config *cfg;
    const void *settings;       /* the poller's keys' values (cfg's), or NULL */
    void *state;
    pthread_t thread;
    bool thread_running;

    pthread_mutex_t lock;       /* guards everything below */
    pthread_cond_t wake;
    bool stop, kick, exited;
    struct pna_poller_info info;
    int64_t run_started_mono;   /* 0 while idle */
    bool overrun_counted;       /* the current run was already reported as overdue */
    bool stale_dropped;         /* its cache slot was emptied for age */
    bool awaiting_source;       /* init() said PNA_POLLER_ABSENT: keep trying it */
};

static struct poller pollers[PNA_MAX_POLLERS];
static size_t npollers;
static unsigned stale_after_s;

static void post_poller_event(struct poller *p, enum pna_event_type type)
{
    struct pna_event ev = { 0 };
    ev.type = type;
    ev.severity = type == PNA_EV_POLLER_FAILED ? PNA_SEV_ERROR : PNA_SEV_INFO;
    snprintf(ev.subject, sizeof ev.subject, "poller %s", p->info.name);
    if (type == PNA_EV_POLLER_FAILED)
        snprintf(ev.text, sizeof ev.text, "poller %s failing: %s", p->info.name,
                 p->info.last_error);
    else
        snprintf(ev.text, sizeof ev.text, "poller %s recovered after %u errors",
                 p->info.name, p->info.errors);
    ev.u.poller.index = p->info.index;
    pna_strlcpy(ev.u.poller.name, p->info.name, sizeof ev.u.poller.name);
    ev.u.poller.errors = p->info.errors;
    pna_strlcpy(ev.u.poller.last_error, p->info.last_error, sizeof ev.u.poller.last_error);
    pna_event_post(&ev);
}

static bool is_failing(const struct poller *p)
{
    return pna_poller_failing(&p->info);
}

/* Called with p->lock held. */
static void record_failure(struct poller *p, const char *err)
{
    bool was_failing = is_failing(p);
    if (!p->overrun_counted)
        p->info.errors++;
    p->info.consecutive_failures++;
    pna_strlcpy(p->info.last_error, err[0] ? err : "unknown error", sizeof p->info.last_error);
    p->info.status = PNA_POLLER_FAILING;
    if (!was_failing) {
        pna_log(LOG_ERR, "poller %s: %s", p->info.name, p->info.last_error);
        post_poller_event(p, PNA_EV_POLLER_FAILED);
    }
}

/* Called with p->lock held. */
static void record_success(struct poller *p, int64_t taken_ms)
{
    bool was_failing = is_failing(p);
    p->info.status = PNA_POLLER_OK;
    p->info.last_success_ms = pna_now_ms();
    p->info.data_taken_ms = taken_ms;
    p->info.consecutive_failures = 0;
    p->stale_dropped = false;
    if (was_failing) {
        pna_log(LOG_NOTICE, "poller %s: recovered", p->info.name);
        post_poller_event(p, PNA_EV_POLLER_RECOVERED);
    }
}

/* A poll that succeeded but left something out.  Called with p->lock held. */
static void record_partial(struct poller *p, const char *err)
{
    if (!p->overrun_counted)
        p->info.errors++;
    if (strcmp(p->info.last_error, err) != 0)
        pna_log(LOG_WARNING, "poller %s: %s", p->info.name, err);
    pna_strlcpy(p->info.last_error, err, sizeof p->info.last_error);
}

const struct pna_snap *pna_poller_input(const struct pna_poller_inputs *in,
                                        enum pna_domain domain)
{
    if (!in || domain < 0 || domain >= PNA_DOM_COUNT || !(in->declared & PNA_DOM_BIT(domain)))
        return NULL;
    return in->snap[domain];
}

/* Take a reference to the current snapshot of every domain OPS declares. */
static void acquire_inputs(const struct pna_poller_ops *ops, struct pna_poller_inputs *in)
{
    memset(in, 0, sizeof *in);
    in->declared = ops->inputs;
    for (int d = 0; d < PNA_DOM_COUNT; d++)
        if (ops->inputs & PNA_DOM_BIT(d))
            in->snap[d] = pna_cache_acquire((enum pna_domain)d);
}

static void release_inputs(struct pna_poller_inputs *in)
{
    for (int d = 0; d < PNA_DOM_COUNT; d++)
        pna_snap_release((struct pna_snap *)in->snap[d]);
    memset(in, 0, sizeof *in);
}

int pna_poller_collect(const struct pna_poller_ops *ops, void *state, struct pna_snap **out,
                       char *err, size_t errlen)
{
    struct pna_poller_inputs in;
    struct pna_snap *prev = pna_cache_acquire(ops->domain);
    acquire_inputs(ops, &in);
    int rc = ops->collect(state, prev, &in, out, err, errlen);
    release_inputs(&in);
    pna_snap_release(prev);
    return rc;
}

static void run_once(struct poller *p)
{
    char err[160] = "";
    struct pna_snap *out = NULL;
    int64_t start = pna_mono_ms();

    pthread_mutex_lock(&p->lock);
    p->run_started_mono = start;
    p->overrun_counted = false;
    pthread_mutex_unlock(&p->lock);

    int rc = pna_poller_collect(p->ops, p->state, &out, err, sizeof err);
    int64_t took = pna_mono_ms() - start;

    if (rc == 0 && out) {
        pna_cache_publish(p->ops->domain, out);
        pna_heap_release();   /* what the previous snapshot held is free now */
    } else if (rc == 0) {
        rc = -1;
        pna_strlcpy(err, "collector returned no snapshot", sizeof err);
    }

    pthread_mutex_lock(&p->lock);
    p->run_started_mono = 0;
    p->info.runs++;
    p->info.last_duration_ms = (uint32_t)took;
    if (rc == 0) {
        record_success(p, out->taken_ms);
        if (err[0])
            record_partial(p, err);
    } else {
        record_failure(p, err);
    }
    p->overrun_counted = false;
    pthread_mutex_unlock(&p->lock);
}

/* Sleep until DEADLINE_MONO (ms) unless asked to stop or poll now.
 * Called with p->lock held; returns with it held. */
static void wait_until(struct poller *p, int64_t deadline_mono)
{
    while (!p->stop && !p->kick) {
        int64_t now = pna_mono_ms();
        if (now >= deadline_mono)
            break;
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        int64_t wait_ms = deadline_mono - now;
        ts.tv_sec += wait_ms / 1000;
        ts.tv_nsec += (wait_ms % 1000) * 1000000;
        if (ts.tv_nsec >= 1000000000) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000;
        }
        pthread_cond_timedwait(&p->wake, &p->lock, &ts);
    }
    p->kick = false;
}

static bool init_source(struct poller *p)
{
    if (!p->ops->init)
        return true;
    char err[160] = "";
    int rc = p->ops->init(&p->state, p->cfg, p->settings, err, sizeof err);
    pthread_mutex_lock(&p->lock);
    if (rc == PNA_POLLER_DISABLED || rc == PNA_POLLER_ABSENT) {
        p->info.status = PNA_POLLER_OFF;
        pna_strlcpy(p->info.last_error, err, sizeof p->info.last_error);
        p->awaiting_source = rc == PNA_POLLER_ABSENT;
    } else if (rc == 0 && p->awaiting_source) {
        p->awaiting_source = false;
        p->info.status = PNA_POLLER_PENDING;
        pna_log(LOG_NOTICE, "poller %s: source found, polling", p->info.name);
    } else if (rc < 0) {
        p->info.runs++;
        record_failure(p, err);
    }
    pthread_mutex_unlock(&p->lock);
    return rc == 0;
}

static void *poller_main(void *arg)
{
    struct poller *p = arg;
    bool ready = false;
    int64_t next_init = 0;
    for (;;) {
        int64_t started = pna_mono_ms();
        if (!ready && started >= next_init) {
            ready = init_source(p);
            /* Once per interval: a kick (SIGHUP) polls a source that is
             * there, it does not hurry the search for one that is not. */
            next_init = started + p->info.interval_ms;
            pthread_mutex_lock(&p->lock);
            bool off = p->info.status == PNA_POLLER_OFF && !p->awaiting_source;
            pthread_mutex_unlock(&p->lock);
            if (off)
                break;
        }
        if (ready)
            run_once(p);
        pthread_mutex_lock(&p->lock);
        wait_until(p, ready ? started + p->info.interval_ms : next_init);
        bool stop = p->stop;
        pthread_mutex_unlock(&p->lock);
        if (stop)
            break;
    }
    pthread_mutex_lock(&p->lock);
    p->exited = true;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

static void setup_poller(struct poller *p, const struct pna_poller_ops *ops,
                         const struct pna_config *cfg)
{
    const struct pna_poller_cfg *pc = pna_config_poller(cfg, ops);
    memset(p, 0, sizeof *p);
    p->ops = ops;
    p->cfg = cfg;
    p->settings = pc ? pc->settings : NULL;
    pthread_mutex_init(&p->lock, NULL);
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&p->wake, &attr);
    pthread_condattr_destroy(&attr);
    p->info.index = ops->index;
    pna_strlcpy(p->info.name, ops->name, sizeof p->info.name);
    p->info.interval_ms = pc && pc->interval_ms ? pc->interval_ms : ops->default_interval_ms;
    p->info.timeout_ms = pc && pc->timeout_ms ? pc->timeout_ms : ops->default_timeout_ms;
    p->info.status = PNA_POLLER_PENDING;
}

static bool switched_off(const struct pna_config *cfg, const struct pna_poller_ops *ops)
{
    const struct pna_poller_cfg *pc = pna_config_poller(cfg, ops);
    return pc && pc->set_enabled && !pc->enabled;
}

int pna_pollers_start(const struct pna_config *cfg, const struct pna_poller_ops *const *registry,
                      size_t n)
{
    stale_after_s = cfg->stale_after_s;
    npollers = 0;
    for (size_t i = 0; i < n && i < PNA_MAX_POLLERS; i++) {
        struct poller *p = &pollers[npollers++];
        setup_poller(p, registry[i], cfg);
        if (switched_off(cfg, registry[i])) {
            p->info.status = PNA_POLLER_OFF;
            pna_strlcpy(p->info.last_error, "disabled in configuration",
                        sizeof p->info.last_error);
            continue;
        }
        if (registry[i]->keys && !p->settings) {
            pna_log(LOG_ERR, "poller %s: no settings (its keys were not given to the config)",
                    p->info.name);
            return -1;
        }
        int rc = pthread_create(&p->thread, NULL, poller_main, p);
        if (rc != 0) {
            pna_log(LOG_ERR, "poller %s: cannot start thread: %s", p->info.name, strerror(rc));
            return -1;
        }
        p->thread_running = true;
    }
    return 0;
}

/* Called with p->lock held. */
static void check_overrun(struct poller *p, int64_t now_mono)
{
    if (!p->run_started_mono || p->overrun_counted)
        return;
    int64_t running = now_mono - p->run_started_mono;
    if (running <= (int64_t)p->info.timeout_ms)
        return;
    bool was_failing = is_failing(p);
    p->overrun_counted = true;
    p->info.errors++;
    p->info.consecutive_failures++;
    snprintf(p->info.last_error, sizeof p->info.last_error,
             "poll still running after %u ms deadline (source not answering)",
             p->info.timeout_ms);
    p->info.status = PNA_POLLER_TIMED_OUT;
    if (!was_failing) {
        pna_log(LOG_ERR, "poller %s: %s", p->info.name, p->info.last_error);
        post_poller_event(p, PNA_EV_POLLER_FAILED);
    }
}

/* Called with p->lock held. */
static void check_stale(struct poller *p)
{
    if (!stale_after_s || p->stale_dropped || !is_failing(p) || !p->info.data_taken_ms)
        return;
    int64_t age_ms = pna_now_ms() - p->info.data_taken_ms;
    if (age_ms <= (int64_t)stale_after_s * 1000)
        return;
    p->stale_dropped = true;
    p->info.data_taken_ms = 0;
    pna_cache_drop(p->ops->domain);
    pna_log(LOG_WARNING, "poller %s: no good data for %u s, no longer serving the last snapshot",
            p->info.name, stale_after_s);
}

void pna_pollers_watchdog(void)
{
    int64_t now = pna_mono_ms();
    for (size_t i = 0; i < npollers; i++) {
        struct poller *p = &pollers[i];
        pthread_mutex_lock(&p->lock);
        check_overrun(p, now);
        check_stale(p);
        pthread_mutex_unlock(&p->lock);
    }
}

/* Wait up to GRACE_MS for the thread to leave; a thread stuck inside a source
 * (a hung driver call) is detached rather than waited for forever. */
static void join_or_detach(struct poller *p, int64_t grace_ms)
{
    int64_t deadline = pna_mono_ms() + grace_ms;
    pthread_mutex_lock(&p->lock);
    while (!p->exited && pna_mono_ms() < deadline) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        ts.tv_nsec += 50 * 1000000;
        if (ts.tv_nsec >= 1000000000) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000;
        }
        pthread_cond_timedwait(&p->wake, &p->lock, &ts);
    }
    bool exited = p->exited;
    pthread_mutex_unlock(&p->lock);
    if (exited) {
        pthread_join(p->thread, NULL);
        if (p->ops->fini)
            p->ops->fini(p->state);
    } else {
        pna_log(LOG_WARNING, "poller %s: still inside its source at shutdown, not waiting",
                p->info.name);
        pthread_detach(p->thread);
    }
    p->thread_running = false;
}

void pna_pollers_stop(void)
{
    for (size_t i = 0; i < npollers; i++) {
        struct poller *p = &pollers[i];
        pthread_mutex_lock(&p->lock);
        p->stop = true;
        pthread_cond_broadcast(&p->wake);
        pthread_mutex_unlock(&p->lock);
    }
    for (size_t i = 0; i < npollers; i++)
        if (pollers[i].thread_running)
            join_or_detach(&pollers[i], 2000);
    npollers = 0;
}

static void kick(struct poller *p)
{
    pthread_mutex_lock(&p->lock);
    p->kick = true;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);
}

void pna_pollers_kick(void)
{
    for (size_t i = 0; i < npollers; i++)
        kick(&pollers[i]);
}

/* The pollers array is filled before any poller thread starts and not
 * changed until they are stopped, so it can be searched without a lock. */
void pna_poller_wake(uint32_t index)
{
    for (size_t i = 0; i < npollers; i++)
        if (pollers[i].info.index == index)
            kick(&pollers[i]);
}

size_t pna_pollers_count(void)
{
    return npollers;
}

bool pna_pollers_info(size_t i, struct pna_poller_info *out)
{
    if (i >= npollers)
        return false;
    pthread_mutex_lock(&pollers[i].lock);
    *out = pollers[i].info;
    pthread_mutex_unlock(&pollers[i].lock);
    return true;
}

bool pna_pollers_all_ran(void)
{
    for (size_t i = 0; i < npollers; i++) {
        struct pna_poller_info info;
        pna_pollers_info(i, &info);
        if (info.status == PNA_POLLER_PENDING)
            return false;
    }
    return true;
}
