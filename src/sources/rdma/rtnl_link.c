/* sources/rdma/rtnl_link.c -- the rtnetlink link message parser (see
 * rtnl_link.h).
 *
 * Layout (include/uapi/linux/netlink.h, rtnetlink.h, if_link.h): a struct
 * nlmsghdr, a struct ifinfomsg, then attributes, parsed by
 * transport/netlink.c's policy parse: every length is checked in size_t
 * before a byte is read, and a message longer than BUF, shorter than its
 * headers, or an attribute that overruns the message or has the wrong size
 * makes the message malformed (-EBADMSG).  The attributes that matter are
 * fixed-size (IFLA_CARRIER and IFLA_OPERSTATE: one octet; the kernel sends
 * IFLA_CARRIER since 3.8); IFLA_IFNAME is a string the kernel
 * NUL-terminates, which is not trusted: it is cut to IFNAMSIZ - 1, not
 * refused, so that the carrier of a link message is never lost to its name. */
#include "pna_autoconf.h"
#include "sources/rdma/rtnl_link.h"

#include <errno.h>
#include <linux/if.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "transport/netlink.h"

static const struct pna_nla_policy LINK_POLICY[IFLA_CARRIER + 1] = {
    [IFLA_IFNAME] = {.kind = PNA_NLA_BINARY, .name = "IFLA_IFNAME"},
    [IFLA_OPERSTATE] = {.kind = PNA_NLA_U8, .name = "IFLA_OPERSTATE"},
    [IFLA_CARRIER] = {.kind = PNA_NLA_U8, .name = "IFLA_CARRIER"},
};

static long fail(struct pna_rtnl_link *out, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* OUT's reason; returns -EBADMSG. */
static long fail(struct pna_rtnl_link *out, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out->error, sizeof out->error, fmt, ap);
    va_end(ap);
    out->ifindex = 0;
    return -EBADMSG;
}

/* The attributes after the ifinfomsg (LEN octets at P). */
static long take_attrs(struct pna_rtnl_link *out, const uint8_t *p, size_t len)
{
    const struct pna_nla *tb[IFLA_CARRIER + 1];
    char why[sizeof out->error];
    if (pna_nla_parse(tb, IFLA_CARRIER, LINK_POLICY, p, len, "the message", why, sizeof why) != 0)
        return fail(out, "%s", why);
    if (tb[IFLA_IFNAME]) {
        const char *name = (const char *)pna_nla_data(tb[IFLA_IFNAME]);
        size_t k = strnlen(name, pna_nla_len(tb[IFLA_IFNAME]));
        if (k >= sizeof out->ifname)
            k = sizeof out->ifname - 1;
        memcpy(out->ifname, name, k);
        out->ifname[k] = '\0';
    }
    if (tb[IFLA_CARRIER]) {
        out->has_carrier = true;
        out->carrier = pna_nla_u8(tb[IFLA_CARRIER]) != 0;
    }
    if (tb[IFLA_OPERSTATE]) {
        out->has_operstate = true;
        out->operstate = pna_nla_u8(tb[IFLA_OPERSTATE]);
    }
    return 0;
}

long pna_rtnl_link_parse(const void *buf, size_t len, struct pna_rtnl_link *out)
{
    memset(out, 0, sizeof *out);
    if (!buf || len == 0)
        return fail(out, "empty");
    struct pna_nl_msgs it;
    struct pna_nl_msg m;
    char why[sizeof out->error];
    pna_nl_msgs_init(&it, buf, len);
    if (pna_nl_msgs_next(&it, &m, why, sizeof why) != 1)
        return fail(out, "%s", why);
    long next = (long)pna_nl_msgs_used(&it, buf);
    if (m.type != RTM_NEWLINK && m.type != RTM_DELLINK)
        return next;
    struct ifinfomsg ifi;
    size_t body = NLMSG_ALIGN(sizeof ifi);
    if (m.payload_len < sizeof ifi)
        return fail(out, "link message of %zu octets: no room for its ifinfomsg", m.len);
    memcpy(&ifi, m.payload, sizeof ifi);
    if (ifi.ifi_index <= 0)
        return fail(out, "link message for interface index %d", ifi.ifi_index);
    out->deleted = m.type == RTM_DELLINK;
    out->dump = (m.flags & NLM_F_MULTI) != 0;
    out->flags = ifi.ifi_flags;
    out->carrier = (ifi.ifi_flags & IFF_LOWER_UP) != 0;
    if (m.payload_len > body && take_attrs(out, m.payload + body, m.payload_len - body) != 0)
        return -EBADMSG;
    out->ifindex = ifi.ifi_index;
    return next;
}

bool pna_rtnl_link_up(const struct pna_rtnl_link *l)
{
    return !l->deleted && (l->flags & IFF_UP) && l->carrier;
}
