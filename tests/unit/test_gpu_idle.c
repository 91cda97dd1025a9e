/* test_gpu_idle.c -- the idle-but-allocated and orphan rules
 * (model/gpu/gpu_idle.c): the accountingIdleThreshold syntax and its
 * refusals, which activity figure is read, the window over a run of polls
 * (held or not, a figure missing, a holder change, the clock stepping
 * back), the holders' identity from the holder joins, and which processes
 * are orphans.  The GPUs, containers and cgroups are built here. */
#include "pna_autoconf.h"
#include "model/gpu/gpu_idle.h"
#include "model/slurm/slurm.h"
#include "unit.h"

static int parse(const char *a, const char *b, struct pna_gpu_idle_rule *r, char *why,
                 size_t cap)
{
    char *words[2] = { (char *)a, (char *)b };
    why[0] = '\0';
    return pna_gpu_idle_rule_parse(r, words, b ? 2 : 1, why, cap);
}

static void test_parse(void)
{
    struct pna_gpu_idle_rule r;
    char why[200];
    CHECK_INT(parse("5", NULL, &r, why, sizeof why), 0);
    CHECK(r.set);
    CHECK_U64(r.threshold_bp, 500);
    CHECK_U64(r.window_s, PNA_GPU_IDLE_DEFAULT_WINDOW_S);
    CHECK_INT(parse("2.5%", "30m", &r, why, sizeof why), 0);
    CHECK_U64(r.threshold_bp, 250);
    CHECK_U64(r.window_s, 1800);
    CHECK_INT(parse("0.25", "90", &r, why, sizeof why), 0);
    CHECK_U64(r.threshold_bp, 25);
    CHECK_U64(r.window_s, 90);
    CHECK_INT(parse("100", "2h", &r, why, sizeof why), 0);
    CHECK_U64(r.threshold_bp, 10000);
    CHECK_U64(r.window_s, 7200);
    CHECK_INT(parse("0", "7d", &r, why, sizeof why), 0);
    CHECK_U64(r.threshold_bp, 0);
    CHECK_U64(r.window_s, 7 * 86400);
    CHECK_INT(parse("10", "45s", &r, why, sizeof why), 0);
    CHECK_U64(r.window_s, 45);

    struct pna_gpu_idle_rule keep = r;
    static const char *const bad_percent[] = { "101", "-1", "5.", "5.123", "five", "", "%",
                                               "100.01", "1e2", "5%%" };
    for (size_t i = 0; i < sizeof bad_percent / sizeof bad_percent[0]; i++) {
        CHECK_INT(parse(bad_percent[i], NULL, &r, why, sizeof why), -1);
        CHECK(strstr(why, "is not a percentage from 0 to 100") != NULL);
    }
    static const char *const bad_window[] = { "8d", "604801", "10x", "m", "10mm", "-5", "1.5h" };
    for (size_t i = 0; i < sizeof bad_window / sizeof bad_window[0]; i++) {
        CHECK_INT(parse("5", bad_window[i], &r, why, sizeof why), -1);
        CHECK(strstr(why, "is not a window of 0 to 604800 seconds") != NULL);
    }
    char *none[1] = { NULL };
    CHECK_INT(pna_gpu_idle_rule_parse(&r, none, 0, why, sizeof why), -1);
    CHECK_STR(why, "expected PERCENT [WINDOW]");
    char *three[3] = { "5", "10m", "extra" };
    CHECK_INT(pna_gpu_idle_rule_parse(&r, three, 3, why, sizeof why), -1);
    CHECK_STR(why, "expected PERCENT [WINDOW]");
    /* a refused line leaves the value as it was */
    CHECK_U64(r.threshold_bp, keep.threshold_bp);
    CHECK_U64(r.window_s, keep.window_s);

    struct pna_gpu_idle_rule zero = { 0 };
    struct pna_gpu_idle_rule eff = pna_gpu_idle_rule_effective(&zero);
    CHECK_U64(eff.threshold_bp, PNA_GPU_IDLE_DEFAULT_BP);
    CHECK_U64(eff.window_s, PNA_GPU_IDLE_DEFAULT_WINDOW_S);
    eff = pna_gpu_idle_rule_effective(&keep);
    CHECK_U64(eff.threshold_bp, keep.threshold_bp);
}

static void test_activity(void)
{
    struct pna_gpu g;
    uint32_t bp = 77;
    memset(&g, 0, sizeof g);
    CHECK(!pna_gpu_idle_activity(&g, &bp));
    g.has_util_gpu = true;
    g.util_gpu_pct = 37;
    CHECK(pna_gpu_idle_activity(&g, &bp));
    CHECK_U64(bp, 3700);
    g.has_activity[PNA_GPU_ACT_GRAPHICS] = true;
    g.activity_bp[PNA_GPU_ACT_GRAPHICS] = 2911;
    CHECK(pna_gpu_idle_activity(&g, &bp));
    CHECK_U64(bp, 2911);
    g.has_activity[PNA_GPU_ACT_SM] = true;
    g.activity_bp[PNA_GPU_ACT_SM] = 173;
    CHECK(pna_gpu_idle_activity(&g, &bp));
    CHECK_U64(bp, 173);
}

/* A run of polls 10 s apart under a rule of 5 % for 60 s. */
static void test_window(void)
{
    const struct pna_gpu_idle_rule rule = { true, 500, 60 };
    struct pna_gpu_idle_track t = { 0 };
    int64_t since = -1, now = 1765152000000;   /* 2025-12-08 00:00 UTC */
    const uint64_t pod_a = 0x1111, pod_b = 0x2222;

    /* nobody holds it: never idle, however quiet */
    CHECK_INT(pna_gpu_idle_step(&rule, &t, 0, true, 0, now, &since), PNA_GPU_IDLE_NO);
    CHECK(since == 0);
    /* held and quiet: low from this poll, idle once 60 s have passed */
    int64_t start = now += 10000;
    for (int i = 0; i < 6; i++, now += 10000) {
        CHECK_INT(pna_gpu_idle_step(&rule, &t, pod_a, true, 499, now, &since), PNA_GPU_IDLE_NO);
        CHECK(since == start);
    }
    CHECK_INT(pna_gpu_idle_step(&rule, &t, pod_a, true, 120, now, &since), PNA_GPU_IDLE_YES);
    CHECK(since == start);
    now += 10000;
    CHECK_INT(pna_gpu_idle_step(&rule, &t, pod_a, true, 0, now, &since), PNA_GPU_IDLE_YES);
    /* one busy poll ends it; the threshold itself is not below it */
    now += 10000;
    CHECK_INT(pna_gpu_idle_step(&rule, &t, pod_a, true, 500, now, &since), PNA_GPU_IDLE_NO);
    CHECK(since == 0);
    /* quiet again: a new window */
    start = now += 10000;
    CHECK_INT(pna_gpu_idle_step(&rule, &t, pod_a, true, 3, now, &since), PNA_GPU_IDLE_NO);
    CHECK(since == start);
    now += 70000;
    CHECK_INT(pna_gpu_idle_step(&rule, &t, pod_a, true, 3, now, &since), PNA_GPU_IDLE_YES);
    /* another pod takes the GPU: its window starts at its first poll */
    start = now += 10000;
    CHECK_INT(pna_gpu_idle_step(&rule, &t, pod_b, true, 3, now, &since), PNA_GPU_IDLE_NO);
    CHECK(since == start);
    now += 60000;
    CHECK_INT(pna_gpu_idle_step(&rule, &t, pod_b, true, 3, now, &since), PNA_GPU_IDLE_YES);
    /* a poll without a figure: no verdict, and the window starts again */
    now += 10000;
    CHECK_INT(pna_gpu_idle_step(&rule, &t, pod_b, false, 0, now, &since), PNA_GPU_IDLE_UNKNOWN);
    CHECK(since == 0);
    start = now += 10000;
    CHECK_INT(pna_gpu_idle_step(&rule, &t, pod_b, true, 3, now, &since), PNA_GPU_IDLE_NO);
    CHECK(since == start);
    /* the clock steps back: the window starts over rather than going negative */
    now -= 3600000;
    CHECK_INT(pna_gpu_idle_step(&rule, &t, pod_b, true, 3, now, &since), PNA_GPU_IDLE_NO);
    CHECK(since == now);
    /* the holder leaves: not idle, and a later holder starts afresh */
    now += 120000;
    CHECK_INT(pna_gpu_idle_step(&rule, &t, 0, true, 3, now, &since), PNA_GPU_IDLE_NO);
    start = now += 10000;
    CHECK_INT(pna_gpu_idle_step(&rule, &t, pod_b, true, 3, now, &since), PNA_GPU_IDLE_NO);
    CHECK(since == start);

    /* a window of 0: idle at the first quiet poll; a threshold of 0: never */
    const struct pna_gpu_idle_rule at_once = { true, 500, 0 }, off = { true, 0, 0 };
    struct pna_gpu_idle_track t2 = { 0 }, t3 = { 0 };
    CHECK_INT(pna_gpu_idle_step(&at_once, &t2, pod_a, true, 0, now, &since), PNA_GPU_IDLE_YES);
    CHECK_INT(pna_gpu_idle_step(&off, &t3, pod_a, true, 0, now, &since), PNA_GPU_IDLE_NO);
    CHECK_INT(pna_gpu_idle_step(&off, &t3, pod_a, true, 0, now + 86400000, &since),
              PNA_GPU_IDLE_NO);
}

/* Holders through the joins: Slurm jobs by their processes' cgroups. */
static void test_holders(void)
{
    struct pna_gpu gpus[2];
    memset(gpus, 0, sizeof gpus);
    gpus[0].index = 0x4e00;
    gpus[1].index = 0x5a00;
    struct pna_gpu_proc procs[2];
    memset(procs, 0, sizeof procs);
    procs[0].gpu_index = 0x4e00;
    procs[0].pid = 4113;
    snprintf(procs[0].cgroup, sizeof procs[0].cgroup, "/slurm/uid_1000/job_60917/step_0/task_0");
    procs[1].gpu_index = 0x5a00;
    procs[1].pid = 4127;
    snprintf(procs[1].cgroup, sizeof procs[1].cgroup, "/user.slice/user-1000.slice/session-3.scope");
    struct pna_gpu_snap gs;
    memset(&gs, 0, sizeof gs);
    gs.gpus = gpus;
    gs.count = 2;
    gs.procs = procs;
    gs.proc_count = 2;
    struct pna_view v;
    memset(&v, 0, sizeof v);
    v.snap[PNA_DOM_GPU] = &gs.base;

    uint64_t h = pna_gpu_idle_holders(&v, &gpus[0]);
    CHECK(h != 0);
    CHECK_U64(pna_gpu_idle_holders(&v, &gpus[1]), 0);   /* a login session holds nothing */
    snprintf(procs[0].cgroup, sizeof procs[0].cgroup, "/slurm/uid_1000/job_60918/step_0/task_0");
    uint64_t h2 = pna_gpu_idle_holders(&v, &gpus[0]);
    CHECK(h2 != 0 && h2 != h);                         /* another job: another holder */
}

static void test_orphans(void)
{
    struct pna_containers_snap cs;
    memset(&cs, 0, sizeof cs);
    pna_container_set_init(&cs.set);
    struct pna_container *c = pna_container_set_add(&cs.set);
    CHECK(c != NULL);
    if (!c)
        return;
    CHECK_INT(pna_container_set_text(&cs.set, &c->cgroup_path,
                                      "/kubepods.slice/kubepods-pod1.slice/cri-containerd-4b7e.scope",
                                      PNA_CTR_CGROUP_CAP), 0);
    struct pna_gpu_proc p;
    memset(&p, 0, sizeof p);
    CHECK(!pna_gpu_proc_is_orphan(&cs, &p));            /* cgroup unknown: not judged */
    snprintf(p.cgroup, sizeof p.cgroup, "/kubepods.slice/kubepods-pod1.slice/cri-containerd-4b7e.scope");
    CHECK(!pna_gpu_proc_is_orphan(&cs, &p));            /* the container's own */
    snprintf(p.cgroup, sizeof p.cgroup,
             "/kubepods.slice/kubepods-pod1.slice/cri-containerd-4b7e.scope/worker");
    CHECK(!pna_gpu_proc_is_orphan(&cs, &p));            /* under it */
    snprintf(p.cgroup, sizeof p.cgroup, "/kubepods.slice/kubepods-pod1.slice/cri-containerd-4b7f.scope");
    CHECK(pna_gpu_proc_is_orphan(&cs, &p));             /* a name that only starts alike */
    snprintf(p.cgroup, sizeof p.cgroup, "/slurm/uid_1000/job_60917/step_0/task_0");
    CHECK(!pna_gpu_proc_is_orphan(&cs, &p));            /* a Slurm job's */
    snprintf(p.cgroup, sizeof p.cgroup, "/system.slice/ollama.service");
    CHECK(pna_gpu_proc_is_orphan(&cs, &p));             /* the host's */
    CHECK(pna_gpu_proc_is_orphan(NULL, &p));            /* no containers known */
    pna_container_set_free(&cs.set);
}

int main(void)
{
    test_parse();
    test_activity();
    test_window();
    test_holders();
    test_orphans();
    UNIT_END();
}
