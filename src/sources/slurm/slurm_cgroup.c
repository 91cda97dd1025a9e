/* sources/slurm/slurm_cgroup.c -- see slurm_cgroup.h. */
#include "pna_autoconf.h"
#include "sources/slurm/slurm_cgroup.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sources/containers/cgroup.h"
#include "sources/slurm/slurm_fds.h"
#include "util/fileio.h"

/* A devices.list of a job is a few dozen lines; Slurm writes one line per
 * device it allows. */
#define DEVICES_LIST_MAX 16384

struct walk {
    const struct pna_roots *roots;
    struct pna_cgroup_env env;
    char devices_root[512];      /* v1's devices hierarchy; "" none */
    struct pna_slurm_snap *s;
    char first_reject[200];
    struct pna_slurm_fd_stats fds;
};

static void note_reject(struct walk *w, const char *rel, const char *why)
{
    w->s->rejected++;
    if (!w->first_reject[0])
        snprintf(w->first_reject, sizeof w->first_reject, "%.150s: %s", rel, why);
}

static bool is_dir_entry(const char *dir, const struct dirent *e)
{
    if (e->d_name[0] == '.')
        return false;
    if (e->d_type == DT_DIR)
        return true;
    if (e->d_type != DT_UNKNOWN)
        return false;
    char path[1024];
    struct stat st;
    return snprintf(path, sizeof path, "%s/%s", dir, e->d_name) < (int)sizeof path &&
           lstat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

typedef void (*dir_fn)(struct walk *w, const char *rel, const char *name, void *arg);

/* FN for each subdirectory NAME of the directory REL of the hierarchy at ROOT
 * (REL "" is the root itself). */
static void each_dir(struct walk *w, const char *root, const char *rel, dir_fn fn, void *arg)
{
    char dir[1024];
    if (snprintf(dir, sizeof dir, "%s%s", root, rel) >= (int)sizeof dir)
        return;
    DIR *d = opendir(dir);
    if (!d)
        return;
    const struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (is_dir_entry(dir, e))
            fn(w, rel, e->d_name, arg);
    closedir(d);
}

/* REL/NAME into OUT (a job's cgroup path must fit struct pna_slurm_job's). */
static bool child_path(struct walk *w, const char *rel, const char *name, char *out, size_t cap)
{
    if (snprintf(out, cap, "%s/%s", rel, name) < (int)cap)
        return true;
    note_reject(w, rel, "path too long");
    return false;
}

/* ---- v2: the user a job's tasks run as ------------------------------------ */

/* The owner of /proc/PID for the first process of cgroup REL; false none. */
static bool first_process_owner(struct walk *w, const char *rel, uint32_t *uid)
{
    char path[1024], text[64];
    if (snprintf(path, sizeof path, "%s%s/cgroup.procs", w->env.mem_root, rel) >= (int)sizeof path)
        return false;
    /* A task's cgroup may hold many processes; the first line is enough. */
    int fd = pna_open_attr_at(AT_FDCWD, path);
    if (fd < 0)
        return false;
    ssize_t n = read(fd, text, sizeof text - 1);
    close(fd);
    if (n <= 0)
        return false;
    text[n] = '\0';
    text[strcspn(text, "\n")] = '\0';
    uint64_t pid;
    struct stat st;
    if (pna_parse_u64(text, &pid) != 0 || pid == 0 || pid > 0x7fffffff ||
        pna_path(path, sizeof path, w->roots->procfs, "/%u", (unsigned)pid) != 0 ||
        stat(path, &st) != 0)
        return false;
    *uid = (uint32_t)st.st_uid;
    return true;
}

struct owner_search {
    struct pna_slurm_job *job;
};

static void task_owner(struct walk *w, const char *rel, const char *name, void *arg)
{
    struct owner_search *o = arg;
    char path[512];
    if (o->job->has_uid || strncmp(name, "task_", 5) != 0 ||
        snprintf(path, sizeof path, "%s/%s", rel, name) >= (int)sizeof path)
        return;
    o->job->has_uid = first_process_owner(w, path, &o->job->uid);
}

/* v2 step REL: its tasks are in REL/user/task_<n>. */
static void step_owner(struct walk *w, const char *rel, struct pna_slurm_job *job)
{
    char user[512];
    struct owner_search o = { job };
    if (!job->has_uid && snprintf(user, sizeof user, "%s/user", rel) < (int)sizeof user)
        each_dir(w, w->env.mem_root, user, task_owner, &o);
}

/* ---- one job ------------------------------------------------------------------ */

static void count_step(struct walk *w, const char *rel, const char *name, void *arg)
{
    struct pna_slurm_job *job = arg;
    char path[512];
    struct pna_slurm_cgroup cg;
    const char *why = "";
    if (!child_path(w, rel, name, path, sizeof path))
        return;
    int rc = pna_slurm_cgroup_parse(path, &cg, &why);
    if (rc < 0) {
        note_reject(w, path, why);
        return;
    }
    if (rc == 0 || !cg.has_step)
        return;
    job->steps++;
    if (cg.layout == PNA_SLURM_LAYOUT_V2)
        step_owner(w, path, job);
}

static void read_devices(struct walk *w, const char *rel, struct pna_slurm_job *job)
{
    char path[1024], *text;
    if (!w->devices_root[0] ||
        snprintf(path, sizeof path, "%s%s/devices.list", w->devices_root, rel) >=
            (int)sizeof path ||
        !(text = malloc(DEVICES_LIST_MAX)))
        return;
    if (pna_read_text(path, text, DEVICES_LIST_MAX) >= 0) {
        int n = pna_slurm_parse_devices(text, job->devices, PNA_SLURM_MAX_DEVICES);
        job->devices_known = n >= 0;
        job->n_devices = (uint16_t)(n > 0 ? n : 0);
    }
    free(text);
}

static void add_job(struct walk *w, const char *rel, const struct pna_slurm_cgroup *cg)
{
    if (w->s->count >= PNA_SLURM_MAX_JOBS) {
        w->s->dropped++;
        return;
    }
    struct pna_slurm_job *job = pna_slurm_add(w->s);
    if (!job)
        return;
    job->job_id = cg->job_id;
    job->has_uid = cg->has_uid;
    job->uid = cg->uid;
    pna_strlcpy(job->cgroup, rel, sizeof job->cgroup);
    char dir[1024];
    struct stat st;
    if (snprintf(dir, sizeof dir, "%s%s", w->env.mem_root, rel) >= (int)sizeof dir)
        dir[0] = '\0';
    else if (stat(dir, &st) == 0)
        job->start_s = (int64_t)st.st_ctim.tv_sec;
    each_dir(w, w->env.mem_root, rel, count_step, job);
    struct pna_cgroup_mem mem = { 0 };
    if (pna_cgroup_read_memory(&w->env, rel, &mem) == 0) {
        job->has_mem_usage = mem.has_usage;
        job->mem_usage_bytes = mem.usage_bytes;
        job->has_mem_limit = mem.has_limit;
        job->mem_limit_bytes = mem.limit_bytes;
    }
    read_devices(w, rel, job);
    if (dir[0])
        pna_slurm_read_opened(w->roots, dir, job, &w->fds);
}

/* A directory that may be a job's (below a v1 user's directory or a v2
 * scope): added, rejected with its reason, or not a job (v2's "system"). */
static void maybe_job(struct walk *w, const char *rel, const char *name, void *arg)
{
    (void)arg;
    char path[sizeof ((struct pna_slurm_job *)0)->cgroup];
    struct pna_slurm_cgroup cg;
    const char *why = "";
    if (!child_path(w, rel, name, path, sizeof path))
        return;
    int rc = pna_slurm_cgroup_parse(path, &cg, &why);
    if (rc < 0)
        note_reject(w, path, why);
    else if (rc == 1)
        add_job(w, path, &cg);
}

/* ---- v1: slurm[_<node>]/uid_<uid>/job_<job> ------------------------------ */

static void v1_user(struct walk *w, const char *rel, const char *name, void *arg)
{
    (void)arg;
    char path[512];
    struct pna_slurm_cgroup cg;
    const char *why = "";
    if (strncmp(name, "uid_", 4) != 0 || !child_path(w, rel, name, path, sizeof path))
        return;   /* Slurm's other directories ("system") hold no job */
    if (pna_slurm_cgroup_parse(path, &cg, &why) < 0) {
        note_reject(w, path, why);
        return;
    }
    each_dir(w, w->env.mem_root, path, maybe_job, NULL);
}

static void v1_root(struct walk *w, const char *rel, const char *name, void *arg)
{
    (void)arg;
    char path[512];
    if (pna_slurm_is_v1_root(name) && child_path(w, rel, name, path, sizeof path))
        each_dir(w, w->env.mem_root, path, v1_user, NULL);
}

/* ---- v2: [system.slice/][<node>_]slurmstepd.scope/job_<job> ---------------- */

static void v2_scope(struct walk *w, const char *rel, const char *name, void *arg)
{
    (void)arg;
    char path[512];
    if (pna_slurm_is_v2_scope(name) && child_path(w, rel, name, path, sizeof path))
        each_dir(w, w->env.mem_root, path, maybe_job, NULL);
}

static int dedupe_and_sort(struct walk *w)
{
    struct pna_slurm_snap *s = w->s;
    pna_slurm_sort(s);
    size_t kept = 0;
    for (size_t i = 0; i < s->count; i++) {
        if (kept && s->jobs[kept - 1].job_id == s->jobs[i].job_id) {
            note_reject(w, s->jobs[i].cgroup, "job seen twice");
            continue;
        }
        s->jobs[kept++] = s->jobs[i];
    }
    s->count = kept;
    return 0;
}

static int open_walk(struct walk *w, const struct pna_roots *roots, const char *cgroup_rel,
                     struct pna_slurm_snap *s, char *err, size_t errlen)
{
    memset(w, 0, sizeof *w);
    w->roots = roots;
    w->s = s;
    if (pna_cgroup_detect(roots, cgroup_rel, &w->env, err, errlen) < 0)
        return -1;
    char base[512];
    struct stat st;
    if (w->env.mode == PNA_CG_V1 &&
        pna_path(base, sizeof base, roots->sysfs, "/%s/devices", cgroup_rel) == 0 &&
        stat(base, &st) == 0 && S_ISDIR(st.st_mode))
        pna_strlcpy(w->devices_root, base, sizeof w->devices_root);
    return 0;
}

int pna_slurm_read(const struct pna_roots *roots, const char *cgroup_rel,
                   struct pna_slurm_snap *s, char *err, size_t errlen)
{
    struct walk w;
    if (open_walk(&w, roots, cgroup_rel, s, err, errlen) < 0)
        return -1;
    if (w.env.mode == PNA_CG_V1) {
        s->layout = PNA_SLURM_LAYOUT_V1;
        each_dir(&w, w.env.mem_root, "", v1_root, NULL);
    } else {
        s->layout = PNA_SLURM_LAYOUT_V2;
        each_dir(&w, w.env.mem_root, "", v2_scope, NULL);
        each_dir(&w, w.env.mem_root, "/system.slice", v2_scope, NULL);
    }
    dedupe_and_sort(&w);
    s->procs_read = w.fds.pids;
    s->procs_unreadable = w.fds.denied;
    err[0] = '\0';
    if (s->rejected)
        snprintf(err, errlen, "%llu cgroup names Slurm does not make, left out; first %s",
                 (unsigned long long)s->rejected, w.first_reject);
    else if (s->dropped)
        snprintf(err, errlen, "%llu jobs over %u, left out", (unsigned long long)s->dropped,
                 (unsigned)PNA_SLURM_MAX_JOBS);
    return 0;
}

struct presence {
    bool found;
};

static void any_v1_root(struct walk *w, const char *rel, const char *name, void *arg)
{
    (void)w, (void)rel;
    ((struct presence *)arg)->found |= pna_slurm_is_v1_root(name);
}

static void any_v2_scope(struct walk *w, const char *rel, const char *name, void *arg)
{
    (void)w, (void)rel;
    ((struct presence *)arg)->found |= pna_slurm_is_v2_scope(name);
}

bool pna_slurm_present(const struct pna_roots *roots, const char *cgroup_rel)
{
    struct pna_slurm_snap scratch = { 0 };
    struct walk w;
    char err[160];
    struct presence p = { false };
    if (open_walk(&w, roots, cgroup_rel, &scratch, err, sizeof err) < 0)
        return false;
    if (w.env.mode == PNA_CG_V1) {
        each_dir(&w, w.env.mem_root, "", any_v1_root, &p);
    } else {
        each_dir(&w, w.env.mem_root, "", any_v2_scope, &p);
        each_dir(&w, w.env.mem_root, "/system.slice", any_v2_scope, &p);
    }
    return p.found;
}

bool pna_slurm_user_name(uint32_t uid, char *buf, size_t cap)
{
    struct passwd pw, *res = NULL;
    char scratch[4096];
    buf[0] = '\0';
    if (getpwuid_r((uid_t)uid, &pw, scratch, sizeof scratch, &res) != 0 || !res || !pw.pw_name)
        return false;
    pna_strlcpy(buf, pw.pw_name, cap);
    return true;
}
