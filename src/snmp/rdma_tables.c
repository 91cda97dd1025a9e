/* snmp/rdma_tables.c -- primusRdma: the RDMA device count, primusRdmaDeviceTable,
 * primusIbPortTable, primusRoceCongTable and primusHwCounterTable, answered
 * from the IB snapshot (struct pna_ib_snap, model/ib.h).
 *
 * Rows are the model's devices, their ports, and their hw counters taken in
 * model order; the table engine sorts them by index once per snapshot.
 * Counters a port does not offer are absent cells, never zero.
 * Main thread only (net-snmp). */
#include "pna_autoconf.h"
#include "snmp/rdma_tables.h"

#include <string.h>

#include "core/cache.h"
#include "model/ib.h"
#include "snmp/oids.h"
#include "snmp/table.h"

#define MAX_HW_NAME 48     /* primusHwCounterName SIZE (1..48) */
#define MAX_DEVICE_NAME 64 /* primusRdmaDeviceName SIZE (1..64) */

static const struct pna_ib_model *model_of(const void *ctx)
{
    return ctx ? &((const struct pna_ib_snap *)ctx)->m : NULL;
}

static size_t total_ports(const struct pna_ib_model *m)
{
    size_t n = 0;
    for (size_t i = 0; m && i < m->n_devices; i++)
        n += m->devices[i].n_ports;
    return n;
}

/* Row ROW of the flat port list: its device and port. */
static bool port_at(const struct pna_ib_model *m, size_t row, const struct pna_ib_device **d,
                    const struct pna_ib_port **p)
{
    for (size_t i = 0; m && i < m->n_devices; i++) {
        if (row < m->devices[i].n_ports) {
            *d = &m->devices[i];
            *p = &m->devices[i].ports[row];
            return true;
        }
        row -= m->devices[i].n_ports;
    }
    return false;
}

/* ---- primusRdmaDeviceCount ---------------------------------------------- */

static int get_rdma_scalar(const void *ctx, unsigned subid, struct pna_cell *out)
{
    const struct pna_ib_model *m = model_of(ctx);
    if (m && subid == PNA_SC_RDMA_DEVICE_COUNT)
        return pna_cell_u32(out, (uint32_t)m->n_devices);
    return PNA_CELL_ABSENT;
}

/* ---- primusRdmaDeviceTable ---------------------------------------------- */

static size_t device_rows(const void *ctx)
{
    const struct pna_ib_model *m = model_of(ctx);
    return m ? m->n_devices : 0;
}

static size_t device_index(const void *ctx, size_t row, oid *idx)
{
    return pna_index_put_string(idx, PNA_MAX_INDEX_LEN, model_of(ctx)->devices[row].name);
}

static int device_cell(const void *ctx, size_t row, unsigned col, struct pna_cell *out)
{
    const struct pna_ib_device *d = &model_of(ctx)->devices[row];
    switch (col) {
    case PNA_COL_RDMA_NODE_TYPE:
        return d->node_type > 0 ? pna_cell_int(out, d->node_type) : PNA_CELL_ABSENT;
    case PNA_COL_RDMA_FIRMWARE: return pna_cell_str(out, d->fw_ver);
    case PNA_COL_RDMA_HCA_TYPE: return pna_cell_str(out, d->hca_type);
    case PNA_COL_RDMA_BOARD_ID: return pna_cell_str(out, d->board_id);
    case PNA_COL_RDMA_NODE_GUID:
        return d->has_node_guid ? pna_cell_str(out, d->node_guid_text) : PNA_CELL_ABSENT;
    case PNA_COL_RDMA_SYS_IMAGE_GUID:
        return d->has_sys_image_guid ? pna_cell_str(out, d->sys_image_guid_text) : PNA_CELL_ABSENT;
    case PNA_COL_RDMA_PORT_COUNT: return pna_cell_u32(out, (uint32_t)d->n_ports);
    case PNA_COL_RDMA_DRIVER: return pna_cell_str(out, d->driver);
    case PNA_COL_RDMA_PCI_BUS_ID: return pna_cell_str(out, d->pci_addr);
    }
    return PNA_CELL_ABSENT;
}

/* ---- primusIbPortTable -------------------------------------------------- */

/* Columns 20..41 in MIB order; primusIbPortSaturated bit N is column 20+N. */
static const enum pna_ib_counter port_counter_cols[] = {
    PNA_IBC_RCV_DATA,                       /* 20 */
    PNA_IBC_XMIT_DATA,
    PNA_IBC_RCV_PACKETS,
    PNA_IBC_XMIT_PACKETS,
    PNA_IBC_UNICAST_RCV_PACKETS,
    PNA_IBC_UNICAST_XMIT_PACKETS,
    PNA_IBC_MULTICAST_RCV_PACKETS,
    PNA_IBC_MULTICAST_XMIT_PACKETS,
    PNA_IBC_SYMBOL_ERROR,                   /* 28 */
    PNA_IBC_LINK_ERROR_RECOVERY,
    PNA_IBC_LINK_DOWNED,
    PNA_IBC_RCV_ERRORS,
    PNA_IBC_RCV_REMOTE_PHYSICAL_ERRORS,
    PNA_IBC_RCV_SWITCH_RELAY_ERRORS,
    PNA_IBC_XMIT_DISCARDS,
    PNA_IBC_XMIT_CONSTRAINT_ERRORS,
    PNA_IBC_RCV_CONSTRAINT_ERRORS,
    PNA_IBC_LOCAL_LINK_INTEGRITY_ERRORS,
    PNA_IBC_EXCESSIVE_BUFFER_OVERRUN_ERRORS,
    PNA_IBC_VL15_DROPPED,
    PNA_IBC_XMIT_WAIT,                      /* 40 */
    PNA_IBC_RCV_DISCARDS,                   /* 41: not a PMA counter; some drivers */
};
#define N_COUNTER_COLS (sizeof port_counter_cols / sizeof port_counter_cols[0])
_Static_assert(PNA_COL_IB_PORT_RCV_DATA + N_COUNTER_COLS - 1 == PNA_COL_IB_PORT_RCV_DISCARDS,
               "port_counter_cols must cover columns 20 to primusIbPortRcvDiscards");

/* The MIB's enumerations. */
enum { LINK_INFINIBAND = 1, LINK_ETHERNET = 2, LINK_OTHER = 3 };

static size_t port_rows(const void *ctx)
{
    return total_ports(model_of(ctx));
}

static size_t port_index(const void *ctx, size_t row, oid *idx)
{
    const struct pna_ib_device *d;
    const struct pna_ib_port *p;
    if (!port_at(model_of(ctx), row, &d, &p))
        return 0;
    size_t n = pna_index_put_string(idx, PNA_MAX_INDEX_LEN - 1, d->name);
    idx[n] = p->num;
    return n + 1;
}

static uint32_t saturated_bits(const struct pna_ib_port *p)
{
    uint32_t bits = 0;
    for (size_t i = 0; i < N_COUNTER_COLS; i++)
        if (p->counters[port_counter_cols[i]].present && p->counters[port_counter_cols[i]].saturated)
            bits |= UINT32_C(1) << i;
    return bits;
}

static int counter_source(const struct pna_ib_port *p, struct pna_cell *out)
{
    bool any = false, ext = false, pma = false;
    for (int i = 0; i < PNA_IBC_COUNT; i++) {
        any |= p->counters[i].present;
        ext |= p->counters[i].present && p->counters[i].from_ext;
        pma |= p->counters[i].present && p->counters[i].from_pma;
    }
    if (!any)
        return PNA_CELL_ABSENT;
    return pna_cell_int(out, pma   ? PNA_IB_PORT_COUNTER_SOURCE_PMA_EXTENDED
                             : ext ? PNA_IB_PORT_COUNTER_SOURCE_SYSFS_EXT64
                                   : PNA_IB_PORT_COUNTER_SOURCE_SYSFS);
}

static int link_layer(const struct pna_ib_port *p, struct pna_cell *out)
{
    if (!p->link_layer[0])
        return PNA_CELL_ABSENT;
    if (strcmp(p->link_layer, "InfiniBand") == 0)
        return pna_cell_int(out, LINK_INFINIBAND);
    if (strcmp(p->link_layer, "Ethernet") == 0)
        return pna_cell_int(out, LINK_ETHERNET);
    return pna_cell_int(out, LINK_OTHER);
}

static uint32_t clamp_u32(uint64_t v, uint32_t max)
{
    return v > max ? max : (uint32_t)v;
}

static int port_rate_cell(const struct pna_ib_port *p, unsigned col, struct pna_cell *out)
{
    const struct pna_ib_rates *r = &p->rates;
    if (col == PNA_COL_IB_PORT_RATE_INTERVAL)
        return pna_cell_u32(out, r->valid ? clamp_u32((uint64_t)r->interval_ms, UINT32_MAX) : 0);
    if (!r->valid)
        return PNA_CELL_ABSENT;
    switch (col) {
    case PNA_COL_IB_PORT_RX_BYTES_PER_SEC: return pna_cell_counter64(out, r->rx_bytes_per_s);
    case PNA_COL_IB_PORT_TX_BYTES_PER_SEC: return pna_cell_counter64(out, r->tx_bytes_per_s);
    case PNA_COL_IB_PORT_RX_UTILIZATION:
        return p->rate_mbps ? pna_cell_u32(out, clamp_u32(r->rx_util_cpct, 10000)) : PNA_CELL_ABSENT;
    case PNA_COL_IB_PORT_TX_UTILIZATION:
        return p->rate_mbps ? pna_cell_u32(out, clamp_u32(r->tx_util_cpct, 10000)) : PNA_CELL_ABSENT;
    case PNA_COL_IB_PORT_ERROR_RATE: return pna_cell_u32(out, clamp_u32(r->error_rate_cps, UINT32_MAX));
    }
    return PNA_CELL_ABSENT;
}

static int port_cell(const void *ctx, size_t row, unsigned col, struct pna_cell *out)
{
    const struct pna_ib_device *d;
    const struct pna_ib_port *p;
    if (!port_at(model_of(ctx), row, &d, &p))
        return PNA_CELL_ABSENT;
    if (col >= PNA_COL_IB_PORT_RCV_DATA && col < PNA_COL_IB_PORT_RCV_DATA + N_COUNTER_COLS) {
        const struct pna_counter *c = &p->counters[port_counter_cols[col - PNA_COL_IB_PORT_RCV_DATA]];
        return c->present ? pna_cell_counter64(out, c->value) : PNA_CELL_ABSENT;
    }
    switch (col) {
    case PNA_COL_IB_PORT_LINK_LAYER: return link_layer(p, out);
    case PNA_COL_IB_PORT_STATE:
        /* PrimusPortState: the kernel's NOP (0) is reported as down(1) */
        return p->has_state ? pna_cell_int(out, p->state ? p->state : PNA_IB_STATE_DOWN)
                            : PNA_CELL_ABSENT;
    case PNA_COL_IB_PORT_STATE_TEXT:
        return p->state_text[0] ? pna_cell_str(out, p->state_text) : PNA_CELL_ABSENT;
    case PNA_COL_IB_PORT_PHYS_STATE:
        return p->has_phys_state ? pna_cell_u32(out, clamp_u32((uint32_t)p->phys_state, 255))
                                 : PNA_CELL_ABSENT;
    case PNA_COL_IB_PORT_PHYS_STATE_TEXT:
        return p->phys_state_text[0] ? pna_cell_str(out, p->phys_state_text) : PNA_CELL_ABSENT;
    case PNA_COL_IB_PORT_WIDTH: return p->width ? pna_cell_u32(out, p->width) : PNA_CELL_ABSENT;
    case PNA_COL_IB_PORT_RATE:
        return p->rate_mbps ? pna_cell_u32(out, clamp_u32(p->rate_mbps, UINT32_MAX)) : PNA_CELL_ABSENT;
    case PNA_COL_IB_PORT_RATE_TEXT:
        return p->rate_text[0] ? pna_cell_str(out, p->rate_text) : PNA_CELL_ABSENT;
    case PNA_COL_IB_PORT_LID:
        return p->has_lid ? pna_cell_u32(out, clamp_u32(p->lid, 65535)) : PNA_CELL_ABSENT;
    case PNA_COL_IB_PORT_SM_LID:
        return p->has_sm_lid ? pna_cell_u32(out, clamp_u32(p->sm_lid, 65535)) : PNA_CELL_ABSENT;
    case PNA_COL_IB_PORT_GID: return p->gid0[0] ? pna_cell_str(out, p->gid0) : PNA_CELL_ABSENT;
    case PNA_COL_IB_PORT_NETDEV: return pna_cell_str(out, p->netdev);
    case PNA_COL_IB_PORT_IF_INDEX: return pna_cell_int(out, p->ifindex > 0 ? p->ifindex : 0);
    case PNA_COL_IB_PORT_SATURATED: return pna_cell_u32(out, saturated_bits(p));
    case PNA_COL_IB_PORT_COUNTER_SOURCE: return counter_source(p, out);
    case PNA_COL_IB_PORT_ACTIVE_MTU:
        return p->active_mtu ? pna_cell_u32(out, p->active_mtu) : PNA_CELL_ABSENT;
    case PNA_COL_IB_PORT_MAX_MTU:
        return p->max_mtu ? pna_cell_u32(out, p->max_mtu) : PNA_CELL_ABSENT;
    }
    return port_rate_cell(p, col, out);
}

/* ---- primusRoceCongTable ------------------------------------------------ */

/* Column N is the model's congestion counter N-1 (same order as the MIB). */
static int cong_cell(const void *ctx, size_t row, unsigned col, struct pna_cell *out)
{
    const struct pna_ib_device *d;
    const struct pna_ib_port *p;
    if (!port_at(model_of(ctx), row, &d, &p) || col < 1 || col > PNA_CC_COUNT)
        return PNA_CELL_ABSENT;
    const struct pna_counter *c = &p->cc[col - 1];
    return c->present ? pna_cell_counter64(out, c->value) : PNA_CELL_ABSENT;
}

/* ---- primusHwCounterTable ----------------------------------------------- */

/* Rows: per device, its own counters (port 0) then each port's. */
struct hw_row {
    const struct pna_ib_device *d;
    uint32_t port;
    const struct pna_hw_counter *c;
};

static size_t hw_rows(const void *ctx)
{
    const struct pna_ib_model *m = model_of(ctx);
    size_t n = 0;
    for (size_t i = 0; m && i < m->n_devices; i++) {
        n += m->devices[i].n_hw;
        for (size_t p = 0; p < m->devices[i].n_ports; p++)
            n += m->devices[i].ports[p].n_hw;
    }
    return n;
}

static bool hw_at(const struct pna_ib_model *m, size_t row, struct hw_row *out)
{
    for (size_t i = 0; m && i < m->n_devices; i++) {
        const struct pna_ib_device *d = &m->devices[i];
        out->d = d;
        if (row < d->n_hw) {
            out->port = 0;
            out->c = &d->hw[row];
            return true;
        }
        row -= d->n_hw;
        for (size_t p = 0; p < d->n_ports; p++) {
            if (row < d->ports[p].n_hw) {
                out->port = d->ports[p].num;
                out->c = &d->ports[p].hw[row];
                return true;
            }
            row -= d->ports[p].n_hw;
        }
    }
    return false;
}

/* A counter the MIB cannot index (name over 48 octets, or an index over
 * PNA_MAX_INDEX_LEN) gets the impossible index 0.0.0 and no cells. */
static bool hw_indexable(const struct hw_row *r)
{
    size_t dl = strlen(r->d->name), nl = strlen(r->c->name);
    return nl >= 1 && nl <= MAX_HW_NAME && dl <= MAX_DEVICE_NAME &&
           dl + nl + 3 <= PNA_MAX_INDEX_LEN;
}

static size_t hw_index(const void *ctx, size_t row, oid *idx)
{
    struct hw_row r;
    if (!hw_at(model_of(ctx), row, &r) || !hw_indexable(&r)) {
        idx[0] = idx[1] = idx[2] = 0;
        return 3;
    }
    size_t n = pna_index_put_string(idx, PNA_MAX_INDEX_LEN, r.d->name);
    idx[n++] = r.port;
    return n + pna_index_put_string(idx + n, PNA_MAX_INDEX_LEN - n, r.c->name);
}

static int hw_cell(const void *ctx, size_t row, unsigned col, struct pna_cell *out)
{
    struct hw_row r;
    if (!hw_at(model_of(ctx), row, &r) || !hw_indexable(&r))
        return PNA_CELL_ABSENT;
    switch (col) {
    case PNA_COL_HW_COUNTER_VALUE: return pna_cell_counter64(out, r.c->value);
    case PNA_COL_HW_COUNTER_WRAPS32: return pna_cell_int(out, r.c->wraps32 ? 1 : 2); /* TruthValue */
    }
    return PNA_CELL_ABSENT;
}

/* ---- registration ------------------------------------------------------- */

static const oid rdma_oid[] = { PNA_OID_RDMA };
static const oid device_table_oid[] = { PNA_OID_RDMA_DEVICE_TABLE };
static const oid port_table_oid[] = { PNA_OID_IB_PORT_TABLE };
static const oid cong_table_oid[] = { PNA_OID_ROCE_CONG_TABLE };
static const oid hw_table_oid[] = { PNA_OID_HW_COUNTER_TABLE };

static const struct pna_scalar_def rdma_scalars = {
    "primusRdma", rdma_oid, OID_LENGTH(rdma_oid), PNA_DOM_IB,
    PNA_SC_RDMA_DEVICE_COUNT, PNA_SC_RDMA_DEVICE_COUNT, get_rdma_scalar,
};

const struct pna_table_def pna_rdma_device_table = {
    .name = "primusRdmaDeviceTable",
    .table_oid = device_table_oid,
    .table_oid_len = OID_LENGTH(device_table_oid),
    .domain = PNA_DOM_IB,
    .min_col = PNA_COL_RDMA_NODE_TYPE,
    .max_col = PNA_COL_RDMA_PCI_BUS_ID,
    .rows_in_index_order = false, /* by name, but string indexes sort by length first */
    .row_count = device_rows,
    .row_index = device_index,
    .get_cell = device_cell,
};

const struct pna_table_def pna_ib_port_table = {
    .name = "primusIbPortTable",
    .table_oid = port_table_oid,
    .table_oid_len = OID_LENGTH(port_table_oid),
    .domain = PNA_DOM_IB,
    .min_col = PNA_COL_IB_PORT_LINK_LAYER,
    .max_col = PNA_COL_IB_PORT_MAX_MTU,
    .row_count = port_rows,
    .row_index = port_index,
    .get_cell = port_cell,
};

const struct pna_table_def pna_roce_cong_table = {
    .name = "primusRoceCongTable",
    .table_oid = cong_table_oid,
    .table_oid_len = OID_LENGTH(cong_table_oid),
    .domain = PNA_DOM_IB,
    .min_col = PNA_COL_ROCE_NP_ECN_MARKED_ROCE_PACKETS,
    .max_col = PNA_COL_ROCE_RX_ICRC_ENCAPSULATED,
    .row_count = port_rows,
    .row_index = port_index,
    .get_cell = cong_cell,
};

const struct pna_table_def pna_hw_counter_table = {
    .name = "primusHwCounterTable",
    .table_oid = hw_table_oid,
    .table_oid_len = OID_LENGTH(hw_table_oid),
    .domain = PNA_DOM_IB,
    .min_col = PNA_COL_HW_COUNTER_VALUE,
    .max_col = PNA_COL_HW_COUNTER_WRAPS32,
    .row_count = hw_rows,
    .row_index = hw_index,
    .get_cell = hw_cell,
};

void pna_rdma_tables_register(void)
{
    pna_scalars_register(&rdma_scalars);
    pna_table_register(&pna_rdma_device_table);
    pna_table_register(&pna_ib_port_table);
    pna_table_register(&pna_roce_cong_table);
    pna_table_register(&pna_hw_counter_table);
}
