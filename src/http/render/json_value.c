/* http/render/json_value.c -- JSON values: numbers, text and descriptor values with
 * their JSON scale (model/metric.h), shared by the JSON endpoints. */
#include "pna_autoconf.h"
#include "http/render/render.h"

#include <string.h>

json_t *pna_json_u64(uint64_t v)
{
    return json_integer(v > (uint64_t)INT64_MAX ? INT64_MAX : (json_int_t)v);
}

json_t *pna_json_fixed(int64_t v, unsigned decimals)
{
    double scale = 1;
    for (unsigned i = 0; i < decimals; i++)
        scale *= 10;
    return json_real((double)v / scale);
}

json_t *pna_json_text(const char *s)
{
    json_t *j = json_string(s ? s : "");
    if (j)
        return j;
    /* Not valid UTF-8 (a driver's string): jansson refuses it, so replace the
     * bad bytes rather than lose the field. */
    struct pna_buf b;
    pna_buf_init(&b);
    pna_buf_put_utf8(&b, s);
    j = json_string(pna_buf_cstr(&b));
    pna_buf_free(&b);
    return j ? j : json_string("");
}

/* V x SCALE: an integer when the scale keeps it whole, else a real. */
static json_t *scaled(const struct pna_value *v, struct pna_scale s)
{
    int64_t mul = s.mul ? s.mul : 1;
    int64_t x = v->is_signed ? v->i : (v->u > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)v->u);
    if (s.exp10 < 0)
        return pna_json_fixed(x * mul, (unsigned)-s.exp10);
    return json_integer(x * mul * (int64_t)pna_pow10((unsigned)s.exp10));
}

json_t *pna_json_value(const struct pna_metric_table *t, const struct pna_metric *m,
                       const struct pna_row *row)
{
    struct pna_value v;
    pna_metric_value(t, m, row, &v);
    if (v.state == PNA_ABSENT)
        return NULL;
    if (v.state == PNA_NONE)
        return json_null();
    if (v.is_text)
        return pna_json_text(v.text);
    if (m->enums)
        return json_string(pna_metric_enum_name(m, &v));
    if (m->flags & PNA_METRIC_JSON_BOOL)
        return json_boolean(v.is_signed ? v.i != 0 : v.u != 0);
    return scaled(&v, m->json_scale);
}

void pna_json_put(json_t *obj, const struct pna_metric_table *t, const char *name,
                  const struct pna_row *row)
{
    const struct pna_metric *m = pna_metric_by_name(t, name);
    json_t *j = m && m->json ? pna_json_value(t, m, row) : NULL;
    if (j)
        json_object_set_new(obj, m->json, j);
}

void pna_json_put_members(json_t *o, const struct pna_metric_table *t, const struct pna_row *row)
{
    for (size_t k = 0; k < t->count; k++) {
        const struct pna_metric *m = &t->metrics[k];
        json_t *j = m->json ? pna_json_value(t, m, row) : NULL;
        if (j)
            json_object_set_new(o, m->json, j);
        else if (m->json && m->syntax == PNA_SYNTAX_TEXT)
            json_object_set_new(o, m->json, json_string(""));
    }
}

void pna_json_put_own_key(json_t *o, const struct pna_metric_table *t, const struct pna_row *row)
{
    for (size_t i = 0; i < t->key.count; i++) {
        const struct pna_key_part *p = &t->key.parts[i];
        if (!p->label || p->from == PNA_KEY_FROM_PARENT)
            continue;
        struct pna_value v;
        pna_key_read(p, row, &v);
        if (v.state != PNA_PRESENT)
            continue;
        json_object_set_new(o, p->label, v.is_text ? pna_json_text(v.text)
                                         : v.is_signed ? json_integer(v.i)
                                                       : pna_json_u64(v.u));
    }
}

/* The rows of T (those of PARENT when ANY is false), each its own key and its
 * members. */
static json_t *rows_of(const struct pna_http_view *v, const struct pna_metric_table *t,
                       const void *parent, bool any)
{
    json_t *list = json_array();
    for (size_t i = 0; i < t->rows(&v->base); i++) {
        struct pna_row row;
        if (!pna_http_row(t, v, i, &row) || (!any && row.parent != parent))
            continue;
        json_t *o = json_object();
        pna_json_put_own_key(o, t, &row);
        pna_json_put_members(o, t, &row);
        json_array_append_new(list, o);
    }
    return list;
}

json_t *pna_json_child_rows(const struct pna_http_view *v, const struct pna_metric_table *t,
                            const void *parent)
{
    return rows_of(v, t, parent, false);
}

json_t *pna_json_rows(const struct pna_http_view *v, const struct pna_metric_table *t)
{
    return rows_of(v, t, NULL, true);
}
