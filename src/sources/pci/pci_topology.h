/* sources/pci/pci_topology.h -- the node's GPU and RDMA distance matrix from
 * the sysfs PCI hierarchy alone (pci_path.h), for `primus-node-agent --topo`. */
#ifndef PNA_SOURCES_PCI_TOPOLOGY_H
#define PNA_SOURCES_PCI_TOPOLOGY_H

#include <stddef.h>

#include "core/roots.h"
#include "model/topology/topo_matrix.h"

/* Fill M (overwritten) with the GPUs and RDMA devices under ROOTS, each one's
 * place and locality, and every pair's PCIe class.  Returns the number of
 * devices with a problem (each described in its error), or -errno when
 * /sys/bus/pci/devices cannot be listed. */
int pna_topo_collect(const struct pna_roots *roots, struct pna_topo_matrix *m);

/* Place every device of M (kind, label, name and pci_addr set by the
 * caller, links too) and classify every pair.  Returns the number of devices
 * with a problem, the first one's text in FIRST. */
int pna_topo_place_all(const struct pna_roots *roots, struct pna_topo_matrix *m, char *first,
                       size_t first_cap);

#endif
