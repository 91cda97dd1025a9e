/* model/kubernetes/pod_labels.h -- the pod labels the agent serves: one row
 * per (pod, label key) of primusPodLabelTable, and one primus_pod_labels_info
 * series per pod on /metrics.
 *
 * Only keys the podLabels allow-list names are kept (util/label_allow.h); a
 * row is added by pna_pod_label_set_add(), which checks the list, so no other
 * label, annotation or environment variable can reach a row.  The kubelet
 * poller fills a set from the kubelet's pod list (metadata.labels), the
 * containers poller from the runtimes' pod sandboxes (Docker labels of a
 * sandbox container, CRI-O's io.kubernetes.cri-o.Labels annotation); the
 * table serves the kubelet's set while its snapshot is there, else the
 * runtimes' (pna_pod_labels_of_view).
 *
 * Bounds: at most PNA_POD_LABELS_PER_POD labels of one pod are kept, a
 * value over PNA_POD_LABEL_VALUE_MAX characters and a key that is not a label
 * key are not kept; each label left out is counted in `dropped`, and the
 * first one is described in `drop_note` for the poller's row. */
#ifndef PNA_MODEL_POD_LABELS_H
#define PNA_MODEL_POD_LABELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/view.h"
#include "util/label_allow.h"
#include "util/strpool.h"

#define PNA_POD_LABELS_PER_POD 64
#define PNA_POD_LABEL_VALUE_MAX 63     /* a Kubernetes label value's longest */
#define PNA_POD_LABEL_UID_MAX 64       /* primusPodUid's SIZE */
/* The index of a key (primusPodLabelKeyId): the key itself when it has at
 * most this many characters, else its first PNA_POD_LABEL_KEY_ID_HEAD
 * characters, '~' (no key has one) and the FNV-1a hash of the whole key in 8
 * hex digits.  With the UID (at most 64) the row index stays within an OID's
 * 128 sub-identifiers. */
#define PNA_POD_LABEL_KEY_ID_MAX 48
#define PNA_POD_LABEL_KEY_ID_HEAD 39

struct pna_pod_label {
    /* in the set's pool, never NULL */
    const char *pod_uid;
    const char *pod_namespace;
    const char *pod_name;
    const char *key;
    const char *value;
    char key_id[PNA_POD_LABEL_KEY_ID_MAX + 1];
};

struct pna_pod_label_set {
    struct pna_pod_label *rows;    /* index order after pna_pod_label_set_finish() */
    size_t count, cap;
    struct pna_strpool strings;
    size_t pod_first;              /* the first row of the pod being added */
    uint64_t dropped;              /* labels left out (bounds above, duplicates) */
    char drop_note[200];           /* the first one left out, "" when none */
};

/* The pod whose labels are being added. */
struct pna_pod_label_pod {
    const char *uid, *pod_namespace, *name;
};

void pna_pod_label_set_init(struct pna_pod_label_set *set);
void pna_pod_label_set_free(struct pna_pod_label_set *set);

/* Start the labels of POD: the rows added next count towards its bound. */
void pna_pod_label_set_begin_pod(struct pna_pod_label_set *set);

/* Add label KEY=VALUE of POD when ALLOW names KEY.  Returns 1 when it is not
 * allowed (nothing kept, nothing counted), 0 when kept, 2 when left out and
 * counted (the pod has no UID or one over 64 characters, KEY is no label key,
 * VALUE is too long, or the pod has PNA_POD_LABELS_PER_POD already), -1 when
 * out of memory. */
int pna_pod_label_set_add(struct pna_pod_label_set *set, const struct pna_label_allow *allow,
                          const struct pna_pod_label_pod *pod, const char *key, const char *value);

/* Move the rows, strings and counts of FROM onto the end of TO (FROM keeps
 * no strings; free it after).  Returns 0, or -1 when out of memory (TO
 * unchanged but for FROM's strings, which it then owns). */
int pna_pod_label_set_append(struct pna_pod_label_set *to, struct pna_pod_label_set *from);

/* Count N labels of POD left out for reason WHY (a source's own bound). */
void pna_pod_label_set_count(struct pna_pod_label_set *set, const struct pna_pod_label_pod *pod,
                             uint64_t n, const char *why);

/* Whether KEY is one the kubelet or a runtime's shim puts on a sandbox
 * itself, not one of the pod's own labels: io.kubernetes.* (the pod's name,
 * namespace and UID, the container's name, cri-dockerd's sandbox type) and
 * cri-dockerd's "annotation." copies of the pod's annotations, which are
 * never served whatever podLabels says. */
bool pna_pod_label_kubelet_key(const char *key);

/* Sort the rows in index order (UID, then key id, as SNMP orders strings:
 * by length, then bytes) and drop a row whose index another has (the same
 * label read twice, counted). */
void pna_pod_label_set_finish(struct pna_pod_label_set *set);

/* Write KEY's index string (see PNA_POD_LABEL_KEY_ID_MAX) into ID. */
void pna_pod_label_key_id(const char *key, char id[PNA_POD_LABEL_KEY_ID_MAX + 1]);

/* The rows of the pod with UID UID in a finished SET: the first one, and
 * their number in *N; NULL when it has none. */
const struct pna_pod_label *pna_pod_label_set_find_pod(const struct pna_pod_label_set *set,
                                                       const char *uid, size_t *n);

/* The set the served labels come from: the kubelet snapshot's while there is
 * one, else the containers snapshot's; NULL when neither domain is in V. */
const struct pna_pod_label_set *pna_pod_labels_of_view(const struct pna_view *v);

#endif
