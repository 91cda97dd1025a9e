/* sources/containers/bundle_cache.c -- per-bundle facts kept while the files
 * are unchanged (see bundle_cache.h): an open-addressing hash table keyed by
 * "namespace/id". */
#include "pna_autoconf.h"
#include "sources/containers/bundle_cache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* One bundle: allocated alone, so that the table itself is only pointers
 * (a table of whole entries, three quarters full at most, would hold a
 * third more of them empty). */
struct node {
    struct pna_bundle_entry entry;
    uint32_t scan;                /* the scan that last asked for it */
    char key[];                   /* "NS/ID" */
};

struct pna_bundle_cache {
    struct node **slots;          /* NULL: free */
    size_t cap;                   /* a power of two, or 0 */
    size_t used;
    uint32_t scan;
    bool quiet;                   /* no bundle file changed since the last scan */
    size_t files_limit;           /* containers whose cgroup files may stay open */
};

/* FNV-1a over S, continuing from H. */
static uint64_t fnv(uint64_t h, const char *s)
{
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* The hash of the key "NS/ID" (the same whether given in parts or whole). */
static uint64_t hash_key(const char *ns, const char *id)
{
    return fnv(fnv(fnv(1469598103934665603ull, ns), "/"), id);
}

static bool key_is(const char *key, const char *ns, const char *id)
{
    size_t n = strlen(ns);
    return strncmp(key, ns, n) == 0 && key[n] == '/' && strcmp(key + n + 1, id) == 0;
}

struct pna_bundle_cache *pna_bundle_cache_new(void)
{
    return calloc(1, sizeof(struct pna_bundle_cache));
}

void pna_bundle_entry_forget_spec(struct pna_bundle_entry *e)
{
    free(e->spec_error);
    e->spec_error = NULL;
    pna_oci_facts_free(&e->facts);
    memset(&e->spec_id, 0, sizeof e->spec_id);
    e->spec_known = false;
}

void pna_bundle_entry_forget_pid(struct pna_bundle_entry *e)
{
    free(e->pid_cgroup);
    e->pid_cgroup = NULL;
    pna_cgroup_files_close(&e->cgroup_files);
    memset(&e->pid_id, 0, sizeof e->pid_id);
    e->pid_known = false;
    e->pid = 0;
    e->start_ms = 0;
}

static void free_slot(struct node **s)
{
    pna_bundle_entry_forget_spec(&(*s)->entry);
    pna_bundle_entry_forget_pid(&(*s)->entry);
    free(*s);
    *s = NULL;
}

void pna_bundle_cache_free(struct pna_bundle_cache *cache)
{
    if (!cache)
        return;
    for (size_t i = 0; i < cache->cap; i++)
        if (cache->slots[i])
            free_slot(&cache->slots[i]);
    free(cache->slots);
    free(cache);
}

void pna_bundle_cache_set_quiet(struct pna_bundle_cache *cache, bool quiet)
{
    cache->quiet = quiet;
}

bool pna_bundle_cache_quiet(const struct pna_bundle_cache *cache)
{
    return cache->quiet;
}

void pna_bundle_cache_keep_files(struct pna_bundle_cache *cache, size_t n)
{
    cache->files_limit = n;
}

size_t pna_bundle_cache_files_limit(const struct pna_bundle_cache *cache)
{
    return cache->files_limit;
}

void pna_bundle_cache_begin(struct pna_bundle_cache *cache)
{
    cache->scan++;
}

/* Where KEY (NS/ID) is, or the free slot where it would go. */
static struct node **find(struct node **slots, size_t cap, const char *ns, const char *id)
{
    size_t i = (size_t)hash_key(ns, id) & (cap - 1);
    while (slots[i] && !key_is(slots[i]->key, ns, id))
        i = (i + 1) & (cap - 1);
    return &slots[i];
}

/* Rebuild the table with room for CAP slots (a power of two). */
static int rehash(struct pna_bundle_cache *cache, size_t cap)
{
    struct node **slots = calloc(cap, sizeof *slots);
    if (!slots)
        return -1;
    for (size_t i = 0; i < cache->cap; i++) {
        struct node *old = cache->slots[i];
        if (!old)
            continue;
        /* Keys are unique: the first free slot of its probe run is its place. */
        size_t at = (size_t)fnv(1469598103934665603ull, old->key) & (cap - 1);
        while (slots[at])
            at = (at + 1) & (cap - 1);
        slots[at] = old;
    }
    free(cache->slots);
    cache->slots = slots;
    cache->cap = cap;
    return 0;
}

struct pna_bundle_entry *pna_bundle_cache_get(struct pna_bundle_cache *cache, const char *ns,
                                              const char *id)
{
    /* A namespace is a directory name, without '/': anything else would
     * make "ns/id" ambiguous, and is not cached (the caller reads the bundle
     * as if new). */
    if (strchr(ns, '/'))
        return NULL;
    /* At most three quarters full, so probes stay short. */
    if ((cache->used + 1) * 4 > cache->cap * 3 &&
        rehash(cache, cache->cap ? cache->cap * 2 : 64) < 0)
        return NULL;
    struct node **s = find(cache->slots, cache->cap, ns, id);
    if (!*s) {
        size_t n = strlen(ns), m = strlen(id);
        struct node *fresh = calloc(1, sizeof *fresh + n + m + 2);
        if (!fresh)
            return NULL;
        pna_cgroup_files_init(&fresh->entry.cgroup_files);
        memcpy(fresh->key, ns, n);
        fresh->key[n] = '/';
        memcpy(fresh->key + n + 1, id, m + 1);
        *s = fresh;
        cache->used++;
    }
    (*s)->scan = cache->scan;
    return &(*s)->entry;
}

size_t pna_bundle_cache_end(struct pna_bundle_cache *cache)
{
    size_t dropped = 0;
    for (size_t i = 0; i < cache->cap; i++)
        if (cache->slots[i] && cache->slots[i]->scan != cache->scan) {
            free_slot(&cache->slots[i]);
            dropped++;
        }
    cache->used -= dropped;
    /* Open addressing cannot just empty a slot inside a probe run: put the
     * survivors back, in a table sized for them. */
    if (dropped) {
        size_t cap = 64;
        while (cache->used * 4 > cap * 3)
            cap *= 2;
        if (rehash(cache, cap) < 0) {
            /* Out of memory: a table with holes in its probe runs could
             * hide a survivor, so start again empty (the next scan reads
             * every bundle, as without a cache). */
            for (size_t i = 0; i < cache->cap; i++)
                if (cache->slots[i])
                    free_slot(&cache->slots[i]);
            cache->used = 0;
        }
    }
    return cache->used;
}
