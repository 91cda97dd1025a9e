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
};

/* PNA_DOM_PODRES.  Rows sorted by (namespace, pod, container, resource, id);
 * devices no container holds (empty pod) first. */
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

/* Append a zeroed row (numa_node -1); NULL when out of memory. */
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

/* GPUs the kubelet can allocate: allocatable GPU and MIG rows (distinct
 * resource and id), as counted by pna_podres_finish(). */
uint32_t pna_podres_gpus_allocatable(const struct pna_podres_snap *s);

/* GPUs List gives to containers: assigned GPU and MIG rows (distinct
 * resource and id, so a time-sliced replica counts as allocatable ones do),
 * as counted by pna_podres_finish(). */
uint32_t pna_podres_gpus_assigned(const struct pna_podres_snap *s);

void pna_podres_snap_free(struct pna_podres_snap *s);

/* primusPodResourceKind's label of KIND ("gpu", "mig", "rdma", "other"). */
const char *pna_podres_kind_name(uint8_t kind);

#endif
