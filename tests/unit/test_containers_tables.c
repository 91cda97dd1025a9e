/* test_containers_tables.c -- the containers, kubelet and storage pollers run
 * on fixture trees and a stub kubelet, their snapshots served by the MIB
 * tables (primusContainerTable, primusContainerDeviceTable,
 * primusPodStorageTable, the container, storage and Kubernetes scalars), and
 * an OOM kill turned into one primusContainerOomKill event. */
#include "pna_autoconf.h"
#include "core/config.h"
#include "pollers/pollers.h"
#include "core/events.h"
#include "model/containers.h"
#include "model/gpu/gpu.h"
#include "model/storage.h"
#include "snmp/table.h"
#include "model/metric_tables.h"
#include "model/oids.h"
#include "containers_testutil.h"
#include "httpstub.h"
#include "snmp_testutil.h"

#include <pthread.h>

static char tmp[] = "/tmp/pna-ctables-XXXXXX";
static char rootfs[700], sysfs[700], procfs[700], devfs[700];

#define TASKS "run/containerd/io.containerd.runtime.v2.task"
#define ID_GPU "0f9e8d7c6b5a49382716f5e4d3c2b1a00f9e8d7c6b5a49382716f5e4d3c2b1a0"
#define ID_PLAIN "plain-1"

static const char *GPU_SPEC =
    "{\"ociVersion\":\"1.0.2\",\"process\":{\"env\":[\"SECRET=TOPSECRET\"],\"args\":[\"train\"]},"
    "\"annotations\":{\"io.kubernetes.cri.container-type\":\"container\","
    "\"io.kubernetes.cri.container-name\":\"trainer\",\"io.kubernetes.cri.sandbox-name\":\"llm-0\","
    "\"io.kubernetes.cri.sandbox-namespace\":\"ml\",\"io.kubernetes.cri.sandbox-uid\":\"uid-llm-0\","
    "\"io.kubernetes.cri.image-name\":\"registry.local/train:2\",\"other\":\"TOPSECRET\"},"
    "\"linux\":{\"cgroupsPath\":\"/k8s.io/gpu\",\"devices\":["
    "{\"path\":\"/dev/dri/card0\",\"type\":\"c\",\"major\":226,\"minor\":0},"
    "{\"path\":\"/dev/dri/renderD128\",\"type\":\"c\",\"major\":226,\"minor\":128},"
    "{\"path\":\"/dev/kfd\",\"type\":\"c\",\"major\":235,\"minor\":0},"
    "{\"path\":\"/dev/infiniband/uverbs0\",\"type\":\"c\",\"major\":231,\"minor\":192}]}}";
static const char *PLAIN_SPEC = "{\"ociVersion\":\"1.0.2\",\"linux\":{\"cgroupsPath\":\"/default/plain-1\"}}";

static void build_tree(void)
{
    tt_write(rootfs, TASKS "/k8s.io/" ID_GPU "/config.json", GPU_SPEC);
    tt_write(rootfs, TASKS "/k8s.io/" ID_GPU "/init.pid", "4242");
    tt_write(rootfs, TASKS "/default/" ID_PLAIN "/config.json", PLAIN_SPEC);
    tt_write(procfs, "4242/cgroup", "0::/k8s.io/gpu\n");
    tt_write(sysfs, "fs/cgroup/cgroup.controllers", "memory\n");
    tt_write(sysfs, "fs/cgroup/k8s.io/gpu/memory.current", "1048576\n");
    tt_write(sysfs, "fs/cgroup/k8s.io/gpu/memory.max", "4294967296\n");
    size_t len;
    char *ev = tt_fixture("cgroup/telegraf-v2/memory.events", &len);
    tt_write_bytes(sysfs, "fs/cgroup/k8s.io/gpu/memory.events", ev, len);
    free(ev);
    /* The GPU at 0000:c1:00.0 behind card0/renderD128, and mlx5_0's uverbs0. */
    tt_write(sysfs, "class/drm/card0/device/uevent", "DRIVER=amdgpu\nPCI_SLOT_NAME=0000:c1:00.0\n");
    tt_write(sysfs, "class/drm/renderD128/device/uevent", "DRIVER=amdgpu\nPCI_SLOT_NAME=0000:c1:00.0\n");
    tt_write(sysfs, "class/infiniband_verbs/uverbs0/ibdev", "mlx5_0\n");
    tt_write(devfs, "dri/renderD128", "");
    tt_write(devfs, "dri/renderD129", "");
    char kubelet_root[800];
    snprintf(kubelet_root, sizeof kubelet_root, "%s/var/lib/kubelet", rootfs);
    tt_mkdirs(kubelet_root);
}

/* OID of <entry>.COL.<index strings...> */
static size_t cell_oid(oid *o, const oid *entry, size_t elen, unsigned col, const char *s1,
                       const char *s2)
{
    memcpy(o, entry, elen * sizeof *o);
    o[elen] = col;
    size_t n = elen + 1;
    if (s1)
        n += pna_index_put_string(o + n, 100, s1);
    if (s2)
        n += pna_index_put_string(o + n, 100, s2);
    return n;
}

static const oid container_entry[] = { PNA_OID_CONTAINERS, 10, 1 }  /* primusContainerEntry */;
static const oid device_entry[] = { PNA_OID_CONTAINERS, 20, 1 }  /* primusContainerDeviceEntry */;
static const oid pod_entry[] = { PNA_OID_STORAGE, 10, 1 }  /* primusPodStorageEntry */;

/* GET one cell: 0 and OUT filled, or -1 (absent). Strings are copied to STR. */
static int get(const struct pna_metric_table *def, const oid *entry, size_t elen, unsigned col,
               const char *s1, const char *s2, struct pna_cell *out, char *str, size_t cap)
{
    oid o[MAX_OID_LEN];
    size_t n = cell_oid(o, entry, elen, col, s1, s2);
    struct pna_view held;
    int rc = pna_table_get(def, o, n, out, &held);
    if (rc == 0 && str && out->type == ASN_OCTET_STR)
        snprintf(str, cap, "%.*s", (int)out->len, out->str);
    pna_view_release(&held);
    return rc;
}

static int64_t get_int(const struct pna_metric_table *def, const oid *entry, size_t elen,
                       unsigned col, const char *s1, const char *s2)
{
    struct pna_cell c;
    if (get(def, entry, elen, col, s1, s2, &c, NULL, 0) != 0)
        return -999;
    return c.type == ASN_INTEGER ? c.i : (int64_t)c.u;
}

static const char *get_str(const struct pna_metric_table *def, const oid *entry, size_t elen,
                           unsigned col, const char *s1, const char *s2)
{
    static char buf[512];
    struct pna_cell c;
    if (get(def, entry, elen, col, s1, s2, &c, buf, sizeof buf) != 0)
        return "(absent)";
    return buf;
}

static int scalar(const struct pna_metric_table *def, unsigned subid, struct pna_cell *out)
{
    return scalar_cell(def, subid, out);
}

/* Count the rows of a table by walking column MIN_COL with GETNEXT. */
static size_t walk_rows(const struct pna_metric_table *def, const oid *entry, size_t elen)
{
    oid cur[MAX_OID_LEN], next[MAX_OID_LEN];
    unsigned first = mib_first_column(def);
    size_t cur_len = cell_oid(cur, entry, elen, first, NULL, NULL), n = 0, next_len;
    for (;;) {
        struct pna_cell c;
        struct pna_view held;
        int rc = pna_table_getnext(def, cur, cur_len, next, &next_len, &c, &held);
        pna_view_release(&held);
        if (rc != 0 || next_len <= elen || next[elen] != first ||
            memcmp(next, entry, elen * sizeof(oid)) != 0)
            break;
        n++;
        memcpy(cur, next, next_len * sizeof(oid));
        cur_len = next_len;
    }
    return n;
}

struct sink {
    int n;
    struct pna_event last;
};

static void on_event(const struct pna_event *ev, void *arg)
{
    struct sink *s = arg;
    if (ev->type == PNA_EV_CONTAINER_OOM) {
        s->n++;
        s->last = *ev;
    }
}

static int run_collect(const struct pna_poller_ops *ops, void *state)
{
    char err[160] = "";
    struct pna_snap *out = NULL;
    int rc = pna_poller_collect(ops, state, &out, err, sizeof err);
    if (rc == 0)
        pna_cache_publish(ops->domain, out);
    else
        fprintf(stderr, "%s collect: %s\n", ops->name, err);
    return rc;
}

static void test_containers(struct pna_config *cfg)
{
    const struct pna_poller_ops *ops = &pna_containers_poller;
    CHECK_STR(ops->name, "containers");
    CHECK_INT(ops->index, 5);
    CHECK_INT(ops->domain, PNA_DOM_CONTAINERS);
    CHECK_INT(ops->default_interval_ms, 10000);
    void *state = NULL;
    char err[160];
    CHECK_INT(ops->init(&state, cfg, pna_config_settings(cfg, ops), err, sizeof err), 0);
    CHECK_INT(run_collect(ops, state), 0);

    const struct pna_metric_table *t = &pna_container_metrics;
    size_t el = OID_LENGTH(container_entry);
    CHECK_INT(walk_rows(t, container_entry, el), 2);
    CHECK_STR(get_str(t, container_entry, el, mib_column("primusContainerName"), ID_GPU, NULL), "trainer");
    CHECK_STR(get_str(t, container_entry, el, mib_column("primusContainerPodName"), ID_GPU, NULL), "llm-0");
    CHECK_STR(get_str(t, container_entry, el, mib_column("primusContainerPodNamespace"), ID_GPU, NULL), "ml");
    CHECK_STR(get_str(t, container_entry, el, mib_column("primusContainerPodUid"), ID_GPU, NULL), "uid-llm-0");
    CHECK_STR(get_str(t, container_entry, el, mib_column("primusContainerImage"), ID_GPU, NULL), "registry.local/train:2");
    CHECK_STR(get_str(t, container_entry, el, mib_column("primusContainerRuntimeNs"), ID_GPU, NULL), "k8s.io");
    CHECK_STR(get_str(t, container_entry, el, mib_column("primusContainerCgroupPath"), ID_GPU, NULL), "/k8s.io/gpu");
    CHECK_INT(get_int(t, container_entry, el, mib_column("primusContainerRuntime"), ID_GPU, NULL), PNA_CONTAINER_RUNTIME_CONTAINERD);
    CHECK_INT(get_int(t, container_entry, el, mib_column("primusContainerState"), ID_GPU, NULL), PNA_CONTAINER_STATE_RUNNING);
    CHECK_INT(get_int(t, container_entry, el, mib_column("primusContainerMemUsage"), ID_GPU, NULL), 1048576);
    CHECK_INT(get_int(t, container_entry, el, mib_column("primusContainerMemLimit"), ID_GPU, NULL), 4294967296LL);
    CHECK_INT(get_int(t, container_entry, el, mib_column("primusContainerOomKills"), ID_GPU, NULL), 0);
    CHECK_INT(get_int(t, container_entry, el, mib_column("primusContainerGpuCount"), ID_GPU, NULL), 1);
    CHECK_INT(get_int(t, container_entry, el, mib_column("primusContainerRdmaCount"), ID_GPU, NULL), 1);
    /* The plain container never started: created, no figures from a cgroup. */
    CHECK_INT(get_int(t, container_entry, el, mib_column("primusContainerState"), ID_PLAIN, NULL), PNA_CONTAINER_STATE_CREATED);
    CHECK_INT(get_int(t, container_entry, el, mib_column("primusContainerMemUsage"), ID_PLAIN, NULL), -999);
    CHECK_INT(get_int(t, container_entry, el, mib_column("primusContainerStartTime"), ID_PLAIN, NULL), 0);
    CHECK_STR(get_str(t, container_entry, el, mib_column("primusContainerName"), ID_PLAIN, NULL), ID_PLAIN);

    const struct pna_metric_table *d = &pna_container_device_metrics;
    size_t dl = OID_LENGTH(device_entry);
    CHECK_INT(walk_rows(d, device_entry, dl), 4);
    uint32_t gpu = pna_gpu_pci_key(0, 0xc1, 0, 0);
    CHECK_INT(get_int(d, device_entry, dl, mib_column("primusContainerDeviceKind"), ID_GPU, "/dev/dri/renderD128"), PNA_CONTAINER_DEVICE_KIND_GPU);
    CHECK_INT(get_int(d, device_entry, dl, mib_column("primusContainerDeviceGpu"), ID_GPU, "/dev/dri/renderD128"), gpu);
    CHECK_INT(get_int(d, device_entry, dl, mib_column("primusContainerDeviceGpu"), ID_GPU, "/dev/dri/card0"), gpu);
    CHECK_INT(get_int(d, device_entry, dl, mib_column("primusContainerDeviceGpu"), ID_GPU, "/dev/kfd"), 0);
    CHECK_INT(get_int(d, device_entry, dl, mib_column("primusContainerDeviceMajor"), ID_GPU, "/dev/dri/renderD128"), 226);
    CHECK_INT(get_int(d, device_entry, dl, mib_column("primusContainerDeviceMinor"), ID_GPU, "/dev/dri/renderD128"), 128);
    CHECK_INT(get_int(d, device_entry, dl, mib_column("primusContainerDeviceKind"), ID_GPU, "/dev/infiniband/uverbs0"), PNA_CONTAINER_DEVICE_KIND_RDMA);
    CHECK_STR(get_str(d, device_entry, dl, mib_column("primusContainerDeviceRdma"), ID_GPU, "/dev/infiniband/uverbs0"), "mlx5_0");
    CHECK_STR(get_str(d, device_entry, dl, mib_column("primusContainerDeviceRdma"), ID_GPU, "/dev/dri/card0"), "");

    /* The GPU table's holder join. */
    struct pna_snap *held = pna_cache_acquire(PNA_DOM_CONTAINERS);
    const struct pna_containers_snap *cs = (const struct pna_containers_snap *)held;
    const struct pna_container *holder = pna_container_holding_gpu(&cs->set, gpu, NULL);
    CHECK(holder && !strcmp(holder->id, ID_GPU));
    uint32_t holders = 99;
    CHECK(pna_container_holding_gpu(&cs->set, gpu, &holders) == holder);
    CHECK_INT(holders, 1);
    CHECK(pna_container_holding_gpu(&cs->set, gpu + 1, &holders) == NULL);
    CHECK_INT(holders, 0);
    /* Nothing secret anywhere in the snapshot. */
    CHECK(!tt_contains(cs->set.rows, cs->set.count * sizeof *cs->set.rows, "TOPSECRET"));
    pna_snap_release(held);

    struct pna_cell c;
    CHECK_INT(scalar(&pna_container_scalar_metrics, mib_column("primusContainerCount"), &c), 0);
    CHECK_U64(c.u, 2);

    /* An OOM kill: one event, within a second, with the container's identity. */
    struct sink sk = { 0 };
    pna_events_drain(on_event, &sk);
    tt_write(sysfs, "fs/cgroup/k8s.io/gpu/memory.events",
             "low 0\nhigh 0\nmax 4\noom 1\noom_kill 1\noom_group_kill 0\n");
    int64_t t0 = tt_mono_ms();
    while (sk.n == 0 && tt_mono_ms() - t0 < 2000) {
        tt_sleep_ms(10);
        pna_events_drain(on_event, &sk);
    }
    printf("OOM event after %lld ms\n", (long long)(tt_mono_ms() - t0));
    CHECK_INT(sk.n, 1);
    CHECK(tt_mono_ms() - t0 < 1000);
    CHECK_STR(sk.last.u.oom.container_id, ID_GPU);
    CHECK_STR(sk.last.u.oom.container_name, "trainer");
    CHECK_STR(sk.last.u.oom.pod, "llm-0");
    CHECK_STR(sk.last.u.oom.namespace_, "ml");
    CHECK_U64(sk.last.u.oom.kill_count, 1);
    CHECK(strstr(sk.last.text, "OOM") != NULL);
    /* The next poll reads the same count: no second event; the columns follow. */
    CHECK_INT(run_collect(ops, state), 0);
    tt_sleep_ms(100);
    pna_events_drain(on_event, &sk);
    CHECK_INT(sk.n, 1);
    CHECK_INT(get_int(t, container_entry, el, mib_column("primusContainerOomKills"), ID_GPU, NULL), 1);
    CHECK_INT(scalar(&pna_container_scalar_metrics, mib_column("primusContainerOomKillsTotal"), &c), 0);
    CHECK_U64(c.u, 1);

    /* Bundles come and go. */
    tt_write(rootfs, TASKS "/default/late/config.json", PLAIN_SPEC);
    CHECK_INT(run_collect(ops, state), 0);
    CHECK_INT(walk_rows(t, container_entry, el), 3);
    char p[1200];
    snprintf(p, sizeof p, "%s/" TASKS "/default/late", rootfs);
    tt_rmrf(p);
    snprintf(p, sizeof p, "%s/" TASKS "/default/" ID_PLAIN, rootfs);
    tt_rmrf(p);
    CHECK_INT(run_collect(ops, state), 0);
    CHECK_INT(walk_rows(t, container_entry, el), 1);
    CHECK_STR(get_str(t, container_entry, el, mib_column("primusContainerName"), ID_GPU, NULL), "trainer");
    ops->fini(state);
}

static void test_kubelet_and_storage(struct pna_config *cfg)
{
    struct pna_kubelet_settings *kubelet_set = pna_config_settings(cfg, &pna_kubelet_poller);
    struct pna_storage_settings *storage_set = pna_config_settings(cfg, &pna_storage_poller);
    /* Without kubeletUrl the poller is off. */
    void *state = NULL;
    char err[160];
    CHECK_INT(pna_kubelet_poller.init(&state, cfg, kubelet_set, err, sizeof err),
              PNA_POLLER_DISABLED);

    int port = 0;
    struct httpstub *s = httpstub_start_tcp(&port);
    char path[700], url[64];
    tt_fixture_path(path, sizeof path, "kubelet/nri-kubernetes-k8s-1.35/pods.json");
    httpstub_route_file(s, "/pods", 200, path);
    tt_fixture_path(path, sizeof path, "kubelet/nri-kubernetes-k8s-1.35/stats-summary.json");
    httpstub_route_file(s, "/stats/summary", 200, path);
    snprintf(url, sizeof url, "http://127.0.0.1:%d", port);
    kubelet_set->url = url;
    kubelet_set->token_file = "/nonexistent";
    CHECK_INT(pna_kubelet_poller.init(&state, cfg, kubelet_set, err, sizeof err), 0);
    CHECK_INT(run_collect(&pna_kubelet_poller, state), 0);

    struct pna_cell c;
    CHECK_INT(scalar(&pna_k8s_metrics, mib_column("primusK8sNodeName"), &c), 0);
    CHECK(c.len == 12 && !memcmp(c.str, "datagen-1-35", 12));
    CHECK_INT(scalar(&pna_k8s_metrics, mib_column("primusK8sGpuAllocatable"), &c), 0);
    CHECK_U64(c.u, 2);                        /* renderD128, renderD129 in the devfs tree */
    CHECK_INT(scalar(&pna_k8s_metrics, mib_column("primusK8sGpuAllocated"), &c), 0);
    CHECK_U64(c.u, 0);
    CHECK_INT(scalar(&pna_k8s_metrics, mib_column("primusK8sGpuAllocRate"), &c), 0);
    CHECK_U64(c.u, 0);
    CHECK_INT(scalar(&pna_k8s_metrics, mib_column("primusK8sPodCount"), &c), 0);
    CHECK_U64(c.u, 18);                       /* Running pods of the PodList */

    const struct pna_metric_table *t = &pna_pod_metrics;
    size_t pl = OID_LENGTH(pod_entry);
    const char *uid = "559f50c7-6133-4901-a283-262ff4358722";
    CHECK_INT(walk_rows(t, pod_entry, pl), 24);
    CHECK_STR(get_str(t, pod_entry, pl, mib_column("primusPodName"), uid, NULL), "e2e-scraper-5f97dc94d8-vkcjl");
    CHECK_STR(get_str(t, pod_entry, pl, mib_column("primusPodNamespace"), uid, NULL), "scraper");
    CHECK_INT(get_int(t, pod_entry, pl, mib_column("primusPodStorageUsed"), uid, NULL), 13295616);
    CHECK_INT(get_int(t, pod_entry, pl, mib_column("primusPodStorageInodesUsed"), uid, NULL), 157);
    CHECK_INT(get_int(t, pod_entry, pl, mib_column("primusPodStorageLimit"), uid, NULL), 0);
    /* A failed Job pod: in the list, no storage figures. */
    CHECK_INT(get_int(t, pod_entry, pl, mib_column("primusPodStorageUsed"), "0961a396-5fff-45fe-a970-19b2aac96e5d", NULL), -999);

    /* A stalled kubelet: the collect fails by its deadline, the last good
     * snapshot stays in the cache. */
    httpstub_mode(s, "/pods", STUB_STALL);
    int64_t t0 = tt_mono_ms();
    CHECK_INT(run_collect(&pna_kubelet_poller, state), -1);
    CHECK(tt_mono_ms() - t0 < (int64_t)pna_kubelet_poller.default_timeout_ms);
    CHECK_INT(walk_rows(t, pod_entry, pl), 24);
    pna_kubelet_poller.fini(state);
    httpstub_stop(s);

    /* Node storage: the kubelet's figures while it has a snapshot... */
    CHECK_INT(pna_storage_poller.init(&state, cfg, storage_set, err, sizeof err), 0);
    CHECK_INT(run_collect(&pna_storage_poller, state), 0);
    CHECK_INT(scalar(&pna_storage_metrics, mib_column("primusStorageSource"), &c), 0);
    CHECK_INT(c.i, PNA_STORAGE_SOURCE_KUBELET);
    CHECK_INT(scalar(&pna_storage_metrics, mib_column("primusStorageCapacity"), &c), 0);
    CHECK_U64(c.u, 977896124416ULL);
    CHECK_INT(scalar(&pna_storage_metrics, mib_column("primusStorageUsage"), &c), 0);
    CHECK_U64(c.u, 1094);
    CHECK_INT(scalar(&pna_storage_metrics, mib_column("primusStorageInodesUsed"), &c), 0);
    CHECK_U64(c.u, 60710912ULL - 59206606ULL);
    /* ...statvfs of the kubelet root without one. */
    pna_cache_drop(PNA_DOM_KUBELET);
    CHECK_INT(scalar(&pna_storage_metrics, mib_column("primusStorageSource"), &c), 0);
    CHECK_INT(c.i, PNA_STORAGE_SOURCE_STATVFS);
    CHECK_INT(scalar(&pna_storage_metrics, mib_column("primusStoragePath"), &c), 0);
    CHECK(c.len == 16 && !memcmp(c.str, "/var/lib/kubelet", 16));
    CHECK_INT(scalar(&pna_storage_metrics, mib_column("primusStorageCapacity"), &c), 0);
    CHECK(c.u > 0);
    pna_storage_poller.fini(state);

    /* No kubelet root directory: the storage poller is off. */
    storage_set->kubelet_root = "var/lib/none";
    CHECK_INT(pna_storage_poller.init(&state, cfg, storage_set, err, sizeof err),
              PNA_POLLER_DISABLED);
}

int main(void)
{
    if (!mkdtemp(tmp))
        return 99;
    snprintf(rootfs, sizeof rootfs, "%s/root", tmp);
    snprintf(sysfs, sizeof sysfs, "%s/sys", tmp);
    snprintf(procfs, sizeof procfs, "%s/proc", tmp);
    snprintf(devfs, sizeof devfs, "%s/dev", tmp);
    build_tree();
    pna_events_init(64);
    struct pna_config cfg;
    pna_config_defaults(&cfg);
    cfg.roots.rootfs = rootfs;
    cfg.roots.sysfs = sysfs;
    cfg.roots.procfs = procfs;
    cfg.roots.devfs = devfs;
    char err[256];
    CHECK_INT(pna_config_set_pollers(&cfg, pna_poller_registry, pna_poller_registry_len, err,
                                     sizeof err), 0);
    test_containers(&cfg);
    test_kubelet_and_storage(&cfg);
    pna_config_free(&cfg);
    pna_cache_clear();
    pna_events_shutdown();
    tt_rmrf(tmp);
    UNIT_END();
}
