/* fuzz_nvsmi.c -- libFuzzer harness for the `nvidia-smi -q -x` XML parser
 * (pna_nvsmi_parse, sources/gpu/nvsmi.c), every schema generation's element
 * names included.  The input is the command's output; the GPUs found are
 * sorted as the GPU poller sorts them. */
#include "pna_autoconf.h"
#include "sources/gpu/nvsmi.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct pna_gpu_list list = { 0 };
    char driver[96], cuda[32], err[256];
    pna_nvsmi_parse((const char *)data, size, &list, driver, sizeof driver, cuda, sizeof cuda, err,
                    sizeof err);
    pna_gpu_list_sort(&list);
    pna_gpu_list_free(&list);
    return 0;
}
