/* sources/pfc/ecn.c -- the mlx5 ECN/CNP files and the RDMA CM default ToS
 * (see ecn.h).
 *
 * Layout read, for interface IF under the sysfs root:
 *   class/net/IF/ecn/roce_np/enable/<prio>   1 or 0: the port marks CNPs
 *                                            for priority prio (notification point)
 *   class/net/IF/ecn/roce_rp/enable/<prio>   1 or 0: the port slows down on
 *                                            CNPs (reaction point)
 *   class/net/IF/ecn/roce_np/cnp_dscp        0..63, the DSCP CNPs are sent with
 *   class/net/IF/ecn/roce_np/cnp_802p_prio   0..7, their 802.1p priority
 * and kernel/config/rdma_cm/DEV/ports/N/default_roce_tos (0..255).
 * The ecn directory is mlx5_core's as MLNX_OFED builds it; where it is
 * missing, present is false and nothing else is read.  All of these files
 * are printed in decimal; anything else (a hex or empty value, a value out
 * of its range) is treated as unreadable. */
#include "pna_autoconf.h"
#include "sources/pfc/ecn.h"

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "util/fileio.h"

/* A name that stays one path component: not empty, no '/', not "." or "..". */
static bool plain_name(const char *s)
{
    return s && s[0] && !strchr(s, '/') && strcmp(s, ".") != 0 && strcmp(s, "..") != 0;
}

/* The decimal number in PATH if it is at most MAX, else -1. */
static int read_bounded(const char *path, uint64_t max)
{
    uint64_t v;
    if (pna_read_u64(path, &v) != 0 || v > max)
        return -1;
    return (int)v;
}

/* <sysfs>/class/net/IFNAME/ecn/REL, or -1 (see read_bounded). */
static int read_ecn_file(const struct pna_roots *roots, const char *ifname, const char *rel,
                         uint64_t max)
{
    char path[PATH_MAX];
    if (pna_path(path, sizeof path, roots->sysfs, "/class/net/%s/ecn/%s", ifname, rel) != 0)
        return -1;
    return read_bounded(path, max);
}

/* The eight enable/<prio> files of DIR (roce_np or roce_rp): bit p of
 * *KNOWN when file p reads 0 or 1, bit p of *ENABLED when it reads 1. */
static void read_enables(const struct pna_roots *roots, const char *ifname, const char *dir,
                         uint8_t *known, uint8_t *enabled)
{
    for (unsigned prio = 0; prio < PNA_LOSSLESS_PRIOS; prio++) {
        char rel[32];
        snprintf(rel, sizeof rel, "%s/enable/%u", dir, prio);
        int v = read_ecn_file(roots, ifname, rel, 1);
        if (v < 0)
            continue;
        *known |= (uint8_t)(1u << prio);
        if (v == 1)
            *enabled |= (uint8_t)(1u << prio);
    }
}

void pna_ecn_read(const struct pna_roots *roots, const char *ifname, struct pna_ecn *out)
{
    memset(out, 0, sizeof *out);
    out->cnp_dscp = -1;
    out->cnp_802p_prio = -1;
    char path[PATH_MAX];
    struct stat st;
    if (!plain_name(ifname) ||
        pna_path(path, sizeof path, roots->sysfs, "/class/net/%s/ecn", ifname) != 0 ||
        stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
        return;
    out->present = true;
    read_enables(roots, ifname, "roce_np", &out->np_known, &out->np_enabled);
    read_enables(roots, ifname, "roce_rp", &out->rp_known, &out->rp_enabled);
    out->cnp_dscp = (int16_t)read_ecn_file(roots, ifname, "roce_np/cnp_dscp", 63);
    out->cnp_802p_prio = (int16_t)read_ecn_file(roots, ifname, "roce_np/cnp_802p_prio", 7);
}

int16_t pna_roce_tos_read(const struct pna_roots *roots, const char *rdma_device, unsigned port)
{
    char path[PATH_MAX];
    if (!plain_name(rdma_device) ||
        pna_path(path, sizeof path, roots->sysfs,
                 "/kernel/config/rdma_cm/%s/ports/%u/default_roce_tos", rdma_device, port) != 0)
        return -1;
    return (int16_t)read_bounded(path, 255);
}
