/* snmp/rdma_tables.c -- primusRdma: the RDMA device count and the device,
 * port, RoCE congestion and hardware counter tables, from the descriptors of
 * model/ib_metrics.c.  Rows are the model's devices, their ports and their hw
 * counters in model order; the table engine sorts them by index once per
 * snapshot. */
#include "pna_autoconf.h"
#include "snmp/tables.h"

#include "model/ib.h"
#include "model/metric_tables.h"
#include "model/oids.h"

/* primusRdmaDeviceName */
static size_t device_index(const struct pna_row *row, oid *idx)
{
    const struct pna_ib_device *d = row->rec;
    return pna_index_put_string(idx, PNA_MAX_INDEX_LEN, d->name);
}

/* primusRdmaDeviceName, primusIbPortNumber */
static size_t port_index(const struct pna_row *row, oid *idx)
{
    const struct pna_ib_device *d = row->owner;
    const struct pna_ib_port *p = row->rec;
    size_t n = pna_index_put_string(idx, PNA_MAX_INDEX_LEN - 1, d->name);
    idx[n] = p->num;
    return n + 1;
}

/* primusRdmaDeviceName, primusHwCounterPort, primusHwCounterName */
static size_t hw_index(const struct pna_row *row, oid *idx)
{
    const struct pna_ib_device *d = row->owner;
    const struct pna_hw_counter *c = row->rec;
    size_t n = pna_index_put_string(idx, PNA_MAX_INDEX_LEN, d->name);
    idx[n++] = row->sub;
    return n + pna_index_put_string(idx + n, PNA_MAX_INDEX_LEN - n, c->name);
}

static const oid rdma_oid[] = { PNA_OID_RDMA };
static const oid device_table_oid[] = { PNA_OID_RDMA_DEVICE_TABLE };
static const oid port_table_oid[] = { PNA_OID_IB_PORT_TABLE };
static const oid cong_table_oid[] = { PNA_OID_ROCE_CONG_TABLE };
static const oid hw_table_oid[] = { PNA_OID_HW_COUNTER_TABLE };

const struct pna_scalar_def pna_rdma_scalars = {
    &pna_rdma_scalar_metrics, rdma_oid, OID_LENGTH(rdma_oid),
};

/* Rows ascend by device name, but string indexes sort by length first: sorted. */
const struct pna_table_def pna_rdma_device_table = {
    &pna_rdma_device_metrics, device_table_oid, OID_LENGTH(device_table_oid), false, device_index,
};
const struct pna_table_def pna_ib_port_table = {
    &pna_ib_port_metrics, port_table_oid, OID_LENGTH(port_table_oid), false, port_index,
};
const struct pna_table_def pna_roce_cong_table = {
    &pna_roce_cong_metrics, cong_table_oid, OID_LENGTH(cong_table_oid), false, port_index,
};
const struct pna_table_def pna_hw_counter_table = {
    &pna_hw_counter_metrics, hw_table_oid, OID_LENGTH(hw_table_oid), false, hw_index,
};
