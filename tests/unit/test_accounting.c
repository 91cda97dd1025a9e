/* test_accounting.c -- the GPU accounting rules (model/accounting/usage.h) and
 * the state file (sources/accounting/state_file.h).
 *
 * The samples are built for this test (energy counters, power limits and
 * claims chosen so that each rule gives a figure that can be worked out by
 * hand); they are not captures.  Every check that the holders' energy plus
 * the idle residual is the GPU's counter is exact, to the millijoule. */
#include "pna_autoconf.h"
#include "unit.h"
#include "containers_testutil.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/config.h"
#include "core/poller.h"
#include "model/accounting/usage.h"
#include "model/containers.h"
#include "model/gpu/gpu.h"
#include "model/kubernetes/podres.h"
#include "pollers/pollers.h"
#include "sources/accounting/state_file.h"
#include "sources/gpu/amd_gpu_metrics.h"

static struct pna_usage_sample sample(uint32_t index, int64_t t_ms, uint64_t energy_mj)
{
    return (struct pna_usage_sample){ .index = index, .pci_bus_id = "0000:17:00.0",
                                      .uuid = "GPU-7f3a", .taken_ms = t_ms, .has_energy = true,
                                      .energy_mj = energy_mj, .has_power_limit = true,
                                      .power_limit_mw = 700000 };
}

static struct pna_usage_claim claim(const char *id, const char *ns, const char *pod,
                                    uint64_t weight, uint8_t rule)
{
    struct pna_usage_claim c = { .rule = rule, .weight = weight, .has_sm = true, .sm_bp = 5000,
                                 .has_mem = true, .mem_bytes = 1000 };
    c.who.kind = PNA_USAGE_CONTAINER;
    snprintf(c.who.id, sizeof c.who.id, "%s", id);
    snprintf(c.who.pod_namespace, sizeof c.who.pod_namespace, "%s", ns);
    snprintf(c.who.pod, sizeof c.who.pod, "%s", pod);
    return c;
}

static uint64_t holders_energy(const struct pna_usage_ledger *l, uint32_t gpu)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < l->n_rows; i++)
        if (l->rows[i].gpu_index == gpu)
            sum += l->rows[i].f.energy_mj;
    return sum;
}

static const struct pna_usage_row *row(struct pna_usage_ledger *l, const struct pna_usage_claim *c)
{
    return pna_usage_row_of(l, 1, &c->who, false, 0);
}

/* One holder: all of it; then nobody: idle; holders + idle == counter. */
static void test_whole(void)
{
    struct pna_usage_ledger l = { 0 };
    char why[200];
    struct pna_usage_sample s = sample(1, 1000, 5000000);
    struct pna_usage_gpu *g = pna_usage_gpu_of(&l, &s, s.taken_ms);
    struct pna_usage_claim a = claim("ctr-a", "ml", "train-0", 1, PNA_USAGE_WHOLE);
    CHECK_INT(pna_usage_charge_gpu(&l, g, &s, &a, 1, 1, why, sizeof why), PNA_USAGE_FIRST);
    CHECK_U64(g->idle_mj, 5000000);              /* before accounting: idle */
    s = sample(1, 11000, 5123457);               /* 123457 mJ in 10 s */
    CHECK_INT(pna_usage_charge_gpu(&l, g, &s, &a, 1, 1, why, sizeof why), PNA_USAGE_CHARGED);
    CHECK_U64(row(&l, &a)->f.energy_mj, 123457);
    CHECK_U64(row(&l, &a)->f.held_ms, 10000);
    CHECK_U64(row(&l, &a)->f.sm_active_ms, 5000);       /* 50 % active */
    CHECK_U64(row(&l, &a)->f.mem_byte_s, 10000);        /* 1000 bytes x 10 s */
    s = sample(1, 21000, 5200000);
    CHECK_INT(pna_usage_charge_gpu(&l, g, &s, NULL, 0, 1, why, sizeof why), PNA_USAGE_CHARGED);
    /* the change (a to nobody): the first half to a */
    CHECK_U64(row(&l, &a)->f.energy_mj, 123457 + 38271);
    CHECK_U64(holders_energy(&l, 1) + g->idle_mj, 5200000);
    CHECK_U64(pna_usage_pod(&l, "ml", "train-0", false, 0)->f.energy_mj, 123457 + 38271);
    pna_usage_ledger_free(&l);
}

/* Time slicing by process samples (weights 30 and 10 of 40), evenly without
 * them, rounding down with the rest idle; MIG by slices of 7. */
static void test_shares(void)
{
    struct pna_usage_ledger l = { 0 };
    char why[200];
    struct pna_usage_claim c[2] = { claim("ctr-a", "ml", "a", 30, PNA_USAGE_PROCESS),
                                    claim("ctr-b", "ml", "b", 10, PNA_USAGE_PROCESS) };
    struct pna_usage_sample s = sample(1, 0, 0);
    struct pna_usage_gpu *g = pna_usage_gpu_of(&l, &s, 0);
    pna_usage_charge_gpu(&l, g, &s, c, 2, 40, why, sizeof why);
    s = sample(1, 4000, 1001);
    pna_usage_charge_gpu(&l, g, &s, c, 2, 40, why, sizeof why);
    CHECK_U64(row(&l, &c[0])->f.energy_mj, 750);        /* 1001 x 30/40 rounded down */
    CHECK_U64(row(&l, &c[1])->f.energy_mj, 250);
    CHECK_U64(g->idle_mj, 1);
    CHECK_U64(row(&l, &c[0])->f.held_ms, 3000);
    c[0].weight = c[1].weight = 1;
    c[0].rule = c[1].rule = PNA_USAGE_EVEN;
    s = sample(1, 8000, 2001);
    pna_usage_charge_gpu(&l, g, &s, c, 2, 2, why, sizeof why);
    CHECK_U64(row(&l, &c[1])->f.energy_mj, 250 + 500);
    CHECK_U64(holders_energy(&l, 1) + g->idle_mj, 2001);
    CHECK_INT(row(&l, &c[1])->rule, PNA_USAGE_EVEN);
    pna_usage_ledger_free(&l);

    /* MIG: a 3g and a 1c.3g holder of seven slices; three slices nobody's */
    CHECK_INT(pna_usage_mig_slices("3g.40gb"), 3);
    CHECK_INT(pna_usage_mig_slices("1c.3g.40gb"), 1);
    CHECK_INT(pna_usage_mig_slices("1g.10gb+me"), 1);
    CHECK_INT(pna_usage_mig_slices("bogus"), 0);
    CHECK_INT(pna_usage_gpu_slices("NVIDIA A30"), 4);
    CHECK_INT(pna_usage_gpu_slices("NVIDIA H100 80GB HBM3"), 7);
    struct pna_usage_ledger m = { 0 };
    struct pna_usage_claim mc[2] = { claim("mig-a", "", "", 3, PNA_USAGE_MIG),
                                     claim("mig-b", "", "", 1, PNA_USAGE_MIG) };
    s = sample(1, 0, 700);
    g = pna_usage_gpu_of(&m, &s, 0);
    pna_usage_charge_gpu(&m, g, &s, mc, 2, 7, why, sizeof why);
    s = sample(1, 7000, 7700);
    pna_usage_charge_gpu(&m, g, &s, mc, 2, 7, why, sizeof why);
    CHECK_U64(pna_usage_row_of(&m, 1, &mc[0].who, false, 0)->f.energy_mj, 3000);
    CHECK_U64(pna_usage_row_of(&m, 1, &mc[1].who, false, 0)->f.energy_mj, 1000);
    CHECK_U64(pna_usage_row_of(&m, 1, &mc[0].who, false, 0)->f.held_ms, 3000);
    CHECK_U64(g->idle_mj, 700 + 3000);
    pna_usage_ledger_free(&m);
}

/* Backwards, and more than the power limit allows: nothing charged, counted,
 * idle restarts at the counter with a new discontinuity time. */
static void test_rejected(void)
{
    struct pna_usage_ledger l = { 0 };
    char why[200] = "";
    struct pna_usage_claim a = claim("ctr-a", "ml", "a", 1, PNA_USAGE_WHOLE);
    struct pna_usage_sample s = sample(1, 1000, 900000);
    struct pna_usage_gpu *g = pna_usage_gpu_of(&l, &s, 1000);
    pna_usage_charge_gpu(&l, g, &s, &a, 1, 1, why, sizeof why);
    s = sample(1, 2000, 800000);
    CHECK_INT(pna_usage_charge_gpu(&l, g, &s, &a, 1, 1, why, sizeof why), PNA_USAGE_REJECTED);
    CHECK(strstr(why, "backwards") != NULL);
    CHECK(row(&l, &a) == NULL);
    CHECK_U64(g->idle_mj, 800000);
    CHECK_INT(g->created_ms, 2000);
    /* 700 W x 1 s = 700000 mJ, and 25 % more: 875000 mJ at most; 875001 is beyond */
    s = sample(1, 3000, 800000 + 875001);
    CHECK_INT(pna_usage_charge_gpu(&l, g, &s, &a, 1, 1, why, sizeof why), PNA_USAGE_REJECTED);
    CHECK(strstr(why, "power limit") != NULL);
    CHECK_U64(g->rejected, 2);
    s = sample(1, 4000, 1675001 + 875000);       /* exactly the most: charged */
    CHECK_INT(pna_usage_charge_gpu(&l, g, &s, &a, 1, 1, why, sizeof why), PNA_USAGE_CHARGED);
    CHECK_U64(row(&l, &a)->f.energy_mj, 875000);
    CHECK_U64(g->charged_mj + g->idle_mj, 1675001 + 875000);
    pna_usage_ledger_free(&l);
}

/* No counter: power x time; no power either: time only. */
static void test_power_time(void)
{
    struct pna_usage_ledger l = { 0 };
    char why[200];
    struct pna_usage_claim a = claim("ctr-a", "ml", "a", 1, PNA_USAGE_WHOLE);
    struct pna_usage_sample s = { .index = 2, .pci_bus_id = "0000:c1:00.0", .taken_ms = 0,
                                  .has_power = true, .power_mw = 250000 };
    struct pna_usage_gpu *g = pna_usage_gpu_of(&l, &s, 0);
    pna_usage_charge_gpu(&l, g, &s, &a, 1, 1, why, sizeof why);
    s.taken_ms = 2000;
    CHECK_INT(pna_usage_charge_gpu(&l, g, &s, &a, 1, 1, why, sizeof why), PNA_USAGE_CHARGED);
    const struct pna_usage_row *r = pna_usage_row_of(&l, 2, &a.who, false, 0);
    CHECK_U64(r->f.energy_mj, 500000);
    CHECK_INT(r->energy_from, PNA_USAGE_FROM_POWER);
    s.has_power = false;
    s.taken_ms = 3000;
    CHECK_INT(pna_usage_charge_gpu(&l, g, &s, &a, 1, 1, why, sizeof why), PNA_USAGE_NO_ENERGY);
    CHECK_U64(r->f.held_ms, 3000);
    CHECK_U64(r->f.energy_mj, 500000);
    pna_usage_ledger_free(&l);
}

/* A gone holder's row and its pod stay for the retention, then go. */
static void test_retention(void)
{
    struct pna_usage_ledger l = { 0 };
    char why[200];
    struct pna_usage_claim a = claim("ctr-a", "ml", "a", 1, PNA_USAGE_WHOLE);
    struct pna_usage_sample s = sample(1, 0, 0);
    struct pna_usage_gpu *g = pna_usage_gpu_of(&l, &s, 0);
    pna_usage_charge_gpu(&l, g, &s, &a, 1, 1, why, sizeof why);
    s = sample(1, 1000, 10);
    pna_usage_charge_gpu(&l, g, &s, &a, 1, 1, why, sizeof why);
    pna_usage_age(&l, 5000, 10000);
    CHECK_INT(l.n_rows, 1);
    CHECK(!l.rows[0].held);
    pna_usage_age(&l, 12000, 10000);
    CHECK_INT(l.n_rows, 0);
    CHECK_INT(l.n_pods, 0);
    pna_usage_ledger_free(&l);
}

/* Written and read back whole; truncated, corrupt and out-of-order files refused. */
static void test_state_file(void)
{
    struct pna_usage_ledger l = { 0 }, back = { 0 };
    char why[300], path[] = "/tmp/pna-acct-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    struct pna_usage_claim c[2] = { claim("ctr-a", "ml", "a", 3, PNA_USAGE_PROCESS),
                                    claim("ctr-b", "ml", "b", 1, PNA_USAGE_PROCESS) };
    c[1].who.job = 60917;
    struct pna_usage_sample s = sample(1, 0, 100);
    struct pna_usage_gpu *g = pna_usage_gpu_of(&l, &s, 0);
    pna_usage_charge_gpu(&l, g, &s, c, 2, 4, why, sizeof why);
    s = sample(1, 3333, 7777);
    pna_usage_charge_gpu(&l, g, &s, c, 2, 4, why, sizeof why);
    CHECK_INT(pna_usage_state_write(path, &l, true, 4000, why, sizeof why), 0);
    bool clean = false;
    CHECK_INT(pna_usage_state_read(path, &back, &clean, why, sizeof why), 0);
    CHECK(clean);
    CHECK_INT(back.n_rows, 2);
    CHECK_INT(back.n_pods, 2);
    CHECK_INT(back.n_jobs, 1);
    CHECK_INT(back.n_gpus, 1);
    if (back.n_rows == 2 && back.n_gpus == 1) {
        CHECK(memcmp(&back.rows[0].f, &l.rows[0].f, sizeof l.rows[0].f) == 0);
        CHECK(memcmp(&back.rows[0].who, &l.rows[0].who, sizeof l.rows[0].who) == 0);
        CHECK_INT(back.rows[1].who.job, 60917);
        CHECK(!back.rows[0].held);   /* held is the running agent's, never restored */
        CHECK(memcmp(&back.rows[1].f, &l.rows[1].f, sizeof l.rows[1].f) == 0);
        CHECK_U64(back.gpus[0].counter_mj, 7777);
        CHECK_U64(back.gpus[0].idle_mj, g->idle_mj);
        CHECK_STR(back.gpus[0].uuid, "GPU-7f3a");
    }
    pna_usage_ledger_free(&back);

    FILE *f = fopen(path, "r+");
    CHECK(f != NULL);
    if (f) {
        char buf[8192];
        size_t n = fread(buf, 1, sizeof buf, f);
        fclose(f);
        CHECK(truncate(path, (off_t)(n / 2)) == 0);
        CHECK_INT(pna_usage_state_read(path, &back, &clean, why, sizeof why), -1);
        CHECK(strstr(why, "not JSON") != NULL);
        CHECK_INT(back.n_rows, 0);
    }
    const char *bad[] = {
        "{\"version\":2,\"clean\":true,\"gpus\":[],\"rows\":[],\"pods\":[],\"jobs\":[]}",
        "{\"version\":1,\"clean\":1,\"gpus\":[],\"rows\":[],\"pods\":[],\"jobs\":[]}",
        "{\"version\":1,\"clean\":true,\"gpus\":[{\"index\":-1}],\"rows\":[],\"pods\":[],\"jobs\":[]}",
        "{\"version\":1,\"clean\":true,\"gpus\":[],\"rows\":[],\"pods\":[],\"jobs\":"
        "[{\"namespace\":\"\",\"pod\":\"\",\"job\":9,\"has_energy\":true,\"energy_mj\":1,\"held_ms\":1,\"has_sm_active\":"
        "false,\"sm_active_ms\":0,\"has_mem\":false,\"mem_byte_s\":0,\"mem_byte_ms_rem\":0,\"created_ms\":0,"
        "\"last_seen_ms\":0},{\"namespace\":\"\",\"pod\":\"\",\"job\":9,\"has_energy\":true,\"energy_mj\":1,"
        "\"held_ms\":1,\"has_sm_active\":false,\"sm_active_ms\":0,\"has_mem\":false,\"mem_byte_s\":0,"
        "\"mem_byte_ms_rem\":0,\"created_ms\":0,\"last_seen_ms\":0}]}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK_INT(pna_usage_state_parse(bad[i], strlen(bad[i]), &back, &clean, why, sizeof why), -1);
        CHECK_INT(back.n_jobs + back.n_gpus, 0);
    }
    unlink(path);
    CHECK_INT(pna_usage_state_read(path, &back, &clean, why, sizeof why), 1);
    pna_usage_ledger_free(&l);
}


/* ---- the poller: claims made from snapshots ------------------------------------ */

/* Snapshots built for these tests (not captures): GPU 0x1000 time-sliced
 * between two containers with process samples (30 and 10 % SM), GPU 0x2000
 * in MIG mode with a 3g.40gb device the kubelet gave a pod, GPU 0x3000 an AMD
 * GPU whose energy comes from a gpu_metrics blob built from the recorded
 * RX 6900 XT one with its energy_accumulator set. */
#define G_MPS 0x1000u
#define G_MIG 0x2000u
#define G_AMD 0x3000u

static void destroy_gpu_snap(struct pna_snap *snap)
{
    struct pna_gpu_snap *s = (struct pna_gpu_snap *)snap;
    free(s->gpus);
    free(s->procs);
    free(s->migs);
    free(s);
}

/* An AMD GPU's energy as amdgpu's gpu_metrics says it: the recorded v1.3
 * blob with energy_accumulator (u64 at 24, 2^-16 J) set to ACC. */
static void amd_energy(struct pna_gpu *g, uint64_t acc)
{
    size_t n = 0;
    uint8_t *blob = (uint8_t *)tt_fixture("amdgpu-sysfs/gpu_metrics/lact-rx6900xt-navi21-v1_3.bin", &n);
    CHECK(blob != NULL && n >= 32);
    if (!blob || n < 32)
        return;
    for (int i = 0; i < 8; i++)
        blob[24 + i] = (uint8_t)(acc >> (8 * i));
    struct pna_amd_gpu_metrics m;
    char err[160];
    CHECK_INT(pna_amd_gpu_metrics_parse(blob, n, &m, err, sizeof err), 0);
    pna_amd_gpu_metrics_apply(&m, g);
    free(blob);
}

static void publish_gpus(int64_t t_ms, uint64_t e_mps, uint64_t e_mig, uint64_t amd_acc)
{
    struct pna_gpu_snap *s = calloc(1, sizeof *s);
    s->count = 3;
    s->gpus = calloc(3, sizeof *s->gpus);
    uint32_t idx[3] = { G_MPS, G_MIG, G_AMD };
    for (int i = 0; i < 3; i++) {
        struct pna_gpu *g = &s->gpus[i];
        g->index = idx[i];
        g->vendor = i == 2 ? PNA_GPU_VND_AMD : PNA_GPU_VND_NVIDIA;
        snprintf(g->pci_bus_id, sizeof g->pci_bus_id, "0000:%02x:00.0", (unsigned)(idx[i] >> 8));
        snprintf(g->uuid, sizeof g->uuid, "GPU-test-%d", i);
        snprintf(g->name, sizeof g->name, "%s", i == 2 ? "AMD Radeon RX 6900 XT" : "NVIDIA H100");
        g->has_power_limit = true;
        g->power_limit_mw = 700000;
    }
    s->gpus[0].has_energy = s->gpus[1].has_energy = true;
    s->gpus[0].energy_mj = e_mps;
    s->gpus[1].energy_mj = e_mig;
    s->gpus[0].has_activity[PNA_GPU_ACT_SM] = true;
    s->gpus[0].activity_bp[PNA_GPU_ACT_SM] = 2500;
    s->gpus[1].has_mig = s->gpus[1].mig_enabled = true;
    amd_energy(&s->gpus[2], amd_acc);
    s->gpus[2].has_activity[PNA_GPU_ACT_GRAPHICS] = true;   /* gfx_activity */
    s->gpus[2].activity_bp[PNA_GPU_ACT_GRAPHICS] = 8000;
    s->gpus[2].has_mem_used = true;
    s->gpus[2].mem_used_bytes = 2000;
    s->proc_count = 2;
    s->procs = calloc(2, sizeof *s->procs);
    const char *cg[2] = { "/kubepods/pod-a/ctr-a", "/kubepods/pod-b/ctr-b" };
    for (int i = 0; i < 2; i++) {
        struct pna_gpu_proc *p = &s->procs[i];
        p->gpu_index = G_MPS;
        p->pid = 11 + (uint32_t)i;
        snprintf(p->cgroup, sizeof p->cgroup, "%s", cg[i]);
        p->has_util = true;
        p->sm_pct = i ? 10 : 30;
        p->has_mem = true;
        p->mem_bytes = i ? 100 : 300;
    }
    s->mig_count = 1;
    s->migs = calloc(1, sizeof *s->migs);
    s->migs[0] = (struct pna_gpu_mig){ .gpu_index = G_MIG, .gpu_instance = 1, .has_sm_active = true,
                                       .sm_active_bp = 5000, .has_mem = true, .mem_used_bytes = 500 };
    snprintf(s->migs[0].uuid, sizeof s->migs[0].uuid, "MIG-test-3g");
    snprintf(s->migs[0].profile, sizeof s->migs[0].profile, "3g.40gb");
    pna_snap_init(&s->base, destroy_gpu_snap);
    s->base.taken_ms = t_ms;
    pna_cache_publish(PNA_DOM_GPU, &s->base);
}

static void destroy_ctr_snap(struct pna_snap *snap)
{
    struct pna_containers_snap *s = (struct pna_containers_snap *)snap;
    pna_container_set_free(&s->set);
    free(s);
}

static void add_container(struct pna_container_set *set, const char *id, const char *pod,
                          const char *cgroup, uint32_t gpu)
{
    struct pna_container *c = pna_container_set_add(set);
    pna_container_set_text(set, &c->id, id, PNA_CTR_ID_CAP);
    pna_container_set_text(set, &c->name, "main", PNA_CTR_NAME_CAP);
    pna_container_set_text(set, &c->pod_name, pod, PNA_CTR_POD_NAME_CAP);
    pna_container_set_text(set, &c->pod_namespace, "ml", PNA_CTR_POD_NAMESPACE_CAP);
    pna_container_set_text(set, &c->cgroup_path, cgroup, PNA_CTR_CGROUP_CAP);
    struct pna_container_device d = { .type = 'c', .gpu_index = gpu };
    snprintf(d.path, sizeof d.path, "/dev/nvidia%u", (unsigned)(gpu >> 12));
    pna_container_set_add_device(set, &d);
}

static void publish_holders(void)
{
    struct pna_containers_snap *c = calloc(1, sizeof *c);
    pna_container_set_init(&c->set);
    add_container(&c->set, "ctr-a", "pod-a", "/kubepods/pod-a/ctr-a", G_MPS);
    add_container(&c->set, "ctr-b", "pod-b", "/kubepods/pod-b/ctr-b", G_MPS);
    add_container(&c->set, "ctr-r", "pod-r", "/kubepods/pod-r/ctr-r", G_AMD);
    CHECK_INT(pna_container_set_sort(&c->set), 0);
    pna_snap_init(&c->base, destroy_ctr_snap);
    pna_cache_publish(PNA_DOM_CONTAINERS, &c->base);

    struct pna_podres_snap *p = calloc(1, sizeof *p);
    struct pna_podres_row *r = pna_podres_add(p);
    r->assigned = true;
    snprintf(r->pod_namespace, sizeof r->pod_namespace, "ml");
    snprintf(r->pod_name, sizeof r->pod_name, "pod-m");
    snprintf(r->container, sizeof r->container, "main");
    snprintf(r->resource, sizeof r->resource, "nvidia.com/mig-3g.40gb");
    snprintf(r->id, sizeof r->id, "MIG-test-3g");
    CHECK_INT(pna_podres_finish(p, NULL), 0);
    pna_snap_init(&p->base, (void (*)(struct pna_snap *))pna_podres_snap_free);
    pna_cache_publish(PNA_DOM_PODRES, &p->base);
}

static const struct pna_usage_row *published_row(const char *id, uint32_t gpu)
{
    const struct pna_usage_snap *u = (const struct pna_usage_snap *)pna_cache_acquire(PNA_DOM_ACCOUNTING);
    const struct pna_usage_row *found = NULL;
    for (size_t i = 0; u && i < u->l.n_rows; i++)
        if (u->l.rows[i].gpu_index == gpu && !strcmp(u->l.rows[i].who.id, id))
            found = &u->l.rows[i];
    pna_snap_release((struct pna_snap *)u);   /* the cache keeps its own reference */
    return found;
}

static void account(void *st)
{
    struct pna_snap *out = NULL;
    char err[256] = "";
    CHECK_INT(pna_poller_collect(&pna_accounting_poller, st, &out, err, sizeof err), 0);
    if (out)
        pna_cache_publish(PNA_DOM_ACCOUNTING, out);
}

static void test_poller(void)
{
    struct pna_config cfg;
    memset(&cfg, 0, sizeof cfg);
    struct pna_accounting_settings set = { .state_file = "", .retention_ms = 3600000 };
    void *st = NULL;
    char err[256];
    CHECK_INT(pna_accounting_poller.init(&st, &cfg, &set, err, sizeof err), 0);
    publish_holders();
    publish_gpus(1000, 100000, 200000, 65536);           /* 1000 mJ on the AMD GPU */
    account(st);
    publish_gpus(5000, 104000, 207000, 65536 * 9);       /* +4000, +7000, +8000 mJ in 4 s */
    account(st);

    /* time slicing by process samples: 30 and 10 of 40 */
    const struct pna_usage_row *a = published_row("ctr-a", G_MPS), *b = published_row("ctr-b", G_MPS);
    CHECK(a && b);
    if (a && b) {
        CHECK_U64(a->f.energy_mj, 3000);
        CHECK_U64(b->f.energy_mj, 1000);
        CHECK_INT(a->rule, PNA_USAGE_PROCESS);
        CHECK_U64(a->f.held_ms, 3000);
        CHECK_U64(a->f.sm_active_ms, 750);               /* 25 % SM activity */
        CHECK_U64(a->f.mem_byte_s, 1200);                /* its process's 300 bytes x 4 s */
        CHECK_U64(b->f.mem_byte_s, 400);
    }
    /* MIG: 3 of 7 slices, its own GPM activity */
    const struct pna_usage_row *m = published_row("ml/pod-m/main", G_MIG);
    CHECK(m != NULL);
    if (m) {
        CHECK_U64(m->f.energy_mj, 3000);
        CHECK_INT(m->rule, PNA_USAGE_MIG);
        CHECK_U64(m->f.held_ms, 4000 * 3 / 7);
        CHECK_U64(m->f.sm_active_ms, 4000 * 3 / 7 / 2);
        CHECK_U64(m->f.mem_byte_s, 2000);
    }
    /* AMD: the energy accumulator's increase, gfx_activity */
    const struct pna_usage_row *r = published_row("ctr-r", G_AMD);
    CHECK(r != NULL);
    if (r) {
        CHECK_U64(r->f.energy_mj, 8000);
        CHECK_INT(r->rule, PNA_USAGE_WHOLE);
        CHECK_U64(r->f.sm_active_ms, 3200);
        CHECK_U64(r->f.mem_byte_s, 8000);
    }
    const struct pna_usage_snap *u = (const struct pna_usage_snap *)pna_cache_acquire(PNA_DOM_ACCOUNTING);
    const struct pna_usage_gpu *g = u ? pna_usage_find_gpu(u->l.gpus, u->l.n_gpus, G_MIG) : NULL;
    CHECK(g != NULL);
    if (g)
        CHECK_U64(g->idle_mj, 200000 + 4000);            /* 4 slices nobody's */
    pna_snap_release((struct pna_snap *)u);
    /* the same snapshot again: charged once */
    account(st);
    a = published_row("ctr-a", G_MPS);
    CHECK(a && a->f.energy_mj == 3000);
    pna_accounting_poller.fini(st);
    pna_cache_clear();
}

int main(void)
{
    test_whole();
    test_shares();
    test_rejected();
    test_power_time();
    test_retention();
    test_state_file();
    test_poller();
    UNIT_END();
}
