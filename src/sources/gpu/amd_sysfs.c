/* sources/gpu/amd_sysfs.c -- AMD GPUs from amdgpu's sysfs files (see amd.h).
 *
 * Walks ROOT/class/drm/cardN (connectors such as card0-DP-1 are skipped),
 * keeps the cards whose device/uevent says DRIVER=amdgpu, and reads
 * device/{gpu_busy_percent,mem_info_vram_*,...} and device/hwmon/hwmonM.
 * Kernel quirks handled: files padded with NUL bytes (text ends at the first
 * NUL), an empty unique_id, no `device` file (ids come from uevent), no hwmon
 * at all, hwmon without labels.  The render node comes from device/drm/ when
 * sysfs has it, else from the KFD topology (drm_render_minor of the node at
 * the same PCI location). */
#include "pna_autoconf.h"
#include "sources/gpu/amd.h"
#include "sources/gpu/amd_gpu_metrics.h"
#include "util/fileio.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define AMD_PCI_VENDOR 0x1002

struct card {
    const struct pna_roots *roots;
    unsigned num;            /* N of cardN */
    char hwmon[32];          /* "hwmon5", "" when none */
    struct pna_amd_gpu_metrics_refusals *refusals;   /* the caller's, or NULL */
};

/* Read ROOT/class/drm/cardN/device/<rel> as text; NUL-padded files end at the
 * first NUL.  Returns the length or a negative errno. */
static int dev_text(const struct card *c, const char *rel, char *buf, size_t cap)
{
    char path[4096];
    if (pna_path(path, sizeof path, c->roots->sysfs, "/class/drm/card%u/device/%s", c->num, rel) != 0)
        return -ENAMETOOLONG;
    int n = pna_read_text(path, buf, cap);
    if (n < 0)
        return n;
    size_t len = strnlen(buf, (size_t)n);
    while (len > 0 && (buf[len - 1] == ' ' || buf[len - 1] == '\n' || buf[len - 1] == '\t'))
        len--;
    buf[len] = '\0';
    return (int)len;
}

static bool dev_u64(const struct card *c, const char *rel, uint64_t *out)
{
    char buf[64];
    return dev_text(c, rel, buf, sizeof buf) > 0 && pna_parse_u64(buf, out) == 0;
}

static bool dev_u32(const struct card *c, const char *rel, uint32_t *out)
{
    uint64_t v;
    if (!dev_u64(c, rel, &v) || v > UINT32_MAX)
        return false;
    *out = (uint32_t)v;
    return true;
}

/* hwmon values may be negative (temp*_crit_hyst = -273150). */
static bool hwmon_i64(const struct card *c, const char *file, int64_t *out)
{
    if (!c->hwmon[0])
        return false;
    char rel[128], buf[64];
    snprintf(rel, sizeof rel, "hwmon/%s/%s", c->hwmon, file);
    if (dev_text(c, rel, buf, sizeof buf) <= 0)
        return false;
    char *end;
    errno = 0;
    long long v = strtoll(buf, &end, 10);
    if (errno || end == buf || *end)
        return false;
    *out = v;
    return true;
}

static bool hwmon_label(const struct card *c, const char *file, char *buf, size_t cap)
{
    if (!c->hwmon[0])
        return false;
    char rel[128];
    snprintf(rel, sizeof rel, "hwmon/%s/%s", c->hwmon, file);
    return dev_text(c, rel, buf, cap) > 0;
}

/* First "hwmonN" under device/hwmon, if any. */
static void find_hwmon(struct card *c)
{
    char path[4096];
    c->hwmon[0] = '\0';
    if (pna_path(path, sizeof path, c->roots->sysfs, "/class/drm/card%u/device/hwmon", c->num) != 0)
        return;
    DIR *d = opendir(path);
    if (!d)
        return;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (strncmp(de->d_name, "hwmon", 5) == 0 && de->d_name[5] &&
            strlen(de->d_name) < sizeof c->hwmon) {
            pna_strlcpy(c->hwmon, de->d_name, sizeof c->hwmon);
            break;
        }
    }
    closedir(d);
}

/* KEY=value lines of device/uevent. */
static bool uevent_value(const char *uevent, const char *key, char *buf, size_t cap)
{
    size_t kl = strlen(key);
    for (const char *p = uevent; p && *p;) {
        const char *eol = strchr(p, '\n');
        size_t ll = eol ? (size_t)(eol - p) : strlen(p);
        if (ll > kl && strncmp(p, key, kl) == 0 && p[kl] == '=') {
            size_t vl = ll - kl - 1;
            if (vl >= cap)
                vl = cap - 1;
            memcpy(buf, p + kl + 1, vl);
            buf[vl] = '\0';
            return true;
        }
        p = eol ? eol + 1 : NULL;
    }
    return false;
}

/* "cardN" exactly. */
static bool card_number(const char *name, unsigned *num)
{
    if (strncmp(name, "card", 4) != 0 || !name[4])
        return false;
    unsigned v = 0;
    for (const char *p = name + 4; *p; p++) {
        if (*p < '0' || *p > '9' || v > 100000)
            return false;
        v = v * 10 + (unsigned)(*p - '0');
    }
    *num = v;
    return true;
}

/* Identity from uevent: only amdgpu-bound cards count. */
static bool read_identity(const struct card *c, struct pna_gpu *g)
{
    char uevent[1024], val[64];
    if (dev_text(c, "uevent", uevent, sizeof uevent) <= 0)
        return false;
    if (!uevent_value(uevent, "DRIVER", val, sizeof val) || strcmp(val, "amdgpu") != 0)
        return false;
    if (!uevent_value(uevent, "PCI_SLOT_NAME", val, sizeof val) || pna_gpu_set_pci(g, val) != 0)
        return false;
    unsigned v, d, sv, sd;
    if (uevent_value(uevent, "PCI_ID", val, sizeof val) && sscanf(val, "%x:%x", &v, &d) == 2) {
        g->has_pci_ids = true;
        g->pci_vendor_id = (uint16_t)v;
        g->pci_device_id = (uint16_t)d;
        if (uevent_value(uevent, "PCI_SUBSYS_ID", val, sizeof val) &&
            sscanf(val, "%x:%x", &sv, &sd) == 2) {
            g->pci_subsys_vendor_id = (uint16_t)sv;
            g->pci_subsys_device_id = (uint16_t)sd;
        }
    }
    g->vendor = PNA_GPU_VND_AMD;
    g->source = PNA_GPU_SRC_AMDGPU_SYSFS;
    return true;
}

static void read_names(const struct card *c, struct pna_gpu *g)
{
    char buf[128];
    if (dev_text(c, "product_name", buf, sizeof buf) > 0)
        pna_strlcpy(g->name, buf, sizeof g->name);
    else if (g->has_pci_ids)
        pna_pciids_name(c->roots->rootfs, g->pci_vendor_id, g->pci_device_id, g->name,
                        sizeof g->name);
    /* an empty unique_id (APUs) means none; it is 64 bits of hex */
    char uid[40];
    if (dev_text(c, "unique_id", uid, sizeof uid) > 0)
        snprintf(g->uuid, sizeof g->uuid, "0x%s", uid);
    if (dev_text(c, "serial_number", buf, sizeof buf) > 0)
        pna_strlcpy(g->serial, buf, sizeof g->serial);
    if (dev_text(c, "vbios_version", buf, sizeof buf) > 0)
        pna_strlcpy(g->vbios, buf, sizeof g->vbios);
}

/* "16.0 GT/s PCIe" -> generation 4. */
static bool link_gen(const char *speed, uint32_t *gen)
{
    static const struct {
        const char *gts;
        uint32_t gen;
    } map[] = { { "2.5 ", 1 }, { "5.0 ", 2 }, { "8.0 ", 3 }, { "16.0 ", 4 }, { "32.0 ", 5 },
                { "64.0 ", 6 } };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (strncmp(speed, map[i].gts, strlen(map[i].gts)) == 0) {
            *gen = map[i].gen;
            return true;
        }
    return false;
}

/* The current level of a pp_dpm_* table ("1: 31Mhz *"), in MHz. */
static bool dpm_current_mhz(const struct card *c, const char *file, uint32_t *mhz)
{
    char buf[4096];
    if (dev_text(c, file, buf, sizeof buf) <= 0)
        return false;
    char *save = NULL;
    for (char *line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        unsigned level, v;
        if (strchr(line, '*') && sscanf(line, "%u: %uMhz", &level, &v) == 2) {
            *mhz = v;
            return true;
        }
    }
    return false;
}

static void read_usage(const struct card *c, struct pna_gpu *g)
{
    g->has_util_gpu = dev_u32(c, "gpu_busy_percent", &g->util_gpu_pct);
    g->has_util_mem = dev_u32(c, "mem_busy_percent", &g->util_mem_pct);
    g->has_mem_total = dev_u64(c, "mem_info_vram_total", &g->mem_total_bytes);
    g->has_mem_used = dev_u64(c, "mem_info_vram_used", &g->mem_used_bytes);
    if (g->has_mem_total && g->has_mem_used && g->mem_used_bytes <= g->mem_total_bytes) {
        g->has_mem_free = true;
        g->mem_free_bytes = g->mem_total_bytes - g->mem_used_bytes;
    }
    char buf[64];
    if (dev_text(c, "current_link_speed", buf, sizeof buf) > 0)
        g->has_pcie_gen = link_gen(buf, &g->pcie_gen);
    g->has_pcie_width = dev_u32(c, "current_link_width", &g->pcie_width);
    if (dev_text(c, "max_link_speed", buf, sizeof buf) > 0)
        g->has_pcie_gen_max = link_gen(buf, &g->pcie_gen_max);
    g->has_pcie_width_max = dev_u32(c, "max_link_width", &g->pcie_width_max);
    g->has_pcie_replay = dev_u64(c, "pcie_replay_count", &g->pcie_replay);
}

/* temp1..tempN by label: edge (also an unlabelled temp1), junction, mem. */
static void read_temperatures(const struct card *c, struct pna_gpu *g)
{
    for (int i = 1; i <= 8; i++) {
        char file[32], label[32] = "";
        int64_t mc;
        snprintf(file, sizeof file, "temp%d_input", i);
        if (!hwmon_i64(c, file, &mc))
            continue;
        snprintf(file, sizeof file, "temp%d_label", i);
        if (!hwmon_label(c, file, label, sizeof label) && i == 1)
            pna_strlcpy(label, "edge", sizeof label);
        int32_t t = (int32_t)(mc / 1000);
        if (strcmp(label, "edge") == 0) {
            g->has_temp = true;
            g->temp_c = t;
            /* the edge sensor's own limits: crit is where the SMU throttles,
             * emergency where it shuts the GPU down */
            snprintf(file, sizeof file, "temp%d_crit", i);
            if (hwmon_i64(c, file, &mc) && mc > 0) {
                g->has_temp_slowdown = true;
                g->temp_slowdown_c = (int32_t)(mc / 1000);
            }
            snprintf(file, sizeof file, "temp%d_emergency", i);
            if (hwmon_i64(c, file, &mc) && mc > 0) {
                g->has_temp_shutdown = true;
                g->temp_shutdown_c = (int32_t)(mc / 1000);
            }
        } else if (strcmp(label, "junction") == 0) {
            g->has_temp_hotspot = true;
            g->temp_hotspot_c = t;
        } else if (strcmp(label, "mem") == 0) {
            g->has_temp_mem = true;
            g->temp_mem_c = t;
        }
    }
}

static void read_hwmon(const struct card *c, struct pna_gpu *g)
{
    read_temperatures(c, g);
    int64_t v;
    /* power1_average on dGPUs, power1_input on newer APUs (both µW) */
    if ((hwmon_i64(c, "power1_average", &v) || hwmon_i64(c, "power1_input", &v)) && v >= 0) {
        g->has_power = true;
        g->power_mw = (uint32_t)(v / 1000);
    }
    if (hwmon_i64(c, "power1_cap", &v) && v > 0) {
        g->has_power_limit = true;
        g->power_limit_mw = (uint32_t)(v / 1000);
    }
    if (hwmon_i64(c, "energy1_input", &v) && v >= 0) {
        g->has_energy = true;
        g->energy_mj = (uint64_t)v / 1000;
    }
    for (int i = 1; i <= 2; i++) {
        char file[32], label[16];
        snprintf(file, sizeof file, "freq%d_label", i);
        if (!hwmon_label(c, file, label, sizeof label))
            continue;
        snprintf(file, sizeof file, "freq%d_input", i);
        if (!hwmon_i64(c, file, &v) || v < 0)
            continue;
        if (strcmp(label, "sclk") == 0) {
            g->has_clock_sm = true;
            g->clock_sm_mhz = (uint32_t)(v / 1000000);
        } else if (strcmp(label, "mclk") == 0) {
            g->has_clock_mem = true;
            g->clock_mem_mhz = (uint32_t)(v / 1000000);
        }
    }
    int64_t pwm, pwm_max;
    if (hwmon_i64(c, "pwm1", &pwm) && hwmon_i64(c, "pwm1_max", &pwm_max) && pwm_max > 0 &&
        pwm_max <= INT64_MAX / 100 && pwm >= 0 && pwm <= pwm_max) {
        g->has_fan = true;
        g->fan_pct = (uint32_t)((pwm * 100 + pwm_max / 2) / pwm_max);
    }
    if (hwmon_i64(c, "fan1_input", &v) && v >= 0) {
        g->has_fan_rpm = true;
        g->fan_rpm = (uint32_t)v;
    }
}

/* RAS counters: device/ras/<block>_err_count = "ue: N\nce: M" per block;
 * the GPU's totals are their sums. */
static void read_ras(const struct card *c, struct pna_gpu *g)
{
    char path[4096];
    if (pna_path(path, sizeof path, c->roots->sysfs, "/class/drm/card%u/device/ras", c->num) != 0)
        return;
    DIR *d = opendir(path);
    if (!d)
        return;
    uint64_t ue = 0, ce = 0;
    bool any = false;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        size_t n = strlen(de->d_name);
        if (n <= 10 || strcmp(de->d_name + n - 10, "_err_count") != 0)
            continue;
        char rel[300], buf[256];
        snprintf(rel, sizeof rel, "ras/%s", de->d_name);
        if (dev_text(c, rel, buf, sizeof buf) <= 0)
            continue;
        unsigned long long u, e;
        const char *pu = strstr(buf, "ue:"), *pc = strstr(buf, "ce:");
        if (pu && pc && sscanf(pu, "ue: %llu", &u) == 1 && sscanf(pc, "ce: %llu", &e) == 1) {
            ue += u;
            ce += e;
            any = true;
        }
    }
    closedir(d);
    if (any) {
        g->has_ecc = true;
        g->ecc_corrected = ce;
        g->ecc_uncorrected = ue;
    }
}

/* render node: device/drm/renderD* in real sysfs */
static bool render_from_sysfs(const struct card *c, struct pna_gpu *g)
{
    char path[4096];
    if (pna_path(path, sizeof path, c->roots->sysfs, "/class/drm/card%u/device/drm", c->num) != 0)
        return false;
    DIR *d = opendir(path);
    if (!d)
        return false;
    struct dirent *de;
    bool found = false;
    while (!found && (de = readdir(d)) != NULL) {
        if (strncmp(de->d_name, "renderD", 7) == 0 && de->d_name[7] &&
            strlen(de->d_name) < sizeof g->drm_render) {
            pna_strlcpy(g->drm_render, de->d_name, sizeof g->drm_render);
            found = true;
        }
    }
    closedir(d);
    return found;
}

/* render node from the KFD topology: the GPU node whose location_id
 * (bus << 8 | devfn) and domain match has drm_render_minor. */
static void render_from_kfd(const struct pna_roots *roots, struct pna_gpu *g)
{
    char path[4096];
    if (pna_path(path, sizeof path, roots->sysfs, "/class/kfd/kfd/topology/nodes") != 0)
        return;
    DIR *d = opendir(path);
    if (!d)
        return;
    uint32_t want = ((uint32_t)g->pci_bus << 8) | ((uint32_t)g->pci_dev << 3) | g->pci_fn;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.')
            continue;
        char ppath[4096 + 300], props[8192];
        snprintf(ppath, sizeof ppath, "%s/%s/properties", path, de->d_name);
        if (pna_read_text(ppath, props, sizeof props) <= 0)
            continue;
        long long loc = -1, dom = 0, minor = 0, simd = 0;
        char *save = NULL;
        for (char *line = strtok_r(props, "\n", &save); line;
             line = strtok_r(NULL, "\n", &save)) {
            sscanf(line, "location_id %lld", &loc);
            sscanf(line, "domain %lld", &dom);
            sscanf(line, "drm_render_minor %lld", &minor);
            sscanf(line, "simd_count %lld", &simd);
        }
        /* CPU nodes have no SIMDs and no render node */
        if (simd > 0 && minor > 0 && minor < 100000 && loc == (long long)want &&
            dom == (long long)g->pci_domain) {
            snprintf(g->drm_render, sizeof g->drm_render, "renderD%u", (unsigned)minor);
            break;
        }
    }
    closedir(d);
}

/* A partition mode file ("SPX", "NPS4"): a short upper-case word, anything
 * else is not a mode. */
static void read_mode(const struct card *c, const char *file, char *dst, size_t cap)
{
    static const char word[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    char buf[32];
    int n = dev_text(c, file, buf, sizeof buf);
    if (n > 0 && (size_t)n < cap && strspn(buf, word) == (size_t)n)
        pna_strlcpy(dst, buf, cap);
}

/* XGMI hive, partition modes and gpu_metrics.  The hive id is printed in
 * decimal by the driver and served in hex, as amd-smi shows it; 0: no hive. */
static void read_topology(const struct card *c, struct pna_gpu *g)
{
    uint64_t hive;
    if (dev_u64(c, "xgmi_hive_info/xgmi_hive_id", &hive) && hive != 0)
        snprintf(g->xgmi_hive_id, sizeof g->xgmi_hive_id, "0x%016llx", (unsigned long long)hive);
    read_mode(c, "current_compute_partition", g->compute_partition, sizeof g->compute_partition);
    read_mode(c, "current_memory_partition", g->memory_partition, sizeof g->memory_partition);
    /* a refused blob is counted for the caller, which logs it; the rest of
     * the GPU is served */
    char path[4096], err[160];
    if (pna_path(path, sizeof path, c->roots->sysfs, "/class/drm/card%u/device/gpu_metrics",
                 c->num) == 0)
        pna_amd_gpu_metrics_read(path, g, c->refusals, err, sizeof err);
}

static void read_driver_version(const struct pna_roots *roots, char *driver, size_t cap)
{
    char path[4096], buf[128];
    driver[0] = '\0';
    /* DKMS (ROCm) builds carry their own version; the in-tree driver is the kernel's */
    if (pna_path(path, sizeof path, roots->sysfs, "/module/amdgpu/version") == 0 &&
        pna_read_text(path, buf, sizeof buf) > 0) {
        pna_strlcpy(driver, buf, cap);
        return;
    }
    if (pna_path(path, sizeof path, roots->procfs, "/sys/kernel/osrelease") == 0 &&
        pna_read_text(path, buf, sizeof buf) > 0)
        pna_strlcpy(driver, buf, cap);
}

static int read_card(const struct pna_roots *roots, unsigned num,
                     struct pna_amd_gpu_metrics_refusals *refusals, struct pna_gpu *g)
{
    struct card c = { .roots = roots, .num = num, .refusals = refusals };
    if (!read_identity(&c, g))
        return -1;
    find_hwmon(&c);
    read_names(&c, g);
    read_usage(&c, g);
    read_hwmon(&c, g);
    read_ras(&c, g);
    read_topology(&c, g);
    if (!g->has_clock_sm)
        g->has_clock_sm = dpm_current_mhz(&c, "pp_dpm_sclk", &g->clock_sm_mhz);
    if (!g->has_clock_mem)
        g->has_clock_mem = dpm_current_mhz(&c, "pp_dpm_mclk", &g->clock_mem_mhz);
    snprintf(g->drm_card, sizeof g->drm_card, "card%u", num);
    g->has_drm_card_id = true;
    g->drm_card_id = num;
    if (!render_from_sysfs(&c, g))
        render_from_kfd(roots, g);
    return 0;
}

/* Visit every cardN under class/drm; returns -1 when the directory is unreadable. */
static int for_each_card(const struct pna_roots *roots, int (*fn)(const struct pna_roots *,
                                                                  unsigned, void *),
                         void *arg)
{
    char path[4096];
    if (pna_path(path, sizeof path, roots->sysfs, "/class/drm") != 0)
        return -1;
    DIR *d = opendir(path);
    if (!d)
        return errno == ENOENT ? 0 : -1;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        unsigned num;
        if (card_number(de->d_name, &num))
            fn(roots, num, arg);
    }
    closedir(d);
    return 0;
}

static int count_card(const struct pna_roots *roots, unsigned num, void *arg)
{
    struct pna_gpu g;
    memset(&g, 0, sizeof g);
    struct card c = { .roots = roots, .num = num };
    if (read_identity(&c, &g))
        (*(int *)arg)++;
    return 0;
}

int pna_amd_sysfs_count(const struct pna_roots *roots)
{
    int n = 0;
    for_each_card(roots, count_card, &n);
    return n;
}

struct collect_ctx {
    struct pna_gpu_list *list;
    size_t first;
    bool oom;
    struct pna_amd_gpu_metrics_refusals *refusals;
};

static int collect_card(const struct pna_roots *roots, unsigned num, void *arg)
{
    struct collect_ctx *cc = arg;
    struct pna_gpu g;
    memset(&g, 0, sizeof g);
    if (read_card(roots, num, cc->refusals, &g) != 0)
        return 0;
    struct pna_gpu *slot = pna_gpu_list_add(cc->list);
    if (!slot) {
        cc->oom = true;
        return -1;
    }
    *slot = g;
    return 0;
}

static int cmp_key(const void *a, const void *b)
{
    uint32_t x = ((const struct pna_gpu *)a)->index, y = ((const struct pna_gpu *)b)->index;
    return x < y ? -1 : x > y;
}

int pna_amd_sysfs_collect(const struct pna_roots *roots, struct pna_gpu_list *list,
                          struct pna_amd_gpu_metrics_refusals *refusals, char *driver,
                          size_t driver_len, char *err, size_t errlen)
{
    struct collect_ctx cc = { .list = list, .first = list->count, .refusals = refusals };
    if (for_each_card(roots, collect_card, &cc) != 0) {
        snprintf(err, errlen, "cannot list %s/class/drm: %s", roots->sysfs, strerror(errno));
        return -1;
    }
    if (cc.oom) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    read_driver_version(roots, driver, driver_len);
    /* rocm-smi numbers GPUs in PCI order; do the same for the informational
     * vendor index, and give every row the driver version */
    size_t n = list->count - cc.first;
    if (n > 1)
        qsort(list->gpus + cc.first, n, sizeof list->gpus[0], cmp_key);
    for (size_t i = 0; i < n; i++) {
        struct pna_gpu *g = &list->gpus[cc.first + i];
        g->has_vendor_index = true;
        g->vendor_index = (uint32_t)i;
        pna_strlcpy(g->driver_version, driver, sizeof g->driver_version);
    }
    return 0;
}

/* --- pci.ids ---------------------------------------------------------- */

/* Names found, so the database (over a megabyte) is read once per device. */
struct name_cache_entry {
    unsigned vendor, device;
    char rootfs[128];
    bool found;
    char name[96];
};
static pthread_mutex_t name_lock = PTHREAD_MUTEX_INITIALIZER;
static struct name_cache_entry name_cache[32];
static size_t name_cache_len;

static bool hex4(const char *s, unsigned *out)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        char ch = s[i];
        int d = ch >= '0' && ch <= '9' ? ch - '0'
                : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
                : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10
                                         : -1;
        if (d < 0)
            return false;
        v = v * 16 + (unsigned)d;
    }
    *out = v;
    return true;
}

static void copy_name(const char *s, const char *eol, char *buf, size_t cap)
{
    while (*s == ' ')
        s++;
    size_t n = (size_t)(eol - s);
    if (n >= cap)
        n = cap - 1;
    memcpy(buf, s, n);
    buf[n] = '\0';
}

/* The format: "vvvv  Vendor", "\tdddd  Device", "\t\tssss ssss  Subsystem".
 * The device entry is the chip's market name ("Navi 21 [Radeon RX 6800/6800
 * XT / 6900 XT]"), what rocm-smi shows as the card series. */
static bool scan_pciids(const char *db, unsigned vendor, unsigned device, char *buf, size_t cap)
{
    bool in_vendor = false;
    for (const char *p = db; *p;) {
        const char *eol = strchr(p, '\n');
        if (!eol)
            eol = p + strlen(p);
        unsigned a;
        if (p[0] != '\t' && p[0] != '#' && hex4(p, &a)) {
            if (in_vendor)
                break; /* past our vendor's block */
            in_vendor = a == vendor;
        } else if (in_vendor && p[0] == '\t' && p[1] != '\t' && hex4(p + 1, &a) && a == device) {
            copy_name(p + 5, eol, buf, cap);
            return true;
        }
        p = *eol ? eol + 1 : eol;
    }
    return false;
}

int pna_pciids_name(const char *rootfs, unsigned vendor, unsigned device, char *buf, size_t cap)
{
    const char *root = rootfs ? rootfs : "/";
    pthread_mutex_lock(&name_lock);
    for (size_t i = 0; i < name_cache_len; i++) {
        struct name_cache_entry *e = &name_cache[i];
        if (e->vendor == vendor && e->device == device && strcmp(e->rootfs, root) == 0) {
            bool found = e->found;
            if (found)
                pna_strlcpy(buf, e->name, cap);
            pthread_mutex_unlock(&name_lock);
            return found ? 0 : -1;
        }
    }
    pthread_mutex_unlock(&name_lock);

    static const char *const dbs[] = { "/usr/share/misc/pci.ids", "/usr/share/hwdata/pci.ids" };
    char name[96] = "";
    bool found = false;
    for (size_t i = 0; i < sizeof dbs / sizeof dbs[0] && !found; i++) {
        char path[4096];
        char *db = NULL;
        if (pna_path(path, sizeof path, root, "%s", dbs[i]) != 0 ||
            pna_read_alloc(path, 16u << 20, &db, NULL) != 0)
            continue;
        found = scan_pciids(db, vendor, device, name, sizeof name);
        free(db);
    }

    pthread_mutex_lock(&name_lock);
    if (name_cache_len < sizeof name_cache / sizeof name_cache[0] && strlen(root) < 128) {
        struct name_cache_entry *e = &name_cache[name_cache_len++];
        e->vendor = vendor;
        e->device = device;
        pna_strlcpy(e->rootfs, root, sizeof e->rootfs);
        e->found = found;
        pna_strlcpy(e->name, name, sizeof e->name);
    }
    pthread_mutex_unlock(&name_lock);
    if (found)
        pna_strlcpy(buf, name, cap);
    return found ? 0 : -1;
}
