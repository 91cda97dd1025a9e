/* model/topology/alignment.c -- a holder's GPU and RDMA alignment verdict
 * (see alignment.h). */
#include "pna_autoconf.h"
#include "model/topology/alignment.h"

#include <stdio.h>
#include <string.h>

const char *const pna_alignment_verdict_names[PNA_ALIGN_NOT_APPLICABLE + 1] = {
    [PNA_ALIGN_UNKNOWN] = "",
    [PNA_ALIGN_ALIGNED] = "aligned",
    [PNA_ALIGN_SAME_NODE] = "sameNode",
    [PNA_ALIGN_MISALIGNED] = "misaligned",
    [PNA_ALIGN_UNREADABLE] = "unreadable",
    [PNA_ALIGN_NOT_APPLICABLE] = "notApplicable",
};

/* The tier of a GPU's nearest own NIC at class C. */
static uint8_t tier_of(enum pna_topo_class c)
{
    switch (c) {
    case PNA_TOPO_SELF:
    case PNA_TOPO_NVLINK: /* a NIC is never joined by NVLink: kept for completeness */
    case PNA_TOPO_PIX:
    case PNA_TOPO_PXB: return PNA_ALIGN_ALIGNED;
    case PNA_TOPO_PHB:
    case PNA_TOPO_NODE: return PNA_ALIGN_SAME_NODE;
    case PNA_TOPO_SYS: return PNA_ALIGN_MISALIGNED;
    case PNA_TOPO_UNKNOWN: break;
    }
    return PNA_ALIGN_UNREADABLE;
}

/* How bad a verdict is, for the worst-first order and pna_alignment_worse(). */
static int severity(uint8_t v)
{
    switch (v) {
    case PNA_ALIGN_SAME_NODE: return 1;
    case PNA_ALIGN_UNREADABLE: return 2;
    case PNA_ALIGN_MISALIGNED: return 3;
    default: return 0;
    }
}

/* GPU G's nearest NIC among NICS: its index in M, or -1 when every class is unknown. */
static int nearest_own(const struct pna_topo_matrix *m, unsigned g, const unsigned *nics,
                       size_t nnic)
{
    int best = -1;
    for (size_t k = 0; k < nnic; k++) {
        enum pna_topo_class c = (enum pna_topo_class)m->cls[g][nics[k]];
        if (c == PNA_TOPO_UNKNOWN)
            continue;
        if (best < 0 || c < (enum pna_topo_class)m->cls[g][best])
            best = (int)nics[k];
    }
    return best;
}

static void append(char *reason, size_t cap, const char *text)
{
    size_t n = strlen(reason);
    if (n + 2 < cap)
        snprintf(reason + n, cap - n, "%s%s", n ? "; " : "", text);
}

/* One GPU's part of the reason. */
static void describe(const struct pna_topo_matrix *m, unsigned g, int nic, char *buf, size_t cap)
{
    if (nic < 0)
        snprintf(buf, cap, "%s: distance to every own NIC unknown", m->dev[g].label);
    else
        snprintf(buf, cap, "%s: nearest own NIC %s at %s", m->dev[g].label, m->dev[nic].name,
                 pna_topo_class_name((enum pna_topo_class)m->cls[g][nic]));
}

void pna_alignment_judge(const struct pna_topo_matrix *m, const unsigned *gpus, size_t ngpu,
                         const unsigned *nics, size_t nnic, struct pna_alignment *out)
{
    memset(out, 0, sizeof *out);
    out->worst_gpu = out->worst_nic = -1;
    if (ngpu == 0 || nnic == 0) {
        out->verdict = PNA_ALIGN_NOT_APPLICABLE;
        return;
    }
    out->verdict = PNA_ALIGN_ALIGNED;
    /* worst first: one pass per severity, from the worst down */
    for (int sev = 3; sev >= 1; sev--)
        for (size_t i = 0; i < ngpu; i++) {
            int nic = nearest_own(m, gpus[i], nics, nnic);
            uint8_t v = nic < 0 ? PNA_ALIGN_UNREADABLE
                                : tier_of((enum pna_topo_class)m->cls[gpus[i]][nic]);
            if (severity(v) != sev)
                continue;
            if (severity(v) > severity(out->verdict)) {
                out->verdict = v;
                out->worst_gpu = (int)gpus[i];
                out->worst_nic = nic;
            }
            char part[128];
            describe(m, gpus[i], nic, part, sizeof part);
            append(out->reason, sizeof out->reason, part);
        }
}

/* A verdict the rule gave (not unknown, not applicable, not unreadable). */
static bool judged(uint8_t v)
{
    return v == PNA_ALIGN_ALIGNED || v == PNA_ALIGN_SAME_NODE || v == PNA_ALIGN_MISALIGNED;
}

bool pna_alignment_worse(uint8_t prev, uint8_t cur)
{
    return judged(prev) && judged(cur) && severity(cur) > severity(prev);
}
