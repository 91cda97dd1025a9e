/* snmp/gpu_table.h -- primusGpu: the GPU count scalar and primusGpuTable. */
#ifndef PNA_SNMP_GPU_TABLE_H
#define PNA_SNMP_GPU_TABLE_H

#include "snmp/table.h"

/* Main thread, after init_agent(). */
void pna_gpu_table_register(void);

/* The definitions, for tests that resolve requests without net-snmp. */
extern const struct pna_table_def pna_gpu_table_def;
extern const struct pna_scalar_def pna_gpu_scalars_def;

#endif
