/* test_table.c -- the MIB engine without net-snmp's request machinery: GET,
 * GETNEXT across rows and columns of a descriptor table, string-index order,
 * absent cells, re-sorting when a new snapshot is published (rows kept in
 * index order, or not), and the walk's remembered position forgotten with
 * it. */
#include "pna_autoconf.h"
#include "snmp/table.h"
#include "unit.h"

struct rows_snap {
    struct pna_snap base;
    size_t n;
    const char *names[8];
    int values[8];
};

static void destroy(struct pna_snap *s)
{
    free(s);
}

static void publish(const char *const *names, const int *values, size_t n)
{
    struct rows_snap *s = calloc(1, sizeof *s);
    pna_snap_init(&s->base, destroy);
    s->n = n;
    for (size_t i = 0; i < n; i++) {
        s->names[i] = names[i];
        s->values[i] = values[i];
    }
    pna_cache_publish(PNA_DOM_STORAGE, &s->base);
}

/* A descriptor table over the test snapshot: rows in kept order, REC the
 * snapshot, KEY_NUMBER the row. */
static const struct rows_snap *snap_of(const struct pna_view *v)
{
    return pna_view_snap(v, PNA_DOM_STORAGE);
}

static size_t row_count(const struct pna_view *v)
{
    return snap_of(v) ? snap_of(v)->n : 0;
}

static bool row_at(const struct pna_view *v, size_t i, struct pna_row *out)
{
    out->rec = snap_of(v);
    out->key_number = (uint32_t)i;
    return true;
}

/* The row's name: its index, a string. */
static void key_name(const struct pna_row *row, const void *snap, struct pna_value *out)
{
    pna_value_text(out, ((const struct rows_snap *)snap)->names[row->key_number]);
}

/* col 2: name, col 3: value (absent when negative), col 4: value * 10 */
static void get_name(const struct pna_row *r, struct pna_value *out)
{
    pna_value_text(out, ((const struct rows_snap *)r->rec)->names[r->key_number]);
}

static void get_value(const struct pna_row *r, struct pna_value *out)
{
    int v = ((const struct rows_snap *)r->rec)->values[r->key_number];
    if (v >= 0)
        pna_value_u64(out, (uint64_t)v);
}

static void get_tenfold(const struct pna_row *r, struct pna_value *out)
{
    int v = ((const struct rows_snap *)r->rec)->values[r->key_number];
    pna_value_u64(out, (uint64_t)(v < 0 ? 0 : v) * 10);
}

static const struct pna_metric metrics[] = {
    { .column = 2, .object = "testName", .syntax = PNA_SYNTAX_TEXT, .get = get_name },
    { .column = 3, .object = "testValue", .syntax = PNA_SYNTAX_UNSIGNED, .get = get_value },
    { .column = 4, .object = "testTenfold", .syntax = PNA_SYNTAX_COUNTER64, .get = get_tenfold },
};

static const struct pna_key_part key[] = {
    { .label = "name", .object = "testName", .use = PNA_KEY_INDEX | PNA_KEY_LABEL,
      .is_text = true, .get = key_name },
};

static const oid table_oid[] = { 1, 3, 6, 1, 4, 1, 99, 5 };
static const struct pna_metric_table def = {
    .object = "testTable",
    .kind = PNA_TABLE_ROWS,
    .domain = PNA_DOM_STORAGE,
    .view = PNA_VIEW_DOMAIN(PNA_DOM_STORAGE),
    PNA_TABLE_OID(1, 3, 6, 1, 4, 1, 99, 5),
    PNA_KEY(key),
    .metrics = metrics,
    .count = 3,
    .rows = row_count,
    .row = row_at,
};

/* Build table.1.COL."NAME" into O; returns its length. */
static size_t cell_oid(oid *o, unsigned col, const char *name)
{
    memcpy(o, table_oid, sizeof table_oid);
    o[8] = 1;
    o[9] = col;
    return 10 + (name ? pna_index_put_string(o + 10, 64, name) : 0);
}

/* GETNEXT from (COL, NAME) must land on (WANT_COL, WANT_NAME). */
static void expect_next(unsigned col, const char *name, unsigned want_col, const char *want_name)
{
    oid from[MAX_OID_LEN], next[MAX_OID_LEN], want[MAX_OID_LEN];
    size_t from_len = cell_oid(from, col, name), next_len = 0;
    struct pna_cell c;
    struct pna_view held;
    int rc = pna_table_getnext(&def, from, from_len, next, &next_len, &c, &held);
    if (!want_name) {
        CHECK_INT(rc, -1);
    } else {
        size_t want_len = cell_oid(want, want_col, want_name);
        CHECK_INT(rc, 0);
        CHECK(rc == 0 && snmp_oid_compare(next, next_len, want, want_len) == 0);
    }
    pna_view_release(&held);
}

int main(void)
{
    /* Kept order b, aa, c; SNMP order (length first) is b, c, aa. */
    const char *names[] = { "b", "aa", "c" };
    const int values[] = { 1, 2, -1 };
    publish(names, values, 3);

    oid o[MAX_OID_LEN];
    struct pna_cell c;
    struct pna_view held;
    CHECK_INT(pna_table_get(&def, o, cell_oid(o, 3, "aa"), &c, &held), 0);
    CHECK_INT(c.type, ASN_UNSIGNED);
    CHECK_U64(c.u, 2);
    pna_view_release(&held);
    CHECK_INT(pna_table_get(&def, o, cell_oid(o, 3, "c"), &c, &held), -1); /* absent */
    pna_view_release(&held);
    CHECK_INT(pna_table_get(&def, o, cell_oid(o, 2, "zz"), &c, &held), -1); /* no row */
    pna_view_release(&held);
    CHECK_INT(pna_table_get(&def, o, cell_oid(o, 5, "b"), &c, &held), -1); /* no column */
    pna_view_release(&held);

    expect_next(0, NULL, 2, "b");        /* from the table entry itself */
    expect_next(2, "b", 2, "c");
    expect_next(2, "c", 2, "aa");
    expect_next(2, "aa", 3, "b");        /* next column */
    expect_next(3, "b", 3, "aa");        /* c has no column 3 */
    expect_next(4, "aa", 0, NULL);       /* end of table */
    expect_next(2, "a", 2, "b");         /* between rows: "a" < "b" */
    expect_next(2, "bb", 3, "b");        /* past the last row of column 2 */

    /* From an OID before the table: the first cell. */
    oid before[] = { 1, 3, 6, 1, 4, 1, 99, 4, 7 };
    oid next[MAX_OID_LEN];
    size_t next_len;
    CHECK_INT(pna_table_getnext(&def, before, 9, next, &next_len, &c, &held), 0);
    CHECK_INT(next_len, 12);
    pna_view_release(&held);

    /* The last answer is remembered so that a walk's next step costs no
     * search; a new snapshot of as many rows must not reuse that position.
     * Old order b, c, aa: after "c" comes position 2.  New order c, x, zz:
     * after "c" comes "x" (position 1), not "zz". */
    expect_next(2, "b", 2, "c");
    const char *names_same_count[] = { "zz", "c", "x" };
    const int values_same_count[] = { 1, 2, 3 };
    publish(names_same_count, values_same_count, 3);
    expect_next(2, "c", 2, "x");
    expect_next(2, "x", 2, "zz");
    expect_next(2, "zz", 3, "c");

    /* A new snapshot is re-sorted: now only "zz" and "a". */
    const char *names2[] = { "zz", "a" };
    const int values2[] = { 5, 6 };
    publish(names2, values2, 2);
    expect_next(2, NULL, 2, "a");
    expect_next(2, "a", 2, "zz");
    CHECK_INT(pna_table_get(&def, o, cell_oid(o, 4, "zz"), &c, &held), 0);
    CHECK_U64(c.u, 50);
    pna_view_release(&held);

    /* Rows kept in index order are served in it; rows in order but for the
     * last two are sorted (the check for rows in order must see the end). */
    const char *in_order[] = { "a", "b", "c", "aa", "ab" };
    const int values5[] = { 1, 2, 3, 4, 5 };
    publish(in_order, values5, 5);
    expect_next(2, NULL, 2, "a");
    expect_next(2, "a", 2, "b");
    expect_next(2, "c", 2, "aa");
    expect_next(2, "aa", 2, "ab");
    expect_next(2, "ab", 3, "a");
    const char *last_two_swapped[] = { "a", "b", "c", "ab", "aa" };
    publish(last_two_swapped, values5, 5);
    expect_next(2, "c", 2, "aa");
    expect_next(2, "aa", 2, "ab");
    expect_next(2, "ab", 3, "a");
    CHECK_INT(pna_table_get(&def, o, cell_oid(o, 3, "aa"), &c, &held), 0);
    CHECK_U64(c.u, 5);
    pna_view_release(&held);

    /* No snapshot at all: nothing, and no crash. */
    pna_cache_clear();
    CHECK_INT(pna_table_get(&def, o, cell_oid(o, 2, "a"), &c, &held), -1);
    pna_view_release(&held);
    UNIT_END();
}
