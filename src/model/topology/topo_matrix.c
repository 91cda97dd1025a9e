/* model/topology/topo_matrix.c -- every pair's class, the nearest NICs of a GPU,
 * and the matrix as `nvidia-smi topo -m` prints it (see topo_matrix.h). */
#include "pna_autoconf.h"
#include "model/topology/topo_matrix.h"

#include <string.h>

void pna_topo_matrix_classify(struct pna_topo_matrix *m)
{
    for (unsigned i = 0; i < m->count; i++)
        for (unsigned j = 0; j < m->count; j++) {
            const struct pna_topo_device *a = &m->dev[i], *b = &m->dev[j];
            enum pna_topo_class c = PNA_TOPO_UNKNOWN;
            if (i == j)
                c = PNA_TOPO_SELF;
            else if (a->placed && b->placed)
                c = pna_topo_classify(&a->path, &b->path);
            if (c != PNA_TOPO_UNKNOWN)
                c = pna_topo_with_links(c, m->links[i][j]);
            else if (m->links[i][j] > 0)
                c = PNA_TOPO_NVLINK; /* the link is known even where the tree is not */
            m->cls[i][j] = (unsigned char)c;
        }
}

enum pna_topo_class pna_topo_nearest_nics(const struct pna_topo_matrix *m, unsigned g,
                                          bool out[PNA_TOPO_MAX_DEVICES])
{
    enum pna_topo_class best = PNA_TOPO_UNKNOWN;
    for (unsigned j = 0; j < PNA_TOPO_MAX_DEVICES; j++)
        out[j] = false;
    for (unsigned j = m->gpus; j < m->count; j++) {
        enum pna_topo_class c = (enum pna_topo_class)m->cls[g][j];
        if (c == PNA_TOPO_UNKNOWN)
            continue;
        if (best == PNA_TOPO_UNKNOWN || c < best)
            best = c;
    }
    for (unsigned j = m->gpus; j < m->count && best != PNA_TOPO_UNKNOWN; j++)
        out[j] = m->cls[g][j] == best;
    return best;
}

bool pna_topo_has_gpu(const struct pna_topo_matrix *m, const char *pci_addr)
{
    for (unsigned g = 0; g < m->gpus; g++)
        if (!strcmp(m->dev[g].pci_addr, pci_addr))
            return true;
    return false;
}

bool pna_topo_nearest_text(const struct pna_topo_matrix *m, const char *pci_addr, char *buf,
                           size_t cap)
{
    buf[0] = '\0';
    for (unsigned g = 0; g < m->gpus; g++) {
        if (strcmp(m->dev[g].pci_addr, pci_addr) != 0)
            continue;
        bool near[PNA_TOPO_MAX_DEVICES];
        if (pna_topo_nearest_nics(m, g, near) == PNA_TOPO_UNKNOWN)
            return false;
        size_t len = 0;
        for (unsigned j = m->gpus; j < m->count; j++) {
            size_t n = strlen(m->dev[j].name);
            if (!near[j] || len + n + (len ? 1 : 0) + 1 > cap)
                continue;
            if (len)
                buf[len++] = ',';
            memcpy(buf + len, m->dev[j].name, n + 1);
            len += n;
        }
        return len > 0;
    }
    return false;
}

static void print_row(const struct pna_topo_matrix *m, unsigned i, FILE *out)
{
    const struct pna_topo_device *d = &m->dev[i];
    fprintf(out, "%s", d->label);
    for (unsigned j = 0; j < m->count; j++) {
        char cell[16];
        pna_topo_cell_text((enum pna_topo_class)m->cls[i][j], m->links[i][j], cell, sizeof cell);
        fprintf(out, "\t%s", cell);
    }
    if (d->kind == PNA_TOPO_GPU) {
        fprintf(out, "\t%s", d->cpus[0] ? d->cpus : "N/A");
        if (d->placed && d->path.has_numa_node)
            fprintf(out, "\t%d", (int)d->path.numa_node);
        else
            fprintf(out, "\tN/A");
    }
    fputc('\n', out);
}

static const char legend[] =
    "\nLegend:\n\n"
    "  X    = Self\n"
    "  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes (e.g., QPI/UPI)\n"
    "  NODE = Connection traversing PCIe as well as the interconnect between PCIe Host Bridges within a NUMA node\n"
    "  PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)\n"
    "  PXB  = Connection traversing multiple PCIe bridges (without traversing the PCIe Host Bridge)\n"
    "  PIX  = Connection traversing at most a single PCIe bridge\n"
    "  NV#  = Connection traversing a bonded set of # NVLinks (or XGMI links)\n";

void pna_topo_matrix_print(const struct pna_topo_matrix *m, FILE *out)
{
    for (unsigned j = 0; j < m->count; j++)
        fprintf(out, "\t%s", m->dev[j].label);
    fprintf(out, "\tCPU Affinity\tNUMA Affinity\n");
    for (unsigned i = 0; i < m->count; i++)
        print_row(m, i, out);
    fputs(legend, out);
    if (m->count > m->gpus) {
        fprintf(out, "\nNIC Legend:\n\n");
        for (unsigned j = m->gpus; j < m->count; j++)
            fprintf(out, "  %s: %s\n", m->dev[j].label, m->dev[j].name);
    }
    for (unsigned i = 0; i < m->count; i++)
        if (m->dev[i].error[0])
            fprintf(out, "\n%s (%s): %s%s", m->dev[i].label, m->dev[i].pci_addr,
                    m->dev[i].placed ? "" : "place unknown: ", m->dev[i].error);
    fputc('\n', out);
}
