/* sources/containers/podres_devices.c -- the device nodes behind the kubelet's
 * device assignments, given to the containers the runtimes reported.
 *
 * The pod-resources API names devices by the device plugin's ids, not by
 * their nodes.  Each assigned row of the kubelet's list becomes the node a
 * container opens for it, with source PNA_DEVS_POD_RESOURCES:
 *   GPU  (NVIDIA, "GPU-<uuid>", shares "GPU-<uuid>::N")  /dev/nvidiaN, 195:N, N the
 *        "Device Minor" of procfs driver/nvidia/gpus/<PCI>/information
 *   GPU  (amd.com/gpu, id the PCI address)  /dev/dri/renderDN, 226:N, from sysfs
 *        bus/pci/devices/<PCI>/drm
 *   MIG  ("MIG-<uuid>" through the GPU snapshot, or "MIG-GPU-<uuid>/<gi>/<ci>")
 *        /dev/nvidia-caps/nvidia-capM (procfs driver/nvidia-caps/mig-minors)
 *        plus the parent GPU's /dev/nvidiaN
 *   RDMA (rdma_dev set)  /dev/infiniband/uverbsN, 231:192+N, the uverbs node
 *        whose sysfs class/infiniband_verbs/uverbsN/ibdev is rdma_dev
 *   a DRA claim's device: the device nodes its CDI devices inject (as the
 *        row holds them, sources/kubernetes/dra.h), with source
 *        PNA_DEVS_DRA_CLAIM
 *   anything else: no node is known, nothing is added.
 * A container the runtimes did not report gets nothing here (the GPU holder
 * columns and /pods show it from the pod-resources rows themselves). */
#ifndef PNA_SOURCES_PODRES_DEVICES_H
#define PNA_SOURCES_PODRES_DEVICES_H

#include "model/containers.h"
#include "model/gpu/gpu.h"
#include "model/kubernetes/podres.h"

struct pna_roots;

/* Add to every container of SET (pod name, namespace and container name set)
 * the nodes of the assigned rows of PODRES naming it.  GPUS (may be NULL)
 * maps MIG UUIDs to their GPU and instance ids.  Returns 0, or -1 when out
 * of memory (SET unchanged). */
int pna_podres_devices_apply(const struct pna_roots *roots, const struct pna_podres_snap *podres,
                             const struct pna_gpu_snap *gpus, struct pna_container_set *set);

#endif
