/* model/topology/topo_class.c -- the nvidia-smi topo -m class of a pair of PCI
 * functions from their places in the PCI hierarchy (see topo_class.h). */
#include "pna_autoconf.h"
#include "model/topology/topo_class.h"

#include <stdio.h>
#include <string.h>

const char *pna_topo_class_name(enum pna_topo_class c)
{
    switch (c) {
    case PNA_TOPO_SELF: return "X";
    case PNA_TOPO_NVLINK: return "NV";
    case PNA_TOPO_PIX: return "PIX";
    case PNA_TOPO_PXB: return "PXB";
    case PNA_TOPO_PHB: return "PHB";
    case PNA_TOPO_NODE: return "NODE";
    case PNA_TOPO_SYS: return "SYS";
    case PNA_TOPO_UNKNOWN: break;
    }
    return "unknown";
}

/* How many leading hops A and B share. */
static unsigned shared_hops(const struct pna_pci_path *a, const struct pna_pci_path *b)
{
    unsigned n = 0;
    while (n < a->depth && n < b->depth && strcmp(a->hops[n], b->hops[n]) == 0)
        n++;
    return n;
}

/* The switch a bridge at hops[I] belongs to, named by its upstream port: hops[0]
 * is the root port (no switch, NULL), odd indexes are upstream ports, even ones
 * (from 2) downstream ports of the upstream port above them. */
static const char *switch_of(const struct pna_pci_path *p, unsigned i)
{
    if (i == 0)
        return NULL;
    return p->hops[i % 2 == 1 ? i : i - 1];
}

/* Adds the switch of every bridge of P from hops[FROM] to just above the
 * function itself to SEEN (N names so far); returns the new count. */
static unsigned add_switches(const struct pna_pci_path *p, unsigned from, const char **seen,
                             unsigned n)
{
    for (unsigned i = from; i + 1 < p->depth; i++) {
        const char *sw = switch_of(p, i);
        if (!sw)
            continue;
        unsigned k = 0;
        while (k < n && strcmp(seen[k], sw) != 0)
            k++;
        if (k == n)
            seen[n++] = sw;
    }
    return n;
}

/* Both under one root port: one switch on the way is PIX, more PXB.  The
 * lowest shared function (hops[SHARED-1]) is on the way, once. */
static enum pna_topo_class below_root_port(const struct pna_pci_path *a,
                                           const struct pna_pci_path *b, unsigned shared)
{
    const char *seen[2 * PNA_PCI_PATH_MAX];
    unsigned n = 0;
    const char *lowest = switch_of(a, shared - 1);
    if (lowest && shared < a->depth && shared < b->depth)
        seen[n++] = lowest;
    n = add_switches(a, shared, seen, n);
    n = add_switches(b, shared, seen, n);
    return n <= 1 ? PNA_TOPO_PIX : PNA_TOPO_PXB;
}

enum pna_topo_class pna_topo_classify(const struct pna_pci_path *a, const struct pna_pci_path *b)
{
    if (a->depth == 0 || b->depth == 0)
        return PNA_TOPO_UNKNOWN;
    if (strcmp(a->host_bridge, b->host_bridge) != 0) {
        if (!a->has_numa_node || !b->has_numa_node)
            return PNA_TOPO_UNKNOWN;
        return a->numa_node == b->numa_node ? PNA_TOPO_NODE : PNA_TOPO_SYS;
    }
    unsigned shared = shared_hops(a, b);
    if (shared == a->depth && shared == b->depth)
        return PNA_TOPO_SELF;
    if (shared == 0)
        return PNA_TOPO_PHB; /* different root ports of one host bridge */
    return below_root_port(a, b, shared);
}

enum pna_topo_class pna_topo_with_links(enum pna_topo_class pcie, unsigned nvlinks)
{
    if (pcie == PNA_TOPO_SELF || nvlinks == 0)
        return pcie;
    return PNA_TOPO_NVLINK;
}

void pna_topo_cell_text(enum pna_topo_class c, unsigned nvlinks, char *buf, unsigned cap)
{
    if (c == PNA_TOPO_SELF)
        snprintf(buf, cap, " X ");
    else if (c == PNA_TOPO_NVLINK)
        snprintf(buf, cap, "NV%u", nvlinks);
    else
        snprintf(buf, cap, "%s", pna_topo_class_name(c));
}
