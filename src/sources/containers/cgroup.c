/* sources/containers/cgroup.c -- memory usage, limit, OOM-kill count and
 * freezer state of a container's cgroup, v1 and v2, and the kernel's
 * notification of its OOMs (see cgroup.h). */
#include "pna_autoconf.h"
#include "sources/containers/cgroup.h"
#include "core/roots.h"
#include "util/fileio.h"
#include "util/held_files.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

/* v1 reports "no limit" as PAGE_COUNTER_MAX pages in bytes (9223372036854771712
 * with 4 KiB pages); anything from 2^62 up is that, whatever the page size. */
#define V1_UNLIMITED_FROM (1ull << 62)

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

int pna_cgroup_detect(const struct pna_roots *roots, const char *rel,
                      struct pna_cgroup_env *env, char *err, size_t errlen)
{
    char base[512], probe[600];
    env->mode = PNA_CG_NONE;
    env->mem_root[0] = '\0';
    env->freezer_root[0] = '\0';
    if (pna_path(base, sizeof base, roots->sysfs, "/%s", rel ? rel : "fs/cgroup") < 0) {
        snprintf(err, errlen, "cgroup root path too long");
        return -1;
    }
    snprintf(probe, sizeof probe, "%s/cgroup.controllers", base);
    if (exists(probe)) {
        env->mode = PNA_CG_V2;
        pna_strlcpy(env->mem_root, base, sizeof env->mem_root);
        pna_strlcpy(env->freezer_root, base, sizeof env->freezer_root);
        return 0;
    }
    /* v1 (and the hybrid layout, whose "unified" mount has no memory controller). */
    snprintf(probe, sizeof probe, "%s/memory", base);
    if (is_dir(probe)) {
        env->mode = PNA_CG_V1;
        pna_strlcpy(env->mem_root, probe, sizeof env->mem_root);
        snprintf(probe, sizeof probe, "%s/freezer", base);
        if (is_dir(probe))
            pna_strlcpy(env->freezer_root, probe, sizeof env->freezer_root);
        return 0;
    }
    snprintf(err, errlen, "no memory cgroup hierarchy under %s", base);
    return -1;
}

/* A hierarchy path must not climb out of the root. */
static bool safe_path(const char *p)
{
    if (p[0] != '/')
        return false;
    for (const char *s = p; (s = strstr(s, "..")) != NULL; s += 2)
        if (s[-1] == '/' && (s[2] == '/' || s[2] == '\0'))
            return false;
    return true;
}

static bool has_controller(const char *list, size_t len, const char *want)
{
    size_t wl = strlen(want);
    const char *p = list, *end = list + len;
    while (p < end) {
        const char *c = memchr(p, ',', (size_t)(end - p));
        size_t n = c ? (size_t)(c - p) : (size_t)(end - p);
        if (n == wl && memcmp(p, want, wl) == 0)
            return true;
        p += n + 1;
    }
    return false;
}

int pna_cgroup_parse_proc(const char *text, int mode, char *buf, size_t cap)
{
    const char *line = text;
    while (line && *line) {
        const char *eol = strchr(line, '\n');
        size_t len = eol ? (size_t)(eol - line) : strlen(line);
        /* "hierarchy-ID:controller-list:cgroup-path" */
        const char *c1 = memchr(line, ':', len);
        const char *c2 = c1 ? memchr(c1 + 1, ':', len - (size_t)(c1 + 1 - line)) : NULL;
        if (c2) {
            bool match;
            if (mode == PNA_CG_V2)
                match = c1 - line == 1 && line[0] == '0' && c2 == c1 + 1;
            else
                match = has_controller(c1 + 1, (size_t)(c2 - c1 - 1), "memory");
            if (match) {
                size_t pl = len - (size_t)(c2 + 1 - line);
                if (pl == 0 || pl >= cap)
                    return -ENAMETOOLONG;
                memcpy(buf, c2 + 1, pl);
                buf[pl] = '\0';
                return safe_path(buf) ? 0 : -EINVAL;
            }
        }
        line = eol ? eol + 1 : NULL;
    }
    return -ENOENT;
}

int pna_cgroup_path_of_pid(const struct pna_roots *roots, int mode, int pid,
                           char *buf, size_t cap)
{
    char path[512], text[4096];
    if (pid <= 0)
        return -EINVAL;
    if (pna_path(path, sizeof path, roots->procfs, "/%d/cgroup", pid) < 0)
        return -ENAMETOOLONG;
    int n = pna_read_text(path, text, sizeof text);
    if (n < 0)
        return n;
    return pna_cgroup_parse_proc(text, mode, buf, cap);
}

/* "a-b-c.slice" lives at /a.slice/a-b.slice/a-b-c.slice (systemd's rule). */
static int expand_slice(const char *slice, char *buf, size_t cap, size_t *at)
{
    size_t sl = strlen(slice);
    if (sl < 6 || strcmp(slice + sl - 6, ".slice") != 0)
        return -EINVAL;
    if (strcmp(slice, "-.slice") == 0)
        return 0;
    const char *name_end = slice + sl - 6;
    for (const char *p = slice; p <= name_end; p++) {
        if (p != name_end && *p != '-')
            continue;
        if (p == slice)
            return -EINVAL;
        int w = snprintf(buf + *at, cap - *at, "/%.*s.slice", (int)(p - slice), slice);
        if (w < 0 || (size_t)w >= cap - *at)
            return -ENAMETOOLONG;
        *at += (size_t)w;
    }
    return 0;
}

int pna_cgroup_path_from_spec(const char *spec, char *buf, size_t cap)
{
    if (!spec || !*spec)
        return -EINVAL;
    if (spec[0] == '/' || !strchr(spec, ':')) {
        int w = snprintf(buf, cap, "%s%s", spec[0] == '/' ? "" : "/", spec);
        if (w < 0 || (size_t)w >= cap)
            return -ENAMETOOLONG;
        return safe_path(buf) ? 0 : -EINVAL;
    }
    char slice[256], prefix[128], name[256];
    if (sscanf(spec, "%255[^:]:%127[^:]:%255s", slice, prefix, name) != 3)
        return -EINVAL;
    size_t at = 0;
    buf[0] = '\0';
    int rc = expand_slice(slice, buf, cap, &at);
    if (rc < 0)
        return rc;
    size_t nl = strlen(name);
    int w;
    if (nl > 6 && strcmp(name + nl - 6, ".slice") == 0)
        w = snprintf(buf + at, cap - at, "/%s", name);
    else
        w = snprintf(buf + at, cap - at, "/%s-%s.scope", prefix, name);
    if (w < 0 || (size_t)w >= cap - at)
        return -ENAMETOOLONG;
    return safe_path(buf) ? 0 : -EINVAL;
}

/* The directory of cgroup PATH under ROOT. */
static int cgroup_dir(const char *root, const char *path, char *buf, size_t cap)
{
    if (!safe_path(path))
        return -EINVAL;
    /* The root cgroup is "/": no double slash. */
    int w = snprintf(buf, cap, "%s%s", root, strcmp(path, "/") ? path : "");
    return w < 0 || (size_t)w >= cap ? -ENAMETOOLONG : 0;
}

/* The file FILE of cgroup PATH under ROOT. */
static int file_under(const char *root, const char *path, const char *file, char *buf,
                      size_t cap)
{
    int rc = cgroup_dir(root, path, buf, cap);
    if (rc < 0)
        return rc;
    size_t n = strlen(buf);
    int w = snprintf(buf + n, cap - n, "/%s", file);
    return w < 0 || (size_t)w >= cap - n ? -ENAMETOOLONG : 0;
}

/* The file FILE of cgroup PATH in the memory hierarchy. */
static int file_in(const struct pna_cgroup_env *env, const char *path, const char *file,
                   char *buf, size_t cap)
{
    if (env->mode == PNA_CG_NONE)
        return -EINVAL;
    return file_under(env->mem_root, path, file, buf, cap);
}

int pna_cgroup_parse_key(const char *text, const char *key, uint64_t *out)
{
    size_t klen = strlen(key);
    const char *p = text;
    while (p && *p) {
        if (strncmp(p, key, klen) == 0 && p[klen] == ' ') {
            char num[32];
            size_t n = strcspn(p + klen + 1, "\n");
            if (n >= sizeof num)
                return -EINVAL;
            memcpy(num, p + klen + 1, n);
            num[n] = '\0';
            return pna_parse_u64(num, out);
        }
        p = strchr(p, '\n');
        if (p)
            p++;
    }
    return -ENOENT;
}

int pna_cgroup_parse_oom_kill(const char *text, uint64_t *out)
{
    return pna_cgroup_parse_key(text, "oom_kill", out);
}

int pna_cgroup_read_oom_kill(const char *file, uint64_t *out)
{
    char text[1024];
    int n = pna_read_text(file, text, sizeof text);
    if (n < 0)
        return n;
    return pna_cgroup_parse_oom_kill(text, out);
}

static const char *oom_file_name(const struct pna_cgroup_env *env)
{
    return env->mode == PNA_CG_V2 ? "memory.events" : "memory.oom_control";
}

int pna_cgroup_oom_file(const struct pna_cgroup_env *env, const char *path, char *buf, size_t cap)
{
    return file_in(env, path, oom_file_name(env), buf, cap);
}

bool pna_cgroup_id_equal(const struct pna_cgroup_id *a, const struct pna_cgroup_id *b)
{
    return a->dev == b->dev && a->ino == b->ino && a->btime_ns == b->btime_ns;
}

/* The identity of the directory open on FD (see struct pna_cgroup_id). */
static int dir_identity(int fd, struct pna_cgroup_id *id)
{
    memset(id, 0, sizeof *id);
#ifdef STATX_BTIME
    struct statx sx;
    if (statx(fd, "", AT_EMPTY_PATH, STATX_INO | STATX_BTIME, &sx) == 0) {
        id->dev = ((uint64_t)sx.stx_dev_major << 32) | sx.stx_dev_minor;
        id->ino = sx.stx_ino;
        if (sx.stx_mask & STATX_BTIME)
            id->btime_ns = (int64_t)sx.stx_btime.tv_sec * 1000000000 + sx.stx_btime.tv_nsec;
        return 0;
    }
    if (errno != ENOSYS)
        return -errno;
#endif
    /* No statx (libc or kernel): the inode number alone, which is what
     * cgroupfs makes unique anyway. */
    struct stat st;
    if (fstat(fd, &st) < 0)
        return -errno;
    id->dev = (uint64_t)st.st_dev;
    id->ino = (uint64_t)st.st_ino;
    return 0;
}

int pna_cgroup_read_oom_state(const struct pna_cgroup_env *env, const char *path,
                              uint64_t *count, struct pna_cgroup_id *id)
{
    char dir[1024], text[1024];
    int rc = file_in(env, path, "", dir, sizeof dir);
    if (rc < 0)
        return rc;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    rc = dir_identity(fd, id);
    if (rc == 0)
        rc = pna_read_attr_at(fd, oom_file_name(env), text, sizeof text);
    close(fd);
    if (rc < 0)
        return rc;
    rc = pna_cgroup_parse_oom_kill(text, count);
    /* A file without the line is not a cgroup gone: say which. */
    return rc == -ENOENT ? -ENODATA : rc;
}

int pna_cgroup_event_control(const struct pna_cgroup_env *env, const char *path,
                             char *buf, size_t cap)
{
    if (env->mode != PNA_CG_V1)
        return -EINVAL;
    return file_in(env, path, "cgroup.event_control", buf, cap);
}

/* v1: "<eventfd> <fd of memory.oom_control>" written to cgroup.event_control
 * arms the notification (see struct pna_cgroup_oom_notify). */
static int notify_v1(const struct pna_cgroup_env *env, const char *path, const char *file)
{
    char ctl[600], line[64];
    int rc = pna_cgroup_event_control(env, path, ctl, sizeof ctl);
    if (rc < 0)
        return rc;
    int ofd = open(file, O_RDONLY | O_CLOEXEC);
    if (ofd < 0)
        return -errno;
    int efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (efd < 0) {
        rc = -errno;
        close(ofd);
        return rc;
    }
    int high = pna_fd_renumber_high(efd);
    if (high >= 0)
        efd = high;
    int cfd = open(ctl, O_WRONLY | O_CLOEXEC);
    int n = snprintf(line, sizeof line, "%d %d", efd, ofd);
    rc = cfd < 0 ? -errno : write(cfd, line, (size_t)n) == n ? 0 : -errno;
    if (cfd >= 0)
        close(cfd);
    close(ofd);
    if (rc < 0) {
        close(efd);
        return rc;
    }
    return efd;
}

int pna_cgroup_oom_notify(const struct pna_cgroup_env *env, int inotify_fd, const char *path,
                          struct pna_cgroup_oom_notify *out)
{
    char file[600];
    out->fd = out->wd = -1;
    int rc = pna_cgroup_oom_file(env, path, file, sizeof file);
    if (rc < 0)
        return rc;
    if (env->mode == PNA_CG_V2) {
        out->wd = inotify_add_watch(inotify_fd, file, IN_MODIFY);
        return out->wd < 0 ? -errno : 0;
    }
    rc = notify_v1(env, path, file);
    if (rc < 0)
        return rc;
    out->fd = rc;
    return 0;
}

void pna_cgroup_oom_unnotify(int inotify_fd, struct pna_cgroup_oom_notify *n)
{
    if (n->wd >= 0)
        inotify_rm_watch(inotify_fd, n->wd);
    if (n->fd >= 0)
        close(n->fd);
    n->fd = n->wd = -1;
}

void pna_cgroup_at_open(const struct pna_cgroup_env *env, struct pna_cgroup_at *at)
{
    at->mem = env->mode == PNA_CG_NONE ? -1 : open(env->mem_root, O_PATH | O_DIRECTORY | O_CLOEXEC);
    at->freezer = env->freezer_root[0] && strcmp(env->freezer_root, env->mem_root) != 0
                      ? open(env->freezer_root, O_PATH | O_DIRECTORY | O_CLOEXEC)
                      : -1;
}

void pna_cgroup_at_close(struct pna_cgroup_at *at)
{
    if (at->mem >= 0)
        close(at->mem);
    if (at->freezer >= 0)
        close(at->freezer);
    at->mem = at->freezer = -1;
}

/* The directory of cgroup PATH in hierarchy ROOT as a path from ROOT_FD
 * (ROOT opened) when that is open, else from the file system's root. */
static int cgroup_dir_at(const char *root, int root_fd, const char *path, int *at, char *buf,
                         size_t cap)
{
    *at = AT_FDCWD;
    if (root_fd < 0)
        return cgroup_dir(root, path, buf, cap);
    if (!safe_path(path))
        return -EINVAL;
    *at = root_fd;
    int w = snprintf(buf, cap, "%s", strcmp(path, "/") ? path + 1 : ".");
    return w < 0 || (size_t)w >= cap ? -ENAMETOOLONG : 0;
}

/* The files a poll reads, in the order of enum mem_file: the memory
 * directory's (v2: the freezer's cgroup.events too, same directory), and the
 * v1 freezer directory's. */
enum mem_file { MF_USAGE, MF_LIMIT, MF_OOM, MF_STAT, MF_EVENTS, MF_COUNT };
static const char *const v2_files[MF_COUNT] = {
    "memory.current", "memory.max", "memory.events", "memory.stat", "cgroup.events",
};
static const char *const v1_files[MF_STAT + 1] = {
    "memory.usage_in_bytes", "memory.limit_in_bytes", "memory.oom_control", "memory.stat",
};
static const char *const v2_freezer_files[] = { "cgroup.events" };
static const char *const v1_freezer_files[] = { "freezer.state" };

/* v2, and both controllers in one directory: the freezer is read with the
 * memory files. */
static bool freezer_in_mem_dir(const struct pna_cgroup_env *env)
{
    return env->mode == PNA_CG_V2 && strcmp(env->freezer_root, env->mem_root) == 0;
}

static int open_mem_files(const struct pna_cgroup_env *env, int root_fd, const char *path,
                          struct pna_held_dir *h, bool keep)
{
    char dir[1024];
    int at, rc = cgroup_dir_at(env->mem_root, root_fd, path, &at, dir, sizeof dir);
    if (rc < 0)
        return rc;
    if (env->mode == PNA_CG_V2)
        return pna_held_dir_open(h, at, dir, v2_files,
                                 freezer_in_mem_dir(env) ? MF_COUNT : MF_EVENTS, keep);
    return pna_held_dir_open(h, at, dir, v1_files, MF_STAT + 1, keep);
}

static int open_freezer_files(const struct pna_cgroup_env *env, int root_fd, const char *path,
                              struct pna_held_dir *h, bool keep)
{
    char dir[1024];
    if (!env->freezer_root[0])
        return -EINVAL;
    int at, rc = cgroup_dir_at(env->freezer_root, root_fd, path, &at, dir, sizeof dir);
    if (rc < 0)
        return rc;
    return pna_held_dir_open(h, at, dir,
                             env->mode == PNA_CG_V2 ? v2_freezer_files : v1_freezer_files, 1, keep);
}

/* The working set as the kubelet and `docker stats` compute it: usage less
 * the inactive file cache (memory.stat total_inactive_file in v1, where the
 * hierarchical figure matches usage_in_bytes; inactive_file in v2), never
 * below zero. */
static void read_working_set(struct pna_held_dir *h, bool v2, struct pna_cgroup_mem *mem)
{
    char text[PNA_CGROUP_MEMORY_STAT_MAX];
    uint64_t inactive;
    if (!mem->has_usage || pna_held_dir_read(h, MF_STAT, text, sizeof text) < 0 ||
        pna_cgroup_parse_key(text, v2 ? "inactive_file" : "total_inactive_file", &inactive) < 0)
        return;
    mem->has_working_set = true;
    mem->working_set_bytes = inactive < mem->usage_bytes ? mem->usage_bytes - inactive : 0;
}

static void read_memory(struct pna_held_dir *h, bool v2, struct pna_cgroup_mem *mem)
{
    char text[1024];
    if (pna_held_dir_read(h, MF_USAGE, text, 64) >= 0 &&
        pna_parse_u64(text, &mem->usage_bytes) == 0)
        mem->has_usage = true;

    if (pna_held_dir_read(h, MF_LIMIT, text, 64) >= 0) {
        uint64_t v;
        if (strcmp(text, "max") != 0 && pna_parse_u64(text, &v) == 0 &&
            (v2 || v < V1_UNLIMITED_FROM)) {
            mem->has_limit = true;
            mem->limit_bytes = v;
        }
    }

    if (pna_held_dir_read(h, MF_OOM, text, sizeof text) >= 0 &&
        pna_cgroup_parse_oom_kill(text, &mem->oom_kills) == 0)
        mem->has_oom = true;
    read_working_set(h, v2, mem);
}

static int read_frozen_held(struct pna_held_dir *h, size_t file, int mode, bool *frozen);
static int read_freeze_request(const struct pna_cgroup_env *env, const char *path, bool *frozen);

void pna_cgroup_files_init(struct pna_cgroup_files *f)
{
    f->keep = false;
    pna_held_dir_init(&f->mem);
    f->freezer = NULL;
}

void pna_cgroup_files_close(struct pna_cgroup_files *f)
{
    pna_held_dir_close(&f->mem);
    if (f->freezer) {
        pna_held_dir_close(f->freezer);
        free(f->freezer);
        f->freezer = NULL;
    }
}

/* v1's freezer state, through F's freezer files (opened, or kept, here). */
static int read_frozen_v1(const struct pna_cgroup_env *env, int root_fd, const char *path,
                          struct pna_cgroup_files *f, bool keep, bool *frozen)
{
    struct pna_held_dir once, *h = f->freezer;
    if (!h && keep && (h = f->freezer = malloc(sizeof *h)) != NULL)
        pna_held_dir_init(h);
    if (!h) {   /* not kept, or out of memory: opened for this read only */
        h = &once;
        pna_held_dir_init(h);
        keep = false;
    }
    int rc = open_freezer_files(env, root_fd, path, h, keep);
    if (rc == 0) {
        rc = read_frozen_held(h, 0, env->mode, frozen);
        pna_held_dir_done(h);
    }
    return rc;
}

/* The freezer of the cgroup whose files F holds, as pna_cgroup_read_frozen(). */
static int read_frozen_files(const struct pna_cgroup_env *env, int root_fd, const char *path,
                             struct pna_cgroup_files *f, int mem_rc, bool keep, bool *frozen)
{
    int rc = freezer_in_mem_dir(env)
                 ? (mem_rc < 0 ? mem_rc : read_frozen_held(&f->mem, MF_EVENTS, env->mode, frozen))
                 : read_frozen_v1(env, root_fd, path, f, keep, frozen);
    return rc == -ENODATA ? read_freeze_request(env, path, frozen) : rc;
}

int pna_cgroup_read_state_kept(const struct pna_cgroup_env *env, const struct pna_cgroup_at *at,
                               const char *path, struct pna_cgroup_files *files,
                               struct pna_cgroup_mem *mem, bool *frozen, int *frozen_rc)
{
    memset(mem, 0, sizeof *mem);
    if (frozen) {
        *frozen = false;
        *frozen_rc = -EINVAL;
    }
    if (env->mode == PNA_CG_NONE)
        return -EINVAL;
    bool keep = files->keep;
    int rc = open_mem_files(env, at ? at->mem : -1, path, &files->mem, keep);
    if (frozen)
        *frozen_rc = read_frozen_files(env, at ? at->freezer : -1, path, files, rc, keep, frozen);
    if (rc < 0)
        return rc == -ENOTDIR ? -ENOENT : rc;
    read_memory(&files->mem, env->mode == PNA_CG_V2, mem);
    pna_held_dir_done(&files->mem);
    return 0;
}

int pna_cgroup_read_state(const struct pna_cgroup_env *env, const char *path,
                          struct pna_cgroup_mem *mem, bool *frozen, int *frozen_rc)
{
    struct pna_cgroup_files once;
    pna_cgroup_files_init(&once);
    int rc = pna_cgroup_read_state_kept(env, NULL, path, &once, mem, frozen, frozen_rc);
    pna_cgroup_files_close(&once);
    return rc;
}

int pna_cgroup_read_memory(const struct pna_cgroup_env *env, const char *path,
                           struct pna_cgroup_mem *mem)
{
    return pna_cgroup_read_state(env, path, mem, NULL, NULL);
}

/* ---- freezer ---------------------------------------------------------------- */

int pna_cgroup_parse_v2_frozen(const char *text, bool *frozen)
{
    /* cgroup.events: "populated 1\nfrozen 0\n" (frozen since Linux 5.2). */
    for (const char *p = text; p && *p;) {
        if (strncmp(p, "frozen ", 7) == 0) {
            if ((p[7] != '0' && p[7] != '1') || (p[8] != '\n' && p[8] != '\0'))
                return -EINVAL;
            *frozen = p[7] == '1';
            return 0;
        }
        p = strchr(p, '\n');
        if (p)
            p++;
    }
    return -EINVAL;
}

int pna_cgroup_parse_v1_freezer(const char *text, bool *frozen)
{
    /* freezer.state: THAWED, FREEZING or FROZEN.  FREEZING is a pause the
     * runtime asked for that some task has not reached yet: paused too. */
    size_t n = strcspn(text, "\n");
    if ((n == 6 && !strncmp(text, "FROZEN", 6)) || (n == 8 && !strncmp(text, "FREEZING", 8))) {
        *frozen = true;
        return 0;
    }
    if (n == 6 && !strncmp(text, "THAWED", 6)) {
        *frozen = false;
        return 0;
    }
    return -EINVAL;
}

/* v2 without a frozen key in cgroup.events: the request file cgroup.freeze,
 * the only word there is.  Opened by path, not kept: the kernel gave both
 * together (Linux 5.2), so this is for trees that do not come from it. */
static int read_freeze_request(const struct pna_cgroup_env *env, const char *path, bool *frozen)
{
    char file[1100], text[256];
    int rc = file_under(env->freezer_root, path, "cgroup.freeze", file, sizeof file);
    if (rc < 0)
        return rc;
    if ((rc = pna_read_text(file, text, sizeof text)) < 0)
        return rc;
    if (strcmp(text, "0") != 0 && strcmp(text, "1") != 0)
        return -EINVAL;
    *frozen = text[0] == '1';
    return 0;
}

/* The freezer state in file FILE of H: cgroup.events (v2) or freezer.state
 * (v1).  -ENODATA: a v2 cgroup.events without the frozen key. */
static int read_frozen_held(struct pna_held_dir *h, size_t file, int mode, bool *frozen)
{
    char text[256];
    int rc = pna_held_dir_read(h, file, text, sizeof text);
    if (rc < 0)
        return rc;
    if (mode == PNA_CG_V2)
        return pna_cgroup_parse_v2_frozen(text, frozen) == 0 ? 0 : -ENODATA;
    return pna_cgroup_parse_v1_freezer(text, frozen);
}

int pna_cgroup_read_frozen(const struct pna_cgroup_env *env, const char *path, bool *frozen)
{
    *frozen = false;
    if ((env->mode != PNA_CG_V2 && env->mode != PNA_CG_V1) || !env->freezer_root[0])
        return -EINVAL;
    struct pna_held_dir h;
    pna_held_dir_init(&h);
    int rc = open_freezer_files(env, -1, path, &h, false);
    if (rc == 0)
        rc = read_frozen_held(&h, 0, env->mode, frozen);
    pna_held_dir_close(&h);
    return rc == -ENODATA ? read_freeze_request(env, path, frozen) : rc;
}
