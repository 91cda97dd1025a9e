/* test_cgroup.c -- memory usage, limit and OOM-kill count from cgroup v1 and v2
 * files, the freezer state (paused containers), hierarchy detection, and the
 * cgroup path of a process or a spec. */
#include "pna_autoconf.h"
#include "sources/containers/cgroup.h"
#include "core/roots.h"
#include "containers_testutil.h"

#include <fcntl.h>

static char tmp[] = "/tmp/pna-cgroup-XXXXXX";

/* One number read straight from a fixture file, for the expected values. */
static uint64_t fixture_u64(const char *rel)
{
    char *t = tt_fixture(rel, NULL);
    uint64_t v = strtoull(t, NULL, 10);
    free(t);
    return v;
}

static void copy_fixture(const char *dst_root, const char *dst_rel, const char *fix_rel)
{
    size_t len;
    char *t = tt_fixture(fix_rel, &len);
    tt_write_bytes(dst_root, dst_rel, t, len);
    free(t);
}

static void test_v2_fixture(void)
{
    char root[512];
    snprintf(root, sizeof root, "%s/v2", tmp);
    tt_write(root, "fs/cgroup/cgroup.controllers", "cpuset cpu io memory pids\n");
    const char *files[] = { "memory.current", "memory.max", "memory.events", "memory.stat",
                            "memory.peak" };
    for (size_t i = 0; i < 5; i++) {
        char dst[256], src[256];
        snprintf(dst, sizeof dst, "fs/cgroup/kubepods.slice/pod1/ctr1/%s", files[i]);
        snprintf(src, sizeof src, "cgroup/telegraf-v2/%s", files[i]);
        copy_fixture(root, dst, src);
    }
    struct pna_roots roots = { root, root, root, root };
    struct pna_cgroup_env env;
    char err[160];
    CHECK_INT(pna_cgroup_detect(&roots, "fs/cgroup", &env, err, sizeof err), 0);
    CHECK_INT(env.mode, PNA_CG_V2);

    struct pna_cgroup_mem m;
    CHECK_INT(pna_cgroup_read_memory(&env, "/kubepods.slice/pod1/ctr1", &m), 0);
    CHECK(m.has_usage && m.has_limit && m.has_oom);
    CHECK_U64(m.usage_bytes, fixture_u64("cgroup/telegraf-v2/memory.current"));
    CHECK_U64(m.limit_bytes, fixture_u64("cgroup/telegraf-v2/memory.max"));
    CHECK_U64(m.oom_kills, 0);   /* the fixture's memory.events: oom_kill 0 */
    /* Working set: memory.current less memory.stat's inactive_file. */
    CHECK(m.has_working_set);
    CHECK_U64(m.working_set_bytes, fixture_u64("cgroup/telegraf-v2/memory.current") - 2935459840ULL);

    /* "max" is no limit; a kill shows in the count. */
    tt_write(root, "fs/cgroup/kubepods.slice/pod1/ctr1/memory.max", "max\n");
    tt_write(root, "fs/cgroup/kubepods.slice/pod1/ctr1/memory.events",
             "low 0\nhigh 0\nmax 12\noom 2\noom_kill 2\noom_group_kill 0\n");
    CHECK_INT(pna_cgroup_read_memory(&env, "/kubepods.slice/pod1/ctr1", &m), 0);
    CHECK(!m.has_limit);
    CHECK_U64(m.oom_kills, 2);

    char file[600];
    CHECK_INT(pna_cgroup_oom_file(&env, "/kubepods.slice/pod1/ctr1", file, sizeof file), 0);
    CHECK(strstr(file, "/fs/cgroup/kubepods.slice/pod1/ctr1/memory.events") != NULL);
    CHECK_INT(pna_cgroup_event_control(&env, "/x", file, sizeof file), -EINVAL);

    /* Gone, climbing out, or garbage. */
    CHECK_INT(pna_cgroup_read_memory(&env, "/nope", &m), -ENOENT);
    CHECK_INT(pna_cgroup_read_memory(&env, "/../../etc", &m), -EINVAL);
    tt_write(root, "fs/cgroup/bad/memory.current", "lots\n");
    tt_write(root, "fs/cgroup/bad/memory.events", "oom_kill many\n");
    CHECK_INT(pna_cgroup_read_memory(&env, "/bad", &m), 0);
    CHECK(!m.has_usage && !m.has_oom && !m.has_limit);
}

static void test_v1(void)
{
    char root[512];
    snprintf(root, sizeof root, "%s/v1", tmp);
    tt_write(root, "fs/cgroup/unified/cgroup.procs", "");
    tt_write(root, "fs/cgroup/memory/docker/abc/memory.usage_in_bytes", "5242880\n");
    /* PAGE_COUNTER_MAX in bytes: v1's "no limit". */
    tt_write(root, "fs/cgroup/memory/docker/abc/memory.limit_in_bytes", "9223372036854771712\n");
    tt_write(root, "fs/cgroup/memory/docker/abc/memory.oom_control",
             "oom_kill_disable 0\nunder_oom 0\noom_kill 3\n");
    tt_write(root, "fs/cgroup/memory/old/memory.usage_in_bytes", "4096\n");
    tt_write(root, "fs/cgroup/memory/old/memory.limit_in_bytes", "67108864\n");
    tt_write(root, "fs/cgroup/memory/old/memory.oom_control", "oom_kill_disable 0\nunder_oom 0\n");
    struct pna_roots roots = { root, root, root, root };
    struct pna_cgroup_env env;
    char err[160];
    CHECK_INT(pna_cgroup_detect(&roots, "fs/cgroup", &env, err, sizeof err), 0);
    CHECK_INT(env.mode, PNA_CG_V1);
    struct pna_cgroup_mem m;
    CHECK_INT(pna_cgroup_read_memory(&env, "/docker/abc", &m), 0);
    CHECK_U64(m.usage_bytes, 5242880);
    CHECK(!m.has_limit);
    CHECK(m.has_oom);
    CHECK_U64(m.oom_kills, 3);
    /* Kernels before 4.13 have no oom_kill line: the count is absent, not 0. */
    CHECK_INT(pna_cgroup_read_memory(&env, "/old", &m), 0);
    CHECK(m.has_limit);
    CHECK_U64(m.limit_bytes, 67108864);
    CHECK(!m.has_oom);
    char file[600];
    CHECK_INT(pna_cgroup_event_control(&env, "/docker/abc", file, sizeof file), 0);
    CHECK(strstr(file, "/fs/cgroup/memory/docker/abc/cgroup.event_control") != NULL);

    /* A Docker container's real v1 figures: the working set is what
     * `docker stats` showed for it (808 KiB). */
    const char *real[] = { "memory.stat", "memory.usage_in_bytes", "memory.limit_in_bytes" };
    for (size_t i = 0; i < sizeof real / sizeof real[0]; i++) {
        char src[128], dst[128];
        snprintf(src, sizeof src, "cgroup/docker-v1/%s", real[i]);
        snprintf(dst, sizeof dst, "fs/cgroup/memory/docker/real/%s", real[i]);
        copy_fixture(root, dst, src);
    }
    CHECK_INT(pna_cgroup_read_memory(&env, "/docker/real", &m), 0);
    CHECK(m.has_working_set);
    CHECK_U64(m.working_set_bytes, 808 * 1024);
    CHECK_U64(m.limit_bytes, 64 << 20);
    /* No memory.stat (or no inactive key): no working set, usage still there. */
    CHECK_INT(pna_cgroup_read_memory(&env, "/docker/abc", &m), 0);
    CHECK(m.has_usage && !m.has_working_set);
    /* Inactive cache above usage (read at different moments): 0, not a wrap. */
    tt_write(root, "fs/cgroup/memory/docker/abc/memory.stat", "cache 1\ntotal_inactive_file 6000000\n");
    CHECK_INT(pna_cgroup_read_memory(&env, "/docker/abc", &m), 0);
    CHECK(m.has_working_set);
    CHECK_U64(m.working_set_bytes, 0);

    /* Nothing there at all. */
    char none[512];
    snprintf(none, sizeof none, "%s/none", tmp);
    tt_mkdirs(none);
    struct pna_roots nr = { none, none, none, none };
    CHECK_INT(pna_cgroup_detect(&nr, "fs/cgroup", &env, err, sizeof err), -1);
    CHECK_INT(env.mode, PNA_CG_NONE);
    CHECK(strstr(err, "no memory cgroup") != NULL);
}

static void test_proc_cgroup(void)
{
    /* The v1 layout of this kind of host (hybrid), as /proc/self/cgroup shows it. */
    const char *v1 = "9:name=systemd:/\n8:pids:/\n4:memory,foo:/process_api/8871\n3:cpuset:/\n0::/\n";
    char buf[256];
    CHECK_INT(pna_cgroup_parse_proc(v1, PNA_CG_V1, buf, sizeof buf), 0);
    CHECK_STR(buf, "/process_api/8871");
    CHECK_INT(pna_cgroup_parse_proc(v1, PNA_CG_V2, buf, sizeof buf), 0);
    CHECK_STR(buf, "/");
    CHECK_INT(pna_cgroup_parse_proc("0::/kubepods.slice/x.scope\n", PNA_CG_V2, buf, sizeof buf), 0);
    CHECK_STR(buf, "/kubepods.slice/x.scope");
    CHECK_INT(pna_cgroup_parse_proc("1:cpu:/a\n", PNA_CG_V1, buf, sizeof buf), -ENOENT);
    CHECK_INT(pna_cgroup_parse_proc("garbage", PNA_CG_V2, buf, sizeof buf), -ENOENT);
    CHECK_INT(pna_cgroup_parse_proc("0::/a/../../b\n", PNA_CG_V2, buf, sizeof buf), -EINVAL);
    CHECK_INT(pna_cgroup_parse_proc("0::/a\n", PNA_CG_V2, buf, 2), -ENAMETOOLONG);

    /* Through a procfs tree. */
    char root[512];
    snprintf(root, sizeof root, "%s/proc", tmp);
    tt_write(root, "4242/cgroup", "0::/system.slice/docker-abc.scope\n");
    struct pna_roots roots = { root, root, root, root };
    CHECK_INT(pna_cgroup_path_of_pid(&roots, PNA_CG_V2, 4242, buf, sizeof buf), 0);
    CHECK_STR(buf, "/system.slice/docker-abc.scope");
    CHECK_INT(pna_cgroup_path_of_pid(&roots, PNA_CG_V2, 4243, buf, sizeof buf), -ENOENT);
    CHECK_INT(pna_cgroup_path_of_pid(&roots, PNA_CG_V2, 0, buf, sizeof buf), -EINVAL);
}

static void test_spec_paths(void)
{
    char buf[256];
    CHECK_INT(pna_cgroup_path_from_spec("/default/ctr1", buf, sizeof buf), 0);
    CHECK_STR(buf, "/default/ctr1");
    CHECK_INT(pna_cgroup_path_from_spec("k8s.io/ctr1", buf, sizeof buf), 0);
    CHECK_STR(buf, "/k8s.io/ctr1");
    /* systemd driver, as the kubelet configures containerd with it. */
    CHECK_INT(pna_cgroup_path_from_spec(
                  "kubepods-burstable-pod0d5d2a4e.slice:cri-containerd:5f4a1c", buf, sizeof buf), 0);
    CHECK_STR(buf, "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod0d5d2a4e.slice"
                   "/cri-containerd-5f4a1c.scope");
    CHECK_INT(pna_cgroup_path_from_spec("system.slice:docker:abc", buf, sizeof buf), 0);
    CHECK_STR(buf, "/system.slice/docker-abc.scope");
    CHECK_INT(pna_cgroup_path_from_spec("-.slice:p:n", buf, sizeof buf), 0);
    CHECK_STR(buf, "/p-n.scope");
    CHECK_INT(pna_cgroup_path_from_spec("notaslice:p:n", buf, sizeof buf), -EINVAL);
    CHECK_INT(pna_cgroup_path_from_spec("/a/../../etc", buf, sizeof buf), -EINVAL);
    CHECK_INT(pna_cgroup_path_from_spec("", buf, sizeof buf), -EINVAL);
    CHECK_INT(pna_cgroup_path_from_spec("/abcdefgh", buf, 4), -ENAMETOOLONG);
}

static void test_parse_oom(void)
{
    uint64_t v = 9;
    CHECK_INT(pna_cgroup_parse_oom_kill("oom 1\noom_kill 7\n", &v), 0);
    CHECK_U64(v, 7);
    CHECK_INT(pna_cgroup_parse_oom_kill("oom_kill_disable 0\nunder_oom 1\noom_kill 12", &v), 0);
    CHECK_U64(v, 12);
    CHECK_INT(pna_cgroup_parse_oom_kill("oom_kill_disable 1\n", &v), -ENOENT);
    CHECK_INT(pna_cgroup_parse_oom_kill("oom_kill -1\n", &v), -EINVAL);
    CHECK_INT(pna_cgroup_parse_oom_kill("", &v), -ENOENT);
    /* Keys match whole: "inactive_file" is not found in "total_inactive_file". */
    CHECK_INT(pna_cgroup_parse_key("total_inactive_file 5\ninactive_file 7\n", "inactive_file", &v), 0);
    CHECK_U64(v, 7);
    CHECK_INT(pna_cgroup_parse_key("total_inactive_file 5\n", "inactive_file", &v), -ENOENT);
    CHECK_INT(pna_cgroup_parse_key("inactive_filex 5\n", "inactive_file", &v), -ENOENT);
}

/* The attack: numbers read as C literals.  Kernel cgroup files are decimal:
 * memory.current "010" is ten bytes (the strtoull base-0 parser said 8), and
 * "0x10" is not a number (it said 16), in every file the reader takes. */
static void test_decimal(void)
{
    char root[512];
    snprintf(root, sizeof root, "%s/decimal", tmp);
    tt_write(root, "fs/cgroup/cgroup.controllers", "memory\n");
    tt_write(root, "fs/cgroup/c/memory.current", "010\n");
    tt_write(root, "fs/cgroup/c/memory.max", "0100\n");
    tt_write(root, "fs/cgroup/c/memory.events", "oom 1\noom_kill 010\n");
    struct pna_roots roots = { root, root, root, root };
    struct pna_cgroup_env env;
    char err[160];
    CHECK_INT(pna_cgroup_detect(&roots, "fs/cgroup", &env, err, sizeof err), 0);
    struct pna_cgroup_mem m;
    CHECK_INT(pna_cgroup_read_memory(&env, "/c", &m), 0);
    CHECK(m.has_usage && m.has_limit && m.has_oom);
    CHECK_U64(m.usage_bytes, 10);
    CHECK_U64(m.limit_bytes, 100);
    CHECK_U64(m.oom_kills, 10);

    tt_write(root, "fs/cgroup/c/memory.current", "0x10\n");
    tt_write(root, "fs/cgroup/c/memory.max", "0x100\n");
    tt_write(root, "fs/cgroup/c/memory.events", "oom 1\noom_kill 0x10\n");
    CHECK_INT(pna_cgroup_read_memory(&env, "/c", &m), 0);
    CHECK(!m.has_usage && !m.has_limit && !m.has_oom);   /* absent, not 16 */
    uint64_t v = 5;
    CHECK_INT(pna_cgroup_parse_oom_kill("oom_kill 0x10\n", &v), -EINVAL);
    CHECK_INT(pna_cgroup_parse_oom_kill("oom_kill 0010\n", &v), 0);
    CHECK_U64(v, 10);
}

/* Give cgroup REL under ROOT a new directory, with memory.events saying
 * oom_kill KILLS: made beside the old one and renamed over it once that is
 * gone, so the two are sure to have different inodes. */
static void replace_cgroup(const char *root, const char *rel, unsigned kills)
{
    char old[1024], fresh[1024], text[64];
    snprintf(old, sizeof old, "%s/%s", root, rel);
    snprintf(fresh, sizeof fresh, "%s.new", rel);
    snprintf(text, sizeof text, "oom 0\noom_kill %u\n", kills);
    char file[1100];
    snprintf(file, sizeof file, "%s/memory.events", fresh);
    tt_write(root, file, text);
    tt_rmrf(old);
    snprintf(fresh, sizeof fresh, "%s/%s.new", root, rel);
    CHECK_INT(rename(fresh, old), 0);
}

/* The identity of a cgroup directory read with its count, the rule that tells
 * a count going backwards from a cgroup made anew. */
static void test_identity(void)
{
    char root[512];
    snprintf(root, sizeof root, "%s/identity", tmp);
    tt_write(root, "fs/cgroup/cgroup.controllers", "memory\n");
    tt_write(root, "fs/cgroup/k/c/memory.events", "oom 3\noom_kill 1000\n");
    struct pna_roots roots = { root, root, root, root };
    struct pna_cgroup_env env;
    char err[160];
    CHECK_INT(pna_cgroup_detect(&roots, "fs/cgroup", &env, err, sizeof err), 0);
    struct pna_cgroup_id a, b, c;
    uint64_t n = 0;
    CHECK_INT(pna_cgroup_read_oom_state(&env, "/k/c", &n, &a), 0);
    CHECK_U64(n, 1000);
    CHECK(a.ino != 0);
    /* The file rewritten in place (what a flapping source does): same cgroup. */
    tt_write(root, "fs/cgroup/k/c/memory.events", "oom 3\noom_kill 0\n");
    CHECK_INT(pna_cgroup_read_oom_state(&env, "/k/c", &n, &b), 0);
    CHECK_U64(n, 0);
    CHECK(pna_cgroup_id_equal(&a, &b));
    /* The directory made anew at the same path: another cgroup. */
    char fs[600];
    snprintf(fs, sizeof fs, "%s/fs/cgroup", root);
    replace_cgroup(fs, "k/c", 3);
    CHECK_INT(pna_cgroup_read_oom_state(&env, "/k/c", &n, &c), 0);
    CHECK_U64(n, 3);
    CHECK(!pna_cgroup_id_equal(&a, &c));
    /* Gone, not a directory, no count, climbing out. */
    CHECK_INT(pna_cgroup_read_oom_state(&env, "/k/gone", &n, &c), -ENOENT);
    tt_write(root, "fs/cgroup/k/file", "oom_kill 1\n");
    CHECK_INT(pna_cgroup_read_oom_state(&env, "/k/file", &n, &c), -ENOTDIR);
    tt_write(root, "fs/cgroup/k/c/memory.events", "oom 3\n");
    CHECK_INT(pna_cgroup_read_oom_state(&env, "/k/c", &n, &c), -ENODATA);
    tt_write(root, "fs/cgroup/k/c/memory.events", "");   /* read between truncate and write */
    CHECK_INT(pna_cgroup_read_oom_state(&env, "/k/c", &n, &c), -ENODATA);
    CHECK_INT(pna_cgroup_read_oom_state(&env, "/../k", &n, &c), -EINVAL);
}

/* The freezer, as the kernel writes its files: v2 cgroup.events and
 * cgroup.freeze, v1 freezer.state. */
static void test_freezer(void)
{
    bool f = true;
    CHECK_INT(pna_cgroup_parse_v2_frozen("populated 1\nfrozen 0", &f), 0);
    CHECK(!f);
    CHECK_INT(pna_cgroup_parse_v2_frozen("populated 1\nfrozen 1\n", &f), 0);
    CHECK(f);
    CHECK_INT(pna_cgroup_parse_v2_frozen("populated 1\n", &f), -EINVAL);   /* before 5.2 */
    CHECK_INT(pna_cgroup_parse_v2_frozen("frozen 2\n", &f), -EINVAL);
    CHECK_INT(pna_cgroup_parse_v2_frozen("frozen 10\n", &f), -EINVAL);
    CHECK_INT(pna_cgroup_parse_v2_frozen("", &f), -EINVAL);
    CHECK_INT(pna_cgroup_parse_v1_freezer("THAWED", &f), 0);
    CHECK(!f);
    CHECK_INT(pna_cgroup_parse_v1_freezer("FROZEN\n", &f), 0);
    CHECK(f);
    f = false;
    CHECK_INT(pna_cgroup_parse_v1_freezer("FREEZING", &f), 0);
    CHECK(f);
    CHECK_INT(pna_cgroup_parse_v1_freezer("FROZENX", &f), -EINVAL);
    CHECK_INT(pna_cgroup_parse_v1_freezer("", &f), -EINVAL);

    /* v2: a temp tree with one container cgroup. */
    char root[512];
    snprintf(root, sizeof root, "%s/freeze-v2", tmp);
    tt_write(root, "fs/cgroup/cgroup.controllers", "cpu memory pids\n");
    tt_write(root, "fs/cgroup/k8s.io/c1/cgroup.events", "populated 1\nfrozen 0\n");
    tt_write(root, "fs/cgroup/k8s.io/c1/cgroup.freeze", "0\n");
    struct pna_roots roots = { root, root, root, root };
    struct pna_cgroup_env env;
    char err[160];
    CHECK_INT(pna_cgroup_detect(&roots, "fs/cgroup", &env, err, sizeof err), 0);
    CHECK_STR(env.freezer_root, env.mem_root);
    CHECK_INT(pna_cgroup_read_frozen(&env, "/k8s.io/c1", &f), 0);
    CHECK(!f);
    /* runc pause: cgroup.freeze 1, then the kernel reports frozen 1. */
    tt_write(root, "fs/cgroup/k8s.io/c1/cgroup.freeze", "1\n");
    tt_write(root, "fs/cgroup/k8s.io/c1/cgroup.events", "populated 1\nfrozen 1\n");
    CHECK_INT(pna_cgroup_read_frozen(&env, "/k8s.io/c1", &f), 0);
    CHECK(f);
    /* A kernel without the frozen key: cgroup.freeze decides. */
    tt_write(root, "fs/cgroup/k8s.io/c1/cgroup.events", "populated 1\n");
    CHECK_INT(pna_cgroup_read_frozen(&env, "/k8s.io/c1", &f), 0);
    CHECK(f);
    tt_write(root, "fs/cgroup/k8s.io/c1/cgroup.freeze", "maybe\n");
    CHECK_INT(pna_cgroup_read_frozen(&env, "/k8s.io/c1", &f), -EINVAL);
    CHECK_INT(pna_cgroup_read_frozen(&env, "/k8s.io/gone", &f), -ENOENT);
    CHECK_INT(pna_cgroup_read_frozen(&env, "/../etc", &f), -EINVAL);

    /* v1: memory and freezer hierarchies side by side. */
    snprintf(root, sizeof root, "%s/freeze-v1", tmp);
    tt_write(root, "fs/cgroup/memory/default/c2/memory.usage_in_bytes", "4096\n");
    tt_write(root, "fs/cgroup/freezer/default/c2/freezer.state", "THAWED\n");
    struct pna_roots r1 = { root, root, root, root };
    CHECK_INT(pna_cgroup_detect(&r1, "fs/cgroup", &env, err, sizeof err), 0);
    CHECK_INT(env.mode, PNA_CG_V1);
    CHECK(strstr(env.freezer_root, "/fs/cgroup/freezer") != NULL);
    CHECK_INT(pna_cgroup_read_frozen(&env, "/default/c2", &f), 0);
    CHECK(!f);
    tt_write(root, "fs/cgroup/freezer/default/c2/freezer.state", "FROZEN\n");
    CHECK_INT(pna_cgroup_read_frozen(&env, "/default/c2", &f), 0);
    CHECK(f);
    tt_write(root, "fs/cgroup/freezer/default/c2/freezer.state", "\n");
    CHECK_INT(pna_cgroup_read_frozen(&env, "/default/c2", &f), -EINVAL);
    /* No freezer hierarchy mounted: unknown, never "paused". */
    snprintf(root, sizeof root, "%s/freeze-v1-none", tmp);
    tt_write(root, "fs/cgroup/memory/default/c2/memory.usage_in_bytes", "4096\n");
    struct pna_roots r2 = { root, root, root, root };
    CHECK_INT(pna_cgroup_detect(&r2, "fs/cgroup", &env, err, sizeof err), 0);
    CHECK_STR(env.freezer_root, "");
    f = true;
    CHECK(pna_cgroup_read_frozen(&env, "/default/c2", &f) < 0);
    CHECK(!f);
}

/* Date ROOT/REL (a directory) a minute back: its identity settled. */
static void settle(const char *root, const char *rel)
{
    CHECK_INT(tt_date(root, rel, time(NULL) - 60), 0);
}

/* One read through kept files, with the roots opened as a scan opens them
 * (AT) or not (NULL): the figures are what a fresh read gives. */
static void read_kept(const struct pna_cgroup_env *env, const struct pna_cgroup_at *at,
                      const char *path, struct pna_cgroup_files *files, uint64_t usage,
                      bool frozen)
{
    struct pna_cgroup_mem kept, fresh;
    bool f = !frozen, g = !frozen;
    int frc = -1, grc = -1;
    CHECK_INT(pna_cgroup_read_state_kept(env, at, path, files, &kept, &f, &frc), 0);
    CHECK_INT(pna_cgroup_read_state(env, path, &fresh, &g, &grc), 0);
    CHECK_U64(kept.usage_bytes, usage);
    CHECK_U64(fresh.usage_bytes, usage);
    CHECK_INT(frc, 0);
    CHECK_INT(grc, 0);
    CHECK_INT(f, frozen);
    CHECK_INT(g, frozen);
    CHECK_INT(kept.has_limit, fresh.has_limit);
    CHECK_U64(kept.limit_bytes, fresh.limit_bytes);
    CHECK_INT(kept.has_oom, fresh.has_oom);
    CHECK_U64(kept.oom_kills, fresh.oom_kills);
    CHECK_INT(kept.has_working_set, fresh.has_working_set);
    CHECK_U64(kept.working_set_bytes, fresh.working_set_bytes);
}

/* A cgroup's files kept open between reads (pna_cgroup_read_state_kept):
 * v2 with the freezer in the memory directory, v1 with its own; changes
 * written in place, as the kernel's files change, are read. */
static void test_kept_files(void)
{
    char root[512];
    snprintf(root, sizeof root, "%s/kept", tmp);
    tt_write(root, "v2/fs/cgroup/cgroup.controllers", "memory\n");
    tt_write(root, "v2/fs/cgroup/k/c/memory.current", "8192\n");
    tt_write(root, "v2/fs/cgroup/k/c/memory.max", "max\n");
    tt_write(root, "v2/fs/cgroup/k/c/memory.events", "oom 1\noom_kill 1\n");
    tt_write(root, "v2/fs/cgroup/k/c/memory.stat", "inactive_file 4096\n");
    tt_write(root, "v2/fs/cgroup/k/c/cgroup.events", "populated 1\nfrozen 0\n");
    settle(root, "v2/fs/cgroup/k/c");
    tt_write(root, "v1/fs/cgroup/memory/k/c/memory.usage_in_bytes", "4096\n");
    tt_write(root, "v1/fs/cgroup/memory/k/c/memory.limit_in_bytes", "1048576\n");
    tt_write(root, "v1/fs/cgroup/memory/k/c/memory.oom_control", "under_oom 0\noom_kill 2\n");
    tt_write(root, "v1/fs/cgroup/memory/k/c/memory.stat", "total_inactive_file 0\n");
    tt_write(root, "v1/fs/cgroup/freezer/k/c/freezer.state", "THAWED\n");
    settle(root, "v1/fs/cgroup/memory/k/c");
    settle(root, "v1/fs/cgroup/freezer/k/c");
    for (int v = 1; v <= 2; v++) {
        char base[600];
        snprintf(base, sizeof base, "%s/v%d", root, v);
        struct pna_roots roots = { base, base, base, base };
        struct pna_cgroup_env env;
        char err[160];
        CHECK_INT(pna_cgroup_detect(&roots, "fs/cgroup", &env, err, sizeof err), 0);
        CHECK_INT(env.mode, v);
        struct pna_cgroup_at at;
        pna_cgroup_at_open(&env, &at);
        CHECK(at.mem >= 0);
        CHECK(v == 2 ? at.freezer < 0 : at.freezer >= 0);
        struct pna_cgroup_files files;
        pna_cgroup_files_init(&files);
        files.keep = true;
        uint64_t usage = v == 2 ? 8192 : 4096;
        read_kept(&env, &at, "/k/c", &files, usage, false);
        CHECK(files.mem.kept && files.mem.fd[0] >= PNA_HELD_FD_FLOOR);
        CHECK(v == 2 ? files.freezer == NULL : files.freezer && files.freezer->kept);
        int fd = files.mem.fd[0];
        /* Rewritten in place: the same descriptors read the new figures. */
        char rel[200];
        snprintf(rel, sizeof rel, "v%d/fs/cgroup/%s", v,
                 v == 2 ? "k/c/memory.current" : "memory/k/c/memory.usage_in_bytes");
        tt_write(root, rel, "12288\n");
        snprintf(rel, sizeof rel, "v%d/fs/cgroup/%s", v,
                 v == 2 ? "k/c/cgroup.events" : "freezer/k/c/freezer.state");
        tt_write(root, rel, v == 2 ? "populated 1\nfrozen 1\n" : "FROZEN\n");
        read_kept(&env, NULL, "/k/c", &files, 12288, true);
        CHECK_INT(files.mem.fd[0], fd);
        /* Not kept any more: read, then closed. */
        files.keep = false;
        read_kept(&env, &at, "/k/c", &files, 12288, true);
        CHECK(!files.mem.open);
        /* Another cgroup, or none at the path. */
        files.keep = true;
        struct pna_cgroup_mem m;
        bool f;
        int frc;
        CHECK_INT(pna_cgroup_read_state_kept(&env, &at, "/k/gone", &files, &m, &f, &frc), -ENOENT);
        CHECK(!files.mem.open);
        CHECK_INT(pna_cgroup_read_state_kept(&env, &at, "/../k", &files, &m, &f, &frc), -EINVAL);
        pna_cgroup_files_close(&files);
        pna_cgroup_at_close(&at);
        CHECK(at.mem < 0 && at.freezer < 0);
    }
}

int main(void)
{
    if (!mkdtemp(tmp))
        return 99;
    test_v2_fixture();
    test_kept_files();
    test_v1();
    test_proc_cgroup();
    test_spec_paths();
    test_parse_oom();
    test_decimal();
    test_identity();
    test_freezer();
    tt_rmrf(tmp);
    UNIT_END();
}
