/* http/render/render.h -- what one HTTP response is rendered from, and the renderers.
 *
 * A request takes a view (core/view.h): one reference to the current snapshot
 * of every cache domain, a copy of the poller counters and the agent's own
 * figures, all taken once at the start.  Every renderer reads only the view,
 * so a response is consistent in itself, never touches a source, never calls
 * net-snmp, and can be unit-tested on a view built by hand.  Values come from
 * the model's descriptors (model/metric.h) through pna_prom_table() and the
 * JSON helpers below, the way the SNMP tables read them.
 *
 * Any snapshot may be missing (a domain not polled yet or disabled):
 * renderers then leave that domain out. */
#ifndef PNA_HTTP_RENDER_H
#define PNA_HTTP_RENDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "core/view.h"
#include "http/buf.h"
#include "http/render/prom.h"
#include "model/export/export.h"
#include "model/kubernetes/holders.h"
#include "model/metric.h"

struct pna_http_view {
    struct pna_view base;                        /* snapshots, pollers, agent, now */
    const char *node_name;                       /* the replaced exporters' node="" label;
                                                    never NULL */
    unsigned compat;                             /* prometheusCompat: enum pna_prom_compat
                                                    bits (core/config.h); constant for the
                                                    process, so the shared body may hold it */
    char node_name_buf[256];
};

/* Take the current view of everything; release it when rendered. */
void pna_http_view_take(struct pna_http_view *v, const char *configured_node_name);
void pna_http_view_release(struct pna_http_view *v);
/* Fill the node name from V->base (filled by hand in tests). */
void pna_http_view_complete(struct pna_http_view *v, const char *configured_node_name);

/* The node="" label: the configured name, else the kubelet's node name, else
 * the host name (PRIMUS node snapshot), else "". */
const char *pna_http_node_name(const struct pna_http_view *v, const char *configured,
                               char *buf, size_t cap);

/* Split os-release's PRETTY_NAME into the system-info exporter's os and os_version labels: the
 * version is the first word that starts with a digit, the name what comes
 * before it ("Ubuntu 22.04.3 LTS" gives "Ubuntu" and "22.04.3",
 * "Debian GNU/Linux 12 (bookworm)" gives "Debian GNU/Linux" and "12"). */
void pna_http_split_os(const char *pretty, char *os, size_t os_cap, char *version,
                       size_t version_cap);

/* A GUID as eight colon-separated bytes ("98:03:9b:ff:fe:12:34:56"), as the
 * node exporter's /rdma prints them (json_rdma.c). */
void pna_http_guid_text(uint64_t guid, char *buf, size_t cap);

/* Row I of T in V (its view and position set); false when it has no cells. */
bool pna_http_row(const struct pna_metric_table *t, const struct pna_http_view *v, size_t i,
                  struct pna_row *row);

/* ---- /metrics ------------------------------------------------------------ */

#define PNA_ROW_LABELS_MAX 24 /* the row's labels, or an info series' (primus_gpu_info: over 16) */
#define PNA_ROW_LABEL_TEXTS 8 /* labels whose text is made for the row (numbers) */
#define PNA_HELP_MAX 512

/* The labels of a row's series.  Values point into the view's snapshots, at
 * static text, or into TEXT (the row's numbers, formatted) and BUF. */
struct pna_row_labels {
    struct pna_prom_label l[PNA_ROW_LABELS_MAX];
    size_t n;
    char text[PNA_ROW_LABEL_TEXTS][sizeof ((struct pna_value *)0)->buf];
    size_t ntext;
    char buf[128];
};
typedef void (*pna_row_labels_fn)(const struct pna_http_view *v, const struct pna_metric_table *t,
                                  const struct pna_row *row, struct pna_row_labels *out);

/* The labels that identify ROW of T, from T's key (model/metric.h): its
 * parts' labels, then the labels of its join (the pod holding a GPU). */
void pna_prom_key_labels(const struct pna_http_view *v, const struct pna_metric_table *t,
                         const struct pna_row *row, struct pna_row_labels *out);
/* The same without the join's: the row's own identity. */
void pna_prom_identity_labels(const struct pna_http_view *v, const struct pna_metric_table *t,
                              const struct pna_row *row, struct pna_row_labels *out);

/* ROW's identity labels, then a holder's: container_id, container, pod,
 * namespace (H's; NULL: all empty) and job (JOB, "" none), the labels of
 * primus_gpu_holder_info and primus_rdma_holder_info. */
/* The holders of one row's device, for pna_prom_holders(): EACH calls FN for
 * every container holding REC (model/kubernetes/holders.h), JOBS fills the
 * Slurm jobs using it (model/slurm/slurm_holders.h) and says how many. */
struct pna_holder_source {
    const struct pna_metric_table *table;
    void (*each)(const struct pna_view *v, const void *rec, pna_holder_fn fn, void *arg);
    size_t (*jobs)(const struct pna_view *v, const void *rec, uint32_t *jobs);
};
/* FAMILY: one series per container holding each row's device, then one per
 * Slurm job using it (its container labels empty), labelled as
 * pna_prom_holder_labels() says; always 1. */
void pna_prom_holders(struct pna_prom *p, const struct pna_http_view *v,
                      const struct pna_holder_source *src, const char *family, const char *help);
void pna_prom_holder_labels(const struct pna_http_view *v, const struct pna_metric_table *t,
                            const struct pna_row *row, const struct pna_holder *h,
                            const char *job, struct pna_row_labels *out);

/* Every family of table T: its info series and one family per descriptor
 * with a family name, each sample labelled by the row's key. */
void pna_prom_table(struct pna_prom *p, const struct pna_http_view *v,
                    const struct pna_metric_table *t);

/* A metric of an exporter the agent replaces, kept under that exporter's
 * name, type, help and labels (a contract: docs/metrics.md): the value of
 * the descriptor of MIB object OBJECT, times SCALE. */
struct pna_replaced_metric {
    const char *name;
    enum pna_prom_type type;
    const char *object;
    struct pna_scale scale;
    const char *help;
};
void pna_prom_replaced(struct pna_prom *p, const struct pna_http_view *v,
                       const struct pna_metric_table *t, const struct pna_replaced_metric *r,
                       pna_row_labels_fn labels);
/* pna_prom_replaced() for each of the N metrics of R. */
void pna_prom_replaced_all(struct pna_prom *p, const struct pna_http_view *v,
                           const struct pna_metric_table *t, const struct pna_replaced_metric *r,
                           size_t n, pna_row_labels_fn labels);
/* The replaced exporters' {node} label set: the view's node name, whatever the row. */
void pna_prom_node_label(const struct pna_http_view *v, const struct pna_metric_table *t,
                         const struct pna_row *row, struct pna_row_labels *out);

/* One sample: V times SCALE. */
void pna_prom_scaled(struct pna_prom *p, const struct pna_prom_label *l, size_t n,
                     const struct pna_value *v, struct pna_scale scale);

/* What /metrics serves besides the descriptor tables' families, once each:
 * the replaced exporters' names, the joins (primus_gpu_holder_info) and the
 * families that split a MIB value by a label (primus_gpu_retired_pages
 * {cause}, primus_ib_port_saturated{counter}).  The _agent one depends on the
 * clock and the poller counters, the others on the snapshots alone. */
void pna_metrics_node_extras(struct pna_prom *p, const struct pna_http_view *v);
void pna_metrics_gpu_extras(struct pna_prom *p, const struct pna_http_view *v);
void pna_metrics_rdma_extras(struct pna_prom *p, const struct pna_http_view *v);
void pna_metrics_storage_extras(struct pna_prom *p, const struct pna_http_view *v);
/* metrics_pod_labels.c: primus_pod_labels_info, one series per pod */
void pna_metrics_pod_label_extras(struct pna_prom *p, const struct pna_http_view *v);
void pna_metrics_agent_extras(struct pna_prom *p, const struct pna_http_view *v);
/* compat.c: dcgm-exporter's and AMD device-metrics-exporter's names, as V->compat asks. */
void pna_metrics_compat(struct pna_prom *p, const struct pna_http_view *v);

/* The whole /metrics body; returns the number of rendering errors (0).  It
 * is the two parts below one after the other: the domains' families, which
 * depend only on the view's snapshots (the server renders them once per set
 * of cache generations, http/metrics_body.h), then the agent's own, which
 * change with the clock and the poller counters (rendered for each request). */
size_t pna_metrics_render(struct pna_buf *out, const struct pna_http_view *v);
/* The domains' part; STATS (may be NULL) receives its families' series
 * counts and what the export control dropped (pna_prom_stats_free() it).
 * exportSeriesLimit bounds this part: the node's figures, where the series
 * are. */
size_t pna_metrics_render_domains_counted(struct pna_buf *out, const struct pna_http_view *v,
                                          struct pna_prom_stats *stats);
size_t pna_metrics_render_domains(struct pna_buf *out, const struct pna_http_view *v);
/* The agent's part, ended by the series counts of BODY (the domains' part
 * it is sent after; NULL: none) and of its own families. */
size_t pna_metrics_render_agent_after(struct pna_buf *out, const struct pna_http_view *v,
                                      const struct pna_prom_stats *body);
size_t pna_metrics_render_agent(struct pna_buf *out, const struct pna_http_view *v);

/* ---- export control ------------------------------------------------------- */

/* The series counts and what the export control left out (metrics_series.c). */
#define PNA_SERIES_FAMILY "primus_agent_series"                 /* {family} */
#define PNA_SERIES_LIMITED_FAMILY "primus_agent_series_limited" /* {family} */
#define PNA_SERIES_DROPPED_FAMILY "primus_agent_series_dropped_total" /* {reason} */

/* primus_agent_series{family} for every family of BODY and OWN (the agent
 * part's own so far), primus_agent_series_limited{family} for BODY's
 * families exportSeriesLimit left out, and the dropped series counters;
 * the sum of the first becomes primusAgentSeries. */
void pna_metrics_series(struct pna_prom *p, const struct pna_prom_stats *body,
                        const struct pna_prom_stats *own);
/* Add a body's drops to the process's counters (once per body rendered). */
void pna_metrics_series_count_drops(const struct pna_prom_stats *body);

/* The families and labels the bridge renders in code (metrics_names.c), for
 * the export control's start-up checks. */
struct pna_export_names pna_metrics_export_names(void);

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
/* json_rdma.c: the node's lossless-RoCE verdict (/node's "roce"; null without
 * the pfc poller's data). */
json_t *pna_json_roce_summary(const struct pna_http_view *v);

/* json_events.c: primusEventTable */
struct pna_json_reply pna_json_events(const struct pna_http_view *v);

/* json_rdma.c, json_pods.c */
struct pna_json_reply pna_json_rdma(const struct pna_http_view *v);
struct pna_json_reply pna_json_pods(const struct pna_http_view *v);
/* metrics_pod_labels.c: /podLabels, the served labels of each pod */
struct pna_json_reply pna_json_pod_labels(const struct pna_http_view *v);
/* json_usage.c: /gpuUsage, the GPU accounting counters */
struct pna_json_reply pna_json_gpu_usage(const struct pna_http_view *v);

/* json_topology.c: /topology, the GPU and RDMA distance matrix */
struct pna_json_reply pna_json_topology(const struct pna_http_view *v);

/* The node exporter's envelope: {"code":0,"data":DATA,"message":"success"}
 * (steals DATA). */
struct pna_json_reply pna_json_envelope(json_t *data);

/* Shared small helpers (json_value.c). */
json_t *pna_json_u64(uint64_t v);                       /* an integer, clamped to 2^63-1 */
json_t *pna_json_text(const char *s);                   /* invalid UTF-8 bytes become '?' */
json_t *pna_json_fixed(int64_t v, unsigned decimals);   /* V / 10^DECIMALS as a real */
/* Descriptor M's value in ROW as JSON: its JSON scale applied, text as a
 * string, an enumeration as its label; NULL when absent, null when none. */
json_t *pna_json_value(const struct pna_metric_table *t, const struct pna_metric *m,
                       const struct pna_row *row);
/* OBJ[m->json] = that value for the descriptor of MIB object OBJECT (or of
 * family FAMILY when OBJECT is NULL); nothing when absent. */
void pna_json_put(json_t *obj, const struct pna_metric_table *t, const char *object,
                  const struct pna_row *row);
/* The parts of ROW's key read from its own record (not its parent's) into O,
 * named by their labels: a sub-table row's identity beside its parent's
 * ("link", "pid", "lane"). */
void pna_json_put_own_key(json_t *o, const struct pna_metric_table *t, const struct pna_row *row);
/* The rows of sub-table T whose parent is PARENT (a GPU's links, a module's
 * lanes), in order, each its own key and its members. */
json_t *pna_json_child_rows(const struct pna_http_view *v, const struct pna_metric_table *t,
                            const void *parent);
/* Every row of table T, each its own key and its members. */
json_t *pna_json_rows(const struct pna_http_view *v, const struct pna_metric_table *t);
/* Every descriptor of T with a JSON member into O (figures left out where
 * absent, as in the MIB; text that is empty stays, as ""). */
void pna_json_put_members(json_t *o, const struct pna_metric_table *t, const struct pna_row *row);

#endif
