/* test_export.c -- the export control (model/export/export.h) over the
 * descriptors: its start-up checks, with the file and line of the token,
 * through the config loader; its lookups for both front ends; and what it
 * does to them: a column left out of the SNMP engine while the table's
 * others stay, a family left out of /metrics, labels dropped and added,
 * duplicates that a drop would make caught, and the series limit dropping
 * whole families.
 *
 * The table below is declared here (as test_table_declaration.c's) from the
 * model's rules; it is no capture.  The checks on the agent's own names use
 * its real tables (pna_metric_tables) and the bridge's real name lists. */
#include "pna_autoconf.h"
#include "core/config.h"
#include "http/render/render.h"
#include "model/export/export.h"
#include "model/metric_tables.h"
#include "snmp/table.h"
#include "unit.h"

#include <unistd.h>

static char dir[] = "/tmp/pna-export-XXXXXX";

/* ---- a small table of two columns ---------------------------------------------- */

struct link {
    uint32_t port;
    uint64_t speed;
    uint32_t mtu;
    const char *peer;
};

static const struct link links[] = {
    { 1, 100, 9000, "leaf1" }, { 2, 200, 1500, "leaf2" }, { 3, 300, 4200, "leaf2" },
};

static size_t link_rows(const struct pna_view *v)
{
    (void)v;
    return sizeof links / sizeof links[0];
}

static bool link_row(const struct pna_view *v, size_t i, struct pna_row *out)
{
    (void)v;
    out->rec = &links[i];
    return true;
}

static const struct pna_key_part link_key[] = {
    PNA_KEY_INDEX_FIELD("testLinkPort", "port", PNA_KEY_FROM_REC, struct link, port),
    PNA_KEY_LABEL_FIELD("peer", PNA_KEY_FROM_REC, struct link, peer),  /* not identity */
};

static const struct pna_metric link_metrics[] = {
    { .column = 2, .object = "testLinkSpeed", .syntax = PNA_SYNTAX_UNSIGNED,
      .field = PNA_FIELD(struct link, speed), .family = "test_link_speed", .type = PNA_FAMILY_GAUGE,
      .help = "Speed" },
    { .column = 3, .object = "testLinkMtu", .syntax = PNA_SYNTAX_UNSIGNED,
      .field = PNA_FIELD(struct link, mtu), .family = "test_link_mtu_bytes",
      .type = PNA_FAMILY_GAUGE, .help = "MTU" },
};

static const struct pna_metric_table link_table = {
    .object = "testLinkTable",
    .kind = PNA_TABLE_ROWS,
    .domain = PNA_DOM_NONE,
    .view = 0,
    PNA_TABLE_OID(1, 3, 6, 1, 4, 1, 99, 8),
    PNA_KEY(link_key),
    .metrics = link_metrics,
    .count = 2,
    .rows = link_rows,
    .row = link_row,
    .info_family = "test_link_info",
    .info_help = "One series per link",
};

static const struct pna_metric_table *const test_tables[] = { &link_table, NULL };

/* ---- configs through the loader ------------------------------------------------- */

/* Load TEXT as a config file into CFG; returns the loader's result. */
static int load(struct pna_config *cfg, const char *text, char *err, size_t errlen)
{
    char path[sizeof dir + 16];
    snprintf(path, sizeof path, "%s/agent.conf", dir);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    fputs(text, f);
    fclose(f);
    pna_config_defaults(cfg);
    return pna_config_load(cfg, path, NULL, NULL, err, errlen);
}

/* TEXT must load and then be refused by the export checks over the agent's
 * real tables with WANT (after "DIR/agent.conf:"). */
static void refused(const char *text, const char *want)
{
    struct pna_config cfg;
    char err[512] = "", full[600];
    CHECK_INT(load(&cfg, text, err, sizeof err), 0);
    struct pna_export_names names = pna_metrics_export_names();
    CHECK_INT(pna_export_setup(&cfg.exports, pna_metric_tables, &names, err, sizeof err), -1);
    snprintf(full, sizeof full, "%s/agent.conf:%s", dir, want);
    CHECK_STR(err, full);
    CHECK(!pna_export_active());
    pna_config_free(&cfg);
}

/* TEXT must be refused by the loader itself with WANT. */
static void refused_by_loader(const char *text, const char *want)
{
    struct pna_config cfg;
    char err[512] = "", full[600];
    CHECK_INT(load(&cfg, text, err, sizeof err), -1);
    snprintf(full, sizeof full, "%s/agent.conf:%s", dir, want);
    CHECK_STR(err, full);
    pna_config_free(&cfg);
}

static void test_refusals(void)
{
    refused("# a comment\nexportExclude primus_gpu_power_watts primus_no_such_family\n",
            "2: exportExclude: no family or MIB object is named 'primus_no_such_family'");
    refused("exportInclude primus_gpu_*\nexportExclude primusNoSuch*\n",
            "2: exportExclude: 'primusNoSuch*' matches no family or MIB object");
    refused("exportExclude primusGpuIndex\n",
            "1: exportExclude: 'primusGpuIndex' is an index object of primusGpuTable: not "
            "served (not-accessible), so not exported; name the table or its columns");
    refused("exportLabelDrop node\nexportLabelDrop interface\n",
            "2: exportLabelDrop: 'interface' tells series apart (a part of primusPhyTable's "
            "row key): without it two series would be the same");
    refused("exportLabelDrop cause\n",
            "1: exportLabelDrop: 'cause' tells series apart (the label that tells "
            "primus_gpu_throttle_seconds_total's series apart): without it two series would "
            "be the same");
    refused("exportLabelDrop no_such_label\n",
            "1: exportLabelDrop: no series has a label 'no_such_label'");
    refused("exportStaticLabels cluster=a,pod=b\n",
            "1: exportStaticLabels: 'pod' is a label the agent's series have already (a part of "
            "primusContainerDeviceTable's row key)");
    refused_by_loader("exportStaticLabels cluster\n",
                      "1: exportStaticLabels: 'cluster' is not key=value");
    refused_by_loader("exportStaticLabels cluster=a,,rack=b\n",
                      "1: exportStaticLabels: an empty item in 'cluster=a,,rack=b'");
    char twice[300];
    snprintf(twice, sizeof twice, "2: exportStaticLabels: label 'cluster' is given twice (first "
             "at %s/agent.conf:1)", dir);
    refused_by_loader("exportStaticLabels cluster=a\nexportStaticLabels cluster=b\n", twice);
    refused_by_loader("exportStaticLabels 1rack=a\n",
                      "1: exportStaticLabels: '1rack' is not a Prometheus label name");
    refused_by_loader("exportStaticLabels rack=\"a b\\\"\"\n",
                      "1: exportStaticLabels: rack: the value must be 1 to 128 bytes of "
                      "printable UTF-8 without '\"' or '\\'");
    refused_by_loader("exportLabelDrop __name__\n",
                      "1: exportLabelDrop: '__name__' is not a Prometheus label name");
    refused_by_loader("exportExclude primus_gpu_{a,b}\n",
                      "1: exportExclude: 'primus_gpu_{a,b}' is not a family or MIB object name "
                      "or glob (letters, digits, '_', and the glob characters * ? [ ] ! -)");
    refused_by_loader("exportInclude\n",
                      "1: exportInclude: expected at least one family or MIB object name");
    refused_by_loader("exportSeriesLimit 100000001\n",
                      "1: exportSeriesLimit: 100000001 is out of range (0..100000000)");
}

/* ---- lookups over the agent's own names ----------------------------------------- */

static void setup_ok(const char *text, struct pna_config *cfg)
{
    char err[512] = "";
    CHECK_INT(load(cfg, text, err, sizeof err), 0);
    struct pna_export_names names = pna_metrics_export_names();
    int rc = pna_export_setup(&cfg->exports, pna_metric_tables, &names, err, sizeof err);
    if (rc)
        fprintf(stderr, "# %s\n", err);
    CHECK_INT(rc, 0);
}

static void test_agent_names(void)
{
    struct pna_config cfg;
    const struct pna_metric *draw = pna_metric_by_object(&pna_gpu_metrics, "primusGpuPowerDraw");
    const struct pna_metric *limit = pna_metric_by_object(&pna_gpu_metrics, "primusGpuPowerLimit");
    CHECK(draw && limit);

    /* nothing configured: everything, and no control at all */
    setup_ok("", &cfg);
    CHECK(!pna_export_active());
    CHECK(pna_export_object_on(&pna_gpu_metrics, draw));
    CHECK(pna_export_family_on("primus_gpu_power_watts"));
    pna_config_free(&cfg);

    /* an object: its column only; its family stays (each front end by its names) */
    setup_ok("exportExclude primusGpuPowerDraw\n", &cfg);
    CHECK(pna_export_active());
    CHECK(!pna_export_object_on(&pna_gpu_metrics, draw));
    CHECK(pna_export_object_on(&pna_gpu_metrics, limit));
    CHECK(pna_export_table_on(&pna_gpu_metrics));
    CHECK(pna_export_family_on("primus_gpu_power_watts"));
    pna_config_free(&cfg);

    /* a family glob: the families, not the columns */
    setup_ok("exportExclude primus_gpu_power*\n", &cfg);
    CHECK(!pna_export_family_on("primus_gpu_power_watts"));
    CHECK(!pna_export_family_on("primus_gpu_power_limit_watts"));
    CHECK(pna_export_family_on("primus_gpu_info"));
    CHECK(pna_export_family_on("hw_gpu_power_draw_watts"));  /* a replaced exporter's: its own name */
    CHECK(pna_export_object_on(&pna_gpu_metrics, draw));
    pna_config_free(&cfg);

    /* a whole table, by its name: every column; a scalar group likewise */
    setup_ok("exportExclude primusGpuTable primusCpu\n", &cfg);
    CHECK(!pna_export_table_on(&pna_gpu_metrics));
    CHECK(!pna_export_object_on(&pna_gpu_metrics, limit));
    CHECK(!pna_export_object_on(&pna_cpu_metrics, &pna_cpu_metrics.metrics[0]));
    CHECK(pna_export_table_on(&pna_gpu_link_metrics));
    CHECK(pna_export_family_on("primus_gpu_info"));
    pna_config_free(&cfg);

    /* include restricts the front end whose names it matches: here /metrics */
    setup_ok("exportInclude primus_gpu_* rdma_stat_rx*\nexportExclude primus_gpu_info\n", &cfg);
    CHECK(pna_export_family_on("primus_gpu_power_watts"));
    CHECK(!pna_export_family_on("primus_gpu_info"));          /* include first, then exclude */
    CHECK(!pna_export_family_on("primus_cpu_cores"));
    CHECK(!pna_export_family_on("hw_node_info"));
    CHECK(pna_export_family_on("rdma_stat_rx_write_requests")); /* named at run time */
    CHECK(!pna_export_family_on("rdma_stat_tx_bytes"));
    CHECK(pna_export_object_on(&pna_cpu_metrics, &pna_cpu_metrics.metrics[0]));
    CHECK(pna_export_object_on(&pna_gpu_metrics, draw));
    pna_config_free(&cfg);

    /* and here the MIB: a table by name keeps its columns */
    setup_ok("exportInclude primusGpuTable primusCpuCores\n", &cfg);
    CHECK(pna_export_object_on(&pna_gpu_metrics, draw));
    CHECK(pna_export_object_on(&pna_cpu_metrics, pna_metric_by_object(&pna_cpu_metrics,
                                                                      "primusCpuCores")));
    CHECK(!pna_export_object_on(&pna_cpu_metrics, pna_metric_by_object(&pna_cpu_metrics,
                                                                       "primusCpuThreads")));
    CHECK(!pna_export_table_on(&pna_gpu_link_metrics));
    CHECK(pna_export_family_on("primus_cpu_threads"));
    pna_config_free(&cfg);

    /* labels that do not tell series apart may go; static labels are kept */
    setup_ok("exportLabelDrop node\n"
             "exportStaticLabels cluster=east,rack=r12 zone=z\nexportSeriesLimit 20000\n", &cfg);
    size_t n;
    const char *const *drops = pna_export_label_drops(&n);
    CHECK_U64(n, 1);
    CHECK_STR(drops[0], "node");
    const char *const *names = pna_export_static_names(&n);
    const char *const *values = pna_export_static_values(&n);
    CHECK_U64(n, 3);
    CHECK_STR(names[1], "rack");
    CHECK_STR(values[1], "r12");
    CHECK_STR(names[2], "zone");
    CHECK_U64(pna_export_series_limit(), 20000);
    pna_config_free(&cfg);
    pna_export_reset();
    CHECK(!pna_export_active());
}

/* ---- the front ends --------------------------------------------------------------- */

static void setup_tables(const char *text, struct pna_config *cfg)
{
    char err[512] = "";
    CHECK_INT(load(cfg, text, err, sizeof err), 0);
    struct pna_export_names none = { NULL, NULL, NULL };
    int rc = pna_export_setup(&cfg->exports, test_tables, &none, err, sizeof err);
    if (rc)
        fprintf(stderr, "# %s\n", err);
    CHECK_INT(rc, 0);
}

static size_t cell_oid(oid *name, unsigned col, uint32_t port)
{
    size_t n = pna_table_oid(&link_table, name);
    name[n++] = 1;
    name[n++] = col;
    name[n++] = port;
    return n;
}

/* testLinkMtu left out: GET fails on it and answers on testLinkSpeed;
 * a walk gives the speed column and nothing of the MTU's. */
static void test_snmp(void)
{
    struct pna_config cfg;
    setup_tables("exportExclude testLinkMtu\n", &cfg);
    oid name[MAX_OID_LEN], next[MAX_OID_LEN];
    struct pna_cell c;
    struct pna_view v;
    size_t len = cell_oid(name, 2, 2), next_len;
    CHECK_INT(pna_table_get(&link_table, name, len, &c, &v), 0);
    CHECK_U64(c.u, 200);
    pna_view_release(&v);
    len = cell_oid(name, 3, 2);
    CHECK_INT(pna_table_get(&link_table, name, len, &c, &v), -1);
    pna_view_release(&v);
    /* the walk */
    size_t cells = 0;
    len = pna_table_oid(&link_table, name);
    memset(&v, 0, sizeof v);
    while (pna_table_getnext_in(&link_table, &v, name, len, next, &next_len, &c) == 0) {
        CHECK_U64(next[9], 2);   /* testLinkTable.1.COLUMN: only the speed's */
        memcpy(name, next, next_len * sizeof *next);
        len = next_len;
        cells++;
    }
    CHECK_U64(cells, 3);
    /* from inside the excluded column: off the end of the table */
    len = cell_oid(name, 3, 1);
    CHECK_INT(pna_table_getnext_in(&link_table, &v, name, len, next, &next_len, &c), -1);
    pna_config_free(&cfg);
}

static char *render_table(void)
{
    struct pna_http_view hv;
    memset(&hv, 0, sizeof hv);
    hv.node_name = "n";
    struct pna_buf out;
    pna_buf_init(&out);
    struct pna_prom p;
    pna_prom_init(&p, &out);
    pna_prom_table(&p, &hv, &link_table);
    pna_prom_free(&p);
    return pna_buf_steal(&out, NULL);
}

static size_t count(const char *text, const char *what)
{
    size_t n = 0;
    for (const char *s = text; (s = strstr(s, what)) != NULL; s += strlen(what))
        n++;
    return n;
}

/* The family left out, a label dropped, static labels added. */
static void test_bridge(void)
{
    struct pna_config cfg;
    setup_tables("exportExclude test_link_mtu_bytes\nexportLabelDrop peer\n"
                 "exportStaticLabels cluster=east,rack=r1\n", &cfg);
    char *text = render_table();
    CHECK_U64(count(text, "test_link_mtu_bytes"), 0);
    CHECK_U64(count(text, "test_link_speed{port=\"2\",cluster=\"east\",rack=\"r1\"} 200\n"), 1);
    CHECK_U64(count(text, "peer="), 0);
    CHECK_U64(count(text, "test_link_info{"), 3);
    free(text);
    pna_config_free(&cfg);
    pna_export_reset();
}

/* Series the drop of a label would merge: the second is dropped and counted
 * (the start-up check knows the descriptors' keys; a family rendered in
 * code is held to it here, at render time). */
static void test_duplicates(void)
{
    struct pna_config cfg;
    setup_tables("exportLabelDrop peer\n", &cfg);
    struct pna_buf out;
    pna_buf_init(&out);
    struct pna_prom p;
    pna_prom_init(&p, &out);
    pna_prom_family(&p, "test_peer_links", PNA_PROM_GAUGE, "by peer");
    const char *peers[] = { "leaf1", "leaf2", "leaf3" };
    for (size_t i = 0; i < 3; i++) {
        struct pna_prom_label l[] = { { "peer", peers[i] }, { "speed", i < 2 ? "100" : "400" } };
        pna_prom_u64(&p, l, 2, i);
    }
    struct pna_prom_stats st;
    pna_prom_take_stats(&p, &st);
    CHECK_U64(st.duplicates, 1);
    CHECK_U64(st.n, 1);
    CHECK_U64(st.counts[0].series, 2);
    CHECK_STR(pna_prom_count_name(&st, &st.counts[0]), "test_peer_links");
    const char *text = pna_buf_cstr(&out);
    CHECK_U64(count(text, "test_peer_links{speed=\"100\"} 0\n"), 1);
    CHECK_U64(count(text, "test_peer_links{speed=\"400\"} 2\n"), 1);
    CHECK_U64(count(text, "test_peer_links{"), 2);
    pna_prom_stats_free(&st);
    pna_prom_free(&p);
    pna_buf_free(&out);
    pna_config_free(&cfg);
    pna_export_reset();
}

/* Families of 3, 5, 2 and 4 series under a limit of 10: the one of 5 would
 * pass it after the first (3 + 5 = 8 fits; 8 + 2 = 10 fits; 4 does not):
 * whole families are kept in order while they fit, the one that does not is
 * left out whole, and the output holds exactly what the counts say. */
static void test_limit(void)
{
    struct pna_config cfg;
    setup_tables("exportSeriesLimit 10\n", &cfg);
    struct pna_buf out;
    pna_buf_init(&out);
    struct pna_prom p;
    pna_prom_init(&p, &out);
    pna_prom_set_limit(&p, pna_export_series_limit());
    const char *fam[] = { "f_three", "f_five", "f_two", "f_four", "f_one" };
    const size_t size[] = { 3, 5, 2, 4, 1 };
    for (size_t f = 0; f < 5; f++) {
        pna_prom_family(&p, fam[f], PNA_PROM_GAUGE, "h");
        for (size_t i = 0; i < size[f]; i++) {
            char v[24];
            snprintf(v, sizeof v, "%zu", i);
            struct pna_prom_label l[] = { { "i", v } };
            pna_prom_u64(&p, l, 1, i);
        }
    }
    struct pna_prom_stats st;
    pna_prom_take_stats(&p, &st);
    const char *text = pna_buf_cstr(&out);
    CHECK_U64(st.series, 10);
    CHECK_U64(st.limit_families, 2);           /* f_four, and f_one: 10 + 1 > 10 */
    CHECK_U64(st.limit_series, 5);
    CHECK_U64(count(text, "f_three{"), 3);
    CHECK_U64(count(text, "f_five{"), 5);
    CHECK_U64(count(text, "f_two{"), 2);
    CHECK_U64(count(text, "f_four"), 0);
    CHECK_U64(count(text, "f_one"), 0);
    CHECK_U64(count(text, "} "), 10);
    CHECK_U64(st.n, 5);
    CHECK(st.counts[3].dropped && st.counts[4].dropped && !st.counts[2].dropped);
    CHECK_U64(st.counts[3].series, 4);
    pna_prom_stats_free(&st);
    pna_prom_free(&p);
    pna_buf_free(&out);
    pna_config_free(&cfg);
    pna_export_reset();
}

int main(void)
{
    if (!mkdtemp(dir))
        return 99;
    test_refusals();
    test_agent_names();
    test_snmp();
    test_bridge();
    test_duplicates();
    test_limit();
    char path[sizeof dir + 16];
    snprintf(path, sizeof path, "%s/agent.conf", dir);
    unlink(path);
    rmdir(dir);
    UNIT_END();
}
