/* model/lossless/lossless.c -- the rules that say whether an interface, and
 * the node, are configured for lossless RoCE (see lossless.h).
 *
 * An interface is judged on what its driver reports; each rule that fails
 * adds its sentence to the reason, so an operator sees every finding at once.
 * The rules, and how to fix each on mlx5 and ionic, are in docs/rdma.md:
 *
 *   no-pfc         PFC is enabled on no priority (or not reported at all).
 *   pfc-cap        more priorities have PFC than the port can honour.
 *   ecn-off        ECN (mlx5 roce_np or roce_rp) is off on a PFC priority.
 *   trust-mismatch the driver trusts PCP while the APP table maps DSCP.
 *   rdma-lossy     RoCE traffic (RDMA CM default ToS) maps to a priority
 *                  without PFC, or its DSCP is not mapped at all.
 *   cnp-lossy      CNPs are sent on a priority that has neither PFC nor a
 *                  strict-priority traffic class (a lost CNP is a missed
 *                  rate cut; NVIDIA's defaults send them strict, not paused).
 *
 * The node: not ready when one interface is not ready, or when two judged
 * interfaces differ in PFC priorities, trust, ECN on those priorities, the
 * RDMA or the CNP priority (rule ports-differ). */
#include "pna_autoconf.h"
#include "model/lossless/lossless.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *const pna_lossless_verdict_names[PNA_LOSSLESS_NOT_APPLICABLE + 1] = {
    [PNA_LOSSLESS_UNKNOWN] = "",
    [PNA_LOSSLESS_READY] = "ready",
    [PNA_LOSSLESS_NOT_READY] = "notReady",
    [PNA_LOSSLESS_UNREADABLE] = "unreadable",
    [PNA_LOSSLESS_NOT_APPLICABLE] = "notApplicable",
};

void pna_lossless_if_init(struct pna_lossless_if *l)
{
    memset(l, 0, sizeof *l);
    l->ecn.cnp_dscp = -1;
    l->ecn.cnp_802p_prio = -1;
    l->roce_tos = -1;
    l->rdma_prio = -1;
    l->cnp_prio = -1;
}

char *pna_prio_list(uint8_t mask, char *out, size_t outlen)
{
    size_t used = 0;
    if (outlen)
        out[0] = '\0';
    for (int p = 0; p < PNA_LOSSLESS_PRIOS && outlen; p++) {
        if (!(mask & (1u << p)))
            continue;
        int n = snprintf(out + used, outlen - used, "%s%d", used ? "," : "", p);
        if (n < 0 || (size_t)n >= outlen - used)
            break;
        used += (size_t)n;
    }
    return out;
}

int pna_dcb_dscp_prio(const struct pna_dcb *d, unsigned dscp)
{
    for (size_t i = 0; i < d->n_apps; i++)
        if (d->apps[i].selector == PNA_DCB_SEL_DSCP && d->apps[i].protocol == dscp)
            return d->apps[i].priority < PNA_LOSSLESS_PRIOS ? d->apps[i].priority : -1;
    return -1;
}

/* Append "a", "a-b" for the run of set bits of SET from A to B. */
static size_t put_run(char *out, size_t outlen, size_t used, bool first, int a, int b)
{
    if (used >= outlen)
        return used;
    int n = a == b ? snprintf(out + used, outlen - used, "%s%d", first ? "" : ",", a)
                   : snprintf(out + used, outlen - used, "%s%d-%d", first ? "" : ",", a, b);
    return n < 0 ? used : used + (size_t)n;
}

/* "P:" and the DSCP values (as runs) that priority P has in D. */
static size_t put_prio(const struct pna_dcb *d, int prio, char *out, size_t outlen, size_t used)
{
    bool set[64] = { false }, any = false;
    for (size_t i = 0; i < d->n_apps; i++)
        if (d->apps[i].selector == PNA_DCB_SEL_DSCP && d->apps[i].priority == prio &&
            d->apps[i].protocol < 64)
            set[d->apps[i].protocol] = any = true;
    if (!any || used >= outlen)
        return used;
    int n = snprintf(out + used, outlen - used, "%s%d:", used ? " " : "", prio);
    used = n < 0 ? used : used + (size_t)n;
    bool first = true;
    for (int v = 0; v < 64; v++) {
        if (!set[v])
            continue;
        int end = v;
        while (end + 1 < 64 && set[end + 1])
            end++;
        used = put_run(out, outlen, used, first, v, end);
        first = false;
        v = end;
    }
    return used;
}

char *pna_dcb_dscp_map(const struct pna_dcb *d, char *out, size_t outlen)
{
    size_t used = 0;
    if (!outlen)
        return out;
    out[0] = '\0';
    for (int p = 0; p < PNA_LOSSLESS_PRIOS; p++)
        used = put_prio(d, p, out, outlen, used);
    if (used >= outlen)
        out[outlen - 1] = '\0';
    return out;
}

static bool maps_dscp(const struct pna_dcb *d)
{
    for (size_t i = 0; i < d->n_apps; i++)
        if (d->apps[i].selector == PNA_DCB_SEL_DSCP)
            return true;
    return false;
}

/* The trust the driver reports (its first, most trusted selector), else what
 * the APP table implies: mlx5 fills the DSCP entries when it trusts DSCP and
 * removes them when it trusts PCP, which is every NIC's default. */
static void judge_trust(struct pna_lossless_if *l)
{
    const struct pna_dcb *d = &l->dcb;
    if (d->n_trust) {
        l->trust_source = PNA_TRUST_FROM_DRIVER;
        l->trust = d->trust[0] == PNA_DCB_SEL_DSCP  ? PNA_TRUST_DSCP
                   : d->trust[0] == PNA_DCB_SEL_PCP ? PNA_TRUST_PCP
                                                    : PNA_TRUST_UNKNOWN;
        return;
    }
    l->trust_source = PNA_TRUST_FROM_APP;
    l->trust = maps_dscp(d) ? PNA_TRUST_DSCP : PNA_TRUST_PCP;
}

/* The priority of a packet marked with DSCP, under the port's trust; -1 when
 * the port does not classify by DSCP or does not map that value. */
static int prio_of_dscp(const struct pna_lossless_if *l, int dscp)
{
    if (dscp < 0 || l->trust != PNA_TRUST_DSCP)
        return -1;
    return pna_dcb_dscp_prio(&l->dcb, (unsigned)dscp);
}

/* RoCE traffic carries the RDMA CM ToS; its upper six bits are the DSCP.  CNPs
 * carry cnp_dscp under DSCP trust and the 802.1p priority cnp_802p_prio
 * otherwise. */
static void judge_priorities(struct pna_lossless_if *l)
{
    l->rdma_prio = (int8_t)(l->roce_tos >= 0 ? prio_of_dscp(l, l->roce_tos >> 2) : -1);
    if (l->trust == PNA_TRUST_DSCP)
        l->cnp_prio = (int8_t)prio_of_dscp(l, l->ecn.cnp_dscp);
    else
        l->cnp_prio = (int8_t)(l->ecn.cnp_802p_prio >= 0 && l->ecn.cnp_802p_prio < PNA_LOSSLESS_PRIOS
                                   ? l->ecn.cnp_802p_prio : -1);
}

struct reason {
    char *buf;
    size_t len, used;
};

static void add(struct reason *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void add(struct reason *r, const char *fmt, ...)
{
    if (r->used && r->used + 2 < r->len) {
        memcpy(r->buf + r->used, "; ", 3);
        r->used += 2;
    }
    if (r->used >= r->len)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(r->buf + r->used, r->len - r->used, fmt, ap);
    va_end(ap);
    if (n > 0)
        r->used += (size_t)n < r->len - r->used ? (size_t)n : r->len - r->used - 1;
}

static unsigned popcount8(uint8_t v)
{
    unsigned n = 0;
    for (; v; v &= (uint8_t)(v - 1))
        n++;
    return n;
}

static void rule_pfc(const struct pna_lossless_if *l, struct reason *r)
{
    const struct pna_dcb *d = &l->dcb;
    if (!d->has_pfc) {
        add(r, "the driver reports no PFC configuration");
        return;
    }
    if (!d->pfc_en)
        add(r, "PFC is enabled on no priority");
    else if (d->pfc_cap && popcount8(d->pfc_en) > d->pfc_cap)
        add(r, "PFC is enabled on %u priorities, the port honours %u", popcount8(d->pfc_en),
            (unsigned)d->pfc_cap);
}

/* ECN on the PFC priorities: both halves of DCQCN, where the driver shows them. */
static void rule_ecn(const struct pna_lossless_if *l, struct reason *r)
{
    const struct pna_ecn *e = &l->ecn;
    if (!e->present || !l->dcb.has_pfc)
        return;
    uint8_t np_off = (uint8_t)(l->dcb.pfc_en & e->np_known & ~e->np_enabled);
    uint8_t rp_off = (uint8_t)(l->dcb.pfc_en & e->rp_known & ~e->rp_enabled);
    char list[24];
    if (np_off)
        add(r, "ECN (roce_np) is off on PFC priority %s", pna_prio_list(np_off, list, sizeof list));
    if (rp_off)
        add(r, "ECN (roce_rp) is off on PFC priority %s", pna_prio_list(rp_off, list, sizeof list));
}

static void rule_trust(const struct pna_lossless_if *l, struct reason *r)
{
    if (l->trust_source == PNA_TRUST_FROM_DRIVER && l->trust == PNA_TRUST_PCP && maps_dscp(&l->dcb))
        add(r, "the port trusts PCP but its APP table maps DSCP");
}

static bool lossless_prio(const struct pna_dcb *d, int prio)
{
    return d->has_pfc && (d->pfc_en & (1u << prio));
}

static void rule_rdma(const struct pna_lossless_if *l, struct reason *r)
{
    if (l->roce_tos < 0 || l->trust != PNA_TRUST_DSCP)
        return;
    int dscp = l->roce_tos >> 2;
    if (l->rdma_prio < 0)
        add(r, "RDMA traffic's DSCP %d (ToS %d) is not in the APP table", dscp, l->roce_tos);
    else if (!lossless_prio(&l->dcb, l->rdma_prio))
        add(r, "RDMA traffic (ToS %d, DSCP %d) maps to priority %d, which has no PFC", l->roce_tos,
            dscp, l->rdma_prio);
}

static void rule_cnp(const struct pna_lossless_if *l, struct reason *r)
{
    const struct pna_dcb *d = &l->dcb;
    if (l->cnp_prio < 0 || lossless_prio(d, l->cnp_prio))
        return;
    if (d->has_ets && d->tc_tsa[d->prio_tc[l->cnp_prio] & 7] == PNA_ETS_TSA_STRICT)
        return;
    add(r, "CNPs are sent on priority %d, which has neither PFC nor strict priority", l->cnp_prio);
}

static const char *trust_word(uint8_t trust)
{
    return trust == PNA_TRUST_DSCP ? "dscp" : trust == PNA_TRUST_PCP ? "pcp" : "unknown";
}

static void rule_fleet(const struct pna_lossless_if *l, const struct pna_lossless_expect *e,
                       struct reason *r)
{
    char have[24], want[24];
    if (!e)
        return;
    if (e->has_pfc && l->dcb.pfc_en != e->pfc_en)
        add(r, "PFC is on %s, the fleet's is %s (losslessPfcPriorities)",
            l->dcb.pfc_en ? pna_prio_list(l->dcb.pfc_en, have, sizeof have) : "none",
            e->pfc_en ? pna_prio_list(e->pfc_en, want, sizeof want) : "none");
    if (e->trust != PNA_TRUST_UNKNOWN && l->trust != e->trust)
        add(r, "the port trusts %s, the fleet %s (losslessTrust)", trust_word(l->trust),
            trust_word(e->trust));
}

void pna_lossless_judge(struct pna_lossless_if *l, const struct pna_lossless_expect *expect)
{
    struct reason r = { l->reason, sizeof l->reason, 0 };
    l->reason[0] = '\0';
    l->dscp_map[0] = '\0';
    if (!l->dcb.read) {
        l->trust = PNA_TRUST_UNKNOWN;
        l->trust_source = PNA_TRUST_FROM_NONE;
        l->rdma_prio = l->cnp_prio = -1;
        l->verdict = PNA_LOSSLESS_UNREADABLE;
        add(&r, "DCB configuration unreadable: %s", l->dcb.error[0] ? l->dcb.error : "no answer");
        return;
    }
    judge_trust(l);
    judge_priorities(l);
    pna_dcb_dscp_map(&l->dcb, l->dscp_map, sizeof l->dscp_map);
    rule_pfc(l, &r);
    rule_ecn(l, &r);
    rule_trust(l, &r);
    rule_rdma(l, &r);
    rule_cnp(l, &r);
    rule_fleet(l, expect, &r);
    l->verdict = r.used ? PNA_LOSSLESS_NOT_READY : PNA_LOSSLESS_READY;
}

/* ---- the node ---------------------------------------------------------------- */

/* The first way A and B differ, written into WHAT; false when they agree. */
static bool differ(const struct pna_lossless_if *a, const struct pna_lossless_if *b, char *what,
                   size_t len)
{
    char la[24], lb[24];
    uint8_t pa = a->dcb.pfc_en, pb = b->dcb.pfc_en;
    if (pa != pb)
        snprintf(what, len, "PFC on %s vs %s", pa ? pna_prio_list(pa, la, sizeof la) : "none",
                 pb ? pna_prio_list(pb, lb, sizeof lb) : "none");
    else if (a->trust != b->trust)
        snprintf(what, len, "trust %s vs %s", trust_word(a->trust), trust_word(b->trust));
    else if ((a->ecn.np_enabled & pa) != (b->ecn.np_enabled & pb) ||
             (a->ecn.rp_enabled & pa) != (b->ecn.rp_enabled & pb))
        snprintf(what, len, "ECN on the PFC priorities");
    else if (a->rdma_prio != b->rdma_prio)
        snprintf(what, len, "RDMA priority %d vs %d", a->rdma_prio, b->rdma_prio);
    else if (a->cnp_prio != b->cnp_prio)
        snprintf(what, len, "CNP priority %d vs %d", a->cnp_prio, b->cnp_prio);
    else
        return false;
    return true;
}

static void count_ports(const struct pna_lossless_if *const *ifs, size_t n, struct pna_lossless_node *out)
{
    for (size_t i = 0; i < n; i++) {
        if (ifs[i]->verdict == PNA_LOSSLESS_READY)
            out->ports_ready++;
        else if (ifs[i]->verdict == PNA_LOSSLESS_NOT_READY)
            out->ports_not_ready++;
        else
            out->ports_unreadable++;
    }
}

/* The first not-ready interface (else the first unreadable one), named with
 * its reason and how many more there are. */
static void name_worst(const struct pna_lossless_if *const *ifs, const char *const *names, size_t n,
                       uint8_t verdict, uint32_t count, struct reason *r)
{
    for (size_t i = 0; i < n; i++)
        if (ifs[i]->verdict == verdict) {
            if (count > 1)
                add(r, "%s: %s (and %u more)", names[i], ifs[i]->reason, (unsigned)(count - 1));
            else
                add(r, "%s: %s", names[i], ifs[i]->reason);
            return;
        }
}

/* The first pair of readable interfaces configured differently. */
static void name_difference(const struct pna_lossless_if *const *ifs, const char *const *names,
                            size_t n, struct reason *r)
{
    const struct pna_lossless_if *first = NULL;
    const char *first_name = NULL;
    char what[96];
    for (size_t i = 0; i < n; i++) {
        if (!ifs[i]->dcb.read)
            continue;
        if (!first) {
            first = ifs[i];
            first_name = names[i];
        } else if (differ(first, ifs[i], what, sizeof what)) {
            add(r, "%s and %s are configured differently: %s", first_name, names[i], what);
            return;
        }
    }
}

void pna_lossless_judge_node(const struct pna_lossless_if *const *ifs, const char *const *names,
                             size_t n, struct pna_lossless_node *out)
{
    memset(out, 0, sizeof *out);
    struct reason r = { out->reason, sizeof out->reason, 0 };
    if (!n) {
        out->verdict = PNA_LOSSLESS_NOT_APPLICABLE;
        return;
    }
    count_ports(ifs, n, out);
    name_worst(ifs, names, n, PNA_LOSSLESS_NOT_READY, out->ports_not_ready, &r);
    name_difference(ifs, names, n, &r);
    if (r.used)
        out->verdict = PNA_LOSSLESS_NOT_READY;
    else if (out->ports_unreadable) {
        name_worst(ifs, names, n, PNA_LOSSLESS_UNREADABLE, out->ports_unreadable, &r);
        out->verdict = PNA_LOSSLESS_UNREADABLE;
    } else
        out->verdict = PNA_LOSSLESS_READY;
}
