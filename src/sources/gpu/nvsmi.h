/* sources/gpu/nvsmi.h -- NVIDIA GPUs from `nvidia-smi -q -x`, the fallback
 * where NVML cannot be loaded but the nvidia-smi command exists.
 *
 * The XML schema changed between driver generations (nvsmi_device_v11, v12,
 * v13 DTDs: clocks_throttle_reasons became clocks_event_reasons, power_readings
 * became gpu_power_readings, power_draw split into average/instant, absolute
 * temperature thresholds became T.Limit margins).  Every figure is looked up
 * with a list of XPath alternatives relative to its <gpu> element, and a
 * missing or "N/A" element leaves the figure absent. */
#ifndef PNA_GPU_NVSMI_H
#define PNA_GPU_NVSMI_H

#include <stddef.h>

#include "model/gpu/gpu.h"

/* Parse nvidia-smi's XML (LEN bytes, need not be NUL-terminated) and append
 * one GPU per <gpu> element to LIST.  DRIVER / CUDA receive the versions.
 * Returns 0, or -1 with ERR (one line) when the text is not nvidia-smi XML. */
int pna_nvsmi_parse(const char *xml, size_t len, struct pna_gpu_list *list, char *driver,
                    size_t driver_len, char *cuda, size_t cuda_len, char *err, size_t errlen);

/* Run `CMD -q -x` with TIMEOUT_MS (transport/process.h) and parse it into LIST. */
int pna_nvsmi_collect(const char *cmd, unsigned timeout_ms, struct pna_gpu_list *list, char *driver,
                      size_t driver_len, char *cuda, size_t cuda_len, char *err, size_t errlen);

#endif
