/* model/containers.h -- the containers domain: one record per container the node
 * runs (containerd tasks and Docker containers), the devices each one was given,
 * and the snapshot the containers poller publishes.
 *
 * Only identity and resource figures are kept: id, name, pod name/namespace/uid
 * (from the CRI annotations or Docker's io.kubernetes.* labels), image, state,
 * start time, cgroup path, memory and OOM-kill figures, and device nodes.  No
 * environment, command line or other annotation is ever copied into a record.
 *
 * Strings are NUL-terminated, cut at a UTF-8 character boundary and stripped of
 * control characters by the collectors. */
#ifndef PNA_MODEL_CONTAINERS_H
#define PNA_MODEL_CONTAINERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/cache.h"
#include "util/strpool.h"
#include "model/kubernetes/pod_labels.h"

/* primusContainerRuntime */
enum pna_container_runtime {
    PNA_RUNTIME_CONTAINERD = 1,
    PNA_RUNTIME_DOCKER = 2,
    PNA_RUNTIME_CRIO = 3,      /* containers/storage, made by CRI-O */
    PNA_RUNTIME_PODMAN = 4,    /* containers/storage, made by Podman (libpod) */
};

/* primusContainerState */
enum pna_container_state {
    PNA_CSTATE_CREATED = 1,  /* task exists, process not started */
    PNA_CSTATE_RUNNING = 2,
    PNA_CSTATE_PAUSED = 3,
    PNA_CSTATE_EXITED = 4,   /* process gone, task/bundle not yet deleted */
    PNA_CSTATE_UNKNOWN = 5,
};

/* primusContainerDeviceKind */
enum pna_dev_kind {
    PNA_DEV_GPU = 1,
    PNA_DEV_RDMA = 2,
    PNA_DEV_OTHER = 3,
};

/* What a device node is, finer than its kind; UNIT below says which one. */
enum pna_dev_family {
    PNA_DEVF_OTHER = 0,
    PNA_DEVF_DRM_CARD,    /* /dev/dri/cardN: unit N */
    PNA_DEVF_DRM_RENDER,  /* /dev/dri/renderDN: unit N (128...) */
    PNA_DEVF_KFD,         /* /dev/kfd: every AMD GPU's compute interface */
    PNA_DEVF_NVIDIA_GPU,  /* /dev/nvidiaN: unit N (the minor number) */
    PNA_DEVF_NVIDIA_CTL,  /* nvidiactl, nvidia-uvm*, nvidia-modeset, nvidia-caps/... */
    PNA_DEVF_IB_UVERBS,   /* /dev/infiniband/uverbsN */
    PNA_DEVF_IB_UMAD,     /* /dev/infiniband/umadN */
    PNA_DEVF_IB_ISSM,     /* /dev/infiniband/issmN */
    PNA_DEVF_RDMA_CM,     /* /dev/infiniband/rdma_cm */
    PNA_DEVF_NVIDIA_CAP,  /* /dev/nvidia-caps/nvidia-capN: unit N, a MIG access
                             capability (added last: the values above are kept) */
};

/* primusContainerDeviceSource: how the agent learned that a container holds
 * a device.  A device found through several sources is one row; the row
 * names the source of highest precedence:
 *
 *   draClaim > podResources > cdi > nvidiaRuntimeEnv > dockerRequest > specDevice > cgroup
 *
 * The kubelet's allocation is the scheduler's truth.  A DRA claim's nodes
 * rank just above a device plugin's: both are the kubelet's, but a claim's
 * are the nodes its driver's CDI spec injected, where a device plugin's id
 * becomes a node by the agent's inference (a GPU UUID to its minor); a
 * device is a device plugin's or a DRA driver's, so the two seldom meet on
 * one node.  A CDI name and
 * NVIDIA_VISIBLE_DEVICES say which GPU was asked for, where linux.devices
 * only shows what the runtime wrote; the allow-list is the least specific
 * (runtimes put long default lists there).  Among sources of equal rank the
 * first one found stays.  pna_dev_source_rank() is this order. */
enum pna_dev_source {
    PNA_DEVS_NONE = 0,             /* not set (a producer's bug; served as specDevice) */
    PNA_DEVS_SPEC_DEVICE = 1,      /* the OCI spec's linux.devices (Docker: HostConfig.Devices) */
    PNA_DEVS_CGROUP = 2,           /* the cgroup device allow-list (linux.resources.devices) */
    PNA_DEVS_DOCKER_REQUEST = 3,   /* Docker's HostConfig.DeviceRequests (--gpus) */
    PNA_DEVS_POD_RESOURCES = 4,    /* the kubelet pod-resources API */
    PNA_DEVS_CDI = 5,              /* a CDI device named by a cdi.k8s.io/ annotation */
    PNA_DEVS_NVIDIA_ENV = 6,       /* NVIDIA_VISIBLE_DEVICES in the spec's process.env */
    PNA_DEVS_DRA_CLAIM = 7,        /* a DRA claim's device (pod-resources dynamic_resources) */
};

/* The precedence of SOURCE (enum pna_dev_source): higher wins. */
static inline int pna_dev_source_rank(uint8_t source)
{
    switch (source) {
    case PNA_DEVS_DRA_CLAIM: return 7;
    case PNA_DEVS_POD_RESOURCES: return 6;
    case PNA_DEVS_CDI: return 5;
    case PNA_DEVS_NVIDIA_ENV: return 4;
    case PNA_DEVS_DOCKER_REQUEST: return 3;
    case PNA_DEVS_SPEC_DEVICE: return 2;
    case PNA_DEVS_CGROUP: return 1;
    default: return 0;
    }
}

#define PNA_CONTAINER_MAX_DEVICES 256   /* per container; more are dropped and counted */

/* A container ID is 1..76 characters: containerd's identifier limit, and the
 * SIZE of primusContainerId.  Sources skip anything longer rather than cut it
 * (two cut IDs could collide). */
#define PNA_CONTAINER_ID_MAX 76

/* A device is named by its path when that has at most this many characters
 * (the SIZE of primusContainerDevicePath, an index string), else by its
 * numbers as "/dev/char/MAJ:MIN" ("/dev/block/..." for a block device), the
 * name udev gives every device node too.  Linux numbers are at most 12 + 20
 * bits, so that name has at most 23 characters. */
#define PNA_CONTAINER_DEVICE_NAME_MAX 36

struct pna_container_device {
    uint8_t kind;          /* enum pna_dev_kind */
    uint8_t family;        /* enum pna_dev_family */
    uint8_t source;        /* enum pna_dev_source: how it was found (the highest
                              ranked source when several found it) */
    char type;             /* 'c' char, 'b' block, 'u' unbuffered, 'p' fifo, 0 unknown */
    bool has_numbers;      /* major/minor known */
    uint32_t major, minor;
    int32_t unit;          /* see enum pna_dev_family; -1 when none */
    char path[96];         /* as the container sees it, e.g. "/dev/dri/renderD128";
                              "/dev/char/MAJ:MIN" when only the number is known or
                              the path is over PNA_CONTAINER_DEVICE_NAME_MAX (set by
                              pna_container_set_add_device) */
    uint32_t gpu_index;    /* primusGpuIndex (PCI key) of the GPU it is; 0 none/shared */
    char rdma_dev[64];     /* RDMA device it opens ("mlx5_0"); empty none */
};

struct pna_container {
    uint32_t index;        /* primusContainerIndex: kept while the container lives */
    uint8_t runtime;       /* enum pna_container_runtime */
    uint8_t state;         /* enum pna_container_state */
    bool has_memory;       /* mem_usage_bytes read from the cgroup */
    bool has_limit;        /* false: unlimited or unknown */
    bool has_oom;          /* oom_kills read from the cgroup */
    bool has_working_set;  /* mem_working_set_bytes read from the cgroup */
    int32_t pid;           /* init process on the host, 0 unknown */
    /* Strings in the set's pool, never NULL ("" when unknown); set them with
     * pna_container_set_text(), at most the PNA_CTR_*_CAP bytes below. */
    const char *id;
    const char *name;
    const char *pod_name;
    const char *pod_namespace;
    const char *pod_uid;
    const char *image;
    const char *rt_namespace; /* containerd namespace ("k8s.io", "moby", "default") */
    const char *cgroup_path;  /* relative to the memory hierarchy's root, leading '/' */
    int64_t start_ms;      /* CLOCK_REALTIME ms; 0 unknown */
    uint64_t mem_usage_bytes;
    uint64_t mem_limit_bytes;
    uint64_t mem_working_set_bytes; /* usage less inactive file cache (kubelet, docker stats) */
    uint64_t oom_kills;    /* the cgroup's oom_kill; the poller serves the OOM watch's
                              high-water mark of it (a drop in one cgroup is ignored) */
    uint32_t dev_first;    /* this container's devices: set->devs[dev_first..+dev_count) */
    uint32_t dev_count;
    uint32_t gpu_count;    /* distinct GPUs among its devices (gpu_index) */
    uint32_t rdma_count;   /* distinct RDMA devices among its devices (rdma_dev) */
};

/* How long each string of a record may be, with its NUL: what a longer value
 * is cut to (a display copy never splits a UTF-8 sequence). */
#define PNA_CTR_ID_CAP 80
#define PNA_CTR_NAME_CAP 128
#define PNA_CTR_POD_NAME_CAP 254
#define PNA_CTR_POD_NAMESPACE_CAP 64
#define PNA_CTR_POD_UID_CAP 48
#define PNA_CTR_IMAGE_CAP 256
#define PNA_CTR_RT_NAMESPACE_CAP 64
#define PNA_CTR_CGROUP_CAP 256

/* Containers plus their devices in one flat array, grouped per container in
 * row order (so the container-to-device table is the device array itself). */
struct pna_container_set {
    struct pna_container *rows;
    size_t count, cap;
    struct pna_strpool strings;   /* the rows' strings */
    bool strings_lost;            /* a string could not be kept (out of memory) */
    struct pna_container_device *devs;
    size_t dev_count, dev_cap;
    uint64_t devices_dropped;  /* over PNA_CONTAINER_MAX_DEVICES in one container, or
                                  with a path too long and no numbers to name it */
};

/* What the containers poller publishes (PNA_DOM_CONTAINERS).  Rows are sorted
 * by (id, runtime); index values are unique. */
struct pna_containers_snap {
    struct pna_snap base;
    struct pna_container_set set;
    bool containerd_seen;      /* the containerd state directory exists */
    bool docker_seen;          /* dockerd answered this poll */
    bool storage_seen;         /* CRI-O's and Podman's containers/storage store was read */
    uint32_t docker_errors;    /* failed Docker requests since start */
    uint64_t oom_kills;        /* kills the OOM watch reported (primusContainerOomKillsTotal) */
    uint64_t oom_decreases;    /* oom_kill counts that went down within one cgroup's life,
                                  ignored (src/watchers/oom_watch.h); not served yet */
    struct pna_pod_label_set pod_labels; /* allowed labels of the pod sandboxes (podLabels) */
};

/* Set management (src/model/containers.c). */
void pna_container_set_init(struct pna_container_set *set);
void pna_container_set_free(struct pna_container_set *set);
void pna_container_set_clear(struct pna_container_set *set);   /* keeps the memory */

/* An empty record: zeroed, strings "", state unknown. */
void pna_container_init(struct pna_container *c);

/* Append an empty record (pna_container_init(), devices none); NULL when out
 * of memory. */
struct pna_container *pna_container_set_add(struct pna_container_set *set);

/* Set the string *FIELD of a record of SET to VALUE (NULL: ""), cut to CAP
 * bytes with its NUL as pna_strlcpy() cuts; with DISPLAY, as
 * pna_copy_display() copies.  Returns 0, or -1 when out of memory (the field
 * keeps its value; strings_lost is set). */
int pna_container_set_text(struct pna_container_set *set, const char **field,
                           const char *value, size_t cap);
int pna_container_set_display(struct pna_container_set *set, const char **field,
                              const char *value, size_t cap);

/* Append one device to the LAST record added.  A path over
 * PNA_CONTAINER_DEVICE_NAME_MAX characters is replaced by the device's numbers
 * ("/dev/char/MAJ:MIN"); without numbers such a device cannot be named and is
 * dropped.  A device the record already has (same name, or same type and
 * numbers under another path) is not added twice: the row kept has the
 * source of higher precedence (pna_dev_source_rank; the first one on a tie)
 * and the numbers, when only the new one has them.  Returns 0, 1 when dropped
 * (bound or no name; counted in devices_dropped), -1 when out of memory. */
int pna_container_set_add_device(struct pna_container_set *set,
                                 const struct pna_container_device *dev);

/* Remove the last record and its devices (a spec that failed half-way). */
void pna_container_set_drop_last(struct pna_container_set *set);

/* Sort the rows by (id, runtime), keeping each row's devices with it. */
int pna_container_set_sort(struct pna_container_set *set);

/* In a sorted set, fold rows with the same id (a Docker container is also a
 * containerd task in namespace "moby") into one: the Docker row, completed
 * with the task's devices, pid and cgroup.  Returns 0 or -1 (out of memory). */
int pna_container_set_merge_runtimes(struct pna_container_set *set);

/* One device to give row ROW of a set (pna_container_set_add_devices). */
struct pna_container_extra {
    size_t row;
    struct pna_container_device dev;
};

/* Give rows of SET the devices EXTRA[0..N) (ascending row), each as
 * pna_container_set_add_device would give it to that row: a device the row
 * already has stays one row, with the source of higher precedence.  A row's
 * devices are contiguous, so the device array is rebuilt.  Returns 0, or -1
 * (out of memory; SET unchanged). */
int pna_container_set_add_devices(struct pna_container_set *set,
                                  const struct pna_container_extra *extra, size_t n);

/* Binary search in a sorted set; NULL when absent. */
const struct pna_container *pna_container_set_find(const struct pna_container_set *set,
                                                   const char *id);

/* Give every row an index: the one PREV (sorted, may be NULL) had for the same
 * id, else a hash of runtime and id, probing upwards past indexes in use.
 * Indexes are 1..2^31-1. */
void pna_container_set_assign_indexes(struct pna_container_set *set,
                                      const struct pna_container_set *prev);

/* Fill each container's gpu_count and rdma_count from its devices. */
void pna_container_set_count_devices(struct pna_container_set *set);

/* The first container (in row order, which is id order once sorted) holding
 * GPU GPU_INDEX among its devices, or NULL: the GPU table's holder columns.
 * With COUNT, also how many containers hold it (a shared GPU: > 1). */
const struct pna_container *pna_container_holding_gpu(const struct pna_container_set *set,
                                                      uint32_t gpu_index, uint32_t *count);

/* The first container (in row order) given /dev/nvidia-caps/nvidia-capCAP,
 * the access capability of one MIG device, or NULL: primusGpuMigTable's
 * holder columns.  With COUNT, also how many containers have it. */
const struct pna_container *pna_container_holding_cap(const struct pna_container_set *set,
                                                      uint32_t cap, uint32_t *count);

/* Whether container C has GPU GPU_INDEX among its devices. */
bool pna_container_holds_gpu(const struct pna_container_set *set, const struct pna_container *c,
                             uint32_t gpu_index);

/* Whether container C was given /dev/nvidia-caps/nvidia-capCAP. */
bool pna_container_holds_cap(const struct pna_container_set *set, const struct pna_container *c,
                             uint32_t cap);

/* Whether container C was given /dev/dri/renderDMINOR. */
bool pna_container_holds_render(const struct pna_container_set *set, const struct pna_container *c,
                                uint32_t minor);

/* The container whose devices include device row DEV (binary search). */
const struct pna_container *pna_container_of_device(const struct pna_container_set *set,
                                                    size_t dev);

/* The container process cgroup CGROUP (as /proc/PID/cgroup names it) runs
 * in: the one whose cgroup is CGROUP or holds it, the deepest of several;
 * NULL when none or CGROUP is "".  The GPU process rows' container columns
 * and the orphan rule (model/gpu/gpu_idle.h) both ask it. */
const struct pna_container *pna_container_of_cgroup(const struct pna_container_set *set,
                                                    const char *cgroup);

/* Devices of row I. */
static inline const struct pna_container_device *
pna_container_devices(const struct pna_container_set *set, size_t i, size_t *n)
{
    *n = set->rows[i].dev_count;
    /* no devices at all: devs may be NULL, and NULL + 0 is still undefined */
    return *n ? set->devs + set->rows[i].dev_first : NULL;
}

/* Write DEV's by-number name ("/dev/char/MAJ:MIN", "/dev/block/MAJ:MIN" for
 * a block device) into BUF; returns its length, or 0 when DEV has no numbers
 * or BUF is too small. */
size_t pna_container_device_number_name(const struct pna_container_device *dev, char *buf,
                                        size_t cap);

/* True when ID can be a row's identity: 1..PNA_CONTAINER_ID_MAX characters. */
bool pna_container_id_ok(const char *id);

/* Copy SRC into DST of CAP bytes for export: control characters become '?',
 * and a cut never splits a UTF-8 sequence.  Returns strlen(dst). */
size_t pna_copy_display(char *dst, const char *src, size_t cap);

#endif
