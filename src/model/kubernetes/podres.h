/* model/kubernetes/podres.h -- the kubelet's device assignments, as its pod-resources
 * API says them: one row per device id the kubelet can give
 * (GetAllocatableResources) or has given to a container (List), with what the
 * id names on this node (a GPU, a MIG device, an RDMA device, or nothing the
 * agent knows: a plain row).
 *
 * This is the authoritative holder of a GPU on a Kubernetes node: the GPU and
 * MIG tables' holder columns prefer it to the containers' device nodes
 * (model/kubernetes/holders.h). */
#ifndef PNA_MODEL_PODRES_H
#define PNA_MODEL_PODRES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/cache.h"
#include "model/oids.h"

struct pna_container;
struct pna_gpu;
struct pna_gpu_mig;
struct pna_gpu_partition;
struct pna_gpu_snap;

#define PNA_PODRES_DRA_NODES 8    /* device nodes kept per DRA device; more are left out */
#define PNA_PODRES_MAX_CDI 4      /* CDI devices kept per DRA device; more are ignored */
#define PNA_PODRES_CDI_NAME_MAX 160 /* a longer CDI device name is ignored */

/* A device node a DRA device's CDI devices inject (as the CDI spec says it). */
struct pna_podres_node {
    char path[64];          /* in the container: "/dev/nvidia0" */
    char host_path[64];     /* on the host; "" the same */
    char type;              /* 'c', 'b'; 0 unknown */
    bool has_numbers;
    uint32_t major, minor;
};

/* A device of a DRA claim, as the kubelet names it (its claim, the driver,
 * pool and device of the driver's ResourceSlice, the CDI devices injected
 * for it), and what the poller resolved it to through the CDI specs
 * (sources/kubernetes/dra.h): the CDI device whose entry gave the nodes, and
 * the nodes; pna_podres_finish() reads what the nodes are.  Allocated for a
 * DRA row alone, so that the device plugins' rows do not carry it. */
struct pna_podres_dra {
    char claim_namespace[64];
    char claim_name[254];
    char driver[64];          /* "gpu.nvidia.com", "gpu.amd.com", "dra.net" */
    char pool[254];           /* the ResourceSlice pool: usually the node's name */
    char device[64];          /* the driver's name: "gpu-0", "gpu-0-mig-9-4-1", "eth1" */
    uint8_t n_cdi;
    char cdi[PNA_PODRES_MAX_CDI][PNA_PODRES_CDI_NAME_MAX];  /* "k8s.gpu.nvidia.com/device=gpu-0" */
    char cdi_device[PNA_PODRES_CDI_NAME_MAX];  /* the one whose spec entry resolved; "" none */
    uint8_t n_nodes;
    struct pna_podres_node nodes[PNA_PODRES_DRA_NODES];
    int32_t nv_minor;         /* /dev/nvidiaN among the nodes; -1 none */
    int32_t render_minor;     /* /dev/dri/renderDN; -1 none */
    int32_t mig_caps[2];      /* /dev/nvidia-caps/nvidia-capN (GPU and compute
                                 instance access); -1 none */
};

/* A new DRA part, zeroed with its minors -1; NULL when out of memory. */
struct pna_podres_dra *pna_podres_dra_new(void);

struct pna_podres_row {
    uint32_t index;         /* primusPodResourceIndex: kept while the row lives */
    uint8_t kind;           /* primusPodResourceKind: PNA_POD_RESOURCE_KIND_* (model/oids.h) */
    bool assigned;          /* List gave it to the container named */
    bool allocatable;       /* GetAllocatableResources has it */
    int32_t numa_node;      /* -1 none */
    char resource[128];
    char id[128];
    char pod_name[254];     /* "" for a device no container holds */
    char pod_namespace[64];
    char container[128];
    char gpu_key[128];      /* what names the GPU: the id without a sharing
                               suffix ("GPU-<uuid>" of "GPU-<uuid>::3"), "" none */
    char rdma_dev[64];      /* the RDMA device the id resolves to ("mlx5_0") */
    struct pna_podres_dra *dra;  /* a DRA claim's device (resource and id
                                    empty); NULL for a device plugin's id.
                                    Owned by the row's snapshot. */
};

/* PNA_DOM_PODRES.  Rows sorted by (namespace, pod, container, resource, id),
 * then a container's DRA devices by (claim namespace, claim, driver, pool,
 * device); devices no container holds (empty pod) first. */
struct pna_podres_snap {
    struct pna_snap base;
    bool socket_seen;       /* the socket exists (a Kubernetes node) */
    bool has_allocatable;   /* GetAllocatableResources answered */
    struct pna_podres_row *rows;
    size_t count, cap;
    uint64_t dropped;       /* ids the source could not keep whole */
    uint32_t gpus_allocatable; /* pna_podres_gpus_allocatable(), set by pna_podres_finish */
    uint32_t gpus_assigned;    /* pna_podres_gpus_assigned(), set by pna_podres_finish */
    char node_name[254];       /* the configured nodeName, "" none: the API names no node,
                                  and a node without kubeletUrl has no other source of it */
};

/* Append a zeroed row (numa_node -1, no DRA part); NULL when out of memory. */
struct pna_podres_row *pna_podres_add(struct pna_podres_snap *s);

/* The assigned rows with RESOURCE and ID (any container). */
bool pna_podres_has_assigned(const struct pna_podres_snap *s, const char *resource,
                             const char *id);

/* Fill KIND and GPU_KEY of every row from its resource name and id (and
 * rdma_dev, which the poller resolves from sysfs), sort, and give indexes
 * (those of PREV, which may be NULL, for the same rows). */
int pna_podres_finish(struct pna_podres_snap *s, const struct pna_podres_snap *prev);

/* Whether row R names container C: the same namespace, pod and container
 * name (C in a pod; whether R is an assignment is the caller's question). */
bool pna_podres_names_container(const struct pna_podres_row *r, const struct pna_container *c);

/* Whether GPU_KEY names the GPU with this UUID or canonical PCI bus id. */
bool pna_podres_names_gpu(const char *gpu_key, const char *uuid, const char *pci_bus_id);

/* Whether row R (kind gpu) names GPU G: by its id's UUID or PCI address (a
 * DRA device: the PCI address behind its nodes), else (a DRA device whose
 * nodes' owner was not found) by the GPU's /dev/nvidiaN among its nodes. */
bool pna_podres_row_on_gpu(const struct pna_podres_row *r, const struct pna_gpu *g);

/* The MIG device of GS row R (kind mig) names: by its MIG UUID, or (a DRA
 * device) by the compute instance's access capability among its nodes;
 * NULL none. */
const struct pna_gpu_mig *pna_podres_row_mig(const struct pna_podres_row *r,
                                             const struct pna_gpu_snap *gs);

/* Whether row R (a DRA device) names AMD compute partition P: its render
 * node is among R's nodes. */
bool pna_podres_row_on_partition(const struct pna_podres_row *r,
                                 const struct pna_gpu_partition *p);

/* Whether R is a DRA claim's device (not a device plugin's id). */
static inline bool pna_podres_row_is_dra(const struct pna_podres_row *r)
{
    return r->dra != NULL;
}

/* GPUs the kubelet can allocate: allocatable GPU and MIG rows (distinct
 * resource and id), as counted by pna_podres_finish(). */
uint32_t pna_podres_gpus_allocatable(const struct pna_podres_snap *s);

/* GPUs List gives to containers: assigned GPU and MIG rows (distinct
 * resource and id, so a time-sliced replica counts as allocatable ones do),
 * as counted by pna_podres_finish(). */
uint32_t pna_podres_gpus_assigned(const struct pna_podres_snap *s);

/* Frees the rows' DRA parts too. */
void pna_podres_snap_free(struct pna_podres_snap *s);

/* primusPodResourceKind's label of KIND ("gpu", "mig", "rdma", "other"). */
const char *pna_podres_kind_name(uint8_t kind);

#endif
