/* model/kubernetes/holders.c -- see holders.h. */
#include "pna_autoconf.h"
#include "model/kubernetes/holders.h"
#include "model/kubernetes/podres.h"

#include <stdbool.h>
#include <string.h>

/* Does pod-resources row R name GPU G, whole or shared, or a MIG device of
 * it (found in the GPU snapshot GS by its UUID)? */
static bool row_on_gpu(const struct pna_podres_row *r, const struct pna_gpu *g,
                       const struct pna_gpu_snap *gs)
{
    if (r->kind == PNA_POD_RESOURCE_KIND_GPU)
        return pna_podres_row_on_gpu(r, g);
    if (r->kind != PNA_POD_RESOURCE_KIND_MIG)
        return false;
    const struct pna_gpu_mig *m = pna_podres_row_mig(r, gs);
    return m && m->gpu_index == g->index;
}

/* By its MIG UUID, or (a DRA device) by its access capability node. */
static bool row_on_mig(const struct pna_podres_row *r, const struct pna_gpu_mig *m,
                       const struct pna_gpu_snap *gs)
{
    return r->kind == PNA_POD_RESOURCE_KIND_MIG && pna_podres_row_mig(r, gs) == m;
}

/* The runtime record of the container pod-resources row R names, or NULL. */
static const struct pna_container *record_of(const struct pna_podres_row *r,
                                             const struct pna_containers_snap *cs)
{
    for (size_t i = 0; cs && i < cs->set.count; i++)
        if (pna_podres_names_container(r, &cs->set.rows[i]))
            return &cs->set.rows[i];
    return NULL;
}

struct matcher {
    bool (*podres)(const struct pna_podres_row *r, const void *what, const void *ctx);
    bool (*container)(const struct pna_container_set *set, const struct pna_container *c,
                      const void *what);
    const void *what, *ctx;
};

/* Is container C among the pod-resources holders M finds? */
static bool held_by_podres(const struct pna_podres_snap *ps, const struct pna_container *c,
                           const struct matcher *m)
{
    for (size_t i = 0; ps && i < ps->count; i++)
        if (ps->rows[i].assigned && pna_podres_names_container(&ps->rows[i], c) &&
            m->podres(&ps->rows[i], m->what, m->ctx))
            return true;
    return false;
}

/* Call FN once per distinct holder M finds: the kubelet's first, in
 * (namespace, pod, container) order, then the other containers in id order. */
static void each_holder(const struct pna_view *v, const struct matcher *m, pna_holder_fn fn,
                        void *arg)
{
    const struct pna_podres_snap *ps = pna_view_snap(v, PNA_DOM_PODRES);
    const struct pna_containers_snap *cs = pna_view_snap(v, PNA_DOM_CONTAINERS);
    /* Rows are sorted by namespace, pod and container: a new holder starts
     * where those change. */
    const struct pna_podres_row *last = NULL;
    for (size_t i = 0; ps && i < ps->count; i++) {
        const struct pna_podres_row *r = &ps->rows[i];
        if (!r->assigned || !m->podres(r, m->what, m->ctx))
            continue;
        if (last && strcmp(last->pod_namespace, r->pod_namespace) == 0 &&
            strcmp(last->pod_name, r->pod_name) == 0 && strcmp(last->container, r->container) == 0)
            continue;
        last = r;
        const struct pna_container *c = record_of(r, cs);
        struct pna_holder h = { c ? c->id : "", r->container, r->pod_name, r->pod_namespace, c, 0 };
        fn(&h, arg);
    }
    for (size_t i = 0; cs && i < cs->set.count; i++) {
        const struct pna_container *c = &cs->set.rows[i];
        if (!m->container(&cs->set, c, m->what) || held_by_podres(ps, c, m))
            continue;
        struct pna_holder h = { c->id, c->name, c->pod_name, c->pod_namespace, c, 0 };
        fn(&h, arg);
    }
}

/* Keeps the first holder, counts them all. */
static void first_and_count(const struct pna_holder *h, void *arg)
{
    struct pna_holder *out = arg;
    if (!out->count++) {
        uint32_t n = out->count;
        *out = *h;
        out->count = n;
    }
}

static void find_holders(const struct pna_view *v, const struct matcher *m, struct pna_holder *h)
{
    *h = (struct pna_holder){ "", "", "", "", NULL, 0 };
    each_holder(v, m, first_and_count, h);
}

static bool podres_gpu(const struct pna_podres_row *r, const void *what, const void *ctx)
{
    return row_on_gpu(r, what, ctx);
}

static bool container_gpu(const struct pna_container_set *set, const struct pna_container *c,
                          const void *what)
{
    return pna_container_holds_gpu(set, c, ((const struct pna_gpu *)what)->index);
}

void pna_gpu_holder(const struct pna_view *v, const struct pna_gpu *g, struct pna_holder *h)
{
    const struct matcher m = { podres_gpu, container_gpu, g, pna_view_snap(v, PNA_DOM_GPU) };
    find_holders(v, &m, h);
}

void pna_gpu_holders_each(const struct pna_view *v, const struct pna_gpu *g, pna_holder_fn fn,
                          void *arg)
{
    const struct matcher m = { podres_gpu, container_gpu, g, pna_view_snap(v, PNA_DOM_GPU) };
    each_holder(v, &m, fn, arg);
}

static bool podres_mig(const struct pna_podres_row *r, const void *what, const void *ctx)
{
    return row_on_mig(r, what, ctx);
}

static bool container_mig(const struct pna_container_set *set, const struct pna_container *c,
                          const void *what)
{
    const struct pna_gpu_mig *mig = what;
    return mig->has_cap && pna_container_holds_cap(set, c, mig->cap_minor);
}

void pna_mig_holder(const struct pna_view *v, const struct pna_gpu_mig *m, struct pna_holder *h)
{
    const struct matcher mm = { podres_mig, container_mig, m, pna_view_snap(v, PNA_DOM_GPU) };
    find_holders(v, &mm, h);
}

/* A DRA device given the partition's render node (AMD's driver injects a
 * partition's /dev/dri/renderDN); device plugins' ids name whole GPUs. */
static bool podres_partition(const struct pna_podres_row *r, const void *what, const void *ctx)
{
    (void)ctx;
    return pna_podres_row_is_dra(r) && pna_podres_row_on_partition(r, what);
}

static bool container_partition(const struct pna_container_set *set, const struct pna_container *c,
                                const void *what)
{
    const struct pna_gpu_partition *p = what;
    return p->has_render && pna_container_holds_render(set, c, p->render_minor);
}

void pna_partition_holder(const struct pna_view *v, const struct pna_gpu_partition *p,
                          struct pna_holder *h)
{
    const struct matcher m = { podres_partition, container_partition, p, NULL };
    find_holders(v, &m, h);
}

void pna_mig_holders_each(const struct pna_view *v, const struct pna_gpu_mig *m, pna_holder_fn fn,
                          void *arg)
{
    const struct matcher mm = { podres_mig, container_mig, m, pna_view_snap(v, PNA_DOM_GPU) };
    each_holder(v, &mm, fn, arg);
}
