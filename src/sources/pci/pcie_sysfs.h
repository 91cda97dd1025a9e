/* sources/pci/pcie_sysfs.h -- the PCIe link, AER totals and locality of one PCI
 * function, from /sys/bus/pci/devices/<addr>/ under the sysfs root.  Plain,
 * bounded file reads (util/fileio.h); no capability needed. */
#ifndef PNA_SOURCES_PCIE_SYSFS_H
#define PNA_SOURCES_PCIE_SYSFS_H

#include <stdint.h>

#include "core/roots.h"
#include "model/pcie.h"

/* Read current_link_speed, max_link_speed, current_link_width,
 * max_link_width, aer_dev_correctable, aer_dev_nonfatal, aer_dev_fatal,
 * numa_node and local_cpulist of PCI_ADDR ("0000:5e:00.0") into OUT (which
 * is overwritten) and judge the link (OUT->downtrained).  A missing file
 * leaves its figure absent; a file that is there but unreadable or malformed
 * does too, and is counted.  Returns the number of such files (0: all well),
 * the first described in OUT->error; an address that is not a PCI address
 * reads nothing and counts 1. */
int pna_pcie_read(const struct pna_roots *roots, const char *pci_addr, struct pna_pcie *out);

/* Only numa_node and local_cpulist (the GPU's locality); same rules. */
int pna_pcie_read_locality(const struct pna_roots *roots, const char *pci_addr,
                           struct pna_pcie *out);

/* The parsers, for the tests and the fuzz harness.  Each returns 0, or
 * -EINVAL for text it does not recognise.
 *
 * A link speed as the kernel writes it, "16.0 GT/s PCIe" (5.x and later) or
 * "8 GT/s" (older kernels), in MT/s; "Unknown" and "Unknown speed" (a link
 * in low power, or not trained) are -ENODATA. */
int pna_pcie_parse_speed(const char *text, uint32_t *mtps);
/* A width in lanes, 1..32, decimal; 0 (a link in low power) is -ENODATA. */
int pna_pcie_parse_width(const char *text, uint32_t *lanes);
/* The value of the line "KEY N" of an aer_dev_* file ("TOTAL_ERR_COR 3").
 * The file's lines are "NAME N"; a line of another shape is -EINVAL, a file
 * without KEY -ENOENT, a value beyond 64 bits -ERANGE. */
int pna_pcie_parse_aer(const char *text, const char *key, uint64_t *out);
/* numa_node: a decimal number, or -1 for none. */
int pna_pcie_parse_numa(const char *text, int32_t *node);

#endif
