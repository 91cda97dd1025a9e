/* test_ethtool_nl.c -- the ethtool netlink reader (sources/phy/ethtool_nl.c)
 * on the replies of tests/fixtures/ethtool-nl/ (see its README.md): the
 * kernel's own answers recorded on veth and lo (real-*.bin) and the replies
 * BUILT from the kernel's attribute definitions for what this machine
 * cannot produce (built-*.bin: FEC with RS and statistics, the 802.3
 * statistics groups with values, the extended link state, the link down
 * counter, a module EEPROM page, and the malformed variants).  Every parsed
 * field is checked against the values the fixture was made with; every
 * prefix of every reply is parsed from a buffer of exactly that size (no
 * read past the data: run it under valgrind or ASan); and, with libmnl, the
 * reader is run live on lo and on a missing interface, which must say what
 * the recordings say.  The veth pair in a namespace of its own is
 * tests/integration/ethtool_nl_live.sh.
 *
 * In a build without libmnl the parsers are checked all the same; only the
 * socket is refused ("built without libmnl"). */
#include "pna_autoconf.h"
#include "sources/phy/ethtool_nl.h"

#include <errno.h>
#include <linux/netlink.h>
#include <stdint.h>
#include <unistd.h>

#include "unit.h"
#include "util/fileio.h"

#define EOPNOTSUPP_FEC "FEC: not supported by the driver (EOPNOTSUPP)"
#define NODEV_LINKSTATE "link state: no such interface (ENODEV): no device matches name"

/* tests/fixtures/ethtool-nl/NAME into a malloc'd buffer of exactly *LEN
 * octets (so that a read past the end is a heap overflow the sanitizers and
 * valgrind see). */
static uint8_t *load(const char *name, size_t *len)
{
    char path[PATH_MAX];
    char *data = NULL;
    snprintf(path, sizeof path, "%s/ethtool-nl/%s", unit_fixtures(), name);
    if (pna_read_alloc(path, 65536, &data, len) != 0) {
        fprintf(stderr, "cannot read %s\n", path);
        exit(99);
    }
    uint8_t *exact = malloc(*len ? *len : 1);
    if (!exact)
        exit(99);
    memcpy(exact, data, *len);
    free(data);
    return exact;
}

typedef int parse_fn(const void *buf, size_t len, struct pna_phy_if *out);

static int parse_file(parse_fn *fn, const char *name, struct pna_phy_if *out)
{
    size_t len;
    uint8_t *data = load(name, &len);
    int rc = fn(data, len, out);
    free(data);
    return rc;
}

static int parse_eeprom_file(const char *name, uint8_t *data, uint32_t length, char *err,
                             size_t errlen)
{
    size_t len;
    uint8_t *buf = load(name, &len);
    int rc = pna_ethnl_parse_eeprom(buf, len, data, length, err, errlen);
    free(buf);
    return rc;
}

static struct pna_phy_if fresh(const char *ifname)
{
    struct pna_phy_if p;
    memset(&p, 0, sizeof p);
    snprintf(p.ifname, sizeof p.ifname, "%s", ifname);
    return p;
}

#define CHECK_ABSENT(p_, k_) CHECK(!(p_)->c[k_].present)
#define CHECK_COUNTER(p_, k_, v_)                                                \
    do {                                                                         \
        CHECK((p_)->c[k_].present);                                              \
        CHECK_U64((p_)->c[k_].value, (v_));                                      \
    } while (0)

/* Only the counters in LIST[0..N) are present. */
static void check_only(const struct pna_phy_if *p, const enum pna_phy_counter *list, size_t n)
{
    for (int c = 0; c < PNA_PHY_COUNT; c++) {
        bool want = false;
        for (size_t i = 0; i < n; i++)
            want |= list[i] == (enum pna_phy_counter)c;
        if (p->c[c].present != want)
            fprintf(stderr, "counter %d: present %d, expected %d\n", c, p->c[c].present, want);
        CHECK(p->c[c].present == want);
    }
}

static void check_link_absent(const struct pna_phy_if *p)
{
    CHECK(!p->link.read && !p->link.has_link && !p->link.link && !p->link.has_ext_state);
    CHECK(!p->link.has_sqi);
    CHECK_INT(p->link.ext_state, 0);
    CHECK_INT(p->link.ext_substate, 0);
    CHECK_ABSENT(p, PNA_PHY_LINK_DOWN_EVENTS);
}

static void check_fec_absent(const struct pna_phy_if *p)
{
    CHECK(!p->fec.read && !p->fec.auto_);
    CHECK_INT(p->fec.active, PNA_FEC_UNKNOWN);
    CHECK_STR(p->fec.configured, "");
    CHECK_ABSENT(p, PNA_PHY_FEC_CORRECTED_BLOCKS);
    CHECK_ABSENT(p, PNA_PHY_FEC_UNCORRECTABLE_BLOCKS);
    CHECK_ABSENT(p, PNA_PHY_FEC_CORRECTED_BITS);
}

/* ---- real replies (Linux 6.18, veth and lo) ---- */

static void test_real_linkstate(void)
{
    struct pna_phy_if p = fresh("veth0");
    CHECK_INT(parse_file(pna_ethnl_parse_linkstate, "real-linkstate-veth0-up.bin", &p), 0);
    CHECK_STR(p.error, "");
    CHECK(p.link.read && p.link.has_link && p.link.link);
    CHECK(!p.link.has_ext_state && !p.link.has_sqi);
    CHECK_INT(p.ifindex, 3);
    check_only(&p, NULL, 0);  /* veth has no get_link_ext_stats: no down counter */
    CHECK_STR(p.ifname, "veth0");

    p = fresh("veth0");
    CHECK_INT(parse_file(pna_ethnl_parse_linkstate, "real-linkstate-veth0-unpriv.bin", &p), 0);
    CHECK(p.link.read && p.link.has_link && p.link.link);

    static const char *down[] = {"real-linkstate-veth0-down.bin",
                                 "real-linkstate-veth0-nocarrier.bin"};
    for (size_t i = 0; i < 2; i++) {
        p = fresh("veth0");
        CHECK_INT(parse_file(pna_ethnl_parse_linkstate, down[i], &p), 0);
        CHECK(p.link.read && p.link.has_link && !p.link.link);
        CHECK(!p.link.has_ext_state);
        CHECK_INT(p.ifindex, 3);
    }

    p = fresh("lo");
    CHECK_INT(parse_file(pna_ethnl_parse_linkstate, "real-linkstate-lo.bin", &p), 0);
    CHECK(p.link.read && p.link.has_link && p.link.link);
    CHECK_INT(p.ifindex, 1);

    p = fresh("nosuch0");
    CHECK_INT(parse_file(pna_ethnl_parse_linkstate, "real-linkstate-missing.bin", &p), -ENODEV);
    CHECK_STR(p.error, NODEV_LINKSTATE);
    check_link_absent(&p);
    CHECK_INT(p.ifindex, 0);
}

static void test_real_refusals(void)
{
    struct pna_phy_if p = fresh("veth0");
    CHECK_INT(parse_file(pna_ethnl_parse_fec, "real-fec-veth0.bin", &p), -EOPNOTSUPP);
    CHECK_STR(p.error, EOPNOTSUPP_FEC);
    check_fec_absent(&p);
    /* the same refusal with the whole request copied after it */
    CHECK_INT(parse_file(pna_ethnl_parse_fec, "real-fec-veth0-nocap.bin", &p), -EOPNOTSUPP);
    CHECK_STR(p.error, EOPNOTSUPP_FEC);

    CHECK_INT(parse_file(pna_ethnl_parse_pause, "real-pause-veth0.bin", &p), -EOPNOTSUPP);
    CHECK_STR(p.error, "pause: not supported by the driver (EOPNOTSUPP)");
    CHECK_ABSENT(&p, PNA_PHY_PAUSE_TX_FRAMES);

    CHECK_INT(parse_file(pna_ethnl_parse_stats, "real-stats-statsflag.bin", &p), -EINVAL);
    CHECK_STR(p.error, "statistics: request refused (EINVAL): reserved bit set");
    CHECK(!p.stats_read);

    char err[160];
    uint8_t data[128];
    memset(data, 0xa5, sizeof data);
    CHECK_INT(parse_eeprom_file("real-eeprom-veth0.bin", data, 128, err, sizeof err),
              -EOPNOTSUPP);
    CHECK_STR(err, "module EEPROM: not supported by the driver (EOPNOTSUPP)");
    CHECK_INT(parse_eeprom_file("real-eeprom-missing.bin", data, 128, err, sizeof err), -ENODEV);
    CHECK_STR(err, "module EEPROM: no such interface (ENODEV): no device matches name");
    CHECK_INT(parse_eeprom_file("real-eeprom-veth0-unpriv.bin", data, 128, err, sizeof err),
              -EPERM);
    CHECK_STR(err, "module EEPROM: not permitted without CAP_NET_ADMIN (EPERM)");
    CHECK_INT(data[0], 0xa5);  /* refused: the buffer is untouched */
    CHECK_INT(data[127], 0xa5);

    /* a refusal parsed as the wrong request names the request it was given */
    CHECK_INT(parse_file(pna_ethnl_parse_linkstate, "real-fec-veth0.bin", &p), -EOPNOTSUPP);
    CHECK_STR(p.error, "link state: not supported by the driver (EOPNOTSUPP)");
}

static void test_real_stats(void)
{
    /* veth: the four groups answer, each with its ID and no counter */
    struct pna_phy_if p = fresh("veth0");
    p.ifindex = 3;
    CHECK_INT(parse_file(pna_ethnl_parse_stats, "real-stats-veth0.bin", &p), 0);
    CHECK_STR(p.error, "");
    CHECK(p.stats_read);
    check_only(&p, NULL, 0);
    CHECK_INT(p.ifindex, 3);
}

/* ---- built replies ---- */

static void test_built_linkstate(void)
{
    struct pna_phy_if p = fresh("enp65s0f0np0");
    CHECK_INT(parse_file(pna_ethnl_parse_linkstate, "built-linkstate-mlx5-up.bin", &p), 0);
    CHECK(p.link.read && p.link.has_link && p.link.link && !p.link.has_ext_state);
    CHECK_INT(p.ifindex, 4);
    static const enum pna_phy_counter down_cnt[] = {PNA_PHY_LINK_DOWN_EVENTS};
    check_only(&p, down_cnt, 1);
    CHECK_COUNTER(&p, PNA_PHY_LINK_DOWN_EVENTS, 0);  /* the CX4 Lx link_down_events_phy */

    p = fresh("enp65s0f0np0");
    CHECK_INT(parse_file(pna_ethnl_parse_linkstate, "built-linkstate-mlx5-autoneg.bin", &p), 0);
    CHECK(p.link.has_link && !p.link.link && p.link.has_ext_state);
    CHECK_INT(p.link.ext_state, 0 + 1);     /* ETHTOOL_LINK_EXT_STATE_AUTONEG + 1 */
    CHECK_INT(p.link.ext_substate, 1);      /* ..._AN_NO_PARTNER_DETECTED, as the kernel numbers it */
    CHECK_COUNTER(&p, PNA_PHY_LINK_DOWN_EVENTS, 3);

    p = fresh("enp65s0f0np0");
    CHECK_INT(parse_file(pna_ethnl_parse_linkstate, "built-linkstate-nocable.bin", &p), 0);
    CHECK(p.link.has_link && !p.link.link && p.link.has_ext_state);
    CHECK_INT(p.link.ext_state, 4 + 1);     /* ETHTOOL_LINK_EXT_STATE_NO_CABLE + 1 */
    CHECK_INT(p.link.ext_substate, 0);      /* none */
    CHECK_COUNTER(&p, PNA_PHY_LINK_DOWN_EVENTS, 17);

    p = fresh("t1phy0");
    CHECK_INT(parse_file(pna_ethnl_parse_linkstate, "built-linkstate-sqi.bin", &p), 0);
    CHECK(p.link.has_link && p.link.link && p.link.has_sqi);
    CHECK_INT(p.link.sqi, 6);
    CHECK_INT(p.link.sqi_max, 7);
    CHECK_INT(p.ifindex, 3);
    check_only(&p, NULL, 0);

    /* a reply followed by an acknowledgement */
    p = fresh("enp65s0f0np0");
    CHECK_INT(parse_file(pna_ethnl_parse_linkstate, "built-linkstate-ack.bin", &p), 0);
    CHECK(p.link.read && p.link.link);

    /* what a 6.1 kernel answers a LINKSTATE_GET carrying ETHTOOL_FLAG_STATS */
    p = fresh("enp65s0f0np0");
    CHECK_INT(parse_file(pna_ethnl_parse_linkstate, "built-linkstate-einval-flags.bin", &p), -EINVAL);
    CHECK_STR(p.error, "link state: request refused (EINVAL): reserved bit set");
    check_link_absent(&p);
}

static void test_built_fec(void)
{
    static const enum pna_phy_counter fec3[] = {
        PNA_PHY_FEC_CORRECTED_BLOCKS, PNA_PHY_FEC_UNCORRECTABLE_BLOCKS, PNA_PHY_FEC_CORRECTED_BITS};
    struct pna_phy_if p = fresh("enp65s0f0np0");
    CHECK_INT(parse_file(pna_ethnl_parse_fec, "built-fec-mlx5-rs.bin", &p), 0);
    CHECK_STR(p.error, "");
    CHECK(p.fec.read && !p.fec.auto_);
    CHECK_INT(p.fec.active, PNA_FEC_RS);
    CHECK_STR(p.fec.configured, "rs");
    check_only(&p, fec3, 3);
    CHECK_COUNTER(&p, PNA_PHY_FEC_CORRECTED_BLOCKS, 1234567);
    CHECK_COUNTER(&p, PNA_PHY_FEC_UNCORRECTABLE_BLOCKS, 3);
    CHECK_COUNTER(&p, PNA_PHY_FEC_CORRECTED_BITS, 98765432);

    /* per-lane arrays: the first element is the total */
    p = fresh("enp65s0f0np0");
    CHECK_INT(parse_file(pna_ethnl_parse_fec, "built-fec-baser-lanes.bin", &p), 0);
    CHECK(p.fec.read && p.fec.auto_);
    CHECK_INT(p.fec.active, PNA_FEC_BASER);
    CHECK_STR(p.fec.configured, "rs baser");
    CHECK_COUNTER(&p, PNA_PHY_FEC_CORRECTED_BLOCKS, 100);
    CHECK_COUNTER(&p, PNA_PHY_FEC_UNCORRECTABLE_BLOCKS, 4);
    CHECK_COUNTER(&p, PNA_PHY_FEC_CORRECTED_BITS, 555);

    /* ionic: FEC without statistics: the arrays are empty, the counters absent */
    p = fresh("enp68s0");
    CHECK_INT(parse_file(pna_ethnl_parse_fec, "built-fec-ionic.bin", &p), 0);
    CHECK(p.fec.read && !p.fec.auto_);
    CHECK_INT(p.fec.active, PNA_FEC_RS);
    CHECK_STR(p.fec.configured, "off rs baser");
    check_only(&p, NULL, 0);

    /* the verbose bitset, no statistics nest */
    p = fresh("enp65s0f0np0");
    CHECK_INT(parse_file(pna_ethnl_parse_fec, "built-fec-off-verbose.bin", &p), 0);
    CHECK(p.fec.read);
    CHECK_INT(p.fec.active, PNA_FEC_OFF);
    CHECK_STR(p.fec.configured, "off");
    check_only(&p, NULL, 0);

    /* a 128-bit set with a bit this agent does not know; PAD attributes */
    p = fresh("enp65s0f0np0");
    CHECK_INT(parse_file(pna_ethnl_parse_fec, "built-fec-llrs-wide.bin", &p), 0);
    CHECK(p.fec.auto_);
    CHECK_INT(p.fec.active, PNA_FEC_LLRS);
    CHECK_STR(p.fec.configured, "rs llrs mode127");
    static const enum pna_phy_counter fec2[] = {PNA_PHY_FEC_CORRECTED_BLOCKS,
                                                PNA_PHY_FEC_UNCORRECTABLE_BLOCKS};
    check_only(&p, fec2, 2);
    CHECK_COUNTER(&p, PNA_PHY_FEC_CORRECTED_BLOCKS, 77);
    CHECK_COUNTER(&p, PNA_PHY_FEC_UNCORRECTABLE_BLOCKS, 0);  /* present, zero */
}

static void test_built_stats(void)
{
    /* mlx5 with the ConnectX-4 Lx capture's values: mlx5 reports 12 of the
     * MAC counters (no alignment or internal MAC errors) and RMON without
     * oversize; the RX histogram is skipped. */
    struct pna_phy_if p = fresh("enp65s0f0np0");
    CHECK_INT(parse_file(pna_ethnl_parse_stats, "built-stats-mlx5-cx4lx.bin", &p), 0);
    CHECK(p.stats_read);
    static const enum pna_phy_counter mlx5[] = {
        PNA_PHY_SYMBOL_ERRORS, PNA_PHY_FRAMES_TX_OK, PNA_PHY_FRAMES_RX_OK, PNA_PHY_FCS_ERRORS,
        PNA_PHY_OCTETS_TX_OK, PNA_PHY_OCTETS_RX_OK, PNA_PHY_FRAME_TOO_LONG_ERRORS,
        PNA_PHY_IN_RANGE_LENGTH_ERRORS, PNA_PHY_CTRL_FRAMES_TX, PNA_PHY_CTRL_FRAMES_RX,
        PNA_PHY_CTRL_UNSUPPORTED_OPCODES, PNA_PHY_RMON_UNDERSIZE, PNA_PHY_RMON_FRAGMENTS,
        PNA_PHY_RMON_JABBERS};
    check_only(&p, mlx5, sizeof mlx5 / sizeof mlx5[0]);
    CHECK_COUNTER(&p, PNA_PHY_FRAMES_TX_OK, 896117891);
    CHECK_COUNTER(&p, PNA_PHY_FRAMES_RX_OK, 845715962);
    CHECK_COUNTER(&p, PNA_PHY_OCTETS_TX_OK, UINT64_C(2662454044895));
    CHECK_COUNTER(&p, PNA_PHY_OCTETS_RX_OK, UINT64_C(2202570777997));
    CHECK_COUNTER(&p, PNA_PHY_SYMBOL_ERRORS, 0);
    CHECK_COUNTER(&p, PNA_PHY_FCS_ERRORS, 0);
    CHECK_COUNTER(&p, PNA_PHY_RMON_JABBERS, 0);

    /* every attribute with a value of its own: 1000 * (group + 1) + attr + 1 */
    p = fresh("enp65s0f0np0");
    CHECK_INT(parse_file(pna_ethnl_parse_stats, "built-stats-distinct.bin", &p), 0);
    CHECK(p.stats_read);
    CHECK_COUNTER(&p, PNA_PHY_SYMBOL_ERRORS, 1001);
    CHECK_COUNTER(&p, PNA_PHY_FRAMES_TX_OK, 2001);            /* 0: 2_TX_PKT */
    CHECK_COUNTER(&p, PNA_PHY_FRAMES_RX_OK, 2004);            /* 3: 5_RX_PKT */
    CHECK_COUNTER(&p, PNA_PHY_FCS_ERRORS, 2005);              /* 4: 6_FCS_ERR */
    CHECK_COUNTER(&p, PNA_PHY_ALIGNMENT_ERRORS, 2006);        /* 5: 7_ALIGN_ERR */
    CHECK_COUNTER(&p, PNA_PHY_OCTETS_TX_OK, 2007);            /* 6: 8_TX_BYTES */
    CHECK_COUNTER(&p, PNA_PHY_MAC_INTERNAL_TX_ERRORS, 2011);  /* 10: 12_TX_INT_ERR */
    CHECK_COUNTER(&p, PNA_PHY_OCTETS_RX_OK, 2013);            /* 12: 14_RX_BYTES */
    CHECK_COUNTER(&p, PNA_PHY_MAC_INTERNAL_RX_ERRORS, 2014);  /* 13: 15_RX_INT_ERR */
    CHECK_COUNTER(&p, PNA_PHY_IN_RANGE_LENGTH_ERRORS, 2020);  /* 19: 23_IR_LEN_ERR */
    CHECK_COUNTER(&p, PNA_PHY_FRAME_TOO_LONG_ERRORS, 2022);   /* 21: 25_TOO_LONG_ERR */
    CHECK_COUNTER(&p, PNA_PHY_CTRL_FRAMES_TX, 3001);
    CHECK_COUNTER(&p, PNA_PHY_CTRL_FRAMES_RX, 3002);
    CHECK_COUNTER(&p, PNA_PHY_CTRL_UNSUPPORTED_OPCODES, 3003);
    CHECK_COUNTER(&p, PNA_PHY_RMON_UNDERSIZE, 4001);
    CHECK_COUNTER(&p, PNA_PHY_RMON_OVERSIZE, 4002);
    CHECK_COUNTER(&p, PNA_PHY_RMON_FRAGMENTS, 4003);
    CHECK_COUNTER(&p, PNA_PHY_RMON_JABBERS, 4004);
    /* no other part touched by STATS_GET */
    CHECK_ABSENT(&p, PNA_PHY_PAUSE_TX_FRAMES);
    CHECK_ABSENT(&p, PNA_PHY_FEC_CORRECTED_BLOCKS);
    CHECK_ABSENT(&p, PNA_PHY_LINK_DOWN_EVENTS);

    /* a reply with no group at all still answers */
    p = fresh("enp65s0f0np0");
    CHECK_INT(parse_file(pna_ethnl_parse_stats, "built-stats-header-only.bin", &p), 0);
    CHECK(p.stats_read);
    check_only(&p, NULL, 0);
}

static void test_built_pause(void)
{
    static const enum pna_phy_counter pause[] = {PNA_PHY_PAUSE_TX_FRAMES, PNA_PHY_PAUSE_RX_FRAMES};
    struct pna_phy_if p = fresh("enp65s0f0np0");
    CHECK_INT(parse_file(pna_ethnl_parse_pause, "built-pause-mlx5-cx4lx.bin", &p), 0);
    check_only(&p, pause, 2);
    CHECK_COUNTER(&p, PNA_PHY_PAUSE_TX_FRAMES, 0);  /* present and zero, not absent */
    CHECK_COUNTER(&p, PNA_PHY_PAUSE_RX_FRAMES, 0);

    p = fresh("enp65s0f0np0");
    CHECK_INT(parse_file(pna_ethnl_parse_pause, "built-pause-counts.bin", &p), 0);
    CHECK_COUNTER(&p, PNA_PHY_PAUSE_TX_FRAMES, 18234);
    CHECK_COUNTER(&p, PNA_PHY_PAUSE_RX_FRAMES, 907);

    /* ionic: pause without statistics */
    p = fresh("enp68s0");
    CHECK_INT(parse_file(pna_ethnl_parse_pause, "built-pause-ionic.bin", &p), 0);
    CHECK_STR(p.error, "");
    check_only(&p, NULL, 0);
}

static void test_built_eeprom(void)
{
    char err[160];
    uint8_t data[128];
    memset(data, 0, sizeof data);
    CHECK_INT(parse_eeprom_file("built-eeprom-cmis-upper0.bin", data, 128, err, sizeof err), 0);
    CHECK_STR(err, "");
    CHECK_INT(data[0], 0x18);
    CHECK(memcmp(data + 1, "Arista Networks ", 16) == 0);
    CHECK(memcmp(data + 17, "\x00\x1c\x73", 3) == 0);
    CHECK(memcmp(data + 20, "QDD-400G-XDR4   ", 16) == 0);
    CHECK(memcmp(data + 38, "XKT242211481    ", 16) == 0);
    CHECK(memcmp(data + 54, "240531  ", 8) == 0);
    CHECK_INT(data[127], 0);

    /* a reply of another length than asked */
    memset(data, 0xa5, sizeof data);
    CHECK_INT(parse_eeprom_file("built-eeprom-cmis-upper0.bin", data, 64, err, sizeof err),
              -EBADMSG);
    CHECK_STR(err, "module EEPROM: malformed reply: 128 octets of data for 64 asked");
    CHECK_INT(data[0], 0xa5);
    CHECK_INT(parse_eeprom_file("built-eeprom-short.bin", data, 128, err, sizeof err), -EBADMSG);
    CHECK_STR(err, "module EEPROM: malformed reply: 64 octets of data for 128 asked");
    CHECK_INT(parse_eeprom_file("built-eeprom-nodata.bin", data, 128, err, sizeof err), -EBADMSG);
    CHECK_STR(err, "module EEPROM: malformed reply: no ETHTOOL_A_MODULE_EEPROM_DATA");
    CHECK_INT(data[0], 0xa5);
    CHECK_INT(parse_eeprom_file("built-eeprom-eio.bin", data, 128, err, sizeof err), -EIO);
    CHECK_STR(err, "module EEPROM: module not readable (EIO): Query module eeprom by page failed, "
                   "read 0 bytes, err -5");
    CHECK_INT(parse_eeprom_file("built-eeprom-nomodule.bin", data, 128, err, sizeof err), -ENODEV);
    CHECK_STR(err, "module EEPROM: no module (ENODEV)");
    CHECK_INT(parse_eeprom_file("built-eeprom-cmis-upper0.bin", data, 0, err, sizeof err), -EINVAL);
    CHECK_STR(err, "module EEPROM: length 0, not 1 to 128");
    CHECK_INT(parse_eeprom_file("built-eeprom-cmis-upper0.bin", data, 129, err, sizeof err),
              -EINVAL);
    CHECK_STR(err, "module EEPROM: length 129, not 1 to 128");
    /* an EEPROM reply given to a phy parser, and the other way round */
    struct pna_phy_if p = fresh("enp65s0f0np0");
    CHECK_INT(parse_file(pna_ethnl_parse_linkstate, "built-eeprom-cmis-upper0.bin", &p), -EBADMSG);
    CHECK_STR(p.error, "link state: malformed reply: answer to another request (command 32)");
    CHECK_INT(parse_eeprom_file("built-fec-mlx5-rs.bin", data, 128, err, sizeof err), -EBADMSG);
    CHECK_STR(err, "module EEPROM: malformed reply: answer to another request (command 30)");
}

struct bad {
    const char *file;
    parse_fn *fn;
    const char *error;
};

static void test_malformed(void)
{
    static const struct bad cases[] = {
        {"built-bad-truncated.bin", pna_ethnl_parse_stats,
         "statistics: malformed reply: message truncated (40 octets left)"},
        {"built-bad-attr-overrun.bin", pna_ethnl_parse_linkstate,
         "link state: malformed reply: attribute of 12 octets in the message runs past its end "
         "(8 left)"},
        {"built-bad-attr-tiny.bin", pna_ethnl_parse_linkstate,
         "link state: malformed reply: attribute of 2 octets in the message"},
        {"built-bad-nest-overrun.bin", pna_ethnl_parse_stats,
         "statistics: malformed reply: attribute of 200 octets in the message runs past its end "
         "(36 left)"},
        {"built-bad-short-u64.bin", pna_ethnl_parse_pause,
         "pause: malformed reply: ETHTOOL_A_PAUSE_STAT_TX_FRAMES is 3 octets"},
        {"built-bad-fec-array.bin", pna_ethnl_parse_fec,
         "FEC: malformed reply: ETHTOOL_A_FEC_STAT_CORRECTED is 12 octets, not whole u64s"},
        {"built-bad-bitset-short.bin", pna_ethnl_parse_fec,
         "FEC: malformed reply: FEC modes of 93 bits in 8 octets"},
        {"built-bad-group-noid.bin", pna_ethnl_parse_stats,
         "statistics: malformed reply: statistics group without ETHTOOL_A_STATS_GRP_ID"},
        {"built-bad-header-name.bin", pna_ethnl_parse_linkstate,
         "link state: malformed reply: device name not terminated"},
        {"built-bad-error-short.bin", pna_ethnl_parse_linkstate,
         "link state: malformed reply: NLMSG_ERROR of 24 octets"},
        {"built-bad-two-replies.bin", pna_ethnl_parse_linkstate,
         "link state: malformed reply: two answers"},
        {"built-fec-mlx5-rs.bin", pna_ethnl_parse_linkstate,
         "link state: malformed reply: answer to another request (command 30)"},
        {"built-linkstate-mlx5-up.bin", pna_ethnl_parse_stats,
         "statistics: malformed reply: answer to another request (command 6)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct pna_phy_if p = fresh("enp65s0f0np0");
        int rc = parse_file(cases[i].fn, cases[i].file, &p);
        if (rc != -EBADMSG || strcmp(p.error, cases[i].error) != 0)
            fprintf(stderr, "%s\n", cases[i].file);
        CHECK_INT(rc, -EBADMSG);
        CHECK_STR(p.error, cases[i].error);
        /* nothing of a malformed answer is kept */
        check_link_absent(&p);
        check_fec_absent(&p);
        check_only(&p, NULL, 0);
        CHECK(!p.stats_read);
    }
}

/* Each request fills its own part and leaves the others as they were. */
static void test_parts(void)
{
    struct pna_phy_if p = fresh("enp65s0f0np0");
    CHECK_INT(parse_file(pna_ethnl_parse_linkstate, "built-linkstate-mlx5-autoneg.bin", &p), 0);
    CHECK_INT(parse_file(pna_ethnl_parse_fec, "built-fec-mlx5-rs.bin", &p), 0);
    CHECK_INT(parse_file(pna_ethnl_parse_stats, "built-stats-distinct.bin", &p), 0);
    CHECK_INT(parse_file(pna_ethnl_parse_pause, "built-pause-counts.bin", &p), 0);
    CHECK(p.link.read && !p.link.link);
    CHECK_COUNTER(&p, PNA_PHY_LINK_DOWN_EVENTS, 3);
    CHECK_INT(p.fec.active, PNA_FEC_RS);
    CHECK_COUNTER(&p, PNA_PHY_FEC_CORRECTED_BITS, 98765432);
    CHECK_COUNTER(&p, PNA_PHY_RMON_JABBERS, 4004);
    CHECK_COUNTER(&p, PNA_PHY_PAUSE_RX_FRAMES, 907);
    CHECK_INT(p.ifindex, 4);

    /* a refused FEC_GET clears FEC and nothing else */
    CHECK_INT(parse_file(pna_ethnl_parse_fec, "real-fec-veth0.bin", &p), -EOPNOTSUPP);
    check_fec_absent(&p);
    CHECK(p.link.read);
    CHECK_COUNTER(&p, PNA_PHY_LINK_DOWN_EVENTS, 3);
    CHECK_COUNTER(&p, PNA_PHY_RMON_JABBERS, 4004);
    CHECK_COUNTER(&p, PNA_PHY_PAUSE_TX_FRAMES, 18234);

    /* a second reply replaces the first, counters it lacks become absent */
    CHECK_INT(parse_file(pna_ethnl_parse_stats, "built-stats-mlx5-cx4lx.bin", &p), 0);
    CHECK_ABSENT(&p, PNA_PHY_ALIGNMENT_ERRORS);
    CHECK_ABSENT(&p, PNA_PHY_RMON_OVERSIZE);
    CHECK_COUNTER(&p, PNA_PHY_FRAMES_TX_OK, 896117891);
    CHECK_INT(parse_file(pna_ethnl_parse_pause, "built-pause-ionic.bin", &p), 0);
    CHECK_ABSENT(&p, PNA_PHY_PAUSE_TX_FRAMES);
    CHECK_INT(parse_file(pna_ethnl_parse_linkstate, "built-linkstate-mlx5-up.bin", &p), 0);
    CHECK(!p.link.has_ext_state);
    CHECK_INT(p.link.ext_state, 0);
    CHECK_INT(p.link.ext_substate, 0);
    CHECK_COUNTER(&p, PNA_PHY_LINK_DOWN_EVENTS, 0);
    CHECK_STR(p.ifname, "enp65s0f0np0");
}

static const char *const ALL[] = {
    "real-linkstate-veth0-up.bin", "real-linkstate-veth0-down.bin",
    "real-linkstate-veth0-nocarrier.bin", "real-linkstate-veth0-unpriv.bin",
    "real-linkstate-lo.bin", "real-linkstate-missing.bin", "real-fec-veth0.bin",
    "real-fec-veth0-nocap.bin", "real-stats-veth0.bin", "real-stats-statsflag.bin",
    "real-pause-veth0.bin", "real-eeprom-veth0.bin", "real-eeprom-missing.bin",
    "real-eeprom-veth0-unpriv.bin",
    "built-linkstate-mlx5-up.bin", "built-linkstate-mlx5-autoneg.bin",
    "built-linkstate-nocable.bin", "built-linkstate-sqi.bin", "built-linkstate-ack.bin",
    "built-linkstate-einval-flags.bin", "built-fec-mlx5-rs.bin", "built-fec-baser-lanes.bin",
    "built-fec-ionic.bin", "built-fec-off-verbose.bin", "built-fec-llrs-wide.bin",
    "built-stats-mlx5-cx4lx.bin", "built-stats-distinct.bin", "built-stats-header-only.bin",
    "built-pause-mlx5-cx4lx.bin", "built-pause-counts.bin", "built-pause-ionic.bin",
    "built-eeprom-cmis-upper0.bin", "built-eeprom-short.bin", "built-eeprom-nodata.bin",
    "built-eeprom-eio.bin", "built-eeprom-nomodule.bin", "built-bad-truncated.bin",
    "built-bad-attr-overrun.bin", "built-bad-attr-tiny.bin", "built-bad-nest-overrun.bin",
    "built-bad-short-u64.bin", "built-bad-fec-array.bin", "built-bad-bitset-short.bin",
    "built-bad-group-noid.bin", "built-bad-header-name.bin", "built-bad-error-short.bin",
    "built-bad-two-replies.bin",
};

/* Every prefix of every fixture, through every parser, from a buffer of
 * exactly that size: the answer keeps its promises and nothing is read
 * past the data (the sanitizers and valgrind watch). */
static void test_prefixes(void)
{
    static parse_fn *const fns[] = {pna_ethnl_parse_linkstate, pna_ethnl_parse_fec,
                                    pna_ethnl_parse_stats, pna_ethnl_parse_pause};
    int broken = 0;
    for (size_t f = 0; f < sizeof ALL / sizeof ALL[0]; f++) {
        size_t len;
        uint8_t *whole = load(ALL[f], &len);
        for (size_t n = 0; n <= len; n++) {
            uint8_t *copy = malloc(n ? n : 1);
            memcpy(copy, whole, n);
            for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) {
                struct pna_phy_if p = fresh("x");
                int rc = fns[i](copy, n, &p);
                size_t elen = strnlen(p.error, sizeof p.error);
                if (elen == sizeof p.error || (rc == 0 && elen != 0) ||
                    (rc != 0 && (rc > 0 || elen == 0)))
                    broken++;
            }
            char err[160];
            uint8_t data[128];
            int rc = pna_ethnl_parse_eeprom(copy, n, data, 128, err, sizeof err);
            if ((rc == 0) != (strcmp(ALL[f], "built-eeprom-cmis-upper0.bin") == 0 && n == len))
                broken++;
            free(copy);
        }
        free(whole);
    }
    CHECK_INT(broken, 0);
}

static void test_edges(void)
{
    struct pna_phy_if p = fresh("x");
    CHECK_INT(pna_ethnl_parse_linkstate(NULL, 0, &p), -EBADMSG);
    CHECK_STR(p.error, "link state: malformed reply: empty");

    /* message lengths that wrap NLMSG_ALIGN() or pass libmnl's int test */
    uint32_t msg[8] = {0xfffffff0u, 0, 1, 0};
    CHECK_INT(pna_ethnl_parse_linkstate(msg, sizeof msg, &p), -EBADMSG);
    CHECK_STR(p.error, "link state: malformed reply: message truncated (32 octets left)");
    msg[0] = 0x80000000u;
    CHECK_INT(pna_ethnl_parse_fec(msg, sizeof msg, &p), -EBADMSG);
    CHECK_STR(p.error, "FEC: malformed reply: message truncated (32 octets left)");
    msg[0] = 8; /* shorter than its own header */
    CHECK_INT(pna_ethnl_parse_pause(msg, sizeof msg, &p), -EBADMSG);
    CHECK_STR(p.error, "pause: malformed reply: message truncated (32 octets left)");

    /* no reply at all: only an acknowledgement, or NLMSG_DONE */
    uint32_t ackmsg[9] = {36, NLMSG_ERROR, 1, 0, 0, 0, 0, 0, 0};
    CHECK_INT(pna_ethnl_parse_stats(ackmsg, sizeof ackmsg, &p), -EBADMSG);
    CHECK_STR(p.error, "statistics: malformed reply: no answer to ETHTOOL_MSG_STATS_GET");

    /* an unaligned buffer parses the same */
    size_t len;
    uint8_t *data = load("built-stats-distinct.bin", &len);
    uint8_t *odd = malloc(len + 1);
    memcpy(odd + 1, data, len);
    p = fresh("x");
    CHECK_INT(pna_ethnl_parse_stats(odd + 1, len, &p), 0);
    CHECK_COUNTER(&p, PNA_PHY_FRAME_TOO_LONG_ERRORS, 2022);
    free(odd);

    /* an unknown errno and an error code out of range */
    uint8_t err_msg[36];
    memcpy(err_msg, data, 16);  /* a header to edit */
    free(data);
    uint32_t hdr[5] = {36, NLMSG_ERROR, 1, 0};
    memcpy(err_msg, hdr, 16);
    memset(err_msg + 16, 0, 20);
    int32_t code = -150;
    memcpy(err_msg + 16, &code, 4);
    CHECK_INT(pna_ethnl_parse_linkstate(err_msg, sizeof err_msg, &p), -150);
    CHECK_STR(p.error, "link state: refused (errno 150)");
    code = -5000;
    memcpy(err_msg + 16, &code, 4);
    CHECK_INT(pna_ethnl_parse_linkstate(err_msg, sizeof err_msg, &p), -EBADMSG);
    CHECK_STR(p.error, "link state: malformed reply: NLMSG_ERROR code -5000");
    code = 7;
    memcpy(err_msg + 16, &code, 4);
    CHECK_INT(pna_ethnl_parse_linkstate(err_msg, sizeof err_msg, &p), -EBADMSG);
    CHECK_STR(p.error, "link state: malformed reply: NLMSG_ERROR code 7");

    /* the EEPROM request's own limits, checked before any socket */
    static const struct {
        uint8_t i2c, page;
        uint32_t offset, length;
        int rc;
        const char *error;
    } args[] = {
        {0x50, 0, 0, 0, -EINVAL, "module EEPROM: length 0, not 1 to 128"},
        {0x50, 0, 0, 129, -EINVAL, "module EEPROM: length 129, not 1 to 128"},
        {0x50, 0, 100, 64, -EINVAL, "module EEPROM: offset 100 + length 64 crosses offset 128"},
        {0x50, 0, 200, 100, -EINVAL, "module EEPROM: offset 200 + length 100 crosses offset 256"},
        {0x50, 3, 0, 128, -EINVAL,
         "module EEPROM: offset 0 is in the lower page, which has no page 3"},
        {0x50, 0, 256, 1, -EINVAL, "module EEPROM: offset 256 past 255"},
        {0x80, 0, 0, 1, -EINVAL, "module EEPROM: I2C address 0x80 above 0x7f"},
#ifdef HAVE_LIBMNL
        {0x50, 3, 128, 128, -EBADF, "ethtool netlink not open"},
#else
        {0x50, 3, 128, 128, -ENOSYS, "built without libmnl"},
#endif
    };
    char err[160];
    uint8_t buf[128];
    for (size_t i = 0; i < sizeof args / sizeof args[0]; i++) {
        CHECK_INT(pna_ethnl_module_eeprom(NULL, "eth0", args[i].i2c, args[i].page, 0,
                                          args[i].offset, args[i].length, buf, err, sizeof err),
                  args[i].rc);
        CHECK_STR(err, args[i].error);
    }
}

/* ---- live, in this process's network namespace ---- */

static void test_live(void)
{
    char err[160] = "";
    struct pna_ethnl *nl = pna_ethnl_open(err, sizeof err);
#ifndef HAVE_LIBMNL
    CHECK(nl == NULL);
    CHECK_STR(err, "built without libmnl");
    struct pna_phy_if p = fresh("lo");
    CHECK_INT(pna_ethnl_read_phy(nl, &p), -ENOSYS);
    CHECK_STR(p.error, "built without libmnl");
    pna_ethnl_close(nl);
    printf("live part skipped: built without libmnl\n");
#else
    if (!nl) {
        fprintf(stderr, "pna_ethnl_open: %s\n", err);
        CHECK(nl != NULL);
        return;
    }
    /* lo: the link state answers; lo has no FEC, pause or module EEPROM, and
     * answers the statistics groups without counters */
    struct pna_phy_if p = fresh("lo");
    p.c[PNA_PHY_PAUSE_TX_FRAMES].present = true;  /* stale: must go */
    CHECK_INT(pna_ethnl_read_phy(nl, &p), 0);
    CHECK_STR(p.error, "");
    CHECK(p.link.read && p.link.has_link && p.link.link);
    CHECK_INT(p.ifindex, 1);
    check_fec_absent(&p);
    CHECK(p.stats_read);
    check_only(&p, NULL, 0);

    /* a missing interface: the same line as the recording */
    struct pna_phy_if rec = fresh("nosuch0");
    parse_file(pna_ethnl_parse_linkstate, "real-linkstate-missing.bin", &rec);
    p = fresh("pna-nosuch0");
    CHECK_INT(pna_ethnl_read_phy(nl, &p), -ENODEV);
    CHECK_STR(p.error, rec.error);
    check_link_absent(&p);
    p = fresh("");
    CHECK_INT(pna_ethnl_read_phy(nl, &p), -ENODEV);
    CHECK_STR(p.error, "link state: no such interface");
    CHECK_INT(pna_ethnl_read_phy(NULL, &p), -EBADF);
    CHECK_STR(p.error, "ethtool netlink not open");

    /* the module EEPROM of lo: not supported, or not permitted without
     * CAP_NET_ADMIN (MODULE_EEPROM_GET is GENL_UNS_ADMIN_PERM) */
    uint8_t buf[128];
    int rc = pna_ethnl_module_eeprom(nl, "lo", 0x50, 0, 0, 0, 128, buf, err, sizeof err);
    CHECK((rc == -EOPNOTSUPP &&
           strcmp(err, "module EEPROM: not supported by the driver (EOPNOTSUPP)") == 0) ||
          (rc == -EPERM &&
           strcmp(err, "module EEPROM: not permitted without CAP_NET_ADMIN (EPERM)") == 0));
    rc = pna_ethnl_module_eeprom(nl, "pna-nosuch0", 0x50, 0, 0, 0, 128, buf, err, sizeof err);
    CHECK((rc == -ENODEV &&
           strcmp(err, "module EEPROM: no such interface (ENODEV): no device matches name") == 0) ||
          (rc == -EPERM &&
           strcmp(err, "module EEPROM: not permitted without CAP_NET_ADMIN (EPERM)") == 0));

    /* many requests on one socket: the sequence numbers keep them apart */
    for (int i = 0; i < 50; i++) {
        p = fresh(i % 2 ? "lo" : "pna-nosuch0");
        if (pna_ethnl_read_phy(nl, &p) != (i % 2 ? 0 : -ENODEV))
            CHECK(!"answer out of step");
    }
    pna_ethnl_close(nl);
    pna_ethnl_close(NULL);
#endif
}

int main(void)
{
    test_real_linkstate();
    test_real_refusals();
    test_real_stats();
    test_built_linkstate();
    test_built_fec();
    test_built_stats();
    test_built_pause();
    test_built_eeprom();
    test_malformed();
    test_parts();
    test_prefixes();
    test_edges();
    test_live();
    UNIT_END();
}
