/* model/slurm/slurm_holders.c -- see slurm_holders.h. */
#include "pna_autoconf.h"
#include "model/slurm/slurm_holders.h"
#include "model/ib.h"

#include <stdlib.h>
#include <string.h>

static const struct pna_gpu_snap *gpu_snap(const struct pna_view *v)
{
    return pna_view_snap(v, PNA_DOM_GPU);
}

static const struct pna_slurm_snap *slurm_snap(const struct pna_view *v)
{
    return pna_view_snap(v, PNA_DOM_SLURM);
}

/* N of "renderDN"; false when NAME is not one. */
static bool render_minor(const char *name, uint32_t *minor)
{
    if (strncmp(name, "renderD", 7) != 0 || !name[7])
        return false;
    char *end;
    unsigned long n = strtoul(name + 7, &end, 10);
    if (*end || n > 0xfffff)
        return false;
    *minor = (uint32_t)n;
    return true;
}

/* Whether job J's devices.list lets it open GPU G's device node. */
static bool job_allows_gpu(const struct pna_slurm_job *j, const struct pna_gpu *g)
{
    uint32_t minor;
    if (g->has_minor && pna_slurm_job_allows(j, PNA_SLURM_NVIDIA_MAJOR, g->minor))
        return true;
    return render_minor(g->drm_render, &minor) && pna_slurm_job_allows(j, PNA_SLURM_DRM_MAJOR, minor);
}

/* Add JOB to the ascending set JOBS of *N (at most PNA_SLURM_HOLDERS_MAX). */
static void add_job(uint32_t *jobs, size_t *n, uint32_t job)
{
    size_t i = 0;
    while (i < *n && jobs[i] < job)
        i++;
    if ((i < *n && jobs[i] == job) || *n >= PNA_SLURM_HOLDERS_MAX)
        return;
    memmove(jobs + i + 1, jobs + i, (*n - i) * sizeof jobs[0]);
    jobs[i] = job;
    (*n)++;
}

size_t pna_slurm_gpu_jobs(const struct pna_view *v, const struct pna_gpu *g, uint32_t *jobs)
{
    const struct pna_gpu_snap *gs = gpu_snap(v);
    const struct pna_slurm_snap *ss = slurm_snap(v);
    size_t n = 0;
    for (size_t i = 0; gs && i < gs->proc_count; i++) {
        const struct pna_gpu_proc *p = &gs->procs[i];
        uint32_t job = p->gpu_index == g->index ? pna_slurm_job_of_cgroup(p->cgroup) : 0;
        if (job)
            add_job(jobs, &n, job);
    }
    for (size_t i = 0; ss && i < ss->count; i++)
        if (job_allows_gpu(&ss->jobs[i], g))
            add_job(jobs, &n, ss->jobs[i].job_id);
    return n;
}

uint32_t pna_slurm_gpu_job(const struct pna_view *v, const struct pna_gpu *g)
{
    uint32_t jobs[PNA_SLURM_HOLDERS_MAX];
    return pna_slurm_gpu_jobs(v, g, jobs) ? jobs[0] : 0;
}

static bool proc_on_mig(const struct pna_gpu_proc *p, const struct pna_gpu_mig *m)
{
    return p->has_instance && p->gpu_index == m->gpu_index && p->gpu_instance == m->gpu_instance &&
           p->compute_instance == m->compute_instance;
}

uint32_t pna_slurm_mig_job(const struct pna_view *v, const struct pna_gpu_mig *m)
{
    const struct pna_gpu_snap *gs = gpu_snap(v);
    uint32_t lowest = 0;
    for (size_t i = 0; gs && i < gs->proc_count; i++) {
        const struct pna_gpu_proc *p = &gs->procs[i];
        uint32_t job = proc_on_mig(p, m) ? pna_slurm_job_of_cgroup(p->cgroup) : 0;
        if (job && (!lowest || job < lowest))
            lowest = job;
    }
    return lowest;
}

uint32_t pna_slurm_partition_job(const struct pna_view *v, const struct pna_gpu_partition *p)
{
    const struct pna_slurm_snap *ss = slurm_snap(v);
    for (size_t i = 0; p->has_render && ss && i < ss->count; i++)   /* ascending job ids */
        if (pna_slurm_job_allows(&ss->jobs[i], PNA_SLURM_DRM_MAJOR, p->render_minor))
            return ss->jobs[i].job_id;
    return 0;
}

size_t pna_slurm_rdma_jobs(const struct pna_view *v, const struct pna_ib_device *d,
                           uint32_t *jobs)
{
    const struct pna_slurm_snap *ss = slurm_snap(v);
    uint32_t minor = PNA_SLURM_UVERBS_FIRST_MINOR + d->uverbs;
    size_t n = 0;
    for (size_t i = 0; d->has_uverbs && ss && i < ss->count; i++)   /* ascending job ids */
        if (pna_slurm_job_allows(&ss->jobs[i], PNA_SLURM_INFINIBAND_MAJOR, minor))
            add_job(jobs, &n, ss->jobs[i].job_id);
    return n;
}

uint32_t pna_slurm_rdma_job(const struct pna_view *v, const struct pna_ib_device *d)
{
    uint32_t jobs[PNA_SLURM_HOLDERS_MAX];
    return pna_slurm_rdma_jobs(v, d, jobs) ? jobs[0] : 0;
}

/* Whether one of GPU G's processes runs in job J. */
static bool job_runs_on(const struct pna_gpu_snap *gs, const struct pna_gpu *g, uint32_t job)
{
    for (size_t i = 0; i < gs->proc_count; i++)
        if (gs->procs[i].gpu_index == g->index &&
            pna_slurm_job_of_cgroup(gs->procs[i].cgroup) == job)
            return true;
    return false;
}

uint32_t pna_slurm_job_gpus(const struct pna_view *v, const struct pna_slurm_job *j)
{
    const struct pna_gpu_snap *gs = gpu_snap(v);
    uint32_t n = 0;
    for (size_t i = 0; gs && i < gs->count; i++)
        n += job_allows_gpu(j, &gs->gpus[i]) || job_runs_on(gs, &gs->gpus[i], j->job_id);
    return n;
}

uint32_t pna_slurm_job_migs(const struct pna_view *v, const struct pna_slurm_job *j)
{
    const struct pna_gpu_snap *gs = gpu_snap(v);
    uint32_t n = 0;
    for (size_t m = 0; gs && m < gs->mig_count; m++) {
        bool held = false;
        for (size_t i = 0; !held && i < gs->proc_count; i++)
            held = proc_on_mig(&gs->procs[i], &gs->migs[m]) &&
                   pna_slurm_job_of_cgroup(gs->procs[i].cgroup) == j->job_id;
        n += held;
    }
    return n;
}

bool pna_slurm_job_rdma(const struct pna_slurm_job *j, uint32_t *count)
{
    uint32_t u[PNA_SLURM_MAX_DEVICES];
    int n = pna_slurm_job_uverbs(j, u, PNA_SLURM_MAX_DEVICES);
    if (n < 0)
        return false;
    *count = (uint32_t)n;
    return true;
}
