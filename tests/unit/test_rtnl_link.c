/* test_rtnl_link.c -- the rtnetlink link message parser
 * (sources/rdma/rtnl_link.c) on messages captured from the kernel
 * (tests/fixtures/rtnl/, see its README.md): interface, flags, carrier,
 * operstate, dump or notification, deletion; two messages in one datagram;
 * every prefix of every capture (no read past the data: run it under
 * valgrind); and malformed variants made from the captures: a length past the
 * data, a header too short for its ifinfomsg, an attribute that overruns the
 * message, a carrier attribute without its octet, index 0, an unterminated
 * name. */
#include "pna_autoconf.h"
#include "sources/rdma/rtnl_link.h"

#include <errno.h>
#include <limits.h>
#include <linux/if.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <stdint.h>

#include "unit.h"
#include "util/fileio.h"

static const char *const CAPTURES[] = {
    "dump-0-carrier1.bin", "newlink-0-carrier0.bin", "newlink-1-carrier1.bin",
    "newlink-peer-deleted-carrier0.bin", "dellink-0-carrier0.bin",
};
#define N_CAPTURES (sizeof CAPTURES / sizeof CAPTURES[0])

/* tests/fixtures/rtnl/NAME into a malloc'd buffer (*LEN octets). */
static uint8_t *load(const char *name, size_t *len)
{
    char path[PATH_MAX];
    char *data = NULL;
    snprintf(path, sizeof path, "%s/rtnl/%s", unit_fixtures(), name);
    if (pna_read_alloc(path, 65536, &data, len) != 0) {
        fprintf(stderr, "cannot read %s\n", path);
        exit(99);
    }
    return (uint8_t *)data;
}

static long parse_fixture(const char *name, struct pna_rtnl_link *out, size_t *len_out)
{
    size_t len;
    uint8_t *data = load(name, &len);
    long rc = pna_rtnl_link_parse(data, len, out);
    free(data);
    if (len_out)
        *len_out = len;
    return rc;
}

static void test_captures(void)
{
    struct pna_rtnl_link l;
    size_t len;

    CHECK_INT(parse_fixture("dump-0-carrier1.bin", &l, &len), (long)len);
    CHECK_STR(l.error, "");
    CHECK_INT(l.ifindex, 3);
    CHECK_STR(l.ifname, "rv0");
    CHECK(l.dump && !l.deleted);
    CHECK(l.has_carrier && l.carrier);
    CHECK(l.has_operstate);
    CHECK_INT(l.operstate, IF_OPER_UP);
    CHECK_INT(l.flags, IFF_UP | IFF_BROADCAST | IFF_MULTICAST | IFF_RUNNING | IFF_LOWER_UP);
    CHECK(pna_rtnl_link_up(&l));

    CHECK_INT(parse_fixture("newlink-0-carrier0.bin", &l, &len), (long)len);
    CHECK_STR(l.ifname, "rv0");
    CHECK(!l.dump && !l.deleted);
    CHECK(l.has_carrier && !l.carrier);
    CHECK_INT(l.operstate, IF_OPER_LOWERLAYERDOWN);
    CHECK_INT(l.flags, IFF_UP | IFF_BROADCAST | IFF_MULTICAST);
    CHECK(!pna_rtnl_link_up(&l));

    CHECK_INT(parse_fixture("newlink-1-carrier1.bin", &l, &len), (long)len);
    CHECK(!l.dump && l.carrier);
    CHECK_INT(l.operstate, IF_OPER_UP);
    CHECK(pna_rtnl_link_up(&l));

    CHECK_INT(parse_fixture("newlink-peer-deleted-carrier0.bin", &l, &len), (long)len);
    CHECK(!l.carrier && !(l.flags & IFF_UP));
    CHECK_INT(l.operstate, IF_OPER_DOWN);
    CHECK(!pna_rtnl_link_up(&l));

    CHECK_INT(parse_fixture("dellink-0-carrier0.bin", &l, &len), (long)len);
    CHECK(l.deleted);
    CHECK_STR(l.ifname, "rv0");
    CHECK_INT(l.ifindex, 3);
    CHECK(!pna_rtnl_link_up(&l));
}

/* Two captures back to back, as one datagram: the first's length leads to
 * the second; then NLMSG_DONE, which is no link message. */
static void test_batch(void)
{
    size_t a_len, b_len;
    uint8_t *a = load("newlink-0-carrier0.bin", &a_len);
    uint8_t *b = load("newlink-1-carrier1.bin", &b_len);
    struct nlmsghdr done = { .nlmsg_len = NLMSG_LENGTH(sizeof(int)), .nlmsg_type = NLMSG_DONE };
    size_t total = a_len + b_len + NLMSG_ALIGN(done.nlmsg_len);
    uint8_t *buf = calloc(1, total);
    memcpy(buf, a, a_len);
    memcpy(buf + a_len, b, b_len);
    memcpy(buf + a_len + b_len, &done, sizeof done);
    struct pna_rtnl_link l;
    long first = pna_rtnl_link_parse(buf, total, &l);
    CHECK_INT(first, (long)a_len);
    CHECK(!l.carrier);
    long second = pna_rtnl_link_parse(buf + first, total - (size_t)first, &l);
    CHECK_INT(second, (long)b_len);
    CHECK(l.carrier);
    size_t off = (size_t)(first + second);
    long third = pna_rtnl_link_parse(buf + off, total - off, &l);
    CHECK_INT(third, (long)NLMSG_ALIGN(done.nlmsg_len));
    CHECK_INT(l.ifindex, 0);
    CHECK_STR(l.error, "");
    free(buf);
    free(a);
    free(b);
}

/* Every prefix of every capture: shorter than the message length, refused
 * with a reason; valgrind or ASan catch any read past it. */
static void test_prefixes(void)
{
    for (size_t i = 0; i < N_CAPTURES; i++) {
        size_t len;
        uint8_t *data = load(CAPTURES[i], &len);
        for (size_t n = 0; n < len; n++) {
            uint8_t *copy = malloc(n ? n : 1);
            memcpy(copy, data, n);
            struct pna_rtnl_link l;
            long rc = pna_rtnl_link_parse(copy, n, &l);
            CHECK_INT(rc, -EBADMSG);
            CHECK(l.error[0] != '\0');
            CHECK_INT(l.ifindex, 0);
            free(copy);
        }
        free(data);
    }
}

/* The offset of the first attribute of TYPE in a captured message, or 0. */
static size_t find_attr(const uint8_t *msg, size_t len, unsigned type)
{
    size_t off = NLMSG_LENGTH(sizeof(struct ifinfomsg));
    while (off + sizeof(struct rtattr) <= len) {
        struct rtattr rta;
        memcpy(&rta, msg + off, sizeof rta);
        if (rta.rta_type == type)
            return off;
        if (rta.rta_len < sizeof rta)
            return 0;
        off += RTA_ALIGN(rta.rta_len);
    }
    return 0;
}

static void expect_malformed(const uint8_t *msg, size_t len, const char *what)
{
    struct pna_rtnl_link l;
    long rc = pna_rtnl_link_parse(msg, len, &l);
    if (rc != -EBADMSG || !l.error[0] || l.ifindex != 0)
        fprintf(stderr, "  %s: accepted (rc %ld)\n", what, rc);
    CHECK_INT(rc, -EBADMSG);
    CHECK(l.error[0] != '\0');
}

static void test_malformed(void)
{
    size_t len;
    uint8_t *orig = load("newlink-0-carrier0.bin", &len);
    uint8_t *m = malloc(len);
    struct nlmsghdr nh;

    memcpy(m, orig, len);
    memcpy(&nh, m, sizeof nh);
    nh.nlmsg_len = (uint32_t)len + 4;           /* past the data */
    memcpy(m, &nh, sizeof nh);
    expect_malformed(m, len, "length past the data");

    nh.nlmsg_len = 15;                          /* shorter than its own header */
    memcpy(m, &nh, sizeof nh);
    expect_malformed(m, len, "length under a header");

    nh.nlmsg_len = NLMSG_LENGTH(sizeof(struct ifinfomsg)) - 1;  /* no room for ifinfomsg */
    memcpy(m, &nh, sizeof nh);
    expect_malformed(m, len, "no ifinfomsg");

    memcpy(m, orig, len);                       /* an attribute past the message */
    size_t carrier = find_attr(m, len, IFLA_CARRIER);
    CHECK(carrier != 0);
    struct rtattr rta;
    memcpy(&rta, m + carrier, sizeof rta);
    rta.rta_len = 0xfff0;
    memcpy(m + carrier, &rta, sizeof rta);
    expect_malformed(m, len, "attribute past the message");

    rta.rta_len = 2;                            /* shorter than its own header */
    memcpy(m + carrier, &rta, sizeof rta);
    expect_malformed(m, len, "attribute under its header");

    rta.rta_len = sizeof rta;                   /* IFLA_CARRIER without its octet */
    memcpy(m + carrier, &rta, sizeof rta);
    expect_malformed(m, len, "carrier without a value");

    memcpy(m, orig, len);                       /* interface index 0 */
    struct ifinfomsg ifi;
    memcpy(&ifi, m + NLMSG_HDRLEN, sizeof ifi);
    ifi.ifi_index = 0;
    memcpy(m + NLMSG_HDRLEN, &ifi, sizeof ifi);
    expect_malformed(m, len, "index 0");

    /* The capture's headers followed by an IFLA_IFNAME of 20 octets without
     * a NUL (built: the kernel never sends one): cut, not overrun. */
    size_t head = NLMSG_LENGTH(sizeof(struct ifinfomsg));
    uint8_t built[NLMSG_LENGTH(sizeof(struct ifinfomsg)) + RTA_LENGTH(20)];
    memcpy(built, orig, head);
    rta.rta_type = IFLA_IFNAME;
    rta.rta_len = RTA_LENGTH(20);
    memcpy(built + head, &rta, sizeof rta);
    memset(built + head + sizeof rta, 'x', 20);
    memcpy(&nh, built, sizeof nh);
    nh.nlmsg_len = sizeof built;
    memcpy(built, &nh, sizeof nh);
    struct pna_rtnl_link l;
    CHECK_INT(pna_rtnl_link_parse(built, sizeof built, &l), (long)sizeof built);
    CHECK_INT(strlen(l.ifname), sizeof l.ifname - 1);
    CHECK(!l.has_carrier);
    CHECK(!l.carrier); /* IFF_LOWER_UP is off in the captured flags */
    free(m);
    free(orig);
}

/* Another rtnetlink message type with a sound length: skipped, not refused. */
static void test_other_types(void)
{
    struct {
        struct nlmsghdr nh;
        struct rtgenmsg g;
    } msg = { .nh = { .nlmsg_len = sizeof msg, .nlmsg_type = RTM_NEWADDR } };
    struct pna_rtnl_link l;
    CHECK_INT(pna_rtnl_link_parse(&msg, sizeof msg, &l), (long)NLMSG_ALIGN(sizeof msg));
    CHECK_INT(l.ifindex, 0);
    CHECK_STR(l.error, "");
    CHECK_INT(pna_rtnl_link_parse(&msg, 0, &l), -EBADMSG);
}

int main(void)
{
    test_captures();
    test_batch();
    test_prefixes();
    test_malformed();
    test_other_types();
    UNIT_END();
}
