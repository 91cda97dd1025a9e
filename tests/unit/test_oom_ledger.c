/* test_oom_ledger.c -- the OOM-kill ledger (watchers/oom_ledger.c) on its
 * own: counts come from a table the test writes (each cgroup's oom_kill
 * count, its directory's identity, whether it is there), notifications are
 * tokens the test counts, and every time is the test's, so the 5 s and 10 s
 * rules are checked at their edges without waiting.
 *   - kills counted once per increase, not at the first sync, from zero for
 *     containers that come later;
 *   - decreases within one cgroup ignored, counted and logged once; a cgroup
 *     made anew starts over;
 *   - the high-water observe rule: the poll's count read again, the
 *     ledger's answer served; the poll's count used only when the cgroup
 *     cannot be read;
 *   - containers that go and come back, runtime notices before and after;
 *   - an OOM signalled whose cgroup vanishes within 5 s is one kill;
 *   - notifications armed, disarmed, lost and armed again. */
#include "pna_autoconf.h"
#include "watchers/oom_ledger.h"
#include "core/log.h"
#include "unit.h"

#include <errno.h>

/* ---- the cgroups: a table ----------------------------------------------------------- */

struct fake_cgroup {
    const char *path;
    uint64_t count;
    uint64_t ino;       /* a new directory at the same path: another number */
    bool gone;
    int error;          /* a read that fails otherwise (-EACCES), 0 none */
};

static struct fake_cgroup cgroups[16];
static size_t ncgroups;
static int armed, arms_refused;
static bool refuse_arms;

static struct fake_cgroup *cgroup(const char *path)
{
    for (size_t i = 0; i < ncgroups; i++)
        if (strcmp(cgroups[i].path, path) == 0)
            return &cgroups[i];
    if (ncgroups == sizeof cgroups / sizeof cgroups[0])
        exit(99);
    cgroups[ncgroups] = (struct fake_cgroup){ .path = path, .ino = 100 + ncgroups };
    return &cgroups[ncgroups++];
}

static void set_count(const char *path, uint64_t count)
{
    struct fake_cgroup *c = cgroup(path);
    c->count = count;
    c->gone = false;
}

/* The cgroup removed and made again at its path: another directory. */
static void remake(const char *path, uint64_t count)
{
    struct fake_cgroup *c = cgroup(path);
    c->ino += 1000;
    c->count = count;
    c->gone = false;
}

static int fake_read(void *ctx, const char *path, uint64_t *count, struct pna_cgroup_id *cg)
{
    (void)ctx;
    struct fake_cgroup *c = cgroup(path);
    if (c->gone)
        return -ENOENT;
    if (c->error)
        return c->error;
    *count = c->count;
    *cg = (struct pna_cgroup_id){ .dev = 1, .ino = c->ino };
    return 0;
}

static void *fake_arm(void *ctx, const char *id, const char *path)
{
    (void)ctx, (void)id;
    if (refuse_arms || cgroup(path)->gone) {
        arms_refused++;
        return NULL;
    }
    armed++;
    return &armed;   /* any pointer: the ledger only gives it back */
}

static void fake_disarm(void *ctx, void *token)
{
    (void)ctx;
    CHECK(token == &armed);
    armed--;
}

static const struct pna_oom_ledger_hooks hooks = {
    .read = fake_read, .arm = fake_arm, .disarm = fake_disarm,
};

/* ---- helpers ------------------------------------------------------------------------ */

static struct pna_oom_target target(const char *id, const char *path)
{
    return (struct pna_oom_target){ .id = id, .name = id, .pod = "pod", .namespace_ = "ns",
                                    .cgroup_path = path };
}

/* Kills the reports in H add up to; H emptied. */
static uint64_t take_kills(struct pna_oom_hits *h)
{
    uint64_t k = 0;
    for (size_t i = 0; i < h->n; i++)
        k += h->v[i].kill_count - h->v[i].prev_count;
    pna_oom_hits_free(h);
    return k;
}

static int decrease_lines, notice_lines;

static void count_line(int priority, const char *line)
{
    (void)priority;
    decrease_lines += strstr(line, "went down") != NULL;
    notice_lines += strstr(line, "not yet seen by a poll") != NULL;
}

static struct pna_oom_ledger *fresh(void)
{
    ncgroups = 0;
    armed = arms_refused = 0;
    refuse_arms = false;
    struct pna_oom_ledger *l = pna_oom_ledger_new(&hooks);
    if (!l)
        exit(99);
    return l;
}

/* ---- kills counted ------------------------------------------------------------------ */

static void test_kills(void)
{
    struct pna_oom_ledger *l = fresh();
    struct pna_oom_hits h = { 0 };
    int64_t now = 1000;
    set_count("/a", 0);
    set_count("/b", 5);   /* five kills before the agent started */
    struct pna_oom_target t[2] = { target("b", "/b"), target("a", "/a") };
    CHECK_INT(pna_oom_ledger_sync(l, t, 2, now, &h), 0);
    CHECK_U64(h.n, 0);    /* the first sync takes the counts as they are */
    CHECK_INT(armed, 2);

    set_count("/a", 1);
    pna_oom_ledger_cgroup_changed(l, "a", now, &h);
    CHECK_U64(h.n, 1);
    if (h.n == 1) {
        CHECK_STR(h.v[0].who.id, "a");
        CHECK_STR(h.v[0].who.pod, "pod");
        CHECK_STR(h.v[0].who.cgroup_path, "/a");
        CHECK_U64(h.v[0].kill_count, 1);
        CHECK_U64(h.v[0].prev_count, 0);
    }
    pna_oom_hits_free(&h);
    /* Another counter of the file moved: the same count, no report. */
    pna_oom_ledger_cgroup_changed(l, "a", now, &h);
    CHECK_U64(h.n, 0);
    /* Two kills at once: one report. */
    set_count("/a", 3);
    pna_oom_ledger_cgroup_changed(l, "a", now, &h);
    CHECK_U64(h.n, 1);
    CHECK_U64(take_kills(&h), 2);
    pna_oom_ledger_cgroup_changed(l, "nobody", now, &h);   /* not watched: nothing */
    CHECK_U64(h.n, 0);

    /* A container that comes later: its count is all new kills. */
    set_count("/c", 2);
    struct pna_oom_target t3[3] = { t[0], t[1], target("c", "/c") };
    CHECK_INT(pna_oom_ledger_sync(l, t3, 3, now, &h), 0);
    CHECK_U64(h.n, 1);
    CHECK_U64(take_kills(&h), 2);
    CHECK_INT(armed, 3);
    /* The same id twice in the input: one container. */
    struct pna_oom_target t4[4] = { t3[0], t3[1], t3[2], target("c", "/c") };
    CHECK_INT(pna_oom_ledger_sync(l, t4, 4, now, &h), 0);
    CHECK_INT(armed, 3);
    CHECK_U64(pna_oom_ledger_reported(l), 3);
    CHECK_U64(pna_oom_ledger_kills(l), 5);
    CHECK_U64(pna_oom_ledger_decreases(l), 0);
    pna_oom_ledger_free(l);
    CHECK_INT(armed, 0);   /* everything disarmed */
}

/* ---- decreases and new cgroups ------------------------------------------------------ */

static void test_decreases(void)
{
    struct pna_oom_ledger *l = fresh();
    struct pna_oom_hits h = { 0 };
    int64_t now = 1000;
    pna_log_set_sink(count_line);
    decrease_lines = 0;
    set_count("/k", 0);
    struct pna_oom_target t = target("k", "/k");
    pna_oom_ledger_sync(l, &t, 1, now, &h);
    /* A count that flips between 0 and 1000 in one cgroup: 1000 kills, once. */
    for (int i = 0; i < 100; i++) {
        set_count("/k", 1000);
        CHECK_U64(pna_oom_ledger_observe(l, "k", 1000, now, &h), 1000);
        set_count("/k", 0);
        CHECK_U64(pna_oom_ledger_observe(l, "k", 0, now, &h), 1000);   /* the row keeps 1000 */
        pna_oom_ledger_cgroup_changed(l, "k", now, &h);
    }
    CHECK_U64(h.n, 1);
    CHECK_U64(take_kills(&h), 1000);
    CHECK_U64(pna_oom_ledger_decreases(l), 200);
    pna_log_flush();
    CHECK_INT(decrease_lines, 1);   /* logged once for the cgroup */

    /* The cgroup made anew with a smaller count: a new start, all of it new. */
    remake("/k", 3);
    CHECK_U64(pna_oom_ledger_observe(l, "k", 3, now, &h), 3);
    CHECK_U64(h.n, 1);
    if (h.n == 1)
        CHECK_U64(h.v[0].prev_count, 0);
    CHECK_U64(take_kills(&h), 3);
    /* A decrease in the new cgroup is news again: one more line. */
    set_count("/k", 1);
    CHECK_U64(pna_oom_ledger_observe(l, "k", 1, now, &h), 3);
    pna_log_flush();
    CHECK_INT(decrease_lines, 2);
    CHECK_U64(h.n, 0);
    pna_log_set_sink(NULL);
    pna_oom_ledger_free(l);
}

/* ---- the high-water observe rule ----------------------------------------------------- */

static void test_observe(void)
{
    struct pna_oom_ledger *l = fresh();
    struct pna_oom_hits h = { 0 };
    int64_t now = 1000;
    set_count("/o", 5);
    struct pna_oom_target t = target("o", "/o");
    pna_oom_ledger_sync(l, &t, 1, now, &h);
    CHECK_U64(pna_oom_ledger_observe(l, "unknown", 9, now, &h), 9);   /* not watched */
    CHECK_U64(pna_oom_ledger_observe(l, "o", 5, now, &h), 5);
    /* The poll read 6, the cgroup says 5 (read again): 5 is what counts. */
    CHECK_U64(pna_oom_ledger_observe(l, "o", 6, now, &h), 5);
    CHECK_U64(h.n, 0);
    /* The cgroup cannot be read: the poll's count is all there is. */
    cgroup("/o")->error = -EACCES;
    CHECK_U64(pna_oom_ledger_observe(l, "o", 7, now, &h), 7);
    CHECK_U64(take_kills(&h), 2);
    CHECK_U64(pna_oom_ledger_observe(l, "o", 6, now, &h), 7);   /* and never lowered */
    CHECK_U64(h.n, 0);
    pna_oom_ledger_free(l);
}

/* ---- containers that come and go ------------------------------------------------------ */

static void test_come_and_go(void)
{
    struct pna_oom_ledger *l = fresh();
    struct pna_oom_hits h = { 0 };
    int64_t now = 1000;
    pna_log_set_sink(count_line);
    notice_lines = 0;
    set_count("/g", 0);
    set_count("/s", 0);
    struct pna_oom_target t[2] = { target("g", "/g"), target("s", "/s") };
    pna_oom_ledger_sync(l, t, 2, now, &h);
    /* "s": a kill read from its cgroup, then it goes; "g" goes unread. */
    set_count("/s", 1);
    pna_oom_ledger_cgroup_changed(l, "s", now, &h);
    CHECK_U64(take_kills(&h), 1);
    cgroup("/s")->gone = cgroup("/g")->gone = true;
    pna_oom_ledger_sync(l, NULL, 0, now, &h);
    CHECK_INT(armed, 0);
    /* Docker's notices come after the poll saw them go: "s" is the kill
     * already counted (within 5 s of it), "g" a kill of its own. */
    now += 2000;
    pna_oom_ledger_runtime_notice(l, "s", "", now, &h);
    CHECK_U64(h.n, 0);
    pna_oom_ledger_runtime_notice(l, "g", "", now, &h);
    CHECK_U64(h.n, 1);
    if (h.n == 1) {
        CHECK_STR(h.v[0].who.name, "g");   /* the name it had */
        CHECK_U64(h.v[0].kill_count, 1);
    }
    pna_oom_hits_free(&h);

    /* "g" back under its id within 10 s, its cgroup saying 1: that same
     * kill, not a new one. */
    set_count("/g", 1);
    now += 7999;
    struct pna_oom_target back = target("g", "/g");
    pna_oom_ledger_sync(l, &back, 1, now, &h);
    CHECK_U64(h.n, 0);
    CHECK_INT(armed, 1);
    /* "s" was forgotten 10 s after it went: a notice now is a new container
     * known from the notice alone (logged), one kill. */
    now += 2;
    pna_oom_ledger_runtime_notice(l, "s", "web", now, &h);
    CHECK_U64(h.n, 1);
    if (h.n == 1) {
        CHECK_STR(h.v[0].who.name, "web");
        CHECK_U64(h.v[0].kill_count, 1);
    }
    pna_oom_hits_free(&h);
    pna_log_flush();
    CHECK_INT(notice_lines, 1);

    /* A container synced with no path yet: a notice counts; the path that
     * comes later says the same kill. */
    struct pna_oom_target t2[2] = { back, target("p", "") };
    pna_oom_ledger_sync(l, t2, 2, now, &h);
    CHECK_INT(armed, 1);   /* nothing to arm for "p" */
    pna_oom_ledger_runtime_notice(l, "p", "", now, &h);
    CHECK_U64(take_kills(&h), 1);
    set_count("/p", 1);
    t2[1] = target("p", "/p");
    pna_oom_ledger_sync(l, t2, 2, now, &h);
    CHECK_U64(h.n, 0);
    CHECK_INT(armed, 2);
    /* Restarted with a new cgroup path: starts over from its count. */
    set_count("/p2", 4);
    t2[1] = target("p", "/p2");
    pna_oom_ledger_sync(l, t2, 2, now, &h);
    CHECK_U64(h.n, 0);
    CHECK_INT(armed, 2);
    set_count("/p2", 5);
    pna_oom_ledger_cgroup_changed(l, "p", now, &h);
    CHECK_U64(take_kills(&h), 1);
    pna_log_set_sink(NULL);
    pna_oom_ledger_free(l);
}

/* ---- a signalled OOM whose cgroup vanishes ------------------------------------------- */

static void test_signal_then_vanish(void)
{
    struct pna_oom_ledger *l = fresh();
    struct pna_oom_hits h = { 0 };
    int64_t now = 1000;
    set_count("/v", 0);
    set_count("/late", 0);
    struct pna_oom_target t[2] = { target("v", "/v"), target("late", "/late") };
    pna_oom_ledger_sync(l, t, 2, now, &h);
    CHECK(!pna_oom_ledger_recheck_pending(l, now));
    /* v1's eventfd: under OOM, not killed yet.  Re-read for a second. */
    pna_oom_ledger_cgroup_oom(l, "v", now, &h);
    pna_oom_ledger_cgroup_oom(l, "late", now, &h);
    CHECK_U64(h.n, 0);
    CHECK(pna_oom_ledger_recheck_pending(l, now));
    CHECK(pna_oom_ledger_recheck(l, now + PNA_OOM_RECHECK_EVERY_MS, &h));
    /* Past the second, the signal not answered: read on until 5 s. */
    CHECK(pna_oom_ledger_recheck(l, now + PNA_OOM_RECHECK_FOR_MS + 1, &h));
    CHECK_U64(h.n, 0);
    /* "v" goes at 4.9 s: its kill, counted once. */
    cgroup("/v")->gone = true;
    CHECK(pna_oom_ledger_recheck(l, now + 4900, &h));   /* "late" still waits */
    CHECK_U64(h.n, 1);
    if (h.n == 1) {
        CHECK_STR(h.v[0].who.id, "v");
        CHECK_U64(h.v[0].kill_count, 1);
    }
    pna_oom_hits_free(&h);
    /* "late" outlives the 5 s: the re-reads end, and its cgroup going after
     * that is no kill. */
    CHECK(!pna_oom_ledger_recheck(l, now + 5001, &h));
    /* Docker's notice of "v"'s kill, late: the same kill. */
    pna_oom_ledger_runtime_notice(l, "v", "", now + 5500, &h);
    CHECK_U64(h.n, 0);
    cgroup("/late")->gone = true;
    pna_oom_ledger_notify_lost(l, "late", now + 6000, &h);
    CHECK_U64(h.n, 0);
    CHECK_U64(pna_oom_ledger_kills(l), 1);

    /* A runtime's notice the count answers: counted by the count alone. */
    remake("/v", 0);
    struct pna_oom_target one = target("v", "/v");
    now += 20000;
    pna_oom_ledger_sync(l, &one, 1, now, &h);
    pna_oom_ledger_runtime_notice(l, "v", "", now, &h);
    CHECK_U64(h.n, 0);
    set_count("/v", 1);
    CHECK(!pna_oom_ledger_recheck(l, now + 50, &h));   /* moved: done */
    CHECK_U64(take_kills(&h), 1);
    cgroup("/v")->gone = true;
    CHECK_U64(pna_oom_ledger_observe(l, "v", 1, now + 100, &h), 1);
    CHECK_U64(h.n, 0);
    pna_oom_ledger_free(l);
}

/* ---- notifications -------------------------------------------------------------------- */

static void test_notifications(void)
{
    struct pna_oom_ledger *l = fresh();
    struct pna_oom_hits h = { 0 };
    int64_t now = 1000;
    set_count("/n", 0);
    struct pna_oom_target t = target("n", "/n");
    refuse_arms = true;   /* no room: the poll alone counts for it */
    pna_oom_ledger_sync(l, &t, 1, now, &h);
    CHECK_INT(armed, 0);
    CHECK_INT(arms_refused, 1);
    refuse_arms = false;
    pna_oom_ledger_sync(l, &t, 1, now, &h);   /* tried again at each sync */
    CHECK_INT(armed, 1);
    /* The kernel dropped the notification (cgroup removed); a new cgroup at
     * the path, with a kill its count alone tells of. */
    cgroup("/n")->gone = true;
    pna_oom_ledger_notify_lost(l, "n", now, &h);
    CHECK_INT(armed, 0);
    remake("/n", 1);
    pna_oom_ledger_sync(l, &t, 1, now, &h);
    CHECK_INT(armed, 1);
    CHECK_U64(take_kills(&h), 1);   /* read as it was armed again */
    /* Notifications lost: every container read again at the next re-read. */
    set_count("/n", 2);
    pna_oom_ledger_recheck_all(l, now);
    CHECK(pna_oom_ledger_recheck_pending(l, now));
    pna_oom_ledger_recheck(l, now, &h);
    CHECK_U64(take_kills(&h), 1);
    pna_oom_ledger_free(l);
    CHECK_INT(armed, 0);
}

int main(void)
{
    test_kills();
    test_decreases();
    test_observe();
    test_come_and_go();
    test_signal_then_vanish();
    test_notifications();
    UNIT_END();
}
