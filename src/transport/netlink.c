/* transport/netlink.c -- netlink messages and attributes, every length
 * checked before a byte is read (see netlink.h).
 *
 * Layout (include/uapi/linux/netlink.h): a message is a struct nlmsghdr
 * (16 octets, its 32-bit length counting itself) and a payload; an attribute
 * is a struct nlattr (a 16-bit length that counts its own 4-octet header, a
 * 16-bit type whose top two bits are NLA_F_NESTED and NLA_F_NET_BYTEORDER)
 * and a payload, padded to 4 octets.  Messages and attributes follow one
 * another at their padded lengths; the padding of the last one may be
 * missing. */
#include "pna_autoconf.h"
#include "transport/netlink.h"

#include <errno.h>
#include <linux/netlink.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define ATTR_HDRLEN sizeof(struct nlattr)

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

/* Step *P past an item of LEN octets and its padding, which the last item
 * of the data may lack. */
static void step_over(const uint8_t **p, size_t *left, size_t len)
{
    size_t step = align4(len);
    if (step > *left)
        step = *left;
    *p += step;
    *left -= step;
}

static int refuse(char *why, size_t whylen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The reason into WHY (when there is one); returns -EBADMSG. */
static int refuse(char *why, size_t whylen, const char *fmt, ...)
{
    if (why && whylen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, whylen, fmt, ap);
        va_end(ap);
    }
    return -EBADMSG;
}

/* ---- messages ------------------------------------------------------------- */

void pna_nl_msgs_init(struct pna_nl_msgs *it, const void *buf, size_t len)
{
    it->p = buf;
    it->left = buf ? len : 0;
}

int pna_nl_msgs_next(struct pna_nl_msgs *it, struct pna_nl_msg *m, char *why, size_t whylen)
{
    if (it->left == 0)
        return 0;
    size_t len = it->left >= NLMSG_HDRLEN ? rd32(it->p) : 0;
    if (len < NLMSG_HDRLEN || len > it->left)
        return refuse(why, whylen, "message truncated (%zu octets left)", it->left);
    const uint8_t *p = it->p;
    *m = (struct pna_nl_msg){.type = rd16(p + 4), .flags = rd16(p + 6), .seq = rd32(p + 8),
                             .portid = rd32(p + 12), .start = p, .len = len,
                             .payload = p + NLMSG_HDRLEN, .payload_len = len - NLMSG_HDRLEN};
    step_over(&it->p, &it->left, len);
    return 1;
}

size_t pna_nl_msgs_used(const struct pna_nl_msgs *it, const void *buf)
{
    return (size_t)(it->p - (const uint8_t *)buf);
}

/* ---- attributes: the walk ----------------------------------------------------- */

struct walk {
    const uint8_t *p;
    size_t left;
};

/* The next attribute of W into *A: 1, 0 at the end (fewer octets left than
 * a header: the last one's padding), -EBADMSG when one is shorter than its
 * own header or runs past CONTAINER's end. */
static int walk_next(struct walk *w, const uint8_t **a, const char *container, char *why,
                     size_t whylen)
{
    if (w->left < ATTR_HDRLEN)
        return 0;
    size_t len = rd16(w->p);
    if (len < ATTR_HDRLEN)
        return refuse(why, whylen, "attribute of %zu octets in %s", len, container);
    if (len > w->left)
        return refuse(why, whylen, "attribute of %zu octets in %s runs past its end (%zu left)",
                      len, container, w->left);
    *a = w->p;
    step_over(&w->p, &w->left, len);
    return 1;
}

static const uint8_t *raw(const struct pna_nla *a)
{
    return (const uint8_t *)a;
}

uint16_t pna_nla_type(const struct pna_nla *a)
{
    return rd16(raw(a) + 2) & NLA_TYPE_MASK;
}

size_t pna_nla_len(const struct pna_nla *a)
{
    return rd16(raw(a)) - ATTR_HDRLEN;  /* >= ATTR_HDRLEN: walk_next() checked it */
}

const uint8_t *pna_nla_data(const struct pna_nla *a)
{
    return raw(a) + ATTR_HDRLEN;
}

void pna_nla_iter_init(struct pna_nla_iter *it, const void *data, size_t len)
{
    it->p = data;
    it->left = data ? len : 0;
}

void pna_nla_iter_nested(struct pna_nla_iter *it, const struct pna_nla *nest)
{
    if (nest)
        pna_nla_iter_init(it, pna_nla_data(nest), pna_nla_len(nest));
    else
        pna_nla_iter_init(it, NULL, 0);
}

const struct pna_nla *pna_nla_iter_next(struct pna_nla_iter *it)
{
    struct walk w = {.p = it->p, .left = it->left};
    const uint8_t *a = NULL;
    if (walk_next(&w, &a, "", NULL, 0) != 1)
        return NULL;
    it->p = w.p;
    it->left = w.left;
    return (const struct pna_nla *)a;
}

/* ---- attributes: the policy ------------------------------------------------------ */

/* The policy's name for TYPE, or "attribute N" in BUF. */
static const char *name_of(const struct pna_nla_policy *pol, unsigned type, char *buf,
                           size_t size)
{
    if (pol->name)
        return pol->name;
    snprintf(buf, size, "attribute %u", type);
    return buf;
}

static bool uint_width(size_t len)
{
    return len == 1 || len == 2 || len == 4 || len == 8;
}

/* A nest's payload: empty, or room for one attribute at least (as libmnl's
 * MNL_TYPE_NESTED).  Its attributes are checked where it is parsed
 * (pna_nla_parse_nested()), in order, each with its policy: the first fault
 * in the data is the one reported. */
static int check_nest(const struct pna_nla *a, const char *name, char *why, size_t whylen)
{
    size_t len = pna_nla_len(a);
    if (len > 0 && len < ATTR_HDRLEN)
        return refuse(why, whylen, "%s is %zu octets, not a nest", name, len);
    return 0;
}

static int check_string(const struct pna_nla *a, const struct pna_nla_policy *pol,
                        const char *name, char *why, size_t whylen)
{
    size_t len = pna_nla_len(a);
    const uint8_t *d = pna_nla_data(a);
    if (len == 0 || memchr(d, '\0', len) == NULL)
        return refuse(why, whylen, "%s not terminated", name);
    if (pol->max_len && strnlen((const char *)d, len) > pol->max_len)
        return refuse(why, whylen, "%s is longer than %u octets", name, (unsigned)pol->max_len);
    return 0;
}

static int check_binary(const struct pna_nla *a, const struct pna_nla_policy *pol,
                        const char *name, char *why, size_t whylen)
{
    size_t len = pna_nla_len(a);
    if (len < pol->min_len)
        return refuse(why, whylen, "%s is %zu octets, expected %u", name, len,
                      (unsigned)pol->min_len);
    if (pol->max_len && len > pol->max_len)
        return refuse(why, whylen, "%s is %zu octets, at most %u", name, len,
                      (unsigned)pol->max_len);
    return 0;
}

/* A has what POL says its type must have. */
static int check_attr(const struct pna_nla *a, const struct pna_nla_policy *pol,
                      const char *name, char *why, size_t whylen)
{
    static const size_t width[] = {
        [PNA_NLA_U8] = 1, [PNA_NLA_U16] = 2, [PNA_NLA_U32] = 4, [PNA_NLA_U64] = 8,
        [PNA_NLA_FLAG] = 0,
    };
    size_t len = pna_nla_len(a);
    switch (pol->kind) {
    case PNA_NLA_U8:
    case PNA_NLA_U16:
    case PNA_NLA_U32:
    case PNA_NLA_U64:
    case PNA_NLA_FLAG:
        if (len != width[pol->kind])
            return refuse(why, whylen, "%s is %zu octets", name, len);
        return 0;
    case PNA_NLA_UINT:
        if (!uint_width(len))
            return refuse(why, whylen, "%s is %zu octets", name, len);
        return 0;
    case PNA_NLA_STRING:
        return check_string(a, pol, name, why, whylen);
    case PNA_NLA_BINARY:
        return check_binary(a, pol, name, why, whylen);
    case PNA_NLA_NESTED:
        return check_nest(a, name, why, whylen);
    case PNA_NLA_U64_ARRAY:
        if (len % 8 != 0)
            return refuse(why, whylen, "%s is %zu octets, not whole u64s", name, len);
        return 0;
    default:
        return 0;
    }
}

int pna_nla_parse(const struct pna_nla **tb, unsigned maxtype,
                  const struct pna_nla_policy *policy, const void *data, size_t len,
                  const char *container, char *why, size_t whylen)
{
    for (unsigned t = 0; t <= maxtype; t++)
        tb[t] = NULL;
    struct walk w = {.p = data, .left = data ? len : 0};
    const uint8_t *p = NULL;
    int rc;
    while ((rc = walk_next(&w, &p, container, why, whylen)) == 1) {
        const struct pna_nla *a = (const struct pna_nla *)p;
        unsigned type = pna_nla_type(a);
        if (type > maxtype)
            continue;
        const struct pna_nla_policy *pol = policy ? &policy[type] : NULL;
        if (pol && pol->kind != PNA_NLA_UNSPEC) {
            char buf[24];
            const char *name = name_of(pol, type, buf, sizeof buf);
            if (tb[type] && !pol->multi) {
                rc = refuse(why, whylen, "%s twice in %s", name, container);
                break;
            }
            if ((rc = check_attr(a, pol, name, why, whylen)) != 0)
                break;
        }
        tb[type] = a;
    }
    if (rc < 0) {
        for (unsigned t = 0; t <= maxtype; t++)
            tb[t] = NULL;
        return rc;
    }
    return 0;
}

int pna_nla_parse_nested(const struct pna_nla **tb, unsigned maxtype,
                         const struct pna_nla_policy *policy, const struct pna_nla *nest,
                         const char *container, char *why, size_t whylen)
{
    return pna_nla_parse(tb, maxtype, policy, nest ? pna_nla_data(nest) : NULL,
                         nest ? pna_nla_len(nest) : 0, container, why, whylen);
}

/* ---- attributes: values ----------------------------------------------------------- */

uint8_t pna_nla_u8(const struct pna_nla *a)
{
    return pna_nla_len(a) >= 1 ? pna_nla_data(a)[0] : 0;
}

uint16_t pna_nla_u16(const struct pna_nla *a)
{
    return pna_nla_len(a) >= 2 ? rd16(pna_nla_data(a)) : 0;
}

uint32_t pna_nla_u32(const struct pna_nla *a)
{
    return pna_nla_len(a) >= 4 ? rd32(pna_nla_data(a)) : 0;
}

uint64_t pna_nla_u64(const struct pna_nla *a)
{
    return pna_nla_len(a) >= 8 ? rd64(pna_nla_data(a)) : 0;
}

uint64_t pna_nla_uint(const struct pna_nla *a)
{
    switch (pna_nla_len(a)) {
    case 1: return pna_nla_u8(a);
    case 2: return pna_nla_u16(a);
    case 4: return pna_nla_u32(a);
    case 8: return pna_nla_u64(a);
    default: return 0;
    }
}

uint64_t pna_nla_u64_at(const struct pna_nla *a, size_t i)
{
    if (i >= pna_nla_len(a) / 8)
        return 0;
    return rd64(pna_nla_data(a) + i * 8);
}

const char *pna_nla_str(const struct pna_nla *a)
{
    return (const char *)pna_nla_data(a);
}

/* ---- NLMSG_ERROR ---------------------------------------------------------------- */

/* NLMSGERR_ATTR_MSG among the extended ACK's attributes (LEN octets at P)
 * into MSG as printable ASCII, trailing blanks cut; "" when it is missing. */
static void extack_text(const uint8_t *p, size_t len, char *msg, size_t size)
{
    msg[0] = '\0';
    struct walk w = {.p = p, .left = len};
    const uint8_t *raw_attr = NULL;
    while (walk_next(&w, &raw_attr, "", NULL, 0) == 1) {
        const struct pna_nla *a = (const struct pna_nla *)raw_attr;
        if (pna_nla_type(a) != NLMSGERR_ATTR_MSG)
            continue;
        const uint8_t *d = pna_nla_data(a);
        size_t n = 0;
        for (size_t i = 0; i < pna_nla_len(a) && d[i] != '\0' && n + 1 < size; i++)
            msg[n++] = (d[i] >= 0x20 && d[i] < 0x7f) ? (char)d[i] : '?';
        while (n > 0 && msg[n - 1] == ' ')
            n--;
        msg[n] = '\0';
        return;
    }
}

/* After the error code: the kernel's copy of the request (its header alone
 * when NLM_F_CAPPED says so), then with NLM_F_ACK_TLVS the extended ACK's
 * attributes at the next 4-octet boundary (netlink_ack()). */
int pna_nl_error_parse(const struct pna_nl_msg *m, struct pna_nl_error *e, char *why,
                       size_t whylen)
{
    memset(e, 0, sizeof *e);
    if (m->payload_len < sizeof(struct nlmsgerr))
        return refuse(why, whylen, "NLMSG_ERROR of %zu octets", m->len);
    int32_t code;
    memcpy(&code, m->payload, sizeof code);
    if (code > 0 || code < -4095)
        return refuse(why, whylen, "NLMSG_ERROR code %d", (int)code);
    e->errnum = -code;
    e->request = m->payload + sizeof code;
    size_t room = m->payload_len - sizeof code;
    size_t copied = NLMSG_HDRLEN;  /* the capped copy: the header */
    bool whole = true;             /* the copy's own length can be trusted */
    if (!(m->flags & NLM_F_CAPPED)) {
        copied = rd32(e->request);
        whole = copied >= NLMSG_HDRLEN && copied <= room;
        if (!whole)
            copied = copied < NLMSG_HDRLEN ? NLMSG_HDRLEN : room;
    }
    e->request_len = copied;
    if (!(m->flags & NLM_F_ACK_TLVS) || !whole)
        return 0;
    size_t off = align4(sizeof code + copied);
    if (off < m->payload_len)
        extack_text(m->payload + off, m->payload_len - off, e->extack, sizeof e->extack);
    return 0;
}

const char *pna_errno_name(int e)
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
