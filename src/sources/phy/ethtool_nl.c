/* sources/phy/ethtool_nl.c -- the physical layer of an Ethernet port from the
 * kernel's ethtool netlink interface (see ethtool_nl.h).
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
 * STATS_GET takes no ETHTOOL_FLAG_STATS: its header policy is the plain
 * ethnl_header_policy, which rejects that flag ("reserved bit set",
 * EINVAL).  LINKSTATE_GET accepts it only from the kernel that added
 * EXT_DOWN_CNT (6.2; FEC_GET from 5.13 and PAUSE_GET from 5.10, with their
 * statistics): a request the kernel refuses for the flag is asked again
 * without it, and the socket remembers not to send it for that request
 * (see ask()).
 *
 * Privileges (net/ethtool/netlink.c, ethtool_genl_ops[]): LINKSTATE_GET,
 * FEC_GET, STATS_GET and PAUSE_GET carry no GENL_*_PERM flag, so any process
 * may make them (verified: an unprivileged uid gets the same LINKSTATE and
 * STATS answers as root).  MODULE_EEPROM_GET is GENL_UNS_ADMIN_PERM: it needs
 * CAP_NET_ADMIN in the user namespace that owns the socket's network
 * namespace, and is refused with EPERM otherwise (recorded in
 * tests/fixtures/ethtool-nl/).  The statistics need nothing more than the
 * request they come with.  The socket belongs to the network namespace of
 * the thread that opens it: a containerised agent sees the node's ports
 * only with host networking.
 *
 * Each part is its own request because drivers implement each ethtool op or
 * not (veth has none of get_fecparam, get_pauseparam, the 802.3 statistics
 * or the module EEPROM; ionic has FEC and pause without their statistics):
 * a refused FEC_GET says nothing about the link, so only LINKSTATE_GET
 * failing fails pna_ethnl_read_phy(); the other parts stay absent.
 *
 * The replies are parsed here, not by libmnl, so the parsers build and run
 * without it (the fuzzing harness and the --without-libmnl unit test use
 * them) and every length is checked in size_t: libmnl's mnl_attr_ok() and
 * mnl_nlmsg_ok() compare lengths as int (see sources/pfc/dcb.c).  An
 * attribute longer than its container, a nest past the end of its message,
 * a number of an impossible width or an array that is not whole u64s makes
 * the reply malformed: -1 and the reason, never a read outside the data. */
#include "pna_autoconf.h"
#include "sources/phy/ethtool_nl.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/ethtool.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Linux 6.2 appended this to the LINKSTATE attributes (include/uapi/linux/
 * ethtool_netlink.h; later kernels generate it into ethtool_netlink_generated.h
 * from the YNL spec): a u32 count of
 * link down events, sent when the request sets ETHTOOL_FLAG_STATS and the
 * driver has get_link_ext_stats.  Debian 12's headers (6.1) lack it.  Own
 * name, because newer headers declare the kernel's as an enum constant. */
#define PNA_ETHTOOL_A_LINKSTATE_EXT_DOWN_CNT 7

/* ETH_MODULE_EEPROM_PAGE_LEN and ETH_MODULE_MAX_I2C_ADDRESS live in the
 * kernel's include/linux/ethtool.h, not in the uapi headers. */
#define EEPROM_HALF_PAGE 128u
#define EEPROM_MAX_I2C_ADDRESS 0x7fu

#define REPLY_TIMEOUT_MS 1000
#define REPLY_MAX (1u << 20)   /* larger is not an ethtool reply */

/* ---- the requests' names, commands and header attributes ------------------- */

enum req { REQ_LINKSTATE, REQ_FEC, REQ_STATS, REQ_PAUSE, REQ_EEPROM, REQ_COUNT };

static const struct req_info {
    const char *name;        /* first word of an error line */
    const char *msg;         /* ETHTOOL_MSG_<msg> */
    uint8_t cmd, reply_cmd;
    uint16_t hdr_attr;
    uint32_t flags;          /* ETHTOOL_A_HEADER_FLAGS sent */
} REQ[REQ_COUNT] = {
    [REQ_LINKSTATE] = {"link state", "LINKSTATE_GET", ETHTOOL_MSG_LINKSTATE_GET,
                       ETHTOOL_MSG_LINKSTATE_GET_REPLY, ETHTOOL_A_LINKSTATE_HEADER,
                       ETHTOOL_FLAG_STATS},
    [REQ_FEC] = {"FEC", "FEC_GET", ETHTOOL_MSG_FEC_GET, ETHTOOL_MSG_FEC_GET_REPLY,
                 ETHTOOL_A_FEC_HEADER, ETHTOOL_FLAG_COMPACT_BITSETS | ETHTOOL_FLAG_STATS},
    [REQ_STATS] = {"statistics", "STATS_GET", ETHTOOL_MSG_STATS_GET, ETHTOOL_MSG_STATS_GET_REPLY,
                   ETHTOOL_A_STATS_HEADER, ETHTOOL_FLAG_COMPACT_BITSETS},
    [REQ_PAUSE] = {"pause", "PAUSE_GET", ETHTOOL_MSG_PAUSE_GET, ETHTOOL_MSG_PAUSE_GET_REPLY,
                   ETHTOOL_A_PAUSE_HEADER, ETHTOOL_FLAG_STATS},
    [REQ_EEPROM] = {"module EEPROM", "MODULE_EEPROM_GET", ETHTOOL_MSG_MODULE_EEPROM_GET,
                    ETHTOOL_MSG_MODULE_EEPROM_GET_REPLY, ETHTOOL_A_MODULE_EEPROM_HEADER, 0},
};

/* ---- bounded reading ------------------------------------------------------- */

static uint16_t rd16(const uint8_t *p)
{
    uint16_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

static uint32_t rd32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

static uint64_t rd64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

static size_t align4(size_t n)
{
    return (n + 3) & ~(size_t)3;
}

/* One attribute: its type without the NESTED and BYTEORDER flags. */
struct attr {
    uint16_t type;
    const uint8_t *data;
    size_t len;
};

/* The attributes of a container (a message's payload, a nest's payload),
 * read in order.  Fields are copied out with memcpy, so the data need not
 * be aligned. */
struct walk {
    const uint8_t *p;
    size_t left;
};

static struct walk walk_of(const uint8_t *p, size_t len)
{
    return (struct walk){.p = p, .left = len};
}

static struct walk walk_nest(const struct attr *a)
{
    return walk_of(a->data, a->len);
}

/* Parse state: which request, where the reason goes, what was found. */
struct parse {
    enum req req;
    char *err;
    size_t errlen;
    int errnum;              /* a positive errno when the kernel refused */
    bool got_reply;
    uint16_t family;         /* the message type expected; 0: any genl type */
    struct pna_phy_if *out;  /* the phy requests */
    const uint8_t *eeprom;   /* the EEPROM request: DATA, once found */
    size_t eeprom_len;
};

static int say(struct parse *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int say(struct parse *ps, const char *fmt, ...)
{
    if (ps->err && ps->errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(ps->err, ps->errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static int malformed(struct parse *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int malformed(struct parse *ps, const char *fmt, ...)
{
    char what[112];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return say(ps, "%s: malformed reply: %s", REQ[ps->req].name, what);
}

/* The next attribute of W into *A: 1, 0 at the end, -1 (malformed) when
 * one is shorter than its own header or runs past its container.  One to
 * three octets after the last attribute are taken as its padding. */
static int next_attr(struct parse *ps, struct walk *w, struct attr *a, const char *container)
{
    *a = (struct attr){0};
    if (w->left < sizeof(struct nlattr))
        return 0;
    size_t len = rd16(w->p);
    if (len < sizeof(struct nlattr))
        return malformed(ps, "attribute of %zu octets in %s", len, container);
    if (len > w->left)
        return malformed(ps, "attribute of %zu octets in %s runs past its end (%zu left)", len,
                         container, w->left);
    a->type = rd16(w->p + 2) & NLA_TYPE_MASK;
    a->data = w->p + sizeof(struct nlattr);
    a->len = len - sizeof(struct nlattr);
    size_t step = align4(len);
    if (step > w->left)
        step = w->left;
    w->p += step;
    w->left -= step;
    return 1;
}

/* An unsigned number: the kernel writes u8, u16, u32 or u64 attributes, and
 * newer kernels NLA_UINT ones (nla_put_uint()) as 4 or 8 octets; any of
 * those widths is read, any other is malformed. */
static int get_uint(struct parse *ps, const struct attr *a, const char *name, uint64_t *v)
{
    switch (a->len) {
    case 1:
        *v = a->data[0];
        return 0;
    case 2:
        *v = rd16(a->data);
        return 0;
    case 4:
        *v = rd32(a->data);
        return 0;
    case 8:
        *v = rd64(a->data);
        return 0;
    default:
        return malformed(ps, "%s is %zu octets", name, a->len);
    }
}

static void set_counter(struct pna_phy_if *out, enum pna_phy_counter c, uint64_t v)
{
    out->c[c].value = v;
    out->c[c].present = true;
}

/* ETHTOOL_A_*_HEADER: the device's index (kept as OUT's ifindex when it
 * fits) and name (checked to be a string, not compared: a request by an
 * alternative name is answered with the device's name). */
static int parse_header(struct parse *ps, const struct attr *hdr, int32_t *ifindex)
{
    struct walk w = walk_nest(hdr);
    struct attr a;
    int rc;
    while ((rc = next_attr(ps, &w, &a, "the reply header")) == 1) {
        uint64_t v;
        switch (a.type) {
        case ETHTOOL_A_HEADER_DEV_INDEX:
            if (get_uint(ps, &a, "ETHTOOL_A_HEADER_DEV_INDEX", &v) != 0)
                return -1;
            if (ifindex && v > 0 && v <= INT32_MAX)
                *ifindex = (int32_t)v;
            break;
        case ETHTOOL_A_HEADER_DEV_NAME:
            if (a.len == 0 || memchr(a.data, '\0', a.len) == NULL)
                return malformed(ps, "device name not terminated");
            break;
        default:
            break;
        }
    }
    return rc;
}

/* ---- errors ------------------------------------------------------------------ */

static const char *errno_name(int e)
{
    switch (e) {
    case EPERM: return "EPERM";
    case ENOENT: return "ENOENT";
    case EIO: return "EIO";
    case ENXIO: return "ENXIO";
    case E2BIG: return "E2BIG";
    case EAGAIN: return "EAGAIN";
    case ENOMEM: return "ENOMEM";
    case EACCES: return "EACCES";
    case EFAULT: return "EFAULT";
    case EBUSY: return "EBUSY";
    case ENODEV: return "ENODEV";
    case EINVAL: return "EINVAL";
    case ENOSPC: return "ENOSPC";
    case ERANGE: return "ERANGE";
    case ENODATA: return "ENODATA";
    case EMSGSIZE: return "EMSGSIZE";
    case EOPNOTSUPP: return "EOPNOTSUPP";
    case ENETDOWN: return "ENETDOWN";
    case ETIMEDOUT: return "ETIMEDOUT";
    case EREMOTEIO: return "EREMOTEIO";
    default: return NULL;
    }
}

/* The kernel's extended ACK message (NLMSGERR_ATTR_MSG) after the error
 * code and the copy (or, with NETLINK_CAP_ACK, the header) of the request,
 * as printable ASCII in MSG; "" when there is none or it cannot be read
 * (the error code alone is still the answer). */
static void extack_message(const uint8_t *payload, size_t plen, uint16_t flags, char *msg,
                           size_t msglen)
{
    msg[0] = '\0';
    if (!(flags & NLM_F_ACK_TLVS))
        return;
    size_t off = sizeof(int32_t) + sizeof(struct nlmsghdr);
    if (!(flags & NLM_F_CAPPED)) {
        size_t req_len = rd32(payload + sizeof(int32_t));
        if (req_len < sizeof(struct nlmsghdr) || req_len > plen - sizeof(int32_t))
            return;
        off = sizeof(int32_t) + req_len;
    }
    off = align4(off);
    if (off >= plen)
        return;
    struct parse quiet = {0};
    struct walk w = walk_of(payload + off, plen - off);
    struct attr a;
    while (next_attr(&quiet, &w, &a, "the error") == 1) {
        if (a.type != NLMSGERR_ATTR_MSG)
            continue;
        size_t n = 0;
        for (size_t i = 0; i < a.len && a.data[i] != '\0' && n + 1 < msglen; i++) {
            uint8_t ch = a.data[i];
            msg[n++] = (ch >= 0x20 && ch < 0x7f) ? (char)ch : '?';
        }
        while (n > 0 && msg[n - 1] == ' ')
            n--;
        msg[n] = '\0';
        return;
    }
}

/* What errno E means for request REQ, in words. */
static const char *refusal(enum req req, int e, const char *extack)
{
    switch (e) {
    case EOPNOTSUPP:
        return "not supported by the driver";
    case ENODEV:
        /* The header's device lookup says "no device matches name"; a
         * module EEPROM read refused with ENODEV otherwise found no module. */
        if (req == REQ_EEPROM && strncmp(extack, "no device matches", 17) != 0)
            return "no module";
        return "no such interface";
    case EPERM:
    case EACCES:
        return req == REQ_EEPROM ? "not permitted without CAP_NET_ADMIN" : "not permitted";
    case EINVAL:
        return "request refused";
    case ENETDOWN:
        return "interface down";
    case EIO:
    case EREMOTEIO:
        return req == REQ_EEPROM ? "module not readable" : "device I/O error";
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

/* NLMSG_ERROR: 0 acknowledges; anything else is the answer, one line. */
static int parse_error(struct parse *ps, const uint8_t *msg, size_t len)
{
    size_t plen = len - NLMSG_HDRLEN;
    const uint8_t *payload = msg + NLMSG_HDRLEN;
    if (plen < sizeof(struct nlmsgerr))
        return malformed(ps, "NLMSG_ERROR of %zu octets", len);
    int32_t code;
    memcpy(&code, payload, sizeof code);
    if (code == 0)
        return 0;
    if (code > 0 || code < -4095)
        return malformed(ps, "NLMSG_ERROR code %d", (int)code);
    int e = -code;
    char extack[96], num[16];
    extack_message(payload, plen, rd16(msg + 6), extack, sizeof extack);
    const char *name = errno_name(e);
    if (!name) {
        snprintf(num, sizeof num, "errno %d", e);
        name = num;
    }
    ps->errnum = e;
    say(ps, "%s: %s (%s)%s%s", REQ[ps->req].name, refusal(ps->req, e, extack), name,
        extack[0] ? ": " : "", extack);
    return -1;
}

/* ---- LINKSTATE ------------------------------------------------------------------ */

/* enum ethtool_link_ext_state, + 1 so that 0 means none (phy.h; the
 * substates already start at 1); a value of 255 cannot be shifted and stays
 * 255. */
static uint8_t plus_one(uint64_t v)
{
    return v >= 254 ? 255 : (uint8_t)(v + 1);
}

static int parse_linkstate(struct parse *ps, struct walk *w)
{
    struct pna_phy_if *out = ps->out;
    struct pna_phy_link *l = &out->link;
    bool have_sqi = false, have_sqi_max = false;
    struct attr a;
    int rc;
    while ((rc = next_attr(ps, w, &a, "the message")) == 1) {
        uint64_t v = 0;
        switch (a.type) {
        case ETHTOOL_A_LINKSTATE_HEADER:
            if (parse_header(ps, &a, &out->ifindex) != 0)
                return -1;
            break;
        case ETHTOOL_A_LINKSTATE_LINK:
            if (get_uint(ps, &a, "ETHTOOL_A_LINKSTATE_LINK", &v) != 0)
                return -1;
            l->has_link = true;
            l->link = v != 0;
            break;
        case ETHTOOL_A_LINKSTATE_SQI:
            if (get_uint(ps, &a, "ETHTOOL_A_LINKSTATE_SQI", &v) != 0)
                return -1;
            l->sqi = v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
            have_sqi = true;
            break;
        case ETHTOOL_A_LINKSTATE_SQI_MAX:
            if (get_uint(ps, &a, "ETHTOOL_A_LINKSTATE_SQI_MAX", &v) != 0)
                return -1;
            l->sqi_max = v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
            have_sqi_max = true;
            break;
        case ETHTOOL_A_LINKSTATE_EXT_STATE:
            if (get_uint(ps, &a, "ETHTOOL_A_LINKSTATE_EXT_STATE", &v) != 0)
                return -1;
            l->has_ext_state = true;
            l->ext_state = plus_one(v);
            break;
        case ETHTOOL_A_LINKSTATE_EXT_SUBSTATE:
            if (get_uint(ps, &a, "ETHTOOL_A_LINKSTATE_EXT_SUBSTATE", &v) != 0)
                return -1;
            l->ext_substate = v > 255 ? 255 : (uint8_t)v;
            break;
        case PNA_ETHTOOL_A_LINKSTATE_EXT_DOWN_CNT:
            if (get_uint(ps, &a, "ETHTOOL_A_LINKSTATE_EXT_DOWN_CNT", &v) != 0)
                return -1;
            set_counter(out, PNA_PHY_LINK_DOWN_EVENTS, v);
            break;
        default:
            break;
        }
    }
    if (rc != 0)
        return -1;
    /* The kernel sends both or neither (linkstate_sqi_valid()). */
    l->has_sqi = have_sqi && have_sqi_max;
    if (!l->has_sqi)
        l->sqi = l->sqi_max = 0;
    l->read = true;
    return 0;
}

/* ---- FEC -------------------------------------------------------------------------- */

static enum pna_fec_mode fec_mode_of_bit(uint64_t bit)
{
    switch (bit) {
    case ETHTOOL_LINK_MODE_FEC_NONE_BIT: return PNA_FEC_OFF;
    case ETHTOOL_LINK_MODE_FEC_RS_BIT: return PNA_FEC_RS;
    case ETHTOOL_LINK_MODE_FEC_BASER_BIT: return PNA_FEC_BASER;
    case ETHTOOL_LINK_MODE_FEC_LLRS_BIT: return PNA_FEC_LLRS;
    default: return PNA_FEC_OTHER;
    }
}

/* Append the name of FEC link mode BIT to TEXT ("off", "rs", "baser",
 * "llrs", or "mode<N>" for a bit this agent does not know); a name that does
 * not fit is left out whole. */
static void fec_text_add(char *text, size_t size, uint32_t bit)
{
    char name[24];
    switch (bit) {
    case ETHTOOL_LINK_MODE_FEC_NONE_BIT: snprintf(name, sizeof name, "off"); break;
    case ETHTOOL_LINK_MODE_FEC_RS_BIT: snprintf(name, sizeof name, "rs"); break;
    case ETHTOOL_LINK_MODE_FEC_BASER_BIT: snprintf(name, sizeof name, "baser"); break;
    case ETHTOOL_LINK_MODE_FEC_LLRS_BIT: snprintf(name, sizeof name, "llrs"); break;
    default: snprintf(name, sizeof name, "mode%u", (unsigned)bit); break;
    }
    size_t have = strlen(text), add = strlen(name) + (have ? 1 : 0);
    if (have + add + 1 > size)
        return;
    snprintf(text + have, size - have, "%s%s", have ? " " : "", name);
}

/* ETHTOOL_A_FEC_MODES, a bitset of link modes (bitset.h): compact
 * (ETHTOOL_A_BITSET_SIZE bits in ETHTOOL_A_BITSET_VALUE, u32 words) or
 * verbose (ETHTOOL_A_BITSET_BITS, one BIT nest per listed bit).  The kernel
 * sends it without a mask (NOMASK): in the verbose form every listed bit is
 * set; with a mask, a listed bit is set when it carries BIT_VALUE. */
static int parse_fec_modes(struct parse *ps, const struct attr *set, char *text, size_t size)
{
    bool nomask = false, have_size = false;
    uint64_t nbits = 0;
    const struct attr *value = NULL, *bits = NULL;
    struct attr a, value_a, bits_a;
    struct walk w = walk_nest(set);
    int rc;
    while ((rc = next_attr(ps, &w, &a, "ETHTOOL_A_FEC_MODES")) == 1) {
        switch (a.type) {
        case ETHTOOL_A_BITSET_NOMASK:
            nomask = true;
            break;
        case ETHTOOL_A_BITSET_SIZE:
            if (get_uint(ps, &a, "ETHTOOL_A_BITSET_SIZE", &nbits) != 0)
                return -1;
            have_size = true;
            break;
        case ETHTOOL_A_BITSET_VALUE:
            value_a = a;
            value = &value_a;
            break;
        case ETHTOOL_A_BITSET_BITS:
            bits_a = a;
            bits = &bits_a;
            break;
        default:
            break;
        }
    }
    if (rc != 0)
        return -1;
    text[0] = '\0';
    if (value) {
        if (!have_size)
            return malformed(ps, "compact FEC modes without ETHTOOL_A_BITSET_SIZE");
        /* (nbits is the sender's u64: compared with the octets at hand, not
         * rounded up, which would wrap) */
        if (value->len % 4 != 0 || nbits > (uint64_t)value->len * 8)
            return malformed(ps, "FEC modes of %" PRIu64 " bits in %zu octets", nbits,
                             value->len);
        for (uint64_t bit = 0; bit < nbits; bit++) {
            if (rd32(value->data + (bit / 32) * 4) & (1u << (bit % 32)))
                fec_text_add(text, size, (uint32_t)bit);
        }
        return 0;
    }
    if (!bits)
        return 0;
    struct walk bw = walk_nest(bits);
    struct attr bit;
    while ((rc = next_attr(ps, &bw, &bit, "ETHTOOL_A_BITSET_BITS")) == 1) {
        if (bit.type != ETHTOOL_A_BITSET_BITS_BIT)
            continue;
        bool have_index = false, set_flag = false;
        uint64_t index = 0;
        struct walk iw = walk_nest(&bit);
        struct attr f;
        while ((rc = next_attr(ps, &iw, &f, "ETHTOOL_A_BITSET_BITS_BIT")) == 1) {
            if (f.type == ETHTOOL_A_BITSET_BIT_INDEX) {
                if (get_uint(ps, &f, "ETHTOOL_A_BITSET_BIT_INDEX", &index) != 0)
                    return -1;
                have_index = true;
            } else if (f.type == ETHTOOL_A_BITSET_BIT_VALUE) {
                set_flag = true;
            }
        }
        if (rc != 0)
            return -1;
        if (!have_index)
            return malformed(ps, "FEC mode without ETHTOOL_A_BITSET_BIT_INDEX");
        if ((nomask || set_flag) && index <= UINT32_MAX)
            fec_text_add(text, size, (uint32_t)index);
    }
    return rc;
}

/* One ETHTOOL_A_FEC_STAT_* array: u64 values, the first the total and the
 * rest per lane (fec_stats_recalc()).  Empty: the driver does not count it. */
static int fec_stat(struct parse *ps, const struct attr *a, const char *name,
                    enum pna_phy_counter c)
{
    if (a->len % 8 != 0)
        return malformed(ps, "%s is %zu octets, not whole u64s", name, a->len);
    if (a->len > 0)
        set_counter(ps->out, c, rd64(a->data));
    return 0;
}

static int parse_fec_stats(struct parse *ps, const struct attr *stats)
{
    struct walk w = walk_nest(stats);
    struct attr a;
    int rc;
    while ((rc = next_attr(ps, &w, &a, "ETHTOOL_A_FEC_STATS")) == 1) {
        int bad = 0;
        switch (a.type) {
        case ETHTOOL_A_FEC_STAT_CORRECTED:
            bad = fec_stat(ps, &a, "ETHTOOL_A_FEC_STAT_CORRECTED", PNA_PHY_FEC_CORRECTED_BLOCKS);
            break;
        case ETHTOOL_A_FEC_STAT_UNCORR:
            bad = fec_stat(ps, &a, "ETHTOOL_A_FEC_STAT_UNCORR", PNA_PHY_FEC_UNCORRECTABLE_BLOCKS);
            break;
        case ETHTOOL_A_FEC_STAT_CORR_BITS:
            bad = fec_stat(ps, &a, "ETHTOOL_A_FEC_STAT_CORR_BITS", PNA_PHY_FEC_CORRECTED_BITS);
            break;
        default:  /* PAD, and the FEC histogram of newer kernels */
            break;
        }
        if (bad)
            return -1;
    }
    return rc;
}

static int parse_fec(struct parse *ps, struct walk *w)
{
    struct pna_phy_fec *f = &ps->out->fec;
    struct attr a;
    int rc;
    while ((rc = next_attr(ps, w, &a, "the message")) == 1) {
        uint64_t v;
        switch (a.type) {
        case ETHTOOL_A_FEC_HEADER:
            if (parse_header(ps, &a, NULL) != 0)
                return -1;
            break;
        case ETHTOOL_A_FEC_MODES:
            if (parse_fec_modes(ps, &a, f->configured, sizeof f->configured) != 0)
                return -1;
            break;
        case ETHTOOL_A_FEC_AUTO:
            if (get_uint(ps, &a, "ETHTOOL_A_FEC_AUTO", &v) != 0)
                return -1;
            f->auto_ = v != 0;
            break;
        case ETHTOOL_A_FEC_ACTIVE:
            if (get_uint(ps, &a, "ETHTOOL_A_FEC_ACTIVE", &v) != 0)
                return -1;
            f->active = fec_mode_of_bit(v);
            break;
        case ETHTOOL_A_FEC_STATS:
            if (parse_fec_stats(ps, &a) != 0)
                return -1;
            break;
        default:
            break;
        }
    }
    if (rc != 0)
        return -1;
    f->read = true;
    return 0;
}

/* ---- STATS ------------------------------------------------------------------------- */

#define NOT_MAPPED (-1)

/* The 802.3 and RMON counters by group and attribute number (the kernel's
 * ETHTOOL_A_STATS_ETH_*; the numbers in the names are the 802.3 clauses). */
static const int8_t MAP_PHY[] = {
    [ETHTOOL_A_STATS_ETH_PHY_5_SYM_ERR] = PNA_PHY_SYMBOL_ERRORS,
};

static const int8_t MAP_MAC[] = {
    [ETHTOOL_A_STATS_ETH_MAC_2_TX_PKT] = PNA_PHY_FRAMES_TX_OK,
    [ETHTOOL_A_STATS_ETH_MAC_3_SINGLE_COL] = NOT_MAPPED,
    [ETHTOOL_A_STATS_ETH_MAC_4_MULTI_COL] = NOT_MAPPED,
    [ETHTOOL_A_STATS_ETH_MAC_5_RX_PKT] = PNA_PHY_FRAMES_RX_OK,
    [ETHTOOL_A_STATS_ETH_MAC_6_FCS_ERR] = PNA_PHY_FCS_ERRORS,
    [ETHTOOL_A_STATS_ETH_MAC_7_ALIGN_ERR] = PNA_PHY_ALIGNMENT_ERRORS,
    [ETHTOOL_A_STATS_ETH_MAC_8_TX_BYTES] = PNA_PHY_OCTETS_TX_OK,
    [ETHTOOL_A_STATS_ETH_MAC_9_TX_DEFER] = NOT_MAPPED,
    [ETHTOOL_A_STATS_ETH_MAC_10_LATE_COL] = NOT_MAPPED,
    [ETHTOOL_A_STATS_ETH_MAC_11_XS_COL] = NOT_MAPPED,
    [ETHTOOL_A_STATS_ETH_MAC_12_TX_INT_ERR] = PNA_PHY_MAC_INTERNAL_TX_ERRORS,
    [ETHTOOL_A_STATS_ETH_MAC_13_CS_ERR] = NOT_MAPPED,
    [ETHTOOL_A_STATS_ETH_MAC_14_RX_BYTES] = PNA_PHY_OCTETS_RX_OK,
    [ETHTOOL_A_STATS_ETH_MAC_15_RX_INT_ERR] = PNA_PHY_MAC_INTERNAL_RX_ERRORS,
    [ETHTOOL_A_STATS_ETH_MAC_18_TX_MCAST] = NOT_MAPPED,
    [ETHTOOL_A_STATS_ETH_MAC_19_TX_BCAST] = NOT_MAPPED,
    [ETHTOOL_A_STATS_ETH_MAC_20_XS_DEFER] = NOT_MAPPED,
    [ETHTOOL_A_STATS_ETH_MAC_21_RX_MCAST] = NOT_MAPPED,
    [ETHTOOL_A_STATS_ETH_MAC_22_RX_BCAST] = NOT_MAPPED,
    [ETHTOOL_A_STATS_ETH_MAC_23_IR_LEN_ERR] = PNA_PHY_IN_RANGE_LENGTH_ERRORS,
    [ETHTOOL_A_STATS_ETH_MAC_24_OOR_LEN] = NOT_MAPPED,
    [ETHTOOL_A_STATS_ETH_MAC_25_TOO_LONG_ERR] = PNA_PHY_FRAME_TOO_LONG_ERRORS,
};

static const int8_t MAP_CTRL[] = {
    [ETHTOOL_A_STATS_ETH_CTRL_3_TX] = PNA_PHY_CTRL_FRAMES_TX,
    [ETHTOOL_A_STATS_ETH_CTRL_4_RX] = PNA_PHY_CTRL_FRAMES_RX,
    [ETHTOOL_A_STATS_ETH_CTRL_5_RX_UNSUP] = PNA_PHY_CTRL_UNSUPPORTED_OPCODES,
};

static const int8_t MAP_RMON[] = {
    [ETHTOOL_A_STATS_RMON_UNDERSIZE] = PNA_PHY_RMON_UNDERSIZE,
    [ETHTOOL_A_STATS_RMON_OVERSIZE] = PNA_PHY_RMON_OVERSIZE,
    [ETHTOOL_A_STATS_RMON_FRAG] = PNA_PHY_RMON_FRAGMENTS,
    [ETHTOOL_A_STATS_RMON_JABBER] = PNA_PHY_RMON_JABBERS,
};

_Static_assert(PNA_PHY_COUNT < 127, "counter numbers fit the maps' int8_t");

static const struct {
    const int8_t *map;
    size_t n;
} GROUP_MAP[] = {
    [ETHTOOL_STATS_ETH_PHY] = {MAP_PHY, sizeof MAP_PHY},
    [ETHTOOL_STATS_ETH_MAC] = {MAP_MAC, sizeof MAP_MAC},
    [ETHTOOL_STATS_ETH_CTRL] = {MAP_CTRL, sizeof MAP_CTRL},
    [ETHTOOL_STATS_RMON] = {MAP_RMON, sizeof MAP_RMON},
};

/* One ETHTOOL_A_STATS_GRP: its ID first (wherever it sits), then each
 * ETHTOOL_A_STATS_GRP_STAT nest holds one counter whose attribute type is
 * its number in the group.  Histograms (HIST_RX, HIST_TX) are skipped, and
 * so are groups this agent does not know. */
static int parse_stats_group(struct parse *ps, const struct attr *grp)
{
    struct walk w = walk_nest(grp);
    struct attr a;
    bool have_id = false;
    uint64_t id = 0;
    int rc;
    while ((rc = next_attr(ps, &w, &a, "ETHTOOL_A_STATS_GRP")) == 1) {
        if (a.type == ETHTOOL_A_STATS_GRP_ID) {
            if (get_uint(ps, &a, "ETHTOOL_A_STATS_GRP_ID", &id) != 0)
                return -1;
            have_id = true;
        }
    }
    if (rc != 0)
        return -1;
    if (!have_id)
        return malformed(ps, "statistics group without ETHTOOL_A_STATS_GRP_ID");
    const int8_t *map = NULL;
    size_t n = 0;
    if (id < sizeof GROUP_MAP / sizeof GROUP_MAP[0]) {
        map = GROUP_MAP[id].map;
        n = GROUP_MAP[id].n;
    }
    w = walk_nest(grp);
    while ((rc = next_attr(ps, &w, &a, "ETHTOOL_A_STATS_GRP")) == 1) {
        if (a.type != ETHTOOL_A_STATS_GRP_STAT)
            continue;
        struct walk sw = walk_nest(&a);
        struct attr s;
        while ((rc = next_attr(ps, &sw, &s, "ETHTOOL_A_STATS_GRP_STAT")) == 1) {
            uint64_t v;
            if (get_uint(ps, &s, "a statistics counter", &v) != 0)
                return -1;
            if (s.type < n && map[s.type] != NOT_MAPPED)
                set_counter(ps->out, (enum pna_phy_counter)map[s.type], v);
        }
        if (rc != 0)
            return -1;
    }
    return rc;
}

static int parse_stats(struct parse *ps, struct walk *w)
{
    struct attr a;
    int rc;
    while ((rc = next_attr(ps, w, &a, "the message")) == 1) {
        int bad = 0;
        if (a.type == ETHTOOL_A_STATS_HEADER)
            bad = parse_header(ps, &a, NULL);
        else if (a.type == ETHTOOL_A_STATS_GRP)
            bad = parse_stats_group(ps, &a);
        if (bad)
            return -1;
    }
    if (rc != 0)
        return -1;
    ps->out->stats_read = true;
    return 0;
}

/* ---- PAUSE ---------------------------------------------------------------------- */

static int parse_pause(struct parse *ps, struct walk *w)
{
    struct attr a;
    int rc;
    while ((rc = next_attr(ps, w, &a, "the message")) == 1) {
        if (a.type == ETHTOOL_A_PAUSE_HEADER) {
            if (parse_header(ps, &a, NULL) != 0)
                return -1;
            continue;
        }
        if (a.type != ETHTOOL_A_PAUSE_STATS)
            continue;  /* AUTONEG, RX, TX: the configuration, not in the model */
        struct walk sw = walk_nest(&a);
        struct attr s;
        while ((rc = next_attr(ps, &sw, &s, "ETHTOOL_A_PAUSE_STATS")) == 1) {
            uint64_t v;
            if (s.type == ETHTOOL_A_PAUSE_STAT_TX_FRAMES) {
                if (get_uint(ps, &s, "ETHTOOL_A_PAUSE_STAT_TX_FRAMES", &v) != 0)
                    return -1;
                set_counter(ps->out, PNA_PHY_PAUSE_TX_FRAMES, v);
            } else if (s.type == ETHTOOL_A_PAUSE_STAT_RX_FRAMES) {
                if (get_uint(ps, &s, "ETHTOOL_A_PAUSE_STAT_RX_FRAMES", &v) != 0)
                    return -1;
                set_counter(ps->out, PNA_PHY_PAUSE_RX_FRAMES, v);
            }
        }
        if (rc != 0)
            return -1;
    }
    return rc;
}

/* ---- MODULE_EEPROM ---------------------------------------------------------------- */

static int parse_eeprom_reply(struct parse *ps, struct walk *w)
{
    struct attr a;
    int rc;
    while ((rc = next_attr(ps, w, &a, "the message")) == 1) {
        if (a.type == ETHTOOL_A_MODULE_EEPROM_HEADER) {
            if (parse_header(ps, &a, NULL) != 0)
                return -1;
        } else if (a.type == ETHTOOL_A_MODULE_EEPROM_DATA) {
            ps->eeprom = a.data;
            ps->eeprom_len = a.len;
        }
    }
    return rc;
}

/* ---- messages -------------------------------------------------------------------- */

/* The message at P fits in the LEFT octets (its padding may be missing
 * after the last one).  In size_t: NLMSG_ALIGN() wraps a length near 4 GiB
 * to 0, and libmnl's mnl_nlmsg_ok() takes one of 2 GiB or more. */
static bool message_fits(const uint8_t *p, size_t left)
{
    if (left < NLMSG_HDRLEN)
        return false;
    size_t len = rd32(p);
    return len >= NLMSG_HDRLEN && len <= left;
}

static int parse_genl(struct parse *ps, const uint8_t *msg, size_t len)
{
    size_t plen = len - NLMSG_HDRLEN;
    if (plen < GENL_HDRLEN)
        return malformed(ps, "generic netlink message of %zu octets", len);
    uint8_t cmd = msg[NLMSG_HDRLEN];
    if (cmd != REQ[ps->req].reply_cmd)
        return malformed(ps, "answer to another request (command %u)", (unsigned)cmd);
    if (ps->got_reply)
        return malformed(ps, "two answers");
    ps->got_reply = true;
    struct walk w = walk_of(msg + NLMSG_HDRLEN + GENL_HDRLEN, plen - GENL_HDRLEN);
    switch (ps->req) {
    case REQ_LINKSTATE: return parse_linkstate(ps, &w);
    case REQ_FEC: return parse_fec(ps, &w);
    case REQ_STATS: return parse_stats(ps, &w);
    case REQ_PAUSE: return parse_pause(ps, &w);
    case REQ_EEPROM: return parse_eeprom_reply(ps, &w);
    default: return malformed(ps, "no such request");
    }
}

/* LEN octets of netlink messages: one reply of request PS->req (an
 * acknowledgement may follow) or the NLMSG_ERROR refusing it. */
static int parse_messages(struct parse *ps, const void *buf, size_t len)
{
    const uint8_t *p = buf;
    if (!buf || len == 0)
        return malformed(ps, "empty");
    while (len > 0) {
        if (!message_fits(p, len))
            return malformed(ps, "message truncated (%zu octets left)", len);
        size_t mlen = rd32(p);
        uint16_t type = rd16(p + 4);
        int rc = 0;
        if (type == NLMSG_ERROR)
            rc = parse_error(ps, p, mlen);
        else if (type == NLMSG_OVERRUN)
            rc = malformed(ps, "NLMSG_OVERRUN");
        else if (type >= NLMSG_MIN_TYPE) {
            if (ps->family && type != ps->family)
                rc = malformed(ps, "message of family %u, not ethtool's %u", (unsigned)type,
                               (unsigned)ps->family);
            else
                rc = parse_genl(ps, p, mlen);
        }
        if (rc != 0)
            return -1;
        size_t step = align4(mlen);
        if (step > len)
            step = len;
        p += step;
        len -= step;
    }
    if (!ps->got_reply)
        return malformed(ps, "no answer to ETHTOOL_MSG_%s", REQ[ps->req].msg);
    return 0;
}

/* ---- the parts of struct pna_phy_if each request fills --------------------------- */

static const enum pna_phy_counter FEC_COUNTERS[] = {
    PNA_PHY_FEC_CORRECTED_BLOCKS, PNA_PHY_FEC_UNCORRECTABLE_BLOCKS, PNA_PHY_FEC_CORRECTED_BITS,
};
static const enum pna_phy_counter PAUSE_COUNTERS[] = {
    PNA_PHY_PAUSE_TX_FRAMES, PNA_PHY_PAUSE_RX_FRAMES,
};

static void clear_counters(struct pna_phy_if *out, enum pna_phy_counter from,
                           enum pna_phy_counter to)
{
    for (int c = from; c <= (int)to; c++)
        out->c[c] = (struct pna_counter){0};
}

/* Make REQ's part of OUT absent. */
static void clear_part(enum req req, struct pna_phy_if *out)
{
    switch (req) {
    case REQ_LINKSTATE:
        out->link = (struct pna_phy_link){0};
        out->c[PNA_PHY_LINK_DOWN_EVENTS] = (struct pna_counter){0};
        break;
    case REQ_FEC:
        out->fec = (struct pna_phy_fec){0};
        for (size_t i = 0; i < sizeof FEC_COUNTERS / sizeof FEC_COUNTERS[0]; i++)
            out->c[FEC_COUNTERS[i]] = (struct pna_counter){0};
        break;
    case REQ_STATS:
        out->stats_read = false;
        clear_counters(out, PNA_PHY_SYMBOL_ERRORS, PNA_PHY_RMON_JABBERS);
        break;
    case REQ_PAUSE:
        for (size_t i = 0; i < sizeof PAUSE_COUNTERS / sizeof PAUSE_COUNTERS[0]; i++)
            out->c[PAUSE_COUNTERS[i]] = (struct pna_counter){0};
        break;
    default:
        break;
    }
}

_Static_assert(PNA_PHY_RMON_JABBERS - PNA_PHY_SYMBOL_ERRORS == 17,
               "the statistics groups' counters are contiguous in phy.h");

/* Parse one reply of REQ into its part of OUT: 0, or -1 with the part
 * absent and the reason in ERR; *ERRNUM the kernel's errno if it refused. */
static int parse_part(enum req req, uint16_t family, const void *buf, size_t len,
                      struct pna_phy_if *out, char *err, size_t errlen, int *errnum)
{
    clear_part(req, out);
    int32_t ifindex = out->ifindex;
    struct parse ps = {.req = req, .err = err, .errlen = errlen, .family = family, .out = out};
    int rc = parse_messages(&ps, buf, len);
    if (errnum)
        *errnum = ps.errnum;
    if (rc != 0) {
        /* What was filled before the fault is not an answer. */
        clear_part(req, out);
        out->ifindex = ifindex;
        return -1;
    }
    if (err && errlen)
        err[0] = '\0';
    return 0;
}

int pna_ethnl_parse_linkstate(const void *buf, size_t len, struct pna_phy_if *out)
{
    return parse_part(REQ_LINKSTATE, 0, buf, len, out, out->error, sizeof out->error, NULL);
}

int pna_ethnl_parse_fec(const void *buf, size_t len, struct pna_phy_if *out)
{
    return parse_part(REQ_FEC, 0, buf, len, out, out->error, sizeof out->error, NULL);
}

int pna_ethnl_parse_stats(const void *buf, size_t len, struct pna_phy_if *out)
{
    return parse_part(REQ_STATS, 0, buf, len, out, out->error, sizeof out->error, NULL);
}

int pna_ethnl_parse_pause(const void *buf, size_t len, struct pna_phy_if *out)
{
    return parse_part(REQ_PAUSE, 0, buf, len, out, out->error, sizeof out->error, NULL);
}

static int parse_eeprom(uint16_t family, const void *buf, size_t len, uint8_t *data,
                        uint32_t length, char *err, size_t errlen, int *errnum)
{
    struct parse ps = {.req = REQ_EEPROM, .err = err, .errlen = errlen, .family = family};
    if (length == 0 || length > EEPROM_HALF_PAGE)
        return say(&ps, "module EEPROM: length %u, not 1 to %u", (unsigned)length,
                   EEPROM_HALF_PAGE);
    int rc = parse_messages(&ps, buf, len);
    if (errnum)
        *errnum = ps.errnum;
    if (rc != 0)
        return -1;
    if (!ps.eeprom)
        return malformed(&ps, "no ETHTOOL_A_MODULE_EEPROM_DATA");
    if (ps.eeprom_len != length)
        return malformed(&ps, "%zu octets of data for %u asked", ps.eeprom_len, (unsigned)length);
    memcpy(data, ps.eeprom, length);
    if (err && errlen)
        err[0] = '\0';
    return 0;
}

int pna_ethnl_parse_eeprom(const void *buf, size_t len, uint8_t *data, uint32_t length, char *err,
                           size_t errlen)
{
    return parse_eeprom(0, buf, len, data, length, err, errlen, NULL);
}

/* Check an EEPROM read against the kernel's rules (eeprom_parse_request()):
 * at most 128 octets, within the lower half (offsets 0-127, page 0 only) or
 * within the upper half (128-255). */
static int eeprom_args_ok(uint8_t i2c_addr, uint8_t page, uint32_t offset, uint32_t length,
                          char *err, size_t errlen)
{
    struct parse ps = {.req = REQ_EEPROM, .err = err, .errlen = errlen};
    if (length == 0 || length > EEPROM_HALF_PAGE)
        return say(&ps, "module EEPROM: length %u, not 1 to %u", (unsigned)length,
                   EEPROM_HALF_PAGE);
    if (i2c_addr > EEPROM_MAX_I2C_ADDRESS)
        return say(&ps, "module EEPROM: I2C address 0x%x above 0x7f", (unsigned)i2c_addr);
    if (offset >= 2 * EEPROM_HALF_PAGE)
        return say(&ps, "module EEPROM: offset %u past 255", (unsigned)offset);
    if (offset < EEPROM_HALF_PAGE && page != 0)
        return say(&ps, "module EEPROM: offset %u is in the lower page, which has no page %u",
                   (unsigned)offset, (unsigned)page);
    uint32_t end = offset < EEPROM_HALF_PAGE ? EEPROM_HALF_PAGE : 2 * EEPROM_HALF_PAGE;
    if (length > end - offset)
        return say(&ps, "module EEPROM: offset %u + length %u crosses offset %u",
                   (unsigned)offset, (unsigned)length, (unsigned)end);
    return 0;
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
    for (int r = 0; r < REQ_EEPROM; r++)
        clear_part((enum req)r, out);
    out->ifindex = 0;
    snprintf(out->error, sizeof out->error, "built without libmnl");
    return -1;
}

int pna_ethnl_module_eeprom(struct pna_ethnl *nl, const char *ifname, uint8_t i2c_addr,
                            uint8_t page, uint8_t bank, uint32_t offset, uint32_t length,
                            uint8_t *buf, char *err, size_t errlen)
{
    (void)nl;
    (void)ifname;
    (void)bank;
    (void)buf;
    if (eeprom_args_ok(i2c_addr, page, offset, length, err, errlen) != 0)
        return -1;
    if (err && errlen)
        snprintf(err, errlen, "built without libmnl");
    return -1;
}

#else

#include <libmnl/libmnl.h>
#include <net/if.h>
#include <poll.h>
#include <sys/socket.h>

#include "core/cache.h"

struct pna_ethnl {
    struct mnl_socket *sock;
    uint16_t family;         /* the "ethtool" family's message type */
    uint32_t portid;
    uint32_t seq;
    unsigned stats_flag_ok;  /* bit per enum req: the kernel took ETHTOOL_FLAG_STATS */
    unsigned no_stats_flag;  /* bit per enum req: it refused the flag */
    uint8_t *buf;            /* the last reply */
    size_t cap;
};

static void set_err(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || !errlen)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

static int send_msg(struct pna_ethnl *nl, struct nlmsghdr *nlh, char *err, size_t errlen,
                    const char *what)
{
    if (mnl_socket_sendto(nl->sock, nlh, nlh->nlmsg_len) < 0) {
        set_err(err, errlen, "%s: netlink: %s", what, strerror(errno));
        return -1;
    }
    return 0;
}

/* Receive the answer to request SEQ into NL->buf (*N octets), waiting at
 * most a second.  The datagram's size is peeked first and the buffer grown
 * to it, so an answer larger than the last one is read whole.  Datagrams not
 * from the kernel, or answering an earlier request that timed out, are
 * dropped. */
static int receive(struct pna_ethnl *nl, uint32_t seq, size_t *n, char *err, size_t errlen,
                   const char *what)
{
    int fd = mnl_socket_get_fd(nl->sock);
    int64_t deadline = pna_mono_ms() + REPLY_TIMEOUT_MS;
    for (;;) {
        int64_t left = deadline - pna_mono_ms();
        if (left <= 0) {
            set_err(err, errlen, "%s: no answer within %d s", what, REPLY_TIMEOUT_MS / 1000);
            return -1;
        }
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        int pr = poll(&pfd, 1, (int)left);
        if (pr < 0 && errno == EINTR)
            continue;
        if (pr < 0) {
            set_err(err, errlen, "%s: poll: %s", what, strerror(errno));
            return -1;
        }
        if (pr == 0)
            continue;  /* the deadline check above reports it */
        uint8_t probe[NLMSG_HDRLEN];
        ssize_t size = recv(fd, probe, sizeof probe, MSG_PEEK | MSG_TRUNC | MSG_DONTWAIT);
        if (size < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
            continue;
        if (size < 0) {
            set_err(err, errlen, "%s: netlink: %s", what, strerror(errno));
            return -1;
        }
        size_t want = (size_t)size > REPLY_MAX ? REPLY_MAX : (size_t)size;
        if (want < NLMSG_HDRLEN)
            want = NLMSG_HDRLEN;
        if (want > nl->cap) {
            uint8_t *grown = realloc(nl->buf, want);
            if (!grown) {
                set_err(err, errlen, "%s: out of memory", what);
                return -1;
            }
            nl->buf = grown;
            nl->cap = want;
        }
        struct sockaddr_nl from = {0};
        struct iovec iov = {.iov_base = nl->buf, .iov_len = nl->cap};
        struct msghdr mh = {.msg_name = &from, .msg_namelen = sizeof from, .msg_iov = &iov,
                            .msg_iovlen = 1};
        ssize_t got = recvmsg(fd, &mh, MSG_DONTWAIT);
        if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
            continue;
        if (got < 0) {
            set_err(err, errlen, "%s: netlink: %s", what, strerror(errno));
            return -1;
        }
        if (mh.msg_flags & MSG_TRUNC) {
            set_err(err, errlen, "%s: answer larger than %u octets", what, REPLY_MAX);
            return -1;
        }
        if (from.nl_pid != 0 || (size_t)got < NLMSG_HDRLEN)
            continue;
        if (rd32(nl->buf + 8) != seq || rd32(nl->buf + 12) != nl->portid)
            continue;
        *n = (size_t)got;
        return 0;
    }
}

/* CTRL_CMD_GETFAMILY "ethtool": the family's message type from
 * CTRL_ATTR_FAMILY_ID.  ENOENT: a kernel without ethtool netlink (before
 * 5.6, or CONFIG_ETHTOOL_NETLINK off). */
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
    if (send_msg(nl, nlh, err, errlen, "ethtool netlink") != 0 ||
        receive(nl, nlh->nlmsg_seq, &n, err, errlen, "ethtool netlink") != 0)
        return -1;
    const uint8_t *p = nl->buf;
    if (!message_fits(p, n)) {
        set_err(err, errlen, "ethtool netlink: malformed controller answer");
        return -1;
    }
    size_t mlen = rd32(p);
    if (rd16(p + 4) == NLMSG_ERROR) {
        int32_t code = 0;
        if (mlen >= NLMSG_HDRLEN + sizeof code)
            memcpy(&code, p + NLMSG_HDRLEN, sizeof code);
        if (code == -ENOENT)
            set_err(err, errlen, "no ethtool netlink in this kernel (ENOENT)");
        else
            set_err(err, errlen, "ethtool netlink: controller: %s",
                    strerror(code < 0 ? -code : EIO));
        return -1;
    }
    if (mlen < NLMSG_HDRLEN + GENL_HDRLEN) {
        set_err(err, errlen, "ethtool netlink: malformed controller answer");
        return -1;
    }
    struct parse quiet = {.req = REQ_LINKSTATE};
    struct walk w = walk_of(p + NLMSG_HDRLEN + GENL_HDRLEN, mlen - NLMSG_HDRLEN - GENL_HDRLEN);
    struct attr a;
    while (next_attr(&quiet, &w, &a, "the controller's answer") == 1) {
        if (a.type == CTRL_ATTR_FAMILY_ID && a.len == sizeof(uint16_t)) {
            nl->family = rd16(a.data);
            if (nl->family >= NLMSG_MIN_TYPE)
                return 0;
        }
    }
    set_err(err, errlen, "ethtool netlink: no family id in the controller's answer");
    return -1;
}

struct pna_ethnl *pna_ethnl_open(char *err, size_t errlen)
{
    struct pna_ethnl *nl = calloc(1, sizeof *nl);
    if (!nl) {
        set_err(err, errlen, "out of memory");
        return NULL;
    }
    nl->sock = mnl_socket_open2(NETLINK_GENERIC, SOCK_CLOEXEC);
    if (!nl->sock) {
        set_err(err, errlen, "ethtool netlink: socket: %s", strerror(errno));
        free(nl);
        return NULL;
    }
    /* The kernel's extended ACK messages, and no copy of the request in an
     * error.  Both are hints: a kernel without them still answers. */
    int on = 1;
    mnl_socket_setsockopt(nl->sock, NETLINK_EXT_ACK, &on, sizeof on);
    mnl_socket_setsockopt(nl->sock, NETLINK_CAP_ACK, &on, sizeof on);
    if (mnl_socket_bind(nl->sock, 0, MNL_SOCKET_AUTOPID) != 0) {
        set_err(err, errlen, "ethtool netlink: bind: %s", strerror(errno));
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

struct eeprom_args {
    uint8_t i2c_addr, page, bank;
    uint32_t offset, length;
};

/* Build request REQ for IFNAME in BUF (CAP octets, 4-aligned). */
static struct nlmsghdr *build_request(struct pna_ethnl *nl, enum req req, const char *ifname,
                                      const struct eeprom_args *ee, bool with_stats, uint32_t *buf)
{
    struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
    nlh->nlmsg_type = nl->family;
    nlh->nlmsg_flags = NLM_F_REQUEST;
    nlh->nlmsg_seq = ++nl->seq;
    struct genlmsghdr *g = mnl_nlmsg_put_extra_header(nlh, sizeof *g);
    g->cmd = REQ[req].cmd;
    g->version = ETHTOOL_GENL_VERSION;
    uint32_t flags = REQ[req].flags;
    if (!with_stats)
        flags &= ~(uint32_t)ETHTOOL_FLAG_STATS;
    struct nlattr *hdr = mnl_attr_nest_start(nlh, REQ[req].hdr_attr);
    hdr->nla_type |= NLA_F_NESTED;
    mnl_attr_put_strz(nlh, ETHTOOL_A_HEADER_DEV_NAME, ifname);
    mnl_attr_put_u32(nlh, ETHTOOL_A_HEADER_FLAGS, flags);
    mnl_attr_nest_end(nlh, hdr);
    if (req == REQ_STATS) {
        /* All four groups, as a compact bitset of ETH_SS_STATS_STD. */
        struct nlattr *set = mnl_attr_nest_start(nlh, ETHTOOL_A_STATS_GROUPS);
        set->nla_type |= NLA_F_NESTED;
        mnl_attr_put(nlh, ETHTOOL_A_BITSET_NOMASK, 0, NULL);
        mnl_attr_put_u32(nlh, ETHTOOL_A_BITSET_SIZE, 4);
        mnl_attr_put_u32(nlh, ETHTOOL_A_BITSET_VALUE,
                         1u << ETHTOOL_STATS_ETH_PHY | 1u << ETHTOOL_STATS_ETH_MAC |
                             1u << ETHTOOL_STATS_ETH_CTRL | 1u << ETHTOOL_STATS_RMON);
        mnl_attr_nest_end(nlh, set);
    } else if (req == REQ_EEPROM) {
        mnl_attr_put_u32(nlh, ETHTOOL_A_MODULE_EEPROM_OFFSET, ee->offset);
        mnl_attr_put_u32(nlh, ETHTOOL_A_MODULE_EEPROM_LENGTH, ee->length);
        mnl_attr_put_u8(nlh, ETHTOOL_A_MODULE_EEPROM_PAGE, ee->page);
        mnl_attr_put_u8(nlh, ETHTOOL_A_MODULE_EEPROM_BANK, ee->bank);
        mnl_attr_put_u8(nlh, ETHTOOL_A_MODULE_EEPROM_I2C_ADDRESS, ee->i2c_addr);
    }
    return nlh;
}

/* The errno of an NLMSG_ERROR opening the reply, else 0. */
static int reply_errno(const uint8_t *p, size_t n)
{
    if (!message_fits(p, n) || rd16(p + 4) != NLMSG_ERROR ||
        rd32(p) < NLMSG_HDRLEN + sizeof(int32_t))
        return 0;
    int32_t code;
    memcpy(&code, p + NLMSG_HDRLEN, sizeof code);
    return code < 0 && code >= -4095 ? -code : 0;
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
static int ask(struct pna_ethnl *nl, enum req req, const char *ifname,
               const struct eeprom_args *ee, size_t *n, char *err, size_t errlen)
{
    unsigned bit = 1u << req;
    bool with_stats = (REQ[req].flags & ETHTOOL_FLAG_STATS) && !(nl->no_stats_flag & bit);
    for (int attempt = 0; attempt < 2; attempt++) {
        uint32_t buf[128] = {0};  /* uint32_t: the message's 4-octet alignment */
        struct nlmsghdr *nlh = build_request(nl, req, ifname, ee, with_stats, buf);
        if (send_msg(nl, nlh, err, errlen, REQ[req].name) != 0 ||
            receive(nl, nlh->nlmsg_seq, n, err, errlen, REQ[req].name) != 0)
            return -1;
        int e = reply_errno(nl->buf, *n);
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
    for (int r = 0; r < REQ_EEPROM; r++)
        clear_part((enum req)r, out);
    out->ifindex = 0;
    out->error[0] = '\0';
    if (!nl) {
        snprintf(out->error, sizeof out->error, "ethtool netlink not open");
        return -1;
    }
    if (!ifname_ok(out->ifname)) {
        snprintf(out->error, sizeof out->error, "link state: no such interface");
        return -1;
    }
    size_t n;
    if (ask(nl, REQ_LINKSTATE, out->ifname, NULL, &n, out->error, sizeof out->error) != 0 ||
        parse_part(REQ_LINKSTATE, nl->family, nl->buf, n, out, out->error, sizeof out->error,
                   NULL) != 0)
        return -1;
    /* The other parts are the driver's to offer or not: a refusal, a
     * timeout or a malformed answer leaves that part absent, and the link
     * state stands. */
    static const enum req rest[] = {REQ_FEC, REQ_STATS, REQ_PAUSE};
    for (size_t i = 0; i < sizeof rest / sizeof rest[0]; i++) {
        char why[sizeof out->error];
        if (ask(nl, rest[i], out->ifname, NULL, &n, why, sizeof why) == 0)
            parse_part(rest[i], nl->family, nl->buf, n, out, why, sizeof why, NULL);
    }
    out->error[0] = '\0';
    return 0;
}

int pna_ethnl_module_eeprom(struct pna_ethnl *nl, const char *ifname, uint8_t i2c_addr,
                            uint8_t page, uint8_t bank, uint32_t offset, uint32_t length,
                            uint8_t *buf, char *err, size_t errlen)
{
    if (eeprom_args_ok(i2c_addr, page, offset, length, err, errlen) != 0)
        return -1;
    if (!nl) {
        set_err(err, errlen, "ethtool netlink not open");
        return -1;
    }
    if (!ifname_ok(ifname)) {
        set_err(err, errlen, "module EEPROM: no such interface");
        return -1;
    }
    struct eeprom_args ee = {.i2c_addr = i2c_addr, .page = page, .bank = bank, .offset = offset,
                             .length = length};
    size_t n;
    if (ask(nl, REQ_EEPROM, ifname, &ee, &n, err, errlen) != 0)
        return -1;
    return parse_eeprom(nl->family, nl->buf, n, buf, length, err, errlen, NULL);
}

#endif /* HAVE_LIBMNL */
