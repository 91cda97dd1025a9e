/* model/gpu/gpu.c -- helpers shared by every GPU collector and reader: PCI
 * address parsing into the row key, the sorted GPU list, and the thermal
 * threshold rule (with its hysteresis) the GPU notifications follow. */
#include "pna_autoconf.h"
#include "model/gpu/gpu.h"
#include "util/array.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Hex digits only, 1..MAXLEN of them, into *OUT; returns chars used or 0. */
static size_t parse_hex(const char *s, size_t maxlen, uint32_t *out)
{
    size_t n = 0;
    uint32_t v = 0;
    while (n < maxlen && isxdigit((unsigned char)s[n])) {
        int c = tolower((unsigned char)s[n]);
        v = (v << 4) | (uint32_t)(isdigit(c) ? c - '0' : c - 'a' + 10);
        n++;
    }
    if (isxdigit((unsigned char)s[n]))
        return 0; /* longer than allowed */
    *out = v;
    return n;
}

/* "[domain:]bus:dev.fn" with hex fields and optional surrounding blanks. */
static int parse_bdf(const char *text, uint32_t *domain, uint32_t *bus, uint32_t *dev,
                     uint32_t *fn)
{
    const char *s = text;
    while (isspace((unsigned char)*s))
        s++;
    uint32_t a, b;
    size_t n = parse_hex(s, 8, &a);
    if (!n || s[n] != ':')
        return -1;
    s += n + 1;
    n = parse_hex(s, 2, &b);
    if (!n)
        return -1;
    if (s[n] == ':') { /* a was the domain */
        *domain = a;
        *bus = b;
        s += n + 1;
        n = parse_hex(s, 2, dev);
        if (!n)
            return -1;
        s += n;
    } else if (s[n] == '.') { /* "bus:dev.fn": a is the bus */
        if (a > 0xff)
            return -1;
        *domain = 0;
        *bus = a;
        *dev = b;
        s += n;
    } else {
        return -1;
    }
    if (*s != '.' || !isdigit((unsigned char)s[1]))
        return -1;
    *fn = (uint32_t)(s[1] - '0');
    s += 2;
    while (isspace((unsigned char)*s))
        s++;
    if (*s || *bus > 0xff || *dev > 0x1f || *fn > 7)
        return -1;
    return 0;
}

int pna_gpu_canon_bus_id(const char *text, char *buf, size_t cap)
{
    uint32_t domain, bus, dev, fn;
    if (!text || parse_bdf(text, &domain, &bus, &dev, &fn) != 0)
        return -1;
    int n = snprintf(buf, cap, "%04x:%02x:%02x.%u", domain, bus, dev, fn);
    return n < 0 || (size_t)n >= cap ? -1 : 0;
}

int pna_gpu_set_pci(struct pna_gpu *g, const char *text)
{
    uint32_t domain, bus, dev, fn;
    if (!text || parse_bdf(text, &domain, &bus, &dev, &fn) != 0)
        return -1;
    g->pci_domain = domain;
    g->pci_bus = (uint8_t)bus;
    g->pci_dev = (uint8_t)dev;
    g->pci_fn = (uint8_t)fn;
    g->index = pna_gpu_pci_key(domain, bus, dev, fn);
    snprintf(g->pci_bus_id, sizeof g->pci_bus_id, "%04x:%02x:%02x.%u", domain, bus, dev, fn);
    return 0;
}

struct pna_gpu *pna_gpu_list_add(struct pna_gpu_list *list)
{
    if (PNA_ARRAY_RESERVE(list->gpus, list->cap, list->count + 1) != 0)
        return NULL;
    struct pna_gpu *g = &list->gpus[list->count++];
    memset(g, 0, sizeof *g);
    return g;
}

static int cmp_index(const void *a, const void *b)
{
    uint32_t x = ((const struct pna_gpu *)a)->index, y = ((const struct pna_gpu *)b)->index;
    return x < y ? -1 : x > y;
}

void pna_gpu_list_sort(struct pna_gpu_list *list)
{
    if (list->count > 1)
        qsort(list->gpus, list->count, sizeof list->gpus[0], cmp_index);
}

void pna_gpu_list_free(struct pna_gpu_list *list)
{
    free(list->gpus);
    free(list->procs);
    free(list->migs);
    free(list->parts);
    list->gpus = NULL;
    list->procs = NULL;
    list->migs = NULL;
    list->parts = NULL;
    list->count = list->cap = list->nprocs = list->proc_cap = 0;
    list->mig_count = list->mig_cap = 0;
    list->part_count = list->part_cap = 0;
}

struct pna_gpu_mig *pna_gpu_list_add_mig(struct pna_gpu_list *list)
{
    if (PNA_ARRAY_RESERVE(list->migs, list->mig_cap, list->mig_count + 1) != 0)
        return NULL;
    struct pna_gpu_mig *m = &list->migs[list->mig_count++];
    memset(m, 0, sizeof *m);
    return m;
}

/* The MIB's index order: GPU, GPU instance, compute instance. */
static int cmp_mig(const void *a, const void *b)
{
    const struct pna_gpu_mig *x = a, *y = b;
    if (x->gpu_index != y->gpu_index)
        return x->gpu_index < y->gpu_index ? -1 : 1;
    if (x->gpu_instance != y->gpu_instance)
        return x->gpu_instance < y->gpu_instance ? -1 : 1;
    return x->compute_instance < y->compute_instance ? -1 : x->compute_instance > y->compute_instance;
}

void pna_gpu_list_sort_migs(struct pna_gpu_list *list)
{
    size_t kept = 0;
    for (size_t i = 0; i < list->mig_count; i++)
        if (pna_gpu_find(list->gpus, list->count, list->migs[i].gpu_index))
            list->migs[kept++] = list->migs[i];
    list->mig_count = kept;
    if (kept > 1)
        qsort(list->migs, kept, sizeof list->migs[0], cmp_mig);
}

struct pna_gpu_partition *pna_gpu_list_add_partition(struct pna_gpu_list *list)
{
    if (PNA_ARRAY_RESERVE(list->parts, list->part_cap, list->part_count + 1) != 0)
        return NULL;
    struct pna_gpu_partition *p = &list->parts[list->part_count++];
    memset(p, 0, sizeof *p);
    return p;
}

static int cmp_partition(const void *a, const void *b)
{
    const struct pna_gpu_partition *x = a, *y = b;
    if (x->gpu_index != y->gpu_index)
        return x->gpu_index < y->gpu_index ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

void pna_gpu_list_sort_partitions(struct pna_gpu_list *list)
{
    size_t kept = 0;
    for (size_t i = 0; i < list->part_count; i++)
        if (pna_gpu_find(list->gpus, list->count, list->parts[i].gpu_index))
            list->parts[kept++] = list->parts[i];
    list->part_count = kept;
    if (kept > 1)
        qsort(list->parts, kept, sizeof list->parts[0], cmp_partition);
}

struct pna_gpu_proc *pna_gpu_list_add_proc(struct pna_gpu_list *list)
{
    if (PNA_ARRAY_RESERVE(list->procs, list->proc_cap, list->nprocs + 1) != 0)
        return NULL;
    struct pna_gpu_proc *p = &list->procs[list->nprocs++];
    memset(p, 0, sizeof *p);
    return p;
}

/* By GPU, then the most memory first (rows without a figure last), then pid. */
static int cmp_proc_weight(const void *a, const void *b)
{
    const struct pna_gpu_proc *x = a, *y = b;
    if (x->gpu_index != y->gpu_index)
        return x->gpu_index < y->gpu_index ? -1 : 1;
    uint64_t mx = x->has_mem ? x->mem_bytes + 1 : 0, my = y->has_mem ? y->mem_bytes + 1 : 0;
    if (mx != my)
        return mx > my ? -1 : 1;
    return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static int cmp_proc_index(const void *a, const void *b)
{
    const struct pna_gpu_proc *x = a, *y = b;
    if (x->gpu_index != y->gpu_index)
        return x->gpu_index < y->gpu_index ? -1 : 1;
    return x->pid < y->pid ? -1 : x->pid > y->pid;
}

void pna_gpu_list_trim_procs(struct pna_gpu_list *list, size_t max)
{
    if (list->nprocs > 1)
        qsort(list->procs, list->nprocs, sizeof list->procs[0], cmp_proc_weight);
    size_t kept = 0;
    for (size_t i = 0; i < list->nprocs;) {
        uint32_t gpu = list->procs[i].gpu_index;
        size_t j = i;
        while (j < list->nprocs && list->procs[j].gpu_index == gpu)
            j++;
        size_t keep = j - i < max ? j - i : max;
        memmove(&list->procs[kept], &list->procs[i], keep * sizeof list->procs[0]);
        /* the list's own GPUs: pna_gpu_find() hands them out const */
        struct pna_gpu *g = (struct pna_gpu *)pna_gpu_find(list->gpus, list->count, gpu);
        if (g)
            g->processes_omitted = (uint32_t)(j - i - keep);
        kept += keep;
        i = j;
    }
    list->nprocs = kept;
    if (kept > 1)
        qsort(list->procs, kept, sizeof list->procs[0], cmp_proc_index);
}

const struct pna_gpu_mig *pna_gpu_mig_by_uuid(const struct pna_gpu_snap *s, const char *uuid)
{
    for (size_t i = 0; s && uuid[0] && i < s->mig_count; i++)
        if (strcmp(s->migs[i].uuid, uuid) == 0)
            return &s->migs[i];
    return NULL;
}

const struct pna_gpu *pna_gpu_find(const struct pna_gpu *gpus, size_t count, uint32_t index)
{
    size_t lo = 0, hi = count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (gpus[mid].index == index)
            return &gpus[mid];
        if (gpus[mid].index < index)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

const char *pna_gpu_source_name(enum pna_gpu_source src)
{
    switch (src) {
    case PNA_GPU_SRC_NVML: return "nvml";
    case PNA_GPU_SRC_NVIDIA_SMI: return "nvidia-smi";
    case PNA_GPU_SRC_ROCM_SMI: return "rocm-smi";
    case PNA_GPU_SRC_AMDGPU_SYSFS: return "amdgpu-sysfs";
    }
    return "unknown";
}

const char *pna_gpu_vendor_name(enum pna_gpu_vendor vendor)
{
    switch (vendor) {
    case PNA_GPU_VND_NVIDIA: return "nvidia";
    case PNA_GPU_VND_AMD: return "amd";
    }
    return "unknown";
}

int pna_gpu_thermal_state(const struct pna_gpu *g, int32_t threshold_c, bool was_hot,
                          int32_t *limit_c)
{
    int32_t h = was_hot ? PNA_GPU_THERMAL_HYSTERESIS_C : 0;
    if (g->lost)
        return -1;
    if (threshold_c > 0 || g->has_temp_slowdown) {
        if (!g->has_temp)
            return -1;
        *limit_c = threshold_c > 0 ? threshold_c : g->temp_slowdown_c;
        return g->temp_c >= *limit_c - h;
    }
    if (g->has_tlimit) {
        /* the margin shrinks as the GPU heats */
        *limit_c = g->temp_slowdown_tlimit_c;
        return g->temp_tlimit_c <= *limit_c + h;
    }
    return -1;
}

size_t pna_gpu_count_in_use(const struct pna_gpu *gpus, size_t count)
{
    size_t used = 0;
    for (size_t i = 0; i < count; i++)
        used += (gpus[i].has_util_gpu && gpus[i].util_gpu_pct > 0) ||
                (gpus[i].has_mem_used && gpus[i].mem_used_bytes > 0);
    return used;
}

/* A node mixing vendors numbers each vendor from 0: then no number is usable. */
static bool vendor_numbers_usable(const struct pna_gpu_snap *s)
{
    for (size_t i = 0; i < s->count; i++) {
        if (!s->gpus[i].has_vendor_index)
            return false;
        for (size_t j = 0; j < i; j++)
            if (s->gpus[j].vendor_index == s->gpus[i].vendor_index)
                return false;
    }
    return true;
}

uint32_t pna_gpu_number(const struct pna_gpu_snap *s, size_t i)
{
    return vendor_numbers_usable(s) ? s->gpus[i].vendor_index : (uint32_t)i;
}
