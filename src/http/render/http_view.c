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

#include "model/node.h"
#include "model/storage.h"

const char *pna_http_node_name(const struct pna_http_view *v, const char *configured,
                               char *buf, size_t cap)
{
    const struct pna_kubelet_snap *kubelet = pna_view_snap(&v->base, PNA_DOM_KUBELET);
    const struct pna_node_snap *node = pna_view_snap(&v->base, PNA_DOM_NODE);
    const char *name = "";
    if (configured && configured[0])
        name = configured;
    else if (kubelet && kubelet->node_name[0])
        name = kubelet->node_name;
    else if (node)
        name = node->node.hostname;
    snprintf(buf, cap, "%s", name);
    return buf;
}

void pna_http_view_complete(struct pna_http_view *v, const char *configured_node_name)
{
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

/* What is not a descriptor table's family (render.h), in the domains' order. */
static void (*const domain_extras[])(struct pna_prom *p, const struct pna_http_view *v) = {
    pna_metrics_node_extras,
    pna_metrics_gpu_extras,
    pna_metrics_rdma_extras,
    pna_metrics_storage_extras,
    pna_metrics_pod_label_extras,
};

/* Every table of pna_metric_tables[] of the agent's own state (AGENT) or of
 * the cache's snapshots. */
static void render_tables(struct pna_prom *p, const struct pna_http_view *v, bool agent)
{
    for (size_t i = 0; pna_metric_tables[i]; i++)
        if ((pna_metric_tables[i]->domain == PNA_DOM_NONE) == agent)
            pna_prom_table(p, v, pna_metric_tables[i]);
}

size_t pna_metrics_render_domains_counted(struct pna_buf *out, const struct pna_http_view *v,
                                          struct pna_prom_stats *stats)
{
    struct pna_prom p;
    pna_prom_init(&p, out);
    pna_prom_set_limit(&p, pna_export_series_limit());
    render_tables(&p, v, false);
    for (size_t i = 0; i < sizeof domain_extras / sizeof domain_extras[0]; i++)
        domain_extras[i](&p, v);
    pna_prom_end(&p);
    size_t errors = p.errors;
    if (stats)
        pna_prom_take_stats(&p, stats);
    pna_prom_free(&p);
    return errors;
}

size_t pna_metrics_render_domains(struct pna_buf *out, const struct pna_http_view *v)
{
    return pna_metrics_render_domains_counted(out, v, NULL);
}

size_t pna_metrics_render_agent_after(struct pna_buf *out, const struct pna_http_view *v,
                                      const struct pna_prom_stats *body)
{
    struct pna_prom p;
    pna_prom_init(&p, out);
    render_tables(&p, v, true);
    pna_metrics_agent_extras(&p, v);
    struct pna_prom_stats own;
    pna_prom_take_stats(&p, &own);
    if (own.duplicates)
        pna_metrics_series_count_drops(&(struct pna_prom_stats){ .duplicates = own.duplicates });
    pna_metrics_series(&p, body, &own);
    pna_prom_stats_free(&own);
    size_t errors = p.errors;
    pna_prom_free(&p);
    return errors;
}

size_t pna_metrics_render_agent(struct pna_buf *out, const struct pna_http_view *v)
{
    return pna_metrics_render_agent_after(out, v, NULL);
}

size_t pna_metrics_render(struct pna_buf *out, const struct pna_http_view *v)
{
    struct pna_prom_stats body;
    size_t errors = pna_metrics_render_domains_counted(out, v, &body);
    pna_metrics_series_count_drops(&body);
    errors += pna_metrics_render_agent_after(out, v, &body);
    pna_prom_stats_free(&body);
    return errors;
}
