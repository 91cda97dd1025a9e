/* pollers/pfc_lossless.h -- the pfc poller's lossless-RoCE part: each watched
 * interface's DCB, ECN, RDMA CM ToS and LLDP neighbour read into the model,
 * the verdicts made, and a notification when one changes.
 * Thread ownership: the pfc poller thread. */
#ifndef PNA_POLLERS_PFC_LOSSLESS_H
#define PNA_POLLERS_PFC_LOSSLESS_H

#include "core/roots.h"
#include "model/ib.h"
#include "model/pfc.h"

/* Read and judge every interface of M.  LLDP_SOCKET is lldpd's control
 * socket (a full path; "" or NULL: no LLDP).  IB (may be NULL) names the RDMA
 * port behind each interface, for its RDMA CM ToS; EXPECT (may be NULL) is
 * the fleet's configuration. */
void pna_pfc_lossless_collect(const struct pna_roots *roots, const char *lldp_socket,
                              const struct pna_lossless_expect *expect,
                              const struct pna_ib_snap *ib, struct pna_pfc_model *m);

/* What the lossless notifications remember: the verdict last reported for
 * each interface and for the node (core/transitions.c).  It lives in the
 * poller's own state (zeroed is empty), not in a snapshot, so a pfc snapshot
 * the cache dropped as stale does not make the start-up rule fire again. */
struct pna_transitions;
struct pna_lossless_notes {
    struct pna_transitions *verdicts;   /* made at the first poll */
    bool roce_listed;                   /* the poll being judged had the IB snapshot */
};
void pna_pfc_lossless_notes_free(struct pna_lossless_notes *notes);

/* Post the notifications for the verdicts of CUR that differ from those last
 * reported.  A verdict seen for the first time (at start-up, an interface
 * that appears) is posted only when not ready, so a restart does not repeat
 * "ready" for every port.  ROCE_LISTED false: the poll had no IB snapshot
 * (none yet, or the cache dropped it as stale), so the RoCE netdevs are
 * missing from CUR without being gone: their verdicts are kept, and compared
 * again when they are back. */
void pna_pfc_lossless_events(struct pna_lossless_notes *notes, const struct pna_pfc_model *cur,
                             bool roce_listed);

#endif
