/* fuzz_dri_map.c -- libFuzzer harness for the /dev/dri/by-path reader
 * (sources/gpu/dri_map.c): udev's pci-DDDD:BB:DD.F-{card,render} links to
 * ../cardN and ../renderDN.  The input is a file tree (see fuzz.h), normally
 * links under dev/dri/by-path/; every entry read is then looked up again by
 * its address in upper case, and the map applied to GPUs at those addresses,
 * as the GPU poller applies it. */
#include "pna_autoconf.h"
#include "sources/gpu/dri_map.h"
#include "fuzz.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const struct pna_roots *roots = fz_tree_build(data, size);
    struct pna_dri_map map;
    char err[256];
    memset(&map, 0, sizeof map);
    if (pna_dri_map_load(roots, &map, err, sizeof err) == 0) {
        struct pna_gpu *gpus = calloc(map.count ? map.count : 1, sizeof *gpus);
        if (!gpus)
            abort();
        for (size_t i = 0; i < map.count; i++) {
            char upper[sizeof map.entries[i].pci_bus_id];
            for (size_t k = 0; k < sizeof upper; k++)
                upper[k] = (char)toupper((unsigned char)map.entries[i].pci_bus_id[k]);
            pna_dri_map_find(&map, upper);
            pna_gpu_set_pci(&gpus[i], map.entries[i].pci_bus_id);
        }
        pna_dri_map_apply(&map, gpus, map.count);
        free(gpus);
        pna_dri_map_free(&map);
    }
    fz_tree_clear();
    return 0;
}
