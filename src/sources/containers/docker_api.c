/* sources/containers/docker_api.c -- Docker containers through the Engine
 * API on dockerd's unix socket (see docker_api.h): one list request per poll,
 * an inspect per container that is new, changed state or was marked by an
 * event, all through transport/http_client.  The answers are parsed by
 * docker.c. */
#include "pna_autoconf.h"
#include "sources/containers/docker_api.h"
#include "sources/containers/containerd.h"
#include "sources/containers/docker.h"
#include "transport/http_client.h"
#include "core/roots.h"
#include "sources/containers/devmap.h"
#include "util/fileio.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#define DIRTY_MAX 1024

/* What an inspect said about one container, kept until its state changes or
 * an event names it.  Only the devices it has are stored: a node runs
 * thousands of containers, most with none. */
struct cached {
    char id[80];
    uint8_t listed_state;      /* the list's state when inspected */
    uint8_t inspected_state;   /* State.Status of that inspect */
    bool fresh;                /* inspected by this poll */
    int32_t pid;
    int64_t start_ms;
    bool has_mem_limit;
    uint64_t mem_limit_bytes;
    size_t ndevs;
    struct pna_container_device *devs;   /* ndevs, owned; NULL when none */
};

struct pna_docker {
    char *socket_path;
    unsigned timeout_ms;
    struct pna_hclient *http;
    struct cached *cache;      /* sorted by id */
    size_t ncache;
    atomic_uint errors, inspects;

    const struct pna_label_allow *pod_label_allow;   /* podLabels, or NULL */
    struct pna_pod_label_set pod_labels;   /* the last list's sandboxes' labels */

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
    d->http = pna_hclient_new();
    d->dirty = calloc(DIRTY_MAX, sizeof *d->dirty);
    pthread_mutex_init(&d->dirty_lock, NULL);
    if (!d->socket_path || !d->http || !d->dirty) {
        pna_docker_free(d);
        return NULL;
    }
    return d;
}

static void free_cache(struct cached *v, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        free(v[i].devs);
    free(v);
}

void pna_docker_free(struct pna_docker *d)
{
    if (!d)
        return;
    pna_hclient_free(d->http);
    free(d->socket_path);
    free_cache(d->cache, d->ncache);
    free(d->dirty);
    pna_pod_label_set_free(&d->pod_labels);
    pthread_mutex_destroy(&d->dirty_lock);
    free(d);
}

void pna_docker_read_pod_labels(struct pna_docker *d, const struct pna_label_allow *allow)
{
    d->pod_label_allow = allow;
}

int pna_docker_take_pod_labels(struct pna_docker *d, struct pna_pod_label_set *out)
{
    int rc = pna_pod_label_set_append(out, &d->pod_labels);
    pna_pod_label_set_free(&d->pod_labels);
    return rc;
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

void pna_docker_invalidate_all(struct pna_docker *d)
{
    pthread_mutex_lock(&d->dirty_lock);
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

static struct cached *cache_find(struct cached *v, size_t n, const char *id)
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

/* The numbers of a device Docker names by its host path (PathOnHost), read
 * from that node under ROOTS->devfs: the path inside the container may name
 * another device (--device /dev/dri/renderD129:/dev/dri/renderD128). */
static void number_from_host(const struct pna_roots *roots, const char *host_path,
                             struct pna_container_device *d)
{
    char node[512];
    struct stat st;
    if (strncmp(host_path, "/dev/", 5) != 0 || strstr(host_path, "/../") ||
        pna_path(node, sizeof node, roots->devfs, "/%s", host_path + 5) < 0 ||
        stat(node, &st) != 0 || !(S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)))
        return;
    d->type = S_ISBLK(st.st_mode) ? 'b' : 'c';
    d->has_numbers = true;
    d->major = major(st.st_rdev);
    d->minor = minor(st.st_rdev);
    pna_devmap_classify(d);
}

static int inspect(struct pna_docker *d, const struct pna_roots *roots,
                   const struct pna_hclient_target *t, const char *id,
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
    if (pna_hclient_get(d->http, t, path, PNA_DOCKER_INSPECT_MAX, &body, &len, NULL,
                        err, sizeof err) < 0) {
        atomic_fetch_add(&d->errors, 1);
        return -1;
    }
    pna_docker_host_paths hosts;
    int rc = pna_docker_parse_inspect(body, len, out, &hosts, err, sizeof err);
    free(body);
    if (rc < 0) {
        atomic_fetch_add(&d->errors, 1);
        return rc;
    }
    for (size_t k = 0; k < out->ndevs; k++)
        number_from_host(roots, hosts[k], &out->devs[k]);
    return 0;
}

/* Keep what inspect IN said about ID into N (devices copied to the heap).
 * Returns 0, or -1 out of memory (N then holds no devices). */
static int cache_entry(struct cached *n, const char *id, uint8_t state,
                       const struct pna_docker_inspect *in)
{
    memset(n, 0, sizeof *n);
    pna_strlcpy(n->id, id, sizeof n->id);
    n->listed_state = state;
    n->inspected_state = in->state;
    n->fresh = true;
    n->pid = in->pid;
    n->start_ms = in->start_ms;
    n->has_mem_limit = in->has_mem_limit;
    n->mem_limit_bytes = in->mem_limit_bytes;
    if (!in->ndevs)
        return 0;
    n->devs = malloc(in->ndevs * sizeof *n->devs);
    if (!n->devs)
        return -1;
    memcpy(n->devs, in->devs, in->ndevs * sizeof *n->devs);
    n->ndevs = in->ndevs;
    return 0;
}

/* Apply what inspect said (IN) to the record from the list. */
static int apply_inspect(const struct cached *in, struct pna_container_set *set,
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

/* The ids events marked since the last poll (*ALL: every one), taken and cleared. */
static char (*take_dirty(struct pna_docker *d, size_t *n, bool *all))[80]
{
    pthread_mutex_lock(&d->dirty_lock);
    *n = d->ndirty;
    *all = d->dirty_all;
    char (*dirty)[80] = *n ? malloc(*n * sizeof *dirty) : NULL;
    if (dirty)
        memcpy(dirty, d->dirty, *n * sizeof *dirty);
    else if (*n)
        *all = true;
    d->ndirty = 0;
    d->dirty_all = false;
    pthread_mutex_unlock(&d->dirty_lock);
    return dirty;
}

/* What is known of SRC for the poll: the cached inspect moved into NEXT when
 * nothing says it changed, else a new inspect kept there.  NULL when neither
 * (the inspect failed: the row comes without pid, limit and devices). */
static const struct cached *known(struct pna_docker *d, const struct pna_roots *roots,
                                  const struct pna_hclient_target *t,
                                  const struct pna_container *src, bool fresh_needed,
                                  struct cached *next)
{
    struct cached *old = cache_find(d->cache, d->ncache, src->id);
    if (old && old->listed_state == src->state && !fresh_needed) {
        *next = *old;          /* the devices move with it */
        next->fresh = false;
        old->devs = NULL;
        old->ndevs = 0;
        return next;
    }
    struct pna_docker_inspect info;
    if (inspect(d, roots, t, src->id, &info) < 0 ||
        cache_entry(next, src->id, src->state, &info) < 0)
        return NULL;
    return next;
}

int pna_docker_collect(struct pna_docker *d, const struct pna_roots *roots,
                       const struct pna_cgroup_env *cg, struct pna_container_set *set,
                       char *err, size_t errlen)
{
    struct pna_hclient_target t = {
        .unix_socket = d->socket_path, .base_url = "http://localhost",
        .timeout_ms = d->timeout_ms, .connect_timeout_ms = d->timeout_ms,
    };
    char *body = NULL;
    size_t len = 0;
    if (pna_hclient_get(d->http, &t, "/containers/json", PNA_DOCKER_LIST_MAX, &body, &len, NULL,
                        err, errlen) < 0) {
        atomic_fetch_add(&d->errors, 1);
        return -1;
    }
    /* Parse into a side set first: records are then copied one by one so that
     * each gets its devices right after it. */
    struct pna_container_set listed;
    pna_container_set_init(&listed);
    pna_pod_label_set_free(&d->pod_labels);
    int rc = pna_docker_parse_list_labels(body, len, &listed, d->pod_label_allow, &d->pod_labels,
                                          err, errlen);
    free(body);
    if (rc < 0) {
        atomic_fetch_add(&d->errors, 1);
        pna_container_set_free(&listed);
        return -1;
    }

    struct cached *next = listed.count ? calloc(listed.count, sizeof *next) : NULL;
    if (listed.count && !next) {
        snprintf(err, errlen, "out of memory");
        pna_container_set_free(&listed);
        return -1;
    }
    size_t ndirty, nnext = 0;
    bool all;
    char (*dirty)[80] = take_dirty(d, &ndirty, &all);
    for (size_t i = 0; i < listed.count; i++) {
        struct pna_container *src = &listed.rows[i];
        bool fresh_needed = all || is_dirty(dirty, ndirty, src->id);
        const struct cached *info = known(d, roots, &t, src, fresh_needed, &next[nnext]);
        if (info)
            nnext++;
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
        /* The list's state is newer than a cached inspect, but not than one
         * made now: dockerd sends an event (pause, unpause, start...) before
         * the view its list reads is updated, while inspect waits for the
         * container's lock, so after an event the list can still say the old
         * state and only the inspect says the new one. */
        if (info && info->fresh && info->inspected_state != PNA_CSTATE_UNKNOWN)
            c->state = info->inspected_state;
        pna_container_fill_runtime(roots, cg, set, c, NULL);
    }
    free(dirty);
    /* The rows copied point at LISTED's strings: SET keeps them. */
    pna_strpool_take(&set->strings, &listed.strings);
    set->strings_lost |= listed.strings_lost;
    pna_container_set_free(&listed);
    if (next)
        qsort(next, nnext, sizeof *next, cmp_cached);
    free_cache(d->cache, d->ncache);
    d->cache = next;
    d->ncache = nnext;
    return 0;
}
