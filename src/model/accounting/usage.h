/* model/accounting/usage.h -- GPU accounting: what each holder of a GPU
 * (a container, a Slurm job) used of it, accumulated at every GPU poll, and
 * what nobody used (the GPU's idle residual).
 *
 * The ledger (struct pna_usage_ledger) lives in the accounting poller's state
 * and is charged once per GPU snapshot (pna_usage_charge_gpu()); its copy,
 * published as the accounting domain's snapshot, is what the front ends serve.
 * The rules (docs/gpu.md, "GPU accounting") are here and nowhere else:
 *
 *  - An interval is the time between two GPU samples.  Its energy is the
 *    increase of the GPU's own counter (NVML total energy, amdgpu
 *    energy1_input) or, where the GPU has none, its power x the interval.
 *  - A counter that went backwards, or rose more than the GPU's power limit
 *    x the interval allows (with PNA_USAGE_PHYSICS_SLACK_PCT for power
 *    excursions and sampling), charges nothing: the interval is rejected and
 *    counted, and the GPU's idle figure restarts (a new discontinuity time).
 *  - The interval's energy, held time and active time are shared between
 *    the claims on the GPU by weight over a denominator: whole (one claim,
 *    1/1), a MIG device by its slices of the GPU's slices, time slicing or
 *    MPS by each holder's processes' SM utilisation samples, or evenly.
 *    Each share is rounded down; what no claim got is the idle residual, so
 *    the holders' energy plus the idle energy is the GPU's counter, to the
 *    millijoule, for as long as the GPU's idle figure has not restarted.
 *  - When the holders at the end of an interval are not those at its start,
 *    the first half is charged to the old ones and the second to the new.
 *
 * Units are in the names: _mj millijoules, _ms milliseconds, _bp hundredths
 * of a percent.  Plain data; nothing here knows SNMP, Prometheus or JSON. */
#ifndef PNA_MODEL_ACCOUNTING_USAGE_H
#define PNA_MODEL_ACCOUNTING_USAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/cache.h"
#include "model/oids.h"

/* primusGpuUsageHolderKind (model/oids.h) */
enum pna_usage_kind {
    PNA_USAGE_CONTAINER = PNA_GPU_USAGE_HOLDER_CONTAINER,
    PNA_USAGE_SLURM_JOB = PNA_GPU_USAGE_HOLDER_SLURM_JOB,
};

/* primusGpuUsageEnergySource: where a row's energy came from */
enum pna_usage_energy_from {
    PNA_USAGE_FROM_COUNTER = 1,      /* the GPU's own energy counter */
    PNA_USAGE_FROM_POWER = 2,        /* power x time: the GPU has no counter */
};

/* primusGpuUsageShareRule: how the last interval was shared */
enum pna_usage_rule {
    PNA_USAGE_WHOLE = 1,             /* the only holder of a whole GPU */
    PNA_USAGE_MIG = 2,               /* a MIG device: its slices of the GPU's */
    PNA_USAGE_PROCESS = 3,           /* time slicing / MPS: its processes' SM samples */
    PNA_USAGE_EVEN = 4,              /* shared, no samples: evenly */
};

#define PNA_USAGE_ID_CAP 104         /* primusGpuUsageHolderId: SIZE (0..100) */
#define PNA_USAGE_NS_CAP 64
#define PNA_USAGE_POD_CAP 254
#define PNA_USAGE_NAME_CAP 128

/* Who holds: a container (by its runtime id, or "namespace/pod/container"
 * when the kubelet names it and no runtime record is seen) or a Slurm job. */
struct pna_usage_holder {
    uint8_t kind;                    /* enum pna_usage_kind */
    char id[PNA_USAGE_ID_CAP];       /* "" for a Slurm job (the job number is its id) */
    char pod_namespace[PNA_USAGE_NS_CAP];
    char pod[PNA_USAGE_POD_CAP];
    char container[PNA_USAGE_NAME_CAP];
    uint32_t job;                    /* Slurm job id; 0 none */
};

/* The running counters of one row (a holder on a GPU, a pod, a job). */
struct pna_usage_figures {
    bool has_energy;                 /* some interval had the GPU's energy (counter or power) */
    uint64_t energy_mj;
    uint64_t held_ms;                /* GPU-milliseconds held (a share of a GPU counts its share) */
    bool has_sm_active;              /* some interval had the device's activity */
    uint64_t sm_active_ms;           /* held time x the device's SM activity */
    bool has_mem;                    /* some interval had the memory it held */
    uint64_t mem_byte_s;             /* device memory x time */
    uint32_t mem_byte_ms_rem;        /* byte-milliseconds not yet a byte-second (< 1000) */
};

/* One claim on one GPU for one interval, made by the poller from the holder
 * joins at the end of the interval. */
struct pna_usage_claim {
    struct pna_usage_holder who;
    uint8_t rule;                    /* enum pna_usage_rule */
    uint64_t weight;                 /* its share: WEIGHT / the GPU's denominator */
    bool has_sm;                     /* the activity of what it holds (the GPU or its MIG device) */
    uint32_t sm_bp;
    bool has_mem;
    uint64_t mem_bytes;              /* device memory it holds */
};

/* A GPU's accounting figures: its idle residual and its last sample. */
struct pna_usage_gpu {
    uint32_t index;                  /* primusGpuIndex */
    char pci_bus_id[24];
    char uuid[80];
    uint32_t number;                 /* the gpu label (pna_gpu_number()) */
    bool present;                    /* in the last GPU snapshot */
    uint8_t energy_from;             /* enum pna_usage_energy_from */
    bool has_sample;
    int64_t sample_ms;               /* CLOCK_REALTIME of the last sample */
    uint64_t counter_mj;             /* the GPU's counter then (or the agent's own integral) */
    uint64_t idle_mj;                /* primusGpuIdleEnergy */
    uint64_t charged_mj;             /* charged to holders since CREATED_MS */
    int64_t created_ms;              /* primusGpuIdleEnergyDiscontinuityTime */
    uint64_t rejected;               /* intervals charged to nobody */
    bool restored;                   /* read from the state file: the interval up to the
                                        next sample (the agent was not running) is idle */
    /* the claims of the last interval's end (the poller's state; not copied
     * into a snapshot) */
    struct pna_usage_claim *claims;
    size_t n_claims, cap_claims;
    uint64_t denominator;
};

/* A holder on a GPU: a row of primusGpuUsageTable. */
struct pna_usage_row {
    uint32_t gpu_index;
    char pci_bus_id[24];
    char uuid[80];
    uint32_t gpu_number;
    struct pna_usage_holder who;
    uint8_t energy_from;             /* enum pna_usage_energy_from */
    uint8_t rule;                    /* enum pna_usage_rule of its last charge */
    bool held;                       /* held at the last GPU poll */
    struct pna_usage_figures f;
    int64_t created_ms;              /* ...CounterDiscontinuityTime, CLOCK_REALTIME */
    int64_t last_seen_ms;            /* last held */
};

/* A pod's or a job's sum (primusPodGpuUsageTable, primusSlurmJobGpuUsageTable):
 * charged with its rows, so it never goes down when a row ages out. */
struct pna_usage_sum {
    char pod_namespace[PNA_USAGE_NS_CAP];
    char pod[PNA_USAGE_POD_CAP];
    uint32_t job;
    struct pna_usage_figures f;
    int64_t created_ms;
    int64_t last_seen_ms;
};

struct pna_usage_ledger {
    struct pna_usage_gpu *gpus;      /* ascending index */
    size_t n_gpus, cap_gpus;
    struct pna_usage_row *rows;      /* ascending (gpu_index, kind, id, job) */
    size_t n_rows, cap_rows;
    struct pna_usage_sum *pods;      /* ascending (namespace, pod) */
    size_t n_pods, cap_pods;
    struct pna_usage_sum *jobs;      /* ascending job */
    size_t n_jobs, cap_jobs;
};

/* A GPU as one sample of it says. */
struct pna_usage_sample {
    uint32_t index;
    const char *pci_bus_id, *uuid;
    uint32_t number;
    int64_t taken_ms;
    bool has_energy;
    uint64_t energy_mj;
    bool has_power;
    uint32_t power_mw;
    bool has_power_limit;
    uint32_t power_limit_mw;
};

/* What charging one sample did. */
enum pna_usage_outcome {
    PNA_USAGE_FIRST = 0,             /* the GPU's first sample: nothing to charge yet */
    PNA_USAGE_CHARGED,
    PNA_USAGE_REJECTED,              /* backwards, or more than physics allows: WHY says */
    PNA_USAGE_NO_ENERGY,             /* no counter and no power: held time charged only */
};

/* How far above power limit x interval a counter may rise before the
 * interval is refused (see interval_energy() in usage.c). */
#define PNA_USAGE_PHYSICS_SLACK_PCT 25

/* The GPU record for sample S (added when new); NULL when out of memory. */
struct pna_usage_gpu *pna_usage_gpu_of(struct pna_usage_ledger *l, const struct pna_usage_sample *s,
                                       int64_t now_ms);

/* Charge the interval that ends with sample S of GPU G to CLAIMS (N of them,
 * weights over DENOMINATOR; N may be 0: all idle).  The claims become the
 * GPU's "last claims".  Returns the outcome; WHY is one line for a rejected
 * interval. */
enum pna_usage_outcome pna_usage_charge_gpu(struct pna_usage_ledger *l, struct pna_usage_gpu *g,
                                            const struct pna_usage_sample *s,
                                            const struct pna_usage_claim *claims, size_t n,
                                            uint64_t denominator, char *why, size_t cap);

/* Forget rows, pods and jobs not held since NOW_MS - RETENTION_MS, and GPUs
 * not present as long.  Marks every row not held. (Call before a round of
 * charges: charging marks a row held again.) */
void pna_usage_age(struct pna_usage_ledger *l, int64_t now_ms, int64_t retention_ms);

/* Split AMOUNT by WEIGHTS over DEN into OUT (each rounded down); returns
 * what is left (AMOUNT less the shares).  A sum of weights above DEN is
 * treated as DEN (shares never exceed AMOUNT). */
uint64_t pna_usage_split(uint64_t amount, const uint64_t *weights, size_t n, uint64_t den,
                         uint64_t *out);

/* The slices a MIG profile ("3g.40gb", "1c.3g.40gb") gives its compute
 * instance: its compute slices where named ("1c"), else its GPU slices
 * ("3g"); 0 when the profile does not say. */
uint32_t pna_usage_mig_slices(const char *profile);
/* The GPU slices of a GPU named NAME in MIG mode: 4 for an A30, else 7. */
uint32_t pna_usage_gpu_slices(const char *name);

/* Lookups; NULL when none. */
const struct pna_usage_gpu *pna_usage_find_gpu(const struct pna_usage_gpu *gpus, size_t n,
                                               uint32_t index);
struct pna_usage_sum *pna_usage_pod(struct pna_usage_ledger *l, const char *ns, const char *pod,
                                    bool add, int64_t now_ms);
struct pna_usage_sum *pna_usage_job(struct pna_usage_ledger *l, uint32_t job, bool add,
                                    int64_t now_ms);
struct pna_usage_row *pna_usage_row_of(struct pna_usage_ledger *l, uint32_t gpu_index,
                                       const struct pna_usage_holder *who, bool add,
                                       int64_t now_ms);

void pna_usage_ledger_free(struct pna_usage_ledger *l);

/* The accounting domain's snapshot: a copy of the ledger (no claims). */
struct pna_usage_snap {
    struct pna_snap base;
    struct pna_usage_ledger l;
};

/* The accounting figures of GPU INDEX in view V (which holds
 * PNA_DOM_ACCOUNTING), or NULL (usage_metrics.c). */
struct pna_view;
const struct pna_usage_gpu *pna_usage_gpu_in_view(const struct pna_view *v, uint32_t index);

/* A copy of L as a snapshot (one reference); NULL when out of memory. */
struct pna_usage_snap *pna_usage_snap_copy(const struct pna_usage_ledger *l, int64_t taken_ms);

#endif
