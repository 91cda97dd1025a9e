/* sources/rdma/ib_smp.h -- the node at the other end of an InfiniBand port's
 * cable (the port's neighbour: a switch, or another host's HCA when two are
 * cabled back to back), asked with directed-route SMPs through libibmad.
 *
 * A directed-route SMP follows a path of port numbers instead of LIDs: the
 * path "0,<local port>" (one hop) leaves the HCA by the local port and is
 * answered by the Subnet Management Agent at the far end of its cable, with
 * no subnet manager and no LID needed.  Two attributes are asked (IBA vol. 1,
 * 14.2.5): NodeInfo gives the neighbour's node GUID, its node type and its
 * LocalPortNum, the number of the port the SMP entered it by, which is where
 * the cable plugs in; NodeDescription its name ("MF0;leaf-03:MQM8700/U1").
 *
 * The library hands back each reply's 64 octets of attribute data; the
 * decoders below read them (pure functions in ib_smp_decode.c: the unit test
 * feeds them the IBA layouts, tests/fuzz/fuzz_ib_smp.c anything), and the
 * decision logic (which ports
 * are asked, when, what is kept after a failure) is tested with a stub
 * library (struct pna_ib_smp_ops).  The libibmad calls sit behind that table
 * in ib_smp.c, built only with HAVE_IBMAD.
 *
 * The rules of ib_mad.h hold here too: libibmad reads the process's own /sys
 * and /dev and prints warnings on stderr, so the poller uses this only on
 * the host's own roots; a port is asked only when sysfs shows it ACTIVE with
 * link layer InfiniBand (a RoCE port's neighbour comes from LLDP) and a umad
 * device the agent may open; and a port whose open or query fails is not
 * asked again until it leaves ACTIVE and comes back, so a library warning
 * appears at most once per port and link-up.  A neighbour changes only when
 * a cable is moved, which takes the link down: a port is asked when it
 * becomes ACTIVE and then every PNA_IB_SMP_REFRESH_MS, not at every poll.
 *
 * Thread ownership: one struct pna_ib_smp belongs to the ib poller thread. */
#ifndef PNA_SOURCES_IB_SMP_H
#define PNA_SOURCES_IB_SMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/ib.h"
#include "core/roots.h"

/* Octets of attribute data in an SMP (the MAD's bytes 64..127). */
#define PNA_SMP_DATA_SIZE 64

/* The SMP attributes asked (IBA vol. 1, table 145: AttributeID). */
#define PNA_SMP_ATTR_NODE_DESC 0x0010u
#define PNA_SMP_ATTR_NODE_INFO 0x0011u

/* What NodeInfo says of the neighbour. */
struct pna_smp_node_info {
    uint8_t node_type;       /* 1 CA, 2 switch, 3 router; other values unknown */
    uint8_t num_ports;       /* physical ports of the node */
    uint64_t node_guid;
    uint8_t local_port;      /* the port the SMP entered by: the cable's far end */
};

/* NodeInfo from its attribute data (LEN octets at DATA): 0, or -1 when LEN is
 * shorter than the attribute's 40 octets or the node GUID is 0 (which IBA
 * forbids: a reply that cannot name its node names no neighbour). */
int pna_ib_smp_decode_node_info(const uint8_t *data, size_t len, struct pna_smp_node_info *out);

/* NodeDescription (LEN octets at DATA, at most 64 read) as printable text in
 * OUT (CAP octets, 65 holds any): up to the first NUL, every octet outside
 * printable ASCII replaced by '?', leading and trailing blanks removed. */
void pna_ib_smp_decode_node_desc(const uint8_t *data, size_t len, char *out, size_t cap);

/* The library calls, one table so tests can stub them. */
struct pna_ib_smp_ops {
    /* Open DEVICE/PORT for directed-route SMPs; NULL on failure. */
    void *(*open_port)(const char *device, uint32_t port);
    /* Get attribute ATTR (PNA_SMP_ATTR_*) of the node one hop out of PORT
     * (directed route 0,PORT): its attribute data into DATA.  0 or -1. */
    int (*query_neighbor)(void *handle, uint32_t port, uint16_t attr,
                          uint8_t data[PNA_SMP_DATA_SIZE]);
    void (*close_port)(void *handle);
};

#ifdef HAVE_IBMAD
extern const struct pna_ib_smp_ops pna_ib_smp_libibmad;
#endif

/* A neighbour that answered is asked again after this long, to follow a
 * renamed switch (a moved cable takes the link down and is seen at once). */
#define PNA_IB_SMP_REFRESH_MS (5 * 60 * 1000)
/* At most this many ports are asked in one poll: a port whose neighbour does
 * not answer costs two MAD timeouts, and a poll has a deadline. */
#define PNA_IB_SMP_QUERIES_PER_POLL 4

struct pna_ib_smp;

/* A neighbour reader using OPS; umad devices are looked for under ROOTS
 * (sysfs class/infiniband_mad, devfs infiniband/umadN).  NULL when out of
 * memory. */
struct pna_ib_smp *pna_ib_smp_new(const struct pna_ib_smp_ops *ops, const struct pna_roots *roots);
void pna_ib_smp_free(struct pna_ib_smp *smp);

/* Fill the neighbour of every eligible port of M: asked now when the port has
 * just become ACTIVE or its answer is PNA_IB_SMP_REFRESH_MS old (by
 * M->sample_mono_ms), else the last answer kept.  Returns the number of ports
 * given a neighbour. */
size_t pna_ib_smp_apply(struct pna_ib_smp *smp, struct pna_ib_model *m);

/* What the reader thinks of DEVICE/PORT (tests, logs). */
enum pna_ib_smp_port_state {
    PNA_SMP_UNTRIED = 0,    /* not asked since it became ACTIVE (or not eligible) */
    PNA_SMP_KNOWN = 1,      /* the neighbour answered: refreshed every 5 minutes */
    PNA_SMP_NO_UMAD = 2,    /* no umad device, or no permission on it (looked at
                             * again next poll: no library call is made for it) */
    PNA_SMP_FAILED = 3,     /* open or query failed: not asked again until the
                             * port leaves ACTIVE; an earlier answer is kept */
};
enum pna_ib_smp_port_state pna_ib_smp_port_state(const struct pna_ib_smp *smp,
                                                 const char *device, uint32_t port);

#endif
