/* test_containers_devmap.c -- device nodes classified as GPU, RDMA or other,
 * numbers resolved through sysfs, and the node's GPUs counted from /dev. */
#include "pna_autoconf.h"
#include "sources/containers/devmap.h"
#include "model/gpu/gpu.h"
#include "core/roots.h"
#include "containers_testutil.h"

static char tmp[] = "/tmp/pna-devmap-XXXXXX";

static void by_path(const char *path, int kind, int family, int unit)
{
    struct pna_container_device d = { 0 };
    snprintf(d.path, sizeof d.path, "%s", path);
    pna_devmap_classify(&d);
    if (d.kind != kind || d.family != family || d.unit != unit)
        fprintf(stderr, "path %s\n", path);
    CHECK_INT(d.kind, kind);
    CHECK_INT(d.family, family);
    CHECK_INT(d.unit, unit);
}

static void by_number(uint32_t major, uint32_t minor, int kind, int family, int unit)
{
    struct pna_container_device d = { .type = 'c', .has_numbers = true, .major = major, .minor = minor };
    pna_devmap_classify(&d);
    if (d.kind != kind || d.family != family || d.unit != unit)
        fprintf(stderr, "number %u:%u\n", major, minor);
    CHECK_INT(d.kind, kind);
    CHECK_INT(d.family, family);
    CHECK_INT(d.unit, unit);
}

static void test_classify(void)
{
    by_path("/dev/dri/card0", PNA_DEV_GPU, PNA_DEVF_DRM_CARD, 0);
    by_path("/dev/dri/card12", PNA_DEV_GPU, PNA_DEVF_DRM_CARD, 12);
    by_path("/dev/dri/renderD131", PNA_DEV_GPU, PNA_DEVF_DRM_RENDER, 131);
    by_path("/dev/dri/by-path", PNA_DEV_OTHER, PNA_DEVF_OTHER, -1);
    by_path("/dev/dri/cardX", PNA_DEV_OTHER, PNA_DEVF_OTHER, -1);
    by_path("/dev/kfd", PNA_DEV_GPU, PNA_DEVF_KFD, -1);
    by_path("/dev/nvidia0", PNA_DEV_GPU, PNA_DEVF_NVIDIA_GPU, 0);
    by_path("/dev/nvidia7", PNA_DEV_GPU, PNA_DEVF_NVIDIA_GPU, 7);
    by_path("/dev/nvidiactl", PNA_DEV_GPU, PNA_DEVF_NVIDIA_CTL, -1);
    by_path("/dev/nvidia-uvm", PNA_DEV_GPU, PNA_DEVF_NVIDIA_CTL, -1);
    by_path("/dev/nvidia-uvm-tools", PNA_DEV_GPU, PNA_DEVF_NVIDIA_CTL, -1);
    by_path("/dev/nvidia-caps/nvidia-cap1", PNA_DEV_GPU, PNA_DEVF_NVIDIA_CAP, 1);
    by_path("/dev/nvidia-caps/nvidia-cap-x", PNA_DEV_GPU, PNA_DEVF_NVIDIA_CTL, -1);
    by_path("/dev/nvidiafoo", PNA_DEV_OTHER, PNA_DEVF_OTHER, -1);
    by_path("/dev/infiniband/uverbs3", PNA_DEV_RDMA, PNA_DEVF_IB_UVERBS, 3);
    by_path("/dev/infiniband/umad1", PNA_DEV_RDMA, PNA_DEVF_IB_UMAD, 1);
    by_path("/dev/infiniband/issm0", PNA_DEV_RDMA, PNA_DEVF_IB_ISSM, 0);
    by_path("/dev/infiniband/rdma_cm", PNA_DEV_RDMA, PNA_DEVF_RDMA_CM, -1);
    by_path("/dev/infiniband/other", PNA_DEV_OTHER, PNA_DEVF_OTHER, -1);
    by_path("/dev/fuse", PNA_DEV_OTHER, PNA_DEVF_OTHER, -1);
    by_path("dri/card0", PNA_DEV_OTHER, PNA_DEVF_OTHER, -1);
    by_path("", PNA_DEV_OTHER, PNA_DEVF_OTHER, -1);
    /* Allow-list entries without a path: the fixed majors. */
    by_number(226, 0, PNA_DEV_GPU, PNA_DEVF_DRM_CARD, 0);
    by_number(226, 130, PNA_DEV_GPU, PNA_DEVF_DRM_RENDER, 130);
    by_number(195, 2, PNA_DEV_GPU, PNA_DEVF_NVIDIA_GPU, 2);
    by_number(195, 255, PNA_DEV_GPU, PNA_DEVF_NVIDIA_CTL, -1);
    by_number(231, 192, PNA_DEV_RDMA, PNA_DEVF_IB_UVERBS, 0);
    by_number(231, 1, PNA_DEV_RDMA, PNA_DEVF_IB_UMAD, 1);
    by_number(231, 65, PNA_DEV_RDMA, PNA_DEVF_IB_ISSM, 1);
    by_number(1, 3, PNA_DEV_OTHER, PNA_DEVF_OTHER, -1);
    struct pna_container_device blk = { .type = 'b', .has_numbers = true, .major = 226, .minor = 0 };
    pna_devmap_classify(&blk);
    CHECK_INT(blk.kind, PNA_DEV_OTHER);   /* a block device 226 is not DRM */
}

static void test_resolve_and_count(void)
{
    struct pna_roots roots = { tmp, tmp, tmp, tmp };
    char buf[96];
    tt_write(tmp, "dev/char/10:58/uevent", "MAJOR=10\nMINOR=58\nDEVNAME=infiniband/rdma_cm\n");
    tt_write(tmp, "dev/char/10:59/uevent", "MAJOR=10\nMINOR=59\nDEVNAME=../etc/passwd\n");
    tt_write(tmp, "dev/char/10:60/uevent", "MAJOR=10\nMINOR=60\n");
    tt_write(tmp, "dev/block/8:0/uevent", "MAJOR=8\nMINOR=0\nDEVNAME=sda\nDEVTYPE=disk\n");
    CHECK_INT(pna_devmap_resolve(&roots, 'c', 10, 58, buf, sizeof buf), 0);
    CHECK_STR(buf, "/dev/infiniband/rdma_cm");
    CHECK_INT(pna_devmap_resolve(&roots, 'b', 8, 0, buf, sizeof buf), 0);
    CHECK_STR(buf, "/dev/sda");
    CHECK_INT(pna_devmap_resolve(&roots, 'c', 10, 59, buf, sizeof buf), -EINVAL);
    CHECK_INT(pna_devmap_resolve(&roots, 'c', 10, 60, buf, sizeof buf), -ENOENT);
    CHECK_INT(pna_devmap_resolve(&roots, 'c', 10, 61, buf, sizeof buf), -ENOENT);

    /* No GPU device nodes: 0.  Render nodes: one per GPU.  NVIDIA nodes win. */
    char devroot[600];
    snprintf(devroot, sizeof devroot, "%s/devfs", tmp);
    roots.devfs = devroot;
    CHECK_INT(pna_devmap_count_gpus(&roots), 0);
    tt_write(tmp, "devfs/dri/card0", "");
    tt_write(tmp, "devfs/dri/renderD128", "");
    tt_write(tmp, "devfs/dri/renderD129", "");
    CHECK_INT(pna_devmap_count_gpus(&roots), 2);
    tt_write(tmp, "devfs/nvidia0", "");
    tt_write(tmp, "devfs/nvidia1", "");
    tt_write(tmp, "devfs/nvidia2", "");
    tt_write(tmp, "devfs/nvidiactl", "");
    tt_write(tmp, "devfs/nvidia-uvm", "");
    CHECK_INT(pna_devmap_count_gpus(&roots), 3);
}

/* Which GPU / RDMA device a node is: DRM through the device link, NVIDIA
 * through the driver's procfs list, RDMA through ibdev; counts per container. */
static void test_owners(void)
{
    char sys[600], proc[600], link[800], target[800];
    snprintf(sys, sizeof sys, "%s/osys", tmp);
    snprintf(proc, sizeof proc, "%s/oproc", tmp);
    /* renderD129 has no uevent: the link's target names the PCI device. */
    snprintf(target, sizeof target, "%s/devices/pci0000:00/0000:00:01.0/0000:e3:00.0", sys);
    tt_mkdirs(target);
    snprintf(link, sizeof link, "%s/class/drm/renderD129", sys);
    tt_mkdirs(link);
    strcat(link, "/device");
    CHECK_INT(symlink(target, link), 0);
    tt_write(proc, "driver/nvidia/gpus/0000:3b:00.0/information",
             "Model: \t\t NVIDIA H100\nIRQ:   \t\t 62\nDevice Minor: \t 2\nBus Location: \t 0000:3b:00.0\n");
    tt_write(proc, "driver/nvidia/gpus/0000:3c:00.0/information", "Device Minor: \t 3\n");
    tt_write(sys, "class/infiniband_mad/umad1/ibdev", "mlx5_1\n");
    tt_write(sys, "class/infiniband_verbs/uverbs1/ibdev", "mlx5_1\n");
    struct pna_roots roots = { sys, proc, tmp, tmp };
    struct pna_container_set set;
    pna_container_set_init(&set);
    const char *a[] = { "/dev/dri/renderD129", "/dev/nvidia2", "/dev/nvidia3", "/dev/nvidiactl",
                        "/dev/infiniband/uverbs1", "/dev/infiniband/umad1", "/dev/nvidia9" };
    for (int c = 0; c < 2; c++) {   /* two containers with the same devices: looked up once */
        struct pna_container *r = pna_container_set_add(&set);
        r->id = c ? "c1" : "c0";
        for (size_t i = 0; i < 7; i++) {
            struct pna_container_device d = { 0 };
            snprintf(d.path, sizeof d.path, "%s", a[i]);
            pna_devmap_classify(&d);
            pna_container_set_add_device(&set, &d);
        }
    }
    pna_devmap_owners(&roots, &set);
    for (int c = 0; c < 2; c++) {
        const struct pna_container_device *d = set.devs + set.rows[c].dev_first;
        CHECK_INT(d[0].gpu_index, pna_gpu_pci_key(0, 0xe3, 0, 0));
        CHECK_INT(d[1].gpu_index, pna_gpu_pci_key(0, 0x3b, 0, 0));
        CHECK_INT(d[2].gpu_index, pna_gpu_pci_key(0, 0x3c, 0, 0));
        CHECK_INT(d[3].gpu_index, 0);
        CHECK_STR(d[4].rdma_dev, "mlx5_1");
        CHECK_STR(d[5].rdma_dev, "mlx5_1");
        CHECK_INT(d[6].gpu_index, 0);        /* no such GPU */
        CHECK_INT(set.rows[c].gpu_count, 3);
        CHECK_INT(set.rows[c].rdma_count, 1);
    }
    pna_container_set_free(&set);
}

int main(void)
{
    if (!mkdtemp(tmp))
        return 99;
    test_classify();
    test_resolve_and_count();
    test_owners();
    tt_rmrf(tmp);
    UNIT_END();
}
