/* sources/gpu/nvml_priv.h -- what the NVML source's files (nvml.c: loading,
 * reading GPUs; nvml_events.c: the XID event set; nvml_links.c, ...) share:
 * the loaded library's state and a few helpers.  Not for other files: they
 * use nvml.h. */
#ifndef PNA_GPU_NVML_PRIV_H
#define PNA_GPU_NVML_PRIV_H

#include <stdbool.h>
#include <stddef.h>

#include "sources/gpu/nvml.h"
#include "sources/gpu/nvml_api.h"

#define NVML_MAX_GPUS 64
#define NVML_MAX_GPU_INSTANCES 8   /* 7 on A100/H100; room for one more */

/* The last poll's GPU performance sample of one MIG GPU instance. */
struct nvml_mig_gpm {
    bool used;                     /* a GPU instance seen at the last poll */
    unsigned int gpu_instance;
    nvmlGpmSample_t last;
};

/* What a GPU was when last read, so a lost GPU keeps its row identity.
 * Keyed by device handle: NVML hands out the same handle for a device until
 * nvmlShutdown, whereas indexes may shift if a device leaves the list. */
struct nvml_ident {
    nvmlDevice_t dev;  /* NULL: free slot */
    struct pna_gpu id; /* identity fields only */
    /* GPU performance monitoring: the last poll's sample, to which this
     * poll's is compared (two samples a poll interval apart). */
    bool gpm_probed, gpm_supported;
    nvmlGpmSample_t gpm_last;
    bool gpm_have_last;
    unsigned long long proc_util_seen; /* newest process utilisation sample read */
    struct nvml_mig_gpm mig_gpm[NVML_MAX_GPU_INSTANCES];
};

/* The GPU instance profiles of one GPU, read once per poll (nvml_mig.c). */
struct nvml_profiles {
    bool read;
    unsigned n;
    nvmlGpuInstanceProfileInfo_v2_t p[NVML_GPU_INSTANCE_PROFILE_COUNT];
};

/* Room the readers use within one pna_nvml_collect(), too large for the
 * poller thread's stack: held by the handle, which its owner (the GPU
 * poller's state) reads from one thread at a time, so the readers keep
 * nothing in static storage. */
struct nvml_scratch {
    struct nvml_profiles profiles;   /* 2.6 KiB: nvml_mig.c */
    nvmlGpmMetricsGet_t metrics;     /* 4 KiB: one nvmlGpmMetricsGet (nvml_activity.c) */
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
    nvmlDeviceGetViolationStatus_fn DeviceGetViolationStatus;
    nvmlDeviceGetProcessUtilization_fn DeviceGetProcessUtilization;
    nvmlDeviceGetPcieThroughput_fn DeviceGetPcieThroughput;
    nvmlDeviceGetNvLinkState_fn DeviceGetNvLinkState;
    nvmlDeviceGetNvLinkVersion_fn DeviceGetNvLinkVersion;
    nvmlDeviceGetNvLinkRemotePciInfo_v2_fn DeviceGetNvLinkRemotePciInfo;
    nvmlDeviceGetNvLinkRemoteDeviceType_fn DeviceGetNvLinkRemoteDeviceType;
    nvmlDeviceGetNvLinkErrorCounter_fn DeviceGetNvLinkErrorCounter;
    nvmlGpmQueryDeviceSupport_fn GpmQueryDeviceSupport;
    nvmlGpmSampleAlloc_fn GpmSampleAlloc;
    nvmlGpmSampleFree_fn GpmSampleFree;
    nvmlGpmSampleGet_fn GpmSampleGet;
    nvmlGpmMetricsGet_fn GpmMetricsGet;
    nvmlDeviceGetGpuFabricInfoV_fn DeviceGetGpuFabricInfoV;
    nvmlDeviceGetUInt_fn DeviceGetMaxMigDeviceCount, DeviceGetGpuInstanceId,
        DeviceGetComputeInstanceId;
    nvmlDeviceGetMigDeviceHandleByIndex_fn DeviceGetMigDeviceHandleByIndex;
    nvmlDeviceGetAttributes_v2_fn DeviceGetAttributes;
    nvmlDeviceGetGpuInstanceById_fn DeviceGetGpuInstanceById;
    nvmlGpuInstanceGetInfo_fn GpuInstanceGetInfo;
    nvmlDeviceGetGpuInstanceProfileInfoV_fn DeviceGetGpuInstanceProfileInfoV;
    nvmlGpmMigSampleGet_fn GpmMigSampleGet;
    nvmlEventSetCreate_fn EventSetCreate;
    nvmlDeviceRegisterEvents_fn DeviceRegisterEvents;
    nvmlEventSetWait_v2_fn EventSetWait;
    nvmlEventSetFree_fn EventSetFree;

    struct nvml_ident ident[NVML_MAX_GPUS];
    size_t nident;
    struct nvml_scratch scratch;
};

/* The result of one optional call: true when the value is valid.  A lost GPU
 * is remembered so the remaining calls are skipped. */
struct dev_read {
    struct pna_nvml *nv;
    nvmlDevice_t dev;
    bool lost;
};

/* NVML's text for RC ("NVML error" when it has none). */
const char *pna_nvml_strerror(const struct pna_nvml *nv, nvmlReturn_t rc);
/* True when RC is success; a lost GPU is remembered in R. */
bool pna_nvml_ok(struct dev_read *r, nvmlReturn_t rc);
/* G's PCI identity from nvmlDeviceGetPciInfo_v3; false when it did not answer. */
bool pna_nvml_read_pci(struct dev_read *r, struct pna_gpu *g);
/* A string property into BUF ("" when absent). */
void pna_nvml_get_str(struct dev_read *r, nvmlDeviceGetStr_fn fn, char *buf, size_t cap);
/* Field FIELD (scope SCOPE: a link number, else 0) as a signed number;
 * false when the GPU does not offer it. */
bool pna_nvml_field(struct dev_read *r, unsigned field, unsigned scope, long long *out);

/* sources/gpu/nvml_procs.c: G's processes into LIST (and G's process count). */
void pna_nvml_read_procs(struct dev_read *r, struct nvml_ident *id, struct pna_gpu *g,
                         struct pna_gpu_list *list);
/* sources/gpu/nvml_links.c: G's NVLinks. */
void pna_nvml_read_links(struct dev_read *r, struct pna_gpu *g);
/* sources/gpu/nvml_activity.c: time held back per cause, the engines'
 * activity since the last poll (GPU performance monitoring, kept in ID),
 * and the health inputs (recovery action, fabric state). */
void pna_nvml_read_held(struct dev_read *r, struct pna_gpu *g);
void pna_nvml_read_activity(struct dev_read *r, struct nvml_ident *id, struct pna_gpu *g);
void pna_nvml_read_health(struct dev_read *r, struct pna_gpu *g);
/* Free ID's sample (the GPU left, or the library closes). */
void pna_nvml_activity_forget(struct pna_nvml *nv, struct nvml_ident *id);
/* Whether the GPU of ID offers GPU performance monitoring (asked once). */
bool pna_nvml_gpm_ready(struct dev_read *r, struct nvml_ident *id);
/* Fill the SM and tensor activity of MIG from two GPM samples; false when
 * NVML did not answer. */
bool pna_nvml_gpm_mig_metrics(struct dev_read *r, nvmlGpmSample_t older, nvmlGpmSample_t newer,
                              struct pna_gpu_mig *mig);

/* sources/gpu/nvml_mig.c: G's MIG devices into LIST, and their activity
 * (GPM per GPU instance, samples kept in ID). */
void pna_nvml_read_migs(struct dev_read *r, struct nvml_ident *id, struct pna_gpu *g,
                        struct pna_gpu_list *list);
/* Free ID's MIG samples. */
void pna_nvml_mig_forget(struct pna_nvml *nv, struct nvml_ident *id);

#endif
