/* model/ib_metrics.c -- the served values of the RDMA domain (primusRdma): the
 * device count, primusRdmaDeviceTable, primusIbPortTable, primusRoceCongTable
 * and primusHwCounterTable, one descriptor per value (see metric.h, ib.h).
 *
 * Counters a port does not offer (iWARP's "N/A (no PMA)") are absent, never
 * 0; data counters are octets already (the kernel's 4-octet words x 4).  A
 * device's PCIe figures (model/pcie.h) are absent where sysfs has no file or
 * the link cannot say (a link in low power). */
#include "pna_autoconf.h"
#include "model/metric_tables.h"

#include <string.h>

#include "model/ib.h"
#include "model/kubernetes/holders.h"
#include "model/metric.h"
#include "model/oids.h"
#include "model/slurm/slurm_holders.h"

static const struct pna_ib_model *ib_model(const struct pna_view *v)
{
    const struct pna_ib_snap *s = pna_view_snap(v, PNA_DOM_IB);
    return s ? &s->model : NULL;
}

#define C64 PNA_SYNTAX_COUNTER64
#define U32 PNA_SYNTAX_UNSIGNED
#define TEXT PNA_SYNTAX_TEXT
#define COUNTER PNA_FAMILY_COUNTER
#define GAUGE PNA_FAMILY_GAUGE

/* ---- primusRdma scalars ------------------------------------------------------ */

static size_t one_row_with_data(const struct pna_view *v)
{
    return ib_model(v) ? 1 : 0;
}

static bool model_row(const struct pna_view *v, size_t i, struct pna_row *out)
{
    (void)i;
    out->rec = ib_model(v);
    return true;
}

static const struct pna_metric rdma_scalar_metrics[] = {
    { .column = 1, .object = "primusRdmaDeviceCount", .syntax = U32,
      .field = PNA_FIELD(struct pna_ib_model, n_devices),
      .family = "primus_rdma_devices", .type = GAUGE, .help = "RDMA devices on the node" },
};

const struct pna_metric_table pna_rdma_scalar_metrics = {
    .object = "primusRdma",
    .kind = PNA_TABLE_SCALARS,
    .domain = PNA_DOM_IB,
    .view = PNA_VIEW_DOMAIN(PNA_DOM_IB),
    PNA_TABLE_OID(PNA_OID_RDMA),
    .metrics = rdma_scalar_metrics,
    .count = sizeof rdma_scalar_metrics / sizeof rdma_scalar_metrics[0],
    .rows = one_row_with_data,
    .row = model_row,
};

/* ---- primusRdmaDeviceTable ---------------------------------------------------- */

static size_t device_rows(const struct pna_view *v)
{
    const struct pna_ib_model *m = ib_model(v);
    return m ? m->n_devices : 0;
}

static bool device_row(const struct pna_view *v, size_t i, struct pna_row *out)
{
    const struct pna_ib_device *d = &ib_model(v)->devices[i];
    out->rec = d;
    size_t n = strlen(d->name);
    return n >= 1 && n <= PNA_MAX_RDMA_DEVICE_NAME_LEN;
}

static const char *const node_type_names[] = {
    [PNA_RDMA_NODE_TYPE_CA] = "ca", [PNA_RDMA_NODE_TYPE_SWITCH] = "switch",
    [PNA_RDMA_NODE_TYPE_ROUTER] = "router", [PNA_RDMA_NODE_TYPE_RNIC] = "rnic",
    [PNA_RDMA_NODE_TYPE_USNIC] = "usnic", [PNA_RDMA_NODE_TYPE_USNIC_UDP] = "usnicUdp",
    [PNA_RDMA_NODE_TYPE_UNSPECIFIED] = "unspecified",
};
static const struct pna_enum node_type_enum = PNA_ENUM(node_type_names);

static void get_port_count(const struct pna_row *r, struct pna_value *out)
{
    pna_value_u64(out, ((const struct pna_ib_device *)r->rec)->n_ports);
}

/* Who holds the device (model/kubernetes/holders.h, model/slurm/slurm_holders.h):
 * joins made here, from the view's containers, pod-resources and Slurm
 * snapshots. */
static void device_holder(const struct pna_row *r, struct pna_holder *h)
{
    pna_rdma_holder(r->view, ((const struct pna_ib_device *)r->rec)->name, h);
}

static void get_holder_count(const struct pna_row *r, struct pna_value *out)
{
    struct pna_holder h;
    device_holder(r, &h);
    pna_value_u64(out, h.count);
}

static void get_holder_container(const struct pna_row *r, struct pna_value *out)
{
    struct pna_holder h;
    device_holder(r, &h);
    pna_value_text(out, h.container_id);
}

static void get_holder_pod(const struct pna_row *r, struct pna_value *out)
{
    struct pna_holder h;
    device_holder(r, &h);
    pna_value_text(out, h.pod);
}

static void get_holder_namespace(const struct pna_row *r, struct pna_value *out)
{
    struct pna_holder h;
    device_holder(r, &h);
    pna_value_text(out, h.pod_namespace);
}

static void get_holder_job(const struct pna_row *r, struct pna_value *out)
{
    uint32_t job = pna_slurm_rdma_job(r->view, r->rec);
    if (job)
        pna_value_u64(out, job);
    else
        pna_value_none(out);
}

#define PCIE_IF(member, has) PNA_FIELD_IF(struct pna_ib_device, pcie.member, pcie.has)
#define AER_COL(col, obj, member, fam, text, js)                                               \
    { .column = (col), .object = (obj), .syntax = C64,                                       \
      .field = PNA_FIELD(struct pna_ib_device, pcie.member), .family = (fam), .type = COUNTER, \
      .help = (text), .json = (js) }

static const struct pna_metric device_metrics[] = {
    { .column = 2, .object = "primusRdmaNodeType", .syntax = PNA_SYNTAX_INTEGER,
      .field = PNA_FIELD_NZ(struct pna_ib_device, node_type), .enums = &node_type_enum },
    { .field = PNA_FIELD(struct pna_ib_device, node_type_text), .label = "node_type" },
    { .column = 3, .object = "primusRdmaFirmware", .syntax = TEXT,
      .field = PNA_FIELD(struct pna_ib_device, fw_ver), .label = "firmware" },
    { .column = 4, .object = "primusRdmaHcaType", .syntax = TEXT,
      .field = PNA_FIELD(struct pna_ib_device, hca_type), .label = "hca_type" },
    { .column = 5, .object = "primusRdmaBoardId", .syntax = TEXT,
      .field = PNA_FIELD(struct pna_ib_device, board_id), .label = "board_id" },
    { .column = 6, .object = "primusRdmaNodeGuid", .syntax = TEXT,
      .field = PNA_FIELD_IF(struct pna_ib_device, node_guid_text, has_node_guid), .label = "node_guid" },
    { .column = 7, .object = "primusRdmaSysImageGuid", .syntax = TEXT,
      .field = PNA_FIELD_IF(struct pna_ib_device, sys_image_guid_text, has_sys_image_guid),
      .label = "sys_image_guid" },
    { .column = 8, .object = "primusRdmaPortCount", .syntax = U32, .get = get_port_count,
      .family = "primus_rdma_device_ports", .type = GAUGE, .help = "Ports of the RDMA device" },
    { .column = 9, .object = "primusRdmaDriver", .syntax = TEXT,
      .field = PNA_FIELD(struct pna_ib_device, driver), .label = "driver" },
    { .column = 10, .object = "primusRdmaPciBusId", .syntax = TEXT,
      .field = PNA_FIELD(struct pna_ib_device, pci_addr), .label = "pci_bus_id" },
    { .column = 11, .object = "primusRdmaPcieLinkSpeed", .syntax = U32,
      .field = PCIE_IF(link_speed_mtps, has_link_speed),
      .family = "primus_rdma_pcie_link_speed_transfers_per_second", .type = GAUGE,
      .scale = PNA_SCALE_E(6), .help = "PCIe link speed per lane as trained",
      .json = "link_speed_mtps" },
    { .column = 12, .object = "primusRdmaPcieMaxLinkSpeed", .syntax = U32,
      .field = PCIE_IF(max_link_speed_mtps, has_max_link_speed),
      .family = "primus_rdma_pcie_max_link_speed_transfers_per_second", .type = GAUGE,
      .scale = PNA_SCALE_E(6), .help = "Highest PCIe link speed per lane device and slot support",
      .json = "max_link_speed_mtps" },
    { .column = 13, .object = "primusRdmaPcieLinkWidth", .syntax = U32, .max = 32,
      .field = PCIE_IF(link_width, has_link_width), .family = "primus_rdma_pcie_link_width",
      .type = GAUGE, .help = "PCIe lanes as trained", .json = "link_width" },
    { .column = 14, .object = "primusRdmaPcieMaxLinkWidth", .syntax = U32, .max = 32,
      .field = PCIE_IF(max_link_width, has_max_link_width), .family = "primus_rdma_pcie_max_link_width",
      .type = GAUGE, .help = "Most PCIe lanes device and slot support", .json = "max_link_width" },
    { .column = 15, .object = "primusRdmaPcieDowntrained", .syntax = PNA_SYNTAX_TRUTH,
      .field = PCIE_IF(downtrained, has_downtrained), .flags = PNA_METRIC_JSON_BOOL,
      .family = "primus_rdma_pcie_downtrained", .type = GAUGE,
      .help = "1 when the PCIe link trained below its maximum width or speed",
      .json = "downtrained" },
    AER_COL(16, "primusRdmaPcieAerCorrectable", aer_correctable,
            "primus_rdma_pcie_aer_correctable_errors_total",
            "PCIe correctable errors AER counted (TOTAL_ERR_COR)", "aer_correctable"),
    AER_COL(17, "primusRdmaPcieAerNonFatal", aer_nonfatal, "primus_rdma_pcie_aer_nonfatal_errors_total",
            "PCIe uncorrectable non-fatal errors AER counted (TOTAL_ERR_NONFATAL)", "aer_nonfatal"),
    AER_COL(18, "primusRdmaPcieAerFatal", aer_fatal, "primus_rdma_pcie_aer_fatal_errors_total",
            "PCIe uncorrectable fatal errors AER counted (TOTAL_ERR_FATAL)", "aer_fatal"),
    { .column = 19, .object = "primusRdmaNumaNode", .syntax = PNA_SYNTAX_INTEGER, .max = 65535,
      .field = PCIE_IF(numa_node, has_numa_node), .family = "primus_rdma_numa_node", .type = GAUGE,
      .help = "NUMA node of the device's PCI function, -1 for none", .json = "numa_node" },
    { .column = 20, .object = "primusRdmaLocalCpus", .syntax = TEXT,
      .field = PCIE_IF(local_cpus, has_local_cpus), .label = "local_cpus", .json = "local_cpus" },
    { .column = 21, .object = "primusRdmaHolderCount", .syntax = U32, .get = get_holder_count,
      .family = "primus_rdma_holders", .type = GAUGE, .json = "holders",
      .help = "Containers holding the RDMA device: those the kubelet gave it (pod-resources) "
              "and those whose device lists have one of its device nodes, each counted once" },
    { .column = 22, .object = "primusRdmaHolderContainer", .syntax = TEXT,
      .get = get_holder_container, .json = "holder_container_id" },
    { .column = 23, .object = "primusRdmaHolderPod", .syntax = TEXT, .get = get_holder_pod,
      .json = "holder_pod" },
    { .column = 24, .object = "primusRdmaHolderNamespace", .syntax = TEXT,
      .get = get_holder_namespace, .json = "holder_namespace" },
    { .column = 25, .object = "primusRdmaHolderJob", .syntax = U32, .get = get_holder_job,
      .json = "holder_job" },
};

/* Rows ascend by device name, but string indexes sort by length first: the
 * SNMP engine sorts them. */
static const struct pna_key_part device_key[] = {
    PNA_KEY_INDEX_FIELD("primusRdmaDeviceName", "device", PNA_KEY_FROM_REC, struct pna_ib_device,
                        name),
};

const struct pna_metric_table pna_rdma_device_metrics = {
    .object = "primusRdmaDeviceTable",
    .kind = PNA_TABLE_ROWS,
    .domain = PNA_DOM_IB,
    .view = PNA_VIEW_DOMAIN(PNA_DOM_IB) | PNA_VIEW_DOMAIN(PNA_DOM_CONTAINERS) |
            PNA_VIEW_DOMAIN(PNA_DOM_PODRES) | PNA_VIEW_DOMAIN(PNA_DOM_SLURM),
    PNA_TABLE_OID(PNA_OID_RDMA, 10),
    PNA_KEY(device_key),
    .metrics = device_metrics,
    .count = sizeof device_metrics / sizeof device_metrics[0],
    .rows = device_rows,
    .row = device_row,
    .info_family = "primus_rdma_device_info",
    .info_help = "One series per RDMA device: node type, firmware, HCA type, board id, GUIDs, PCI "
                 "address, driver and local CPUs; always 1",
};

/* ---- primusIbPortTable -------------------------------------------------------- */

/* Rows: the ports of every device in model order; REC the port, PARENT its device. */
size_t pna_ib_port_rows(const struct pna_view *v)
{
    const struct pna_ib_model *m = ib_model(v);
    size_t n = 0;
    for (size_t i = 0; m && i < m->n_devices; i++)
        n += m->devices[i].n_ports;
    return n;
}

bool pna_ib_port_row(const struct pna_view *v, size_t i, struct pna_row *out)
{
    const struct pna_ib_model *m = ib_model(v);
    for (size_t d = 0; m && d < m->n_devices; d++) {
        if (i < m->devices[d].n_ports) {
            out->parent = &m->devices[d];
            out->rec = &m->devices[d].ports[i];
            size_t n = strlen(m->devices[d].name);
            return n >= 1 && n <= PNA_MAX_RDMA_DEVICE_NAME_LEN;
        }
        i -= m->devices[d].n_ports;
    }
    return false;
}

static const struct pna_ib_port *port_of(const struct pna_row *r)
{
    return r->rec;
}

static const char *const link_layer_names[] = {
    [PNA_IB_PORT_LINK_LAYER_INFINIBAND] = "infiniband", [PNA_IB_PORT_LINK_LAYER_ETHERNET] = "ethernet",
    [PNA_IB_PORT_LINK_LAYER_OTHER] = "other",
};
static const struct pna_enum link_layer_enum = PNA_ENUM(link_layer_names);

static void get_link_layer(const struct pna_row *r, struct pna_value *out)
{
    const char *ll = port_of(r)->link_layer;
    if (!ll[0])
        return;
    pna_value_i64(out, strcmp(ll, "InfiniBand") == 0 ? PNA_IB_PORT_LINK_LAYER_INFINIBAND
                       : strcmp(ll, "Ethernet") == 0 ? PNA_IB_PORT_LINK_LAYER_ETHERNET
                                                       : PNA_IB_PORT_LINK_LAYER_OTHER);
}

/* PrimusPortState: the kernel's NOP (0) is reported as down(1). */
static void get_state(const struct pna_row *r, struct pna_value *out)
{
    const struct pna_ib_port *p = port_of(r);
    if (p->has_state)
        pna_value_i64(out, p->state ? p->state : PNA_IB_STATE_DOWN);
}

static void get_if_index(const struct pna_row *r, struct pna_value *out)
{
    if (port_of(r)->ifindex > 0)
        pna_value_i64(out, port_of(r)->ifindex);
    else
        pna_value_none(out);
}

static void get_saturated(const struct pna_row *r, struct pna_value *out)
{
    pna_value_u64(out, pna_ib_saturated_columns(port_of(r)));
}

static const char *const counter_source_names[] = {
    [PNA_IB_PORT_COUNTER_SOURCE_SYSFS] = "sysfs",
    [PNA_IB_PORT_COUNTER_SOURCE_SYSFS_EXT64] = "sysfsExt64",
    [PNA_IB_PORT_COUNTER_SOURCE_PMA_EXTENDED] = "pmaExtended",
};
static const struct pna_enum counter_source_enum = PNA_ENUM(counter_source_names);

/* The widest source any present counter came from; absent without counters. */
static void get_counter_source(const struct pna_row *r, struct pna_value *out)
{
    bool any = false, ext = false, pma = false;
    for (int i = 0; i < PNA_IBC_COUNT; i++) {
        const struct pna_counter *c = &port_of(r)->counters[i];
        any |= c->present;
        ext |= c->present && c->from_ext;
        pma |= c->present && c->from_pma;
    }
    if (any)
        pna_value_i64(out, pma   ? PNA_IB_PORT_COUNTER_SOURCE_PMA_EXTENDED
                           : ext ? PNA_IB_PORT_COUNTER_SOURCE_SYSFS_EXT64
                                 : PNA_IB_PORT_COUNTER_SOURCE_SYSFS);
}

/* Utilization needs the link rate besides two polls. */
static void utilization(const struct pna_row *r, uint32_t cpct, struct pna_value *out)
{
    const struct pna_ib_port *p = port_of(r);
    if (p->rates.valid && p->rate_mbps)
        pna_value_u64(out, cpct);
}

static void get_rx_util(const struct pna_row *r, struct pna_value *out)
{
    utilization(r, port_of(r)->rates.rx_util_cpct, out);
}

static void get_tx_util(const struct pna_row *r, struct pna_value *out)
{
    utilization(r, port_of(r)->rates.tx_util_cpct, out);
}

/* 0 until two polls have been made (the MIB's DESCRIPTION); no sample then. */
static void get_rate_interval(const struct pna_row *r, struct pna_value *out)
{
    const struct pna_ib_rates *rt = &port_of(r)->rates;
    if (rt->valid && rt->interval_ms > 0)
        pna_value_u64(out, (uint64_t)rt->interval_ms);
    else
        pna_value_none(out);
}

/* ---- the neighbour (InfiniBand): absent until a directed-route SMP answered */

static const struct pna_ib_neighbor *neighbor_of(const struct pna_row *r)
{
    const struct pna_ib_neighbor *nb = &port_of(r)->neighbor;
    return nb->present ? nb : NULL;
}

/* In the form sysfs writes node GUIDs (primusRdmaNodeGuid), so the neighbour
 * of a back-to-back HCA port matches the other host's device row. */
static void get_neighbor_guid(const struct pna_row *r, struct pna_value *out)
{
    const struct pna_ib_neighbor *nb = neighbor_of(r);
    if (nb)
        pna_value_printf(out, "%04x:%04x:%04x:%04x", (unsigned)(nb->guid >> 48) & 0xffff,
                         (unsigned)(nb->guid >> 32) & 0xffff, (unsigned)(nb->guid >> 16) & 0xffff,
                         (unsigned)nb->guid & 0xffff);
}

static void get_neighbor_port(const struct pna_row *r, struct pna_value *out)
{
    const struct pna_ib_neighbor *nb = neighbor_of(r);
    if (nb && nb->port)
        pna_value_u64(out, nb->port);
}

static const char *const neighbor_type_names[] = {
    [PNA_IB_PORT_NEIGHBOR_NODE_TYPE_CA] = "ca",
    [PNA_IB_PORT_NEIGHBOR_NODE_TYPE_SWITCH] = "switch",
    [PNA_IB_PORT_NEIGHBOR_NODE_TYPE_ROUTER] = "router",
    [PNA_IB_PORT_NEIGHBOR_NODE_TYPE_UNKNOWN] = "unknown",
};
static const struct pna_enum neighbor_type_enum = PNA_ENUM(neighbor_type_names);

/* NodeInfo's NodeType numbers CA 1, switch 2, router 3, as the MIB does;
 * anything else (a reserved value) is unknown(4). */
static void get_neighbor_type(const struct pna_row *r, struct pna_value *out)
{
    const struct pna_ib_neighbor *nb = neighbor_of(r);
    if (nb)
        pna_value_i64(out, nb->node_type >= PNA_IB_PORT_NEIGHBOR_NODE_TYPE_CA &&
                                   nb->node_type <= PNA_IB_PORT_NEIGHBOR_NODE_TYPE_ROUTER
                               ? nb->node_type
                               : PNA_IB_PORT_NEIGHBOR_NODE_TYPE_UNKNOWN);
}

/* 0 before a change was seen (the MIB's DESCRIPTION); no sample then. */
static void get_last_change(const struct pna_row *r, struct pna_value *out)
{
    if (port_of(r)->last_change_s)
        pna_value_u64(out, port_of(r)->last_change_s);
    else
        pna_value_none(out);
}

#define PORT(member) PNA_FIELD(struct pna_ib_port, member)
#define PORT_NZ(member) PNA_FIELD_NZ(struct pna_ib_port, member)
#define PORT_IF(member, has) PNA_FIELD_IF(struct pna_ib_port, member, has)
#define COUNTER_COL(col, obj, idx, fam, text)                                                  \
    { .column = (col), .object = (obj), .syntax = C64, .field = PORT(counters[idx]),          \
      .family = (fam), .type = COUNTER, .help = (text) }
#define RATE(member) PORT_IF(rates.member, rates.valid)

static const struct pna_metric port_metrics[] = {
    { .column = 2, .object = "primusIbPortLinkLayer", .syntax = PNA_SYNTAX_INTEGER,
      .get = get_link_layer, .enums = &link_layer_enum },
    { .field = PORT(link_layer), .label = "link_layer" },
    { .column = 3, .object = "primusIbPortState", .syntax = PNA_SYNTAX_INTEGER, .get = get_state,
      .family = "primus_ib_port_state", .type = GAUGE,
      .help = "Logical port state: 1 down, 2 init, 3 armed, 4 active, 5 activeDefer" },
    { .column = 4, .object = "primusIbPortStateText", .syntax = TEXT, .field = PORT_NZ(state_text) },
    { .column = 5, .object = "primusIbPortPhysState", .syntax = U32, .max = 255,
      .field = PORT_IF(phys_state, has_phys_state), .family = "primus_ib_port_phys_state",
      .type = GAUGE,
      .help = "Physical port state: 1 sleep, 2 polling, 3 disabled, 4 training, 5 linkUp, "
              "6 linkErrorRecovery, 7 phyTest" },
    { .column = 6, .object = "primusIbPortPhysStateText", .syntax = TEXT,
      .field = PORT_NZ(phys_state_text) },
    { .column = 7, .object = "primusIbPortWidth", .syntax = U32, .field = PORT_NZ(width),
      .family = "primus_ib_port_link_width", .type = GAUGE, .help = "Link width in lanes" },
    { .column = 8, .object = "primusIbPortRate", .syntax = U32, .field = PORT_NZ(rate_mbps),
      .family = "primus_ib_port_rate_bytes_per_second", .type = GAUGE,
      .scale = PNA_SCALE_MUL(125000), .help = "Link rate per direction" },
    { .column = 9, .object = "primusIbPortRateText", .syntax = TEXT, .field = PORT_NZ(rate_text),
      .label = "rate" },
    { .column = 10, .object = "primusIbPortLid", .syntax = U32, .max = 65535,
      .field = PORT_IF(lid, has_lid), .family = "primus_ib_port_lid", .type = GAUGE,
      .help = "The port's LID" },
    { .column = 11, .object = "primusIbPortSmLid", .syntax = U32, .max = 65535,
      .field = PORT_IF(sm_lid, has_sm_lid), .family = "primus_ib_port_sm_lid", .type = GAUGE,
      .help = "The subnet manager's LID" },
    { .column = 12, .object = "primusIbPortGid", .syntax = TEXT, .field = PORT_NZ(gid0),
      .label = "gid" },
    { .column = 13, .object = "primusIbPortNetdev", .syntax = TEXT, .field = PORT(netdev),
      .label = "netdev" },
    { .column = 14, .object = "primusIbPortIfIndex", .syntax = PNA_SYNTAX_INTEGER,
      .get = get_if_index, .label = "if_index" },
    COUNTER_COL(20, "primusIbPortRcvData", PNA_IBC_RCV_DATA,
                "primus_ib_port_receive_data_bytes_total", "Data octets received, port_rcv_data x 4"),
    COUNTER_COL(21, "primusIbPortXmitData", PNA_IBC_XMIT_DATA,
                "primus_ib_port_transmit_data_bytes_total",
                "Data octets transmitted, port_xmit_data x 4"),
    COUNTER_COL(22, "primusIbPortRcvPkts", PNA_IBC_RCV_PACKETS, "primus_ib_port_receive_packets_total",
                "Packets received"),
    COUNTER_COL(23, "primusIbPortXmitPkts", PNA_IBC_XMIT_PACKETS,
                "primus_ib_port_transmit_packets_total", "Packets transmitted"),
    COUNTER_COL(24, "primusIbPortUnicastRcvPkts", PNA_IBC_UNICAST_RCV_PACKETS,
                "primus_ib_port_unicast_receive_packets_total", "Unicast packets received"),
    COUNTER_COL(25, "primusIbPortUnicastXmitPkts", PNA_IBC_UNICAST_XMIT_PACKETS,
                "primus_ib_port_unicast_transmit_packets_total", "Unicast packets transmitted"),
    COUNTER_COL(26, "primusIbPortMcastRcvPkts", PNA_IBC_MULTICAST_RCV_PACKETS,
                "primus_ib_port_multicast_receive_packets_total", "Multicast packets received"),
    COUNTER_COL(27, "primusIbPortMcastXmitPkts", PNA_IBC_MULTICAST_XMIT_PACKETS,
                "primus_ib_port_multicast_transmit_packets_total", "Multicast packets transmitted"),
    COUNTER_COL(28, "primusIbPortSymbolErrors", PNA_IBC_SYMBOL_ERROR,
                "primus_ib_port_symbol_errors_total", "Minor link errors on physical lanes"),
    COUNTER_COL(29, "primusIbPortLinkErrRecovery", PNA_IBC_LINK_ERROR_RECOVERY,
                "primus_ib_port_link_error_recovery_total", "Successful link error recoveries"),
    COUNTER_COL(30, "primusIbPortLinkDowned", PNA_IBC_LINK_DOWNED, "primus_ib_port_link_downed_total",
                "Failed link error recoveries: link went down"),
    COUNTER_COL(31, "primusIbPortRcvErrors", PNA_IBC_RCV_ERRORS, "primus_ib_port_receive_errors_total",
                "Received packets containing an error"),
    COUNTER_COL(32, "primusIbPortRcvRemPhysErrors", PNA_IBC_RCV_REMOTE_PHYSICAL_ERRORS,
                "primus_ib_port_receive_remote_physical_errors_total",
                "Received packets marked with the EBP delimiter"),
    COUNTER_COL(33, "primusIbPortRcvSwRelayErrors", PNA_IBC_RCV_SWITCH_RELAY_ERRORS,
                "primus_ib_port_receive_switch_relay_errors_total",
                "Received packets that could not be forwarded"),
    COUNTER_COL(34, "primusIbPortXmitDiscards", PNA_IBC_XMIT_DISCARDS,
                "primus_ib_port_transmit_discards_total",
                "Outbound packets discarded: port down or congested"),
    COUNTER_COL(35, "primusIbPortXmitConstrErrors", PNA_IBC_XMIT_CONSTRAINT_ERRORS,
                "primus_ib_port_transmit_constraint_errors_total",
                "Outbound packets not sent for constraints such as partitions"),
    COUNTER_COL(36, "primusIbPortRcvConstrErrors", PNA_IBC_RCV_CONSTRAINT_ERRORS,
                "primus_ib_port_receive_constraint_errors_total",
                "Inbound packets discarded for constraints"),
    COUNTER_COL(37, "primusIbPortLocalIntegrityErrs", PNA_IBC_LOCAL_LINK_INTEGRITY_ERRORS,
                "primus_ib_port_local_link_integrity_errors_total",
                "Times local physical errors exceeded their threshold"),
    COUNTER_COL(38, "primusIbPortExcessBufOverruns", PNA_IBC_EXCESSIVE_BUFFER_OVERRUN_ERRORS,
                "primus_ib_port_excessive_buffer_overrun_errors_total",
                "Flow control update periods with overruns"),
    COUNTER_COL(39, "primusIbPortVl15Dropped", PNA_IBC_VL15_DROPPED, "primus_ib_port_vl15_dropped_total",
                "Subnet management (VL15) packets dropped"),
    COUNTER_COL(40, "primusIbPortXmitWait", PNA_IBC_XMIT_WAIT, "primus_ib_port_transmit_wait_total",
                "Ticks the port had data to send but no credits"),
    COUNTER_COL(41, "primusIbPortRcvDiscards", PNA_IBC_RCV_DISCARDS,
                "primus_ib_port_receive_discards_total",
                "Received packets discarded by the driver, where it counts them"),
    { .column = 50, .object = "primusIbPortSaturated", .syntax = U32, .get = get_saturated },
    { .column = 51, .object = "primusIbPortCounterSource", .syntax = PNA_SYNTAX_INTEGER,
      .get = get_counter_source, .enums = &counter_source_enum, .label = "counter_source" },
    { .column = 52, .object = "primusIbPortRxBytesPerSec", .syntax = C64, .field = RATE(rx_bytes_per_s),
      .family = "primus_ib_port_receive_bytes_per_second", .type = GAUGE,
      .help = "Bytes received per second over the last poll interval" },
    { .column = 53, .object = "primusIbPortTxBytesPerSec", .syntax = C64, .field = RATE(tx_bytes_per_s),
      .family = "primus_ib_port_transmit_bytes_per_second", .type = GAUGE,
      .help = "Bytes transmitted per second over the last poll interval" },
    { .column = 54, .object = "primusIbPortRxUtilization", .syntax = U32, .max = 10000,
      .get = get_rx_util, .family = "primus_ib_port_receive_utilization_ratio", .type = GAUGE,
      .scale = PNA_SCALE_E(-4), .help = "Receive rate as a share of the link rate, 0..1" },
    { .column = 55, .object = "primusIbPortTxUtilization", .syntax = U32, .max = 10000,
      .get = get_tx_util, .family = "primus_ib_port_transmit_utilization_ratio", .type = GAUGE,
      .scale = PNA_SCALE_E(-4), .help = "Transmit rate as a share of the link rate, 0..1" },
    { .column = 56, .object = "primusIbPortErrorRate", .syntax = U32, .field = RATE(error_rate_cps),
      .family = "primus_ib_port_errors_per_second", .type = GAUGE, .scale = PNA_SCALE_E(-2),
      .help = "Port errors per second over the last poll interval" },
    { .column = 57, .object = "primusIbPortRateInterval", .syntax = U32, .get = get_rate_interval,
      .family = "primus_ib_port_rate_interval_seconds", .type = GAUGE, .scale = PNA_SCALE_E(-3),
      .help = "The interval the per-second figures were computed over" },
    { .column = 58, .object = "primusIbPortActiveMtu", .syntax = U32, .max = 4096,
      .field = PORT_NZ(active_mtu),
      .family = "primus_ib_port_active_mtu_bytes", .type = GAUGE,
      .help = "The port's active MTU, from libibverbs" },
    { .column = 59, .object = "primusIbPortMaxMtu", .syntax = U32, .max = 4096,
      .field = PORT_NZ(max_mtu),
      .family = "primus_ib_port_max_mtu_bytes", .type = GAUGE,
      .help = "The largest MTU the port supports, from libibverbs" },
    { .column = 60, .object = "primusIbPortNeighborGuid", .syntax = TEXT, .get = get_neighbor_guid,
      .label = "neighbor_guid" },
    { .column = 61, .object = "primusIbPortNeighborNodeDesc", .syntax = TEXT,
      .field = PORT_IF(neighbor.node_desc, neighbor.present), .label = "neighbor_node_desc" },
    { .column = 62, .object = "primusIbPortNeighborPort", .syntax = U32, .max = 255,
      .get = get_neighbor_port, .label = "neighbor_port" },
    { .column = 63, .object = "primusIbPortNeighborNodeType", .syntax = PNA_SYNTAX_INTEGER,
      .get = get_neighbor_type, .enums = &neighbor_type_enum, .label = "neighbor_node_type" },
    { .column = 64, .object = "primusIbPortFlaps", .syntax = PNA_SYNTAX_COUNTER32,
      .field = PORT(flaps), .family = "primus_ib_port_flaps_total", .type = COUNTER,
      .json = "flaps",
      .help = "Times the port left its up state since the agent started (InfiniBand: port "
              "error or ACTIVE to not ACTIVE; RoCE: every carrier loss of its netdev)" },
    { .column = 65, .object = "primusIbPortLastChange", .syntax = U32,
      .get = get_last_change, .family = "primus_ib_port_last_change_timestamp_seconds",
      .type = GAUGE, .json = "last_change",
      .help = "When the port last went up or down, seconds since 1970-01-01 UTC; no sample "
              "before a change was seen" },
};

/* primusIbPortSaturated: bit N stands for column 20 + N, a counter column;
 * which counter that is, its descriptor says. */
#define SATURATED_FIRST_COLUMN 20

static const struct pna_counter *counter_column(const struct pna_ib_port *p, const struct pna_metric *m)
{
    if (m->column < SATURATED_FIRST_COLUMN || m->column >= SATURATED_FIRST_COLUMN + 32 ||
        m->get || m->field.type != PNA_FIELD_COUNTER)
        return NULL;
    return (const struct pna_counter *)(const void *)((const char *)p + m->field.offset);
}

uint32_t pna_ib_saturated_columns(const struct pna_ib_port *p)
{
    uint32_t bits = 0;
    for (size_t i = 0; i < sizeof port_metrics / sizeof port_metrics[0]; i++) {
        const struct pna_counter *c = counter_column(p, &port_metrics[i]);
        if (c && c->present && c->saturated)
            bits |= UINT32_C(1) << (port_metrics[i].column - SATURATED_FIRST_COLUMN);
    }
    return bits;
}

const char *pna_ib_saturated_counter_file(unsigned bit)
{
    for (size_t i = 0; i < sizeof port_metrics / sizeof port_metrics[0]; i++) {
        const struct pna_metric *m = &port_metrics[i];
        if (m->column != SATURATED_FIRST_COLUMN + bit || m->field.type != PNA_FIELD_COUNTER)
            continue;
        size_t k = (m->field.offset - offsetof(struct pna_ib_port, counters)) / sizeof(struct pna_counter);
        return k < PNA_IBC_COUNT ? pna_ib_counter_descs[k].file : "";
    }
    return "";
}

/* The device's name, then the port's number (primusRoceCongTable's too). */
static const struct pna_key_part port_key[] = {
    PNA_KEY_INDEX_FIELD("primusRdmaDeviceName", "device", PNA_KEY_FROM_PARENT,
                        struct pna_ib_device, name),
    PNA_KEY_INDEX_FIELD("primusIbPortNumber", "port", PNA_KEY_FROM_REC, struct pna_ib_port, num),
};

const struct pna_metric_table pna_ib_port_metrics = {
    .object = "primusIbPortTable",
    .kind = PNA_TABLE_ROWS,
    .domain = PNA_DOM_IB,
    .view = PNA_VIEW_DOMAIN(PNA_DOM_IB),
    PNA_TABLE_OID(PNA_OID_RDMA, 20),
    PNA_KEY(port_key),
    .metrics = port_metrics,
    .count = sizeof port_metrics / sizeof port_metrics[0],
    .rows = pna_ib_port_rows,
    .row = pna_ib_port_row,
    .info_family = "primus_ib_port_info",
    .info_help = "One series per port: link layer, netdev and its ifIndex (RoCE), GID 0, rate "
                 "text, counter source and the InfiniBand neighbour (node GUID, description, "
                 "port, node type); always 1",
};

/* ---- primusRoceCongTable ------------------------------------------------------- */

#define CC(col, obj, idx, fam, text)                                                           \
    { .column = (col), .object = (obj), .syntax = C64, .field = PORT(cc[idx]), .family = (fam), \
      .type = COUNTER, .help = (text) }

static const struct pna_metric cong_metrics[] = {
    CC(1, "primusRoceNpEcnMarkedRocePackets", PNA_CC_NP_ECN_MARKED_ROCE_PACKETS,
       "primus_roce_np_ecn_marked_roce_packets_total",
       "RoCE packets received with the ECN Congestion Experienced mark (notification point)"),
    CC(2, "primusRoceNpCnpSent", PNA_CC_NP_CNP_SENT, "primus_roce_np_cnp_sent_total",
       "Congestion notification packets sent in answer to ECN-marked packets"),
    CC(3, "primusRoceRpCnpHandled", PNA_CC_RP_CNP_HANDLED, "primus_roce_rp_cnp_handled_total",
       "Congestion notification packets received and acted on (reaction point)"),
    CC(4, "primusRoceRpCnpIgnored", PNA_CC_RP_CNP_IGNORED, "primus_roce_rp_cnp_ignored_total",
       "Congestion notification packets received and ignored"),
    CC(5, "primusRoceOutOfSequence", PNA_CC_OUT_OF_SEQUENCE, "primus_roce_out_of_sequence_total",
       "Packets received out of sequence"),
    CC(6, "primusRocePacketSeqErr", PNA_CC_PACKET_SEQ_ERR, "primus_roce_packet_seq_err_total",
       "Sequence error NAKs received"),
    CC(7, "primusRoceLocalAckTimeoutErr", PNA_CC_LOCAL_ACK_TIMEOUT_ERR,
       "primus_roce_local_ack_timeout_err_total", "Acknowledgements that did not come in time"),
    CC(8, "primusRoceRnrNakRetryErr", PNA_CC_RNR_NAK_RETRY_ERR, "primus_roce_rnr_nak_retry_err_total",
       "Receiver-not-ready NAK retries exhausted"),
    CC(9, "primusRoceImpliedNakSeqErr", PNA_CC_IMPLIED_NAK_SEQ_ERR,
       "primus_roce_implied_nak_seq_err_total", "Implied NAK sequence errors"),
    CC(10, "primusRoceDuplicateRequest", PNA_CC_DUPLICATE_REQUEST, "primus_roce_duplicate_request_total",
       "Duplicate requests received"),
    CC(11, "primusRoceAdpRetrans", PNA_CC_ROCE_ADP_RETRANS, "primus_roce_adp_retrans_total",
       "Adaptive retransmissions"),
    CC(12, "primusRoceAdpRetransTo", PNA_CC_ROCE_ADP_RETRANS_TO, "primus_roce_adp_retrans_to_total",
       "Adaptive retransmission timeouts"),
    CC(13, "primusRoceSlowRestart", PNA_CC_ROCE_SLOW_RESTART, "primus_roce_slow_restart_total",
       "Slow restarts after retransmission"),
    CC(14, "primusRoceSlowRestartCnps", PNA_CC_ROCE_SLOW_RESTART_CNPS,
       "primus_roce_slow_restart_cnps_total", "CNPs generated by slow restart"),
    CC(15, "primusRoceSlowRestartTrans", PNA_CC_ROCE_SLOW_RESTART_TRANS,
       "primus_roce_slow_restart_trans_total", "Transitions into slow restart"),
    CC(16, "primusRoceOutOfBuffer", PNA_CC_OUT_OF_BUFFER, "primus_roce_out_of_buffer_total",
       "Packets dropped for lack of receive buffers"),
    CC(17, "primusRoceRxIcrcEncapsulated", PNA_CC_RX_ICRC_ENCAPSULATED,
       "primus_roce_rx_icrc_encapsulated_total", "RoCE packets received with an ICRC error"),
};

const struct pna_metric_table pna_roce_cong_metrics = {
    .object = "primusRoceCongTable",
    .kind = PNA_TABLE_ROWS,
    .domain = PNA_DOM_IB,
    .view = PNA_VIEW_DOMAIN(PNA_DOM_IB),
    PNA_TABLE_OID(PNA_OID_RDMA, 30),
    PNA_KEY(port_key),
    .metrics = cong_metrics,
    .count = sizeof cong_metrics / sizeof cong_metrics[0],
    .rows = pna_ib_port_rows,
    .row = pna_ib_port_row,
};

/* ---- primusHwCounterTable -------------------------------------------------------- */

/* Rows: per device its own counters (port 0), then each port's.  REC is the
 * counter, PARENT its device, KEY_NUMBER the port's number (0 for the
 * device's own). */
static size_t hw_rows(const struct pna_view *v)
{
    const struct pna_ib_model *m = ib_model(v);
    size_t n = 0;
    for (size_t i = 0; m && i < m->n_devices; i++) {
        n += m->devices[i].n_hw;
        for (size_t p = 0; p < m->devices[i].n_ports; p++)
            n += m->devices[i].ports[p].n_hw;
    }
    return n;
}

static bool hw_at(const struct pna_ib_model *m, size_t i, struct pna_row *out)
{
    for (size_t k = 0; m && k < m->n_devices; k++) {
        const struct pna_ib_device *d = &m->devices[k];
        out->parent = d;
        if (i < d->n_hw) {
            out->rec = &d->hw[i];
            out->key_number = 0;
            return true;
        }
        i -= d->n_hw;
        for (size_t p = 0; p < d->n_ports; p++) {
            if (i < d->ports[p].n_hw) {
                out->rec = &d->ports[p].hw[i];
                out->key_number = d->ports[p].num;
                return true;
            }
            i -= d->ports[p].n_hw;
        }
    }
    return false;
}

/* A counter the MIB cannot index (a name over 48 octets) has no row. */
static bool hw_row(const struct pna_view *v, size_t i, struct pna_row *out)
{
    if (!hw_at(ib_model(v), i, out))
        return false;
    const struct pna_ib_device *d = out->parent;
    const struct pna_hw_counter *c = out->rec;
    size_t dl = strlen(d->name), nl = strlen(c->name);
    return dl >= 1 && dl <= PNA_MAX_RDMA_DEVICE_NAME_LEN && nl >= 1 &&
           nl <= PNA_MAX_HW_COUNTER_NAME_LEN;
}

static const struct pna_metric hw_metrics[] = {
    { .column = 3, .object = "primusHwCounterValue", .syntax = C64,
      .field = PNA_FIELD(struct pna_hw_counter, value), .family = "primus_rdma_hw_stat_total",
      .type = COUNTER,
      .help = "Every hw_counters entry of every RDMA device (port 0) and port under the driver's "
              "name, 32-bit wrapping ones widened to 64 bits (\"counter\" in the name is refused by "
              "the linter)" },
    { .column = 4, .object = "primusHwCounterWraps32", .syntax = PNA_SYNTAX_TRUTH,
      .field = PNA_FIELD(struct pna_hw_counter, wraps32) },
};

/* The device's name, the port's number (0 for the device's own counters),
 * the counter's name. */
static const struct pna_key_part hw_key[] = {
    PNA_KEY_INDEX_FIELD("primusRdmaDeviceName", "device", PNA_KEY_FROM_PARENT,
                        struct pna_ib_device, name),
    PNA_KEY_INDEX_NUMBER("primusHwCounterPort", "port"),
    PNA_KEY_INDEX_FIELD("primusHwCounterName", "counter", PNA_KEY_FROM_REC, struct pna_hw_counter,
                        name),
};

const struct pna_metric_table pna_hw_counter_metrics = {
    .object = "primusHwCounterTable",
    .kind = PNA_TABLE_ROWS,
    .domain = PNA_DOM_IB,
    .view = PNA_VIEW_DOMAIN(PNA_DOM_IB),
    PNA_TABLE_OID(PNA_OID_RDMA, 40),
    PNA_KEY(hw_key),
    .metrics = hw_metrics,
    .count = sizeof hw_metrics / sizeof hw_metrics[0],
    .rows = hw_rows,
    .row = hw_row,
};
