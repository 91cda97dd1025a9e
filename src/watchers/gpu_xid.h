/* watchers/gpu_xid.h -- NVIDIA XIDs as they happen: a thread of the watch's
 * own waits on an XID set of the NVML source (sources/gpu/nvml.h) and hands
 * each XID to the caller's function, on that thread.
 *
 * Not on the event loop (core/event_loop.h), for two reasons.  NVML's event
 * API gives no descriptor to watch: the only way in is nvmlEventSetWait(),
 * which blocks up to its timeout.  Driving it from a loop timer with a zero
 * timeout would hold each XID back until the next tick and wake the loop at
 * every tick for nothing.  And a call into NVML can hang in a sick driver --
 * an XID is when a driver is sickest (79: the GPU fell off the bus) -- which
 * on the loop's thread would stop the OOM, link and Docker watches with it.
 * So the watch keeps one thread, blocking in 500 ms slices so that a stop is
 * seen soon, and a stop that finds it stuck in the driver leaves it
 * detached.
 *
 * Dependencies are passed down: the watch holds the XID set it opened on the
 * NVML handle it was started with; its owner (the GPU poller) stops it before
 * it closes NVML, and keeps NVML (and what FN's ARG points to) when a stop
 * says the thread is stuck. */
#ifndef PNA_WATCHERS_GPU_XID_H
#define PNA_WATCHERS_GPU_XID_H

#include <stddef.h>

#include "sources/gpu/nvml.h"

struct pna_xid_watch;

/* Register every GPU of NV for XIDs and start the thread that calls FN(XID,
 * ARG) for each.  Returns 0 with *OUT, or with *OUT NULL when no GPU accepts
 * the registration or NVML has no event API (no thread); -1 with ERR. */
int pna_xid_watch_start(struct pna_nvml *nv, pna_nvml_xid_fn fn, void *arg,
                        struct pna_xid_watch **out, char *err, size_t errlen);

/* The GPUs it watches. */
size_t pna_xid_watch_gpus(const struct pna_xid_watch *w);

/* Stop the thread (within a second: it waits in 500 ms slices) and free the
 * watch: 0.  1 when the thread is stuck inside NVML after 2 s: it is left
 * detached with the watch, and NVML and FN's ARG must stay as they are.
 * NULL is allowed (0). */
int pna_xid_watch_stop(struct pna_xid_watch *w);

#endif
