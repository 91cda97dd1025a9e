/* test_containers_podres.c -- the kubelet's pod-resources assignments as
 * container devices: which node each kind of row becomes, on which
 * container, and how it merges with the same node found in the spec.
 *
 * The procfs and sysfs trees are built here in the formats the drivers
 * document (NVIDIA's driver/nvidia/gpus/<PCI>/information and
 * driver/nvidia-caps/mig-minors, the kernel's infiniband_verbs class and
 * PCI device drm directory), not captured from a node. */
#include "pna_autoconf.h"
#include "sources/containers/podres_devices.h"
#include "sources/containers/devmap.h"
#include "model/containers.h"
#include "model/gpu/gpu.h"
#include "model/kubernetes/podres.h"
#include "core/roots.h"
#include "containers_testutil.h"

static char tmp[] = "/tmp/pna-podresdev-XXXXXX";

#define UUID_A "GPU-3f7a91c2-58e4-4d1b-a69f-2c7e05b8d413"   /* 0000:05:00.0, minor 3 */
#define UUID_B "GPU-520e01f2-cf30-6396-abef-e8e9a5233b0e"   /* 0000:84:00.0, minor 1 */
#define MIG_B "MIG-7b3f1c2e-9d40-5a8b-b1e2-4c6f08a9d317"    /* GPU B, GI 2, CI 0 */

static void build_tree(const char *root)
{
    tt_write(root, "proc/driver/nvidia/gpus/0000:05:00.0/information",
             "Model: \t\t NVIDIA H100 80GB HBM3\nIRQ:   \t\t 62\nGPU UUID: \t " UUID_A "\n"
             "Video BIOS: \t 96.00.99.00.01\nBus Type: \t PCIe\nDMA Size: \t 52 bits\n"
             "DMA Mask: \t 0xfffffffffffff\nBus Location: \t 0000:05:00.0\nDevice Minor: \t 3\n"
             "GPU Firmware: \t 575.64.03\nGPU Excluded:\t No\n");
    tt_write(root, "proc/driver/nvidia/gpus/0000:84:00.0/information",
             "Model: \t\t NVIDIA H100 80GB HBM3\nGPU UUID: \t " UUID_B "\n"
             "Bus Location: \t 0000:84:00.0\nDevice Minor: \t 1\n");
    tt_write(root, "proc/driver/nvidia-caps/mig-minors",
             "config 1\nmonitor 2\ngpu1/gi1/access 12\ngpu1/gi1/ci0/access 13\n"
             "gpu1/gi2/access 21\ngpu1/gi2/ci0/access 22\ngpu3/gi1/access 147\n"
             "gpu3/gi1/ci0/access 148\n");
    tt_write(root, "sys/class/infiniband_verbs/uverbs0/ibdev", "mlx5_0\n");
    tt_write(root, "sys/class/infiniband_verbs/uverbs2/ibdev", "mlx5_2\n");
    /* A DRM device's nodes are directories under its PCI device, each with
     * its numbers in "dev". */
    tt_write(root, "sys/bus/pci/devices/0000:c1:00.0/drm/card2/dev", "226:2\n");
    tt_write(root, "sys/bus/pci/devices/0000:c1:00.0/drm/renderD130/dev", "226:130\n");
}

static struct pna_container *add_container(struct pna_container_set *set, const char *id,
                                           const char *ns, const char *pod, const char *name)
{
    struct pna_container *c = pna_container_set_add(set);
    pna_container_set_text(set, &c->id, id, PNA_CTR_ID_CAP);
    pna_container_set_text(set, &c->pod_namespace, ns, PNA_CTR_POD_NAMESPACE_CAP);
    pna_container_set_text(set, &c->pod_name, pod, PNA_CTR_POD_NAME_CAP);
    pna_container_set_text(set, &c->name, name, PNA_CTR_NAME_CAP);
    return c;
}

static void add_row(struct pna_podres_snap *s, bool assigned, const char *ns, const char *pod,
                    const char *ctr, const char *resource, const char *id, const char *rdma)
{
    struct pna_podres_row *r = pna_podres_add(s);
    r->assigned = assigned;
    r->allocatable = true;
    snprintf(r->pod_namespace, sizeof r->pod_namespace, "%s", ns);
    snprintf(r->pod_name, sizeof r->pod_name, "%s", pod);
    snprintf(r->container, sizeof r->container, "%s", ctr);
    snprintf(r->resource, sizeof r->resource, "%s", resource);
    snprintf(r->id, sizeof r->id, "%s", id);
    snprintf(r->rdma_dev, sizeof r->rdma_dev, "%s", rdma);
}

/* Containers in id order (a sorted set, as the poller has it). */
static void build_set(struct pna_container_set *set)
{
    pna_container_set_init(set);
    add_container(set, "c1", "ml", "train-0", "worker");
    /* the runtime's spec lists GPU A's node too */
    struct pna_container_device d = { 0 };
    snprintf(d.path, sizeof d.path, "/dev/nvidia3");
    d.type = 'c';
    d.has_numbers = true;
    d.major = 195;
    d.minor = 3;
    d.source = PNA_DEVS_SPEC_DEVICE;
    pna_devmap_classify(&d);
    CHECK_INT(pna_container_set_add_device(set, &d), 0);
    add_container(set, "c2", "ml", "train-0", "sidecar");
    add_container(set, "c3", "ml", "mig-0", "m");
    add_container(set, "c4", "amd", "rocm-0", "main");
    add_container(set, "c5", "", "", "plain-docker");
}

static struct pna_podres_snap *build_podres(void)
{
    struct pna_podres_snap *s = calloc(1, sizeof *s);
    add_row(s, true, "ml", "train-0", "worker", "nvidia.com/gpu", UUID_A, "");
    add_row(s, true, "ml", "train-0", "worker", "nvidia.com/gpu", UUID_B "::2", "");  /* time-sliced */
    add_row(s, true, "ml", "train-0", "worker", "rdma/hca_shared", "hca-7", "mlx5_2");
    add_row(s, false, "ml", "train-0", "sidecar", "nvidia.com/gpu", UUID_B, "");      /* not assigned */
    add_row(s, true, "ml", "mig-0", "m", "nvidia.com/mig-1g.10gb", MIG_B, "");
    add_row(s, true, "ml", "mig-0", "m", "nvidia.com/mig-1g.10gb", "MIG-" UUID_A "/1/0", "");
    add_row(s, true, "amd", "rocm-0", "main", "amd.com/gpu", "0000:c1:00.0", "");
    add_row(s, true, "amd", "rocm-0", "main", "example.com/fpga", "fpga-0", "");   /* no node */
    add_row(s, true, "gone", "old-0", "worker", "nvidia.com/gpu", UUID_A, "");       /* no record */
    add_row(s, false, "", "", "", "nvidia.com/gpu", UUID_B, "");                    /* free */
    CHECK_INT(pna_podres_finish(s, NULL), 0);
    return s;
}

/* Devices of row I, in order, as "path maj:min source" lines. */
static void check_devices(const struct pna_container_set *set, size_t i, const char *const *want,
                          size_t nwant)
{
    size_t n;
    const struct pna_container_device *d = pna_container_devices(set, i, &n);
    CHECK_INT(n, nwant);
    for (size_t k = 0; k < n && k < nwant; k++) {
        char line[160];
        snprintf(line, sizeof line, "%s %u:%u %u", d[k].path, d[k].has_numbers ? d[k].major : 0,
                 d[k].has_numbers ? d[k].minor : 0, d[k].source);
        CHECK_STR(line, want[k]);
    }
}

static void test_apply(void)
{
    char root[1024], sys[1100], proc[1100], dev[1100];
    snprintf(root, sizeof root, "%s/tree", tmp);
    build_tree(root);
    snprintf(sys, sizeof sys, "%s/sys", root);
    snprintf(proc, sizeof proc, "%s/proc", root);
    snprintf(dev, sizeof dev, "%s/dev", root);
    struct pna_roots roots = { sys, proc, dev, root };
    struct pna_container_set set;
    build_set(&set);
    struct pna_podres_snap *ps = build_podres();
    struct pna_gpu_mig mig = { .gpu_index = pna_gpu_pci_key(0, 0x84, 0, 0), .gpu_instance = 2,
                               .compute_instance = 0, .uuid = MIG_B };
    struct pna_gpu_snap gs = { .mig_count = 1, .migs = &mig };
    CHECK_INT(pna_podres_devices_apply(&roots, ps, &gs, &set), 0);
    CHECK_INT(set.count, 5);

    /* GPU A found in the spec and by the kubelet: one row, the kubelet's;
     * the time-sliced share of GPU B is GPU B's node. */
    static const char *const worker[] = {
        "/dev/nvidia3 195:3 4", "/dev/nvidia1 195:1 4", "/dev/infiniband/uverbs2 231:194 4",
    };
    check_devices(&set, 0, worker, 3);
    check_devices(&set, 1, NULL, 0);    /* the sidecar's row is not assigned */
    /* Both MIG forms (in the kubelet rows' id order): the compute
     * instance's capability and the GPU. */
    static const char *const mig_ctr[] = {
        "/dev/nvidia-caps/nvidia-cap22 0:0 4", "/dev/nvidia1 195:1 4",
        "/dev/nvidia-caps/nvidia-cap148 0:0 4", "/dev/nvidia3 195:3 4",
    };
    check_devices(&set, 2, mig_ctr, 4);
    static const char *const amd[] = { "/dev/dri/renderD130 226:130 4" };
    check_devices(&set, 3, amd, 1);
    check_devices(&set, 4, NULL, 0);    /* no pod: nothing */
    CHECK_INT(set.dev_count, 8);
    CHECK_U64(set.devices_dropped, 0);

    /* Device ranges stay contiguous and in row order. */
    for (size_t i = 0; i < set.dev_count; i++) {
        const struct pna_container *c = pna_container_of_device(&set, i);
        CHECK(c != NULL);
    }
    CHECK_INT(set.rows[2].dev_first, 3);

    /* The owners are filled as for any device. */
    pna_devmap_owners(&roots, &set);
    CHECK_INT(set.devs[0].gpu_index, pna_gpu_pci_key(0, 0x05, 0, 0));
    CHECK_INT(set.devs[1].gpu_index, pna_gpu_pci_key(0, 0x84, 0, 0));
    CHECK_STR(set.devs[2].rdma_dev, "mlx5_2");
    CHECK_INT(set.devs[3].family, PNA_DEVF_NVIDIA_CAP);
    CHECK_INT(set.devs[3].unit, 22);
    CHECK_INT(set.rows[0].gpu_count, 2);
    CHECK_INT(set.rows[0].rdma_count, 1);
    CHECK(pna_container_holding_cap(&set, 22, NULL) == &set.rows[2]);

    /* Without the GPU snapshot a MIG UUID resolves to nothing; the old
     * device plugin's id still does. */
    pna_container_set_free(&set);
    build_set(&set);
    CHECK_INT(pna_podres_devices_apply(&roots, ps, NULL, &set), 0);
    CHECK_INT(set.rows[2].dev_count, 2);
    pna_podres_snap_free(ps);
    pna_container_set_free(&set);
}

/* No snapshot, or nothing assigned to these containers: the set is as it was. */
static void test_nothing(void)
{
    struct pna_roots roots = { tmp, tmp, tmp, tmp };
    struct pna_container_set set;
    build_set(&set);
    CHECK_INT(pna_podres_devices_apply(&roots, NULL, NULL, &set), 0);
    struct pna_podres_snap *ps = calloc(1, sizeof *ps);
    add_row(ps, true, "other", "pod", "worker", "nvidia.com/gpu", UUID_A, "");
    CHECK_INT(pna_podres_finish(ps, NULL), 0);
    CHECK_INT(pna_podres_devices_apply(&roots, ps, NULL, &set), 0);
    CHECK_INT(set.count, 5);
    CHECK_INT(set.dev_count, 1);
    CHECK_INT(set.devs[0].source, PNA_DEVS_SPEC_DEVICE);
    pna_podres_snap_free(ps);
    pna_container_set_free(&set);
}

/* The model function on its own: extras for the first and the last row. */
static void test_add_devices(void)
{
    struct pna_container_set set;
    build_set(&set);
    struct pna_container_extra extra[2] = { { 0, { 0 } }, { 4, { 0 } } };
    snprintf(extra[0].dev.path, sizeof extra[0].dev.path, "/dev/nvidia3");  /* same path */
    extra[0].dev.source = PNA_DEVS_CGROUP;
    snprintf(extra[1].dev.path, sizeof extra[1].dev.path, "/dev/kfd");
    extra[1].dev.source = PNA_DEVS_POD_RESOURCES;
    CHECK_INT(pna_container_set_add_devices(&set, extra, 2), 0);
    CHECK_INT(set.dev_count, 2);
    CHECK_INT(set.devs[0].source, PNA_DEVS_SPEC_DEVICE);   /* the higher ranked stays */
    CHECK_INT(set.rows[4].dev_first, 1);
    CHECK_INT(set.rows[4].dev_count, 1);
    CHECK_STR(set.devs[1].path, "/dev/kfd");
    pna_container_set_free(&set);
}

int main(void)
{
    if (!mkdtemp(tmp))
        return 99;
    test_apply();
    test_nothing();
    test_add_devices();
    tt_rmrf(tmp);
    UNIT_END();
}
