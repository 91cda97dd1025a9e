/* devmap.c -- classify container device nodes as GPU, RDMA or other (see devmap.h). */
#include "config.h"
#include "collect/devmap.h"
#include "roots.h"
#include "util/fileio.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static void set(struct pna_ctr_device *dev, enum pna_dev_kind kind, enum pna_dev_family fam,
                int32_t unit)
{
    dev->kind = (uint8_t)kind;
    dev->family = (uint8_t)fam;
    dev->unit = unit;
}

static bool classify_by_path(struct pna_ctr_device *dev)
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
static bool classify_by_number(struct pna_ctr_device *dev)
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

void pna_devmap_classify(struct pna_ctr_device *dev)
{
    set(dev, PNA_DEV_OTHER, PNA_DEVF_OTHER, -1);
    if (classify_by_path(dev))
        return;
    classify_by_number(dev);
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
