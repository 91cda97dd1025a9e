/* fuzz_kubelet_pods.c -- libFuzzer harness for the kubelet's GET /pods answer
 * (pna_kubelet_parse_pods, sources/kubernetes/kubelet.c): pod identity, phase, GPU
 * requests and limits of containers and init containers, ephemeral-storage
 * limits (Kubernetes quantities).  The input is the response body; the pods
 * are sorted and numbered as the poller does, and the allocation scalar is
 * computed from the GPUs found. */
#include "pna_autoconf.h"
#include "sources/kubernetes/kubelet.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct pna_pod_set pods;
    struct pna_k8s_gpu gpu;
    uint32_t allocated = 0;
    char err[256];
    pna_pod_set_init(&pods);
    if (pna_kubelet_parse_pods((const char *)data, size, &pods, &allocated, err, sizeof err) == 0) {
        pna_pod_set_sort(&pods);
        pna_pod_set_assign_indexes(&pods, NULL);
        pna_k8s_gpu_compute(&gpu, allocated, 8);
        pna_k8s_gpu_compute(&gpu, allocated, allocated / 2);
    }
    pna_pod_set_free(&pods);
    return 0;
}
