/* test_containers_oom.c -- OOM kills reported once per count increase, by the
 * OOM watch on an event loop of the test's own: cgroup v2 memory.events
 * through inotify on temp files, cgroup v1 through a real memory cgroup and
 * eventfd where this host allows it, counts from polls and runtime notices
 * de-duplicated; bundle directory changes noticed by the directory watch.
 * (The ledger's rules alone, with times the test sets: test_oom_ledger.) */
#include "pna_autoconf.h"
#include "core/event_loop.h"
#include "watchers/dir_watch.h"
#include "watchers/oom_watch.h"
#include "core/log.h"
#include "core/roots.h"
#include "containers_testutil.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/select.h>
#include <sys/wait.h>

static char tmp[] = "/tmp/pna-oom-XXXXXX";
static struct pna_loop *loop;   /* on its own thread, for every watch here */

struct seen {
    pthread_mutex_t lock;
    struct pna_oom_hit hits[64];
    int n;
    int changes;
    struct pna_oom_watch *w;   /* when set: each report checks the kills total */
    uint64_t kills;            /* kills in the reports so far */
    bool total_behind;         /* a report came before the total had its kills */
};

static void on_oom(void *arg, const struct pna_oom_hit *hit)
{
    struct seen *s = arg;
    pthread_mutex_lock(&s->lock);
    if (s->n < 64)
        s->hits[s->n] = *hit;
    s->n++;
    s->kills += hit->kill_count - hit->prev_count;
    /* A poll serves the total with the rows' counts: by the time a kill
     * is reported, both must have it already. */
    if (s->w && pna_oom_watch_kills(s->w) < s->kills)
        s->total_behind = true;
    pthread_mutex_unlock(&s->lock);
}

static void on_change(void *arg)
{
    struct seen *s = arg;
    pthread_mutex_lock(&s->lock);
    s->changes++;
    pthread_mutex_unlock(&s->lock);
}

static int count_hits(struct seen *s)
{
    pthread_mutex_lock(&s->lock);
    int n = s->n;
    pthread_mutex_unlock(&s->lock);
    return n;
}

/* Wait until N hits arrived (or MS passed); returns the time it took. */
static int64_t wait_hits(struct seen *s, int n, int ms)
{
    int64_t t0 = tt_mono_ms();
    while (count_hits(s) < n && tt_mono_ms() - t0 < ms)
        tt_sleep_ms(5);
    return tt_mono_ms() - t0;
}

static void write_events(const char *root, const char *cg, unsigned oom, unsigned oom_kill)
{
    char rel[512], text[256];
    snprintf(rel, sizeof rel, "fs/cgroup%s/memory.events", cg);
    snprintf(text, sizeof text, "low 0\nhigh 0\nmax %u\noom %u\noom_kill %u\noom_group_kill 0\n",
             oom * 3, oom, oom_kill);
    tt_write(root, rel, text);   /* truncate + write: IN_MODIFY, as the kernel's notify */
}

/* Targets point at strings the caller keeps for the call: here a ring of
 * copies, larger than any test's live set. */
struct owned_target {
    char id[80], name[128], pod[128], ns[64], cg[256];
};

static struct pna_oom_target target(const char *id, const char *cg)
{
    static struct owned_target ring[4096];
    static size_t next;
    struct owned_target *r = &ring[next++ % 4096];
    snprintf(r->id, sizeof r->id, "%s", id);
    snprintf(r->name, sizeof r->name, "name-%s", id);
    snprintf(r->pod, sizeof r->pod, "pod-%s", id);
    snprintf(r->ns, sizeof r->ns, "ns1");
    snprintf(r->cg, sizeof r->cg, "%s", cg);
    return (struct pna_oom_target){ r->id, r->name, r->pod, r->ns, r->cg };
}

/* A watch over a cgroup v2 tree of its own, TMP/NAME (path in ROOT). */
static struct pna_oom_watch *v2_watch(const char *name, char *root, size_t cap, struct seen *s)
{
    snprintf(root, cap, "%s/%s", tmp, name);
    tt_write(root, "fs/cgroup/cgroup.controllers", "memory\n");
    struct pna_roots roots = { root, root, root, root };
    struct pna_cgroup_env env;
    char err[160];
    CHECK_INT(pna_cgroup_detect(&roots, "fs/cgroup", &env, err, sizeof err), 0);
    struct pna_oom_watch *w = pna_oom_watch_new(loop, &env, on_oom, s, err, sizeof err);
    CHECK(w != NULL);
    return w;
}

static void test_v2(void)
{
    char root[600];
    snprintf(root, sizeof root, "%s/v2", tmp);
    tt_write(root, "fs/cgroup/cgroup.controllers", "memory\n");
    /* Start from the real fixture file (all zero). */
    size_t len;
    char *fix = tt_fixture("cgroup/telegraf-v2/memory.events", &len);
    tt_write_bytes(root, "fs/cgroup/pod1/c1/memory.events", fix, len);
    free(fix);
    write_events(root, "/pod1/c2", 0, 5);   /* five kills before we started */
    struct pna_roots roots = { root, root, root, root };
    struct pna_cgroup_env env;
    char err[160];
    CHECK_INT(pna_cgroup_detect(&roots, "fs/cgroup", &env, err, sizeof err), 0);

    struct seen s = { .lock = PTHREAD_MUTEX_INITIALIZER };
    struct pna_oom_watch *w = pna_oom_watch_new(loop, &env, on_oom, &s, err, sizeof err);
    struct pna_dir_watch *dw = pna_dir_watch_new(loop, on_change, &s, err, sizeof err);
    CHECK(w != NULL && dw != NULL);
    if (!w || !dw)
        return;
    pthread_mutex_lock(&s.lock);
    s.w = w;
    pthread_mutex_unlock(&s.lock);
    struct pna_oom_target t[2] = { target("c1", "/pod1/c1"), target("c2", "/pod1/c2") };
    CHECK_INT(pna_oom_watch_sync(w, t, 2), 0);
    CHECK_INT(pna_oom_watch_active(w), 2);
    /* Kills from before the first sync are history, not news. */
    tt_sleep_ms(100);
    CHECK_INT(count_hits(&s), 0);

    /* One kill: one report, with the identity and the new count, within a second. */
    write_events(root, "/pod1/c1", 1, 1);
    int64_t took = wait_hits(&s, 1, 2000);
    CHECK_INT(count_hits(&s), 1);
    CHECK(took < 1000);
    printf("v2 OOM noticed in %lld ms\n", (long long)took);
    CHECK_STR(s.hits[0].who.id, "c1");
    CHECK_STR(s.hits[0].who.name, "name-c1");
    CHECK_STR(s.hits[0].who.pod, "pod-c1");
    CHECK_U64(s.hits[0].kill_count, 1);

    /* Other counters move (memory.high throttling): no report. */
    write_events(root, "/pod1/c1", 2, 1);
    tt_sleep_ms(150);
    CHECK_INT(count_hits(&s), 1);

    /* Two more kills land together: one report with count 3. */
    write_events(root, "/pod1/c1", 4, 3);
    wait_hits(&s, 2, 2000);
    CHECK_INT(count_hits(&s), 2);
    CHECK_U64(s.hits[1].kill_count, 3);

    /* The poll reads the same count: nothing new. */
    CHECK_U64(pna_oom_watch_observe(w, "c1", 3), 3);
    CHECK_INT(count_hits(&s), 2);
    /* A poll count the file does not say: the watch reads the file again,
     * and the file is what counts. */
    CHECK_U64(pna_oom_watch_observe(w, "c2", 6), 5);
    CHECK_INT(count_hits(&s), 2);
    /* A kill the poll and the notification both see: one report, whichever
     * comes first. */
    write_events(root, "/pod1/c2", 2, 6);
    CHECK_U64(pna_oom_watch_observe(w, "c2", 6), 6);
    wait_hits(&s, 3, 2000);
    tt_sleep_ms(100);
    CHECK_INT(count_hits(&s), 3);
    CHECK_STR(s.hits[2].who.id, "c2");
    CHECK_U64(s.hits[2].kill_count, 6);
    CHECK_U64(s.hits[2].prev_count, 5);
    CHECK_U64(pna_oom_watch_observe(w, "unknown", 9), 9);
    CHECK_INT(count_hits(&s), 3);

    /* A container that appears after start with kills already counted: its
     * first moments count. */
    write_events(root, "/pod2/c3", 1, 1);
    struct pna_oom_target t3[3] = { t[0], t[1], target("c3", "/pod2/c3") };
    CHECK_INT(pna_oom_watch_sync(w, t3, 3), 0);
    CHECK_INT(count_hits(&s), 4);
    CHECK_STR(s.hits[3].who.id, "c3");

    /* A runtime's OOM notice (Docker "oom"): counted only by the cgroup. */
    pna_oom_watch_runtime_notice(w, "c3", "name-c3");
    tt_sleep_ms(100);
    CHECK_INT(count_hits(&s), 4);
    write_events(root, "/pod2/c3", 2, 2);
    wait_hits(&s, 5, 2000);
    CHECK_INT(count_hits(&s), 5);
    /* Without a readable cgroup the notice itself is the count. */
    struct pna_oom_target t4[4] = { t[0], t[1], t3[2], target("c4", "/gone/c4") };
    CHECK_INT(pna_oom_watch_sync(w, t4, 4), 0);
    pna_oom_watch_runtime_notice(w, "c4", "name-c4");
    CHECK_INT(count_hits(&s), 6);
    CHECK_U64(s.hits[5].kill_count, 1);
    CHECK_U64(pna_oom_watch_reported(w), 6);
    CHECK_U64(pna_oom_watch_kills(w), 7);   /* 1 + 2 (c1), 1 (c2), 1 + 1 (c3), 1 (c4) */
    /* ... and so is the poll's count, which the watch cannot read again. */
    CHECK_U64(pna_oom_watch_observe(w, "c4", 4), 4);
    CHECK_INT(count_hits(&s), 7);
    CHECK_U64(s.hits[6].kill_count, 4);
    CHECK_U64(s.hits[6].prev_count, 1);

    /* A container restarted under the same id with a new cgroup starts over. */
    write_events(root, "/pod1/c1b", 0, 0);
    struct pna_oom_target t5[1] = { target("c1", "/pod1/c1b") };
    CHECK_INT(pna_oom_watch_sync(w, t5, 1), 0);
    CHECK_INT(pna_oom_watch_active(w), 1);
    write_events(root, "/pod1/c1b", 1, 1);
    wait_hits(&s, 8, 2000);
    CHECK_INT(count_hits(&s), 8);
    CHECK_U64(s.hits[7].kill_count, 1);

    /* Bundle directories: a new entry calls on_change (the poller's wake-up). */
    char d1[700], d2[700], sub[800];
    snprintf(d1, sizeof d1, "%s/tasks", root);
    snprintf(d2, sizeof d2, "%s/tasks/k8s.io", root);
    tt_mkdirs(d2);
    const char *dirs[] = { d2, d1, "/nonexistent/dir" };
    CHECK_INT(pna_dir_watch_set(dw, dirs, 3), 2);   /* the missing one is skipped */
    CHECK_INT(pna_dir_watch_set(dw, dirs, 3), 0);   /* nothing new the second time */
    bool complete = true;
    pna_dir_watch_events(dw, &complete);
    CHECK(!complete);   /* the missing one is not watched */
    CHECK_INT(pna_dir_watch_set(dw, dirs, 2), 0);
    uint64_t events = pna_dir_watch_events(dw, &complete);
    CHECK(complete);
    snprintf(sub, sizeof sub, "%s/newbundle", d2);
    mkdir(sub, 0755);
    int64_t t0 = tt_mono_ms();
    while (tt_mono_ms() - t0 < 2000) {
        pthread_mutex_lock(&s.lock);
        int ch = s.changes;
        pthread_mutex_unlock(&s.lock);
        if (ch)
            break;
        tt_sleep_ms(5);
    }
    CHECK(s.changes >= 1);   /* only an inotify event calls on_change: no poll here */
    CHECK(pna_dir_watch_events(dw, &complete) > events);
    CHECK(complete);
    /* A watched directory removed: an event, and no longer complete until
     * it is watched again. */
    rmdir(sub);
    tt_rmrf(d2);
    for (int i = 0; i < 200 && complete; i++) {
        tt_sleep_ms(5);
        pna_dir_watch_events(dw, &complete);
    }
    CHECK(!complete);
    tt_mkdirs(d2);
    CHECK_INT(pna_dir_watch_set(dw, dirs, 2), 1);
    pna_dir_watch_events(dw, &complete);
    CHECK(complete);
    CHECK_INT(pna_dir_watch_set(dw, NULL, 0), 0);
    pna_dir_watch_free(dw);

    CHECK_INT(pna_oom_watch_sync(w, NULL, 0), 0);
    CHECK_INT(pna_oom_watch_active(w), 0);
    /* The total is every report's kills, and no report came before it. */
    CHECK_U64(pna_oom_watch_kills(w), s.kills);
    CHECK(!s.total_behind);
    pna_oom_watch_free(w);
}

/* A runtime's OOM notice that comes after the poll which saw the container
 * go (Docker's "oom" event, late under load) still counts: the watch keeps a
 * container it stopped watching for a while.  When a read of the cgroup
 * already counted the kill, the notice for the same kill adds nothing. */
static void test_gone_notice(void)
{
    char root[600], dir[700];
    struct seen s = { .lock = PTHREAD_MUTEX_INITIALIZER };
    struct pna_oom_watch *w = v2_watch("gone", root, sizeof root, &s);
    if (!w)
        return;
    write_events(root, "/pod/lost", 0, 0);
    write_events(root, "/pod/seen", 0, 0);
    struct pna_oom_target t[2] = { target("lost", "/pod/lost"), target("seen", "/pod/seen") };
    CHECK_INT(pna_oom_watch_sync(w, t, 2), 0);

    /* "seen": the kill is read from memory.events, then the cgroup goes. */
    write_events(root, "/pod/seen", 1, 1);
    wait_hits(&s, 1, 2000);
    CHECK_INT(count_hits(&s), 1);
    /* "lost": its cgroup goes before any read (the kill never shows in a
     * file the watch could read). */
    for (int i = 0; i < 2; i++) {
        snprintf(dir, sizeof dir, "%s/fs/cgroup/pod/%s", root, i ? "seen" : "lost");
        tt_rmrf(dir);
    }
    CHECK_INT(pna_oom_watch_sync(w, NULL, 0), 0);   /* the poll saw both go */

    pna_oom_watch_runtime_notice(w, "seen", "name-seen");   /* the notice of the kill already counted */
    CHECK_INT(count_hits(&s), 1);
    pna_oom_watch_runtime_notice(w, "lost", "");   /* the only word of this kill */
    CHECK_INT(count_hits(&s), 2);
    CHECK_STR(s.hits[1].who.id, "lost");
    CHECK_STR(s.hits[1].who.name, "name-lost");
    CHECK_U64(s.hits[1].kill_count, 1);
    pna_oom_watch_free(w);
}

/* A notice for a container no sync has brought (started and OOM-killed
 * between two polls), or one whose cgroup path the poll did not have yet: the
 * notice is the count, and the sync that brings the cgroup later does not
 * report the same kill again; a kill the notice never told of still counts
 * once the cgroup is known. */
static void test_unsynced_notice(void)
{
    char root[600];
    struct seen s = { .lock = PTHREAD_MUTEX_INITIALIZER };
    struct pna_oom_watch *w = v2_watch("unsynced", root, sizeof root, &s);
    if (!w)
        return;
    CHECK_INT(pna_oom_watch_sync(w, NULL, 0), 0);   /* the first poll: nothing yet */

    /* Never synced: the notice alone, with the name it gives. */
    pna_oom_watch_runtime_notice(w, "early", "web-early");
    CHECK_INT(count_hits(&s), 1);
    CHECK_STR(s.hits[0].who.id, "early");
    CHECK_STR(s.hits[0].who.name, "web-early");
    CHECK_U64(s.hits[0].kill_count, 1);
    /* The container lived on (a child was killed): the next poll brings it,
     * its cgroup says the one kill. */
    write_events(root, "/pod/early", 1, 1);
    struct pna_oom_target t1[1] = { target("early", "/pod/early") };
    CHECK_INT(pna_oom_watch_sync(w, t1, 1), 0);
    tt_sleep_ms(100);
    CHECK_INT(count_hits(&s), 1);
    write_events(root, "/pod/early", 2, 2);   /* a second kill, read from the cgroup */
    wait_hits(&s, 2, 2000);
    CHECK_INT(count_hits(&s), 2);
    CHECK_U64(s.hits[1].kill_count, 2);
    CHECK_U64(s.hits[1].prev_count, 1);

    /* Synced without a cgroup path: a notice counts... */
    struct pna_oom_target t2[2] = { t1[0], target("nopath", "") };
    CHECK_INT(pna_oom_watch_sync(w, t2, 2), 0);
    CHECK_INT(pna_oom_watch_active(w), 1);   /* nothing to watch for "nopath" */
    pna_oom_watch_runtime_notice(w, "nopath", "name-nopath");
    CHECK_INT(count_hits(&s), 3);
    CHECK_STR(s.hits[2].who.name, "name-nopath");
    /* ... and when the path comes, its count of 1 is that same kill. */
    write_events(root, "/pod/nopath", 1, 1);
    struct pna_oom_target t3[2] = { t1[0], target("nopath", "/pod/nopath") };
    CHECK_INT(pna_oom_watch_sync(w, t3, 2), 0);
    tt_sleep_ms(100);
    CHECK_INT(count_hits(&s), 3);
    CHECK_INT(pna_oom_watch_active(w), 2);

    /* Synced without a path, killed with no notice: the count read once the
     * path is known is news. */
    struct pna_oom_target t4[3] = { t1[0], t3[1], target("quiet", "") };
    CHECK_INT(pna_oom_watch_sync(w, t4, 3), 0);
    write_events(root, "/pod/quiet", 1, 1);
    struct pna_oom_target t5[3] = { t1[0], t3[1], target("quiet", "/pod/quiet") };
    CHECK_INT(pna_oom_watch_sync(w, t5, 3), 0);
    CHECK_INT(count_hits(&s), 4);
    CHECK_STR(s.hits[3].who.id, "quiet");
    CHECK_U64(s.hits[3].kill_count, 1);
    pna_oom_watch_free(w);
}

/* An OOM signalled before its kill is counted (a runtime's notice here; v1's
 * eventfd alike), then the cgroup goes before the count moved: the victim was
 * PID 1 and the runtime cleaned up first.  The kill is counted when the
 * cgroup goes, once, whether the watch or the poll sees it go first; a later
 * notice of the same kill adds nothing.  A signal the count answers is
 * counted by the count alone. */
static void test_vanish_after_signal(void)
{
    char root[600], dir[700];
    struct seen s = { .lock = PTHREAD_MUTEX_INITIALIZER };
    struct pna_oom_watch *w = v2_watch("vanish", root, sizeof root, &s);
    if (!w)
        return;
    const char *ids[3] = { "watched", "buried", "answered" };
    struct pna_oom_target t[3];
    for (int i = 0; i < 3; i++) {
        snprintf(dir, sizeof dir, "/pod/%s", ids[i]);
        write_events(root, dir, 0, 0);
        t[i] = target(ids[i], dir);
    }
    CHECK_INT(pna_oom_watch_sync(w, t, 3), 0);

    /* Under OOM, not killed yet: nothing to report. */
    for (int i = 0; i < 3; i++)
        pna_oom_watch_runtime_notice(w, ids[i], "");
    tt_sleep_ms(100);
    CHECK_INT(count_hits(&s), 0);

    /* "answered": the count moves, one report from it. */
    write_events(root, "/pod/answered", 1, 1);
    wait_hits(&s, 1, 2000);
    CHECK_INT(count_hits(&s), 1);
    CHECK_STR(s.hits[0].who.id, "answered");

    /* "watched": its cgroup goes while watched. */
    snprintf(dir, sizeof dir, "%s/fs/cgroup/pod/watched", root);
    tt_rmrf(dir);
    wait_hits(&s, 2, 2000);
    CHECK_INT(count_hits(&s), 2);
    CHECK_STR(s.hits[1].who.id, "watched");
    CHECK_U64(s.hits[1].kill_count, 1);

    /* "buried": the poll sees the container go first, then its cgroup goes. */
    struct pna_oom_target left[1] = { t[2] };
    CHECK_INT(pna_oom_watch_sync(w, left, 1), 0);
    CHECK_INT(count_hits(&s), 2);
    snprintf(dir, sizeof dir, "%s/fs/cgroup/pod/buried", root);
    tt_rmrf(dir);
    wait_hits(&s, 3, 2000);
    CHECK_INT(count_hits(&s), 3);
    CHECK_STR(s.hits[2].who.id, "buried");
    CHECK_U64(s.hits[2].kill_count, 1);

    /* Docker's notice of those kills, late: the same kills. */
    pna_oom_watch_runtime_notice(w, "watched", "");
    pna_oom_watch_runtime_notice(w, "buried", "");
    tt_sleep_ms(100);
    CHECK_INT(count_hits(&s), 3);
    pna_oom_watch_free(w);
}

/* Log lines about counts that went down, caught through the log's sink. */
static atomic_int decrease_lines, other_lines;

static void count_line(int priority, const char *line)
{
    (void)priority;
    if (strstr(line, "went down"))
        atomic_fetch_add(&decrease_lines, 1);
    else
        atomic_fetch_add(&other_lines, 1);
}

/* Kills the reports add up to (what primusContainerOomKillsTotal adds). */
static uint64_t kills_total(struct seen *s)
{
    pthread_mutex_lock(&s->lock);
    uint64_t total = 0;
    for (int i = 0; i < s->n && i < 64; i++)
        total += s->hits[i].kill_count - s->hits[i].prev_count;
    pthread_mutex_unlock(&s->lock);
    return total;
}

/* Give cgroup CG under ROOT/fs/cgroup a new directory whose memory.events
 * says oom_kill KILLS: made beside the old one and renamed over it once that
 * is gone, so the two are sure to have different inodes. */
static void replace_cgroup(const char *root, const char *cg, unsigned kills)
{
    char old[1024], fresh[1100];
    snprintf(old, sizeof old, "%s/fs/cgroup%s", root, cg);
    snprintf(fresh, sizeof fresh, "%s.new", cg);
    write_events(root, fresh, 1, kills);
    tt_rmrf(old);
    snprintf(fresh, sizeof fresh, "%s.new", old);
    CHECK_INT(rename(fresh, old), 0);
}

/* The attack: a memory.events whose oom_kill flips between 0 and 1000.  Each
 * drop used to be taken as a new cgroup and each climb back as 1000 new kills
 * (250 flips: 250,000 kills, a notification each).  Within one cgroup a drop
 * is now ignored, counted and logged once: 1000 kills, one report, one line,
 * and the poll's row says 1000 throughout.  A cgroup really made anew (another
 * directory) starts again from zero: its count is new kills. */
static void test_flap(void)
{
    char root[600];
    struct seen s = { .lock = PTHREAD_MUTEX_INITIALIZER };
    struct pna_oom_watch *w = v2_watch("flap", root, sizeof root, &s);
    if (!w)
        return;
    write_events(root, "/k/c1", 0, 0);
    write_events(root, "/k/c2", 0, 0);
    pna_log_set_sink(count_line);
    struct pna_oom_target t[2] = { target("c1", "/k/c1"), target("c2", "/k/c2") };
    CHECK_INT(pna_oom_watch_sync(w, t, 2), 0);

    /* c1: the poll sees every flip (observe() after each write). */
    enum { FLIPS = 250 };
    for (int i = 0; i < FLIPS; i++) {
        write_events(root, "/k/c1", 1, 1000);
        CHECK_U64(pna_oom_watch_observe(w, "c1", 1000), 1000);
        write_events(root, "/k/c1", 1, 0);
        CHECK_U64(pna_oom_watch_observe(w, "c1", 0), 1000);   /* the row keeps 1000 */
    }
    tt_sleep_ms(100);
    CHECK_INT(count_hits(&s), 1);
    CHECK_U64(kills_total(&s), 1000);
    CHECK_U64(s.hits[0].kill_count, 1000);
    CHECK_U64(s.hits[0].prev_count, 0);
    CHECK(pna_oom_watch_decreases(w) >= FLIPS);

    /* c2: rewritten as fast as this thread can for half a second, only the
     * kernel notification (inotify) reading it. */
    int64_t t0 = tt_mono_ms();
    long rewrites = 0;
    while (tt_mono_ms() - t0 < 500) {
        write_events(root, "/k/c2", 1, rewrites % 2 ? 0 : 1000);
        rewrites++;
    }
    /* Ends at 1000 then 0, so the climb is seen however the reads fell. */
    write_events(root, "/k/c2", 1, 1000);
    wait_hits(&s, 2, 2000);
    write_events(root, "/k/c2", 1, 0);
    tt_sleep_ms(200);
    printf("flap: %d flips through observe(), %ld rewrites in 0.5 s: %d reports, "
           "%" PRIu64 " kills, %" PRIu64 " decreases ignored\n", FLIPS, rewrites, count_hits(&s),
           kills_total(&s), pna_oom_watch_decreases(w));
    CHECK_INT(count_hits(&s), 2);
    CHECK_U64(kills_total(&s), 2000);
    CHECK_U64(pna_oom_watch_observe(w, "c2", 0), 1000);
    pna_log_flush();
    CHECK_INT(atomic_load(&decrease_lines), 2);   /* one per cgroup */

    /* c1's cgroup made anew with a smaller count: a reset, all 3 are new. */
    replace_cgroup(root, "/k/c1", 3);
    CHECK_U64(pna_oom_watch_observe(w, "c1", 3), 3);
    CHECK_INT(count_hits(&s), 3);
    CHECK_U64(s.hits[2].kill_count, 3);
    CHECK_U64(s.hits[2].prev_count, 0);
    CHECK_U64(kills_total(&s), 2003);
    /* A drop in the new cgroup is news again: one more line. */
    write_events(root, "/k/c1", 1, 1);
    CHECK_U64(pna_oom_watch_observe(w, "c1", 1), 3);
    pna_log_flush();
    CHECK_INT(atomic_load(&decrease_lines), 3);

    /* Made anew with the same count (3): the poll's count does not differ,
     * but the watch on the old file is gone, and placing it again at the next
     * sync reads the new cgroup. */
    CHECK_INT(pna_oom_watch_sync(w, t, 2), 0);
    CHECK_INT(pna_oom_watch_active(w), 2);
    replace_cgroup(root, "/k/c1", 3);
    for (int i = 0; i < 200 && pna_oom_watch_active(w) != 1; i++)
        tt_sleep_ms(5);
    CHECK_INT(pna_oom_watch_active(w), 1);
    CHECK_U64(pna_oom_watch_observe(w, "c1", 3), 3);
    CHECK_INT(count_hits(&s), 3);
    CHECK_INT(pna_oom_watch_sync(w, t, 2), 0);
    CHECK_INT(count_hits(&s), 4);
    CHECK_U64(s.hits[3].kill_count, 3);
    CHECK_U64(kills_total(&s), 2006);

    pna_log_flush();
    CHECK_INT(atomic_load(&other_lines), 0);
    pna_log_set_sink(NULL);
    pna_oom_watch_free(w);
}

/* Many containers synced again and again (churn): watches follow, memory and
 * fds are returned. */
static void test_churn(void)
{
    char root[600];
    snprintf(root, sizeof root, "%s/churn", tmp);
    tt_write(root, "fs/cgroup/cgroup.controllers", "memory\n");
    enum { N = 1500 };
    for (int i = 0; i < N + 500; i++) {
        char cg[64];
        snprintf(cg, sizeof cg, "/k/c%d", i);
        write_events(root, cg, 0, 0);
    }
    struct pna_roots roots = { root, root, root, root };
    struct pna_cgroup_env env;
    char err[160];
    pna_cgroup_detect(&roots, "fs/cgroup", &env, err, sizeof err);
    struct seen s = { .lock = PTHREAD_MUTEX_INITIALIZER };
    struct pna_oom_watch *w = pna_oom_watch_new(loop, &env, on_oom, &s, err, sizeof err);
    if (!w)
        return;
    struct pna_oom_target *t = calloc(N, sizeof *t);
    for (int cyc = 0; cyc < 6; cyc++) {
        for (int i = 0; i < N; i++) {
            char id[32], cg[64];
            snprintf(id, sizeof id, "id%d", i + cyc * 100);
            snprintf(cg, sizeof cg, "/k/c%d", i + cyc * 100);
            t[i] = target(id, cg);
        }
        CHECK_INT(pna_oom_watch_sync(w, t, N), 0);
        CHECK_INT(pna_oom_watch_active(w), N);
    }
    CHECK_INT(count_hits(&s), 0);
    free(t);
    pna_oom_watch_free(w);
}

/* How many descriptors of this process numbered MIN_FD or more are links
 * ending with SUFFIX. */
static int count_links(const char *suffix, int min_fd)
{
    DIR *d = opendir("/proc/self/fd");
    size_t sl = strlen(suffix);
    int n = 0;
    for (struct dirent *de; d && (de = readdir(d));) {
        char path[300], target[PATH_MAX];
        snprintf(path, sizeof path, "/proc/self/fd/%s", de->d_name);
        ssize_t len = readlink(path, target, sizeof target - 1);
        if (len < (ssize_t)sl || atoi(de->d_name) < min_fd)
            continue;
        target[len] = '\0';
        n += strcmp(target + len - sl, suffix) == 0;
    }
    if (d)
        closedir(d);
    return n;
}

/* cgroup v1 for real: a child allocates past a 32 MiB memory cgroup and is
 * OOM-killed; the eventfd notification must produce exactly one report. */
static void test_v1_real(void)
{
    struct pna_roots roots = PNA_ROOTS_DEFAULT;
    struct pna_cgroup_env env;
    char err[160], dir[700], p[800];
    if (pna_cgroup_detect(&roots, "fs/cgroup", &env, err, sizeof err) < 0 || env.mode != PNA_CG_V1) {
        printf("SKIP v1 OOM: no cgroup v1 memory hierarchy here\n");
        return;
    }
    char name[64];
    snprintf(name, sizeof name, "/pna-oomtest-%d", (int)getpid());
    snprintf(dir, sizeof dir, "%s%s", env.mem_root, name);
    if (mkdir(dir, 0755) < 0) {
        printf("SKIP v1 OOM: cannot create %s (%s)\n", dir, strerror(errno));
        return;
    }
    snprintf(p, sizeof p, "%s/memory.limit_in_bytes", dir);
    FILE *f = fopen(p, "w");
    if (f) {
        fputs("33554432", f);
        fclose(f);
    }
    snprintf(p, sizeof p, "%s/memory.memsw.limit_in_bytes", dir);
    if ((f = fopen(p, "w"))) {   /* no escape into swap where swap accounting is on */
        fputs("33554432", f);
        fclose(f);
    }
    struct seen s = { .lock = PTHREAD_MUTEX_INITIALIZER };
    struct pna_oom_watch *w = pna_oom_watch_new(loop, &env, on_oom, &s, err, sizeof err);
    struct pna_oom_target t = target("v1ctr", name);
    CHECK_INT(pna_oom_watch_sync(w, &t, 1), 0);
    if (pna_oom_watch_active(w) != 1) {
        printf("SKIP v1 OOM: cannot register on cgroup.event_control\n");
        pna_oom_watch_free(w);
        rmdir(dir);
        return;
    }
    /* The notification holds one descriptor, its eventfd, numbered high
     * (the loop's own eventfd is not); memory.oom_control was needed for the
     * registration only. */
    CHECK_INT(count_links("memory.oom_control", 0), 0);
    CHECK_INT(count_links("[eventfd]", FD_SETSIZE), 1);
    pid_t pid = fork();
    if (pid == 0) {
        snprintf(p, sizeof p, "%s/cgroup.procs", dir);
        f = fopen(p, "w");
        if (!f)
            _exit(2);
        fprintf(f, "%d", (int)getpid());
        fclose(f);
        for (int i = 0; i < 256; i++) {   /* 256 MiB, touched page by page */
            char *m = malloc(1 << 20);
            if (!m)
                _exit(3);
            memset(m, i, 1 << 20);
        }
        _exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    int64_t t_dead = tt_mono_ms();
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    int64_t took = wait_hits(&s, 1, 2000);
    (void)t_dead;
    CHECK_INT(count_hits(&s), 1);
    CHECK(took < 1000);
    if (count_hits(&s) >= 1) {
        CHECK_STR(s.hits[0].who.id, "v1ctr");
        CHECK_U64(s.hits[0].kill_count, 1);
        printf("v1 OOM reported %lld ms after the victim was reaped\n", (long long)took);
    }
    tt_sleep_ms(300);
    CHECK_INT(count_hits(&s), 1);     /* one kill, one report */
    pna_oom_watch_free(w);
    rmdir(dir);
}

int main(void)
{
    if (!mkdtemp(tmp))
        return 99;
    char err[160];
    loop = pna_loop_new(err, sizeof err);
    if (!loop || pna_loop_start(loop, err, sizeof err) != 0) {
        fprintf(stderr, "event loop: %s\n", err);
        return 99;
    }
    test_v2();
    test_flap();
    test_churn();
    test_gone_notice();
    test_unsynced_notice();
    test_vanish_after_signal();
    test_v1_real();
    pna_loop_free(loop);
    tt_rmrf(tmp);
    UNIT_END();
}
