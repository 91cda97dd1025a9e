/* collect/gpu_nvsmi.c -- `nvidia-smi -q -x` runner and parser (see gpu_nvsmi.h).
 *
 * The command is started with posix_spawn (no shell, safe from a threaded
 * process), read through a pipe with poll() against one deadline, and killed
 * with its whole process group when the deadline passes: a wedged driver makes
 * nvidia-smi hang in the kernel, and that must cost the poller nothing but the
 * deadline.  The XML is parsed with libxml2 without network or DTD loading. */
#include "core/config.h"
#include "collect/gpu_nvsmi.h"
#include "util/fileio.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xpath.h>

extern char **environ;

/* --- running the command --------------------------------------------- */

static int64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int spawn_child(const char *const argv[], int out_fd, pid_t *pid, char *err, size_t errlen)
{
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    posix_spawn_file_actions_init(&fa);
    posix_spawnattr_init(&attr);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, out_fd, 1);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    /* Its own process group, so a timeout kills what it started too; default
     * signal dispositions and an empty mask whatever the agent's threads use. */
    sigset_t none, deflt;
    sigemptyset(&none);
    sigemptyset(&deflt);
    sigaddset(&deflt, SIGPIPE);
    sigaddset(&deflt, SIGCHLD);
    sigaddset(&deflt, SIGTERM);
    sigaddset(&deflt, SIGINT);
    sigaddset(&deflt, SIGHUP);
    posix_spawnattr_setpgroup(&attr, 0);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &deflt);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
                                        POSIX_SPAWN_SETSIGDEF);
    int rc = strchr(argv[0], '/')
                 ? posix_spawn(pid, argv[0], &fa, &attr, (char *const *)argv, environ)
                 : posix_spawnp(pid, argv[0], &fa, &attr, (char *const *)argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    if (rc != 0) {
        snprintf(err, errlen, "cannot run %s: %s", argv[0], strerror(rc));
        return -1;
    }
    return 0;
}

/* Killed children that had not died yet (a task in uninterruptible sleep in
 * the driver dies only when it leaves the kernel).  They are reaped at later
 * runs instead of blocking this one. */
static pthread_mutex_t zombie_lock = PTHREAD_MUTEX_INITIALIZER;
static pid_t zombies[32];
static size_t nzombies;

static void reap_zombies(void)
{
    pthread_mutex_lock(&zombie_lock);
    for (size_t i = 0; i < nzombies;) {
        pid_t r = waitpid(zombies[i], NULL, WNOHANG);
        if (r == zombies[i] || (r < 0 && errno == ECHILD))
            zombies[i] = zombies[--nzombies];
        else
            i++;
    }
    pthread_mutex_unlock(&zombie_lock);
}

static void keep_zombie(pid_t pid)
{
    pthread_mutex_lock(&zombie_lock);
    if (nzombies < sizeof zombies / sizeof zombies[0])
        zombies[nzombies++] = pid;
    pthread_mutex_unlock(&zombie_lock);
}

/* Reap PID before DEADLINE; kills its group first when KILL_FIRST is set or
 * the deadline passes.  Returns the wait status, or -1 when unknown. */
static int reap(pid_t pid, int64_t deadline, bool kill_first, bool *killed)
{
    int status = 0;
    if (kill_first) {
        kill(-pid, SIGKILL);
        *killed = true;
        /* a killed child normally goes at once: give it a moment */
        deadline = mono_ms() + 200;
    }
    for (;;) {
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid)
            return status;
        if (r < 0 && errno != EINTR)
            return -1; /* SIGCHLD ignored by the process: status unknown */
        if (mono_ms() >= deadline) {
            if (*killed) {
                keep_zombie(pid);
                return -1;
            }
            kill(-pid, SIGKILL);
            *killed = true;
            deadline = mono_ms() + 200;
        }
        struct timespec ts = { 0, 2 * 1000000L };
        nanosleep(&ts, NULL);
    }
}

int pna_run_capture(const char *const argv[], unsigned timeout_ms, size_t max_bytes, char **out,
                    size_t *len, char *err, size_t errlen)
{
    reap_zombies();
    int pfd[2];
    if (pipe2(pfd, O_CLOEXEC) != 0) {
        snprintf(err, errlen, "pipe: %s", strerror(errno));
        return -1;
    }
    pid_t pid;
    if (spawn_child(argv, pfd[1], &pid, err, errlen) != 0) {
        close(pfd[0]);
        close(pfd[1]);
        return -1;
    }
    close(pfd[1]);

    int64_t deadline = mono_ms() + timeout_ms;
    size_t cap = 65536, got = 0;
    char *buf = malloc(cap + 1);
    bool timed_out = false, too_big = false, failed = !buf;
    while (!failed) {
        int64_t left = deadline - mono_ms();
        if (left <= 0) {
            timed_out = true;
            break;
        }
        struct pollfd p = { .fd = pfd[0], .events = POLLIN };
        int pr = poll(&p, 1, (int)(left > 1000 ? 1000 : left));
        if (pr < 0 && errno == EINTR)
            continue;
        if (pr <= 0)
            continue;
        if (got == cap) {
            if (cap >= max_bytes) {
                too_big = true;
                break;
            }
            size_t ncap = cap * 2 > max_bytes ? max_bytes : cap * 2;
            char *n = realloc(buf, ncap + 1);
            if (!n) {
                failed = true;
                break;
            }
            buf = n;
            cap = ncap;
        }
        ssize_t n = read(pfd[0], buf + got, cap - got);
        if (n == 0)
            break;
        if (n < 0) {
            if (errno == EINTR || errno == EAGAIN)
                continue;
            failed = true;
            break;
        }
        got += (size_t)n;
    }
    close(pfd[0]);
    bool killed = false;
    int status = reap(pid, deadline, timed_out || too_big || failed, &killed);
    if (!timed_out && killed && !too_big && !failed)
        timed_out = true; /* closed its output but did not exit in time */

    if (timed_out) {
        snprintf(err, errlen, "%s did not finish within %u ms (killed)", argv[0], timeout_ms);
    } else if (too_big) {
        snprintf(err, errlen, "%s wrote more than %zu bytes", argv[0], max_bytes);
    } else if (failed) {
        snprintf(err, errlen, "reading the output of %s failed", argv[0]);
    } else if (status != -1 && WIFSIGNALED(status)) {
        snprintf(err, errlen, "%s killed by signal %d", argv[0], WTERMSIG(status));
    } else if (status != -1 && WIFEXITED(status) && WEXITSTATUS(status) != 0) {
        snprintf(err, errlen, "%s exited with status %d", argv[0], WEXITSTATUS(status));
    } else {
        buf[got] = '\0';
        *out = buf;
        if (len)
            *len = got;
        return 0;
    }
    free(buf);
    return -1;
}

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

/* Distinct PIDs: a "C+G" process is listed once, MIG may list one per instance. */
static void parse_processes(struct xq *q, struct pna_gpu *g)
{
    q->ctx->node = q->gpu;
    xmlXPathObjectPtr has = xmlXPathEvalExpression((const xmlChar *)"processes", q->ctx);
    bool present = has && has->nodesetval && has->nodesetval->nodeNr > 0;
    xmlXPathFreeObject(has);
    if (!present)
        return;
    q->ctx->node = q->gpu;
    xmlXPathObjectPtr obj =
        xmlXPathEvalExpression((const xmlChar *)"processes/process_info/pid", q->ctx);
    unsigned long pids[512];
    unsigned n = 0;
    for (int i = 0; obj && obj->nodesetval && i < obj->nodesetval->nodeNr; i++) {
        xmlChar *t = xmlNodeGetContent(obj->nodesetval->nodeTab[i]);
        char *end;
        unsigned long pid = t ? strtoul((const char *)t, &end, 10) : 0;
        bool valid = t && end != (char *)t;
        xmlFree(t);
        if (!valid)
            continue;
        bool seen = false;
        for (unsigned j = 0; j < n && !seen; j++)
            seen = pids[j] == pid;
        if (!seen && n < sizeof pids / sizeof pids[0])
            pids[n++] = pid;
    }
    xmlXPathFreeObject(obj);
    g->has_processes = true;
    g->process_count = n;
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
    parse_processes(q, g);
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
