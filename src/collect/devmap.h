/* devmap.h -- what a device node handed to a container is: a GPU, an RDMA
 * device, or something else, and which one (card/render/NVIDIA/uverbs number).
 *
 * Classification goes by the path first (the names the drivers give their
 * nodes), then by the well-known major numbers (DRM 226, NVIDIA 195,
 * InfiniBand 231) for allow-list entries that carry numbers but no path. */
#ifndef PNA_COLLECT_DEVMAP_H
#define PNA_COLLECT_DEVMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/containers.h"

struct pna_roots;

/* Fill DEV->kind, family and unit from DEV->path (and major/minor when the
 * path says nothing). */
void pna_devmap_classify(struct pna_ctr_device *dev);

/* The /dev path of character (TYPE 'c') or block ('b') device MAJOR:MINOR, from
 * sysfs dev/{char,block}/MAJ:MIN/uevent (DEVNAME=...) under ROOTS->sysfs.
 * Returns 0 with "/dev/<DEVNAME>" in BUF, or -errno. */
int pna_devmap_resolve(const struct pna_roots *roots, char type, uint32_t major,
                       uint32_t minor, char *buf, size_t cap);

/* GPUs present on the node, counted from device nodes under ROOTS->devfs:
 * /dev/nvidiaN when there are any, else /dev/dri/renderD* (one per GPU,
 * also for AMD). */
unsigned pna_devmap_count_gpus(const struct pna_roots *roots);

#endif
