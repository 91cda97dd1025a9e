/* http/metrics_body.h -- the shared part of /metrics: every family computed
 * from the cache's snapshots, rendered once per set of cache generations and
 * handed to every reader, so that memory does not grow with the number of
 * clients reading /metrics at once.
 *
 * What a body holds depends only on the snapshots of the view it was rendered
 * from (and the configured node name, fixed): the node, GPU, RDMA, PFC,
 * container and storage families.  Its key is the generation of each domain's
 * snapshot (0: none).  The agent's own families (uptime, poller status and
 * data age, events) change with the clock and the poller counters, not with
 * the snapshots: they are rendered for each request and sent after the body
 * (pna_metrics_render_agent), so a shared body never shows a stale uptime.
 *
 * A body lives while it is being sent: readers that come while another is
 * being served share it, and the last one to finish frees it (one that comes
 * later renders anew: by then the snapshots have most likely changed).
 * At most PNA_METRICS_BODIES_MAX bodies stay alive: the current one
 * and older ones still being sent to slow readers.  When a new one makes one
 * too many, pna_metrics_body_get() names the oldest, and the server cuts the
 * connections still reading it (they have been outrun by three newer
 * generations); it is freed when the library has closed them, on its next
 * round, so one more body is alive for that moment.
 *
 * Thread ownership: any thread; a lock guards the list of bodies, and a body
 * is rendered under it (the bridge has one thread, so nothing waits). */
#ifndef PNA_HTTP_METRICS_BODY_H
#define PNA_HTTP_METRICS_BODY_H

#include <stddef.h>
#include <stdint.h>

#include "http/render/render.h"

/* Alive at once (the current body and three older ones); a fifth for the
 * moment its oldest's readers are being closed. */
#define PNA_METRICS_BODIES_MAX 4

struct pna_metrics_body;

/* The body for V's snapshots, with a reference taken: the current one when V
 * has its generations, else a new one rendered now.  NULL when out of memory.
 * *CUT is set to the serial of a body whose readers must be cut, or 0. */
struct pna_metrics_body *pna_metrics_body_get(const struct pna_http_view *v, uint64_t *cut);

/* Give up a reference; the last one frees the body.  NULL is allowed. */
void pna_metrics_body_release(struct pna_metrics_body *b);

/* The body's text and length; its serial (1, 2, 3... never 0). */
const char *pna_metrics_body_data(const struct pna_metrics_body *b, size_t *len);
uint64_t pna_metrics_body_serial(const struct pna_metrics_body *b);
/* Its families' series counts and what the export control dropped from it. */
const struct pna_prom_stats *pna_metrics_body_stats(const struct pna_metrics_body *b);

/* Bodies alive (for the tests). */
size_t pna_metrics_bodies_alive(void);

/* Drop the current body (the server's stop; tests). */
void pna_metrics_body_reset(void);

#endif
