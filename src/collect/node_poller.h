/* collect/node_poller.h -- the node domain's snapshot as served from the cache. */
#ifndef PNA_NODE_POLLER_H
#define PNA_NODE_POLLER_H

#include "core/cache.h"
#include "model/node.h"
#include "core/poller.h"

struct pna_node_snap {
    struct pna_snap snap; /* first: the cache handles it as a struct pna_snap */
    struct pna_node node;
};

extern const struct pna_poller_ops pna_node_poller;

#endif
