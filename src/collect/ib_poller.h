/* collect/ib_poller.h -- the "ib" poller (RDMA devices and ports, PNA_DOM_IB)
 * and the "pfc" poller (pause/PFC counters of RoCE and configured netdevs,
 * PNA_DOM_PFC).  Their snapshots are struct pna_ib_snap (model/ib.h) and
 * struct pna_pfc_snap (model/pfc.h). */
#ifndef PNA_IB_POLLER_H
#define PNA_IB_POLLER_H

#include <stdbool.h>
#include <stddef.h>

#include "core/poller.h"

extern const struct pna_poller_ops pna_ib_poller;
extern const struct pna_poller_ops pna_pfc_poller;

/* Tests: the libibmad / libibverbs tables the next ib init() uses (NULL: not
 * used), and ANY_ROOTS to use them on a sysfs tree that is not the host's
 * own.  By default the real libraries where built, on the host's roots only. */
struct pna_ib_mad_ops;
struct pna_ib_verbs_ops;
void pna_ib_poller_set_ext_ops(const struct pna_ib_mad_ops *mad,
                               const struct pna_ib_verbs_ops *verbs, bool any_roots);

/* Tests: what the pfc poller reads an interface's statistics with (the
 * signature of pna_ethtool_read(), collect/ethtool.h; the result is freed
 * with pna_eth_stats_free()).  NULL restores the ethtool ioctl. */
struct pna_eth_stats;
typedef int pna_pfc_stats_reader(const char *ifname, struct pna_eth_stats *out, char *err,
                                 size_t errlen);
void pna_pfc_poller_set_reader(pna_pfc_stats_reader *reader);

#endif
