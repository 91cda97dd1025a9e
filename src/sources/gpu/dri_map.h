/* sources/gpu/dri_map.h -- which /dev/dri/cardN and renderDN belong to which GPU.
 *
 * udev names every DRM node by its PCI address under /dev/dri/by-path
 * (pci-0000:c1:00.0-card -> ../card0, pci-0000:c1:00.0-render ->
 * ../renderD128); that is the only reliable link: card numbers are not render
 * minors minus 128 (an iGPU can be card1 with renderD128).  PCI addresses are
 * matched case-insensitively (rocm-smi prints upper case, udev lower case). */
#ifndef PNA_DRI_MAP_H
#define PNA_DRI_MAP_H

#include <stddef.h>
#include <stdint.h>

#include "model/gpu/gpu.h"
#include "core/roots.h"

struct pna_dri_entry {
    uint32_t key;              /* PCI key, as struct pna_gpu.index */
    char pci_bus_id[24];       /* canonical, lower case */
    char card[16];             /* "card0", "" when absent */
    char render[16];           /* "renderD128", "" when absent */
};

struct pna_dri_map {
    size_t count, cap;
    struct pna_dri_entry *entries;
};

/* Read ROOTS->devfs/dri/by-path.  A missing directory is an empty map (a node
 * without DRM devices).  Returns 0, or -1 with ERR. */
int pna_dri_map_load(const struct pna_roots *roots, struct pna_dri_map *map, char *err,
                     size_t errlen);

/* The entry for a PCI address in any of the forms pna_gpu_set_pci() takes. */
const struct pna_dri_entry *pna_dri_map_find(const struct pna_dri_map *map, const char *pci_bus_id);

/* Fill drm_card / drm_render / drm_card_id of every GPU found in MAP. */
void pna_dri_map_apply(const struct pna_dri_map *map, struct pna_gpu *gpus, size_t count);

void pna_dri_map_free(struct pna_dri_map *map);

#endif
