/* collect/ib_poller.h -- the "ib" poller (RDMA devices and ports, PNA_DOM_IB)
 * and the "pfc" poller (pause/PFC counters of RoCE and configured netdevs,
 * PNA_DOM_PFC).  Their snapshots are struct pna_ib_snap (model/ib.h) and
 * struct pna_pfc_snap (model/pfc.h). */
#ifndef PNA_IB_POLLER_H
#define PNA_IB_POLLER_H

#include "poller.h"

extern const struct pna_poller_ops pna_ib_poller;
extern const struct pna_poller_ops pna_pfc_poller;

#endif
