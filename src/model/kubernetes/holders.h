/* model/kubernetes/holders.h -- who holds a GPU or a MIG device, one answer for every
 * front end: the GPU and MIG tables' holder columns, the holder labels of
 * /metrics and the dcgm-exporter compatible series.
 *
 * The kubelet's assignments (model/kubernetes/podres.h) come first: the device plugin
 * told the kubelet which GPU it gave, whatever the runtime did to inject it
 * (a hook driven by NVIDIA_VISIBLE_DEVICES, CDI, a MIG device that is not a
 * device node of its own).  Containers whose device lists hold the GPU's
 * device node come next; one container is counted once, whichever sources
 * name it. */
#ifndef PNA_MODEL_HOLDERS_H
#define PNA_MODEL_HOLDERS_H

#include <stdint.h>

#include "core/view.h"
#include "model/containers.h"
#include "model/gpu/gpu.h"

struct pna_holder {
    const char *container_id;    /* primusContainerId; "" when no runtime record is seen */
    const char *container_name;  /* the container's name within its pod (or its
                                    runtime name); "" none */
    const char *pod;             /* "" none, or not in a pod */
    const char *pod_namespace;
    const struct pna_container *record;  /* the runtime record, NULL when none */
    uint32_t count;              /* distinct holding containers */
};

/* The holders of GPU G (its view must hold PNA_DOM_PODRES, PNA_DOM_CONTAINERS
 * and PNA_DOM_GPU where present): the first of them in H, all empty and a
 * count of 0 when none. */
void pna_gpu_holder(const struct pna_view *v, const struct pna_gpu *g, struct pna_holder *h);

/* Call FN for each holder of GPU G, the first one first (COUNT is 0). */
typedef void (*pna_holder_fn)(const struct pna_holder *h, void *arg);
void pna_gpu_holders_each(const struct pna_view *v, const struct pna_gpu *g, pna_holder_fn fn,
                          void *arg);

/* The same for MIG device M: the kubelet's assignment of its MIG UUID (or
 * a DRA claim's device given its access capability node) first, then the
 * containers given that node. */
void pna_mig_holder(const struct pna_view *v, const struct pna_gpu_mig *m, struct pna_holder *h);
/* Call FN for each holder of MIG device M, in the same order. */
void pna_mig_holders_each(const struct pna_view *v, const struct pna_gpu_mig *m, pna_holder_fn fn,
                          void *arg);

/* The same for AMD compute partition P: a DRA claim's device given its
 * render node first, then the containers given that node.  (A device
 * plugin's ids name whole GPUs; its partition ids are not matched yet.) */
void pna_partition_holder(const struct pna_view *v, const struct pna_gpu_partition *p,
                          struct pna_holder *h);

#endif
