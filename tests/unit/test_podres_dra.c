/* test_podres_dra.c -- DRA devices of the kubelet's pod-resources API: the
 * decoder (sources/kubernetes/podresources.c) on List answers with
 * dynamic_resources packed here by protobuf-c's generated code, the resolver
 * (sources/kubernetes/dra.c) through CDI spec files and sysfs and procfs
 * trees written here, and the model's reading of the nodes and its joins
 * (model/kubernetes/podres.c).
 *
 * The messages follow the v1 API's definition; the CDI specs are the ones of
 * tests/fixtures/dra/, built from the NVIDIA and AMD DRA drivers' source (see
 * its SOURCES.md): no capture of either exists. */
#include "pna_autoconf.h"
#include "model/gpu/gpu.h"
#include "model/kubernetes/podres.h"
#include "sources/containers/cdi.h"
#include "sources/kubernetes/dra.h"
#include "sources/kubernetes/podresources.h"
#include "sources/kubernetes/podresources.pb-c.h"
#include "unit.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NV_CLAIM "c0ffee00-0000-4000-8000-000000000001"
#define AMD_CLAIM "c0ffee00-0000-4000-8000-000000000002"

/* ---- building messages ------------------------------------------------------------ */

struct claim_res {
    V1__ClaimResource res;
    V1__CDIDevice cdi[6];
    V1__CDIDevice *cdi_ptrs[6];
};

static void claim_res_init(struct claim_res *c, const char *driver, const char *pool,
                           const char *device, const char *const *cdi, size_t ncdi)
{
    v1__claim_resource__init(&c->res);
    c->res.driver_name = (char *)driver;
    c->res.pool_name = (char *)pool;
    c->res.device_name = (char *)device;
    for (size_t i = 0; i < ncdi; i++) {
        v1__cdidevice__init(&c->cdi[i]);
        c->cdi[i].name = (char *)cdi[i];
        c->cdi_ptrs[i] = &c->cdi[i];
    }
    c->res.cdi_devices = c->cdi_ptrs;
    c->res.n_cdi_devices = ncdi;
}

static uint8_t *pack_list(const V1__ListPodResourcesResponse *r, size_t *len)
{
    *len = v1__list_pod_resources_response__get_packed_size(r);
    uint8_t *buf = malloc(*len + 1);
    v1__list_pod_resources_response__pack(r, buf);
    return buf;
}

/* One pod "ml/train-0", container "trainer", with a device plugin GPU and
 * the claims given; packed into *LEN bytes. */
static uint8_t *pack_pod(V1__DynamicResource **claims, size_t nclaims, size_t *len)
{
    char *gpu_ids[] = { "GPU-3b7c8a2e-1d4f-4c2a-9f00-5e6d7c8b9a01" };
    V1__ContainerDevices devs;
    v1__container_devices__init(&devs);
    devs.resource_name = "nvidia.com/gpu";
    devs.device_ids = gpu_ids;
    devs.n_device_ids = 1;
    V1__ContainerDevices *dp[] = { &devs };
    V1__ContainerResources ctr;
    v1__container_resources__init(&ctr);
    ctr.name = "trainer";
    ctr.devices = dp;
    ctr.n_devices = 1;
    ctr.dynamic_resources = claims;
    ctr.n_dynamic_resources = nclaims;
    V1__ContainerResources *cp[] = { &ctr };
    V1__PodResources pod;
    v1__pod_resources__init(&pod);
    pod.name = "train-0";
    pod.namespace_ = "ml";
    pod.containers = cp;
    pod.n_containers = 1;
    V1__PodResources *pp[] = { &pod };
    V1__ListPodResourcesResponse r = V1__LIST_POD_RESOURCES_RESPONSE__INIT;
    r.pod_resources = pp;
    r.n_pod_resources = 1;
    return pack_list(&r, len);
}

/* ---- the decoder -------------------------------------------------------------------- */

/* Rows 1..5 of ROWS have their DRA part (checked before it is read). */
static bool d_all_dra(const struct pna_podres_device *rows)
{
    for (size_t i = 1; i < 6; i++)
        if (!rows[i].dra)
            return false;
    return true;
}

/* An NVIDIA claim with a GPU and a MIG device, AMD's with a GPU, dranet's
 * NIC (no CDI device) and an unknown driver's device. */
static void test_decode(void)
{
    const char *nv_gpu[] = { "k8s.gpu.nvidia.com/device=gpu-2",
                             "k8s.gpu.nvidia.com/claim=" NV_CLAIM "-gpu-2" };
    const char *nv_mig[] = { "k8s.gpu.nvidia.com/device=gpu-0-mig-14-0-2",
                             "k8s.gpu.nvidia.com/claim=" NV_CLAIM "-gpu-0-mig-14-0-2" };
    const char *amd[] = { "k8s.gpu.amd.com/gpu=common", "k8s.gpu.amd.com/gpu=" AMD_CLAIM "-gpu-0" };
    const char *fpga[] = { "example.com/fpga=slot0" };
    struct claim_res r_gpu, r_mig, r_amd, r_nic, r_fpga;
    claim_res_init(&r_gpu, "gpu.nvidia.com", "node-1", "gpu-2", nv_gpu, 2);
    claim_res_init(&r_mig, "gpu.nvidia.com", "node-1", "gpu-0-mig-14-0-2", nv_mig, 2);
    claim_res_init(&r_amd, "gpu.amd.com", "node-1", "gpu-0", amd, 2);
    claim_res_init(&r_nic, "dra.net", "node-1", "eth1", NULL, 0);
    claim_res_init(&r_fpga, "fpga.example.com", "node-1", "slot0", fpga, 1);

    V1__ClaimResource *nv_res[] = { &r_gpu.res, &r_mig.res };
    V1__ClaimResource *amd_res[] = { &r_amd.res };
    V1__ClaimResource *other_res[] = { &r_nic.res, &r_fpga.res };
    V1__DynamicResource nv, am, other;
    v1__dynamic_resource__init(&nv);
    nv.claim_name = "train-0-gpus-x7k2p";
    nv.claim_namespace = "ml";
    nv.claim_resources = nv_res;
    nv.n_claim_resources = 2;
    v1__dynamic_resource__init(&am);
    am.claim_name = "amd-gpu";
    am.claim_namespace = "ml";
    am.claim_resources = amd_res;
    am.n_claim_resources = 1;
    v1__dynamic_resource__init(&other);
    other.claim_name = "fabric";
    other.claim_namespace = "ml";
    other.claim_resources = other_res;
    other.n_claim_resources = 2;
    V1__DynamicResource *claims[] = { &nv, &am, &other };

    size_t len;
    uint8_t *buf = pack_pod(claims, 3, &len);
    struct pna_podres_set set;
    char err[256] = "";
    pna_podres_set_init(&set);
    CHECK_INT(pna_podres_decode_list(buf, len, &set, err, sizeof err), 0);
    CHECK_INT(set.count, 6);
    CHECK_U64(set.dropped, 0);
    if (set.count == 6) {
        const struct pna_podres_device *d = set.rows;
        /* The device plugin's id first, then the claims in message order. */
        CHECK_STR(d[0].resource, "nvidia.com/gpu");
        CHECK(d[0].dra == NULL);
        for (size_t i = 1; i < 6; i++)
            CHECK(d[i].dra != NULL);
        CHECK_INT(set.n_dra, 5);
    }
    if (set.count == 6 && d_all_dra(set.rows)) {
        const struct pna_podres_device *d = set.rows;
        CHECK_STR(d[1].resource, "");
        CHECK_STR(d[1].id, "");
        CHECK_STR(d[1].pod_name, "train-0");
        CHECK_STR(d[1].pod_namespace, "ml");
        CHECK_STR(d[1].container, "trainer");
        CHECK_STR(d[1].dra->claim_namespace, "ml");
        CHECK_STR(d[1].dra->claim_name, "train-0-gpus-x7k2p");
        CHECK_STR(d[1].dra->driver, "gpu.nvidia.com");
        CHECK_STR(d[1].dra->pool, "node-1");
        CHECK_STR(d[1].dra->device, "gpu-2");
        CHECK_INT(d[1].dra->n_cdi, 2);
        CHECK_STR(d[1].dra->cdi[0], "k8s.gpu.nvidia.com/device=gpu-2");
        CHECK_STR(d[1].dra->cdi[1], "k8s.gpu.nvidia.com/claim=" NV_CLAIM "-gpu-2");
        CHECK_INT(d[1].numa_node, -1);
        CHECK_STR(d[2].dra->device, "gpu-0-mig-14-0-2");
        CHECK_STR(d[3].dra->driver, "gpu.amd.com");
        CHECK_STR(d[3].dra->claim_name, "amd-gpu");
        CHECK_STR(d[4].dra->driver, "dra.net");
        CHECK_STR(d[4].dra->device, "eth1");
        CHECK_INT(d[4].dra->n_cdi, 0);
        CHECK_STR(d[5].dra->driver, "fpga.example.com");
        CHECK_STR(d[5].dra->cdi[0], "example.com/fpga=slot0");
    }
    pna_podres_set_free(&set);

    /* Every cut is an error (OUT empty) or a shorter valid message. */
    for (size_t cut = 0; cut < len; cut++) {
        pna_podres_set_init(&set);
        if (pna_podres_decode_list(buf, cut, &set, err, sizeof err) != 0)
            CHECK_INT(set.count, 0);
        CHECK(set.count <= 6);
        pna_podres_set_free(&set);
    }
    free(buf);
}

/* A claim name too long to keep whole drops its devices (counted); a device
 * without a driver names nothing (dropped); over PNA_PODRES_MAX_CDI CDI
 * names keep the first ones; a CDI name too long is left out. */
static void test_decode_bounds(void)
{
    char long_name[300];
    memset(long_name, 'c', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = '\0';
    char long_cdi[PNA_PODRES_CDI_NAME_MAX + 8] = "vendor.example/class=";
    memset(long_cdi + strlen(long_cdi), 'd', sizeof long_cdi - strlen(long_cdi) - 1);
    long_cdi[sizeof long_cdi - 1] = '\0';
    const char *many[] = { "a.example/x=0", long_cdi, "a.example/x=1", "a.example/x=2",
                           "a.example/x=3", "a.example/x=4" };
    struct claim_res r_ok, r_nodriver, r_long;
    claim_res_init(&r_ok, "gpu.nvidia.com", "node-1", "gpu-1", many, 6);
    claim_res_init(&r_nodriver, "", "node-1", "gpu-1", NULL, 0);
    claim_res_init(&r_long, "gpu.nvidia.com", "node-1", "gpu-2", NULL, 0);
    V1__ClaimResource *ok_res[] = { &r_ok.res, &r_nodriver.res };
    V1__ClaimResource *long_res[] = { &r_long.res };
    V1__DynamicResource ok, longc;
    v1__dynamic_resource__init(&ok);
    ok.claim_name = "gpus";
    ok.claim_namespace = "ml";
    ok.claim_resources = ok_res;
    ok.n_claim_resources = 2;
    v1__dynamic_resource__init(&longc);
    longc.claim_name = long_name;
    longc.claim_namespace = "ml";
    longc.claim_resources = long_res;
    longc.n_claim_resources = 1;
    V1__DynamicResource *claims[] = { &ok, &longc };
    size_t len;
    uint8_t *buf = pack_pod(claims, 2, &len);
    struct pna_podres_set set;
    char err[256] = "";
    pna_podres_set_init(&set);
    CHECK_INT(pna_podres_decode_list(buf, len, &set, err, sizeof err), 0);
    CHECK_INT(set.count, 2);      /* the device plugin's GPU and gpu-1 */
    CHECK_U64(set.dropped, 2);    /* the driverless device, the long claim's */
    if (set.count == 2 && set.rows[1].dra) {
        CHECK_STR(set.rows[1].dra->device, "gpu-1");
        CHECK_INT(set.rows[1].dra->n_cdi, PNA_PODRES_MAX_CDI);
        CHECK_STR(set.rows[1].dra->cdi[0], "a.example/x=0");
        CHECK_STR(set.rows[1].dra->cdi[1], "a.example/x=1");   /* the long one left out */
        CHECK_STR(set.rows[1].dra->cdi[3], "a.example/x=3");
    }
    pna_podres_set_free(&set);
    free(buf);
}

/* Over PNA_PODRES_MAX_DRA_DEVICES DRA devices in one answer: the first ones
 * kept, the rest dropped and counted. */
static void test_decode_dra_cap(void)
{
    size_t n = PNA_PODRES_MAX_DRA_DEVICES + 3;
    struct claim_res *res = calloc(n, sizeof *res);
    V1__ClaimResource **ptrs = calloc(n, sizeof *ptrs);
    CHECK(res && ptrs);
    if (!res || !ptrs) {
        free(res);
        free(ptrs);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        claim_res_init(&res[i], "gpu.nvidia.com", "node-1", "gpu-0", NULL, 0);
        ptrs[i] = &res[i].res;
    }
    V1__DynamicResource big;
    v1__dynamic_resource__init(&big);
    big.claim_name = "many";
    big.claim_namespace = "ml";
    big.claim_resources = ptrs;
    big.n_claim_resources = n;
    V1__DynamicResource *claims[] = { &big };
    size_t len;
    uint8_t *buf = pack_pod(claims, 1, &len);
    struct pna_podres_set set;
    char err[256] = "";
    pna_podres_set_init(&set);
    CHECK_INT(pna_podres_decode_list(buf, len, &set, err, sizeof err), 0);
    CHECK_INT(set.n_dra, PNA_PODRES_MAX_DRA_DEVICES);
    CHECK_INT(set.count, PNA_PODRES_MAX_DRA_DEVICES + 1);   /* and the device plugin's GPU */
    CHECK_U64(set.dropped, 3);
    pna_podres_set_free(&set);
    free(buf);
    free(ptrs);
    free(res);
}

/* ---- the resolver and the model ----------------------------------------------------- */

static char root[256];
static char sysfs[300], procfs[300], devfs[300], rootfs[300];

static void copy_fixture(const char *name, const char *to_dir)
{
    char from[PATH_MAX], rel[512];
    snprintf(from, sizeof from, "%s/dra/%s", unit_fixtures(), name);
    FILE *f = fopen(from, "r");
    CHECK(f != NULL);
    if (!f)
        return;
    static char text[1 << 16];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    snprintf(rel, sizeof rel, "%s/%s", to_dir, name);
    unit_put(rootfs, rel, text);
}

/* The node: NVIDIA GPUs 0000:18:00.0 (minor 0), 0000:2a:00.0 (minor 1) and
 * 0000:3a:00.0 (minor 2) in procfs, an AMD GPU whose renderD128 is
 * 0000:c1:00.0 in sysfs, a ConnectX whose eth1 is mlx5_2 and a VF
 * 0000:3b:00.3 that is mlx5_3 (uverbs3). */
static void make_node(void)
{
    snprintf(root, sizeof root, "/tmp/test_podres_dra.XXXXXX");
    CHECK(mkdtemp(root) != NULL);
    snprintf(sysfs, sizeof sysfs, "%s/sys", root);
    snprintf(procfs, sizeof procfs, "%s/proc", root);
    snprintf(devfs, sizeof devfs, "%s/dev", root);
    snprintf(rootfs, sizeof rootfs, "%s/root", root);
    const char *const tops[] = { sysfs, procfs, devfs, rootfs };
    for (size_t i = 0; i < 4; i++)
        CHECK_INT(mkdir(tops[i], 0755), 0);
    const char *gpus[][3] = { { "0000:18:00.0", "GPU-00000000-1111-2222-3333-444444444444", "0" },
                              { "0000:2a:00.0", "GPU-11111111-1111-2222-3333-444444444444", "1" },
                              { "0000:3a:00.0", "GPU-22222222-1111-2222-3333-444444444444", "2" } };
    for (size_t i = 0; i < 3; i++) {
        char rel[128], text[256];
        snprintf(rel, sizeof rel, "driver/nvidia/gpus/%s/information", gpus[i][0]);
        snprintf(text, sizeof text, "Model: \t\t NVIDIA\nGPU UUID: \t %s\nDevice Minor: \t %s\n",
                 gpus[i][1], gpus[i][2]);
        unit_put(procfs, rel, text);
    }
    unit_put(sysfs, "class/drm/renderD128/device/uevent", "DRIVER=amdgpu\nPCI_SLOT_NAME=0000:c1:00.0\n");
    unit_put(sysfs, "class/net/eth1/device/infiniband/mlx5_2/node_type", "1: CA\n");
    unit_put(sysfs, "bus/pci/devices/0000:3b:00.3/infiniband/mlx5_3/node_type", "1: CA\n");
    unit_put(sysfs, "class/infiniband_verbs/uverbs3/ibdev", "mlx5_3\n");
    unit_put(rootfs, "etc/cdi/.keep", "");
    copy_fixture("k8s.gpu.nvidia.com-device_base.yaml", "var/run/cdi");
    copy_fixture("k8s.gpu.nvidia.com-claim_" NV_CLAIM ".yaml", "var/run/cdi");
    copy_fixture("k8s.gpu.amd.com-gpu_" AMD_CLAIM ".yaml", "var/run/cdi");
    /* A driver of SR-IOV VFs that injects the VF's uverbs node. */
    unit_put(rootfs, "etc/cdi/sriov.yaml",
             "cdiVersion: 0.5.0\nkind: sriov.example.com/vf\ndevices:\n- name: vf-3\n"
             "  containerEdits:\n    deviceNodes:\n    - path: /dev/infiniband/uverbs3\n"
             "      type: c\n      major: 231\n      minor: 195\n");
}

/* A DRA part of DRIVER/DEVICE with CDI names CDI (NULL-ended), as the
 * decoder makes it. */
static struct pna_podres_dra dra_device(const char *driver, const char *device,
                                        const char *const *cdi)
{
    struct pna_podres_dra d;
    memset(&d, 0, sizeof d);
    d.nv_minor = d.render_minor = d.mig_caps[0] = d.mig_caps[1] = -1;
    snprintf(d.claim_namespace, sizeof d.claim_namespace, "ml");
    snprintf(d.claim_name, sizeof d.claim_name, "claim-%s", device);
    snprintf(d.driver, sizeof d.driver, "%s", driver);
    snprintf(d.pool, sizeof d.pool, "node-1");
    snprintf(d.device, sizeof d.device, "%s", device);
    for (; cdi && *cdi && d.n_cdi < PNA_PODRES_MAX_CDI; cdi++)
        snprintf(d.cdi[d.n_cdi++], sizeof d.cdi[0], "%s", *cdi);
    return d;
}

/* A row of S holding a copy of D, resolved as the poller does; WHY "" when
 * resolved. */
static void resolve(struct pna_podres_snap *s, const struct pna_roots *roots,
                    const struct pna_cdi_registry *reg, const struct pna_podres_dra *d, char *why,
                    size_t cap)
{
    struct pna_podres_row *r = pna_podres_add(s);
    CHECK(r != NULL);
    if (!r)
        return;
    snprintf(r->pod_name, sizeof r->pod_name, "train-0");
    snprintf(r->pod_namespace, sizeof r->pod_namespace, "ml");
    snprintf(r->container, sizeof r->container, "trainer");
    r->assigned = true;
    r->dra = pna_podres_dra_new();
    CHECK(r->dra != NULL);
    if (!r->dra)
        return;
    *r->dra = *d;
    why[0] = '\0';
    pna_dra_resolve(roots, reg, r, why, cap);
}

static const struct pna_podres_row *row_by_device(const struct pna_podres_snap *s,
                                                  const char *device)
{
    for (size_t i = 0; i < s->count; i++)
        if (s->rows[i].dra && strcmp(s->rows[i].dra->device, device) == 0)
            return &s->rows[i];
    return NULL;
}

static void test_resolve(void)
{
    make_node();
    struct pna_roots roots = { sysfs, procfs, devfs, rootfs };
    struct pna_cdi_registry *reg = pna_cdi_registry_new();
    pna_cdi_registry_refresh(reg, &roots);
    const char *why_bad = "";
    CHECK_INT(pna_cdi_registry_error(reg, &why_bad), 0);

    const char *nv_gpu[] = { "k8s.gpu.nvidia.com/device=gpu-2",
                             "k8s.gpu.nvidia.com/claim=" NV_CLAIM "-gpu-2", NULL };
    /* The claim's name first: the device one, with nodes, is the one shown. */
    const char *nv_mig[] = { "k8s.gpu.nvidia.com/claim=" NV_CLAIM "-gpu-0-mig-14-0-2",
                             "k8s.gpu.nvidia.com/device=gpu-0-mig-14-0-2", NULL };
    const char *amd[] = { "k8s.gpu.amd.com/gpu=common", "k8s.gpu.amd.com/gpu=" AMD_CLAIM "-gpu-0",
                          NULL };
    const char *vf[] = { "sriov.example.com/vf=vf-3", NULL };
    const char *missing[] = { "k8s.gpu.nvidia.com/device=gpu-7", NULL };
    const char *nocdi_other[] = { "fpga.example.com/fpga=slot0", NULL };
    struct pna_podres_dra d_gpu = dra_device("gpu.nvidia.com", "gpu-2", nv_gpu),
                          d_mig = dra_device("gpu.nvidia.com", "gpu-0-mig-14-0-2", nv_mig),
                          d_amd = dra_device("gpu.amd.com", "gpu-0", amd),
                          d_nic = dra_device("dra.net", "eth1", NULL),
                          d_pci = dra_device("sriov.example.com", "0000-3b-00-3", NULL),
                          d_vf = dra_device("sriov.example.com", "vf-3", vf),
                          d_missing = dra_device("gpu.nvidia.com", "gpu-7", missing),
                          d_unknown = dra_device("fpga.example.com", "slot0", nocdi_other),
                          d_bare = dra_device("net.example.com", "nic9", NULL);

    struct pna_podres_snap *s = calloc(1, sizeof *s);
    char why[200];
    const struct pna_podres_row *r;
    resolve(s, &roots, reg, &d_gpu, why, sizeof why);
    CHECK_STR(why, "");
    resolve(s, &roots, reg, &d_mig, why, sizeof why);
    CHECK_STR(why, "");
    resolve(s, &roots, reg, &d_amd, why, sizeof why);
    CHECK_STR(why, "");
    resolve(s, &roots, reg, &d_nic, why, sizeof why);
    CHECK_STR(why, "");
    resolve(s, &roots, reg, &d_pci, why, sizeof why);
    CHECK_STR(why, "");
    resolve(s, &roots, reg, &d_vf, why, sizeof why);
    CHECK_STR(why, "");
    resolve(s, &roots, reg, &d_missing, why, sizeof why);
    CHECK_STR(why, "gpu.nvidia.com/node-1/gpu-7: no CDI spec defines k8s.gpu.nvidia.com/device=gpu-7");
    resolve(s, &roots, reg, &d_unknown, why, sizeof why);
    CHECK_STR(why, "fpga.example.com/node-1/slot0: no CDI spec defines fpga.example.com/fpga=slot0");
    resolve(s, &roots, reg, &d_bare, why, sizeof why);
    CHECK_STR(why, "");   /* nothing to resolve by: a plain row, no error */
    CHECK_INT(pna_podres_finish(s, NULL), 0);
    CHECK_INT(s->count, 9);
    CHECK_INT(pna_podres_gpus_allocatable(s), 0);   /* DRA devices are never allocatable */

    /* NVIDIA GPU: the base spec's 4 common nodes and its own 3; the GPU by
     * its minor's procfs entry. */
    r = row_by_device(s, "gpu-2");
    CHECK(r != NULL);
    if (r) {
        CHECK_INT(r->kind, PNA_POD_RESOURCE_KIND_GPU);
        CHECK_STR(r->dra->cdi_device, "k8s.gpu.nvidia.com/device=gpu-2");
        CHECK_INT(r->dra->n_nodes, 7);
        CHECK_INT(r->dra->nv_minor, 2);
        CHECK_STR(r->gpu_key, "0000:3a:00.0");
        CHECK_STR(r->resource, "");
        CHECK(!r->allocatable);
        struct pna_gpu g = { 0 };
        snprintf(g.pci_bus_id, sizeof g.pci_bus_id, "0000:3a:00.0");
        CHECK(pna_podres_row_on_gpu(r, &g));
        snprintf(g.pci_bus_id, sizeof g.pci_bus_id, "0000:2a:00.0");
        CHECK(!pna_podres_row_on_gpu(r, &g));
        g.has_minor = true;    /* the PCI address decides where it is known */
        g.minor = 2;
        CHECK(!pna_podres_row_on_gpu(r, &g));
        struct pna_podres_row unknown = *r;   /* procfs said nothing: by the minor */
        unknown.gpu_key[0] = '\0';
        CHECK(pna_podres_row_on_gpu(&unknown, &g));
        g.minor = 1;
        CHECK(!pna_podres_row_on_gpu(&unknown, &g));
    }
    /* MIG: its capabilities; the MIG device of the GPU snapshot whose
     * compute instance access capability is one of them. */
    r = row_by_device(s, "gpu-0-mig-14-0-2");
    CHECK(r != NULL);
    if (r) {
        CHECK_INT(r->kind, PNA_POD_RESOURCE_KIND_MIG);
        CHECK_STR(r->dra->cdi_device, "k8s.gpu.nvidia.com/device=gpu-0-mig-14-0-2");
        CHECK_INT(r->dra->mig_caps[0], 21);
        CHECK_INT(r->dra->mig_caps[1], 22);
        CHECK_INT(r->dra->nv_minor, 0);
        struct pna_gpu_mig migs[2] = { { .gpu_index = 7, .gpu_instance = 3, .has_cap = true,
                                         .cap_minor = 67 },
                                       { .gpu_index = 7, .gpu_instance = 2, .has_cap = true,
                                         .cap_minor = 22 } };
        struct pna_gpu_snap gs = { 0 };
        gs.migs = migs;
        gs.mig_count = 2;
        CHECK(pna_podres_row_mig(r, &gs) == &migs[1]);
        migs[1].cap_minor = 23;
        CHECK(pna_podres_row_mig(r, &gs) == NULL);
    }
    /* AMD: the render node's PCI address; a partition by its render node. */
    r = row_by_device(s, "gpu-0");
    CHECK(r != NULL);
    if (r) {
        CHECK_INT(r->kind, PNA_POD_RESOURCE_KIND_GPU);
        CHECK_STR(r->dra->cdi_device, "k8s.gpu.amd.com/gpu=" AMD_CLAIM "-gpu-0");
        CHECK_INT(r->dra->n_nodes, 3);
        CHECK_STR(r->gpu_key, "0000:c1:00.0");
        CHECK_INT(r->dra->render_minor, 128);
        struct pna_gpu_partition p = { .has_render = true, .render_minor = 128 };
        CHECK(pna_podres_row_on_partition(r, &p));
        p.render_minor = 129;
        CHECK(!pna_podres_row_on_partition(r, &p));
    }
    /* NICs: dranet's interface, a dashed PCI address, a VF's uverbs node. */
    r = row_by_device(s, "eth1");
    CHECK(r && r->kind == PNA_POD_RESOURCE_KIND_RDMA && strcmp(r->rdma_dev, "mlx5_2") == 0);
    r = row_by_device(s, "0000-3b-00-3");
    CHECK(r && r->kind == PNA_POD_RESOURCE_KIND_RDMA && strcmp(r->rdma_dev, "mlx5_3") == 0);
    r = row_by_device(s, "vf-3");
    CHECK(r && r->kind == PNA_POD_RESOURCE_KIND_RDMA && strcmp(r->rdma_dev, "mlx5_3") == 0);
    /* Unresolved: plain rows, nothing joined. */
    const char *plain[] = { "gpu-7", "slot0", "nic9" };
    for (size_t i = 0; i < 3; i++) {
        r = row_by_device(s, plain[i]);
        CHECK(r && r->kind == PNA_POD_RESOURCE_KIND_OTHER && r->dra->n_nodes == 0 && !r->gpu_key[0] &&
              !r->dra->cdi_device[0] && r->dra->nv_minor < 0);
    }

    /* Indexes: kept for the same rows of the next poll, distinct per device. */
    for (size_t i = 0; i < s->count; i++)
        for (size_t j = i + 1; j < s->count; j++)
            CHECK(s->rows[i].index != s->rows[j].index);
    struct pna_podres_snap *next = calloc(1, sizeof *next);
    resolve(next, &roots, reg, &d_vf, why, sizeof why);
    resolve(next, &roots, reg, &d_gpu, why, sizeof why);
    CHECK_INT(pna_podres_finish(next, s), 0);
    CHECK_INT(row_by_device(next, "gpu-2")->index, row_by_device(s, "gpu-2")->index);
    CHECK_INT(row_by_device(next, "vf-3")->index, row_by_device(s, "vf-3")->index);
    pna_podres_snap_free(next);

    /* The specs go away (the driver stopped): the next resolve says so. */
    char dir[400];
    snprintf(dir, sizeof dir, "%s/var/run/cdi", rootfs);
    unit_rmtree(dir);
    pna_cdi_registry_refresh(reg, &roots);
    struct pna_podres_snap *gone = calloc(1, sizeof *gone);
    resolve(gone, &roots, reg, &d_gpu, why, sizeof why);
    CHECK_STR(why, "gpu.nvidia.com/node-1/gpu-2: no CDI spec defines k8s.gpu.nvidia.com/device=gpu-2");
    CHECK_INT(pna_podres_finish(gone, NULL), 0);
    CHECK_INT(gone->rows[0].kind, PNA_POD_RESOURCE_KIND_OTHER);
    pna_podres_snap_free(gone);
    /* No registry at all (out of memory at start): the same. */
    struct pna_podres_snap *none = calloc(1, sizeof *none);
    resolve(none, &roots, NULL, &d_amd, why, sizeof why);
    CHECK(strstr(why, "no CDI spec defines k8s.gpu.amd.com/gpu=common") != NULL);
    pna_podres_snap_free(none);

    pna_podres_snap_free(s);
    pna_cdi_registry_free(reg);
    unit_rmtree(root);
}

int main(void)
{
    test_decode();
    test_decode_bounds();
    test_decode_dra_cap();
    test_resolve();
    UNIT_END();
}
