/* sources/pci/pci_topology.c -- the distance matrix of a node's GPUs and RDMA
 * devices, read from sysfs alone (see pci_topology.h). */
#include "pna_autoconf.h"
#include "sources/pci/pci_topology.h"

#include <stdio.h>
#include <string.h>

#include "sources/pci/pci_path.h"
#include "sources/pci/pcie_sysfs.h"
#include "util/fileio.h"

/* Place device D and read its local CPUs; returns 1 for a problem, else 0. */
static int place(const struct pna_roots *roots, struct pna_topo_device *d)
{
    int rc = pna_pci_path_read(roots, d->pci_addr, &d->path, d->error, sizeof d->error);
    d->placed = rc == 0;
    if (!d->placed)
        return 1;
    struct pna_pcie loc;
    pna_pcie_read_locality(roots, d->pci_addr, &loc);
    if (loc.has_local_cpus)
        pna_strlcpy(d->cpus, loc.local_cpus, sizeof d->cpus);
    if (!d->path.has_numa_node) {
        snprintf(d->error, sizeof d->error,
                 "numa_node is -1 or unreadable: its pairs across host bridges are unknown");
        return 1;
    }
    return 0;
}

static void add(struct pna_topo_matrix *m, enum pna_topo_kind kind, unsigned number,
                const struct pna_pci_endpoint *e)
{
    struct pna_topo_device *d = &m->dev[m->count++];
    d->kind = kind;
    snprintf(d->label, sizeof d->label, "%s%u", kind == PNA_TOPO_GPU ? "GPU" : "NIC", number);
    pna_strlcpy(d->name, e->name[0] ? e->name : e->pci_addr, sizeof d->name);
    pna_strlcpy(d->pci_addr, e->pci_addr, sizeof d->pci_addr);
}

int pna_topo_collect(const struct pna_roots *roots, struct pna_topo_matrix *m)
{
    memset(m, 0, sizeof *m);
    struct pna_pci_endpoint found[PNA_TOPO_MAX_DEVICES];
    int gpus = pna_pci_list_gpus(roots, found, PNA_TOPO_MAX_DEVICES);
    if (gpus < 0)
        return gpus;
    for (int i = 0; i < gpus; i++)
        add(m, PNA_TOPO_GPU, (unsigned)i, &found[i]);
    m->gpus = m->count;
    int nics = pna_pci_list_rdma(roots, found, PNA_TOPO_MAX_DEVICES - m->count);
    for (int i = 0; i < nics; i++)
        add(m, PNA_TOPO_NIC, (unsigned)i, &found[i]);
    char first[160];
    return pna_topo_place_all(roots, m, first, sizeof first);
}

int pna_topo_place_all(const struct pna_roots *roots, struct pna_topo_matrix *m, char *first,
                       size_t first_cap)
{
    int problems = 0;
    first[0] = '\0';
    for (unsigned i = 0; i < m->count; i++) {
        int bad = place(roots, &m->dev[i]);
        if (bad && problems == 0)
            snprintf(first, first_cap, "%s %s: %s", m->dev[i].label, m->dev[i].name,
                     m->dev[i].error);
        problems += bad;
    }
    pna_topo_matrix_classify(m);
    return problems;
}
