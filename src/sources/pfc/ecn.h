/* sources/pfc/ecn.h -- mlx5's RoCE congestion control switches (DCQCN) and
 * CNP marking under /sys/class/net/IF/ecn, and the RDMA CM default ToS of an
 * RDMA port under configfs (/sys/kernel/config/rdma_cm).  Plain file reads
 * under the sysfs root; every value decimal. */
#ifndef PNA_SOURCES_ECN_H
#define PNA_SOURCES_ECN_H

#include <stdint.h>

#include "core/roots.h"
#include "model/lossless/lossless.h"

/* Read <sysfs>/class/net/IFNAME/ecn: roce_np/enable/<0..7>,
 * roce_rp/enable/<0..7>, roce_np/cnp_dscp and roce_np/cnp_802p_prio into
 * OUT.  OUT->present says whether the ecn directory exists (mlx5 only); a
 * file missing or not holding a value in range leaves its bit unknown or its
 * value -1. */
void pna_ecn_read(const struct pna_roots *roots, const char *ifname, struct pna_ecn *out);

/* The ToS RDMA CM gives RoCE connections of port PORT of RDMA_DEVICE,
 * <sysfs>/kernel/config/rdma_cm/RDMA_DEVICE/ports/PORT/default_roce_tos
 * (0..255), or -1 when absent or malformed.  The directory exists only once
 * someone has created it (mkdir in configfs, as `cma_roce_tos` does); the
 * agent only reads, never creates it. */
int16_t pna_roce_tos_read(const struct pna_roots *roots, const char *rdma_device, unsigned port);

#endif
