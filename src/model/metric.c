/* model/metric.c -- reading a value through its descriptor, and the texts
 * derived from descriptors (labels, help lines) that every front end shares
 * (see metric.h). */
#include "pna_autoconf.h"
#include "model/metric.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "model/counter.h"

void pna_value_u64(struct pna_value *v, uint64_t u)
{
    v->state = PNA_PRESENT;
    v->is_signed = false;
    v->u = u;
}

void pna_value_i64(struct pna_value *v, int64_t i)
{
    v->state = PNA_PRESENT;
    v->is_signed = true;
    v->i = i;
}

void pna_value_text(struct pna_value *v, const char *s)
{
    v->state = PNA_PRESENT;
    v->is_text = true;
    v->text = s;
    v->len = strlen(s);
}

void pna_value_none(struct pna_value *v)
{
    v->state = PNA_NONE;
}

void pna_value_printf(struct pna_value *v, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(v->buf, sizeof v->buf, fmt, ap);
    va_end(ap);
    if (n < 0)
        v->buf[0] = '\0';
    pna_value_text(v, v->buf);
}

/* ---- reading a field ------------------------------------------------------ */

static bool field_present(const struct pna_field *f, const unsigned char *rec)
{
    if (f->when == PNA_WHEN_FLAG) {
        bool has;
        memcpy(&has, rec + f->flag, sizeof has);
        return has;
    }
    return true;
}

static void read_field(const struct pna_field *f, const void *record, struct pna_value *out)
{
    const unsigned char *rec = record;
    const unsigned char *p = rec + f->offset;
    if (!field_present(f, rec))
        return;
    switch ((enum pna_field_type)f->type) {
    case PNA_FIELD_U8: pna_value_u64(out, *p); break;
    case PNA_FIELD_BOOL: {
        bool b;
        memcpy(&b, p, sizeof b);
        pna_value_u64(out, b ? 1 : 0);
        break;
    }
    case PNA_FIELD_U32: {
        uint32_t x;
        memcpy(&x, p, sizeof x);
        pna_value_u64(out, x);
        break;
    }
    case PNA_FIELD_U64: {
        uint64_t x;
        memcpy(&x, p, sizeof x);
        pna_value_u64(out, x);
        break;
    }
    case PNA_FIELD_I32: {
        int32_t x;
        memcpy(&x, p, sizeof x);
        pna_value_i64(out, x);
        break;
    }
    case PNA_FIELD_I64: {
        int64_t x;
        memcpy(&x, p, sizeof x);
        pna_value_i64(out, x);
        break;
    }
    case PNA_FIELD_TEXT: pna_value_text(out, (const char *)p); break;
    case PNA_FIELD_TEXT_REF: {
        const char *s;
        memcpy(&s, p, sizeof s);
        if (s)
            pna_value_text(out, s);
        break;
    }
    case PNA_FIELD_COUNTER: {
        struct pna_counter c;
        memcpy(&c, p, sizeof c);
        if (c.present)
            pna_value_u64(out, c.value);
        break;
    }
    case PNA_FIELD_NONE: break;
    }
    if (f->when == PNA_WHEN_NONZERO && out->state == PNA_PRESENT &&
        (out->is_text ? out->len == 0 : out->is_signed ? out->i == 0 : out->u == 0))
        out->state = PNA_ABSENT;
}

/* The largest value the syntax carries, MAX when the MIB says less. */
static void clamp(const struct pna_metric *m, struct pna_value *v)
{
    if (v->state != PNA_PRESENT || v->is_text)
        return;
    uint64_t hi = m->max;
    if (!hi && (m->syntax == PNA_SYNTAX_UNSIGNED || m->syntax == PNA_SYNTAX_COUNTER32))
        hi = UINT32_MAX;
    if (v->is_signed) {
        int64_t top = hi && hi < (uint64_t)INT64_MAX ? (int64_t)hi : INT64_MAX;
        if (m->syntax == PNA_SYNTAX_INTEGER && top > INT32_MAX)
            top = INT32_MAX;
        if (v->i > top)
            v->i = top;
        if (m->syntax == PNA_SYNTAX_INTEGER && v->i < INT32_MIN)
            v->i = INT32_MIN;
    } else if (hi && v->u > hi) {
        v->u = hi;
    }
}

bool pna_metric_row(const struct pna_metric_table *t, const struct pna_view *v, size_t i,
                    struct pna_row *out)
{
    memset(out, 0, sizeof *out);
    out->view = v;
    out->pos = i;
    return t->row(v, i, out);
}

void pna_metric_value(const struct pna_metric_table *t, const struct pna_metric *m,
                      const struct pna_row *row, struct pna_value *out)
{
    memset(out, 0, sizeof *out);
    if (t->figures_gone && !(m->flags & PNA_METRIC_IDENTITY) && t->figures_gone(row))
        return;
    if (m->get)
        m->get(row, out);
    else if (row->rec)
        read_field(&m->field, row->rec, out);
    clamp(m, out);
}

void pna_key_read(const struct pna_key_part *p, const struct pna_row *row, struct pna_value *out)
{
    out->state = PNA_ABSENT;
    out->is_signed = false;
    out->is_text = false;
    if (p->from == PNA_KEY_FROM_NUMBER) {
        pna_value_u64(out, row->key_number);
        return;
    }
    const void *record = p->from == PNA_KEY_FROM_PARENT ? row->parent : row->rec;
    if (!record)
        return;
    if (p->get)
        p->get(row, record, out);
    else
        read_field(&p->field, record, out);
}

const struct pna_metric *pna_metric_by_column(const struct pna_metric_table *t, unsigned col)
{
    for (size_t i = 0; col && i < t->count; i++)
        if (t->metrics[i].column == col)
            return &t->metrics[i];
    return NULL;
}

const struct pna_metric *pna_metric_by_object(const struct pna_metric_table *t, const char *object)
{
    for (size_t i = 0; i < t->count; i++)
        if (t->metrics[i].object && strcmp(t->metrics[i].object, object) == 0)
            return &t->metrics[i];
    return NULL;
}

const struct pna_metric *pna_metric_by_name(const struct pna_metric_table *t, const char *name)
{
    const struct pna_metric *m = pna_metric_by_object(t, name);
    for (size_t i = 0; !m && i < t->count; i++)
        if (!t->metrics[i].object && t->metrics[i].family && strcmp(t->metrics[i].family, name) == 0)
            m = &t->metrics[i];
    return m;
}

/* ---- texts ---------------------------------------------------------------- */

const char *pna_metric_enum_name(const struct pna_metric *m, const struct pna_value *v)
{
    if (!m->enums || v->state != PNA_PRESENT || v->is_text)
        return "";
    uint64_t x = v->is_signed ? (v->i < 0 ? UINT64_MAX : (uint64_t)v->i) : v->u;
    if (x >= m->enums->count || !m->enums->names[x])
        return "";
    return m->enums->names[x];
}

const char *pna_metric_label_text(const struct pna_metric *m, const struct pna_value *v,
                                  char *buf, size_t cap)
{
    if (v->state != PNA_PRESENT)
        return "";
    if (v->is_text)
        return v->text;
    if (m && m->enums)
        return pna_metric_enum_name(m, v);
    if (v->is_signed)
        snprintf(buf, cap, "%" PRId64, v->i);
    else
        snprintf(buf, cap, "%" PRIu64, v->u);
    return buf;
}

uint64_t pna_pow10(unsigned e)
{
    uint64_t p = 1;
    while (e-- > 0)
        p *= 10;
    return p;
}

void pna_scale_text(struct pna_scale s, char *buf, size_t cap)
{
    char ten[24] = "1";
    int e = s.exp10 < 0 ? -s.exp10 : s.exp10;
    for (int i = 0; i < e && i < 18; i++)
        ten[i + 1] = '0', ten[i + 2] = '\0';
    if (s.mul && s.mul != 1)
        snprintf(buf, cap, " x %" PRId32 "%s%s", s.mul, e ? (s.exp10 < 0 ? " / " : " x ") : "",
                 e ? ten : "");
    else if (s.exp10 < 0)
        snprintf(buf, cap, " / %s", ten);
    else if (s.exp10 > 0)
        snprintf(buf, cap, " x %s", ten);
    else if (cap)
        buf[0] = '\0';
}

void pna_metric_help(const struct pna_metric *m, char *buf, size_t cap)
{
    const char *help = m->help ? m->help : "";
    size_t n = strlen(help);
    while (n && help[n - 1] == '.')
        n--;
    if (!m->object || !m->column) {
        snprintf(buf, cap, "%.*s.", (int)n, help);
        return;
    }
    char scale[48] = "";
    if (m->type != PNA_FAMILY_STATESET && m->type != PNA_FAMILY_STATE && !m->true_value)
        pna_scale_text(m->scale, scale, sizeof scale);
    snprintf(buf, cap, "%.*s (%s%s).", (int)n, help, m->object, scale);
}
