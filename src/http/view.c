/* http/view.c -- taking and releasing the view a response is rendered from
 * (see render.h), the rules the JSON and metrics renderers share, and the
 * assembly of the /metrics body.
 *
 * Thread ownership: runs on HTTP threads.  It reads the cache (references),
 * the poller counters (copied under their lock) and the event counters; it
 * never touches net-snmp or a source. */
#include "pna_autoconf.h"
#include "core/events.h"
#include "core/health.h"
#include "model/node.h"
#include "model/gpu.h"
#include "model/ib.h"
#include "model/pfc.h"
#include "model/containers.h"
#include "model/storage.h"
#include "model/node.h"
#include "http/render.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

void pna_http_view_take(struct pna_http_view *v, const struct pna_http_agent *agent,
                        const char *configured_node_name)
{
    memset(v, 0, sizeof *v);
    for (int d = 0; d < PNA_DOM_COUNT; d++)
        v->refs[d] = pna_cache_acquire((enum pna_domain)d);

    if (v->refs[PNA_DOM_NODE]) {
        v->node = &((const struct pna_node_snap *)v->refs[PNA_DOM_NODE])->node;
        v->node_taken_ms = v->refs[PNA_DOM_NODE]->taken_ms;
    }
    if (v->refs[PNA_DOM_GPU])
        v->gpu = (const struct pna_gpu_snap *)v->refs[PNA_DOM_GPU];
    if (v->refs[PNA_DOM_IB])
        v->ib = &((const struct pna_ib_snap *)v->refs[PNA_DOM_IB])->m;
    if (v->refs[PNA_DOM_PFC])
        v->pfc = &((const struct pna_pfc_snap *)v->refs[PNA_DOM_PFC])->m;
    if (v->refs[PNA_DOM_CONTAINERS])
        v->containers = (const struct pna_containers_snap *)v->refs[PNA_DOM_CONTAINERS];
    if (v->refs[PNA_DOM_KUBELET])
        v->kubelet = (const struct pna_kubelet_snap *)v->refs[PNA_DOM_KUBELET];
    if (v->refs[PNA_DOM_STORAGE])
        v->storage = (const struct pna_storage_snap *)v->refs[PNA_DOM_STORAGE];

    size_t n = pna_pollers_count();
    if (n) {
        v->poller_copy = calloc(n, sizeof *v->poller_copy);
        for (size_t i = 0; v->poller_copy && i < n; i++)
            if (pna_pollers_info(i, &v->poller_copy[v->n_pollers]))
                v->n_pollers++;
    }
    v->pollers = v->poller_copy;
    v->all_ran = pna_pollers_all_ran();

    v->agent = *agent;
    /* events_total is kept by the main thread; a 64-bit load that may be one
     * event behind is all a scrape needs. */
    v->agent.events_total = pna_events_total();
    v->agent.events_dropped = pna_events_dropped();
    v->agent.event_capacity = pna_events_capacity();
    for (int t = 1; t <= PNA_EV_TYPE_MAX; t++)
        v->agent.events_by_type[t] = pna_events_total_of((enum pna_event_type)t);
    v->now_ms = pna_now_ms();
    v->node_name = pna_http_node_name(v, configured_node_name, v->node_name_buf,
                                      sizeof v->node_name_buf);
}

void pna_http_view_release(struct pna_http_view *v)
{
    for (int d = 0; d < PNA_DOM_COUNT; d++)
        pna_snap_release(v->refs[d]);
    free(v->poller_copy);
    memset(v, 0, sizeof *v);
}

bool pna_http_view_all_ran(const struct pna_http_view *v)
{
    return v->all_ran;
}

bool pna_http_view_degraded(const struct pna_http_view *v)
{
    for (size_t i = 0; i < v->n_pollers; i++)
        if (pna_poller_degraded(&v->pollers[i], v->now_ms))
            return true;
    return false;
}

size_t pna_metrics_render(struct pna_buf *out, const struct pna_http_view *v)
{
    struct pna_prom p;
    pna_prom_init(&p, out);
    pna_metrics_node(&p, v);
    pna_metrics_gpu(&p, v);
    pna_metrics_rdma(&p, v);
    pna_metrics_pfc(&p, v);
    pna_metrics_containers(&p, v);
    pna_metrics_storage(&p, v);
    pna_metrics_agent(&p, v);
    size_t errors = p.errors;
    pna_prom_free(&p);
    return errors;
}
