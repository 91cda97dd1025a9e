/* fuzz_k8s_quantity.c -- libFuzzer harness for pna_k8s_quantity_milli()
 * (sources/kubernetes/kubelet.c): Kubernetes resource quantities ("2", "500m", "1Ki",
 * "0.5", "10Gi") in thousandths.  The input is the text. */
#include "pna_autoconf.h"
#include "sources/kubernetes/kubelet.h"
#include "fuzz.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fz_cstr(data, size);
    int64_t milli;
    pna_k8s_quantity_milli(text, &milli);
    free(text);
    return 0;
}
