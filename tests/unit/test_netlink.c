/* test_netlink.c -- the netlink attribute parser and message walk
 * (transport/netlink.c): each policy kind on attributes of the right size
 * and of the wrong ones (too short, too long), a nest that is not one, an
 * attribute that runs past its container or is shorter than its header, a
 * type above the policy's maximum, a duplicate, a string without its NUL
 * or too long; messages back to back and cut short; NLMSG_ERROR with and
 * without the kernel's extended ACK, capped and not.  The attributes and
 * messages here are built by the test from include/uapi/linux/netlink.h's
 * layout; the extended ACK texts are also read from the kernel's own
 * refusals recorded in tests/fixtures/ethtool-nl/.  Every buffer is
 * exactly as long as its data, so that a read past it is a heap overflow
 * the sanitizers and valgrind see. */
#include "pna_autoconf.h"
#include "transport/netlink.h"

#include <errno.h>
#include <linux/netlink.h>
#include <stdint.h>

#include "unit.h"
#include "util/fileio.h"

/* ---- building attributes ---- */

struct buf {
    uint8_t data[512];
    size_t len;
};

/* An attribute of TYPE with N octets of PAYLOAD, padded to 4 octets unless
 * NOPAD; returns its offset. */
static size_t put_attr_pad(struct buf *b, uint16_t type, const void *payload, size_t n, int nopad)
{
    size_t at = b->len;
    uint16_t len = (uint16_t)(4 + n);
    memcpy(b->data + at, &len, 2);
    memcpy(b->data + at + 2, &type, 2);
    if (n)
        memcpy(b->data + at + 4, payload, n);
    b->len += nopad ? 4 + n : (4 + n + 3) & ~(size_t)3;
    return at;
}

static size_t put_attr(struct buf *b, uint16_t type, const void *payload, size_t n)
{
    return put_attr_pad(b, type, payload, n, 0);
}

/* A nest of type TYPE around the attributes of INNER. */
static size_t put_nest(struct buf *b, uint16_t type, const struct buf *inner)
{
    return put_attr(b, (uint16_t)(type | NLA_F_NESTED), inner->data, inner->len);
}

/* B's octets in a malloc'd buffer of exactly that size. */
static uint8_t *exact(const struct buf *b)
{
    uint8_t *p = malloc(b->len ? b->len : 1);
    if (!p)
        exit(99);
    memcpy(p, b->data, b->len);
    return p;
}

enum {
    T_U8 = 1, T_U16, T_U32, T_U64, T_UINT, T_STR, T_BIN, T_NEST, T_FLAG, T_ARR, T_LIST, T_FREE,
    T_MAX = T_FREE
};

static const struct pna_nla_policy POLICY[T_MAX + 1] = {
    [T_U8] = {.kind = PNA_NLA_U8, .name = "T_U8"},
    [T_U16] = {.kind = PNA_NLA_U16, .name = "T_U16"},
    [T_U32] = {.kind = PNA_NLA_U32, .name = "T_U32"},
    [T_U64] = {.kind = PNA_NLA_U64, .name = "T_U64"},
    [T_UINT] = {.kind = PNA_NLA_UINT, .name = "T_UINT"},
    [T_STR] = {.kind = PNA_NLA_STRING, .max_len = 7, .name = "T_STR"},
    [T_BIN] = {.kind = PNA_NLA_BINARY, .min_len = 2, .max_len = 6, .name = "T_BIN"},
    [T_NEST] = {.kind = PNA_NLA_NESTED, .name = "T_NEST"},
    [T_FLAG] = {.kind = PNA_NLA_FLAG, .name = "T_FLAG"},
    [T_ARR] = {.kind = PNA_NLA_U64_ARRAY, .name = "T_ARR"},
    [T_LIST] = {.kind = PNA_NLA_U32, .multi = true, .name = "T_LIST"},
    /* T_FREE: PNA_NLA_UNSPEC, not checked */
};

/* The copy the last parse() read: TB points into it until the next. */
static uint8_t *parsed;

/* Parse a copy of B with POLICY; *WHY the reason (or "untouched"). */
static int parse(const struct buf *b, const struct pna_nla **tb, char *why, size_t whylen)
{
    snprintf(why, whylen, "untouched");
    free(parsed);
    parsed = exact(b);
    return pna_nla_parse(tb, T_MAX, POLICY, parsed, b->len, "the test", why, whylen);
}

/* B parses to -EBADMSG with WHY, and tb[] all NULL. */
static void check_refused(const struct buf *b, const char *want)
{
    const struct pna_nla *tb[T_MAX + 1];
    char why[128];
    CHECK_INT(parse(b, tb, why, sizeof why), -EBADMSG);
    CHECK_STR(why, want);
    for (int t = 0; t <= T_MAX; t++)
        CHECK(tb[t] == NULL);
}

/* A buffer holding one attribute of TYPE with N octets of 0x11. */
static struct buf one(uint16_t type, size_t n)
{
    struct buf b = {.len = 0};
    uint8_t fill[64];
    memset(fill, 0x11, sizeof fill);
    put_attr(&b, type, fill, n);
    return b;
}

/* ---- attributes ---- */

static void test_every_kind(void)
{
    struct buf b = {.len = 0}, inner = {.len = 0};
    uint8_t u8 = 0xab;
    uint16_t u16 = 0xbeef;
    uint32_t u32 = 0xdeadbeef, item1 = 1, item2 = 2;
    uint64_t u64 = UINT64_C(0x0123456789abcdef), arr[3] = {7, 8, 9};
    put_attr(&b, T_U8, &u8, 1);
    put_attr(&b, T_U16, &u16, 2);
    put_attr(&b, T_U32, &u32, 4);
    put_attr(&b, T_U64, &u64, 8);
    put_attr(&b, T_UINT, &u16, 2);
    put_attr(&b, T_STR, "eth0", 5);
    put_attr(&b, T_BIN, "\x01\x02\x03", 3);
    put_attr(&inner, T_U8, &u8, 1);
    put_nest(&b, T_NEST, &inner);
    put_attr(&b, T_FLAG, NULL, 0);
    put_attr(&b, T_ARR, arr, sizeof arr);
    put_attr(&b, T_LIST, &item1, 4);
    put_attr(&b, T_LIST, &item2, 4);
    put_attr(&b, T_FREE, "x", 1);
    put_attr(&b, T_FREE, "yz", 2);             /* unchecked: may repeat */
    put_attr(&b, T_MAX + 1, "abc", 3);          /* above the maximum: skipped, */
    put_attr(&b, T_MAX + 7, NULL, 0);           /* whatever its size */

    const struct pna_nla *tb[T_MAX + 1];
    char why[128];
    CHECK_INT(parse(&b, tb, why, sizeof why), 0);
    CHECK_STR(why, "untouched");
    CHECK(tb[0] == NULL);
    CHECK_INT(pna_nla_u8(tb[T_U8]), 0xab);
    CHECK_INT(pna_nla_u16(tb[T_U16]), 0xbeef);
    CHECK_U64(pna_nla_u32(tb[T_U32]), 0xdeadbeefu);
    CHECK_U64(pna_nla_u64(tb[T_U64]), UINT64_C(0x0123456789abcdef));
    CHECK_U64(pna_nla_uint(tb[T_UINT]), 0xbeef);
    CHECK_STR(pna_nla_str(tb[T_STR]), "eth0");
    CHECK_INT(pna_nla_len(tb[T_BIN]), 3);
    CHECK(memcmp(pna_nla_data(tb[T_BIN]), "\x01\x02\x03", 3) == 0);
    CHECK_INT(pna_nla_type(tb[T_NEST]), T_NEST);  /* NLA_F_NESTED masked off */
    CHECK_INT(pna_nla_len(tb[T_FLAG]), 0);
    CHECK_U64(pna_nla_u64_at(tb[T_ARR], 2), 9);
    CHECK_U64(pna_nla_u64_at(tb[T_ARR], 3), 0);   /* past its end */
    CHECK_U64(pna_nla_u32(tb[T_LIST]), 2);        /* the last, as nla_parse() */
    CHECK_INT(pna_nla_len(tb[T_FREE]), 2);

    /* the nest, parsed in its turn */
    const struct pna_nla *nt[T_MAX + 1];
    CHECK_INT(pna_nla_parse_nested(nt, T_MAX, POLICY, tb[T_NEST], "T_NEST", why, sizeof why), 0);
    CHECK_INT(pna_nla_u8(nt[T_U8]), 0xab);
    CHECK(nt[T_U16] == NULL);

    /* the repeated entries, all of them in order, by the walk */
    uint8_t *p = exact(&b);
    struct pna_nla_iter it;
    const struct pna_nla *a;
    uint32_t seen[4];
    size_t n = 0, all = 0;
    pna_nla_iter_init(&it, p, b.len);
    while ((a = pna_nla_iter_next(&it)) != NULL) {
        all++;
        if (pna_nla_type(a) == T_LIST && n < 4)
            seen[n++] = pna_nla_u32(a);
    }
    CHECK_INT(all, 16);
    CHECK_INT(n, 2);
    CHECK_INT(seen[0], 1);
    CHECK_INT(seen[1], 2);
    free(p);

    /* UINT takes each of its widths */
    static const struct {
        size_t width;
        uint64_t value;
    } widths[] = {{1, 0x11}, {2, 0x1111}, {4, 0x11111111}, {8, UINT64_C(0x1111111111111111)}};
    for (size_t i = 0; i < 4; i++) {
        struct buf w = one(T_UINT, widths[i].width);
        CHECK_INT(parse(&w, tb, why, sizeof why), 0);
        CHECK_U64(pna_nla_uint(tb[T_UINT]), widths[i].value);
    }
    /* no policy: nothing checked */
    struct buf odd = one(T_U32, 3);
    uint8_t *q = exact(&odd);
    CHECK_INT(pna_nla_parse(tb, T_MAX, NULL, q, odd.len, "the test", why, sizeof why), 0);
    CHECK_INT(pna_nla_len(tb[T_U32]), 3);
    free(q);
    /* nothing at all: an empty container */
    CHECK_INT(pna_nla_parse(tb, T_MAX, POLICY, NULL, 0, "the test", why, sizeof why), 0);
    CHECK(tb[T_U8] == NULL);
}

static void test_sizes(void)
{
    /* too short */
    struct buf b = one(T_U32, 3);
    check_refused(&b, "T_U32 is 3 octets");
    b = one(T_U64, 4);
    check_refused(&b, "T_U64 is 4 octets");
    b = one(T_U8, 0);
    check_refused(&b, "T_U8 is 0 octets");
    b = one(T_BIN, 1);
    check_refused(&b, "T_BIN is 1 octets, expected 2");
    b = one(T_UINT, 3);
    check_refused(&b, "T_UINT is 3 octets");
    /* too long */
    b = one(T_U8, 2);
    check_refused(&b, "T_U8 is 2 octets");
    b = one(T_U16, 4);
    check_refused(&b, "T_U16 is 4 octets");
    b = one(T_BIN, 7);
    check_refused(&b, "T_BIN is 7 octets, at most 6");
    b = one(T_UINT, 16);
    check_refused(&b, "T_UINT is 16 octets");
    b = one(T_FLAG, 1);
    check_refused(&b, "T_FLAG is 1 octets");
    /* an array of whole u64s only */
    b = one(T_ARR, 12);
    check_refused(&b, "T_ARR is 12 octets, not whole u64s");
    b = one(T_ARR, 0);
    const struct pna_nla *tb[T_MAX + 1];
    char why[128];
    CHECK_INT(parse(&b, tb, why, sizeof why), 0);  /* none: the driver does not count it */
}

static void test_strings(void)
{
    struct buf b = {.len = 0};
    put_attr(&b, T_STR, "eth0", 4);  /* no NUL */
    check_refused(&b, "T_STR not terminated");
    b = one(T_STR, 0);
    check_refused(&b, "T_STR not terminated");
    b.len = 0;
    put_attr(&b, T_STR, "eth0123", 8);  /* 7: the longest */
    const struct pna_nla *tb[T_MAX + 1];
    char why[128];
    CHECK_INT(parse(&b, tb, why, sizeof why), 0);
    CHECK_STR(pna_nla_str(tb[T_STR]), "eth0123");
    b.len = 0;
    put_attr(&b, T_STR, "eth01234", 9);
    check_refused(&b, "T_STR is longer than 7 octets");
    b.len = 0;
    put_attr(&b, T_STR, "ab\0cdefghij", 11);  /* its NUL early: the string is "ab" */
    CHECK_INT(parse(&b, tb, why, sizeof why), 0);
    CHECK_STR(pna_nla_str(tb[T_STR]), "ab");
}

static void test_nests(void)
{
    /* a nest too short to hold an attribute */
    struct buf b = one(T_NEST, 2);
    check_refused(&b, "T_NEST is 2 octets, not a nest");
    /* an empty nest is one */
    b = one(T_NEST, 0);
    const struct pna_nla *tb[T_MAX + 1], *nt[T_MAX + 1];
    char why[128];
    CHECK_INT(parse(&b, tb, why, sizeof why), 0);
    CHECK_INT(pna_nla_parse_nested(nt, T_MAX, POLICY, tb[T_NEST], "T_NEST", why, sizeof why), 0);

    /* a nest whose attribute runs past it, or is shorter than its header:
     * refused where the nest is parsed, naming it */
    struct buf inner = {.len = 0};
    uint32_t v = 5;
    size_t at = put_attr(&inner, T_U32, &v, 4);
    uint16_t bad = 12;
    memcpy(inner.data + at, &bad, 2);
    b.len = 0;
    put_nest(&b, T_NEST, &inner);
    uint8_t *p = exact(&b);
    CHECK_INT(pna_nla_parse(tb, T_MAX, POLICY, p, b.len, "the test", why, sizeof why), 0);
    CHECK_INT(pna_nla_parse_nested(nt, T_MAX, POLICY, tb[T_NEST], "T_NEST", why, sizeof why),
              -EBADMSG);
    CHECK_STR(why, "attribute of 12 octets in T_NEST runs past its end (8 left)");
    /* the walk stops there rather than read past the nest */
    struct pna_nla_iter it;
    pna_nla_iter_nested(&it, tb[T_NEST]);
    CHECK(pna_nla_iter_next(&it) == NULL);
    free(p);
    bad = 3;
    memcpy(inner.data + at, &bad, 2);
    b.len = 0;
    put_nest(&b, T_NEST, &inner);
    p = exact(&b);
    CHECK_INT(pna_nla_parse(tb, T_MAX, POLICY, p, b.len, "the test", why, sizeof why), 0);
    CHECK_INT(pna_nla_parse_nested(nt, T_MAX, POLICY, tb[T_NEST], "T_NEST", why, sizeof why),
              -EBADMSG);
    CHECK_STR(why, "attribute of 3 octets in T_NEST");
    free(p);
    /* and a wrong attribute inside, by the nest's policy */
    inner.len = 0;
    put_attr(&inner, T_U16, &v, 4);
    b.len = 0;
    put_nest(&b, T_NEST, &inner);
    p = exact(&b);
    CHECK_INT(pna_nla_parse(tb, T_MAX, POLICY, p, b.len, "the test", why, sizeof why), 0);
    CHECK_INT(pna_nla_parse_nested(nt, T_MAX, POLICY, tb[T_NEST], "T_NEST", why, sizeof why),
              -EBADMSG);
    CHECK_STR(why, "T_U16 is 4 octets");
    free(p);
}

static void test_framing(void)
{
    /* an attribute that runs past its container: the length of the last
     * one says 12, the container ends 8 octets after its start */
    struct buf b = {.len = 0};
    uint8_t u8 = 1;
    uint32_t v = 2;
    put_attr(&b, T_U8, &u8, 1);
    size_t at = put_attr(&b, T_U32, &v, 4);
    uint16_t bad = 12;
    memcpy(b.data + at, &bad, 2);
    check_refused(&b, "attribute of 12 octets in the test runs past its end (8 left)");
    /* shorter than its own header */
    bad = 2;
    memcpy(b.data + at, &bad, 2);
    check_refused(&b, "attribute of 2 octets in the test");
    bad = 0;
    memcpy(b.data + at, &bad, 2);
    check_refused(&b, "attribute of 0 octets in the test");

    /* one to three octets after the last attribute: its padding */
    b.len = 0;
    put_attr_pad(&b, T_U8, &u8, 1, 1);
    for (size_t extra = 0; extra < 4; extra++) {
        struct buf c = b;
        c.len += extra;
        const struct pna_nla *tb[T_MAX + 1];
        char why[128];
        CHECK_INT(parse(&c, tb, why, sizeof why), 0);
        CHECK(tb[T_U8] != NULL);
    }
    /* four or more past the padding: an attribute shorter than its header */
    struct buf c = b;
    memset(c.data + c.len, 0, 7);
    c.len += 7;
    check_refused(&c, "attribute of 0 octets in the test");

    /* a duplicate of a type that may appear once */
    b.len = 0;
    put_attr(&b, T_U32, &v, 4);
    put_attr(&b, T_U8, &u8, 1);
    put_attr(&b, T_U32, &v, 4);
    check_refused(&b, "T_U32 twice in the test");

    /* every attribute of every prefix, from a buffer of exactly that size */
    uint64_t v64 = 2;
    b.len = 0;
    put_attr(&b, T_U64, &v64, 8);
    put_attr(&b, T_STR, "abc", 4);
    put_attr(&b, T_LIST, &v, 4);
    put_attr(&b, T_LIST, &v, 4);
    int broken = 0;
    for (size_t n = 0; n <= b.len; n++) {
        struct buf cut = b;
        cut.len = n;
        const struct pna_nla *tb[T_MAX + 1];
        char why[128];
        int rc = parse(&cut, tb, why, sizeof why);
        if (rc != 0 && rc != -EBADMSG)
            broken++;
        if (rc == 0 && n % 4 == 0 && n > 0 && !tb[T_U64])
            broken++;
    }
    CHECK_INT(broken, 0);

    /* an unaligned container parses the same */
    uint8_t *odd = malloc(b.len + 1);
    memcpy(odd + 1, b.data, b.len);
    const struct pna_nla *tb[T_MAX + 1];
    char why[128];
    CHECK_INT(pna_nla_parse(tb, T_MAX, POLICY, odd + 1, b.len, "the test", why, sizeof why), 0);
    CHECK_U64(pna_nla_u64(tb[T_U64]), 2);
    CHECK_STR(pna_nla_str(tb[T_STR]), "abc");
    free(odd);

    /* a policy entry without a name is named by its number */
    static const struct pna_nla_policy unnamed[3] = {[2] = {.kind = PNA_NLA_U32}};
    c = one(2, 1);
    CHECK_INT(pna_nla_parse(tb, 2, unnamed, c.data, c.len, "the test", why, sizeof why), -EBADMSG);
    CHECK_STR(why, "attribute 2 is 1 octets");
}

/* ---- messages ---- */

/* A message of TYPE and FLAGS with PAYLOAD (N octets) at B's end, padded. */
static size_t put_msg(struct buf *b, uint16_t type, uint16_t flags, const void *payload, size_t n)
{
    struct nlmsghdr h = {.nlmsg_len = (uint32_t)(NLMSG_HDRLEN + n), .nlmsg_type = type,
                         .nlmsg_flags = flags, .nlmsg_seq = 7, .nlmsg_pid = 9};
    size_t at = b->len;
    memcpy(b->data + at, &h, sizeof h);
    memcpy(b->data + at + NLMSG_HDRLEN, payload, n);
    b->len += NLMSG_ALIGN(h.nlmsg_len);
    return at;
}

static void test_messages(void)
{
    struct buf b = {.len = 0};
    put_msg(&b, 0x20, 0, "abcd", 4);
    put_msg(&b, NLMSG_DONE, NLM_F_MULTI, "xy", 2);
    b.len -= 2;  /* the last one's padding missing */
    uint8_t *p = exact(&b);
    struct pna_nl_msgs it;
    struct pna_nl_msg m;
    char why[128] = "untouched";
    pna_nl_msgs_init(&it, p, b.len);
    CHECK_INT(pna_nl_msgs_next(&it, &m, why, sizeof why), 1);
    CHECK_INT(m.type, 0x20);
    CHECK_INT(m.seq, 7);
    CHECK_INT(m.portid, 9);
    CHECK_INT(m.payload_len, 4);
    CHECK(memcmp(m.payload, "abcd", 4) == 0);
    CHECK_INT(pna_nl_msgs_used(&it, p), 20);
    CHECK_INT(pna_nl_msgs_next(&it, &m, why, sizeof why), 1);
    CHECK_INT(m.type, NLMSG_DONE);
    CHECK_INT(m.flags, NLM_F_MULTI);
    CHECK_INT(m.len, 18);
    CHECK_INT(pna_nl_msgs_used(&it, p), b.len);
    CHECK_INT(pna_nl_msgs_next(&it, &m, why, sizeof why), 0);
    CHECK_STR(why, "untouched");
    free(p);

    /* cut short, or lengths that wrap NLMSG_ALIGN() or pass libmnl's int test */
    static const uint32_t lens[] = {0, 15, 40, 0x80000000u, 0xfffffffdu};
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
        struct buf c = b;
        memcpy(c.data, &lens[i], 4);
        p = exact(&c);
        pna_nl_msgs_init(&it, p, c.len);
        CHECK_INT(pna_nl_msgs_next(&it, &m, why, sizeof why), -EBADMSG);
        CHECK_STR(why, "message truncated (38 octets left)");
        free(p);
    }
    p = exact(&b);
    pna_nl_msgs_init(&it, p, 10);
    CHECK_INT(pna_nl_msgs_next(&it, &m, why, sizeof why), -EBADMSG);
    CHECK_STR(why, "message truncated (10 octets left)");
    free(p);
}

/* An NLMSG_ERROR with CODE, a copy of a request of REQ_PAYLOAD octets
 * (header only when FLAGS has NLM_F_CAPPED), then the TLVS octets. */
static struct buf error_msg(int32_t code, uint16_t flags, size_t req_payload, const struct buf *tlvs)
{
    struct buf body = {.len = 0};
    memcpy(body.data, &code, 4);
    struct nlmsghdr req = {.nlmsg_len = (uint32_t)(NLMSG_HDRLEN + req_payload),
                           .nlmsg_type = 0x1a, .nlmsg_seq = 3};
    memcpy(body.data + 4, &req, sizeof req);
    body.len = 4 + NLMSG_HDRLEN;
    if (!(flags & NLM_F_CAPPED)) {
        memset(body.data + body.len, 0x5a, req_payload);
        body.len += req_payload;
    }
    body.len = (body.len + 3) & ~(size_t)3;
    if (tlvs) {
        memcpy(body.data + body.len, tlvs->data, tlvs->len);
        body.len += tlvs->len;
    }
    struct buf m = {.len = 0};
    put_msg(&m, NLMSG_ERROR, flags, body.data, body.len);
    return m;
}

static int parse_error(const struct buf *b, struct pna_nl_error *e, char *why, size_t whylen)
{
    uint8_t *p = exact(b);
    struct pna_nl_msgs it;
    struct pna_nl_msg m;
    pna_nl_msgs_init(&it, p, b->len);
    int rc = pna_nl_msgs_next(&it, &m, why, whylen);
    if (rc == 1)
        rc = pna_nl_error_parse(&m, e, why, whylen);
    free(p);
    return rc;
}

static void test_errors(void)
{
    struct pna_nl_error e;
    char why[128];
    struct buf tlvs = {.len = 0};
    uint32_t offs = 20;
    put_attr(&tlvs, NLMSGERR_ATTR_OFFS, &offs, 4);
    put_attr(&tlvs, NLMSGERR_ATTR_MSG, "no device matches name", 23);

    /* the whole request copied, then the extended ACK */
    struct buf b = error_msg(-ENODEV, NLM_F_ACK_TLVS, 10, &tlvs);
    CHECK_INT(parse_error(&b, &e, why, sizeof why), 0);
    CHECK_INT(e.errnum, ENODEV);
    CHECK_INT(e.request_len, NLMSG_HDRLEN + 10);
    CHECK_STR(e.extack, "no device matches name");
    /* capped: the request's header alone */
    b = error_msg(-EOPNOTSUPP, NLM_F_ACK_TLVS | NLM_F_CAPPED, 10, &tlvs);
    CHECK_INT(parse_error(&b, &e, why, sizeof why), 0);
    CHECK_INT(e.errnum, EOPNOTSUPP);
    CHECK_INT(e.request_len, NLMSG_HDRLEN);
    CHECK_STR(e.extack, "no device matches name");
    /* no NLM_F_ACK_TLVS: no text, whatever follows */
    b = error_msg(-EINVAL, NLM_F_CAPPED, 0, &tlvs);
    CHECK_INT(parse_error(&b, &e, why, sizeof why), 0);
    CHECK_STR(e.extack, "");
    /* an acknowledgement */
    b = error_msg(0, NLM_F_CAPPED, 0, NULL);
    CHECK_INT(parse_error(&b, &e, why, sizeof why), 0);
    CHECK_INT(e.errnum, 0);

    /* unprintable octets become '?', trailing blanks go, no NUL is needed */
    tlvs.len = 0;
    put_attr(&tlvs, NLMSGERR_ATTR_MSG, "bad\tvalue \x80 ", 13);
    b = error_msg(-EINVAL, NLM_F_ACK_TLVS | NLM_F_CAPPED, 0, &tlvs);
    CHECK_INT(parse_error(&b, &e, why, sizeof why), 0);
    CHECK_STR(e.extack, "bad?value ?");
    /* a long text is cut to the buffer */
    char longtext[200];
    memset(longtext, 'm', sizeof longtext);
    tlvs.len = 0;
    put_attr(&tlvs, NLMSGERR_ATTR_MSG, longtext, sizeof longtext);
    b = error_msg(-EINVAL, NLM_F_ACK_TLVS | NLM_F_CAPPED, 0, &tlvs);
    CHECK_INT(parse_error(&b, &e, why, sizeof why), 0);
    CHECK_INT(strlen(e.extack), sizeof e.extack - 1);
    /* a request copy whose length runs past the message: no text, the code stands */
    tlvs.len = 0;
    put_attr(&tlvs, NLMSGERR_ATTR_MSG, "hidden", 7);
    b = error_msg(-EBUSY, NLM_F_ACK_TLVS, 4, &tlvs);
    uint32_t claimed = 400;
    memcpy(b.data + NLMSG_HDRLEN + 4, &claimed, 4);
    CHECK_INT(parse_error(&b, &e, why, sizeof why), 0);
    CHECK_INT(e.errnum, EBUSY);
    CHECK_STR(e.extack, "");
    CHECK(e.request_len <= b.len - NLMSG_HDRLEN - 4);
    /* extended ACK attributes that do not fit: no text */
    tlvs.len = 0;
    size_t at = put_attr(&tlvs, NLMSGERR_ATTR_MSG, "cut", 4);
    uint16_t bad = 40;
    memcpy(tlvs.data + at, &bad, 2);
    b = error_msg(-EBUSY, NLM_F_ACK_TLVS | NLM_F_CAPPED, 0, &tlvs);
    CHECK_INT(parse_error(&b, &e, why, sizeof why), 0);
    CHECK_STR(e.extack, "");

    /* malformed: too short for a struct nlmsgerr, a code that is no errno */
    struct buf s = {.len = 0};
    int32_t code = -EIO;
    put_msg(&s, NLMSG_ERROR, 0, &code, 4);
    CHECK_INT(parse_error(&s, &e, why, sizeof why), -EBADMSG);
    CHECK_STR(why, "NLMSG_ERROR of 20 octets");
    b = error_msg(5, NLM_F_CAPPED, 0, NULL);
    CHECK_INT(parse_error(&b, &e, why, sizeof why), -EBADMSG);
    CHECK_STR(why, "NLMSG_ERROR code 5");
    b = error_msg(-5000, NLM_F_CAPPED, 0, NULL);
    CHECK_INT(parse_error(&b, &e, why, sizeof why), -EBADMSG);
    CHECK_STR(why, "NLMSG_ERROR code -5000");
}

/* The kernel's own refusals (Linux 6.18, tests/fixtures/ethtool-nl/). */
static void test_recorded_errors(void)
{
    static const struct {
        const char *file;
        int errnum;
        const char *extack;
    } cases[] = {
        {"real-linkstate-missing.bin", ENODEV, "no device matches name"},
        {"real-stats-statsflag.bin", EINVAL, "reserved bit set"},
        {"real-fec-veth0.bin", EOPNOTSUPP, ""},
        {"real-fec-veth0-nocap.bin", EOPNOTSUPP, ""},  /* the whole request copied */
        {"real-eeprom-veth0-unpriv.bin", EPERM, ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[PATH_MAX];
        char *data = NULL;
        size_t len;
        snprintf(path, sizeof path, "%s/ethtool-nl/%s", unit_fixtures(), cases[i].file);
        if (pna_read_alloc(path, 65536, &data, &len) != 0) {
            fprintf(stderr, "cannot read %s\n", path);
            exit(99);
        }
        struct buf b = {.len = len};
        CHECK(len <= sizeof b.data);
        memcpy(b.data, data, len < sizeof b.data ? len : sizeof b.data);
        free(data);
        struct pna_nl_error e;
        char why[128];
        CHECK_INT(parse_error(&b, &e, why, sizeof why), 0);
        CHECK_INT(e.errnum, cases[i].errnum);
        CHECK_STR(e.extack, cases[i].extack);
    }
}

static void test_errno_names(void)
{
    CHECK_STR(pna_errno_name(ENODEV), "ENODEV");
    CHECK_STR(pna_errno_name(EOPNOTSUPP), "EOPNOTSUPP");
    CHECK(pna_errno_name(150) == NULL);
    CHECK(pna_errno_name(0) == NULL);
}

int main(void)
{
    test_every_kind();
    test_sizes();
    test_strings();
    test_nests();
    test_framing();
    test_messages();
    test_errors();
    test_recorded_errors();
    test_errno_names();
    free(parsed);
    UNIT_END();
}
