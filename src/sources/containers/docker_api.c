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

struct cached {
    char id[80];
    uint8_t listed_state;      /* the list's state when inspected */
    struct pna_docker_inspect info;
};

struct pna_docker {
    char *socket_path;
    unsigned timeout_ms;
    struct pna_hclient *http;
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
    d->http = pna_hclient_new();
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
    pna_hclient_free(d->http);
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
        } else if (inspect(d, roots, &t, src->id, &fresh.info) == 0) {
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
