/* model/accounting/usage.c -- the accounting ledger and its charging rules
 * (see usage.h and docs/gpu.md, "GPU accounting"). */
#include "pna_autoconf.h"
#include "model/accounting/usage.h"
#include "util/array.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the sharing arithmetic -------------------------------------------------- */

uint64_t pna_usage_split(uint64_t amount, const uint64_t *weights, size_t n, uint64_t den,
                         uint64_t *out)
{
    uint64_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += weights[i];
    if (total > den)
        den = total;
    uint64_t left = amount;
    for (size_t i = 0; i < n; i++) {
        /* 128 bits: an amount times a weight may pass 64 */
        out[i] = den ? (uint64_t)((unsigned __int128)amount * weights[i] / den) : 0;
        left -= out[i];
    }
    return left;
}

/* The number before LETTER in one dot-separated part of PROFILE ("3g"). */
static uint32_t profile_count(const char *profile, char letter)
{
    for (const char *p = profile; *p;) {
        char *end;
        if (isdigit((unsigned char)*p)) {
            unsigned long v = strtoul(p, &end, 10);
            if (*end == letter && (end[1] == '.' || end[1] == '\0' || letter == 'c'))
                return v > 64 ? 0 : (uint32_t)v;
            p = end;
        }
        const char *dot = strchr(p, '.');
        if (!dot)
            break;
        p = dot + 1;
    }
    return 0;
}

uint32_t pna_usage_mig_slices(const char *profile)
{
    uint32_t c = profile_count(profile, 'c');
    return c ? c : profile_count(profile, 'g');
}

uint32_t pna_usage_gpu_slices(const char *name)
{
    return strstr(name, "A30") ? 4 : 7;
}

/* ---- finding and adding rows -------------------------------------------------- */

const struct pna_usage_gpu *pna_usage_find_gpu(const struct pna_usage_gpu *gpus, size_t n,
                                               uint32_t index)
{
    for (size_t i = 0; i < n; i++)
        if (gpus[i].index == index)
            return &gpus[i];
    return NULL;
}

/* Make room at position AT of an array of N items of SIZE bytes; the new
 * item is zeroed.  Returns it, or NULL when out of memory. */
static void *insert_at(void **items, size_t *n, size_t *cap, size_t size, size_t at)
{
    if (pna_array_reserve(items, cap, *n + 1, size) < 0)
        return NULL;
    char *base = *items;
    memmove(base + (at + 1) * size, base + at * size, (*n - at) * size);
    memset(base + at * size, 0, size);
    (*n)++;
    return base + at * size;
}

struct pna_usage_gpu *pna_usage_gpu_of(struct pna_usage_ledger *l, const struct pna_usage_sample *s,
                                       int64_t now_ms)
{
    size_t at = 0;
    while (at < l->n_gpus && l->gpus[at].index < s->index)
        at++;
    struct pna_usage_gpu *g = at < l->n_gpus && l->gpus[at].index == s->index ? &l->gpus[at] : NULL;
    /* Another GPU in the same slot (a board swapped): its figures restart. */
    if (g && s->uuid && s->uuid[0] && g->uuid[0] && strcmp(g->uuid, s->uuid) != 0) {
        free(g->claims);
        memset(g, 0, sizeof *g);
        g->index = s->index;
        g->created_ms = now_ms;
    }
    if (!g) {
        g = insert_at((void **)&l->gpus, &l->n_gpus, &l->cap_gpus, sizeof *g, at);
        if (!g)
            return NULL;
        g->index = s->index;
        g->created_ms = now_ms;
    }
    snprintf(g->pci_bus_id, sizeof g->pci_bus_id, "%s", s->pci_bus_id ? s->pci_bus_id : "");
    snprintf(g->uuid, sizeof g->uuid, "%s", s->uuid ? s->uuid : "");
    g->number = s->number;
    g->present = true;
    return g;
}

static int holder_cmp(const struct pna_usage_holder *a, const struct pna_usage_holder *b)
{
    if (a->kind != b->kind)
        return a->kind < b->kind ? -1 : 1;
    int c = strcmp(a->id, b->id);
    if (c)
        return c;
    return a->job < b->job ? -1 : a->job > b->job;
}

struct pna_usage_row *pna_usage_row_of(struct pna_usage_ledger *l, uint32_t gpu_index,
                                       const struct pna_usage_holder *who, bool add,
                                       int64_t now_ms)
{
    size_t at = 0;
    for (; at < l->n_rows; at++) {
        const struct pna_usage_row *r = &l->rows[at];
        int c = r->gpu_index != gpu_index ? (r->gpu_index < gpu_index ? -1 : 1)
                                          : holder_cmp(&r->who, who);
        if (c == 0)
            return &l->rows[at];
        if (c > 0)
            break;
    }
    if (!add)
        return NULL;
    struct pna_usage_row *r =
        insert_at((void **)&l->rows, &l->n_rows, &l->cap_rows, sizeof *r, at);
    if (!r)
        return NULL;
    r->gpu_index = gpu_index;
    r->who = *who;
    r->created_ms = now_ms;
    return r;
}

struct pna_usage_sum *pna_usage_pod(struct pna_usage_ledger *l, const char *ns, const char *pod,
                                    bool add, int64_t now_ms)
{
    size_t at = 0;
    for (; at < l->n_pods; at++) {
        int c = strcmp(l->pods[at].pod_namespace, ns);
        if (!c)
            c = strcmp(l->pods[at].pod, pod);
        if (c == 0)
            return &l->pods[at];
        if (c > 0)
            break;
    }
    if (!add)
        return NULL;
    struct pna_usage_sum *s =
        insert_at((void **)&l->pods, &l->n_pods, &l->cap_pods, sizeof *s, at);
    if (!s)
        return NULL;
    snprintf(s->pod_namespace, sizeof s->pod_namespace, "%s", ns);
    snprintf(s->pod, sizeof s->pod, "%s", pod);
    s->created_ms = now_ms;
    return s;
}

struct pna_usage_sum *pna_usage_job(struct pna_usage_ledger *l, uint32_t job, bool add,
                                    int64_t now_ms)
{
    size_t at = 0;
    for (; at < l->n_jobs && l->jobs[at].job <= job; at++)
        if (l->jobs[at].job == job)
            return &l->jobs[at];
    if (!add)
        return NULL;
    struct pna_usage_sum *s =
        insert_at((void **)&l->jobs, &l->n_jobs, &l->cap_jobs, sizeof *s, at);
    if (!s)
        return NULL;
    s->job = job;
    s->created_ms = now_ms;
    return s;
}

/* ---- charging ------------------------------------------------------------------ */

/* What one claim gets of one (part of an) interval. */
struct charge {
    uint64_t energy_mj, held_ms, sm_ms, mem_byte_ms;
    bool has_energy, has_sm, has_mem;
};

static void add_figures(struct pna_usage_figures *f, const struct charge *c)
{
    f->has_energy |= c->has_energy;
    f->energy_mj += c->energy_mj;
    f->held_ms += c->held_ms;
    if (c->has_sm) {
        f->has_sm_active = true;
        f->sm_active_ms += c->sm_ms;
    }
    f->has_mem |= c->has_mem;
    uint64_t byte_ms = c->mem_byte_ms + f->mem_byte_ms_rem;
    f->mem_byte_s += byte_ms / 1000;
    f->mem_byte_ms_rem = (uint32_t)(byte_ms % 1000);
}

/* Add charge C of claim CL on GPU G to its row, its pod's sum and its job's.
 * Returns the energy it took, 0 when out of memory (it then stays idle). */
static uint64_t book(struct pna_usage_ledger *l, const struct pna_usage_gpu *g,
                     const struct pna_usage_claim *cl, const struct charge *c, int64_t now_ms)
{
    struct pna_usage_row *r = pna_usage_row_of(l, g->index, &cl->who, true, now_ms);
    if (!r)
        return 0;
    snprintf(r->pci_bus_id, sizeof r->pci_bus_id, "%s", g->pci_bus_id);
    snprintf(r->uuid, sizeof r->uuid, "%s", g->uuid);
    r->gpu_number = g->number;
    r->energy_from = g->energy_from;
    r->rule = cl->rule;
    r->held = true;
    r->last_seen_ms = now_ms;
    add_figures(&r->f, c);
    if (cl->who.pod[0]) {
        struct pna_usage_sum *p = pna_usage_pod(l, cl->who.pod_namespace, cl->who.pod, true, now_ms);
        if (p) {
            add_figures(&p->f, c);
            p->last_seen_ms = now_ms;
        }
    }
    if (cl->who.job) {
        struct pna_usage_sum *j = pna_usage_job(l, cl->who.job, true, now_ms);
        if (j) {
            add_figures(&j->f, c);
            j->last_seen_ms = now_ms;
        }
    }
    return c->energy_mj;
}

#define SPLIT_MAX 64   /* claims shared by weight; more than that are charged evenly in
                          groups (no GPU has as many holders) */

/* Charge ENERGY_MJ and DT_MS to the N claims over DEN; returns the energy
 * charged.  (Claims beyond SPLIT_MAX get nothing: their part is idle.) */
static uint64_t charge_claims(struct pna_usage_ledger *l, const struct pna_usage_gpu *g,
                              const struct pna_usage_claim *claims, size_t n, uint64_t den,
                              bool has_energy, uint64_t energy_mj, uint64_t dt_ms, int64_t now_ms)
{
    if (n > SPLIT_MAX)
        n = SPLIT_MAX;
    uint64_t w[SPLIT_MAX] = { 0 }, e[SPLIT_MAX] = { 0 }, t[SPLIT_MAX] = { 0 };
    for (size_t i = 0; i < n; i++)
        w[i] = claims[i].weight;
    pna_usage_split(energy_mj, w, n, den, e);
    pna_usage_split(dt_ms, w, n, den, t);
    uint64_t charged = 0;
    for (size_t i = 0; i < n; i++) {
        const struct pna_usage_claim *cl = &claims[i];
        struct charge c = { .energy_mj = e[i], .held_ms = t[i], .has_energy = has_energy,
                            .has_sm = cl->has_sm };
        if (cl->has_sm)
            c.sm_ms = t[i] * cl->sm_bp / 10000;
        c.has_mem = cl->has_mem;
        if (cl->has_mem)
            c.mem_byte_ms = cl->mem_bytes * dt_ms;
        charged += book(l, g, cl, &c, now_ms);
    }
    return charged;
}

static bool same_holders(const struct pna_usage_claim *a, size_t na,
                         const struct pna_usage_claim *b, size_t nb)
{
    if (na != nb)
        return false;
    for (size_t i = 0; i < na; i++)
        if (holder_cmp(&a[i].who, &b[i].who) != 0)
            return false;
    return true;
}

static int keep_claims(struct pna_usage_gpu *g, const struct pna_usage_claim *claims, size_t n,
                       uint64_t den)
{
    if (PNA_ARRAY_RESERVE(g->claims, g->cap_claims, n) < 0)
        return -1;
    if (n)
        memcpy(g->claims, claims, n * sizeof *claims);
    g->n_claims = n;
    g->denominator = den;
    return 0;
}

/* The interval's energy, or a rejection with WHY.  Sets *DE. */
static enum pna_usage_outcome interval_energy(struct pna_usage_gpu *g,
                                              const struct pna_usage_sample *s, uint64_t dt_ms,
                                              uint64_t *de, char *why, size_t cap)
{
    *de = 0;
    if (g->energy_from == PNA_USAGE_FROM_COUNTER) {
        if (s->energy_mj < g->counter_mj) {
            snprintf(why, cap, "GPU %s: energy counter went backwards (%llu to %llu mJ)",
                     g->pci_bus_id, (unsigned long long)g->counter_mj,
                     (unsigned long long)s->energy_mj);
            return PNA_USAGE_REJECTED;
        }
        *de = s->energy_mj - g->counter_mj;
    } else if (s->has_power) {
        *de = (uint64_t)s->power_mw * dt_ms / 1000;
    } else {
        return PNA_USAGE_NO_ENERGY;
    }
    /* Only a counter can lie: power x time is the agent's own figure.  mW x
     * ms / 1000 = mJ, with PNA_USAGE_PHYSICS_SLACK_PCT more: a GPU may draw
     * above its enforced limit for a moment, and the counter is read at some
     * point of a poll while the interval is measured between poll ends. */
    uint64_t most = g->energy_from == PNA_USAGE_FROM_COUNTER && s->has_power_limit
                        ? (uint64_t)s->power_limit_mw * dt_ms / 1000 *
                              (100 + PNA_USAGE_PHYSICS_SLACK_PCT) / 100
                        : UINT64_MAX;
    if (*de > most) {
        snprintf(why, cap,
                 "GPU %s: energy rose %llu mJ in %llu ms, more than its power limit allows (%llu mJ)",
                 g->pci_bus_id, (unsigned long long)*de, (unsigned long long)dt_ms,
                 (unsigned long long)most);
        return PNA_USAGE_REJECTED;
    }
    return PNA_USAGE_CHARGED;
}

/* Start the GPU's figures over at sample S: idle is the counter, nothing
 * charged since (a new discontinuity time). */
static void restart_gpu(struct pna_usage_gpu *g, const struct pna_usage_sample *s, int64_t now_ms)
{
    g->energy_from = s->has_energy ? PNA_USAGE_FROM_COUNTER : PNA_USAGE_FROM_POWER;
    g->counter_mj = s->has_energy ? s->energy_mj : 0;
    g->idle_mj = g->counter_mj;
    g->charged_mj = 0;
    g->created_ms = now_ms;
}

enum pna_usage_outcome pna_usage_charge_gpu(struct pna_usage_ledger *l, struct pna_usage_gpu *g,
                                            const struct pna_usage_sample *s,
                                            const struct pna_usage_claim *claims, size_t n,
                                            uint64_t denominator, char *why, size_t cap)
{
    int64_t now_ms = s->taken_ms;
    bool from_counter = s->has_energy;
    if (!g->has_sample || (g->energy_from == PNA_USAGE_FROM_COUNTER) != from_counter) {
        restart_gpu(g, s, now_ms);
        g->has_sample = true;
        g->sample_ms = s->taken_ms;
        keep_claims(g, claims, n, denominator);
        return PNA_USAGE_FIRST;
    }
    uint64_t dt_ms = s->taken_ms > g->sample_ms ? (uint64_t)(s->taken_ms - g->sample_ms) : 0;
    uint64_t de;
    enum pna_usage_outcome out = interval_energy(g, s, dt_ms, &de, why, cap);
    g->sample_ms = s->taken_ms;
    if (out == PNA_USAGE_REJECTED) {
        g->rejected++;
        restart_gpu(g, s, now_ms);
        keep_claims(g, claims, n, denominator);
        return out;
    }
    bool has_e = out == PNA_USAGE_CHARGED;
    uint64_t charged = 0;
    if (g->restored) {
        /* nobody was seen holding it while the agent was down */
        g->restored = false;
    } else if (same_holders(g->claims, g->n_claims, claims, n)) {
        charged = charge_claims(l, g, claims, n, denominator, has_e, de, dt_ms, now_ms);
    } else {
        /* a holder change between two samples: half to the old, half to the new */
        uint64_t de1 = de / 2, dt1 = dt_ms / 2;
        charged = charge_claims(l, g, g->claims, g->n_claims, g->denominator, has_e, de1, dt1,
                                now_ms);
        charged += charge_claims(l, g, claims, n, denominator, has_e, de - de1, dt_ms - dt1,
                                 now_ms);
    }
    g->charged_mj += charged;
    g->idle_mj += de - charged;
    if (g->energy_from == PNA_USAGE_FROM_COUNTER)
        g->counter_mj = s->energy_mj;
    else
        g->counter_mj += de;
    if (keep_claims(g, claims, n, denominator) < 0)
        g->n_claims = 0;
    return out;
}

/* ---- ageing ------------------------------------------------------------------- */

static void drop_gpu(struct pna_usage_gpu *g)
{
    free(g->claims);
}

void pna_usage_age(struct pna_usage_ledger *l, int64_t now_ms, int64_t retention_ms)
{
    int64_t oldest = now_ms - retention_ms;
    size_t w = 0;
    for (size_t i = 0; i < l->n_rows; i++) {
        l->rows[i].held = false;
        if (l->rows[i].last_seen_ms >= oldest)
            l->rows[w++] = l->rows[i];
    }
    l->n_rows = w;
    w = 0;
    for (size_t i = 0; i < l->n_pods; i++)
        if (l->pods[i].last_seen_ms >= oldest)
            l->pods[w++] = l->pods[i];
    l->n_pods = w;
    w = 0;
    for (size_t i = 0; i < l->n_jobs; i++)
        if (l->jobs[i].last_seen_ms >= oldest)
            l->jobs[w++] = l->jobs[i];
    l->n_jobs = w;
    w = 0;
    for (size_t i = 0; i < l->n_gpus; i++) {
        struct pna_usage_gpu *g = &l->gpus[i];
        if (g->present || g->sample_ms >= oldest)
            l->gpus[w++] = *g;
        else
            drop_gpu(g);
    }
    l->n_gpus = w;
    for (size_t i = 0; i < l->n_gpus; i++)
        l->gpus[i].present = false;
}

void pna_usage_ledger_free(struct pna_usage_ledger *l)
{
    for (size_t i = 0; i < l->n_gpus; i++)
        drop_gpu(&l->gpus[i]);
    free(l->gpus);
    free(l->rows);
    free(l->pods);
    free(l->jobs);
    memset(l, 0, sizeof *l);
}

/* ---- the snapshot -------------------------------------------------------------- */

static void destroy_snap(struct pna_snap *snap)
{
    struct pna_usage_snap *s = (struct pna_usage_snap *)snap;
    pna_usage_ledger_free(&s->l);
    free(s);
}

static void *copy_of(const void *items, size_t n, size_t size, bool *failed)
{
    if (!n)
        return NULL;
    void *p = malloc(n * size);
    if (!p)
        *failed = true;
    else
        memcpy(p, items, n * size);
    return p;
}

struct pna_usage_snap *pna_usage_snap_copy(const struct pna_usage_ledger *l, int64_t taken_ms)
{
    struct pna_usage_snap *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    bool failed = false;
    s->l.gpus = copy_of(l->gpus, l->n_gpus, sizeof *l->gpus, &failed);
    s->l.rows = copy_of(l->rows, l->n_rows, sizeof *l->rows, &failed);
    s->l.pods = copy_of(l->pods, l->n_pods, sizeof *l->pods, &failed);
    s->l.jobs = copy_of(l->jobs, l->n_jobs, sizeof *l->jobs, &failed);
    s->l.n_gpus = s->l.cap_gpus = s->l.gpus ? l->n_gpus : 0;
    s->l.n_rows = s->l.cap_rows = s->l.rows ? l->n_rows : 0;
    s->l.n_pods = s->l.cap_pods = s->l.pods ? l->n_pods : 0;
    s->l.n_jobs = s->l.cap_jobs = s->l.jobs ? l->n_jobs : 0;
    for (size_t i = 0; i < s->l.n_gpus; i++) {
        s->l.gpus[i].claims = NULL;   /* the poller's, not the snapshot's */
        s->l.gpus[i].n_claims = s->l.gpus[i].cap_claims = 0;
    }
    pna_snap_init(&s->base, destroy_snap);
    s->base.taken_ms = taken_ms;
    if (failed) {
        pna_snap_release(&s->base);
        return NULL;
    }
    return s;
}
