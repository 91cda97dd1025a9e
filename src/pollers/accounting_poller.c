/* pollers/accounting_poller.c -- the "accounting" poller: charges every new
 * GPU snapshot, once, to the GPU's holders at that moment
 * (model/accounting/usage.h), and keeps the ledger in a state file
 * (sources/accounting/state_file.h) so the counters survive a restart.
 *
 * The holders are the answer-time joins of the front ends
 * (model/kubernetes/holders.h, model/slurm/slurm_holders.h), made here on a
 * view of this poll's inputs, so the poller and the holder columns agree.
 * The ledger (the running counters and the last claims per GPU) is this
 * poller's state; what it publishes is an immutable copy.  It polls at the
 * GPU poller's default interval and charges a GPU snapshot by its
 * generation: one it has seen is not charged again, and a snapshot it missed
 * only makes the next interval longer (the energy is a counter's increase). */
#include "pna_autoconf.h"
#include "core/config.h"
#include "core/log.h"
#include "core/view.h"
#include "model/accounting/usage.h"
#include "model/containers.h"
#include "model/gpu/gpu.h"
#include "model/kubernetes/holders.h"
#include "model/slurm/slurm.h"
#include "model/slurm/slurm_holders.h"
#include "pollers/pollers.h"
#include "sources/accounting/state_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#define ACCOUNTING_INDEX 11
#define SAVE_EVERY_MS 60000      /* the state file at most once a minute, and at shutdown */
#define CLAIMS_MAX 64

struct acct_state {
    const struct pna_accounting_settings *set;
    struct pna_usage_ledger ledger;
    uint64_t gpu_generation;     /* the last GPU snapshot charged */
    int64_t saved_ms;
    bool dirty;                  /* charged since the last save */
    bool restored;               /* a state file was read at start */
};

/* ---- start-up: the state file ------------------------------------------------ */

/* Marks a ledger read from a file that was not written at shutdown: its
 * figures are older than those last served, so each restarts its
 * discontinuity time (RFC 2856). */
static void mark_discontinuity(struct pna_usage_ledger *l, int64_t now_ms)
{
    for (size_t i = 0; i < l->n_rows; i++)
        l->rows[i].created_ms = now_ms;
    for (size_t i = 0; i < l->n_pods; i++)
        l->pods[i].created_ms = now_ms;
    for (size_t i = 0; i < l->n_jobs; i++)
        l->jobs[i].created_ms = now_ms;
    for (size_t i = 0; i < l->n_gpus; i++)
        l->gpus[i].created_ms = now_ms;
}

/* Read the state file; say in one line what became of it.  Never fails. */
static void restore(struct acct_state *st)
{
    char why[256] = "";
    bool clean = false;
    const char *path = st->set->state_file;
    int rc = pna_usage_state_read(path, &st->ledger, &clean, why, sizeof why);
    if (rc == 1)
        return;
    if (rc < 0) {
        pna_log(LOG_WARNING, "accounting: state file %s unusable (%s): the counters start anew",
                path, why);
        return;
    }
    st->restored = true;
    for (size_t i = 0; i < st->ledger.n_gpus; i++)
        st->ledger.gpus[i].restored = st->ledger.gpus[i].has_sample;
    if (!clean)
        mark_discontinuity(&st->ledger, pna_now_ms());
    /* From now on the file is older than what is served: should the agent
     * die before its next write, the next start must mark a discontinuity. */
    if (pna_usage_state_write(path, &st->ledger, false, pna_now_ms(), why, sizeof why) < 0)
        pna_log(LOG_WARNING, "accounting: state file not written: %s", why);
    pna_log(LOG_INFO,
            "accounting: %zu rows, %zu pods, %zu jobs restored from %s%s", st->ledger.n_rows,
            st->ledger.n_pods, st->ledger.n_jobs, path,
            clean ? "" : " (not written at shutdown: new discontinuity time)");
}

static int acct_init(void **state, const struct pna_config *cfg, const void *settings, char *err,
                     size_t errlen)
{
    (void)cfg;
    struct acct_state *st = calloc(1, sizeof *st);
    if (!st) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    st->set = settings;
    if (st->set->state_file && st->set->state_file[0])
        restore(st);
    st->saved_ms = pna_now_ms();
    *state = st;
    return 0;
}

/* ---- claims: who holds a GPU now --------------------------------------------- */

struct claim_list {
    struct pna_usage_claim c[CLAIMS_MAX];
    size_t n;
};

static bool cgroup_within(const char *cgroup, const char *parent)
{
    size_t n = parent ? strlen(parent) : 0;
    return n && strncmp(cgroup, parent, n) == 0 &&
           (cgroup[n] == '\0' || cgroup[n] == '/' || parent[n - 1] == '/');
}

static void holder_of_container(const struct pna_holder *h, struct pna_usage_holder *who)
{
    memset(who, 0, sizeof *who);
    who->kind = PNA_USAGE_CONTAINER;
    if (h->container_id[0])
        snprintf(who->id, sizeof who->id, "%s", h->container_id);
    else
        snprintf(who->id, sizeof who->id, "%.40s/%.39s/%.19s", h->pod_namespace, h->pod,
                 h->container_name);
    snprintf(who->pod_namespace, sizeof who->pod_namespace, "%s", h->pod_namespace);
    snprintf(who->pod, sizeof who->pod, "%s", h->pod);
    snprintf(who->container, sizeof who->container, "%s", h->container_name);
}

struct collect_arg {
    struct claim_list *list;
    const char *cgroups[CLAIMS_MAX];   /* each claim's container cgroup, NULL none */
};

static void add_container_claim(const struct pna_holder *h, void *arg)
{
    struct collect_arg *a = arg;
    if (a->list->n >= CLAIMS_MAX)
        return;
    struct pna_usage_claim *c = &a->list->c[a->list->n];
    memset(c, 0, sizeof *c);
    holder_of_container(h, &c->who);
    a->cgroups[a->list->n] = h->record ? h->record->cgroup_path : NULL;
    a->list->n++;
}

static bool proc_is_holders(const struct pna_gpu_proc *p, const struct pna_usage_claim *c,
                            const char *cgroup)
{
    if (c->who.kind == PNA_USAGE_SLURM_JOB)
        return pna_slurm_job_of_cgroup(p->cgroup) == c->who.job;
    return cgroup && cgroup_within(p->cgroup, cgroup);
}

/* Time slicing and MPS: each holder by its processes' SM samples, else
 * evenly; each holder's memory is its processes'.  Returns the denominator. */
static uint64_t weigh_shared(const struct pna_gpu_snap *gs, const struct pna_gpu *g,
                             struct collect_arg *a)
{
    uint64_t total = 0;
    for (size_t k = 0; k < a->list->n; k++) {
        struct pna_usage_claim *c = &a->list->c[k];
        for (size_t i = 0; i < gs->proc_count; i++) {
            const struct pna_gpu_proc *p = &gs->procs[i];
            if (p->gpu_index != g->index || !p->cgroup[0] || !proc_is_holders(p, c, a->cgroups[k]))
                continue;
            if (p->has_util)
                c->weight += p->sm_pct;
            if (p->has_mem) {
                c->has_mem = true;
                c->mem_bytes += p->mem_bytes;
            }
        }
        total += c->weight;
    }
    for (size_t k = 0; k < a->list->n; k++) {
        a->list->c[k].rule = total ? PNA_USAGE_PROCESS : PNA_USAGE_EVEN;
        if (!total)
            a->list->c[k].weight = 1;
    }
    return total ? total : a->list->n;
}

static void device_activity(const struct pna_gpu *g, bool *has, uint32_t *bp)
{
    /* NVML GPM (or DCP) SM activity; AMD's gfx_activity */
    enum pna_gpu_activity act = g->vendor == PNA_GPU_VND_AMD ? PNA_GPU_ACT_GRAPHICS : PNA_GPU_ACT_SM;
    *has = g->has_activity[act];
    *bp = g->activity_bp[act];
}

/* The holders of whole GPU G: its containers, then its Slurm jobs. */
static uint64_t whole_gpu_claims(const struct pna_view *v, const struct pna_gpu_snap *gs,
                                 const struct pna_gpu *g, struct claim_list *out)
{
    struct collect_arg a = { .list = out };
    pna_gpu_holders_each(v, g, add_container_claim, &a);
    uint32_t jobs[PNA_SLURM_HOLDERS_MAX];
    size_t nj = pna_slurm_gpu_jobs(v, g, jobs);
    for (size_t i = 0; i < nj && out->n < CLAIMS_MAX; i++) {
        struct pna_usage_claim *c = &out->c[out->n];
        memset(c, 0, sizeof *c);
        c->who.kind = PNA_USAGE_SLURM_JOB;
        c->who.job = jobs[i];
        snprintf(c->who.id, sizeof c->who.id, "%u", (unsigned)jobs[i]);
        a.cgroups[out->n++] = NULL;
    }
    bool has_sm;
    uint32_t sm_bp;
    device_activity(g, &has_sm, &sm_bp);
    uint64_t den = 1;
    if (out->n == 1) {
        out->c[0].rule = PNA_USAGE_WHOLE;
        out->c[0].weight = 1;
        out->c[0].has_mem = g->has_mem_used;
        out->c[0].mem_bytes = g->mem_used_bytes;
    } else if (out->n > 1) {
        den = weigh_shared(gs, g, &a);
    }
    for (size_t k = 0; k < out->n; k++) {
        out->c[k].has_sm = has_sm;
        out->c[k].sm_bp = sm_bp;
    }
    return den;
}

/* Holders of several MIG devices at once share a device evenly: 60 is a
 * multiple of every holder count up to 6, and larger counts lose at most a
 * rounding (which stays idle). */
#define MIG_SPLIT 60

/* The holders of GPU G's MIG devices, each by its slices of the GPU's. */
static uint64_t mig_claims(const struct pna_view *v, const struct pna_gpu_snap *gs,
                           const struct pna_gpu *g, struct claim_list *out)
{
    for (size_t i = 0; i < gs->mig_count; i++) {
        const struct pna_gpu_mig *m = &gs->migs[i];
        if (m->gpu_index != g->index)
            continue;
        size_t first = out->n;
        struct collect_arg a = { .list = out };
        pna_mig_holders_each(v, m, add_container_claim, &a);
        uint32_t job = pna_slurm_mig_job(v, m);
        if (job && out->n < CLAIMS_MAX) {
            memset(&out->c[out->n], 0, sizeof out->c[0]);
            out->c[out->n].who.kind = PNA_USAGE_SLURM_JOB;
            out->c[out->n].who.job = job;
            snprintf(out->c[out->n++].who.id, sizeof out->c[0].who.id, "%u", (unsigned)job);
        }
        size_t holders = out->n - first;
        for (size_t k = first; k < out->n; k++) {
            struct pna_usage_claim *c = &out->c[k];
            c->rule = PNA_USAGE_MIG;
            c->weight = (uint64_t)pna_usage_mig_slices(m->profile) * MIG_SPLIT / holders;
            c->has_sm = m->has_sm_active;
            c->sm_bp = m->sm_active_bp;
            c->has_mem = m->has_mem;
            c->mem_bytes = m->mem_used_bytes / holders;
        }
    }
    return (uint64_t)pna_usage_gpu_slices(g->name) * MIG_SPLIT;
}

/* Claims keep the ledger's order of holders, so an unchanged set compares equal. */
static int claim_cmp(const void *pa, const void *pb)
{
    const struct pna_usage_holder *a = &((const struct pna_usage_claim *)pa)->who;
    const struct pna_usage_holder *b = &((const struct pna_usage_claim *)pb)->who;
    if (a->kind != b->kind)
        return a->kind < b->kind ? -1 : 1;
    int c = strcmp(a->id, b->id);
    return c ? c : (a->job < b->job ? -1 : a->job > b->job);
}

/* ---- one poll ------------------------------------------------------------------ */

static void sample_of(const struct pna_gpu_snap *gs, size_t i, struct pna_usage_sample *s)
{
    const struct pna_gpu *g = &gs->gpus[i];
    *s = (struct pna_usage_sample){
        .index = g->index, .pci_bus_id = g->pci_bus_id, .uuid = g->uuid,
        .number = pna_gpu_number(gs, i), .taken_ms = gs->base.taken_ms,
        .has_energy = g->has_energy, .energy_mj = g->energy_mj,
        .has_power = g->has_power, .power_mw = g->power_mw,
        .has_power_limit = g->has_power_limit, .power_limit_mw = g->power_limit_mw,
    };
}

/* Charge GPU snapshot GS to the holders view V names; ERR gets the first
 * rejected interval. */
static void charge(struct acct_state *st, const struct pna_view *v, const struct pna_gpu_snap *gs,
                   char *err, size_t errlen)
{
    static struct claim_list claims;   /* the poller's thread alone */
    for (size_t i = 0; i < gs->count; i++) {
        const struct pna_gpu *g = &gs->gpus[i];
        if (g->lost)
            continue;
        struct pna_usage_sample s;
        sample_of(gs, i, &s);
        struct pna_usage_gpu *ug = pna_usage_gpu_of(&st->ledger, &s, s.taken_ms);
        if (!ug)
            continue;
        claims.n = 0;
        uint64_t den = g->has_mig && g->mig_enabled ? mig_claims(v, gs, g, &claims)
                                                    : whole_gpu_claims(v, gs, g, &claims);
        qsort(claims.c, claims.n, sizeof claims.c[0], claim_cmp);
        char why[200] = "";
        if (pna_usage_charge_gpu(&st->ledger, ug, &s, claims.c, claims.n, den, why, sizeof why) ==
            PNA_USAGE_REJECTED) {
            pna_log(LOG_WARNING, "accounting: %s: interval not charged", why);
            if (!err[0])
                snprintf(err, errlen, "%s: interval not charged", why);
        }
    }
}

static void save(struct acct_state *st, bool clean, char *err, size_t errlen)
{
    const char *path = st->set->state_file;
    if (!path || !path[0])
        return;
    char why[300];
    int64_t now = pna_now_ms();
    if (pna_usage_state_write(path, &st->ledger, clean, now, why, sizeof why) < 0) {
        if (err && !err[0])
            snprintf(err, errlen, "state file not written: %s", why);
        else if (!err)
            pna_log(LOG_WARNING, "accounting: state file not written: %s", why);
        return;
    }
    st->saved_ms = now;
    st->dirty = false;
}

static int acct_collect(void *state, const struct pna_snap *prev,
                        const struct pna_poller_inputs *in, struct pna_snap **out, char *err,
                        size_t errlen)
{
    (void)prev;
    struct acct_state *st = state;
    const struct pna_gpu_snap *gs = (const struct pna_gpu_snap *)pna_poller_input(in, PNA_DOM_GPU);
    err[0] = '\0';
    int64_t now = pna_now_ms();
    if (gs && gs->base.generation != st->gpu_generation) {
        struct pna_view v = { .now_ms = now };
        static const enum pna_domain joined[] = { PNA_DOM_GPU, PNA_DOM_CONTAINERS,
                                                  PNA_DOM_PODRES, PNA_DOM_SLURM };
        for (size_t i = 0; i < sizeof joined / sizeof joined[0]; i++) {
            v.snap[joined[i]] = (struct pna_snap *)pna_poller_input(in, joined[i]);
            v.taken |= PNA_VIEW_DOMAIN(joined[i]);
        }
        pna_usage_age(&st->ledger, gs->base.taken_ms, (int64_t)st->set->retention_ms);
        charge(st, &v, gs, err, errlen);
        st->gpu_generation = gs->base.generation;
        st->dirty = true;
    }
    if (st->dirty && now - st->saved_ms >= SAVE_EVERY_MS)
        save(st, false, err, errlen);
    struct pna_usage_snap *s = pna_usage_snap_copy(&st->ledger, now);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    *out = &s->base;
    return 0;
}

static void acct_fini(void *state)
{
    struct acct_state *st = state;
    if (!st)
        return;
    /* Nothing accounted and nothing read at start: no file to write (a node
     * without GPUs, or a state directory nobody made). */
    if (st->ledger.n_gpus || st->ledger.n_rows || st->restored)
        save(st, true, NULL, 0);
    pna_usage_ledger_free(&st->ledger);
    free(st);
}

/* The accounting poller's tokens (docs/configuration.md, "GPU accounting"). */
static const struct pna_config_key accounting_keys[] = {
    { .token = "accountingStateFile", .type = PNA_KEY_STRING,
      .offset = offsetof(struct pna_accounting_settings, state_file),
      .def_str = "/var/lib/primus-node-agent/accounting.state" },
    { .token = "accountingRetention", .type = PNA_KEY_SECONDS_MS,
      .offset = offsetof(struct pna_accounting_settings, retention_ms), .min = 0,
      .max = 31 * 24 * 3600, .def = 3600 },
    { .token = NULL },
};

const struct pna_poller_ops pna_accounting_poller = {
    .name = "accounting",
    .index = ACCOUNTING_INDEX,
    .domain = PNA_DOM_ACCOUNTING,
    .inputs = PNA_DOM_BIT(PNA_DOM_GPU) | PNA_DOM_BIT(PNA_DOM_CONTAINERS) |
              PNA_DOM_BIT(PNA_DOM_PODRES) | PNA_DOM_BIT(PNA_DOM_SLURM),
    .default_interval_ms = 10000,   /* the gpu poller's */
    .default_timeout_ms = 8000,
    .keys = accounting_keys,
    .settings_size = sizeof(struct pna_accounting_settings),
    .init = acct_init,
    .collect = acct_collect,
    .fini = acct_fini,
};
