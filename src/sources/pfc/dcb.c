/* sources/pfc/dcb.c -- the DCB configuration from the kernel's DCB netlink
 * interface (see dcb.h).
 *
 * Two requests on one NETLINK_ROUTE socket, each an RTM_GETDCB message with a
 * struct dcbmsg {AF_UNSPEC, CMD} and DCB_ATTR_IFNAME:
 *   DCB_CMD_IEEE_GET  answered by DCB_ATTR_IFNAME, the DCB_ATTR_IEEE nest
 *                     (ETS, PFC, the APP table, the trust table, ...) and,
 *                     when the driver has getdcbx, DCB_ATTR_DCBX;
 *   DCB_CMD_GDCBX     answered by DCB_ATTR_DCBX alone.
 * A driver without DCB (no dcbnl_ops: veth, lo, most NICs) makes the kernel
 * answer both with NLMSG_ERROR -EOPNOTSUPP; an unknown name, -ENODEV.
 *
 * Privileges: none.  RTM_GETDCB is a "get" rtnetlink message, which rtnetlink
 * accepts from any process, and dcb_doit() (net/dcb/dcbnl.c) checks
 * CAP_NET_ADMIN only for RTM_SETDCB.  The socket belongs to the calling
 * thread's network namespace, so a containerised agent sees the node's NICs
 * only with host networking.
 *
 * The replies are parsed by transport/netlink.c's policy parse: a message
 * longer than the data, an attribute longer than its container, or a struct
 * attribute shorter than its struct makes the reply malformed (-EBADMSG and
 * the reason), never a read past the buffer.  A struct longer than this
 * agent's keeps its known prefix: a newer kernel's may grow at the end.
 * The replies are parsed by pna_dcb_parse() alone, so recorded replies
 * (tests/fixtures/dcb/) exercise the same code.  Errors follow
 * transport/netlink.h's convention: a negative errno and one line. */
#include "pna_autoconf.h"
#include "sources/pfc/dcb.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>


static int fail(struct pna_dcb *out, int rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Set OUT's error line; OUT->read stays false.  Returns RC (a negative errno). */
static int fail(struct pna_dcb *out, int rc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out->error, sizeof out->error, fmt, ap);
    va_end(ap);
    out->read = false;
    return rc;
}

#ifndef HAVE_LIBMNL

int pna_dcb_read(const char *ifname, struct pna_dcb *out)
{
    (void)ifname;
    memset(out, 0, sizeof *out);
    return fail(out, -ENOSYS, "built without libmnl");
}

int pna_dcb_parse(const void *buf, size_t len, struct pna_dcb *out)
{
    (void)buf;
    (void)len;
    memset(out, 0, sizeof *out);
    return fail(out, -ENOSYS, "built without libmnl");
}

#else

#include <libmnl/libmnl.h>
#include <linux/dcbnl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/time.h>

#include "transport/netlink.h"

/* Linux 6.3 added these to include/uapi/linux/dcbnl.h (enum ieee_attrs:
 * DCB_ATTR_DCB_APP_TRUST_TABLE = 11; enum ieee_attrs_app: DCB_ATTR_DCB_APP
 * = 2, the attribute type of a DCB_APP_SEL_PCP entry); Debian 12's headers
 * (Linux 6.1) lack them.  The values are the kernel's.  Own names, because
 * newer headers declare the kernel's as enum constants, which a macro of the
 * same name would break. */
#define PNA_DCB_ATTR_APP_TRUST_TABLE 11
#define PNA_DCB_ATTR_DCB_APP 2

_Static_assert(PNA_LOSSLESS_PRIOS == IEEE_8021QAZ_MAX_TCS, "one model slot per 802.1Qaz TC");

#define REPLY_MAX 16384     /* the kernel's answers fit its 8 KiB message */
#define REPLY_TIMEOUT_S 1
#define WHY_MAX 96

/* ---- the policies ------------------------------------------------------------ */

/* An RTM_GETDCB answer's attributes (after its struct dcbmsg).  The
 * interface's name is not read: it is the one asked for. */
static const struct pna_nla_policy DCB_POLICY[DCB_ATTR_DCBX + 1] = {
    [DCB_ATTR_IEEE] = {.kind = PNA_NLA_NESTED, .name = "DCB_ATTR_IEEE"},
    [DCB_ATTR_DCBX] = {.kind = PNA_NLA_BINARY, .min_len = 1, .name = "DCB_ATTR_DCBX"},
};

/* DCB_ATTR_IEEE.  Not part of the model, so not read: the peer's ETS, PFC
 * and APP, MAXRATE, QCN, the buffer split, and the rewrite table (12, above
 * the policy). */
static const struct pna_nla_policy IEEE_POLICY[PNA_DCB_ATTR_APP_TRUST_TABLE + 1] = {
    [DCB_ATTR_IEEE_ETS] = {.kind = PNA_NLA_BINARY, .min_len = sizeof(struct ieee_ets),
                           .name = "DCB_ATTR_IEEE_ETS"},
    [DCB_ATTR_IEEE_PFC] = {.kind = PNA_NLA_BINARY, .min_len = sizeof(struct ieee_pfc),
                           .name = "DCB_ATTR_IEEE_PFC"},
    [DCB_ATTR_IEEE_APP_TABLE] = {.kind = PNA_NLA_NESTED, .name = "DCB_ATTR_IEEE_APP_TABLE"},
    [PNA_DCB_ATTR_APP_TRUST_TABLE] = {.kind = PNA_NLA_NESTED,
                                      .name = "DCB_ATTR_DCB_APP_TRUST_TABLE"},
};

/* The entries of the APP table (a struct dcb_app each) and of the trust
 * table (one u8 selector each): DCB_ATTR_IEEE_APP for the IEEE selectors,
 * DCB_ATTR_DCB_APP for the kernel's PCP selector (6.3+).  Other types are
 * skipped, as the kernel skips them. */
static const struct pna_nla_policy APP_POLICY[PNA_DCB_ATTR_DCB_APP + 1] = {
    [DCB_ATTR_IEEE_APP] = {.kind = PNA_NLA_BINARY, .multi = true,
                           .min_len = sizeof(struct dcb_app), .name = "APP table entry"},
    [PNA_DCB_ATTR_DCB_APP] = {.kind = PNA_NLA_BINARY, .multi = true,
                              .min_len = sizeof(struct dcb_app), .name = "APP table entry"},
};

static const struct pna_nla_policy TRUST_POLICY[PNA_DCB_ATTR_DCB_APP + 1] = {
    [DCB_ATTR_IEEE_APP] = {.kind = PNA_NLA_BINARY, .multi = true, .min_len = 1,
                           .name = "trust table entry"},
    [PNA_DCB_ATTR_DCB_APP] = {.kind = PNA_NLA_BINARY, .multi = true, .min_len = 1,
                              .name = "trust table entry"},
};

/* ---- parsing --------------------------------------------------------------- */

struct parse {
    struct pna_dcb *out;
    bool got_ieee;          /* an answer to DCB_CMD_IEEE_GET was parsed */
};

static int malformed(struct parse *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int malformed(struct parse *ps, const char *fmt, ...)
{
    char what[WHY_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return fail(ps->out, -EBADMSG, "malformed DCB reply: %s", what);
}

/* NEST's attributes into TB[0..MAXTYPE] by POLICY, or a malformed reply. */
static int parse_nest(struct parse *ps, const struct pna_nla **tb, unsigned maxtype,
                      const struct pna_nla_policy *policy, const struct pna_nla *nest,
                      const char *name)
{
    char why[WHY_MAX];
    if (pna_nla_parse_nested(tb, maxtype, policy, nest, name, why, sizeof why) != 0)
        return malformed(ps, "%s", why);
    return 0;
}

/* The known prefix of a struct attribute (the policy checked its size). */
static void copy_struct(const struct pna_nla *a, void *dst, size_t size)
{
    memcpy(dst, pna_nla_data(a), size);
}

static void take_ets(struct pna_dcb *d, const struct pna_nla *a)
{
    struct ieee_ets ets;
    copy_struct(a, &ets, sizeof ets);
    d->has_ets = true;
    d->ets_cap = ets.ets_cap;
    d->ets_willing = ets.willing;
    memcpy(d->prio_tc, ets.prio_tc, sizeof d->prio_tc);
    memcpy(d->tc_tx_bw, ets.tc_tx_bw, sizeof d->tc_tx_bw);
    memcpy(d->tc_tsa, ets.tc_tsa, sizeof d->tc_tsa);
}

static void take_pfc(struct pna_dcb *d, const struct pna_nla *a)
{
    struct ieee_pfc pfc;
    copy_struct(a, &pfc, sizeof pfc);
    d->has_pfc = true;
    d->pfc_cap = pfc.pfc_cap;
    d->pfc_en = pfc.pfc_en;
    d->pfc_mbc = pfc.mbc;
    d->pfc_delay = pfc.delay;
}

static bool app_entry_type(const struct pna_nla *e)
{
    uint16_t t = pna_nla_type(e);
    return t == DCB_ATTR_IEEE_APP || t == PNA_DCB_ATTR_DCB_APP;
}

/* DCB_ATTR_IEEE_APP_TABLE: its entries in the kernel's order (its APP list
 * is kept newest first).  Entries past PNA_DCB_MAX_APPS are still checked,
 * then counted as truncated. */
static int parse_app_table(struct parse *ps, const struct pna_nla *table)
{
    const struct pna_nla *tb[PNA_DCB_ATTR_DCB_APP + 1];
    if (parse_nest(ps, tb, PNA_DCB_ATTR_DCB_APP, APP_POLICY, table, "DCB_ATTR_IEEE_APP_TABLE") != 0)
        return -EBADMSG;
    struct pna_dcb *d = ps->out;
    d->n_apps = 0;
    d->apps_truncated = false;
    struct pna_nla_iter it;
    const struct pna_nla *e;
    pna_nla_for_each(e, it, table) {
        if (!app_entry_type(e))
            continue;
        if (d->n_apps == PNA_DCB_MAX_APPS) {
            d->apps_truncated = true;
            continue;
        }
        struct dcb_app app;
        copy_struct(e, &app, sizeof app);
        d->apps[d->n_apps++] = (struct pna_dcb_app){
            .selector = app.selector, .priority = app.priority, .protocol = app.protocol};
    }
    return 0;
}

/* DCB_ATTR_DCB_APP_TRUST_TABLE: one selector per entry, highest precedence
 * first.  Only six selectors exist, so entries past the model's eight can
 * only be repeats and are dropped. */
static int parse_trust_table(struct parse *ps, const struct pna_nla *table)
{
    const struct pna_nla *tb[PNA_DCB_ATTR_DCB_APP + 1];
    if (parse_nest(ps, tb, PNA_DCB_ATTR_DCB_APP, TRUST_POLICY, table,
                   "DCB_ATTR_DCB_APP_TRUST_TABLE") != 0)
        return -EBADMSG;
    struct pna_dcb *d = ps->out;
    d->n_trust = 0;
    struct pna_nla_iter it;
    const struct pna_nla *e;
    pna_nla_for_each(e, it, table) {
        if (app_entry_type(e) && d->n_trust < PNA_LOSSLESS_PRIOS)
            d->trust[d->n_trust++] = pna_nla_data(e)[0];
    }
    return 0;
}

static int parse_ieee(struct parse *ps, const struct pna_nla *ieee)
{
    const struct pna_nla *tb[PNA_DCB_ATTR_APP_TRUST_TABLE + 1];
    if (parse_nest(ps, tb, PNA_DCB_ATTR_APP_TRUST_TABLE, IEEE_POLICY, ieee, "DCB_ATTR_IEEE") != 0)
        return -EBADMSG;
    if (tb[DCB_ATTR_IEEE_ETS])
        take_ets(ps->out, tb[DCB_ATTR_IEEE_ETS]);
    if (tb[DCB_ATTR_IEEE_PFC])
        take_pfc(ps->out, tb[DCB_ATTR_IEEE_PFC]);
    if (tb[DCB_ATTR_IEEE_APP_TABLE] && parse_app_table(ps, tb[DCB_ATTR_IEEE_APP_TABLE]) != 0)
        return -EBADMSG;
    if (tb[PNA_DCB_ATTR_APP_TRUST_TABLE] &&
        parse_trust_table(ps, tb[PNA_DCB_ATTR_APP_TRUST_TABLE]) != 0)
        return -EBADMSG;
    return 0;
}

/* An RTM_GETDCB answer: to DCB_CMD_IEEE_GET (must hold DCB_ATTR_IEEE) or to
 * DCB_CMD_GDCBX; either may carry DCB_ATTR_DCBX.  Other commands: skipped. */
static int parse_dcb_message(struct parse *ps, const struct pna_nl_msg *m)
{
    struct dcbmsg dm;
    if (m->payload_len < sizeof dm)
        return malformed(ps, "RTM_GETDCB message of %zu octets", m->len);
    memcpy(&dm, m->payload, sizeof dm);
    bool ieee_get = dm.cmd == DCB_CMD_IEEE_GET;
    if (!ieee_get && dm.cmd != DCB_CMD_GDCBX)
        return 0;
    const struct pna_nla *tb[DCB_ATTR_DCBX + 1];
    char why[WHY_MAX];
    if (pna_nla_parse(tb, DCB_ATTR_DCBX, DCB_POLICY, m->payload + NLMSG_ALIGN(sizeof dm),
                      m->payload_len - NLMSG_ALIGN(sizeof dm), "the message", why,
                      sizeof why) != 0)
        return malformed(ps, "%s", why);
    if (ieee_get && !tb[DCB_ATTR_IEEE])
        return malformed(ps, "DCB_CMD_IEEE_GET answer without DCB_ATTR_IEEE");
    if (ieee_get && parse_ieee(ps, tb[DCB_ATTR_IEEE]) != 0)
        return -EBADMSG;
    if (tb[DCB_ATTR_DCBX])
        ps->out->dcbx = pna_nla_data(tb[DCB_ATTR_DCBX])[0];
    ps->got_ieee |= ieee_get;
    return 0;
}

/* The DCB command a refusal answers, from the kernel's copy of the request;
 * -1 when the copy was capped. */
static int refused_command(const struct pna_nl_error *e)
{
    struct nlmsghdr req;
    struct dcbmsg dm;
    if (e->request_len < NLMSG_HDRLEN + sizeof dm)
        return -1;
    memcpy(&req, e->request, sizeof req);
    if (req.nlmsg_type != RTM_GETDCB)
        return -1;
    memcpy(&dm, e->request + NLMSG_HDRLEN, sizeof dm);
    return dm.cmd;
}

static int refused(struct parse *ps, const struct pna_nl_error *e)
{
    const char *sep = e->extack[0] ? ": " : "";
    switch (e->errnum) {
    case EOPNOTSUPP:
        return fail(ps->out, -EOPNOTSUPP, "no DCB support in the driver (EOPNOTSUPP)%s%s", sep,
                    e->extack);
    case ENODEV:
        return fail(ps->out, -ENODEV, "no such interface%s%s", sep, e->extack);
    default:
        return fail(ps->out, -e->errnum, "netlink: %s%s%s", strerror(e->errnum), sep, e->extack);
    }
}

/* NLMSG_ERROR: 0 is an acknowledgement; a refused DCB_CMD_GDCBX (a driver
 * without getdcbx) leaves the DCBX mode unknown; any other refusal is the
 * answer. */
static int parse_error_message(struct parse *ps, const struct pna_nl_msg *m)
{
    struct pna_nl_error e;
    char why[WHY_MAX];
    if (pna_nl_error_parse(m, &e, why, sizeof why) != 0)
        return malformed(ps, "%s", why);
    if (e.errnum == 0 || refused_command(&e) == DCB_CMD_GDCBX)
        return 0;
    return refused(ps, &e);
}

static int parse_messages(struct parse *ps, const void *buf, size_t len)
{
    struct pna_nl_msgs it;
    struct pna_nl_msg m;
    char why[WHY_MAX];
    int more;
    pna_nl_msgs_init(&it, buf, len);
    while ((more = pna_nl_msgs_next(&it, &m, why, sizeof why)) == 1) {
        int rc = 0;
        if (m.type == NLMSG_ERROR)
            rc = parse_error_message(ps, &m);
        else if (m.type == RTM_GETDCB)
            rc = parse_dcb_message(ps, &m);
        if (rc != 0)
            return rc;
    }
    return more < 0 ? malformed(ps, "%s", why) : 0;
}

int pna_dcb_parse(const void *buf, size_t len, struct pna_dcb *out)
{
    memset(out, 0, sizeof *out);
    struct parse ps = {.out = out};
    if (!buf || len == 0)
        return malformed(&ps, "empty");
    int rc = parse_messages(&ps, buf, len);
    if (rc == 0 && !ps.got_ieee)
        rc = malformed(&ps, "no answer to DCB_CMD_IEEE_GET");
    if (rc != 0) {
        /* What was filled before the fault is not an answer: keep the reason alone. */
        char why[sizeof out->error];
        memcpy(why, out->error, sizeof why);
        memset(out, 0, sizeof *out);
        memcpy(out->error, why, sizeof why);
        return rc;
    }
    out->read = true;
    return 0;
}

/* ---- the requests ---------------------------------------------------------- */

static int system_error(struct pna_dcb *out)
{
    int e = errno;
    return fail(out, -e, "netlink: %s", strerror(e));
}

/* A bound NETLINK_ROUTE socket, or NULL with *RC and OUT's error line. */
static struct mnl_socket *open_socket(struct pna_dcb *out, int *rc)
{
    struct mnl_socket *nl = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC);
    if (!nl) {
        *rc = system_error(out);
        return NULL;
    }
    /* The deadline: a kernel that never answers costs a second, not the poll. */
    struct timeval tv = {.tv_sec = REPLY_TIMEOUT_S};
    if (setsockopt(mnl_socket_get_fd(nl), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) != 0 ||
        mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) != 0) {
        *rc = system_error(out);
        mnl_socket_close(nl);
        return NULL;
    }
    /* The kernel's extended ACK messages: a hint, a kernel without them
     * still answers.  (No NETLINK_CAP_ACK: a refusal's copy of the request
     * tells which command it refuses.) */
    int on = 1;
    mnl_socket_setsockopt(nl, NETLINK_EXT_ACK, &on, sizeof on);
    return nl;
}

static int send_request(struct mnl_socket *nl, const char *ifname, uint8_t cmd, uint32_t seq)
{
    uint32_t req[64] = {0}; /* uint32_t: the message's 4-octet alignment */
    struct nlmsghdr *nlh = mnl_nlmsg_put_header(req);
    nlh->nlmsg_type = RTM_GETDCB;
    nlh->nlmsg_flags = NLM_F_REQUEST;
    nlh->nlmsg_seq = seq;
    struct dcbmsg *dm = mnl_nlmsg_put_extra_header(nlh, sizeof *dm);
    dm->dcb_family = AF_UNSPEC;
    dm->cmd = cmd;
    mnl_attr_put_strz(nlh, DCB_ATTR_IFNAME, ifname);
    return mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0 ? -1 : 0;
}

/* Receive the answer to request SEQ into BUF (CAP octets); *N its length.
 * Datagrams of other sequence numbers (none are expected on a fresh socket)
 * are dropped. */
static int receive_answer(struct mnl_socket *nl, uint32_t seq, char *buf, size_t cap, size_t *n,
                          struct pna_dcb *out)
{
    for (int attempt = 0; attempt < 4; attempt++) {
        ssize_t got = mnl_socket_recvfrom(nl, buf, cap);
        if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return fail(out, -ETIMEDOUT, "netlink: no answer within %d s", REPLY_TIMEOUT_S);
        if (got < 0 && errno == ENOSPC)
            return fail(out, -EMSGSIZE, "netlink: answer larger than %zu octets", cap);
        if (got < 0)
            return system_error(out);
        const struct nlmsghdr *nlh = (const struct nlmsghdr *)buf;
        if ((size_t)got >= sizeof *nlh && nlh->nlmsg_seq != seq)
            continue;
        *n = (size_t)got;
        return 0;
    }
    return fail(out, -ENOMSG, "netlink: no answer to request %u", (unsigned)seq);
}

static int ask(struct mnl_socket *nl, const char *ifname, uint8_t cmd, uint32_t seq, char *buf,
               size_t cap, size_t *n, struct pna_dcb *out)
{
    if (send_request(nl, ifname, cmd, seq) != 0)
        return system_error(out);
    return receive_answer(nl, seq, buf, cap, n, out);
}

int pna_dcb_read(const char *ifname, struct pna_dcb *out)
{
    memset(out, 0, sizeof *out);
    if (!ifname || !ifname[0] || strlen(ifname) >= IFNAMSIZ)
        return fail(out, -ENODEV, "no such interface");
    char *buf = malloc(2 * REPLY_MAX);
    if (!buf)
        return fail(out, -ENOMEM, "out of memory");
    int rc;
    size_t ieee_len = 0, dcbx_len = 0;
    struct mnl_socket *nl = open_socket(out, &rc);
    if (nl && (rc = ask(nl, ifname, DCB_CMD_IEEE_GET, 1, buf, REPLY_MAX, &ieee_len, out)) == 0 &&
        (rc = pna_dcb_parse(buf, ieee_len, out)) == 0) {
        /* The DCBX mode, parsed after the first answer as a recording of
         * both would be.  Without it (no answer in time, a malformed one)
         * the first answer stands: the mode is a detail, PFC and ETS are not. */
        struct pna_dcb first = *out;
        if (ask(nl, ifname, DCB_CMD_GDCBX, 2, buf + ieee_len, REPLY_MAX, &dcbx_len, out) != 0 ||
            pna_dcb_parse(buf, ieee_len + dcbx_len, out) != 0)
            *out = first;
    }
    if (nl)
        mnl_socket_close(nl);
    free(buf);
    return rc;
}

#endif /* HAVE_LIBMNL */
