/* test_podresources.c -- the kubelet pod-resources decoders
 * (sources/kubernetes/podresources.c) on messages packed here by protobuf-c's
 * generated code from podresources.proto: GPUs with NUMA topology, MIG and
 * time-sliced device ids, SR-IOV virtual functions by PCI address, an empty
 * answer, strings too long for their field, the device cap, truncated and
 * garbage bytes.  The network side is tests/integration/podresources_grpc.sh. */
#include "pna_autoconf.h"
#include "sources/kubernetes/podresources.h"
#include "sources/kubernetes/podresources.pb-c.h"
#include "unit.h"

#include <stdint.h>

/* ---- building messages --------------------------------------------------------- */

static V1__NUMANode numa_nodes[8];
static V1__NUMANode *numa_ptrs[8];

static void topo_init(V1__TopologyInfo *t, const int64_t *ids, size_t n)
{
    static size_t used;
    v1__topology_info__init(t);
    t->n_nodes = n;
    t->nodes = &numa_ptrs[used];
    for (size_t i = 0; i < n; i++) {
        v1__numanode__init(&numa_nodes[used]);
        numa_nodes[used].id = ids[i];
        numa_ptrs[used] = &numa_nodes[used];
        used++;
    }
}

static void devs_init(V1__ContainerDevices *d, const char *resource, char **ids, size_t n,
                      V1__TopologyInfo *topo)
{
    v1__container_devices__init(d);
    d->resource_name = (char *)resource;
    d->device_ids = ids;
    d->n_device_ids = n;
    d->topology = topo;
}

static uint8_t *pack_list(const V1__ListPodResourcesResponse *r, size_t *len)
{
    *len = v1__list_pod_resources_response__get_packed_size(r);
    uint8_t *buf = malloc(*len + 1);
    v1__list_pod_resources_response__pack(r, buf);
    return buf;
}

static uint8_t *pack_alloc(const V1__AllocatableResourcesResponse *r, size_t *len)
{
    *len = v1__allocatable_resources_response__get_packed_size(r);
    uint8_t *buf = malloc(*len + 1);
    v1__allocatable_resources_response__pack(r, buf);
    return buf;
}

/* ---- the tests ------------------------------------------------------------------- */

/* Two pods: a training pod with two whole GPUs on NUMA nodes {1,0} and an
 * SR-IOV VF, a notebook pod with a MIG slice and a time-sliced share. */
static void test_list(void)
{
    int64_t n10[] = { 1, 0 }, n1[] = { 1 };
    V1__TopologyInfo t10, t1;
    topo_init(&t10, n10, 2);
    topo_init(&t1, n1, 1);

    char *gpus[] = { "GPU-3b7c8a2e-1d4f-4c2a-9f00-5e6d7c8b9a01",
                     "GPU-8f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b" };
    char *vfs[] = { "0000:3b:00.2" };
    char *mig[] = { "MIG-6f4a2b1c-0e9d-5c8b-a7f6-e5d4c3b2a190" };
    char *shared[] = { "GPU-3b7c8a2e-1d4f-4c2a-9f00-5e6d7c8b9a01::3" };
    V1__ContainerDevices d_gpu, d_vf, d_mig, d_shared;
    devs_init(&d_gpu, "nvidia.com/gpu", gpus, 2, &t10);
    devs_init(&d_vf, "intel.com/sriov_netdevice", vfs, 1, &t1);
    devs_init(&d_mig, "nvidia.com/mig-1g.10gb", mig, 1, NULL);
    devs_init(&d_shared, "nvidia.com/gpu.shared", shared, 1, NULL);

    V1__ContainerDevices *train_devs[] = { &d_gpu, &d_vf };
    V1__ContainerDevices *nb_devs[] = { &d_mig, &d_shared };
    int64_t cpus[] = { 2, 3, 4 };
    V1__ContainerResources c_train, c_side, c_nb;
    v1__container_resources__init(&c_train);
    c_train.name = "trainer";
    c_train.devices = train_devs;
    c_train.n_devices = 2;
    c_train.cpu_ids = cpus;   /* read past, not kept */
    c_train.n_cpu_ids = 3;
    v1__container_resources__init(&c_side);
    c_side.name = "sidecar";   /* no devices: no rows */
    v1__container_resources__init(&c_nb);
    c_nb.name = "jupyter";
    c_nb.devices = nb_devs;
    c_nb.n_devices = 2;

    V1__ContainerResources *train_ctrs[] = { &c_train, &c_side };
    V1__ContainerResources *nb_ctrs[] = { &c_nb };
    V1__PodResources p_train, p_nb;
    v1__pod_resources__init(&p_train);
    p_train.name = "llm-train-0";
    p_train.namespace_ = "ml";
    p_train.containers = train_ctrs;
    p_train.n_containers = 2;
    v1__pod_resources__init(&p_nb);
    p_nb.name = "notebook-7f9c";
    p_nb.namespace_ = "research";
    p_nb.containers = nb_ctrs;
    p_nb.n_containers = 1;
    V1__PodResources *pods[] = { &p_train, &p_nb };
    V1__ListPodResourcesResponse r = V1__LIST_POD_RESOURCES_RESPONSE__INIT;
    r.pod_resources = pods;
    r.n_pod_resources = 2;

    size_t len;
    uint8_t *buf = pack_list(&r, &len);
    struct pna_podres_set set;
    char err[256] = "";
    pna_podres_set_init(&set);
    CHECK_INT(pna_podres_decode_list(buf, len, &set, err, sizeof err), 0);
    CHECK_INT(set.count, 5);
    CHECK_U64(set.dropped, 0);
    if (set.count == 5) {
        const struct pna_podres_device *d = set.rows;
        CHECK_STR(d[0].resource, "nvidia.com/gpu");
        CHECK_STR(d[0].id, "GPU-3b7c8a2e-1d4f-4c2a-9f00-5e6d7c8b9a01");
        CHECK_STR(d[0].pod_name, "llm-train-0");
        CHECK_STR(d[0].pod_namespace, "ml");
        CHECK_STR(d[0].container, "trainer");
        CHECK_INT(d[0].numa_node, 0);   /* lowest of {1, 0} */
        CHECK_STR(d[1].id, "GPU-8f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b");
        CHECK_INT(d[1].numa_node, 0);
        CHECK_STR(d[2].resource, "intel.com/sriov_netdevice");
        CHECK_STR(d[2].id, "0000:3b:00.2");
        CHECK_INT(d[2].numa_node, 1);
        CHECK_STR(d[3].resource, "nvidia.com/mig-1g.10gb");
        CHECK_STR(d[3].id, "MIG-6f4a2b1c-0e9d-5c8b-a7f6-e5d4c3b2a190");
        CHECK_STR(d[3].pod_name, "notebook-7f9c");
        CHECK_STR(d[3].pod_namespace, "research");
        CHECK_STR(d[3].container, "jupyter");
        CHECK_INT(d[3].numa_node, -1);
        CHECK_STR(d[4].id, "GPU-3b7c8a2e-1d4f-4c2a-9f00-5e6d7c8b9a01::3");
        CHECK_STR(d[4].resource, "nvidia.com/gpu.shared");
    }
    /* Rows are appended: a second decode adds to the set. */
    CHECK_INT(pna_podres_decode_list(buf, len, &set, err, sizeof err), 0);
    CHECK_INT(set.count, 10);
    pna_podres_set_free(&set);
    CHECK_INT(set.count, 0);
    CHECK(set.rows == NULL);

    /* Truncated: every cut of the message but the whole is either an error
     * (OUT left empty) or a shorter valid message (a cut between fields). */
    for (size_t cut = 0; cut < len; cut++) {
        pna_podres_set_init(&set);
        int rc = pna_podres_decode_list(buf, cut, &set, err, sizeof err);
        if (rc != 0) {
            CHECK_INT(set.count, 0);
            CHECK(strstr(err, "malformed ListPodResourcesResponse") != NULL);
        }
        pna_podres_set_free(&set);
    }
    /* Cut inside the first device id: always malformed. */
    pna_podres_set_init(&set);
    CHECK_INT(pna_podres_decode_list(buf, len - 3, &set, err, sizeof err), -1);
    CHECK_INT(set.count, 0);
    char want[96];
    snprintf(want, sizeof want, "malformed ListPodResourcesResponse (%zu bytes)", len - 3);
    CHECK_STR(err, want);
    pna_podres_set_free(&set);
    free(buf);
}

static void test_allocatable(void)
{
    int64_t n0[] = { 0 }, n3[] = { 3, 2 };
    V1__TopologyInfo t0, t3;
    topo_init(&t0, n0, 1);
    topo_init(&t3, n3, 2);
    char *gpus[] = { "GPU-a", "GPU-b" };
    char *vfs[] = { "0000:af:00.2", "0000:af:00.3", "0000:af:00.4" };
    V1__ContainerDevices d_gpu, d_vf;
    devs_init(&d_gpu, "nvidia.com/gpu", gpus, 2, &t0);
    devs_init(&d_vf, "rdma/hca_shared", vfs, 3, &t3);
    V1__ContainerDevices *devs[] = { &d_gpu, &d_vf };
    V1__AllocatableResourcesResponse r = V1__ALLOCATABLE_RESOURCES_RESPONSE__INIT;
    r.devices = devs;
    r.n_devices = 2;
    size_t len;
    uint8_t *buf = pack_alloc(&r, &len);
    struct pna_podres_set set;
    char err[256] = "";
    pna_podres_set_init(&set);
    CHECK_INT(pna_podres_decode_allocatable(buf, len, &set, err, sizeof err), 0);
    CHECK_INT(set.count, 5);
    if (set.count == 5) {
        CHECK_STR(set.rows[0].id, "GPU-a");
        CHECK_INT(set.rows[0].numa_node, 0);
        CHECK_STR(set.rows[0].pod_name, "");
        CHECK_STR(set.rows[0].container, "");
        CHECK_STR(set.rows[4].id, "0000:af:00.4");
        CHECK_STR(set.rows[4].resource, "rdma/hca_shared");
        CHECK_INT(set.rows[4].numa_node, 2);
    }
    pna_podres_set_free(&set);
    free(buf);
}

/* An empty answer (no pods, 0 bytes on the wire) is a valid, empty set. */
static void test_empty(void)
{
    struct pna_podres_set set;
    char err[256] = "";
    pna_podres_set_init(&set);
    CHECK_INT(pna_podres_decode_list((const uint8_t *)"", 0, &set, err, sizeof err), 0);
    CHECK_INT(set.count, 0);
    CHECK_INT(pna_podres_decode_allocatable((const uint8_t *)"", 0, &set, err, sizeof err), 0);
    CHECK_INT(set.count, 0);
    CHECK_U64(set.dropped, 0);
    pna_podres_set_free(&set);
}

/* A string longer than its field drops the device, counted; never cut.
 * Control characters are replaced, not a reason to drop. */
static void test_too_long(void)
{
    char long_id[200], long_pod[300], long_ns[80], ok_pod[254];
    memset(long_id, 'x', sizeof long_id - 1);
    long_id[sizeof long_id - 1] = '\0';
    memset(long_pod, 'p', sizeof long_pod - 1);
    long_pod[sizeof long_pod - 1] = '\0';
    memset(long_ns, 'n', sizeof long_ns - 1);
    long_ns[sizeof long_ns - 1] = '\0';
    memset(ok_pod, 'q', sizeof ok_pod - 1);   /* 253 bytes: the longest that fits */
    ok_pod[sizeof ok_pod - 1] = '\0';

    char *ids[] = { "GPU-ok", long_id, "GPU-tab\there" };
    V1__ContainerDevices d;
    devs_init(&d, "nvidia.com/gpu", ids, 3, NULL);
    V1__ContainerDevices *devs[] = { &d };
    V1__ContainerResources c;
    v1__container_resources__init(&c);
    c.name = "main";
    c.devices = devs;
    c.n_devices = 1;
    V1__ContainerResources *ctrs[] = { &c };
    V1__PodResources p_ok, p_long, p_ns;
    v1__pod_resources__init(&p_ok);
    p_ok.name = ok_pod;
    p_ok.namespace_ = "default";
    p_ok.containers = ctrs;
    p_ok.n_containers = 1;
    p_long = p_ok;
    p_long.name = long_pod;   /* all three of its devices dropped */
    p_ns = p_ok;
    p_ns.namespace_ = long_ns;  /* and these three */
    V1__PodResources *pods[] = { &p_ok, &p_long, &p_ns };
    V1__ListPodResourcesResponse r = V1__LIST_POD_RESOURCES_RESPONSE__INIT;
    r.pod_resources = pods;
    r.n_pod_resources = 3;
    size_t len;
    uint8_t *buf = pack_list(&r, &len);
    struct pna_podres_set set;
    char err[256] = "";
    pna_podres_set_init(&set);
    CHECK_INT(pna_podres_decode_list(buf, len, &set, err, sizeof err), 0);
    CHECK_INT(set.count, 2);
    CHECK_U64(set.dropped, 7);
    if (set.count == 2) {
        CHECK_STR(set.rows[0].id, "GPU-ok");
        CHECK_INT(strlen(set.rows[0].pod_name), 253);
        CHECK_STR(set.rows[1].id, "GPU-tab?here");
    }
    pna_podres_set_free(&set);
    free(buf);
}

/* More device ids than PNA_PODRES_MAX_DEVICES: the rest are counted. */
static void test_cap(void)
{
    size_t n = PNA_PODRES_MAX_DEVICES + 10;
    char **ids = calloc(n, sizeof *ids);
    char *names = malloc(n * 16);
    for (size_t i = 0; i < n; i++) {
        ids[i] = names + i * 16;
        snprintf(ids[i], 16, "GPU-%zu", i);
    }
    V1__ContainerDevices d;
    devs_init(&d, "nvidia.com/gpu", ids, n, NULL);
    V1__ContainerDevices *devs[] = { &d };
    V1__AllocatableResourcesResponse r = V1__ALLOCATABLE_RESOURCES_RESPONSE__INIT;
    r.devices = devs;
    r.n_devices = 1;
    size_t len;
    uint8_t *buf = pack_alloc(&r, &len);
    struct pna_podres_set set;
    char err[256] = "";
    pna_podres_set_init(&set);
    CHECK_INT(pna_podres_decode_allocatable(buf, len, &set, err, sizeof err), 0);
    CHECK_INT(set.count, PNA_PODRES_MAX_DEVICES);
    CHECK_U64(set.dropped, 10);
    if (set.count == PNA_PODRES_MAX_DEVICES)
        CHECK_STR(set.rows[PNA_PODRES_MAX_DEVICES - 1].id, "GPU-65535");
    pna_podres_set_free(&set);
    free(buf);
    free(names);
    free(ids);
}

/* Bytes that are not the message: errors, and the set stays empty. */
static void test_garbage(void)
{
    static const struct {
        const char *bytes;
        size_t len;
    } bad[] = {
        { "\x0a\x05" "ab", 4 },                 /* field 1, length 5, 2 bytes follow */
        { "\x0a\xff\xff\xff\xff\xff\xff", 7 },  /* a length varint that never ends */
        { "\x0f", 1 },                          /* wire type 7 does not exist */
        { "garbage!", 8 },
        { "\x0a\x02\x0a\x09", 4 },              /* nested length past its parent */
    };
    struct pna_podres_set set;
    char err[256];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        pna_podres_set_init(&set);
        err[0] = '\0';
        CHECK_INT(pna_podres_decode_list((const uint8_t *)bad[i].bytes, bad[i].len, &set, err,
                                         sizeof err), -1);
        CHECK_INT(set.count, 0);
        CHECK(strncmp(err, "malformed ListPodResourcesResponse (", 36) == 0);
        CHECK_INT(pna_podres_decode_allocatable((const uint8_t *)bad[i].bytes, bad[i].len, &set,
                                                err, sizeof err), -1);
        CHECK_INT(set.count, 0);
        CHECK(strncmp(err, "malformed AllocatableResourcesResponse (", 40) == 0);
        pna_podres_set_free(&set);
    }
    /* Rows already in OUT are gone after an error too. */
    char *ids[] = { "GPU-a" };
    V1__ContainerDevices d;
    devs_init(&d, "nvidia.com/gpu", ids, 1, NULL);
    V1__ContainerDevices *devs[] = { &d };
    V1__AllocatableResourcesResponse r = V1__ALLOCATABLE_RESOURCES_RESPONSE__INIT;
    r.devices = devs;
    r.n_devices = 1;
    size_t len;
    uint8_t *buf = pack_alloc(&r, &len);
    pna_podres_set_init(&set);
    CHECK_INT(pna_podres_decode_allocatable(buf, len, &set, err, sizeof err), 0);
    CHECK_INT(set.count, 1);
    CHECK_INT(pna_podres_decode_allocatable((const uint8_t *)"garbage!", 8, &set, err, sizeof err),
              -1);
    CHECK_INT(set.count, 0);
    pna_podres_set_free(&set);
    free(buf);
}

int main(void)
{
    test_list();
    test_allocatable();
    test_empty();
    test_too_long();
    test_cap();
    test_garbage();
    UNIT_END();
}
