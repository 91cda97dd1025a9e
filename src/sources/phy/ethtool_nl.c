/* sources/phy/ethtool_nl.c -- the physical layer of an Ethernet port from the
 * kernel's ethtool netlink interface (see ethtool_nl.h): the socket, the
 * family, the requests and their answers.  Each request kind is a file of
 * its own (ethtool_nl_linkstate.c, _fec.c, _stats.c, _pause.c, _eeprom.c),
 * one answer is parsed by ethtool_nl_reply.c.
 *
 * Generic netlink family "ethtool" (Linux 5.6+), resolved once per socket
 * with CTRL_CMD_GETFAMILY.  Each request is one ETHTOOL_MSG_*_GET message
 * whose header nest names the device (ETHTOOL_A_HEADER_DEV_NAME) and sets
 * ETHTOOL_A_HEADER_FLAGS; the kernel answers with one *_GET_REPLY message
 * or one NLMSG_ERROR:
 *
 *   LINKSTATE_GET  flags STATS        LINK, SQI/SQI_MAX, EXT_STATE/SUBSTATE,
 *                                     EXT_DOWN_CNT (STATS asks for it)
 *   FEC_GET        flags COMPACT|STATS  MODES (link-mode bitset), AUTO,
 *                                     ACTIVE, the STATS nest (u64 arrays)
 *   STATS_GET      flags COMPACT      GROUPS eth-phy eth-mac eth-ctrl rmon,
 *                                     answered by one GRP nest per group
 *   PAUSE_GET      flags STATS        the STATS nest: TX_FRAMES, RX_FRAMES
 *   MODULE_EEPROM_GET  (no flags)     OFFSET, LENGTH, PAGE, BANK, I2C_ADDRESS
 *                                     answered by DATA
 *
 * LINKSTATE_GET accepts ETHTOOL_FLAG_STATS only from the kernel that added
 * EXT_DOWN_CNT (6.2; FEC_GET from 5.13 and PAUSE_GET from 5.10, with their
 * statistics): a request the kernel refuses for the flag is asked again
 * without it, and the socket remembers not to send it for that request
 * (see ask()).
 *
 * Privileges (net/ethtool/netlink.c, ethtool_genl_ops[]): LINKSTATE_GET,
 * FEC_GET, STATS_GET and PAUSE_GET carry no GENL_*_PERM flag, so any process
 * may make them (verified: an unprivileged uid gets the same LINKSTATE and
 * STATS answers as root); MODULE_EEPROM_GET needs CAP_NET_ADMIN (see
 * ethtool_nl_eeprom.c).  The socket belongs to the network namespace of the
 * thread that opens it: a containerised agent sees the node's ports only
 * with host networking.
 *
 * Each part is its own request because drivers implement each ethtool op or
 * not (veth has none of get_fecparam, get_pauseparam, the 802.3 statistics
 * or the module EEPROM; ionic has FEC and pause without their statistics):
 * a refused FEC_GET says nothing about the link, so only LINKSTATE_GET
 * failing fails pna_ethnl_read_phy(); the other parts stay absent.
 *
 * Errors follow transport/netlink.h: a negative errno and one line. */
#include "pna_autoconf.h"
#include "sources/phy/ethtool_nl.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "sources/phy/ethtool_nl_reply.h"

/* The requests pna_ethnl_read_phy() makes, in order. */
static const struct pna_ethnl_request *const PHY_REQUESTS[] = {
    &pna_ethnl_linkstate, &pna_ethnl_fec, &pna_ethnl_stats, &pna_ethnl_pause,
};
#define N_PHY_REQUESTS (sizeof PHY_REQUESTS / sizeof PHY_REQUESTS[0])

static void clear_phy_parts(struct pna_phy_if *out)
{
    for (size_t i = 0; i < N_PHY_REQUESTS; i++)
        PHY_REQUESTS[i]->clear(out);
    out->ifindex = 0;
    out->error[0] = '\0';
}

#ifndef HAVE_LIBMNL

struct pna_ethnl *pna_ethnl_open(char *err, size_t errlen)
{
    if (err && errlen)
        snprintf(err, errlen, "built without libmnl");
    return NULL;
}

void pna_ethnl_close(struct pna_ethnl *nl)
{
    (void)nl;
}

int pna_ethnl_read_phy(struct pna_ethnl *nl, struct pna_phy_if *out)
{
    (void)nl;
    clear_phy_parts(out);
    snprintf(out->error, sizeof out->error, "built without libmnl");
    return -ENOSYS;
}

int pna_ethnl_module_eeprom(struct pna_ethnl *nl, const char *ifname, uint8_t i2c_addr,
                            uint8_t page, uint8_t bank, uint32_t offset, uint32_t length,
                            uint8_t *buf, char *err, size_t errlen)
{
    (void)nl;
    (void)ifname;
    (void)bank;
    (void)buf;
    int rc = pna_ethnl_eeprom_args_ok(i2c_addr, page, offset, length, err, errlen);
    if (rc != 0)
        return rc;
    if (err && errlen)
        snprintf(err, errlen, "built without libmnl");
    return -ENOSYS;
}

#else

#include <libmnl/libmnl.h>
#include <linux/ethtool.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <net/if.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/socket.h>

#include "util/clock.h"

#define REPLY_TIMEOUT_MS 1000
#define REPLY_MAX (1u << 20)   /* larger is not an ethtool reply */

struct pna_ethnl {
    struct mnl_socket *sock;
    uint16_t family;         /* the "ethtool" family's message type */
    uint32_t portid;
    uint32_t seq;
    unsigned stats_flag_ok;  /* bit per request kind: the kernel took ETHTOOL_FLAG_STATS */
    unsigned no_stats_flag;  /* bit per request kind: it refused the flag */
    uint8_t *buf;            /* the last reply */
    size_t cap;
};

static int set_err(char *err, size_t errlen, int rc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* ERR's line from FMT; returns RC. */
static int set_err(char *err, size_t errlen, int rc, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return rc;
}

static uint32_t rd32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

static int send_msg(struct pna_ethnl *nl, struct nlmsghdr *nlh, char *err, size_t errlen,
                    const char *what)
{
    if (mnl_socket_sendto(nl->sock, nlh, nlh->nlmsg_len) < 0) {
        int e = errno;
        return set_err(err, errlen, -e, "%s: netlink: %s", what, strerror(e));
    }
    return 0;
}

/* Make room for a datagram of SIZE octets (at most REPLY_MAX) in NL->buf. */
static int reserve(struct pna_ethnl *nl, size_t size, char *err, size_t errlen, const char *what)
{
    size_t want = size > REPLY_MAX ? REPLY_MAX : size;
    if (want < NLMSG_HDRLEN)
        want = NLMSG_HDRLEN;
    if (want <= nl->cap)
        return 0;
    uint8_t *grown = realloc(nl->buf, want);
    if (!grown)
        return set_err(err, errlen, -ENOMEM, "%s: out of memory", what);
    nl->buf = grown;
    nl->cap = want;
    return 0;
}

/* One datagram into NL->buf (*GOT octets): 1, 0 when none is waiting (or a
 * signal came), or a negative errno.  Its size is peeked first and the
 * buffer grown to it, so an answer larger than the last one is read whole. */
static int receive_one(struct pna_ethnl *nl, int fd, struct sockaddr_nl *from, size_t *got,
                       char *err, size_t errlen, const char *what)
{
    uint8_t probe[NLMSG_HDRLEN];
    ssize_t size = recv(fd, probe, sizeof probe, MSG_PEEK | MSG_TRUNC | MSG_DONTWAIT);
    if (size < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        return 0;
    if (size < 0) {
        int e = errno;
        return set_err(err, errlen, -e, "%s: netlink: %s", what, strerror(e));
    }
    int rc = reserve(nl, (size_t)size, err, errlen, what);
    if (rc != 0)
        return rc;
    struct iovec iov = {.iov_base = nl->buf, .iov_len = nl->cap};
    struct msghdr mh = {.msg_name = from, .msg_namelen = sizeof *from, .msg_iov = &iov,
                        .msg_iovlen = 1};
    ssize_t n = recvmsg(fd, &mh, MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        return 0;
    if (n < 0) {
        int e = errno;
        return set_err(err, errlen, -e, "%s: netlink: %s", what, strerror(e));
    }
    if (mh.msg_flags & MSG_TRUNC)
        return set_err(err, errlen, -EMSGSIZE, "%s: answer larger than %u octets", what,
                       REPLY_MAX);
    *got = (size_t)n;
    return 1;
}

/* Receive the answer to request SEQ into NL->buf (*N octets), waiting at
 * most a second.  Datagrams not from the kernel, or answering an earlier
 * request that timed out, are dropped. */
static int receive(struct pna_ethnl *nl, uint32_t seq, size_t *n, char *err, size_t errlen,
                   const char *what)
{
    int fd = mnl_socket_get_fd(nl->sock);
    int64_t deadline = pna_mono_ms() + REPLY_TIMEOUT_MS;
    for (;;) {
        int64_t left = deadline - pna_mono_ms();
        if (left <= 0)
            return set_err(err, errlen, -ETIMEDOUT, "%s: no answer within %d s", what,
                           REPLY_TIMEOUT_MS / 1000);
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        int pr = poll(&pfd, 1, (int)left);
        if (pr < 0 && errno == EINTR)
            continue;
        if (pr < 0) {
            int e = errno;
            return set_err(err, errlen, -e, "%s: poll: %s", what, strerror(e));
        }
        if (pr == 0)
            continue;  /* the deadline check above reports it */
        struct sockaddr_nl from = {0};
        size_t got = 0;
        int rc = receive_one(nl, fd, &from, &got, err, errlen, what);
        if (rc < 0)
            return rc;
        if (rc == 0 || from.nl_pid != 0 || got < NLMSG_HDRLEN)
            continue;
        if (rd32(nl->buf + 8) != seq || rd32(nl->buf + 12) != nl->portid)
            continue;
        *n = got;
        return 0;
    }
}

/* ---- the family ------------------------------------------------------------ */

static const struct pna_nla_policy CTRL_POLICY[CTRL_ATTR_FAMILY_ID + 1] = {
    [CTRL_ATTR_FAMILY_ID] = {.kind = PNA_NLA_U16, .name = "CTRL_ATTR_FAMILY_ID"},
};

/* The controller's answer (N octets in NL->buf): the family's message type
 * from CTRL_ATTR_FAMILY_ID.  ENOENT: a kernel without ethtool netlink
 * (before 5.6, or CONFIG_ETHTOOL_NETLINK off). */
static int take_family(struct pna_ethnl *nl, size_t n, char *err, size_t errlen)
{
    struct pna_nl_msgs it;
    struct pna_nl_msg m;
    char why[112];
    pna_nl_msgs_init(&it, nl->buf, n);
    if (pna_nl_msgs_next(&it, &m, why, sizeof why) != 1)
        return set_err(err, errlen, -EBADMSG, "ethtool netlink: malformed controller answer");
    if (m.type == NLMSG_ERROR) {
        struct pna_nl_error e;
        if (pna_nl_error_parse(&m, &e, why, sizeof why) != 0 || e.errnum == 0)
            return set_err(err, errlen, -EBADMSG, "ethtool netlink: malformed controller answer");
        if (e.errnum == ENOENT)
            return set_err(err, errlen, -ENOENT, "no ethtool netlink in this kernel (ENOENT)%s%s",
                           e.extack[0] ? ": " : "", e.extack);
        return set_err(err, errlen, -e.errnum, "ethtool netlink: controller: %s%s%s",
                       strerror(e.errnum), e.extack[0] ? ": " : "", e.extack);
    }
    const struct pna_nla *tb[CTRL_ATTR_FAMILY_ID + 1];
    if (m.payload_len < GENL_HDRLEN ||
        pna_nla_parse(tb, CTRL_ATTR_FAMILY_ID, CTRL_POLICY, m.payload + GENL_HDRLEN,
                      m.payload_len - GENL_HDRLEN, "the controller's answer", why,
                      sizeof why) != 0)
        return set_err(err, errlen, -EBADMSG, "ethtool netlink: malformed controller answer");
    if (!tb[CTRL_ATTR_FAMILY_ID] || pna_nla_u16(tb[CTRL_ATTR_FAMILY_ID]) < NLMSG_MIN_TYPE)
        return set_err(err, errlen, -EBADMSG,
                       "ethtool netlink: no family id in the controller's answer");
    nl->family = pna_nla_u16(tb[CTRL_ATTR_FAMILY_ID]);
    return 0;
}

/* CTRL_CMD_GETFAMILY "ethtool". */
static int resolve_family(struct pna_ethnl *nl, char *err, size_t errlen)
{
    uint32_t req[64] = {0};
    struct nlmsghdr *nlh = mnl_nlmsg_put_header(req);
    nlh->nlmsg_type = GENL_ID_CTRL;
    nlh->nlmsg_flags = NLM_F_REQUEST;
    nlh->nlmsg_seq = ++nl->seq;
    struct genlmsghdr *g = mnl_nlmsg_put_extra_header(nlh, sizeof *g);
    g->cmd = CTRL_CMD_GETFAMILY;
    g->version = 1;
    mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, ETHTOOL_GENL_NAME);
    size_t n;
    int rc;
    if ((rc = send_msg(nl, nlh, err, errlen, "ethtool netlink")) != 0 ||
        (rc = receive(nl, nlh->nlmsg_seq, &n, err, errlen, "ethtool netlink")) != 0)
        return rc;
    return take_family(nl, n, err, errlen);
}

struct pna_ethnl *pna_ethnl_open(char *err, size_t errlen)
{
    struct pna_ethnl *nl = calloc(1, sizeof *nl);
    if (!nl) {
        set_err(err, errlen, -ENOMEM, "out of memory");
        return NULL;
    }
    nl->sock = mnl_socket_open2(NETLINK_GENERIC, SOCK_CLOEXEC);
    if (!nl->sock) {
        set_err(err, errlen, -errno, "ethtool netlink: socket: %s", strerror(errno));
        free(nl);
        return NULL;
    }
    /* The kernel's extended ACK messages, and no copy of the request in an
     * error.  Both are hints: a kernel without them still answers. */
    int on = 1;
    mnl_socket_setsockopt(nl->sock, NETLINK_EXT_ACK, &on, sizeof on);
    mnl_socket_setsockopt(nl->sock, NETLINK_CAP_ACK, &on, sizeof on);
    if (mnl_socket_bind(nl->sock, 0, MNL_SOCKET_AUTOPID) != 0) {
        set_err(err, errlen, -errno, "ethtool netlink: bind: %s", strerror(errno));
        pna_ethnl_close(nl);
        return NULL;
    }
    nl->portid = mnl_socket_get_portid(nl->sock);
    if (resolve_family(nl, err, errlen) != 0) {
        pna_ethnl_close(nl);
        return NULL;
    }
    return nl;
}

void pna_ethnl_close(struct pna_ethnl *nl)
{
    if (!nl)
        return;
    if (nl->sock)
        mnl_socket_close(nl->sock);
    free(nl->buf);
    free(nl);
}

/* ---- the requests ---------------------------------------------------------- */

struct eeprom_args {
    uint8_t i2c_addr, page, bank;
    uint32_t offset, length;
};

/* Request REQ for IFNAME in BUF (4-aligned, room for about 90 octets). */
static struct nlmsghdr *build_request(struct pna_ethnl *nl, const struct pna_ethnl_request *req,
                                      const char *ifname, const struct eeprom_args *ee,
                                      bool with_stats, uint32_t *buf)
{
    struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
    nlh->nlmsg_type = nl->family;
    nlh->nlmsg_flags = NLM_F_REQUEST;
    nlh->nlmsg_seq = ++nl->seq;
    struct genlmsghdr *g = mnl_nlmsg_put_extra_header(nlh, sizeof *g);
    g->cmd = req->cmd;
    g->version = ETHTOOL_GENL_VERSION;
    uint32_t flags = req->flags;
    if (!with_stats)
        flags &= ~(uint32_t)ETHTOOL_FLAG_STATS;
    struct nlattr *hdr = mnl_attr_nest_start(nlh, req->hdr_attr);
    hdr->nla_type |= NLA_F_NESTED;
    mnl_attr_put_strz(nlh, ETHTOOL_A_HEADER_DEV_NAME, ifname);
    mnl_attr_put_u32(nlh, ETHTOOL_A_HEADER_FLAGS, flags);
    mnl_attr_nest_end(nlh, hdr);
    if (req == &pna_ethnl_stats) {
        /* All four groups, as a compact bitset of ETH_SS_STATS_STD. */
        struct nlattr *set = mnl_attr_nest_start(nlh, ETHTOOL_A_STATS_GROUPS);
        set->nla_type |= NLA_F_NESTED;
        mnl_attr_put(nlh, ETHTOOL_A_BITSET_NOMASK, 0, NULL);
        mnl_attr_put_u32(nlh, ETHTOOL_A_BITSET_SIZE, 4);
        mnl_attr_put_u32(nlh, ETHTOOL_A_BITSET_VALUE,
                         1u << ETHTOOL_STATS_ETH_PHY | 1u << ETHTOOL_STATS_ETH_MAC |
                             1u << ETHTOOL_STATS_ETH_CTRL | 1u << ETHTOOL_STATS_RMON);
        mnl_attr_nest_end(nlh, set);
    } else if (req == &pna_ethnl_eeprom) {
        mnl_attr_put_u32(nlh, ETHTOOL_A_MODULE_EEPROM_OFFSET, ee->offset);
        mnl_attr_put_u32(nlh, ETHTOOL_A_MODULE_EEPROM_LENGTH, ee->length);
        mnl_attr_put_u8(nlh, ETHTOOL_A_MODULE_EEPROM_PAGE, ee->page);
        mnl_attr_put_u8(nlh, ETHTOOL_A_MODULE_EEPROM_BANK, ee->bank);
        mnl_attr_put_u8(nlh, ETHTOOL_A_MODULE_EEPROM_I2C_ADDRESS, ee->i2c_addr);
    }
    return nlh;
}

/* The errno of an NLMSG_ERROR opening the reply (N octets), else 0. */
static int refusal_errno(const uint8_t *reply, size_t n)
{
    struct pna_nl_msgs it;
    struct pna_nl_msg m;
    struct pna_nl_error e;
    pna_nl_msgs_init(&it, reply, n);
    if (pna_nl_msgs_next(&it, &m, NULL, 0) != 1 || m.type != NLMSG_ERROR ||
        pna_nl_error_parse(&m, &e, NULL, 0) != 0)
        return 0;
    return e.errnum;
}

/* Send request REQ and receive its answer into NL->buf (*N octets).
 *
 * ETHTOOL_FLAG_STATS is refused by kernels older than the statistics of a
 * request: with EINVAL ("reserved bit set") where the request's header
 * policy predates them (5.10 on: LINKSTATE_GET before 6.2, FEC_GET before
 * 5.13), with EOPNOTSUPP ("unrecognized request flags") before 5.10.  So
 * until the kernel has once taken the flag for REQ, an EINVAL or EOPNOTSUPP
 * is asked again without it; when that succeeds, the flag is not sent for
 * REQ again on this socket.  (A driver without the op answers EOPNOTSUPP
 * both times: one more round trip per poll, until the kernel has taken the
 * flag for REQ on any interface.)  The buffer holds the larger of the
 * requests, MODULE_EEPROM_GET with an IFNAMSIZ name: about 90 octets. */
static int ask(struct pna_ethnl *nl, const struct pna_ethnl_request *req, const char *ifname,
               const struct eeprom_args *ee, size_t *n, char *err, size_t errlen)
{
    unsigned bit = 1u << req->kind;
    bool with_stats = (req->flags & ETHTOOL_FLAG_STATS) && !(nl->no_stats_flag & bit);
    for (int attempt = 0; attempt < 2; attempt++) {
        uint32_t buf[128] = {0};  /* uint32_t: the message's 4-octet alignment */
        struct nlmsghdr *nlh = build_request(nl, req, ifname, ee, with_stats, buf);
        int rc;
        if ((rc = send_msg(nl, nlh, err, errlen, req->name)) != 0 ||
            (rc = receive(nl, nlh->nlmsg_seq, n, err, errlen, req->name)) != 0)
            return rc;
        int e = refusal_errno(nl->buf, *n);
        if (attempt == 1) {
            if (e == 0)
                nl->no_stats_flag |= bit;
            return 0;
        }
        if (!with_stats)
            return 0;
        if (e == 0) {
            nl->stats_flag_ok |= bit;
            return 0;
        }
        if ((e != EINVAL && e != EOPNOTSUPP) || (nl->stats_flag_ok & bit))
            return 0;
        with_stats = false;
    }
    return 0;
}

static bool ifname_ok(const char *ifname)
{
    return ifname && ifname[0] && strnlen(ifname, IFNAMSIZ) < IFNAMSIZ;
}

/* Four requests, in order.  OUT's link, fec, counters, stats_read, ifindex
 * (from the reply header) and error are this function's; ifname is the
 * caller's, and the BER fields and the module are the poller's: left alone. */
int pna_ethnl_read_phy(struct pna_ethnl *nl, struct pna_phy_if *out)
{
    clear_phy_parts(out);
    if (!nl)
        return set_err(out->error, sizeof out->error, -EBADF, "ethtool netlink not open");
    if (!ifname_ok(out->ifname))
        return set_err(out->error, sizeof out->error, -ENODEV, "link state: no such interface");
    size_t n;
    int rc;
    if ((rc = ask(nl, &pna_ethnl_linkstate, out->ifname, NULL, &n, out->error,
                  sizeof out->error)) != 0 ||
        (rc = pna_ethnl_parse_part(&pna_ethnl_linkstate, nl->family, nl->buf, n, out,
                                   out->error, sizeof out->error)) != 0)
        return rc;
    /* The other parts are the driver's to offer or not: a refusal, a
     * timeout or a malformed answer leaves that part absent, and the link
     * state stands. */
    for (size_t i = 1; i < N_PHY_REQUESTS; i++) {
        char why[sizeof out->error];
        if (ask(nl, PHY_REQUESTS[i], out->ifname, NULL, &n, why, sizeof why) == 0)
            pna_ethnl_parse_part(PHY_REQUESTS[i], nl->family, nl->buf, n, out, why, sizeof why);
    }
    out->error[0] = '\0';
    return 0;
}

int pna_ethnl_module_eeprom(struct pna_ethnl *nl, const char *ifname, uint8_t i2c_addr,
                            uint8_t page, uint8_t bank, uint32_t offset, uint32_t length,
                            uint8_t *buf, char *err, size_t errlen)
{
    int rc = pna_ethnl_eeprom_args_ok(i2c_addr, page, offset, length, err, errlen);
    if (rc != 0)
        return rc;
    if (!nl)
        return set_err(err, errlen, -EBADF, "ethtool netlink not open");
    if (!ifname_ok(ifname))
        return set_err(err, errlen, -ENODEV, "module EEPROM: no such interface");
    struct eeprom_args ee = {.i2c_addr = i2c_addr, .page = page, .bank = bank, .offset = offset,
                             .length = length};
    size_t n;
    if ((rc = ask(nl, &pna_ethnl_eeprom, ifname, &ee, &n, err, errlen)) != 0)
        return rc;
    return pna_ethnl_eeprom_parse(nl->family, nl->buf, n, buf, length, err, errlen);
}

#endif /* HAVE_LIBMNL */
