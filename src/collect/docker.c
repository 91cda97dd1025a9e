/* docker.c -- Docker containers and events through the Engine API (see docker.h). */
#include "core/config.h"
#include "collect/docker.h"
#include "collect/containerd.h"
#include "collect/devmap.h"
#include "collect/httpc.h"
#include "core/roots.h"
#include "util/fileio.h"

#include <ctype.h>
#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Labels dockershim put on Kubernetes containers: identity only. */
#define LBL_POD "io.kubernetes.pod.name"
#define LBL_NAMESPACE "io.kubernetes.pod.namespace"
#define LBL_POD_UID "io.kubernetes.pod.uid"
#define LBL_CONTAINER "io.kubernetes.container.name"

/* Only container events; the daemon filters so network chatter never arrives. */
#define EVENTS_PATH "/events?filters=%7B%22type%22%3A%5B%22container%22%5D%7D"

#define DIRTY_MAX 1024

static const char *jstr(const json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

static uint8_t state_from_text(const char *s)
{
    if (!s)
        return PNA_CTR_UNKNOWN;
    if (!strcmp(s, "running") || !strcmp(s, "restarting"))
        return PNA_CTR_RUNNING;
    if (!strcmp(s, "paused"))
        return PNA_CTR_PAUSED;
    if (!strcmp(s, "created"))
        return PNA_CTR_CREATED;
    if (!strcmp(s, "exited") || !strcmp(s, "dead") || !strcmp(s, "removing"))
        return PNA_CTR_EXITED;
    return PNA_CTR_UNKNOWN;
}

/* ---- time -------------------------------------------------------------------------- */

static int digits(const char **p, int n)
{
    int v = 0;
    for (int i = 0; i < n; i++, (*p)++) {
        if (!isdigit((unsigned char)**p))
            return -1;
        v = v * 10 + (**p - '0');
    }
    return v;
}

int64_t pna_parse_rfc3339_ms(const char *s)
{
    if (!s)
        return -1;
    const char *p = s;
    int Y = digits(&p, 4);
    if (Y < 0 || *p++ != '-')
        return -1;
    int M = digits(&p, 2);
    if (M < 1 || M > 12 || *p++ != '-')
        return -1;
    int D = digits(&p, 2);
    if (D < 1 || D > 31 || (*p != 'T' && *p != 't' && *p != ' '))
        return -1;
    p++;
    int h = digits(&p, 2);
    if (h < 0 || h > 23 || *p++ != ':')
        return -1;
    int m = digits(&p, 2);
    if (m < 0 || m > 59 || *p++ != ':')
        return -1;
    int sec = digits(&p, 2);
    if (sec < 0 || sec > 60)
        return -1;
    int ms = 0;
    if (*p == '.') {
        p++;
        int n = 0;
        while (isdigit((unsigned char)*p)) {
            if (n < 3)
                ms = ms * 10 + (*p - '0');
            n++;
            p++;
        }
        if (n == 0)
            return -1;
        for (; n < 3; n++)
            ms *= 10;
    }
    int off_min = 0;
    if (*p == 'Z' || *p == 'z') {
        p++;
    } else if (*p == '+' || *p == '-') {
        int sign = *p++ == '-' ? -1 : 1;
        int oh = digits(&p, 2);
        if (oh < 0 || *p++ != ':')
            return -1;
        int om = digits(&p, 2);
        if (om < 0)
            return -1;
        off_min = sign * (oh * 60 + om);
    } else {
        return -1;
    }
    if (*p)
        return -1;
    if (Y <= 1)
        return 0;   /* Go's zero time: never started */
    struct tm tm = { .tm_year = Y - 1900, .tm_mon = M - 1, .tm_mday = D,
                     .tm_hour = h, .tm_min = m, .tm_sec = sec };
    time_t t = timegm(&tm);
    return ((int64_t)t - (int64_t)off_min * 60) * 1000 + ms;
}

/* ---- parsers ------------------------------------------------------------------------- */

static json_t *load(const char *text, size_t len, const char *what, char *err, size_t errlen)
{
    json_error_t jerr;
    json_t *root = json_loadb(text, len, 0, &jerr);
    if (!root)
        snprintf(err, errlen, "%s: line %d: %s", what, jerr.line, jerr.text);
    return root;
}

static void fill_from_list_entry(const json_t *o, struct pna_container *c)
{
    c->runtime = PNA_RT_DOCKER;
    pna_copy_display(c->id, jstr(o, "Id"), sizeof c->id);
    json_t *names = json_object_get(o, "Names");
    const char *name = json_string_value(json_array_get(names, 0));
    if (name && name[0] == '/')
        name++;   /* the API reports names with a leading slash */
    pna_copy_display(c->name, name, sizeof c->name);
    pna_copy_display(c->image, jstr(o, "Image"), sizeof c->image);
    c->state = state_from_text(jstr(o, "State"));
    json_t *created = json_object_get(o, "Created");
    if (json_is_integer(created) && json_integer_value(created) > 0 &&
        json_integer_value(created) <= INT64_MAX / 1000)
        c->start_ms = (int64_t)json_integer_value(created) * 1000;
    json_t *labels = json_object_get(o, "Labels");
    if (json_is_object(labels)) {
        pna_copy_display(c->pod_name, jstr(labels, LBL_POD), sizeof c->pod_name);
        pna_copy_display(c->pod_namespace, jstr(labels, LBL_NAMESPACE), sizeof c->pod_namespace);
        pna_copy_display(c->pod_uid, jstr(labels, LBL_POD_UID), sizeof c->pod_uid);
        const char *cname = jstr(labels, LBL_CONTAINER);
        if (cname)
            pna_copy_display(c->name, cname, sizeof c->name);
    }
}

int pna_docker_parse_list(const char *text, size_t len, struct pna_container_set *set,
                          char *err, size_t errlen)
{
    json_t *root = load(text, len, "/containers/json", err, errlen);
    if (!root)
        return -1;
    if (!json_is_array(root)) {
        snprintf(err, errlen, "/containers/json: not a JSON array");
        json_decref(root);
        return -1;
    }
    size_t before = set->count, i;
    json_t *o;
    json_array_foreach(root, i, o) {
        const char *id = jstr(o, "Id");
        if (!json_is_object(o) || !pna_container_id_ok(id))
            continue;   /* no id (or one no engine makes: over 76) cannot be a row */
        struct pna_container *c = pna_container_set_add(set);
        if (!c) {
            while (set->count > before)
                pna_container_set_drop_last(set);
            snprintf(err, errlen, "out of memory");
            json_decref(root);
            return -1;
        }
        fill_from_list_entry(o, c);
    }
    json_decref(root);
    return 0;
}

static void add_inspect_device(struct pna_docker_inspect *out, const char *path)
{
    if (!path || !*path || out->ndevs >= sizeof out->devs / sizeof out->devs[0])
        return;
    struct pna_ctr_device *d = &out->devs[out->ndevs++];
    memset(d, 0, sizeof *d);
    pna_copy_display(d->path, path, sizeof d->path);
    d->type = 'c';
    pna_devmap_classify(d);
}

/* --gpus hands GPUs over as DeviceRequests, not Devices; numeric ids are
 * NVIDIA minor numbers, which is what /dev/nvidiaN is named after. */
static void add_gpu_requests(const json_t *reqs, struct pna_docker_inspect *out)
{
    size_t i, j;
    json_t *r, *idv;
    json_array_foreach(reqs, i, r) {
        json_array_foreach(json_object_get(r, "DeviceIDs"), j, idv) {
            const char *id = json_string_value(idv);
            char path[32];
            if (!id || !*id || strlen(id) > 4 || strspn(id, "0123456789") != strlen(id))
                continue;
            snprintf(path, sizeof path, "/dev/nvidia%s", id);
            add_inspect_device(out, path);
        }
    }
}

int pna_docker_parse_inspect(const char *text, size_t len, struct pna_docker_inspect *out,
                             char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->state = PNA_CTR_UNKNOWN;
    json_t *root = load(text, len, "/containers/{id}/json", err, errlen);
    if (!root)
        return -1;
    json_t *st = json_object_get(root, "State");
    if (!json_is_object(root) || !json_is_object(st)) {
        snprintf(err, errlen, "/containers/{id}/json: no State object");
        json_decref(root);
        return -1;
    }
    out->state = state_from_text(jstr(st, "Status"));
    json_t *pid = json_object_get(st, "Pid");
    if (json_is_integer(pid) && json_integer_value(pid) > 0 && json_integer_value(pid) < (1 << 30))
        out->pid = (int32_t)json_integer_value(pid);
    int64_t started = pna_parse_rfc3339_ms(jstr(st, "StartedAt"));
    out->start_ms = started > 0 ? started : 0;
    out->oom_killed = json_is_true(json_object_get(st, "OOMKilled"));
    json_t *hc = json_object_get(root, "HostConfig");
    json_t *mem = json_object_get(hc, "Memory");
    if (json_is_integer(mem) && json_integer_value(mem) > 0) {
        out->has_mem_limit = true;
        out->mem_limit_bytes = (uint64_t)json_integer_value(mem);
    }
    size_t i;
    json_t *d;
    json_array_foreach(json_object_get(hc, "Devices"), i, d) {
        const char *in = jstr(d, "PathInContainer");
        add_inspect_device(out, in && *in ? in : jstr(d, "PathOnHost"));
    }
    add_gpu_requests(json_object_get(hc, "DeviceRequests"), out);
    json_decref(root);
    return 0;
}

int pna_docker_parse_event(const char *line, size_t len, struct pna_docker_event *ev)
{
    memset(ev, 0, sizeof *ev);
    json_error_t jerr;
    json_t *o = json_loadb(line, len, 0, &jerr);
    if (!o)
        return -1;
    if (!json_is_object(o)) {
        json_decref(o);
        return -1;
    }
    const char *type = jstr(o, "Type");
    const char *action = jstr(o, "Action");
    json_t *actor = json_object_get(o, "Actor");
    json_t *attrs = json_object_get(actor, "Attributes");
    const char *id = jstr(actor, "ID");
    /* Before API 1.22 only status/id/from existed, for containers only. */
    if (!type && jstr(o, "status"))
        type = "container";
    if (!action)
        action = jstr(o, "status");
    if (!id)
        id = jstr(o, "id");
    if (!type || !action) {
        json_decref(o);
        return -1;
    }
    pna_copy_display(ev->type, type, sizeof ev->type);
    /* "exec_start: sh -c ..." and "health_status: healthy" carry command text
     * after the colon: keep the verb only. */
    size_t verb = strcspn(action, ":");
    char tmp[32];
    snprintf(tmp, sizeof tmp, "%.*s", (int)(verb < sizeof tmp - 1 ? verb : sizeof tmp - 1), action);
    pna_copy_display(ev->action, tmp, sizeof ev->action);
    pna_copy_display(ev->id, id, sizeof ev->id);
    pna_copy_display(ev->name, jstr(attrs, "name"), sizeof ev->name);
    json_t *tn = json_object_get(o, "timeNano"), *t = json_object_get(o, "time");
    if (json_is_integer(tn))
        ev->time_ns = json_integer_value(tn);
    else if (json_is_integer(t) && json_integer_value(t) >= 0 &&
             json_integer_value(t) <= INT64_MAX / 1000000000LL)
        ev->time_ns = json_integer_value(t) * 1000000000LL;   /* else unknown (0) */
    /* exitCode is a string in the API. */
    const char *code = jstr(attrs, "exitCode");
    if (code && *code) {
        char *end;
        long v = strtol(code, &end, 10);
        if (!*end) {
            ev->has_exit_code = true;
            ev->exit_code = (int)v;
        }
    }
    json_decref(o);
    return 0;
}

/* ---- the client ------------------------------------------------------------------------ */

struct cached {
    char id[80];
    uint8_t listed_state;      /* the list's state when inspected */
    struct pna_docker_inspect info;
};

struct pna_docker {
    char *socket_path;
    unsigned timeout_ms;
    struct pna_http_client *http;
    struct cached *cache;      /* sorted by id */
    size_t ncache;
    atomic_uint errors, inspects;

    pthread_mutex_t dirty_lock;   /* guards dirty */
    char (*dirty)[80];
    size_t ndirty;
    bool dirty_all;
};

struct pna_docker *pna_docker_new(const char *socket_path, unsigned timeout_ms)
{
    struct pna_docker *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    d->socket_path = strdup(socket_path);
    d->timeout_ms = timeout_ms;
    d->http = pna_http_client_new();
    d->dirty = calloc(DIRTY_MAX, sizeof *d->dirty);
    pthread_mutex_init(&d->dirty_lock, NULL);
    if (!d->socket_path || !d->http || !d->dirty) {
        pna_docker_free(d);
        return NULL;
    }
    return d;
}

void pna_docker_free(struct pna_docker *d)
{
    if (!d)
        return;
    pna_http_client_free(d->http);
    free(d->socket_path);
    free(d->cache);
    free(d->dirty);
    pthread_mutex_destroy(&d->dirty_lock);
    free(d);
}

void pna_docker_invalidate(struct pna_docker *d, const char *id)
{
    pthread_mutex_lock(&d->dirty_lock);
    if (d->ndirty < DIRTY_MAX)
        pna_strlcpy(d->dirty[d->ndirty++], id, sizeof d->dirty[0]);
    else
        d->dirty_all = true;
    pthread_mutex_unlock(&d->dirty_lock);
}

uint32_t pna_docker_errors(const struct pna_docker *d)
{
    return atomic_load(&d->errors);
}

uint32_t pna_docker_inspects(const struct pna_docker *d)
{
    return atomic_load(&d->inspects);
}

static const struct cached *cache_find(const struct cached *v, size_t n, const char *id)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(v[mid].id, id);
        if (c == 0)
            return &v[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

static bool is_dirty(char (*dirty)[80], size_t n, const char *id)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(dirty[i], id) == 0)
            return true;
    return false;
}

static int cmp_cached(const void *a, const void *b)
{
    return strcmp(((const struct cached *)a)->id, ((const struct cached *)b)->id);
}

static int inspect(struct pna_docker *d, const struct pna_http_target *t, const char *id,
                   struct pna_docker_inspect *out)
{
    char path[160], err[160];
    char *body = NULL;
    size_t len = 0;
    /* Ids come from dockerd itself; still, only hex-like ids go into a URL. */
    if (strspn(id, "0123456789abcdefABCDEF-_.") != strlen(id))
        return -1;
    snprintf(path, sizeof path, "/containers/%s/json", id);
    atomic_fetch_add(&d->inspects, 1);
    if (pna_http_get(d->http, t, path, PNA_DOCKER_INSPECT_MAX, &body, &len, NULL,
                     err, sizeof err) < 0) {
        atomic_fetch_add(&d->errors, 1);
        return -1;
    }
    int rc = pna_docker_parse_inspect(body, len, out, err, sizeof err);
    free(body);
    if (rc < 0)
        atomic_fetch_add(&d->errors, 1);
    return rc;
}

/* Apply what inspect says to the record from the list. */
static int apply_inspect(const struct pna_docker_inspect *in, struct pna_container_set *set,
                         struct pna_container *c)
{
    c->pid = in->pid;
    if (in->start_ms > 0)
        c->start_ms = in->start_ms;
    if (in->has_mem_limit) {
        c->has_limit = true;
        c->mem_limit_bytes = in->mem_limit_bytes;
    }
    for (size_t k = 0; k < in->ndevs; k++)
        if (pna_container_set_add_device(set, &in->devs[k]) < 0)
            return -1;
    return 0;
}

int pna_docker_collect(struct pna_docker *d, const struct pna_roots *roots,
                       const struct pna_cgroup_env *cg, struct pna_container_set *set,
                       char *err, size_t errlen)
{
    struct pna_http_target t = {
        .unix_socket = d->socket_path, .base_url = "http://localhost",
        .timeout_ms = d->timeout_ms, .connect_timeout_ms = d->timeout_ms,
    };
    char *body = NULL;
    size_t len = 0;
    if (pna_http_get(d->http, &t, "/containers/json", PNA_DOCKER_LIST_MAX, &body, &len, NULL,
                     err, errlen) < 0) {
        atomic_fetch_add(&d->errors, 1);
        return -1;
    }
    /* Parse into a side set first: records are then copied one by one so that
     * each gets its devices right after it. */
    struct pna_container_set listed;
    pna_container_set_init(&listed);
    int rc = pna_docker_parse_list(body, len, &listed, err, errlen);
    free(body);
    if (rc < 0) {
        atomic_fetch_add(&d->errors, 1);
        pna_container_set_free(&listed);
        return -1;
    }

    pthread_mutex_lock(&d->dirty_lock);
    size_t ndirty = d->ndirty;
    bool all = d->dirty_all;
    char (*dirty)[80] = ndirty ? malloc(ndirty * sizeof *dirty) : NULL;
    if (dirty)
        memcpy(dirty, d->dirty, ndirty * sizeof *dirty);
    else if (ndirty)
        all = true;
    d->ndirty = 0;
    d->dirty_all = false;
    pthread_mutex_unlock(&d->dirty_lock);

    struct cached *next = listed.count ? calloc(listed.count, sizeof *next) : NULL;
    size_t nnext = 0;
    for (size_t i = 0; i < listed.count; i++) {
        struct pna_container *src = &listed.rows[i];
        const struct cached *old = cache_find(d->cache, d->ncache, src->id);
        struct cached fresh;
        const struct pna_docker_inspect *info = NULL;
        if (old && old->listed_state == src->state && !all && !is_dirty(dirty, ndirty, src->id)) {
            info = &old->info;
        } else if (inspect(d, &t, src->id, &fresh.info) == 0) {
            info = &fresh.info;
        }
        if (info && next) {
            struct cached *n = &next[nnext++];
            pna_strlcpy(n->id, src->id, sizeof n->id);
            n->listed_state = src->state;
            n->info = *info;
        }
        struct pna_container *c = pna_container_set_add(set);
        if (!c) {
            snprintf(err, errlen, "out of memory");
            break;
        }
        *c = *src;
        c->dev_first = (uint32_t)set->dev_count;
        c->dev_count = 0;
        if (info && apply_inspect(info, set, c) < 0) {
            snprintf(err, errlen, "out of memory");
            break;
        }
        /* The list's state is newer than a cached inspect. */
        pna_container_fill_runtime(roots, cg, c, NULL);
    }
    free(dirty);
    pna_container_set_free(&listed);
    if (next)
        qsort(next, nnext, sizeof *next, cmp_cached);
    free(d->cache);
    d->cache = next;
    d->ncache = next ? nnext : 0;
    return 0;
}

/* ---- the event stream ------------------------------------------------------------------------ */

struct pna_docker_events {
    char *socket_path;
    unsigned timeout_ms, retry_ms;
    pna_docker_event_fn fn;
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
    struct pna_http_client *http = pna_http_client_new();
    struct pna_http_target t = {
        .unix_socket = e->socket_path, .base_url = "http://localhost",
        .timeout_ms = e->timeout_ms, .connect_timeout_ms = e->timeout_ms,
    };
    unsigned backoff = e->retry_ms;
    while (http && !atomic_load(&e->stop)) {
        char err[160];
        unsigned before = atomic_load(&e->connects);
        int rc = pna_http_stream_lines(http, &t, EVENTS_PATH, PNA_DOCKER_EVENT_LINE_MAX,
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
    pna_http_client_free(http);
    return NULL;
}

struct pna_docker_events *pna_docker_events_start(const char *socket_path, unsigned timeout_ms,
                                                  unsigned retry_ms, pna_docker_event_fn fn,
                                                  void *arg)
{
    struct pna_docker_events *e = calloc(1, sizeof *e);
    if (!e)
        return NULL;
    e->socket_path = strdup(socket_path);
    e->timeout_ms = timeout_ms;
    e->retry_ms = retry_ms ? retry_ms : 500;
    e->fn = fn;
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
