/* sources/rdma/ib_mad.h -- 64-bit port traffic counters from the port's own
 * Performance Management Agent (PMA), read with libibmad over umad: the
 * PortCountersExtended attribute, for InfiniBand ports whose sysfs counters are
 * only the 32-bit PortCounters ones (old kernels, HCAs whose kernel driver does
 * not use the extended attribute).
 *
 * The decision logic (which ports are queried, when a port is given up, what
 * is served after a failure) lives here and is tested with a stub library
 * (struct pna_ib_mad_ops); the libibmad calls themselves sit behind that
 * table in ib_mad.c, built only with HAVE_IBMAD.
 *
 * libibmad and libibumad read the process's own /sys and /dev, whatever the
 * agent's --sysfs says, and print warnings on stderr when a device cannot be
 * opened or a MAD times out.  So: the poller uses this only when the roots are
 * the host's own (pna_ib_host_roots()); a port is queried only when sysfs
 * shows it ACTIVE, InfiniBand, with a LID and a umad device the agent may
 * open; and a port whose open or first query fails is never tried again, so a
 * library warning appears at most once per port.
 *
 * Thread ownership: one struct pna_ib_mad belongs to the ib poller thread. */
#ifndef PNA_SOURCES_IB_MAD_H
#define PNA_SOURCES_IB_MAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/ib.h"
#include "core/roots.h"

/* The PortCountersExtended data and packet counters, as the PMA counts them
 * (data in 4-octet words, like the sysfs files). */
struct pna_pma_ext {
    uint64_t xmit_words, rcv_words;
    uint64_t xmit_pkts, rcv_pkts;
    uint64_t ucast_xmit_pkts, ucast_rcv_pkts;
    uint64_t mcast_xmit_pkts, mcast_rcv_pkts;
};

/* ClassPortInfo CapabilityMask bits of the Performance Management class
 * (IBA vol. 1, PortCountersExtended support): 0x200 all of
 * PortCountersExtended, 0x400 only its data and packet counters (the
 * unicast/multicast ones are not kept: "NoIETF"). */
#define PNA_PMA_CAP_EXT_WIDTH 0x0200u
#define PNA_PMA_CAP_EXT_WIDTH_NOIETF 0x0400u

/* The library calls, one table so tests can stub them.  Each returns without
 * printing when it can (libibmad itself may still print; see above). */
struct pna_ib_mad_ops {
    /* Open DEVICE/PORT for the performance management class; NULL on failure. */
    void *(*open_port)(const char *device, uint32_t port);
    /* ClassPortInfo of the PMA at LID: its CapabilityMask.  0 or -1. */
    int (*class_port_info)(void *handle, uint32_t lid, uint32_t port, uint16_t *cap_mask);
    /* PortCountersExtended of PORT at LID.  0 or -1. */
    int (*query_ext)(void *handle, uint32_t lid, uint32_t port, struct pna_pma_ext *out);
    void (*close_port)(void *handle);
};

#ifdef HAVE_IBMAD
extern const struct pna_ib_mad_ops pna_ib_mad_libibmad;
#endif

/* True when ROOTS->sysfs is the host's /sys and ROOTS->devfs its /dev (after
 * resolving symlinks): only then do libibmad's and libibverbs' own views of
 * the system describe the devices the agent reads from sysfs.  False for a
 * fixture tree or a host mounted elsewhere. */
bool pna_ib_host_roots(const struct pna_roots *roots);

/* The character device of DEVICE (and PORT, when not 0) in sysfs class CLS
 * ("infiniband_mad", "infiniband_verbs"), entries PREFIX<n> ("umad",
 * "uverbs") whose ibdev (and port) files match.  1 with its name in OUT when
 * devfs infiniband/<name> exists and may be opened for reading and writing;
 * -EACCES when it exists but may not; 0 when there is none. */
int pna_ib_find_cdev(const struct pna_roots *roots, const char *cls, const char *prefix,
                     const char *device, uint32_t port, char *out, size_t cap);

/* At most this many ports are tried for the first time in one poll, so that
 * a node full of unanswering PMAs cannot push a poll past its deadline. */
#define PNA_IB_MAD_PROBES_PER_POLL 4
/* After a port that worked fails, it is retried after 2, 4, 8... polls, at
 * most this many. */
#define PNA_IB_MAD_MAX_BACKOFF_POLLS 64

struct pna_ib_mad;

/* A new PMA reader using OPS; device presence is checked under ROOTS (sysfs
 * class/infiniband_mad and devfs infiniband/umadN).  NULL when out of memory. */
struct pna_ib_mad *pna_ib_mad_new(const struct pna_ib_mad_ops *ops, const struct pna_roots *roots);
void pna_ib_mad_free(struct pna_ib_mad *mad);

/* Replace the 32-bit data and packet counters of every eligible port of M by
 * the PMA's 64-bit ones (flagged from_pma).  A port that served PMA values
 * before and fails now has those counters absent for this poll rather than
 * the sysfs ones, which count from elsewhere and would make the Counter64
 * go backwards.  Returns the number of ports filled from the PMA. */
size_t pna_ib_mad_apply(struct pna_ib_mad *mad, struct pna_ib_model *m);

/* What the reader thinks of DEVICE/PORT (tests, logs). */
enum pna_ib_mad_port_state {
    PNA_MAD_UNTRIED = 0,   /* not tried yet (not eligible, or waiting its turn) */
    PNA_MAD_SERVING = 1,   /* the PMA answers: counters come from it */
    PNA_MAD_BACKOFF = 2,   /* answered before, failed lately: retried later */
    PNA_MAD_NO_UMAD = 3,   /* no umad device, or no permission on it (looked at
                            * again next poll: no library call is made for it) */
    PNA_MAD_FAILED = 4,    /* open or first query failed: given up */
    PNA_MAD_NOT_EXT = 5,   /* the PMA has no PortCountersExtended: given up */
};
enum pna_ib_mad_port_state pna_ib_mad_port_state(const struct pna_ib_mad *mad,
                                                 const char *device, uint32_t port);

#endif
