/* sources/gpu/dri_map.c -- GPU to /dev/dri node names from /dev/dri/by-path
 * (see dri_map.h). */
#include "pna_autoconf.h"
#include "sources/gpu/dri_map.h"
#include "util/fileio.h"
#include "util/array.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct pna_dri_entry *entry_for(struct pna_dri_map *map, const char *bus_id)
{
    struct pna_gpu g;
    memset(&g, 0, sizeof g);
    if (pna_gpu_set_pci(&g, bus_id) != 0)
        return NULL;
    for (size_t i = 0; i < map->count; i++)
        if (strcmp(map->entries[i].pci_bus_id, g.pci_bus_id) == 0)
            return &map->entries[i];
    if (PNA_ARRAY_RESERVE(map->entries, map->cap, map->count + 1) != 0)
        return NULL;
    struct pna_dri_entry *e = &map->entries[map->count++];
    memset(e, 0, sizeof *e);
    e->key = g.index;
    pna_strlcpy(e->pci_bus_id, g.pci_bus_id, sizeof e->pci_bus_id);
    return e;
}

/* "card3" or "renderD130": the word, then digits only. */
static int node_name_ok(const char *name, const char *word)
{
    size_t n = strlen(word);
    if (strncmp(name, word, n) != 0 || !name[n])
        return 0;
    for (const char *p = name + n; *p; p++)
        if (*p < '0' || *p > '9')
            return 0;
    return 1;
}

/* One by-path link: "pci-<address>-card" or "pci-<address>-render". */
static void add_link(struct pna_dri_map *map, int dirfd, const char *name)
{
    if (strncmp(name, "pci-", 4) != 0)
        return; /* platform-... devices have no PCI address */
    const char *dash = strrchr(name, '-');
    if (!dash || dash < name + 4)
        return;
    const char *kind = dash + 1;
    int is_card = strcmp(kind, "card") == 0, is_render = strcmp(kind, "render") == 0;
    if (!is_card && !is_render)
        return;
    char bus[64];
    size_t blen = (size_t)(dash - (name + 4));
    if (blen == 0 || blen >= sizeof bus)
        return;
    memcpy(bus, name + 4, blen);
    bus[blen] = '\0';
    char target[256];
    ssize_t tl = readlinkat(dirfd, name, target, sizeof target - 1);
    if (tl <= 0)
        return;
    target[tl] = '\0';
    const char *base = strrchr(target, '/');
    base = base ? base + 1 : target;
    if (!node_name_ok(base, is_card ? "card" : "renderD"))
        return;
    struct pna_dri_entry *e = entry_for(map, bus);
    if (!e)
        return;
    pna_strlcpy(is_card ? e->card : e->render, base, sizeof e->card);
}

int pna_dri_map_load(const struct pna_roots *roots, struct pna_dri_map *map, char *err,
                     size_t errlen)
{
    memset(map, 0, sizeof *map);
    char path[4096];
    if (pna_path(path, sizeof path, roots->devfs, "/dri/by-path") != 0) {
        snprintf(err, errlen, "devfs path too long");
        return -1;
    }
    int dirfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dirfd < 0) {
        if (errno == ENOENT || errno == ENOTDIR)
            return 0;
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    DIR *d = fdopendir(dirfd);
    if (!d) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        close(dirfd);
        return -1;
    }
    struct dirent *de;
    while ((de = readdir(d)) != NULL)
        if (de->d_name[0] != '.')
            add_link(map, dirfd, de->d_name);
    closedir(d);
    return 0;
}

const struct pna_dri_entry *pna_dri_map_find(const struct pna_dri_map *map, const char *pci_bus_id)
{
    char canon[24];
    if (pna_gpu_canon_bus_id(pci_bus_id, canon, sizeof canon) != 0)
        return NULL;
    for (size_t i = 0; i < map->count; i++)
        if (strcmp(map->entries[i].pci_bus_id, canon) == 0)
            return &map->entries[i];
    return NULL;
}

void pna_dri_map_apply(const struct pna_dri_map *map, struct pna_gpu *gpus, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        const struct pna_dri_entry *e = pna_dri_map_find(map, gpus[i].pci_bus_id);
        if (!e)
            continue;
        if (e->card[0]) {
            pna_strlcpy(gpus[i].drm_card, e->card, sizeof gpus[i].drm_card);
            gpus[i].has_drm_card_id = true;
            gpus[i].drm_card_id = (uint32_t)strtoul(e->card + 4, NULL, 10);
        }
        if (e->render[0])
            pna_strlcpy(gpus[i].drm_render, e->render, sizeof gpus[i].drm_render);
    }
}

void pna_dri_map_free(struct pna_dri_map *map)
{
    free(map->entries);
    memset(map, 0, sizeof *map);
}
