/* test_bundle_cache.c -- the incremental containers scan (bundle_cache.h)
 * gives what a full rescan gives.
 *
 * A generated tree (bundles of several shapes, processes, cgroup v2 files)
 * goes through rounds of random changes: tasks created, removed and renamed,
 * specs rewritten (names, limits, devices, malformed), processes started and
 * gone, memory limits and usage changed, OOM kills, freezes.  After each
 * round a scan through one long-lived cache and a scan without any must give
 * the same records, devices and counts, field by field.  The tree is built
 * here from the OCI runtime and cgroup v2 formats; it is not a capture.
 *
 * The cache trusts an unchanged file identity only for files modified more
 * than PNA_FILE_RACY_MS ago, so the test dates every file it writes a
 * little further in the past each round (as files on a node age); the racy
 * case itself, and the caller's "quiet" promise, have tests of their own.
 *
 * The cache keeps the cgroup files of some of the containers open between
 * scans (a limit that changes from round to round, below and above their
 * number).  A cgroup directory is dated when it is made, and its files are
 * rewritten in place after, as the kernel's are: a kept descriptor must read
 * the new figures. */
#include "pna_autoconf.h"
#include "sources/containers/bundle_cache.h"
#include "sources/containers/cgroup.h"
#include "sources/containers/containerd.h"
#include "core/roots.h"
#include "containers_testutil.h"

#include <fcntl.h>

#define TASKS "run/containerd/io.containerd.runtime.v2.task"
#define SLOTS 48
#define ROUNDS 40

static char tmp[] = "/tmp/pna-bcache-XXXXXX";
static char rootfs[800], procfs[800], sysfs[800];
static time_t file_time;   /* what every file written is dated (see above) */

struct slot {
    bool live;
    char id[40];
    int shape;             /* which kind of spec, see spec_text() */
    int serial;            /* bumped at every rewrite: names and limits change */
    bool started;          /* init.pid written */
    bool running;          /* /proc/PID exists */
    uint64_t oom, usage, limit;
    bool frozen;
};
static struct slot slots[SLOTS];
static unsigned next_id;
static unsigned files_kept_seen;   /* tasks whose cgroup files a cached scan kept open */

static void date_file(const char *root, const char *rel)
{
    tt_date(root, rel, file_time);
}

static void write_dated(const char *root, const char *rel, const char *text)
{
    tt_write(root, rel, text);
    date_file(root, rel);
}

/* The spec of slot S: shapes 0-2 Kubernetes containers (2 with devices), 3 a
 * pod sandbox, 4 a plain containerd container, 5 malformed JSON, 6 a GPU
 * asked for by NVIDIA_VISIBLE_DEVICES and CDI (nothing on this node
 * resolves them: counted unresolved). */
static void spec_text(const struct slot *s, char *buf, size_t cap)
{
    const char *devices = s->shape == 2
        ? "\"devices\":[{\"path\":\"/dev/infiniband/uverbs0\",\"type\":\"c\",\"major\":231,"
          "\"minor\":192}],"
        : "\"devices\":[],";
    const char *allow = s->shape == 2
        ? "[{\"allow\":false,\"access\":\"rwm\"},{\"allow\":true,\"type\":\"c\",\"major\":231,"
          "\"minor\":193,\"access\":\"rw\"},{\"allow\":true,\"type\":\"c\",\"major\":1,"
          "\"minor\":3,\"access\":\"rwm\"}]"
        : "[{\"allow\":false,\"access\":\"rwm\"}]";
    switch (s->shape) {
    case 5:
        snprintf(buf, cap, "{\"ociVersion\": \"1.1.0\", \"linux\": {%d", s->serial);
        return;
    case 4:
        snprintf(buf, cap,
                 "{\"ociVersion\":\"1.1.0\",\"linux\":{\"cgroupsPath\":\"/default/%s\","
                 "\"resources\":{\"memory\":{\"limit\":%d}}}}",
                 s->id, 1048576 * (1 + s->serial));
        return;
    case 6:
        snprintf(buf, cap,
                 "{\"ociVersion\":\"1.1.0\",\"process\":{\"env\":[\"PATH=/bin\","
                 "\"NVIDIA_VISIBLE_DEVICES=0,GPU-%d\"]},\"annotations\":{"
                 "\"cdi.k8s.io/gpu\":\"nvidia.com/gpu=%d\","
                 "\"io.kubernetes.cri.container-name\":\"gpu-%d\"},"
                 "\"linux\":{\"cgroupsPath\":\"/default/%s\"}}",
                 s->serial, s->serial, s->serial, s->id);
        return;
    default:
        snprintf(buf, cap,
                 "{\"ociVersion\":\"1.1.0\",\"annotations\":{"
                 "\"io.kubernetes.cri.container-type\":\"%s\","
                 "\"io.kubernetes.cri.container-name\":\"c-%d\","
                 "\"io.kubernetes.cri.sandbox-name\":\"pod-%s\","
                 "\"io.kubernetes.cri.sandbox-namespace\":\"team-%d\","
                 "\"io.kubernetes.cri.sandbox-uid\":\"uid-%s\","
                 "\"io.kubernetes.cri.image-name\":\"img:%d\"},"
                 "\"linux\":{\"cgroupsPath\":\"kubepods.slice:cri-containerd:%s\",%s"
                 "\"resources\":{\"devices\":%s,\"memory\":{\"limit\":%d}}}}",
                 s->shape == 3 ? "sandbox" : "container", s->serial, s->id, s->serial % 3,
                 s->id, s->serial, s->id, devices, allow, 4096 * (1 + s->serial));
    }
}

static int pid_of(const struct slot *s)
{
    return 1000 + (int)(s - slots);
}

static void cgroup_rel(const struct slot *s, const char *file, char *buf, size_t cap)
{
    if (s->shape == 4 || s->shape == 6)
        snprintf(buf, cap, "fs/cgroup/default/%s/%s", s->id, file);
    else
        snprintf(buf, cap, "fs/cgroup/kubepods.slice/cri-containerd-%s.scope/%s", s->id, file);
}

static void write_cgroup(const struct slot *s)
{
    char rel[512], text[160];
    cgroup_rel(s, "", rel, sizeof rel);
    char dir[1400];
    snprintf(dir, sizeof dir, "%s/%s", sysfs, rel);
    struct stat st;
    bool made = stat(dir, &st) != 0;
    cgroup_rel(s, "memory.current", rel, sizeof rel);
    snprintf(text, sizeof text, "%llu\n", (unsigned long long)s->usage);
    tt_write(sysfs, rel, text);
    cgroup_rel(s, "memory.max", rel, sizeof rel);
    if (s->limit)
        snprintf(text, sizeof text, "%llu\n", (unsigned long long)s->limit);
    else
        snprintf(text, sizeof text, "max\n");
    tt_write(sysfs, rel, text);
    cgroup_rel(s, "memory.events", rel, sizeof rel);
    snprintf(text, sizeof text, "low 0\nhigh 0\nmax %llu\noom %llu\noom_kill %llu\n",
             (unsigned long long)s->oom, (unsigned long long)s->oom,
             (unsigned long long)s->oom);
    tt_write(sysfs, rel, text);
    cgroup_rel(s, "memory.stat", rel, sizeof rel);
    snprintf(text, sizeof text, "anon 4096\nfile 8192\ninactive_file %llu\nactive_file 0\n",
             (unsigned long long)(s->usage / 3));
    tt_write(sysfs, rel, text);
    cgroup_rel(s, "cgroup.events", rel, sizeof rel);
    snprintf(text, sizeof text, "populated 1\nfrozen %d\n", s->frozen);
    tt_write(sysfs, rel, text);
    if (made) {
        cgroup_rel(s, "", rel, sizeof rel);
        date_file(sysfs, rel);
    }
}

static void write_spec(struct slot *s)
{
    char rel[300], text[2048];
    snprintf(rel, sizeof rel, TASKS "/k8s.io/%s/config.json", s->id);
    spec_text(s, text, sizeof text);
    write_dated(rootfs, rel, text);
}

static void write_process(const struct slot *s)
{
    char rel[300], text[600];
    snprintf(rel, sizeof rel, "%d/cgroup", pid_of(s));
    char cg[512];
    cgroup_rel(s, "", cg, sizeof cg);
    cg[strlen(cg) - 1] = '\0';   /* the directory, without its trailing '/' */
    snprintf(text, sizeof text, "0::%s\n", cg + strlen("fs/cgroup"));
    tt_write(procfs, rel, text);
}

static void start_task(struct slot *s)
{
    char rel[300], text[32];
    snprintf(rel, sizeof rel, TASKS "/k8s.io/%s/init.pid", s->id);
    snprintf(text, sizeof text, "%d", pid_of(s));
    write_dated(rootfs, rel, text);
    s->started = s->running = true;
    write_process(s);
}

static void stop_process(struct slot *s)
{
    char p[1200];
    snprintf(p, sizeof p, "%s/%d", procfs, pid_of(s));
    tt_rmrf(p);
    s->running = false;
}

static void remove_bundle(struct slot *s)
{
    char p[1200];
    snprintf(p, sizeof p, "%s/" TASKS "/k8s.io/%s", rootfs, s->id);
    tt_rmrf(p);
    stop_process(s);
    s->live = false;
}

static void create(struct slot *s)
{
    memset(s, 0, sizeof *s);
    s->live = true;
    snprintf(s->id, sizeof s->id, "task%05u", next_id++);
    s->shape = rand() % 7;
    s->usage = 4096u * (unsigned)(1 + rand() % 1000);
    s->limit = rand() % 2 ? 0 : 1u << 30;
    write_cgroup(s);
    write_spec(s);
    if (rand() % 4)
        start_task(s);
}

/* Rename: the task goes and one with another id comes in its place. */
static void rename_task(struct slot *s)
{
    char from[1200], to[1200];
    snprintf(from, sizeof from, "%s/" TASKS "/k8s.io/%s", rootfs, s->id);
    snprintf(s->id, sizeof s->id, "task%05u", next_id++);
    snprintf(to, sizeof to, "%s/" TASKS "/k8s.io/%s", rootfs, s->id);
    CHECK_INT(rename(from, to), 0);
    write_cgroup(s);
    write_spec(s);   /* its cgroupsPath names the id */
    if (s->running)
        write_process(s);
}

static void change(struct slot *s)
{
    if (!s->live) {
        create(s);
        return;
    }
    switch (rand() % 10) {
    case 0: remove_bundle(s); break;
    case 1: rename_task(s); break;
    case 2: s->serial++; write_spec(s); break;
    case 3: if (!s->started) start_task(s); else stop_process(s); break;
    case 4: s->limit = s->limit ? 0 : 2u << 30; write_cgroup(s); break;
    case 5: s->oom++; write_cgroup(s); break;
    case 6: s->frozen = !s->frozen; write_cgroup(s); break;
    case 7: s->usage += 4096; write_cgroup(s); break;
    case 8: s->shape = (s->shape + 1) % 7; s->serial++; write_spec(s); break;
    default: { /* a bundle's spec removed for a moment (being deleted) */
        char p[1200];
        snprintf(p, sizeof p, "%s/" TASKS "/k8s.io/%s/config.json", rootfs, s->id);
        remove(p);
        s->shape = 5;   /* written back malformed next time it changes */
        break;
    }
    }
}

/* ---- comparing ------------------------------------------------------------ */

static void same_device(const struct pna_container_device *a, const struct pna_container_device *b)
{
    CHECK_INT(a->kind, b->kind);
    CHECK_INT(a->family, b->family);
    CHECK_INT(a->source, b->source);
    CHECK_INT(a->type, b->type);
    CHECK_INT(a->has_numbers, b->has_numbers);
    CHECK_INT(a->major, b->major);
    CHECK_INT(a->minor, b->minor);
    CHECK_INT(a->unit, b->unit);
    CHECK_STR(a->path, b->path);
    CHECK_INT(a->gpu_index, b->gpu_index);
    CHECK_STR(a->rdma_dev, b->rdma_dev);
}

static void same_row(const struct pna_container_set *sa, const struct pna_container *a,
                     const struct pna_container_set *sb, const struct pna_container *b)
{
    CHECK_STR(a->id, b->id);
    CHECK_INT(a->runtime, b->runtime);
    CHECK_INT(a->state, b->state);
    CHECK_INT(a->has_memory, b->has_memory);
    CHECK_INT(a->has_limit, b->has_limit);
    CHECK_INT(a->has_oom, b->has_oom);
    CHECK_INT(a->has_working_set, b->has_working_set);
    CHECK_INT(a->pid, b->pid);
    CHECK_STR(a->name, b->name);
    CHECK_STR(a->pod_name, b->pod_name);
    CHECK_STR(a->pod_namespace, b->pod_namespace);
    CHECK_STR(a->pod_uid, b->pod_uid);
    CHECK_STR(a->image, b->image);
    CHECK_STR(a->rt_namespace, b->rt_namespace);
    CHECK_STR(a->cgroup_path, b->cgroup_path);
    CHECK(a->start_ms == b->start_ms);
    CHECK_U64(a->mem_usage_bytes, b->mem_usage_bytes);
    CHECK_U64(a->mem_limit_bytes, b->mem_limit_bytes);
    CHECK_U64(a->mem_working_set_bytes, b->mem_working_set_bytes);
    CHECK_U64(a->oom_kills, b->oom_kills);
    CHECK_INT(a->dev_count, b->dev_count);
    for (uint32_t i = 0; i < a->dev_count && i < b->dev_count; i++)
        same_device(&sa->devs[a->dev_first + i], &sb->devs[b->dev_first + i]);
}

static const struct pna_cgroup_env *cgroup_env(void)
{
    static struct pna_cgroup_env cg;
    static bool done;
    if (!done) {
        struct pna_roots roots = { sysfs, procfs, sysfs, rootfs };
        char err[160];
        CHECK_INT(pna_cgroup_detect(&roots, "fs/cgroup", &cg, err, sizeof err), 0);
        done = true;
    }
    return &cg;
}

static int scan(struct pna_bundle_cache *cache, struct pna_container_set *set,
                struct pna_containerd_stats *st)
{
    struct pna_roots roots = { sysfs, procfs, sysfs, rootfs };
    char err[160];
    pna_container_set_clear(set);
    int rc = pna_containerd_scan_cached(&roots, "run/containerd", cgroup_env(), NULL, cache, set,
                                        st, err, sizeof err);
    if (rc == 0)
        CHECK_INT(pna_container_set_sort(set), 0);
    return rc;
}

/* A scan through CACHE and one without any agree. */
static void agree(struct pna_bundle_cache *cache, int round)
{
    struct pna_container_set full, inc;
    struct pna_containerd_stats fs, is;
    pna_container_set_init(&full);
    pna_container_set_init(&inc);
    CHECK_INT(scan(cache, &inc, &is), scan(NULL, &full, &fs));
    CHECK_INT(is.bundles, fs.bundles);
    CHECK_INT(is.added, fs.added);
    CHECK_INT(is.sandboxes, fs.sandboxes);
    CHECK_INT(is.bad_specs, fs.bad_specs);
    CHECK_INT(is.unresolved, fs.unresolved);
    CHECK_STR(is.last_error, fs.last_error);
    CHECK(is.files_kept <= pna_bundle_cache_files_limit(cache));
    CHECK_INT(fs.files_kept, 0);
    files_kept_seen += is.files_kept;
    CHECK_INT(inc.count, full.count);
    CHECK_U64(inc.devices_dropped, full.devices_dropped);
    for (size_t i = 0; i < inc.count && i < full.count; i++)
        same_row(&inc, &inc.rows[i], &full, &full.rows[i]);
    if (unit_failures)
        fprintf(stderr, "# differences after round %d\n", round);
    pna_container_set_free(&full);
    pna_container_set_free(&inc);
}

static void test_random_changes(void)
{
    struct pna_bundle_cache *cache = pna_bundle_cache_new();
    CHECK(cache != NULL);
    srand(20261125);
    file_time = time(NULL) - 3600;
    for (int i = 0; i < SLOTS; i++)
        if (rand() % 3)
            create(&slots[i]);
    agree(cache, 0);
    for (int round = 1; round <= ROUNDS && !unit_failures; round++) {
        file_time++;   /* later than last round's files: a rewrite is a new identity */
        pna_bundle_cache_keep_files(cache, round % 3 ? SLOTS : SLOTS / 4);
        for (int k = 0; k < 8; k++)
            change(&slots[rand() % SLOTS]);
        agree(cache, round);
        agree(cache, round);   /* and again, with nothing changed: all from the cache */
    }
    CHECK(files_kept_seen > 0);
    pna_bundle_cache_free(cache);
}

/* A spec rewritten within the racy window keeps its identity yet is read
 * again: the cache never trusted it. */
static void test_racy_rewrite(void)
{
    struct pna_bundle_cache *cache = pna_bundle_cache_new();
    struct slot *s = &slots[0];
    for (int i = 0; i < SLOTS; i++)
        if (slots[i].live)
            remove_bundle(&slots[i]);
    memset(s, 0, sizeof *s);
    s->live = true;
    snprintf(s->id, sizeof s->id, "racy");
    s->shape = 0;
    s->serial = 1;
    write_cgroup(s);
    char rel[300], text[2048];
    snprintf(rel, sizeof rel, TASKS "/k8s.io/%s/config.json", s->id);
    spec_text(s, text, sizeof text);
    tt_write(rootfs, rel, text);   /* dated now */
    char p[1200];
    snprintf(p, sizeof p, "%s/%s", rootfs, rel);
    struct stat before;
    CHECK_INT(stat(p, &before), 0);
    struct pna_container_set set;
    struct pna_containerd_stats st;
    pna_container_set_init(&set);
    CHECK_INT(scan(cache, &set, &st), 0);
    CHECK_STR(set.rows[0].name, "c-1");
    s->serial = 2;   /* same length: "c-2" */
    spec_text(s, text, sizeof text);
    tt_write(rootfs, rel, text);
    struct timespec ts[2] = { before.st_atim, before.st_mtim };
    utimensat(AT_FDCWD, p, ts, 0);   /* the same modification time, as within one tick */
    CHECK_INT(scan(cache, &set, &st), 0);
    CHECK_STR(set.rows[0].name, "c-2");
    pna_container_set_free(&set);
    pna_bundle_cache_free(cache);
}

/* "Quiet" is the caller's word that nothing changed: the cache then does not
 * look at the specs at all; without it, a change is seen. */
static void test_quiet(void)
{
    struct pna_bundle_cache *cache = pna_bundle_cache_new();
    struct slot *s = &slots[0];
    s->serial = 3;
    file_time++;
    write_spec(s);
    struct pna_container_set set;
    struct pna_containerd_stats st;
    pna_container_set_init(&set);
    CHECK_INT(scan(cache, &set, &st), 0);
    CHECK_STR(set.rows[0].name, "c-3");
    s->serial = 4;
    file_time++;
    write_spec(s);
    pna_bundle_cache_set_quiet(cache, true);
    CHECK_INT(scan(cache, &set, &st), 0);
    CHECK_STR(set.rows[0].name, "c-3");
    pna_bundle_cache_set_quiet(cache, false);
    CHECK_INT(scan(cache, &set, &st), 0);
    CHECK_STR(set.rows[0].name, "c-4");
    pna_container_set_free(&set);
    pna_bundle_cache_free(cache);
}

int main(void)
{
    if (!mkdtemp(tmp))
        return 99;
    snprintf(rootfs, sizeof rootfs, "%s/root", tmp);
    snprintf(procfs, sizeof procfs, "%s/proc", tmp);
    snprintf(sysfs, sizeof sysfs, "%s/sys", tmp);
    tt_write(sysfs, "fs/cgroup/cgroup.controllers", "cpu memory pids\n");
    tt_write(sysfs, "dev/char/231:193/uevent", "MAJOR=231\nMINOR=193\nDEVNAME=infiniband/uverbs1\n");
    tt_write(sysfs, "dev/char/1:3/uevent", "MAJOR=1\nMINOR=3\nDEVNAME=null\n");
    test_random_changes();
    test_racy_rewrite();
    test_quiet();
    tt_rmrf(tmp);
    UNIT_END();
}
