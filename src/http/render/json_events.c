/* http/render/json_events.c -- /events: the event table (primusEventTable) as JSON,
 * for operators without a trap receiver.
 *
 *   {"capacity": N, "total": T, "dropped": D,
 *    "events": [{"index", "time", "type", "severity", "subject", "text",
 *                "details": {...}}, ...]}       oldest first, newest last
 *
 * "index" is primusEventIndex, "time" RFC 3339 in UTC with milliseconds,
 * "type" and "severity" the MIB's labels; "details" carries the columns the
 * event's notification carries (the poller, port, container or GPU).  The
 * events come from a copy taken under the event history's lock, not from the
 * cache view: the main thread keeps them. */
#include "pna_autoconf.h"
#include "core/events.h"
#include "http/render/render.h"
#include "model/gpu/gpu.h"
#include "model/lossless/lossless.h"
#include "model/phy/phy.h"

#include <stdlib.h>
#include <time.h>

/* At most this many of the newest events: eventHistory may be far larger
 * than one response should be. */
#define EVENTS_MAX_REPLY 1000

static json_t *rfc3339_ms(int64_t ms)
{
    time_t secs = (time_t)(ms / 1000);
    struct tm tm;
    char buf[40];
    if (ms < 0 || !gmtime_r(&secs, &tm) || strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm) == 0)
        return json_null();
    char out[48];
    snprintf(out, sizeof out, "%s.%03dZ", buf, (int)(ms % 1000));
    return json_string(out);
}

static const char *level_name(int32_t level)
{
    return level >= 1 && level <= PNA_MODULE_LEVEL_HIGH_ALARM ? pna_module_level_names[level] : "";
}

static json_t *module_details(const struct pna_event_module *m)
{
    int q = m->quantity - 1;
    return json_pack("{s:o,s:s,s:I,s:s,s:s,s:I,s:I}", "interface", pna_json_text(m->ifname),
                     "quantity", q >= 0 && q < PNA_MODQ_COUNT ? pna_module_quantity_names[q] : "",
                     "lane", (json_int_t)m->lane, "level", level_name(m->level), "was",
                     level_name(m->old_level), "value", (json_int_t)m->value, "threshold",
                     (json_int_t)m->threshold);
}

/* An idle verdict with its holder, or an orphan process. */
static json_t *gpu_work_details(const struct pna_event *ev)
{
    const struct pna_event_gpu *g = &ev->u.gpu;
    json_t *o = json_pack("{s:o,s:o}", "pci_bus_id", pna_json_text(g->pci_bus_id), "uuid",
                          pna_json_text(g->uuid));
    if (ev->type == PNA_EV_GPU_ORPHAN_PROCESS) {
        json_object_set_new(o, "pid", json_integer(g->pid));
        json_object_set_new(o, "process", pna_json_text(g->process));
        json_object_set_new(o, "orphan_processes", json_integer(g->orphans));
        return o;
    }
    json_object_set_new(o, "idle_allocated", json_boolean(g->idle_allocated));
    json_object_set_new(o, "low_activity_since",
                        g->low_since_s ? json_integer(g->low_since_s) : json_null());
    json_object_set_new(o, "pod", pna_json_text(g->holder_pod));
    json_object_set_new(o, "namespace", pna_json_text(g->holder_namespace));
    json_object_set_new(o, "job", g->holder_job ? json_integer(g->holder_job) : json_null());
    return o;
}

static json_t *details(const struct pna_event *ev)
{
    switch (ev->type) {
    case PNA_EV_POLLER_FAILED:
    case PNA_EV_POLLER_RECOVERED:
        return json_pack("{s:o,s:o,s:o}", "poller", pna_json_text(ev->u.poller.name), "errors",
                         pna_json_u64(ev->u.poller.errors), "last_error",
                         pna_json_text(ev->u.poller.last_error));
    case PNA_EV_IB_PORT_DOWN:
    case PNA_EV_IB_PORT_UP:
        return json_pack("{s:o,s:I,s:i,s:i}", "device", pna_json_text(ev->u.ib_port.device),
                         "port", (json_int_t)ev->u.ib_port.port, "old_state",
                         ev->u.ib_port.old_state, "new_state", ev->u.ib_port.new_state);
    case PNA_EV_CONTAINER_OOM:
        return json_pack("{s:o,s:o,s:o,s:o,s:o}", "container_id",
                         pna_json_text(ev->u.oom.container_id), "container",
                         pna_json_text(ev->u.oom.container_name), "pod",
                         pna_json_text(ev->u.oom.pod), "namespace",
                         pna_json_text(ev->u.oom.namespace_), "kill_count",
                         pna_json_u64(ev->u.oom.kill_count));
    case PNA_EV_GPU_XID:
    case PNA_EV_GPU_THERMAL:
    case PNA_EV_GPU_LOST:
    case PNA_EV_GPU_LINK_DOWN:
    case PNA_EV_GPU_LINK_UP:
    case PNA_EV_GPU_HEALTH: {
        json_t *o = json_pack("{s:o,s:o}", "pci_bus_id", pna_json_text(ev->u.gpu.pci_bus_id),
                              "uuid", pna_json_text(ev->u.gpu.uuid));
        if (ev->type == PNA_EV_GPU_LINK_DOWN || ev->type == PNA_EV_GPU_LINK_UP) {
            json_object_set_new(o, "link", json_integer(ev->u.gpu.link));
            json_object_set_new(o, "remote_pci_bus_id", pna_json_text(ev->u.gpu.remote_bus_id));
        }
        if (ev->type == PNA_EV_GPU_HEALTH) {
            json_object_set_new(o, "health", json_string(pna_gpu_verdict_name(ev->u.gpu.health)));
            json_object_set_new(o, "reason", pna_json_text(ev->u.gpu.reason));
        }
        if (ev->type == PNA_EV_GPU_XID)
            json_object_set_new(o, "xid", pna_json_u64(ev->u.gpu.xid));
        if (ev->type == PNA_EV_GPU_THERMAL) {
            json_object_set_new(o, "temperature_celsius", json_integer(ev->u.gpu.temperature_c));
            json_object_set_new(o, "threshold_celsius", json_integer(ev->u.gpu.threshold_c));
        }
        return o;
    }
    case PNA_EV_PFC_PAUSE_STORM:
        return json_pack("{s:o,s:i,s:o}", "interface", pna_json_text(ev->u.pfc.ifname),
                         "priority", ev->u.pfc.priority, "pause_frames_per_second",
                         pna_json_u64(ev->u.pfc.pause_per_s));
    case PNA_EV_ROCE_LOSSLESS:
    case PNA_EV_ROCE_NODE_LOSSLESS: {
        uint8_t v = (uint8_t)ev->u.lossless.verdict, old = (uint8_t)ev->u.lossless.old_verdict;
        return json_pack("{s:o,s:s,s:s,s:o}", "interface", pna_json_text(ev->u.lossless.ifname),
                         "lossless", v <= PNA_LOSSLESS_NOT_APPLICABLE ? pna_lossless_verdict_names[v] : "",
                         "was", old <= PNA_LOSSLESS_NOT_APPLICABLE ? pna_lossless_verdict_names[old] : "",
                         "reason", pna_json_text(ev->u.lossless.reason));
    }
    case PNA_EV_PCIE_DOWNTRAINED:
    case PNA_EV_PCIE_RESTORED: {
        const struct pna_event_pcie *p = &ev->u.pcie;
        return json_pack("{s:o,s:I,s:I,s:I,s:I}", "device", pna_json_text(p->device),
                         "link_speed_mtps", (json_int_t)p->speed_mtps, "max_link_speed_mtps",
                         (json_int_t)p->max_speed_mtps, "link_width", (json_int_t)p->width,
                         "max_link_width", (json_int_t)p->max_width);
    }
    case PNA_EV_MODULE_THRESHOLD:
    case PNA_EV_MODULE_THRESHOLD_CLEAR:
        return module_details(&ev->u.module);
    case PNA_EV_GPU_IDLE_ALLOCATED:
    case PNA_EV_GPU_ORPHAN_PROCESS:
        return gpu_work_details(ev);
    case PNA_EV_SLURM_JOB_END: {
        const struct pna_event_slurm_job *j = &ev->u.slurm_job;
        json_t *o = json_pack("{s:I,s:o}", "job", (json_int_t)j->job_id, "user",
                              pna_json_text(j->user));
        json_object_set_new(o, "uid", j->has_uid ? json_integer(j->uid) : json_null());
        return o;
    }
    }
    return json_object();
}

static json_t *event_json(const struct pna_event *ev)
{
    json_t *o = json_object();
    json_object_set_new(o, "index", json_integer(ev->seq));
    json_object_set_new(o, "time", rfc3339_ms(ev->time_ms));
    json_object_set_new(o, "type", json_string(pna_event_type_name(ev->type)));
    json_object_set_new(o, "severity", json_string(pna_severity_name(ev->severity)));
    json_object_set_new(o, "subject", pna_json_text(ev->subject));
    json_object_set_new(o, "text", pna_json_text(ev->text));
    json_object_set_new(o, "details", details(ev));
    return o;
}

struct pna_json_reply pna_json_events(const struct pna_http_view *v)
{
    size_t cap = v->base.event_capacity < EVENTS_MAX_REPLY ? v->base.event_capacity
                                                             : EVENTS_MAX_REPLY;
    struct pna_event *copy = calloc(cap ? cap : 1, sizeof *copy);
    if (!copy) {
        struct pna_json_reply r = { 500, NULL };
        return r;
    }
    size_t n = pna_events_copy(copy, cap);
    json_t *events = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(events, event_json(&copy[i]));
    free(copy);
    json_t *o = json_object();
    json_object_set_new(o, "capacity", pna_json_u64(v->base.event_capacity));
    json_object_set_new(o, "total", pna_json_u64(v->base.events_total));
    json_object_set_new(o, "dropped", pna_json_u64(v->base.events_dropped));
    json_object_set_new(o, "events", events);
    struct pna_json_reply r = { 200, o };
    return r;
}
