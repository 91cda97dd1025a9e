/* pollers/topology_poller.c -- the "topology" poller: the PCIe distance matrix
 * of the GPUs and RDMA devices its inputs list (the gpu and ib snapshots),
 * each device placed in the sysfs PCI hierarchy (sources/pci/pci_path.c), the
 * GPUs' NVLink and XGMI links taken from the gpu snapshot's link table.
 *
 * The tree changes only when a device comes or goes, but reading it is a
 * few dozen stat() and readlink() calls: it is read whole at every poll. */
#include "pna_autoconf.h"
#include "core/config.h"
#include "model/gpu/gpu.h"
#include "model/ib.h"
#include "model/topology/topology.h"
#include "pollers/pollers.h"
#include "sources/pci/pci_topology.h"
#include "util/fileio.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct topology_state {
    struct pna_roots roots;
};

static int topology_init(void **state, const struct pna_config *cfg, const void *settings,
                         char *err, size_t errlen)
{
    (void)settings;
    struct topology_state *st = calloc(1, sizeof *st);
    if (!st) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    st->roots = cfg->roots;
    *state = st;
    return 0;
}

static void destroy_snap(struct pna_snap *snap)
{
    struct pna_topo_snap *s = (struct pna_topo_snap *)snap;
    free(s->pairs);
    free(s);
}

/* GPU<n>: n counts the GPUs in PCI address order (the snapshot's, by
 * primusGpuIndex), as nvidia-smi and --topo number them. */
static void add_gpus(struct pna_topo_matrix *m, const struct pna_gpu_snap *g, unsigned *left_out)
{
    unsigned n = 0;
    for (size_t i = 0; g && i < g->count; i++) {
        if (!g->gpus[i].pci_bus_id[0])
            continue;
        if (m->count == PNA_TOPO_MAX_DEVICES) {
            (*left_out)++;
            continue;
        }
        struct pna_topo_device *d = &m->dev[m->count++];
        d->kind = PNA_TOPO_GPU;
        snprintf(d->label, sizeof d->label, "GPU%u", n++);
        pna_strlcpy(d->name, d->label, sizeof d->name);
        pna_strlcpy(d->pci_addr, g->gpus[i].pci_bus_id, sizeof d->pci_addr);
    }
    m->gpus = m->count;
}

static void add_nics(struct pna_topo_matrix *m, const struct pna_ib_snap *ib, unsigned *left_out)
{
    unsigned n = 0;
    for (size_t i = 0; ib && i < ib->model.n_devices; i++) {
        const struct pna_ib_device *dev = &ib->model.devices[i];
        if (!dev->pci_addr[0])
            continue; /* rxe, siw: no PCI function */
        if (m->count == PNA_TOPO_MAX_DEVICES) {
            (*left_out)++;
            continue;
        }
        struct pna_topo_device *d = &m->dev[m->count++];
        d->kind = PNA_TOPO_NIC;
        snprintf(d->label, sizeof d->label, "NIC%u", n++);
        pna_strlcpy(d->name, dev->name, sizeof d->name);
        pna_strlcpy(d->pci_addr, dev->pci_addr, sizeof d->pci_addr);
    }
}

/* Up links of G to the GPU at BUS_ID, and to NVSwitches. */
static void count_links(const struct pna_gpu *g, const char *bus_id, unsigned *direct,
                        unsigned *to_switch)
{
    *direct = *to_switch = 0;
    for (uint32_t l = 0; l < g->link_count && l < PNA_GPU_MAX_LINKS; l++) {
        const struct pna_gpu_link *k = &g->links[l];
        if (!k->has_state || !k->up)
            continue;
        if (k->remote_type == PNA_GPU_LINK_REMOTE_SWITCH)
            (*to_switch)++;
        else if (!strcmp(k->remote_bus_id, bus_id))
            (*direct)++;
    }
}

static const struct pna_gpu *gpu_at(const struct pna_gpu_snap *g, const char *bus_id)
{
    for (size_t i = 0; g && i < g->count; i++)
        if (!strcmp(g->gpus[i].pci_bus_id, bus_id))
            return &g->gpus[i];
    return NULL;
}

/* The links between each pair of GPUs: direct ones, or through the
 * NVSwitches, where nvidia-smi counts the links each GPU has to them. */
static void set_links(struct pna_topo_matrix *m, const struct pna_gpu_snap *g)
{
    for (unsigned i = 0; i < m->gpus; i++)
        for (unsigned j = 0; j < m->gpus; j++) {
            const struct pna_gpu *a = gpu_at(g, m->dev[i].pci_addr);
            const struct pna_gpu *b = gpu_at(g, m->dev[j].pci_addr);
            if (i == j || !a || !b)
                continue;
            unsigned direct, a_sw, b_direct, b_sw;
            count_links(a, b->pci_bus_id, &direct, &a_sw);
            count_links(b, a->pci_bus_id, &b_direct, &b_sw);
            unsigned sw = a_sw < b_sw ? a_sw : b_sw;
            unsigned n = direct ? direct : sw;
            m->links[i][j] = (unsigned char)(n > 255 ? 255 : n);
        }
}

static int make_pairs(struct pna_topo_snap *s)
{
    const struct pna_topo_matrix *m = &s->matrix;
    if (m->count < 2)
        return 0;
    s->pairs = calloc((size_t)m->count * (m->count - 1), sizeof *s->pairs);
    if (!s->pairs)
        return -1;
    for (unsigned i = 0; i < m->count; i++)
        for (unsigned j = 0; j < m->count; j++) {
            if (i == j)
                continue;
            struct pna_topo_pair *p = &s->pairs[s->pair_count++];
            pna_strlcpy(p->a, m->dev[i].name, sizeof p->a);
            pna_strlcpy(p->b, m->dev[j].name, sizeof p->b);
            p->cls = m->cls[i][j];
            p->nvlinks = m->links[i][j];
            p->gpus = i < m->gpus && j < m->gpus;
        }
    return 0;
}

static int topology_collect(void *state, const struct pna_snap *prev,
                            const struct pna_poller_inputs *in, struct pna_snap **out,
                            char *err, size_t errlen)
{
    (void)prev;
    struct topology_state *st = state;
    const struct pna_gpu_snap *gpu = (const struct pna_gpu_snap *)pna_poller_input(in, PNA_DOM_GPU);
    const struct pna_ib_snap *ib = (const struct pna_ib_snap *)pna_poller_input(in, PNA_DOM_IB);
    struct pna_topo_snap *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    unsigned left_out = 0;
    add_gpus(&s->matrix, gpu, &left_out);
    add_nics(&s->matrix, ib, &left_out);
    set_links(&s->matrix, gpu);
    char first[160];
    int problems = pna_topo_place_all(&st->roots, &s->matrix, first, sizeof first);
    if (make_pairs(s) != 0) {
        destroy_snap(&s->base);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (left_out > 0)
        snprintf(err, errlen, "%u devices beyond the first %d left out", left_out,
                 PNA_TOPO_MAX_DEVICES);
    else if (problems > 0)
        snprintf(err, errlen, "%d device%s not placed or without NUMA node; first: %s", problems,
                 problems > 1 ? "s" : "", first);
    pna_snap_init(&s->base, destroy_snap);
    s->base.taken_ms = pna_now_ms();
    *out = &s->base;
    return 0;
}

static void topology_fini(void *state)
{
    free(state);
}

const struct pna_poller_ops pna_topology_poller = {
    .name = "topology",
    .index = 12,
    .domain = PNA_DOM_TOPOLOGY,
    .inputs = PNA_DOM_BIT(PNA_DOM_GPU) | PNA_DOM_BIT(PNA_DOM_IB),
    /* as the gpu poller: a device it finds shows here within one more interval */
    .default_interval_ms = 10000,
    .default_timeout_ms = 2000,
    .init = topology_init,
    .collect = topology_collect,
    .fini = topology_fini,
};
