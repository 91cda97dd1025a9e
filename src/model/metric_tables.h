/* model/metric_tables.h -- every table of served values: the descriptor
 * tables of each domain (src/model/<domain>_metrics.c), for the SNMP front
 * end, the bridge, the catalogue (--list-metrics) and the tests. */
#ifndef PNA_MODEL_METRIC_TABLES_H
#define PNA_MODEL_METRIC_TABLES_H

#include <stdio.h>

#include "model/metric.h"

/* node_metrics.c */
extern const struct pna_metric_table pna_system_metrics;     /* primusSystem */
extern const struct pna_metric_table pna_cpu_metrics;        /* primusCpu */
extern const struct pna_metric_table pna_memory_metrics;     /* primusMemory */
/* agent_metrics.c */
extern const struct pna_metric_table pna_agent_metrics;      /* primusAgent */
extern const struct pna_metric_table pna_poller_metrics;     /* primusPollerTable */
extern const struct pna_metric_table pna_event_metrics;      /* primusEventTable */
/* gpu_metrics.c */
extern const struct pna_metric_table pna_gpu_scalar_metrics; /* primusGpu */
extern const struct pna_metric_table pna_gpu_metrics;        /* primusGpuTable */
/* gpu/gpu_link_metrics.c */
extern const struct pna_metric_table pna_gpu_link_metrics;   /* primusGpuLinkTable */
/* gpu/gpu_proc_metrics.c */
extern const struct pna_metric_table pna_gpu_proc_metrics;   /* primusGpuProcTable */
/* gpu/gpu_mig_metrics.c */
extern const struct pna_metric_table pna_gpu_mig_metrics;    /* primusGpuMigTable */
/* gpu/gpu_partition_metrics.c */
extern const struct pna_metric_table pna_gpu_partition_metrics; /* primusGpuPartitionTable */
/* ib_metrics.c */
extern const struct pna_metric_table pna_rdma_scalar_metrics;   /* primusRdma */
extern const struct pna_metric_table pna_rdma_device_metrics;   /* primusRdmaDeviceTable */
extern const struct pna_metric_table pna_ib_port_metrics;       /* primusIbPortTable */
extern const struct pna_metric_table pna_roce_cong_metrics;     /* primusRoceCongTable */
extern const struct pna_metric_table pna_hw_counter_metrics;    /* primusHwCounterTable */
extern const struct pna_metric_table pna_phy_metrics;           /* primusPhyTable */
extern const struct pna_metric_table pna_module_metrics;        /* primusModuleTable */
extern const struct pna_metric_table pna_module_lane_metrics;   /* primusModuleLaneTable */
/* pfc_metrics.c */
extern const struct pna_metric_table pna_pause_metrics;      /* primusPauseTable */
extern const struct pna_metric_table pna_pfc_metrics;        /* primusPfcTable */
extern const struct pna_metric_table pna_ethtool_metrics;    /* primusEthtoolCounterTable */
/* lossless/lossless_metrics.c */
extern const struct pna_metric_table pna_roce_node_metrics;   /* primusPfc (scalars) */
extern const struct pna_metric_table pna_roce_config_metrics; /* primusRoceConfigTable */
/* containers_metrics.c */
extern const struct pna_metric_table pna_container_scalar_metrics; /* primusContainers */
extern const struct pna_metric_table pna_container_metrics;        /* primusContainerTable */
extern const struct pna_metric_table pna_container_device_metrics; /* primusContainerDeviceTable */
/* storage_metrics.c */
extern const struct pna_metric_table pna_storage_metrics;    /* primusStorage */
extern const struct pna_metric_table pna_pod_metrics;        /* primusPodStorageTable */
extern const struct pna_metric_table pna_k8s_metrics;        /* primusKubernetes */
/* podres_metrics.c */
extern const struct pna_metric_table pna_podres_metrics;     /* primusPodResourceTable */
/* kubernetes/pod_labels_metrics.c */
extern const struct pna_metric_table pna_pod_label_metrics;  /* primusPodLabelTable */
extern const struct pna_metric_table pna_slurm_job_metrics;  /* primusSlurmJobTable */
extern const struct pna_metric_table pna_gpu_usage_metrics;  /* primusGpuUsageTable */
extern const struct pna_metric_table pna_pod_gpu_usage_metrics;       /* primusPodGpuUsageTable */
extern const struct pna_metric_table pna_slurm_job_gpu_usage_metrics; /* primusSlurmJobGpuUsageTable */
extern const struct pna_metric_table pna_topo_metrics;       /* primusTopoTable */

/* The key part of a table indexed by a watched interface's name
 * (primusPfcIfName, label "interface"): the row's record or its parent
 * (FROM) is the struct pna_pfc_if (model/pfc.h). */
#define PNA_PFC_IF_KEY_PART(from)                                                            \
    PNA_KEY_INDEX_FIELD("primusPfcIfName", "interface", from, struct pna_pfc_if, ifname)
/* The same for the physical layer's tables (primusPhyIfName): a struct
 * pna_phy_if (model/phy/phy.h). */
#define PNA_PHY_IF_KEY_PART(from)                                                            \
    PNA_KEY_INDEX_FIELD("primusPhyIfName", "interface", from, struct pna_phy_if, ifname)

/* The watched interfaces' rows (REC the struct pna_pfc_if; an interface whose
 * name cannot index primusPfcIfName has no cells), shared by primusPauseTable
 * and primusRoceConfigTable (pfc_metrics.c). */
size_t pna_pfc_if_rows(const struct pna_view *v);
bool pna_pfc_if_row(const struct pna_view *v, size_t i, struct pna_row *out);

/* The RDMA device and port whose netdev a watched interface is (the row's
 * record a struct pna_pfc_if), joined from the view's IB snapshot: the same
 * cells of primusPauseTable and primusRoceConfigTable (pfc_metrics.c).  The
 * port is the MIB's 0 when there is none. */
/* The RDMA device and port whose netdev IFNAME is (empty / none when no
 * port's), joined from view V's IB snapshot: the columns of every
 * interface table (pause, lossless RoCE, phy). */
void pna_netdev_rdma_device(const struct pna_view *v, const char *ifname, struct pna_value *out);
void pna_netdev_rdma_port(const struct pna_view *v, const char *ifname, struct pna_value *out);
void pna_pfc_get_rdma_device(const struct pna_row *r, struct pna_value *out);
void pna_pfc_get_rdma_port(const struct pna_row *r, struct pna_value *out);

/* The IB port rows, shared by primusIbPortTable and primusRoceCongTable. */
size_t pna_ib_port_rows(const struct pna_view *v);
bool pna_ib_port_row(const struct pna_view *v, size_t i, struct pna_row *out);
/* primusIbPortSaturated of port P: bit N for counter column 20 + N; and the
 * sysfs file name of the counter bit N stands for ("symbol_error"). */
struct pna_ib_port;
uint32_t pna_ib_saturated_columns(const struct pna_ib_port *p);
const char *pna_ib_saturated_counter_file(unsigned bit);

/* All of them, NULL-terminated (metric_tables.c). */
extern const struct pna_metric_table *const pna_metric_tables[];

/* The catalogue --list-metrics prints: one tab-separated line per
 * descriptor and info family. */
void pna_metric_catalogue(FILE *out);

/* The tables --list-tables prints: one tab-separated line per table or
 * scalar group: its OID, its index objects and its identity labels. */
void pna_table_catalogue(FILE *out);

#endif
