/* model/slurm/slurm.c -- see slurm.h: the cgroup path rule, devices.list, the job set. */
#include "pna_autoconf.h"
#include "model/slurm/slurm.h"

#include <stdlib.h>
#include <string.h>

#include "util/array.h"

/* Directories of a path the parser looks at; a deeper path is read as far as
 * this (Slurm's part is at most six levels, so only a job under a very deep
 * parent is missed). */
#define MAX_LEVELS 128

struct level {
    const char *s;
    size_t len;
};

static bool has_prefix(const struct level *l, const char *prefix)
{
    size_t n = strlen(prefix);
    return l->len >= n && memcmp(l->s, prefix, n) == 0;
}

static bool is(const struct level *l, const char *name)
{
    return l->len == strlen(name) && memcmp(l->s, name, l->len) == 0;
}

/* A decimal number of 32 bits, as Slurm writes one: digits only, no sign,
 * no leading zero. */
static bool parse_u32(const char *s, size_t len, uint32_t *out)
{
    if (len == 0 || len > 10 || (len > 1 && s[0] == '0'))
        return false;
    uint64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    if (v > UINT32_MAX)
        return false;
    *out = (uint32_t)v;
    return true;
}

/* The number after PREFIX in L. */
static bool numbered(const struct level *l, const char *prefix, uint32_t *out)
{
    size_t n = strlen(prefix);
    return has_prefix(l, prefix) && parse_u32(l->s + n, l->len - n, out);
}

static bool parse_step(const struct level *l, uint32_t *step)
{
    static const struct { const char *name; uint32_t number; } named[] = {
        { "step_batch", PNA_SLURM_STEP_BATCH },
        { "step_extern", PNA_SLURM_STEP_EXTERN },
        { "step_interactive", PNA_SLURM_STEP_INTERACTIVE },
    };
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++)
        if (is(l, named[i].name)) {
            *step = named[i].number;
            return true;
        }
    return numbered(l, "step_", step) && *step <= PNA_SLURM_STEP_NUMBERED_MAX;
}

/* A task's directory: task_<n>, or task_special (the processes of a step
 * that are none of its tasks). */
static bool is_task(const struct level *l)
{
    uint32_t n;
    return is(l, "task_special") || numbered(l, "task_", &n);
}

static bool name_is_v1_root(const char *s, size_t len)
{
    return (len == 5 && memcmp(s, "slurm", 5) == 0) ||
           (len > 6 && memcmp(s, "slurm_", 6) == 0);
}

static bool name_is_v2_scope(const char *s, size_t len)
{
    static const char scope[] = "slurmstepd.scope";
    size_t n = sizeof scope - 1;
    if (len == n)
        return memcmp(s, scope, n) == 0;
    return len > n + 1 && s[len - n - 1] == '_' && memcmp(s + len - n, scope, n) == 0;
}

bool pna_slurm_is_v1_root(const char *name)
{
    return name_is_v1_root(name, strlen(name));
}

bool pna_slurm_is_v2_scope(const char *name)
{
    return name_is_v2_scope(name, strlen(name));
}

/* Split PATH at '/' into at most MAX_LEVELS levels (empty ones skipped). */
static size_t split(const char *path, struct level *lv)
{
    size_t n = 0;
    for (const char *p = path; *p && n < MAX_LEVELS;) {
        size_t len = strcspn(p, "/");
        if (len)
            lv[n++] = (struct level){ p, len };
        p += len;
        p += strspn(p, "/");
    }
    return n;
}

static int reject(const char **reason, const char *why)
{
    if (reason)
        *reason = why;
    return -1;
}

/* The levels after the job's: [step [sub [task]]], where SUB_OK says which
 * directory a step may have inside it.  Returns 1 or reject(). */
static int parse_below_job(const struct level *lv, size_t n, size_t at,
                           bool (*sub_ok)(const struct level *), struct pna_slurm_cgroup *out,
                           const char **reason)
{
    if (at >= n)
        return 1;
    if (!parse_step(&lv[at], &out->step))
        return reject(reason, has_prefix(&lv[at], "step_") ? "bad step" : "not a step in a job");
    out->has_step = true;
    if (at + 1 < n && !sub_ok(&lv[at + 1]))
        return reject(reason, "unexpected directory in a step");
    /* Only v2's "user" has a level of its own: its tasks. */
    if (at + 2 < n && (out->layout != PNA_SLURM_LAYOUT_V2 || !is(&lv[at + 1], "user") ||
                       !is_task(&lv[at + 2])))
        return reject(reason, "nested too deep");
    if (at + 3 < n)
        return reject(reason, "nested too deep");
    return 1;
}

/* v1: a step holds its tasks directly. */
static bool v1_sub(const struct level *l)
{
    return is_task(l);
}

/* v2: a step holds "slurm" (slurmstepd) and "user" (its tasks, task_<n> under it). */
static bool v2_sub(const struct level *l)
{
    return is(l, "user") || is(l, "slurm");
}

static int parse_job(const struct level *lv, size_t n, size_t at, const char *path,
                     struct pna_slurm_cgroup *out, const char **reason)
{
    if (!has_prefix(&lv[at], "job_"))
        return reject(reason, "not a job directory");
    if (!numbered(&lv[at], "job_", &out->job_id) || out->job_id == 0)
        return reject(reason, "bad job id");
    out->job_len = (size_t)(lv[at].s + lv[at].len - path);
    return parse_below_job(lv, n, at + 1, out->layout == PNA_SLURM_LAYOUT_V1 ? v1_sub : v2_sub,
                           out, reason);
}

/* v1 from its root directory at AT: uid_<uid>/job_<job>/... */
static int parse_v1(const struct level *lv, size_t n, size_t at, const char *path,
                    struct pna_slurm_cgroup *out, const char **reason)
{
    out->layout = PNA_SLURM_LAYOUT_V1;
    if (!numbered(&lv[at + 1], "uid_", &out->uid))
        return reject(reason, "bad uid");
    out->has_uid = true;
    if (at + 2 >= n)
        return 0;   /* the user's directory: no job */
    return parse_job(lv, n, at + 2, path, out, reason);
}

/* v2 from its scope at AT: job_<job>/... ("system" and the scope itself: none). */
static int parse_v2(const struct level *lv, size_t n, size_t at, const char *path,
                    struct pna_slurm_cgroup *out, const char **reason)
{
    out->layout = PNA_SLURM_LAYOUT_V2;
    if (at + 1 >= n || is(&lv[at + 1], "system"))
        return 0;
    return parse_job(lv, n, at + 1, path, out, reason);
}

int pna_slurm_cgroup_parse(const char *path, struct pna_slurm_cgroup *out, const char **reason)
{
    struct level lv[MAX_LEVELS];
    size_t n = split(path, lv);
    *out = (struct pna_slurm_cgroup){ 0 };
    for (size_t i = 0; i < n; i++) {
        bool v1 = name_is_v1_root(lv[i].s, lv[i].len) && i + 1 < n &&
                  has_prefix(&lv[i + 1], "uid_");
        bool v2 = name_is_v2_scope(lv[i].s, lv[i].len);
        if (!v1 && !v2)
            continue;
        for (size_t k = i; k < n; k++)
            if (lv[k].len > PNA_SLURM_NAME_MAX)
                return reject(reason, "name too long");
        int rc = v1 ? parse_v1(lv, n, i, path, out, reason) : parse_v2(lv, n, i, path, out, reason);
        if (rc <= 0)
            out->job_id = 0;
        return rc;
    }
    return 0;
}

uint32_t pna_slurm_job_of_cgroup(const char *path)
{
    struct pna_slurm_cgroup cg;
    return path && pna_slurm_cgroup_parse(path, &cg, NULL) == 1 ? cg.job_id : 0;
}

/* ---- devices.list --------------------------------------------------------- */

/* One line "T MAJOR:MINOR ACCESS" into D; false for a line that is not one
 * (or a major of '*', which names no device). */
static bool parse_device_line(const char *line, size_t len, struct pna_slurm_device *d)
{
    if (len < 5 || (line[0] != 'c' && line[0] != 'b') || line[1] != ' ')
        return false;
    const char *p = line + 2, *end = line + len;
    const char *colon = memchr(p, ':', (size_t)(end - p));
    if (!colon)
        return false;
    const char *sp = memchr(colon, ' ', (size_t)(end - colon));
    if (!sp)
        sp = end;
    uint32_t minor;
    d->type = line[0];
    if (!parse_u32(p, (size_t)(colon - p), &d->major))
        return false;
    if (sp - colon == 2 && colon[1] == '*')
        d->minor = -1;
    else if (parse_u32(colon + 1, (size_t)(sp - colon - 1), &minor) && minor <= INT32_MAX)
        d->minor = (int32_t)minor;
    else
        return false;
    return true;
}

int pna_slurm_parse_devices(const char *text, struct pna_slurm_device *devs, size_t cap)
{
    size_t n = 0;
    for (const char *p = text; *p;) {
        size_t len = strcspn(p, "\n");
        if (len >= 1 && p[0] == 'a')
            return -1;   /* "a *:* rwm": everything allowed, nothing constrained */
        struct pna_slurm_device d;
        if (parse_device_line(p, len, &d) && n < cap)
            devs[n++] = d;
        p += len;
        p += *p == '\n';
    }
    return (int)n;
}

static bool list_has(const struct pna_slurm_device *devs, size_t n, uint32_t major,
                     uint32_t minor)
{
    for (size_t i = 0; i < n; i++)
        if (devs[i].type == 'c' && devs[i].major == major &&
            (devs[i].minor < 0 || (uint32_t)devs[i].minor == minor))
            return true;
    return false;
}

bool pna_slurm_job_allows(const struct pna_slurm_job *j, uint32_t major, uint32_t minor)
{
    return (j->opened_known && list_has(j->opened, j->n_opened, major, minor)) ||
           (j->devices_known && list_has(j->devices, j->n_devices, major, minor));
}

static void add_uverbs(const struct pna_slurm_device *d, uint32_t *out, size_t cap, size_t *n)
{
    if (d->type != 'c' || d->major != PNA_SLURM_INFINIBAND_MAJOR ||
        d->minor < (int32_t)PNA_SLURM_UVERBS_FIRST_MINOR)
        return;
    uint32_t u = (uint32_t)d->minor - PNA_SLURM_UVERBS_FIRST_MINOR;
    size_t at = 0;
    while (at < *n && out[at] < u)
        at++;
    if ((at < *n && out[at] == u) || *n == cap)
        return;
    memmove(&out[at + 1], &out[at], (*n - at) * sizeof *out);
    out[at] = u;
    (*n)++;
}

int pna_slurm_job_uverbs(const struct pna_slurm_job *j, uint32_t *out, size_t cap)
{
    if (!j->devices_known && !j->opened_known)
        return -1;
    size_t n = 0;
    for (size_t i = 0; j->devices_known && i < j->n_devices; i++) {
        const struct pna_slurm_device *d = &j->devices[i];
        if (d->type == 'c' && d->major == PNA_SLURM_INFINIBAND_MAJOR && d->minor < 0)
            return -1;
        add_uverbs(d, out, cap, &n);
    }
    for (size_t i = 0; j->opened_known && i < j->n_opened; i++)
        add_uverbs(&j->opened[i], out, cap, &n);
    return (int)n;
}

/* ---- the job set -------------------------------------------------------------- */

struct pna_slurm_job *pna_slurm_add(struct pna_slurm_snap *s)
{
    if (PNA_ARRAY_RESERVE(s->jobs, s->cap, s->count + 1) < 0)
        return NULL;
    struct pna_slurm_job *j = &s->jobs[s->count++];
    memset(j, 0, sizeof *j);
    return j;
}

static int by_job_id(const void *a, const void *b)
{
    uint32_t x = ((const struct pna_slurm_job *)a)->job_id;
    uint32_t y = ((const struct pna_slurm_job *)b)->job_id;
    return (x > y) - (x < y);
}

void pna_slurm_sort(struct pna_slurm_snap *s)
{
    if (s->count > 1)
        qsort(s->jobs, s->count, sizeof s->jobs[0], by_job_id);
}

const struct pna_slurm_job *pna_slurm_find(const struct pna_slurm_snap *s, uint32_t job_id)
{
    if (!s || !s->count)
        return NULL;
    const struct pna_slurm_job key = { .job_id = job_id };
    return bsearch(&key, s->jobs, s->count, sizeof s->jobs[0], by_job_id);
}

void pna_slurm_snap_free(struct pna_slurm_snap *s)
{
    if (!s)
        return;
    free(s->jobs);
    free(s);
}
