/* model/topology/topo_matrix.h -- the distance matrix of a node's GPUs and
 * RDMA devices: every pair's class (topo_class.h), each device's locality,
 * and the problem that kept a device's place unknown.  Printed as
 * `nvidia-smi topo -m` prints it (`primus-node-agent --topo`).
 *
 * Plain data, filled by sources/pci/pci_topology.c; nothing here reads sysfs. */
#ifndef PNA_MODEL_TOPOLOGY_TOPO_MATRIX_H
#define PNA_MODEL_TOPOLOGY_TOPO_MATRIX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "model/topology/topo_class.h"

#define PNA_TOPO_MAX_DEVICES 64

enum pna_topo_kind { PNA_TOPO_GPU, PNA_TOPO_NIC };

struct pna_topo_device {
    enum pna_topo_kind kind;
    char label[16];                    /* "GPU0", "NIC3": nvidia-smi's names */
    char name[32];                     /* RDMA device ("mlx5_0"); a GPU's PCI address */
    char pci_addr[PNA_PCI_ADDR_CAP];
    bool placed;                       /* false: path unread, see error */
    struct pna_pci_path path;
    char cpus[256];                    /* local_cpulist, or "" */
    char error[128];                   /* why the place is unknown, or "" */
};

struct pna_topo_matrix {
    unsigned count;                    /* GPUs first (PCI order), then NICs (name order) */
    unsigned gpus;
    struct pna_topo_device dev[PNA_TOPO_MAX_DEVICES];
    /* cls[i][j]: the PCIe class, or NVLINK where links[i][j] > 0 */
    unsigned char cls[PNA_TOPO_MAX_DEVICES][PNA_TOPO_MAX_DEVICES];
    unsigned char links[PNA_TOPO_MAX_DEVICES][PNA_TOPO_MAX_DEVICES];
};

/* Classify every pair of M's placed devices; a pair with a device not placed
 * is UNKNOWN.  Links already set in M->links make an NV# cell. */
void pna_topo_matrix_classify(struct pna_topo_matrix *m);

/* For GPU G, the NICs at its closest class (bits of NIC device indexes in
 * OUT, at most PNA_TOPO_MAX_DEVICES); returns that class, UNKNOWN for none. */
enum pna_topo_class pna_topo_nearest_nics(const struct pna_topo_matrix *m, unsigned g,
                                          bool out[PNA_TOPO_MAX_DEVICES]);

/* Is the GPU at PCI_ADDR one of M's devices? */
bool pna_topo_has_gpu(const struct pna_topo_matrix *m, const char *pci_addr);

/* The names of the RDMA devices nearest the GPU at PCI_ADDR, comma-separated
 * in matrix order ("mlx5_0,mlx5_3"), in BUF; false (BUF "") when M has no such
 * GPU or no NIC at a known class.  A name that does not fit whole is left out. */
bool pna_topo_nearest_text(const struct pna_topo_matrix *m, const char *pci_addr, char *buf,
                           size_t cap);

/* The matrix, the affinity columns, the legend and the NIC legend, tab
 * separated as `nvidia-smi topo -m` prints them; then one line per device
 * whose place is unknown. */
void pna_topo_matrix_print(const struct pna_topo_matrix *m, FILE *out);

#endif
