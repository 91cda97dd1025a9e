/* model/topology/topo_class.h -- how far apart two PCI functions are, in the
 * classes `nvidia-smi topo -m` prints, from where each sits in the PCI
 * hierarchy (what sources/pci/pci_path.c reads from sysfs).
 *
 * Plain data and one pure rule; nothing here knows sysfs, SNMP or Prometheus.
 *
 * A function's place is its host bridge (the sysfs "pci0000:00" directory),
 * then every PCI function from the root port down to itself.  Below a root
 * port a PCIe hierarchy alternates switch upstream and downstream ports: the
 * bridge two levels under the host bridge is a switch's upstream port, the one
 * under it a downstream port of that switch, and so on.  One switch is what
 * NVML calls a single PCIe bridge (NCCL folds the two levels the same way). */
#ifndef PNA_MODEL_TOPOLOGY_TOPO_CLASS_H
#define PNA_MODEL_TOPOLOGY_TOPO_CLASS_H

#include <stdbool.h>
#include <stdint.h>

/* "0000:5e:00.0" and "pci0000:5d", NUL included. */
#define PNA_PCI_ADDR_CAP 16
/* Functions from the root port down; real trees are 2 to 8 deep. */
#define PNA_PCI_PATH_MAX 16

struct pna_pci_path {
    char host_bridge[PNA_PCI_ADDR_CAP];               /* "pci0000:5d" */
    unsigned depth;                                   /* functions in hops[], 1..PNA_PCI_PATH_MAX */
    char hops[PNA_PCI_PATH_MAX][PNA_PCI_ADDR_CAP];    /* root port first, the function itself last */
    bool has_numa_node;                               /* false: numa_node missing or -1 */
    int32_t numa_node;
};

/* The classes, closest first.  The number is the rank served as
 * primusTopoDistance and primus_topology_distance: smaller is closer.
 * UNKNOWN is never a guess: the tree does not say (a NUMA node of -1 on a
 * pair that crosses host bridges, a device whose place could not be read). */
enum pna_topo_class {
    PNA_TOPO_UNKNOWN = 0,
    PNA_TOPO_SELF = 1,    /* X: the same function */
    PNA_TOPO_NVLINK = 2,  /* NV#: NVLink or XGMI between two GPUs */
    PNA_TOPO_PIX = 3,     /* at most one PCIe switch */
    PNA_TOPO_PXB = 4,     /* several switches, no host bridge */
    PNA_TOPO_PHB = 5,     /* through one host bridge */
    PNA_TOPO_NODE = 6,    /* across host bridges of one NUMA node */
    PNA_TOPO_SYS = 7,     /* across NUMA nodes (the socket interconnect) */
};
#define PNA_TOPO_CLASS_COUNT 8

/* "X", "NV", "PIX", "PXB", "PHB", "NODE", "SYS", "unknown". */
const char *pna_topo_class_name(enum pna_topo_class c);

/* The PCIe class of A and B.  UNKNOWN only when they hang off different host
 * bridges and either NUMA node is unknown. */
enum pna_topo_class pna_topo_classify(const struct pna_pci_path *a, const struct pna_pci_path *b);

/* With NVLINKS (active NVLink or XGMI links between two GPUs, 0 for none)
 * the link wins over any PCIe class but SELF, as in nvidia-smi's matrix. */
enum pna_topo_class pna_topo_with_links(enum pna_topo_class pcie, unsigned nvlinks);

/* The matrix cell as nvidia-smi prints it: " X ", "NV18", "PIX", ... */
void pna_topo_cell_text(enum pna_topo_class c, unsigned nvlinks, char *buf, unsigned cap);

#endif
