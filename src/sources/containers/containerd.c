/* sources/containers/containerd.c -- containerd tasks from the bundles of its
 * v2 runtime (see containerd.h). */
#include "pna_autoconf.h"
#include "sources/containers/containerd.h"
#include "sources/containers/cgroup.h"
#include "sources/containers/oci_spec.h"
#include "sources/containers/bundle_cache.h"
#include "core/cache.h"
#include "core/roots.h"
#include "util/fileio.h"
#include "util/array.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool skip_entry(const struct dirent *e)
{
    return e->d_name[0] == '.';
}

static int64_t mtime_ms(const struct stat *st)
{
    return (int64_t)st->st_mtim.tv_sec * 1000 + st->st_mtim.tv_nsec / 1000000;
}

/* What fill_runtime() reads through: a scan's opened roots, and what a
 * bundle's cache entry keeps (the process's cgroup path, the cgroup's open
 * files).  All empty (-1, NULL): paths walked whole and nothing kept (a scan
 * without a cache, Docker's containers). */
struct runtime_reader {
    int proc_fd;                     /* the procfs root, opened; -1: by path */
    const struct pna_cgroup_at *at;  /* the cgroup hierarchies' roots; NULL: by path */
    char **pid_cgroup;               /* see process_cgroup() */
    struct pna_cgroup_files *files;  /* NULL: the files opened and closed */
};

/* Whether process PID is alive: as long as procfs has it. */
static bool process_alive(const struct pna_roots *roots, int proc_fd, int pid)
{
    char path[512];
    struct stat st;
    if (proc_fd >= 0) {
        snprintf(path, sizeof path, "%d", pid);
        return fstatat(proc_fd, path, &st, 0) == 0;
    }
    return pna_path(path, sizeof path, roots->procfs, "/%d", pid) == 0 && stat(path, &st) == 0;
}

/* The cgroup of running process C->pid: from *MEMO when it holds it (it
 * is that process's, see bundle_cache.h), else from procfs, then kept in
 * *MEMO (MEMO may be NULL: nothing kept). */
static int process_cgroup(const struct pna_roots *roots, int mode, struct pna_container_set *set,
                          struct pna_container *c, char **memo)
{
    if (memo && *memo)
        return pna_container_set_text(set, &c->cgroup_path, *memo, PNA_CTR_CGROUP_CAP);
    char path[PNA_CTR_CGROUP_CAP];
    int rc = pna_cgroup_path_of_pid(roots, mode, c->pid, path, sizeof path);
    if (rc < 0 || pna_container_set_text(set, &c->cgroup_path, path, sizeof path) < 0)
        return -1;
    if (memo)
        *memo = strdup(path);   /* NULL: read again next time */
    return 0;
}

/* The spec's cgroupsPath as a hierarchy path. */
static void spec_cgroup(struct pna_container_set *set, struct pna_container *c,
                        const char *spec_cgroups_path)
{
    char path[PNA_CTR_CGROUP_CAP];
    if (pna_cgroup_path_from_spec(spec_cgroups_path, path, sizeof path) == 0)
        pna_container_set_text(set, &c->cgroup_path, path, sizeof path);
}

/* The cgroup's memory figures and freezer, through RD's files if any. */
static int read_cgroup(const struct pna_cgroup_env *cg, const char *path,
                       const struct runtime_reader *rd, struct pna_cgroup_mem *mem,
                       bool *frozen, int *frozen_rc)
{
    if (rd->files)
        return pna_cgroup_read_state_kept(cg, rd->at, path, rd->files, mem, frozen, frozen_rc);
    return pna_cgroup_read_state(cg, path, mem, frozen, frozen_rc);
}

static void fill_runtime(const struct pna_roots *roots, const struct pna_cgroup_env *cg,
                         struct pna_container_set *set, struct pna_container *c,
                         const char *spec_cgroups_path, const struct runtime_reader *rd)
{
    int mode = cg ? cg->mode : PNA_CG_NONE;
    if (c->pid > 0 && c->state == PNA_CSTATE_UNKNOWN)
        c->state = process_alive(roots, rd->proc_fd, c->pid) ? PNA_CSTATE_RUNNING
                                                            : PNA_CSTATE_EXITED;
    /* The process's own view is the truth (cgroup drivers and nesting vary);
     * the spec's cgroupsPath is the fallback for a task not running. */
    if (!c->cgroup_path[0] && mode != PNA_CG_NONE && c->pid > 0 &&
        c->state == PNA_CSTATE_RUNNING)
        process_cgroup(roots, mode, set, c, rd->pid_cgroup);
    if (!c->cgroup_path[0] && spec_cgroups_path && *spec_cgroups_path)
        spec_cgroup(set, c, spec_cgroups_path);
    if (!c->cgroup_path[0] || mode == PNA_CG_NONE)
        return;
    /* A paused task's process is alive but frozen: neither its bundle nor
     * procfs tells, its cgroup's freezer does (as runc itself decides). */
    bool running = c->state == PNA_CSTATE_RUNNING, frozen;
    int frozen_rc;
    struct pna_cgroup_mem mem;
    int rc = read_cgroup(cg, c->cgroup_path, rd, &mem, running ? &frozen : NULL, &frozen_rc);
    if (running && frozen_rc == 0 && frozen)
        c->state = PNA_CSTATE_PAUSED;
    if (rc < 0)
        return;
    c->has_memory = mem.has_usage;
    c->mem_usage_bytes = mem.usage_bytes;
    c->has_working_set = mem.has_working_set;
    c->mem_working_set_bytes = mem.working_set_bytes;
    if (mem.has_limit) {
        c->has_limit = true;
        c->mem_limit_bytes = mem.limit_bytes;
    } else if (mem.has_usage) {
        /* The cgroup is there and says "no limit": the spec's value is moot. */
        c->has_limit = false;
        c->mem_limit_bytes = 0;
    }
    c->has_oom = mem.has_oom;
    c->oom_kills = mem.oom_kills;
}

void pna_container_fill_runtime(const struct pna_roots *roots, const struct pna_cgroup_env *cg,
                                struct pna_container_set *set, struct pna_container *c,
                                const char *spec_cgroups_path)
{
    const struct runtime_reader by_path = { -1, NULL, NULL, NULL };
    fill_runtime(roots, cg, set, c, spec_cgroups_path, &by_path);
}

/* init.pid: the task's process id, written by the shim when it started;
 * its modification time is the start.  KNOWN (may be NULL): the file's
 * identity, just taken, whose time serves instead of another stat. */
static void read_init_pid(const char *bundle, const struct pna_file_id *known,
                          struct pna_container *c)
{
    char p[1024];
    uint64_t pid;
    struct stat st;
    if (snprintf(p, sizeof p, "%s/init.pid", bundle) >= (int)sizeof p)
        return;
    if (pna_read_u64(p, &pid) == 0 && pid > 0 && pid < (1u << 30) &&
        (known || stat(p, &st) == 0)) {
        c->pid = (int32_t)pid;
        c->start_ms = known ? known->mtime_ns / 1000000 : mtime_ms(&st);
    } else {
        c->state = PNA_CSTATE_CREATED;
    }
}

static void note_error(struct pna_containerd_stats *st, const char *msg)
{
    st->bad_specs++;
    pna_strlcpy(st->last_error, msg, sizeof st->last_error);
}

/* One scan: what every bundle is read with. */
struct scan {
    const struct pna_roots *roots;
    const struct pna_cgroup_env *cg;
    const struct pna_cdi_registry *cdi;
    struct pna_bundle_cache *cache;   /* NULL: every file read */
    int64_t now_ms;                   /* CLOCK_REALTIME, for the cache's racy test */
    struct pna_container_set *set;
    struct pna_containerd_stats *st;
    size_t files_limit;               /* tasks whose cgroup files may stay open */
    int proc_fd;                      /* the procfs root, opened for the scan; -1 */
    struct pna_cgroup_at at;          /* the cgroup roots, opened for the scan */
};

/* A directory entry that is a directory (or a link to one).  The entry's
 * type spares a stat on the filesystems that give it (tmpfs, ext4, xfs). */
static bool entry_is_dir(int dirfd, const struct dirent *e)
{
    if (e->d_type == DT_DIR)
        return true;
    if (e->d_type != DT_UNKNOWN && e->d_type != DT_LNK)
        return false;
    struct stat st;
    return fstatat(dirfd, e->d_name, &st, 0) == 0 && S_ISDIR(st.st_mode);
}

/* Read BUNDLE/config.json of task NS/ID into F: 0, -ENOENT (being created
 * or deleted right now; the next scan sees it), or -1 with ERR. */
static int read_spec(const char *bundle, const char *ns, const char *id, struct pna_oci_facts *f,
                     char *err, size_t errlen)
{
    char spec[1100];
    snprintf(spec, sizeof spec, "%s/config.json", bundle);
    char *text = NULL;
    size_t len = 0;
    int rc = pna_read_alloc(spec, PNA_OCI_MAX_BYTES, &text, &len);
    if (rc == -ENOENT)
        return rc;
    if (rc < 0) {
        snprintf(err, errlen, "%.100s/%.100s/config.json: %s", ns, id, strerror(-rc));
        return -1;
    }
    rc = pna_oci_facts_read(text, len, id, f, err, errlen);
    free(text);
    return rc;
}

/* The spec's facts of bundle NS/ID through its cache entry E: kept when
 * config.json is still the file they were read from, else read again.
 * Returns as read_spec(); on 0 E->facts holds them. */
static int cached_spec(const struct scan *sc, int nsfd, const char *bundle, const char *ns,
                       const char *id, struct pna_bundle_entry *e, bool *same, char *err,
                       size_t errlen)
{
    char rel[300];   /* a directory entry name (at most 255) and a file name */
    struct pna_file_id fid;
    int rc = 0;
    if (e->spec_known && pna_bundle_cache_quiet(sc->cache)) {
        *same = true;   /* nothing in the bundle directories changed */
    } else {
        snprintf(rel, sizeof rel, "%s/config.json", id);
        rc = pna_file_identity_at(nsfd, rel, &fid);
        if (rc == -ENOENT) {
            pna_bundle_entry_forget_spec(e);
            return rc;
        }
        *same = rc == 0 && e->spec_known && pna_file_id_equal(&fid, &e->spec_id);
    }
    if (*same) {
        if (!e->spec_error)
            return 0;
        pna_strlcpy(err, e->spec_error, errlen);
        return -1;
    }
    pna_bundle_entry_forget_spec(e);
    int got = read_spec(bundle, ns, id, &e->facts, err, errlen);
    if (got == -ENOENT)
        return got;
    if (got < 0 && !(e->spec_error = strdup(err)))
        return got;   /* not kept: read again next time */
    e->spec_id = fid;
    e->spec_known = rc == 0 && pna_file_id_settled(&fid, sc->now_ms);
    return got;
}

/* init.pid through the cache entry E (see bundle_cache.h): a pid once read
 * stays while the spec is the same file (SPEC_SAME); else the file is read
 * again when its identity changed. */
static void cached_init_pid(const struct scan *sc, int nsfd, const char *bundle, const char *id,
                            bool spec_same, struct pna_bundle_entry *e, struct pna_container *c)
{
    char rel[300];   /* a directory entry name (at most 255) and a file name */
    struct pna_file_id fid;
    int rc = 0;
    bool keep = spec_same && e->pid_known && e->pid > 0;
    if (!keep) {
        snprintf(rel, sizeof rel, "%s/init.pid", id);
        rc = pna_file_identity_at(nsfd, rel, &fid);
        keep = rc == 0 && e->pid_known && pna_file_id_equal(&fid, &e->pid_id);
    }
    if (keep) {
        c->pid = e->pid;
        c->start_ms = e->start_ms;
        if (!c->pid)
            c->state = PNA_CSTATE_CREATED;
        return;
    }
    pna_bundle_entry_forget_pid(e);
    read_init_pid(bundle, rc == 0 ? &fid : NULL, c);
    e->pid = c->pid;
    e->start_ms = c->start_ms;
    e->pid_id = fid;
    e->pid_known = rc == 0 && pna_file_id_settled(&fid, sc->now_ms);
}

static void scan_bundle(const struct scan *sc, int nsfd, const char *nsdir, const char *ns,
                        const char *id)
{
    struct pna_containerd_stats *st = sc->st;
    char bundle[1024], err[400];
    if (snprintf(bundle, sizeof bundle, "%s/%s", nsdir, id) >= (int)sizeof bundle)
        return;
    st->bundles++;
    if (!pna_container_id_ok(id)) {
        /* containerd refuses such IDs; a cut one could collide with another. */
        snprintf(err, sizeof err, "%.100s/%.100s: task id longer than %d characters", ns, id,
                 PNA_CONTAINER_ID_MAX);
        note_error(st, err);
        return;
    }
    struct pna_bundle_entry *e = sc->cache ? pna_bundle_cache_get(sc->cache, ns, id) : NULL;
    struct pna_oci_facts own;
    const struct pna_oci_facts *facts = e ? &e->facts : &own;
    bool same = false;
    int rc = e ? cached_spec(sc, nsfd, bundle, ns, id, e, &same, err, sizeof err)
               : read_spec(bundle, ns, id, &own, err, sizeof err);
    if (rc == -ENOENT)
        return;
    if (rc < 0) {
        note_error(st, err);
        return;
    }
    struct pna_oci_info info;
    rc = pna_oci_facts_apply(facts, id, sc->roots, sc->cdi, sc->set, &info, err, sizeof err);
    if (!e)
        pna_oci_facts_free(&own);
    if (rc < 0) {
        note_error(st, err);
        return;
    }
    st->unresolved += info.unresolved;
    if (info.sandbox) {
        pna_container_set_drop_last(sc->set);
        st->sandboxes++;
        return;
    }
    struct pna_container *c = &sc->set->rows[sc->set->count - 1];
    pna_container_set_display(sc->set, &c->rt_namespace, ns, PNA_CTR_RT_NAMESPACE_CAP);
    if (e)
        cached_init_pid(sc, nsfd, bundle, id, same, e, c);
    else
        read_init_pid(bundle, NULL, c);
    struct runtime_reader rd = { sc->proc_fd, &sc->at, NULL, NULL };
    if (e) {
        rd.pid_cgroup = &e->pid_cgroup;
        rd.files = &e->cgroup_files;
        rd.files->keep = st->files_kept < sc->files_limit;
    }
    fill_runtime(sc->roots, sc->cg, sc->set, c, info.cgroups_path, &rd);
    if (rd.files && rd.files->mem.kept)
        st->files_kept++;
    st->added++;
}

static void scan_namespace(const struct scan *sc, const char *base, const char *ns)
{
    char nsdir[1024];
    if (snprintf(nsdir, sizeof nsdir, "%s/%s", base, ns) >= (int)sizeof nsdir)
        return;
    DIR *d = opendir(nsdir);
    if (!d)
        return;
    int fd = dirfd(d);
    struct dirent *b;
    while ((b = readdir(d)) != NULL && sc->st->bundles < PNA_CONTAINERD_MAX_BUNDLES) {
        if (skip_entry(b) || !entry_is_dir(fd, b))
            continue;
        scan_bundle(sc, fd, nsdir, ns, b->d_name);
    }
    closedir(d);
}

/* The roots every task's process and cgroup are looked up under, opened
 * once for the scan: each lookup then walks from there.  A scan without a
 * cache walks whole paths, as it always did (the peer the cached scan is
 * measured against). */
static void open_scan_roots(struct scan *sc)
{
    char proc[512];
    if (!sc->cache)
        return;
    if (pna_path(proc, sizeof proc, sc->roots->procfs, "/") == 0)
        sc->proc_fd = open(proc, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (sc->cg)
        pna_cgroup_at_open(sc->cg, &sc->at);
}

static void close_scan_roots(struct scan *sc)
{
    if (sc->proc_fd >= 0)
        close(sc->proc_fd);
    pna_cgroup_at_close(&sc->at);
}

int pna_containerd_scan_cached(const struct pna_roots *roots, const char *state_rel,
                               const struct pna_cgroup_env *cg,
                               const struct pna_cdi_registry *cdi,
                               struct pna_bundle_cache *cache, struct pna_container_set *set,
                               struct pna_containerd_stats *stats, char *err, size_t errlen)
{
    char base[512];
    memset(stats, 0, sizeof *stats);
    if (pna_path(base, sizeof base, roots->rootfs, "/%s/%s", state_rel, PNA_CONTAINERD_TASK_DIR) < 0) {
        snprintf(err, errlen, "containerd state path too long");
        return -1;
    }
    DIR *top = opendir(base);
    if (!top) {
        if (errno == ENOENT || errno == ENOTDIR) {
            if (cache) {
                pna_bundle_cache_begin(cache);
                pna_bundle_cache_end(cache);
            }
            return 1;
        }
        snprintf(err, errlen, "%s: %s", base, strerror(errno));
        return -1;
    }
    struct scan sc = { roots, cg, cdi, cache, pna_now_ms(), set, stats,
                       cache ? pna_bundle_cache_files_limit(cache) : 0, -1, { -1, -1 } };
    open_scan_roots(&sc);
    if (cache)
        pna_bundle_cache_begin(cache);
    struct dirent *ns;
    while ((ns = readdir(top)) != NULL) {
        if (!skip_entry(ns) && entry_is_dir(dirfd(top), ns))
            scan_namespace(&sc, base, ns->d_name);
    }
    closedir(top);
    if (cache)
        pna_bundle_cache_end(cache);
    close_scan_roots(&sc);
    return 0;
}

int pna_containerd_scan(const struct pna_roots *roots, const char *state_rel,
                        const struct pna_cgroup_env *cg, const struct pna_cdi_registry *cdi,
                        struct pna_container_set *set,
                        struct pna_containerd_stats *stats, char *err, size_t errlen)
{
    return pna_containerd_scan_cached(roots, state_rel, cg, cdi, NULL, set, stats, err, errlen);
}

struct strv {
    char **v;
    size_t n, cap;
};

static void strv_add(struct strv *s, const char *path)
{
    if (PNA_ARRAY_RESERVE(s->v, s->cap, s->n + 1) != 0)
        return;
    char *copy = strdup(path);
    if (copy)
        s->v[s->n++] = copy;
}

char **pna_containerd_watch_dirs(const struct pna_roots *roots, const char *state_rel, size_t *n)
{
    struct strv out = { 0 };
    char base[512];
    *n = 0;
    if (pna_path(base, sizeof base, roots->rootfs, "/%s/%s", state_rel, PNA_CONTAINERD_TASK_DIR) < 0)
        return NULL;
    DIR *top = opendir(base);
    if (!top) {
        /* No task directory yet (containerd not started, or no task since it
         * started): watch the state directory, where containerd creates it,
         * so the first task is seen at once rather than at the next rescan. */
        char state[512];
        struct stat st;
        if (pna_path(state, sizeof state, roots->rootfs, "/%s", state_rel) == 0 &&
            stat(state, &st) == 0 && S_ISDIR(st.st_mode))
            strv_add(&out, state);
        *n = out.n;
        return out.v;
    }
    strv_add(&out, base);
    struct dirent *ns;
    while ((ns = readdir(top)) != NULL) {
        if (skip_entry(ns) || !entry_is_dir(dirfd(top), ns))
            continue;
        char nsdir[1024];
        if (snprintf(nsdir, sizeof nsdir, "%s/%s", base, ns->d_name) >= (int)sizeof nsdir)
            continue;
        strv_add(&out, nsdir);
        DIR *d = opendir(nsdir);
        if (!d)
            continue;
        struct dirent *b;
        while ((b = readdir(d)) != NULL && out.n < PNA_CONTAINERD_MAX_BUNDLES) {
            char bdir[1300];
            if (skip_entry(b) || !entry_is_dir(dirfd(d), b))
                continue;
            if (snprintf(bdir, sizeof bdir, "%s/%s", nsdir, b->d_name) < (int)sizeof bdir)
                strv_add(&out, bdir);
        }
        closedir(d);
    }
    closedir(top);
    *n = out.n;
    return out.v;
}

void pna_containerd_free_dirs(char **dirs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(dirs[i]);
    free(dirs);
}
