/* sources/gpu/nvml_procs.c -- the processes on an NVIDIA GPU (see nvml_priv.h).
 *
 * Compute and graphics contexts are merged by pid (a process with both is
 * one row of both types).  The SM and memory utilisation of each process
 * come from nvmlDeviceGetProcessUtilization: the samples taken since the last
 * poll, the newest per process.  Names and cgroups are not NVML's: the
 * poller reads them from /proc (sources/gpu/gpu_procs.c). */
#include "pna_autoconf.h"
#include "sources/gpu/nvml_priv.h"

#include <stdlib.h>
#include <string.h>

#define NVML_VALUE_NOT_AVAILABLE_ULL 0xffffffffffffffffULL
#define NVML_NO_INSTANCE 0xffffffffu

/* The process list FN answers, or NULL (*COUNT 0 when there is none). */
static nvmlProcessInfo_t *running(struct dev_read *r, nvmlDeviceGetRunningProcesses_fn fn,
                                  unsigned *count, bool *answered)
{
    *count = 0;
    if (r->lost || !fn)
        return NULL;
    unsigned int n = 0;
    nvmlReturn_t rc = fn(r->dev, &n, NULL);
    if (rc == NVML_SUCCESS) {
        *answered = true;
        return NULL;
    }
    if (rc != NVML_ERROR_INSUFFICIENT_SIZE) {
        pna_nvml_ok(r, rc);
        return NULL;
    }
    unsigned int room = n + 16; /* processes may start between the two calls */
    nvmlProcessInfo_t *info = calloc(room, sizeof *info);
    if (!info)
        return NULL;
    n = room;
    if (!pna_nvml_ok(r, fn(r->dev, &n, info))) {
        free(info);
        return NULL;
    }
    *answered = true;
    *count = n < room ? n : room;
    return info;
}

static struct pna_gpu_proc *proc_of(struct pna_gpu_list *list, size_t first, uint32_t pid)
{
    for (size_t i = first; i < list->nprocs; i++)
        if (list->procs[i].pid == pid)
            return &list->procs[i];
    return NULL;
}

static void add_contexts(struct pna_gpu_list *list, size_t first, const struct pna_gpu *g,
                         const nvmlProcessInfo_t *info, unsigned count, uint32_t type)
{
    for (unsigned i = 0; i < count; i++) {
        struct pna_gpu_proc *p = proc_of(list, first, info[i].pid);
        if (!p && !(p = pna_gpu_list_add_proc(list)))
            return;
        p->gpu_index = g->index;
        p->pid = info[i].pid;
        p->type |= type;
        if (info[i].usedGpuMemory != NVML_VALUE_NOT_AVAILABLE_ULL &&
            (!p->has_mem || info[i].usedGpuMemory > p->mem_bytes)) {
            p->has_mem = true;
            p->mem_bytes = info[i].usedGpuMemory;
        }
        if (info[i].gpuInstanceId != NVML_NO_INSTANCE && info[i].computeInstanceId != NVML_NO_INSTANCE) {
            p->has_instance = true;
            p->gpu_instance = info[i].gpuInstanceId;
            p->compute_instance = info[i].computeInstanceId;
        }
    }
}

/* The newest sample of each process since the last poll. */
static void add_utilisation(struct dev_read *r, struct nvml_ident *id, struct pna_gpu_list *list,
                            size_t first)
{
    struct pna_nvml *nv = r->nv;
    unsigned int n = 0;
    unsigned long long since = id ? id->proc_util_seen : 0;
    if (r->lost || !nv->DeviceGetProcessUtilization ||
        nv->DeviceGetProcessUtilization(r->dev, NULL, &n, since) != NVML_ERROR_INSUFFICIENT_SIZE || !n)
        return;
    nvmlProcessUtilizationSample_t *s = calloc(n, sizeof *s);
    if (!s)
        return;
    if (pna_nvml_ok(r, nv->DeviceGetProcessUtilization(r->dev, s, &n, since))) {
        unsigned long long newest[list->nprocs - first + 1];
        memset(newest, 0, sizeof newest);
        for (unsigned i = 0; i < n; i++) {
            struct pna_gpu_proc *p = proc_of(list, first, s[i].pid);
            if (id && s[i].timeStamp > id->proc_util_seen)
                id->proc_util_seen = s[i].timeStamp;
            if (!p || s[i].timeStamp < newest[p - &list->procs[first]])
                continue;
            newest[p - &list->procs[first]] = s[i].timeStamp;
            p->has_util = true;
            p->sm_pct = s[i].smUtil > 100 ? 100 : s[i].smUtil;
            p->mem_pct = s[i].memUtil > 100 ? 100 : s[i].memUtil;
        }
    }
    free(s);
}

void pna_nvml_read_procs(struct dev_read *r, struct nvml_ident *id, struct pna_gpu *g,
                         struct pna_gpu_list *list)
{
    struct pna_nvml *nv = r->nv;
    size_t first = list->nprocs;
    bool answered = false;
    unsigned nc, ng;
    nvmlProcessInfo_t *compute = running(r, nv->DeviceGetComputeProcs, &nc, &answered);
    nvmlProcessInfo_t *graphics = running(r, nv->DeviceGetGraphicsProcs, &ng, &answered);
    add_contexts(list, first, g, compute, nc, PNA_GPU_PROC_COMPUTE);
    add_contexts(list, first, g, graphics, ng, PNA_GPU_PROC_GRAPHICS);
    free(compute);
    free(graphics);
    if (answered) {
        g->has_processes = true;
        g->process_count = (uint32_t)(list->nprocs - first);
    }
    add_utilisation(r, id, list, first);
}
