/* collect/gpu_nvml.c -- NVIDIA GPUs through NVML (see gpu_nvml.h).
 *
 * Every symbol is resolved with dlsym(); only the handful needed to find the
 * GPUs is mandatory, any other missing symbol (an older driver) or any call
 * answering NVML_ERROR_NOT_SUPPORTED leaves that figure absent.  The
 * versioned names (_v2, _v3) are the ones the library exports. */
#include "config.h"
#include "collect/gpu_nvml.h"
#include "collect/nvml_api.h"
#include "util/fileio.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NVML_MAX_GPUS 64

/* What a GPU was when last read, so a lost GPU keeps its row identity.
 * Keyed by device handle: NVML hands out the same handle for a device until
 * nvmlShutdown, whereas indexes may shift if a device leaves the list. */
struct nvml_ident {
    nvmlDevice_t dev;  /* NULL: free slot */
    struct pna_gpu id; /* identity fields only */
};

struct nvml_event_dev {
    nvmlDevice_t dev;
    struct pna_nvml_xid ident;
};

struct pna_nvml {
    void *lib;
    bool initialised;

    nvmlInit_v2_fn Init;
    nvmlShutdown_fn Shutdown;
    nvmlErrorString_fn ErrorString;
    nvmlSystemGetDriverVersion_fn SystemGetDriverVersion;
    nvmlSystemGetCudaDriverVersion_v2_fn SystemGetCudaDriverVersion;
    nvmlDeviceGetCount_v2_fn DeviceGetCount;
    nvmlDeviceGetHandleByIndex_v2_fn DeviceGetHandleByIndex;
    nvmlDeviceGetPciInfo_v3_fn DeviceGetPciInfo;
    nvmlDeviceGetStr_fn DeviceGetName, DeviceGetUUID, DeviceGetSerial, DeviceGetVbiosVersion;
    nvmlDeviceGetUInt_fn DeviceGetMinorNumber, DeviceGetPowerUsage, DeviceGetEnforcedPowerLimit,
        DeviceGetFanSpeed, DeviceGetCurrPcieLinkGeneration, DeviceGetCurrPcieLinkWidth,
        DeviceGetMaxPcieLinkGeneration, DeviceGetMaxPcieLinkWidth, DeviceGetPcieReplayCounter;
    nvmlDeviceGetPerformanceState_fn DeviceGetPerformanceState;
    nvmlDeviceGetULL_fn DeviceGetTotalEnergyConsumption, DeviceGetClocksEventReasons;
    nvmlDeviceGetUtilizationRates_fn DeviceGetUtilizationRates;
    nvmlDeviceGetMemoryInfo_fn DeviceGetMemoryInfo;
    nvmlDeviceGetMemoryInfo_v2_fn DeviceGetMemoryInfo_v2;
    nvmlDeviceGetTemperature_fn DeviceGetTemperature;
    nvmlDeviceGetTemperatureThreshold_fn DeviceGetTemperatureThreshold;
    nvmlDeviceGetFieldValues_fn DeviceGetFieldValues;
    nvmlDeviceGetClockInfo_fn DeviceGetClockInfo;
    nvmlDeviceGetTotalEccErrors_fn DeviceGetTotalEccErrors;
    nvmlDeviceGetRetiredPages_fn DeviceGetRetiredPages;
    nvmlDeviceGetRemappedRows_fn DeviceGetRemappedRows;
    nvmlDeviceGetRunningProcesses_fn DeviceGetComputeProcs, DeviceGetGraphicsProcs;
    nvmlDeviceGetMigMode_fn DeviceGetMigMode;
    nvmlEventSetCreate_fn EventSetCreate;
    nvmlDeviceRegisterEvents_fn DeviceRegisterEvents;
    nvmlEventSetWait_v2_fn EventSetWait;
    nvmlEventSetFree_fn EventSetFree;

    struct nvml_ident ident[NVML_MAX_GPUS];
    size_t nident;

    /* XID listener */
    pthread_t ev_thread;
    atomic_bool ev_running; /* thread started and not yet joined */
    atomic_bool ev_stop;
    atomic_bool ev_exited;  /* set by the thread as its last act */
    bool ev_detached;       /* a stuck listener was abandoned: never unload */
    nvmlEventSet_t ev_set;
    size_t ev_count;
    struct nvml_event_dev ev_devs[NVML_MAX_GPUS];
    pna_nvml_xid_fn ev_fn;
    void *ev_arg;
};

static const char *nvml_err(const struct pna_nvml *nv, nvmlReturn_t rc)
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
        snprintf(err, errlen, "nvmlInit_v2: %s (%d)", nvml_err(nv, rc), rc);
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

int pna_nvml_close(struct pna_nvml *nv)
{
    if (!nv)
        return 0;
    pna_nvml_events_stop(nv);
    if (nv->ev_detached)
        return 1; /* a listener is still inside the library: keep it all */
    if (nv->initialised)
        nv->Shutdown();
    dlclose(nv->lib);
    free(nv);
    return 0;
}

/* --- one GPU ---------------------------------------------------------- */

/* The result of one optional call: true when the value is valid.  A lost GPU
 * is remembered so the remaining calls are skipped. */
struct dev_read {
    struct pna_nvml *nv;
    nvmlDevice_t dev;
    bool lost;
};

static bool ok(struct dev_read *r, nvmlReturn_t rc)
{
    if (rc == NVML_ERROR_GPU_IS_LOST)
        r->lost = true;
    return rc == NVML_SUCCESS;
}

static bool get_uint(struct dev_read *r, nvmlDeviceGetUInt_fn fn, uint32_t *out)
{
    unsigned int v = 0;
    if (r->lost || !fn || !ok(r, fn(r->dev, &v)))
        return false;
    *out = v;
    return true;
}

static bool get_ull(struct dev_read *r, nvmlDeviceGetULL_fn fn, uint64_t *out)
{
    unsigned long long v = 0;
    if (r->lost || !fn || !ok(r, fn(r->dev, &v)))
        return false;
    *out = v;
    return true;
}

static void get_str(struct dev_read *r, nvmlDeviceGetStr_fn fn, char *buf, size_t cap)
{
    char tmp[128] = "";
    buf[0] = '\0';
    if (r->lost || !fn || !ok(r, fn(r->dev, tmp, sizeof tmp)))
        return;
    tmp[sizeof tmp - 1] = '\0';
    pna_strlcpy(buf, tmp, cap);
}

static void read_identity(struct dev_read *r, struct pna_gpu *g)
{
    struct pna_nvml *nv = r->nv;
    get_str(r, nv->DeviceGetName, g->name, sizeof g->name);
    get_str(r, nv->DeviceGetUUID, g->uuid, sizeof g->uuid);
    get_str(r, nv->DeviceGetSerial, g->serial, sizeof g->serial);
    get_str(r, nv->DeviceGetVbiosVersion, g->vbios, sizeof g->vbios);
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
        if (ok(r, nv->DeviceGetMemoryInfo_v2(r->dev, &m))) {
            g->has_mem_total = g->has_mem_used = g->has_mem_free = true;
            g->mem_total_bytes = m.total;
            g->mem_used_bytes = m.used;
            g->mem_free_bytes = m.free;
            return;
        }
    }
    if (!r->lost && nv->DeviceGetMemoryInfo) {
        nvmlMemory_t m;
        if (ok(r, nv->DeviceGetMemoryInfo(r->dev, &m))) {
            g->has_mem_total = g->has_mem_used = g->has_mem_free = true;
            g->mem_total_bytes = m.total;
            g->mem_used_bytes = m.used;
            g->mem_free_bytes = m.free;
        }
    }
}

static void read_thermal(struct dev_read *r, struct pna_gpu *g)
{
    struct pna_nvml *nv = r->nv;
    unsigned int v;
    if (!r->lost && nv->DeviceGetTemperature &&
        ok(r, nv->DeviceGetTemperature(r->dev, NVML_TEMPERATURE_GPU, &v))) {
        g->has_temp = true;
        g->temp_c = (int32_t)v;
    }
    if (!r->lost && nv->DeviceGetTemperatureThreshold &&
        ok(r, nv->DeviceGetTemperatureThreshold(r->dev, NVML_TEMPERATURE_THRESHOLD_SLOWDOWN, &v))) {
        g->has_temp_slowdown = true;
        g->temp_slowdown_c = (int32_t)v;
    }
    if (!r->lost && nv->DeviceGetTemperatureThreshold &&
        ok(r, nv->DeviceGetTemperatureThreshold(r->dev, NVML_TEMPERATURE_THRESHOLD_SHUTDOWN, &v))) {
        g->has_temp_shutdown = true;
        g->temp_shutdown_c = (int32_t)v;
    }
    /* HBM temperature exists only as a field value. */
    if (!r->lost && nv->DeviceGetFieldValues) {
        nvmlFieldValue_t fv;
        memset(&fv, 0, sizeof fv);
        fv.fieldId = NVML_FI_DEV_MEMORY_TEMP;
        if (ok(r, nv->DeviceGetFieldValues(r->dev, 1, &fv)) && fv.nvmlReturn == NVML_SUCCESS) {
            long long t;
            switch (fv.valueType) {
            case NVML_VALUE_TYPE_UNSIGNED_INT: t = fv.value.uiVal; break;
            case NVML_VALUE_TYPE_SIGNED_INT: t = fv.value.siVal; break;
            case NVML_VALUE_TYPE_UNSIGNED_LONG: t = (long long)fv.value.ulVal; break;
            case NVML_VALUE_TYPE_UNSIGNED_LONG_LONG: t = (long long)fv.value.ullVal; break;
            case NVML_VALUE_TYPE_SIGNED_LONG_LONG: t = fv.value.sllVal; break;
            case NVML_VALUE_TYPE_DOUBLE: t = (long long)fv.value.dVal; break;
            default: t = -1000; break;
            }
            /* 0 is what GPUs without an HBM sensor answer on some drivers */
            if (t > 0 && t < 200) {
                g->has_temp_mem = true;
                g->temp_mem_c = (int32_t)t;
            }
        }
    }
}

static void read_ecc(struct dev_read *r, struct pna_gpu *g)
{
    struct pna_nvml *nv = r->nv;
    unsigned long long c, u;
    if (!r->lost && nv->DeviceGetTotalEccErrors &&
        ok(r, nv->DeviceGetTotalEccErrors(r->dev, NVML_MEMORY_ERROR_TYPE_CORRECTED,
                                          NVML_AGGREGATE_ECC, &c)) &&
        ok(r, nv->DeviceGetTotalEccErrors(r->dev, NVML_MEMORY_ERROR_TYPE_UNCORRECTED,
                                          NVML_AGGREGATE_ECC, &u))) {
        g->has_ecc = true;
        g->ecc_corrected = c;
        g->ecc_uncorrected = u;
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
        ok(r, r1);
        ok(r, r2);
        if ((r1 == NVML_SUCCESS || r1 == NVML_ERROR_INSUFFICIENT_SIZE) &&
            (r2 == NVML_SUCCESS || r2 == NVML_ERROR_INSUFFICIENT_SIZE)) {
            g->has_retired_pages = true;
            g->retired_pages_sbe = sbe;
            g->retired_pages_dbe = dbe;
        }
    }
    unsigned int corr, unc, pending, failed;
    if (!r->lost && nv->DeviceGetRemappedRows &&
        ok(r, nv->DeviceGetRemappedRows(r->dev, &corr, &unc, &pending, &failed))) {
        g->has_remapped_rows = true;
        g->remapped_rows_corr = corr;
        g->remapped_rows_unc = unc;
        g->remap_pending = pending != 0;
        g->remap_failure = failed != 0;
    }
}

/* Distinct PIDs of compute and graphics processes ("C+G" counts once). */
static unsigned add_procs(struct dev_read *r, nvmlDeviceGetRunningProcesses_fn fn,
                          unsigned *pids, unsigned npids, unsigned cap, bool *okp)
{
    if (r->lost || !fn)
        return npids;
    unsigned int count = 0;
    nvmlReturn_t rc = fn(r->dev, &count, NULL);
    if (rc == NVML_SUCCESS) {
        *okp = true;
        return npids;
    }
    if (rc != NVML_ERROR_INSUFFICIENT_SIZE) {
        ok(r, rc);
        return npids;
    }
    /* Processes may start between the two calls: leave room. */
    unsigned int room = count + 16;
    nvmlProcessInfo_t *info = calloc(room, sizeof *info);
    if (!info)
        return npids;
    count = room;
    rc = fn(r->dev, &count, info);
    if (ok(r, rc)) {
        *okp = true;
        for (unsigned i = 0; i < count && i < room; i++) {
            bool seen = false;
            for (unsigned j = 0; j < npids && !seen; j++)
                seen = pids[j] == info[i].pid;
            if (!seen && npids < cap)
                pids[npids++] = info[i].pid;
        }
    }
    free(info);
    return npids;
}

static void read_work(struct dev_read *r, struct pna_gpu *g)
{
    struct pna_nvml *nv = r->nv;
    unsigned pids[1024];
    bool any = false;
    unsigned n = add_procs(r, nv->DeviceGetComputeProcs, pids, 0, 1024, &any);
    n = add_procs(r, nv->DeviceGetGraphicsProcs, pids, n, 1024, &any);
    if (any) {
        g->has_processes = true;
        g->process_count = n;
    }
    unsigned int cur, pend;
    if (!r->lost && nv->DeviceGetMigMode && ok(r, nv->DeviceGetMigMode(r->dev, &cur, &pend))) {
        g->has_mig = true;
        g->mig_enabled = cur != 0;
    }
}

static void read_metrics(struct dev_read *r, struct pna_gpu *g)
{
    struct pna_nvml *nv = r->nv;
    nvmlUtilization_t u;
    if (!r->lost && nv->DeviceGetUtilizationRates &&
        ok(r, nv->DeviceGetUtilizationRates(r->dev, &u))) {
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
        ok(r, nv->DeviceGetClockInfo(r->dev, NVML_CLOCK_SM, &mhz))) {
        g->has_clock_sm = true;
        g->clock_sm_mhz = mhz;
    }
    if (!r->lost && nv->DeviceGetClockInfo &&
        ok(r, nv->DeviceGetClockInfo(r->dev, NVML_CLOCK_MEM, &mhz))) {
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
        ok(r, nv->DeviceGetPerformanceState(r->dev, &pstate)) && pstate >= 0 && pstate <= 15) {
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
    read_work(r, g);
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
static bool read_pci(struct dev_read *r, struct pna_gpu *g)
{
    nvmlPciInfo_t pci;
    memset(&pci, 0, sizeof pci);
    if (!ok(r, r->nv->DeviceGetPciInfo(r->dev, &pci)))
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

static void ident_remember(struct pna_nvml *nv, nvmlDevice_t dev, const struct pna_gpu *g)
{
    struct nvml_ident *e = ident_find(nv, dev);
    if (!e && nv->nident < NVML_MAX_GPUS) {
        e = &nv->ident[nv->nident++];
        e->dev = dev;
    }
    if (e)
        copy_identity(&e->id, g);
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
        snprintf(err, errlen, "nvmlDeviceGetCount_v2: %s (%d)", nvml_err(nv, rc), rc);
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
        if (!ok(&r, rc) && !r.lost)
            continue; /* not a GPU we can name: skip it, not the whole poll */
        struct nvml_ident *known = r.lost ? NULL : ident_find(nv, r.dev);
        bool have = !r.lost && read_pci(&r, &tmp);
        if (!have) {
            /* Lost before it could name itself: keep the row it had.  Any
             * other failure: skip this GPU, not the whole poll. */
            if (!r.lost || !known)
                continue;
            copy_identity(&tmp, &known->id);
            tmp.lost = true;
        } else {
            read_identity(&r, &tmp);
            pna_strlcpy(tmp.driver_version, driver, sizeof tmp.driver_version);
            pna_strlcpy(tmp.cuda_version, cuda, sizeof tmp.cuda_version);
            if (!r.lost)
                read_metrics(&r, &tmp);
            if (!r.lost) {
                ident_remember(nv, r.dev, &tmp);
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

/* --- XID listener ----------------------------------------------------- */

static const struct pna_nvml_xid *event_ident(const struct pna_nvml *nv, nvmlDevice_t dev)
{
    for (size_t i = 0; i < nv->ev_count; i++)
        if (nv->ev_devs[i].dev == dev)
            return &nv->ev_devs[i].ident;
    return NULL;
}

static void sleep_ms(unsigned ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

static void *event_main(void *arg)
{
    struct pna_nvml *nv = arg;
    while (!atomic_load(&nv->ev_stop)) {
        nvmlEventData_t data;
        memset(&data, 0, sizeof data);
        /* Short slices so a stop request is seen within half a second. */
        nvmlReturn_t rc = nv->EventSetWait(nv->ev_set, &data, 500);
        if (rc == NVML_SUCCESS) {
            if (!(data.eventType & nvmlEventTypeXidCriticalError))
                continue;
            const struct pna_nvml_xid *id = event_ident(nv, data.device);
            struct pna_nvml_xid x;
            memset(&x, 0, sizeof x);
            if (id)
                x = *id;
            x.xid = data.eventData;
            nv->ev_fn(&x, nv->ev_arg);
        } else if (rc != NVML_ERROR_TIMEOUT) {
            /* GPU lost or driver trouble: the poller reports it; do not spin. */
            sleep_ms(1000);
        }
    }
    atomic_store(&nv->ev_exited, true);
    return NULL;
}

int pna_nvml_events_start(struct pna_nvml *nv, pna_nvml_xid_fn fn, void *arg, char *err,
                          size_t errlen)
{
    if (atomic_load(&nv->ev_running) || nv->ev_detached)
        return 0;
    if (!nv->EventSetCreate || !nv->DeviceRegisterEvents || !nv->EventSetWait || !nv->EventSetFree)
        return 0; /* an NVML without the event API: no XID notifications */
    nvmlReturn_t rc = nv->EventSetCreate(&nv->ev_set);
    if (rc != NVML_SUCCESS) {
        snprintf(err, errlen, "nvmlEventSetCreate: %s (%d)", nvml_err(nv, rc), rc);
        return -1;
    }
    unsigned int count = 0;
    nv->ev_count = 0;
    if (nv->DeviceGetCount(&count) == NVML_SUCCESS) {
        for (unsigned i = 0; i < count && nv->ev_count < NVML_MAX_GPUS; i++) {
            struct dev_read r = { .nv = nv };
            struct pna_gpu g;
            memset(&g, 0, sizeof g);
            if (nv->DeviceGetHandleByIndex(i, &r.dev) != NVML_SUCCESS || !read_pci(&r, &g))
                continue;
            get_str(&r, nv->DeviceGetUUID, g.uuid, sizeof g.uuid);
            if (nv->DeviceRegisterEvents(r.dev, nvmlEventTypeXidCriticalError, nv->ev_set) !=
                NVML_SUCCESS)
                continue; /* this GPU cannot report XIDs */
            struct nvml_event_dev *d = &nv->ev_devs[nv->ev_count++];
            memset(d, 0, sizeof *d);
            d->dev = r.dev;
            d->ident.index = g.index;
            pna_strlcpy(d->ident.pci_bus_id, g.pci_bus_id, sizeof d->ident.pci_bus_id);
            pna_strlcpy(d->ident.uuid, g.uuid, sizeof d->ident.uuid);
        }
    }
    if (nv->ev_count == 0) {
        nv->EventSetFree(nv->ev_set);
        nv->ev_set = NULL;
        return 0;
    }
    nv->ev_fn = fn;
    nv->ev_arg = arg;
    atomic_store(&nv->ev_stop, false);
    atomic_store(&nv->ev_exited, false);
    int e = pthread_create(&nv->ev_thread, NULL, event_main, nv);
    if (e != 0) {
        snprintf(err, errlen, "cannot start the XID listener: %s", strerror(e));
        nv->EventSetFree(nv->ev_set);
        nv->ev_set = NULL;
        return -1;
    }
    atomic_store(&nv->ev_running, true);
    return 0;
}

void pna_nvml_events_stop(struct pna_nvml *nv)
{
    if (!atomic_load(&nv->ev_running))
        return;
    atomic_store(&nv->ev_stop, true);
    /* The listener wakes every 500 ms; give it a few slices. */
    for (int i = 0; i < 40 && !atomic_load(&nv->ev_exited); i++)
        sleep_ms(50);
    if (atomic_load(&nv->ev_exited)) {
        pthread_join(nv->ev_thread, NULL);
        nv->EventSetFree(nv->ev_set);
        nv->ev_set = NULL;
    } else {
        pthread_detach(nv->ev_thread); /* stuck in the driver */
        nv->ev_detached = true;
    }
    atomic_store(&nv->ev_running, false);
}

int pna_nvml_events_running(const struct pna_nvml *nv)
{
    return nv && atomic_load(&nv->ev_running);
}
