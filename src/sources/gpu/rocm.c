/* sources/gpu/rocm.c -- AMD GPUs through rocm-smi-lib (see amd.h).
 *
 * Built only with HAVE_ROCM_SMI (configure found the header); otherwise
 * pna_rocm_open() reports that it was not built and the poller uses amdgpu
 * sysfs.  The library is not linked: pna_rocm_open() dlopen()s the soname
 * configure found (PNA_ROCM_SMI_SONAME) and resolves every function, so a
 * node without an AMD GPU (the caller opens only where sysfs shows one) does
 * not map it.  (The C++ runtime it needs is mapped all the same: libxml2
 * links ICU, which is C++.)  rocm-smi-lib
 * units: power in microwatts, temperatures in millidegrees, clocks in hertz,
 * energy in counter ticks of a reported resolution (microjoules per tick). */
#include "pna_autoconf.h"
#include "sources/gpu/amd.h"
#include "util/fileio.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef HAVE_ROCM_SMI
#include <dlfcn.h>
#include <rocm_smi/rocm_smi.h>

/* The functions called, each a member of struct pna_rocm of its own type. */
#define ROCM_FUNCS(X)                                                                           \
    X(rsmi_init) X(rsmi_shut_down) X(rsmi_num_monitor_devices) X(rsmi_version_str_get)         \
    X(rsmi_dev_pci_id_get) X(rsmi_dev_id_get) X(rsmi_dev_name_get)                             \
    X(rsmi_dev_serial_number_get) X(rsmi_dev_unique_id_get) X(rsmi_dev_vbios_version_get)      \
    X(rsmi_dev_busy_percent_get) X(rsmi_dev_memory_busy_percent_get)                          \
    X(rsmi_dev_memory_total_get) X(rsmi_dev_memory_usage_get) X(rsmi_dev_xgmi_hive_id_get)    \
    X(rsmi_dev_temp_metric_get) X(rsmi_dev_power_ave_get) X(rsmi_dev_power_cap_get)           \
    X(rsmi_dev_energy_count_get) X(rsmi_dev_gpu_clk_freq_get) X(rsmi_dev_fan_speed_get)       \
    X(rsmi_dev_pci_replay_counter_get) X(rsmi_dev_ecc_count_get)

struct pna_rocm {
    void *lib;
#define ROCM_MEMBER(name) __typeof__(&name) name;
    ROCM_FUNCS(ROCM_MEMBER)
#undef ROCM_MEMBER
};

/* Every function, or the name of the first the library lacks. */
static const char *resolve(struct pna_rocm *r)
{
#define ROCM_RESOLVE(name)                                                                       \
    if (!(*(void **)&r->name = dlsym(r->lib, #name)))                                           \
        return #name;
    ROCM_FUNCS(ROCM_RESOLVE)
#undef ROCM_RESOLVE
    return NULL;
}

static void rocm_free(struct pna_rocm *r)
{
    if (r->lib)
        dlclose(r->lib);
    free(r);
}

int pna_rocm_open(struct pna_rocm **out, char *err, size_t errlen)
{
    struct pna_rocm *r = calloc(1, sizeof *r);
    if (!r) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    r->lib = dlopen(PNA_ROCM_SMI_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!r->lib) {
        snprintf(err, errlen, "rocm-smi-lib: cannot load %s: %s", PNA_ROCM_SMI_SONAME, dlerror());
        rocm_free(r);
        return -1;
    }
    const char *missing = resolve(r);
    if (missing) {
        snprintf(err, errlen, "rocm-smi-lib: %s has no %s", PNA_ROCM_SMI_SONAME, missing);
        rocm_free(r);
        return -1;
    }
    /* Status 8 (RSMI_STATUS_INIT_ERROR) is what a node without an AMD GPU
     * or without the amdgpu driver answers. */
    rsmi_status_t rc = r->rsmi_init(0);
    if (rc != RSMI_STATUS_SUCCESS) {
        snprintf(err, errlen, "rocm-smi-lib: rsmi_init failed (status %d)", (int)rc);
        rocm_free(r);
        return -1;
    }
    uint32_t n = 0;
    if (r->rsmi_num_monitor_devices(&n) != RSMI_STATUS_SUCCESS || n == 0) {
        snprintf(err, errlen, "rocm-smi-lib: no AMD GPU");
        r->rsmi_shut_down();
        rocm_free(r);
        return -1;
    }
    *out = r;
    return 0;
}

void pna_rocm_close(struct pna_rocm *rocm)
{
    if (!rocm)
        return;
    rocm->rsmi_shut_down();
    rocm_free(rocm);
}

static void read_temps(const struct pna_rocm *r, uint32_t i, struct pna_gpu *g)
{
    int64_t t;
    if (r->rsmi_dev_temp_metric_get(i, RSMI_TEMP_TYPE_EDGE, RSMI_TEMP_CURRENT, &t) ==
        RSMI_STATUS_SUCCESS) {
        g->has_temp = true;
        g->temp_c = (int32_t)(t / 1000);
    }
    if (r->rsmi_dev_temp_metric_get(i, RSMI_TEMP_TYPE_EDGE, RSMI_TEMP_CRITICAL, &t) ==
            RSMI_STATUS_SUCCESS && t > 0) {
        g->has_temp_slowdown = true;
        g->temp_slowdown_c = (int32_t)(t / 1000);
    }
    if (r->rsmi_dev_temp_metric_get(i, RSMI_TEMP_TYPE_EDGE, RSMI_TEMP_EMERGENCY, &t) ==
            RSMI_STATUS_SUCCESS && t > 0) {
        g->has_temp_shutdown = true;
        g->temp_shutdown_c = (int32_t)(t / 1000);
    }
    if (r->rsmi_dev_temp_metric_get(i, RSMI_TEMP_TYPE_JUNCTION, RSMI_TEMP_CURRENT, &t) ==
        RSMI_STATUS_SUCCESS) {
        g->has_temp_hotspot = true;
        g->temp_hotspot_c = (int32_t)(t / 1000);
    }
    if (r->rsmi_dev_temp_metric_get(i, RSMI_TEMP_TYPE_MEMORY, RSMI_TEMP_CURRENT, &t) ==
        RSMI_STATUS_SUCCESS) {
        g->has_temp_mem = true;
        g->temp_mem_c = (int32_t)(t / 1000);
    }
}

static void read_power(const struct pna_rocm *r, uint32_t i, struct pna_gpu *g)
{
    uint64_t uw;
    if (r->rsmi_dev_power_ave_get(i, 0, &uw) == RSMI_STATUS_SUCCESS) {
        g->has_power = true;
        g->power_mw = (uint32_t)(uw / 1000);
    }
    if (r->rsmi_dev_power_cap_get(i, 0, &uw) == RSMI_STATUS_SUCCESS && uw > 0) {
        g->has_power_limit = true;
        g->power_limit_mw = (uint32_t)(uw / 1000);
    }
    uint64_t ticks, ts;
    float res_uj = 0;
    if (r->rsmi_dev_energy_count_get(i, &ticks, &res_uj, &ts) == RSMI_STATUS_SUCCESS && res_uj > 0) {
        g->has_energy = true;
        g->energy_mj = (uint64_t)((double)ticks * (double)res_uj / 1000.0);
    }
}

static bool current_mhz(const struct pna_rocm *r, uint32_t i, rsmi_clk_type_t type, uint32_t *mhz)
{
    rsmi_frequencies_t f;
    memset(&f, 0, sizeof f);
    if (r->rsmi_dev_gpu_clk_freq_get(i, type, &f) != RSMI_STATUS_SUCCESS ||
        f.current >= f.num_supported || f.current >= RSMI_MAX_NUM_FREQUENCIES)
        return false;
    *mhz = (uint32_t)(f.frequency[f.current] / 1000000);
    return true;
}

static void read_device(const struct pna_rocm *r, uint32_t i, struct pna_gpu *g)
{
    uint64_t bdf;
    char buf[256];
    g->vendor = PNA_GPU_VND_AMD;
    g->source = PNA_GPU_SRC_ROCM_SMI;
    g->has_vendor_index = true;
    g->vendor_index = i;
    /* BDFID: domain << 32 | bus << 8 | device << 3 | function */
    if (r->rsmi_dev_pci_id_get(i, &bdf) == RSMI_STATUS_SUCCESS) {
        snprintf(buf, sizeof buf, "%04x:%02x:%02x.%u", (unsigned)(bdf >> 32),
                 (unsigned)((bdf >> 8) & 0xff), (unsigned)((bdf >> 3) & 0x1f),
                 (unsigned)(bdf & 7));
        pna_gpu_set_pci(g, buf);
    }
    uint16_t id;
    if (r->rsmi_dev_id_get(i, &id) == RSMI_STATUS_SUCCESS) {
        g->has_pci_ids = true;
        g->pci_vendor_id = 0x1002;
        g->pci_device_id = id;
    }
    if (r->rsmi_dev_name_get(i, buf, sizeof buf) == RSMI_STATUS_SUCCESS)
        pna_strlcpy(g->name, buf, sizeof g->name);
    if (r->rsmi_dev_serial_number_get(i, buf, sizeof buf) == RSMI_STATUS_SUCCESS)
        pna_strlcpy(g->serial, buf, sizeof g->serial);
    uint64_t uid;
    if (r->rsmi_dev_unique_id_get(i, &uid) == RSMI_STATUS_SUCCESS)
        snprintf(g->uuid, sizeof g->uuid, "0x%llx", (unsigned long long)uid);
    if (r->rsmi_dev_vbios_version_get(i, buf, sizeof buf) == RSMI_STATUS_SUCCESS)
        pna_strlcpy(g->vbios, buf, sizeof g->vbios);

    uint32_t pct;
    if (r->rsmi_dev_busy_percent_get(i, &pct) == RSMI_STATUS_SUCCESS) {
        g->has_util_gpu = true;
        g->util_gpu_pct = pct;
    }
    if (r->rsmi_dev_memory_busy_percent_get(i, &pct) == RSMI_STATUS_SUCCESS) {
        g->has_util_mem = true;
        g->util_mem_pct = pct;
    }
    uint64_t total, used;
    if (r->rsmi_dev_memory_total_get(i, RSMI_MEM_TYPE_VRAM, &total) == RSMI_STATUS_SUCCESS) {
        g->has_mem_total = true;
        g->mem_total_bytes = total;
    }
    if (r->rsmi_dev_memory_usage_get(i, RSMI_MEM_TYPE_VRAM, &used) == RSMI_STATUS_SUCCESS) {
        g->has_mem_used = true;
        g->mem_used_bytes = used;
    }
    if (g->has_mem_total && g->has_mem_used && used <= total) {
        g->has_mem_free = true;
        g->mem_free_bytes = total - used;
    }
    /* The same hive id as amdgpu's xgmi_hive_info/xgmi_hive_id; 0: none.
     * Activity, XGMI traffic, partitions and processes come from sysfs only
     * (amd_sysfs.c, amd_gpu_metrics.c, amd_kfd.c): the tested path. */
    uint64_t hive;
    if (r->rsmi_dev_xgmi_hive_id_get(i, &hive) == RSMI_STATUS_SUCCESS && hive != 0)
        snprintf(g->xgmi_hive_id, sizeof g->xgmi_hive_id, "0x%016llx", (unsigned long long)hive);
    read_temps(r, i, g);
    read_power(r, i, g);
    g->has_clock_sm = current_mhz(r, i, RSMI_CLK_TYPE_SYS, &g->clock_sm_mhz);
    g->has_clock_mem = current_mhz(r, i, RSMI_CLK_TYPE_MEM, &g->clock_mem_mhz);
    int64_t speed;
    if (r->rsmi_dev_fan_speed_get(i, 0, &speed) == RSMI_STATUS_SUCCESS && speed >= 0) {
        /* relative to RSMI_MAX_FAN_SPEED (255) */
        g->has_fan = true;
        g->fan_pct = (uint32_t)((speed * 100 + 127) / 255);
    }
    uint64_t replay;
    if (r->rsmi_dev_pci_replay_counter_get(i, &replay) == RSMI_STATUS_SUCCESS) {
        g->has_pcie_replay = true;
        g->pcie_replay = replay;
    }
    rsmi_error_count_t ec;
    if (r->rsmi_dev_ecc_count_get(i, RSMI_GPU_BLOCK_UMC, &ec) == RSMI_STATUS_SUCCESS) {
        g->has_ecc = true;
        g->ecc_corrected = ec.correctable_err;
        g->ecc_uncorrected = ec.uncorrectable_err;
    }
}

int pna_rocm_collect(struct pna_rocm *rocm, struct pna_gpu_list *list, char *driver,
                     size_t driver_len, char *err, size_t errlen)
{
    uint32_t n = 0;
    rsmi_status_t rc = rocm->rsmi_num_monitor_devices(&n);
    if (rc != RSMI_STATUS_SUCCESS) {
        snprintf(err, errlen, "rocm-smi-lib: rsmi_num_monitor_devices failed (status %d)",
                 (int)rc);
        return -1;
    }
    char ver[128] = "";
    driver[0] = '\0';
    if (rocm->rsmi_version_str_get(RSMI_SW_COMP_DRIVER, ver, sizeof ver) == RSMI_STATUS_SUCCESS)
        pna_strlcpy(driver, ver, driver_len);
    for (uint32_t i = 0; i < n; i++) {
        struct pna_gpu g;
        memset(&g, 0, sizeof g);
        read_device(rocm, i, &g);
        if (!g.pci_bus_id[0])
            continue; /* no PCI address: no stable row */
        pna_strlcpy(g.driver_version, driver, sizeof g.driver_version);
        struct pna_gpu *slot = pna_gpu_list_add(list);
        if (!slot) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        *slot = g;
    }
    return 0;
}

#else /* !HAVE_ROCM_SMI */

int pna_rocm_open(struct pna_rocm **out, char *err, size_t errlen)
{
    (void)out;
    snprintf(err, errlen, "rocm-smi-lib support not built (configure --with-rocm-smi)");
    return -1;
}

void pna_rocm_close(struct pna_rocm *rocm)
{
    (void)rocm;
}

int pna_rocm_collect(struct pna_rocm *rocm, struct pna_gpu_list *list, char *driver,
                     size_t driver_len, char *err, size_t errlen)
{
    (void)rocm;
    (void)list;
    (void)driver_len;
    driver[0] = '\0';
    snprintf(err, errlen, "rocm-smi-lib support not built");
    return -1;
}

#endif
