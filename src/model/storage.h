/* model/storage.h -- Kubernetes and storage domains: node ephemeral storage,
 * per-pod ephemeral storage, and the Kubernetes GPU allocation of the node.
 *
 * Two snapshots carry them: the kubelet poller's (PNA_DOM_KUBELET: pods, the
 * kubelet's view of the node filesystem, GPU allocation) and the storage poller's
 * (PNA_DOM_STORAGE: statvfs of the kubelet root, the fallback when no kubelet
 * answers).  pna_node_storage_pick() chooses what the node scalars show. */
#ifndef PNA_MODEL_STORAGE_H
#define PNA_MODEL_STORAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/cache.h"
#include "model/kubernetes/pod_labels.h"

/* primusNodeStorageSource */
enum pna_storage_source {
    PNA_STORAGE_NONE = 0,
    PNA_STORAGE_KUBELET = 1,   /* /stats/summary node.fs */
    PNA_STORAGE_STATVFS = 2,   /* statvfs() of the kubelet root */
};

/* Node ephemeral storage, the node exporter's node_ephemeral_storage_* figures. */
struct pna_node_storage {
    bool valid;
    uint8_t source;               /* enum pna_storage_source */
    uint64_t capacity_bytes;
    uint64_t available_bytes;     /* what an unprivileged writer may still use */
    uint64_t used_bytes;
    /* used / capacity in hundredths of a percent (0..10000): the node exporter exports
     * the same ratio as node_ephemeral_storage_usage_percent. */
    uint32_t usage_percent_x100;
    uint64_t inodes, inodes_free; /* 0 when the source has none */
};

/* A pod UID longer than this (the SIZE of primusPodUid, an index string) is
 * not kept: the pod is listed with an empty UID rather than a cut one.  The
 * API server's UIDs are 36-character UUIDs, static pods' 32 hex digits. */
#define PNA_POD_UID_MAX 64

/* One pod on the node (kubelet /pods joined with /stats/summary). */
struct pna_pod {
    uint32_t index;               /* primusPodIndex: kept while the pod lives */
    char namespace_[64];
    char name[254];
    char uid[PNA_POD_UID_MAX + 1]; /* empty when the kubelet gave none (or a longer one) */
    uint8_t phase;                /* enum pna_pod_phase */
    bool has_ephemeral;           /* /stats/summary had ephemeral-storage for it */
    uint64_t ephemeral_used_bytes;  /* pod_ephemeral_storage_usage_bytes */
    bool has_inodes;
    uint64_t ephemeral_inodes_used;
    uint64_t ephemeral_limit_bytes; /* sum of its containers' ephemeral-storage limits; 0 none */
    uint32_t gpus_requested;      /* GPU resources of its containers (effective) */
};

/* primusPodPhase */
enum pna_pod_phase {
    PNA_POD_PENDING = 1,
    PNA_POD_RUNNING = 2,
    PNA_POD_SUCCEEDED = 3,
    PNA_POD_FAILED = 4,
    PNA_POD_UNKNOWN = 5,
};

/* Kubernetes GPU allocation, the node exporter's node_k8s_gpu_allocation_rate. */
struct pna_k8s_gpu {
    bool valid;                   /* false when the node total is unknown or 0 */
    uint32_t total;               /* GPUs on the node */
    uint32_t allocated;           /* GPUs held by pods that are not finished */
    /* allocated / total in hundredths of a percent (0..10000; may exceed 10000
     * if pods hold more than the node total reported). */
    uint32_t rate_x100;
};

struct pna_pod_set {
    struct pna_pod *rows;         /* sorted by (namespace, name) */
    size_t count, cap;
};

/* PNA_DOM_KUBELET */
struct pna_kubelet_snap {
    struct pna_snap base;
    char node_name[254];
    struct pna_pod_set pods;
    struct pna_node_storage node_fs;   /* source KUBELET when the summary had node.fs */
    struct pna_k8s_gpu gpu;
    struct pna_pod_label_set labels;   /* the pods' allowed labels (podLabels) */
};

/* PNA_DOM_STORAGE */
struct pna_storage_snap {
    struct pna_snap base;
    char path[256];                    /* the directory measured, as the host names it */
    struct pna_node_storage node_fs;   /* source STATVFS */
};

void pna_pod_set_init(struct pna_pod_set *set);
void pna_pod_set_free(struct pna_pod_set *set);
struct pna_pod *pna_pod_set_add(struct pna_pod_set *set);
void pna_pod_set_sort(struct pna_pod_set *set);
/* Index from PREV's row with the same uid, else a hash of the uid (probing). */
void pna_pod_set_assign_indexes(struct pna_pod_set *set, const struct pna_pod_set *prev);

/* Fill USED/percent from capacity and available when the source gave no used
 * figure (statvfs), and the percent in every case. */
void pna_node_storage_finish(struct pna_node_storage *s);

/* What the node storage figures are (primusStorage, node_ephemeral_storage_*):
 * the kubelet's whenever its snapshot has them, else statvfs.  A kubelet that
 * stopped answering loses its snapshot after staleAfter (the poller core drops
 * it), so no age limit of its own applies.  Either snapshot may be NULL;
 * returns NULL when neither has data. */
/* Turn GPUs allocated and allocatable into the allocation scalars. */
void pna_k8s_gpu_compute(struct pna_k8s_gpu *g, uint32_t allocated, uint32_t total);

const struct pna_node_storage *pna_node_storage_pick(const struct pna_kubelet_snap *kubelet,
                                                     const struct pna_storage_snap *storage);

#endif
