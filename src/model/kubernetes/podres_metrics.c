/* model/kubernetes/podres_metrics.c -- primusPodResourceTable: the kubelet's device
 * assignments (model/kubernetes/podres.h), one descriptor per value.  The GPU and MIG
 * columns join the row's id (or a DRA device's nodes) with the GPU snapshot
 * of the same view, the RDMA port with the IB snapshot. */
#include "pna_autoconf.h"
#include "model/metric_tables.h"

#include <stddef.h>
#include <string.h>

#include "model/gpu/gpu.h"
#include "model/ib.h"
#include "model/metric.h"
#include "model/oids.h"
#include "model/kubernetes/podres.h"

static const struct pna_podres_snap *podres_snap(const struct pna_view *v)
{
    return pna_view_snap(v, PNA_DOM_PODRES);
}

static size_t podres_rows(const struct pna_view *v)
{
    return podres_snap(v) ? podres_snap(v)->count : 0;
}

static bool podres_row(const struct pna_view *v, size_t i, struct pna_row *out)
{
    out->rec = &podres_snap(v)->rows[i];
    return true;
}

static const struct pna_podres_row *row_of(const struct pna_row *r)
{
    return r->rec;
}

static const char *const kind_names[] = {
    [PNA_POD_RESOURCE_KIND_GPU] = "gpu", [PNA_POD_RESOURCE_KIND_MIG] = "mig",
    [PNA_POD_RESOURCE_KIND_RDMA] = "rdma", [PNA_POD_RESOURCE_KIND_OTHER] = "other",
};
static const struct pna_enum kind_enum = PNA_ENUM(kind_names);

const char *pna_podres_kind_name(uint8_t kind)
{
    return kind < kind_enum.count && kind_names[kind] ? kind_names[kind] : "other";
}

/* The MIG device of primusGpuMigTable the row names (its MIG UUID, or a
 * DRA device's access capability), or NULL. */
static const struct pna_gpu_mig *mig_of(const struct pna_row *r)
{
    const struct pna_podres_row *p = row_of(r);
    if (p->kind != PNA_POD_RESOURCE_KIND_MIG)
        return NULL;
    return pna_podres_row_mig(p, pna_view_snap(r->view, PNA_DOM_GPU));
}

/* primusGpuIndex of the GPU the id names (a MIG device's GPU); 0 none. */
static void get_gpu_index(const struct pna_row *r, struct pna_value *out)
{
    const struct pna_gpu_snap *gs = pna_view_snap(r->view, PNA_DOM_GPU);
    const struct pna_podres_row *p = row_of(r);
    const struct pna_gpu_mig *m = mig_of(r);
    uint32_t index = m ? m->gpu_index : 0;
    for (size_t i = 0; gs && !index && p->kind == PNA_POD_RESOURCE_KIND_GPU && i < gs->count; i++)
        if (pna_podres_row_on_gpu(p, &gs->gpus[i]))
            index = gs->gpus[i].index;
    pna_value_u64(out, index);
}

/* The same GPU as its PCI address, for the info series; "" none. */
static void get_gpu_pci(const struct pna_row *r, struct pna_value *out)
{
    struct pna_value index;
    get_gpu_index(r, &index);
    const struct pna_gpu_snap *gs = pna_view_snap(r->view, PNA_DOM_GPU);
    const struct pna_gpu *g = gs && index.u ? pna_gpu_find(gs->gpus, gs->count, (uint32_t)index.u) : NULL;
    pna_value_text(out, g ? g->pci_bus_id : "");
}

static void get_mig_gpu_instance(const struct pna_row *r, struct pna_value *out)
{
    const struct pna_gpu_mig *m = mig_of(r);
    if (m)
        pna_value_u64(out, m->gpu_instance);
}

static void get_mig_compute_instance(const struct pna_row *r, struct pna_value *out)
{
    const struct pna_gpu_mig *m = mig_of(r);
    if (m)
        pna_value_u64(out, m->compute_instance);
}

/* The port of the row's RDMA device that its id names (in the IB snapshot of
 * the same view): the RoCE port whose netdev the id is, else the device's
 * only port (an id that is a PCI address: a VF, a one-port HCA).  Absent when
 * neither names one port. */
static void get_rdma_port(const struct pna_row *r, struct pna_value *out)
{
    const struct pna_ib_snap *is = pna_view_snap(r->view, PNA_DOM_IB);
    const struct pna_podres_row *p = row_of(r);
    if (!is || !p->rdma_dev[0])
        return;
    const struct pna_ib_device *dev;
    const struct pna_ib_port *port;
    /* A DRA NIC's device name is its interface (dranet). */
    const char *netdev = p->dra ? p->dra->device : p->id;
    if (pna_ib_find_netdev(&is->model, netdev, &dev, &port) && strcmp(dev->name, p->rdma_dev) == 0) {
        pna_value_u64(out, port->num);
        return;
    }
    dev = pna_ib_find_device(&is->model, p->rdma_dev);
    if (dev && dev->n_ports == 1)
        pna_value_u64(out, dev->ports[0].num);
}

/* A text member of the row's DRA part; "" for a device plugin's id. */
static void dra_text(const struct pna_row *r, size_t offset, struct pna_value *out)
{
    const struct pna_podres_dra *d = row_of(r)->dra;
    pna_value_text(out, d ? (const char *)d + offset : "");
}

#define DRA_TEXT(fn, member)                                                   \
    static void fn(const struct pna_row *r, struct pna_value *out)             \
    {                                                                          \
        dra_text(r, offsetof(struct pna_podres_dra, member), out);             \
    }
DRA_TEXT(get_claim_namespace, claim_namespace)
DRA_TEXT(get_claim_name, claim_name)
DRA_TEXT(get_driver, driver)
DRA_TEXT(get_pool, pool)
DRA_TEXT(get_device, device)
DRA_TEXT(get_cdi_device, cdi_device)

#define U32 PNA_SYNTAX_UNSIGNED
#define INT PNA_SYNTAX_INTEGER
#define TEXT PNA_SYNTAX_TEXT
#define ROW(member) PNA_FIELD(struct pna_podres_row, member)

static const struct pna_metric podres_metrics[] = {
    { .column = 2, .object = "primusPodResourceName", .syntax = TEXT, .field = ROW(resource),
      .label = "resource", .json = "resource" },
    { .column = 3, .object = "primusPodResourceDeviceId", .syntax = TEXT, .field = ROW(id),
      .label = "device_id", .json = "device_id" },
    { .column = 4, .object = "primusPodResourceNamespace", .syntax = TEXT,
      .field = ROW(pod_namespace), .label = "namespace", .json = "namespace" },
    { .column = 5, .object = "primusPodResourcePod", .syntax = TEXT, .field = ROW(pod_name),
      .label = "pod", .json = "pod" },
    { .column = 6, .object = "primusPodResourceContainer", .syntax = TEXT, .field = ROW(container),
      .label = "container", .json = "container" },
    { .column = 7, .object = "primusPodResourceNumaNode", .syntax = INT, .field = ROW(numa_node),
      .max = 65535, .label = "numa_node", .json = "numa_node" },
    { .column = 8, .object = "primusPodResourceAllocatable", .syntax = PNA_SYNTAX_TRUTH,
      .field = ROW(allocatable), .flags = PNA_METRIC_JSON_BOOL,
      .family = "primus_pod_resource_allocatable", .type = PNA_FAMILY_GAUGE, .json = "allocatable",
      .help = "1 when the kubelet lists the device among its allocatable devices" },
    { .column = 9, .object = "primusPodResourceKind", .syntax = INT, .field = ROW(kind),
      .enums = &kind_enum, .label = "kind", .json = "kind" },
    { .column = 10, .object = "primusPodResourceGpuIndex", .syntax = U32, .get = get_gpu_index,
      .json = "gpu_index" },
    { .get = get_gpu_pci, .label = "gpu_pci_bus_id" },
    { .column = 11, .object = "primusPodResourceMigGpuInstance", .syntax = U32,
      .get = get_mig_gpu_instance, .label = "mig_gpu_instance", .json = "mig_gpu_instance" },
    { .column = 12, .object = "primusPodResourceMigComputeInstance", .syntax = U32,
      .get = get_mig_compute_instance, .label = "mig_compute_instance",
      .json = "mig_compute_instance" },
    { .column = 13, .object = "primusPodResourceRdmaDevice", .syntax = TEXT, .field = ROW(rdma_dev),
      .label = "rdma_device", .json = "rdma_device" },
    { .column = 14, .object = "primusPodResourceRdmaPort", .syntax = U32, .get = get_rdma_port,
      .max = 255, .label = "rdma_port", .json = "rdma_port" },
    /* A DRA claim's device (empty for a device plugin's id). */
    { .column = 15, .object = "primusPodResourceClaimNamespace", .syntax = TEXT,
      .get = get_claim_namespace, .label = "claim_namespace", .json = "claim_namespace" },
    { .column = 16, .object = "primusPodResourceClaimName", .syntax = TEXT, .get = get_claim_name,
      .label = "claim", .json = "claim" },
    { .column = 17, .object = "primusPodResourceDriver", .syntax = TEXT, .get = get_driver,
      .label = "driver", .json = "driver" },
    { .column = 18, .object = "primusPodResourcePool", .syntax = TEXT, .get = get_pool,
      .label = "pool", .json = "pool" },
    { .column = 19, .object = "primusPodResourceDevice", .syntax = TEXT, .get = get_device,
      .label = "dra_device", .json = "dra_device" },
    { .column = 20, .object = "primusPodResourceCdiDevice", .syntax = TEXT, .get = get_cdi_device,
      .label = "cdi_device", .json = "cdi_device" },
};

/* primusPodResourceIndex: kept while the assignment lives. */
static const struct pna_key_part podres_key[] = {
    PNA_KEY_INDEX_FIELD("primusPodResourceIndex", "pod_resource_index", PNA_KEY_FROM_REC,
                        struct pna_podres_row, index),
};

const struct pna_metric_table pna_podres_metrics = {
    .object = "primusPodResourceTable",
    .kind = PNA_TABLE_ROWS,
    .domain = PNA_DOM_PODRES,
    .view = PNA_VIEW_DOMAIN(PNA_DOM_PODRES) | PNA_VIEW_DOMAIN(PNA_DOM_GPU) |
            PNA_VIEW_DOMAIN(PNA_DOM_IB),
    PNA_TABLE_OID(PNA_OID_KUBERNETES, 10),
    PNA_KEY(podres_key),
    .metrics = podres_metrics,
    .count = sizeof podres_metrics / sizeof podres_metrics[0],
    .rows = podres_rows,
    .row = podres_row,
    .info_family = "primus_pod_resource_info",
    .info_help = "One series per device id the kubelet assigned to a container or can allocate "
                 "(pod-resources API): resource, device id, pod, container, NUMA node, whether "
                 "allocatable, what it names (kind, MIG instance, RDMA device and port), and for "
                 "a DRA claim's device its claim, driver, pool, device and CDI device; always 1",
};
