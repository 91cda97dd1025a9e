/* http/render/metrics_pod_labels.c -- the pod labels on /metrics and JSON:
 *
 *   primus_pod_labels_info{namespace,pod,label_<key>...} 1
 *       one series per pod that has a served label (primusPodLabelTable),
 *       never labels on value series: a join puts them where wanted
 *       (docs/metrics.md);
 *   /podLabels
 *       [{"namespace","pod","pod_uid","labels":{KEY:VALUE,...}}], one entry
 *       per pod, in the table's order.
 *
 * Label names follow kube-state-metrics' kube_pod_labels: "label_", then the
 * key with every character outside [a-zA-Z0-9_] made '_' and a lower-case
 * letter or digit followed by a capital split by '_' (snake case), all lower
 * case.  Keys of one pod that give one name (app.kubernetes.io/name and
 * app_kubernetes_io/name) are taken in the keys' byte order and all get
 * "_conflictN" (N from 1) appended, as kube-state-metrics does.  Values are
 * the table's descriptors', so SNMP and HTTP cannot disagree. */
#include "pna_autoconf.h"
#include "http/render/render.h"

#include "model/kubernetes/pod_labels.h"
#include "model/metric_tables.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME_CAP (sizeof "label_" + 2 * PNA_LABEL_KEY_MAX + sizeof "_conflict64")

static const struct pna_metric_table *const T = &pna_pod_label_metrics;

/* One label of the pod being written: its key, value and Prometheus name. */
struct named_label {
    const char *key;
    const char *value;
    char name[NAME_CAP];
};

static bool is_lower_or_digit(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

static bool is_upper(char c)
{
    return c >= 'A' && c <= 'Z';
}

static bool is_name_char(char c)
{
    return is_lower_or_digit(c) || is_upper(c) || c == '_';
}

/* kube-state-metrics' label name of KEY. */
static void label_name(const char *key, char *out, size_t cap)
{
    size_t n = (size_t)snprintf(out, cap, "label_");
    for (const char *k = key; *k && n + 3 < cap; k++) {
        char c = is_name_char(*k) ? *k : '_';
        if (is_lower_or_digit(c) && is_upper(k[1])) {
            out[n++] = c;
            out[n++] = '_';
            out[n++] = (char)(k[1] - 'A' + 'a');
            k++;
            continue;
        }
        out[n++] = is_upper(c) ? (char)(c - 'A' + 'a') : c;
    }
    out[n] = '\0';
}

static int by_key(const void *a, const void *b)
{
    return strcmp(((const struct named_label *)a)->key, ((const struct named_label *)b)->key);
}

/* Append "_conflictN" to L's name. */
static void suffix(struct named_label *l, size_t n)
{
    size_t len = strlen(l->name);
    snprintf(l->name + len, sizeof l->name - len, "_conflict%zu", n);
}

/* Give the N labels (sorted by key) kube-state-metrics' names. */
static void name_labels(struct named_label *l, size_t n)
{
    for (size_t i = 0; i < n; i++)
        label_name(l[i].key, l[i].name, sizeof l[i].name);
    for (size_t i = 0; i < n; i++) {
        size_t count = 1;
        for (size_t j = i + 1; j < n; j++)
            if (strcmp(l[i].name, l[j].name) == 0 && ++count)
                suffix(&l[j], count);
        if (count > 1)
            suffix(&l[i], 1);
    }
}

/* The text of MIB object OBJECT in ROW ("" when absent). */
static const char *text_of(const char *object, const struct pna_row *row, struct pna_value *v)
{
    pna_metric_value(T, pna_metric_by_object(T, object), row, v);
    return v->state == PNA_PRESENT && v->is_text ? v->text : "";
}

/* Rows [FIRST, FIRST+N) of the view (one pod's) as labels into L; their
 * number (a row that cannot be shown is skipped). */
static size_t read_pod(const struct pna_http_view *v, size_t first, size_t n,
                       struct named_label *l, struct pna_row *pod_row)
{
    size_t got = 0;
    for (size_t i = 0; i < n; i++) {
        struct pna_row row;
        struct pna_value key, value;
        if (!pna_http_row(T, v, first + i, &row))
            continue;
        *pod_row = row;
        l[got].key = text_of("primusPodLabelKey", &row, &key);
        l[got].value = text_of("primusPodLabelValue", &row, &value);
        got++;
    }
    qsort(l, got, sizeof l[0], by_key);
    name_labels(l, got);
    return got;
}

/* The number of rows from FIRST on that belong to the same pod (one UID). */
static size_t pod_extent(const struct pna_pod_label_set *set, size_t first)
{
    size_t end = first + 1;
    while (end < set->count && strcmp(set->rows[end].pod_uid, set->rows[first].pod_uid) == 0)
        end++;
    return end - first;
}

static void write_pod(struct pna_prom *p, const struct named_label *l, size_t n,
                      const struct pna_row *pod_row)
{
    struct pna_prom_label labels[2 + PNA_POD_LABELS_PER_POD];
    struct pna_value ns, pod;
    labels[0] = (struct pna_prom_label){ "namespace", text_of("primusPodLabelNamespace", pod_row, &ns) };
    labels[1] = (struct pna_prom_label){ "pod", text_of("primusPodLabelPod", pod_row, &pod) };
    size_t k = 2;
    for (size_t i = 0; i < n && k < sizeof labels / sizeof labels[0]; i++) {
        bool twice = false;   /* a key spelled like another's conflict name */
        for (size_t j = 2; j < k; j++)
            twice = twice || strcmp(labels[j].name, l[i].name) == 0;
        if (!twice)
            labels[k++] = (struct pna_prom_label){ l[i].name, l[i].value };
    }
    pna_prom_u64(p, labels, k, 1);
}

void pna_metrics_pod_label_extras(struct pna_prom *p, const struct pna_http_view *v)
{
    const struct pna_pod_label_set *set = pna_pod_labels_of_view(&v->base);
    if (!set || !set->count)
        return;
    struct named_label *l = malloc(PNA_POD_LABELS_PER_POD * sizeof *l);
    if (!l)
        return;
    pna_prom_family(p, "primus_pod_labels_info", PNA_PROM_GAUGE,
                    "One series per pod with its labels that podLabels allows, as "
                    "label_<key> (kube-state-metrics' names); join it on namespace and pod; "
                    "always 1 (primusPodLabelTable)");
    for (size_t first = 0; first < set->count;) {
        size_t n = pod_extent(set, first);
        struct pna_row pod_row;
        size_t got = read_pod(v, first, n > PNA_POD_LABELS_PER_POD ? PNA_POD_LABELS_PER_POD : n,
                              l, &pod_row);
        if (got)
            write_pod(p, l, got, &pod_row);
        first += n;
    }
    free(l);
}

struct pna_json_reply pna_json_pod_labels(const struct pna_http_view *v)
{
    const struct pna_pod_label_set *set = pna_pod_labels_of_view(&v->base);
    json_t *list = json_array();
    for (size_t first = 0; set && first < set->count;) {
        size_t n = pod_extent(set, first);
        json_t *pod = NULL, *labels = json_object();
        for (size_t i = 0; i < n; i++) {
            struct pna_row row;
            struct pna_value key;
            if (!pna_http_row(T, v, first + i, &row))
                continue;
            if (!pod) {
                pod = json_object();
                pna_json_put(pod, T, "primusPodLabelNamespace", &row);
                pna_json_put(pod, T, "primusPodLabelPod", &row);
                json_object_set_new(pod, "pod_uid", pna_json_text(set->rows[first].pod_uid));
            }
            json_t *value = pna_json_value(T, pna_metric_by_object(T, "primusPodLabelValue"), &row);
            if (value)
                json_object_set_new(labels, text_of("primusPodLabelKey", &row, &key), value);
        }
        if (pod) {
            json_object_set_new(pod, "labels", labels);
            json_array_append_new(list, pod);
        } else {
            json_decref(labels);
        }
        first += n;
    }
    struct pna_json_reply r = { 200, list };
    return r;
}
