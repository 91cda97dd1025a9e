/* model/pcie.h -- the PCIe health of one PCI function: its link as trained
 * against what it can do, its AER error totals, and where it sits (NUMA node,
 * local CPUs).
 *
 * Filled by src/sources/pci/pcie_sysfs.c from /sys/bus/pci/devices/<addr>/; held by
 * the RDMA device (model/ib.h) and, for the locality, by the GPU.  Plain data:
 * nothing here knows sysfs or SNMP.
 *
 * Absent is not zero: every figure has its has_* flag, false when the file is
 * missing, unreadable or malformed.  A link in low power may report width 0
 * or speed "Unknown": that is unknown, never a downtrained link. */
#ifndef PNA_MODEL_PCIE_H
#define PNA_MODEL_PCIE_H

#include <stdbool.h>
#include <stdint.h>

#include "model/counter.h"   /* struct pna_counter */

/* local_cpulist text, NUL included: the MIB's DisplayString holds 255 octets. */
#define PNA_PCIE_CPULIST_CAP 256

struct pna_pcie {
    bool has_link_speed, has_max_link_speed;
    uint32_t link_speed_mtps;     /* per lane, MT/s: 2.5 GT/s is 2500, 64 GT/s 64000 */
    uint32_t max_link_speed_mtps;
    bool has_link_width, has_max_link_width;
    uint32_t link_width;          /* lanes, 1..32 */
    uint32_t max_link_width;
    /* Known when the current and maximum width and speed are all four known;
     * true when the width or the speed is below its maximum. */
    bool has_downtrained;
    bool downtrained;
    /* TOTAL_ERR_COR, TOTAL_ERR_NONFATAL, TOTAL_ERR_FATAL of aer_dev_*: counts
     * since the function appeared (the kernel keeps them per device). */
    struct pna_counter aer_correctable;
    struct pna_counter aer_nonfatal;
    struct pna_counter aer_fatal;
    bool has_numa_node;
    int32_t numa_node;            /* -1: the kernel says the device has none */
    bool has_local_cpus;
    char local_cpus[PNA_PCIE_CPULIST_CAP]; /* local_cpulist as written: "0-15,32-47" */
    char error[96];               /* the first file that could not be read or parsed, or "" */
};

#endif
