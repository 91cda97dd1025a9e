/* model/oids.h -- the numbers of PRIMUS-NODE-MIB for the C code that are not a
 * served value's: the OIDs of the groups, tables and notifications, the index
 * columns, the notification objects, the enumerations and the SIZE limits.
 *
 * mibs/PRIMUS-NODE-MIB.txt is the contract.  The column (or scalar
 * sub-identifier) of every served value is in its descriptor
 * (model/<domain>_metrics.c), beside the rest of what that value is; this header
 * holds the numbers the descriptors and the SNMP front end share.
 * Plain macros and enums only: a macro PNA_OID_* expands to a comma list of
 * sub-identifiers, to be used as `static const oid x[] = { PNA_OID_GPU_TABLE };`.
 *
 * Every line that defines a number ends with a comment naming the MIB object it
 * mirrors, and tests/integration/mib_oids_h.sh checks each one against
 * net-snmp's reading of the MIB (so the two cannot drift apart):
 *   #define NAME LIST  / * mibName * /          the OID of mibName
 *   enum { / * in mibParent * /                 members are children of mibParent:
 *       NAME = N,  / * mibName * /              mibName is mibParent.N
 *   enum { / * values of mibObject * /          enumeration of mibObject's SYNTAX:
 *       NAME = N,  / * label * /                label(N)
 *   #define NAME N  / * mibName size max * /    the upper bound of its SIZE
 * tests/integration/mib_oids_h.sh checks the descriptors' columns the same way
 * (through primus-node-agent --list-metrics), and that every object of the
 * MIB is named here or by a descriptor.
 * Naming: PNA_OID_<group or table>, PNA_SC_<notification object>,
 * PNA_COL_<index column>, PNA_NOTIF_<notification>, PNA_<object>_<label> for
 * enumerations, all derived from the MIB name without its 'primus' prefix. */
#ifndef PNA_MODEL_OIDS_H
#define PNA_MODEL_OIDS_H

/* The enterprise root: { enterprises 59888 } is a placeholder, NOT an IANA
 * Private Enterprise Number registered for this product.  To relocate the
 * module, change this line and the `primus` line of the MIB together. */
#define PNA_ENTERPRISE_OID                           1, 3, 6, 1, 4, 1, 59888 /* primus */

/* The module and its three branches. */
#define PNA_OID_MIB                                  PNA_ENTERPRISE_OID, 1 /* primusNodeMIB */
#define PNA_OID_NOTIFICATIONS                        PNA_OID_MIB, 0 /* primusNodeNotifications */
#define PNA_OID_OBJECTS                              PNA_OID_MIB, 1 /* primusNodeObjects */
#define PNA_OID_CONFORMANCE                          PNA_OID_MIB, 2 /* primusNodeConformance */

/* Groups under primusNodeObjects; scalars are <group>.<subid>.0. */
#define PNA_OID_SYSTEM                               PNA_OID_OBJECTS, 1 /* primusSystem */
#define PNA_OID_CPU                                  PNA_OID_OBJECTS, 2 /* primusCpu */
#define PNA_OID_MEMORY                               PNA_OID_OBJECTS, 3 /* primusMemory */
#define PNA_OID_AGENT                                PNA_OID_OBJECTS, 4 /* primusAgent */
#define PNA_OID_GPU                                  PNA_OID_OBJECTS, 5 /* primusGpu */
#define PNA_OID_RDMA                                 PNA_OID_OBJECTS, 6 /* primusRdma */
#define PNA_OID_PFC                                  PNA_OID_OBJECTS, 7 /* primusPfc */
#define PNA_OID_CONTAINERS                           PNA_OID_OBJECTS, 8 /* primusContainers */
#define PNA_OID_STORAGE                              PNA_OID_OBJECTS, 9 /* primusStorage */
#define PNA_OID_KUBERNETES                           PNA_OID_OBJECTS, 10 /* primusKubernetes */
#define PNA_OID_NOTIFY_OBJECTS                       PNA_OID_OBJECTS, 99 /* primusNotifyObjects */

/* Tables and their entries; a cell is <entry>.<column>.<index>. */
#define PNA_OID_POLLER_TABLE                         PNA_OID_AGENT, 10 /* primusPollerTable */
#define PNA_OID_POLLER_ENTRY                         PNA_OID_POLLER_TABLE, 1 /* primusPollerEntry */
#define PNA_OID_EVENT_TABLE                          PNA_OID_AGENT, 20 /* primusEventTable */
#define PNA_OID_EVENT_ENTRY                          PNA_OID_EVENT_TABLE, 1 /* primusEventEntry */
#define PNA_OID_GPU_TABLE                            PNA_OID_GPU, 10 /* primusGpuTable */
#define PNA_OID_GPU_ENTRY                            PNA_OID_GPU_TABLE, 1 /* primusGpuEntry */
#define PNA_OID_GPU_LINK_TABLE                       PNA_OID_GPU, 11 /* primusGpuLinkTable */
#define PNA_OID_GPU_LINK_ENTRY                       PNA_OID_GPU_LINK_TABLE, 1 /* primusGpuLinkEntry */
#define PNA_OID_GPU_PROC_TABLE                       PNA_OID_GPU, 12 /* primusGpuProcTable */
#define PNA_OID_GPU_PROC_ENTRY                       PNA_OID_GPU_PROC_TABLE, 1 /* primusGpuProcEntry */
#define PNA_OID_GPU_MIG_TABLE                        PNA_OID_GPU, 13 /* primusGpuMigTable */
#define PNA_OID_GPU_MIG_ENTRY                        PNA_OID_GPU_MIG_TABLE, 1 /* primusGpuMigEntry */
#define PNA_OID_GPU_PARTITION_TABLE                  PNA_OID_GPU, 14 /* primusGpuPartitionTable */
#define PNA_OID_GPU_PARTITION_ENTRY                  PNA_OID_GPU_PARTITION_TABLE, 1 /* primusGpuPartitionEntry */
#define PNA_OID_RDMA_DEVICE_TABLE                    PNA_OID_RDMA, 10 /* primusRdmaDeviceTable */
#define PNA_OID_RDMA_DEVICE_ENTRY                    PNA_OID_RDMA_DEVICE_TABLE, 1 /* primusRdmaDeviceEntry */
#define PNA_OID_IB_PORT_TABLE                        PNA_OID_RDMA, 20 /* primusIbPortTable */
#define PNA_OID_IB_PORT_ENTRY                        PNA_OID_IB_PORT_TABLE, 1 /* primusIbPortEntry */
#define PNA_OID_ROCE_CONG_TABLE                      PNA_OID_RDMA, 30 /* primusRoceCongTable */
#define PNA_OID_ROCE_CONG_ENTRY                      PNA_OID_ROCE_CONG_TABLE, 1 /* primusRoceCongEntry */
#define PNA_OID_HW_COUNTER_TABLE                     PNA_OID_RDMA, 40 /* primusHwCounterTable */
#define PNA_OID_HW_COUNTER_ENTRY                     PNA_OID_HW_COUNTER_TABLE, 1 /* primusHwCounterEntry */
#define PNA_OID_PHY_TABLE                            PNA_OID_RDMA, 50 /* primusPhyTable */
#define PNA_OID_PHY_ENTRY                            PNA_OID_PHY_TABLE, 1 /* primusPhyEntry */
#define PNA_OID_MODULE_TABLE                         PNA_OID_RDMA, 60 /* primusModuleTable */
#define PNA_OID_MODULE_ENTRY                         PNA_OID_MODULE_TABLE, 1 /* primusModuleEntry */
#define PNA_OID_MODULE_LANE_TABLE                    PNA_OID_RDMA, 61 /* primusModuleLaneTable */
#define PNA_OID_MODULE_LANE_ENTRY                    PNA_OID_MODULE_LANE_TABLE, 1 /* primusModuleLaneEntry */
#define PNA_OID_PAUSE_TABLE                          PNA_OID_PFC, 10 /* primusPauseTable */
#define PNA_OID_PAUSE_ENTRY                          PNA_OID_PAUSE_TABLE, 1 /* primusPauseEntry */
#define PNA_OID_PFC_TABLE                            PNA_OID_PFC, 20 /* primusPfcTable */
#define PNA_OID_PFC_ENTRY                            PNA_OID_PFC_TABLE, 1 /* primusPfcEntry */
#define PNA_OID_ETHTOOL_COUNTER_TABLE                PNA_OID_PFC, 30 /* primusEthtoolCounterTable */
#define PNA_OID_ETHTOOL_COUNTER_ENTRY                PNA_OID_ETHTOOL_COUNTER_TABLE, 1 /* primusEthtoolCounterEntry */
#define PNA_OID_ROCE_CONFIG_TABLE                    PNA_OID_PFC, 40 /* primusRoceConfigTable */
#define PNA_OID_ROCE_CONFIG_ENTRY                    PNA_OID_ROCE_CONFIG_TABLE, 1 /* primusRoceConfigEntry */
#define PNA_OID_CONTAINER_TABLE                      PNA_OID_CONTAINERS, 10 /* primusContainerTable */
#define PNA_OID_CONTAINER_ENTRY                      PNA_OID_CONTAINER_TABLE, 1 /* primusContainerEntry */
#define PNA_OID_CONTAINER_DEVICE_TABLE               PNA_OID_CONTAINERS, 20 /* primusContainerDeviceTable */
#define PNA_OID_CONTAINER_DEVICE_ENTRY               PNA_OID_CONTAINER_DEVICE_TABLE, 1 /* primusContainerDeviceEntry */
#define PNA_OID_POD_STORAGE_TABLE                    PNA_OID_STORAGE, 10 /* primusPodStorageTable */
#define PNA_OID_POD_STORAGE_ENTRY                    PNA_OID_POD_STORAGE_TABLE, 1 /* primusPodStorageEntry */
#define PNA_OID_POD_RESOURCE_TABLE                   PNA_OID_KUBERNETES, 10 /* primusPodResourceTable */
#define PNA_OID_POD_RESOURCE_ENTRY                   PNA_OID_POD_RESOURCE_TABLE, 1 /* primusPodResourceEntry */

/* Scalars of primusNotifyObjects (Notification varbinds). */
enum pna_mib_sc_notify_objects { /* in primusNotifyObjects */
    PNA_SC_NOTIFY_RDMA_DEVICE = 1,           /* primusNotifyRdmaDevice */
    PNA_SC_NOTIFY_IB_PORT = 2,               /* primusNotifyIbPort */
    PNA_SC_NOTIFY_IB_PORT_OLD_STATE = 3,     /* primusNotifyIbPortOldState */
    PNA_SC_NOTIFY_GPU_XID = 4,               /* primusNotifyGpuXid */
    PNA_SC_NOTIFY_GPU_THRESHOLD = 5,         /* primusNotifyGpuThreshold */
    PNA_SC_NOTIFY_IF_NAME = 6,               /* primusNotifyIfName */
    PNA_SC_NOTIFY_PFC_PRIORITY = 7,          /* primusNotifyPfcPriority */
    PNA_SC_NOTIFY_PAUSE_RATE = 8,            /* primusNotifyPauseRate */
    PNA_SC_NOTIFY_MODULE_QUANTITY = 20,      /* primusNotifyModuleQuantity */
    PNA_SC_NOTIFY_MODULE_LANE = 21,          /* primusNotifyModuleLane */
    PNA_SC_NOTIFY_MODULE_LEVEL = 22,         /* primusNotifyModuleLevel */
    PNA_SC_NOTIFY_MODULE_VALUE = 23,         /* primusNotifyModuleValue */
    PNA_SC_NOTIFY_MODULE_THRESHOLD = 24,     /* primusNotifyModuleThreshold */
};

/* The index of primusPollerTable: INDEX { primusPollerIndex }. */
enum pna_mib_col_poller_entry { /* in primusPollerEntry */
    PNA_COL_POLLER_INDEX = 1,                    /* primusPollerIndex */
};

/* The index of primusEventTable: INDEX { primusEventIndex }. */
enum pna_mib_col_event_entry { /* in primusEventEntry */
    PNA_COL_EVENT_INDEX = 1,                     /* primusEventIndex */
};

/* The index of primusGpuTable: INDEX { primusGpuIndex }. */
enum pna_mib_col_gpu_entry { /* in primusGpuEntry */
    PNA_COL_GPU_INDEX = 1,                       /* primusGpuIndex */
};

/* The index of primusGpuProcTable: INDEX { primusGpuIndex, primusGpuProcPid }. */
enum pna_mib_col_gpu_proc_entry { /* in primusGpuProcEntry */
    PNA_COL_GPU_PROC_PID = 1,                    /* primusGpuProcPid */
};

/* The index of primusGpuMigTable: INDEX { primusGpuIndex, primusGpuMigGpuInstance,
 * primusGpuMigComputeInstance }. */
enum pna_mib_col_gpu_mig_entry { /* in primusGpuMigEntry */
    PNA_COL_GPU_MIG_GPU_INSTANCE = 1,            /* primusGpuMigGpuInstance */
    PNA_COL_GPU_MIG_COMPUTE_INSTANCE = 2,        /* primusGpuMigComputeInstance */
};

/* The index of primusGpuPartitionTable: INDEX { primusGpuIndex, primusGpuPartitionId }. */
enum pna_mib_col_gpu_partition_entry { /* in primusGpuPartitionEntry */
    PNA_COL_GPU_PARTITION_ID = 1,                /* primusGpuPartitionId */
};

/* The index of primusGpuLinkTable: INDEX { primusGpuIndex, primusGpuLinkNumber }. */
enum pna_mib_col_gpu_link_entry { /* in primusGpuLinkEntry */
    PNA_COL_GPU_LINK_NUMBER = 1,                 /* primusGpuLinkNumber */
};

/* The index of primusRdmaDeviceTable: INDEX { primusRdmaDeviceName }. */
enum pna_mib_col_rdma_device_entry { /* in primusRdmaDeviceEntry */
    PNA_COL_RDMA_DEVICE_NAME = 1,                /* primusRdmaDeviceName */
};

/* The index of primusIbPortTable: INDEX { primusRdmaDeviceName, primusIbPortNumber }. */
enum pna_mib_col_ib_port_entry { /* in primusIbPortEntry */
    PNA_COL_IB_PORT_NUMBER = 1,                  /* primusIbPortNumber */
};

/* The index of primusHwCounterTable: INDEX { primusRdmaDeviceName, primusHwCounterPort, primusHwCounterName }. */
enum pna_mib_col_hw_counter_entry { /* in primusHwCounterEntry */
    PNA_COL_HW_COUNTER_PORT = 1,                 /* primusHwCounterPort */
    PNA_COL_HW_COUNTER_NAME = 2,                 /* primusHwCounterName */
};

/* The index of primusPauseTable: INDEX { primusPfcIfName }. */
/* The indexes of primusPhyTable (primusPhyIfName), primusModuleTable (the
 * same) and primusModuleLaneTable (primusPhyIfName, primusModuleLane). */
enum pna_mib_col_phy_entry { /* in primusPhyEntry */
    PNA_COL_PHY_IF_NAME = 1,                     /* primusPhyIfName */
};
enum pna_mib_col_module_lane_entry { /* in primusModuleLaneEntry */
    PNA_COL_MODULE_LANE = 1,                     /* primusModuleLane */
};

enum pna_mib_col_pause_entry { /* in primusPauseEntry */
    PNA_COL_PFC_IF_NAME = 1,                     /* primusPfcIfName */
};

/* The index of primusPfcTable: INDEX { primusPfcIfName, primusPfcPriority }. */
enum pna_mib_col_pfc_entry { /* in primusPfcEntry */
    PNA_COL_PFC_PRIORITY = 1,                    /* primusPfcPriority */
};

/* The index of primusEthtoolCounterTable: INDEX { primusPfcIfName, primusEthtoolCounterName }. */
enum pna_mib_col_ethtool_counter_entry { /* in primusEthtoolCounterEntry */
    PNA_COL_ETHTOOL_COUNTER_NAME = 1,            /* primusEthtoolCounterName */
};

/* The index of primusContainerTable: INDEX { primusContainerId }. */
enum pna_mib_col_container_entry { /* in primusContainerEntry */
    PNA_COL_CONTAINER_ID = 1,                    /* primusContainerId */
};

/* The index of primusContainerDeviceTable: INDEX { primusContainerId, primusContainerDevicePath }. */
enum pna_mib_col_container_device_entry { /* in primusContainerDeviceEntry */
    PNA_COL_CONTAINER_DEVICE_PATH = 1,           /* primusContainerDevicePath */
};

/* The index of primusPodStorageTable: INDEX { primusPodUid }. */
enum pna_mib_col_pod_storage_entry { /* in primusPodStorageEntry */
    PNA_COL_POD_UID = 1,                         /* primusPodUid */
};

/* The index of primusPodResourceTable: INDEX { primusPodResourceIndex }. */
enum pna_mib_col_pod_resource_entry { /* in primusPodResourceEntry */
    PNA_COL_POD_RESOURCE_INDEX = 1,              /* primusPodResourceIndex */
};

/* Notifications: snmpTrapOID.0 is PNA_OID_NOTIFICATIONS, <number>. */
enum pna_mib_notif { /* in primusNodeNotifications */
    PNA_NOTIF_POLLER_FAILED = 1,             /* primusPollerFailed */
    PNA_NOTIF_POLLER_RECOVERED = 2,          /* primusPollerRecovered */
    PNA_NOTIF_IB_PORT_DOWN = 3,              /* primusIbPortDown */
    PNA_NOTIF_IB_PORT_UP = 4,                /* primusIbPortUp */
    PNA_NOTIF_CONTAINER_OOM_KILL = 5,        /* primusContainerOomKill */
    PNA_NOTIF_GPU_XID_ERROR = 6,             /* primusGpuXidError */
    PNA_NOTIF_GPU_THERMAL = 7,               /* primusGpuThermal */
    PNA_NOTIF_GPU_LOST = 8,                  /* primusGpuLost */
    PNA_NOTIF_PFC_PAUSE_STORM = 9,           /* primusPfcPauseStorm */
    PNA_NOTIF_GPU_LINK_DOWN = 10,            /* primusGpuLinkDown */
    PNA_NOTIF_GPU_LINK_UP = 11,              /* primusGpuLinkUp */
    PNA_NOTIF_GPU_HEALTH_CHANGE = 12,        /* primusGpuHealthChange */
    PNA_NOTIF_ROCE_LOSSLESS_CHANGE = 13,     /* primusRoceLosslessChange */
    PNA_NOTIF_ROCE_NODE_LOSSLESS_CHANGE = 14, /* primusRoceNodeLosslessChange */
    PNA_NOTIF_PCIE_DOWNTRAINED = 15,         /* primusPcieDowntrained */
    PNA_NOTIF_PCIE_RESTORED = 16,            /* primusPcieRestored */
    PNA_NOTIF_MODULE_THRESHOLD = 17,         /* primusModuleThreshold */
    PNA_NOTIF_MODULE_THRESHOLD_CLEAR = 18,   /* primusModuleThresholdClear */
};

/* Enumerated values. */
enum pna_mib_module_worst_level { /* values of primusModuleWorstLevel */
    PNA_MODULE_WORST_LEVEL_NORMAL = 1,       /* normal */
    PNA_MODULE_WORST_LEVEL_LOW_WARNING = 2,  /* lowWarning */
    PNA_MODULE_WORST_LEVEL_HIGH_WARNING = 3, /* highWarning */
    PNA_MODULE_WORST_LEVEL_LOW_ALARM = 4,    /* lowAlarm */
    PNA_MODULE_WORST_LEVEL_HIGH_ALARM = 5,   /* highAlarm */
};
enum pna_mib_notify_module_quantity { /* values of primusNotifyModuleQuantity */
    PNA_NOTIFY_MODULE_QUANTITY_TEMPERATURE = 1,  /* temperature */
    PNA_NOTIFY_MODULE_QUANTITY_VOLTAGE = 2,      /* voltage */
    PNA_NOTIFY_MODULE_QUANTITY_BIAS = 3,         /* bias */
    PNA_NOTIFY_MODULE_QUANTITY_TX_POWER = 4,     /* txPower */
    PNA_NOTIFY_MODULE_QUANTITY_RX_POWER = 5,     /* rxPower */
};
enum pna_mib_agent_status { /* values of primusAgentStatus */
    PNA_AGENT_STATUS_OK = 1,                 /* ok */
    PNA_AGENT_STATUS_DEGRADED = 2,           /* degraded */
};
enum pna_mib_agent_mode { /* values of primusAgentMode */
    PNA_AGENT_MODE_SUBAGENT = 1,             /* subagent */
    PNA_AGENT_MODE_STANDALONE = 2,           /* standalone */
};
enum pna_mib_poller_status { /* values of primusPollerStatus */
    PNA_POLLER_STATUS_OK = 1,                /* ok */
    PNA_POLLER_STATUS_FAILING = 2,           /* failing */
    PNA_POLLER_STATUS_TIMED_OUT = 3,         /* timedOut */
    PNA_POLLER_STATUS_DISABLED = 4,          /* disabled */
    PNA_POLLER_STATUS_PENDING = 5,           /* pending */
};
enum pna_mib_event_type { /* values of primusEventType */
    PNA_EVENT_TYPE_POLLER_FAILED = 1,        /* pollerFailed */
    PNA_EVENT_TYPE_POLLER_RECOVERED = 2,     /* pollerRecovered */
    PNA_EVENT_TYPE_IB_PORT_DOWN = 3,         /* ibPortDown */
    PNA_EVENT_TYPE_IB_PORT_UP = 4,           /* ibPortUp */
    PNA_EVENT_TYPE_CONTAINER_OOM_KILL = 5,   /* containerOomKill */
    PNA_EVENT_TYPE_GPU_XID = 6,              /* gpuXid */
    PNA_EVENT_TYPE_GPU_THERMAL = 7,          /* gpuThermal */
    PNA_EVENT_TYPE_GPU_LOST = 8,             /* gpuLost */
    PNA_EVENT_TYPE_PFC_PAUSE_STORM = 9,      /* pfcPauseStorm */
    PNA_EVENT_TYPE_GPU_LINK_DOWN = 10,       /* gpuLinkDown */
    PNA_EVENT_TYPE_GPU_LINK_UP = 11,         /* gpuLinkUp */
    PNA_EVENT_TYPE_GPU_HEALTH = 12,          /* gpuHealth */
    PNA_EVENT_TYPE_ROCE_LOSSLESS = 13,       /* roceLossless */
    PNA_EVENT_TYPE_ROCE_NODE_LOSSLESS = 14,  /* roceNodeLossless */
    PNA_EVENT_TYPE_PCIE_DOWNTRAINED = 15,    /* pcieDowntrained */
    PNA_EVENT_TYPE_PCIE_RESTORED = 16,       /* pcieRestored */
    PNA_EVENT_TYPE_MODULE_THRESHOLD = 17,    /* moduleThreshold */
    PNA_EVENT_TYPE_MODULE_THRESHOLD_CLEAR = 18, /* moduleThresholdClear */
};
enum pna_mib_event_severity { /* values of primusEventSeverity */
    PNA_EVENT_SEVERITY_INFO = 1,             /* info */
    PNA_EVENT_SEVERITY_WARNING = 2,          /* warning */
    PNA_EVENT_SEVERITY_ERROR = 3,            /* error */
    PNA_EVENT_SEVERITY_CRITICAL = 4,         /* critical */
};
enum pna_mib_gpu_vendor { /* values of primusGpuVendor */
    PNA_GPU_VENDOR_NVIDIA = 1,               /* nvidia */
    PNA_GPU_VENDOR_AMD = 2,                  /* amd */
    PNA_GPU_VENDOR_OTHER = 3,                /* other */
};
enum pna_mib_gpu_data_source { /* values of primusGpuDataSource */
    PNA_GPU_DATA_SOURCE_NVML = 1,            /* nvml */
    PNA_GPU_DATA_SOURCE_NVIDIA_SMI = 2,      /* nvidiaSmi */
    PNA_GPU_DATA_SOURCE_ROCM_SMI = 3,        /* rocmSmi */
    PNA_GPU_DATA_SOURCE_AMDGPU_SYSFS = 4,    /* amdgpuSysfs */
};
enum pna_mib_gpu_mig_mode { /* values of primusGpuMigMode */
    PNA_GPU_MIG_MODE_DISABLED = 1,           /* disabled */
    PNA_GPU_MIG_MODE_ENABLED = 2,            /* enabled */
};
enum pna_mib_roce_lossless { /* values of primusRoceLossless */
    PNA_ROCE_LOSSLESS_READY = 1,             /* ready */
    PNA_ROCE_LOSSLESS_NOT_READY = 2,         /* notReady */
    PNA_ROCE_LOSSLESS_UNREADABLE = 3,        /* unreadable */
    PNA_ROCE_LOSSLESS_NOT_APPLICABLE = 4,    /* notApplicable */
};
enum pna_mib_roce_node_lossless { /* values of primusRoceNodeLossless */
    PNA_ROCE_NODE_LOSSLESS_READY = 1,        /* ready */
    PNA_ROCE_NODE_LOSSLESS_NOT_READY = 2,    /* notReady */
    PNA_ROCE_NODE_LOSSLESS_UNREADABLE = 3,   /* unreadable */
    PNA_ROCE_NODE_LOSSLESS_NOT_APPLICABLE = 4, /* notApplicable */
};
enum pna_mib_roce_trust { /* values of primusRoceTrust */
    PNA_ROCE_TRUST_PCP = 1,                  /* pcp */
    PNA_ROCE_TRUST_DSCP = 2,                 /* dscp */
};
enum pna_mib_roce_trust_source { /* values of primusRoceTrustSource */
    PNA_ROCE_TRUST_SOURCE_DRIVER = 1,        /* driver */
    PNA_ROCE_TRUST_SOURCE_APP_TABLE = 2,     /* appTable */
};
enum pna_mib_gpu_health { /* values of primusGpuHealth */
    PNA_GPU_HEALTH_OK = 1,                   /* ok */
    PNA_GPU_HEALTH_WARNING = 2,              /* warning */
    PNA_GPU_HEALTH_CRITICAL = 3,             /* critical */
    PNA_GPU_HEALTH_UNKNOWN = 4,              /* unknown */
};
enum pna_mib_gpu_recovery_action { /* values of primusGpuRecoveryAction */
    PNA_GPU_RECOVERY_ACTION_NONE = 1,        /* none */
    PNA_GPU_RECOVERY_ACTION_RESET = 2,       /* reset */
    PNA_GPU_RECOVERY_ACTION_REBOOT = 3,      /* reboot */
    PNA_GPU_RECOVERY_ACTION_DRAIN_P2P = 4,   /* drainP2p */
    PNA_GPU_RECOVERY_ACTION_DRAIN_AND_RESET = 5, /* drainAndReset */
};
enum pna_mib_gpu_fabric_state { /* values of primusGpuFabricState */
    PNA_GPU_FABRIC_STATE_NOT_STARTED = 1,    /* notStarted */
    PNA_GPU_FABRIC_STATE_IN_PROGRESS = 2,    /* inProgress */
    PNA_GPU_FABRIC_STATE_COMPLETED = 3,      /* completed */
    PNA_GPU_FABRIC_STATE_FAILED = 4,         /* failed */
};
enum pna_mib_gpu_proc_type { /* values of primusGpuProcType */
    PNA_GPU_PROC_TYPE_COMPUTE = 1,           /* compute */
    PNA_GPU_PROC_TYPE_GRAPHICS = 2,          /* graphics */
    PNA_GPU_PROC_TYPE_COMPUTE_AND_GRAPHICS = 3, /* computeAndGraphics */
};
enum pna_mib_gpu_link_state { /* values of primusGpuLinkState */
    PNA_GPU_LINK_STATE_UP = 1,               /* up */
    PNA_GPU_LINK_STATE_DOWN = 2,             /* down */
};
enum pna_mib_gpu_link_remote_type { /* values of primusGpuLinkRemoteType */
    PNA_GPU_LINK_REMOTE_TYPE_UNKNOWN = 1,    /* unknown */
    PNA_GPU_LINK_REMOTE_TYPE_GPU = 2,        /* gpu */
    PNA_GPU_LINK_REMOTE_TYPE_NVSWITCH = 3,   /* nvswitch */
    PNA_GPU_LINK_REMOTE_TYPE_CPU = 4,        /* cpu */
};
enum pna_mib_rdma_node_type { /* values of primusRdmaNodeType */
    PNA_RDMA_NODE_TYPE_CA = 1,               /* ca */
    PNA_RDMA_NODE_TYPE_SWITCH = 2,           /* switch */
    PNA_RDMA_NODE_TYPE_ROUTER = 3,           /* router */
    PNA_RDMA_NODE_TYPE_RNIC = 4,             /* rnic */
    PNA_RDMA_NODE_TYPE_USNIC = 5,            /* usnic */
    PNA_RDMA_NODE_TYPE_USNIC_UDP = 6,        /* usnicUdp */
    PNA_RDMA_NODE_TYPE_UNSPECIFIED = 7,      /* unspecified */
};
enum pna_mib_ib_port_link_layer { /* values of primusIbPortLinkLayer */
    PNA_IB_PORT_LINK_LAYER_INFINIBAND = 1,   /* infiniband */
    PNA_IB_PORT_LINK_LAYER_ETHERNET = 2,     /* ethernet */
    PNA_IB_PORT_LINK_LAYER_OTHER = 3,        /* other */
};
enum pna_mib_ib_port_state { /* values of primusIbPortState */
    PNA_IB_PORT_STATE_DOWN = 1,              /* down */
    PNA_IB_PORT_STATE_INIT = 2,              /* init */
    PNA_IB_PORT_STATE_ARMED = 3,             /* armed */
    PNA_IB_PORT_STATE_ACTIVE = 4,            /* active */
    PNA_IB_PORT_STATE_ACTIVE_DEFER = 5,      /* activeDefer */
};
enum pna_mib_ib_port_counter_source { /* values of primusIbPortCounterSource */
    PNA_IB_PORT_COUNTER_SOURCE_SYSFS = 1,    /* sysfs */
    PNA_IB_PORT_COUNTER_SOURCE_SYSFS_EXT64 = 2, /* sysfsExt64 */
    PNA_IB_PORT_COUNTER_SOURCE_PMA_EXTENDED = 3, /* pmaExtended */
};
enum pna_mib_ib_port_neighbor_node_type { /* values of primusIbPortNeighborNodeType */
    PNA_IB_PORT_NEIGHBOR_NODE_TYPE_CA = 1,   /* ca */
    PNA_IB_PORT_NEIGHBOR_NODE_TYPE_SWITCH = 2, /* switch */
    PNA_IB_PORT_NEIGHBOR_NODE_TYPE_ROUTER = 3, /* router */
    PNA_IB_PORT_NEIGHBOR_NODE_TYPE_UNKNOWN = 4, /* unknown */
};
enum pna_mib_truth_value { /* values of primusHwCounterWraps32 */
    PNA_TRUTH_TRUE = 1,                      /* true */
    PNA_TRUTH_FALSE = 2,                     /* false */
};
enum pna_mib_container_runtime { /* values of primusContainerRuntime */
    PNA_CONTAINER_RUNTIME_CONTAINERD = 1,    /* containerd */
    PNA_CONTAINER_RUNTIME_DOCKER = 2,        /* docker */
    PNA_CONTAINER_RUNTIME_OTHER = 3,         /* other */
};
enum pna_mib_container_state { /* values of primusContainerState */
    PNA_CONTAINER_STATE_CREATED = 1,         /* created */
    PNA_CONTAINER_STATE_RUNNING = 2,         /* running */
    PNA_CONTAINER_STATE_PAUSED = 3,          /* paused */
    PNA_CONTAINER_STATE_STOPPED = 4,         /* stopped */
    PNA_CONTAINER_STATE_UNKNOWN = 5,         /* unknown */
};
enum pna_mib_container_device_kind { /* values of primusContainerDeviceKind */
    PNA_CONTAINER_DEVICE_KIND_GPU = 1,       /* gpu */
    PNA_CONTAINER_DEVICE_KIND_RDMA = 2,      /* rdma */
    PNA_CONTAINER_DEVICE_KIND_OTHER = 3,     /* other */
};
enum pna_mib_pod_resource_kind { /* values of primusPodResourceKind */
    PNA_POD_RESOURCE_KIND_GPU = 1,           /* gpu */
    PNA_POD_RESOURCE_KIND_MIG = 2,           /* mig */
    PNA_POD_RESOURCE_KIND_RDMA = 3,          /* rdma */
    PNA_POD_RESOURCE_KIND_OTHER = 4,         /* other */
};
enum pna_mib_k8s_gpu_allocatable_source { /* values of primusK8sGpuAllocatableSource */
    PNA_K8S_GPU_ALLOCATABLE_SOURCE_POD_RESOURCES = 1, /* podResources */
    PNA_K8S_GPU_ALLOCATABLE_SOURCE_DEVICE_NODES = 2,  /* deviceNodes */
};
enum pna_mib_container_device_source { /* values of primusContainerDeviceSource */
    PNA_CONTAINER_DEVICE_SOURCE_SPEC_DEVICE = 1,        /* specDevice */
    PNA_CONTAINER_DEVICE_SOURCE_CGROUP = 2,             /* cgroup */
    PNA_CONTAINER_DEVICE_SOURCE_DOCKER_REQUEST = 3,     /* dockerRequest */
    PNA_CONTAINER_DEVICE_SOURCE_POD_RESOURCES = 4,      /* podResources */
    PNA_CONTAINER_DEVICE_SOURCE_CDI = 5,                /* cdi */
    PNA_CONTAINER_DEVICE_SOURCE_NVIDIA_RUNTIME_ENV = 6, /* nvidiaRuntimeEnv */
};
enum pna_mib_storage_source { /* values of primusStorageSource */
    PNA_STORAGE_SOURCE_KUBELET = 1,          /* kubelet */
    PNA_STORAGE_SOURCE_STATVFS = 2,          /* statvfs */
};

/* Upper bounds of SIZE-restricted strings (index strings and references to them). */
#define PNA_MAX_GPU_HOLDER_CONTAINER_LEN             76 /* primusGpuHolderContainer size max */
#define PNA_MAX_RDMA_DEVICE_NAME_LEN                 64 /* primusRdmaDeviceName size max */
#define PNA_MAX_HW_COUNTER_NAME_LEN                  48 /* primusHwCounterName size max */
#define PNA_MAX_PFC_IF_NAME_LEN                      15 /* primusPfcIfName size max */
#define PNA_MAX_PHY_IF_NAME_LEN                      15 /* primusPhyIfName size max */
#define PNA_MAX_ETHTOOL_COUNTER_NAME_LEN             32 /* primusEthtoolCounterName size max */
#define PNA_MAX_CONTAINER_ID_LEN                     76 /* primusContainerId size max */
#define PNA_MAX_CONTAINER_DEVICE_PATH_LEN            36 /* primusContainerDevicePath size max */
#define PNA_MAX_POD_UID_LEN                          64 /* primusPodUid size max */

#endif
