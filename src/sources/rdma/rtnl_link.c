/* sources/rdma/rtnl_link.c -- the rtnetlink link message parser (see
 * rtnl_link.h).
 *
 * Layout (include/uapi/linux/netlink.h, rtnetlink.h, if_link.h): a struct
 * nlmsghdr, a struct ifinfomsg, then attributes (struct rtattr: a 16-bit
 * length that counts its own 4-byte header, a 16-bit type, the payload, and
 * padding to 4 bytes).  Every length is checked in size_t before a byte is
 * read: a message longer than BUF, shorter than its headers, or an attribute
 * that overruns the message makes the message malformed.  The attributes that
 * matter are fixed-size (IFLA_CARRIER and IFLA_OPERSTATE: one octet; the
 * kernel sends IFLA_CARRIER since 3.8); IFLA_IFNAME is a string the kernel
 * NUL-terminates, which is not trusted: it is cut to IFNAMSIZ - 1. */
#include "pna_autoconf.h"
#include "sources/rdma/rtnl_link.h"

#include <linux/if.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static long fail(struct pna_rtnl_link *out, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static long fail(struct pna_rtnl_link *out, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out->error, sizeof out->error, fmt, ap);
    va_end(ap);
    out->ifindex = 0;
    return -1;
}

static size_t align4(size_t n)
{
    return (n + 3) & ~(size_t)3;
}

/* One attribute of a link message (PAYLOAD, N octets).  Returns 0, or -1
 * when its size is wrong for its type. */
static int take_attr(struct pna_rtnl_link *out, unsigned type, const uint8_t *payload, size_t n)
{
    switch (type) {
    case IFLA_IFNAME: {
        size_t k = strnlen((const char *)payload, n);
        if (k >= sizeof out->ifname)
            k = sizeof out->ifname - 1;
        memcpy(out->ifname, payload, k);
        out->ifname[k] = '\0';
        return 0;
    }
    case IFLA_CARRIER:
        if (n < 1)
            return -1;
        out->has_carrier = true;
        out->carrier = payload[0] != 0;
        return 0;
    case IFLA_OPERSTATE:
        if (n < 1)
            return -1;
        out->has_operstate = true;
        out->operstate = payload[0];
        return 0;
    default:
        return 0;
    }
}

static long parse_attrs(struct pna_rtnl_link *out, const uint8_t *p, size_t len)
{
    size_t off = 0;
    while (len - off >= sizeof(struct rtattr)) {
        struct rtattr rta;
        memcpy(&rta, p + off, sizeof rta);
        if (rta.rta_len < sizeof rta || rta.rta_len > len - off)
            return fail(out, "attribute %u of %u octets overruns the message",
                        (unsigned)rta.rta_type, (unsigned)rta.rta_len);
        unsigned type = rta.rta_type & NLA_TYPE_MASK;
        if (take_attr(out, type, p + off + sizeof rta, rta.rta_len - sizeof rta) != 0)
            return fail(out, "attribute %u has %u octets", type, (unsigned)rta.rta_len);
        off += align4(rta.rta_len);
        if (off > len)
            off = len; /* the last attribute's padding may be missing */
    }
    return 0;
}

long pna_rtnl_link_parse(const void *buf, size_t len, struct pna_rtnl_link *out)
{
    memset(out, 0, sizeof *out);
    const uint8_t *p = buf;
    struct nlmsghdr nh;
    if (len < sizeof nh)
        return fail(out, "%zu octets: shorter than a netlink header", len);
    memcpy(&nh, p, sizeof nh);
    if (nh.nlmsg_len < sizeof nh || nh.nlmsg_len > len)
        return fail(out, "message length %u outside 16..%zu", (unsigned)nh.nlmsg_len, len);
    size_t next = align4(nh.nlmsg_len);
    if (next > len)
        next = len;
    if (nh.nlmsg_type != RTM_NEWLINK && nh.nlmsg_type != RTM_DELLINK)
        return (long)next;
    struct ifinfomsg ifi;
    size_t body = align4(sizeof nh);
    if (nh.nlmsg_len < body + sizeof ifi)
        return fail(out, "link message of %u octets: no room for its ifinfomsg",
                    (unsigned)nh.nlmsg_len);
    memcpy(&ifi, p + body, sizeof ifi);
    if (ifi.ifi_index <= 0)
        return fail(out, "link message for interface index %d", ifi.ifi_index);
    out->deleted = nh.nlmsg_type == RTM_DELLINK;
    out->dump = (nh.nlmsg_flags & NLM_F_MULTI) != 0;
    out->flags = ifi.ifi_flags;
    out->carrier = (ifi.ifi_flags & IFF_LOWER_UP) != 0;
    size_t attrs = body + align4(sizeof ifi);
    if (attrs < nh.nlmsg_len && parse_attrs(out, p + attrs, nh.nlmsg_len - attrs) != 0)
        return -1;
    out->ifindex = ifi.ifi_index;
    return (long)next;
}

bool pna_rtnl_link_up(const struct pna_rtnl_link *l)
{
    return !l->deleted && (l->flags & IFF_UP) && l->carrier;
}
