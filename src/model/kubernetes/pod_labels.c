/* model/kubernetes/pod_labels.c -- the set of served pod labels: the
 * allow-list check, the bounds, the key's index and the index order (see
 * pod_labels.h). */
#include "pna_autoconf.h"
#include "model/kubernetes/pod_labels.h"
#include "model/containers.h"
#include "model/storage.h"
#include "util/array.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void pna_pod_label_set_init(struct pna_pod_label_set *set)
{
    memset(set, 0, sizeof *set);
}

void pna_pod_label_set_free(struct pna_pod_label_set *set)
{
    free(set->rows);
    pna_strpool_free(&set->strings);
    pna_pod_label_set_init(set);
}

void pna_pod_label_set_begin_pod(struct pna_pod_label_set *set)
{
    set->pod_first = set->count;
}

static uint32_t fnv1a(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

void pna_pod_label_key_id(const char *key, char id[PNA_POD_LABEL_KEY_ID_MAX + 1])
{
    size_t len = strlen(key);
    if (len <= PNA_POD_LABEL_KEY_ID_MAX) {
        memcpy(id, key, len + 1);
        return;
    }
    memcpy(id, key, PNA_POD_LABEL_KEY_ID_HEAD);
    snprintf(id + PNA_POD_LABEL_KEY_ID_HEAD, PNA_POD_LABEL_KEY_ID_MAX + 1 - PNA_POD_LABEL_KEY_ID_HEAD,
             "~%08x", (unsigned)fnv1a(key));
}

/* Count a label left out; the first one is described. */
static int left_out(struct pna_pod_label_set *set, const struct pna_pod_label_pod *pod,
                    const char *key, const char *why)
{
    if (set->dropped++ == 0)
        snprintf(set->drop_note, sizeof set->drop_note, "pod %.63s/%.63s: label %.48s%s: %s",
                 pod->pod_namespace ? pod->pod_namespace : "", pod->name ? pod->name : "",
                 key, strlen(key) > 48 ? "..." : "", why);
    return 2;
}

int pna_pod_label_set_append(struct pna_pod_label_set *to, struct pna_pod_label_set *from)
{
    pna_strpool_take(&to->strings, &from->strings);
    if (from->dropped && !to->dropped)
        memcpy(to->drop_note, from->drop_note, sizeof to->drop_note);
    to->dropped += from->dropped;
    if (!from->count)
        return 0;
    if (PNA_ARRAY_RESERVE(to->rows, to->cap, to->count + from->count) != 0)
        return -1;
    memcpy(to->rows + to->count, from->rows, from->count * sizeof from->rows[0]);
    to->count += from->count;
    return 0;
}

void pna_pod_label_set_count(struct pna_pod_label_set *set, const struct pna_pod_label_pod *pod,
                             uint64_t n, const char *why)
{
    if (!n)
        return;
    if (set->dropped == 0)
        snprintf(set->drop_note, sizeof set->drop_note, "pod %.63s/%.63s: %llu labels: %s",
                 pod->pod_namespace ? pod->pod_namespace : "", pod->name ? pod->name : "",
                 (unsigned long long)n, why);
    set->dropped += n;
}

bool pna_pod_label_kubelet_key(const char *key)
{
    return strncmp(key, "io.kubernetes.", 14) == 0 || strncmp(key, "annotation.", 11) == 0;
}

static const char *why_not_kept(const struct pna_pod_label_set *set,
                                const struct pna_pod_label_pod *pod, const char *key,
                                const char *value)
{
    if (!pod->uid || !pod->uid[0] || strlen(pod->uid) > PNA_POD_LABEL_UID_MAX)
        return "the pod has no UID of at most 64 characters";
    if (!pna_label_key_valid(key))
        return "not a label key";
    if (strlen(value) > PNA_POD_LABEL_VALUE_MAX)
        return "value over 63 characters, not kept";
    if (set->count - set->pod_first >= PNA_POD_LABELS_PER_POD)
        return "over the 64 labels kept per pod";
    return NULL;
}

static int keep(struct pna_pod_label_set *set, const char **field, const char *text)
{
    char buf[PNA_LABEL_KEY_MAX + 1];
    pna_copy_display(buf, text, sizeof buf);
    *field = pna_strpool_add(&set->strings, buf);
    return *field ? 0 : -1;
}

int pna_pod_label_set_add(struct pna_pod_label_set *set, const struct pna_label_allow *allow,
                          const struct pna_pod_label_pod *pod, const char *key, const char *value)
{
    if (!key || !value || !pna_label_allowed(allow, key))
        return 1;
    const char *why = why_not_kept(set, pod, key, value);
    if (why)
        return left_out(set, pod, key, why);
    if (PNA_ARRAY_RESERVE(set->rows, set->cap, set->count + 1) != 0)
        return -1;
    struct pna_pod_label *l = &set->rows[set->count];
    if (keep(set, &l->pod_uid, pod->uid) < 0 || keep(set, &l->pod_namespace, pod->pod_namespace) < 0 ||
        keep(set, &l->pod_name, pod->name) < 0 || keep(set, &l->key, key) < 0 ||
        keep(set, &l->value, value) < 0)
        return -1;
    pna_pod_label_key_id(key, l->key_id);
    set->count++;
    return 0;
}

/* SNMP's order of a string index part: its length, then its octets. */
static int index_cmp(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la != lb)
        return la < lb ? -1 : 1;
    return memcmp(a, b, la);
}

static int row_cmp(const void *pa, const void *pb)
{
    const struct pna_pod_label *a = pa, *b = pb;
    int c = index_cmp(a->pod_uid, b->pod_uid);
    return c ? c : index_cmp(a->key_id, b->key_id);
}

void pna_pod_label_set_finish(struct pna_pod_label_set *set)
{
    if (set->count > 1)
        qsort(set->rows, set->count, sizeof set->rows[0], row_cmp);
    size_t out = 0;
    for (size_t i = 0; i < set->count; i++) {
        if (out && row_cmp(&set->rows[out - 1], &set->rows[i]) == 0) {
            struct pna_pod_label_pod pod = { set->rows[i].pod_uid, set->rows[i].pod_namespace,
                                             set->rows[i].pod_name };
            left_out(set, &pod, set->rows[i].key, "a second label with the same index");
            continue;
        }
        set->rows[out++] = set->rows[i];
    }
    set->count = out;
}

const struct pna_pod_label *pna_pod_label_set_find_pod(const struct pna_pod_label_set *set,
                                                       const char *uid, size_t *n)
{
    size_t lo = 0, hi = set ? set->count : 0;
    *n = 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (index_cmp(set->rows[mid].pod_uid, uid) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t end = lo;
    while (end < (set ? set->count : 0) && index_cmp(set->rows[end].pod_uid, uid) == 0)
        end++;
    *n = end - lo;
    return *n ? &set->rows[lo] : NULL;
}

const struct pna_pod_label_set *pna_pod_labels_of_view(const struct pna_view *v)
{
    const struct pna_kubelet_snap *k = pna_view_snap(v, PNA_DOM_KUBELET);
    if (k)
        return &k->labels;
    const struct pna_containers_snap *c = pna_view_snap(v, PNA_DOM_CONTAINERS);
    return c ? &c->pod_labels : NULL;
}
