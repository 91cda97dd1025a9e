/* model/gpu/gpu_idle.c -- see gpu_idle.h: the holders and the orphans, the joins
 * the verdicts read (the rule itself, pure, is gpu_idle_rule.c). */
#include "pna_autoconf.h"
#include "model/gpu/gpu_idle.h"

#include <string.h>

#include "model/kubernetes/holders.h"
#include "model/slurm/slurm.h"
#include "model/slurm/slurm_holders.h"

/* FNV-1a, 64 bits. */
static uint64_t fnv(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 1099511628211ull;
    }
    return h;
}

static uint64_t fnv_str(uint64_t h, const char *s)
{
    return fnv(h, s ? s : "", (s ? strlen(s) : 0) + 1);   /* the NUL parts the fields */
}

struct holders_hash {
    uint64_t h;
    size_t n;
};

static void hash_holder(const struct pna_holder *holder, void *arg)
{
    struct holders_hash *hh = arg;
    hh->h = fnv_str(hh->h, holder->pod_namespace);
    hh->h = fnv_str(hh->h, holder->pod);
    hh->h = fnv_str(hh->h, holder->container_name);
    hh->h = fnv_str(hh->h, holder->container_id);
    hh->n++;
}

uint64_t pna_gpu_idle_holders(const struct pna_view *v, const struct pna_gpu *g)
{
    struct holders_hash hh = { 14695981039346656037ull, 0 };
    pna_gpu_holders_each(v, g, hash_holder, &hh);
    uint32_t jobs[PNA_SLURM_HOLDERS_MAX];
    size_t n = pna_slurm_gpu_jobs(v, g, jobs);
    hh.h = fnv(hh.h, jobs, n * sizeof jobs[0]);
    hh.n += n;
    if (!hh.n)
        return 0;
    return hh.h ? hh.h : 1;   /* 0 is "nobody" */
}

bool pna_gpu_proc_is_orphan(const struct pna_containers_snap *cs, const struct pna_gpu_proc *p)
{
    if (!p->cgroup[0])
        return false;   /* not known (another PID namespace, gone): not judged */
    if (pna_slurm_job_of_cgroup(p->cgroup))
        return false;
    return !cs || !pna_container_of_cgroup(&cs->set, p->cgroup);
}
