/* oids.h -- the numbers of PRIMUS-NODE-MIB for the C code.
 *
 * mibs/PRIMUS-NODE-MIB.txt is the contract; this header mirrors it so that the
 * code takes every OID, column number and enumeration value from one place.
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
 * Naming: PNA_OID_<group or table>, PNA_SC_<scalar>, PNA_COL_<column>,
 * PNA_NOTIF_<notification>, PNA_<object>_<label> for enumerations, all derived
 * from the MIB name without its 'primus' prefix. */
#ifndef PNA_SNMP_OIDS_H
#define PNA_SNMP_OIDS_H

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
#define PNA_OID_RDMA_DEVICE_TABLE                    PNA_OID_RDMA, 10 /* primusRdmaDeviceTable */
#define PNA_OID_RDMA_DEVICE_ENTRY                    PNA_OID_RDMA_DEVICE_TABLE, 1 /* primusRdmaDeviceEntry */
#define PNA_OID_IB_PORT_TABLE                        PNA_OID_RDMA, 20 /* primusIbPortTable */
#define PNA_OID_IB_PORT_ENTRY                        PNA_OID_IB_PORT_TABLE, 1 /* primusIbPortEntry */
#define PNA_OID_ROCE_CONG_TABLE                      PNA_OID_RDMA, 30 /* primusRoceCongTable */
#define PNA_OID_ROCE_CONG_ENTRY                      PNA_OID_ROCE_CONG_TABLE, 1 /* primusRoceCongEntry */
#define PNA_OID_HW_COUNTER_TABLE                     PNA_OID_RDMA, 40 /* primusHwCounterTable */
#define PNA_OID_HW_COUNTER_ENTRY                     PNA_OID_HW_COUNTER_TABLE, 1 /* primusHwCounterEntry */
#define PNA_OID_PAUSE_TABLE                          PNA_OID_PFC, 10 /* primusPauseTable */
#define PNA_OID_PAUSE_ENTRY                          PNA_OID_PAUSE_TABLE, 1 /* primusPauseEntry */
#define PNA_OID_PFC_TABLE                            PNA_OID_PFC, 20 /* primusPfcTable */
#define PNA_OID_PFC_ENTRY                            PNA_OID_PFC_TABLE, 1 /* primusPfcEntry */
#define PNA_OID_ETHTOOL_COUNTER_TABLE                PNA_OID_PFC, 30 /* primusEthtoolCounterTable */
#define PNA_OID_ETHTOOL_COUNTER_ENTRY                PNA_OID_ETHTOOL_COUNTER_TABLE, 1 /* primusEthtoolCounterEntry */
#define PNA_OID_CONTAINER_TABLE                      PNA_OID_CONTAINERS, 10 /* primusContainerTable */
#define PNA_OID_CONTAINER_ENTRY                      PNA_OID_CONTAINER_TABLE, 1 /* primusContainerEntry */
#define PNA_OID_CONTAINER_DEVICE_TABLE               PNA_OID_CONTAINERS, 20 /* primusContainerDeviceTable */
#define PNA_OID_CONTAINER_DEVICE_ENTRY               PNA_OID_CONTAINER_DEVICE_TABLE, 1 /* primusContainerDeviceEntry */
#define PNA_OID_POD_STORAGE_TABLE                    PNA_OID_STORAGE, 10 /* primusPodStorageTable */
#define PNA_OID_POD_STORAGE_ENTRY                    PNA_OID_POD_STORAGE_TABLE, 1 /* primusPodStorageEntry */

/* Scalars of primusSystem (Node identity). */
enum pna_mib_sc_system { /* in primusSystem */
    PNA_SC_NODE_HOSTNAME = 1,                /* primusNodeHostname */
    PNA_SC_NODE_OS_NAME = 2,                 /* primusNodeOsName */
    PNA_SC_NODE_KERNEL = 3,                  /* primusNodeKernel */
    PNA_SC_NODE_CPU_MODEL = 4,               /* primusNodeCpuModel */
    PNA_SC_NODE_UPTIME = 5,                  /* primusNodeUptime */
    PNA_SC_NODE_ARCHITECTURE = 6,            /* primusNodeArchitecture */
    PNA_SC_NODE_BOOT_TIME = 7,               /* primusNodeBootTime */
};

/* Scalars of primusCpu (CPU). */
enum pna_mib_sc_cpu { /* in primusCpu */
    PNA_SC_CPU_CORES = 1,                    /* primusCpuCores */
    PNA_SC_CPU_THREADS = 2,                  /* primusCpuThreads */
    PNA_SC_CPU_USAGE = 3,                    /* primusCpuUsage */
    PNA_SC_CPU_SOCKETS = 4,                  /* primusCpuSockets */
    PNA_SC_CPU_LOAD1 = 5,                    /* primusCpuLoad1 */
    PNA_SC_CPU_LOAD5 = 6,                    /* primusCpuLoad5 */
    PNA_SC_CPU_LOAD15 = 7,                   /* primusCpuLoad15 */
    PNA_SC_CPU_IOWAIT = 8,                   /* primusCpuIowait */
};

/* Scalars of primusMemory (Memory). */
enum pna_mib_sc_memory { /* in primusMemory */
    PNA_SC_MEM_TOTAL = 1,                    /* primusMemTotal */
    PNA_SC_MEM_USED = 2,                     /* primusMemUsed */
    PNA_SC_MEM_AVAILABLE = 3,                /* primusMemAvailable */
    PNA_SC_MEM_USAGE = 4,                    /* primusMemUsage */
    PNA_SC_MEM_SWAP_TOTAL = 5,               /* primusMemSwapTotal */
    PNA_SC_MEM_SWAP_USED = 6,                /* primusMemSwapUsed */
};

/* Scalars of primusAgent (Agent, pollers and events). */
enum pna_mib_sc_agent { /* in primusAgent */
    PNA_SC_AGENT_VERSION = 1,                /* primusAgentVersion */
    PNA_SC_AGENT_UPTIME = 2,                 /* primusAgentUptime */
    PNA_SC_AGENT_STATUS = 3,                 /* primusAgentStatus */
    PNA_SC_AGENT_MODE = 4,                   /* primusAgentMode */
    PNA_SC_AGENT_EVENTS_TOTAL = 5,           /* primusAgentEventsTotal */
    PNA_SC_AGENT_EVENT_CAPACITY = 6,         /* primusAgentEventCapacity */
    PNA_SC_AGENT_EVENTS_DROPPED = 7,         /* primusAgentEventsDropped */
};

/* Scalars of primusGpu (GPUs). */
enum pna_mib_sc_gpu { /* in primusGpu */
    PNA_SC_GPU_COUNT = 1,                    /* primusGpuCount */
};

/* Scalars of primusRdma (RDMA: InfiniBand and RoCE). */
enum pna_mib_sc_rdma { /* in primusRdma */
    PNA_SC_RDMA_DEVICE_COUNT = 1,            /* primusRdmaDeviceCount */
};

/* Scalars of primusContainers (Containers). */
enum pna_mib_sc_containers { /* in primusContainers */
    PNA_SC_CONTAINER_COUNT = 1,              /* primusContainerCount */
    PNA_SC_CONTAINER_OOM_KILLS_TOTAL = 2,    /* primusContainerOomKillsTotal */
};

/* Scalars of primusStorage (Ephemeral storage). */
enum pna_mib_sc_storage { /* in primusStorage */
    PNA_SC_STORAGE_CAPACITY = 1,             /* primusStorageCapacity */
    PNA_SC_STORAGE_AVAILABLE = 2,            /* primusStorageAvailable */
    PNA_SC_STORAGE_USED = 3,                 /* primusStorageUsed */
    PNA_SC_STORAGE_USAGE = 4,                /* primusStorageUsage */
    PNA_SC_STORAGE_SOURCE = 5,               /* primusStorageSource */
    PNA_SC_STORAGE_PATH = 6,                 /* primusStoragePath */
    PNA_SC_STORAGE_INODES = 7,               /* primusStorageInodes */
    PNA_SC_STORAGE_INODES_FREE = 8,          /* primusStorageInodesFree */
    PNA_SC_STORAGE_INODES_USED = 9,          /* primusStorageInodesUsed */
};

/* Scalars of primusKubernetes (Kubernetes). */
enum pna_mib_sc_kubernetes { /* in primusKubernetes */
    PNA_SC_K8S_NODE_NAME = 1,                /* primusK8sNodeName */
    PNA_SC_K8S_GPU_ALLOCATABLE = 2,          /* primusK8sGpuAllocatable */
    PNA_SC_K8S_GPU_ALLOCATED = 3,            /* primusK8sGpuAllocated */
    PNA_SC_K8S_GPU_ALLOC_RATE = 4,           /* primusK8sGpuAllocRate */
    PNA_SC_K8S_POD_COUNT = 5,                /* primusK8sPodCount */
};

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
};

/* Columns of primusPollerTable, INDEX { primusPollerIndex }. */
enum pna_mib_col_poller_entry { /* in primusPollerEntry */
    PNA_COL_POLLER_INDEX = 1,                    /* primusPollerIndex */
    PNA_COL_POLLER_NAME = 2,                     /* primusPollerName */
    PNA_COL_POLLER_INTERVAL = 3,                 /* primusPollerInterval */
    PNA_COL_POLLER_LAST_SUCCESS = 4,             /* primusPollerLastSuccess */
    PNA_COL_POLLER_LAST_DURATION = 5,            /* primusPollerLastDuration */
    PNA_COL_POLLER_ERRORS = 6,                   /* primusPollerErrors */
    PNA_COL_POLLER_LAST_ERROR = 7,               /* primusPollerLastError */
    PNA_COL_POLLER_DATA_AGE = 8,                 /* primusPollerDataAge */
    PNA_COL_POLLER_STATUS = 9,                   /* primusPollerStatus */
    PNA_COL_POLLER_RUNS = 10,                    /* primusPollerRuns */
    PNA_COL_POLLER_CONSECUTIVE_FAILURES = 11,    /* primusPollerConsecutiveFailures */
    PNA_COL_POLLER_TIMEOUT = 12,                 /* primusPollerTimeout */
};

/* Columns of primusEventTable, INDEX { primusEventIndex }. */
enum pna_mib_col_event_entry { /* in primusEventEntry */
    PNA_COL_EVENT_INDEX = 1,                     /* primusEventIndex */
    PNA_COL_EVENT_TIME = 2,                      /* primusEventTime */
    PNA_COL_EVENT_TYPE = 3,                      /* primusEventType */
    PNA_COL_EVENT_SEVERITY = 4,                  /* primusEventSeverity */
    PNA_COL_EVENT_SUBJECT = 5,                   /* primusEventSubject */
    PNA_COL_EVENT_TEXT = 6,                      /* primusEventText */
};

/* Columns of primusGpuTable, INDEX { primusGpuIndex }. */
enum pna_mib_col_gpu_entry { /* in primusGpuEntry */
    PNA_COL_GPU_INDEX = 1,                       /* primusGpuIndex */
    PNA_COL_GPU_VENDOR = 2,                      /* primusGpuVendor */
    PNA_COL_GPU_ORDINAL = 3,                     /* primusGpuOrdinal */
    PNA_COL_GPU_NAME = 4,                        /* primusGpuName */
    PNA_COL_GPU_UUID = 5,                        /* primusGpuUuid */
    PNA_COL_GPU_SERIAL = 6,                      /* primusGpuSerial */
    PNA_COL_GPU_PCI_BUS_ID = 7,                  /* primusGpuPciBusId */
    PNA_COL_GPU_DRIVER_VERSION = 8,              /* primusGpuDriverVersion */
    PNA_COL_GPU_COMPUTE_VERSION = 9,             /* primusGpuComputeVersion */
    PNA_COL_GPU_VBIOS = 10,                      /* primusGpuVbios */
    PNA_COL_GPU_PCI_DEVICE_ID = 11,              /* primusGpuPciDeviceId */
    PNA_COL_GPU_DATA_SOURCE = 12,                /* primusGpuDataSource */
    PNA_COL_GPU_UTILIZATION = 20,                /* primusGpuUtilization */
    PNA_COL_GPU_MEM_UTILIZATION = 21,            /* primusGpuMemUtilization */
    PNA_COL_GPU_MEM_TOTAL = 22,                  /* primusGpuMemTotal */
    PNA_COL_GPU_MEM_USED = 23,                   /* primusGpuMemUsed */
    PNA_COL_GPU_MEM_FREE = 24,                   /* primusGpuMemFree */
    PNA_COL_GPU_TEMPERATURE = 25,                /* primusGpuTemperature */
    PNA_COL_GPU_MEM_TEMPERATURE = 26,            /* primusGpuMemTemperature */
    PNA_COL_GPU_TEMP_SLOWDOWN = 27,              /* primusGpuTempSlowdown */
    PNA_COL_GPU_TEMP_SHUTDOWN = 28,              /* primusGpuTempShutdown */
    PNA_COL_GPU_POWER_DRAW = 29,                 /* primusGpuPowerDraw */
    PNA_COL_GPU_POWER_LIMIT = 30,                /* primusGpuPowerLimit */
    PNA_COL_GPU_ENERGY = 31,                     /* primusGpuEnergy */
    PNA_COL_GPU_SM_CLOCK = 32,                   /* primusGpuSmClock */
    PNA_COL_GPU_MEM_CLOCK = 33,                  /* primusGpuMemClock */
    PNA_COL_GPU_FAN_SPEED = 34,                  /* primusGpuFanSpeed */
    PNA_COL_GPU_PCIE_GEN = 35,                   /* primusGpuPcieGen */
    PNA_COL_GPU_PCIE_WIDTH = 36,                 /* primusGpuPcieWidth */
    PNA_COL_GPU_PCIE_REPLAYS = 37,               /* primusGpuPcieReplays */
    PNA_COL_GPU_ECC_CORRECTED = 38,              /* primusGpuEccCorrected */
    PNA_COL_GPU_ECC_UNCORRECTED = 39,            /* primusGpuEccUncorrected */
    PNA_COL_GPU_RETIRED_PAGES = 40,              /* primusGpuRetiredPages */
    PNA_COL_GPU_REMAPPED_ROWS = 41,              /* primusGpuRemappedRows */
    PNA_COL_GPU_REMAP_PENDING = 42,              /* primusGpuRemapPending */
    PNA_COL_GPU_THROTTLE_REASONS = 43,           /* primusGpuThrottleReasons */
    PNA_COL_GPU_PROCESS_COUNT = 44,              /* primusGpuProcessCount */
    PNA_COL_GPU_MIG_MODE = 45,                   /* primusGpuMigMode */
    PNA_COL_GPU_DRM_CARD = 46,                   /* primusGpuDrmCard */
    PNA_COL_GPU_DRM_RENDER = 47,                 /* primusGpuDrmRender */
    PNA_COL_GPU_HOLDER_CONTAINER = 48,           /* primusGpuHolderContainer */
    PNA_COL_GPU_HOLDER_POD = 49,                 /* primusGpuHolderPod */
    PNA_COL_GPU_HOLDER_NAMESPACE = 50,           /* primusGpuHolderNamespace */
    PNA_COL_GPU_PCIE_GEN_MAX = 51,               /* primusGpuPcieGenMax */
    PNA_COL_GPU_PCIE_WIDTH_MAX = 52,             /* primusGpuPcieWidthMax */
    PNA_COL_GPU_PERF_STATE = 53,                 /* primusGpuPerfState */
    PNA_COL_GPU_XID_ERRORS = 54,                 /* primusGpuXidErrors */
    PNA_COL_GPU_LAST_XID = 55,                   /* primusGpuLastXid */
    PNA_COL_GPU_HOLDER_COUNT = 56,               /* primusGpuHolderCount */
};

/* Columns of primusRdmaDeviceTable, INDEX { primusRdmaDeviceName }. */
enum pna_mib_col_rdma_device_entry { /* in primusRdmaDeviceEntry */
    PNA_COL_RDMA_DEVICE_NAME = 1,                /* primusRdmaDeviceName */
    PNA_COL_RDMA_NODE_TYPE = 2,                  /* primusRdmaNodeType */
    PNA_COL_RDMA_FIRMWARE = 3,                   /* primusRdmaFirmware */
    PNA_COL_RDMA_HCA_TYPE = 4,                   /* primusRdmaHcaType */
    PNA_COL_RDMA_BOARD_ID = 5,                   /* primusRdmaBoardId */
    PNA_COL_RDMA_NODE_GUID = 6,                  /* primusRdmaNodeGuid */
    PNA_COL_RDMA_SYS_IMAGE_GUID = 7,             /* primusRdmaSysImageGuid */
    PNA_COL_RDMA_PORT_COUNT = 8,                 /* primusRdmaPortCount */
    PNA_COL_RDMA_DRIVER = 9,                     /* primusRdmaDriver */
    PNA_COL_RDMA_PCI_BUS_ID = 10,                /* primusRdmaPciBusId */
};

/* Columns of primusIbPortTable, INDEX { primusRdmaDeviceName, primusIbPortNumber }. */
enum pna_mib_col_ib_port_entry { /* in primusIbPortEntry */
    PNA_COL_IB_PORT_NUMBER = 1,                  /* primusIbPortNumber */
    PNA_COL_IB_PORT_LINK_LAYER = 2,              /* primusIbPortLinkLayer */
    PNA_COL_IB_PORT_STATE = 3,                   /* primusIbPortState */
    PNA_COL_IB_PORT_STATE_TEXT = 4,              /* primusIbPortStateText */
    PNA_COL_IB_PORT_PHYS_STATE = 5,              /* primusIbPortPhysState */
    PNA_COL_IB_PORT_PHYS_STATE_TEXT = 6,         /* primusIbPortPhysStateText */
    PNA_COL_IB_PORT_WIDTH = 7,                   /* primusIbPortWidth */
    PNA_COL_IB_PORT_RATE = 8,                    /* primusIbPortRate */
    PNA_COL_IB_PORT_RATE_TEXT = 9,               /* primusIbPortRateText */
    PNA_COL_IB_PORT_LID = 10,                    /* primusIbPortLid */
    PNA_COL_IB_PORT_SM_LID = 11,                 /* primusIbPortSmLid */
    PNA_COL_IB_PORT_GID = 12,                    /* primusIbPortGid */
    PNA_COL_IB_PORT_NETDEV = 13,                 /* primusIbPortNetdev */
    PNA_COL_IB_PORT_IF_INDEX = 14,               /* primusIbPortIfIndex */
    PNA_COL_IB_PORT_RCV_DATA = 20,               /* primusIbPortRcvData */
    PNA_COL_IB_PORT_XMIT_DATA = 21,              /* primusIbPortXmitData */
    PNA_COL_IB_PORT_RCV_PKTS = 22,               /* primusIbPortRcvPkts */
    PNA_COL_IB_PORT_XMIT_PKTS = 23,              /* primusIbPortXmitPkts */
    PNA_COL_IB_PORT_UNICAST_RCV_PKTS = 24,       /* primusIbPortUnicastRcvPkts */
    PNA_COL_IB_PORT_UNICAST_XMIT_PKTS = 25,      /* primusIbPortUnicastXmitPkts */
    PNA_COL_IB_PORT_MCAST_RCV_PKTS = 26,         /* primusIbPortMcastRcvPkts */
    PNA_COL_IB_PORT_MCAST_XMIT_PKTS = 27,        /* primusIbPortMcastXmitPkts */
    PNA_COL_IB_PORT_SYMBOL_ERRORS = 28,          /* primusIbPortSymbolErrors */
    PNA_COL_IB_PORT_LINK_ERR_RECOVERY = 29,      /* primusIbPortLinkErrRecovery */
    PNA_COL_IB_PORT_LINK_DOWNED = 30,            /* primusIbPortLinkDowned */
    PNA_COL_IB_PORT_RCV_ERRORS = 31,             /* primusIbPortRcvErrors */
    PNA_COL_IB_PORT_RCV_REM_PHYS_ERRORS = 32,    /* primusIbPortRcvRemPhysErrors */
    PNA_COL_IB_PORT_RCV_SW_RELAY_ERRORS = 33,    /* primusIbPortRcvSwRelayErrors */
    PNA_COL_IB_PORT_XMIT_DISCARDS = 34,          /* primusIbPortXmitDiscards */
    PNA_COL_IB_PORT_XMIT_CONSTR_ERRORS = 35,     /* primusIbPortXmitConstrErrors */
    PNA_COL_IB_PORT_RCV_CONSTR_ERRORS = 36,      /* primusIbPortRcvConstrErrors */
    PNA_COL_IB_PORT_LOCAL_INTEGRITY_ERRS = 37,   /* primusIbPortLocalIntegrityErrs */
    PNA_COL_IB_PORT_EXCESS_BUF_OVERRUNS = 38,    /* primusIbPortExcessBufOverruns */
    PNA_COL_IB_PORT_VL15_DROPPED = 39,           /* primusIbPortVl15Dropped */
    PNA_COL_IB_PORT_XMIT_WAIT = 40,              /* primusIbPortXmitWait */
    PNA_COL_IB_PORT_RCV_DISCARDS = 41,           /* primusIbPortRcvDiscards */
    PNA_COL_IB_PORT_SATURATED = 50,              /* primusIbPortSaturated */
    PNA_COL_IB_PORT_COUNTER_SOURCE = 51,         /* primusIbPortCounterSource */
    PNA_COL_IB_PORT_RX_BYTES_PER_SEC = 52,       /* primusIbPortRxBytesPerSec */
    PNA_COL_IB_PORT_TX_BYTES_PER_SEC = 53,       /* primusIbPortTxBytesPerSec */
    PNA_COL_IB_PORT_RX_UTILIZATION = 54,         /* primusIbPortRxUtilization */
    PNA_COL_IB_PORT_TX_UTILIZATION = 55,         /* primusIbPortTxUtilization */
    PNA_COL_IB_PORT_ERROR_RATE = 56,             /* primusIbPortErrorRate */
    PNA_COL_IB_PORT_RATE_INTERVAL = 57,          /* primusIbPortRateInterval */
    PNA_COL_IB_PORT_ACTIVE_MTU = 58,             /* primusIbPortActiveMtu */
    PNA_COL_IB_PORT_MAX_MTU = 59,                /* primusIbPortMaxMtu */
};

/* Columns of primusRoceCongTable, INDEX { primusRdmaDeviceName, primusIbPortNumber }. */
enum pna_mib_col_roce_cong_entry { /* in primusRoceCongEntry */
    PNA_COL_ROCE_NP_ECN_MARKED_ROCE_PACKETS = 1, /* primusRoceNpEcnMarkedRocePackets */
    PNA_COL_ROCE_NP_CNP_SENT = 2,                /* primusRoceNpCnpSent */
    PNA_COL_ROCE_RP_CNP_HANDLED = 3,             /* primusRoceRpCnpHandled */
    PNA_COL_ROCE_RP_CNP_IGNORED = 4,             /* primusRoceRpCnpIgnored */
    PNA_COL_ROCE_OUT_OF_SEQUENCE = 5,            /* primusRoceOutOfSequence */
    PNA_COL_ROCE_PACKET_SEQ_ERR = 6,             /* primusRocePacketSeqErr */
    PNA_COL_ROCE_LOCAL_ACK_TIMEOUT_ERR = 7,      /* primusRoceLocalAckTimeoutErr */
    PNA_COL_ROCE_RNR_NAK_RETRY_ERR = 8,          /* primusRoceRnrNakRetryErr */
    PNA_COL_ROCE_IMPLIED_NAK_SEQ_ERR = 9,        /* primusRoceImpliedNakSeqErr */
    PNA_COL_ROCE_DUPLICATE_REQUEST = 10,         /* primusRoceDuplicateRequest */
    PNA_COL_ROCE_ADP_RETRANS = 11,               /* primusRoceAdpRetrans */
    PNA_COL_ROCE_ADP_RETRANS_TO = 12,            /* primusRoceAdpRetransTo */
    PNA_COL_ROCE_SLOW_RESTART = 13,              /* primusRoceSlowRestart */
    PNA_COL_ROCE_SLOW_RESTART_CNPS = 14,         /* primusRoceSlowRestartCnps */
    PNA_COL_ROCE_SLOW_RESTART_TRANS = 15,        /* primusRoceSlowRestartTrans */
    PNA_COL_ROCE_OUT_OF_BUFFER = 16,             /* primusRoceOutOfBuffer */
    PNA_COL_ROCE_RX_ICRC_ENCAPSULATED = 17,      /* primusRoceRxIcrcEncapsulated */
};

/* Columns of primusHwCounterTable, INDEX { primusRdmaDeviceName, primusHwCounterPort, primusHwCounterName }. */
enum pna_mib_col_hw_counter_entry { /* in primusHwCounterEntry */
    PNA_COL_HW_COUNTER_PORT = 1,                 /* primusHwCounterPort */
    PNA_COL_HW_COUNTER_NAME = 2,                 /* primusHwCounterName */
    PNA_COL_HW_COUNTER_VALUE = 3,                /* primusHwCounterValue */
    PNA_COL_HW_COUNTER_WRAPS32 = 4,              /* primusHwCounterWraps32 */
};

/* Columns of primusPauseTable, INDEX { primusPfcIfName }. */
enum pna_mib_col_pause_entry { /* in primusPauseEntry */
    PNA_COL_PFC_IF_NAME = 1,                     /* primusPfcIfName */
    PNA_COL_PAUSE_IF_INDEX = 2,                  /* primusPauseIfIndex */
    PNA_COL_PAUSE_RDMA_DEVICE = 3,               /* primusPauseRdmaDevice */
    PNA_COL_PAUSE_RDMA_PORT = 4,                 /* primusPauseRdmaPort */
    PNA_COL_PAUSE_DRIVER = 5,                    /* primusPauseDriver */
    PNA_COL_PAUSE_RX_FRAMES = 6,                 /* primusPauseRxFrames */
    PNA_COL_PAUSE_TX_FRAMES = 7,                 /* primusPauseTxFrames */
    PNA_COL_PAUSE_RX_DURATION = 8,               /* primusPauseRxDuration */
    PNA_COL_PAUSE_TX_DURATION = 9,               /* primusPauseTxDuration */
    PNA_COL_PAUSE_RX_TRANSITIONS = 10,           /* primusPauseRxTransitions */
    PNA_COL_PAUSE_TX_TRANSITIONS = 11,           /* primusPauseTxTransitions */
    PNA_COL_PAUSE_STORM_WARNINGS = 12,           /* primusPauseStormWarnings */
    PNA_COL_PAUSE_STORM_ERRORS = 13,             /* primusPauseStormErrors */
    PNA_COL_PAUSE_RX_DISCARDS_PHY = 14,          /* primusPauseRxDiscardsPhy */
    PNA_COL_PAUSE_RX_RATE = 15,                  /* primusPauseRxRate */
    PNA_COL_PAUSE_TX_RATE = 16,                  /* primusPauseTxRate */
};

/* Columns of primusPfcTable, INDEX { primusPfcIfName, primusPfcPriority }. */
enum pna_mib_col_pfc_entry { /* in primusPfcEntry */
    PNA_COL_PFC_PRIORITY = 1,                    /* primusPfcPriority */
    PNA_COL_PFC_RX_FRAMES = 2,                   /* primusPfcRxFrames */
    PNA_COL_PFC_TX_FRAMES = 3,                   /* primusPfcTxFrames */
    PNA_COL_PFC_RX_DURATION = 4,                 /* primusPfcRxDuration */
    PNA_COL_PFC_TX_DURATION = 5,                 /* primusPfcTxDuration */
    PNA_COL_PFC_RX_TRANSITIONS = 6,              /* primusPfcRxTransitions */
    PNA_COL_PFC_TX_TRANSITIONS = 7,              /* primusPfcTxTransitions */
    PNA_COL_PFC_RX_RATE = 8,                     /* primusPfcRxRate */
    PNA_COL_PFC_TX_RATE = 9,                     /* primusPfcTxRate */
};

/* Columns of primusEthtoolCounterTable, INDEX { primusPfcIfName, primusEthtoolCounterName }. */
enum pna_mib_col_ethtool_counter_entry { /* in primusEthtoolCounterEntry */
    PNA_COL_ETHTOOL_COUNTER_NAME = 1,            /* primusEthtoolCounterName */
    PNA_COL_ETHTOOL_COUNTER_VALUE = 2,           /* primusEthtoolCounterValue */
};

/* Columns of primusContainerTable, INDEX { primusContainerId }. */
enum pna_mib_col_container_entry { /* in primusContainerEntry */
    PNA_COL_CONTAINER_ID = 1,                    /* primusContainerId */
    PNA_COL_CONTAINER_RUNTIME = 2,               /* primusContainerRuntime */
    PNA_COL_CONTAINER_NAME = 3,                  /* primusContainerName */
    PNA_COL_CONTAINER_POD_NAME = 4,              /* primusContainerPodName */
    PNA_COL_CONTAINER_POD_NAMESPACE = 5,         /* primusContainerPodNamespace */
    PNA_COL_CONTAINER_POD_UID = 6,               /* primusContainerPodUid */
    PNA_COL_CONTAINER_IMAGE = 7,                 /* primusContainerImage */
    PNA_COL_CONTAINER_STATE = 8,                 /* primusContainerState */
    PNA_COL_CONTAINER_START_TIME = 9,            /* primusContainerStartTime */
    PNA_COL_CONTAINER_CGROUP_PATH = 10,          /* primusContainerCgroupPath */
    PNA_COL_CONTAINER_MEM_USAGE = 11,            /* primusContainerMemUsage */
    PNA_COL_CONTAINER_MEM_LIMIT = 12,            /* primusContainerMemLimit */
    PNA_COL_CONTAINER_OOM_KILLS = 13,            /* primusContainerOomKills */
    PNA_COL_CONTAINER_GPU_COUNT = 14,            /* primusContainerGpuCount */
    PNA_COL_CONTAINER_RDMA_COUNT = 15,           /* primusContainerRdmaCount */
    PNA_COL_CONTAINER_RUNTIME_NS = 16,           /* primusContainerRuntimeNs */
};

/* Columns of primusContainerDeviceTable, INDEX { primusContainerId, primusContainerDevicePath }. */
enum pna_mib_col_container_device_entry { /* in primusContainerDeviceEntry */
    PNA_COL_CONTAINER_DEVICE_PATH = 1,           /* primusContainerDevicePath */
    PNA_COL_CONTAINER_DEVICE_KIND = 2,           /* primusContainerDeviceKind */
    PNA_COL_CONTAINER_DEVICE_MAJOR = 3,          /* primusContainerDeviceMajor */
    PNA_COL_CONTAINER_DEVICE_MINOR = 4,          /* primusContainerDeviceMinor */
    PNA_COL_CONTAINER_DEVICE_GPU = 5,            /* primusContainerDeviceGpu */
    PNA_COL_CONTAINER_DEVICE_RDMA = 6,           /* primusContainerDeviceRdma */
};

/* Columns of primusPodStorageTable, INDEX { primusPodUid }. */
enum pna_mib_col_pod_storage_entry { /* in primusPodStorageEntry */
    PNA_COL_POD_UID = 1,                         /* primusPodUid */
    PNA_COL_POD_NAME = 2,                        /* primusPodName */
    PNA_COL_POD_NAMESPACE = 3,                   /* primusPodNamespace */
    PNA_COL_POD_STORAGE_USED = 4,                /* primusPodStorageUsed */
    PNA_COL_POD_STORAGE_INODES_USED = 5,         /* primusPodStorageInodesUsed */
    PNA_COL_POD_STORAGE_LIMIT = 6,               /* primusPodStorageLimit */
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
};

/* Enumerated values. */
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
enum pna_mib_storage_source { /* values of primusStorageSource */
    PNA_STORAGE_SOURCE_KUBELET = 1,          /* kubelet */
    PNA_STORAGE_SOURCE_STATVFS = 2,          /* statvfs */
};

/* Upper bounds of SIZE-restricted strings (index strings and references to them). */
#define PNA_MAX_GPU_HOLDER_CONTAINER_LEN             76 /* primusGpuHolderContainer size max */
#define PNA_MAX_RDMA_DEVICE_NAME_LEN                 64 /* primusRdmaDeviceName size max */
#define PNA_MAX_HW_COUNTER_NAME_LEN                  48 /* primusHwCounterName size max */
#define PNA_MAX_PFC_IF_NAME_LEN                      15 /* primusPfcIfName size max */
#define PNA_MAX_ETHTOOL_COUNTER_NAME_LEN             32 /* primusEthtoolCounterName size max */
#define PNA_MAX_CONTAINER_ID_LEN                     76 /* primusContainerId size max */
#define PNA_MAX_CONTAINER_DEVICE_PATH_LEN            36 /* primusContainerDevicePath size max */
#define PNA_MAX_POD_UID_LEN                          64 /* primusPodUid size max */

#endif
