/* model/topology/topology.h -- the topology domain's snapshot (PNA_DOM_TOPOLOGY):
 * the distance matrix of the GPUs the gpu poller found and the RDMA devices
 * the ib poller found, and one row per ordered pair for primusTopoTable.
 *
 * The topology poller builds it from its inputs (the gpu and ib snapshots:
 * which devices, their PCI addresses, the GPUs' NVLink and XGMI links) and the
 * sysfs PCI hierarchy (their places).  Immutable once published. */
#ifndef PNA_MODEL_TOPOLOGY_TOPOLOGY_H
#define PNA_MODEL_TOPOLOGY_TOPOLOGY_H

#include <stddef.h>
#include <stdint.h>

#include "core/cache.h"
#include "model/topology/topo_matrix.h"

/* One row of primusTopoTable: devices A and B, by name: a GPU's "GPU<index>"
 * (primusGpuIndex), an RDMA device's own name ("mlx5_0"). */
struct pna_topo_pair {
    char a[32], b[32];
    uint32_t cls;                 /* enum pna_topo_class */
    uint32_t nvlinks;             /* NVLink or XGMI links between two GPUs */
    bool gpus;                    /* both are GPUs (nvlinks is served) */
};

struct pna_topo_snap {
    struct pna_snap base;         /* first: the cache handles it as a struct pna_snap */
    struct pna_topo_matrix matrix;
    size_t pair_count;            /* count * (count - 1): every ordered pair, A != B */
    struct pna_topo_pair *pairs;  /* owned by the snapshot */
};

#endif
