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
 * Every length is checked before a byte is copied: a message longer than the
 * data, an attribute longer than its container, or a struct attribute
 * shorter than its struct makes the reply malformed (-1 and the reason),
 * never a read past the buffer.  The replies are parsed by pna_dcb_parse()
 * alone, so recorded replies (tests/fixtures/dcb/) exercise the same code. */
#include "pna_autoconf.h"
#include "sources/pfc/dcb.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>


static int fail(struct pna_dcb *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Set OUT's error line; OUT->read stays false.  Returns -1. */
static int fail(struct pna_dcb *out, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out->error, sizeof out->error, fmt, ap);
    va_end(ap);
    out->read = false;
    return -1;
}

#ifndef HAVE_LIBMNL

int pna_dcb_read(const char *ifname, struct pna_dcb *out)
{
    (void)ifname;
    memset(out, 0, sizeof *out);
    return fail(out, "built without libmnl");
}

int pna_dcb_parse(const void *buf, size_t len, struct pna_dcb *out)
{
    (void)buf;
    (void)len;
    memset(out, 0, sizeof *out);
    return fail(out, "built without libmnl");
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

/* ---- parsing --------------------------------------------------------------- */

struct parse {
    struct pna_dcb *out;
    bool got_ieee;          /* an answer to DCB_CMD_IEEE_GET was parsed */
};

static int malformed(struct parse *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int malformed(struct parse *ps, const char *fmt, ...)
{
    char what[96];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return fail(ps->out, "malformed DCB reply: %s", what);
}

/* An attribute loop stopped at ATTR short of END: four octets or more left
 * are an attribute whose length runs past its container (fewer: padding). */
static bool attr_overruns(const struct nlattr *attr, const void *end)
{
    return (const char *)end - (const char *)attr >= (long)sizeof(struct nlattr);
}

/* The end of nest A's payload. */
static const void *nest_end(const struct nlattr *a)
{
    return (const char *)mnl_attr_get_payload(a) + mnl_attr_get_payload_len(a);
}

/* Copy the first SIZE octets of A's payload into DST.  A shorter payload is
 * malformed; a longer one keeps its known prefix (a newer kernel's struct
 * may grow at the end). */
static int copy_payload(struct parse *ps, const struct nlattr *a, const char *what, void *dst,
                        size_t size)
{
    uint16_t have = mnl_attr_get_payload_len(a);
    if (have < size)
        return malformed(ps, "%s is %u octets, expected %zu", what, have, size);
    memcpy(dst, mnl_attr_get_payload(a), size);
    return 0;
}

static int parse_ets(struct parse *ps, const struct nlattr *a)
{
    struct ieee_ets ets = {0};
    if (copy_payload(ps, a, "DCB_ATTR_IEEE_ETS", &ets, sizeof ets) != 0)
        return -1;
    struct pna_dcb *d = ps->out;
    d->has_ets = true;
    d->ets_cap = ets.ets_cap;
    d->ets_willing = ets.willing;
    memcpy(d->prio_tc, ets.prio_tc, sizeof d->prio_tc);
    memcpy(d->tc_tx_bw, ets.tc_tx_bw, sizeof d->tc_tx_bw);
    memcpy(d->tc_tsa, ets.tc_tsa, sizeof d->tc_tsa);
    return 0;
}

static int parse_pfc(struct parse *ps, const struct nlattr *a)
{
    struct ieee_pfc pfc = {0};
    if (copy_payload(ps, a, "DCB_ATTR_IEEE_PFC", &pfc, sizeof pfc) != 0)
        return -1;
    struct pna_dcb *d = ps->out;
    d->has_pfc = true;
    d->pfc_cap = pfc.pfc_cap;
    d->pfc_en = pfc.pfc_en;
    d->pfc_mbc = pfc.mbc;
    d->pfc_delay = pfc.delay;
    return 0;
}

/* An entry of the APP or trust table: DCB_ATTR_IEEE_APP for the IEEE
 * selectors, DCB_ATTR_DCB_APP for the kernel's PCP selector (6.3+).  Other
 * types are skipped, as the kernel skips them. */
static bool app_entry_type(const struct nlattr *e)
{
    uint16_t t = mnl_attr_get_type(e);
    return t == DCB_ATTR_IEEE_APP || t == PNA_DCB_ATTR_DCB_APP;
}

/* DCB_ATTR_IEEE_APP_TABLE: struct dcb_app entries in the kernel's order (its
 * APP list is kept newest first).  Entries past PNA_DCB_MAX_APPS are still
 * checked, then counted as truncated. */
static int parse_app_table(struct parse *ps, const struct nlattr *table)
{
    struct pna_dcb *d = ps->out;
    const struct nlattr *e;
    d->n_apps = 0;
    d->apps_truncated = false;
    mnl_attr_for_each_nested(e, table) {
        if (!app_entry_type(e))
            continue;
        struct dcb_app app = {0};
        if (copy_payload(ps, e, "APP table entry", &app, sizeof app) != 0)
            return -1;
        if (d->n_apps == PNA_DCB_MAX_APPS) {
            d->apps_truncated = true;
            continue;
        }
        d->apps[d->n_apps++] = (struct pna_dcb_app){
            .selector = app.selector, .priority = app.priority, .protocol = app.protocol};
    }
    if (attr_overruns(e, nest_end(table)))
        return malformed(ps, "APP table entry longer than the table");
    return 0;
}

/* DCB_ATTR_DCB_APP_TRUST_TABLE: one u8 selector per entry, highest
 * precedence first.  Only six selectors exist, so entries past the model's
 * eight can only be repeats and are dropped. */
static int parse_trust_table(struct parse *ps, const struct nlattr *table)
{
    struct pna_dcb *d = ps->out;
    const struct nlattr *e;
    d->n_trust = 0;
    mnl_attr_for_each_nested(e, table) {
        if (!app_entry_type(e))
            continue;
        uint8_t selector = 0;
        if (copy_payload(ps, e, "trust table entry", &selector, sizeof selector) != 0)
            return -1;
        if (d->n_trust < PNA_LOSSLESS_PRIOS)
            d->trust[d->n_trust++] = selector;
    }
    if (attr_overruns(e, nest_end(table)))
        return malformed(ps, "trust table entry longer than the table");
    return 0;
}

/* DCB_ATTR_IEEE.  Not part of the model, so skipped: MAXRATE, QCN, the
 * buffer split, the rewrite table, the peer's ETS/PFC/APP. */
static int parse_ieee(struct parse *ps, const struct nlattr *ieee)
{
    const struct nlattr *a;
    mnl_attr_for_each_nested(a, ieee) {
        int rc = 0;
        switch (mnl_attr_get_type(a)) {
        case DCB_ATTR_IEEE_ETS:
            rc = parse_ets(ps, a);
            break;
        case DCB_ATTR_IEEE_PFC:
            rc = parse_pfc(ps, a);
            break;
        case DCB_ATTR_IEEE_APP_TABLE:
            rc = parse_app_table(ps, a);
            break;
        case PNA_DCB_ATTR_APP_TRUST_TABLE:
            rc = parse_trust_table(ps, a);
            break;
        default:
            break;
        }
        if (rc != 0)
            return rc;
    }
    if (attr_overruns(a, nest_end(ieee)))
        return malformed(ps, "attribute longer than DCB_ATTR_IEEE");
    return 0;
}

/* An RTM_GETDCB answer: to DCB_CMD_IEEE_GET (must hold DCB_ATTR_IEEE) or to
 * DCB_CMD_GDCBX; either may carry DCB_ATTR_DCBX.  Other commands: skipped. */
static int parse_dcb_message(struct parse *ps, const struct nlmsghdr *nlh)
{
    if (mnl_nlmsg_get_payload_len(nlh) < sizeof(struct dcbmsg))
        return malformed(ps, "RTM_GETDCB message of %u octets", (unsigned)nlh->nlmsg_len);
    const struct dcbmsg *dm = mnl_nlmsg_get_payload(nlh);
    bool ieee_get = dm->cmd == DCB_CMD_IEEE_GET;
    if (!ieee_get && dm->cmd != DCB_CMD_GDCBX)
        return 0;
    bool have_ieee = false;
    const struct nlattr *a;
    mnl_attr_for_each(a, nlh, sizeof(struct dcbmsg)) {
        uint16_t type = mnl_attr_get_type(a);
        if (type == DCB_ATTR_IEEE && ieee_get) {
            have_ieee = true;
            if (parse_ieee(ps, a) != 0)
                return -1;
        } else if (type == DCB_ATTR_DCBX) {
            if (copy_payload(ps, a, "DCB_ATTR_DCBX", &ps->out->dcbx, sizeof ps->out->dcbx) != 0)
                return -1;
        }
    }
    if (attr_overruns(a, mnl_nlmsg_get_payload_tail(nlh)))
        return malformed(ps, "attribute longer than its message");
    if (ieee_get && !have_ieee)
        return malformed(ps, "DCB_CMD_IEEE_GET answer without DCB_ATTR_IEEE");
    ps->got_ieee |= ieee_get;
    return 0;
}

/* The DCB command an NLMSG_ERROR answers, from the copy of the request the
 * kernel puts after the error code; -1 when the copy was capped. */
static int refused_command(const struct nlmsghdr *nlh)
{
    struct nlmsgerr e;
    struct dcbmsg dm;
    if (mnl_nlmsg_get_payload_len(nlh) < sizeof e + sizeof dm)
        return -1;
    memcpy(&e, mnl_nlmsg_get_payload(nlh), sizeof e);
    if (e.msg.nlmsg_len < NLMSG_HDRLEN + sizeof dm || e.msg.nlmsg_type != RTM_GETDCB)
        return -1;
    memcpy(&dm, (const char *)mnl_nlmsg_get_payload(nlh) + sizeof e, sizeof dm);
    return dm.cmd;
}

static int refused(struct parse *ps, int err)
{
    switch (err) {
    case EOPNOTSUPP:
        return fail(ps->out, "no DCB support in the driver (EOPNOTSUPP)");
    case ENODEV:
        return fail(ps->out, "no such interface");
    default:
        return fail(ps->out, "netlink: %s", strerror(err));
    }
}

/* NLMSG_ERROR: 0 is an acknowledgement; a refused DCB_CMD_GDCBX (a driver
 * without getdcbx) leaves the DCBX mode unknown; any other refusal is the
 * answer. */
static int parse_error_message(struct parse *ps, const struct nlmsghdr *nlh)
{
    struct nlmsgerr e;
    if (mnl_nlmsg_get_payload_len(nlh) < sizeof e)
        return malformed(ps, "NLMSG_ERROR of %u octets", (unsigned)nlh->nlmsg_len);
    memcpy(&e, mnl_nlmsg_get_payload(nlh), sizeof e);
    if (e.error == 0)
        return 0;
    if (e.error > 0 || e.error < -4095)
        return malformed(ps, "NLMSG_ERROR code %d", e.error);
    if (refused_command(nlh) == DCB_CMD_GDCBX)
        return 0;
    return refused(ps, -e.error);
}

/* A message's length with its padding, in size_t: NLMSG_ALIGN() masks with
 * an unsigned int, which wraps a length near 4 GiB to 0. */
static size_t padded_len(uint32_t len)
{
    return ((size_t)len + 3) & ~(size_t)3;
}

/* The message at NLH fits in the LEFT octets, its padding included.  (libmnl's
 * mnl_nlmsg_ok() compares the length as an int: one of 2 GiB or more passes
 * it, and its attribute loops read up to the padded end.) */
static bool message_fits(const struct nlmsghdr *nlh, size_t left)
{
    return left >= sizeof *nlh && nlh->nlmsg_len >= sizeof *nlh &&
           padded_len(nlh->nlmsg_len) <= left;
}

static int parse_messages(struct parse *ps, const char *p, size_t len)
{
    while (len > 0) {
        const struct nlmsghdr *nlh = (const struct nlmsghdr *)p;
        if (!message_fits(nlh, len))
            return malformed(ps, "message truncated (%zu octets left)", len);
        int rc = 0;
        if (nlh->nlmsg_type == NLMSG_ERROR)
            rc = parse_error_message(ps, nlh);
        else if (nlh->nlmsg_type == RTM_GETDCB)
            rc = parse_dcb_message(ps, nlh);
        if (rc != 0)
            return rc;
        size_t step = padded_len(nlh->nlmsg_len);
        p += step;
        len -= step;
    }
    return 0;
}

int pna_dcb_parse(const void *buf, size_t len, struct pna_dcb *out)
{
    memset(out, 0, sizeof *out);
    struct parse ps = {.out = out};
    if (len == 0)
        return malformed(&ps, "empty");
    /* The netlink structs are read in place: they need 4-octet alignment,
     * which the kernel's data has and a caller's buffer may not. */
    void *copy = NULL;
    if ((uintptr_t)buf % 4 != 0) {
        if (!(copy = malloc(len)))
            return fail(out, "out of memory");
        buf = memcpy(copy, buf, len);
    }
    int rc = parse_messages(&ps, buf, len);
    free(copy);
    if (rc == 0 && !ps.got_ieee)
        rc = malformed(&ps, "no answer to DCB_CMD_IEEE_GET");
    if (rc != 0) {
        /* What was filled before the fault is not an answer: keep the reason alone. */
        char why[sizeof out->error];
        memcpy(why, out->error, sizeof why);
        memset(out, 0, sizeof *out);
        memcpy(out->error, why, sizeof why);
        return -1;
    }
    out->read = true;
    return 0;
}

/* ---- the requests ---------------------------------------------------------- */

static struct mnl_socket *open_socket(struct pna_dcb *out)
{
    struct mnl_socket *nl = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC);
    if (!nl) {
        fail(out, "netlink: %s", strerror(errno));
        return NULL;
    }
    /* The deadline: a kernel that never answers costs a second, not the poll. */
    struct timeval tv = {.tv_sec = REPLY_TIMEOUT_S};
    if (setsockopt(mnl_socket_get_fd(nl), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) != 0 ||
        mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) != 0) {
        fail(out, "netlink: %s", strerror(errno));
        mnl_socket_close(nl);
        return NULL;
    }
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
            return fail(out, "netlink: no answer within %d s", REPLY_TIMEOUT_S);
        if (got < 0 && errno == ENOSPC)
            return fail(out, "netlink: answer larger than %zu octets", cap);
        if (got < 0)
            return fail(out, "netlink: %s", strerror(errno));
        const struct nlmsghdr *nlh = (const struct nlmsghdr *)buf;
        if ((size_t)got >= sizeof *nlh && nlh->nlmsg_seq != seq)
            continue;
        *n = (size_t)got;
        return 0;
    }
    return fail(out, "netlink: no answer to request %u", (unsigned)seq);
}

static int ask(struct mnl_socket *nl, const char *ifname, uint8_t cmd, uint32_t seq, char *buf,
               size_t cap, size_t *n, struct pna_dcb *out)
{
    if (send_request(nl, ifname, cmd, seq) != 0)
        return fail(out, "netlink: %s", strerror(errno));
    return receive_answer(nl, seq, buf, cap, n, out);
}

int pna_dcb_read(const char *ifname, struct pna_dcb *out)
{
    memset(out, 0, sizeof *out);
    if (!ifname || !ifname[0] || strlen(ifname) >= IFNAMSIZ)
        return fail(out, "no such interface");
    char *buf = malloc(2 * REPLY_MAX);
    if (!buf)
        return fail(out, "out of memory");
    struct mnl_socket *nl = open_socket(out);
    int rc = -1;
    size_t ieee_len = 0, dcbx_len = 0;
    if (nl && ask(nl, ifname, DCB_CMD_IEEE_GET, 1, buf, REPLY_MAX, &ieee_len, out) == 0 &&
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
