/* sources/containers/devmap.h -- what a device node handed to a container is: a
 * GPU, an RDMA device, or something else, and which one
 * (card/render/NVIDIA/uverbs number).
 *
 * Classification goes by the well-known major numbers first (DRM 226, NVIDIA
 * 195, InfiniBand 231): they name the host's device, whatever the container
 * calls it.  Then by the path (the names the drivers give their nodes), for
 * devices without numbers and those whose major is dynamic (kfd, nvidia-uvm,
 * nvidia-caps, rdma_cm). */
#ifndef PNA_SOURCES_DEVMAP_H
#define PNA_SOURCES_DEVMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/containers.h"

struct pna_roots;

/* Fill DEV->kind, family and unit from DEV's major/minor, else its path. */
void pna_devmap_classify(struct pna_container_device *dev);

/* The /dev path of character (TYPE 'c') or block ('b') device MAJOR:MINOR, from
 * sysfs dev/{char,block}/MAJ:MIN/uevent (DEVNAME=...) under ROOTS->sysfs.
 * Returns 0 with "/dev/<DEVNAME>" in BUF, or -errno. */
int pna_devmap_resolve(const struct pna_roots *roots, char type, uint32_t major,
                       uint32_t minor, char *buf, size_t cap);

/* Which GPU and RDMA device each device node of SET is, then each container's
 * distinct counts (pna_container_set_count_devices):
 *   cardN, renderDN  sysfs class/drm/<node>/device: its PCI address (uevent
 *                    PCI_SLOT_NAME, else the link's target) -> primusGpuIndex
 *   nvidiaN          procfs driver/nvidia/gpus/<PCI>/information "Device Minor: N"
 *   uverbsN          sysfs class/infiniband_verbs/uverbsN/ibdev
 *   umadN, issmN     sysfs class/infiniband_mad/<node>/ibdev
 * Shared nodes (kfd, nvidiactl, rdma_cm) belong to no single device. */
void pna_devmap_owners(const struct pna_roots *roots, struct pna_container_set *set);

/* The same for one classified device DEV (pna_devmap_classify): its
 * gpu_index or rdma_dev, as pna_devmap_owners() finds them. */
void pna_devmap_owner(const struct pna_roots *roots, struct pna_container_device *dev);

#define PNA_DEVMAP_MAX_NVIDIA_GPUS 64   /* GPUs of one node read from procfs; more are ignored */

/* One NVIDIA GPU as the driver lists it under procfs driver/nvidia/gpus/<PCI>/. */
struct pna_nvidia_gpu {
    uint32_t pci_key;      /* primusGpuIndex */
    int32_t minor;         /* "Device Minor:": /dev/nvidiaN; -1 unknown */
    char uuid[64];         /* "GPU UUID:" ("GPU-..."); empty unknown */
};

/* The node's NVIDIA GPUs from procfs driver/nvidia/gpus/<PCI>/information,
 * sorted by PCI address: the order NVML (and so CUDA_VISIBLE_DEVICES and
 * NVIDIA_VISIBLE_DEVICES indexes) enumerates them.  Returns how many (at most
 * CAP). */
size_t pna_devmap_nvidia_gpus(const struct pna_roots *roots, struct pna_nvidia_gpu *out,
                              size_t cap);

/* Fill DEV's type and numbers from the device node HOST_PATH ("/dev/...")
 * under ROOTS->devfs when it is a character or block device, then classify
 * DEV again; false (DEV untouched) when it is not. */
bool pna_devmap_host_numbers(const struct pna_roots *roots, const char *host_path,
                             struct pna_container_device *dev);

/* The N of /dev/infiniband/uverbsN that opens RDMA device IBDEV ("mlx5_0"):
 * the uverbs node whose sysfs class/infiniband_verbs/<node>/ibdev names it;
 * -1 none. */
int32_t pna_devmap_uverbs_of(const struct pna_roots *roots, const char *ibdev);

/* The N of /dev/dri/renderDN of the GPU at PCI address PCI ("0000:c1:00.0",
 * "c1:00.0", any case): sysfs bus/pci/devices/<PCI>/drm/renderDN; -1 none. */
int32_t pna_devmap_render_of_pci(const struct pna_roots *roots, const char *pci);

/* GPUs present on the node, counted from device nodes under ROOTS->devfs:
 * /dev/nvidiaN when there are any, else /dev/dri/renderD* (one per GPU,
 * also for AMD). */
unsigned pna_devmap_count_gpus(const struct pna_roots *roots);

#endif
