/* test_lossless.c -- the lossless-RoCE rules of model/lossless/lossless.c:
 * every rule on its own, with a configuration that triggers it and one that
 * does not, the derived trust and priorities, the DSCP map's text, and the
 * node's verdict.
 *
 * The base configuration is the real mlx5 one recorded in the shared
 * fixtures (spiderpool's `rdma-qos.sh q` on mlx5_0: trust dscp, PFC on
 * priority 5, ECN on every priority, CNP DSCP 48, RDMA CM ToS 160), with the
 * 64 DSCP entries mlx5 keeps in the APP table while it trusts DSCP (d -> d>>3)
 * and an ETS layout of our own (the capture has none): priority p in traffic
 * class p, TC 6 strict.  Each case changes what its rule looks at.  Then the
 * rules again on the fixture files, read by the real DCB and ECN readers. */
#include "pna_autoconf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/lossless/lossless.h"
#include "sources/pfc/dcb.h"
#include "sources/pfc/ecn.h"
#include "util/fileio.h"
#include "unit.h"

static void full_dscp_map(struct pna_dcb *d)
{
    d->n_apps = 0;
    for (unsigned v = 0; v < 64; v++)
        d->apps[d->n_apps++] = (struct pna_dcb_app){ PNA_DCB_SEL_DSCP, (uint8_t)(v >> 3), (uint16_t)v };
}

static void base(struct pna_lossless_if *l)
{
    pna_lossless_if_init(l);
    struct pna_dcb *d = &l->dcb;
    d->read = true;
    d->has_pfc = true;
    d->pfc_cap = 8;
    d->pfc_en = 1u << 5;
    d->has_ets = true;
    d->ets_cap = 8;
    for (int p = 0; p < 8; p++) {
        d->prio_tc[p] = (uint8_t)p;
        d->tc_tsa[p] = PNA_ETS_TSA_ETS;
        d->tc_tx_bw[p] = p < 4 ? 12 : 13;
    }
    d->tc_tsa[6] = PNA_ETS_TSA_STRICT;
    d->tc_tx_bw[6] = 0;
    full_dscp_map(d);
    l->ecn.present = true;
    l->ecn.np_known = l->ecn.rp_known = 0xff;
    l->ecn.np_enabled = l->ecn.rp_enabled = 0xff;
    l->ecn.cnp_dscp = 48;
    l->ecn.cnp_802p_prio = 6;
    l->roce_tos = 160;      /* DSCP 40 -> priority 5 */
}

static void judge(struct pna_lossless_if *l)
{
    pna_lossless_judge(l, NULL);
}

static bool says(const struct pna_lossless_if *l, const char *text)
{
    return strstr(l->reason, text) != NULL;
}

static void test_base_is_ready(void)
{
    struct pna_lossless_if l;
    base(&l);
    judge(&l);
    CHECK_INT(l.verdict, PNA_LOSSLESS_READY);
    CHECK_STR(l.reason, "");
    CHECK_INT(l.trust, PNA_TRUST_DSCP);
    CHECK_INT(l.trust_source, PNA_TRUST_FROM_APP);
    CHECK_INT(l.rdma_prio, 5);
    CHECK_INT(l.cnp_prio, 6);
    CHECK_STR(l.dscp_map, "0:0-7 1:8-15 2:16-23 3:24-31 4:32-39 5:40-47 6:48-55 7:56-63");
}

static void test_unreadable(void)
{
    struct pna_lossless_if l;
    base(&l);
    l.dcb.read = false;
    snprintf(l.dcb.error, sizeof l.dcb.error, "no DCB support in the driver (EOPNOTSUPP)");
    judge(&l);
    CHECK_INT(l.verdict, PNA_LOSSLESS_UNREADABLE);
    CHECK(says(&l, "EOPNOTSUPP"));
    CHECK_INT(l.trust, PNA_TRUST_UNKNOWN);
    CHECK_INT(l.rdma_prio, -1);
    CHECK_STR(l.dscp_map, "");
}

static void test_rule_no_pfc(void)
{
    struct pna_lossless_if l;
    base(&l);
    l.dcb.pfc_en = 0;
    judge(&l);
    CHECK_INT(l.verdict, PNA_LOSSLESS_NOT_READY);
    CHECK(says(&l, "PFC is enabled on no priority"));

    base(&l);
    l.dcb.has_pfc = false;
    judge(&l);
    CHECK(says(&l, "the driver reports no PFC configuration"));

    base(&l);
    judge(&l);
    CHECK(!says(&l, "PFC is enabled on no priority"));
}

static void test_rule_pfc_cap(void)
{
    struct pna_lossless_if l;
    base(&l);
    l.dcb.pfc_cap = 1;
    l.dcb.pfc_en = (1u << 5) | (1u << 6);
    judge(&l);
    CHECK(says(&l, "PFC is enabled on 2 priorities, the port honours 1"));

    base(&l);
    l.dcb.pfc_cap = 1;
    judge(&l);
    CHECK_INT(l.verdict, PNA_LOSSLESS_READY);
}

static void test_rule_ecn_off(void)
{
    struct pna_lossless_if l;
    base(&l);
    l.ecn.np_enabled = (uint8_t)~(1u << 5);
    judge(&l);
    CHECK(says(&l, "ECN (roce_np) is off on PFC priority 5"));
    CHECK(!says(&l, "roce_rp"));

    base(&l);
    l.ecn.rp_enabled = 0;
    judge(&l);
    CHECK(says(&l, "ECN (roce_rp) is off on PFC priority 5"));

    /* off on a priority without PFC: not a finding */
    base(&l);
    l.ecn.np_enabled = l.ecn.rp_enabled = 1u << 5;
    judge(&l);
    CHECK_INT(l.verdict, PNA_LOSSLESS_READY);

    /* a driver without the ecn directory is not judged on it */
    base(&l);
    l.ecn.present = false;
    l.ecn.np_enabled = l.ecn.rp_enabled = 0;
    judge(&l);
    CHECK(!says(&l, "ECN"));
}

static void test_rule_trust_mismatch(void)
{
    struct pna_lossless_if l;
    base(&l);
    l.dcb.trust[0] = PNA_DCB_SEL_PCP;
    l.dcb.trust[1] = PNA_DCB_SEL_DSCP;
    l.dcb.n_trust = 2;
    judge(&l);
    CHECK_INT(l.trust, PNA_TRUST_PCP);
    CHECK_INT(l.trust_source, PNA_TRUST_FROM_DRIVER);
    CHECK(says(&l, "the port trusts PCP but its APP table maps DSCP"));

    base(&l);
    l.dcb.trust[0] = PNA_DCB_SEL_DSCP;
    l.dcb.n_trust = 1;
    judge(&l);
    CHECK_INT(l.trust_source, PNA_TRUST_FROM_DRIVER);
    CHECK_INT(l.verdict, PNA_LOSSLESS_READY);

    /* PCP trust inferred from an APP table without DSCP: consistent */
    base(&l);
    l.dcb.n_apps = 0;
    judge(&l);
    CHECK_INT(l.trust, PNA_TRUST_PCP);
    CHECK_INT(l.trust_source, PNA_TRUST_FROM_APP);
    CHECK(!says(&l, "trusts PCP"));
}

static void test_rule_rdma_lossy(void)
{
    struct pna_lossless_if l;
    base(&l);
    l.roce_tos = 106;       /* DSCP 26 -> priority 3, no PFC there */
    judge(&l);
    CHECK_INT(l.rdma_prio, 3);
    CHECK(says(&l, "RDMA traffic (ToS 106, DSCP 26) maps to priority 3, which has no PFC"));

    base(&l);
    l.dcb.n_apps = 40;      /* DSCP 40 and above unmapped */
    judge(&l);
    CHECK(says(&l, "RDMA traffic's DSCP 40 (ToS 160) is not in the APP table"));

    /* no ToS known: not judged */
    base(&l);
    l.roce_tos = -1;
    judge(&l);
    CHECK_INT(l.rdma_prio, -1);
    CHECK_INT(l.verdict, PNA_LOSSLESS_READY);
}

static void test_rule_cnp_lossy(void)
{
    struct pna_lossless_if l;
    base(&l);
    l.dcb.tc_tsa[6] = PNA_ETS_TSA_ETS;  /* CNP priority 6 neither PFC nor strict */
    judge(&l);
    CHECK_INT(l.cnp_prio, 6);
    CHECK(says(&l, "CNPs are sent on priority 6, which has neither PFC nor strict priority"));

    /* on the PFC priority itself: fine */
    base(&l);
    l.dcb.tc_tsa[6] = PNA_ETS_TSA_ETS;
    l.ecn.cnp_dscp = 40;
    judge(&l);
    CHECK_INT(l.cnp_prio, 5);
    CHECK_INT(l.verdict, PNA_LOSSLESS_READY);

    /* PCP trust: the 802.1p priority counts */
    base(&l);
    l.dcb.n_apps = 0;
    l.roce_tos = -1;
    l.ecn.cnp_802p_prio = 2;
    judge(&l);
    CHECK_INT(l.cnp_prio, 2);
    CHECK(says(&l, "CNPs are sent on priority 2"));
}

static void test_rule_unlike_fleet(void)
{
    struct pna_lossless_if l;
    struct pna_lossless_expect fleet = { .has_pfc = true, .pfc_en = 1u << 3, .trust = PNA_TRUST_DSCP };
    base(&l);
    pna_lossless_judge(&l, &fleet);
    CHECK_STR(l.reason, "PFC is on 5, the fleet's is 3 (losslessPfcPriorities)");

    fleet.pfc_en = 1u << 5;
    fleet.trust = PNA_TRUST_PCP;
    base(&l);
    pna_lossless_judge(&l, &fleet);
    CHECK_STR(l.reason, "the port trusts dscp, the fleet pcp (losslessTrust)");

    fleet.trust = PNA_TRUST_DSCP;
    base(&l);
    pna_lossless_judge(&l, &fleet);
    CHECK_INT(l.verdict, PNA_LOSSLESS_READY);

    /* nothing said: nothing judged */
    struct pna_lossless_expect none = { 0 };
    base(&l);
    l.dcb.pfc_en = 1u << 3 | 1u << 5;
    pna_lossless_judge(&l, &none);
    CHECK_INT(l.verdict, PNA_LOSSLESS_READY);
}

static void test_all_findings_listed(void)
{
    struct pna_lossless_if l;
    base(&l);
    l.dcb.pfc_en = 0;
    l.dcb.tc_tsa[6] = PNA_ETS_TSA_ETS;
    judge(&l);
    CHECK(says(&l, "PFC is enabled on no priority; RDMA traffic (ToS 160, DSCP 40) maps to "
                   "priority 5, which has no PFC; CNPs are sent on priority 6"));
}

static void test_dscp_map_text(void)
{
    struct pna_dcb d;
    memset(&d, 0, sizeof d);
    d.apps[d.n_apps++] = (struct pna_dcb_app){ PNA_DCB_SEL_DSCP, 3, 26 };
    d.apps[d.n_apps++] = (struct pna_dcb_app){ PNA_DCB_SEL_DSCP, 6, 48 };
    d.apps[d.n_apps++] = (struct pna_dcb_app){ PNA_DCB_SEL_DSCP, 3, 24 };
    d.apps[d.n_apps++] = (struct pna_dcb_app){ PNA_DCB_SEL_DSCP, 3, 25 };
    d.apps[d.n_apps++] = (struct pna_dcb_app){ PNA_DCB_SEL_ETHERTYPE, 3, 0x8915 };
    char buf[64];
    CHECK_STR(pna_dcb_dscp_map(&d, buf, sizeof buf), "3:24-26 6:48");
    char tiny[6];
    CHECK_STR(pna_dcb_dscp_map(&d, tiny, sizeof tiny), "3:24-");
    CHECK_INT(pna_dcb_dscp_prio(&d, 48), 6);
    CHECK_INT(pna_dcb_dscp_prio(&d, 0x15), -1);
    char list[24];
    CHECK_STR(pna_prio_list(0x28, list, sizeof list), "3,5");
    CHECK_STR(pna_prio_list(0, list, sizeof list), "");
}

static void node(struct pna_lossless_if *ifs, const char **names, size_t n,
                 struct pna_lossless_node *out)
{
    const struct pna_lossless_if *p[4];
    for (size_t i = 0; i < n; i++) {
        judge(&ifs[i]);
        p[i] = &ifs[i];
    }
    pna_lossless_judge_node(p, names, n, out);
}

static void test_node(void)
{
    struct pna_lossless_if ifs[3];
    const char *names[3] = { "ens1f0np0", "ens2f0np0", "ens3f0np0" };
    struct pna_lossless_node n;

    node(ifs, names, 0, &n);
    CHECK_INT(n.verdict, PNA_LOSSLESS_NOT_APPLICABLE);

    for (int i = 0; i < 3; i++)
        base(&ifs[i]);
    node(ifs, names, 3, &n);
    CHECK_INT(n.verdict, PNA_LOSSLESS_READY);
    CHECK_U64(n.ports_ready, 3);
    CHECK_STR(n.reason, "");

    /* rule ports-differ: each port ready on its own, but not alike */
    base(&ifs[2]);
    ifs[2].dcb.pfc_en = 1u << 5 | 1u << 3;
    node(ifs, names, 3, &n);
    CHECK_INT(ifs[2].verdict, PNA_LOSSLESS_READY);
    CHECK_INT(n.verdict, PNA_LOSSLESS_NOT_READY);
    CHECK_STR(n.reason, "ens1f0np0 and ens3f0np0 are configured differently: PFC on 5 vs 3,5");

    base(&ifs[2]);
    ifs[2].roce_tos = 106;
    ifs[2].dcb.pfc_en = 1u << 3;
    ifs[1].dcb.pfc_en = 0;
    node(ifs, names, 3, &n);
    CHECK_INT(n.verdict, PNA_LOSSLESS_NOT_READY);
    CHECK_U64(n.ports_not_ready, 1);
    CHECK(strstr(n.reason, "ens2f0np0: PFC is enabled on no priority") == n.reason);
    CHECK(strstr(n.reason, "ens1f0np0 and ens2f0np0 are configured differently: PFC on 5 vs none") != NULL);

    /* one unreadable, the rest ready and alike */
    for (int i = 0; i < 3; i++)
        base(&ifs[i]);
    ifs[1].dcb.read = false;
    snprintf(ifs[1].dcb.error, sizeof ifs[1].dcb.error, "no such interface");
    node(ifs, names, 3, &n);
    CHECK_INT(n.verdict, PNA_LOSSLESS_UNREADABLE);
    CHECK_U64(n.ports_unreadable, 1);
    CHECK_STR(n.reason, "ens2f0np0: DCB configuration unreadable: no such interface");

    /* ECN differs on the PFC priority */
    for (int i = 0; i < 3; i++)
        base(&ifs[i]);
    ifs[0].ecn.present = false;
    ifs[0].ecn.np_enabled = 0;
    node(ifs, names, 3, &n);
    CHECK_STR(n.reason, "ens1f0np0 and ens2f0np0 are configured differently: ECN on the PFC priorities");
}

/* ---- the rules on the fixtures, through the real readers ------------------- */

#ifdef HAVE_LIBMNL
/* Interface eth0 as DCB reply DCB (tests/fixtures/dcb/) and ECN tree ECN
 * (tests/fixtures/ecn/) give it, with RDMA CM ToS TOS, judged. */
static void judge_fixture(const char *dcb, const char *ecn, int tos, struct pna_lossless_if *l)
{
    char path[512], sys[512];
    char *buf = NULL;
    size_t n = 0;
    pna_lossless_if_init(l);
    snprintf(path, sizeof path, "%s/dcb/%s.bin", unit_fixtures(), dcb);
    CHECK_INT(pna_read_alloc(path, 1 << 20, &buf, &n), 0);
    pna_dcb_parse(buf, n, &l->dcb);
    free(buf);
    snprintf(sys, sizeof sys, "%s/ecn/%s/sys", unit_fixtures(), ecn);
    struct pna_roots roots = { sys, "/proc", "/dev", "/" };
    pna_ecn_read(&roots, "eth0", &l->ecn);
    l->roce_tos = (int16_t)tos;
    pna_lossless_judge(l, NULL);
}

/* Each rule fired by a fixture, and the fixture next to it that does not:
 * the DCB replies are built (tests/fixtures/dcb/README.md), the ECN trees a
 * real mlx5's (real-procfs: ECN off on priorities 2 and 5) and one built from
 * spiderpool's real set-up (all on, CNP DSCP 48). */
static void test_fixtures(void)
{
    struct pna_lossless_if l;
    judge_fixture("built-ets-strict", "built-spiderpool", -1, &l);
    CHECK_INT(l.verdict, PNA_LOSSLESS_READY); /* CNP priority 6 in a strict class */
    CHECK_INT(l.cnp_prio, 6);

    judge_fixture("built-mlx5-pfc5-dscp", "built-spiderpool", 160, &l);
    CHECK_INT(l.trust, PNA_TRUST_DSCP);
    CHECK_INT(l.rdma_prio, 5);          /* ToS 160: DSCP 40, priority 5, which has PFC */
    CHECK_STR(l.reason, "CNPs are sent on priority 6, which has neither PFC nor strict priority");

    judge_fixture("built-mlx5-pfc5-dscp", "real-procfs", 160, &l);
    CHECK(says(&l, "ECN (roce_np) is off on PFC priority 5; ECN (roce_rp) is off on PFC priority 5"));

    judge_fixture("built-pfc-none-pcp", "built-spiderpool", -1, &l);
    CHECK(says(&l, "PFC is enabled on no priority"));

    judge_fixture("built-trust-pcp-dscp", "built-spiderpool", -1, &l);
    CHECK(says(&l, "the port trusts PCP but its APP table maps DSCP"));
    judge_fixture("built-trust-dscp", "built-spiderpool", -1, &l);
    CHECK(!says(&l, "trusts PCP"));

    judge_fixture("built-pfc-two-prios", "built-spiderpool", 160, &l);
    CHECK(says(&l, "RDMA traffic's DSCP 40 (ToS 160) is not in the APP table"));
    judge_fixture("built-pfc-two-prios", "built-spiderpool", -1, &l);
    CHECK(!says(&l, "RDMA traffic"));

    judge_fixture("real-veth0-ieee-get", "built-spiderpool", 160, &l);
    CHECK_INT(l.verdict, PNA_LOSSLESS_UNREADABLE);
    CHECK_STR(l.reason, "DCB configuration unreadable: no DCB support in the driver (EOPNOTSUPP)");
}
#endif

int main(void)
{
    test_base_is_ready();
    test_unreadable();
    test_rule_no_pfc();
    test_rule_pfc_cap();
    test_rule_ecn_off();
    test_rule_trust_mismatch();
    test_rule_rdma_lossy();
    test_rule_cnp_lossy();
    test_rule_unlike_fleet();
    test_all_findings_listed();
    test_dscp_map_text();
    test_node();
#ifdef HAVE_LIBMNL
    test_fixtures();
#endif
    UNIT_END();
}
