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

/* Post the notifications for the verdicts of CUR that differ from PREV's
 * (PREV NULL: the first poll, which posts only interfaces and a node that are
 * not ready, so a restart does not repeat "ready" for every port). */
void pna_pfc_lossless_events(const struct pna_pfc_model *cur, const struct pna_pfc_model *prev);

#endif
