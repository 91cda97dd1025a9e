/* http/render/http_view.c -- the view a response is rendered from (see render.h):
 * taking and releasing it, the rules the JSON and metrics renderers share,
 * and the assembly of the /metrics body.
 *
 * Thread ownership: runs on HTTP threads.  It reads the cache (references),
 * the poller counters (copied under their lock) and the event counters through
 * core/view.c; it never touches net-snmp or a source. */
#include "pna_autoconf.h"
#include "http/render/render.h"

#include <stdio.h>
#include <string.h>

#include "model/containers.h"
#include "model/gpu/gpu.h"
#include "model/ib.h"
#include "model/node.h"
#include "model/pfc.h"
#include "model/phy/phy.h"
#include "model/storage.h"

const char *pna_http_node_name(const struct pna_http_view *v, const char *configured,
                               char *buf, size_t cap)
{
    const char *name = "";
    if (configured && configured[0])
        name = configured;
    else if (v->kubelet && v->kubelet->node_name[0])
        name = v->kubelet->node_name;
    else if (v->node)
        name = v->node->hostname;
    snprintf(buf, cap, "%s", name);
    return buf;
}

void pna_http_view_complete(struct pna_http_view *v, const char *configured_node_name)
{
    struct pna_view *b = &v->base;
    const struct pna_node_snap *node = (const struct pna_node_snap *)b->snap[PNA_DOM_NODE];
    const struct pna_ib_snap *ib = (const struct pna_ib_snap *)b->snap[PNA_DOM_IB];
    const struct pna_pfc_snap *pfc = (const struct pna_pfc_snap *)b->snap[PNA_DOM_PFC];
    const struct pna_phy_snap *phy = (const struct pna_phy_snap *)b->snap[PNA_DOM_PHY];
    v->node = node ? &node->node : NULL;
    v->node_taken_ms = node ? node->base.taken_ms : 0;
    v->gpu = (const struct pna_gpu_snap *)b->snap[PNA_DOM_GPU];
    v->ib = ib ? &ib->m : NULL;
    v->pfc = pfc ? &pfc->m : NULL;
    v->phy = phy ? &phy->m : NULL;
    v->containers = (const struct pna_containers_snap *)b->snap[PNA_DOM_CONTAINERS];
    v->kubelet = (const struct pna_kubelet_snap *)b->snap[PNA_DOM_KUBELET];
    v->storage = (const struct pna_storage_snap *)b->snap[PNA_DOM_STORAGE];
    v->node_name = pna_http_node_name(v, configured_node_name, v->node_name_buf,
                                      sizeof v->node_name_buf);
}

void pna_http_view_take(struct pna_http_view *v, const char *configured_node_name)
{
    memset(v, 0, sizeof *v);
    pna_view_take(&v->base, PNA_VIEW_ALL);
    pna_http_view_complete(v, configured_node_name);
}

void pna_http_view_release(struct pna_http_view *v)
{
    pna_view_release(&v->base);
    memset(v, 0, sizeof *v);
}

bool pna_http_row(const struct pna_metric_table *t, const struct pna_http_view *v, size_t i,
                  struct pna_row *row)
{
    return pna_metric_row(t, &v->base, i, row);
}

size_t pna_metrics_render_domains(struct pna_buf *out, const struct pna_http_view *v)
{
    struct pna_prom p;
    pna_prom_init(&p, out);
    pna_metrics_node(&p, v);
    pna_metrics_gpu(&p, v);
    pna_metrics_rdma(&p, v);
    pna_metrics_pfc(&p, v);
    pna_metrics_phy(&p, v);
    pna_metrics_containers(&p, v);
    pna_metrics_storage(&p, v);
    size_t errors = p.errors;
    pna_prom_free(&p);
    return errors;
}

size_t pna_metrics_render_agent(struct pna_buf *out, const struct pna_http_view *v)
{
    struct pna_prom p;
    pna_prom_init(&p, out);
    pna_metrics_agent(&p, v);
    size_t errors = p.errors;
    pna_prom_free(&p);
    return errors;
}

size_t pna_metrics_render(struct pna_buf *out, const struct pna_http_view *v)
{
    size_t errors = pna_metrics_render_domains(out, v);
    return errors + pna_metrics_render_agent(out, v);
}
