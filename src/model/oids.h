/* model/oids.h -- the numbers of PRIMUS-NODE-MIB for the C code that are not a
 * served value's nor a table's: the OIDs of the groups and notifications, the
 * notification objects, the enumerations and the SIZE limits.
 *
 * mibs/PRIMUS-NODE-MIB.txt is the contract.  The column (or scalar
 * sub-identifier) of every served value is in its descriptor
 * (model/<domain>_metrics.c), beside the rest of what that value is; this header
 * holds the numbers the descriptors and the SNMP front end share.
 * Plain macros and enums only: a macro PNA_OID_* expands to a comma list of
 * sub-identifiers, to be used as `static const oid x[] = { PNA_OID_GPU };` or in a
 * table's declaration, PNA_TABLE_OID(PNA_OID_GPU, 14).
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
 * (through primus-node-agent --list-metrics), the tables' OIDs and INDEX
 * clauses (through --list-tables), and that every object of the MIB is named
 * here, by a descriptor or by a table's declaration.
 * Naming: PNA_OID_<group>, PNA_SC_<notification object>,
 * PNA_NOTIF_<notification>, PNA_<object>_<label> for
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
#define PNA_OID_SLURM                                PNA_OID_OBJECTS, 11 /* primusSlurm */
#define PNA_OID_TOPOLOGY                             PNA_OID_OBJECTS, 12 /* primusTopology */
#define PNA_OID_NOTIFY_OBJECTS                       PNA_OID_OBJECTS, 99 /* primusNotifyObjects */

/* Tables are not here: each table's OID (a group above and its number in
 * it) and its index objects are in its declaration (model/<domain>_metrics.c,
 * "a row's key" in model/metric.h), and --list-tables prints them for
 * tests/integration/mib_oids_h.sh.  A cell is <table>.1.<column>.<index>. */

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
    PNA_NOTIF_SLURM_JOB_END = 19,            /* primusSlurmJobEnd */
    PNA_NOTIF_GPU_IDLE_ALLOCATED_CHANGE = 20, /* primusGpuIdleAllocatedChange */
    PNA_NOTIF_GPU_ORPHAN_PROCESS = 21,       /* primusGpuOrphanProcess */
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
    PNA_CONTAINER_RUNTIME_CRIO = 3,          /* crio */
    PNA_CONTAINER_RUNTIME_PODMAN = 4,        /* podman */
    PNA_CONTAINER_RUNTIME_OTHER = 5,         /* other */
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
    PNA_CONTAINER_DEVICE_SOURCE_DRA_CLAIM = 7,          /* draClaim */
};
enum pna_mib_storage_source { /* values of primusStorageSource */
    PNA_STORAGE_SOURCE_KUBELET = 1,          /* kubelet */
    PNA_STORAGE_SOURCE_STATVFS = 2,          /* statvfs */
};

enum pna_mib_gpu_usage_holder_kind { /* values of primusGpuUsageHolderKind */
    PNA_GPU_USAGE_HOLDER_CONTAINER = 1,      /* container */
    PNA_GPU_USAGE_HOLDER_SLURM_JOB = 2,      /* slurmJob */
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
