/* snmp/rdma_tables.h -- the primusRdma and primusPfc groups of PRIMUS-NODE-MIB
 * (src/snmp/rdma_tables.c, src/snmp/pfc_tables.c).  Main thread only. */
#ifndef PNA_SNMP_RDMA_TABLES_H
#define PNA_SNMP_RDMA_TABLES_H

#include "snmp/table.h"

/* Register primusRdmaDeviceCount and the device, port, RoCE congestion and
 * hw counter tables (served from the PNA_DOM_IB snapshot). */
void pna_rdma_tables_register(void);

/* Register the pause, PFC and ethtool counter tables (PNA_DOM_PFC). */
void pna_pfc_tables_register(void);

/* The definitions, for tests (pna_table_get / pna_table_getnext). */
extern const struct pna_table_def pna_rdma_device_table;
extern const struct pna_table_def pna_ib_port_table;
extern const struct pna_table_def pna_roce_cong_table;
extern const struct pna_table_def pna_hw_counter_table;
extern const struct pna_table_def pna_pause_table;
extern const struct pna_table_def pna_pfc_table;
extern const struct pna_table_def pna_ethtool_counter_table;

#endif
