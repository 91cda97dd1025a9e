/* http/render/compat.c -- other exporters' names on /metrics, from a mapping
 * table of primus descriptors (see compat.h).
 *
 * For each exporter prometheusCompat names: the GPU rows of its vendor, their
 * labels worked out once, then one family per mapping line with a sample for
 * every such GPU whose descriptor has a value, converted as the line says.
 * Absent stays absent: a value the GPU does not offer has no sample, as in
 * the primus families. */
#include "pna_autoconf.h"
#include "http/render/compat.h"
#include "model/kubernetes/holders.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/config.h"
#include "model/containers.h"
#include "model/gpu/gpu.h"
#include "model/metric_tables.h"

/* ---- descriptors ------------------------------------------------------------- */

const struct pna_metric *pna_compat_source(const struct pna_compat_map *m)
{
    const struct pna_metric_table *t = &pna_gpu_metrics;
    if (!m->source_label)
        return pna_metric_by_name(t, m->source);
    for (size_t i = 0; i < t->count; i++) {
        const struct pna_metric *d = &t->metrics[i];
        if (d->family && d->label_value && strcmp(d->family, m->source) == 0 &&
            strcmp(d->label_value, m->source_label) == 0)
            return d;
    }
    return NULL;
}

const char *pna_compat_text(const struct pna_row *row, const char *object, char *buf, size_t cap)
{
    const struct pna_metric *m = pna_metric_by_name(&pna_gpu_metrics, object);
    struct pna_value v;
    buf[0] = '\0';
    if (!m)
        return buf;
    pna_metric_value(&pna_gpu_metrics, m, row, &v);
    const char *text = pna_metric_label_text(m, &v, buf, cap);
    if (text != buf)   /* the value's own text (in V or the snapshot): copy it */
        snprintf(buf, cap, "%s", text);
    return buf;
}

/* ---- labels ------------------------------------------------------------------- */

void pna_compat_put(struct pna_compat_labels *out, const char *name, const char *value)
{
    if (out->n >= PNA_COMPAT_LABELS_MAX)
        return;
    snprintf(out->text[out->n], sizeof out->text[out->n], "%s", value ? value : "");
    out->l[out->n] = (struct pna_prom_label){ name, out->text[out->n] };
    out->n++;
}

void pna_compat_gpu_number(const struct pna_row *row, size_t number, char *buf, size_t cap)
{
    pna_compat_text(row, "primusGpuOrdinal", buf, cap);
    if (!buf[0])
        snprintf(buf, cap, "%zu", number);
}

/* The name of container C, read through primusContainerTable's descriptor. */
static void container_name(const struct pna_http_view *v, const struct pna_container *c,
                           char *buf, size_t cap)
{
    const struct pna_metric_table *t = &pna_container_metrics;
    const struct pna_metric *m = pna_metric_by_object(t, "primusContainerName");
    buf[0] = '\0';
    for (size_t i = 0; m && i < t->rows(&v->base); i++) {
        struct pna_row row;
        struct pna_value val;
        if (!pna_http_row(t, v, i, &row) || row.rec != c)
            continue;
        pna_metric_value(t, m, &row, &val);
        const char *text = pna_metric_label_text(m, &val, buf, cap);
        if (text != buf)
            snprintf(buf, cap, "%s", text);
        return;
    }
}

void pna_compat_holder(const struct pna_http_view *v, const struct pna_row *row,
                       struct pna_compat_labels *out)
{
    char pod[PNA_COMPAT_LABEL_TEXT], ns[PNA_COMPAT_LABEL_TEXT], name[PNA_COMPAT_LABEL_TEXT] = "";
    pna_compat_text(row, "primusGpuHolderPod", pod, sizeof pod);
    pna_compat_text(row, "primusGpuHolderNamespace", ns, sizeof ns);
    if (!pod[0])
        return;   /* as the exporters: pod labels only for a GPU a pod holds */
    /* The holder descriptors name the holder model/kubernetes/holders.h finds first;
     * its container name is a column of that container's own row when the
     * agent sees one, else the name the kubelet gave. */
    struct pna_holder h;
    pna_gpu_holder(&v->base, row->rec, &h);
    if (h.record)
        container_name(v, h.record, name, sizeof name);
    else
        snprintf(name, sizeof name, "%s", h.container_name);
    pna_compat_put(out, "container", name);
    pna_compat_put(out, "namespace", ns);
    pna_compat_put(out, "pod", pod);
}

/* ---- samples ------------------------------------------------------------------ */

/* VAL converted as M says, as one sample. */
static void converted_sample(struct pna_prom *p, const struct pna_compat_map *m,
                             const struct pna_compat_labels *labels, const struct pna_value *val)
{
    struct pna_prom_label l[PNA_COMPAT_LABELS_MAX + 2];
    size_t n = labels->n;
    memcpy(l, labels->l, n * sizeof l[0]);
    for (size_t k = 0; k < 2 && m->extra[k].name; k++)
        l[n++] = m->extra[k];
    struct pna_value x = *val;
    if (x.is_signed)
        x.i /= (int64_t)1 << m->shift;   /* truncated toward 0, as for unsigned */
    else
        x.u >>= m->shift;
    pna_prom_scaled(p, l, n, &x, m->scale);
}

/* One GPU row of the exporter's vendor, its labels worked out. */
struct compat_row {
    struct pna_row row;
    struct pna_compat_labels labels;
};

static bool of_vendor(const struct pna_row *row, const char *vendor)
{
    char text[32];
    return strcmp(pna_compat_text(row, "primusGpuVendor", text, sizeof text), vendor) == 0;
}

/* The exporter's GPUs in V, in row order; their number in *N.  NULL when
 * none (or out of memory: the families are then left out). */
static struct compat_row *vendor_rows(const struct pna_http_view *v,
                                      const struct pna_compat_exporter *e, size_t *n)
{
    const struct pna_metric_table *t = &pna_gpu_metrics;
    size_t rows = t->rows(&v->base);
    struct compat_row *out = rows ? calloc(rows, sizeof *out) : NULL;
    *n = 0;
    for (size_t i = 0; out && i < rows; i++) {
        struct compat_row *r = &out[*n];
        if (!pna_http_row(t, v, i, &r->row) || !of_vendor(&r->row, e->vendor))
            continue;
        e->labels(v, &r->row, *n, &r->labels);
        (*n)++;
    }
    if (out && !*n) {
        free(out);
        out = NULL;
    }
    return out;
}

static void map_family(struct pna_prom *p, const struct pna_compat_map *m, bool same_family,
                       const struct compat_row *rows, size_t n)
{
    const struct pna_metric *d = pna_compat_source(m);
    if (!d)
        return;   /* planned, not in the model yet */
    if (!same_family)
        pna_prom_family(p, m->name, m->type, m->help);
    for (size_t i = 0; i < n; i++) {
        struct pna_value val;
        pna_metric_value(&pna_gpu_metrics, d, &rows[i].row, &val);
        if (val.state == PNA_PRESENT && !val.is_text)
            converted_sample(p, m, &rows[i].labels, &val);
    }
}

void pna_compat_render(struct pna_prom *p, const struct pna_http_view *v,
                       const struct pna_compat_exporter *e)
{
    size_t n;
    struct compat_row *rows = vendor_rows(v, e, &n);
    if (!rows)
        return;
    const char *family = NULL;   /* of the last line rendered */
    for (size_t j = 0; j < e->count; j++) {
        const struct pna_compat_map *m = &e->maps[j];
        bool same = family && strcmp(family, m->name) == 0;
        map_family(p, m, same, rows, n);
        if (pna_compat_source(m))
            family = m->name;
    }
    if (e->extra)
        e->extra(p, v, n);
    free(rows);
}

void pna_metrics_compat(struct pna_prom *p, const struct pna_http_view *v)
{
    static const struct pna_compat_exporter *const exporters[] = { &pna_compat_dcgm, &pna_compat_amd };
    for (size_t i = 0; i < sizeof exporters / sizeof exporters[0]; i++)
        if (v->compat & exporters[i]->bit)
            pna_compat_render(p, v, exporters[i]);
}
