/* sources/containers/containerd.c -- containerd tasks from the bundles of its
 * v2 runtime (see containerd.h). */
#include "pna_autoconf.h"
#include "sources/containers/containerd.h"
#include "sources/containers/cgroup.h"
#include "sources/containers/oci_spec.h"
#include "core/roots.h"
#include "util/fileio.h"
#include "util/array.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static bool skip_entry(const struct dirent *e)
{
    return e->d_name[0] == '.';
}

static bool is_dir_at(const char *dir, const char *name)
{
    char p[1024];
    struct stat st;
    if (snprintf(p, sizeof p, "%s/%s", dir, name) >= (int)sizeof p)
        return false;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static int64_t mtime_ms(const struct stat *st)
{
    return (int64_t)st->st_mtim.tv_sec * 1000 + st->st_mtim.tv_nsec / 1000000;
}

void pna_container_fill_runtime(const struct pna_roots *roots, const struct pna_cgroup_env *cg,
                                struct pna_container *c, const char *spec_cgroups_path)
{
    char path[512];
    int mode = cg ? cg->mode : PNA_CG_NONE;
    if (c->pid > 0 && c->state == PNA_CSTATE_UNKNOWN) {
        struct stat st;
        /* The task's process is alive as long as procfs has it. */
        if (pna_path(path, sizeof path, roots->procfs, "/%d", c->pid) == 0 &&
            stat(path, &st) == 0)
            c->state = PNA_CSTATE_RUNNING;
        else
            c->state = PNA_CSTATE_EXITED;
    }
    /* The process's own view is the truth (cgroup drivers and nesting vary);
     * the spec's cgroupsPath is the fallback for a task not running. */
    if (!c->cgroup_path[0] && mode != PNA_CG_NONE && c->pid > 0 &&
        c->state == PNA_CSTATE_RUNNING &&
        pna_cgroup_path_of_pid(roots, mode, c->pid, c->cgroup_path, sizeof c->cgroup_path) < 0)
        c->cgroup_path[0] = '\0';
    if (!c->cgroup_path[0] && spec_cgroups_path && *spec_cgroups_path &&
        pna_cgroup_path_from_spec(spec_cgroups_path, c->cgroup_path, sizeof c->cgroup_path) < 0)
        c->cgroup_path[0] = '\0';
    if (!c->cgroup_path[0] || mode == PNA_CG_NONE)
        return;
    /* A paused task's process is alive but frozen: neither its bundle nor
     * procfs tells, its cgroup's freezer does (as runc itself decides). */
    bool frozen;
    if (c->state == PNA_CSTATE_RUNNING &&
        pna_cgroup_read_frozen(cg, c->cgroup_path, &frozen) == 0 && frozen)
        c->state = PNA_CSTATE_PAUSED;
    struct pna_cgroup_mem mem;
    if (pna_cgroup_read_memory(cg, c->cgroup_path, &mem) < 0)
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

/* init.pid: the task's process id, written by the shim when it started. */
static void read_init_pid(const char *bundle, struct pna_container *c)
{
    char p[1024];
    uint64_t pid;
    struct stat st;
    if (snprintf(p, sizeof p, "%s/init.pid", bundle) >= (int)sizeof p)
        return;
    if (pna_read_u64(p, &pid) == 0 && pid > 0 && pid < (1u << 30) && stat(p, &st) == 0) {
        c->pid = (int32_t)pid;
        c->start_ms = mtime_ms(&st);
    } else {
        c->state = PNA_CSTATE_CREATED;
    }
}

static void note_error(struct pna_containerd_stats *st, const char *msg)
{
    st->bad_specs++;
    pna_strlcpy(st->last_error, msg, sizeof st->last_error);
}

static void scan_bundle(const struct pna_roots *roots, const struct pna_cgroup_env *cg,
                        const struct pna_cdi_registry *cdi, const char *nsdir, const char *ns, const char *id,
                        struct pna_container_set *set, struct pna_containerd_stats *st)
{
    char bundle[1024], spec[1100], err[400];
    if (snprintf(bundle, sizeof bundle, "%s/%s", nsdir, id) >= (int)sizeof bundle)
        return;
    snprintf(spec, sizeof spec, "%s/config.json", bundle);
    st->bundles++;
    if (!pna_container_id_ok(id)) {
        /* containerd refuses such IDs; a cut one could collide with another. */
        snprintf(err, sizeof err, "%.100s/%.100s: task id longer than %d characters", ns, id,
                 PNA_CONTAINER_ID_MAX);
        note_error(st, err);
        return;
    }
    char *text = NULL;
    size_t len = 0;
    int rc = pna_read_alloc(spec, PNA_OCI_MAX_BYTES, &text, &len);
    if (rc == -ENOENT)
        return;   /* being created or deleted right now; the next scan sees it */
    if (rc < 0) {
        snprintf(err, sizeof err, "%.100s/%.100s/config.json: %s", ns, id, strerror(-rc));
        note_error(st, err);
        return;
    }
    struct pna_oci_info info;
    rc = pna_oci_parse(text, len, id, roots, cdi, set, &info, err, sizeof err);
    free(text);
    if (rc < 0) {
        note_error(st, err);
        return;
    }
    st->unresolved += info.unresolved;
    if (info.sandbox) {
        pna_container_set_drop_last(set);
        st->sandboxes++;
        return;
    }
    struct pna_container *c = &set->rows[set->count - 1];
    pna_copy_display(c->rt_namespace, ns, sizeof c->rt_namespace);
    read_init_pid(bundle, c);
    pna_container_fill_runtime(roots, cg, c, info.cgroups_path);
    st->added++;
}

int pna_containerd_scan(const struct pna_roots *roots, const char *state_rel,
                        const struct pna_cgroup_env *cg, const struct pna_cdi_registry *cdi,
                        struct pna_container_set *set,
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
        if (errno == ENOENT || errno == ENOTDIR)
            return 1;
        snprintf(err, errlen, "%s: %s", base, strerror(errno));
        return -1;
    }
    struct dirent *ns;
    while ((ns = readdir(top)) != NULL) {
        if (skip_entry(ns) || !is_dir_at(base, ns->d_name))
            continue;
        char nsdir[1024];
        if (snprintf(nsdir, sizeof nsdir, "%s/%s", base, ns->d_name) >= (int)sizeof nsdir)
            continue;
        DIR *d = opendir(nsdir);
        if (!d)
            continue;
        struct dirent *b;
        while ((b = readdir(d)) != NULL && stats->bundles < PNA_CONTAINERD_MAX_BUNDLES) {
            if (skip_entry(b) || !is_dir_at(nsdir, b->d_name))
                continue;
            scan_bundle(roots, cg, cdi, nsdir, ns->d_name, b->d_name, set, stats);
        }
        closedir(d);
    }
    closedir(top);
    return 0;
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
        if (skip_entry(ns) || !is_dir_at(base, ns->d_name))
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
            if (skip_entry(b) || !is_dir_at(nsdir, b->d_name))
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
