/* test_lldp_tlv.c -- the IEEE 802.1Qaz PFC Configuration TLV decoder
 * (sources/pfc/lldp_tlv.c) on the standard's layout, on a real 802.1 TLV that
 * is not a PFC one, on short, long and garbage input; the table lookup; and
 * pna_lldp_read()'s errors that need no lldpd (lldp_source.sh runs it against
 * real ones). */
#include "pna_autoconf.h"
#include "sources/pfc/lldp.h"
#include "util/fileio.h"

#include "unit.h"

static const uint8_t OUI_8021[3] = {0x00, 0x80, 0xc2};
static const uint8_t OUI_8023[3] = {0x00, 0x12, 0x0f};

/* Parse INFO and compare every field; outputs start from sentinels. */
static void check_pfc(const uint8_t *info, size_t len, bool ok, uint8_t en, uint8_t cap, bool mbc,
                      bool willing)
{
    uint8_t got_en = 0xa5, got_cap = 0xa5;
    bool got_mbc = !mbc, got_willing = !willing;
    CHECK_INT(pna_lldp_parse_pfc_tlv(info, len, &got_en, &got_cap, &got_mbc, &got_willing), ok);
    if (!ok) {
        /* refused: nothing written */
        CHECK_INT(got_en, 0xa5);
        CHECK_INT(got_cap, 0xa5);
        CHECK_INT(got_mbc, !mbc);
        CHECK_INT(got_willing, !willing);
        return;
    }
    CHECK_INT(got_en, en);
    CHECK_INT(got_cap, cap);
    CHECK_INT(got_mbc, mbc);
    CHECK_INT(got_willing, willing);
}

/* Octet 1: willing (bit 8), MBC (bit 7), reserved (bits 6..5), PFC cap (bits
 * 4..1); octet 2: PFC enable, bit p = priority p. */
static void test_layout(void)
{
    /* RoCE's usual: not willing, 8 classes, PFC on priorities 3 and 4 */
    check_pfc((const uint8_t[]){0x08, 0x18}, 2, true, 0x18, 8, false, false);
    check_pfc((const uint8_t[]){0x80, 0x00}, 2, true, 0x00, 0, false, true);
    check_pfc((const uint8_t[]){0x40, 0xff}, 2, true, 0xff, 0, true, false);
    check_pfc((const uint8_t[]){0xc3, 0x01}, 2, true, 0x01, 3, true, true);
    check_pfc((const uint8_t[]){0x01, 0x80}, 2, true, 0x80, 1, false, false);
    /* reserved bits set: ignored on receipt */
    check_pfc((const uint8_t[]){0x38, 0x08}, 2, true, 0x08, 8, false, false);
    check_pfc((const uint8_t[]){0xf4, 0x10}, 2, true, 0x10, 4, true, true);
    /* NULL outputs are allowed */
    CHECK(pna_lldp_parse_pfc_tlv((const uint8_t[]){0x08, 0x18}, 2, NULL, NULL, NULL, NULL));
}

/* Every two-octet input: accepted exactly when the capability is 0..8, and
 * then every field is its bits. */
static void test_exhaustive(void)
{
    int wrong = 0;
    for (unsigned v = 0; v < 0x10000; v++) {
        uint8_t info[2] = {(uint8_t)(v >> 8), (uint8_t)v};
        uint8_t en = 0, cap = 0;
        bool mbc = false, willing = false;
        bool ok = pna_lldp_parse_pfc_tlv(info, 2, &en, &cap, &mbc, &willing);
        if (ok != ((info[0] & 0x0f) <= 8))
            wrong++;
        else if (ok && (en != info[1] || cap != (info[0] & 0x0f) || mbc != !!(info[0] & 0x40) ||
                        willing != !!(info[0] & 0x80)))
            wrong++;
    }
    CHECK_INT(wrong, 0);
}

static void test_refused(void)
{
    /* short and long: the TLV's length is fixed at 6 (2 after OUI and subtype) */
    check_pfc(NULL, 2, false, 0, 0, false, false);
    check_pfc((const uint8_t[]){0x08}, 0, false, 0, 0, false, false);
    check_pfc((const uint8_t[]){0x08}, 1, false, 0, 0, false, false);
    check_pfc((const uint8_t[]){0x08, 0x18, 0x00}, 3, false, 0, 0, false, false);
    check_pfc((const uint8_t[]){0x08, 0x18, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00}, 8, false, 0, 0,
              false, false);
    /* garbage: a capability of 9..15 traffic classes cannot be */
    check_pfc((const uint8_t[]){0x09, 0x18}, 2, false, 0, 0, false, false);
    check_pfc((const uint8_t[]){0xff, 0xff}, 2, false, 0, 0, false, false);
    check_pfc((const uint8_t[]){0x0f, 0x00}, 2, false, 0, 0, false, false);
}

/* What lldpd hands over: OUI, subtype, information string. */
static void test_org_tlv(void)
{
    struct pna_lldp_neighbor n;
    memset(&n, 0, sizeof n);
    const uint8_t pfc[2] = {0x08, 0x18};
    CHECK(pna_lldp_org_tlv_pfc(OUI_8021, 3, 11, pfc, 2, &n));
    CHECK(n.pfc_known);
    CHECK_INT(n.pfc_en, 0x18);

    /* not a PFC TLV: N stays as it was */
    memset(&n, 0, sizeof n);
    CHECK(!pna_lldp_org_tlv_pfc(OUI_8023, 3, 11, pfc, 2, &n));            /* IEEE 802.3's OUI */
    CHECK(!pna_lldp_org_tlv_pfc(OUI_8021, 3, 9, pfc, 2, &n));             /* ETS Configuration */
    CHECK(!pna_lldp_org_tlv_pfc(OUI_8021, 3, 12, pfc, 2, &n));            /* Application Priority */
    CHECK(!pna_lldp_org_tlv_pfc(OUI_8021, 3, 11 + 256, pfc, 2, &n));
    CHECK(!pna_lldp_org_tlv_pfc(OUI_8021, 2, 11, pfc, 2, &n));            /* OUI cut short */
    CHECK(!pna_lldp_org_tlv_pfc(NULL, 3, 11, pfc, 2, &n));
    CHECK(!pna_lldp_org_tlv_pfc(OUI_8021, 3, -1, pfc, 2, &n));            /* liblldpctl's error */
    CHECK(!pna_lldp_org_tlv_pfc(OUI_8021, 3, 11, NULL, 0, &n));
    CHECK(!pna_lldp_org_tlv_pfc(OUI_8021, 3, 11, (const uint8_t[]){0xff, 0x18}, 2, &n));
    CHECK(!n.pfc_known);
    CHECK_INT(n.pfc_en, 0);
}

/* A real 802.1 TLV as lldpd kept it: `lldpcli -f json0 show neighbors` of a
 * server cabled to an H3C S5130S switch port (unknown-tlvs of enp129s0f0, OUI
 * 00,80,C2, subtype 7, len 5, value 01,00,00,00,00; from unifabric-io/
 * unifabric's lldp_test.go, see the fixture notes).  Subtype 7 is the Link
 * Aggregation TLV (IEEE 802.1AX): status 0x01, aggregation capable and not
 * aggregated, port id 0.  lldpd 1.0.16 decodes 802.1 subtypes 1..4 only and
 * keeps the rest, this one and PFC's 11 alike, as custom TLVs: so it reaches
 * the decoder's caller, which must not take it for PFC, neither by its
 * subtype nor (were the subtype mislabelled) by its length. */
static void test_real_link_aggregation_tlv(void)
{
    const uint8_t value[5] = {0x01, 0x00, 0x00, 0x00, 0x00};
    struct pna_lldp_neighbor n;
    memset(&n, 0, sizeof n);
    CHECK(!pna_lldp_org_tlv_pfc(OUI_8021, 3, 7, value, sizeof value, &n));
    CHECK(!pna_lldp_org_tlv_pfc(OUI_8021, 3, 11, value, sizeof value, &n));
    CHECK(!n.pfc_known);
    check_pfc(value, sizeof value, false, 0, 0, false, false);
}

static void test_find(void)
{
    struct pna_lldp_entry v[3];
    memset(v, 0, sizeof v);
    pna_strlcpy(v[0].ifname, "enp129s0f0", sizeof v[0].ifname);
    pna_strlcpy(v[1].ifname, "ens1np0", sizeof v[1].ifname);
    pna_strlcpy(v[2].ifname, "ens841np0", sizeof v[2].ifname);
    pna_strlcpy(v[1].n.sys_name, "LEAF01", sizeof v[1].n.sys_name);
    struct pna_lldp_table t = {.v = v, .n = 3};
    const struct pna_lldp_neighbor *n = pna_lldp_find(&t, "ens1np0");
    CHECK(n != NULL && strcmp(n->sys_name, "LEAF01") == 0);
    CHECK(pna_lldp_find(&t, "enp129s0f0") == &v[0].n);
    CHECK(pna_lldp_find(&t, "ens841np0") == &v[2].n);
    CHECK(pna_lldp_find(&t, "ens842np0") == NULL);
    CHECK(pna_lldp_find(&t, "") == NULL);
    CHECK(pna_lldp_find(&t, NULL) == NULL);
    CHECK(pna_lldp_find(NULL, "ens1np0") == NULL);
    struct pna_lldp_table empty = {0};
    CHECK(pna_lldp_find(&empty, "ens1np0") == NULL);
    pna_lldp_table_free(&empty);
    pna_lldp_table_free(NULL);
}

/* Errors that need no lldpd: one line, an empty table. */
static void test_read_errors(void)
{
    struct pna_lldp_table t = {.v = (struct pna_lldp_entry *)&t, .n = 7};
    char err[256] = "";
    const char *missing = "/nonexistent-pna-test/lldpd.socket";
    CHECK_INT(pna_lldp_read(missing, 500, &t, err, sizeof err), -1);
    CHECK(t.v == NULL && t.n == 0);
#ifdef HAVE_LLDPCTL
    CHECK_STR(err, "lldpd is not running (no /nonexistent-pna-test/lldpd.socket)");
#else
    CHECK_STR(err, "built without liblldpctl");
#endif
    CHECK_INT(pna_lldp_read(missing, 0, &t, err, sizeof err), -1);
    CHECK(strchr(err, '\n') == NULL && err[0] != '\0');
    CHECK_INT(pna_lldp_read(NULL, 500, &t, err, sizeof err), -1);
    CHECK(t.v == NULL && t.n == 0);
}

int main(void)
{
    test_layout();
    test_exhaustive();
    test_refused();
    test_org_tlv();
    test_real_link_aggregation_tlv();
    test_find();
    test_read_errors();
    UNIT_END();
}
