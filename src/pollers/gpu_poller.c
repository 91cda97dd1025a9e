/* pollers/gpu_poller.c -- the "gpu" poller: NVIDIA (NVML, else nvidia-smi)
 * and AMD (rocm-smi-lib, else amdgpu sysfs) GPUs in one snapshot sorted by
 * PCI address, with /dev/dri names, and the GPU notifications:
 *   PNA_EV_GPU_XID      from NVML's event API, on the XID listener thread;
 *   PNA_EV_GPU_THERMAL  once per crossing of the slowdown threshold;
 *   PNA_EV_GPU_LOST     when a GPU that was present disappears or NVML
 *                       answers GPU_IS_LOST for it;
 *   PNA_EV_GPU_LINK_*   when a link goes down or comes back;
 *   PNA_EV_GPU_HEALTH   when the health verdict changes.
 *   PNA_EV_GPU_IDLE_ALLOCATED  when a held GPU becomes idle (below
 *                       accountingIdleThreshold for its window) or is no longer;
 *   PNA_EV_GPU_ORPHAN_PROCESS  for each process found on a GPU that no
 *                       container or Slurm job holds.
 * The last two need the holders: the containers, podresources and slurm
 * snapshots are this poller's inputs, joined with the functions the front
 * ends' holder columns use (model/gpu/gpu_idle.h), and the verdicts go in
 * the GPU's row.
 * All but the XIDs go through core/transitions.c: at start-up (and for a GPU
 * that appears) only bad news is news.
 *
 * Thread ownership: init/collect/fini run on the poller thread; the XID
 * listener only reads its own copy of the GPU identities and posts events.
 * A vendor call that hangs holds the poller thread: the poller core notices
 * the overrun and keeps serving the last snapshot.  A failure of any source
 * fails the whole poll, so a GPU never looks "gone" because its vendor's
 * source had a bad moment. */
#include "pna_autoconf.h"
#include "core/config.h"
#include "pollers/pollers.h"
#include "sources/gpu/dri_map.h"
#include "sources/gpu/gpu_procs.h"
#include "sources/gpu/mig_caps.h"
#include "sources/pci/pcie_sysfs.h"
#include "sources/gpu/amd.h"
#include "sources/gpu/amd_gpu_metrics.h"
#include "sources/gpu/amd_kfd.h"
#include "sources/gpu/nvml.h"
#include "sources/gpu/nvsmi.h"
#include "watchers/gpu_xid.h"
#include "core/events.h"
#include "core/log.h"
#include "core/transitions.h"
#include "core/view.h"
#include "model/gpu/gpu_idle.h"
#include "model/kubernetes/holders.h"
#include "model/slurm/slurm_holders.h"
#include "util/clock.h"
#include "util/fileio.h"

#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_XID_GPUS 64

/* Per-GPU notification state, kept across polls: four kinds of state, each
 * through core/transitions.c (the start-up policy, changes, GPUs that went
 * away), keyed by the GPU's index (a link: index, link number). */
enum { GPU_PRESENT = 1, GPU_LOST = 2 };
enum { GPU_COOL = 1, GPU_HOT = 2 };
enum { GPU_LINK_DOWN = 1, GPU_LINK_UP = 2 };
enum { GPU_BUSY = 1, GPU_IDLE = 2 };
enum { GPU_PROC_OWNED = 1, GPU_PROC_ORPHAN = 2 };

/* What is kept of a present GPU: its names for the notification when it
 * disappears, and which of its links were ever up. */
struct gpu_seen {
    char pci_bus_id[24];
    char uuid[80];
    uint32_t links_seen_up;  /* bit per link number that was up at some poll */
};

struct gpu_alerts {
    struct pna_transitions *presence; /* GPU_PRESENT / GPU_LOST, data struct gpu_seen */
    struct pna_transitions *thermal;  /* GPU_COOL / GPU_HOT */
    struct pna_transitions *links;    /* GPU_LINK_DOWN / GPU_LINK_UP */
    struct pna_transitions *health;   /* the verdict notified (enum pna_gpu_verdict values) */
    /* GPU_BUSY / GPU_IDLE, data struct pna_gpu_idle_track: the window's
     * history lives here, across failed polls too */
    struct pna_transitions *idle;
    struct pna_transitions *orphans;  /* GPU_PROC_OWNED / GPU_PROC_ORPHAN, key (GPU, pid) */
};

/* XIDs per GPU since the agent started (primusGpuXidErrors, primusGpuLastXid). */
struct xid_count {
    uint32_t index;
    uint32_t count;
    uint32_t last;
    uint32_t worst;  /* by NVIDIA's XID catalogue (pna_gpu_xid_class) */
};

struct gpu_state {
    struct pna_roots roots;
    char nvml_library[512];
    char nvidia_smi[512];
    unsigned nvidia_smi_timeout_ms;
    int32_t temp_threshold_c;
    unsigned process_rows;       /* gpuProcessRows */
    struct pna_gpu_idle_rule idle_rule; /* accountingIdleThreshold, defaults filled */
    /* amdgpu gpu_metrics blobs the sysfs reader refused, and how many of
     * them are logged already */
    struct pna_amd_gpu_metrics_refusals amd_refusals;
    unsigned long amd_refusals_logged;

    struct pna_nvml *nvml;
    bool use_nvsmi;
    bool use_amd;
    struct pna_rocm *rocm;

    struct gpu_alerts alerts;

    /* Written by the XID listener thread, read by collect(): xid_lock. */
    pthread_mutex_t xid_lock;
    struct xid_count xids[MAX_XID_GPUS];
    size_t nxids;

    bool xid_tried;     /* the XID listener was started once */
    uint32_t *xid_keys; /* NVML GPUs it was started for */
    size_t nxid_keys;
    struct pna_xid_watch *xid_watch;   /* NULL: none running */
    bool xid_stuck;     /* a stop found it stuck in NVML: NVML and ST stay, none again */
};

/* --- notifications ---------------------------------------------------- */

/* An event about one GPU, its identifying fields filled. */
static void gpu_event_init(struct pna_event *ev, enum pna_event_type type, enum pna_severity sev,
                           uint32_t index, const char *bus_id, const char *uuid)
{
    memset(ev, 0, sizeof *ev);
    ev->type = type;
    ev->severity = sev;
    snprintf(ev->subject, sizeof ev->subject, "gpu %s", bus_id[0] ? bus_id : "?");
    ev->u.gpu.index = index;
    pna_strlcpy(ev->u.gpu.uuid, uuid, sizeof ev->u.gpu.uuid);
    pna_strlcpy(ev->u.gpu.pci_bus_id, bus_id, sizeof ev->u.gpu.pci_bus_id);
}

static void post_gpu_event(enum pna_event_type type, enum pna_severity sev, uint32_t index,
                           const char *bus_id, const char *uuid, const char *text)
{
    struct pna_event ev;
    gpu_event_init(&ev, type, sev, index, bus_id, uuid);
    pna_strlcpy(ev.text, text, sizeof ev.text);
    pna_event_post(&ev);
}

static void count_xid(struct gpu_state *st, uint32_t index, uint64_t xid)
{
    pthread_mutex_lock(&st->xid_lock);
    struct xid_count *c = NULL;
    for (size_t i = 0; i < st->nxids && !c; i++)
        if (st->xids[i].index == index)
            c = &st->xids[i];
    if (!c && st->nxids < MAX_XID_GPUS) {
        c = &st->xids[st->nxids++];
        c->index = index;
    }
    if (c) {
        c->count++;
        c->last = (uint32_t)xid;
        c->worst = pna_gpu_xid_worse(c->worst, (uint32_t)xid);
    }
    pthread_mutex_unlock(&st->xid_lock);
}

/* NVML GPUs carry their XID counts (0 until the first). */
static void fill_xids(struct gpu_state *st, struct pna_gpu *gpus, size_t count)
{
    pthread_mutex_lock(&st->xid_lock);
    for (size_t i = 0; i < count; i++) {
        if (gpus[i].source != PNA_GPU_SRC_NVML)
            continue;
        gpus[i].has_xid = true;
        for (size_t k = 0; k < st->nxids; k++)
            if (st->xids[k].index == gpus[i].index) {
                gpus[i].xid_errors = st->xids[k].count;
                gpus[i].last_xid = st->xids[k].last;
                gpus[i].worst_xid = st->xids[k].worst;
            }
    }
    pthread_mutex_unlock(&st->xid_lock);
}

/* Listener thread.  XIDs that mean the GPU needs a reset or the node a
 * reboot (48 double-bit ECC, 79 fallen off the bus, 95 uncontained ECC...:
 * pna_gpu_xid_class) are critical; the others are errors. */
static void on_xid(const struct pna_nvml_xid *x, void *arg)
{
    struct gpu_state *st = arg;
    count_xid(st, x->index, x->xid);
    struct pna_event ev;
    gpu_event_init(&ev, PNA_EV_GPU_XID,
                   pna_gpu_xid_class((uint32_t)x->xid) >= PNA_XID_RESET ? PNA_SEV_CRITICAL
                                                                        : PNA_SEV_ERROR,
                   x->index, x->pci_bus_id, x->uuid);
    snprintf(ev.text, sizeof ev.text, "XID %llu on GPU %s %s", (unsigned long long)x->xid,
             x->pci_bus_id, x->uuid);
    ev.u.gpu.xid = x->xid;
    pna_event_post(&ev);
}

/* What a GPU's observations give the callbacks: the GPU, and per kind the
 * thermal limit, the link, or the health reason. */
struct gpu_obs {
    const struct pna_gpu *g;
    int32_t limit_c;
    const struct pna_gpu_link *link;
    const char *reason;
};

static bool is_lost(int32_t state)
{
    return state == GPU_LOST;
}

static void post_lost(const struct pna_gpu *g)
{
    char text[256];
    snprintf(text, sizeof text, "GPU %s %s is lost (NVML: GPU is lost)", g->pci_bus_id, g->uuid);
    post_gpu_event(PNA_EV_GPU_LOST, PNA_SEV_CRITICAL, g->index, g->pci_bus_id, g->uuid, text);
}

static void lost_first_seen(void *arg, const struct pna_transition_key *key, void *data,
                            int32_t state, const void *obs)
{
    (void)arg;
    (void)key;
    (void)data;
    (void)state;
    post_lost(((const struct gpu_obs *)obs)->g);
}

/* Lost is news; found again is not (its rows say so). */
static bool lost_changed(void *arg, const struct pna_transition_key *key, void *data,
                         int32_t old_state, int32_t state, const void *obs)
{
    (void)arg;
    (void)key;
    (void)data;
    (void)old_state;
    if (state == GPU_LOST)
        post_lost(((const struct gpu_obs *)obs)->g);
    return true;
}

/* A GPU no longer enumerated: news unless it was reported lost already. */
static bool gpu_gone(void *arg, const struct pna_transition_key *key, void *data, int32_t last)
{
    (void)arg;
    const struct gpu_seen *seen = data;
    if (last != GPU_LOST) {
        char text[256];
        snprintf(text, sizeof text, "GPU %s %s disappeared", seen->pci_bus_id, seen->uuid);
        post_gpu_event(PNA_EV_GPU_LOST, PNA_SEV_CRITICAL, key->a, seen->pci_bus_id, seen->uuid,
                       text);
    }
    return true;
}

static const struct pna_transition_rule presence_rule = {
    .bad = is_lost, .first_seen = lost_first_seen, .changed = lost_changed, .gone = gpu_gone,
};

static bool is_hot(int32_t state)
{
    return state == GPU_HOT;
}

static void post_thermal(const struct gpu_state *st, const struct gpu_obs *o)
{
    const struct pna_gpu *g = o->g;
    char text[256];
    struct pna_event ev;
    gpu_event_init(&ev, PNA_EV_GPU_THERMAL, PNA_SEV_WARNING, g->index, g->pci_bus_id, g->uuid);
    if (st->temp_threshold_c > 0 || g->has_temp_slowdown)
        snprintf(text, sizeof text, "GPU %s at %d C, threshold %d C", g->pci_bus_id, g->temp_c,
                 o->limit_c);
    else
        snprintf(text, sizeof text, "GPU %s %d C below T.Limit, slowdown at %d C", g->pci_bus_id,
                 g->temp_tlimit_c, o->limit_c);
    pna_strlcpy(ev.text, text, sizeof ev.text);
    ev.u.gpu.temperature_c = g->has_temp ? g->temp_c : 0;
    ev.u.gpu.threshold_c = o->limit_c;
    pna_event_post(&ev);
}

static void thermal_first_seen(void *arg, const struct pna_transition_key *key, void *data,
                               int32_t state, const void *obs)
{
    (void)key;
    (void)data;
    (void)state;
    post_thermal(arg, obs);
}

/* Once per crossing; cooling down is not news. */
static bool thermal_changed(void *arg, const struct pna_transition_key *key, void *data,
                            int32_t old_state, int32_t state, const void *obs)
{
    (void)key;
    (void)data;
    (void)old_state;
    if (state == GPU_HOT)
        post_thermal(arg, obs);
    return true;
}

static const struct pna_transition_rule thermal_rule = {
    .bad = is_hot, .first_seen = thermal_first_seen, .changed = thermal_changed,
};

/* A link is no news at first sight, down (never up: an NVLink bridge that
 * is not fitted) or up; then each change is. */
static bool link_changed(void *arg, const struct pna_transition_key *key, void *data,
                         int32_t old_state, int32_t state, const void *obs)
{
    (void)arg;
    (void)key;
    (void)data;
    (void)old_state;
    const struct gpu_obs *o = obs;
    const struct pna_gpu *g = o->g;
    bool up = state == GPU_LINK_UP;
    struct pna_event ev;
    gpu_event_init(&ev, up ? PNA_EV_GPU_LINK_UP : PNA_EV_GPU_LINK_DOWN,
                   up ? PNA_SEV_INFO : PNA_SEV_ERROR, g->index, g->pci_bus_id, g->uuid);
    ev.u.gpu.link = o->link->number;
    pna_strlcpy(ev.u.gpu.remote_bus_id, o->link->remote_bus_id, sizeof ev.u.gpu.remote_bus_id);
    snprintf(ev.text, sizeof ev.text, "GPU %s link %u %s (remote %s)", g->pci_bus_id,
             o->link->number, up ? "is up again" : "went down",
             o->link->remote_bus_id[0] ? o->link->remote_bus_id : "unknown");
    pna_event_post(&ev);
    return true;
}

static const struct pna_transition_rule link_rule = { .changed = link_changed };

/* A GPU that starts ok (or unknown) is not news. */
static bool health_is_bad(int32_t verdict)
{
    return verdict == PNA_VERDICT_WARNING || verdict == PNA_VERDICT_CRITICAL;
}

static void post_health(const struct gpu_obs *o, int v)
{
    static const enum pna_severity sev[] = {
        [PNA_VERDICT_OK] = PNA_SEV_INFO, [PNA_VERDICT_WARNING] = PNA_SEV_WARNING,
        [PNA_VERDICT_CRITICAL] = PNA_SEV_CRITICAL, [PNA_VERDICT_UNKNOWN] = PNA_SEV_INFO,
    };
    const struct pna_gpu *g = o->g;
    struct pna_event ev;
    gpu_event_init(&ev, PNA_EV_GPU_HEALTH, sev[v], g->index, g->pci_bus_id, g->uuid);
    ev.u.gpu.health = v;
    pna_strlcpy(ev.u.gpu.reason, o->reason, sizeof ev.u.gpu.reason);
    snprintf(ev.text, sizeof ev.text, "GPU %s is %s%s%s", g->pci_bus_id, pna_gpu_verdict_name(v),
             o->reason[0] ? ": " : "", o->reason);
    pna_event_post(&ev);
}

static void health_first_seen(void *arg, const struct pna_transition_key *key, void *data,
                              int32_t verdict, const void *obs)
{
    (void)arg;
    (void)key;
    (void)data;
    post_health(obs, verdict);
}

/* Every change of verdict, with its reason. */
static bool health_changed(void *arg, const struct pna_transition_key *key, void *data,
                           int32_t old_verdict, int32_t verdict, const void *obs)
{
    (void)arg;
    (void)key;
    (void)data;
    (void)old_verdict;
    post_health(obs, verdict);
    return true;
}

static const struct pna_transition_rule health_rule = {
    .bad = health_is_bad, .first_seen = health_first_seen, .changed = health_changed,
};

/* --- the work on a GPU: idle but allocated, orphan processes ------------ */

/* What the idle and orphan texts need: the GPU, the view its holders are
 * found in, the rule, and (orphans) the process. */
struct work_obs {
    const struct pna_gpu *g;
    const struct pna_view *v;
    const struct pna_gpu_idle_rule *rule;
    const struct pna_gpu_proc *p;
};

static bool is_idle(int32_t state)
{
    return state == GPU_IDLE;
}

/* Who holds the GPU, for a text: "ml/llm-0", "container web", "job 60917",
 * "ml/llm-0 and job 60917"; "" nobody. */
static void holder_text(const struct pna_holder *h, uint32_t job, char *buf, size_t cap)
{
    char j[32] = "";
    if (job)
        snprintf(j, sizeof j, "job %u", job);
    if (h->pod[0])
        snprintf(buf, cap, "%s/%s%s%s", h->pod_namespace, h->pod, j[0] ? " and " : "", j);
    else if (h->count)
        snprintf(buf, cap, "container %s%s%s", h->container_name[0] ? h->container_name : h->container_id,
                 j[0] ? " and " : "", j);
    else
        snprintf(buf, cap, "%s", j);
}

static void post_idle(const struct work_obs *o, bool idle)
{
    const struct pna_gpu *g = o->g;
    struct pna_event ev;
    gpu_event_init(&ev, PNA_EV_GPU_IDLE_ALLOCATED, idle ? PNA_SEV_WARNING : PNA_SEV_INFO,
                   g->index, g->pci_bus_id, g->uuid);
    struct pna_holder h;
    pna_gpu_holder(o->v, g, &h);
    struct pna_event_gpu *e = &ev.u.gpu;
    e->idle_allocated = idle;
    e->low_since_s = g->low_activity_since_s;
    pna_strlcpy(e->holder_pod, h.pod, sizeof e->holder_pod);
    pna_strlcpy(e->holder_namespace, h.pod_namespace, sizeof e->holder_namespace);
    e->holder_job = pna_slurm_gpu_job(o->v, g);
    char who[256];
    holder_text(&h, e->holder_job, who, sizeof who);
    if (idle)
        snprintf(ev.text, sizeof ev.text, "GPU %s held by %.160s is idle: activity below %u.%02u %% "
                 "for %u s", g->pci_bus_id, who, o->rule->threshold_bp / 100,
                 o->rule->threshold_bp % 100, o->rule->window_s);
    else if (who[0])
        snprintf(ev.text, sizeof ev.text, "GPU %s held by %.160s is no longer idle", g->pci_bus_id,
                 who);
    else
        snprintf(ev.text, sizeof ev.text, "GPU %s, idle while allocated, was released",
                 g->pci_bus_id);
    pna_event_post(&ev);
}

static void idle_first_seen(void *arg, const struct pna_transition_key *key, void *data,
                            int32_t state, const void *obs)
{
    (void)arg;
    (void)key;
    (void)data;
    (void)state;
    post_idle(obs, true);
}

/* Idle is a warning; busy again, or released, is news too (its row says so). */
static bool idle_changed(void *arg, const struct pna_transition_key *key, void *data,
                         int32_t old_state, int32_t state, const void *obs)
{
    (void)arg;
    (void)key;
    (void)data;
    (void)old_state;
    post_idle(obs, state == GPU_IDLE);
    return true;
}

static const struct pna_transition_rule idle_rule = {
    .bad = is_idle, .first_seen = idle_first_seen, .changed = idle_changed,
};

static bool is_orphan(int32_t state)
{
    return state == GPU_PROC_ORPHAN;
}

static void post_orphan(const struct work_obs *o)
{
    const struct pna_gpu *g = o->g;
    const struct pna_gpu_proc *p = o->p;
    struct pna_event ev;
    gpu_event_init(&ev, PNA_EV_GPU_ORPHAN_PROCESS, PNA_SEV_WARNING, g->index, g->pci_bus_id,
                   g->uuid);
    ev.u.gpu.pid = p->pid;
    pna_strlcpy(ev.u.gpu.process, p->name, sizeof ev.u.gpu.process);
    ev.u.gpu.orphans = g->orphan_processes;
    snprintf(ev.text, sizeof ev.text, "GPU %s: process %u (%s) runs in no container or job "
             "(cgroup %.120s)", g->pci_bus_id, p->pid, p->name[0] ? p->name : "?", p->cgroup);
    pna_event_post(&ev);
}

static void orphan_first_seen(void *arg, const struct pna_transition_key *key, void *data,
                              int32_t state, const void *obs)
{
    (void)arg;
    (void)key;
    (void)data;
    (void)state;
    post_orphan(obs);
}

/* A process whose container went away while it stays on the GPU is news;
 * an orphan that joins a job's cgroup is not. */
static bool orphan_changed(void *arg, const struct pna_transition_key *key, void *data,
                           int32_t old_state, int32_t state, const void *obs)
{
    (void)arg;
    (void)key;
    (void)data;
    (void)old_state;
    if (state == GPU_PROC_ORPHAN)
        post_orphan(obs);
    return true;
}

static const struct pna_transition_rule orphan_rule = {
    .bad = is_orphan, .first_seen = orphan_first_seen, .changed = orphan_changed,
};

/* The idle verdict on G, from the window's history, into G's row. */
static void judge_idle(struct gpu_state *st, const struct pna_view *v, struct pna_gpu *g)
{
    struct pna_transition_key key = pna_transition_key(NULL, g->index, 0);
    const struct pna_gpu_idle_track *kept = pna_transitions_find(st->alerts.idle, &key, NULL);
    struct pna_gpu_idle_track t = kept ? *kept : (struct pna_gpu_idle_track){ 0 };
    uint32_t bp = 0;
    bool has_bp = pna_gpu_idle_activity(g, &bp);
    int64_t since_ms;
    enum pna_gpu_idle_verdict verdict =
        pna_gpu_idle_step(&st->idle_rule, &t, pna_gpu_idle_holders(v, g), has_bp, bp, v->now_ms,
                          &since_ms);
    g->low_activity_since_s = since_ms / 1000;
    if (verdict == PNA_GPU_IDLE_UNKNOWN)
        return;   /* not observed: its history goes, as the rule restarts the window */
    g->has_idle_allocated = true;
    g->idle_allocated = verdict == PNA_GPU_IDLE_YES;
    struct work_obs o = { .g = g, .v = v, .rule = &st->idle_rule };
    struct pna_gpu_idle_track *d =
        pna_transitions_observe(st->alerts.idle, &key, g->idle_allocated ? GPU_IDLE : GPU_BUSY, &o);
    if (d)
        *d = t;
}

/* Each process's orphan flag, and each GPU's count.  Judged where the
 * containers or the Slurm jobs are known; a process whose cgroup is not
 * known is not judged. */
static void judge_orphans(struct gpu_state *st, const struct pna_view *v,
                          struct pna_gpu_list *list)
{
    const struct pna_containers_snap *cs = pna_view_snap(v, PNA_DOM_CONTAINERS);
    if (!cs && !pna_view_snap(v, PNA_DOM_SLURM))
        return;
    for (size_t i = 0; i < list->count; i++)
        list->gpus[i].has_orphans = list->gpus[i].has_processes;
    for (size_t i = 0; i < list->nprocs; i++) {
        struct pna_gpu_proc *p = &list->procs[i];
        struct pna_gpu *g = (struct pna_gpu *)pna_gpu_find(list->gpus, list->count, p->gpu_index);
        if (!g || !p->cgroup[0])
            continue;
        p->has_orphan = true;
        p->orphan = pna_gpu_proc_is_orphan(cs, p);
        g->orphan_processes += p->orphan;
    }
    for (size_t i = 0; i < list->nprocs; i++) {
        const struct pna_gpu_proc *p = &list->procs[i];
        if (!p->has_orphan)
            continue;
        struct work_obs o = { .g = pna_gpu_find(list->gpus, list->count, p->gpu_index), .p = p };
        struct pna_transition_key key = pna_transition_key(NULL, p->gpu_index, p->pid);
        pna_transitions_observe(st->alerts.orphans, &key,
                                p->orphan ? GPU_PROC_ORPHAN : GPU_PROC_OWNED, &o);
    }
}

/* A view over the inputs (the holders) and this poll's GPUs as they are now. */
static void view_of_poll(struct pna_view *v, struct pna_gpu_snap *now,
                         const struct pna_poller_inputs *in, const struct pna_gpu_list *list)
{
    *now = (struct pna_gpu_snap){ .count = list->count, .gpus = list->gpus,
                                  .proc_count = list->nprocs, .procs = list->procs,
                                  .mig_count = list->mig_count, .migs = list->migs,
                                  .part_count = list->part_count, .parts = list->parts };
    pna_view_of_inputs(v, in, PNA_DOM_GPU, &now->base, pna_now_ms());
}

/* The orphans, over every process of this poll's GPUs (sorted, processes not
 * yet trimmed: the count covers the processes without a row too). */
static void judge_all_orphans(struct gpu_state *st, const struct pna_poller_inputs *in,
                              struct pna_gpu_list *list)
{
    struct pna_gpu_snap now;
    struct pna_view v;
    view_of_poll(&v, &now, in, list);
    pna_transitions_begin(st->alerts.orphans);
    judge_orphans(st, &v, list);
    pna_transitions_end(st->alerts.orphans);
}

/* The idle verdicts, over the GPUs as they are published (processes
 * trimmed), so that the holders are those the holder columns name. */
static void judge_all_idle(struct gpu_state *st, const struct pna_poller_inputs *in,
                           struct pna_gpu_list *list)
{
    struct pna_gpu_snap now;
    struct pna_view v;
    view_of_poll(&v, &now, in, list);
    pna_transitions_begin(st->alerts.idle);
    for (size_t i = 0; i < list->count; i++)
        if (!list->gpus[i].lost)
            judge_idle(st, &v, &list->gpus[i]);
    pna_transitions_end(st->alerts.idle);
}

static void alerts_free(struct gpu_alerts *a)
{
    pna_transitions_free(a->idle);
    pna_transitions_free(a->orphans);
    pna_transitions_free(a->presence);
    pna_transitions_free(a->thermal);
    pna_transitions_free(a->links);
    pna_transitions_free(a->health);
    memset(a, 0, sizeof *a);
}

static int alerts_make(struct gpu_state *st)
{
    struct gpu_alerts *a = &st->alerts;
    a->presence = pna_transitions_new(&presence_rule, sizeof(struct gpu_seen), st);
    a->thermal = pna_transitions_new(&thermal_rule, 0, st);
    a->links = pna_transitions_new(&link_rule, 0, st);
    a->health = pna_transitions_new(&health_rule, 0, st);
    a->idle = pna_transitions_new(&idle_rule, sizeof(struct pna_gpu_idle_track), st);
    a->orphans = pna_transitions_new(&orphan_rule, 0, st);
    if (a->presence && a->thermal && a->links && a->health && a->idle && a->orphans)
        return 0;
    alerts_free(a);
    return -1;
}

static void check_thermal(struct gpu_state *st, const struct pna_gpu *g)
{
    struct pna_transition_key key = pna_transition_key(NULL, g->index, 0);
    int32_t last = GPU_COOL;
    pna_transitions_find(st->alerts.thermal, &key, &last);
    struct gpu_obs o = { .g = g };
    int hot = pna_gpu_thermal_state(g, st->temp_threshold_c, last == GPU_HOT, &o.limit_c);
    pna_transitions_observe(st->alerts.thermal, &key, hot > 0 ? GPU_HOT : GPU_COOL, &o);
}

/* Each link's change since the last poll; marks the links that were up
 * once and are not now (a link never up is not a fault). */
static void check_links(struct gpu_state *st, struct pna_gpu *g, struct gpu_seen *seen)
{
    uint32_t up_now = 0;
    for (uint32_t i = 0; i < g->link_count; i++) {
        struct pna_gpu_link *l = &g->links[i];
        uint32_t bit = 1u << (l->number & 31);
        bool up = l->has_state && l->up;
        l->went_down = !up && (seen->links_seen_up & bit);
        if (up)
            up_now |= bit;
        struct pna_transition_key key = pna_transition_key(NULL, g->index, l->number);
        struct gpu_obs o = { .g = g, .link = l };
        pna_transitions_observe(st->alerts.links, &key, up ? GPU_LINK_UP : GPU_LINK_DOWN, &o);
    }
    seen->links_seen_up |= up_now;
}

static void check_health(struct gpu_state *st, const struct pna_gpu *g)
{
    char reason[PNA_GPU_HEALTH_REASON_MAX];
    int v = (int)pna_gpu_health(g, reason, sizeof reason);
    struct pna_transition_key key = pna_transition_key(NULL, g->index, 0);
    struct gpu_obs o = { .g = g, .reason = reason };
    pna_transitions_observe(st->alerts.health, &key, v, &o);
}

/* This poll's GPUs against the last: lost, thermal, link and health events,
 * GPU by GPU, then the GPUs that disappeared; marks links that went down. */
static void check_alerts(struct gpu_state *st, struct pna_gpu_list *list)
{
    struct gpu_alerts *a = &st->alerts;
    pna_transitions_begin(a->presence);
    pna_transitions_begin(a->thermal);
    pna_transitions_begin(a->links);
    pna_transitions_begin(a->health);
    for (size_t i = 0; i < list->count; i++) {
        struct pna_gpu *g = &list->gpus[i];
        struct pna_transition_key key = pna_transition_key(NULL, g->index, 0);
        struct gpu_obs o = { .g = g };
        struct gpu_seen *seen =
            pna_transitions_observe(a->presence, &key, g->lost ? GPU_LOST : GPU_PRESENT, &o);
        if (!seen)
            continue; /* out of memory: this GPU goes unwatched until there is room */
        pna_strlcpy(seen->pci_bus_id, g->pci_bus_id, sizeof seen->pci_bus_id);
        if (g->uuid[0])
            pna_strlcpy(seen->uuid, g->uuid, sizeof seen->uuid);
        check_thermal(st, g);
        check_links(st, g, seen);
        check_health(st, g);
    }
    pna_transitions_end(a->presence);
    pna_transitions_end(a->thermal);
    pna_transitions_end(a->links);
    pna_transitions_end(a->health);
}

/* --- XID listener upkeep ---------------------------------------------- */

/* The listener is the XID watch (watchers/gpu_xid.c), with a thread of its
 * own: started here on the poller's NVML handle, stopped here before NVML is
 * closed. */

/* Stop the XID watch, if one runs.  One stuck inside NVML is left running
 * (detached): NVML is not closed under it, nor ST freed. */
static void stop_xid_watch(struct gpu_state *st)
{
    if (pna_xid_watch_stop(st->xid_watch) != 0) {
        st->xid_stuck = true;
        pna_log(LOG_WARNING, "gpu: the XID listener is stuck inside NVML; no XID notifications "
                "until the agent restarts");
    }
    st->xid_watch = NULL;
}

/* Start the XID watch on the poller's NVML, for the N GPUs NVML lists now. */
static void start_xid_watch(struct gpu_state *st, size_t n)
{
    char err[160];
    if (st->xid_stuck)   /* never another beside a stuck one */
        return;
    if (pna_xid_watch_start(st->nvml, on_xid, st, &st->xid_watch, err, sizeof err) != 0)
        pna_log(LOG_WARNING, "gpu: XID notifications unavailable: %s", err);
    else if (st->xid_watch)
        /* once per change of the GPU set: tells the operator XIDs are armed */
        pna_log(LOG_INFO, "gpu: XID listener watching %zu GPU(s)", n);
    else if (n > 0)
        pna_log(LOG_NOTICE, "gpu: no GPU accepts XID event registration; no XID notifications");
}

/* (Re)start the listener when the set of NVML GPUs changed, so a GPU that
 * appeared is registered too. */
static void refresh_xid_listener(struct gpu_state *st, const struct pna_gpu_list *list)
{
    if (!st->nvml)
        return;
    size_t n = 0;
    uint32_t *keys = calloc(list->count ? list->count : 1, sizeof *keys);
    if (!keys)
        return;
    for (size_t i = 0; i < list->count; i++)
        if (list->gpus[i].source == PNA_GPU_SRC_NVML && !list->gpus[i].lost)
            keys[n++] = list->gpus[i].index;
    /* Same GPUs as when it was (tried to be) started: nothing to redo, also
     * when it is not running because no GPU supports events. */
    if (st->xid_tried && n == st->nxid_keys &&
        (n == 0 || memcmp(keys, st->xid_keys, n * sizeof *keys) == 0)) {
        free(keys);
        return;
    }
    st->xid_tried = true;
    stop_xid_watch(st);
    start_xid_watch(st, n);
    free(st->xid_keys);
    st->xid_keys = keys;
    st->nxid_keys = n;
}

/* --- the poller ------------------------------------------------------- */

/* nvidia-smi is only worth running where the NVIDIA kernel driver is loaded,
 * the check the system-info exporter makes (/proc/driver/nvidia). */
static bool nvidia_smi_usable(const struct gpu_state *st)
{
    char path[4096];
    if (pna_path(path, sizeof path, st->roots.procfs, "/driver/nvidia/version") != 0 ||
        access(path, R_OK) != 0)
        return false;
    if (strchr(st->nvidia_smi, '/'))
        return access(st->nvidia_smi, X_OK) == 0;
    return true; /* a bare name: PATH decides when it runs */
}

static bool default_sysfs(const struct pna_roots *roots)
{
    return !roots->sysfs || strcmp(roots->sysfs, "/sys") == 0;
}

/* init() is retried while no GPU source exists: say why NVML is unusable
 * once, not at every retry, unless the reason changes. */
static void warn_nvml_unusable(const char *why)
{
    static char last[256]; /* only the gpu poller thread calls init() */
    if (strcmp(last, why) == 0)
        return;
    pna_strlcpy(last, why, sizeof last);
    pna_log(LOG_WARNING, "gpu: NVML unusable, trying nvidia-smi: %s", why);
}

static int gpu_init(void **state, const struct pna_config *cfg, const void *settings, char *err,
                    size_t errlen)
{
    const struct pna_gpu_settings *set = settings;
    struct gpu_state *st = calloc(1, sizeof *st);
    if (!st || alerts_make(st) != 0) {
        free(st);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    st->roots = cfg->roots;
    pthread_mutex_init(&st->xid_lock, NULL);
    pna_strlcpy(st->nvml_library, set->nvml_library, sizeof st->nvml_library);
    pna_strlcpy(st->nvidia_smi, set->nvidia_smi, sizeof st->nvidia_smi);
    st->nvidia_smi_timeout_ms = set->nvidia_smi_timeout_ms;
    st->temp_threshold_c = set->temp_threshold_c;
    st->process_rows = set->process_rows;
    st->idle_rule = pna_gpu_idle_rule_effective(&set->idle_rule);

    char why[256] = "";
    int rc = pna_nvml_open(st->nvml_library, &st->nvml, why, sizeof why);
    if (rc < 0)
        warn_nvml_unusable(why);
    if (rc != 0) {
        st->nvml = NULL;
        st->use_nvsmi = nvidia_smi_usable(st);
    }

    if (pna_amd_sysfs_count(&st->roots) > 0) {
        st->use_amd = true;
        /* rocm-smi-lib reads the real /sys whatever --sysfs says: only use it
         * on the host's own tree. */
        char rerr[256];
        if (default_sysfs(&st->roots) && pna_rocm_open(&st->rocm, rerr, sizeof rerr) != 0) {
            st->rocm = NULL;
            pna_log(LOG_INFO, "gpu: AMD GPUs read from amdgpu sysfs (%s)", rerr);
        }
    }

    if (!st->nvml && !st->use_nvsmi && !st->use_amd) {
        /* Absent for now: a GPU driver (the GPU Operator's, say) may be
         * installed after the agent started; the poller keeps looking. */
        snprintf(err, errlen, "no GPU source: %s; no nvidia-smi with a loaded NVIDIA driver; "
                 "no amdgpu card", why[0] ? why : "NVML absent");
        pthread_mutex_destroy(&st->xid_lock);
        alerts_free(&st->alerts);
        free(st);
        return PNA_POLLER_ABSENT;
    }
    *state = st;
    return 0;
}

static void gpu_snap_destroy(struct pna_snap *snap)
{
    struct pna_gpu_snap *s = (struct pna_gpu_snap *)snap;
    free(s->gpus);
    free(s->procs);
    free(s->migs);
    free(s->parts);
    free(s);
}

/* One row per PCI key: a GPU two sources both report is kept once. */
static void dedupe(struct pna_gpu_list *list)
{
    size_t w = 0;
    for (size_t r = 0; r < list->count; r++)
        if (w == 0 || list->gpus[w - 1].index != list->gpus[r].index)
            list->gpus[w++] = list->gpus[r];
    list->count = w;
}

static int collect_sources(struct gpu_state *st, struct pna_gpu_snap *snap,
                           struct pna_gpu_list *list, char *err, size_t errlen)
{
    if (st->nvml) {
        if (pna_nvml_collect(st->nvml, list, snap->nvidia_driver_version,
                             sizeof snap->nvidia_driver_version, snap->cuda_version,
                             sizeof snap->cuda_version, err, errlen) != 0)
            return -1;
        snap->sources |= 1u << PNA_GPU_SRC_NVML;
    } else if (st->use_nvsmi) {
        if (pna_nvsmi_collect(st->nvidia_smi, st->nvidia_smi_timeout_ms, list,
                              snap->nvidia_driver_version, sizeof snap->nvidia_driver_version,
                              snap->cuda_version, sizeof snap->cuda_version, err, errlen) != 0)
            return -1;
        snap->sources |= 1u << PNA_GPU_SRC_NVIDIA_SMI;
    }
    if (st->use_amd) {
        if (st->rocm) {
            if (pna_rocm_collect(st->rocm, list, snap->amd_driver_version,
                                 sizeof snap->amd_driver_version, err, errlen) != 0)
                return -1;
            snap->sources |= 1u << PNA_GPU_SRC_ROCM_SMI;
        } else {
            if (pna_amd_sysfs_collect(&st->roots, list, &st->amd_refusals,
                                      snap->amd_driver_version,
                                      sizeof snap->amd_driver_version, err, errlen) != 0)
                return -1;
            snap->sources |= 1u << PNA_GPU_SRC_AMDGPU_SYSFS;
        }
        /* KFD's partitions and per-process memory: sysfs under either source */
        if (pna_amd_kfd_read(&st->roots, list) != 0) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
    }
    return 0;
}

/* amdgpu gpu_metrics blobs refused in this poll: one line (the log's rate
 * limit holds a blob refused at every poll). */
static void log_gpu_metrics_refusals(struct gpu_state *st)
{
    unsigned long n = st->amd_refusals.count;
    if (n == st->amd_refusals_logged)
        return;
    st->amd_refusals_logged = n;
    pna_log(LOG_WARNING, "gpu: gpu_metrics refused (%s); the GPU's activity and XGMI figures are "
            "not served (%lu refused since start)", st->amd_refusals.last, n);
}

/* The NUMA node and local CPUs of each GPU's PCI function, the same for
 * every vendor; a GPU whose files are missing simply has none. */
static void fill_locality(const struct pna_roots *roots, struct pna_gpu_list *list)
{
    for (size_t i = 0; i < list->count; i++) {
        struct pna_gpu *g = &list->gpus[i];
        struct pna_pcie p;
        if (!g->pci_bus_id[0])
            continue;
        pna_pcie_read_locality(roots, g->pci_bus_id, &p);
        g->has_numa_node = p.has_numa_node;
        g->numa_node = p.numa_node;
        pna_strlcpy(g->local_cpus, p.has_local_cpus ? p.local_cpus : "", sizeof g->local_cpus);
    }
}

static int gpu_collect(void *state, const struct pna_snap *prev,
                       const struct pna_poller_inputs *in, struct pna_snap **out,
                       char *err, size_t errlen)
{
    (void)prev; /* notification state lives in STATE, across failed polls too */
    struct gpu_state *st = state;
    struct pna_gpu_snap *snap = calloc(1, sizeof *snap);
    if (!snap) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    struct pna_gpu_list list = { 0 };
    if (collect_sources(st, snap, &list, err, errlen) != 0) {
        pna_gpu_list_free(&list);
        free(snap);
        return -1;
    }
    log_gpu_metrics_refusals(st);

    /* /dev/dri names: best effort, a node without DRM nodes is normal */
    struct pna_dri_map map;
    char derr[160];
    if (pna_dri_map_load(&st->roots, &map, derr, sizeof derr) == 0) {
        pna_dri_map_apply(&map, list.gpus, list.count);
        pna_dri_map_free(&map);
    }

    pna_gpu_list_sort(&list);
    dedupe(&list);
    fill_locality(&st->roots, &list);
    pna_gpu_procs_identify(&st->roots, &list);
    pna_gpu_list_sort_migs(&list);
    pna_gpu_list_sort_partitions(&list);
    pna_gpu_mig_caps(&st->roots, &list);
    judge_all_orphans(st, in, &list);   /* before the process rows are trimmed */
    pna_gpu_list_trim_procs(&list, st->process_rows);
    judge_all_idle(st, in, &list);
    fill_xids(st, list.gpus, list.count);
    check_alerts(st, &list);
    refresh_xid_listener(st, &list);

    snap->count = list.count;
    snap->gpus = list.gpus; /* the snapshot owns the arrays now */
    snap->proc_count = list.nprocs;
    snap->procs = list.procs;
    snap->mig_count = list.mig_count;
    snap->migs = list.migs;
    snap->part_count = list.part_count;
    snap->parts = list.parts;
    pna_snap_init(&snap->base, gpu_snap_destroy);
    *out = &snap->base;
    return 0;
}

static void gpu_fini(void *state)
{
    struct gpu_state *st = state;
    if (!st)
        return;
    /* Before NVML closes.  A listener stuck in the driver still holds ST
     * for its callback, and NVML. */
    stop_xid_watch(st);
    if (st->xid_stuck)
        return;
    pna_nvml_close(st->nvml);
    pna_rocm_close(st->rocm);
    pthread_mutex_destroy(&st->xid_lock);
    alerts_free(&st->alerts);
    free(st->xid_keys);
    free(st);
}

/* The GPU tokens (docs/configuration.md, "GPUs"); their defaults are written
 * here only.  An empty nvmlLibrary or nvidiaSmi means the default. */
#define SET(field) offsetof(struct pna_gpu_settings, field)
static const struct pna_config_key gpu_keys[] = {
    { .token = "nvmlLibrary", .type = PNA_KEY_STRING, .offset = SET(nvml_library),
      .def_str = "libnvidia-ml.so.1", .empty_is_default = true },
    { .token = "nvidiaSmi", .type = PNA_KEY_STRING, .offset = SET(nvidia_smi),
      .def_str = "/usr/bin/nvidia-smi", .empty_is_default = true },
    { .token = "nvidiaSmiTimeout", .type = PNA_KEY_SECONDS_MS,
      .offset = SET(nvidia_smi_timeout_ms), .min = 1, .max = 600, .def = 5 },
    { .token = "gpuTempThreshold", .type = PNA_KEY_INT, .offset = SET(temp_threshold_c),
      .min = 0, .max = 200, .def = 0 },
    { .token = "gpuProcessRows", .type = PNA_KEY_UINT, .offset = SET(process_rows),
      .min = 0, .max = 4096, .def = 64 },
    /* PERCENT [WINDOW]; the defaults are PNA_GPU_IDLE_DEFAULT_* (model/gpu/gpu_idle.h) */
    { .token = "accountingIdleThreshold", .type = PNA_KEY_CUSTOM, .offset = SET(idle_rule),
      .parse = pna_gpu_idle_rule_parse },
    { .token = NULL },
};
#undef SET

const struct pna_poller_ops pna_gpu_poller = {
    .name = "gpu",
    .index = 2,
    .domain = PNA_DOM_GPU,
    /* who holds each GPU, for the idle and orphan verdicts */
    .inputs = PNA_DOM_BIT(PNA_DOM_CONTAINERS) | PNA_DOM_BIT(PNA_DOM_PODRES) |
              PNA_DOM_BIT(PNA_DOM_SLURM),
    .default_interval_ms = 10000,
    .default_timeout_ms = 8000, /* above nvidiaSmiTimeout (5 s), so the command's own deadline fires first */
    .keys = gpu_keys,
    .settings_size = sizeof(struct pna_gpu_settings),
    .init = gpu_init,
    .collect = gpu_collect,
    .fini = gpu_fini,
};
