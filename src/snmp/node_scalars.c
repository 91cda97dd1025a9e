/* snmp/node_scalars.c -- primusSystem, primusCpu and primusMemory: the node
 * snapshot's descriptors (model/node_metrics.c) as scalars. */
#include "pna_autoconf.h"
#include "snmp/tables.h"

#include "model/metric_tables.h"
#include "model/oids.h"

static const oid system_oid[] = { PNA_OID_SYSTEM };
static const oid cpu_oid[] = { PNA_OID_CPU };
static const oid memory_oid[] = { PNA_OID_MEMORY };

const struct pna_scalar_def pna_system_scalars = {
    &pna_system_metrics, system_oid, OID_LENGTH(system_oid),
};
const struct pna_scalar_def pna_cpu_scalars = { &pna_cpu_metrics, cpu_oid, OID_LENGTH(cpu_oid) };
const struct pna_scalar_def pna_memory_scalars = {
    &pna_memory_metrics, memory_oid, OID_LENGTH(memory_oid),
};
