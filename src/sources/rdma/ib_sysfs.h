/* sources/rdma/ib_sysfs.h -- read RDMA devices and ports from
 * /sys/class/infiniband. */
#ifndef PNA_SOURCES_IB_SYSFS_H
#define PNA_SOURCES_IB_SYSFS_H

#include <stddef.h>

#include "model/ib.h"
#include "core/roots.h"

/* Bounds on what one poll reads: a tree beyond them is cut, and that is
 * reported as a problem (a real node has a handful of devices and ports). */
#define PNA_IB_MAX_DEVICES 256
#define PNA_IB_MAX_PORTS 256
#define PNA_IB_MAX_HW_COUNTERS 1024

/* Read every RDMA device under ROOTS->sysfs/class/infiniband into OUT (which is
 * overwritten; free it with pna_ib_model_free()).  Each file is read once, with
 * the bounded non-blocking helpers of util/fileio.h; nothing is forked.
 *
 * A node without the directory has no RDMA devices: 0 and an empty model.
 * Unreadable or malformed files leave the value unknown/absent, are counted in
 * OUT->problems with the first one described in OUT->problem (and in the
 * device's or port's error text), and the rest is still read: 0.
 * Returns -1 with ERR filled only when the directory exists but cannot be
 * listed, or memory runs out.
 *
 * Widened hw counters, congestion view and rates are not computed here: call
 * pna_ib_derive() afterwards. */
int pna_ib_sysfs_read(const struct pna_roots *roots, struct pna_ib_model *out, char *err,
                      size_t errlen);

#endif
