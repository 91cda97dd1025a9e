/* fuzz_kubelet_summary.c -- libFuzzer harness for the kubelet's
 * GET /stats/summary answer (pna_kubelet_parse_summary, sources/kubernetes/kubelet.c):
 * node name, node.fs (node ephemeral storage) and each pod's ephemeral usage.
 * The input is the response body.  It is parsed twice into the same pod set:
 * the first time every pod is new, the second time each one joins the row
 * the first pass made (by uid, else by name and namespace), as the summary
 * joins the /pods rows in the agent. */
#include "pna_autoconf.h"
#include "sources/kubernetes/kubelet.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct pna_pod_set pods;
    struct pna_node_storage fs;
    char node[254], err[256];
    pna_pod_set_init(&pods);
    if (pna_kubelet_parse_summary((const char *)data, size, &pods, &fs, node, sizeof node, err,
                                  sizeof err) == 0) {
        pna_kubelet_parse_summary((const char *)data, size, &pods, &fs, node, sizeof node, err,
                                  sizeof err);
        pna_pod_set_sort(&pods);
        pna_pod_set_assign_indexes(&pods, NULL);
    }
    pna_pod_set_free(&pods);
    return 0;
}
