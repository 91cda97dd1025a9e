/* sources/gpu/nvml_activity.c -- what NVML says about how a GPU is used and
 * held back: time throttled per cause, the engines' activity over the poll
 * interval, and the driver's own health signals (see nvml_priv.h).
 *
 * Activity comes from GPU performance monitoring (Hopper and later): one
 * sample per poll, compared with the last poll's, so the figures cover the
 * whole interval and no thread samples in between.  The first poll after a
 * start has no figures yet.  GPUs without it get PCIe throughput only
 * (nvmlDeviceGetPcieThroughput, a 20 ms window). */
#include "pna_autoconf.h"
#include "sources/gpu/nvml_priv.h"

#include <math.h>
#include <string.h>

/* ---- time held back ------------------------------------------------------------ */

static const struct {
    int policy;                    /* nvmlPerfPolicyType_t */
    enum pna_gpu_held_cause cause;
} violation_policies[] = {
    { NVML_PERF_POLICY_POWER, PNA_GPU_HELD_POWER },
    { NVML_PERF_POLICY_THERMAL, PNA_GPU_HELD_THERMAL },
    { NVML_PERF_POLICY_SYNC_BOOST, PNA_GPU_HELD_SYNC_BOOST },
    { NVML_PERF_POLICY_BOARD_LIMIT, PNA_GPU_HELD_BOARD_LIMIT },
    { NVML_PERF_POLICY_LOW_UTILIZATION, PNA_GPU_HELD_LOW_UTIL },
    { NVML_PERF_POLICY_RELIABILITY, PNA_GPU_HELD_RELIABILITY },
};

/* The clock-event counters that the violation status does not split out. */
static const struct {
    unsigned field;
    enum pna_gpu_held_cause cause;
} held_fields[] = {
    { NVML_FI_DEV_CLOCKS_EVENT_REASON_SW_THERM_SLOWDOWN, PNA_GPU_HELD_SW_THERMAL },
    { NVML_FI_DEV_CLOCKS_EVENT_REASON_HW_THERM_SLOWDOWN, PNA_GPU_HELD_HW_THERMAL },
    { NVML_FI_DEV_CLOCKS_EVENT_REASON_HW_POWER_BRAKE_SLOWDOWN, PNA_GPU_HELD_HW_POWER_BRAKE },
};

void pna_nvml_read_held(struct dev_read *r, struct pna_gpu *g)
{
    struct pna_nvml *nv = r->nv;
    for (size_t i = 0; i < sizeof violation_policies / sizeof violation_policies[0]; i++) {
        nvmlViolationTime_t vt;
        if (r->lost || !nv->DeviceGetViolationStatus ||
            !pna_nvml_ok(r, nv->DeviceGetViolationStatus(r->dev, violation_policies[i].policy, &vt)))
            continue;
        g->has_held[violation_policies[i].cause] = true;
        g->held_us[violation_policies[i].cause] = vt.violationTime / 1000; /* ns */
    }
    for (size_t i = 0; i < sizeof held_fields / sizeof held_fields[0]; i++) {
        long long ns;
        if (pna_nvml_field(r, held_fields[i].field, 0, &ns) && ns >= 0) {
            g->has_held[held_fields[i].cause] = true;
            g->held_us[held_fields[i].cause] = (uint64_t)ns / 1000;
        }
    }
}

/* ---- activity ---------------------------------------------------------------- */

static const struct {
    unsigned metric;               /* nvmlGpmMetricId_t, a percentage */
    enum pna_gpu_activity activity;
} gpm_percent[] = {
    { NVML_GPM_METRIC_GRAPHICS_UTIL, PNA_GPU_ACT_GRAPHICS },
    { NVML_GPM_METRIC_SM_UTIL, PNA_GPU_ACT_SM },
    { NVML_GPM_METRIC_SM_OCCUPANCY, PNA_GPU_ACT_SM_OCCUPANCY },
    { NVML_GPM_METRIC_ANY_TENSOR_UTIL, PNA_GPU_ACT_TENSOR },
    { NVML_GPM_METRIC_DRAM_BW_UTIL, PNA_GPU_ACT_DRAM },
    { NVML_GPM_METRIC_FP64_UTIL, PNA_GPU_ACT_FP64 },
    { NVML_GPM_METRIC_FP32_UTIL, PNA_GPU_ACT_FP32 },
    { NVML_GPM_METRIC_FP16_UTIL, PNA_GPU_ACT_FP16 },
};
#define GPM_PERCENTS (sizeof gpm_percent / sizeof gpm_percent[0])
/* Rates in MiB/s, after the percentages in the request. */
static const unsigned gpm_rates[] = {
    NVML_GPM_METRIC_PCIE_TX_PER_SEC, NVML_GPM_METRIC_PCIE_RX_PER_SEC,
    NVML_GPM_METRIC_NVLINK_TOTAL_TX_PER_SEC, NVML_GPM_METRIC_NVLINK_TOTAL_RX_PER_SEC,
};
#define GPM_RATES (sizeof gpm_rates / sizeof gpm_rates[0])

bool pna_nvml_gpm_ready(struct dev_read *r, struct nvml_ident *id)
{
    struct pna_nvml *nv = r->nv;
    if (!id || !nv->GpmQueryDeviceSupport || !nv->GpmSampleAlloc || !nv->GpmSampleGet ||
        !nv->GpmMetricsGet || !nv->GpmSampleFree)
        return false;
    if (!id->gpm_probed) {
        nvmlGpmSupport_t sup = { .version = NVML_GPM_SUPPORT_VERSION };
        id->gpm_probed = true;
        id->gpm_supported = pna_nvml_ok(r, nv->GpmQueryDeviceSupport(r->dev, &sup)) &&
                            sup.isSupportedDevice;
    }
    return id->gpm_supported;
}

/* A metric's value when it answered and is a number. */
static bool gpm_value(const nvmlGpmMetric_t *m, double *out)
{
    if (m->nvmlReturn != NVML_SUCCESS || !isfinite(m->value) || m->value < 0)
        return false;
    *out = m->value;
    return true;
}

static void gpm_fill(const nvmlGpmMetricsGet_t *mg, struct pna_gpu *g)
{
    double v;
    for (size_t i = 0; i < GPM_PERCENTS; i++)
        if (gpm_value(&mg->metrics[i], &v)) {
            g->has_activity[gpm_percent[i].activity] = true;
            g->activity_bp[gpm_percent[i].activity] = (uint32_t)((v > 100.0 ? 100.0 : v) * 100.0 + 0.5);
        }
    const nvmlGpmMetric_t *rates = &mg->metrics[GPM_PERCENTS];
    double tx, rx;
    const double mib = 1024.0 * 1024.0;
    if (gpm_value(&rates[0], &tx) && gpm_value(&rates[1], &rx)) {
        g->has_pcie_rate = true;
        g->pcie_tx_rate = (uint64_t)(tx * mib + 0.5);
        g->pcie_rx_rate = (uint64_t)(rx * mib + 0.5);
    }
    if (gpm_value(&rates[2], &tx) && gpm_value(&rates[3], &rx)) {
        g->has_nvlink_rate = true;
        g->nvlink_tx_rate = (uint64_t)(tx * mib + 0.5);
        g->nvlink_rx_rate = (uint64_t)(rx * mib + 0.5);
    }
}

/* Take this poll's sample; with the last one, fill G.  Returns whether GPM
 * is there (even when this first sample has nothing to compare with). */
static bool read_gpm(struct dev_read *r, struct nvml_ident *id, struct pna_gpu *g)
{
    struct pna_nvml *nv = r->nv;
    if (!pna_nvml_gpm_ready(r, id))
        return false;
    nvmlGpmSample_t now = NULL;
    if (!pna_nvml_ok(r, nv->GpmSampleAlloc(&now)))
        return false;
    if (!pna_nvml_ok(r, nv->GpmSampleGet(r->dev, now))) {
        nv->GpmSampleFree(now);
        return false;
    }
    if (id->gpm_have_last) {
        nvmlGpmMetricsGet_t *mg = &nv->scratch.metrics;
        memset(mg, 0, sizeof *mg);
        mg->version = NVML_GPM_METRICS_GET_VERSION;
        mg->numMetrics = GPM_PERCENTS + GPM_RATES;
        mg->sample1 = id->gpm_last;
        mg->sample2 = now;
        for (size_t i = 0; i < GPM_PERCENTS; i++)
            mg->metrics[i].metricId = gpm_percent[i].metric;
        for (size_t i = 0; i < GPM_RATES; i++)
            mg->metrics[GPM_PERCENTS + i].metricId = gpm_rates[i];
        if (pna_nvml_ok(r, nv->GpmMetricsGet(mg)))
            gpm_fill(mg, g);
    }
    pna_nvml_activity_forget(nv, id);
    id->gpm_last = now;
    id->gpm_have_last = true;
    return true;
}

static void read_pcie_throughput(struct dev_read *r, struct pna_gpu *g)
{
    struct pna_nvml *nv = r->nv;
    unsigned int tx, rx; /* KB/s */
    if (r->lost || !nv->DeviceGetPcieThroughput ||
        !pna_nvml_ok(r, nv->DeviceGetPcieThroughput(r->dev, NVML_PCIE_UTIL_TX_BYTES, &tx)) ||
        !pna_nvml_ok(r, nv->DeviceGetPcieThroughput(r->dev, NVML_PCIE_UTIL_RX_BYTES, &rx)))
        return;
    g->has_pcie_rate = true;
    g->pcie_tx_rate = (uint64_t)tx * 1024;
    g->pcie_rx_rate = (uint64_t)rx * 1024;
}

void pna_nvml_read_activity(struct dev_read *r, struct nvml_ident *id, struct pna_gpu *g)
{
    if (r->lost)
        return;
    if (!read_gpm(r, id, g))
        read_pcie_throughput(r, g);
}

/* Only the two figures primusGpuMigTable serves. */
bool pna_nvml_gpm_mig_metrics(struct dev_read *r, nvmlGpmSample_t older, nvmlGpmSample_t newer,
                              struct pna_gpu_mig *mig)
{
    nvmlGpmMetricsGet_t *mg = &r->nv->scratch.metrics;
    memset(mg, 0, sizeof *mg);
    mg->version = NVML_GPM_METRICS_GET_VERSION;
    mg->numMetrics = 2;
    mg->sample1 = older;
    mg->sample2 = newer;
    mg->metrics[0].metricId = NVML_GPM_METRIC_SM_UTIL;
    mg->metrics[1].metricId = NVML_GPM_METRIC_ANY_TENSOR_UTIL;
    if (!pna_nvml_ok(r, r->nv->GpmMetricsGet(mg)))
        return false;
    double v;
    if (gpm_value(&mg->metrics[0], &v)) {
        mig->has_sm_active = true;
        mig->sm_active_bp = (uint32_t)((v > 100.0 ? 100.0 : v) * 100.0 + 0.5);
    }
    if (gpm_value(&mg->metrics[1], &v)) {
        mig->has_tensor_active = true;
        mig->tensor_active_bp = (uint32_t)((v > 100.0 ? 100.0 : v) * 100.0 + 0.5);
    }
    return true;
}

void pna_nvml_activity_forget(struct pna_nvml *nv, struct nvml_ident *id)
{
    if (id->gpm_have_last && nv->GpmSampleFree)
        nv->GpmSampleFree(id->gpm_last);
    id->gpm_last = NULL;
    id->gpm_have_last = false;
}

/* ---- health inputs --------------------------------------------------------------- */

static bool recovery_from_nvml(long long v, uint32_t *out)
{
    switch (v) {
    case NVML_GPU_RECOVERY_ACTION_NONE: *out = PNA_GPU_RECOVERY_NONE; return true;
    case NVML_GPU_RECOVERY_ACTION_GPU_RESET: *out = PNA_GPU_RECOVERY_RESET; return true;
    case NVML_GPU_RECOVERY_ACTION_NODE_REBOOT: *out = PNA_GPU_RECOVERY_REBOOT; return true;
    case NVML_GPU_RECOVERY_ACTION_DRAIN_P2P: *out = PNA_GPU_RECOVERY_DRAIN_P2P; return true;
    case NVML_GPU_RECOVERY_ACTION_DRAIN_AND_RESET: *out = PNA_GPU_RECOVERY_DRAIN_AND_RESET; return true;
    default: return false;
    }
}

static void read_fabric(struct dev_read *r, struct pna_gpu *g)
{
    struct pna_nvml *nv = r->nv;
    nvmlGpuFabricInfoV_t fi;
    memset(&fi, 0, sizeof fi);
    fi.version = nvmlGpuFabricInfo_v2;
    if (r->lost || !nv->DeviceGetGpuFabricInfoV ||
        !pna_nvml_ok(r, nv->DeviceGetGpuFabricInfoV(r->dev, &fi)))
        return;
    switch (fi.state) {
    case NVML_GPU_FABRIC_STATE_NOT_STARTED: g->fabric_state = PNA_GPU_FABRIC_NOT_STARTED; break;
    case NVML_GPU_FABRIC_STATE_IN_PROGRESS: g->fabric_state = PNA_GPU_FABRIC_IN_PROGRESS; break;
    case NVML_GPU_FABRIC_STATE_COMPLETED: g->fabric_state = PNA_GPU_FABRIC_COMPLETED; break;
    default: return; /* not on an NVSwitch system */
    }
    g->has_fabric = true;
    g->fabric_failed = fi.state == NVML_GPU_FABRIC_STATE_COMPLETED && fi.status != NVML_SUCCESS;
}

void pna_nvml_read_health(struct dev_read *r, struct pna_gpu *g)
{
    long long v;
    if (pna_nvml_field(r, NVML_FI_DEV_GET_GPU_RECOVERY_ACTION, 0, &v) &&
        recovery_from_nvml(v, &g->recovery_action))
        g->has_recovery_action = true;
    read_fabric(r, g);
}
