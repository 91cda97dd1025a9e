/* sources/containers/devmap.c -- classify container device nodes as GPU, RDMA
 * or other (see devmap.h). */
#include "pna_autoconf.h"
#include "sources/containers/devmap.h"
#include "model/gpu/gpu.h"
#include "core/roots.h"
#include "util/fileio.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* Fixed major numbers from the kernel's devices.txt; the others a GPU or RDMA
 * stack uses (kfd, nvidia-uvm, rdma_cm) are dynamic and only known by path. */
#define MAJOR_DRM 226
#define MAJOR_NVIDIA 195
#define MAJOR_INFINIBAND 231

/* If NAME is PREFIX followed by only decimal digits, return the number, else -1. */
static int32_t numbered(const char *name, const char *prefix)
{
    size_t pl = strlen(prefix);
    if (strncmp(name, prefix, pl) != 0)
        return -1;
    const char *d = name + pl;
    if (!*d || strlen(d) > 9)
        return -1;
    for (const char *p = d; *p; p++)
        if (!isdigit((unsigned char)*p))
            return -1;
    return (int32_t)strtol(d, NULL, 10);
}

static void set(struct pna_container_device *dev, enum pna_dev_kind kind, enum pna_dev_family fam,
                int32_t unit)
{
    dev->kind = (uint8_t)kind;
    dev->family = (uint8_t)fam;
    dev->unit = unit;
}

static bool classify_by_path(struct pna_container_device *dev)
{
    const char *p = dev->path;
    if (strncmp(p, "/dev/", 5) != 0)
        return false;
    p += 5;
    int32_t n;
    if (strncmp(p, "dri/", 4) == 0) {
        if ((n = numbered(p + 4, "card")) >= 0)
            set(dev, PNA_DEV_GPU, PNA_DEVF_DRM_CARD, n);
        else if ((n = numbered(p + 4, "renderD")) >= 0)
            set(dev, PNA_DEV_GPU, PNA_DEVF_DRM_RENDER, n);
        else
            return false;
        return true;
    }
    if (strcmp(p, "kfd") == 0) {
        set(dev, PNA_DEV_GPU, PNA_DEVF_KFD, -1);
        return true;
    }
    if (strncmp(p, "nvidia", 6) == 0) {
        if ((n = numbered(p, "nvidia")) >= 0)
            set(dev, PNA_DEV_GPU, PNA_DEVF_NVIDIA_GPU, n);
        else if ((n = numbered(p, "nvidia-caps/nvidia-cap")) >= 0)
            set(dev, PNA_DEV_GPU, PNA_DEVF_NVIDIA_CAP, n);   /* a MIG access capability */
        else if (strcmp(p, "nvidiactl") == 0 || strncmp(p, "nvidia-uvm", 10) == 0 ||
                 strcmp(p, "nvidia-modeset") == 0 || strncmp(p, "nvidia-caps/", 12) == 0 ||
                 strncmp(p, "nvidia-nvswitch", 15) == 0 || strcmp(p, "nvidia-nvlink") == 0)
            set(dev, PNA_DEV_GPU, PNA_DEVF_NVIDIA_CTL, -1);
        else
            return false;
        return true;
    }
    if (strncmp(p, "infiniband/", 11) == 0) {
        p += 11;
        if ((n = numbered(p, "uverbs")) >= 0)
            set(dev, PNA_DEV_RDMA, PNA_DEVF_IB_UVERBS, n);
        else if ((n = numbered(p, "umad")) >= 0)
            set(dev, PNA_DEV_RDMA, PNA_DEVF_IB_UMAD, n);
        else if ((n = numbered(p, "issm")) >= 0)
            set(dev, PNA_DEV_RDMA, PNA_DEVF_IB_ISSM, n);
        else if (strcmp(p, "rdma_cm") == 0)
            set(dev, PNA_DEV_RDMA, PNA_DEVF_RDMA_CM, -1);
        else
            return false;
        return true;
    }
    return false;
}

/* Minor ranges per Documentation/admin-guide/devices.txt and the drivers:
 * DRM primary nodes 0-63, render nodes 128-191; NVIDIA GPUs 0-253 with 254
 * modeset and 255 nvidiactl; InfiniBand umad 0-63, issm 64-127, uverbs 192-255. */
static bool classify_by_number(struct pna_container_device *dev)
{
    if (!dev->has_numbers || (dev->type != 'c' && dev->type != 0))
        return false;
    uint32_t mi = dev->minor;
    switch (dev->major) {
    case MAJOR_DRM:
        if (mi < 64)
            set(dev, PNA_DEV_GPU, PNA_DEVF_DRM_CARD, (int32_t)mi);
        else if (mi >= 128 && mi < 192)
            set(dev, PNA_DEV_GPU, PNA_DEVF_DRM_RENDER, (int32_t)mi);
        else
            set(dev, PNA_DEV_GPU, PNA_DEVF_OTHER, -1);
        return true;
    case MAJOR_NVIDIA:
        if (mi < 254)
            set(dev, PNA_DEV_GPU, PNA_DEVF_NVIDIA_GPU, (int32_t)mi);
        else
            set(dev, PNA_DEV_GPU, PNA_DEVF_NVIDIA_CTL, -1);
        return true;
    case MAJOR_INFINIBAND:
        if (mi < 64)
            set(dev, PNA_DEV_RDMA, PNA_DEVF_IB_UMAD, (int32_t)mi);
        else if (mi < 128)
            set(dev, PNA_DEV_RDMA, PNA_DEVF_IB_ISSM, (int32_t)(mi - 64));
        else if (mi >= 192)
            set(dev, PNA_DEV_RDMA, PNA_DEVF_IB_UVERBS, (int32_t)(mi - 192));
        else
            set(dev, PNA_DEV_RDMA, PNA_DEVF_OTHER, -1);
        return true;
    default:
        return false;
    }
}

void pna_devmap_classify(struct pna_container_device *dev)
{
    set(dev, PNA_DEV_OTHER, PNA_DEVF_OTHER, -1);
    /* The numbers name the host's device; the path is only what the container
     * calls it (--device /dev/dri/renderD129:/dev/dri/renderD128). */
    if (classify_by_number(dev))
        return;
    classify_by_path(dev);
}

int pna_devmap_resolve(const struct pna_roots *roots, char type, uint32_t major,
                       uint32_t minor, char *buf, size_t cap)
{
    char path[512], text[1024];
    const char *cls = type == 'b' ? "block" : "char";
    if (pna_path(path, sizeof path, roots->sysfs, "/dev/%s/%u:%u/uevent", cls, major, minor) < 0)
        return -ENAMETOOLONG;
    int n = pna_read_text(path, text, sizeof text);
    if (n < 0)
        return n;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        if (strncmp(line, "DEVNAME=", 8) != 0)
            continue;
        const char *name = line + 8;
        /* A DEVNAME is relative to /dev; refuse anything that climbs out. */
        if (!*name || name[0] == '/' || strstr(name, ".."))
            return -EINVAL;
        int w = snprintf(buf, cap, "/dev/%s", name);
        return w < 0 || (size_t)w >= cap ? -ENAMETOOLONG : 0;
    }
    return -ENOENT;
}

static unsigned count_numbered(const char *dir, const char *prefix)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    unsigned n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (numbered(e->d_name, prefix) >= 0)
            n++;
    closedir(d);
    return n;
}

unsigned pna_devmap_count_gpus(const struct pna_roots *roots)
{
    char path[512];
    if (pna_path(path, sizeof path, roots->devfs, "/") < 0)
        return 0;
    unsigned n = count_numbered(path, "nvidia");
    if (n)
        return n;
    if (pna_path(path, sizeof path, roots->devfs, "/dri") < 0)
        return 0;
    return count_numbered(path, "renderD");
}

/* ---- owners: which GPU / RDMA device a node is ------------------------------------- */

static uint32_t pci_key_of(const char *text)
{
    unsigned dom, bus, dev, fn;
    char tail;
    if (sscanf(text, "%x:%x:%x.%x%c", &dom, &bus, &dev, &fn, &tail) != 4)
        return 0;
    return pna_gpu_pci_key(dom, bus, dev, fn);
}

/* The PCI address of a DRM node: its device's uevent, else where the link points. */
static uint32_t drm_gpu(const struct pna_roots *roots, const char *node)
{
    char path[512], text[2048];
    if (pna_path(path, sizeof path, roots->sysfs, "/class/drm/%s/device/uevent", node) == 0 &&
        pna_read_text(path, text, sizeof text) >= 0) {
        const char *p = strstr(text, "PCI_SLOT_NAME=");
        if (p) {
            char addr[32];
            snprintf(addr, sizeof addr, "%.*s", (int)strcspn(p + 14, "\n"), p + 14);
            return pci_key_of(addr);
        }
    }
    if (pna_path(path, sizeof path, roots->sysfs, "/class/drm/%s/device", node) < 0)
        return 0;
    char target[512];
    ssize_t n = readlink(path, target, sizeof target - 1);
    if (n <= 0)
        return 0;
    target[n] = '\0';
    const char *base = strrchr(target, '/');
    return pci_key_of(base ? base + 1 : target);
}

/* NVIDIA: the GPU whose "Device Minor" (driver/nvidia/gpus/<PCI>/information)
 * is MINOR; 0 none. */
static uint32_t nvidia_gpu(const struct pna_roots *roots, int32_t minor)
{
    struct pna_nvidia_gpu gpus[PNA_DEVMAP_MAX_NVIDIA_GPUS];
    size_t n = pna_devmap_nvidia_gpus(roots, gpus, PNA_DEVMAP_MAX_NVIDIA_GPUS);
    for (size_t i = 0; i < n; i++)
        if (gpus[i].minor >= 0 && gpus[i].minor == minor)
            return gpus[i].pci_key;
    return 0;
}

static int cmp_nvidia(const void *a, const void *b)
{
    uint32_t x = ((const struct pna_nvidia_gpu *)a)->pci_key;
    uint32_t y = ((const struct pna_nvidia_gpu *)b)->pci_key;
    return x < y ? -1 : x > y;
}

size_t pna_devmap_nvidia_gpus(const struct pna_roots *roots, struct pna_nvidia_gpu *out,
                              size_t cap)
{
    char dir[512];
    if (pna_path(dir, sizeof dir, roots->procfs, "/driver/nvidia/gpus") < 0)
        return 0;
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    size_t n = 0;
    struct dirent *e;
    while (n < cap && (e = readdir(d)) != NULL) {
        char path[1024], text[4096];
        uint32_t key = e->d_name[0] == '.' ? 0 : pci_key_of(e->d_name);
        if (!key ||
            snprintf(path, sizeof path, "%s/%s/information", dir, e->d_name) >= (int)sizeof path ||
            pna_read_text(path, text, sizeof text) < 0)
            continue;
        struct pna_nvidia_gpu *g = &out[n++];
        memset(g, 0, sizeof *g);
        g->pci_key = key;
        g->minor = -1;
        const char *p = strstr(text, "Device Minor:");
        if (p) {
            long m = strtol(p + 13, NULL, 10);
            if (m >= 0 && m < 254)
                g->minor = (int32_t)m;
        }
        p = strstr(text, "GPU UUID:");
        if (p) {
            p += 9;
            p += strspn(p, " \t");
            size_t len = strcspn(p, " \t\r\n");
            if (len < sizeof g->uuid) {
                memcpy(g->uuid, p, len);
                g->uuid[len] = '\0';
            }
        }
    }
    closedir(d);
    qsort(out, n, sizeof *out, cmp_nvidia);
    return n;
}

bool pna_devmap_host_numbers(const struct pna_roots *roots, const char *host_path,
                             struct pna_container_device *dev)
{
    char node[512];
    struct stat st;
    if (!roots || strncmp(host_path, "/dev/", 5) != 0 || strstr(host_path, "/../") ||
        pna_path(node, sizeof node, roots->devfs, "/%s", host_path + 5) < 0 ||
        stat(node, &st) != 0 || !(S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)))
        return false;
    dev->type = S_ISBLK(st.st_mode) ? 'b' : 'c';
    dev->has_numbers = true;
    dev->major = major(st.st_rdev);
    dev->minor = minor(st.st_rdev);
    pna_devmap_classify(dev);
    return true;
}

static void rdma_name(const struct pna_roots *roots, const char *cls, const char *node,
                      char *buf, size_t cap)
{
    char path[512];
    buf[0] = '\0';
    if (pna_path(path, sizeof path, roots->sysfs, "/class/%s/%s/ibdev", cls, node) < 0 ||
        pna_read_text(path, buf, cap) < 0)
        buf[0] = '\0';
}

struct owner_memo {
    uint8_t family;
    int32_t unit;
    uint32_t gpu_index;
    char rdma_dev[64];
};

static void resolve_owner(const struct pna_roots *roots, struct pna_container_device *d)
{
    char node[32];
    switch (d->family) {
    case PNA_DEVF_DRM_CARD:
        snprintf(node, sizeof node, "card%d", d->unit);
        d->gpu_index = drm_gpu(roots, node);
        break;
    case PNA_DEVF_DRM_RENDER:
        snprintf(node, sizeof node, "renderD%d", d->unit);
        d->gpu_index = drm_gpu(roots, node);
        break;
    case PNA_DEVF_NVIDIA_GPU:
        d->gpu_index = nvidia_gpu(roots, d->unit);
        break;
    case PNA_DEVF_IB_UVERBS:
        snprintf(node, sizeof node, "uverbs%d", d->unit);
        rdma_name(roots, "infiniband_verbs", node, d->rdma_dev, sizeof d->rdma_dev);
        break;
    case PNA_DEVF_IB_UMAD:
        snprintf(node, sizeof node, "umad%d", d->unit);
        rdma_name(roots, "infiniband_mad", node, d->rdma_dev, sizeof d->rdma_dev);
        break;
    case PNA_DEVF_IB_ISSM:
        snprintf(node, sizeof node, "issm%d", d->unit);
        rdma_name(roots, "infiniband_mad", node, d->rdma_dev, sizeof d->rdma_dev);
        break;
    default:
        break;
    }
}

void pna_devmap_owners(const struct pna_roots *roots, struct pna_container_set *set)
{
    /* Thousands of containers share a handful of devices: look each up once. */
    struct owner_memo memo[128];
    size_t nmemo = 0;
    for (size_t i = 0; i < set->dev_count; i++) {
        struct pna_container_device *d = &set->devs[i];
        d->gpu_index = 0;
        d->rdma_dev[0] = '\0';
        if (d->unit < 0)
            continue;
        size_t m = 0;
        while (m < nmemo && !(memo[m].family == d->family && memo[m].unit == d->unit))
            m++;
        if (m < nmemo) {
            d->gpu_index = memo[m].gpu_index;
            memcpy(d->rdma_dev, memo[m].rdma_dev, sizeof d->rdma_dev);
            continue;
        }
        resolve_owner(roots, d);
        if (nmemo < sizeof memo / sizeof memo[0]) {
            memo[nmemo].family = d->family;
            memo[nmemo].unit = d->unit;
            memo[nmemo].gpu_index = d->gpu_index;
            memcpy(memo[nmemo].rdma_dev, d->rdma_dev, sizeof memo[nmemo].rdma_dev);
            nmemo++;
        }
    }
    pna_container_set_count_devices(set);
}

/* ---- the other way: the node of a device --------------------------------------------- */

/* The first entry of directory DIR named PREFIX<digits> for which
 * MATCH(dir, name, ctx) holds (MATCH NULL: any); its number, or -1. */
static int32_t find_numbered(const char *dir, const char *prefix,
                             bool (*match)(const char *dir, const char *name, const void *ctx),
                             const void *ctx)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int32_t found = -1;
    struct dirent *e;
    while (found < 0 && (e = readdir(d)) != NULL) {
        int32_t n = numbered(e->d_name, prefix);
        if (n >= 0 && (!match || match(dir, e->d_name, ctx)))
            found = n;
    }
    closedir(d);
    return found;
}

static bool names_ibdev(const char *dir, const char *node, const void *ibdev)
{
    char path[1024], name[64];
    if (snprintf(path, sizeof path, "%s/%s/ibdev", dir, node) >= (int)sizeof path ||
        pna_read_text(path, name, sizeof name) < 0)
        return false;
    return strcmp(name, ibdev) == 0;
}

int32_t pna_devmap_uverbs_of(const struct pna_roots *roots, const char *ibdev)
{
    char dir[512];
    if (!ibdev[0] || pna_path(dir, sizeof dir, roots->sysfs, "/class/infiniband_verbs") < 0)
        return -1;
    return find_numbered(dir, "uverbs", names_ibdev, ibdev);
}

int32_t pna_devmap_render_of_pci(const struct pna_roots *roots, const char *pci)
{
    char addr[32], dir[512];
    uint32_t key = pci_key_of(pci);
    if (!key) {   /* no domain: the one every GPU of a plain PCI node is in */
        snprintf(addr, sizeof addr, "0000:%.20s", pci);
        key = pci_key_of(addr);
    }
    if (!key)
        return -1;
    /* sysfs names the device by its canonical, lower-case address. */
    snprintf(addr, sizeof addr, "%04x:%02x:%02x.%x", key >> 16, (key >> 8) & 0xff,
             (key >> 3) & 0x1f, key & 7);
    if (pna_path(dir, sizeof dir, roots->sysfs, "/bus/pci/devices/%s/drm", addr) < 0)
        return -1;
    return find_numbered(dir, "renderD", NULL, NULL);
}

void pna_devmap_owner(const struct pna_roots *roots, struct pna_container_device *dev)
{
    resolve_owner(roots, dev);
}
