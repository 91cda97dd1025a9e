/* snmp/tables.c -- the list of what the SNMP front end serves (see tables.h)
 * and its registration with the agent. */
#include "pna_autoconf.h"
#include "snmp/tables.h"

#include "model/oids.h"
#include "snmp/subtree.h"

const struct pna_scalar_def *const pna_snmp_scalars[] = {
    &pna_system_scalars, &pna_cpu_scalars, &pna_memory_scalars, &pna_agent_scalars,
    &pna_gpu_scalars, &pna_rdma_scalars, &pna_container_scalars, &pna_storage_scalars,
    &pna_kubernetes_scalars, &pna_roce_node_scalars, NULL,
};

const struct pna_table_def *const pna_snmp_tables[] = {
    &pna_poller_table, &pna_event_table, &pna_gpu_table, &pna_gpu_link_table, &pna_gpu_proc_table,
    &pna_gpu_mig_table, &pna_gpu_partition_table, &pna_rdma_device_table, &pna_ib_port_table, &pna_roce_cong_table, &pna_hw_counter_table, &pna_phy_table,
    &pna_module_table, &pna_module_lane_table, &pna_pause_table,
    &pna_pfc_table, &pna_ethtool_counter_table, &pna_roce_config_table, &pna_container_table,
    &pna_container_device_table, &pna_pod_storage_table, &pna_podres_table, NULL,
};

int pna_snmp_tables_register(void)
{
    static const oid objects[] = { PNA_OID_OBJECTS };
    int rc = 0;
    for (size_t i = 0; pna_snmp_scalars[i]; i++)
        rc |= pna_scalars_register(pna_snmp_scalars[i]);
    for (size_t i = 0; pna_snmp_tables[i]; i++)
        rc |= pna_table_register(pna_snmp_tables[i]);
    if (rc)
        return -1;
    return pna_subtree_register("primusNodeObjects", objects, OID_LENGTH(objects));
}
