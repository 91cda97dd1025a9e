/* sources/pfc/ethtool.h -- a network interface's driver statistics (what
 * `ethtool -S` prints), read in-process with the SIOCETHTOOL ioctl: no fork, no
 * parsing of a command's output.  The names and their meaning belong to the
 * driver; see pfc_names.h for the pause/PFC ones. */
#ifndef PNA_SOURCES_ETHTOOL_H
#define PNA_SOURCES_ETHTOOL_H

#include <stddef.h>

#include "model/pfc.h"   /* struct pna_eth_stat */

/* More statistics than this is taken as a broken driver answer. */
#define PNA_ETHTOOL_MAX_STATS 65536

struct pna_eth_stats {
    char driver[32];            /* ETHTOOL_GDRVINFO driver name, "" if not given */
    struct pna_eth_stat *v;     /* in the driver's order */
    size_t n;
};

/* Read IFNAME's statistics in the calling thread's network namespace.
 * Returns 0 with OUT filled (free with pna_eth_stats_free()), or -1 with one
 * line in ERR (no such interface, driver without statistics, permission...). */
int pna_ethtool_read(const char *ifname, struct pna_eth_stats *out, char *err, size_t errlen);

void pna_eth_stats_free(struct pna_eth_stats *st);

#endif
