/* snmp/gpu_table.c -- primusGpu: primusGpuCount, primusGpuTable,
 * primusGpuLinkTable, primusGpuProcTable, primusGpuMigTable and
 * primusGpuPartitionTable, from the descriptors of model/gpu/.  Rows come
 * sorted by primusGpuIndex (the PCI key) from the poller, links by number,
 * MIG devices by GPU and compute instance, partitions by GPU and id. */
#include "pna_autoconf.h"
#include "snmp/tables.h"

#include "model/gpu/gpu.h"
#include "model/metric_tables.h"
#include "model/oids.h"

/* primusGpuIndex: the GPU's PCI key, so a GPU that goes keeps the others' rows. */
static size_t gpu_index(const struct pna_row *row, oid *idx)
{
    const struct pna_gpu *g = row->rec;
    idx[0] = g->index;
    return 1;
}

/* primusGpuIndex, primusGpuLinkNumber */
static size_t gpu_link_index(const struct pna_row *row, oid *idx)
{
    const struct pna_gpu *g = row->owner;
    const struct pna_gpu_link *l = row->rec;
    idx[0] = g->index;
    idx[1] = l->number;
    return 2;
}

/* primusGpuIndex, primusGpuProcPid */
static size_t gpu_proc_index(const struct pna_row *row, oid *idx)
{
    const struct pna_gpu_proc *p = row->rec;
    idx[0] = p->gpu_index;
    idx[1] = p->pid;
    return 2;
}

/* primusGpuIndex, primusGpuMigGpuInstance, primusGpuMigComputeInstance */
static size_t gpu_mig_index(const struct pna_row *row, oid *idx)
{
    const struct pna_gpu_mig *m = row->rec;
    idx[0] = m->gpu_index;
    idx[1] = m->gpu_instance;
    idx[2] = m->compute_instance;
    return 3;
}

/* primusGpuIndex, primusGpuPartitionId */
static size_t gpu_partition_index(const struct pna_row *row, oid *idx)
{
    const struct pna_gpu_partition *p = row->rec;
    idx[0] = p->gpu_index;
    idx[1] = p->id;
    return 2;
}

static const oid gpu_group_oid[] = { PNA_OID_GPU };
static const oid gpu_partition_table_oid[] = { PNA_OID_GPU_PARTITION_TABLE };
static const oid gpu_mig_table_oid[] = { PNA_OID_GPU_MIG_TABLE };
static const oid gpu_proc_table_oid[] = { PNA_OID_GPU_PROC_TABLE };
static const oid gpu_link_table_oid[] = { PNA_OID_GPU_LINK_TABLE };
static const oid gpu_table_oid[] = { PNA_OID_GPU_TABLE };

const struct pna_scalar_def pna_gpu_scalars = {
    &pna_gpu_scalar_metrics, gpu_group_oid, OID_LENGTH(gpu_group_oid),
};
const struct pna_table_def pna_gpu_table = {
    &pna_gpu_metrics, gpu_table_oid, OID_LENGTH(gpu_table_oid), true, gpu_index,
};
const struct pna_table_def pna_gpu_link_table = {
    &pna_gpu_link_metrics, gpu_link_table_oid, OID_LENGTH(gpu_link_table_oid), true, gpu_link_index,
};
const struct pna_table_def pna_gpu_proc_table = {
    &pna_gpu_proc_metrics, gpu_proc_table_oid, OID_LENGTH(gpu_proc_table_oid), true, gpu_proc_index,
};
const struct pna_table_def pna_gpu_mig_table = {
    &pna_gpu_mig_metrics, gpu_mig_table_oid, OID_LENGTH(gpu_mig_table_oid), true, gpu_mig_index,
};
const struct pna_table_def pna_gpu_partition_table = {
    &pna_gpu_partition_metrics, gpu_partition_table_oid, OID_LENGTH(gpu_partition_table_oid), true,
    gpu_partition_index,
};
