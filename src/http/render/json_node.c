/* http/render/json_node.c -- the system-info exporter's JSON endpoints: /health,
 * /healthz, /ready, /metrics/json and /node, rendered from the node snapshot,
 * the GPU summary and the poller counters of the view.
 *
 * Shapes (docs/metrics.md has them with examples):
 *   /healthz        {"status":"ok"}: the process answers (liveness), always 200.
 *   /health         {"status":"ok"|"degraded", "ready", "version", "node",
 *                    "uptime_seconds", "pollers":[...]}: always 200; "degraded"
 *                   follows the same rule as primusAgentStatus.
 *   /ready          200 {"status":"ready"} once every enabled poller finished a
 *                   first run and none is failing, else 503 {"status":"not
 *                   ready","pending":[names],"failing":[{"poller","error"}]}.
 *   /metrics/json   {"node","timestamp","cpu":{...},"memory":{...},"gpu":{...}}:
 *                   the hw_* figures as JSON (the exporter's legacy format).
 *   /node           everything known about the node (identity, CPU, memory, GPUs).
 * /metrics/json and /node answer 503 until the node poller has run. */
#include "pna_autoconf.h"
#include "core/health.h"
#include "model/metric_tables.h"
#include "model/node.h"
#include "http/render/render.h"

#include <stdio.h>

struct pna_json_reply pna_json_envelope(json_t *data)
{
    struct pna_json_reply r = { 200, json_object() };
    json_object_set_new(r.body, "code", json_integer(0));
    json_object_set_new(r.body, "data", data ? data : json_null());
    json_object_set_new(r.body, "message", json_string("success"));
    return r;
}

static struct pna_json_reply error_reply(unsigned status, const char *text)
{
    struct pna_json_reply r = { status, json_pack("{s:s}", "error", text) };
    return r;
}

/* One poller of /health: the descriptors of primusPollerTable with a JSON
 * member, plus its index and the last success (null when none). */
static json_t *poller_json(const struct pna_http_view *v, size_t i)
{
    const struct pna_metric_table *t = &pna_poller_metrics;
    struct pna_row row;
    json_t *o = json_object();
    if (!pna_http_row(t, v, i, &row))
        return o;
    const struct pna_poller_info *p = row.rec;
    json_object_set_new(o, "index", json_integer(p->index));
    for (size_t k = 0; k < t->count; k++) {
        const struct pna_metric *m = &t->metrics[k];
        json_t *j = m->json ? pna_json_value(t, m, &row) : NULL;
        if (j)
            json_object_set_new(o, m->json, j);
    }
    struct pna_value last;
    pna_metric_value(t, pna_metric_by_object(t, "primusPollerLastSuccess"), &row, &last);
    json_object_set_new(o, "last_success", last.u ? pna_json_u64(last.u) : json_null());
    return o;
}

struct pna_json_reply pna_json_healthz(const struct pna_http_view *v)
{
    (void)v;
    struct pna_json_reply r = { 200, json_pack("{s:s}", "status", "ok") };
    return r;
}

struct pna_json_reply pna_json_health(const struct pna_http_view *v)
{
    json_t *pollers = json_array();
    for (size_t i = 0; i < v->base.n_pollers; i++)
        json_array_append_new(pollers, poller_json(v, i));
    const struct pna_metric_table *t = &pna_agent_metrics;
    struct pna_row row;
    pna_http_row(t, v, 0, &row);
    json_t *o = json_object();
    pna_json_put(o, t, "primusAgentStatus", &row);
    json_object_set_new(o, "ready", json_boolean(pna_view_ready(&v->base)));
    pna_json_put(o, t, "primusAgentVersion", &row);
    json_object_set_new(o, "node", pna_json_text(v->node_name));
    pna_json_put(o, t, "primusAgentUptime", &row);
    json_object_set_new(o, "pollers", pollers);
    struct pna_json_reply r = { 200, o };
    return r;
}

struct pna_json_reply pna_json_ready(const struct pna_http_view *v)
{
    if (pna_view_ready(&v->base)) {
        struct pna_json_reply r = { 200, json_pack("{s:s}", "status", "ready") };
        return r;
    }
    json_t *pending = json_array(), *failing = json_array();
    for (size_t i = 0; i < v->base.n_pollers; i++) {
        const struct pna_poller_info *p = &v->base.pollers[i];
        if (p->status == PNA_POLLER_PENDING)
            json_array_append_new(pending, pna_json_text(p->name));
        else if (pna_poller_failing(p))
            json_array_append_new(failing, json_pack("{s:o,s:o}", "poller", pna_json_text(p->name),
                                                     "error", pna_json_text(p->last_error)));
    }
    struct pna_json_reply r = { 503, json_pack("{s:s,s:o,s:o}", "status", "not ready",
                                               "pending", pending, "failing", failing) };
    return r;
}

/* The members of OBJECTS, from their descriptors in table T (one row: the node). */
static void put_all(json_t *o, const struct pna_http_view *v, const struct pna_metric_table *t,
                    const char *const *objects, size_t n)
{
    struct pna_row row;
    if (!pna_http_row(t, v, 0, &row))
        return;
    for (size_t i = 0; i < n; i++)
        pna_json_put(o, t, objects[i], &row);
}

/* OBJECT's value in table T (one row) as JSON, or NULL when absent. */
static json_t *value_of(const struct pna_http_view *v, const struct pna_metric_table *t,
                        const char *object)
{
    const struct pna_metric *m = pna_metric_by_object(t, object);
    struct pna_row row;
    return m && pna_http_row(t, v, 0, &row) ? pna_json_value(t, m, &row) : NULL;
}

/* The member is there even when the value is not: null (a figure that needs
 * two samples, before the second poll) or "" (a text the source lacks), as the
 * endpoint's shape has always been. */
static void put_or_null(json_t *o, const struct pna_http_view *v, const struct pna_metric_table *t,
                        const char *object)
{
    const struct pna_metric *m = pna_metric_by_object(t, object);
    json_t *j = value_of(v, t, object);
    if (m)
        json_object_set_new(o, m->json, j ? j : m->syntax == PNA_SYNTAX_TEXT ? json_string("")
                                                                            : json_null());
}

static void put_as(json_t *o, const char *member, const struct pna_http_view *v,
                   const struct pna_metric_table *t, const char *object)
{
    json_t *j = value_of(v, t, object);
    json_object_set_new(o, member, j ? j : json_string(""));
}

static json_t *cpu_json(const struct pna_http_view *v, bool full)
{
    static const char *const brief[] = { "primusCpuCores", "primusCpuThreads" };
    static const char *const more[] = { "primusCpuSockets", "primusCpuLoad1", "primusCpuLoad5",
                                        "primusCpuLoad15" };
    json_t *o = json_object();
    put_as(o, "model", v, &pna_system_metrics, "primusNodeCpuModel");
    put_all(o, v, &pna_cpu_metrics, brief, sizeof brief / sizeof brief[0]);
    put_or_null(o, v, &pna_cpu_metrics, "primusCpuUsage");
    if (full) {
        put_all(o, v, &pna_cpu_metrics, more, sizeof more / sizeof more[0]);
        put_or_null(o, v, &pna_cpu_metrics, "primusCpuIowait");
    }
    return o;
}

static json_t *memory_json(const struct pna_http_view *v, bool full)
{
    static const char *const brief[] = { "primusMemTotal", "primusMemUsed", "primusMemAvailable",
                                         "primusMemUsage" };
    static const char *const more[] = { "primusMemSwapTotal", "primusMemSwapUsed" };
    json_t *o = json_object();
    put_all(o, v, &pna_memory_metrics, brief, sizeof brief / sizeof brief[0]);
    if (full)
        put_all(o, v, &pna_memory_metrics, more, sizeof more / sizeof more[0]);
    return o;
}

static const struct pna_node_snap *node_snap(const struct pna_http_view *v)
{
    return pna_view_snap(&v->base, PNA_DOM_NODE);
}

struct pna_json_reply pna_json_metrics(const struct pna_http_view *v)
{
    const struct pna_node_snap *node = node_snap(v);
    if (!node)
        return error_reply(503, "no node data yet: the node poller has not run");
    json_t *o = json_object();
    json_object_set_new(o, "node", pna_json_text(v->node_name));
    json_object_set_new(o, "timestamp", json_integer(node->base.taken_ms / 1000));
    json_object_set_new(o, "cpu", cpu_json(v, false));
    json_object_set_new(o, "memory", memory_json(v, false));
    json_object_set_new(o, "gpu", pna_json_gpu_summary(v));
    json_object_set_new(o, "roce", pna_json_roce_summary(v));
    struct pna_json_reply r = { 200, o };
    return r;
}

struct pna_json_reply pna_json_node(const struct pna_http_view *v)
{
    const struct pna_node_snap *node = node_snap(v);
    if (!node)
        return error_reply(503, "no node data yet: the node poller has not run");
    const struct pna_node *n = &node->node;
    char os[128], version[64];
    pna_http_split_os(n->os_name, os, sizeof os, version, sizeof version);
    json_t *o = json_object();
    json_object_set_new(o, "node", pna_json_text(v->node_name));
    static const char *const identity[] = {
        "primusNodeHostname", "primusNodeOsName", "primusNodeKernel", "primusNodeArchitecture",
        "primusNodeCpuModel", "primusNodeUptime", "primusNodeBootTime",
    };
    json_object_set_new(o, "os", pna_json_text(os));
    json_object_set_new(o, "os_version", pna_json_text(version));
    for (size_t i = 0; i < sizeof identity / sizeof identity[0]; i++)
        put_or_null(o, v, &pna_system_metrics, identity[i]);
    json_object_set_new(o, "timestamp", json_integer(node->base.taken_ms / 1000));
    json_object_set_new(o, "cpu", cpu_json(v, true));
    json_object_set_new(o, "memory", memory_json(v, true));
    json_object_set_new(o, "gpu", pna_json_gpu_summary(v));
    json_object_set_new(o, "roce", pna_json_roce_summary(v));
    struct pna_json_reply r = { 200, o };
    return r;
}
