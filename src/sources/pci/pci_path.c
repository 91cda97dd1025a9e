/* sources/pci/pci_path.c -- the place of a PCI function in the hierarchy, and the
 * GPUs and RDMA devices of the node, from sysfs (see pci_path.h).
 *
 * The link /sys/bus/pci/devices/<addr> is resolved with realpath(3): the
 * kernel's links are relative, so this stays under the configured sysfs root,
 * and a loop of links ends in ELOOP rather than a wrong place.  Every function
 * on the way must itself be listed in /sys/bus/pci/devices: a parent that is
 * not there is reported, never skipped (skipping it would shorten the path and
 * could turn PXB into PIX). */
#include "pna_autoconf.h"
#include "sources/pci/pci_path.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sources/pci/pcie_sysfs.h"
#include "util/fileio.h"

#define BUS_DEVICES "/bus/pci/devices"

/* "0000:1b:00.0": four, two and two hex digits, then one function digit 0-7. */
static int is_pci_addr(const char *s)
{
    static const char shape[] = "xxxx:xx:xx.f";
    for (size_t i = 0; i < sizeof shape - 1; i++) {
        if (shape[i] == 'x' ? !isxdigit((unsigned char)s[i])
            : shape[i] == 'f' ? (s[i] < '0' || s[i] > '7') : s[i] != shape[i])
            return 0;
    }
    return s[sizeof shape - 1] == '\0';
}

/* "pci0000:5d": the host bridge's directory. */
static int is_host_bridge(const char *s)
{
    if (strncmp(s, "pci", 3) != 0 || strlen(s) != 10 || s[7] != ':')
        return 0;
    for (int i = 3; i < 10; i++)
        if (i != 7 && !isxdigit((unsigned char)s[i]))
            return 0;
    return 1;
}

static int fail(char *err, size_t cap, int rc, const char *fmt, const char *a, const char *b)
{
    snprintf(err, cap, fmt, a, b);
    return rc;
}

/* Is ADDR listed in /sys/bus/pci/devices? */
static int listed(const struct pna_roots *roots, const char *addr)
{
    char p[PATH_MAX];
    struct stat st;
    return pna_path(p, sizeof p, roots->sysfs, BUS_DEVICES "/%s", addr) == 0 && stat(p, &st) == 0;
}

int pna_pci_path_parse(const char *rel, const char *addr, struct pna_pci_path *out, char *err,
                       size_t cap)
{
    memset(out, 0, sizeof *out);
    out->numa_node = -1;
    char copy[PATH_MAX];
    if (strlen(rel) >= sizeof copy)
        return fail(err, cap, -EINVAL, "%s: path too long%s", addr, "");
    pna_strlcpy(copy, rel, sizeof copy);
    char *save = NULL;
    char *part = strtok_r(copy, "/", &save);
    if (!part || !is_host_bridge(part))
        return fail(err, cap, -EINVAL, "%s: not under a PCI host bridge (%.40s)", addr,
                    part ? part : "");
    pna_strlcpy(out->host_bridge, part, sizeof out->host_bridge);
    while ((part = strtok_r(NULL, "/", &save)) != NULL) {
        if (!is_pci_addr(part))
            return fail(err, cap, -ENOENT, "%s: parent %.40s is not a PCI function", addr, part);
        if (out->depth == PNA_PCI_PATH_MAX)
            return fail(err, cap, -EINVAL, "%s: deeper than %s functions", addr, "16");
        pna_strlcpy(out->hops[out->depth++], part, PNA_PCI_ADDR_CAP);
    }
    if (out->depth == 0 || strcmp(out->hops[out->depth - 1], addr) != 0)
        return fail(err, cap, -EINVAL, "%s: its link names another function (%.16s)", addr,
                    out->depth ? out->hops[out->depth - 1] : "none");
    return 0;
}

/* Every parent on OUT's way must be a function the kernel lists. */
static int parents_listed(const struct pna_roots *roots, const char *addr,
                          const struct pna_pci_path *out, char *err, size_t cap)
{
    for (unsigned i = 0; i + 1 < out->depth; i++)
        if (!listed(roots, out->hops[i]))
            return fail(err, cap, -ENOENT, "%s: parent %.16s missing from bus/pci/devices", addr,
                        out->hops[i]);
    return 0;
}

/* The part of the resolved link under <sysfs>/devices/, or NULL. */
static const char *under_devices(const char *resolved, const char *sysfs_real)
{
    size_t n = strlen(sysfs_real);
    if (strcmp(sysfs_real, "/") == 0)
        n = 0;
    if (strncmp(resolved, sysfs_real, n) != 0 || strncmp(resolved + n, "/devices/", 9) != 0)
        return NULL;
    return resolved + n + 9;
}

static void read_numa(const struct pna_roots *roots, const char *addr, struct pna_pci_path *out)
{
    struct pna_pcie loc;
    pna_pcie_read_locality(roots, addr, &loc);
    out->has_numa_node = loc.has_numa_node && loc.numa_node >= 0;
    out->numa_node = out->has_numa_node ? loc.numa_node : -1;
}

int pna_pci_path_read(const struct pna_roots *roots, const char *pci_addr,
                      struct pna_pci_path *out, char *err, size_t err_cap)
{
    memset(out, 0, sizeof *out);
    out->numa_node = -1;
    err[0] = '\0';
    if (!is_pci_addr(pci_addr))
        return fail(err, err_cap, -EINVAL, "not a PCI address: '%.24s'%s", pci_addr, "");
    char link[PATH_MAX], resolved[PATH_MAX], sysfs_real[PATH_MAX];
    if (pna_path(link, sizeof link, roots->sysfs, BUS_DEVICES "/%s", pci_addr) != 0)
        return fail(err, err_cap, -ENAMETOOLONG, "%s: path too long%s", pci_addr, "");
    if (!realpath(roots->sysfs, sysfs_real))
        return fail(err, err_cap, -errno, "sysfs root %.64s: %s", roots->sysfs, strerror(errno));
    if (!realpath(link, resolved)) {
        int e = errno;
        return fail(err, err_cap, -e,
                    e == ELOOP ? "%s: a loop of links (%s)" : "%s: its link leads nowhere (%s)",
                    pci_addr, strerror(e));
    }
    const char *rel = under_devices(resolved, sysfs_real);
    if (!rel)
        return fail(err, err_cap, -EINVAL, "%s: not under devices/ (%.60s)", pci_addr, resolved);
    int rc = pna_pci_path_parse(rel, pci_addr, out, err, err_cap);
    if (rc == 0)
        rc = parents_listed(roots, pci_addr, out, err, err_cap);
    if (rc == 0)
        read_numa(roots, pci_addr, out);
    return rc;
}

/* ---- the node's GPUs and RDMA devices ---------------------------------------- */

static int read_hex_attr(const struct pna_roots *roots, const char *addr, const char *name,
                         uint64_t *v)
{
    char p[PATH_MAX];
    if (pna_path(p, sizeof p, roots->sysfs, BUS_DEVICES "/%s/%s", addr, name) != 0)
        return -ENAMETOOLONG;
    return pna_read_hex_u64(p, v);
}

static int is_gpu(const struct pna_roots *roots, const char *addr)
{
    uint64_t vendor, cls;
    if (read_hex_attr(roots, addr, "vendor", &vendor) != 0 ||
        read_hex_attr(roots, addr, "class", &cls) != 0)
        return 0;
    if (vendor != 0x10de && vendor != 0x1002)
        return 0;
    unsigned base = (unsigned)(cls >> 8);
    return base == 0x0300 || base == 0x0302 || base == 0x0380 || base == 0x1200;
}

static int by_addr(const void *a, const void *b)
{
    return strcmp(((const struct pna_pci_endpoint *)a)->pci_addr,
                  ((const struct pna_pci_endpoint *)b)->pci_addr);
}

/* mlx5_2 before mlx5_10: runs of digits compare as numbers. */
static int natural_cmp(const char *a, const char *b)
{
    while (*a && *b) {
        if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
            unsigned long x = strtoul(a, (char **)&a, 10), y = strtoul(b, (char **)&b, 10);
            if (x != y)
                return x < y ? -1 : 1;
            continue;
        }
        if (*a != *b)
            return (unsigned char)*a - (unsigned char)*b;
        a++, b++;
    }
    return (unsigned char)*a - (unsigned char)*b;
}

static int by_name(const void *a, const void *b)
{
    return natural_cmp(((const struct pna_pci_endpoint *)a)->name,
                       ((const struct pna_pci_endpoint *)b)->name);
}

int pna_pci_list_gpus(const struct pna_roots *roots, struct pna_pci_endpoint *out, size_t cap)
{
    char dir[PATH_MAX];
    if (pna_path(dir, sizeof dir, roots->sysfs, BUS_DEVICES) != 0)
        return -ENAMETOOLONG;
    DIR *d = opendir(dir);
    if (!d)
        return -errno;
    size_t n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL && n < cap;) {
        if (!is_pci_addr(e->d_name) || !is_gpu(roots, e->d_name))
            continue;
        memset(&out[n], 0, sizeof out[n]);
        pna_strlcpy(out[n++].pci_addr, e->d_name, PNA_PCI_ADDR_CAP);
    }
    closedir(d);
    qsort(out, n, sizeof *out, by_addr);
    return (int)n;
}

/* The function an RDMA device's `device` link names: its last component. */
static int rdma_function(const char *dir, const char *name, char *addr, size_t cap)
{
    char p[PATH_MAX], target[PATH_MAX];
    if ((size_t)snprintf(p, sizeof p, "%s/%s/device", dir, name) >= sizeof p)
        return -ENAMETOOLONG;
    ssize_t len = readlink(p, target, sizeof target - 1);
    if (len < 0)
        return -errno;
    target[len] = '\0';
    const char *last = strrchr(target, '/');
    last = last ? last + 1 : target;
    if (!is_pci_addr(last))
        return -EINVAL;
    pna_strlcpy(addr, last, cap);
    return 0;
}

int pna_pci_list_rdma(const struct pna_roots *roots, struct pna_pci_endpoint *out, size_t cap)
{
    char dir[PATH_MAX];
    if (pna_path(dir, sizeof dir, roots->sysfs, "/class/infiniband") != 0)
        return -ENAMETOOLONG;
    DIR *d = opendir(dir);
    if (!d)
        return errno == ENOENT ? 0 : -errno;
    size_t n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL && n < cap;) {
        if (e->d_name[0] == '.' || strlen(e->d_name) >= sizeof out[n].name)
            continue;
        memset(&out[n], 0, sizeof out[n]);
        if (rdma_function(dir, e->d_name, out[n].pci_addr, sizeof out[n].pci_addr) != 0)
            continue;
        pna_strlcpy(out[n].name, e->d_name, sizeof out[n].name);
        n++;
    }
    closedir(d);
    qsort(out, n, sizeof *out, by_name);
    return (int)n;
}
