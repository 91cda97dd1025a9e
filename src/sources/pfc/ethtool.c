/* sources/pfc/ethtool.c -- driver statistics through the SIOCETHTOOL ioctl (see
 * ethtool.h).
 *
 * Three requests on one datagram socket: ETHTOOL_GSSET_INFO for the number of
 * statistics (ETHTOOL_GDRVINFO's n_stats on kernels without it), then
 * ETHTOOL_GSTRINGS for their names and ETHTOOL_GSTATS for their values.
 *
 * Kernel quirk: GSTRINGS and GSTATS ignore the count the caller passes and
 * write as many entries as the driver has *now*; a driver may change its count
 * between two requests (mlx5 adds per-channel counters when channels are
 * added).  So the buffers get headroom, the counts the kernel returns are
 * checked against the one the names were read for, and the sequence is
 * retried when they differ. */
#include "pna_autoconf.h"
#include "sources/pfc/ethtool.h"

#include <errno.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "util/fileio.h"

#define ATTEMPTS 3

static int ethtool_ioctl(int fd, const char *ifname, void *cmd)
{
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    pna_strlcpy(ifr.ifr_name, ifname, sizeof ifr.ifr_name);
    ifr.ifr_data = cmd;
    return ioctl(fd, SIOCETHTOOL, &ifr) == 0 ? 0 : -errno;
}

static const char *explain(int e)
{
    switch (e) {
    case -ENODEV:
        return "no such interface";
    case -EOPNOTSUPP:
        return "driver offers no statistics";
    case -EPERM:
    case -EACCES:
        return "permission denied";
    default:
        return strerror(-e);
    }
}

/* Number of ETH_SS_STATS strings, or -errno. */
static long stats_count(int fd, const char *ifname, struct ethtool_drvinfo *drv)
{
    /* struct ethtool_sset_info ends in a flexible array: one u32 follows. */
    uint64_t buf[(sizeof(struct ethtool_sset_info) + sizeof(uint32_t) + 7) / 8];
    struct ethtool_sset_info *ss = (struct ethtool_sset_info *)buf;
    memset(buf, 0, sizeof buf);
    ss->cmd = ETHTOOL_GSSET_INFO;
    ss->sset_mask = UINT64_C(1) << ETH_SS_STATS;
    int rc = ethtool_ioctl(fd, ifname, ss);
    if (rc == 0)
        return (ss->sset_mask & (UINT64_C(1) << ETH_SS_STATS)) ? (long)ss->data[0] : 0;
    if (rc != -EOPNOTSUPP)
        return rc;
    return drv->n_stats; /* old kernels: GDRVINFO's count */
}

/* One attempt: returns 0, -EAGAIN when the count moved, or -errno. */
static int read_once(int fd, const char *ifname, size_t n, struct pna_eth_stats *out)
{
    size_t room = n + n / 4 + 64; /* headroom: see the quirk at the top */
    struct ethtool_gstrings *gs = calloc(1, sizeof *gs + room * ETH_GSTRING_LEN);
    struct ethtool_stats *st = calloc(1, sizeof *st + room * sizeof(uint64_t));
    struct pna_eth_stat *v = calloc(n ? n : 1, sizeof *v);
    int rc = -ENOMEM;
    if (!gs || !st || !v)
        goto out;
    gs->cmd = ETHTOOL_GSTRINGS;
    gs->string_set = ETH_SS_STATS;
    gs->len = (uint32_t)n;
    if ((rc = ethtool_ioctl(fd, ifname, gs)) != 0)
        goto out;
    if (gs->len != n) {
        rc = -EAGAIN;
        goto out;
    }
    st->cmd = ETHTOOL_GSTATS;
    st->n_stats = (uint32_t)n;
    if ((rc = ethtool_ioctl(fd, ifname, st)) != 0)
        goto out;
    if (st->n_stats != n) {
        rc = -EAGAIN;
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        /* ETH_GSTRING_LEN octets, NUL-padded, and not NUL-ended at full length */
        memcpy(v[i].name, gs->data + i * ETH_GSTRING_LEN, ETH_GSTRING_LEN);
        v[i].name[ETH_GSTRING_LEN] = '\0';
        v[i].value = st->data[i];
    }
    out->v = v;
    out->n = n;
    v = NULL;
    rc = 0;
out:
    free(gs);
    free(st);
    free(v);
    return rc;
}

int pna_ethtool_read(const char *ifname, struct pna_eth_stats *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (!ifname || !ifname[0] || strlen(ifname) >= IFNAMSIZ) {
        snprintf(err, errlen, "'%.40s': not an interface name", ifname ? ifname : "");
        return -1;
    }
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        snprintf(err, errlen, "%s: socket: %s", ifname, strerror(errno));
        return -1;
    }
    struct ethtool_drvinfo drv;
    memset(&drv, 0, sizeof drv);
    drv.cmd = ETHTOOL_GDRVINFO;
    int rc = ethtool_ioctl(fd, ifname, &drv);
    if (rc == 0) {
        memcpy(out->driver, drv.driver, sizeof out->driver - 1);
        out->driver[sizeof out->driver - 1] = '\0';
    } else if (rc == -ENODEV) {
        goto fail;
    }
    for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
        long n = stats_count(fd, ifname, &drv);
        if (n < 0) {
            rc = (int)n;
            goto fail;
        }
        if (n > PNA_ETHTOOL_MAX_STATS) {
            close(fd);
            snprintf(err, errlen, "%s: driver reports %ld statistics, more than %d", ifname, n,
                     PNA_ETHTOOL_MAX_STATS);
            return -1;
        }
        if (n == 0) {
            rc = -EOPNOTSUPP;
            goto fail;
        }
        rc = read_once(fd, ifname, (size_t)n, out);
        if (rc != -EAGAIN)
            break;
    }
    if (rc == 0) {
        close(fd);
        return 0;
    }
    if (rc == -EAGAIN) {
        close(fd);
        snprintf(err, errlen, "%s: statistics count kept changing", ifname);
        return -1;
    }
fail:
    close(fd);
    snprintf(err, errlen, "%s: ethtool statistics: %s", ifname, explain(rc));
    return -1;
}

void pna_eth_stats_free(struct pna_eth_stats *st)
{
    if (!st)
        return;
    free(st->v);
    st->v = NULL;
    st->n = 0;
}
