/* sources/containers/cstorage.c -- CRI-O's and Podman's containers from the
 * containers/storage store (see cstorage.h). */
#include "pna_autoconf.h"
#include "sources/containers/cstorage.h"
#include "sources/containers/cstorage_json.h"
#include "sources/containers/containerd.h"
#include "sources/containers/oci_spec.h"
#include "core/roots.h"
#include "util/array.h"
#include "util/fileio.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DRIVER_SUFFIX "-containers"   /* GRAPH/<driver>-containers */
/* The pidfile is written after the process started; the boot time procfs
 * gives is whole seconds, so a process's start computed from it may read up
 * to a second late. */
#define PIDFILE_SLACK_MS 1500

/* A container's last good state.json, kept from one scan to the next. */
struct kept_state {
    char *id;
    struct pna_crio_state st;
};

struct pna_cstorage {
    struct kept_state *kept, *next;   /* last scan's; the one being made */
    size_t nkept, nnext, cap_kept, cap_next;
    const struct pna_label_allow *pod_label_allow;   /* podLabels, or NULL */
    struct pna_pod_label_set pod_labels;   /* the last scan's sandboxes' labels */
    bool pod_labels_lost;                  /* out of memory while adding them */
};

struct pna_cstorage *pna_cstorage_new(void)
{
    return calloc(1, sizeof(struct pna_cstorage));
}

static void free_states(struct kept_state *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i].id);
    free(v);
}

void pna_cstorage_free(struct pna_cstorage *cs)
{
    if (!cs)
        return;
    free_states(cs->kept, cs->nkept);
    free_states(cs->next, cs->nnext);
    pna_pod_label_set_free(&cs->pod_labels);
    free(cs);
}

void pna_cstorage_read_pod_labels(struct pna_cstorage *cs, const struct pna_label_allow *allow)
{
    cs->pod_label_allow = allow && allow->count ? allow : NULL;
}

int pna_cstorage_take_pod_labels(struct pna_cstorage *cs, struct pna_pod_label_set *out)
{
    int rc = cs->pod_labels_lost ? -1 : pna_pod_label_set_append(out, &cs->pod_labels);
    pna_pod_label_set_free(&cs->pod_labels);
    cs->pod_labels_lost = false;
    return rc;
}

static const struct pna_crio_state *kept_state_of(const struct pna_cstorage *cs, const char *id)
{
    for (size_t i = 0; i < cs->nkept; i++)
        if (strcmp(cs->kept[i].id, id) == 0)
            return &cs->kept[i].st;
    return NULL;
}

/* Kept for the next scan (out of memory: not kept, nothing worse). */
static void keep_state(struct pna_cstorage *cs, const char *id, const struct pna_crio_state *st)
{
    if (PNA_ARRAY_RESERVE(cs->next, cs->cap_next, cs->nnext + 1) != 0)
        return;
    char *copy = strdup(id);
    if (copy)
        cs->next[cs->nnext++] = (struct kept_state){ copy, *st };
}

/* The states this scan read become the ones kept: a container gone is
 * forgotten. */
static void end_scan(struct pna_cstorage *cs)
{
    free_states(cs->kept, cs->nkept);
    cs->kept = cs->next;
    cs->nkept = cs->nnext;
    cs->cap_kept = cs->cap_next;
    cs->next = NULL;
    cs->nnext = cs->cap_next = 0;
}

/* One scan: what every container is read with. */
struct scan {
    struct pna_cstorage *cs;
    const struct pna_roots *roots;
    const struct pna_cgroup_env *cg;
    const struct pna_cdi_registry *cdi;
    struct pna_container_set *set;
    struct pna_cstorage_stats *st;
    struct pna_cstorage_index names;
    int64_t boot_ms;              /* CLOCK_REALTIME at boot (procfs btime); 0 unknown */
    long ticks_per_s;             /* the unit of /proc/PID/stat's start time */
    char graph[512], run[512];    /* the two roots, under the rootfs root */
};

static void note_error(struct pna_cstorage_stats *st, unsigned *counter, const char *msg)
{
    (*counter)++;
    pna_strlcpy(st->last_error, msg, sizeof st->last_error);
}

/* Field 22 of /proc/PID/stat: the process's start, in clock ticks since boot. */
static int process_start_ticks(const struct pna_roots *roots, int32_t pid, uint64_t *ticks)
{
    char path[512], text[1024];
    if (pna_path(path, sizeof path, roots->procfs, "/%d/stat", (int)pid) < 0 ||
        pna_read_text(path, text, sizeof text) < 0)
        return -1;
    /* The command name (field 2) is in parentheses and may hold anything. */
    const char *p = strrchr(text, ')');
    if (!p)
        return -1;
    p++;
    for (int field = 3; field < 22; field++) {
        p += strspn(p, " ");
        p += strcspn(p, " ");
        if (!*p)
            return -1;
    }
    return pna_scan_u64(&p, ticks);
}

static int64_t boot_time_ms(const struct pna_roots *roots)
{
    char path[512], text[16384];
    if (pna_path(path, sizeof path, roots->procfs, "/stat") < 0 ||
        pna_read_text(path, text, sizeof text) < 0)
        return 0;
    const char *p = strstr(text, "\nbtime ");
    uint64_t s;
    if (!p)
        return 0;
    p += 7;
    return pna_scan_u64(&p, &s) == 0 ? (int64_t)s * 1000 : 0;
}

/* CRI-O's rule: the process is the container's while /proc/PID has the
 * start time state.json recorded (without one, while /proc/PID exists). */
static bool crio_process_alive(const struct scan *sc, const struct pna_crio_state *s)
{
    uint64_t ticks;
    if (process_start_ticks(sc->roots, s->pid, &ticks) < 0)
        return false;
    return !s->has_start_ticks || ticks == s->start_ticks;
}

static void crio_state(const struct scan *sc, const struct pna_crio_state *s,
                       struct pna_container *c)
{
    c->state = s->state;
    c->start_ms = s->started_ms;
    if (s->pid <= 0)
        return;
    bool alive = crio_process_alive(sc, s);
    if (alive && (s->state == PNA_CSTATE_RUNNING || s->state == PNA_CSTATE_PAUSED ||
                  s->state == PNA_CSTATE_UNKNOWN)) {
        c->pid = s->pid;
        c->state = PNA_CSTATE_RUNNING;   /* paused is the freezer's to say */
    } else if (!alive && (s->state == PNA_CSTATE_RUNNING || s->state == PNA_CSTATE_PAUSED)) {
        c->state = PNA_CSTATE_EXITED;
    }
}

/* Podman's: see cstorage.h. */
static void pidfile_state(const struct scan *sc, const char *rundir, struct pna_container *c)
{
    char path[1200];
    uint64_t pid, ticks;
    struct stat st;
    c->state = PNA_CSTATE_CREATED;
    if (snprintf(path, sizeof path, "%s/pidfile", rundir) >= (int)sizeof path ||
        stat(path, &st) < 0)
        return;
    c->state = PNA_CSTATE_EXITED;
    if (pna_read_u64(path, &pid) < 0 || pid == 0 || pid >= (1u << 30))
        return;
    int64_t written_ms = (int64_t)st.st_mtim.tv_sec * 1000 + st.st_mtim.tv_nsec / 1000000;
    c->start_ms = written_ms;
    if (process_start_ticks(sc->roots, (int32_t)pid, &ticks) < 0)
        return;
    int64_t started_ms = sc->boot_ms + (int64_t)(ticks * 1000 / (uint64_t)sc->ticks_per_s);
    if (sc->boot_ms && started_ms > written_ms + PIDFILE_SLACK_MS)
        return;   /* a later process under a reused pid */
    c->pid = (int32_t)pid;
    c->state = PNA_CSTATE_RUNNING;
    if (sc->boot_ms)
        c->start_ms = started_ms;
}

/* DIR/NAME read whole (at most MAX): 0, -ENOENT, or -1 with ERR. */
static int read_file(const char *dir, const char *name, size_t max, char **text, size_t *len,
                     char *err, size_t errlen)
{
    char path[1200];
    if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path) {
        snprintf(err, errlen, "%.100s/%s: path too long", dir, name);
        return -1;
    }
    int rc = pna_read_alloc(path, max, text, len);
    if (rc == -ENOENT || rc == -ENOTDIR)
        return -ENOENT;
    if (rc < 0) {
        snprintf(err, errlen, "%.120s: %s", path, strerror(-rc));
        return -1;
    }
    return 0;
}

/* The state of CRI-O's container ID from state.json (in the persistent
 * userdata, where CRI-O keeps it, else the run one); a malformed one gives
 * the last good one.  Returns 1 when there is no state.json at all. */
static int read_crio_state(const struct scan *sc, const char *graphdir, const char *rundir,
                           const char *id, struct pna_container *c)
{
    char *text = NULL, err[300], why[200];
    size_t len = 0;
    int rc = read_file(graphdir, "state.json", PNA_CRIO_STATE_MAX_BYTES, &text, &len, why,
                       sizeof why);
    if (rc == -ENOENT)
        rc = read_file(rundir, "state.json", PNA_CRIO_STATE_MAX_BYTES, &text, &len, why,
                       sizeof why);
    const struct pna_crio_state *last = kept_state_of(sc->cs, id);
    if (rc == -ENOENT && last) {
        /* Gone between two writes of one that was there: the last one
         * stands until the file is back (or the container goes). */
        keep_state(sc->cs, id, last);
        crio_state(sc, last, c);
        return 0;
    }
    if (rc == -ENOENT)
        return 1;
    struct pna_crio_state s;
    if (rc == 0)
        rc = pna_crio_state_parse(text, len, &s, why, sizeof why);
    free(text);
    if (rc == 0) {
        keep_state(sc->cs, id, &s);
        crio_state(sc, &s, c);
        return 0;
    }
    snprintf(err, sizeof err, "%.80s state.json: %s", id, why);
    note_error(sc->st, &sc->st->bad_states, err);
    if (last) {
        keep_state(sc->cs, id, last);
        crio_state(sc, last, c);
    } else {
        c->state = PNA_CSTATE_UNKNOWN;
    }
    return 0;
}

/* The spec of container ID: persistent userdata first, then the run one
 * (the bundle the OCI runtime was given).  0, -ENOENT (no spec: not a
 * CRI-O or Podman container, or one being removed), or -1 with ERR. */
static int read_spec(const struct scan *sc, const char *graphdir, const char *rundir,
                     const char *id, struct pna_oci_facts *f, char *err, size_t errlen)
{
    char *text = NULL;
    size_t len = 0;
    int rc = read_file(graphdir, "config.json", PNA_OCI_MAX_BYTES, &text, &len, err, errlen);
    if (rc == -ENOENT)
        rc = read_file(rundir, "config.json", PNA_OCI_MAX_BYTES, &text, &len, err, errlen);
    if (rc < 0)
        return rc;
    rc = pna_oci_facts_read_labels(text, len, id, sc->cs->pod_label_allow, f, err, errlen);
    free(text);
    return rc;
}

/* Names the spec does not give, from containers.json (Podman's). */
static void apply_store_names(const struct scan *sc, const char *id, struct pna_container *c)
{
    const struct pna_cstorage_name *n = pna_cstorage_index_find(&sc->names, id);
    if (!n)
        return;
    if (n->name && strcmp(c->name, id) == 0)
        pna_container_set_display(sc->set, &c->name, n->name, PNA_CTR_NAME_CAP);
    if (n->image && !c->image[0])
        pna_container_set_display(sc->set, &c->image, n->image, PNA_CTR_IMAGE_CAP);
}

/* A CRI-O pod sandbox's labels (its spec's io.kubernetes.cri-o.Labels, read
 * by read_spec when podLabels names some) into this scan's set. */
static void keep_sandbox_labels(struct pna_cstorage *cs, const struct pna_oci_facts *f)
{
    if (cs->pod_label_allow && !cs->pod_labels_lost &&
        pna_oci_pod_labels_add(&f->labels, cs->pod_label_allow, &cs->pod_labels) < 0)
        cs->pod_labels_lost = true;
}

static void scan_container(struct scan *sc, const char *driver_dir, const char *id)
{
    struct pna_cstorage_stats *st = sc->st;
    char graphdir[1100], rundir[1100], err[400];
    sc->st->containers++;
    if (!pna_container_id_ok(id)) {
        snprintf(err, sizeof err, "%.100s: container id longer than %d characters", id,
                 PNA_CONTAINER_ID_MAX);
        note_error(st, &st->bad_specs, err);
        return;
    }
    snprintf(graphdir, sizeof graphdir, "%s/%s/%s/userdata", sc->graph, driver_dir, id);
    snprintf(rundir, sizeof rundir, "%s/%s/%s/userdata", sc->run, driver_dir, id);
    struct pna_oci_facts f;
    int rc = read_spec(sc, graphdir, rundir, id, &f, err, sizeof err);
    if (rc == -ENOENT)
        return;
    if (rc < 0) {
        note_error(st, &st->bad_specs, err);
        return;
    }
    struct pna_oci_info info;
    bool podman = f.libpod;
    rc = pna_oci_facts_apply(&f, id, sc->roots, sc->cdi, sc->set, &info, err, sizeof err);
    if (rc == 0 && info.sandbox)
        keep_sandbox_labels(sc->cs, &f);
    pna_oci_facts_free(&f);
    if (rc < 0) {
        note_error(st, &st->bad_specs, err);
        return;
    }
    st->unresolved += info.unresolved;
    if (info.sandbox) {
        pna_container_set_drop_last(sc->set);
        st->sandboxes++;
        return;
    }
    struct pna_container *c = &sc->set->rows[sc->set->count - 1];
    c->runtime = podman ? PNA_RUNTIME_PODMAN : PNA_RUNTIME_CRIO;
    apply_store_names(sc, id, c);
    if (podman || read_crio_state(sc, graphdir, rundir, id, c) == 1)
        pidfile_state(sc, rundir, c);
    pna_container_fill_runtime(sc->roots, sc->cg, sc->set, c, info.cgroups_path);
    (*(podman ? &st->podman : &st->crio))++;
}

/* containers.json and volatile-containers.json of one driver's directory,
 * in the graph root and, for a store made with transient_store (both lists
 * on the tmpfs), the run root (absent: no names from there; malformed:
 * counted, the specs still read). */
static void read_names(struct scan *sc, const char *driver_dir)
{
    static const char *const files[] = { "containers.json", "volatile-containers.json" };
    const char *const roots[] = { sc->graph, sc->run };
    char dir[1100], why[200], err[400];
    for (size_t r = 0; r < sizeof roots / sizeof roots[0]; r++) {
        snprintf(dir, sizeof dir, "%s/%s", roots[r], driver_dir);
        for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
            char *text = NULL;
            size_t len = 0;
            int rc = read_file(dir, files[i], PNA_CSTORAGE_INDEX_MAX_BYTES, &text, &len, why,
                               sizeof why);
            if (rc == 0)
                rc = pna_cstorage_index_parse(text, len, &sc->names, why, sizeof why);
            free(text);
            if (rc == -1) {
                snprintf(err, sizeof err, "%s/%s: %s", driver_dir, files[i], why);
                note_error(sc->st, &sc->st->bad_specs, err);
            }
        }
    }
    pna_cstorage_index_sort(&sc->names);
}

static bool is_driver_dir(const struct dirent *e)
{
    size_t n = strlen(e->d_name), k = strlen(DRIVER_SUFFIX);
    return e->d_name[0] != '.' && n > k && strcmp(e->d_name + n - k, DRIVER_SUFFIX) == 0;
}

static void scan_driver(struct scan *sc, const char *driver_dir)
{
    char dir[1100];
    snprintf(dir, sizeof dir, "%s/%s", sc->graph, driver_dir);
    DIR *d = opendir(dir);
    if (!d)
        return;
    read_names(sc, driver_dir);
    struct dirent *e;
    while ((e = readdir(d)) != NULL && sc->st->containers < PNA_CSTORAGE_MAX_CONTAINERS) {
        if (e->d_name[0] == '.' || (e->d_type != DT_DIR && e->d_type != DT_UNKNOWN))
            continue;
        scan_container(sc, driver_dir, e->d_name);
    }
    closedir(d);
    pna_cstorage_index_free(&sc->names);
}

int pna_cstorage_scan(struct pna_cstorage *cs, const struct pna_roots *roots,
                      const char *graph_rel, const char *run_rel,
                      const struct pna_cgroup_env *cg, const struct pna_cdi_registry *cdi,
                      struct pna_container_set *set, struct pna_cstorage_stats *stats,
                      char *err, size_t errlen)
{
    memset(stats, 0, sizeof *stats);
    pna_pod_label_set_free(&cs->pod_labels);   /* this scan's sandboxes only */
    cs->pod_labels_lost = false;
    struct scan sc = { .cs = cs, .roots = roots, .cg = cg, .cdi = cdi, .set = set,
                       .st = stats };
    if (pna_path(sc.graph, sizeof sc.graph, roots->rootfs, "/%s", graph_rel + strspn(graph_rel, "/")) < 0 ||
        pna_path(sc.run, sizeof sc.run, roots->rootfs, "/%s", run_rel + strspn(run_rel, "/")) < 0) {
        snprintf(err, errlen, "containers storage path too long");
        return -1;
    }
    DIR *top = opendir(sc.graph);
    if (!top) {
        if (errno == ENOENT || errno == ENOTDIR)
            return 1;
        snprintf(err, errlen, "%s: %s", sc.graph, strerror(errno));
        return -1;
    }
    sc.boot_ms = boot_time_ms(roots);
    sc.ticks_per_s = sysconf(_SC_CLK_TCK);
    if (sc.ticks_per_s <= 0)
        sc.ticks_per_s = 100;
    struct dirent *e;
    while ((e = readdir(top)) != NULL)
        if (is_driver_dir(e))
            scan_driver(&sc, e->d_name);
    closedir(top);
    end_scan(cs);
    return 0;
}

/* ---- the directories to watch ------------------------------------------------------- */

struct dir_list {
    char **v;
    size_t n, cap;
};

static void dir_add(struct dir_list *l, const char *path)
{
    struct stat st;
    if (l->n >= 2 * PNA_CSTORAGE_MAX_CONTAINERS || stat(path, &st) < 0 || !S_ISDIR(st.st_mode) ||
        PNA_ARRAY_RESERVE(l->v, l->cap, l->n + 1) != 0)
        return;
    char *copy = strdup(path);
    if (copy)
        l->v[l->n++] = copy;
}

/* ROOT/DRIVER and ROOT/DRIVER/<id>/userdata of each container there. */
static void watch_driver(struct dir_list *l, const char *root, const char *driver_dir)
{
    char dir[1100], userdata[1400];
    snprintf(dir, sizeof dir, "%s/%s", root, driver_dir);
    DIR *d = opendir(dir);
    if (!d)
        return;
    dir_add(l, dir);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' || (e->d_type != DT_DIR && e->d_type != DT_UNKNOWN))
            continue;
        if (snprintf(userdata, sizeof userdata, "%s/%s/userdata", dir, e->d_name) <
            (int)sizeof userdata)
            dir_add(l, userdata);
    }
    closedir(d);
}

char **pna_cstorage_watch_dirs(const struct pna_roots *roots, const char *graph_rel,
                               const char *run_rel, size_t *n)
{
    struct dir_list l = { 0 };
    char graph[512], run[512];
    *n = 0;
    if (pna_path(graph, sizeof graph, roots->rootfs, "/%s", graph_rel + strspn(graph_rel, "/")) < 0 ||
        pna_path(run, sizeof run, roots->rootfs, "/%s", run_rel + strspn(run_rel, "/")) < 0)
        return NULL;
    DIR *top = opendir(graph);
    if (!top)
        return NULL;
    /* The graph root itself: a driver directory made later (the first
     * container of a new node) is seen at once. */
    dir_add(&l, graph);
    struct dirent *e;
    while ((e = readdir(top)) != NULL) {
        if (!is_driver_dir(e))
            continue;
        watch_driver(&l, graph, e->d_name);
        watch_driver(&l, run, e->d_name);
    }
    closedir(top);
    *n = l.n;
    return l.v;
}

void pna_cstorage_free_dirs(char **dirs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(dirs[i]);
    free(dirs);
}
