/* test_table_declaration.c -- a new table is one declaration: the table below
 * is declared here alone (descriptors, OID, key, rows) and is then served,
 * with its index, by the SNMP engine, and with its identity labels by the
 * Prometheus and JSON renderers, with no other code for it anywhere.  It is
 * the worked example of docs/architecture.md ("Adding a table").
 *
 * The rows are built here from the model's rules, not captured: two RDMA
 * devices whose names sort differently as strings and as SNMP indexes
 * ("mlx5_10" is longer than "mlx5_2", so it comes after it), each with ports,
 * and one row whose device name is too long for the index (it must have no
 * cells anywhere). */
#include "pna_autoconf.h"
#include "http/render/render.h"
#include "snmp/table.h"
#include "unit.h"

/* ---- the domain's records and snapshot (what a source would fill) ---------- */

struct uplink_device {
    char name[64];
};

struct uplink {
    const struct uplink_device *device;
    uint32_t port;
    uint64_t speed_mbps;
    const char *role;           /* "leaf", "spine" */
};

struct uplink_snap {
    struct pna_snap base;
    struct uplink_device devices[3];
    struct uplink rows[5];
    size_t count;
};

static const struct uplink_snap *uplink_snap(const struct pna_view *v)
{
    return pna_view_snap(v, PNA_DOM_STORAGE); /* any free slot serves a test */
}

/* ---- the declaration: all a new table needs ---------------------------------- */

static size_t uplink_rows(const struct pna_view *v)
{
    return uplink_snap(v) ? uplink_snap(v)->count : 0;
}

static bool uplink_row(const struct pna_view *v, size_t i, struct pna_row *out)
{
    const struct uplink *u = &uplink_snap(v)->rows[i];
    out->rec = u;
    out->parent = u->device;
    return strlen(u->device->name) <= 32;   /* the index object's SIZE */
}

/* A join: who the link's switch belongs to, from "another domain". */
static const char *const uplink_join_labels[] = { "fabric", NULL };

static void uplink_join(const struct pna_row *row, const char **values)
{
    const struct uplink *u = row->rec;
    values[0] = u->port == 1 ? "east" : "west";
}

static const struct pna_key_part uplink_key[] = {
    PNA_KEY_INDEX_FIELD("testUplinkDevice", "device", PNA_KEY_FROM_PARENT, struct uplink_device,
                        name),
    PNA_KEY_INDEX_FIELD("testUplinkPort", "port", PNA_KEY_FROM_REC, struct uplink, port),
    PNA_KEY_LABEL_FIELD("role", PNA_KEY_FROM_REC, struct uplink, role),
};

static const struct pna_metric uplink_metrics[] = {
    { .column = 3, .object = "testUplinkSpeed", .syntax = PNA_SYNTAX_UNSIGNED,
      .field = PNA_FIELD(struct uplink, speed_mbps), .family = "test_uplink_speed_bits_per_second",
      .type = PNA_FAMILY_GAUGE, .scale = PNA_SCALE_E(6), .json = "speed_mbps",
      .help = "The link's speed" },
};

static const struct pna_metric_table uplink_table = {
    .object = "testUplinkTable",
    .kind = PNA_TABLE_ROWS,
    .domain = PNA_DOM_STORAGE,
    .view = PNA_VIEW_DOMAIN(PNA_DOM_STORAGE),
    PNA_TABLE_OID(1, 3, 6, 1, 4, 1, 99, 7),
    PNA_KEY_JOINED(uplink_key, uplink_join_labels, uplink_join),
    .metrics = uplink_metrics,
    .count = sizeof uplink_metrics / sizeof uplink_metrics[0],
    .rows = uplink_rows,
    .row = uplink_row,
    .info_family = "test_uplink_info",
    .info_help = "One series per uplink",
};

/* ---- the snapshot a poller would publish ------------------------------------ */

static void destroy(struct pna_snap *s)
{
    free(s);
}

static void publish(void)
{
    struct uplink_snap *s = calloc(1, sizeof *s);
    pna_snap_init(&s->base, destroy);
    snprintf(s->devices[0].name, sizeof s->devices[0].name, "mlx5_10");
    snprintf(s->devices[1].name, sizeof s->devices[1].name, "mlx5_2");
    snprintf(s->devices[2].name, sizeof s->devices[2].name, "%s", "a-name-longer-than-the-index-allows");
    s->rows[0] = (struct uplink){ &s->devices[0], 1, 100000, "leaf" };
    s->rows[1] = (struct uplink){ &s->devices[0], 2, 200000, "spine" };
    s->rows[2] = (struct uplink){ &s->devices[1], 2, 400000, "leaf" };
    s->rows[3] = (struct uplink){ &s->devices[1], 1, 25000, "leaf" };
    s->rows[4] = (struct uplink){ &s->devices[2], 1, 1, "leaf" };
    s->count = 5;
    pna_cache_publish(PNA_DOM_STORAGE, &s->base);
}

/* ---- SNMP: the index comes from the key ------------------------------------- */

/* testUplinkTable.1.3.<len>.<name>.<port> */
static size_t cell_name(oid *name, const char *device, uint32_t port)
{
    size_t n = pna_table_oid(&uplink_table, name);
    name[n++] = 1;
    name[n++] = 3;
    n += pna_index_put_string(name + n, PNA_MAX_INDEX_LEN, device);
    name[n++] = port;
    return n;
}

static void test_snmp_walk(void)
{
    const char *want_dev[] = { "mlx5_2", "mlx5_2", "mlx5_10", "mlx5_10" };
    const uint32_t want_port[] = { 1, 2, 1, 2 };
    const uint64_t want_speed[] = { 25000, 400000, 100000, 200000 };
    oid cur[MAX_OID_LEN], next[MAX_OID_LEN], want[MAX_OID_LEN];
    size_t cur_len = pna_table_oid(&uplink_table, cur), next_len = 0, n = 0;
    for (;;) {
        struct pna_cell c;
        struct pna_view held;
        int rc = pna_table_getnext(&uplink_table, cur, cur_len, next, &next_len, &c, &held);
        pna_view_release(&held);
        if (rc != 0)
            break;
        CHECK(n < 4);
        if (n >= 4)
            break;
        size_t want_len = cell_name(want, want_dev[n], want_port[n]);
        CHECK_INT(snmp_oid_compare(next, next_len, want, want_len), 0);
        CHECK_INT(c.type, ASN_UNSIGNED);
        CHECK_U64(c.u, want_speed[n]);
        memcpy(cur, next, next_len * sizeof(oid));
        cur_len = next_len;
        n++;
    }
    CHECK_INT(n, 4);   /* the row with the long name has no cell */

    struct pna_cell c;
    struct pna_view held;
    size_t len = cell_name(want, "mlx5_10", 2);
    CHECK_INT(pna_table_get(&uplink_table, want, len, &c, &held), 0);
    pna_view_release(&held);
    CHECK_U64(c.u, 200000);
    len = cell_name(want, "mlx5_10", 3);
    CHECK_INT(pna_table_get(&uplink_table, want, len, &c, &held), -1);
    pna_view_release(&held);
}

/* ---- Prometheus and JSON: the labels come from the key ------------------------ */

static char *render_prom(struct pna_http_view *hv)
{
    struct pna_buf b;
    pna_buf_init(&b);
    struct pna_prom p;
    pna_prom_init(&p, &b);
    pna_prom_table(&p, hv, &uplink_table);
    CHECK_U64(p.errors, 0);
    pna_prom_free(&p);
    return pna_buf_steal(&b, NULL);
}

static void test_prometheus(struct pna_http_view *hv)
{
    char *text = render_prom(hv);
    CHECK(strstr(text, "# TYPE test_uplink_info gauge\n") != NULL);
    CHECK(strstr(text, "test_uplink_info{device=\"mlx5_10\",port=\"2\",role=\"spine\","
                       "fabric=\"west\"} 1\n") != NULL);
    CHECK(strstr(text, "# HELP test_uplink_speed_bits_per_second The link's speed "
                       "(testUplinkSpeed x 1000000).\n") != NULL);
    CHECK(strstr(text, "test_uplink_speed_bits_per_second{device=\"mlx5_2\",port=\"1\","
                       "role=\"leaf\",fabric=\"east\"} 25000000000\n") != NULL);
    CHECK(strstr(text, "a-name-longer") == NULL);
    free(text);
}

static void test_json(struct pna_http_view *hv)
{
    struct pna_row row;
    CHECK(pna_http_row(&uplink_table, hv, 2, &row));
    json_t *o = json_object();
    pna_json_put_own_key(o, &uplink_table, &row);
    pna_json_put_members(o, &uplink_table, &row);
    char *text = json_dumps(o, JSON_SORT_KEYS | JSON_COMPACT);
    /* the parent's part (device) belongs to the enclosing object, as a GPU's
     * links sit inside the GPU's entry */
    CHECK_STR(text, "{\"port\":2,\"role\":\"leaf\",\"speed_mbps\":400000}");
    free(text);
    json_decref(o);
}

static void test_catalogue_of_keys(void)
{
    /* What --list-tables prints comes from the same declaration. */
    struct pna_row row = { 0 };
    struct uplink_device d = { "mlx5_0" };
    struct uplink u = { &d, 7, 0, "leaf" };
    row.rec = &u;
    row.parent = &d;
    oid idx[PNA_MAX_INDEX_LEN];
    size_t n = pna_key_index(&uplink_table, &row, idx);
    const oid want[] = { 6, 'm', 'l', 'x', '5', '_', '0', 7 };
    CHECK_INT(snmp_oid_compare(idx, n, want, OID_LENGTH(want)), 0);
}

int main(void)
{
    publish();
    test_snmp_walk();
    struct pna_http_view hv;
    memset(&hv, 0, sizeof hv);
    pna_view_take(&hv.base, PNA_VIEW_DOMAIN(PNA_DOM_STORAGE));
    pna_http_view_complete(&hv, "node-1");
    test_prometheus(&hv);
    test_json(&hv);
    pna_view_release(&hv.base);
    test_catalogue_of_keys();
    UNIT_END();
}
