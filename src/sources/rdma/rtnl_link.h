/* sources/rdma/rtnl_link.h -- one rtnetlink link message (RTM_NEWLINK,
 * RTM_DELLINK) as the kernel sends it to the RTNLGRP_LINK group and in answer
 * to an RTM_GETLINK dump: which interface, and whether its carrier is up.
 *
 * Pure: bytes in, a struct out.  The link watcher (watchers/link_watch.c)
 * hands it what its socket received; the unit tests hand it messages captured
 * from the kernel (tests/fixtures/rtnl/), the fuzzer anything.  Needs only the
 * kernel's uapi headers and transport/netlink.c, not libmnl. */
#ifndef PNA_SOURCES_RTNL_LINK_H
#define PNA_SOURCES_RTNL_LINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pna_rtnl_link {
    bool deleted;             /* RTM_DELLINK: the interface is gone */
    bool dump;                /* NLM_F_MULTI: part of a dump's answer, not a change */
    int32_t ifindex;          /* ifinfomsg.ifi_index, > 0 */
    char ifname[16];          /* IFLA_IFNAME (IFNAMSIZ), "" when absent */
    uint32_t flags;           /* ifinfomsg.ifi_flags (IFF_UP, IFF_LOWER_UP, ...) */
    bool has_carrier;         /* IFLA_CARRIER was present */
    bool carrier;             /* IFLA_CARRIER, else IFF_LOWER_UP */
    bool has_operstate;
    uint8_t operstate;        /* IFLA_OPERSTATE: RFC 2863 (IF_OPER_UP 6, ...) */
    char error[96];           /* why the message was refused, or "" */
};

/* Parse the netlink message at the start of BUF (LEN bytes: the message may
 * be followed by others).  Returns the message's length padded to
 * NLMSG_ALIGNTO, capped at LEN (where the next one starts), with OUT filled
 * and OUT->ifindex > 0 when it is a link message, or OUT->ifindex 0 when it
 * is another sound message (NLMSG_DONE, another rtnetlink type); -EBADMSG
 * (transport/netlink.h's convention) with OUT->error set when the bytes are
 * malformed (the rest of BUF cannot be trusted either), including LEN 0.
 * Never reads outside BUF. */
long pna_rtnl_link_parse(const void *buf, size_t len, struct pna_rtnl_link *out);

/* The interface is usable: administratively up and with carrier. */
bool pna_rtnl_link_up(const struct pna_rtnl_link *l);

#endif
