/* fuzz_amd_gpu_metrics.c -- libFuzzer harness for amdgpu's binary gpu_metrics
 * parser: pna_amd_gpu_metrics_parse() and, on a blob it takes,
 * pna_amd_gpu_metrics_apply() (sources/gpu/amd_gpu_metrics.c).  The input is
 * the blob as the file holds it. */
#include "pna_autoconf.h"
#include "sources/gpu/amd_gpu_metrics.h"
#include "fuzz.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct pna_amd_gpu_metrics m;
    char err[160];
    if (pna_amd_gpu_metrics_parse(data, size, &m, err, sizeof err) == 0) {
        struct pna_gpu g;
        memset(&g, 0, sizeof g);
        pna_amd_gpu_metrics_apply(&m, &g);
    }
    return 0;
}
