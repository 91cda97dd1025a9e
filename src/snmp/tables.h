/* snmp/tables.h -- every table and scalar group the SNMP front end serves:
 * the OIDs and row indexes that make a descriptor table (model/metric.h) a
 * MIB table.  One file per area: node_scalars.c, agent_tables.c,
 * gpu_table.c, rdma_tables.c, pfc_tables.c, container_tables.c.
 * Main thread only (net-snmp). */
#ifndef PNA_SNMP_TABLES_H
#define PNA_SNMP_TABLES_H

#include "snmp/table.h"

/* node_scalars.c */
extern const struct pna_scalar_def pna_system_scalars, pna_cpu_scalars, pna_memory_scalars;
/* agent_tables.c */
extern const struct pna_scalar_def pna_agent_scalars;
extern const struct pna_table_def pna_poller_table, pna_event_table;
/* gpu_table.c */
extern const struct pna_scalar_def pna_gpu_scalars;
extern const struct pna_table_def pna_gpu_table;
extern const struct pna_table_def pna_gpu_link_table;
extern const struct pna_table_def pna_gpu_proc_table;
extern const struct pna_table_def pna_gpu_mig_table;
extern const struct pna_table_def pna_gpu_partition_table;
/* rdma_tables.c */
extern const struct pna_scalar_def pna_rdma_scalars;
extern const struct pna_table_def pna_rdma_device_table, pna_ib_port_table, pna_roce_cong_table,
    pna_hw_counter_table;
/* pfc_tables.c */
extern const struct pna_table_def pna_phy_table, pna_module_table, pna_module_lane_table;
extern const struct pna_table_def pna_pause_table, pna_pfc_table, pna_ethtool_counter_table,
    pna_roce_config_table;
extern const struct pna_scalar_def pna_roce_node_scalars;
/* container_tables.c */
extern const struct pna_scalar_def pna_container_scalars, pna_storage_scalars,
    pna_kubernetes_scalars;
extern const struct pna_table_def pna_container_table, pna_container_device_table,
    pna_pod_storage_table, pna_podres_table;

/* All of them, NULL-terminated (tables.c). */
extern const struct pna_scalar_def *const pna_snmp_scalars[];
extern const struct pna_table_def *const pna_snmp_tables[];

/* Register every one with the agent (after init_agent()); 0 or -1. */
int pna_snmp_tables_register(void);

#endif
