/* sources/gpu/amd_kfd.c -- processes on AMD GPUs from KFD's sysfs (see
 * amd_kfd.h).
 *
 * KFD names a process by its pid in the initial PID namespace (the lead
 * thread's), the namespace the agent is deployed in, so /proc/<pid> gives its
 * name and cgroup (gpu_procs.c).  A KFD node's location_id is the PCI
 * bus << 8 | devfn, as in amd_sysfs.c's render-node lookup. */
#include "pna_autoconf.h"
#include "sources/gpu/amd_kfd.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/fileio.h"

#define MAX_NODES 256

struct kfd_node {
    uint32_t number;             /* N of topology/nodes/N */
    uint64_t gpu_id;
    uint32_t key;                /* the GPU's PCI key (primusGpuIndex) */
    uint64_t render_minor, xcc, simds, simd_per_cu;  /* 0: not said */
};

struct kfd_map {
    size_t count;
    struct kfd_node nodes[MAX_NODES];
};

/* "name value" lines of a topology properties file. */
static bool prop_value(const char *props, const char *name, uint64_t *out)
{
    size_t n = strlen(name);
    for (const char *p = props; p && *p;) {
        if (strncmp(p, name, n) == 0 && p[n] == ' ') {
            char buf[32];
            size_t len = strcspn(p + n + 1, "\n");
            if (len == 0 || len >= sizeof buf)
                return false;
            memcpy(buf, p + n + 1, len);
            buf[len] = '\0';
            return pna_parse_u64(buf, out) == 0;
        }
        p = strchr(p, '\n');
        p = p ? p + 1 : NULL;
    }
    return false;
}

/* One topology node: GPUs have a non-zero gpu_id (CPU nodes have 0). */
static void load_node(const char *dir, const char *name, struct kfd_map *map)
{
    char path[4096 + 300], props[8192];
    uint64_t id, loc, dom, number;
    if (pna_parse_u64(name, &number) != 0 || number > UINT32_MAX || map->count >= MAX_NODES)
        return;
    snprintf(path, sizeof path, "%s/%s/gpu_id", dir, name);
    if (pna_read_u64(path, &id) != 0 || id == 0)
        return;
    snprintf(path, sizeof path, "%s/%s/properties", dir, name);
    if (pna_read_text(path, props, sizeof props) <= 0 || !prop_value(props, "location_id", &loc) ||
        loc > 0xffff)
        return;
    if (!prop_value(props, "domain", &dom))
        dom = 0;
    struct kfd_node *n = &map->nodes[map->count++];
    *n = (struct kfd_node){
        .number = (uint32_t)number, .gpu_id = id,
        .key = pna_gpu_pci_key((uint32_t)dom, (uint32_t)(loc >> 8), (uint32_t)(loc >> 3) & 0x1f,
                               (uint32_t)loc & 7),
    };
    prop_value(props, "drm_render_minor", &n->render_minor);
    prop_value(props, "num_xcc", &n->xcc);
    prop_value(props, "simd_count", &n->simds);
    prop_value(props, "simd_per_cu", &n->simd_per_cu);
}

static int cmp_node(const void *a, const void *b)
{
    uint32_t x = ((const struct kfd_node *)a)->number, y = ((const struct kfd_node *)b)->number;
    return x < y ? -1 : x > y;
}

static void load_topology(const struct pna_roots *roots, struct kfd_map *map)
{
    char dir[4096];
    map->count = 0;
    if (pna_path(dir, sizeof dir, roots->sysfs, "/class/kfd/kfd/topology/nodes") != 0)
        return;
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *de;
    while ((de = readdir(d)) != NULL)
        if (de->d_name[0] != '.')
            load_node(dir, de->d_name, map);
    closedir(d);
    /* KFD numbers a partitioned GPU's nodes in its partitions' order */
    qsort(map->nodes, map->count, sizeof map->nodes[0], cmp_node);
}

/* The AMD GPU of LIST that KFD's GPU_ID stands for, or NULL. */
static struct pna_gpu *gpu_of(const struct kfd_map *map, struct pna_gpu_list *list, uint64_t gpu_id)
{
    for (size_t i = 0; i < map->count; i++) {
        if (map->nodes[i].gpu_id != gpu_id)
            continue;
        for (size_t k = 0; k < list->count; k++)
            if (list->gpus[k].index == map->nodes[i].key && list->gpus[k].vendor == PNA_GPU_VND_AMD)
                return &list->gpus[k];
    }
    return NULL;
}

/* The partition row KFD's GPU_ID is (rows from FIRST on are this source's). */
static struct pna_gpu_partition *partition_of(struct pna_gpu_list *list, size_t first,
                                              uint64_t gpu_id)
{
    for (size_t i = first; i < list->part_count; i++)
        if (list->parts[i].kfd_gpu_id == gpu_id)
            return &list->parts[i];
    return NULL;
}

/* One row per KFD node of a partitionable GPU G (one with a compute
 * partition mode; at most 8, as amdgpu makes), its activity from G's
 * gpu_metrics partition statistics. */
static int add_partitions(const struct kfd_map *map, struct pna_gpu_list *list, size_t gi)
{
    uint32_t id = 0;
    for (size_t i = 0; i < map->count && id < PNA_GPU_MAX_XCP; i++) {
        const struct kfd_node *n = &map->nodes[i];
        if (n->key != list->gpus[gi].index || n->gpu_id > UINT32_MAX)
            continue;
        struct pna_gpu_partition *p = pna_gpu_list_add_partition(list);
        if (!p)
            return -1;
        const struct pna_gpu *g = &list->gpus[gi];
        p->gpu_index = g->index;
        p->id = id;
        p->kfd_gpu_id = (uint32_t)n->gpu_id;
        p->has_render = n->render_minor >= 128 && n->render_minor <= 255;
        p->render_minor = p->has_render ? (uint32_t)n->render_minor : 0;
        p->has_xcc = n->xcc > 0 && n->xcc <= 64;
        p->xcc_count = p->has_xcc ? (uint32_t)n->xcc : 0;
        p->has_cus = n->simds > 0 && n->simd_per_cu > 0 && n->simds / n->simd_per_cu <= UINT32_MAX;
        p->cu_count = p->has_cus ? (uint32_t)(n->simds / n->simd_per_cu) : 0;
        if (id < g->xcp_count) {
            p->has_gfx_active = g->has_xcp_gfx[id];
            p->gfx_active_bp = g->xcp_gfx_bp[id];
            p->has_video_active = g->has_xcp_video[id];
            p->video_active_bp = g->xcp_video_bp[id];
        }
        id++;
    }
    return 0;
}

/* Add BYTES to PID's row on G (rows from FIRST on are this source's). */
static int add_usage(struct pna_gpu_list *list, size_t first, struct pna_gpu *g, uint32_t pid,
                     uint64_t bytes)
{
    uint32_t index = g->index;
    for (size_t i = first; i < list->nprocs; i++) {
        struct pna_gpu_proc *p = &list->procs[i];
        if (p->gpu_index == index && p->pid == pid) {
            p->mem_bytes = bytes > UINT64_MAX - p->mem_bytes ? UINT64_MAX : p->mem_bytes + bytes;
            return 0;
        }
    }
    struct pna_gpu_proc *p = pna_gpu_list_add_proc(list);
    if (!p)
        return -1;
    p->gpu_index = index;
    p->pid = pid;
    p->type = PNA_GPU_PROC_COMPUTE;
    p->has_mem = true;
    p->mem_bytes = bytes;
    g->process_count++;
    return 0;
}

/* "vram_<gpu_id>" files of one process directory. */
static int read_process(const char *dir, uint32_t pid, const struct kfd_map *map,
                        struct pna_gpu_list *list, size_t first, size_t first_part)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0; /* exited meanwhile */
    int rc = 0;
    struct dirent *de;
    while (rc == 0 && (de = readdir(d)) != NULL) {
        uint64_t gpu_id, bytes;
        if (strncmp(de->d_name, "vram_", 5) != 0 || pna_parse_u64(de->d_name + 5, &gpu_id) != 0)
            continue;
        struct pna_gpu *g = gpu_of(map, list, gpu_id);
        char path[4096 + 300 + 260];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        if (!g || pna_read_u64(path, &bytes) != 0)
            continue;
        struct pna_gpu_partition *p = partition_of(list, first_part, gpu_id);
        if (p) {
            p->has_mem = true;
            p->mem_used_bytes = bytes > UINT64_MAX - p->mem_used_bytes ? UINT64_MAX
                                                                       : p->mem_used_bytes + bytes;
        }
        rc = add_usage(list, first, g, pid, bytes);
    }
    closedir(d);
    return rc;
}

static bool pid_name(const char *name, uint32_t *pid)
{
    uint64_t v;
    if (name[0] < '1' || name[0] > '9' || pna_parse_u64(name, &v) != 0 || v > UINT32_MAX)
        return false;
    *pid = (uint32_t)v;
    return true;
}

/* The processes of KFD's proc directory DIR. */
static int read_processes(const char *dir, const struct kfd_map *map, struct pna_gpu_list *list,
                          size_t first_part)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0; /* no KFD, or a kernel without its proc directory */
    for (size_t i = 0; i < list->count; i++)
        if (list->gpus[i].vendor == PNA_GPU_VND_AMD) {
            list->gpus[i].has_processes = true;
            list->gpus[i].process_count = 0;
        }
    for (size_t i = first_part; i < list->part_count; i++)
        list->parts[i].has_mem = true; /* KFD lists processes: none is 0 bytes */
    size_t first = list->nprocs;
    int rc = 0;
    struct dirent *de;
    while (rc == 0 && (de = readdir(d)) != NULL) {
        uint32_t pid;
        char sub[4096 + 300];
        if (!pid_name(de->d_name, &pid))
            continue;
        snprintf(sub, sizeof sub, "%s/%s", dir, de->d_name);
        rc = read_process(sub, pid, map, list, first, first_part);
    }
    closedir(d);
    return rc;
}

int pna_amd_kfd_read(const struct pna_roots *roots, struct pna_gpu_list *list)
{
    struct kfd_map *map = malloc(sizeof *map);
    if (!map)
        return -1;
    load_topology(roots, map);
    size_t first_part = list->part_count;
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < list->count; i++)
        if (list->gpus[i].vendor == PNA_GPU_VND_AMD && list->gpus[i].compute_partition[0])
            rc = add_partitions(map, list, i);
    char dir[4096];
    if (rc == 0 && pna_path(dir, sizeof dir, roots->sysfs, "/class/kfd/kfd/proc") == 0)
        rc = read_processes(dir, map, list, first_part);
    free(map);
    return rc;
}
