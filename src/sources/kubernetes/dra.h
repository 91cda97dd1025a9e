/* sources/kubernetes/dra.h -- what a device of a DRA claim is on this node.
 *
 * The pod-resources API names a DRA device by its driver, pool and device
 * name ("gpu.nvidia.com", "node-1", "gpu-0") and the CDI devices the runtime
 * injected for it.  The device names are the driver's own and say nothing
 * reliable (NVIDIA's "gpu-N" counts NVML's order, not the minor number), so
 * the device is resolved through what was injected:
 *
 *   1. each CDI device name through the node's CDI spec files (the same
 *      registry the containers poller reads, sources/containers/cdi.h): the
 *      device nodes of the first one a spec defines with nodes are the row's
 *      nodes (the NVIDIA driver names two per device, the node-less claim
 *      one "k8s.gpu.nvidia.com/claim=<uid>-gpu-0" and the device one
 *      "k8s.gpu.nvidia.com/device=gpu-0" that holds /dev/nvidia0; AMD's
 *      "k8s.gpu.amd.com/gpu=<uid>-gpu-0" holds /dev/dri/renderDN);
 *   2. each node's owner as the container device table finds it
 *      (sources/containers/devmap.h): /dev/nvidiaN and /dev/dri/renderDN to
 *      the GPU's PCI address (gpu_key), /dev/infiniband/uverbsN to its RDMA
 *      device;
 *   3. a NIC driver's device name (dranet names a device by its network
 *      interface; a PCI address written for a DNS label, "0000-3b-00-2", as
 *      SR-IOV drivers may) to the RDMA device under it in sysfs.
 *
 * MIG access capabilities, the GPU's minor and an AMD render node are read
 * from the nodes by the model (pna_podres_finish) and joined with the GPU
 * snapshot when an answer is built. */
#ifndef PNA_SOURCES_DRA_H
#define PNA_SOURCES_DRA_H

#include <stdbool.h>
#include <stddef.h>

#include "core/roots.h"
#include "model/kubernetes/podres.h"

struct pna_cdi_registry;

/* Resolve DRA row R (R->dra set, with the kubelet's CDI names) through CDI
 * (may be NULL: no spec resolves) and sysfs: R->dra's cdi_device and nodes,
 * R's gpu_key and rdma_dev.  False when it resolved to
 * nothing though it names a CDI device that no spec defines (the driver's
 * spec is missing, or names another device), with one line in WHY
 * ("gpu.nvidia.com/node-1/gpu-7: no CDI spec defines
 * k8s.gpu.nvidia.com/device=gpu-7"): an inconsistency worth a poller
 * error.  A device with nothing to resolve by (no CDI device, or CDI
 * devices without device nodes, and no NIC of its name) is true and stays
 * a plain row, as an unknown driver's device does. */
bool pna_dra_resolve(const struct pna_roots *roots, const struct pna_cdi_registry *cdi,
                     struct pna_podres_row *r, char *why, size_t whylen);

/* The RDMA device under NAME, a PCI address ("0000:3b:00.2") or network
 * interface: sysfs bus/pci/devices/<NAME>/infiniband/<dev> or
 * class/net/<NAME>/device/infiniband/<dev>, into OUT.  Names with '/' or
 * ".." are not looked up.  False when none. */
bool pna_podres_rdma_of(const struct pna_roots *roots, const char *name, char *out, size_t cap);

#endif
