/* sources/gpu/nvml_api.h -- the part of NVIDIA's NVML C API the agent uses.
 *
 * No NVML development package is needed to build: libnvidia-ml.so.1 is loaded
 * at run time with dlopen() and these declarations describe the ABI of the
 * exported functions (names, argument types, struct layouts and constants) as
 * documented in NVIDIA's NVML API reference.  Only what the agent calls is
 * here.  The test library tests/nvml/fake_nvml.c implements the same set. */
#ifndef PNA_NVML_API_H
#define PNA_NVML_API_H

typedef int nvmlReturn_t;
typedef struct nvmlDevice_st *nvmlDevice_t;
typedef struct nvmlEventSet_st *nvmlEventSet_t;

/* nvmlReturn_t values */
#define NVML_SUCCESS 0
#define NVML_ERROR_UNINITIALIZED 1
#define NVML_ERROR_INVALID_ARGUMENT 2
#define NVML_ERROR_NOT_SUPPORTED 3
#define NVML_ERROR_NO_PERMISSION 4
#define NVML_ERROR_NOT_FOUND 6
#define NVML_ERROR_INSUFFICIENT_SIZE 7
#define NVML_ERROR_DRIVER_NOT_LOADED 9
#define NVML_ERROR_TIMEOUT 10
#define NVML_ERROR_LIBRARY_NOT_FOUND 12
#define NVML_ERROR_FUNCTION_NOT_FOUND 13
#define NVML_ERROR_GPU_IS_LOST 15
#define NVML_ERROR_UNKNOWN 999

/* Buffer sizes NVML guarantees to be large enough */
#define NVML_DEVICE_NAME_V2_BUFFER_SIZE 96
#define NVML_DEVICE_UUID_V2_BUFFER_SIZE 96
#define NVML_DEVICE_SERIAL_BUFFER_SIZE 30
#define NVML_DEVICE_VBIOS_VERSION_BUFFER_SIZE 32
#define NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE 80
#define NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE 32
#define NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE 16

/* nvmlTemperatureSensors_t, nvmlTemperatureThresholds_t */
#define NVML_TEMPERATURE_GPU 0
#define NVML_TEMPERATURE_THRESHOLD_SHUTDOWN 0
#define NVML_TEMPERATURE_THRESHOLD_SLOWDOWN 1

/* nvmlPstates_t: 0 (P0, fastest) .. 15; 32 unknown */
#define NVML_PSTATE_UNKNOWN 32

/* nvmlClockType_t */
#define NVML_CLOCK_GRAPHICS 0
#define NVML_CLOCK_SM 1
#define NVML_CLOCK_MEM 2

/* nvmlMemoryErrorType_t, nvmlEccCounterType_t */
#define NVML_MEMORY_ERROR_TYPE_CORRECTED 0
#define NVML_MEMORY_ERROR_TYPE_UNCORRECTED 1
#define NVML_VOLATILE_ECC 0
#define NVML_AGGREGATE_ECC 1

/* nvmlPageRetirementCause_t */
#define NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS 0
#define NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR 1

/* Field values (nvmlDeviceGetFieldValues) */
#define NVML_FI_DEV_MEMORY_TEMP 82

/* nvmlValueType_t */
#define NVML_VALUE_TYPE_DOUBLE 0
#define NVML_VALUE_TYPE_UNSIGNED_INT 1
#define NVML_VALUE_TYPE_UNSIGNED_LONG 2
#define NVML_VALUE_TYPE_UNSIGNED_LONG_LONG 3
#define NVML_VALUE_TYPE_SIGNED_LONG_LONG 4
#define NVML_VALUE_TYPE_SIGNED_INT 5

/* Event types */
#define nvmlEventTypeXidCriticalError 0x0000000000000008ULL

typedef struct nvmlPciInfo_st {
    char busIdLegacy[NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE];
    unsigned int domain;
    unsigned int bus;
    unsigned int device;
    unsigned int pciDeviceId;    /* device id << 16 | vendor id */
    unsigned int pciSubSystemId; /* subsystem device id << 16 | subsystem vendor id */
    char busId[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE];
} nvmlPciInfo_t;

typedef struct nvmlUtilization_st {
    unsigned int gpu;
    unsigned int memory;
} nvmlUtilization_t;

/* nvmlDeviceGetMemoryInfo (v1): used includes the memory reserved by the driver */
typedef struct nvmlMemory_st {
    unsigned long long total;
    unsigned long long free;
    unsigned long long used;
} nvmlMemory_t;

/* nvmlDeviceGetMemoryInfo_v2: reserved apart, used as nvidia-smi prints it */
typedef struct nvmlMemory_v2_st {
    unsigned int version;
    unsigned long long total;
    unsigned long long reserved;
    unsigned long long free;
    unsigned long long used;
} nvmlMemory_v2_t;
#define nvmlMemory_v2 ((unsigned int)(sizeof(nvmlMemory_v2_t) | (2u << 24)))

/* nvmlDeviceGet{Compute,Graphics}RunningProcesses_v3 (and _v2) */
typedef struct nvmlProcessInfo_st {
    unsigned int pid;
    unsigned long long usedGpuMemory;
    unsigned int gpuInstanceId;
    unsigned int computeInstanceId;
} nvmlProcessInfo_t;

typedef union nvmlValue_st {
    double dVal;
    int siVal;
    unsigned int uiVal;
    unsigned long ulVal;
    unsigned long long ullVal;
    signed long long sllVal;
} nvmlValue_t;

typedef struct nvmlFieldValue_st {
    unsigned int fieldId;
    unsigned int scopeId;
    long long timestamp;
    long long latencyUsec;
    int valueType;
    nvmlReturn_t nvmlReturn;
    nvmlValue_t value;
} nvmlFieldValue_t;

typedef struct nvmlEventData_st {
    nvmlDevice_t device;
    unsigned long long eventType;
    unsigned long long eventData;   /* the XID for nvmlEventTypeXidCriticalError */
    unsigned int gpuInstanceId;
    unsigned int computeInstanceId;
} nvmlEventData_t;

/* The exported functions, as pointer types for dlsym(). */
typedef nvmlReturn_t (*nvmlInit_v2_fn)(void);
typedef nvmlReturn_t (*nvmlShutdown_fn)(void);
typedef const char *(*nvmlErrorString_fn)(nvmlReturn_t);
typedef nvmlReturn_t (*nvmlSystemGetDriverVersion_fn)(char *, unsigned int);
typedef nvmlReturn_t (*nvmlSystemGetCudaDriverVersion_v2_fn)(int *);
typedef nvmlReturn_t (*nvmlDeviceGetCount_v2_fn)(unsigned int *);
typedef nvmlReturn_t (*nvmlDeviceGetHandleByIndex_v2_fn)(unsigned int, nvmlDevice_t *);
typedef nvmlReturn_t (*nvmlDeviceGetPciInfo_v3_fn)(nvmlDevice_t, nvmlPciInfo_t *);
typedef nvmlReturn_t (*nvmlDeviceGetStr_fn)(nvmlDevice_t, char *, unsigned int);
typedef nvmlReturn_t (*nvmlDeviceGetUInt_fn)(nvmlDevice_t, unsigned int *);
typedef nvmlReturn_t (*nvmlDeviceGetULL_fn)(nvmlDevice_t, unsigned long long *);
typedef nvmlReturn_t (*nvmlDeviceGetUtilizationRates_fn)(nvmlDevice_t, nvmlUtilization_t *);
typedef nvmlReturn_t (*nvmlDeviceGetMemoryInfo_fn)(nvmlDevice_t, nvmlMemory_t *);
typedef nvmlReturn_t (*nvmlDeviceGetMemoryInfo_v2_fn)(nvmlDevice_t, nvmlMemory_v2_t *);
typedef nvmlReturn_t (*nvmlDeviceGetTemperature_fn)(nvmlDevice_t, int, unsigned int *);
typedef nvmlReturn_t (*nvmlDeviceGetTemperatureThreshold_fn)(nvmlDevice_t, int, unsigned int *);
typedef nvmlReturn_t (*nvmlDeviceGetFieldValues_fn)(nvmlDevice_t, int, nvmlFieldValue_t *);
typedef nvmlReturn_t (*nvmlDeviceGetClockInfo_fn)(nvmlDevice_t, int, unsigned int *);
typedef nvmlReturn_t (*nvmlDeviceGetTotalEccErrors_fn)(nvmlDevice_t, int, int, unsigned long long *);
typedef nvmlReturn_t (*nvmlDeviceGetRetiredPages_fn)(nvmlDevice_t, int, unsigned int *,
                                                     unsigned long long *);
typedef nvmlReturn_t (*nvmlDeviceGetRemappedRows_fn)(nvmlDevice_t, unsigned int *, unsigned int *,
                                                     unsigned int *, unsigned int *);
typedef nvmlReturn_t (*nvmlDeviceGetRunningProcesses_fn)(nvmlDevice_t, unsigned int *,
                                                         nvmlProcessInfo_t *);
typedef nvmlReturn_t (*nvmlDeviceGetPerformanceState_fn)(nvmlDevice_t, int *);
typedef nvmlReturn_t (*nvmlDeviceGetMigMode_fn)(nvmlDevice_t, unsigned int *, unsigned int *);
typedef nvmlReturn_t (*nvmlEventSetCreate_fn)(nvmlEventSet_t *);
typedef nvmlReturn_t (*nvmlDeviceRegisterEvents_fn)(nvmlDevice_t, unsigned long long, nvmlEventSet_t);
typedef nvmlReturn_t (*nvmlEventSetWait_v2_fn)(nvmlEventSet_t, nvmlEventData_t *, unsigned int);
typedef nvmlReturn_t (*nvmlEventSetFree_fn)(nvmlEventSet_t);

#endif
