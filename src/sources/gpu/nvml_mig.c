/* sources/gpu/nvml_mig.c -- the MIG devices of an NVIDIA GPU in MIG mode
 * (see nvml_priv.h): one row per compute instance of each GPU instance.
 *
 * Each MIG device is read through its own handle
 * (nvmlDeviceGetMigDeviceHandleByIndex): its GPU and compute instance ids,
 * UUID, memory, and attributes (multiprocessors, slices, memory size).
 *
 * The profile name is the driver's own, the name of the GPU instance profile
 * (nvmlDeviceGetGpuInstanceProfileInfoV: "MIG 3g.40gb"), because the
 * attributes cannot rebuild it: the memory in a name is the driver's rounding
 * per product (H100 "1g.10gb" is 9984 MiB, H200 "1g.18gb" is less than 18
 * GB), and profiles with and without media engines ("1g.10gb+me") have the
 * same slices and memory.  The instance's profile is found by its id
 * (nvmlGpuInstanceGetInfo) where the driver allows it (it needs privileges),
 * else as the first profile with the device's slice count and memory size.  A
 * compute instance smaller than its GPU instance is named as nvidia-smi -L
 * names it: "1c.3g.40gb".
 *
 * Activity is GPU performance monitoring per GPU instance
 * (nvmlGpmMigSampleGet), two samples a poll apart as for the whole GPU
 * (nvml_activity.c); the compute instances of one GPU instance share it. */
#include "pna_autoconf.h"
#include "sources/gpu/nvml_priv.h"
#include "util/fileio.h"

#include <stdio.h>
#include <string.h>

static void read_profiles(struct dev_read *r, struct nvml_profiles *pr)
{
    pr->read = true;
    for (unsigned i = 0; !r->lost && r->nv->DeviceGetGpuInstanceProfileInfoV &&
                         i < NVML_GPU_INSTANCE_PROFILE_COUNT; i++) {
        nvmlGpuInstanceProfileInfo_v2_t *p = &pr->p[pr->n];
        memset(p, 0, sizeof *p);
        p->version = nvmlGpuInstanceProfileInfo_v2;
        /* a profile the GPU does not have answers NOT_SUPPORTED */
        if (pna_nvml_ok(r, r->nv->DeviceGetGpuInstanceProfileInfoV(r->dev, i, p)))
            pr->n++;
    }
}

/* The profile id of GPU instance GI, when the driver lets us ask. */
static bool instance_profile_id(struct dev_read *r, unsigned gi, unsigned *id)
{
    struct pna_nvml *nv = r->nv;
    nvmlGpuInstance_t inst;
    nvmlGpuInstanceInfo_t info;
    memset(&info, 0, sizeof info);
    if (r->lost || !nv->DeviceGetGpuInstanceById || !nv->GpuInstanceGetInfo ||
        !pna_nvml_ok(r, nv->DeviceGetGpuInstanceById(r->dev, gi, &inst)) ||
        !pna_nvml_ok(r, nv->GpuInstanceGetInfo(inst, &info)))
        return false;
    *id = info.profileId;
    return true;
}

static const nvmlGpuInstanceProfileInfo_v2_t *profile_of(struct dev_read *r,
                                                         struct nvml_profiles *pr, unsigned gi,
                                                         const nvmlDeviceAttributes_t *a)
{
    if (!pr->read)
        read_profiles(r, pr);
    unsigned id;
    if (instance_profile_id(r, gi, &id)) {
        for (unsigned i = 0; i < pr->n; i++)
            if (pr->p[i].id == id)
                return &pr->p[i];
        return NULL;
    }
    for (unsigned i = 0; a && i < pr->n; i++)
        if (pr->p[i].sliceCount == a->gpuInstanceSliceCount && pr->p[i].memorySizeMB == a->memorySizeMB)
            return &pr->p[i];
    return NULL;
}

/* "MIG 3g.40gb" -> "3g.40gb", "1c.3g.40gb" for a smaller compute instance. */
static void set_profile(struct pna_gpu_mig *m, const nvmlGpuInstanceProfileInfo_v2_t *p,
                        const nvmlDeviceAttributes_t *a)
{
    char name[sizeof p->name];
    memcpy(name, p->name, sizeof name);
    name[sizeof name - 1] = '\0';
    const char *n = strncmp(name, "MIG ", 4) == 0 ? name + 4 : name;
    if (!*n)
        return;
    if (a && a->computeInstanceSliceCount && a->computeInstanceSliceCount < a->gpuInstanceSliceCount)
        snprintf(m->profile, sizeof m->profile, "%uc.%.32s", a->computeInstanceSliceCount, n);
    else
        pna_strlcpy(m->profile, n, sizeof m->profile);
}

static void read_memory(struct dev_read *r, struct pna_gpu_mig *m)
{
    struct pna_nvml *nv = r->nv;
    nvmlMemory_v2_t m2 = { .version = nvmlMemory_v2 };
    nvmlMemory_t m1;
    if (!r->lost && nv->DeviceGetMemoryInfo_v2 &&
        pna_nvml_ok(r, nv->DeviceGetMemoryInfo_v2(r->dev, &m2))) {
        m->has_mem = true;
        m->mem_total_bytes = m2.total;
        m->mem_used_bytes = m2.used;
    } else if (!r->lost && nv->DeviceGetMemoryInfo &&
               pna_nvml_ok(r, nv->DeviceGetMemoryInfo(r->dev, &m1))) {
        m->has_mem = true;
        m->mem_total_bytes = m1.total;
        m->mem_used_bytes = m1.used;
    }
}

/* One MIG device, read through its own handle R (errors on it do not mark
 * the GPU lost: PARENT's reader does that).  False when it has no ids. */
static bool read_device(struct dev_read *parent, struct dev_read *r, struct nvml_profiles *pr,
                        struct pna_gpu_mig *m)
{
    struct pna_nvml *nv = r->nv;
    unsigned gi, ci;
    if (!nv->DeviceGetGpuInstanceId || !nv->DeviceGetComputeInstanceId ||
        !pna_nvml_ok(r, nv->DeviceGetGpuInstanceId(r->dev, &gi)) ||
        !pna_nvml_ok(r, nv->DeviceGetComputeInstanceId(r->dev, &ci)))
        return false;
    m->gpu_instance = gi;
    m->compute_instance = ci;
    pna_nvml_get_str(r, nv->DeviceGetUUID, m->uuid, sizeof m->uuid);
    read_memory(r, m);
    nvmlDeviceAttributes_t a;
    memset(&a, 0, sizeof a);
    bool have_attr = !r->lost && nv->DeviceGetAttributes &&
                     pna_nvml_ok(r, nv->DeviceGetAttributes(r->dev, &a));
    if (have_attr) {
        m->has_sm_count = true;
        m->sm_count = a.multiprocessorCount;
    }
    const nvmlGpuInstanceProfileInfo_v2_t *p = profile_of(parent, pr, gi, have_attr ? &a : NULL);
    if (p)
        set_profile(m, p, have_attr ? &a : NULL);
    return true;
}

/* ---- activity per GPU instance ------------------------------------------------------ */

static struct nvml_mig_gpm *gpm_slot(struct nvml_ident *id, unsigned gi)
{
    struct nvml_mig_gpm *free_slot = NULL;
    for (size_t i = 0; i < NVML_MAX_GPU_INSTANCES; i++) {
        if (id->mig_gpm[i].used && id->mig_gpm[i].gpu_instance == gi)
            return &id->mig_gpm[i];
        if (!id->mig_gpm[i].used && !free_slot)
            free_slot = &id->mig_gpm[i];
    }
    if (free_slot) {
        free_slot->used = true;
        free_slot->gpu_instance = gi;
        free_slot->last = NULL;
    }
    return free_slot;
}

static void gpm_drop(struct pna_nvml *nv, struct nvml_mig_gpm *s)
{
    if (s->last && nv->GpmSampleFree)
        nv->GpmSampleFree(s->last);
    memset(s, 0, sizeof *s);
}

/* This poll's sample of GPU instance GI, compared with the last poll's:
 * fills every row of MIGS[0..N) in that instance. */
static void gi_activity(struct dev_read *r, struct nvml_ident *id, unsigned gi,
                        struct pna_gpu_mig *migs, size_t n)
{
    struct pna_nvml *nv = r->nv;
    struct nvml_mig_gpm *s = gpm_slot(id, gi);
    nvmlGpmSample_t now = NULL;
    if (!s || !pna_nvml_ok(r, nv->GpmSampleAlloc(&now)))
        return;
    if (!pna_nvml_ok(r, nv->GpmMigSampleGet(r->dev, gi, now))) {
        nv->GpmSampleFree(now);
        gpm_drop(nv, s);
        return;
    }
    struct pna_gpu_mig one = { 0 };
    if (s->last && pna_nvml_gpm_mig_metrics(r, s->last, now, &one)) {
        for (size_t i = 0; i < n; i++)
            if (migs[i].gpu_instance == gi) {
                migs[i].has_sm_active = one.has_sm_active;
                migs[i].sm_active_bp = one.sm_active_bp;
                migs[i].has_tensor_active = one.has_tensor_active;
                migs[i].tensor_active_bp = one.tensor_active_bp;
            }
    }
    if (s->last)
        nv->GpmSampleFree(s->last);
    s->last = now;
}

static void read_activity(struct dev_read *r, struct nvml_ident *id, struct pna_gpu_mig *migs,
                          size_t n)
{
    if (!id || !r->nv->GpmMigSampleGet || !pna_nvml_gpm_ready(r, id))
        return;
    bool seen[NVML_MAX_GPU_INSTANCES] = { false };
    for (size_t i = 0; i < n && !r->lost; i++) {
        bool done = false;
        for (size_t k = 0; k < i; k++)
            done |= migs[k].gpu_instance == migs[i].gpu_instance;
        if (done)
            continue;
        gi_activity(r, id, migs[i].gpu_instance, migs, n);
        struct nvml_mig_gpm *s = gpm_slot(id, migs[i].gpu_instance);
        if (s)
            seen[s - id->mig_gpm] = true;
    }
    /* GPU instances destroyed since the last poll */
    for (size_t k = 0; k < NVML_MAX_GPU_INSTANCES; k++)
        if (id->mig_gpm[k].used && !seen[k])
            gpm_drop(r->nv, &id->mig_gpm[k]);
}

/* ---- the GPU's MIG devices ----------------------------------------------------------- */

void pna_nvml_read_migs(struct dev_read *r, struct nvml_ident *id, struct pna_gpu *g,
                        struct pna_gpu_list *list)
{
    struct pna_nvml *nv = r->nv;
    unsigned max = 0;
    /* MIG mode off (or unknown and no MIG calls): no rows */
    if (r->lost || (g->has_mig && !g->mig_enabled) || !nv->DeviceGetMaxMigDeviceCount ||
        !nv->DeviceGetMigDeviceHandleByIndex ||
        !pna_nvml_ok(r, nv->DeviceGetMaxMigDeviceCount(r->dev, &max)))
        return;
    struct nvml_profiles *pr = &nv->scratch.profiles;
    memset(pr, 0, sizeof *pr);
    size_t first = list->mig_count;
    for (unsigned i = 0; i < max && !r->lost; i++) {
        struct dev_read mr = { .nv = nv };
        /* NOT_FOUND: no MIG device at this index */
        if (!pna_nvml_ok(r, nv->DeviceGetMigDeviceHandleByIndex(r->dev, i, &mr.dev)))
            continue;
        struct pna_gpu_mig *m = pna_gpu_list_add_mig(list);
        if (!m)
            return;
        m->gpu_index = g->index;
        if (!read_device(r, &mr, pr, m))
            list->mig_count--;
    }
    if (!r->lost && list->mig_count > first)
        read_activity(r, id, list->migs + first, list->mig_count - first);
}

void pna_nvml_mig_forget(struct pna_nvml *nv, struct nvml_ident *id)
{
    for (size_t k = 0; k < NVML_MAX_GPU_INSTANCES; k++)
        if (id->mig_gpm[k].used)
            gpm_drop(nv, &id->mig_gpm[k]);
}
