/* sources/pfc/dcb.h -- an interface's IEEE 802.1Qaz DCB configuration (PFC,
 * ETS, the APP table, the trust order, the DCBX mode) read from the kernel's
 * DCB netlink interface (rtnetlink RTM_GETDCB), in-process with libmnl: what
 * `dcb ets/pfc/app show` prints, without running it.
 *
 * Reading needs no capability: see dcb.c. */
#ifndef PNA_SOURCES_DCB_H
#define PNA_SOURCES_DCB_H

#include <stddef.h>

#include "model/lossless/lossless.h"

/* Ask the kernel for IFNAME's configuration (DCB_CMD_IEEE_GET, then
 * DCB_CMD_GDCBX) in the calling thread's network namespace.  Returns 0 with
 * OUT filled and OUT->read true, or a negative errno (transport/netlink.h's
 * convention: the kernel's own when it refused) with OUT->read false and one
 * line in OUT->error ("no DCB support in the driver (EOPNOTSUPP)" -EOPNOTSUPP,
 * "no such interface" -ENODEV, "netlink: ...", "malformed DCB reply: ..."
 * -EBADMSG, "built without libmnl" -ENOSYS), which ends with the kernel's
 * extended ACK message where it sent one.  Waits at most about a second per
 * request for the kernel's answer. */
int pna_dcb_read(const char *ifname, struct pna_dcb *out);

/* Parse LEN bytes of netlink messages as the kernel sends them for those two
 * requests: the DCB_CMD_IEEE_GET answer, optionally followed by the
 * DCB_CMD_GDCBX answer or an NLMSG_ERROR; or the NLMSG_ERROR that refused
 * DCB_CMD_IEEE_GET.  Same returns as pna_dcb_read().  Any byte sequence is
 * accepted: malformed input is -EBADMSG with the reason, never a read outside
 * BUF. */
int pna_dcb_parse(const void *buf, size_t len, struct pna_dcb *out);

#endif
