/* snmp/container_tables.h -- the primusContainers, primusStorage and
 * primusKubernetes groups of PRIMUS-NODE-MIB (src/snmp/container_tables.c).
 * Main thread only. */
#ifndef PNA_SNMP_CONTAINER_TABLES_H
#define PNA_SNMP_CONTAINER_TABLES_H

#include "snmp/table.h"

/* Register the container count/OOM scalars, primusContainerTable and
 * primusContainerDeviceTable (PNA_DOM_CONTAINERS), the node storage scalars
 * (the kubelet's figures, else statvfs: PNA_DOM_KUBELET / PNA_DOM_STORAGE),
 * primusPodStorageTable and the Kubernetes scalars (PNA_DOM_KUBELET). */
void pna_container_tables_register(void);

/* The definitions, for tests (pna_table_get / pna_table_getnext). */
extern const struct pna_table_def pna_container_table;
extern const struct pna_table_def pna_container_device_table;
extern const struct pna_table_def pna_pod_storage_table;
extern const struct pna_scalar_def pna_containers_scalars;
extern const struct pna_scalar_def pna_storage_scalars;
extern const struct pna_scalar_def pna_kubernetes_scalars;

#endif
