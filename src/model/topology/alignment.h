/* model/topology/alignment.h -- the alignment verdict of one holder (a pod, a
 * Slurm job) over the GPUs and RDMA devices it holds, from the node's distance
 * matrix (topo_matrix.h).  The same shape as the lossless verdict
 * (model/lossless/lossless.h): a verdict and a reason that names the pair.
 *
 * The rule: every held GPU should have one of the holder's own RDMA devices
 * at PIX or PXB (aligned); else one on its NUMA node, at PHB or NODE
 * (sameNode); else it is misaligned (its NCCL traffic crosses the socket
 * interconnect).  A holder with no GPU or no RDMA device is not judged.
 * Plain data and pure rules. */
#ifndef PNA_MODEL_TOPOLOGY_ALIGNMENT_H
#define PNA_MODEL_TOPOLOGY_ALIGNMENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/topology/topo_matrix.h"

enum pna_alignment_verdict {
    PNA_ALIGN_UNKNOWN = 0,        /* not judged yet */
    PNA_ALIGN_ALIGNED = 1,        /* every GPU has an own NIC at PIX or PXB */
    PNA_ALIGN_SAME_NODE = 2,      /* the worst GPU's nearest own NIC is at PHB or NODE */
    PNA_ALIGN_MISALIGNED = 3,     /* a GPU has no own NIC on its NUMA node (SYS) */
    PNA_ALIGN_UNREADABLE = 4,     /* a GPU's distance to every own NIC is unknown */
    PNA_ALIGN_NOT_APPLICABLE = 5, /* no GPU, or no RDMA device: not judged */
};

struct pna_alignment {
    uint8_t verdict;              /* enum pna_alignment_verdict */
    char reason[256];             /* each GPU that is not aligned and its nearest own NIC,
                                     "; "-separated, worst first; "" when aligned */
    int worst_gpu, worst_nic;     /* matrix indexes of the pair the reason starts with, -1 */
};

/* The MIB's names of the verdicts, by value; [0] is "". */
extern const char *const pna_alignment_verdict_names[PNA_ALIGN_NOT_APPLICABLE + 1];

/* The verdict of a holder of the GPUs GPUS[0..NGPU) and the RDMA devices
 * NICS[0..NNIC) (indexes into M's devices). */
void pna_alignment_judge(const struct pna_topo_matrix *m, const unsigned *gpus, size_t ngpu,
                         const unsigned *nics, size_t nnic, struct pna_alignment *out);

/* True when the verdict CUR is worse than PREV (aligned, then sameNode,
 * then misaligned): the change a notification is sent for.  Unknown, not
 * applicable and unreadable are neither better nor worse. */
bool pna_alignment_worse(uint8_t prev, uint8_t cur);

#endif
