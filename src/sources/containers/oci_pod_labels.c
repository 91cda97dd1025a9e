/* sources/containers/oci_pod_labels.c -- a CRI-O sandbox's pod labels from
 * its OCI spec (see oci_pod_labels.h). */
#include "pna_autoconf.h"
#include "sources/containers/oci_pod_labels.h"
#include "util/array.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CRIO_TYPE "io.kubernetes.cri-o.ContainerType"
#define CRIO_LABELS "io.kubernetes.cri-o.Labels"
#define CRIO_POD_NAME "io.kubernetes.cri-o.KubeName"
#define CRIO_NAMESPACE "io.kubernetes.cri-o.Namespace"
/* The kubelet's own labels of a sandbox (and cri-dockerd's annotations). */
#define K8S_POD_UID "io.kubernetes.pod.uid"
#define K8S_POD_NAME "io.kubernetes.pod.name"
#define K8S_POD_NAMESPACE "io.kubernetes.pod.namespace"

static const char *jstr(const json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

static int dup_first(char **out, const char *a, const char *b)
{
    const char *v = a ? a : b;
    *out = v ? strdup(v) : NULL;
    return v && !*out ? -1 : 0;
}

static int keep_label(struct pna_oci_pod_labels *out, const char *key, const char *value)
{
    if (out->count == PNA_POD_LABELS_PER_POD) {
        out->over++;
        return 0;
    }
    if (PNA_ARRAY_RESERVE(out->labels, out->cap, out->count + 1) != 0)
        return -1;
    struct pna_oci_pod_label *l = &out->labels[out->count];
    l->key = strdup(key);
    l->value = strdup(value);
    if (!l->key || !l->value) {
        free(l->key);
        free(l->value);
        return -1;
    }
    out->count++;
    return 0;
}

static int read_labels(const json_t *labels, const struct pna_label_allow *allow,
                       struct pna_oci_pod_labels *out)
{
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)labels, key, v) {
        if (!json_is_string(v) || pna_pod_label_kubelet_key(key) || !pna_label_allowed(allow, key))
            continue;
        if (keep_label(out, key, json_string_value(v)) < 0)
            return -1;
    }
    return 0;
}

int pna_oci_read_pod_labels(const json_t *ann, const struct pna_label_allow *allow,
                            struct pna_oci_pod_labels *out)
{
    memset(out, 0, sizeof *out);
    const char *type = ann ? jstr(ann, CRIO_TYPE) : NULL;
    const char *text = ann ? jstr(ann, CRIO_LABELS) : NULL;
    if (!type || strcmp(type, "sandbox") != 0 || !text || !allow || !allow->count)
        return 0;
    json_t *labels = json_loads(text, 0, NULL);
    if (!json_is_object(labels)) {
        out->bad = true;
        json_decref(labels);
        return 0;
    }
    int rc = 0;
    if (dup_first(&out->pod_uid, jstr(labels, K8S_POD_UID), jstr(ann, K8S_POD_UID)) < 0 ||
        dup_first(&out->pod_name, jstr(labels, K8S_POD_NAME), jstr(ann, CRIO_POD_NAME)) < 0 ||
        dup_first(&out->pod_namespace, jstr(labels, K8S_POD_NAMESPACE), jstr(ann, CRIO_NAMESPACE)) < 0 ||
        read_labels(labels, allow, out) < 0)
        rc = -1;
    json_decref(labels);
    if (rc < 0)
        pna_oci_pod_labels_free(out);
    return rc;
}

int pna_oci_pod_labels_add(const struct pna_oci_pod_labels *l, const struct pna_label_allow *allow,
                           struct pna_pod_label_set *set)
{
    struct pna_pod_label_pod pod = { l->pod_uid, l->pod_namespace, l->pod_name };
    pna_pod_label_set_begin_pod(set);
    for (size_t i = 0; i < l->count; i++)
        if (pna_pod_label_set_add(set, allow, &pod, l->labels[i].key, l->labels[i].value) < 0)
            return -1;
    if (l->over)
        pna_pod_label_set_count(set, &pod, l->over, "over the 64 labels kept per pod");
    if (l->bad)
        pna_pod_label_set_count(set, &pod, 1, CRIO_LABELS " is not a JSON object");
    return 0;
}

void pna_oci_pod_labels_free(struct pna_oci_pod_labels *l)
{
    if (!l)
        return;
    for (size_t i = 0; i < l->count; i++) {
        free(l->labels[i].key);
        free(l->labels[i].value);
    }
    free(l->labels);
    free(l->pod_uid);
    free(l->pod_name);
    free(l->pod_namespace);
    memset(l, 0, sizeof *l);
}
