/* http/json_node.c -- the system-info exporter's JSON endpoints: /health,
 * /healthz, /ready, /metrics/json and /node, rendered from the node snapshot,
 * the GPU summary and the poller counters of the view.
 *
 * Shapes (docs/metrics.md has them with examples):
 *   /healthz        {"status":"ok"}: the process answers (liveness), always 200.
 *   /health         {"status":"ok"|"degraded", "ready", "version", "node",
 *                    "uptime_seconds", "pollers":[...]}: always 200; "degraded"
 *                   follows the same rule as primusAgentStatus.
 *   /ready          200 {"status":"ready"} once every enabled poller finished a
 *                   first run, else 503 {"status":"not ready","pending":[names]}.
 *   /metrics/json   {"node","timestamp","cpu":{...},"memory":{...},"gpu":{...}}:
 *                   the hw_* figures as JSON (the exporter's legacy format).
 *   /node           everything known about the node (identity, CPU, memory, GPUs).
 * /metrics/json and /node answer 503 until the node poller has run. */
#include "pna_autoconf.h"
#include "core/health.h"
#include "model/node.h"
#include "http/render.h"

#include <stdio.h>

json_t *pna_json_u64(uint64_t v)
{
    return json_integer(v > (uint64_t)INT64_MAX ? INT64_MAX : (json_int_t)v);
}

json_t *pna_json_fixed(int64_t v, unsigned decimals)
{
    double scale = 1;
    for (unsigned i = 0; i < decimals; i++)
        scale *= 10;
    return json_real((double)v / scale);
}

json_t *pna_json_text(const char *s)
{
    json_t *j = json_string(s ? s : "");
    if (j)
        return j;
    /* Not valid UTF-8 (a driver's string): jansson refuses it, so replace the
     * bad bytes rather than lose the field. */
    struct pna_buf b;
    pna_buf_init(&b);
    pna_buf_put_utf8(&b, s);
    j = json_string(pna_buf_cstr(&b));
    pna_buf_free(&b);
    return j ? j : json_string("");
}

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

static const char *poller_status_name(enum pna_poller_status s)
{
    switch (s) {
    case PNA_POLLER_OK: return "ok";
    case PNA_POLLER_FAILING: return "failing";
    case PNA_POLLER_TIMED_OUT: return "timedOut";
    case PNA_POLLER_OFF: return "disabled";
    case PNA_POLLER_PENDING: return "pending";
    }
    return "unknown";
}

static json_t *poller_json(const struct pna_poller_info *p, int64_t now_ms)
{
    json_t *o = json_object();
    json_object_set_new(o, "name", pna_json_text(p->name));
    json_object_set_new(o, "index", json_integer(p->index));
    json_object_set_new(o, "status", pna_json_text(poller_status_name(p->status)));
    json_object_set_new(o, "degraded", json_boolean(pna_poller_degraded(p, now_ms)));
    json_object_set_new(o, "interval_seconds", pna_json_fixed(p->interval_ms, 3));
    json_object_set_new(o, "timeout_seconds", pna_json_fixed(p->timeout_ms, 3));
    json_object_set_new(o, "last_success",
                        p->last_success_ms ? json_integer(p->last_success_ms / 1000) : json_null());
    json_object_set_new(o, "last_duration_seconds", pna_json_fixed(p->last_duration_ms, 3));
    json_object_set_new(o, "runs", json_integer(p->runs));
    json_object_set_new(o, "errors", json_integer(p->errors));
    json_object_set_new(o, "consecutive_failures", json_integer(p->consecutive_failures));
    int64_t age = p->data_taken_ms ? now_ms - p->data_taken_ms : 0;
    json_object_set_new(o, "data_age_seconds",
                        p->data_taken_ms ? pna_json_fixed(age > 0 ? age : 0, 3) : json_null());
    json_object_set_new(o, "last_error", pna_json_text(p->last_error));
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
    for (size_t i = 0; i < v->n_pollers; i++)
        json_array_append_new(pollers, poller_json(&v->pollers[i], v->now_ms));
    int64_t up_ms = v->agent.started_ms ? v->now_ms - v->agent.started_ms : 0;
    json_t *o = json_object();
    json_object_set_new(o, "status", pna_json_text(pna_http_view_degraded(v) ? "degraded" : "ok"));
    json_object_set_new(o, "ready", json_boolean(pna_http_view_all_ran(v)));
    json_object_set_new(o, "version", pna_json_text(v->agent.version ? v->agent.version : ""));
    json_object_set_new(o, "node", pna_json_text(v->node_name));
    json_object_set_new(o, "uptime_seconds", json_integer(up_ms > 0 ? up_ms / 1000 : 0));
    json_object_set_new(o, "pollers", pollers);
    struct pna_json_reply r = { 200, o };
    return r;
}

struct pna_json_reply pna_json_ready(const struct pna_http_view *v)
{
    if (pna_http_view_all_ran(v)) {
        struct pna_json_reply r = { 200, json_pack("{s:s}", "status", "ready") };
        return r;
    }
    json_t *pending = json_array();
    for (size_t i = 0; i < v->n_pollers; i++)
        if (v->pollers[i].status == PNA_POLLER_PENDING)
            json_array_append_new(pending, pna_json_text(v->pollers[i].name));
    struct pna_json_reply r = { 503, json_pack("{s:s,s:o}", "status", "not ready",
                                               "pending", pending) };
    return r;
}

static json_t *cpu_json(const struct pna_node *n, bool full)
{
    json_t *o = json_object();
    json_object_set_new(o, "model", pna_json_text(n->cpu_model));
    json_object_set_new(o, "cores", json_integer(n->cpu_cores));
    json_object_set_new(o, "threads", json_integer(n->cpu_threads));
    /* null until the second poll: usage needs two samples. */
    json_object_set_new(o, "usage_percent",
                        n->have_cpu_usage ? pna_json_fixed(n->cpu_usage_hundredths, 2) : json_null());
    if (full) {
        json_object_set_new(o, "sockets", json_integer(n->cpu_sockets));
        json_object_set_new(o, "iowait_percent",
                            n->have_cpu_usage ? pna_json_fixed(n->cpu_iowait_hundredths, 2)
                                              : json_null());
        json_object_set_new(o, "load1", pna_json_fixed(n->load1_hundredths, 2));
        json_object_set_new(o, "load5", pna_json_fixed(n->load5_hundredths, 2));
        json_object_set_new(o, "load15", pna_json_fixed(n->load15_hundredths, 2));
    }
    return o;
}

static json_t *memory_json(const struct pna_node *n, bool full)
{
    json_t *o = json_object();
    json_object_set_new(o, "total_bytes", pna_json_u64(n->mem_total_bytes));
    json_object_set_new(o, "used_bytes", pna_json_u64(n->mem_used_bytes));
    json_object_set_new(o, "available_bytes", pna_json_u64(n->mem_available_bytes));
    json_object_set_new(o, "usage_percent", pna_json_fixed(n->mem_usage_hundredths, 2));
    if (full) {
        json_object_set_new(o, "swap_total_bytes", pna_json_u64(n->swap_total_bytes));
        json_object_set_new(o, "swap_used_bytes", pna_json_u64(n->swap_used_bytes));
    }
    return o;
}

struct pna_json_reply pna_json_metrics(const struct pna_http_view *v)
{
    if (!v->node)
        return error_reply(503, "no node data yet: the node poller has not run");
    const struct pna_node *n = v->node;
    json_t *o = json_object();
    json_object_set_new(o, "node", pna_json_text(v->node_name));
    json_object_set_new(o, "timestamp", json_integer(v->node_taken_ms / 1000));
    json_object_set_new(o, "cpu", cpu_json(n, false));
    json_object_set_new(o, "memory", memory_json(n, false));
    json_object_set_new(o, "gpu", pna_json_gpu_summary(v));
    struct pna_json_reply r = { 200, o };
    return r;
}

struct pna_json_reply pna_json_node(const struct pna_http_view *v)
{
    if (!v->node)
        return error_reply(503, "no node data yet: the node poller has not run");
    const struct pna_node *n = v->node;
    char os[128], version[64];
    pna_http_split_os(n->os_name, os, sizeof os, version, sizeof version);
    json_t *o = json_object();
    json_object_set_new(o, "node", pna_json_text(v->node_name));
    json_object_set_new(o, "hostname", pna_json_text(n->hostname));
    json_object_set_new(o, "os", pna_json_text(os));
    json_object_set_new(o, "os_version", pna_json_text(version));
    json_object_set_new(o, "os_pretty_name", pna_json_text(n->os_name));
    json_object_set_new(o, "kernel", pna_json_text(n->kernel));
    json_object_set_new(o, "architecture", pna_json_text(n->arch));
    json_object_set_new(o, "cpu_model", pna_json_text(n->cpu_model));
    json_object_set_new(o, "uptime_seconds", pna_json_u64(n->uptime_s));
    json_object_set_new(o, "boot_time", pna_json_u64(n->boot_time_s));
    json_object_set_new(o, "timestamp", json_integer(v->node_taken_ms / 1000));
    json_object_set_new(o, "cpu", cpu_json(n, true));
    json_object_set_new(o, "memory", memory_json(n, true));
    json_object_set_new(o, "gpu", pna_json_gpu_summary(v));
    struct pna_json_reply r = { 200, o };
    return r;
}
