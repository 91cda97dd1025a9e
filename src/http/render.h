/* http/render.h -- what one HTTP response is rendered from, and the renderers.
 *
 * A request takes a view: one reference to the current snapshot of every cache
 * domain, a copy of the poller counters and the agent's own figures, all taken
 * once at the start.  Every renderer reads only the view, so a response is
 * consistent in itself, never touches a source, never calls net-snmp, and can be
 * unit-tested on a view built by hand.  The snapshots are immutable; the view is
 * released when the response has been rendered.
 *
 * Any member may be NULL/0 (a domain not polled yet or disabled): renderers
 * then leave that domain out. */
#ifndef PNA_HTTP_RENDER_H
#define PNA_HTTP_RENDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "core/cache.h"
#include "core/events.h"
#include "core/poller.h"
#include "http/buf.h"
#include "http/prom.h"

struct pna_node;
struct pna_gpu_snap;
struct pna_ib_model;
struct pna_pfc_model;
struct pna_containers_snap;
struct pna_kubelet_snap;
struct pna_storage_snap;

struct pna_http_agent {
    const char *version;
    bool standalone;
    int64_t started_ms;          /* CLOCK_REALTIME */
    uint64_t events_total;
    uint64_t events_dropped;
    uint64_t event_capacity;
    uint64_t events_by_type[PNA_EV_TYPE_MAX + 1];  /* index: enum pna_event_type */
    int64_t storage_max_age_ms;  /* how old the kubelet's node figures may be */
};

struct pna_http_view {
    int64_t now_ms;                              /* CLOCK_REALTIME when taken */
    const char *node_name;                       /* the seed's node="" label; never NULL */
    const struct pna_node *node;
    int64_t node_taken_ms;
    const struct pna_gpu_snap *gpu;
    const struct pna_ib_model *ib;
    const struct pna_pfc_model *pfc;
    const struct pna_containers_snap *containers;
    const struct pna_kubelet_snap *kubelet;
    const struct pna_storage_snap *storage;
    const struct pna_poller_info *pollers;
    size_t n_pollers;
    bool all_ran;                                /* pna_pollers_all_ran() when taken */
    struct pna_http_agent agent;

    /* owned by pna_http_view_take()/pna_http_view_release() */
    struct pna_snap *refs[PNA_DOM_COUNT];
    struct pna_poller_info *poller_copy;
    char node_name_buf[256];
};

/* server.c: take the current view (cache references, poller copies). */
void pna_http_view_take(struct pna_http_view *v, const struct pna_http_agent *agent,
                        const char *configured_node_name);
void pna_http_view_release(struct pna_http_view *v);

/* The node="" label: the configured name, else the kubelet's node name, else
 * the host name (PRIMUS node snapshot), else "". Called by view_take; exposed
 * so hand-built test views get the same answer. */
const char *pna_http_node_name(const struct pna_http_view *v, const char *configured,
                               char *buf, size_t cap);

/* Every enabled poller had finished a run when the view was taken (/ready). */
bool pna_http_view_all_ran(const struct pna_http_view *v);
/* Any poller is degraded (failing, timed out, stale): the shared health rule. */
bool pna_http_view_degraded(const struct pna_http_view *v);

/* Split os-release's PRETTY_NAME into the seed's os and os_version labels: the
 * version is the first word that starts with a digit, the name what comes
 * before it ("Ubuntu 22.04.3 LTS" gives "Ubuntu" and "22.04.3",
 * "Debian GNU/Linux 12 (bookworm)" gives "Debian GNU/Linux" and "12"). */
void pna_http_split_os(const char *pretty, char *os, size_t os_cap, char *version,
                       size_t version_cap);

/* Shared across domains (metrics_gpu.c, metrics_containers.c). */
struct pna_gpu;
struct pna_container;
struct pna_container_device;
/* The GPU's number as the vendor tools and the seeds show it (gpu, gpu_id,
 * gpu_index labels, "gpu" in JSON): the source's own index when every GPU has
 * a distinct one, else the position in PCI order. */
uint32_t pna_http_gpu_number(const struct pna_gpu_snap *s, size_t i);
/* The GPU row a container's device node belongs to (the PCI key the collector
 * resolved), or NULL (a shared node such as /dev/kfd, or no such GPU row). */
const struct pna_gpu *pna_http_device_gpu(const struct pna_http_view *v,
                                          const struct pna_container_device *d);

/* A GUID as eight colon-separated bytes ("98:03:9b:ff:fe:12:34:56"), as the
 * node exporter's /rdma prints them (json_rdma.c). */
void pna_http_guid_text(uint64_t guid, char *buf, size_t cap);

/* ---- /metrics: each writes its families into P -------------------------- */
void pna_metrics_node(struct pna_prom *p, const struct pna_http_view *v);
void pna_metrics_agent(struct pna_prom *p, const struct pna_http_view *v);
void pna_metrics_gpu(struct pna_prom *p, const struct pna_http_view *v);
void pna_metrics_rdma(struct pna_prom *p, const struct pna_http_view *v);
void pna_metrics_pfc(struct pna_prom *p, const struct pna_http_view *v);
void pna_metrics_containers(struct pna_prom *p, const struct pna_http_view *v);
void pna_metrics_storage(struct pna_prom *p, const struct pna_http_view *v);

/* The whole /metrics body; returns the number of rendering errors (0). */
size_t pna_metrics_render(struct pna_buf *out, const struct pna_http_view *v);

/* ---- JSON endpoints ------------------------------------------------------- */

/* A JSON answer: the HTTP status and a new reference to the body. */
struct pna_json_reply {
    unsigned status;
    json_t *body;
};

/* json_node.c: the system-info exporter's endpoints. */
struct pna_json_reply pna_json_health(const struct pna_http_view *v);
struct pna_json_reply pna_json_healthz(const struct pna_http_view *v);
struct pna_json_reply pna_json_ready(const struct pna_http_view *v);
struct pna_json_reply pna_json_metrics(const struct pna_http_view *v);
struct pna_json_reply pna_json_node(const struct pna_http_view *v);

/* json_gpu.c: the node exporter's GPU endpoints, and the GPU list /node and
 * /metrics/json embed. */
struct pna_json_reply pna_json_gpus(const struct pna_http_view *v);
struct pna_json_reply pna_json_gpu_driver_version(const struct pna_http_view *v);
struct pna_json_reply pna_json_card_metrics(const struct pna_http_view *v);
struct pna_json_reply pna_json_dri_mapping(const struct pna_http_view *v);
json_t *pna_json_gpu_summary(const struct pna_http_view *v);

/* json_events.c: primusEventTable */
struct pna_json_reply pna_json_events(const struct pna_http_view *v);

/* json_rdma.c, json_pods.c */
struct pna_json_reply pna_json_rdma(const struct pna_http_view *v);
struct pna_json_reply pna_json_pods(const struct pna_http_view *v);

/* The node exporter's envelope: {"code":0,"data":DATA,"message":"success"}
 * (steals DATA). */
struct pna_json_reply pna_json_envelope(json_t *data);

/* Shared small helpers (json_node.c). */
json_t *pna_json_u64(uint64_t v);
json_t *pna_json_text(const char *s);            /* a string; invalid UTF-8 bytes become '?' */               /* an integer, clamped to 2^63-1 */
json_t *pna_json_fixed(int64_t v, unsigned decimals);  /* V / 10^DECIMALS as a real */

#endif
