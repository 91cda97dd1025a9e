/* sources/gpu/nvml.c -- NVIDIA GPUs through NVML (see nvml.h).
 *
 * Every symbol is resolved with dlsym(); only the handful needed to find the
 * GPUs is mandatory, any other missing symbol (an older driver) or any call
 * answering NVML_ERROR_NOT_SUPPORTED leaves that figure absent.  The
 * versioned names (_v2, _v3) are the ones the library exports.  The XID
 * event set is in nvml_events.c; the thread that waits on it is the XID
 * watch's (watchers/gpu_xid.c). */
#include "pna_autoconf.h"
#include "sources/gpu/nvml_priv.h"
#include "util/fileio.h"

#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *pna_nvml_strerror(const struct pna_nvml *nv, nvmlReturn_t rc)
{
    const char *s = nv->ErrorString ? nv->ErrorString(rc) : NULL;
    return s ? s : "NVML error";
}

/* dlsym for the first name of a NULL-terminated list that the library exports. */
static void *sym_any(void *lib, const char *const *names)
{
    for (; *names; names++) {
        void *p = dlsym(lib, *names);
        if (p)
            return p;
    }
    return NULL;
}
/* POSIX's way to store dlsym()'s result in a function pointer. */
#define SYM(field, ...) \
    (*(void **)&nv->field = sym_any(nv->lib, (const char *const[]){ __VA_ARGS__, NULL }))

static void resolve_symbols(struct pna_nvml *nv)
{
    SYM(Init, "nvmlInit_v2");
    SYM(Shutdown, "nvmlShutdown");
    SYM(ErrorString, "nvmlErrorString");
    SYM(SystemGetDriverVersion, "nvmlSystemGetDriverVersion");
    SYM(SystemGetCudaDriverVersion, "nvmlSystemGetCudaDriverVersion_v2",
        "nvmlSystemGetCudaDriverVersion");
    SYM(DeviceGetCount, "nvmlDeviceGetCount_v2");
    SYM(DeviceGetHandleByIndex, "nvmlDeviceGetHandleByIndex_v2");
    SYM(DeviceGetPciInfo, "nvmlDeviceGetPciInfo_v3");
    SYM(DeviceGetName, "nvmlDeviceGetName");
    SYM(DeviceGetUUID, "nvmlDeviceGetUUID");
    SYM(DeviceGetSerial, "nvmlDeviceGetSerial");
    SYM(DeviceGetVbiosVersion, "nvmlDeviceGetVbiosVersion");
    SYM(DeviceGetMinorNumber, "nvmlDeviceGetMinorNumber");
    SYM(DeviceGetPowerUsage, "nvmlDeviceGetPowerUsage");
    SYM(DeviceGetEnforcedPowerLimit, "nvmlDeviceGetEnforcedPowerLimit");
    SYM(DeviceGetFanSpeed, "nvmlDeviceGetFanSpeed");
    SYM(DeviceGetCurrPcieLinkGeneration, "nvmlDeviceGetCurrPcieLinkGeneration");
    SYM(DeviceGetCurrPcieLinkWidth, "nvmlDeviceGetCurrPcieLinkWidth");
    SYM(DeviceGetMaxPcieLinkGeneration, "nvmlDeviceGetMaxPcieLinkGeneration");
    SYM(DeviceGetMaxPcieLinkWidth, "nvmlDeviceGetMaxPcieLinkWidth");
    SYM(DeviceGetPcieReplayCounter, "nvmlDeviceGetPcieReplayCounter");
    SYM(DeviceGetPerformanceState, "nvmlDeviceGetPerformanceState");
    SYM(DeviceGetTotalEnergyConsumption, "nvmlDeviceGetTotalEnergyConsumption");
    /* renamed in R535; the old name stays exported */
    SYM(DeviceGetClocksEventReasons, "nvmlDeviceGetCurrentClocksEventReasons",
        "nvmlDeviceGetCurrentClocksThrottleReasons");
    SYM(DeviceGetUtilizationRates, "nvmlDeviceGetUtilizationRates");
    SYM(DeviceGetMemoryInfo, "nvmlDeviceGetMemoryInfo");
    SYM(DeviceGetMemoryInfo_v2, "nvmlDeviceGetMemoryInfo_v2");
    SYM(DeviceGetTemperature, "nvmlDeviceGetTemperature");
    SYM(DeviceGetTemperatureThreshold, "nvmlDeviceGetTemperatureThreshold");
    SYM(DeviceGetFieldValues, "nvmlDeviceGetFieldValues");
    SYM(DeviceGetClockInfo, "nvmlDeviceGetClockInfo");
    SYM(DeviceGetTotalEccErrors, "nvmlDeviceGetTotalEccErrors");
    SYM(DeviceGetRetiredPages, "nvmlDeviceGetRetiredPages");
    SYM(DeviceGetRemappedRows, "nvmlDeviceGetRemappedRows");
    SYM(DeviceGetComputeProcs, "nvmlDeviceGetComputeRunningProcesses_v3",
        "nvmlDeviceGetComputeRunningProcesses_v2");
    SYM(DeviceGetGraphicsProcs, "nvmlDeviceGetGraphicsRunningProcesses_v3",
        "nvmlDeviceGetGraphicsRunningProcesses_v2");
    SYM(DeviceGetMigMode, "nvmlDeviceGetMigMode");
    SYM(DeviceGetViolationStatus, "nvmlDeviceGetViolationStatus");
    SYM(DeviceGetProcessUtilization, "nvmlDeviceGetProcessUtilization");
    SYM(DeviceGetPcieThroughput, "nvmlDeviceGetPcieThroughput");
    SYM(DeviceGetNvLinkState, "nvmlDeviceGetNvLinkState");
    SYM(DeviceGetNvLinkVersion, "nvmlDeviceGetNvLinkVersion");
    SYM(DeviceGetNvLinkRemotePciInfo, "nvmlDeviceGetNvLinkRemotePciInfo_v2");
    SYM(DeviceGetNvLinkRemoteDeviceType, "nvmlDeviceGetNvLinkRemoteDeviceType");
    SYM(DeviceGetNvLinkErrorCounter, "nvmlDeviceGetNvLinkErrorCounter");
    SYM(GpmQueryDeviceSupport, "nvmlGpmQueryDeviceSupport");
    SYM(GpmSampleAlloc, "nvmlGpmSampleAlloc");
    SYM(GpmSampleFree, "nvmlGpmSampleFree");
    SYM(GpmSampleGet, "nvmlGpmSampleGet");
    SYM(GpmMetricsGet, "nvmlGpmMetricsGet");
    SYM(DeviceGetGpuFabricInfoV, "nvmlDeviceGetGpuFabricInfoV");
    SYM(DeviceGetMaxMigDeviceCount, "nvmlDeviceGetMaxMigDeviceCount");
    SYM(DeviceGetMigDeviceHandleByIndex, "nvmlDeviceGetMigDeviceHandleByIndex");
    SYM(DeviceGetGpuInstanceId, "nvmlDeviceGetGpuInstanceId");
    SYM(DeviceGetComputeInstanceId, "nvmlDeviceGetComputeInstanceId");
    SYM(DeviceGetAttributes, "nvmlDeviceGetAttributes_v2");
    SYM(DeviceGetGpuInstanceById, "nvmlDeviceGetGpuInstanceById");
    SYM(GpuInstanceGetInfo, "nvmlGpuInstanceGetInfo");
    SYM(DeviceGetGpuInstanceProfileInfoV, "nvmlDeviceGetGpuInstanceProfileInfoV");
    SYM(GpmMigSampleGet, "nvmlGpmMigSampleGet");
    SYM(EventSetCreate, "nvmlEventSetCreate");
    SYM(DeviceRegisterEvents, "nvmlDeviceRegisterEvents");
    SYM(EventSetWait, "nvmlEventSetWait_v2");
    SYM(EventSetFree, "nvmlEventSetFree");
}

int pna_nvml_open(const char *library, struct pna_nvml **out, char *err, size_t errlen)
{
    const char *lib = library && *library ? library : "libnvidia-ml.so.1";
    struct pna_nvml *nv = calloc(1, sizeof *nv);
    if (!nv) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    nv->lib = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (!nv->lib) {
        const char *why = dlerror();
        size_t n = strlen(lib);
        /* dlerror() starts with the name again: say it once */
        if (why && strncmp(why, lib, n) == 0 && strncmp(why + n, ": ", 2) == 0)
            why += n + 2;
        snprintf(err, errlen, "cannot load %s: %s", lib, why ? why : "not found");
        free(nv);
        return PNA_NVML_ABSENT;
    }
    resolve_symbols(nv);
    if (!nv->Init || !nv->Shutdown || !nv->DeviceGetCount || !nv->DeviceGetHandleByIndex ||
        !nv->DeviceGetPciInfo) {
        snprintf(err, errlen, "%s lacks nvmlInit_v2/nvmlDeviceGetCount_v2/"
                 "nvmlDeviceGetHandleByIndex_v2/nvmlDeviceGetPciInfo_v3", lib);
        dlclose(nv->lib);
        free(nv);
        return -1;
    }
    nvmlReturn_t rc = nv->Init();
    if (rc != NVML_SUCCESS) {
        snprintf(err, errlen, "nvmlInit_v2: %s (%d)", pna_nvml_strerror(nv, rc), rc);
        dlclose(nv->lib);
        free(nv);
        /* No kernel driver or no GPU: a node without NVIDIA GPUs. */
        return rc == NVML_ERROR_DRIVER_NOT_LOADED || rc == NVML_ERROR_LIBRARY_NOT_FOUND ||
                       rc == NVML_ERROR_NOT_FOUND
                   ? PNA_NVML_ABSENT
                   : -1;
    }
    nv->initialised = true;
    *out = nv;
    return 0;
}

void pna_nvml_close(struct pna_nvml *nv)
{
    if (!nv)
        return;
    for (size_t i = 0; i < nv->nident; i++) {
        pna_nvml_activity_forget(nv, &nv->ident[i]);
        pna_nvml_mig_forget(nv, &nv->ident[i]);
    }
    if (nv->initialised)
        nv->Shutdown();
    dlclose(nv->lib);
    free(nv);
}

/* --- one GPU ---------------------------------------------------------- */

bool pna_nvml_ok(struct dev_read *r, nvmlReturn_t rc)
{
    if (rc == NVML_ERROR_GPU_IS_LOST)
        r->lost = true;
    return rc == NVML_SUCCESS;
}

static bool get_uint(struct dev_read *r, nvmlDeviceGetUInt_fn fn, uint32_t *out)
{
    unsigned int v = 0;
    if (r->lost || !fn || !pna_nvml_ok(r, fn(r->dev, &v)))
        return false;
    *out = v;
    return true;
}

static bool get_ull(struct dev_read *r, nvmlDeviceGetULL_fn fn, uint64_t *out)
{
    unsigned long long v = 0;
    if (r->lost || !fn || !pna_nvml_ok(r, fn(r->dev, &v)))
        return false;
    *out = v;
    return true;
}

void pna_nvml_get_str(struct dev_read *r, nvmlDeviceGetStr_fn fn, char *buf, size_t cap)
{
    char tmp[128] = "";
    buf[0] = '\0';
    if (r->lost || !fn || !pna_nvml_ok(r, fn(r->dev, tmp, sizeof tmp)))
        return;
    tmp[sizeof tmp - 1] = '\0';
    pna_strlcpy(buf, tmp, cap);
}

static void read_identity(struct dev_read *r, struct pna_gpu *g)
{
    struct pna_nvml *nv = r->nv;
    pna_nvml_get_str(r, nv->DeviceGetName, g->name, sizeof g->name);
    pna_nvml_get_str(r, nv->DeviceGetUUID, g->uuid, sizeof g->uuid);
    pna_nvml_get_str(r, nv->DeviceGetSerial, g->serial, sizeof g->serial);
    pna_nvml_get_str(r, nv->DeviceGetVbiosVersion, g->vbios, sizeof g->vbios);
    g->has_minor = get_uint(r, nv->DeviceGetMinorNumber, &g->minor);
}

static void read_memory(struct dev_read *r, struct pna_gpu *g)
{
    struct pna_nvml *nv = r->nv;
    if (r->lost)
        return;
    /* v2 reports the driver's reservation apart, so "used" is what
     * nvidia-smi shows; v1's used includes the reservation. */
    if (nv->DeviceGetMemoryInfo_v2) {
        nvmlMemory_v2_t m = { .version = nvmlMemory_v2 };
        if (pna_nvml_ok(r, nv->DeviceGetMemoryInfo_v2(r->dev, &m))) {
            g->has_mem_total = g->has_mem_used = g->has_mem_free = true;
            g->mem_total_bytes = m.total;
            g->mem_used_bytes = m.used;
            g->mem_free_bytes = m.free;
            return;
        }
    }
    if (!r->lost && nv->DeviceGetMemoryInfo) {
        nvmlMemory_t m;
        if (pna_nvml_ok(r, nv->DeviceGetMemoryInfo(r->dev, &m))) {
            g->has_mem_total = g->has_mem_used = g->has_mem_free = true;
            g->mem_total_bytes = m.total;
            g->mem_used_bytes = m.used;
            g->mem_free_bytes = m.free;
        }
    }
}

bool pna_nvml_field(struct dev_read *r, unsigned field, unsigned scope, long long *out)
{
    nvmlFieldValue_t fv;
    memset(&fv, 0, sizeof fv);
    fv.fieldId = field;
    fv.scopeId = scope;
    if (r->lost || !r->nv->DeviceGetFieldValues ||
        !pna_nvml_ok(r, r->nv->DeviceGetFieldValues(r->dev, 1, &fv)) || fv.nvmlReturn != NVML_SUCCESS)
        return false;
    switch (fv.valueType) {
    case NVML_VALUE_TYPE_UNSIGNED_INT: *out = fv.value.uiVal; return true;
    case NVML_VALUE_TYPE_SIGNED_INT: *out = fv.value.siVal; return true;
    case NVML_VALUE_TYPE_UNSIGNED_LONG: *out = (long long)fv.value.ulVal; return true;
    case NVML_VALUE_TYPE_UNSIGNED_LONG_LONG: *out = (long long)fv.value.ullVal; return true;
    case NVML_VALUE_TYPE_SIGNED_LONG_LONG: *out = fv.value.sllVal; return true;
    case NVML_VALUE_TYPE_DOUBLE: *out = (long long)fv.value.dVal; return true;
    default: return false;
    }
}

static void read_thermal(struct dev_read *r, struct pna_gpu *g)
{
    struct pna_nvml *nv = r->nv;
    unsigned int v;
    if (!r->lost && nv->DeviceGetTemperature &&
        pna_nvml_ok(r, nv->DeviceGetTemperature(r->dev, NVML_TEMPERATURE_GPU, &v))) {
        g->has_temp = true;
        g->temp_c = (int32_t)v;
    }
    if (!r->lost && nv->DeviceGetTemperatureThreshold &&
        pna_nvml_ok(r, nv->DeviceGetTemperatureThreshold(r->dev, NVML_TEMPERATURE_THRESHOLD_SLOWDOWN, &v))) {
        g->has_temp_slowdown = true;
        g->temp_slowdown_c = (int32_t)v;
    }
    if (!r->lost && nv->DeviceGetTemperatureThreshold &&
        pna_nvml_ok(r, nv->DeviceGetTemperatureThreshold(r->dev, NVML_TEMPERATURE_THRESHOLD_SHUTDOWN, &v))) {
        g->has_temp_shutdown = true;
        g->temp_shutdown_c = (int32_t)v;
    }
    /* HBM temperature exists only as a field value; 0 is what GPUs without
     * an HBM sensor answer on some drivers. */
    long long t;
    if (pna_nvml_field(r, NVML_FI_DEV_MEMORY_TEMP, 0, &t) && t > 0 && t < 200) {
        g->has_temp_mem = true;
        g->temp_mem_c = (int32_t)t;
    }
}

static void read_ecc(struct dev_read *r, struct pna_gpu *g)
{
    struct pna_nvml *nv = r->nv;
    unsigned long long c, u;
    if (!r->lost && nv->DeviceGetTotalEccErrors &&
        pna_nvml_ok(r, nv->DeviceGetTotalEccErrors(r->dev, NVML_MEMORY_ERROR_TYPE_CORRECTED,
                                          NVML_AGGREGATE_ECC, &c)) &&
        pna_nvml_ok(r, nv->DeviceGetTotalEccErrors(r->dev, NVML_MEMORY_ERROR_TYPE_UNCORRECTED,
                                          NVML_AGGREGATE_ECC, &u))) {
        g->has_ecc = true;
        g->ecc_corrected = c;
        g->ecc_uncorrected = u;
    }
    if (!r->lost && nv->DeviceGetTotalEccErrors &&
        pna_nvml_ok(r, nv->DeviceGetTotalEccErrors(r->dev, NVML_MEMORY_ERROR_TYPE_UNCORRECTED,
                                                   NVML_VOLATILE_ECC, &u))) {
        g->has_ecc_volatile = true;
        g->ecc_uncorrected_volatile = u;
    }
    /* Page counts only: a zero-sized buffer asks for the count. */
    unsigned int sbe = 0, dbe = 0;
    if (!r->lost && nv->DeviceGetRetiredPages) {
        nvmlReturn_t r1 = nv->DeviceGetRetiredPages(
            r->dev, NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS, &sbe, NULL);
        nvmlReturn_t r2 = r1 == NVML_SUCCESS || r1 == NVML_ERROR_INSUFFICIENT_SIZE
                              ? nv->DeviceGetRetiredPages(
                                    r->dev, NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR, &dbe,
                                    NULL)
                              : r1;
        pna_nvml_ok(r, r1);
        pna_nvml_ok(r, r2);
        if ((r1 == NVML_SUCCESS || r1 == NVML_ERROR_INSUFFICIENT_SIZE) &&
            (r2 == NVML_SUCCESS || r2 == NVML_ERROR_INSUFFICIENT_SIZE)) {
            g->has_retired_pages = true;
            g->retired_pages_sbe = sbe;
            g->retired_pages_dbe = dbe;
        }
    }
    unsigned int corr, unc, pending, failed;
    if (!r->lost && nv->DeviceGetRemappedRows &&
        pna_nvml_ok(r, nv->DeviceGetRemappedRows(r->dev, &corr, &unc, &pending, &failed))) {
        g->has_remapped_rows = true;
        g->remapped_rows_corr = corr;
        g->remapped_rows_unc = unc;
        g->remap_pending = pending != 0;
        g->remap_failure = failed != 0;
    }
}

static void read_mig_mode(struct dev_read *r, struct pna_gpu *g)
{
    struct pna_nvml *nv = r->nv;
    unsigned int cur, pend;
    if (!r->lost && nv->DeviceGetMigMode && pna_nvml_ok(r, nv->DeviceGetMigMode(r->dev, &cur, &pend))) {
        g->has_mig = true;
        g->mig_enabled = cur != 0;
    }
}

static void read_metrics(struct dev_read *r, struct nvml_ident *id, struct pna_gpu *g)
{
    struct pna_nvml *nv = r->nv;
    nvmlUtilization_t u;
    if (!r->lost && nv->DeviceGetUtilizationRates &&
        pna_nvml_ok(r, nv->DeviceGetUtilizationRates(r->dev, &u))) {
        g->has_util_gpu = g->has_util_mem = true;
        g->util_gpu_pct = u.gpu;
        g->util_mem_pct = u.memory;
    }
    read_memory(r, g);
    read_thermal(r, g);
    g->has_power = get_uint(r, nv->DeviceGetPowerUsage, &g->power_mw);
    g->has_power_limit = get_uint(r, nv->DeviceGetEnforcedPowerLimit, &g->power_limit_mw);
    g->has_energy = get_ull(r, nv->DeviceGetTotalEnergyConsumption, &g->energy_mj);
    unsigned int mhz;
    if (!r->lost && nv->DeviceGetClockInfo &&
        pna_nvml_ok(r, nv->DeviceGetClockInfo(r->dev, NVML_CLOCK_SM, &mhz))) {
        g->has_clock_sm = true;
        g->clock_sm_mhz = mhz;
    }
    if (!r->lost && nv->DeviceGetClockInfo &&
        pna_nvml_ok(r, nv->DeviceGetClockInfo(r->dev, NVML_CLOCK_MEM, &mhz))) {
        g->has_clock_mem = true;
        g->clock_mem_mhz = mhz;
    }
    g->has_fan = get_uint(r, nv->DeviceGetFanSpeed, &g->fan_pct);
    g->has_pcie_gen = get_uint(r, nv->DeviceGetCurrPcieLinkGeneration, &g->pcie_gen);
    g->has_pcie_width = get_uint(r, nv->DeviceGetCurrPcieLinkWidth, &g->pcie_width);
    /* "max" is what the GPU and its slot together allow */
    g->has_pcie_gen_max = get_uint(r, nv->DeviceGetMaxPcieLinkGeneration, &g->pcie_gen_max);
    g->has_pcie_width_max = get_uint(r, nv->DeviceGetMaxPcieLinkWidth, &g->pcie_width_max);
    int pstate;
    if (!r->lost && nv->DeviceGetPerformanceState &&
        pna_nvml_ok(r, nv->DeviceGetPerformanceState(r->dev, &pstate)) && pstate >= 0 && pstate <= 15) {
        g->has_perf_state = true;
        g->perf_state = (uint32_t)pstate;
    }
    uint32_t replay;
    if (get_uint(r, nv->DeviceGetPcieReplayCounter, &replay)) {
        g->has_pcie_replay = true;
        g->pcie_replay = replay;
    }
    read_ecc(r, g);
    g->has_throttle = get_ull(r, nv->DeviceGetClocksEventReasons, &g->throttle_reasons);
    read_mig_mode(r, g);
    pna_nvml_read_held(r, g);
    pna_nvml_read_activity(r, id, g);
    pna_nvml_read_health(r, g);
    pna_nvml_read_links(r, g);
}

/* Copy the identity part of G (what a lost GPU keeps). */
static void copy_identity(struct pna_gpu *dst, const struct pna_gpu *src)
{
    memset(dst, 0, sizeof *dst);
    dst->index = src->index;
    dst->vendor = src->vendor;
    dst->source = src->source;
    memcpy(dst->pci_bus_id, src->pci_bus_id, sizeof dst->pci_bus_id);
    dst->pci_domain = src->pci_domain;
    dst->pci_bus = src->pci_bus;
    dst->pci_dev = src->pci_dev;
    dst->pci_fn = src->pci_fn;
    dst->has_pci_ids = src->has_pci_ids;
    dst->pci_vendor_id = src->pci_vendor_id;
    dst->pci_device_id = src->pci_device_id;
    dst->pci_subsys_vendor_id = src->pci_subsys_vendor_id;
    dst->pci_subsys_device_id = src->pci_subsys_device_id;
    dst->has_vendor_index = src->has_vendor_index;
    dst->vendor_index = src->vendor_index;
    dst->has_minor = src->has_minor;
    dst->minor = src->minor;
    memcpy(dst->name, src->name, sizeof dst->name);
    memcpy(dst->uuid, src->uuid, sizeof dst->uuid);
    memcpy(dst->serial, src->serial, sizeof dst->serial);
    memcpy(dst->vbios, src->vbios, sizeof dst->vbios);
    memcpy(dst->driver_version, src->driver_version, sizeof dst->driver_version);
    memcpy(dst->cuda_version, src->cuda_version, sizeof dst->cuda_version);
}

/* Identity from the PCI info; returns false when the GPU did not answer. */
bool pna_nvml_read_pci(struct dev_read *r, struct pna_gpu *g)
{
    nvmlPciInfo_t pci;
    memset(&pci, 0, sizeof pci);
    if (!pna_nvml_ok(r, r->nv->DeviceGetPciInfo(r->dev, &pci)))
        return false;
    char busid[64];
    /* busId is "%08X:%02X:%02X.0"; the numeric fields are authoritative. */
    snprintf(busid, sizeof busid, "%x:%02x:%02x.0", pci.domain, pci.bus & 0xff, pci.device & 0x1f);
    pci.busId[sizeof pci.busId - 1] = '\0';
    if (pna_gpu_set_pci(g, pci.busId[0] ? pci.busId : busid) != 0 && pna_gpu_set_pci(g, busid) != 0)
        return false;
    g->has_pci_ids = true;
    g->pci_vendor_id = (uint16_t)(pci.pciDeviceId & 0xffff);
    g->pci_device_id = (uint16_t)(pci.pciDeviceId >> 16);
    g->pci_subsys_vendor_id = (uint16_t)(pci.pciSubSystemId & 0xffff);
    g->pci_subsys_device_id = (uint16_t)(pci.pciSubSystemId >> 16);
    return true;
}

static struct nvml_ident *ident_find(struct pna_nvml *nv, nvmlDevice_t dev)
{
    for (size_t i = 0; dev && i < nv->nident; i++)
        if (nv->ident[i].dev == dev)
            return &nv->ident[i];
    return NULL;
}

/* DEV's slot, made when it is new; NULL when the table is full. */
static struct nvml_ident *ident_slot(struct pna_nvml *nv, nvmlDevice_t dev)
{
    struct nvml_ident *e = ident_find(nv, dev);
    if (!e && nv->nident < NVML_MAX_GPUS) {
        e = &nv->ident[nv->nident++];
        memset(e, 0, sizeof *e);
        e->dev = dev;
    }
    return e;
}

static void read_versions(struct pna_nvml *nv, char *driver, size_t driver_len, char *cuda,
                          size_t cuda_len)
{
    char buf[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE] = "";
    driver[0] = cuda[0] = '\0';
    if (nv->SystemGetDriverVersion && nv->SystemGetDriverVersion(buf, sizeof buf) == NVML_SUCCESS) {
        buf[sizeof buf - 1] = '\0';
        pna_strlcpy(driver, buf, driver_len);
    }
    int v = 0;
    /* 12020 means CUDA 12.2 */
    if (nv->SystemGetCudaDriverVersion && nv->SystemGetCudaDriverVersion(&v) == NVML_SUCCESS &&
        v > 0)
        snprintf(cuda, cuda_len, "%d.%d", v / 1000, (v % 1000) / 10);
}

int pna_nvml_collect(struct pna_nvml *nv, struct pna_gpu_list *list, char *driver,
                     size_t driver_len, char *cuda, size_t cuda_len, char *err, size_t errlen)
{
    unsigned int count = 0;
    nvmlReturn_t rc = nv->DeviceGetCount(&count);
    if (rc != NVML_SUCCESS) {
        snprintf(err, errlen, "nvmlDeviceGetCount_v2: %s (%d)", pna_nvml_strerror(nv, rc), rc);
        return -1;
    }
    if (count > NVML_MAX_GPUS)
        count = NVML_MAX_GPUS;
    read_versions(nv, driver, driver_len, cuda, cuda_len);

    for (unsigned i = 0; i < count; i++) {
        struct dev_read r = { .nv = nv };
        struct pna_gpu tmp;
        memset(&tmp, 0, sizeof tmp);
        tmp.vendor = PNA_GPU_VND_NVIDIA;
        tmp.source = PNA_GPU_SRC_NVML;
        tmp.has_vendor_index = true;
        tmp.vendor_index = i;
        rc = nv->DeviceGetHandleByIndex(i, &r.dev);
        if (!pna_nvml_ok(&r, rc) && !r.lost)
            continue; /* not a GPU we can name: skip it, not the whole poll */
        struct nvml_ident *known = r.lost ? NULL : ident_find(nv, r.dev);
        bool have = !r.lost && pna_nvml_read_pci(&r, &tmp);
        if (!have) {
            /* Lost before it could name itself: keep the row it had.  Any
             * other failure: skip this GPU, not the whole poll. */
            if (!r.lost || !known || !known->id.pci_bus_id[0])
                continue;
            copy_identity(&tmp, &known->id);
            tmp.lost = true;
        } else {
            read_identity(&r, &tmp);
            pna_strlcpy(tmp.driver_version, driver, sizeof tmp.driver_version);
            pna_strlcpy(tmp.cuda_version, cuda, sizeof tmp.cuda_version);
            struct nvml_ident *slot = ident_slot(nv, r.dev);
            size_t procs_before = list->nprocs, migs_before = list->mig_count;
            if (!r.lost)
                read_metrics(&r, slot, &tmp);
            if (!r.lost)
                pna_nvml_read_procs(&r, slot, &tmp, list);
            if (!r.lost)
                pna_nvml_read_migs(&r, slot, &tmp, list);
            if (r.lost) {
                /* a lost GPU has no process or MIG rows */
                list->nprocs = procs_before;
                list->mig_count = migs_before;
            }
            if (!r.lost) {
                if (slot)
                    copy_identity(&slot->id, &tmp);
            } else {
                /* Keep only identity, the fuller one if it was named before. */
                struct pna_gpu keep = tmp;
                if (known && known->id.index == keep.index)
                    keep = known->id;
                copy_identity(&tmp, &keep);
                tmp.lost = true;
            }
        }
        struct pna_gpu *g = pna_gpu_list_add(list);
        if (!g) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        *g = tmp;
    }
    return 0;
}
