/* sources/phy/ethtool_nl_reply.c -- one answer of the kernel's ethtool
 * netlink family, whatever the request (see ethtool_nl_reply.h): its
 * messages, the refusal an NLMSG_ERROR makes of it, the generic netlink
 * header and the reply header nest every ETHTOOL_MSG_*_GET_REPLY carries.
 * The request kind's own attributes are its take() (ethtool_nl_<kind>.c).
 *
 * The parsing is transport/netlink.c's, which builds and runs without
 * libmnl, so this file does too: the fuzzing harness and the minimal
 * build's unit test parse recorded replies with it. */
#include "pna_autoconf.h"
#include "sources/phy/ethtool_nl_reply.h"

#include <errno.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <linux/if.h>
#include <linux/netlink.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define WHY_MAX 112

int pna_ethnl_fail(struct pna_ethnl_reply *r, int rc, const char *fmt, ...)
{
    if (r->err && r->errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(r->err, r->errlen, fmt, ap);
        va_end(ap);
    }
    return rc;
}

int pna_ethnl_malformed(struct pna_ethnl_reply *r, const char *fmt, ...)
{
    char what[WHY_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return pna_ethnl_fail(r, -EBADMSG, "%s: malformed reply: %s", r->req->name, what);
}

int pna_ethnl_parse_nest(struct pna_ethnl_reply *r, const struct pna_nla **tb, unsigned maxtype,
                         const struct pna_nla_policy *policy, const struct pna_nla *nest,
                         const char *container)
{
    char why[WHY_MAX];
    if (pna_nla_parse_nested(tb, maxtype, policy, nest, container, why, sizeof why) != 0)
        return pna_ethnl_malformed(r, "%s", why);
    return 0;
}

void pna_ethnl_set_counter(struct pna_phy_if *out, enum pna_phy_counter c, uint64_t v)
{
    out->c[c].value = v;
    out->c[c].present = true;
}

/* ---- the reply header --------------------------------------------------------- */

/* ETHTOOL_A_*_HEADER: the device's index and name.  The name is checked to
 * be one, not compared: a request by an alternative name is answered with
 * the device's own. */
static const struct pna_nla_policy HEADER_POLICY[ETHTOOL_A_HEADER_DEV_NAME + 1] = {
    PNA_ETHNL_ATTR(ETHTOOL_A_HEADER_DEV_INDEX, PNA_NLA_UINT),
    [ETHTOOL_A_HEADER_DEV_NAME] = {.kind = PNA_NLA_STRING, .max_len = IFNAMSIZ - 1,
                                   .name = "device name"},
};

static int parse_header(struct pna_ethnl_reply *r, const struct pna_nla *hdr)
{
    const struct pna_nla *tb[ETHTOOL_A_HEADER_DEV_NAME + 1];
    if (pna_ethnl_parse_nest(r, tb, ETHTOOL_A_HEADER_DEV_NAME, HEADER_POLICY, hdr,
                             "the reply header") != 0)
        return -EBADMSG;
    uint64_t index = tb[ETHTOOL_A_HEADER_DEV_INDEX] ? pna_nla_uint(tb[ETHTOOL_A_HEADER_DEV_INDEX])
                                                    : 0;
    if (index > 0 && index <= INT32_MAX)
        r->ifindex = (int32_t)index;
    return 0;
}

/* ---- a refusal ------------------------------------------------------------------ */

/* What errno E means, in words, for any request. */
static const char *refusal_words(int e)
{
    switch (e) {
    case EOPNOTSUPP:
        return "not supported by the driver";
    case ENODEV:
        return "no such interface";
    case EPERM:
    case EACCES:
        return "not permitted";
    case EINVAL:
        return "request refused";
    case ENETDOWN:
        return "interface down";
    case EIO:
    case EREMOTEIO:
        return "device I/O error";
    case EBUSY:
    case EAGAIN:
        return "device busy";
    case ENOENT:
        return "not found";
    case ENOMEM:
        return "out of memory in the kernel";
    default:
        return "refused";
    }
}

/* NLMSG_ERROR: 0 acknowledges; any other code is the answer, one line:
 * "<request>: <words> (<ERRNO>)[: <extended ACK message>]". */
static int take_error(struct pna_ethnl_reply *r, const struct pna_nl_msg *m)
{
    struct pna_nl_error e;
    char why[WHY_MAX];
    if (pna_nl_error_parse(m, &e, why, sizeof why) != 0)
        return pna_ethnl_malformed(r, "%s", why);
    if (e.errnum == 0)
        return 0;
    const char *words = r->req->refusal ? r->req->refusal(e.errnum, e.extack) : NULL;
    const char *name = pna_errno_name(e.errnum);
    char num[16];
    if (!name) {
        snprintf(num, sizeof num, "errno %d", e.errnum);
        name = num;
    }
    return pna_ethnl_fail(r, -e.errnum, "%s: %s (%s)%s%s", r->req->name,
                          words ? words : refusal_words(e.errnum), name, e.extack[0] ? ": " : "",
                          e.extack);
}

/* ---- the reply ---------------------------------------------------------------------- */

/* The generic netlink message answering R->req: its command, then its
 * attributes by the request's policy. */
static int take_reply(struct pna_ethnl_reply *r, const struct pna_nl_msg *m)
{
    const struct pna_ethnl_request *req = r->req;
    if (m->payload_len < GENL_HDRLEN)
        return pna_ethnl_malformed(r, "generic netlink message of %zu octets", m->len);
    uint8_t cmd = m->payload[0];
    if (cmd != req->reply_cmd)
        return pna_ethnl_malformed(r, "answer to another request (command %u)", (unsigned)cmd);
    if (r->got_reply)
        return pna_ethnl_malformed(r, "two answers");
    r->got_reply = true;
    r->attrs = m->payload + GENL_HDRLEN;
    r->attrs_len = m->payload_len - GENL_HDRLEN;
    const struct pna_nla *tb[PNA_ETHNL_MAX_ATTR + 1];
    char why[WHY_MAX];
    if (pna_nla_parse(tb, req->max_attr, req->policy, r->attrs, r->attrs_len, "the message", why,
                      sizeof why) != 0)
        return pna_ethnl_malformed(r, "%s", why);
    if (tb[req->hdr_attr] && parse_header(r, tb[req->hdr_attr]) != 0)
        return -EBADMSG;
    return req->take(r, tb);
}

int pna_ethnl_parse_messages(struct pna_ethnl_reply *r, const void *buf, size_t len)
{
    if (!buf || len == 0)
        return pna_ethnl_malformed(r, "empty");
    struct pna_nl_msgs it;
    struct pna_nl_msg m;
    char why[WHY_MAX];
    int more;
    pna_nl_msgs_init(&it, buf, len);
    while ((more = pna_nl_msgs_next(&it, &m, why, sizeof why)) == 1) {
        int rc = 0;
        if (m.type == NLMSG_ERROR)
            rc = take_error(r, &m);
        else if (m.type == NLMSG_OVERRUN)
            rc = pna_ethnl_malformed(r, "NLMSG_OVERRUN");
        else if (m.type >= NLMSG_MIN_TYPE && r->family && m.type != r->family)
            rc = pna_ethnl_malformed(r, "message of family %u, not ethtool's %u",
                                     (unsigned)m.type, (unsigned)r->family);
        else if (m.type >= NLMSG_MIN_TYPE)
            rc = take_reply(r, &m);
        if (rc != 0)
            return rc;
    }
    if (more < 0)
        return pna_ethnl_malformed(r, "%s", why);
    if (!r->got_reply)
        return pna_ethnl_malformed(r, "no answer to ETHTOOL_MSG_%s", r->req->msg);
    return 0;
}

int pna_ethnl_parse_part(const struct pna_ethnl_request *req, uint16_t family, const void *buf,
                         size_t len, struct pna_phy_if *out, char *err, size_t errlen)
{
    req->clear(out);
    int32_t ifindex = out->ifindex;
    struct pna_ethnl_reply r = {.req = req, .err = err, .errlen = errlen, .family = family,
                                .out = out};
    int rc = pna_ethnl_parse_messages(&r, buf, len);
    if (rc != 0) {
        /* What was filled before the fault is not an answer. */
        req->clear(out);
        out->ifindex = ifindex;
        return rc;
    }
    if (err && errlen)
        err[0] = '\0';
    return 0;
}
