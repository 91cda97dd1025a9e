/* model/gpu/gpu_idle.h -- two verdicts on the work a GPU does, decided by
 * the gpu poller at each poll and served in its snapshot:
 *
 *   idle but allocated (primusGpuIdleAllocated): the GPU has a holder (a
 *   container or pod, model/kubernetes/holders.h; or a Slurm job,
 *   model/slurm/slurm_holders.h) and its activity stayed below the
 *   threshold of accountingIdleThreshold, without a break and under the same
 *   holders, for the whole window;
 *
 *   orphan processes (primusGpuOrphanProcesses): processes on the GPU whose
 *   cgroup is known and lies in no container's cgroup and in no Slurm job's.
 *
 * The holders are found with the functions the front ends' holder columns
 * use, over the snapshots the poller was handed: the verdicts and the holder
 * columns cannot disagree about who holds a GPU in one set of snapshots.
 * Pure rules, no I/O; the poller keeps each GPU's struct pna_gpu_idle_track
 * between polls.  The rules are written in docs/gpu.md, "Idle GPUs and
 * orphan processes". */
#ifndef PNA_MODEL_GPU_IDLE_H
#define PNA_MODEL_GPU_IDLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/view.h"
#include "model/containers.h"
#include "model/gpu/gpu.h"

/* accountingIdleThreshold PERCENT [WINDOW]: below PERCENT (0..100, up to two
 * decimals, "%" allowed) for WINDOW (seconds, or with a suffix s, m, h, d;
 * up to 7 days).  PERCENT 0 turns the verdict off (nothing is below 0). */
#define PNA_GPU_IDLE_DEFAULT_BP 500u          /* 5 %, in hundredths of a percent */
#define PNA_GPU_IDLE_DEFAULT_WINDOW_S 900u    /* 15 minutes */
#define PNA_GPU_IDLE_MAX_WINDOW_S (7u * 86400u)

struct pna_gpu_idle_rule {
    bool set;                    /* written in the configuration; false: the defaults */
    uint32_t threshold_bp;       /* hundredths of a percent; 0: never idle */
    uint32_t window_s;
};

/* The config token's parser (struct pna_config_key's parse): VALUE is a
 * struct pna_gpu_idle_rule.  Returns 0, or -1 with WHY filled. */
int pna_gpu_idle_rule_parse(void *value, char *const *words, size_t nwords, char *why,
                            size_t whylen);

/* The rule in force: RULE as written, or the defaults where it was not. */
struct pna_gpu_idle_rule pna_gpu_idle_rule_effective(const struct pna_gpu_idle_rule *rule);

/* The activity the rule reads, hundredths of a percent: SM activity (NVML
 * GPU performance monitoring), else the graphics/compute engine's (AMD
 * gfx_activity, GPM), else the utilisation NVML or rocm-smi samples.  False
 * when G reports none: no verdict then. */
bool pna_gpu_idle_activity(const struct pna_gpu *g, uint32_t *bp);

/* Who holds GPU G in view V, as one number: 0 when nobody (no container,
 * pod or Slurm job), else a hash of the holders (namespace, pod, container
 * of each, and the job ids), so a change of holders restarts the window. */
uint64_t pna_gpu_idle_holders(const struct pna_view *v, const struct pna_gpu *g);

/* What the poller keeps per GPU between polls. */
struct pna_gpu_idle_track {
    uint64_t holders;            /* pna_gpu_idle_holders() at the last poll */
    bool low;                    /* held and below the threshold since LOW_SINCE_MS */
    int64_t low_since_ms;        /* CLOCK_REALTIME of the first poll that found it so */
};

enum pna_gpu_idle_verdict {
    PNA_GPU_IDLE_UNKNOWN = 0,    /* held, but the GPU reports no activity */
    PNA_GPU_IDLE_NO = 1,         /* not held, busy, or low for less than the window */
    PNA_GPU_IDLE_YES = 2,        /* held and below the threshold for the window */
};

/* One poll's step of the rule for a GPU: HOLDERS as above, the activity
 * (HAS_BP, BP) this poll read, NOW_MS the poll's time.  Updates T and
 * returns the verdict; *SINCE_MS is T's low_since_ms when the GPU is low
 * now, else 0. */
enum pna_gpu_idle_verdict pna_gpu_idle_step(const struct pna_gpu_idle_rule *rule,
                                            struct pna_gpu_idle_track *t, uint64_t holders,
                                            bool has_bp, uint32_t bp, int64_t now_ms,
                                            int64_t *since_ms);

/* Whether process P (its cgroup read from /proc) is an orphan: its cgroup
 * is known and is no container's of CS (may be NULL) and no Slurm job's. */
bool pna_gpu_proc_is_orphan(const struct pna_containers_snap *cs, const struct pna_gpu_proc *p);

#endif
