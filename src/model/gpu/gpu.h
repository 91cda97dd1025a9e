/* model/gpu/gpu.h -- what the GPU collectors know about each GPU on the node.
 *
 * Plain data filled by sources/gpu/nvml.c (NVML), sources/gpu/nvsmi.c
 * (nvidia-smi -q -x), sources/gpu/rocm.c (rocm-smi-lib) and
 * sources/gpu/amd_sysfs.c (amdgpu sysfs, with amd_gpu_metrics.c for the
 * binary gpu_metrics file and amd_kfd.c for the processes), plus
 * sources/gpu/dri_map.c for the /dev/dri names; read by the SNMP table and
 * the HTTP bridge.
 *
 * Invariants:
 *  - A GPU is identified by its PCI address, never by a vendor's enumeration
 *    order: `index` is the PCI key (see pna_gpu_pci_key()) and rows are kept
 *    sorted by it, so a GPU that disappears does not shift the others.
 *  - Every optional figure has a has_* flag.  A field the GPU or the source
 *    does not offer is absent (flag false), never a sentinel value; the
 *    number next to a false flag is meaningless (zero).
 *  - Strings are NUL-terminated; an empty string means "not known".
 *  - Units are in the names: _mw milliwatts, _mj millijoules, _c degrees
 *    Celsius, _mhz megahertz, _bytes bytes, _pct percent (0..100). */
#ifndef PNA_MODEL_GPU_H
#define PNA_MODEL_GPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/cache.h"
#include "model/pcie.h"   /* PNA_PCIE_CPULIST_CAP */

/* (Named apart from model/oids.h's PNA_GPU_VENDOR_*, the MIB's own enum,
 * which a table file includes next to this header.) */
enum pna_gpu_vendor {
    PNA_GPU_VND_NVIDIA = 1,
    PNA_GPU_VND_AMD = 2,
};

/* Where a row's figures came from (primusGpuSource). */
enum pna_gpu_source {
    PNA_GPU_SRC_NVML = 1,
    PNA_GPU_SRC_NVIDIA_SMI = 2,
    PNA_GPU_SRC_ROCM_SMI = 3,
    PNA_GPU_SRC_AMDGPU_SYSFS = 4,
};

/* NVML's clock throttle ("clocks event") reason bits; nvidia-smi's XML
 * reasons are mapped onto the same bits so both sources agree. */
#define PNA_GPU_THROTTLE_GPU_IDLE          0x001ULL
#define PNA_GPU_THROTTLE_APP_CLOCKS        0x002ULL
#define PNA_GPU_THROTTLE_SW_POWER_CAP      0x004ULL
#define PNA_GPU_THROTTLE_HW_SLOWDOWN       0x008ULL
#define PNA_GPU_THROTTLE_SYNC_BOOST        0x010ULL
#define PNA_GPU_THROTTLE_SW_THERMAL        0x020ULL
#define PNA_GPU_THROTTLE_HW_THERMAL        0x040ULL
#define PNA_GPU_THROTTLE_HW_POWER_BRAKE    0x080ULL
#define PNA_GPU_THROTTLE_DISPLAY_CLOCKS    0x100ULL

/* Why the clocks were held back, as counted over time (NVML's violation
 * status and the clock-event fields; AMD's throttle residency). */
enum pna_gpu_held_cause {
    PNA_GPU_HELD_POWER,          /* power cap (software) */
    PNA_GPU_HELD_THERMAL,        /* thermal limit */
    PNA_GPU_HELD_SYNC_BOOST,     /* held to the clocks of a sync-boost group */
    PNA_GPU_HELD_BOARD_LIMIT,    /* board limit */
    PNA_GPU_HELD_LOW_UTIL,       /* low utilisation */
    PNA_GPU_HELD_RELIABILITY,    /* board reliability limit */
    PNA_GPU_HELD_SW_THERMAL,     /* software thermal slowdown */
    PNA_GPU_HELD_HW_THERMAL,     /* hardware thermal slowdown */
    PNA_GPU_HELD_HW_POWER_BRAKE, /* external power brake */
    PNA_GPU_HELD_CAUSES
};

/* What the GPU's engines did over the last poll interval (NVML GPU
 * performance monitoring, two samples a poll apart; AMD gpu_metrics). */
enum pna_gpu_activity {
    PNA_GPU_ACT_GRAPHICS,        /* graphics/compute engine active */
    PNA_GPU_ACT_SM,              /* SMs with at least one warp resident */
    PNA_GPU_ACT_SM_OCCUPANCY,    /* warps resident against the maximum */
    PNA_GPU_ACT_TENSOR,          /* any tensor pipe active */
    PNA_GPU_ACT_DRAM,            /* device memory bandwidth used against the peak */
    PNA_GPU_ACT_FP64,
    PNA_GPU_ACT_FP32,
    PNA_GPU_ACT_FP16,
    PNA_GPU_ACT_MULTIMEDIA,      /* video decode/encode engines busy (AMD UVD/VCN) */
    PNA_GPU_ACTIVITIES
};

/* AMD's throttle residency causes (gpu_metrics v1.6+), in the kernel's
 * layout order. */
enum pna_gpu_residency {
    PNA_GPU_RES_PROCHOT,         /* PROCHOT asserted (processor hot) */
    PNA_GPU_RES_PPT,             /* package power tracking: power limit */
    PNA_GPU_RES_SOCKET_THERMAL,  /* socket thermal limit */
    PNA_GPU_RES_VR_THERMAL,      /* voltage regulator thermal limit */
    PNA_GPU_RES_HBM_THERMAL,     /* HBM thermal limit */
    PNA_GPU_RESIDENCIES
};

/* The remote end of a GPU link. */
enum pna_gpu_link_remote {
    PNA_GPU_LINK_REMOTE_UNKNOWN = 0,
    PNA_GPU_LINK_REMOTE_GPU,
    PNA_GPU_LINK_REMOTE_SWITCH,
    PNA_GPU_LINK_REMOTE_CPU,
};

/* The driver's recommended recovery action (NVML_FI_DEV_GET_GPU_RECOVERY_ACTION). */
enum pna_gpu_recovery {
    PNA_GPU_RECOVERY_NONE = 0,
    PNA_GPU_RECOVERY_RESET,
    PNA_GPU_RECOVERY_REBOOT,
    PNA_GPU_RECOVERY_DRAIN_P2P,
    PNA_GPU_RECOVERY_DRAIN_AND_RESET,
};

/* NVSwitch fabric registration (nvmlDeviceGetGpuFabricInfoV). */
enum pna_gpu_fabric {
    PNA_GPU_FABRIC_NOT_STARTED = 1,
    PNA_GPU_FABRIC_IN_PROGRESS,
    PNA_GPU_FABRIC_COMPLETED,
};

#define PNA_GPU_MAX_LINKS 18     /* NVLink 4 has 18 per GPU */

/* One GPU-to-GPU link (NVLink, XGMI).  Counters are since the driver loaded. */
struct pna_gpu_link {
    uint32_t number;             /* the vendor's link number */
    bool has_state;
    bool up;
    bool has_version;
    uint32_t version;            /* NVLink version */
    char remote_bus_id[24];      /* canonical PCI address of the other end, "" unknown */
    uint32_t remote_type;        /* enum pna_gpu_link_remote */
    bool has_speed;
    uint32_t speed_mbps;         /* megabytes per second, each direction */
    bool has_errors;             /* the four data-link error counters */
    uint64_t replay_errors, recovery_errors, crc_flit_errors, crc_data_errors;
    bool has_symbol_errors;      /* NVLink 5 */
    uint64_t symbol_errors;
    bool has_ber;                /* NVLink 5 effective bit error rate: */
    uint8_t ber_mantissa, ber_exp; /* mantissa x 10^-exp */
    bool has_traffic;
    uint64_t tx_bytes, rx_bytes; /* payload data */
    bool went_down;              /* up at a poll since the agent started, not up now
                                    (set by the GPU poller) */
};

/* What a process does on the GPU (primusGpuProcType bits). */
#define PNA_GPU_PROC_COMPUTE  1u
#define PNA_GPU_PROC_GRAPHICS 2u

/* A process with a context on a GPU. */
struct pna_gpu_proc {
    uint32_t gpu_index;          /* the GPU's primusGpuIndex */
    uint32_t pid;                /* in the agent's PID namespace (the host's, deployed as documented) */
    uint32_t type;               /* PNA_GPU_PROC_* bits */
    char name[16];               /* the command name (/proc/PID/comm), never its arguments */
    bool has_mem;
    uint64_t mem_bytes;          /* device memory it holds */
    bool has_util;               /* samples since the last poll */
    uint32_t sm_pct, mem_pct;
    bool has_instance;           /* MIG GPU and compute instance it runs in */
    uint32_t gpu_instance, compute_instance;
    char cgroup[256];            /* its cgroup (v2, or v1's memory hierarchy), "" unknown */
    bool has_orphan;             /* judged: its cgroup known, and containers or Slurm jobs */
    bool orphan;                 /* in no container's cgroup and no Slurm job's (set by the
                                    gpu poller, model/gpu/gpu_idle.h) */
};

/* A MIG device: one compute instance of one GPU instance of a GPU in MIG
 * mode (nvidia-smi's "MIG devices" rows). */
struct pna_gpu_mig {
    uint32_t gpu_index;          /* the GPU's primusGpuIndex */
    uint32_t gpu_instance;       /* GPU instance id (nvidia-smi's "GI ID") */
    uint32_t compute_instance;   /* compute instance id within it ("CI ID") */
    char uuid[80];               /* "MIG-...", "" unknown */
    char profile[48];            /* as nvidia-smi -L prints it: "3g.40gb", "1c.3g.40gb" */
    bool has_mem;
    uint64_t mem_total_bytes, mem_used_bytes;
    bool has_sm_count;
    uint32_t sm_count;           /* multiprocessors of the compute instance */
    bool has_cap;
    uint32_t cap_minor;          /* N of /dev/nvidia-caps/nvidia-capN: the compute
                                    instance's access capability (mig-minors) */
    /* activity over the last poll interval, hundredths of a percent (GPM per
     * GPU instance) */
    bool has_sm_active, has_tensor_active;
    uint32_t sm_active_bp, tensor_active_bp;
};

#define PNA_GPU_MAX_XCP 8         /* NUM_XCP of amdgpu's gpu_metrics */

/* A compute partition of an AMD GPU: one KFD node (and DRM render node) of a
 * GPU its compute partition mode splits (SPX: one, CPX: one per XCD). */
struct pna_gpu_partition {
    uint32_t gpu_index;          /* the GPU's primusGpuIndex */
    uint32_t id;                 /* 0.. in KFD node order, which is amdgpu's XCP order */
    uint32_t kfd_gpu_id;         /* KFD's gpu_id: the vram_<gpu_id> of its processes */
    bool has_render;
    uint32_t render_minor;       /* N of /dev/dri/renderDN */
    bool has_xcc;
    uint32_t xcc_count;          /* compute dies (XCCs) in the partition */
    bool has_cus;
    uint32_t cu_count;           /* compute units */
    bool has_gfx_active, has_video_active;   /* gpu_metrics 1.6+, hundredths of a percent */
    uint32_t gfx_active_bp, video_active_bp;
    bool has_mem;
    uint64_t mem_used_bytes;     /* device memory KFD's processes hold on it */
};

struct pna_gpu {
    /* identity */
    uint32_t index;              /* PCI key: primusGpuIndex */
    enum pna_gpu_vendor vendor;
    enum pna_gpu_source source;
    char pci_bus_id[24];         /* canonical "dddd:bb:dd.f", lower-case hex */
    uint32_t pci_domain;
    uint8_t pci_bus, pci_dev, pci_fn;
    bool has_pci_ids;
    uint16_t pci_vendor_id, pci_device_id;       /* 0x10de / 0x1002, device */
    uint16_t pci_subsys_vendor_id, pci_subsys_device_id;
    bool has_numa_node;          /* from sysfs by pci_bus_id (sources/pci/pcie_sysfs.c) */
    int32_t numa_node;           /* -1: the kernel says the GPU has none */
    char local_cpus[PNA_PCIE_CPULIST_CAP]; /* its local_cpulist, "" unknown */
    bool has_vendor_index;
    uint32_t vendor_index;       /* the vendor tool's own GPU number (nvidia-smi
                                    or rocm-smi "GPU[n]"); informational only */
    bool has_minor;
    uint32_t minor;              /* /dev/nvidiaN (NVIDIA) */

    char name[96];               /* product / market name */
    char uuid[80];               /* NVIDIA "GPU-..."; AMD "0x<unique_id>" */
    char serial[64];             /* board serial */
    char vbios[64];
    char driver_version[80];
    char cuda_version[16];       /* NVIDIA: CUDA driver API version, "12.2" */

    /* state */
    bool lost;                   /* fell off the bus: only identity is valid */

    /* utilization, percent over the source's last sample period */
    bool has_util_gpu;
    uint32_t util_gpu_pct;
    bool has_util_mem;           /* memory controller busy (not capacity) */
    uint32_t util_mem_pct;

    /* framebuffer / VRAM */
    bool has_mem_total, has_mem_used, has_mem_free;
    uint64_t mem_total_bytes, mem_used_bytes, mem_free_bytes;

    /* temperatures */
    bool has_temp;
    int32_t temp_c;              /* GPU die (NVIDIA) / edge (AMD) */
    bool has_temp_hotspot;
    int32_t temp_hotspot_c;      /* AMD junction */
    bool has_temp_mem;
    int32_t temp_mem_c;          /* HBM / VRAM */
    bool has_temp_slowdown;
    int32_t temp_slowdown_c;     /* hardware slowdown starts (AMD: edge crit) */
    bool has_temp_shutdown;
    int32_t temp_shutdown_c;     /* hardware shutdown (AMD: edge emergency) */
    /* nvidia-smi's v13 XML reports thresholds only relative to T.Limit:
     * tlimit = degrees left below T.Limit now, slowdown_tlimit = the value of
     * that margin at which slowdown starts (negative: beyond T.Limit). */
    bool has_tlimit;
    int32_t temp_tlimit_c, temp_slowdown_tlimit_c;

    /* power and energy */
    bool has_power;
    uint32_t power_mw;           /* current draw */
    bool has_power_limit;
    uint32_t power_limit_mw;     /* enforced limit */
    bool has_energy;
    uint64_t energy_mj;          /* since driver load; monotonic */

    /* clocks and cooling */
    bool has_clock_sm;
    uint32_t clock_sm_mhz;       /* SM (NVIDIA) / sclk (AMD) */
    bool has_clock_mem;
    uint32_t clock_mem_mhz;
    bool has_fan;
    uint32_t fan_pct;            /* intended fan speed, percent of maximum */
    bool has_fan_rpm;
    uint32_t fan_rpm;

    /* PCIe link */
    bool has_pcie_gen;
    uint32_t pcie_gen;           /* current link generation, 1..6 */
    bool has_pcie_width;
    uint32_t pcie_width;         /* current lanes */
    bool has_pcie_gen_max;
    uint32_t pcie_gen_max;       /* highest generation GPU and slot support */
    bool has_pcie_width_max;
    uint32_t pcie_width_max;
    bool has_pcie_replay;
    uint64_t pcie_replay;        /* replay counter */

    /* memory errors: lifetime ("aggregate") counts where the source has them */
    bool has_ecc;
    uint64_t ecc_corrected, ecc_uncorrected;
    bool has_ecc_volatile;       /* since the driver loaded (last reset) */
    uint64_t ecc_uncorrected_volatile;
    bool has_retired_pages;
    uint32_t retired_pages_sbe;  /* retired for multiple single-bit errors */
    uint32_t retired_pages_dbe;  /* retired for double-bit errors */
    bool has_remapped_rows;
    uint32_t remapped_rows_corr, remapped_rows_unc;
    bool remap_pending, remap_failure;

    /* clocks */
    bool has_throttle;
    uint64_t throttle_reasons;   /* PNA_GPU_THROTTLE_* bits */

    /* performance state P0 (fastest) .. P15 */
    bool has_perf_state;
    uint32_t perf_state;

    /* XID errors seen by the NVML listener since the agent started */
    bool has_xid;
    uint32_t xid_errors;
    uint32_t last_xid;           /* 0 when none */
    uint32_t worst_xid;          /* the most severe since the agent started (pna_gpu_xid_class) */

    /* time held back, microseconds since the driver loaded, per cause */
    bool has_held[PNA_GPU_HELD_CAUSES];
    uint64_t held_us[PNA_GPU_HELD_CAUSES];

    /* AMD throttle residency (gpu_metrics v1.6+): the firmware's
     * accumulation cycles and, of them, those it was held back in, per
     * cause.  32-bit counters that wrap; their ratio is the share of time
     * held back (the firmware does not say how long a cycle is). */
    bool has_acc_cycles;
    uint32_t acc_cycles;
    bool has_residency[PNA_GPU_RESIDENCIES];
    uint32_t residency_cycles[PNA_GPU_RESIDENCIES];

    /* activity over the last poll interval, hundredths of a percent */
    bool has_activity[PNA_GPU_ACTIVITIES];
    uint32_t activity_bp[PNA_GPU_ACTIVITIES];
    bool has_pcie_bandwidth;     /* AMD: PCIe traffic, both directions together, */
    uint64_t pcie_bandwidth_mbps;    /* megabits per second as amd-smi reports it */
    bool has_pcie_rate;          /* PCIe traffic, bytes per second */
    uint64_t pcie_tx_rate, pcie_rx_rate;
    bool has_nvlink_rate;        /* all links together, bytes per second */
    uint64_t nvlink_tx_rate, nvlink_rx_rate;

    /* health inputs besides the figures above */
    bool has_recovery_action;
    uint32_t recovery_action;    /* enum pna_gpu_recovery */
    bool has_fabric;
    uint32_t fabric_state;       /* enum pna_gpu_fabric */
    bool fabric_failed;          /* registration finished with an error */

    /* links to other GPUs and switches, ascending number */
    uint32_t link_count;
    struct pna_gpu_link links[PNA_GPU_MAX_LINKS];

    /* work */
    bool has_processes;
    uint32_t process_count;      /* distinct processes using the GPU */
    uint32_t processes_omitted;  /* of them, not in the process rows (gpuProcessRows) */
    bool has_mig;
    bool mig_enabled;            /* current MIG mode */

    /* AMD topology (amdgpu sysfs), "" when unknown or not applicable */
    char xgmi_hive_id[24];       /* "0x" + 16 hex digits; "" outside a hive */
    char compute_partition[16];  /* "SPX", "DPX", "TPX", "QPX", "CPX" */
    char memory_partition[16];   /* "NPS1", "NPS2", "NPS4", "NPS8" */
    /* gpu_metrics 1.6+: each partition's (XCP's) graphics and video engine
     * activity, hundredths of a percent, for its primusGpuPartitionTable row */
    uint32_t xcp_count;
    bool has_xcp_gfx[PNA_GPU_MAX_XCP], has_xcp_video[PNA_GPU_MAX_XCP];
    uint32_t xcp_gfx_bp[PNA_GPU_MAX_XCP], xcp_video_bp[PNA_GPU_MAX_XCP];

    /* /dev/dri names (sources/gpu/dri_map.c), empty when unknown */
    char drm_card[16];           /* "card0" */
    char drm_render[16];         /* "renderD128" */
    bool has_drm_card_id;
    uint32_t drm_card_id;        /* N of cardN */

    /* The container holding this GPU (containers work fills it when the
     * containers domain is joined in; absent until then). */

    /* The gpu poller's verdicts on the GPU's work (model/gpu/gpu_idle.h),
     * decided at its poll from the holders the other domains' snapshots
     * then named. */
    bool has_idle_allocated;     /* a verdict: not held, or held and reporting activity */
    bool idle_allocated;         /* held, and below accountingIdleThreshold for its window */
    int64_t low_activity_since_s; /* held and below the threshold since (seconds since
                                     1970), 0 when it is not */
    bool has_orphans;            /* its processes known, and containers or Slurm jobs */
    uint32_t orphan_processes;   /* processes on it that no container or job holds */
};

/* A growable list of GPUs, used by every collector, and their processes. */
struct pna_gpu_list {
    size_t count, cap;
    struct pna_gpu *gpus;
    size_t nprocs, proc_cap;
    struct pna_gpu_proc *procs;
    size_t mig_count, mig_cap;
    struct pna_gpu_mig *migs;
    size_t part_count, part_cap;
    struct pna_gpu_partition *parts;
};

/* The GPU domain's snapshot as served from the cache. */
struct pna_gpu_snap {
    struct pna_snap base;        /* first: the cache handles it as a struct pna_snap */
    size_t count;
    struct pna_gpu *gpus;        /* ascending index; owned by the snapshot */
    size_t proc_count;
    struct pna_gpu_proc *procs;  /* ascending (gpu_index, pid); owned by the snapshot */
    size_t mig_count;
    struct pna_gpu_mig *migs;    /* ascending (gpu_index, gpu_instance, compute_instance);
                                    owned by the snapshot */
    size_t part_count;
    struct pna_gpu_partition *parts; /* ascending (gpu_index, id); owned by the snapshot */
    char nvidia_driver_version[80];
    char cuda_version[16];
    char amd_driver_version[80];
    uint32_t sources;            /* bit (1u << pna_gpu_source) per source that answered */
};

/* PCI key: (domain << 16) | (bus << 8) | (device << 3) | function.  Domains
 * above 0xffff (VMD) are folded to their low 16 bits. */
static inline uint32_t pna_gpu_pci_key(uint32_t domain, uint32_t bus, uint32_t dev, uint32_t fn)
{
    return ((domain & 0xffffu) << 16) | ((bus & 0xffu) << 8) | ((dev & 0x1fu) << 3) | (fn & 7u);
}

/* Parse a PCI address as the sources print it: "0000:c1:00.0",
 * "00000000:C1:00.0" (NVML, nvidia-smi), "c1:00.0" (domain 0).  Fills the
 * PCI fields, the canonical pci_bus_id and index of G.  Returns 0 or -1. */
int pna_gpu_set_pci(struct pna_gpu *g, const char *text);

/* Canonical form of a PCI address into BUF (>= 24 bytes); returns 0 or -1. */
int pna_gpu_canon_bus_id(const char *text, char *buf, size_t cap);

/* Append a zeroed GPU; returns it, or NULL when out of memory. */
struct pna_gpu *pna_gpu_list_add(struct pna_gpu_list *list);
void pna_gpu_list_sort(struct pna_gpu_list *list);
/* Append a zeroed process row; NULL when out of memory. */
struct pna_gpu_proc *pna_gpu_list_add_proc(struct pna_gpu_list *list);
/* Keep at most MAX process rows per GPU, those holding the most memory,
 * count the others in the GPU's processes_omitted, and sort the rows by
 * (gpu_index, pid).  After pna_gpu_list_sort(). */
void pna_gpu_list_trim_procs(struct pna_gpu_list *list, size_t max);
/* Append a zeroed MIG device row; NULL when out of memory. */
struct pna_gpu_mig *pna_gpu_list_add_mig(struct pna_gpu_list *list);
/* Sort the MIG rows by (gpu_index, gpu_instance, compute_instance) and drop
 * those whose GPU is not in the (sorted) list. */
void pna_gpu_list_sort_migs(struct pna_gpu_list *list);
/* Append a zeroed partition row; NULL when out of memory. */
struct pna_gpu_partition *pna_gpu_list_add_partition(struct pna_gpu_list *list);
/* Sort the partition rows by (gpu_index, id) and drop those whose GPU is not
 * in the (sorted) list. */
void pna_gpu_list_sort_partitions(struct pna_gpu_list *list);
void pna_gpu_list_free(struct pna_gpu_list *list);
/* The GPU with INDEX in a sorted array, or NULL (binary search). */
const struct pna_gpu *pna_gpu_find(const struct pna_gpu *gpus, size_t count, uint32_t index);
/* The MIG device of snapshot S (may be NULL) whose MIG UUID is UUID, or NULL. */
const struct pna_gpu_mig *pna_gpu_mig_by_uuid(const struct pna_gpu_snap *s, const char *uuid);

/* How many of the COUNT GPUs are in use, as the system-info exporter counted
 * them (hw_gpu_used_count, "used_count"): busy, or holding memory. */
size_t pna_gpu_count_in_use(const struct pna_gpu *gpus, size_t count);

/* The GPU's number as the vendor tools and the exporters the agent replaces
 * show it (their gpu, gpu_id and gpu_index labels, "gpu" in JSON): the
 * source's own index when every GPU of snapshot S has a distinct one, else
 * its position I in PCI order, so that the number never repeats. */
uint32_t pna_gpu_number(const struct pna_gpu_snap *s, size_t i);

const char *pna_gpu_source_name(enum pna_gpu_source src);
const char *pna_gpu_vendor_name(enum pna_gpu_vendor vendor);

/* Whether G is at or above its thermal threshold: THRESHOLD_C when > 0, else
 * the GPU's own slowdown temperature (or T.Limit margin).  A GPU already hot
 * stays hot until it is HYSTERESIS_C below the threshold, so one crossing is
 * one notification.  Returns -1 when no threshold is known, else 0/1 and
 * *LIMIT_C (the absolute threshold, or the margin for T.Limit readings). */
int pna_gpu_thermal_state(const struct pna_gpu *g, int32_t threshold_c, bool was_hot,
                          int32_t *limit_c);

#define PNA_GPU_THERMAL_HYSTERESIS_C 2

/* ---- health (model/gpu/gpu_health.c) ---------------------------------------- */

/* Numbered as primusGpuHealth. */
enum pna_gpu_verdict {
    PNA_VERDICT_OK = 1,
    PNA_VERDICT_WARNING,
    PNA_VERDICT_CRITICAL,
    PNA_VERDICT_UNKNOWN,
};

/* What an XID says about the GPU, from NVIDIA's XID catalogue. */
enum pna_gpu_xid_class {
    PNA_XID_APPLICATION = 0,     /* the application's fault (13, 31, 43, 45...) or unclassified */
    PNA_XID_WARNING,             /* the GPU works, watch it (63, 92, 94...) */
    PNA_XID_RESET,               /* the GPU needs a reset (48, 64, 95, 119, 120...) */
    PNA_XID_REBOOT,              /* the node needs a reboot (79 fallen off the bus, 62...) */
};
enum pna_gpu_xid_class pna_gpu_xid_class(uint32_t xid);
/* Of two XIDs, the one whose class is more severe (A when equal). */
uint32_t pna_gpu_xid_worse(uint32_t a, uint32_t b);

/* "ok", "warning", "critical", "unknown" (primusGpuHealth's labels); "" else. */
const char *pna_gpu_verdict_name(int verdict);

#define PNA_GPU_HEALTH_REASON_MAX 64   /* primusGpuHealthReason's SIZE, with the NUL */

/* The verdict on G and, in REASON, why (the first rule that decided it,
 * "" for ok).  The rules are in gpu_health.c and docs/gpu.md. */
enum pna_gpu_verdict pna_gpu_health(const struct pna_gpu *g, char *reason, size_t cap);

#endif
