/* tests/hardware/nvml_abi.c -- prints the sizes, member offsets and constants
 * of the NVML ABI the agent relies on.  Built twice, once against the agent's
 * own declarations (src/sources/gpu/nvml_api.h) and once against NVIDIA's nvml.h
 * (-DPNA_REAL_NVML_H), on a machine that has the CUDA toolkit; the two
 * outputs must be identical (tests/hardware/nvidia_compare.sh diffs them). */
#include <stddef.h>
#include <stdio.h>

#ifdef PNA_REAL_NVML_H
#include <nvml.h>
typedef nvmlProcessInfo_t pna_proc_t;   /* what the _v3 functions fill */
#else
#include "sources/gpu/nvml_api.h"
typedef nvmlProcessInfo_t pna_proc_t;
#endif

#define SIZE(t) printf("sizeof %s %zu\n", #t, sizeof(t))
#define OFF(t, m) printf("offsetof %s.%s %zu\n", #t, #m, offsetof(t, m))
#define CONST(c) printf("const %s %llu\n", #c, (unsigned long long)(c))

int main(void)
{
    SIZE(nvmlPciInfo_t);
    OFF(nvmlPciInfo_t, busIdLegacy);
    OFF(nvmlPciInfo_t, domain);
    OFF(nvmlPciInfo_t, bus);
    OFF(nvmlPciInfo_t, device);
    OFF(nvmlPciInfo_t, pciDeviceId);
    OFF(nvmlPciInfo_t, pciSubSystemId);
    OFF(nvmlPciInfo_t, busId);
    SIZE(nvmlUtilization_t);
    OFF(nvmlUtilization_t, gpu);
    OFF(nvmlUtilization_t, memory);
    SIZE(nvmlMemory_t);
    OFF(nvmlMemory_t, total);
    OFF(nvmlMemory_t, free);
    OFF(nvmlMemory_t, used);
    SIZE(nvmlMemory_v2_t);
    OFF(nvmlMemory_v2_t, version);
    OFF(nvmlMemory_v2_t, total);
    OFF(nvmlMemory_v2_t, reserved);
    OFF(nvmlMemory_v2_t, free);
    OFF(nvmlMemory_v2_t, used);
    CONST(nvmlMemory_v2);
    SIZE(pna_proc_t);
    OFF(pna_proc_t, pid);
    OFF(pna_proc_t, usedGpuMemory);
    OFF(pna_proc_t, gpuInstanceId);
    OFF(pna_proc_t, computeInstanceId);
    SIZE(nvmlValue_t);
    SIZE(nvmlFieldValue_t);
    OFF(nvmlFieldValue_t, fieldId);
    OFF(nvmlFieldValue_t, scopeId);
    OFF(nvmlFieldValue_t, timestamp);
    OFF(nvmlFieldValue_t, latencyUsec);
    OFF(nvmlFieldValue_t, valueType);
    OFF(nvmlFieldValue_t, nvmlReturn);
    OFF(nvmlFieldValue_t, value);
    SIZE(nvmlEventData_t);
    OFF(nvmlEventData_t, device);
    OFF(nvmlEventData_t, eventType);
    OFF(nvmlEventData_t, eventData);
    OFF(nvmlEventData_t, gpuInstanceId);
    OFF(nvmlEventData_t, computeInstanceId);
    SIZE(nvmlProcessUtilizationSample_t);
    OFF(nvmlProcessUtilizationSample_t, pid);
    OFF(nvmlProcessUtilizationSample_t, timeStamp);
    OFF(nvmlProcessUtilizationSample_t, smUtil);
    OFF(nvmlProcessUtilizationSample_t, memUtil);
    SIZE(nvmlViolationTime_t);
    OFF(nvmlViolationTime_t, violationTime);
    SIZE(nvmlGpmMetric_t);
    OFF(nvmlGpmMetric_t, nvmlReturn);
    OFF(nvmlGpmMetric_t, value);
    /* not the whole size: newer headers raise NVML_GPM_METRIC_MAX, and the
     * library reads numMetrics entries only */
    OFF(nvmlGpmMetricsGet_t, numMetrics);
    OFF(nvmlGpmMetricsGet_t, sample1);
    OFF(nvmlGpmMetricsGet_t, sample2);
    OFF(nvmlGpmMetricsGet_t, metrics);
    SIZE(nvmlGpmSupport_t);
    SIZE(nvmlGpuFabricInfoV_t);
    OFF(nvmlGpuFabricInfoV_t, status);
    OFF(nvmlGpuFabricInfoV_t, cliqueId);
    OFF(nvmlGpuFabricInfoV_t, state);
    OFF(nvmlGpuFabricInfoV_t, healthMask);
    CONST(nvmlGpuFabricInfo_v2);
    CONST(NVML_GPM_METRICS_GET_VERSION);
    CONST(NVML_GPM_SUPPORT_VERSION);
    CONST(NVML_GPM_METRIC_SM_UTIL);
    CONST(NVML_GPM_METRIC_ANY_TENSOR_UTIL);
    CONST(NVML_GPM_METRIC_DRAM_BW_UTIL);
    CONST(NVML_GPM_METRIC_NVLINK_TOTAL_TX_PER_SEC);
    CONST(NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX);
    CONST(NVML_FI_DEV_NVLINK_GET_SPEED);
    CONST(NVML_FI_DEV_NVLINK_COUNT_SYMBOL_ERRORS);
    CONST(NVML_FI_DEV_GET_GPU_RECOVERY_ACTION);
    CONST(NVML_FI_DEV_CLOCKS_EVENT_REASON_SW_THERM_SLOWDOWN);
    CONST(NVML_FI_DEV_CLOCKS_EVENT_REASON_HW_POWER_BRAKE_SLOWDOWN);
    CONST(NVML_PERF_POLICY_RELIABILITY);
    CONST(NVML_NVLINK_ERROR_DL_CRC_DATA);
    CONST(NVML_NVLINK_DEVICE_TYPE_SWITCH);
    CONST(NVML_GPU_FABRIC_STATE_COMPLETED);
    CONST(NVML_GPU_RECOVERY_ACTION_DRAIN_AND_RESET);
    CONST(NVML_SUCCESS);
    CONST(NVML_ERROR_NOT_SUPPORTED);
    CONST(NVML_ERROR_INSUFFICIENT_SIZE);
    CONST(NVML_ERROR_TIMEOUT);
    CONST(NVML_ERROR_GPU_IS_LOST);
    CONST(NVML_DEVICE_NAME_V2_BUFFER_SIZE);
    CONST(NVML_DEVICE_UUID_V2_BUFFER_SIZE);
    CONST(NVML_DEVICE_SERIAL_BUFFER_SIZE);
    CONST(NVML_DEVICE_VBIOS_VERSION_BUFFER_SIZE);
    CONST(NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE);
    CONST(NVML_TEMPERATURE_GPU);
    CONST(NVML_TEMPERATURE_THRESHOLD_SHUTDOWN);
    CONST(NVML_TEMPERATURE_THRESHOLD_SLOWDOWN);
    CONST(NVML_CLOCK_SM);
    CONST(NVML_CLOCK_MEM);
    CONST(NVML_MEMORY_ERROR_TYPE_CORRECTED);
    CONST(NVML_MEMORY_ERROR_TYPE_UNCORRECTED);
    CONST(NVML_AGGREGATE_ECC);
    CONST(NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS);
    CONST(NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR);
    CONST(NVML_FI_DEV_MEMORY_TEMP);
    CONST(NVML_VALUE_TYPE_DOUBLE);
    CONST(NVML_VALUE_TYPE_UNSIGNED_INT);
    CONST(NVML_VALUE_TYPE_UNSIGNED_LONG);
    CONST(NVML_VALUE_TYPE_UNSIGNED_LONG_LONG);
    CONST(NVML_VALUE_TYPE_SIGNED_LONG_LONG);
    CONST(NVML_VALUE_TYPE_SIGNED_INT);
    CONST(nvmlEventTypeXidCriticalError);
    CONST(NVML_PSTATE_UNKNOWN);
    return 0;
}
