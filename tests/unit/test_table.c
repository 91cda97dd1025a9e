/* test_table.c -- the MIB engine without net-snmp's request machinery: GET,
 * GETNEXT across rows and columns, string-index order, absent cells, and
 * re-sorting when a new snapshot is published. */
#include "pna_autoconf.h"
#include "snmp/table.h"
#include "unit.h"

struct rows_snap {
    struct pna_snap snap;
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
    pna_snap_init(&s->snap, destroy);
    s->n = n;
    for (size_t i = 0; i < n; i++) {
        s->names[i] = names[i];
        s->values[i] = values[i];
    }
    pna_cache_publish(PNA_DOM_STORAGE, &s->snap);
}

static size_t row_count(const void *ctx)
{
    return ((const struct rows_snap *)ctx)->n;
}

static size_t row_index(const void *ctx, size_t row, oid *idx)
{
    return pna_index_put_string(idx, PNA_MAX_INDEX_LEN, ((const struct rows_snap *)ctx)->names[row]);
}

/* col 2: name, col 3: value (absent when negative), col 4: value * 10 */
static int get_cell(const void *ctx, size_t row, unsigned col, struct pna_cell *out)
{
    const struct rows_snap *s = ctx;
    switch (col) {
    case 2: return pna_cell_str(out, s->names[row]);
    case 3: return s->values[row] < 0 ? PNA_CELL_ABSENT : pna_cell_u32(out, (uint32_t)s->values[row]);
    case 4: return pna_cell_counter64(out, (uint64_t)(s->values[row] < 0 ? 0 : s->values[row]) * 10);
    }
    return PNA_CELL_ABSENT;
}

static const oid table_oid[] = { 1, 3, 6, 1, 4, 1, 99, 5 };
static const struct pna_table_def def = {
    .name = "testTable",
    .table_oid = table_oid,
    .table_oid_len = 8,
    .domain = PNA_DOM_STORAGE,
    .min_col = 2,
    .max_col = 4,
    .row_count = row_count,
    .row_index = row_index,
    .get_cell = get_cell,
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
    struct pna_snap *held = NULL;
    int rc = pna_table_getnext(&def, from, from_len, next, &next_len, &c, &held);
    if (!want_name) {
        CHECK_INT(rc, -1);
    } else {
        size_t want_len = cell_oid(want, want_col, want_name);
        CHECK_INT(rc, 0);
        CHECK(rc == 0 && snmp_oid_compare(next, next_len, want, want_len) == 0);
    }
    pna_snap_release(held);
}

int main(void)
{
    /* Kept order b, aa, c; SNMP order (length first) is b, c, aa. */
    const char *names[] = { "b", "aa", "c" };
    const int values[] = { 1, 2, -1 };
    publish(names, values, 3);

    oid o[MAX_OID_LEN];
    struct pna_cell c;
    struct pna_snap *held = NULL;
    CHECK_INT(pna_table_get(&def, o, cell_oid(o, 3, "aa"), &c, &held), 0);
    CHECK_INT(c.type, ASN_UNSIGNED);
    CHECK_U64(c.u, 2);
    pna_snap_release(held);
    CHECK_INT(pna_table_get(&def, o, cell_oid(o, 3, "c"), &c, &held), -1); /* absent */
    pna_snap_release(held);
    CHECK_INT(pna_table_get(&def, o, cell_oid(o, 2, "zz"), &c, &held), -1); /* no row */
    pna_snap_release(held);
    CHECK_INT(pna_table_get(&def, o, cell_oid(o, 5, "b"), &c, &held), -1); /* no column */
    pna_snap_release(held);

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
    pna_snap_release(held);

    /* A new snapshot is re-sorted: now only "zz" and "a". */
    const char *names2[] = { "zz", "a" };
    const int values2[] = { 5, 6 };
    publish(names2, values2, 2);
    expect_next(2, NULL, 2, "a");
    expect_next(2, "a", 2, "zz");
    CHECK_INT(pna_table_get(&def, o, cell_oid(o, 4, "zz"), &c, &held), 0);
    CHECK_U64(c.u, 50);
    pna_snap_release(held);

    /* No snapshot at all: nothing, and no crash. */
    pna_cache_clear();
    CHECK_INT(pna_table_get(&def, o, cell_oid(o, 2, "a"), &c, &held), -1);
    pna_snap_release(held);
    UNIT_END();
}
