/* sources/containers/oci_pod_labels.h -- the pod labels of a CRI-O pod
 * sandbox's OCI spec: the io.kubernetes.cri-o.Labels annotation, a JSON
 * object in a string, of a spec whose io.kubernetes.cri-o.ContainerType is
 * "sandbox".  Only the keys the podLabels allow-list names are copied, and
 * never the ones the kubelet adds itself (io.kubernetes.pod.*,
 * io.kubernetes.container.*); the pod's UID, name and namespace are read from
 * those (or the sandbox's io.kubernetes.pod.uid, io.kubernetes.cri-o.KubeName
 * and io.kubernetes.cri-o.Namespace annotations).  No other annotation is
 * looked at.  containerd's CRI plugin writes no labels into its specs: its
 * sandboxes give none. */
#ifndef PNA_SOURCES_OCI_POD_LABELS_H
#define PNA_SOURCES_OCI_POD_LABELS_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "model/kubernetes/pod_labels.h"
#include "util/label_allow.h"

struct pna_oci_pod_label {
    char *key, *value;
};

struct pna_oci_pod_labels {
    char *pod_uid, *pod_name, *pod_namespace;   /* NULL: absent */
    struct pna_oci_pod_label *labels;   /* the allowed ones, at most PNA_POD_LABELS_PER_POD */
    size_t count, cap;
    size_t over;                 /* allowed labels past that bound */
    bool bad;                    /* the annotation is not a JSON object */
};

/* Read the labels of ANN (a spec's annotations object, may be NULL) that
 * ALLOW names into OUT (zeroed first).  Returns 0, or -1 when out of memory
 * (OUT then empty). */
int pna_oci_read_pod_labels(const json_t *ann, const struct pna_label_allow *allow,
                            struct pna_oci_pod_labels *out);

/* Add the labels of L to SET as one pod's (pna_pod_label_set_add: bounds and
 * counting); the labels past the bound and a bad annotation are counted.
 * Returns 0, or -1 when out of memory. */
int pna_oci_pod_labels_add(const struct pna_oci_pod_labels *l, const struct pna_label_allow *allow,
                           struct pna_pod_label_set *set);

void pna_oci_pod_labels_free(struct pna_oci_pod_labels *l);

#endif
