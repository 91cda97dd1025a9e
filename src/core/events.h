/* core/events.h -- one path for every state change that becomes a notification.
 *
 * Pollers call pna_event_post() from their own threads; it copies the event into
 * a bounded queue and wakes the main thread the way the main loop set
 * (pna_events_set_waker; the agent's is a signal, see snmp/agent.c).  Only the
 * main thread drains the queue: it appends each event to the event table (the
 * last N are kept) and sends its notification.
 * Nothing here touches net-snmp. */
#ifndef PNA_EVENTS_H
#define PNA_EVENTS_H

#include <stddef.h>
#include <stdint.h>

/* Values are primusEventType in PRIMUS-NODE-MIB: keep them in step. */
enum pna_event_type {
    PNA_EV_POLLER_FAILED = 1,
    PNA_EV_POLLER_RECOVERED = 2,
    PNA_EV_IB_PORT_DOWN = 3,
    PNA_EV_IB_PORT_UP = 4,
    PNA_EV_CONTAINER_OOM = 5,
    PNA_EV_GPU_XID = 6,
    PNA_EV_GPU_THERMAL = 7,
    PNA_EV_GPU_LOST = 8,
    PNA_EV_PFC_PAUSE_STORM = 9,
    PNA_EV_GPU_LINK_DOWN = 10,
    PNA_EV_GPU_LINK_UP = 11,
    PNA_EV_GPU_HEALTH = 12,
    PNA_EV_ROCE_LOSSLESS = 13,       /* an interface's lossless verdict changed */
    PNA_EV_ROCE_NODE_LOSSLESS = 14,  /* the node's lossless verdict changed */
    PNA_EV_PCIE_DOWNTRAINED = 15,    /* an RDMA device's PCIe link fell below its maximum */
    PNA_EV_PCIE_RESTORED = 16,       /* and is back at it */
    PNA_EV_MODULE_THRESHOLD = 17,    /* a module reading crossed one of its thresholds */
    PNA_EV_MODULE_THRESHOLD_CLEAR = 18, /* ... and is back inside them */
    PNA_EV_SLURM_JOB_END = 19,       /* a Slurm job's cgroup went away */
    PNA_EV_GPU_IDLE_ALLOCATED = 20,  /* a held GPU became idle, or is no longer */
    PNA_EV_GPU_ORPHAN_PROCESS = 21,  /* a process on a GPU that no container or job holds */
};
#define PNA_EV_TYPE_MAX PNA_EV_GPU_ORPHAN_PROCESS

/* Values are primusEventSeverity. */
enum pna_severity {
    PNA_SEV_INFO = 1,
    PNA_SEV_WARNING = 2,
    PNA_SEV_ERROR = 3,
    PNA_SEV_CRITICAL = 4,
};

/* What each notification carries besides the event itself: the identifying
 * columns of the row it is about. */
struct pna_event_poller {
    uint32_t index;        /* primusPollerIndex */
    char name[32];
    uint32_t errors;
    char last_error[160];
};

struct pna_event_ib_port {
    char device[64];
    uint32_t port;
    int old_state, new_state; /* IB port state numbers (1 down .. 5 activeDefer) */
};

struct pna_event_oom {
    char container_id[80];
    char container_name[128];
    char pod[128];
    char namespace_[64];
    uint64_t kill_count;
};

struct pna_event_gpu {
    uint32_t index;        /* primusGpuIndex (PCI address key) */
    char uuid[80];
    char pci_bus_id[32];   /* as in primusGpuPciBusId */
    uint64_t xid;          /* XID code, for PNA_EV_GPU_XID */
    int32_t temperature_c; /* for PNA_EV_GPU_THERMAL */
    int32_t threshold_c;
    uint32_t link;         /* link number, for PNA_EV_GPU_LINK_* */
    char remote_bus_id[24];
    int32_t health;        /* primusGpuHealth, for PNA_EV_GPU_HEALTH */
    char reason[64];       /* primusGpuHealthReason */
    /* PNA_EV_GPU_IDLE_ALLOCATED: the verdict (1 idle, 0 no longer), since when
     * it has been below the threshold (0 when it is not), and its holder */
    int32_t idle_allocated;
    int64_t low_since_s;
    char holder_pod[128];  /* primusGpuHolderPod, "" none */
    char holder_namespace[64];
    uint32_t holder_job;   /* primusGpuHolderJob, 0 none */
    /* PNA_EV_GPU_ORPHAN_PROCESS: the process, and the GPU's orphans now */
    uint32_t pid;
    char process[16];      /* primusGpuProcName */
    uint32_t orphans;      /* primusGpuOrphanProcesses */
};

struct pna_event_pfc {
    char ifname[32];
    int32_t priority;      /* 0..7, or -1 for global pause */
    uint64_t pause_per_s;
};

struct pna_event_lossless {
    char ifname[32];       /* the interface; "" for the node's verdict */
    int32_t verdict;       /* primusRoceLossless / primusRoceNodeLossless */
    int32_t old_verdict;   /* before the change, 0 when there was none */
    char reason[256];
};

struct pna_event_pcie {
    char device[64];       /* primusRdmaDeviceName */
    uint32_t speed_mtps, max_speed_mtps; /* 0 when not known */
    uint32_t width, max_width;
};

struct pna_event_module {
    char ifname[32];
    int32_t quantity;      /* enum pna_module_quantity + 1: primusNotifyModuleQuantity */
    uint32_t lane;         /* 1.., 0 for the module's own temperature and voltage */
    int32_t level;         /* primusNotifyModuleLevel: the level now */
    int32_t old_level;     /* before the change */
    int64_t value;         /* the reading, in the quantity's MIB units */
    int64_t threshold;     /* the threshold crossed (the one left, for a clear) */
};

struct pna_event_slurm_job {
    uint32_t job_id;       /* primusSlurmJobId */
    uint32_t uid;          /* primusSlurmJobUid; 0 with has_uid false when not known */
    uint8_t has_uid;
    char user[64];         /* primusSlurmJobUser, "" unknown */
};

struct pna_event {
    enum pna_event_type type;
    enum pna_severity severity;
    int64_t time_ms;       /* CLOCK_REALTIME; filled by pna_event_post() if 0 */
    uint32_t seq;          /* primusEventIndex; assigned on the main thread */
    char subject[128];     /* what the event is about: "poller node", "mlx5_0/1"... */
    char text[256];        /* one line for people */
    union {
        struct pna_event_poller poller;
        struct pna_event_ib_port ib_port;
        struct pna_event_oom oom;
        struct pna_event_gpu gpu;
        struct pna_event_pfc pfc;
        struct pna_event_lossless lossless;
        struct pna_event_pcie pcie;
        struct pna_event_module module;
        struct pna_event_slurm_job slurm_job;
    } u;
};

/* Set up the queue; CAPACITY is how many events the event table keeps. */
int pna_events_init(size_t capacity);
void pna_events_shutdown(void);

/* Any thread: queue a copy of EV.  Never blocks; when the queue is full the
 * event is dropped and counted (pna_events_dropped()). */
void pna_event_post(const struct pna_event *ev);

/* How the main loop is woken: WAKE is called by pna_wake_main(), from any
 * thread, and may be called again before the loop has looked (it need wake
 * the loop once).  Set by the loop's owner before any poller starts; NULL
 * (the default, and after pna_events_shutdown()): nothing is woken, for
 * tools that drain the queue themselves. */
typedef void (*pna_waker)(void);
void pna_events_set_waker(pna_waker wake);
/* Any thread: wake the main loop (queued log lines use it too). */
void pna_wake_main(void);

/* Main thread: move queued events into the history and call SINK for each
 * (the SNMP front end sends the notification there). */
typedef void (*pna_event_sink)(const struct pna_event *ev, void *arg);
void pna_events_drain(pna_event_sink sink, void *arg);

/* Main thread: the kept history, oldest first. */
size_t pna_events_count(void);
const struct pna_event *pna_events_at(size_t i);
/* Any thread: a copy of the newest MAX kept events, oldest first; returns how
 * many were copied (the HTTP bridge's /events). */
size_t pna_events_copy(struct pna_event *out, size_t max);
/* Any thread: events of TYPE recorded since start (0 for an unknown type). */
uint64_t pna_events_total_of(enum pna_event_type type);
/* primusEventType and primusEventSeverity labels, in the MIB's spelling
 * ("gpuXid", "critical"); "unknown" for a value the MIB does not name. */
const char *pna_event_type_name(enum pna_event_type type);
const char *pna_severity_name(enum pna_severity severity);
/* The same labels by value (index 0 unused), for the MIB's enumerations. */
extern const char *const pna_event_type_names[PNA_EV_TYPE_MAX + 1];
extern const char *const pna_severity_names[PNA_SEV_CRITICAL + 1];
/* Any thread: events handled since start. */
uint64_t pna_events_total(void);
uint64_t pna_events_dropped(void);
size_t pna_events_capacity(void);

#endif
