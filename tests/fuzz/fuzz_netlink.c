/* fuzz_netlink.c -- libFuzzer harness for the netlink attribute parser and
 * message walk (transport/netlink.c) that the ethtool netlink, DCB and
 * rtnetlink readers share.
 *
 * Input: one octet, then a datagram of netlink messages as a socket hands it
 * over (seeds: the recorded and built replies of tests/fixtures/ethtool-nl/,
 * dcb/ and rtnl/, and the regression inputs of the ethtool_nl, dcb and
 * rtnl_link corpora, their own first octets removed).  The first octet's
 * low two bits give the family header before a message's attributes (4:
 * genlmsghdr or dcbmsg, 16: ifinfomsg, 0, 8); its upper six bits turn the
 * policy: attribute type T gets the kind KINDS[(T + turn) % N], so that
 * every type of the recorded replies meets every kind.  An NLMSG_ERROR is
 * parsed as one (the extended ACK included); every other message's
 * attributes are parsed by that policy, and every nest found again, four
 * levels down.
 *
 * Besides the sanitizers, the harness aborts when the parser breaks its
 * promises: a return other than 0 or -EBADMSG (1, 0, -EBADMSG for the walk);
 * a refusal without a terminated reason or with tb[] not cleared; a success
 * with an attribute in tb[] outside the data, of another type, not what its
 * policy entry says (checked again here), or of a checked kind that appears
 * twice without leave to, or that is not the last of its type; a message or
 * a request copy outside the datagram; an errno outside 0-4095; an extended
 * ACK text that is unterminated, unprintable or ends in a blank. */
#include "pna_autoconf.h"
#include "transport/netlink.h"
#include "fuzz.h"

#include <errno.h>
#include <linux/netlink.h>
#include <stdlib.h>
#include <string.h>

#define MAXTYPE 31
#define MAX_DEPTH 4

static const enum pna_nla_kind KINDS[] = {
    PNA_NLA_UNSPEC, PNA_NLA_U8,      PNA_NLA_U16,   PNA_NLA_U32,  PNA_NLA_U64,
    PNA_NLA_UINT,   PNA_NLA_STRING,  PNA_NLA_BINARY, PNA_NLA_NESTED, PNA_NLA_FLAG,
    PNA_NLA_U64_ARRAY,
};
#define N_KINDS (sizeof KINDS / sizeof KINDS[0])

static void make_policy(struct pna_nla_policy *pol, unsigned turn)
{
    for (unsigned t = 0; t <= MAXTYPE; t++) {
        pol[t] = (struct pna_nla_policy){
            .kind = KINDS[(t + turn) % N_KINDS],
            .multi = ((t + turn) / N_KINDS) % 2 == 1,
            .min_len = (uint16_t)(t % 5),
            .max_len = (uint16_t)(t % 3 == 0 ? 0 : (t % 5) + 4 * (t % 7)),
            .name = "attr",
        };
    }
}

static bool terminated(const char *s, size_t size)
{
    return strnlen(s, size) < size;
}

/* What the harness itself requires of an attribute of POL's kind. */
static bool fits(const struct pna_nla_policy *pol, const struct pna_nla *a)
{
    size_t len = pna_nla_len(a);
    const uint8_t *d = pna_nla_data(a);
    switch (pol->kind) {
    case PNA_NLA_U8: return len == 1;
    case PNA_NLA_U16: return len == 2;
    case PNA_NLA_U32: return len == 4;
    case PNA_NLA_U64: return len == 8;
    case PNA_NLA_UINT: return len == 1 || len == 2 || len == 4 || len == 8;
    case PNA_NLA_FLAG: return len == 0;
    case PNA_NLA_U64_ARRAY: return len % 8 == 0;
    case PNA_NLA_NESTED: return len == 0 || len >= 4;
    case PNA_NLA_BINARY: return len >= pol->min_len && (!pol->max_len || len <= pol->max_len);
    case PNA_NLA_STRING:
        return len > 0 && memchr(d, '\0', len) &&
               (!pol->max_len || strlen((const char *)d) <= pol->max_len);
    default: return true;
    }
}

/* Read every value the accessors give, as a reader would. */
static uint64_t touch(const struct pna_nla *a)
{
    uint64_t sum = pna_nla_u8(a) + pna_nla_u16(a) + pna_nla_u32(a) + pna_nla_u64(a) +
                   pna_nla_uint(a) + pna_nla_u64_at(a, 0) + pna_nla_u64_at(a, 1);
    return sum;
}

static void parse_attrs(const struct pna_nla_policy *pol, const uint8_t *data, size_t len,
                        int depth);

/* After a successful parse of LEN octets at DATA into TB. */
static void check_parsed(const struct pna_nla_policy *pol, const struct pna_nla **tb,
                         const uint8_t *data, size_t len, int depth)
{
    for (unsigned t = 0; t <= MAXTYPE; t++) {
        if (!tb[t])
            continue;
        const uint8_t *raw = (const uint8_t *)tb[t];
        if (raw < data || raw + 4 > data + len || pna_nla_data(tb[t]) + pna_nla_len(tb[t]) >
                                                       data + len)
            abort(); /* outside the data */
        if (pna_nla_type(tb[t]) != t || !fits(&pol[t], tb[t]))
            abort();
        if (pol[t].kind == PNA_NLA_STRING && !terminated(pna_nla_str(tb[t]), pna_nla_len(tb[t])))
            abort();
        (void)touch(tb[t]);
    }
    /* every attribute of a type within the policy: how often, which is last */
    unsigned seen[MAXTYPE + 1] = {0};
    const struct pna_nla *last[MAXTYPE + 1] = {0};
    struct pna_nla_iter it;
    const struct pna_nla *a;
    pna_nla_iter_init(&it, data, len);
    while ((a = pna_nla_iter_next(&it)) != NULL) {
        unsigned t = pna_nla_type(a);
        if ((const uint8_t *)a < data || pna_nla_data(a) + pna_nla_len(a) > data + len)
            abort();
        if (t > MAXTYPE)
            continue;
        seen[t]++;
        last[t] = a;
        if (pol[t].kind != PNA_NLA_UNSPEC && !fits(&pol[t], a))
            abort(); /* a repeat that was not checked */
    }
    for (unsigned t = 0; t <= MAXTYPE; t++) {
        if (tb[t] != last[t])
            abort();
        if (pol[t].kind != PNA_NLA_UNSPEC && !pol[t].multi && seen[t] > 1)
            abort();
        if (pol[t].kind == PNA_NLA_NESTED && tb[t] && depth < MAX_DEPTH)
            parse_attrs(pol, pna_nla_data(tb[t]), pna_nla_len(tb[t]), depth + 1);
    }
}

static void parse_attrs(const struct pna_nla_policy *pol, const uint8_t *data, size_t len,
                        int depth)
{
    const struct pna_nla *tb[MAXTYPE + 1];
    char why[96];
    memset(why, 'x', sizeof why);
    int rc = pna_nla_parse(tb, MAXTYPE, pol, data, len, "the fuzz", why, sizeof why);
    if (rc == 0) {
        check_parsed(pol, tb, data, len, depth);
        return;
    }
    if (rc != -EBADMSG || !terminated(why, sizeof why) || why[0] == '\0')
        abort();
    for (unsigned t = 0; t <= MAXTYPE; t++)
        if (tb[t])
            abort(); /* a refusal leaves nothing to read */
}

static void check_error(const struct pna_nl_msg *m)
{
    struct pna_nl_error e;
    char why[96];
    memset(why, 'x', sizeof why);
    int rc = pna_nl_error_parse(m, &e, why, sizeof why);
    if (rc == -EBADMSG) {
        if (!terminated(why, sizeof why) || why[0] == '\0')
            abort();
        return;
    }
    if (rc != 0 || e.errnum < 0 || e.errnum > 4095)
        abort();
    if (e.request < m->payload || e.request_len < NLMSG_HDRLEN ||
        e.request + e.request_len > m->payload + m->payload_len)
        abort();
    size_t n = strnlen(e.extack, sizeof e.extack);
    if (n == sizeof e.extack || (n > 0 && e.extack[n - 1] == ' '))
        abort();
    for (size_t i = 0; i < n; i++)
        if (e.extack[i] < 0x20 || e.extack[i] >= 0x7f)
            abort();
    (void)pna_errno_name(e.errnum);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const size_t header[] = {4, 16, 0, 8};
    if (size == 0)
        return 0;
    size_t hdrlen = header[data[0] & 3];
    struct pna_nla_policy pol[MAXTYPE + 1];
    make_policy(pol, data[0] >> 2);
    const uint8_t *msgs = data + 1;
    size_t len = size - 1;

    struct pna_nl_msgs it;
    struct pna_nl_msg m;
    char why[96];
    int rc;
    pna_nl_msgs_init(&it, msgs, len);
    while ((rc = pna_nl_msgs_next(&it, &m, why, sizeof why)) == 1) {
        if (m.start < msgs || m.len < NLMSG_HDRLEN || m.start + m.len > msgs + len ||
            m.payload != m.start + NLMSG_HDRLEN || m.payload_len != m.len - NLMSG_HDRLEN ||
            pna_nl_msgs_used(&it, msgs) > len)
            abort();
        if (m.type == NLMSG_ERROR)
            check_error(&m);
        else if (m.payload_len >= hdrlen)
            parse_attrs(pol, m.payload + hdrlen, m.payload_len - hdrlen, 0);
    }
    if (rc != 0 && (rc != -EBADMSG || !terminated(why, sizeof why)))
        abort();
    return 0;
}
