/* test_containers_containerd.c -- containerd tasks from bundle trees: records,
 * states, cgroup figures, bundles coming and going, stable indexes, Docker and
 * containerd rows folded together, and memory that does not grow under churn. */
#include "pna_autoconf.h"
#include "sources/containers/cgroup.h"
#include "sources/containers/containerd.h"
#include "sources/containers/devmap.h"
#include "core/roots.h"
#include "containers_testutil.h"

#include <fcntl.h>
#include <jansson.h>
#include <malloc.h>
#include <sys/stat.h>

static char tmp[] = "/tmp/pna-ctrd-XXXXXX";
static char rootfs[800], procfs[600], sysfs[600];

#define TASKS "run/containerd/io.containerd.runtime.v2.task"
#define ID_A "a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90"
#define ID_B "myContainer"
#define ID_C "c0ffee"
#define ID_D "d00d"

/* A CRI container spec made from the spec's reference example. */
static char *spec_for(const char *type, const char *name, const char *pod, const char *cgpath,
                      const char *device)
{
    char *text = tt_fixture("containerd/oci-runtime-spec-config-example.json", NULL);
    json_t *root = json_loads(text, 0, NULL);
    free(text);
    json_t *ann = json_object();
    json_object_set_new(ann, "io.kubernetes.cri.container-type", json_string(type));
    json_object_set_new(ann, "io.kubernetes.cri.container-name", json_string(name));
    json_object_set_new(ann, "io.kubernetes.cri.sandbox-name", json_string(pod));
    json_object_set_new(ann, "io.kubernetes.cri.sandbox-namespace", json_string("team-a"));
    json_object_set_new(ann, "io.kubernetes.cri.image-name", json_string("busybox:1.36"));
    json_object_set_new(root, "annotations", ann);
    json_t *lin = json_object_get(root, "linux");
    json_object_set_new(lin, "cgroupsPath", json_string(cgpath));
    if (device)
        json_array_append_new(json_object_get(lin, "devices"),
                              json_pack("{s:s,s:s,s:i,s:i}", "path", device, "type", "c",
                                        "major", 226, "minor", 128));
    char *out = json_dumps(root, JSON_COMPACT);
    json_decref(root);
    return out;
}

static void put_bundle(const char *ns, const char *id, const char *spec, long pid, time_t mtime)
{
    char rel[1024];
    snprintf(rel, sizeof rel, TASKS "/%s/%s/config.json", ns, id);
    if (spec)
        tt_write(rootfs, rel, spec);
    else {
        snprintf(rel, sizeof rel, "%s/" TASKS "/%s/%s", rootfs, ns, id);
        tt_mkdirs(rel);
    }
    if (pid) {
        char num[32], p[2048];
        snprintf(rel, sizeof rel, TASKS "/%s/%s/init.pid", ns, id);
        snprintf(num, sizeof num, "%ld", pid);
        tt_write(rootfs, rel, num);
        snprintf(p, sizeof p, "%s/%s", rootfs, rel);
        struct timespec ts[2] = { { mtime, 123000000 }, { mtime, 123000000 } };
        utimensat(AT_FDCWD, p, ts, 0);
    }
}

static void drop_bundle(const char *ns, const char *id)
{
    char p[1200];
    snprintf(p, sizeof p, "%s/" TASKS "/%s/%s", rootfs, ns, id);
    tt_rmrf(p);
}

static uint64_t fixture_u64(const char *rel)
{
    char *t = tt_fixture(rel, NULL);
    uint64_t v = strtoull(t, NULL, 10);
    free(t);
    return v;
}

static void copy_fixture(const char *root, const char *dst, const char *src)
{
    size_t len;
    char *t = tt_fixture(src, &len);
    tt_write_bytes(root, dst, t, len);
    free(t);
}

static int scan(struct pna_container_set *set, struct pna_containerd_stats *st,
                const struct pna_cgroup_env *cg)
{
    struct pna_roots roots = { sysfs, procfs, sysfs, rootfs };
    char err[160];
    pna_container_set_clear(set);
    int rc = pna_containerd_scan(&roots, "run/containerd", cg, NULL, set, st, err, sizeof err);
    if (rc == 0)
        pna_container_set_sort(set);
    return rc;
}

static const struct pna_container *row(const struct pna_container_set *s, const char *id)
{
    return pna_container_set_find(s, id);
}

static void test_scan(void)
{
    struct pna_roots roots = { sysfs, procfs, sysfs, rootfs };
    /* The host: a cgroup v2 hierarchy with A's cgroup from the telegraf fixture. */
    tt_write(sysfs, "fs/cgroup/cgroup.controllers", "cpu memory pids\n");
    const char *files[] = { "memory.current", "memory.max", "memory.events" };
    for (size_t i = 0; i < 3; i++) {
        char dst[256], src[256];
        snprintf(dst, sizeof dst, "fs/cgroup/kubepods.slice/podA/ctrA/%s", files[i]);
        snprintf(src, sizeof src, "cgroup/telegraf-v2/%s", files[i]);
        copy_fixture(sysfs, dst, src);
    }
    tt_write(sysfs, "fs/cgroup/myRuntime/myContainer/memory.current", "4096\n");
    tt_write(sysfs, "fs/cgroup/myRuntime/myContainer/memory.max", "max\n");
    tt_write(procfs, "1001/cgroup", "0::/kubepods.slice/podA/ctrA\n");
    struct pna_cgroup_env cg;
    char err[160];
    CHECK_INT(pna_cgroup_detect(&roots, "fs/cgroup", &cg, err, sizeof err), 0);

    struct pna_container_set set;
    pna_container_set_init(&set);
    struct pna_containerd_stats st;
    /* No containerd on the node: "absent", not an error. */
    CHECK_INT(scan(&set, &st, &cg), 1);

    char *a = spec_for("container", "trainer", "llm-0", "kubepods-x.slice:cri-containerd:a1",
                       "/dev/dri/renderD128");
    char *sb = spec_for("sandbox", "", "llm-0", "/kubepods/sb", NULL);
    char *ref = tt_fixture("containerd/oci-runtime-spec-config-example.json", NULL);
    put_bundle("k8s.io", ID_A, a, 1001, 1700000000);
    put_bundle("k8s.io", "sandbox0", sb, 1003, 1700000000);
    put_bundle("k8s.io", "broken", "{ \"ociVersion\": ", 0, 0);
    put_bundle("k8s.io", "creating", NULL, 0, 0);
    put_bundle("default", ID_B, ref, 1002, 1600000000);
    char *cspec = spec_for("container", "idle", "pod-c", "/nonexistent/c", NULL);
    put_bundle("default", ID_C, cspec, 0, 0);
    tt_write(rootfs, TASKS "/default/not-a-bundle", "x");
    tt_write(procfs, "1003/cgroup", "0::/kubepods/sb\n");

    CHECK_INT(scan(&set, &st, &cg), 0);
    CHECK_INT(st.bundles, 6);
    CHECK_INT(st.added, 3);
    CHECK_INT(st.sandboxes, 1);
    CHECK_INT(st.bad_specs, 1);
    CHECK(strstr(st.last_error, "broken") != NULL);
    CHECK_INT(set.count, 3);
    /* Sorted by id. */
    CHECK_STR(set.rows[0].id, ID_A);
    CHECK_STR(set.rows[1].id, ID_C);
    CHECK_STR(set.rows[2].id, ID_B);

    const struct pna_container *c = row(&set, ID_A);
    CHECK(c != NULL);
    if (c) {
        CHECK_STR(c->name, "trainer");
        CHECK_STR(c->pod_name, "llm-0");
        CHECK_STR(c->pod_namespace, "team-a");
        CHECK_STR(c->image, "busybox:1.36");
        CHECK_STR(c->rt_namespace, "k8s.io");
        CHECK_INT(c->state, PNA_CSTATE_RUNNING);
        CHECK_INT(c->pid, 1001);
        CHECK(c->start_ms == 1700000000123LL);
        /* The process's cgroup wins over the spec's systemd path. */
        CHECK_STR(c->cgroup_path, "/kubepods.slice/podA/ctrA");
        CHECK(c->has_memory && c->has_limit && c->has_oom);
        CHECK_U64(c->mem_usage_bytes, fixture_u64("cgroup/telegraf-v2/memory.current"));
        CHECK_U64(c->mem_limit_bytes, fixture_u64("cgroup/telegraf-v2/memory.max"));
        CHECK_U64(c->oom_kills, 0);
        CHECK_INT(c->dev_count, 3);
        CHECK_STR(set.devs[c->dev_first + 2].path, "/dev/dri/renderD128");
        CHECK_INT(set.devs[c->dev_first + 2].kind, PNA_DEV_GPU);
    }
    c = row(&set, ID_B);
    CHECK(c != NULL);
    if (c) {
        CHECK_INT(c->state, PNA_CSTATE_EXITED);     /* no /proc/1002 */
        CHECK_STR(c->rt_namespace, "default");
        CHECK_STR(c->cgroup_path, "/myRuntime/myContainer");  /* from the spec */
        CHECK(c->has_memory);
        CHECK_U64(c->mem_usage_bytes, 4096);
        CHECK(!c->has_limit);   /* the cgroup says max: the spec's 512 MiB is moot */
        CHECK_INT(c->dev_count, 2);
    }
    c = row(&set, ID_C);
    CHECK(c != NULL);
    if (c) {
        CHECK_INT(c->state, PNA_CSTATE_CREATED);
        CHECK_INT(c->pid, 0);
        CHECK(c->has_limit);     /* the spec's limit, the cgroup does not exist */
        CHECK_U64(c->mem_limit_bytes, 536870912);
    }

    /* Directories to watch: the task dir, two namespaces, six bundles. */
    size_t nd = 0;
    char **dirs = pna_containerd_watch_dirs(&roots, "run/containerd", &nd);
    CHECK_INT(nd, 9);
    pna_containerd_free_dirs(dirs, nd);

    /* Bundles come and go; the survivors keep their indexes. */
    pna_container_set_assign_indexes(&set, NULL);
    struct pna_container_set prev;
    pna_container_set_init(&prev);
    scan(&prev, &st, &cg);
    pna_container_set_assign_indexes(&prev, NULL);
    uint32_t idx_a = row(&prev, ID_A)->index, idx_b = row(&prev, ID_B)->index;
    CHECK(idx_a != idx_b && idx_a > 0 && idx_b > 0);
    drop_bundle("default", ID_C);
    put_bundle("default", ID_D, ref, 0, 0);
    CHECK_INT(scan(&set, &st, &cg), 0);
    pna_container_set_assign_indexes(&set, &prev);
    CHECK_INT(set.count, 3);
    CHECK(row(&set, ID_C) == NULL);
    CHECK(row(&set, ID_D) != NULL);
    CHECK_INT(row(&set, ID_A)->index, idx_a);
    CHECK_INT(row(&set, ID_B)->index, idx_b);
    CHECK(row(&set, ID_D)->index != idx_a && row(&set, ID_D)->index != idx_b);
    /* The devices stayed with their containers through the sort. */
    c = row(&set, ID_A);
    CHECK_STR(set.devs[c->dev_first + 2].path, "/dev/dri/renderD128");

    /* Without a cgroup hierarchy the rows still come. */
    CHECK_INT(scan(&set, &st, NULL), 0);
    CHECK_INT(set.count, 3);
    CHECK(!row(&set, ID_A)->has_memory);

    pna_container_set_free(&prev);
    pna_container_set_free(&set);
    free(a);
    free(sb);
    free(ref);
    free(cspec);
}

static void test_merge_runtimes(void)
{
    struct pna_container_set s;
    pna_container_set_init(&s);
    struct pna_container *d = pna_container_set_add(&s);
    d->id = "abc";
    d->runtime = PNA_RUNTIME_DOCKER;
    d->name = "web";
    d->image = "nginx:1";
    d->state = PNA_CSTATE_RUNNING;
    struct pna_container *t = pna_container_set_add(&s);
    t->id = "abc";
    t->runtime = PNA_RUNTIME_CONTAINERD;
    t->name = "abc";
    t->rt_namespace = "moby";
    t->cgroup_path = "/docker/abc";
    t->pid = 77;
    t->has_oom = true;
    t->oom_kills = 2;
    struct pna_container_device dev = { .kind = PNA_DEV_RDMA, .path = "/dev/infiniband/uverbs0" };
    pna_container_set_add_device(&s, &dev);
    struct pna_container *o = pna_container_set_add(&s);
    o->id = "zzz";
    o->runtime = PNA_RUNTIME_CONTAINERD;
    pna_container_set_add_device(&s, &dev);
    pna_container_set_add_device(&s, &dev);      /* the same path again: once */
    struct pna_container_device dev2 = { .kind = PNA_DEV_RDMA, .path = "/dev/infiniband/uverbs1" };
    pna_container_set_add_device(&s, &dev2);
    CHECK_INT(pna_container_set_sort(&s), 0);
    CHECK_INT(pna_container_set_merge_runtimes(&s), 0);
    CHECK_INT(s.count, 2);
    CHECK_STR(s.rows[0].id, "abc");
    CHECK_INT(s.rows[0].runtime, PNA_RUNTIME_DOCKER);
    CHECK_STR(s.rows[0].name, "web");
    CHECK_STR(s.rows[0].rt_namespace, "moby");
    CHECK_INT(s.rows[0].pid, 77);
    CHECK_STR(s.rows[0].cgroup_path, "/docker/abc");
    CHECK(s.rows[0].has_oom && s.rows[0].oom_kills == 2);
    CHECK_INT(s.rows[0].dev_count, 1);
    CHECK_STR(s.devs[s.rows[0].dev_first].path, "/dev/infiniband/uverbs0");
    CHECK_INT(s.rows[1].dev_count, 2);
    CHECK_INT(s.dev_count, 3);
    pna_container_set_free(&s);
}

/* docker run --device /dev/dri/renderD129:/dev/dri/renderD128 --gpus '"device=0"':
 * Docker's inspect names the device by the container's path only (when its
 * host node cannot be read), the task's spec has the numbers.  The merged row
 * keeps the numbers, so the device is the host's renderD129, and still gets
 * the GPU request only Docker knows. */
static void test_merge_keeps_numbers(void)
{
    struct pna_container_set s;
    pna_container_set_init(&s);
    struct pna_container *d = pna_container_set_add(&s);
    d->id = "abc";
    d->runtime = PNA_RUNTIME_DOCKER;
    struct pna_container_device by_path = { .path = "/dev/dri/renderD128", .type = 'c' };
    pna_devmap_classify(&by_path);
    CHECK_INT(by_path.unit, 128);
    pna_container_set_add_device(&s, &by_path);
    struct pna_container_device gpu = { .path = "/dev/nvidia0", .type = 'c' };
    pna_devmap_classify(&gpu);
    pna_container_set_add_device(&s, &gpu);
    struct pna_container *t = pna_container_set_add(&s);
    t->id = "abc";
    t->runtime = PNA_RUNTIME_CONTAINERD;
    struct pna_container_device numbered = { .path = "/dev/dri/renderD128", .type = 'c',
                                              .has_numbers = true, .major = 226, .minor = 129 };
    pna_devmap_classify(&numbered);
    CHECK_INT(numbered.family, PNA_DEVF_DRM_RENDER);
    CHECK_INT(numbered.unit, 129);
    pna_container_set_add_device(&s, &numbered);
    CHECK_INT(pna_container_set_sort(&s), 0);
    CHECK_INT(pna_container_set_merge_runtimes(&s), 0);
    CHECK_INT(s.count, 1);
    CHECK_INT(s.rows[0].dev_count, 2);
    const struct pna_container_device *a = &s.devs[s.rows[0].dev_first];
    CHECK_STR(a[0].path, "/dev/dri/renderD128");
    CHECK(a[0].has_numbers && a[0].major == 226 && a[0].minor == 129);
    CHECK_INT(a[0].unit, 129);
    CHECK_STR(a[1].path, "/dev/nvidia0");
    pna_container_set_free(&s);
}

/* Indexes: unique, positive, and kept by survivors across a big turnover. */
static void test_indexes(void)
{
    struct pna_container_set a, b;
    pna_container_set_init(&a);
    pna_container_set_init(&b);
    for (int i = 0; i < 5000; i++) {
        struct pna_container *c = pna_container_set_add(&a);
        char id[PNA_CTR_ID_CAP];
        snprintf(id, sizeof id, "%064x", i * 2654435761u);
        pna_container_set_text(&a, &c->id, id, sizeof id);
        c->runtime = PNA_RUNTIME_CONTAINERD;
    }
    pna_container_set_sort(&a);
    pna_container_set_assign_indexes(&a, NULL);
    int dups = 0;
    uint32_t *seen = calloc(5000, sizeof *seen);
    for (size_t i = 0; i < a.count; i++) {
        CHECK(a.rows[i].index >= 1 && a.rows[i].index <= 0x7fffffffu);
        seen[i] = a.rows[i].index;
    }
    for (size_t i = 0; i < a.count; i++)
        for (size_t j = i + 1; j < a.count; j++)
            dups += seen[i] == seen[j];
    CHECK_INT(dups, 0);
    /* Same ids, fresh start: the same indexes (hash-derived, not order-derived). */
    for (size_t i = 0; i < a.count; i += 2) {
        struct pna_container *c = pna_container_set_add(&b);
        *c = a.rows[i];
        c->index = 0;
    }
    for (int i = 0; i < 2500; i++) {
        struct pna_container *c = pna_container_set_add(&b);
        char id[PNA_CTR_ID_CAP];
        snprintf(id, sizeof id, "new-%d", i);
        pna_container_set_text(&b, &c->id, id, sizeof id);
        c->runtime = PNA_RUNTIME_DOCKER;
    }
    pna_container_set_sort(&b);
    pna_container_set_assign_indexes(&b, &a);
    int kept = 0;
    for (size_t i = 0; i < b.count; i++) {
        const struct pna_container *p = pna_container_set_find(&a, b.rows[i].id);
        if (p)
            kept += p->index == b.rows[i].index;
    }
    CHECK_INT(kept, 2500);
    free(seen);
    pna_container_set_free(&a);
    pna_container_set_free(&b);
}

/* Thousands of containers, hundreds replaced per poll: the heap does not grow. */
static void test_churn(void)
{
    char base[600];
    snprintf(base, sizeof base, "%s/churn", tmp);
    snprintf(rootfs, sizeof rootfs, "%s/rootfs", base);
    char *spec = spec_for("container", "worker", "batch-0", "/kubepods/x", "/dev/infiniband/uverbs1");
    enum { N = 2000, STEP = 400, CYCLES = 15 };
    int next_id = 0;
    for (; next_id < N; next_id++) {
        char id[32];
        snprintf(id, sizeof id, "ctr%06d", next_id);
        put_bundle("k8s.io", id, spec, 0, 0);
    }
    struct pna_container_set prev, cur;
    pna_container_set_init(&prev);
    pna_container_set_init(&cur);
    struct pna_containerd_stats st;
    size_t heap_early = 0, heap_late = 0;
    int64_t t0 = tt_mono_ms();
    for (int cyc = 0; cyc < CYCLES; cyc++) {
        /* Oldest STEP go, STEP new ones come. */
        for (int k = 0; k < STEP; k++) {
            char id[32];
            snprintf(id, sizeof id, "ctr%06d", next_id - N + k);
            drop_bundle("k8s.io", id);
            snprintf(id, sizeof id, "ctr%06d", next_id + k);
            put_bundle("k8s.io", id, spec, 0, 0);
        }
        next_id += STEP;
        pna_container_set_free(&cur);
        pna_container_set_init(&cur);
        CHECK_INT(scan(&cur, &st, NULL), 0);
        pna_container_set_assign_indexes(&cur, &prev);
        CHECK_INT(cur.count, N);
        /* Survivors (every row but the STEP newest) kept their index. */
        size_t kept = 0;
        for (size_t i = 0; i < cur.count; i++) {
            const struct pna_container *p = pna_container_set_find(&prev, cur.rows[i].id);
            kept += p && p->index == cur.rows[i].index;
        }
        if (cyc > 0)
            CHECK_INT(kept, N - STEP);
        struct pna_container_set t = prev;
        prev = cur;
        cur = t;
        struct mallinfo2 mi = mallinfo2();
        if (cyc == 4)
            heap_early = mi.uordblks;
        if (cyc == CYCLES - 1)
            heap_late = mi.uordblks;
    }
    int64_t took = tt_mono_ms() - t0;
    printf("churn: %d scans of %d bundles in %lld ms; heap in use %zu -> %zu bytes\n", CYCLES, N,
           (long long)took, heap_early, heap_late);
    CHECK(heap_late <= heap_early + 256 * 1024);
    pna_container_set_free(&prev);
    pna_container_set_free(&cur);
    free(spec);
    tt_rmrf(base);
}

/* A running task whose cgroup is frozen is paused(3); thawed, running again;
 * a task with no process stays exited whatever the freezer says.  v2 and v1. */
static void test_paused(void)
{
    char base[700];
    snprintf(base, sizeof base, "%s/paused", tmp);
    const char *spec = "{\"ociVersion\":\"1.1.0\",\"linux\":{\"cgroupsPath\":\"/default/p1\"}}";
    tt_write(base, TASKS "/default/p1/config.json", spec);
    tt_write(base, TASKS "/default/p1/init.pid", "2001");
    tt_write(base, TASKS "/default/p2/config.json",
             "{\"ociVersion\":\"1.1.0\",\"linux\":{\"cgroupsPath\":\"/default/p2\"}}");
    tt_write(base, TASKS "/default/p2/init.pid", "2002");     /* no /proc/2002: exited */
    tt_write(base, "proc/2001/cgroup", "0::/default/p1\n");
    tt_write(base, "sys/fs/cgroup/cgroup.controllers", "memory\n");
    tt_write(base, "sys/fs/cgroup/default/p1/memory.current", "8192\n");
    tt_write(base, "sys/fs/cgroup/default/p1/cgroup.events", "populated 1\nfrozen 1\n");
    tt_write(base, "sys/fs/cgroup/default/p2/cgroup.events", "populated 0\nfrozen 1\n");
    char sys[800], proc[800];
    snprintf(sys, sizeof sys, "%s/sys", base);
    snprintf(proc, sizeof proc, "%s/proc", base);
    struct pna_roots roots = { sys, proc, sys, base };
    struct pna_cgroup_env cg;
    char err[160];
    CHECK_INT(pna_cgroup_detect(&roots, "fs/cgroup", &cg, err, sizeof err), 0);
    struct pna_container_set set;
    pna_container_set_init(&set);
    struct pna_containerd_stats st;
    CHECK_INT(pna_containerd_scan(&roots, "run/containerd", &cg, NULL, &set, &st, err, sizeof err), 0);
    pna_container_set_sort(&set);
    CHECK_INT(set.count, 2);
    CHECK_INT(row(&set, "p1")->state, PNA_CSTATE_PAUSED);
    CHECK(row(&set, "p1")->has_memory);   /* the figures still come */
    CHECK_INT(row(&set, "p2")->state, PNA_CSTATE_EXITED);
    tt_write(base, "sys/fs/cgroup/default/p1/cgroup.events", "populated 1\nfrozen 0\n");
    pna_container_set_clear(&set);
    CHECK_INT(pna_containerd_scan(&roots, "run/containerd", &cg, NULL, &set, &st, err, sizeof err), 0);
    pna_container_set_sort(&set);
    CHECK_INT(row(&set, "p1")->state, PNA_CSTATE_RUNNING);

    /* v1 (this kind of host): the freezer hierarchy beside the memory one. */
    snprintf(sys, sizeof sys, "%s/sys1", base);
    tt_write(sys, "fs/cgroup/memory/default/p1/memory.usage_in_bytes", "8192\n");
    tt_write(sys, "fs/cgroup/freezer/default/p1/freezer.state", "FROZEN\n");
    tt_write(base, "proc/2001/cgroup",
             "12:freezer:/default/p1\n7:memory:/default/p1\n0::/default/p1\n");
    CHECK_INT(pna_cgroup_detect(&roots, "fs/cgroup", &cg, err, sizeof err), 0);
    CHECK_INT(cg.mode, PNA_CG_V1);
    pna_container_set_clear(&set);
    CHECK_INT(pna_containerd_scan(&roots, "run/containerd", &cg, NULL, &set, &st, err, sizeof err), 0);
    pna_container_set_sort(&set);
    CHECK_INT(row(&set, "p1")->state, PNA_CSTATE_PAUSED);
    tt_write(sys, "fs/cgroup/freezer/default/p1/freezer.state", "THAWED\n");
    pna_container_set_clear(&set);
    CHECK_INT(pna_containerd_scan(&roots, "run/containerd", &cg, NULL, &set, &st, err, sizeof err), 0);
    pna_container_set_sort(&set);
    CHECK_INT(row(&set, "p1")->state, PNA_CSTATE_RUNNING);
    pna_container_set_free(&set);
}

int main(void)
{
    if (!mkdtemp(tmp))
        return 99;
    snprintf(rootfs, sizeof rootfs, "%s/rootfs", tmp);
    snprintf(procfs, sizeof procfs, "%s/proc", tmp);
    snprintf(sysfs, sizeof sysfs, "%s/sys", tmp);
    tt_mkdirs(rootfs);
    tt_mkdirs(procfs);
    test_scan();
    test_merge_runtimes();
    test_merge_keeps_numbers();
    test_indexes();
    test_churn();
    test_paused();
    tt_rmrf(tmp);
    UNIT_END();
}
