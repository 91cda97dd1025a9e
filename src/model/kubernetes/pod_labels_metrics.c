/* model/kubernetes/pod_labels_metrics.c -- primusPodLabelTable: the pod
 * labels the podLabels token allows (model/kubernetes/pod_labels.h), one row
 * per pod and key, one descriptor per column.
 *
 * The rows are the kubelet snapshot's while there is one, else the
 * containers snapshot's (the pod sandboxes' labels): pna_pod_labels_of_view.
 * Both sets are kept in index order, so the table is index_ordered and no
 * sort keyed on one snapshot is needed.  /metrics has no family per column:
 * the labels of one pod are one primus_pod_labels_info series
 * (http/render/metrics_pod_labels.c), read through these descriptors. */
#include "pna_autoconf.h"
#include "model/metric_tables.h"

#include "model/kubernetes/pod_labels.h"
#include "model/metric.h"
#include "model/oids.h"

#define TEXT PNA_SYNTAX_TEXT

static size_t label_rows(const struct pna_view *v)
{
    const struct pna_pod_label_set *set = pna_pod_labels_of_view(v);
    return set ? set->count : 0;
}

static bool label_row(const struct pna_view *v, size_t i, struct pna_row *out)
{
    out->rec = &pna_pod_labels_of_view(v)->rows[i];
    return true;
}

#define LBL(member) PNA_FIELD(struct pna_pod_label, member)

static const struct pna_metric label_metrics[] = {
    { .column = 3, .object = "primusPodLabelNamespace", .syntax = TEXT, .field = LBL(pod_namespace),
      .json = "namespace" },
    { .column = 4, .object = "primusPodLabelPod", .syntax = TEXT, .field = LBL(pod_name),
      .json = "pod" },
    { .column = 5, .object = "primusPodLabelKey", .syntax = TEXT, .field = LBL(key),
      .json = "key" },
    { .column = 6, .object = "primusPodLabelValue", .syntax = TEXT, .field = LBL(value),
      .json = "value" },
};

/* (the pod's UID, the key's index string) */
static const struct pna_key_part label_key[] = {
    PNA_KEY_INDEX_FIELD("primusPodLabelPodUid", "pod_uid", PNA_KEY_FROM_REC, struct pna_pod_label,
                        pod_uid),
    PNA_KEY_INDEX_FIELD("primusPodLabelKeyId", NULL, PNA_KEY_FROM_REC, struct pna_pod_label,
                        key_id),
};

const struct pna_metric_table pna_pod_label_metrics = {
    .object = "primusPodLabelTable",
    .kind = PNA_TABLE_ROWS,
    .domain = PNA_DOM_KUBELET,
    .view = PNA_VIEW_DOMAIN(PNA_DOM_KUBELET) | PNA_VIEW_DOMAIN(PNA_DOM_CONTAINERS),
    PNA_TABLE_OID(PNA_OID_KUBERNETES, 20),
    PNA_KEY(label_key),
    .index_ordered = true,
    .metrics = label_metrics,
    .count = sizeof label_metrics / sizeof label_metrics[0],
    .rows = label_rows,
    .row = label_row,
};
