/* snmp/table.c -- the read-only MIB engine (see table.h).
 *
 * Each table and each scalar is a subtree of the agent's one registration
 * (snmp/subtree.c).  A request takes one view of the cache (the domains the
 * tables it reaches read), resolves every varbind against it, and lets it
 * go: the answer is consistent within the request, and a poller can publish
 * meanwhile without waiting for anybody.
 *
 * Row order: SNMP orders rows by their index OIDs, which for string indexes is
 * not the order a source keeps (length comes first).  The first request after
 * a new snapshot sorts row numbers by index once; every later request is a
 * binary search over that permutation, with no allocation.
 *
 * Indexes: a row's index is its key's index parts in order (model/metric.h):
 * a number is one sub-identifier, a string its length and its octets. */
#include "pna_autoconf.h"
#include "snmp/table.h"
#include "snmp/subtree.h"

#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "model/export/export.h"
#include "model/oids.h"
#include "util/array.h"

/* ---- cells --------------------------------------------------------------- */

void pna_cell_int(struct pna_cell *c, int64_t v)
{
    c->type = ASN_INTEGER;
    c->i = v;
}

void pna_cell_u32(struct pna_cell *c, uint32_t v)
{
    c->type = ASN_UNSIGNED;
    c->u = v;
}

void pna_cell_counter32(struct pna_cell *c, uint32_t v)
{
    c->type = ASN_COUNTER;
    c->u = v;
}

void pna_cell_counter64(struct pna_cell *c, uint64_t v)
{
    c->type = ASN_COUNTER64;
    c->u = v;
}

void pna_cell_str(struct pna_cell *c, const char *s)
{
    c->type = ASN_OCTET_STR;
    c->str = s ? s : "";
    c->len = strlen(c->str);
}

static void cell_text(struct pna_cell *c, const struct pna_value *v)
{
    c->type = ASN_OCTET_STR;
    if (v->state != PNA_PRESENT || !v->is_text) {
        c->str = "";
        c->len = 0;
        return;
    }
    if (v->text != v->buf) {           /* in the snapshot or static: lives on */
        c->str = v->text;
        c->len = v->len;
        return;
    }
    size_t n = v->len < sizeof c->copy ? v->len : sizeof c->copy - 1;
    memcpy(c->copy, v->text, n);
    c->copy[n] = '\0';
    c->str = c->copy;
    c->len = n;
}

bool pna_cell_encode(const struct pna_metric *m, const struct pna_value *v, struct pna_cell *out)
{
    memset(out, 0, sizeof *out);
    if (v->state == PNA_ABSENT)
        return false;
    /* NONE: the zero value of the syntax, the MIB's stand-in for "no value" */
    uint64_t u = v->state == PNA_PRESENT ? (v->is_signed ? (uint64_t)v->i : v->u) : 0;
    switch ((enum pna_syntax)m->syntax) {
    case PNA_SYNTAX_INTEGER:
        out->type = ASN_INTEGER;
        out->i = v->state == PNA_PRESENT ? (v->is_signed ? v->i : (int64_t)v->u) : 0;
        return true;
    case PNA_SYNTAX_TRUTH:
        out->type = ASN_INTEGER;
        out->i = u ? 1 : 2; /* TruthValue: true(1), false(2) */
        return true;
    case PNA_SYNTAX_UNSIGNED: out->type = ASN_UNSIGNED; out->u = u; return true;
    case PNA_SYNTAX_COUNTER32: out->type = ASN_COUNTER; out->u = u; return true;
    case PNA_SYNTAX_COUNTER64: out->type = ASN_COUNTER64; out->u = u; return true;
    case PNA_SYNTAX_TEXT: cell_text(out, v); return true;
    case PNA_SYNTAX_NONE: break;
    }
    return false;
}

/* LEN octets of S as length and octets, cut to CAP sub-identifiers. */
static size_t put_text(oid *idx, size_t cap, const char *s, size_t len)
{
    if (len + 1 > cap)
        len = cap - 1;
    idx[0] = len;
    for (size_t i = 0; i < len; i++)
        idx[i + 1] = (unsigned char)s[i];
    return len + 1;
}

size_t pna_index_put_string(oid *idx, size_t cap, const char *s)
{
    return put_text(idx, cap, s, strlen(s));
}

size_t pna_key_index(const struct pna_metric_table *t, const struct pna_row *row, oid *idx)
{
    const struct pna_key *key = &t->key;
    size_t n = 0;
    for (size_t i = 0; i < key->count; i++) {
        const struct pna_key_part *p = &key->parts[i];
        if (!(p->use & PNA_KEY_INDEX))
            continue;
        struct pna_value v;
        pna_key_read(p, row, &v);
        bool present = v.state == PNA_PRESENT;
        if (!p->is_text)
            idx[n++] = !present ? 0 : v.is_signed ? (oid)v.i : (oid)v.u;
        else   /* room kept for the parts after it (rows refuse longer names) */
            n += put_text(idx + n, PNA_MAX_INDEX_LEN - n - (key->count - 1 - i),
                          present ? v.text : "", present ? v.len : 0);
    }
    return n;
}

size_t pna_table_oid(const struct pna_metric_table *t, oid *out)
{
    size_t n = t->oid_len < MAX_OID_LEN ? t->oid_len : MAX_OID_LEN;
    for (size_t i = 0; i < n; i++)
        out[i] = t->oid[i];
    return n;
}

/* The descriptor of column COL, or NULL: a lookup table per registration.
 * A column the export control leaves out has none: GET answers noSuchObject
 * and GETNEXT passes it by, at no cost per request. */
struct columns {
    unsigned min, max;
    const struct pna_metric **by_col;  /* [0 .. max] */
};

static bool served_column(const struct pna_metric_table *t, const struct pna_metric *m)
{
    return m->column && m->syntax != PNA_SYNTAX_NONE && pna_export_object_on(t, m);
}

static int columns_init(struct columns *c, const struct pna_metric_table *t)
{
    c->min = UINT32_MAX;
    c->max = 0;
    for (size_t i = 0; i < t->count; i++) {
        unsigned col = t->metrics[i].column;
        if (!served_column(t, &t->metrics[i]))
            continue;
        c->min = col < c->min ? col : c->min;
        c->max = col > c->max ? col : c->max;
    }
    if (c->max == 0)
        return -1;
    c->by_col = calloc(c->max + 1, sizeof *c->by_col);
    if (!c->by_col)
        return -1;
    for (size_t i = 0; i < t->count; i++)
        if (served_column(t, &t->metrics[i]))
            c->by_col[t->metrics[i].column] = &t->metrics[i];
    return 0;
}

/* ---- a request's rows ------------------------------------------------------ */

/* Fill OUT with cell (ROW, COL) of T; false when absent. */
static bool row_cell(const struct pna_metric_table *t, const struct columns *cols,
                     const struct pna_row *row, unsigned col, struct pna_cell *out)
{
    const struct pna_metric *m = col <= cols->max ? cols->by_col[col] : NULL;
    if (!m)
        return false;
    struct pna_value v;
    pna_metric_value(t, m, row, &v);
    return pna_cell_encode(m, &v, out);
}

/* ---- registrations and row order ---------------------------------------- */

struct table_reg {
    const struct pna_metric_table *t;
    oid table_oid[MAX_OID_LEN];
    size_t table_oid_len;
    struct columns cols;
    size_t *order;          /* row numbers in index order */
    size_t order_cap, order_len;
    const void *order_snap; /* snapshot the order belongs to... */
    uint64_t order_gen;     /* ...and its generation (pointers get reused) */
    /* Where the last GETNEXT answered, in the snapshots it answered from (a
     * table may join several): a walk asks next for what follows that row,
     * so its index is compared once instead of searched for (a binary search
     * encodes about log2(rows) row indexes, 65 sub-identifiers each for a
     * container id). */
    const void *hint_snap[PNA_DOM_COUNT];
    uint64_t hint_gen[PNA_DOM_COUNT];
    bool hint_valid;
    size_t hint_rows, hint_pos;
    oid hint_idx[PNA_MAX_INDEX_LEN];   /* that row's index */
    size_t hint_len;
};

#define MAX_TABLES 48
static struct table_reg tables[MAX_TABLES];
static size_t ntables;

static struct table_reg *reg_for(const struct pna_metric_table *t)
{
    for (size_t i = 0; i < ntables; i++)
        if (tables[i].t == t)
            return &tables[i];
    if (ntables == MAX_TABLES || columns_init(&tables[ntables].cols, t) != 0)
        return NULL;
    struct table_reg *reg = &tables[ntables++];
    reg->t = t;
    reg->table_oid_len = pna_table_oid(t, reg->table_oid);
    return reg;
}

/* The index of row I: a row without cells gets the impossible index 0 (string
 * indexes start with a length of at least 1), so GET and GETNEXT pass it by. */
static size_t index_of(const struct pna_metric_table *t, const struct pna_view *v, size_t i,
                       oid *idx)
{
    struct pna_row row;
    if (!pna_metric_row(t, v, i, &row)) {
        idx[0] = 0;
        return 1;
    }
    return pna_key_index(t, &row, idx);
}

/* What the sort compares row numbers in. */
struct sort_context {
    const struct pna_metric_table *t;
    const struct pna_view *view;
};

static int compare_rows(const void *a, const void *b, void *arg)
{
    const struct sort_context *ctx = arg;
    oid ia[PNA_MAX_INDEX_LEN], ib[PNA_MAX_INDEX_LEN];
    size_t la = index_of(ctx->t, ctx->view, *(const size_t *)a, ia);
    size_t lb = index_of(ctx->t, ctx->view, *(const size_t *)b, ib);
    return snmp_oid_compare(ia, la, ib, lb);
}

static const struct pna_snap *primary_snap(const struct pna_metric_table *t,
                                           const struct pna_view *v)
{
    int d = t->domain;
    return d >= 0 && d < PNA_DOM_COUNT ? v->snap[d] : NULL;
}

/* Whether the N rows of V already ascend strictly by index, as the model
 * keeps most snapshots (containers by ID): N index encodings, where a sort
 * makes about N log N comparisons of two.  The sort would leave such rows as
 * they are. */
static bool rows_ascend(const struct pna_metric_table *t, const struct pna_view *v, size_t n)
{
    oid a[PNA_MAX_INDEX_LEN], b[PNA_MAX_INDEX_LEN];
    oid *prev = a, *cur = b;
    size_t prev_len = n ? index_of(t, v, 0, prev) : 0;
    for (size_t i = 1; i < n; i++) {
        size_t len = index_of(t, v, i, cur);
        if (snmp_oid_compare(prev, prev_len, cur, len) >= 0)
            return false;
        oid *tmp = prev;
        prev = cur;
        cur = tmp;
        prev_len = len;
    }
    return true;
}

/* Make REG's permutation match view V; returns the number of rows. */
static size_t prepare_order(struct table_reg *reg, const struct pna_view *v)
{
    const struct pna_metric_table *t = reg->t;
    size_t n = t->rows(v);
    if (t->index_ordered)
        return n;
    /* Rows of agent state (no snapshot) are few: sorted at every request. */
    const struct pna_snap *snap = primary_snap(t, v);
    uint64_t gen = snap ? snap->generation : 0;
    if (snap && reg->order && reg->order_snap == snap && reg->order_gen == gen && reg->order_len == n)
        return n;
    if (PNA_ARRAY_RESERVE(reg->order, reg->order_cap, n) != 0)
        return 0;
    for (size_t i = 0; i < n; i++)
        reg->order[i] = i;
    struct sort_context ctx = { t, v };
    if (n > 1 && !rows_ascend(t, v, n))
        qsort_r(reg->order, n, sizeof *reg->order, compare_rows, &ctx);
    reg->order_snap = snap;
    reg->order_gen = gen;
    reg->order_len = n;
    return n;
}

static size_t row_at(const struct table_reg *reg, size_t pos)
{
    return reg->t->index_ordered ? pos : reg->order[pos];
}

/* First position whose index is >= IDX (or > IDX when STRICT). */
static size_t lower_bound(const struct table_reg *reg, const struct pna_view *v, size_t n,
                          const oid *idx, size_t idx_len, bool strict)
{
    size_t lo = 0, hi = n;
    oid buf[PNA_MAX_INDEX_LEN];
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        size_t len = index_of(reg->t, v, row_at(reg, mid), buf);
        int cmp = snmp_oid_compare(buf, len, idx, idx_len);
        if (cmp < 0 || (strict && cmp == 0))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The position after the row whose index is IDX: the row after the last
 * answer when that is the one asked about, else by binary search. */
static bool same_snapshots(const struct table_reg *reg, const struct pna_view *v)
{
    /* Only the domains the table reads: a request's view may hold others
     * (taken for another table) or not, from one request to the next. */
    uint32_t reads = reg->t->view;
    for (int d = 0; d < PNA_DOM_COUNT; d++) {
        bool moved = reg->hint_snap[d] != v->snap[d] ||
                     (v->snap[d] && reg->hint_gen[d] != v->snap[d]->generation);
        if ((reads & PNA_VIEW_DOMAIN(d)) && moved)
            return false;
    }
    return true;
}

static size_t position_after(const struct table_reg *reg, const struct pna_view *v, size_t n,
                             const oid *idx, size_t idx_len)
{
    if (reg->hint_valid && reg->hint_rows == n && reg->hint_pos < n && same_snapshots(reg, v) &&
        snmp_oid_compare(reg->hint_idx, reg->hint_len, idx, idx_len) == 0)
        return reg->hint_pos + 1;
    return lower_bound(reg, v, n, idx, idx_len, true);
}

/* Only rows read from snapshots: the agent's own tables (no snapshot) may
 * change between two requests without a generation to tell. */
static void remember_answer(struct table_reg *reg, const struct pna_view *v, size_t n, size_t pos,
                            const oid *idx, size_t idx_len)
{
    reg->hint_valid = primary_snap(reg->t, v) != NULL;
    for (int d = 0; d < PNA_DOM_COUNT; d++) {
        reg->hint_snap[d] = v->snap[d];
        reg->hint_gen[d] = v->snap[d] ? v->snap[d]->generation : 0;
    }
    reg->hint_rows = n;
    reg->hint_pos = pos;
    memcpy(reg->hint_idx, idx, idx_len * sizeof *idx);
    reg->hint_len = idx_len;
}

/* ---- GET / GETNEXT resolution ------------------------------------------- */

static int resolve_get(struct table_reg *reg, const struct pna_view *v, const oid *name,
                       size_t name_len, struct pna_cell *out)
{
    const struct pna_metric_table *tab = reg->t;
    size_t t = reg->table_oid_len;
    if (name_len <= t + 2 || snmp_oid_compare(name, t, reg->table_oid, t) != 0 ||
        name[t] != 1 || name[t + 1] < reg->cols.min || name[t + 1] > reg->cols.max ||
        !reg->cols.by_col[name[t + 1]])
        return (int)SNMP_NOSUCHOBJECT;
    size_t n = prepare_order(reg, v);
    const oid *idx = name + t + 2;
    size_t idx_len = name_len - t - 2;
    size_t pos = lower_bound(reg, v, n, idx, idx_len, false);
    if (pos == n)
        return (int)SNMP_NOSUCHINSTANCE;
    struct pna_row row;
    if (!pna_metric_row(tab, v, row_at(reg, pos), &row))
        return (int)SNMP_NOSUCHINSTANCE;
    oid buf[PNA_MAX_INDEX_LEN];
    size_t len = pna_key_index(tab, &row, buf);
    if (snmp_oid_compare(buf, len, idx, idx_len) != 0 ||
        !row_cell(tab, &reg->cols, &row, (unsigned)name[t + 1], out))
        return (int)SNMP_NOSUCHINSTANCE;
    return 0;
}

static int resolve_next(struct table_reg *reg, const struct pna_view *v, const oid *name,
                        size_t name_len, oid *next, size_t *next_len, struct pna_cell *out)
{
    const struct pna_metric_table *tab = reg->t;
    size_t t = reg->table_oid_len;
    oid entry[MAX_OID_LEN];
    memcpy(entry, reg->table_oid, t * sizeof(oid));
    entry[t] = 1;

    unsigned col = reg->cols.min;
    size_t n = prepare_order(reg, v);
    size_t pos = 0;
    size_t common = name_len < t + 1 ? name_len : t + 1;
    int cmp = snmp_oid_compare(name, common, entry, common);
    if (cmp > 0)
        return -1;                               /* past this table */
    if (cmp == 0 && name_len > t + 1) {
        if (name[t + 1] > reg->cols.max)
            return -1;
        if (name[t + 1] >= reg->cols.min) {
            col = (unsigned)name[t + 1];
            pos = position_after(reg, v, n, name + t + 2, name_len - t - 2);
        }
    }
    for (; col <= reg->cols.max; col++, pos = 0) {
        if (!reg->cols.by_col[col])
            continue;
        for (; pos < n; pos++) {
            struct pna_row row;
            if (!pna_metric_row(tab, v, row_at(reg, pos), &row) ||
                !row_cell(tab, &reg->cols, &row, col, out))
                continue;
            memcpy(next, entry, (t + 1) * sizeof(oid));
            next[t + 1] = col;
            *next_len = t + 2 + pna_key_index(tab, &row, next + t + 2);
            remember_answer(reg, v, n, pos, next + t + 2, *next_len - t - 2);
            return 0;
        }
    }
    return -1;
}

int pna_table_get(const struct pna_metric_table *t, const oid *name, size_t name_len,
                  struct pna_cell *out, struct pna_view *view)
{
    struct table_reg *reg = reg_for(t);
    pna_view_take(view, t->view);
    if (!reg)
        return -1;
    return resolve_get(reg, view, name, name_len, out) == 0 ? 0 : -1;
}

int pna_table_getnext(const struct pna_metric_table *t, const oid *name, size_t name_len,
                      oid *next, size_t *next_len, struct pna_cell *out, struct pna_view *view)
{
    pna_view_take(view, t->view);
    return pna_table_getnext_in(t, view, name, name_len, next, next_len, out);
}

int pna_table_getnext_in(const struct pna_metric_table *t, const struct pna_view *view,
                         const oid *name, size_t name_len, oid *next, size_t *next_len,
                         struct pna_cell *out)
{
    struct table_reg *reg = reg_for(t);
    return reg ? resolve_next(reg, view, name, name_len, next, next_len, out) : -1;
}

/* ---- a table as a subtree of the registration ------------------------------ */

static int table_get(void *self, const struct pna_view *v, const oid *name, size_t name_len,
                     struct pna_cell *out)
{
    return resolve_get(self, v, name, name_len, out);
}

static int table_next(void *self, const struct pna_view *v, const oid *name, size_t name_len,
                      oid *next, size_t *next_len, struct pna_cell *out)
{
    return resolve_next(self, v, name, name_len, next, next_len, out);
}

static int register_rows(const struct pna_metric_table *t)
{
    if (t->oid_len + 2 + PNA_MAX_INDEX_LEN > MAX_OID_LEN || !t->key.count) {
        pna_log(LOG_ERR, "%s: no index, or a table OID too deep for %d-sub-identifier indexes",
                t->object, PNA_MAX_INDEX_LEN);
        return -1;
    }
    struct table_reg *reg = reg_for(t);
    if (!reg)
        return -1;
    struct pna_resolver rs = { t->view, reg, table_get, table_next };
    return pna_subtree_add(reg->table_oid, reg->table_oid_len, &rs);
}

/* ---- scalar groups -------------------------------------------------------- */

/* The value of scalar SUBID of T in view V; false when absent. */
static bool scalar_cell(const struct pna_metric_table *t, const struct pna_view *v, unsigned subid,
                        struct pna_cell *out)
{
    const struct pna_metric *m = pna_metric_by_column(t, subid);
    struct pna_row row;
    if (!m || m->syntax == PNA_SYNTAX_NONE || !pna_export_object_on(t, m) || t->rows(v) == 0 ||
        !pna_metric_row(t, v, 0, &row))
        return false;
    struct pna_value val;
    pna_metric_value(t, m, &row, &val);
    return pna_cell_encode(m, &val, out);
}

static int scalar_get(const struct pna_metric_table *t, const struct pna_view *v, const oid *name,
                      size_t name_len, struct pna_cell *out)
{
    oid group[MAX_OID_LEN];
    size_t g = pna_table_oid(t, group);
    const struct pna_metric *m = name_len > g ? pna_metric_by_column(t, (unsigned)name[g]) : NULL;
    if (name_len != g + 2 || snmp_oid_compare(name, g, group, g) != 0 || !m ||
        !pna_export_object_on(t, m))
        return (int)SNMP_NOSUCHOBJECT;
    if (name[g + 1] != 0)
        return (int)SNMP_NOSUCHINSTANCE;
    return scalar_cell(t, v, (unsigned)name[g], out) ? 0 : (int)SNMP_NOSUCHINSTANCE;
}

int pna_scalar_get(const struct pna_metric_table *t, const oid *name, size_t name_len,
                   struct pna_cell *out, struct pna_view *view)
{
    pna_view_take(view, t->view);
    return pna_scalar_get_in(t, view, name, name_len, out);
}

int pna_scalar_get_in(const struct pna_metric_table *t, const struct pna_view *view,
                      const oid *name, size_t name_len, struct pna_cell *out)
{
    return scalar_get(t, view, name, name_len, out) == 0 ? 0 : -1;
}

/* Each scalar is a subtree of its own (group.N): its GETNEXT has one
 * instance to give. */
struct scalar_reg {
    const struct pna_metric_table *t;
    unsigned subid;
};

#define MAX_SCALARS 128
static struct scalar_reg scalar_regs[MAX_SCALARS];
static size_t nscalar_regs;

/* GETNEXT within one scalar's registration: only group.N.0 can follow. */
static int scalar_next(const struct scalar_reg *sr, const struct pna_view *v, const oid *name,
                       size_t name_len, oid *next, size_t *next_len, struct pna_cell *out)
{
    oid instance[MAX_OID_LEN];
    size_t g = pna_table_oid(sr->t, instance);
    instance[g] = sr->subid;
    instance[g + 1] = 0;
    if (snmp_oid_compare(name, name_len, instance, g + 2) >= 0 ||
        !scalar_cell(sr->t, v, sr->subid, out))
        return -1;
    memcpy(next, instance, (g + 2) * sizeof(oid));
    *next_len = g + 2;
    return 0;
}

static int scalar_get_one(void *self, const struct pna_view *v, const oid *name, size_t name_len,
                          struct pna_cell *out)
{
    const struct scalar_reg *sr = self;
    return scalar_get(sr->t, v, name, name_len, out);
}

static int scalar_next_one(void *self, const struct pna_view *v, const oid *name, size_t name_len,
                           oid *next, size_t *next_len, struct pna_cell *out)
{
    return scalar_next(self, v, name, name_len, next, next_len, out);
}

static int register_one_scalar(const struct pna_metric_table *t, unsigned subid)
{
    if (nscalar_regs == MAX_SCALARS)
        return -1;
    struct scalar_reg *sr = &scalar_regs[nscalar_regs++];
    sr->t = t;
    sr->subid = subid;
    oid name[MAX_OID_LEN];
    size_t g = pna_table_oid(t, name);
    name[g] = subid;
    struct pna_resolver rs = { t->view, sr, scalar_get_one, scalar_next_one };
    return pna_subtree_add(name, g + 1, &rs);
}

static int register_scalars(const struct pna_metric_table *t)
{
    for (size_t i = 0; i < t->count; i++)
        if (served_column(t, &t->metrics[i]) && register_one_scalar(t, t->metrics[i].column) != 0)
            return -1;
    return 0;
}

int pna_table_register(const struct pna_metric_table *t)
{
    if (t->kind == PNA_TABLE_SCALARS)
        return register_scalars(t);
    /* a table whose every column the export control leaves out is not in
     * the registration: its OIDs answer noSuchObject, walks pass it by */
    return pna_export_table_on(t) ? register_rows(t) : 0;
}

int pna_snmp_tables_register(void)
{
    static const oid objects[] = { PNA_OID_OBJECTS };
    int rc = 0;
    for (size_t i = 0; pna_metric_tables[i]; i++)
        rc |= pna_table_register(pna_metric_tables[i]);
    if (rc)
        return -1;
    return pna_subtree_register("primusNodeObjects", objects, OID_LENGTH(objects));
}
