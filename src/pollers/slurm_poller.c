/* pollers/slurm_poller.c -- the "slurm" poller: the Slurm jobs of this node
 * from the cgroups Slurm's plugins make (sources/slurm/slurm_cgroup.h), and
 * the end of each job (its cgroup gone) as a slurmJobEnd event.
 *
 * Shown as disabled, and retried quietly, while no hierarchy has one of
 * Slurm's directories (a node where slurmstepd never ran).  The GPUs a job
 * holds are joined at answer time (model/slurm/slurm_holders.h): the snapshot
 * describes the cgroup tree alone. */
#include "pna_autoconf.h"
#include "core/config.h"
#include "core/events.h"
#include "core/log.h"
#include "model/slurm/slurm.h"
#include "pollers/pollers.h"
#include "sources/slurm/slurm_cgroup.h"
#include "util/array.h"
#include "util/fileio.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

/* A job the last poll saw: what its end event names. */
struct seen_job {
    uint32_t job_id;
    bool has_uid;
    uint32_t uid;
    char user[64];
};

/* The jobs of the last published poll live here, not in the snapshot, so a
 * snapshot the cache drops as stale does not end its jobs again. */
struct slurm_state {
    struct pna_roots roots;
    const char *cgroup_rel;
    struct seen_job *seen;
    size_t n_seen, cap_seen;
    bool polled;               /* a first poll is no news: nothing ended */
    bool said_unreadable;      /* the refused /proc/PID/fd was logged */
};

static int slurm_init(void **state, const struct pna_config *cfg, const void *settings,
                      char *err, size_t errlen)
{
    const struct pna_slurm_settings *set = settings;
    if (!pna_slurm_present(&cfg->roots, set->cgroup_root)) {
        snprintf(err, errlen, "no Slurm cgroup directory under %.100s/%.100s", cfg->roots.sysfs,
                 set->cgroup_root);
        return PNA_POLLER_ABSENT;
    }
    struct slurm_state *st = calloc(1, sizeof *st);
    if (!st) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    st->roots = cfg->roots;
    st->cgroup_rel = set->cgroup_root;
    *state = st;
    return 0;
}

/* User names from the passwd database, each uid asked once per poll at most:
 * the previous snapshot's name where it had the same uid (a directory
 * service behind NSS may be slow). */
static void name_users(struct pna_slurm_snap *s, const struct pna_slurm_snap *prev)
{
    for (size_t i = 0; i < s->count; i++) {
        struct pna_slurm_job *j = &s->jobs[i];
        if (!j->has_uid)
            continue;
        const struct pna_slurm_job *p = pna_slurm_find(prev, j->job_id);
        if (p && p->has_uid && p->uid == j->uid) {
            memcpy(j->user, p->user, sizeof j->user);
            continue;
        }
        bool done = false;
        for (size_t k = 0; k < i && !done; k++)
            if (s->jobs[k].has_uid && s->jobs[k].uid == j->uid) {
                memcpy(j->user, s->jobs[k].user, sizeof j->user);
                done = true;
            }
        if (!done)
            pna_slurm_user_name(j->uid, j->user, sizeof j->user);
    }
}

static void post_job_end(const struct seen_job *j)
{
    struct pna_event ev = { 0 };
    ev.type = PNA_EV_SLURM_JOB_END;
    ev.severity = PNA_SEV_INFO;
    ev.u.slurm_job.job_id = j->job_id;
    ev.u.slurm_job.has_uid = j->has_uid;
    ev.u.slurm_job.uid = j->uid;
    memcpy(ev.u.slurm_job.user, j->user, sizeof ev.u.slurm_job.user);
    snprintf(ev.subject, sizeof ev.subject, "slurm job %u", (unsigned)j->job_id);
    if (j->user[0])
        snprintf(ev.text, sizeof ev.text, "Slurm job %u of user %.60s ended", (unsigned)j->job_id,
                 j->user);
    else
        snprintf(ev.text, sizeof ev.text, "Slurm job %u ended", (unsigned)j->job_id);
    pna_event_post(&ev);
}

/* Post an end for each job of the last poll that S no longer has, then
 * remember S's jobs.  False when out of memory (the jobs then stay as they
 * were, and the next poll tells again). */
static bool track_jobs(struct slurm_state *st, const struct pna_slurm_snap *s)
{
    if (PNA_ARRAY_RESERVE(st->seen, st->cap_seen, s->count) < 0)
        return false;
    for (size_t i = 0; st->polled && i < st->n_seen; i++)
        if (!pna_slurm_find(s, st->seen[i].job_id))
            post_job_end(&st->seen[i]);
    for (size_t i = 0; i < s->count; i++) {
        const struct pna_slurm_job *j = &s->jobs[i];
        st->seen[i] = (struct seen_job){ j->job_id, j->has_uid, j->uid, "" };
        memcpy(st->seen[i].user, j->user, sizeof st->seen[i].user);
    }
    st->n_seen = s->count;
    st->polled = true;
    return true;
}

/* Another user's /proc/PID/fd needs CAP_SYS_PTRACE: without it the jobs'
 * open devices are unknown, which is a deployment choice, not a failing
 * poll; said once, when first seen. */
static void say_unreadable(struct slurm_state *st, const struct pna_slurm_snap *s)
{
    if (!s->procs_unreadable || st->said_unreadable)
        return;
    st->said_unreadable = true;
    pna_log(LOG_WARNING,
            "slurm: the open files of %u job processes are not readable (CAP_SYS_PTRACE): "
            "their GPUs and RDMA devices are known from NVML's process list and devices.list only",
            (unsigned)s->procs_unreadable);
}

static void destroy_snap(struct pna_snap *snap)
{
    pna_slurm_snap_free((struct pna_slurm_snap *)snap);
}

static int slurm_collect(void *state, const struct pna_snap *prev,
                         const struct pna_poller_inputs *in, struct pna_snap **out,
                         char *err, size_t errlen)
{
    (void)in; /* reads no other domain: GPUs are joined at answer time */
    struct slurm_state *st = state;
    struct pna_slurm_snap *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (pna_slurm_read(&st->roots, st->cgroup_rel, s, err, errlen) < 0) {
        pna_slurm_snap_free(s);
        return -1;
    }
    name_users(s, (const struct pna_slurm_snap *)prev);
    say_unreadable(st, s);
    if (!track_jobs(st, s)) {
        pna_slurm_snap_free(s);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    pna_snap_init(&s->base, destroy_snap);
    s->base.taken_ms = pna_now_ms();
    *out = &s->base;
    return 0;
}

static void slurm_fini(void *state)
{
    struct slurm_state *st = state;
    if (!st)
        return;
    free(st->seen);
    free(st);
}

/* The slurm poller's token (docs/configuration.md, "Slurm"). */
static const struct pna_config_key slurm_keys[] = {
    { .token = "slurmCgroupRoot", .type = PNA_KEY_STRING,
      .offset = offsetof(struct pna_slurm_settings, cgroup_root), .def_str = "fs/cgroup" },
    { .token = NULL },
};

const struct pna_poller_ops pna_slurm_poller = {
    .name = "slurm",
    .index = 10,
    .domain = PNA_DOM_SLURM,
    .default_interval_ms = 10000,
    .default_timeout_ms = 5000,
    .keys = slurm_keys,
    .settings_size = sizeof(struct pna_slurm_settings),
    .init = slurm_init,
    .collect = slurm_collect,
    .fini = slurm_fini,
};
