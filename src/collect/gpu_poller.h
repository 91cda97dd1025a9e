/* collect/gpu_poller.h -- the "gpu" poller: every GPU of every vendor into
 * one snapshot (struct pna_gpu_snap, model/gpu.h), plus the XID, thermal and
 * GPU-lost notifications. */
#ifndef PNA_GPU_POLLER_H
#define PNA_GPU_POLLER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/gpu.h"
#include "core/poller.h"

extern const struct pna_poller_ops pna_gpu_poller;

/* Whether G is at or above its thermal threshold: THRESHOLD_C when > 0, else
 * the GPU's own slowdown temperature (or T.Limit margin).  A GPU already hot
 * stays hot until it is HYSTERESIS_C below the threshold, so one crossing is
 * one notification.  Returns -1 when no threshold is known, else 0/1 and
 * *LIMIT_C (the absolute threshold, or the margin for T.Limit readings). */
int pna_gpu_thermal_state(const struct pna_gpu *g, int32_t threshold_c, bool was_hot,
                          int32_t *limit_c);

#define PNA_GPU_THERMAL_HYSTERESIS_C 2

#endif
