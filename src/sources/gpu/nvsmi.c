/* sources/gpu/nvsmi.c -- NVIDIA GPUs from `nvidia-smi -q -x`: the command is
 * run through transport/process.c (deadline, process-group kill) and its XML
 * parsed with libxml2 without network or DTD loading (see nvsmi.h). */
#include "pna_autoconf.h"
#include "sources/gpu/nvsmi.h"
#include "transport/process.h"
#include "util/fileio.h"

#include <ctype.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xpath.h>

/* --- parsing ---------------------------------------------------------- */

static pthread_once_t xml_once = PTHREAD_ONCE_INIT;

static void xml_init(void)
{
    xmlInitParser();
}

struct xq {
    xmlXPathContextPtr ctx;
    xmlNodePtr gpu;
};

/* Trimmed text of the first node EXPR selects under the GPU, or NULL. */
static const char *xq_text1(struct xq *q, xmlNodePtr at, const char *expr, char *buf, size_t cap)
{
    q->ctx->node = at;
    xmlXPathObjectPtr obj = xmlXPathEvalExpression((const xmlChar *)expr, q->ctx);
    const char *ret = NULL;
    if (obj && obj->type == XPATH_NODESET && obj->nodesetval && obj->nodesetval->nodeNr > 0) {
        xmlChar *t = xmlNodeGetContent(obj->nodesetval->nodeTab[0]);
        if (t) {
            const char *s = (const char *)t;
            while (isspace((unsigned char)*s))
                s++;
            size_t n = pna_strlcpy(buf, s, cap);
            while (n > 0 && isspace((unsigned char)buf[n - 1]))
                buf[--n] = '\0';
            xmlFree(t);
            ret = buf;
        }
    }
    xmlXPathFreeObject(obj);
    return ret;
}

/* The first of a NULL-terminated list of alternatives that exists. */
static const char *xq_text(struct xq *q, const char *const *exprs, char *buf, size_t cap)
{
    for (; *exprs; exprs++) {
        const char *t = xq_text1(q, q->gpu, *exprs, buf, cap);
        if (t)
            return t;
    }
    return NULL;
}
#define ALT(...) ((const char *const[]){ __VA_ARGS__, NULL })

/* A value nvidia-smi printed as a number, possibly with a unit after it:
 * "81559 MiB", "121.73 W", "-2 C", "16x", "0 %".  Anything else ("N/A",
 * "[Not Supported]", "Requested functionality has been deprecated") is not a
 * reading.  The result is in thousandths of the printed unit, exact for up
 * to three decimals (no floating point: 121.73 W is 121730 mW). */
static bool parse_milli(const char *s, int64_t *out)
{
    bool neg = false;
    if (*s == '-') {
        neg = true;
        s++;
    }
    if (!isdigit((unsigned char)*s))
        return false;
    int64_t v = 0;
    for (; isdigit((unsigned char)*s); s++) {
        if (v > INT64_MAX / 10 - 10)
            return false;
        v = v * 10 + (*s - '0');
    }
    int64_t frac = 0;
    int digits = 0;
    if (*s == '.') {
        for (s++; isdigit((unsigned char)*s); s++)
            if (digits < 3) {
                frac = frac * 10 + (*s - '0');
                digits++;
            }
    }
    while (digits < 3) {
        frac *= 10;
        digits++;
    }
    if (v > INT64_MAX / 1000 - 1)
        return false;
    v = v * 1000 + frac;
    *out = neg ? -v : v;
    return true;
}

static bool xq_milli(struct xq *q, const char *const *exprs, int64_t *out)
{
    char buf[128];
    const char *t = xq_text(q, exprs, buf, sizeof buf);
    return t && parse_milli(t, out);
}

static bool xq_u32(struct xq *q, const char *const *exprs, uint32_t *out)
{
    int64_t v;
    if (!xq_milli(q, exprs, &v) || v < 0 || v / 1000 > UINT32_MAX)
        return false;
    *out = (uint32_t)(v / 1000);
    return true;
}

static bool xq_i32(struct xq *q, const char *const *exprs, int32_t *out)
{
    int64_t v;
    if (!xq_milli(q, exprs, &v) || v / 1000 > INT32_MAX || v / 1000 < INT32_MIN)
        return false;
    *out = (int32_t)(v / 1000);
    return true;
}

/* MiB as printed, to bytes. */
static bool xq_mib(struct xq *q, const char *const *exprs, uint64_t *out)
{
    int64_t v;
    if (!xq_milli(q, exprs, &v) || v < 0)
        return false;
    *out = (uint64_t)v * 1048576u / 1000u;
    return true;
}

/* Watts as printed, to milliwatts. */
static bool xq_mw(struct xq *q, const char *const *exprs, uint32_t *out)
{
    int64_t v;
    if (!xq_milli(q, exprs, &v) || v < 0 || v > UINT32_MAX)
        return false;
    *out = (uint32_t)v;
    return true;
}

static void xq_str(struct xq *q, const char *const *exprs, char *dst, size_t cap)
{
    char buf[256];
    const char *t = xq_text(q, exprs, buf, sizeof buf);
    dst[0] = '\0';
    if (t && strcmp(t, "N/A") != 0 && strcmp(t, "[N/A]") != 0)
        pna_strlcpy(dst, t, cap);
}

/* Hex "233010DE": device id in the high half, vendor id in the low half. */
static void parse_pci_ids(struct xq *q, struct pna_gpu *g)
{
    char buf[64];
    const char *dev = xq_text(q, ALT("pci/pci_device_id"), buf, sizeof buf);
    char *end;
    unsigned long v = dev ? strtoul(dev, &end, 16) : 0;
    if (!dev || end == dev)
        return;
    g->has_pci_ids = true;
    g->pci_vendor_id = (uint16_t)(v & 0xffff);
    g->pci_device_id = (uint16_t)(v >> 16);
    const char *sub = xq_text(q, ALT("pci/pci_sub_system_id"), buf, sizeof buf);
    v = sub ? strtoul(sub, &end, 16) : 0;
    if (sub && end != sub) {
        g->pci_subsys_vendor_id = (uint16_t)(v & 0xffff);
        g->pci_subsys_device_id = (uint16_t)(v >> 16);
    }
}

/* Children of PARENT (selected by EXPR) whose names match; sums the numeric
 * ones into *SUM.  Returns the number matched, or -1 when one is not a
 * number (the counter is not supported). */
static int sum_children(struct xq *q, const char *expr, bool want_unc, uint64_t *sum)
{
    q->ctx->node = q->gpu;
    xmlXPathObjectPtr obj = xmlXPathEvalExpression((const xmlChar *)expr, q->ctx);
    int matched = 0;
    bool bad = false;
    for (int i = 0; obj && obj->nodesetval && i < obj->nodesetval->nodeNr; i++) {
        xmlNodePtr n = obj->nodesetval->nodeTab[i];
        const char *name = (const char *)n->name;
        bool unc = strstr(name, "uncorrectable") != NULL;
        bool cor = !unc && strstr(name, "correctable") != NULL;
        if (want_unc ? !unc : !cor)
            continue;
        xmlChar *t = xmlNodeGetContent(n);
        int64_t v;
        const char *s = t ? (const char *)t : "";
        while (isspace((unsigned char)*s))
            s++;
        if (!parse_milli(s, &v) || v < 0)
            bad = true;
        else
            *sum += (uint64_t)(v / 1000);
        matched++;
        xmlFree(t);
    }
    xmlXPathFreeObject(obj);
    return bad ? -1 : matched;
}

/* Lifetime ECC counts: v11+ split them by memory (sram_*, dram_* and, on
 * Hopper, sram_uncorrectable_parity/_secded); older schemas had
 * single_bit/total and double_bit/total. */
static void parse_ecc(struct xq *q, struct pna_gpu *g)
{
    uint64_t c = 0, u = 0;
    int nc = sum_children(q, "ecc_errors/aggregate/*", false, &c);
    int nu = sum_children(q, "ecc_errors/aggregate/*", true, &u);
    if (nc > 0 && nu > 0) {
        g->has_ecc = true;
        g->ecc_corrected = c;
        g->ecc_uncorrected = u;
        return;
    }
    if (nc < 0 || nu < 0)
        return;
    uint32_t sb, db;
    if (xq_u32(q, ALT("ecc_errors/aggregate/single_bit/total"), &sb) &&
        xq_u32(q, ALT("ecc_errors/aggregate/double_bit/total"), &db)) {
        g->has_ecc = true;
        g->ecc_corrected = sb;
        g->ecc_uncorrected = db;
    }
}

/* Reason element names end in the same words under both schema names:
 * clocks_throttle_reason_hw_slowdown (v11) / clocks_event_reason_hw_slowdown. */
static const struct {
    const char *suffix;
    uint64_t bit;
} throttle_map[] = {
    { "_gpu_idle", PNA_GPU_THROTTLE_GPU_IDLE },
    { "_applications_clocks_setting", PNA_GPU_THROTTLE_APP_CLOCKS },
    { "_sw_power_cap", PNA_GPU_THROTTLE_SW_POWER_CAP },
    { "_hw_slowdown", PNA_GPU_THROTTLE_HW_SLOWDOWN },
    { "_sync_boost", PNA_GPU_THROTTLE_SYNC_BOOST },
    { "_sw_thermal_slowdown", PNA_GPU_THROTTLE_SW_THERMAL },
    { "_hw_thermal_slowdown", PNA_GPU_THROTTLE_HW_THERMAL },
    { "_hw_power_brake_slowdown", PNA_GPU_THROTTLE_HW_POWER_BRAKE },
    { "_display_clocks_setting", PNA_GPU_THROTTLE_DISPLAY_CLOCKS },
};

static bool ends_with(const char *s, const char *suffix)
{
    size_t ls = strlen(s), lx = strlen(suffix);
    return ls >= lx && strcmp(s + ls - lx, suffix) == 0;
}

static void parse_throttle(struct xq *q, struct pna_gpu *g)
{
    q->ctx->node = q->gpu;
    xmlXPathObjectPtr obj = xmlXPathEvalExpression(
        (const xmlChar *)"clocks_event_reasons/*|clocks_throttle_reasons/*", q->ctx);
    uint64_t bits = 0;
    bool any = false;
    for (int i = 0; obj && obj->nodesetval && i < obj->nodesetval->nodeNr; i++) {
        xmlNodePtr n = obj->nodesetval->nodeTab[i];
        xmlChar *t = xmlNodeGetContent(n);
        const char *s = t ? (const char *)t : "";
        bool active = strcmp(s, "Active") == 0;
        if (active || strcmp(s, "Not Active") == 0)
            any = true;
        for (size_t k = 0; active && k < sizeof throttle_map / sizeof throttle_map[0]; k++)
            if (ends_with((const char *)n->name, throttle_map[k].suffix))
                bits |= throttle_map[k].bit;
        xmlFree(t);
    }
    xmlXPathFreeObject(obj);
    if (any) {
        g->has_throttle = true;
        g->throttle_reasons = bits;
    }
}

/* The process row of PID among LIST's rows from FIRST on, made when new. */
static struct pna_gpu_proc *proc_row(struct pna_gpu_list *list, size_t first, uint32_t pid)
{
    for (size_t i = first; i < list->nprocs; i++)
        if (list->procs[i].pid == pid)
            return &list->procs[i];
    struct pna_gpu_proc *p = pna_gpu_list_add_proc(list);
    if (p)
        p->pid = pid;
    return p;
}

/* One <process_info>: its pid, type (C, G, C+G), memory and MIG instance. */
static void parse_process(struct xq *q, xmlNodePtr info, const struct pna_gpu *g,
                          struct pna_gpu_list *list, size_t first)
{
    char buf[64];
    int64_t v;
    const char *t = xq_text1(q, info, "pid", buf, sizeof buf);
    if (!t || !parse_milli(t, &v) || v <= 0 || v > (int64_t)UINT32_MAX * 1000)
        return;
    struct pna_gpu_proc *p = proc_row(list, first, (uint32_t)(v / 1000));
    if (!p)
        return;
    p->gpu_index = g->index;
    t = xq_text1(q, info, "type", buf, sizeof buf);
    if (t && strchr(t, 'C'))
        p->type |= PNA_GPU_PROC_COMPUTE;
    if (t && strchr(t, 'G'))
        p->type |= PNA_GPU_PROC_GRAPHICS;
    t = xq_text1(q, info, "used_memory", buf, sizeof buf);
    if (t && parse_milli(t, &v) && v >= 0) {
        p->has_mem = true;
        p->mem_bytes = (uint64_t)v * 1048576u / 1000u;
    }
    int64_t gi, ci;
    const char *tg = xq_text1(q, info, "gpu_instance_id", buf, sizeof buf);
    if (tg && parse_milli(tg, &gi) && gi >= 0) {
        const char *tc = xq_text1(q, info, "compute_instance_id", buf, sizeof buf);
        if (tc && parse_milli(tc, &ci) && ci >= 0) {
            p->has_instance = true;
            p->gpu_instance = (uint32_t)(gi / 1000);
            p->compute_instance = (uint32_t)(ci / 1000);
        }
    }
}

/* The process rows of G into LIST and G's count of distinct processes: a
 * "C+G" process is listed once, MIG may list one per instance. */
static void parse_processes(struct xq *q, struct pna_gpu *g, struct pna_gpu_list *list)
{
    q->ctx->node = q->gpu;
    xmlXPathObjectPtr has = xmlXPathEvalExpression((const xmlChar *)"processes", q->ctx);
    bool present = has && has->nodesetval && has->nodesetval->nodeNr > 0;
    xmlXPathFreeObject(has);
    if (!present)
        return;
    q->ctx->node = q->gpu;
    xmlXPathObjectPtr obj =
        xmlXPathEvalExpression((const xmlChar *)"processes/process_info", q->ctx);
    size_t first = list->nprocs;
    for (int i = 0; obj && obj->nodesetval && i < obj->nodesetval->nodeNr; i++)
        parse_process(q, obj->nodesetval->nodeTab[i], g, list, first);
    xmlXPathFreeObject(obj);
    g->has_processes = true;
    g->process_count = (uint32_t)(list->nprocs - first);
}

/* nvidia-smi's clock event counters (microseconds since the driver loaded):
 * the same NVML counters the NVML source reads (nvml_activity.c). */
static const struct {
    const char *name;
    enum pna_gpu_held_cause cause;
} held_counters[] = {
    { "sw_power_cap", PNA_GPU_HELD_POWER },
    { "sync_boost", PNA_GPU_HELD_SYNC_BOOST },
    { "sw_therm_slowdown", PNA_GPU_HELD_SW_THERMAL },
    { "hw_therm_slowdown", PNA_GPU_HELD_HW_THERMAL },
    { "hw_power_brake", PNA_GPU_HELD_HW_POWER_BRAKE },
};

static void parse_held(struct xq *q, struct pna_gpu *g)
{
    for (size_t i = 0; i < sizeof held_counters / sizeof held_counters[0]; i++) {
        char expr[128], buf[64];
        int64_t v;
        snprintf(expr, sizeof expr, "clocks_event_reasons_counters/clocks_event_reasons_counters_%s",
                 held_counters[i].name);
        const char *t = xq_text1(q, q->gpu, expr, buf, sizeof buf);
        if (t && parse_milli(t, &v) && v >= 0) {
            g->has_held[held_counters[i].cause] = true;
            g->held_us[held_counters[i].cause] = (uint64_t)v / 1000u;
        }
    }
}

static void parse_recovery(struct xq *q, struct pna_gpu *g)
{
    static const struct { const char *text; enum pna_gpu_recovery action; } actions[] = {
        { "None", PNA_GPU_RECOVERY_NONE }, { "Reset", PNA_GPU_RECOVERY_RESET },
        { "Reboot", PNA_GPU_RECOVERY_REBOOT }, { "Drain P2P", PNA_GPU_RECOVERY_DRAIN_P2P },
        { "Drain and Reset", PNA_GPU_RECOVERY_DRAIN_AND_RESET },
    };
    char buf[64];
    const char *t = xq_text(q, ALT("gpu_recovery_action"), buf, sizeof buf);
    for (size_t i = 0; t && i < sizeof actions / sizeof actions[0]; i++)
        if (strcasecmp(t, actions[i].text) == 0) {
            g->has_recovery_action = true;
            g->recovery_action = actions[i].action;
        }
}

/* R570 and later print the thresholds only as T.Limit margins: tlimit is how
 * many degrees the GPU is below its maximum operating temperature now, and
 * each threshold is the margin at which it acts (-2: two degrees above that
 * maximum).  So threshold = temperature + tlimit - margin, which gives what
 * NVML reports as the absolute thresholds (an H100 on 580.159: 89 and 95 C). */
static void derive_thresholds(struct xq *q, struct pna_gpu *g)
{
    int32_t shutdown_margin;
    if (!g->has_temp || !g->has_tlimit)
        return;
    if (!g->has_temp_slowdown) {
        g->has_temp_slowdown = true;
        g->temp_slowdown_c = g->temp_c + g->temp_tlimit_c - g->temp_slowdown_tlimit_c;
    }
    if (!g->has_temp_shutdown &&
        xq_i32(q, ALT("temperature/gpu_temp_max_tlimit_threshold"), &shutdown_margin)) {
        g->has_temp_shutdown = true;
        g->temp_shutdown_c = g->temp_c + g->temp_tlimit_c - shutdown_margin;
    }
}

static void parse_temperatures(struct xq *q, struct pna_gpu *g)
{
    g->has_temp = xq_i32(q, ALT("temperature/gpu_temp"), &g->temp_c);
    g->has_temp_mem = xq_i32(q, ALT("temperature/memory_temp"), &g->temp_mem_c);
    g->has_temp_slowdown = xq_i32(q, ALT("temperature/gpu_temp_slow_threshold"),
                                  &g->temp_slowdown_c);
    g->has_temp_shutdown = xq_i32(q, ALT("temperature/gpu_temp_max_threshold"),
                                  &g->temp_shutdown_c);
    g->has_tlimit = xq_i32(q, ALT("temperature/gpu_temp_tlimit"), &g->temp_tlimit_c) &&
                    xq_i32(q, ALT("temperature/gpu_temp_slow_tlimit_threshold"),
                           &g->temp_slowdown_tlimit_c);
    derive_thresholds(q, g);
}

static void parse_power(struct xq *q, struct pna_gpu *g)
{
    /* v13 prints average and instant draw; the average is what NVML's
     * nvmlDeviceGetPowerUsage reports on those GPUs. */
    g->has_power = xq_mw(q, ALT("power_readings/power_draw", "gpu_power_readings/power_draw",
                                "gpu_power_readings/average_power_draw",
                                "gpu_power_readings/instant_power_draw"),
                         &g->power_mw);
    g->has_power_limit = xq_mw(q, ALT("power_readings/enforced_power_limit",
                                      "gpu_power_readings/enforced_power_limit",
                                      "gpu_power_readings/current_power_limit",
                                      "power_readings/power_limit"),
                               &g->power_limit_mw);
}

static void parse_memory_errors(struct xq *q, struct pna_gpu *g)
{
    parse_ecc(q, g);
    uint64_t vol = 0;
    if (sum_children(q, "ecc_errors/volatile/*", true, &vol) > 0) {
        g->has_ecc_volatile = true;
        g->ecc_uncorrected_volatile = vol;
    }
    g->has_retired_pages =
        xq_u32(q, ALT("retired_pages/multiple_single_bit_retirement/retired_count"),
               &g->retired_pages_sbe) &&
        xq_u32(q, ALT("retired_pages/double_bit_retirement/retired_count"), &g->retired_pages_dbe);
    g->has_remapped_rows =
        xq_u32(q, ALT("remapped_rows/remapped_row_corr"), &g->remapped_rows_corr) &&
        xq_u32(q, ALT("remapped_rows/remapped_row_unc"), &g->remapped_rows_unc);
    if (g->has_remapped_rows) {
        char buf[32];
        const char *p = xq_text(q, ALT("remapped_rows/remapped_row_pending"), buf, sizeof buf);
        g->remap_pending = p && strcmp(p, "Yes") == 0;
        p = xq_text(q, ALT("remapped_rows/remapped_row_failure"), buf, sizeof buf);
        g->remap_failure = p && strcmp(p, "Yes") == 0;
    }
}

static int parse_gpu(struct xq *q, struct pna_gpu *g, unsigned position)
{
    char buf[128];
    g->vendor = PNA_GPU_VND_NVIDIA;
    g->source = PNA_GPU_SRC_NVIDIA_SMI;
    /* nvidia-smi lists GPUs in its own index order */
    g->has_vendor_index = true;
    g->vendor_index = position;
    xmlChar *id = xmlGetProp(q->gpu, (const xmlChar *)"id");
    int rc = id ? pna_gpu_set_pci(g, (const char *)id) : -1;
    xmlFree(id);
    if (rc != 0) {
        const char *b = xq_text(q, ALT("pci/pci_bus_id"), buf, sizeof buf);
        if (!b || pna_gpu_set_pci(g, b) != 0)
            return -1;
    }
    parse_pci_ids(q, g);
    xq_str(q, ALT("product_name"), g->name, sizeof g->name);
    xq_str(q, ALT("uuid"), g->uuid, sizeof g->uuid);
    xq_str(q, ALT("serial"), g->serial, sizeof g->serial);
    xq_str(q, ALT("vbios_version"), g->vbios, sizeof g->vbios);
    g->has_minor = xq_u32(q, ALT("minor_number"), &g->minor);

    g->has_util_gpu = xq_u32(q, ALT("utilization/gpu_util"), &g->util_gpu_pct);
    g->has_util_mem = xq_u32(q, ALT("utilization/memory_util"), &g->util_mem_pct);
    g->has_mem_total = xq_mib(q, ALT("fb_memory_usage/total"), &g->mem_total_bytes);
    g->has_mem_used = xq_mib(q, ALT("fb_memory_usage/used"), &g->mem_used_bytes);
    g->has_mem_free = xq_mib(q, ALT("fb_memory_usage/free"), &g->mem_free_bytes);
    parse_temperatures(q, g);
    parse_power(q, g);
    g->has_clock_sm = xq_u32(q, ALT("clocks/sm_clock"), &g->clock_sm_mhz);
    g->has_clock_mem = xq_u32(q, ALT("clocks/mem_clock"), &g->clock_mem_mhz);
    g->has_fan = xq_u32(q, ALT("fan_speed"), &g->fan_pct);
    g->has_pcie_gen = xq_u32(q, ALT("pci/pci_gpu_link_info/pcie_gen/current_link_gen"),
                             &g->pcie_gen);
    g->has_pcie_width = xq_u32(q, ALT("pci/pci_gpu_link_info/link_widths/current_link_width"),
                               &g->pcie_width);
    g->has_pcie_gen_max = xq_u32(q, ALT("pci/pci_gpu_link_info/pcie_gen/max_link_gen"),
                                 &g->pcie_gen_max);
    g->has_pcie_width_max = xq_u32(q, ALT("pci/pci_gpu_link_info/link_widths/max_link_width"),
                                   &g->pcie_width_max);
    const char *ps = xq_text(q, ALT("performance_state"), buf, sizeof buf);
    int64_t pstate;
    if (ps && ps[0] == 'P' && parse_milli(ps + 1, &pstate) && pstate >= 0 && pstate <= 15000) {
        g->has_perf_state = true;
        g->perf_state = (uint32_t)(pstate / 1000);
    }
    uint32_t replay;
    if (xq_u32(q, ALT("pci/replay_counter"), &replay)) {
        g->has_pcie_replay = true;
        g->pcie_replay = replay;
    }
    parse_memory_errors(q, g);
    parse_throttle(q, g);
    parse_held(q, g);
    parse_recovery(q, g);
    const char *mig = xq_text(q, ALT("mig_mode/current_mig"), buf, sizeof buf);
    if (mig && (strcmp(mig, "Enabled") == 0 || strcmp(mig, "Disabled") == 0)) {
        g->has_mig = true;
        g->mig_enabled = strcmp(mig, "Enabled") == 0;
    }
    return 0;
}

int pna_nvsmi_parse(const char *xml, size_t len, struct pna_gpu_list *list, char *driver,
                    size_t driver_len, char *cuda, size_t cuda_len, char *err, size_t errlen)
{
    pthread_once(&xml_once, xml_init);
    driver[0] = cuda[0] = '\0';
    if (len > INT32_MAX) {
        snprintf(err, errlen, "nvidia-smi output too large");
        return -1;
    }
    /* No network, no DTD loading, no entity expansion, no error printing. */
    xmlDocPtr doc = xmlReadMemory(xml, (int)len, "nvidia-smi.xml", NULL,
                                  XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    if (!doc) {
        snprintf(err, errlen, "nvidia-smi output is not XML");
        return -1;
    }
    xmlNodePtr root = xmlDocGetRootElement(doc);
    if (!root || strcmp((const char *)root->name, "nvidia_smi_log") != 0) {
        snprintf(err, errlen, "nvidia-smi output has no <nvidia_smi_log> root");
        xmlFreeDoc(doc);
        return -1;
    }
    struct xq q = { .ctx = xmlXPathNewContext(doc), .gpu = root };
    if (!q.ctx) {
        snprintf(err, errlen, "out of memory");
        xmlFreeDoc(doc);
        return -1;
    }
    xq_str(&q, ALT("driver_version"), driver, driver_len);
    xq_str(&q, ALT("cuda_version"), cuda, cuda_len);
    int rc = 0;
    unsigned position = 0;
    for (xmlNodePtr n = root->children; n && rc == 0; n = n->next) {
        if (n->type != XML_ELEMENT_NODE || strcmp((const char *)n->name, "gpu") != 0)
            continue;
        struct pna_gpu g;
        memset(&g, 0, sizeof g);
        q.gpu = n;
        if (parse_gpu(&q, &g, position++) != 0)
            continue; /* a <gpu> without a PCI address cannot be a row */
        parse_processes(&q, &g, list);
        pna_strlcpy(g.driver_version, driver, sizeof g.driver_version);
        pna_strlcpy(g.cuda_version, cuda, sizeof g.cuda_version);
        struct pna_gpu *slot = pna_gpu_list_add(list);
        if (!slot) {
            snprintf(err, errlen, "out of memory");
            rc = -1;
        } else {
            *slot = g;
        }
    }
    xmlXPathFreeContext(q.ctx);
    xmlFreeDoc(doc);
    return rc;
}

int pna_nvsmi_collect(const char *cmd, unsigned timeout_ms, struct pna_gpu_list *list, char *driver,
                      size_t driver_len, char *cuda, size_t cuda_len, char *err, size_t errlen)
{
    const char *argv[] = { cmd, "-q", "-x", NULL };
    char *out = NULL;
    size_t len = 0;
    /* 16 GPUs with full clock tables are about 0.5 MB of XML. */
    if (pna_run_capture(argv, timeout_ms, 16u << 20, &out, &len, err, errlen) != 0)
        return -1;
    int rc = pna_nvsmi_parse(out, len, list, driver, driver_len, cuda, cuda_len, err, errlen);
    free(out);
    return rc;
}
