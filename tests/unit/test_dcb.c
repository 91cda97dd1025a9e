/* test_dcb.c -- the DCB netlink reader (sources/pfc/dcb.c) on the kernel's
 * recorded answers and the built replies of tests/fixtures/dcb/ (see its
 * README.md), every field against the values the fixture was made with;
 * every prefix of every reply (no read past the data: run it under
 * valgrind); and live on lo and on a missing interface, which must say what
 * the recorded answers say.  Skips (77) in a build without libmnl, once that
 * build's answer is checked. */
#include "pna_autoconf.h"
#include "sources/pfc/dcb.h"

#include <errno.h>
#include <stdint.h>

#include "unit.h"
#include "util/fileio.h"

#define EOPNOTSUPP_TEXT "no DCB support in the driver (EOPNOTSUPP)"
#define NODEV_TEXT "no such interface"

static const uint8_t MLX5_PRIO_TC[8] = {1, 0, 2, 3, 4, 5, 6, 7};
static const uint8_t MLX5_BW[8] = {12, 12, 12, 12, 13, 13, 13, 13};

/* tests/fixtures/dcb/NAME into a malloc'd buffer (*LEN octets). */
static uint8_t *load(const char *name, size_t *len)
{
    char path[PATH_MAX];
    char *data = NULL;
    snprintf(path, sizeof path, "%s/dcb/%s", unit_fixtures(), name);
    if (pna_read_alloc(path, 65536, &data, len) != 0) {
        fprintf(stderr, "cannot read %s\n", path);
        exit(99);
    }
    return (uint8_t *)data;
}

/* Parse fixture NAME into OUT; returns pna_dcb_parse's answer. */
static int parse_fixture(const char *name, struct pna_dcb *out)
{
    size_t len;
    uint8_t *data = load(name, &len);
    int rc = pna_dcb_parse(data, len, out);
    free(data);
    return rc;
}

/* The answer is an error saying TEXT, and nothing else is set. */
static void check_refused(const struct pna_dcb *d, int rc, int want, const char *text)
{
    CHECK_INT(rc, want);
    CHECK(!d->read);
    CHECK_STR(d->error, text);
    CHECK(!d->has_pfc && !d->has_ets);
    CHECK_INT(d->n_apps, 0);
    CHECK_INT(d->n_trust, 0);
}

static void check_ok(const struct pna_dcb *d, int rc)
{
    CHECK_INT(rc, 0);
    CHECK(d->read);
    CHECK_STR(d->error, "");
}

static void check_mlx5_ets(const struct pna_dcb *d)
{
    CHECK(d->has_ets);
    CHECK_INT(d->ets_cap, 8);
    CHECK_INT(d->ets_willing, 0);
    for (int i = 0; i < 8; i++) {
        CHECK_INT(d->prio_tc[i], MLX5_PRIO_TC[i]);
        CHECK_INT(d->tc_tx_bw[i], MLX5_BW[i]);
        CHECK_INT(d->tc_tsa[i], PNA_ETS_TSA_ETS);
    }
}

static void check_pfc(const struct pna_dcb *d, uint8_t en)
{
    CHECK(d->has_pfc);
    CHECK_INT(d->pfc_cap, 8);
    CHECK_INT(d->pfc_en, en);
    CHECK_INT(d->pfc_mbc, 0);
    CHECK_INT(d->pfc_delay, 7);
}

static void check_app(const struct pna_dcb *d, unsigned i, uint8_t sel, uint8_t prio, uint16_t proto)
{
    CHECK(i < d->n_apps);
    CHECK_INT(d->apps[i].selector, sel);
    CHECK_INT(d->apps[i].priority, prio);
    CHECK_INT(d->apps[i].protocol, proto);
}

/* The 64 DSCP entries mlx5 adds when it trusts DSCP, newest (63) first,
 * DSCP d on priority d >> 3. */
static void check_dscp_table(const struct pna_dcb *d, unsigned first)
{
    for (unsigned i = 0; i < 64; i++)
        check_app(d, first + i, PNA_DCB_SEL_DSCP, (uint8_t)((63 - i) >> 3), (uint16_t)(63 - i));
}

/* ---- the kernel's own answers (Linux 6.18, tests/fixtures/dcb/real-*) ---- */

static void test_real_captures(void)
{
    struct pna_dcb d;
    check_refused(&d, parse_fixture("real-lo-ieee-get.bin", &d), -EOPNOTSUPP, EOPNOTSUPP_TEXT);
    check_refused(&d, parse_fixture("real-veth0-ieee-get.bin", &d), -EOPNOTSUPP, EOPNOTSUPP_TEXT);
    check_refused(&d, parse_fixture("real-missing-ieee-get.bin", &d), -ENODEV, NODEV_TEXT);
    /* The GDCBX refusal alone is no answer to the IEEE request. */
    check_refused(&d, parse_fixture("real-lo-gdcbx.bin", &d), -EBADMSG,
                  "malformed DCB reply: no answer to DCB_CMD_IEEE_GET");
}

/* ---- built from the specification (tests/fixtures/dcb/mkdcb.py) ---- */

static void test_mlx5_pfc5_dscp(void)
{
    struct pna_dcb d;
    check_ok(&d, parse_fixture("built-mlx5-pfc5-dscp.bin", &d));
    CHECK_INT(d.dcbx, 0x0d); /* HOST | VER_CEE | VER_IEEE, from both answers */
    check_pfc(&d, 0x20);
    check_mlx5_ets(&d);
    CHECK_INT(d.n_apps, 64);
    CHECK(!d.apps_truncated);
    check_dscp_table(&d, 0);
    CHECK_INT(d.n_trust, 0);
}

static void test_pfc_none_pcp(void)
{
    struct pna_dcb d;
    check_ok(&d, parse_fixture("built-pfc-none-pcp.bin", &d));
    CHECK_INT(d.dcbx, 0); /* no DCB_ATTR_DCBX, GDCBX refused */
    check_pfc(&d, 0x00);
    check_mlx5_ets(&d);
    CHECK_INT(d.n_apps, 0);
    CHECK_INT(d.n_trust, 0);
}

static void test_pfc_two_prios(void)
{
    struct pna_dcb d;
    check_ok(&d, parse_fixture("built-pfc-two-prios.bin", &d));
    CHECK_INT(d.dcbx, 0x09);
    check_pfc(&d, 0x18);
    check_mlx5_ets(&d);
    CHECK_INT(d.n_apps, 3);
    check_app(&d, 0, PNA_DCB_SEL_DSCP, 4, 34);
    check_app(&d, 1, PNA_DCB_SEL_DSCP, 3, 26);
    check_app(&d, 2, PNA_DCB_SEL_ETHERTYPE, 3, 0x8915);
}

static void test_trust_pcp_dscp(void)
{
    struct pna_dcb d;
    check_ok(&d, parse_fixture("built-trust-pcp-dscp.bin", &d));
    check_pfc(&d, 0x20);
    CHECK_INT(d.n_trust, 2);
    CHECK_INT(d.trust[0], PNA_DCB_SEL_PCP);
    CHECK_INT(d.trust[1], PNA_DCB_SEL_DSCP);
    CHECK_INT(d.n_apps, 3);
    check_app(&d, 0, PNA_DCB_SEL_PCP, 5, 5);
    check_app(&d, 1, PNA_DCB_SEL_DSCP, 5, 46);
    check_app(&d, 2, PNA_DCB_SEL_DSCP, 3, 24);
}

static void test_trust_dscp(void)
{
    struct pna_dcb d;
    check_ok(&d, parse_fixture("built-trust-dscp.bin", &d));
    check_pfc(&d, 0x20);
    CHECK_INT(d.n_trust, 1);
    CHECK_INT(d.trust[0], PNA_DCB_SEL_DSCP);
    CHECK_INT(d.n_apps, 64);
    check_dscp_table(&d, 0);
}

static void test_ets_strict(void)
{
    static const uint8_t bw[8] = {40, 0, 0, 0, 0, 60, 0, 0};
    static const uint8_t prio_tc[8] = {0, 0, 0, 0, 0, 5, 7, 7};
    struct pna_dcb d;
    check_ok(&d, parse_fixture("built-ets-strict.bin", &d));
    CHECK(d.has_ets);
    CHECK_INT(d.ets_cap, 8);
    CHECK_INT(d.ets_willing, 1);
    for (int i = 0; i < 8; i++) {
        CHECK_INT(d.tc_tx_bw[i], bw[i]);
        CHECK_INT(d.prio_tc[i], prio_tc[i]);
        CHECK_INT(d.tc_tsa[i], i == 7 ? PNA_ETS_TSA_STRICT : PNA_ETS_TSA_ETS);
    }
    check_pfc(&d, 0x20);
    CHECK_INT(d.n_apps, 0);
}

static void test_many_apps(void)
{
    struct pna_dcb d;
    check_ok(&d, parse_fixture("built-many-apps.bin", &d));
    CHECK_INT(d.n_apps, PNA_DCB_MAX_APPS);
    CHECK(d.apps_truncated);
    check_dscp_table(&d, 0);
    for (unsigned i = 64; i < PNA_DCB_MAX_APPS; i++)
        check_app(&d, i, PNA_DCB_SEL_ETHERTYPE, (uint8_t)((i - 64) % 8), (uint16_t)(0x8800 + i - 64));
}

static void test_built_malformed(void)
{
    struct pna_dcb d;
    int rc = parse_fixture("built-truncated.bin", &d);
    CHECK_INT(rc, -EBADMSG);
    CHECK(!d.read);
    CHECK(strncmp(d.error, "malformed DCB reply: message truncated", 38) == 0);
    check_refused(&d, parse_fixture("built-short-pfc.bin", &d), -EBADMSG,
                  "malformed DCB reply: DCB_ATTR_IEEE_PFC is 4 octets, expected 136");
    rc = parse_fixture("built-short-app.bin", &d);
    CHECK_INT(rc, -EBADMSG);
    CHECK_STR(d.error, "malformed DCB reply: APP table entry is 2 octets, expected 4");
}

/* Every prefix of every fixture, each in a buffer of exactly its size (an
 * over-read is valgrind's or ASan's error): never a crash, always an answer
 * with its error line or a reply that was whole. */
static void test_prefixes(void)
{
    static const char *const names[] = {
        "built-mlx5-pfc5-dscp.bin", "built-pfc-none-pcp.bin", "built-pfc-two-prios.bin",
        "built-trust-pcp-dscp.bin", "built-trust-dscp.bin",  "built-ets-strict.bin",
        "built-many-apps.bin",      "real-lo-ieee-get.bin",   "real-missing-ieee-get.bin"};
    for (size_t f = 0; f < sizeof names / sizeof names[0]; f++) {
        size_t len;
        uint8_t *data = load(names[f], &len);
        size_t whole = 0;
        for (size_t n = 0; n < len; n++) {
            uint8_t *cut = malloc(n ? n : 1);
            memcpy(cut, data, n);
            struct pna_dcb d;
            int rc = pna_dcb_parse(cut, n, &d);
            CHECK(rc == 0 ? d.read && !d.error[0] : !d.read && d.error[0]);
            whole += rc == 0;
            free(cut);
        }
        /* Only the first two end in a second message (the GDCBX answer or
         * refusal): cut before it, the IEEE answer is whole. */
        CHECK_INT(whole, f <= 1 ? 1 : 0);
        free(data);
    }
}

/* A buffer that starts at an odd address parses as the aligned one. */
static void test_unaligned(void)
{
    size_t len;
    uint8_t *data = load("built-trust-pcp-dscp.bin", &len);
    uint8_t *odd = malloc(len + 1);
    memcpy(odd + 1, data, len);
    struct pna_dcb a, b;
    check_ok(&a, pna_dcb_parse(data, len, &a));
    check_ok(&b, pna_dcb_parse(odd + 1, len, &b));
    CHECK(memcmp(&a, &b, sizeof a) == 0);
    free(odd);
    free(data);
}

static void put_u32(uint8_t *p, uint32_t v)
{
    memcpy(p, &v, sizeof v);
}

/* Hand-made edge cases on the first message of the two-priority reply. */
static void test_edges(void)
{
    struct pna_dcb d;
    check_refused(&d, pna_dcb_parse("", 0, &d), -EBADMSG, "malformed DCB reply: empty");

    size_t len;
    uint8_t *data = load("built-pfc-two-prios.bin", &len);
    /* A length of 2 GiB and more passes libmnl's int comparison. */
    put_u32(data, 0x80000010u);
    CHECK_INT(pna_dcb_parse(data, len, &d), -EBADMSG);
    CHECK(strncmp(d.error, "malformed DCB reply: message truncated", 38) == 0);
    put_u32(data, 0xfffffffdu); /* NLMSG_ALIGN of it wraps to 0 in 32 bits */
    CHECK_INT(pna_dcb_parse(data, len, &d), -EBADMSG);
    free(data);

    /* An acknowledgement (error 0) after the answer changes nothing; a
     * positive error code is not one the kernel sends. */
    data = load("built-pfc-two-prios.bin", &len);
    uint8_t *more = malloc(len + 36);
    memcpy(more, data, len);
    uint8_t ack[36] = {0};
    put_u32(ack, sizeof ack);
    ack[4] = 2; /* NLMSG_ERROR */
    put_u32(ack + 20, sizeof ack - 20); /* the request's header: an empty one */
    memcpy(more + len, ack, sizeof ack);
    check_ok(&d, pna_dcb_parse(more, len + sizeof ack, &d));
    CHECK_INT(d.pfc_en, 0x18);
    put_u32(more + len + 16, 5);
    CHECK_INT(pna_dcb_parse(more, len + sizeof ack, &d), -EBADMSG);
    CHECK_STR(d.error, "malformed DCB reply: NLMSG_ERROR code 5");
    /* A refusal whose request copy was capped cannot be told from one of
     * DCB_CMD_IEEE_GET: it is the answer. */
    put_u32(more + len + 16, (uint32_t)-EPERM);
    CHECK_INT(pna_dcb_parse(more, len + sizeof ack, &d), -EPERM);
    CHECK_STR(d.error, "netlink: Operation not permitted");
    free(more);
    free(data);

    /* The GDCBX answer is read after the IEEE one: its mode stands (the
     * kernel gives the same in both; here the last octet of the mlx5 file,
     * the GDCBX answer's DCB_ATTR_DCBX, says 0x05). */
    data = load("built-mlx5-pfc5-dscp.bin", &len);
    CHECK_INT(data[len - 4], 0x0d);
    data[len - 4] = 0x05;
    check_ok(&d, pna_dcb_parse(data, len, &d));
    CHECK_INT(d.dcbx, 0x05);
    free(data);

    /* A trust table entry without its selector octet. */
    data = load("built-trust-dscp.bin", &len);
    CHECK_INT(data[len - 12], 5); /* the trust nest's one entry, before DCB_ATTR_DCBX */
    put_u32(data + len - 16, 0x00010004u); /* its header: nla_len 4 (no payload), type 1 */
    check_refused(&d, pna_dcb_parse(data, len, &d), -EBADMSG,
                  "malformed DCB reply: trust table entry is 0 octets, expected 1");
    free(data);
}

/* ---- live, in this process's network namespace ---- */

static void test_live(void)
{
    struct pna_dcb rec, live;
    parse_fixture("real-lo-ieee-get.bin", &rec);
    int rc = pna_dcb_read("lo", &live);
    CHECK_INT(rc, -EOPNOTSUPP);
    CHECK(!live.read);
    CHECK_STR(live.error, rec.error);

    parse_fixture("real-missing-ieee-get.bin", &rec);
    check_refused(&live, pna_dcb_read("pna-nosuch0", &live), -ENODEV, rec.error);
    check_refused(&live, pna_dcb_read("", &live), -ENODEV, NODEV_TEXT);
    check_refused(&live, pna_dcb_read("a-name-longer-than-ifnamsiz", &live), -ENODEV, NODEV_TEXT);
}

#ifndef HAVE_LIBMNL
/* A build without libmnl refuses both calls, saying so. */
static int without_libmnl(void)
{
    struct pna_dcb d;
    check_refused(&d, pna_dcb_read("lo", &d), -ENOSYS, "built without libmnl");
    check_refused(&d, pna_dcb_parse("x", 1, &d), -ENOSYS, "built without libmnl");
    if (unit_failures)
        UNIT_END();
    printf("SKIP: built without libmnl\n");
    return 77;
}
#endif

int main(void)
{
#ifndef HAVE_LIBMNL
    return without_libmnl();
#endif
    test_real_captures();
    test_mlx5_pfc5_dscp();
    test_pfc_none_pcp();
    test_pfc_two_prios();
    test_trust_pcp_dscp();
    test_trust_dscp();
    test_ets_strict();
    test_many_apps();
    test_built_malformed();
    test_prefixes();
    test_unaligned();
    test_edges();
    test_live();
    UNIT_END();
}
