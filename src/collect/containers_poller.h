/* containers_poller.h -- the pollers of the containers area, for the registry
 * in src/pollers.c: containers (index 5), kubelet (6), storage (7). */
#ifndef PNA_COLLECT_CONTAINERS_POLLER_H
#define PNA_COLLECT_CONTAINERS_POLLER_H

#include "core/poller.h"

extern const struct pna_poller_ops pna_containers_poller;
extern const struct pna_poller_ops pna_kubelet_poller;
extern const struct pna_poller_ops pna_storage_poller;

#endif
