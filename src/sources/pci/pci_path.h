/* sources/pci/pci_path.h -- where a PCI function sits in the PCI hierarchy,
 * and which GPUs and RDMA devices a node has, from sysfs alone (no driver
 * call: it answers while a GPU driver hangs).
 *
 * /sys/bus/pci/devices/<addr> is a link to
 * /sys/devices/pci<domain>:<bus>/<root port>/.../<addr>: the host bridge, then
 * every function on the way down.  Plain, bounded reads; no capability. */
#ifndef PNA_SOURCES_PCI_PATH_H
#define PNA_SOURCES_PCI_PATH_H

#include <stddef.h>

#include "core/roots.h"
#include "model/topology/topo_class.h"

/* Fill OUT with the place of PCI_ADDR ("0000:1b:00.0") and its NUMA node.
 * Returns 0, or -errno with one line in ERR naming the function and what is
 * wrong: a loop of links (-ELOOP), a link to nowhere or a parent that is not
 * a PCI function in /sys/bus/pci/devices (-ENOENT), a path that is not under a
 * host bridge or deeper than PNA_PCI_PATH_MAX (-EINVAL).  A numa_node of -1 is
 * not an error here (OUT->has_numa_node is false); the pair that needs it is
 * the caller's problem. */
int pna_pci_path_read(const struct pna_roots *roots, const char *pci_addr,
                      struct pna_pci_path *out, char *err, size_t err_cap);

/* The parser under pna_pci_path_read(), for the tests and the fuzz harness:
 * REL is the resolved link below <sysfs>/devices/
 * ("pci0000:15/0000:15:01.0/0000:16:00.0/0000:18:00.0"), ADDR the function it
 * must end in.  OUT's NUMA node is left unknown.  Returns 0, -EINVAL (not
 * under a host bridge, too deep, ending elsewhere) or -ENOENT (a component
 * that is not a PCI function), with ERR filled. */
int pna_pci_path_parse(const char *rel, const char *addr, struct pna_pci_path *out, char *err,
                       size_t err_cap);

/* One GPU or RDMA device found under the sysfs root. */
struct pna_pci_endpoint {
    char name[32];                 /* RDMA: the device name ("mlx5_0"); GPU: "" */
    char pci_addr[PNA_PCI_ADDR_CAP];
};

/* The GPUs: functions of /sys/bus/pci/devices whose vendor is NVIDIA (0x10de)
 * or AMD (0x1002) and whose class is a display controller (0x0300, 0x0302,
 * 0x0380) or a processing accelerator (0x1200, the MI300 series), in PCI
 * address order (the order nvidia-smi numbers them).  At most CAP; returns the
 * count, or -errno when the directory cannot be read. */
int pna_pci_list_gpus(const struct pna_roots *roots, struct pna_pci_endpoint *out, size_t cap);

/* The RDMA devices of /sys/class/infiniband with the PCI function their
 * `device` link names, in natural name order (mlx5_2 before mlx5_10).  A device
 * without a PCI function (rxe, siw) is left out.  Same return. */
int pna_pci_list_rdma(const struct pna_roots *roots, struct pna_pci_endpoint *out, size_t cap);

#endif
