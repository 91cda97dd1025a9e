/* http/render/metrics_table.c -- /metrics from a table of descriptors (model/metric.h).
 *
 * For a table: its info series (one per row, labelled with the row's identity
 * and every descriptor served as a label), then one family per descriptor
 * that has one, with a sample for every row that has the value: the value
 * times the descriptor's scale.  Consecutive descriptors of one family (one
 * per value of a constant label) share its header.  The row's identity labels
 * come from the table's key, the rest from the descriptors, so a value is
 * served here exactly as the SNMP table serves it, and a table needs no code
 * of its own here. */
#include "pna_autoconf.h"
#include "http/render/render.h"
#include "model/kubernetes/holders.h"
#include "model/slurm/slurm_holders.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* V's label text (pna_metric_label_text(); M NULL for a key part) that
 * outlives V: a value's own text lives in V, so it is copied into BUF (CAP
 * bytes); text in a snapshot or static text is used where it is. */
static const char *lasting_label_text(const struct pna_metric *m, const struct pna_value *v,
                                      char *buf, size_t cap)
{
    const char *text = pna_metric_label_text(m, v, buf, cap);
    if (text == v->buf) {
        snprintf(buf, cap, "%s", v->buf);
        text = buf;
    }
    return text;
}

/* ---- a row's labels, from its table's key ---------------------------------- */

/* Label NAME with the text of V appended to OUT: numbers and a value's own
 * text are written into OUT's text room ("" when that is full). */
static void add_key_label(struct pna_row_labels *out, const char *name, const struct pna_value *v)
{
    if (out->n == PNA_ROW_LABELS_MAX)
        return;
    char spare[sizeof out->text[0]];
    bool room = out->ntext < PNA_ROW_LABEL_TEXTS;
    char *buf = room ? out->text[out->ntext] : spare;
    const char *text = lasting_label_text(NULL, v, buf, sizeof spare);
    if (text == buf) {
        if (room)
            out->ntext++;
        else
            text = "";
    }
    out->l[out->n++] = (struct pna_prom_label){ name, text };
}

static void key_labels(const struct pna_metric_table *t, const struct pna_row *row, bool with_join,
                       struct pna_row_labels *out)
{
    const struct pna_key *key = &t->key;
    out->n = 0;
    out->ntext = 0;
    for (size_t i = 0; i < key->count; i++) {
        const struct pna_key_part *part = &key->parts[i];
        if (!part->label)
            continue;
        struct pna_value v;
        pna_key_read(part, row, &v);
        add_key_label(out, part->label, &v);
    }
    if (!with_join || !key->join)
        return;
    const char *values[PNA_KEY_JOIN_MAX] = { NULL };
    key->join(row, values);
    for (size_t i = 0; i < PNA_KEY_JOIN_MAX && key->join_labels[i] && out->n < PNA_ROW_LABELS_MAX; i++)
        out->l[out->n++] = (struct pna_prom_label){ key->join_labels[i], values[i] ? values[i] : "" };
}

void pna_prom_key_labels(const struct pna_http_view *v, const struct pna_metric_table *t,
                         const struct pna_row *row, struct pna_row_labels *out)
{
    (void)v;
    key_labels(t, row, true, out);
}

void pna_prom_identity_labels(const struct pna_http_view *v, const struct pna_metric_table *t,
                              const struct pna_row *row, struct pna_row_labels *out)
{
    (void)v;
    key_labels(t, row, false, out);
}

void pna_prom_holder_labels(const struct pna_http_view *v, const struct pna_metric_table *t,
                            const struct pna_row *row, const struct pna_holder *h,
                            const char *job, struct pna_row_labels *out)
{
    pna_prom_identity_labels(v, t, row, out);
    out->l[out->n++] = (struct pna_prom_label){ "container_id", h ? h->container_id : "" };
    out->l[out->n++] = (struct pna_prom_label){ "container", h ? h->container_name : "" };
    out->l[out->n++] = (struct pna_prom_label){ "pod", h ? h->pod : "" };
    out->l[out->n++] = (struct pna_prom_label){ "namespace", h ? h->pod_namespace : "" };
    out->l[out->n++] = (struct pna_prom_label){ "job", job };
}

struct holder_series {
    struct pna_prom *p;
    const struct pna_http_view *v;
    const struct pna_metric_table *t;
    const struct pna_row *row;
};

static void holder_series(const struct pna_holder *h, void *arg)
{
    const struct holder_series *hs = arg;
    struct pna_row_labels rl;
    pna_prom_holder_labels(hs->v, hs->t, hs->row, h, "", &rl);
    pna_prom_u64(hs->p, rl.l, rl.n, 1);
}

static void job_series(const struct holder_series *hs, const struct pna_holder_source *src)
{
    uint32_t jobs[PNA_SLURM_HOLDERS_MAX];
    size_t n = src->jobs(&hs->v->base, hs->row->rec, jobs);
    for (size_t i = 0; i < n; i++) {
        struct pna_row_labels rl;
        char job[16];
        snprintf(job, sizeof job, "%u", (unsigned)jobs[i]);
        pna_prom_holder_labels(hs->v, hs->t, hs->row, NULL, job, &rl);
        pna_prom_u64(hs->p, rl.l, rl.n, 1);
    }
}

void pna_prom_holders(struct pna_prom *p, const struct pna_http_view *v,
                      const struct pna_holder_source *src, const char *family, const char *help)
{
    const struct pna_metric_table *t = src->table;
    pna_prom_family(p, family, PNA_PROM_GAUGE, help);
    for (size_t i = 0; i < t->rows(&v->base); i++) {
        struct pna_row row;
        if (!pna_http_row(t, v, i, &row))
            continue;
        struct holder_series hs = { p, v, t, &row };
        src->each(&v->base, row.rec, holder_series, &hs);
        job_series(&hs, src);
    }
}

/* ---- a table's families ------------------------------------------------------ */

/* A row's identity labels plus room for the descriptor's own. */
struct sample_labels {
    struct pna_row_labels row;
    struct pna_prom_label all[PNA_ROW_LABELS_MAX + 1];
};

static size_t with_label(struct sample_labels *s, const char *name, const char *value)
{
    size_t n = s->row.n;
    memcpy(s->all, s->row.l, n * sizeof s->all[0]);
    if (name)
        s->all[n++] = (struct pna_prom_label){ name, value };
    return n;
}

/* S's row labels, then every descriptor of T served as a label (no family of
 * its own), its text in TEXT: the number of labels in S.all. */
static size_t with_descriptor_labels(struct sample_labels *s, const struct pna_metric_table *t,
                                     const struct pna_row *row,
                                     char text[][sizeof ((struct pna_value *)0)->buf])
{
    size_t n = with_label(s, NULL, NULL), k = 0;
    for (size_t j = 0; j < t->count && n < PNA_ROW_LABELS_MAX; j++) {
        const struct pna_metric *m = &t->metrics[j];
        if (!m->label || m->family)
            continue;
        struct pna_value val;
        pna_metric_value(t, m, row, &val);
        const char *lt = lasting_label_text(m, &val, text[k], sizeof text[k]);
        k++;
        s->all[n++] = (struct pna_prom_label){ m->label, lt };
    }
    return n;
}

/* V x SCALE as one sample. */
void pna_prom_scaled(struct pna_prom *p, const struct pna_prom_label *l, size_t n,
                     const struct pna_value *v, struct pna_scale scale)
{
    int64_t mul = scale.mul ? scale.mul : 1;
    if (v->is_signed) {
        int64_t x = v->i * mul;
        if (scale.exp10 < 0)
            pna_prom_fixed(p, l, n, x, (unsigned)-scale.exp10);
        else
            pna_prom_i64(p, l, n, x * (int64_t)pna_pow10((unsigned)scale.exp10));
        return;
    }
    uint64_t x = v->u * (uint64_t)mul;
    if (scale.exp10 < 0)
        pna_prom_fixed(p, l, n, x > INT64_MAX ? INT64_MAX : (int64_t)x, (unsigned)-scale.exp10);
    else
        pna_prom_u64(p, l, n, x * pna_pow10((unsigned)scale.exp10));
}

static enum pna_prom_type prom_type(const struct pna_metric *m)
{
    switch ((enum pna_family_type)m->type) {
    case PNA_FAMILY_COUNTER: return PNA_PROM_COUNTER;
    case PNA_FAMILY_UNTYPED: return PNA_PROM_UNTYPED;
    default: return PNA_PROM_GAUGE;
    }
}

/* One row's sample(s) of family descriptor M. */
static void metric_samples(struct pna_prom *p, const struct pna_metric *m,
                           const struct pna_value *v, struct sample_labels *s)
{
    if (v->state != PNA_PRESENT)
        return;
    switch ((enum pna_family_type)m->type) {
    case PNA_FAMILY_STATESET:
        for (size_t e = 1; m->enums && e < m->enums->count; e++) {
            if (!m->enums->names[e])
                continue;
            size_t n = with_label(s, m->label, m->enums->names[e]);
            pna_prom_u64(p, s->all, n, (v->is_signed ? (uint64_t)v->i : v->u) == e);
        }
        return;
    case PNA_FAMILY_STATE:
        pna_prom_u64(p, s->all, with_label(s, m->label, pna_metric_enum_name(m, v)), 1);
        return;
    default: break;
    }
    size_t n = with_label(s, m->label_value ? m->label : NULL, m->label_value);
    if (m->true_value) {
        uint64_t x = v->is_signed ? (uint64_t)v->i : v->u;
        pna_prom_u64(p, s->all, n, x == m->true_value);
    } else {
        pna_prom_scaled(p, s->all, n, v, m->scale);
    }
}

static void info_series(struct pna_prom *p, const struct pna_http_view *v,
                        const struct pna_metric_table *t)
{
    char help[PNA_HELP_MAX];
    snprintf(help, sizeof help, "%s (%s).", t->info_help ? t->info_help : "", t->object);
    if (pna_prom_family(p, t->info_family, PNA_PROM_GAUGE, help) != 0)
        return;
    size_t rows = t->rows(&v->base);
    for (size_t i = 0; i < rows; i++) {
        struct pna_row row;
        if (!pna_http_row(t, v, i, &row))
            continue;
        struct sample_labels s;
        pna_prom_key_labels(v, t, &row, &s.row);
        char text[PNA_ROW_LABELS_MAX][sizeof ((struct pna_value *)0)->buf];
        size_t n = with_descriptor_labels(&s, t, &row, text);
        pna_prom_u64(p, s.all, n, 1);
    }
}

/* The row of T at I and M's value in it, when the value is present. */
static bool present_value(const struct pna_http_view *v, const struct pna_metric_table *t,
                          const struct pna_metric *m, size_t i, struct pna_row *row,
                          struct pna_value *val)
{
    if (!pna_http_row(t, v, i, row))
        return false;
    pna_metric_value(t, m, row, val);
    return val->state == PNA_PRESENT;
}

/* Whether T has anything for /metrics: an info series or a family.  The
 * event table has neither, and its rows are the main thread's alone. */
static bool has_families(const struct pna_metric_table *t)
{
    for (size_t j = 0; j < t->count; j++)
        if (t->metrics[j].family)
            return true;
    return t->info_family != NULL;
}

void pna_prom_table(struct pna_prom *p, const struct pna_http_view *v,
                    const struct pna_metric_table *t)
{
    if (!has_families(t))
        return;
    if (t->info_family)
        info_series(p, v, t);
    size_t rows = t->rows(&v->base);
    const char *family = NULL;
    char help[PNA_HELP_MAX];
    for (size_t j = 0; j < t->count; j++) {
        const struct pna_metric *m = &t->metrics[j];
        if (!m->family)
            continue;
        if (!family || strcmp(family, m->family) != 0) {
            pna_metric_help(m, help, sizeof help);
            pna_prom_family(p, m->family, prom_type(m), help);
            family = m->family;
        }
        if (!pna_prom_wanted(p))
            continue;           /* left out by the export control */
        for (size_t i = 0; i < rows; i++) {
            struct pna_row row;
            struct pna_value val;
            if (!present_value(v, t, m, i, &row, &val))
                continue;
            struct sample_labels s;
            pna_prom_key_labels(v, t, &row, &s.row);
            metric_samples(p, m, &val, &s);
        }
    }
}

/* ---- the replaced exporters' names ------------------------------------------- */

void pna_prom_replaced(struct pna_prom *p, const struct pna_http_view *v,
                       const struct pna_metric_table *t, const struct pna_replaced_metric *r,
                       pna_row_labels_fn labels)
{
    const struct pna_metric *m = pna_metric_by_object(t, r->object);
    if (!m)
        return;
    if (pna_prom_family(p, r->name, r->type, r->help) != 0)
        return;
    size_t rows = t->rows(&v->base);
    for (size_t i = 0; i < rows; i++) {
        struct pna_row row;
        struct pna_value val;
        if (!present_value(v, t, m, i, &row, &val))
            continue;
        struct pna_row_labels l = { .n = 0 };
        if (labels)
            labels(v, t, &row, &l);
        pna_prom_scaled(p, l.l, l.n, &val, r->scale);
    }
}

void pna_prom_replaced_all(struct pna_prom *p, const struct pna_http_view *v,
                           const struct pna_metric_table *t, const struct pna_replaced_metric *r,
                           size_t n, pna_row_labels_fn labels)
{
    for (size_t i = 0; i < n; i++)
        pna_prom_replaced(p, v, t, &r[i], labels);
}

void pna_prom_node_label(const struct pna_http_view *v, const struct pna_metric_table *t,
                         const struct pna_row *row, struct pna_row_labels *out)
{
    (void)t;
    (void)row;
    out->l[0] = (struct pna_prom_label){ "node", v->node_name };
    out->n = 1;
}
