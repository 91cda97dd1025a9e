/* sources/kubernetes/kubelet.h -- the node's pods, their ephemeral storage and
 * GPU requests, from the kubelet's own API.
 *
 *   GET /pods            the PodList of this node: identity, phase, and the GPU
 *                        resources each container asks for
 *   GET /stats/summary   node.fs (node ephemeral storage) and each pod's
 *                        ephemeral-storage usedBytes
 *
 * HTTPS on 10250 with the service account's bearer token and CA (the
 * in-cluster files, or configured ones), or plain HTTP on a read-only port.
 * Every request has a strict deadline; the token never appears in any text. */
#ifndef PNA_SOURCES_KUBELET_H
#define PNA_SOURCES_KUBELET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/storage.h"
#include "model/kubernetes/pod_labels.h"

struct pna_hclient;

#define PNA_KUBELET_BODY_MAX (64u << 20)
#define PNA_KUBELET_TOKEN_MAX 65536

/* Parse GET /pods into rows of PODS (appended) and add the GPUs of pods that
 * are not finished (phase other than Succeeded/Failed) to *GPUS_ALLOCATED.
 * A pod's GPUs are counted as the scheduler counts them: per container the
 * limit (else request) of every GPU resource (nvidia.com/gpu, amd.com/gpu,
 * gpu.intel.com/i915...), summed over containers and restartable (sidecar)
 * init containers, and at least the largest plain init container's.
 * Returns 0 or -1 with ERR (nothing appended). */
int pna_kubelet_parse_pods(const char *text, size_t len, struct pna_pod_set *pods,
                           uint32_t *gpus_allocated, char *err, size_t errlen);

/* pna_kubelet_parse_pods(), and each pod's metadata.labels that ALLOW names
 * into LABELS (finished: in index order).  Nothing else of metadata is read. */
int pna_kubelet_parse_pods_labels(const char *text, size_t len, struct pna_pod_set *pods,
                                  uint32_t *gpus_allocated, const struct pna_label_allow *allow,
                                  struct pna_pod_label_set *labels, char *err, size_t errlen);

/* Parse GET /stats/summary: node name, node.fs into NODE_FS (source KUBELET),
 * and each pod's ephemeral usage joined into PODS by uid (pods the list did not
 * have are appended with phase UNKNOWN).  Returns 0 or -1 with ERR. */
int pna_kubelet_parse_summary(const char *text, size_t len, struct pna_pod_set *pods,
                              struct pna_node_storage *node_fs, char *node_name, size_t name_cap,
                              char *err, size_t errlen);

/* A Kubernetes quantity ("2", "500m", "1k", "1Ki", "0.5") in thousandths.
 * Returns 0 or -1. */
int pna_k8s_quantity_milli(const char *s, int64_t *out);

struct pna_kubelet_opts {
    const char *url;             /* "https://127.0.0.1:10250" */
    const char *token_file;      /* NULL or missing: no Authorization header */
    const char *ca_file;         /* NULL or missing: the system CAs */
    bool insecure;
    unsigned timeout_ms;
    const struct pna_label_allow *pod_labels;  /* podLabels; NULL or empty: none read */
};

struct pna_kubelet_result {
    char node_name[254];
    struct pna_pod_set pods;     /* unsorted, no indexes */
    struct pna_node_storage node_fs;
    uint32_t gpus_allocated;
    struct pna_pod_label_set labels;  /* the pods' allowed labels */
};

/* Fetch and parse both endpoints.  Returns 0, or -1 with ERR (RESULT then holds
 * nothing to free).  Free a successful RESULT's pods with pna_pod_set_free()
 * and its labels with pna_pod_label_set_free(). */
int pna_kubelet_fetch(struct pna_hclient *http, const struct pna_kubelet_opts *o,
                      struct pna_kubelet_result *result, char *err, size_t errlen);

#endif
