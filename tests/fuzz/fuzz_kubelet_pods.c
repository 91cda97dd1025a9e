/* fuzz_kubelet_pods.c -- libFuzzer harness for the kubelet's GET /pods answer
 * (pna_kubelet_parse_pods, sources/kubernetes/kubelet.c): pod identity, phase, GPU
 * requests and limits of containers and init containers, ephemeral-storage
 * limits (Kubernetes quantities), and metadata.labels under a podLabels
 * allow-list of a key and two globs (pna_kubelet_parse_pods_labels: the
 * per-pod and value bounds, key index strings, index order).  The input is
 * the response body; the pods are sorted and numbered as the poller does,
 * the allocation scalar is computed from the GPUs found, and each pod's
 * labels are looked up as the renderers look them up. */
#include "pna_autoconf.h"
#include "sources/kubernetes/kubelet.h"
#include "util/label_allow.h"
#include "fuzz.h"

#include <string.h>

static const struct pna_label_allow *allow_list(void)
{
    static struct pna_label_allow allow;
    char why[256];
    if (!allow.count)
        pna_label_allow_add(&allow, "app,app.kubernetes.io/*,*", why, sizeof why);
    return &allow;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct pna_pod_set pods;
    struct pna_k8s_gpu gpu;
    uint32_t allocated = 0;
    char err[256];
    struct pna_pod_label_set labels;
    pna_pod_set_init(&pods);
    pna_pod_label_set_init(&labels);
    if (pna_kubelet_parse_pods_labels((const char *)data, size, &pods, &allocated, allow_list(),
                                      &labels, err, sizeof err) == 0) {
        for (size_t i = 0; i < labels.count; i++) {
            size_t n;
            if (strlen(labels.rows[i].value) > PNA_POD_LABEL_VALUE_MAX ||
                strlen(labels.rows[i].key_id) > PNA_POD_LABEL_KEY_ID_MAX ||
                !pna_pod_label_set_find_pod(&labels, labels.rows[i].pod_uid, &n) ||
                n > PNA_POD_LABELS_PER_POD * pods.count)
                __builtin_trap();   /* a bound not kept */
        }
        pna_pod_set_sort(&pods);
        pna_pod_set_assign_indexes(&pods, NULL);
        pna_k8s_gpu_compute(&gpu, allocated, 8);
        pna_k8s_gpu_compute(&gpu, allocated, allocated / 2);
    }
    pna_pod_set_free(&pods);
    pna_pod_label_set_free(&labels);
    return 0;
}
