/* pollers/containers_poller.c -- the "containers" poller: containerd tasks,
 * Docker containers and the containers/storage store of CRI-O and Podman
 * merged into one table, OOM kills turned into notifications.
 *
 * Threads: collect() runs on the poller thread.  Three watchers feed it, on
 * the agent's event loop (core/event_loop.h, one thread for every watcher):
 * the OOM watch (the cgroups' OOM notifications; posts OOM events itself),
 * the bundle directory watch (asks for an early poll when a bundle directory
 * changes) and the Docker event stream (marks containers to re-inspect,
 * forwards "oom" to the OOM watch).  Their callbacks only touch thread-safe
 * entry points (pna_oom_watch_*, pna_docker_invalidate, pna_event_post, the
 * poller wake-up). */
#include "pna_autoconf.h"
#include "core/config.h"
#include "pollers/pollers.h"
#include "core/events.h"
#include "core/log.h"
#include "core/roots.h"
#include "model/containers.h"
#include "model/gpu/gpu.h"
#include "model/kubernetes/podres.h"
#include "sources/containers/bundle_cache.h"
#include "sources/containers/cdi.h"
#include "sources/containers/cgroup.h"
#include "sources/containers/containerd.h"
#include "sources/containers/cstorage.h"
#include "sources/containers/devmap.h"
#include "sources/containers/docker.h"
#include "sources/containers/docker_api.h"
#include "sources/containers/podres_devices.h"
#include "util/array.h"
#include "util/fileio.h"
#include "util/held_files.h"
#include "core/event_loop.h"
#include "watchers/dir_watch.h"
#include "watchers/docker_events.h"
#include "watchers/oom_watch.h"

#include <stdatomic.h>
#include <syslog.h>
#include <sys/resource.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define CONTAINERS_INDEX 5
#define DOCKER_TIMEOUT_MS 2000
#define DOCKER_RETRY_MS 500

struct containers_state {
    struct pna_roots roots;
    const char *containerd_state;
    char docker_socket[512];
    struct pna_cgroup_env cg;
    struct pna_cdi_registry *cdi;   /* the node's CDI specs, cached by mtime */
    struct pna_bundle_cache *bundles; /* each bundle's spec and pid, kept while unchanged */
    size_t files_wanted;            /* cgroupFilesHeld (the cache keeps what
                                       RLIMIT_NOFILE lets of it) */
    bool files_warned;              /* the difference was said */
    uint64_t bundle_events;         /* the directory watch's event count at the last scan */
    bool bundle_events_valid;       /* ... and every bundle directory was watched since */
    struct pna_loop *loop;          /* the agent's, which the watchers below run on */
    struct pna_oom_watch *watch;
    struct pna_dir_watch *bundle_dirs;
    struct pna_docker *docker;
    struct pna_docker_events *events;
    const struct pna_label_allow *pod_labels;   /* podLabels (the agent's) */
    const char *storage_root;       /* containersStorageRoot */
    const char *storage_run_root;   /* containersStorageRunRoot */
    struct pna_cstorage *storage;   /* CRI-O's and Podman's store; NULL: out of memory */
};

/* A runtime event (task created or exited, OOM): poll now, not at the next interval. */
static void wake_poller(void)
{
    pna_poller_wake(CONTAINERS_INDEX);
}

/* Event loop (or the poller thread, for a kill its sync or observe found). */
static void on_oom(void *arg, const struct pna_oom_hit *hit)
{
    (void)arg;
    struct pna_event ev;
    memset(&ev, 0, sizeof ev);
    ev.type = PNA_EV_CONTAINER_OOM;
    ev.severity = PNA_SEV_WARNING;
    const struct pna_oom_who *w = &hit->who;
    pna_strlcpy(ev.u.oom.container_id, w->id, sizeof ev.u.oom.container_id);
    pna_strlcpy(ev.u.oom.container_name, w->name, sizeof ev.u.oom.container_name);
    pna_strlcpy(ev.u.oom.pod, w->pod, sizeof ev.u.oom.pod);
    pna_strlcpy(ev.u.oom.namespace_, w->namespace_, sizeof ev.u.oom.namespace_);
    ev.u.oom.kill_count = hit->kill_count;
    snprintf(ev.subject, sizeof ev.subject, "container %.100s", w->name[0] ? w->name : w->id);
    if (w->pod[0])
        snprintf(ev.text, sizeof ev.text, "container %.60s of pod %.40s/%.80s OOM-killed (kills: %llu)",
                 w->name, w->namespace_, w->pod, (unsigned long long)hit->kill_count);
    else
        snprintf(ev.text, sizeof ev.text, "container %.100s OOM-killed (kills: %llu)",
                 w->name[0] ? w->name : w->id, (unsigned long long)hit->kill_count);
    pna_event_post(&ev);
    /* The trap says "kills: N": the row's count and the total should say so
     * too before the NMS comes to read them, not at the next interval. */
    wake_poller();
}

/* Event loop: a bundle directory changed. */
static void on_bundle_change(void *arg)
{
    (void)arg;
    wake_poller();
}

/* Event loop: an event of Docker's stream. */
static void on_docker_event(void *arg, const struct pna_docker_event *ev)
{
    struct containers_state *st = arg;
    if (!ev->id[0])
        return;
    if (strcmp(ev->action, "oom") == 0) {
        if (st->watch)
            pna_oom_watch_runtime_notice(st->watch, ev->id, ev->name);
        return;
    }
    if (st->docker)
        pna_docker_invalidate(st->docker, ev->id);
    wake_poller();
}

/* Event loop: Docker's stream (re)opened.  A container created while it
 * was down (dockerd restarting) sent its events to nobody: inspect every
 * container again and poll now. */
static void on_docker_connect(void *arg)
{
    struct containers_state *st = arg;
    if (st->docker)
        pna_docker_invalidate_all(st->docker);
    wake_poller();
}

/* cgroupFilesHeld: the open files limit raised for them, as far as the hard
 * limit goes. */
static void keep_cgroup_files(struct containers_state *st, unsigned containers)
{
    uint64_t before = 0, after = 0;
    size_t fds = (size_t)containers * PNA_CGROUP_FILES_HELD;
    size_t room = containers ? pna_held_files_reserve(fds, &before, &after) : 0;
    size_t kept = room / PNA_CGROUP_FILES_HELD < containers ? room / PNA_CGROUP_FILES_HELD
                                                             : containers;
    st->files_wanted = containers;
    pna_bundle_cache_keep_files(st->bundles, kept);
    if (after > before)
        pna_log(LOG_INFO, "containers: open files limit raised from %llu to %llu to keep the "
                "cgroup files of up to %zu containers open (cgroupFilesHeld)",
                (unsigned long long)before, (unsigned long long)after, kept);
}

/* More containers than the open files limit lets keep open: said once. */
static void warn_files_room(struct containers_state *st, const struct pna_containerd_stats *cs)
{
    size_t room = st->bundles ? pna_bundle_cache_files_limit(st->bundles) : 0;
    struct rlimit rl;
    if (st->files_warned || room >= st->files_wanted || cs->added <= room ||
        getrlimit(RLIMIT_NOFILE, &rl) < 0)
        return;
    st->files_warned = true;
    pna_log(LOG_WARNING, "containers: the open files hard limit (%llu) keeps the cgroup files "
            "of %zu containers open between polls, not %zu (cgroupFilesHeld); the others are "
            "opened at every poll", (unsigned long long)rl.rlim_max, room, st->files_wanted);
}

static int containers_init(void **state, const struct pna_config *cfg, const void *settings,
                           char *err, size_t errlen)
{
    const struct pna_containers_settings *set = settings;
    struct containers_state *st = calloc(1, sizeof *st);
    if (!st) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    st->roots = cfg->roots;
    st->pod_labels = &cfg->pod_labels;
    st->containerd_state = set->containerd_state;
    st->storage_root = set->storage_root;
    st->storage_run_root = set->storage_run_root;
    st->storage = pna_cstorage_new();   /* NULL (out of memory): the store is not read */
    const char *sock = set->docker_socket;
    /* Under the rootfs root, whether the path was written absolute or not. */
    if (pna_path(st->docker_socket, sizeof st->docker_socket, cfg->roots.rootfs, "/%s",
                 sock + strspn(sock, "/")) < 0)
        st->docker_socket[0] = '\0';
    char why[160];
    /* Without a memory hierarchy the rows still come, without memory figures. */
    if (pna_cgroup_detect(&cfg->roots, set->cgroup_root, &st->cg, why, sizeof why) < 0)
        st->cg.mode = PNA_CG_NONE;
    st->loop = pna_loop_shared_acquire(why, sizeof why);
    if (!st->loop)
        pna_log(LOG_WARNING, "containers: no event loop (%s): OOM kills and bundle changes are "
                "seen by the poll only", why);
    if (st->loop) {
        st->watch = pna_oom_watch_new(st->loop, &st->cg, on_oom, st, why, sizeof why);
        st->bundle_dirs = pna_dir_watch_new(st->loop, on_bundle_change, st, why, sizeof why);
    }
    st->cdi = pna_cdi_registry_new();   /* NULL (out of memory): no CDI device resolves */
    st->bundles = pna_bundle_cache_new();   /* NULL (out of memory): every poll reads all */
    if (st->bundles)
        keep_cgroup_files(st, set->cgroup_files_held);
    *state = st;
    return 0;
}

static bool socket_present(const char *path)
{
    struct stat st;
    return path[0] && stat(path, &st) == 0 && S_ISSOCK(st.st_mode);
}

static int collect_docker(struct containers_state *st, struct pna_container_set *set,
                          bool *seen, char *err, size_t errlen)
{
    *seen = false;
    if (!socket_present(st->docker_socket))
        return 0;
    if (!st->docker)
        st->docker = pna_docker_new(st->docker_socket, DOCKER_TIMEOUT_MS);
    if (st->docker)
        pna_docker_read_pod_labels(st->docker, st->pod_labels);
    if (st->docker && !st->events && st->loop)
        st->events = pna_docker_events_start(st->loop, st->docker_socket, DOCKER_TIMEOUT_MS,
                                             DOCKER_RETRY_MS, on_docker_event,
                                             on_docker_connect, st);
    if (!st->docker) {
        snprintf(err, errlen, "docker: out of memory");
        return -1;
    }
    char why[160];
    if (pna_docker_collect(st->docker, &st->roots, &st->cg, set, why, sizeof why) < 0) {
        snprintf(err, errlen, "docker: %s", why);
        return -1;
    }
    *seen = true;
    return 0;
}

/* CRI-O's and Podman's containers.  Never fails the poll: a store that
 * cannot be read, or a bad container in it, is said as a partial error
 * (PARTIAL, when nothing was said there yet), the other runtimes' rows
 * still served. */
static void collect_storage(struct containers_state *st, struct pna_container_set *set,
                            bool *seen, char *partial, size_t partial_len)
{
    struct pna_cstorage_stats ss;
    char why[160];
    if (!st->storage)
        return;
    pna_cstorage_read_pod_labels(st->storage, st->pod_labels);
    int rc = pna_cstorage_scan(st->storage, &st->roots, st->storage_root, st->storage_run_root,
                               &st->cg, st->cdi, set, &ss, why, sizeof why);
    *seen = rc == 0;
    if (partial[0])
        return;
    if (rc < 0)
        snprintf(partial, partial_len, "containers storage: %s", why);
    else if (ss.bad_specs || ss.bad_states)
        snprintf(partial, partial_len,
                 "containers storage: %u bad spec(s), %u bad state(s), last: %s", ss.bad_specs,
                 ss.bad_states, ss.last_error);
}

static void sync_oom_watch(struct containers_state *st, struct pna_container_set *set)
{
    if (!st->watch)
        return;
    /* Pointers into the rows: the watch copies what it keeps. */
    struct pna_oom_target *t = set->count ? malloc(set->count * sizeof *t) : NULL;
    size_t n = 0;
    for (size_t i = 0; t && i < set->count; i++) {
        const struct pna_container *c = &set->rows[i];
        /* Rows without a cgroup path too: a runtime's OOM notice for one
         * still counts (the watch reads nothing for it). */
        t[n++] = (struct pna_oom_target){ .id = c->id, .name = c->name, .pod = c->pod_name,
                                          .namespace_ = c->pod_namespace,
                                          .cgroup_path = c->cgroup_path };
    }
    if (t || !set->count)
        pna_oom_watch_sync(st->watch, t, n);
    free(t);
    /* The counts this poll read are a safety net for kills the kernel
     * notification missed (watch limit, v1 without event_control access).
     * The row then says what the watch holds, the cgroup's high-water mark:
     * a count that went down in the same cgroup is not served either (a
     * Counter64 that drops and climbs back reads as new kills downstream). */
    for (size_t i = 0; i < set->count; i++)
        if (set->rows[i].has_oom)
            set->rows[i].oom_kills =
                pna_oom_watch_observe(st->watch, set->rows[i].id, set->rows[i].oom_kills);
}

static void watch_bundle_dirs(struct containers_state *st)
{
    /* No event on any watched directory, all watched: the list of
     * directories to watch is the same as last time. */
    if (!st->bundle_dirs || (st->bundles && pna_bundle_cache_quiet(st->bundles)))
        return;
    size_t ndirs = 0, nstore = 0;
    char **dirs = pna_containerd_watch_dirs(&st->roots, st->containerd_state, &ndirs);
    char **store = pna_cstorage_watch_dirs(&st->roots, st->storage_root, st->storage_run_root,
                                           &nstore);
    /* One list for the one watch: containerd's bundles, then the store's. */
    size_t cap = ndirs;
    if (nstore && PNA_ARRAY_RESERVE(dirs, cap, ndirs + nstore) == 0) {
        memcpy(dirs + ndirs, store, nstore * sizeof *store);
        ndirs += nstore;
        free(store);
        store = NULL;
        nstore = 0;
    }
    pna_cstorage_free_dirs(store, nstore);
    /* A directory watched only now was scanned without a watch: a bundle (or
     * its config.json) created between that scan and this point raised no
     * event, so scan once more.  The next scan adds no new watch unless
     * something new did appear, so this does not repeat by itself. */
    if (pna_dir_watch_set(st->bundle_dirs, (const char *const *)dirs, ndirs) > 0) {
        st->bundle_events_valid = false;   /* changes before the new watches went unseen */
        wake_poller();
    }
    pna_containerd_free_dirs(dirs, ndirs);
}

/* Whether the bundles' files can be taken as they were: every bundle
 * directory watched since the last scan and no event on any of them.  The
 * count is read before the scan, so an event during it is seen next time. */
static void mark_quiet_bundles(struct containers_state *st)
{
    if (!st->bundles)
        return;
    bool complete = false;
    uint64_t events = st->bundle_dirs ? pna_dir_watch_events(st->bundle_dirs, &complete) : 0;
    pna_bundle_cache_set_quiet(st->bundles, st->bundle_dirs && complete &&
                                                st->bundle_events_valid &&
                                                events == st->bundle_events);
    st->bundle_events = events;
    st->bundle_events_valid = st->bundle_dirs != NULL;
}

static void destroy_snap(struct pna_snap *snap)
{
    struct pna_containers_snap *s = (struct pna_containers_snap *)snap;
    pna_container_set_free(&s->set);
    pna_pod_label_set_free(&s->pod_labels);
    free(s);
}

/* The pod sandboxes' labels of this poll (Docker's and CRI-O's), in index
 * order. */
static int take_pod_labels(struct containers_state *st, struct pna_containers_snap *s)
{
    if (s->docker_seen && pna_docker_take_pod_labels(st->docker, &s->pod_labels) < 0)
        return -1;
    if (st->storage && pna_cstorage_take_pod_labels(st->storage, &s->pod_labels) < 0)
        return -1;
    pna_pod_label_set_finish(&s->pod_labels);
    return 0;
}

static int containers_collect(void *state, const struct pna_snap *prev,
                              const struct pna_poller_inputs *in, struct pna_snap **out,
                              char *err, size_t errlen)
{
    struct containers_state *st = state;
    struct pna_containers_snap *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    pna_container_set_init(&s->set);
    struct pna_containerd_stats cs;
    char why[160];
    if (st->cdi)
        pna_cdi_registry_refresh(st->cdi, &st->roots);
    mark_quiet_bundles(st);
    int rc = pna_containerd_scan_cached(&st->roots, st->containerd_state, &st->cg, st->cdi,
                                        st->bundles, &s->set, &cs, why, sizeof why);
    if (rc < 0) {
        snprintf(err, errlen, "containerd: %s", why);
        goto fail;
    }
    s->containerd_seen = rc == 0;
    warn_files_room(st, &cs);
    /* dockerd runs its containers through containerd: when containerd's
     * tasks were read, a dockerd that does not answer costs Docker's names
     * only, not the rows, so the poll still succeeds and says why. */
    char partial[256] = "";
    if (collect_docker(st, &s->set, &s->docker_seen, partial, sizeof partial) < 0 &&
        !s->containerd_seen) {
        pna_strlcpy(err, partial, errlen);
        goto fail;
    }
    collect_storage(st, &s->set, &s->storage_seen, partial, sizeof partial);
    if (!partial[0] && cs.bad_specs)
        snprintf(partial, sizeof partial, "containerd: %u bad spec(s), last: %s", cs.bad_specs,
                 cs.last_error);
    const char *cdi_why;
    unsigned cdi_bad = st->cdi ? pna_cdi_registry_error(st->cdi, &cdi_why) : 0;
    /* A malformed CDI spec is skipped, the others still used: said once
     * (the poller logs a partial error when it changes). */
    if (!partial[0] && cdi_bad)
        snprintf(partial, sizeof partial, "%u malformed CDI spec(s), skipped: %s", cdi_bad,
                 cdi_why);
    if (pna_container_set_sort(&s->set) < 0 || pna_container_set_merge_runtimes(&s->set) < 0 ||
        take_pod_labels(st, s) < 0) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    if (!partial[0] && s->pod_labels.dropped)
        snprintf(partial, sizeof partial, "%llu pod labels not served; first: %s",
                 (unsigned long long)s->pod_labels.dropped, s->pod_labels.drop_note);
    /* The kubelet's assignments: after the merge, so a Docker container's
     * pod names (its labels) are on its one row. */
    const struct pna_podres_snap *pr =
        (const struct pna_podres_snap *)pna_poller_input(in, PNA_DOM_PODRES);
    const struct pna_gpu_snap *gs = (const struct pna_gpu_snap *)pna_poller_input(in, PNA_DOM_GPU);
    if (pna_podres_devices_apply(&st->roots, pr, gs, &s->set) < 0 || s->set.strings_lost) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    pna_devmap_owners(&st->roots, &s->set);
    const struct pna_containers_snap *p = (const struct pna_containers_snap *)prev;
    pna_container_set_assign_indexes(&s->set, p ? &p->set : NULL);
    sync_oom_watch(st, &s->set);
    watch_bundle_dirs(st);
    s->docker_errors = st->docker ? pna_docker_errors(st->docker) : 0;
    /* From the watch, not summed in on_oom(): that runs after the watch
     * has moved the row's count, and a poll in between would serve a
     * total without the kill its row shows. */
    s->oom_kills = st->watch ? pna_oom_watch_kills(st->watch) : 0;
    s->oom_decreases = st->watch ? pna_oom_watch_decreases(st->watch) : 0;
    pna_snap_init(&s->base, destroy_snap);
    s->base.taken_ms = pna_now_ms();
    *out = &s->base;
    pna_strlcpy(err, partial, errlen);
    return 0;
fail:
    pna_container_set_free(&s->set);
    pna_pod_label_set_free(&s->pod_labels);
    free(s);
    return -1;
}

static void containers_fini(void *state)
{
    struct containers_state *st = state;
    if (!st)
        return;
    /* The event stream calls into the watch and the client: stop it first. */
    pna_docker_events_stop(st->events);
    pna_oom_watch_free(st->watch);
    pna_dir_watch_free(st->bundle_dirs);
    pna_loop_shared_release(st->loop);
    pna_docker_free(st->docker);
    pna_cdi_registry_free(st->cdi);
    pna_bundle_cache_free(st->bundles);
    pna_cstorage_free(st->storage);
    free(st);
}

/* The containers poller's tokens (docs/configuration.md, "Containers and
 * Kubernetes"). */
#define SET(field) offsetof(struct pna_containers_settings, field)
static const struct pna_config_key containers_keys[] = {
    { .token = "containerdState", .type = PNA_KEY_STRING, .offset = SET(containerd_state),
      .def_str = "run/containerd" },
    { .token = "dockerSocket", .type = PNA_KEY_STRING, .offset = SET(docker_socket),
      .def_str = "run/docker.sock" },
    { .token = "cgroupRoot", .type = PNA_KEY_STRING, .offset = SET(cgroup_root),
      .def_str = "fs/cgroup" },
    { .token = "cgroupFilesHeld", .type = PNA_KEY_UINT, .offset = SET(cgroup_files_held),
      .min = 0, .max = 65536, .def = 4096 },
    { .token = "containersStorageRoot", .type = PNA_KEY_STRING, .offset = SET(storage_root),
      .def_str = "var/lib/containers/storage" },
    { .token = "containersStorageRunRoot", .type = PNA_KEY_STRING,
      .offset = SET(storage_run_root), .def_str = "run/containers/storage" },
    { .token = NULL },
};
#undef SET

const struct pna_poller_ops pna_containers_poller = {
    .name = "containers",
    .index = CONTAINERS_INDEX,
    .domain = PNA_DOM_CONTAINERS,
    /* the kubelet's device assignments; the GPU snapshot's MIG UUIDs */
    .inputs = PNA_DOM_BIT(PNA_DOM_PODRES) | PNA_DOM_BIT(PNA_DOM_GPU),
    .default_interval_ms = 10000,
    /* A first poll on a node with thousands of Docker containers inspects
     * each one once (about a millisecond apiece). */
    .default_timeout_ms = 8000,
    .keys = containers_keys,
    .settings_size = sizeof(struct pna_containers_settings),
    .init = containers_init,
    .collect = containers_collect,
    .fini = containers_fini,
};
