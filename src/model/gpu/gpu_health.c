/* model/gpu/gpu_health.c -- the verdict on a GPU: ok, warning, critical or
 * unknown, and the reason (see gpu.h).
 *
 * The rules, most severe first; the first that matches gives the reason
 * (docs/gpu.md lists them for operators):
 *   critical  the GPU fell off the bus or stopped answering; an XID that
 *             needs a reset or a reboot since the agent started (79: fallen
 *             off the bus); the driver recommends a reset, a reboot or a
 *             drain and reset; row remapping failed; uncorrected ECC errors
 *             since the driver loaded; NVSwitch fabric registration failed
 *   warning   a row remapping waits for a reset; the driver recommends
 *             draining peer-to-peer traffic; a link that was up is down; the
 *             PCIe link trained narrower than the GPU supports; an XID of the
 *             warning class; fabric registration not finished; at or above
 *             the slowdown temperature
 *   unknown   the source offers none of these signals
 *   ok        otherwise
 * The PCIe generation is not judged: GPUs lower it when idle to save power. */
#include "pna_autoconf.h"
#include "model/gpu/gpu.h"

#include <stdarg.h>
#include <stdio.h>

enum pna_gpu_xid_class pna_gpu_xid_class(uint32_t xid)
{
    switch (xid) {
    case 79:  /* GPU has fallen off the bus */
        return PNA_XID_REBOOT;
    case 48:  /* double-bit ECC error */
    case 61:  /* internal micro-controller breakpoint */
    case 62:  /* internal micro-controller halt */
    case 64:  /* row remapping failure */
    case 95:  /* uncontained ECC error */
    case 119: /* GSP RPC timeout */
    case 120: /* GSP error */
    case 140: /* unrecovered ECC error */
        return PNA_XID_RESET;
    case 63:  /* ECC page retirement or row remapping recorded */
    case 74:  /* NVLink error */
    case 92:  /* high single-bit ECC error rate */
    case 94:  /* contained ECC error: the application must restart */
    case 154: /* the driver's recovery action changed */
        return PNA_XID_WARNING;
    default:  /* 13, 31, 43, 45...: the application's fault, or not in the catalogue */
        return PNA_XID_APPLICATION;
    }
}

uint32_t pna_gpu_xid_worse(uint32_t a, uint32_t b)
{
    if (a == 0)
        return b;
    return pna_gpu_xid_class(b) > pna_gpu_xid_class(a) ? b : a;
}

const char *pna_gpu_verdict_name(int verdict)
{
    switch (verdict) {
    case PNA_VERDICT_OK: return "ok";
    case PNA_VERDICT_WARNING: return "warning";
    case PNA_VERDICT_CRITICAL: return "critical";
    case PNA_VERDICT_UNKNOWN: return "unknown";
    default: return "";
    }
}

struct verdict {
    enum pna_gpu_verdict health;
    char *reason;
    size_t cap;
};

/* Raise V to LEVEL (warning or critical) with its reason, unless it is
 * already there: the first rule of a level gives the reason. */
__attribute__((format(printf, 3, 4)))
static void raise_to(struct verdict *v, enum pna_gpu_verdict level, const char *fmt, ...)
{
    if (level <= v->health)
        return;
    v->health = level;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->reason, v->cap, fmt, ap);
    va_end(ap);
}

static const char *recovery_text(uint32_t action)
{
    switch (action) {
    case PNA_GPU_RECOVERY_RESET: return "a GPU reset";
    case PNA_GPU_RECOVERY_REBOOT: return "a node reboot";
    case PNA_GPU_RECOVERY_DRAIN_P2P: return "draining peer-to-peer traffic";
    case PNA_GPU_RECOVERY_DRAIN_AND_RESET: return "draining the GPU and a reset";
    default: return "nothing";
    }
}

static void judge_critical(const struct pna_gpu *g, struct verdict *v)
{
    if (g->lost)
        raise_to(v, PNA_VERDICT_CRITICAL, "the GPU fell off the bus or stopped answering");
    if (g->has_xid && pna_gpu_xid_class(g->worst_xid) >= PNA_XID_RESET)
        raise_to(v, PNA_VERDICT_CRITICAL, "XID %u since the agent started: needs %s",
                 g->worst_xid, pna_gpu_xid_class(g->worst_xid) == PNA_XID_REBOOT ? "a reboot" : "a reset");
    if (g->has_recovery_action && g->recovery_action != PNA_GPU_RECOVERY_NONE &&
        g->recovery_action != PNA_GPU_RECOVERY_DRAIN_P2P)
        raise_to(v, PNA_VERDICT_CRITICAL, "the driver recommends %s",
                 recovery_text(g->recovery_action));
    if (g->has_remapped_rows && g->remap_failure)
        raise_to(v, PNA_VERDICT_CRITICAL, "row remapping failed");
    if (g->has_ecc_volatile && g->ecc_uncorrected_volatile > 0)
        raise_to(v, PNA_VERDICT_CRITICAL, "%llu uncorrected ECC errors since the driver loaded",
                 (unsigned long long)g->ecc_uncorrected_volatile);
    if (g->has_fabric && g->fabric_failed)
        raise_to(v, PNA_VERDICT_CRITICAL, "NVSwitch fabric registration failed");
}

static void judge_links(const struct pna_gpu *g, struct verdict *v)
{
    for (uint32_t i = 0; i < g->link_count; i++)
        if (g->links[i].went_down) {
            raise_to(v, PNA_VERDICT_WARNING, "link %u is down", g->links[i].number);
            return;
        }
}

static void judge_warning(const struct pna_gpu *g, struct verdict *v)
{
    if (g->has_remapped_rows && g->remap_pending)
        raise_to(v, PNA_VERDICT_WARNING, "a row remapping waits for a GPU reset");
    if (g->has_recovery_action && g->recovery_action == PNA_GPU_RECOVERY_DRAIN_P2P)
        raise_to(v, PNA_VERDICT_WARNING, "the driver recommends %s",
                 recovery_text(g->recovery_action));
    judge_links(g, v);
    if (g->has_pcie_width && g->has_pcie_width_max && g->pcie_width < g->pcie_width_max)
        raise_to(v, PNA_VERDICT_WARNING, "PCIe link trained at x%u of x%u", g->pcie_width,
                 g->pcie_width_max);
    if (g->has_xid && pna_gpu_xid_class(g->worst_xid) == PNA_XID_WARNING)
        raise_to(v, PNA_VERDICT_WARNING, "XID %u since the agent started", g->worst_xid);
    if (g->has_fabric && !g->fabric_failed && g->fabric_state != PNA_GPU_FABRIC_COMPLETED)
        raise_to(v, PNA_VERDICT_WARNING, "NVSwitch fabric registration not finished");
    int32_t limit;
    if (pna_gpu_thermal_state(g, 0, false, &limit) == 1)
        raise_to(v, PNA_VERDICT_WARNING, "at its slowdown temperature");
}

/* Whether the source offers any signal the rules read. */
static bool has_signals(const struct pna_gpu *g)
{
    return g->lost || g->has_xid || g->has_recovery_action || g->has_remapped_rows ||
           g->has_ecc_volatile || g->has_fabric || g->link_count > 0 ||
           (g->has_pcie_width && g->has_pcie_width_max) || g->has_temp_slowdown || g->has_tlimit;
}

enum pna_gpu_verdict pna_gpu_health(const struct pna_gpu *g, char *reason, size_t cap)
{
    struct verdict v = { PNA_VERDICT_OK, reason, cap };
    if (cap)
        reason[0] = '\0';
    judge_critical(g, &v);
    judge_warning(g, &v);
    if (v.health == PNA_VERDICT_OK && !has_signals(g)) {
        v.health = PNA_VERDICT_UNKNOWN;
        snprintf(reason, cap, "the source offers no health signal");
    }
    return v.health;
}
