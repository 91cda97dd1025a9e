/* test_rdma_tables.c -- the primusRdma and primusPfc tables answered from
 * snapshots built from the fixture trees, through the table engine's GET /
 * GETNEXT hooks (no snmpd): every served cell equals the model, rows come in
 * SNMP index order, absent counters are skipped, saturation bits, and each
 * ethtool statistic is served exactly once (named column or generic table). */
#include "pna_autoconf.h"
#include "snmp/table.h"
#include "model/metric_tables.h"

#include <limits.h>

#include "core/cache.h"
#include "sources/rdma/ib_sysfs.h"
#include "sources/pfc/pfc_names.h"
#include "model/ib.h"
#include "model/pfc.h"
#include "model/oids.h"
#include "util/fileio.h"
#include "unit.h"
#include "mib_columns.h"

static void free_ib(struct pna_snap *s)
{
    pna_ib_model_free(&((struct pna_ib_snap *)s)->model);
    free(s);
}

static void free_pfc(struct pna_snap *s)
{
    pna_pfc_model_free(&((struct pna_pfc_snap *)s)->model);
    free(s);
}

static bool publish_ib_tree(const char *rel)
{
    char root[PATH_MAX], err[160];
    struct pna_roots roots = PNA_ROOTS_DEFAULT;
    snprintf(root, sizeof root, "%s/%s", unit_fixtures(), rel);
    roots.sysfs = root;
    struct pna_ib_snap *s = calloc(1, sizeof *s);
    if (!s || pna_ib_sysfs_read(&roots, &s->model, err, sizeof err) != 0) {
        free(s);
        return false;
    }
    pna_ib_derive(&s->model, NULL);
    pna_snap_init(&s->base, free_ib);
    pna_cache_publish(PNA_DOM_IB, &s->base);
    return true;
}

/* Walk one column with GETNEXT from the column's start; returns the number
 * of cells, checks strictly ascending OIDs and that the walk stays in it. */
static size_t walk_column(const struct pna_metric_table *def, unsigned col,
                          void (*each)(const oid *idx, size_t len, const struct pna_cell *c))
{
    oid name[MAX_OID_LEN], next[MAX_OID_LEN];
    size_t t = pna_table_oid(def, name);
    size_t len = t + 2, n = 0;
    name[t] = 1;
    name[t + 1] = col;
    for (;;) {
        struct pna_cell cell;
        struct pna_view held;
        size_t next_len;
        int rc = pna_table_getnext(def, name, len, next, &next_len, &cell, &held);
        pna_view_release(&held);
        if (rc != 0 || next[t + 1] != col)
            break;
        CHECK(snmp_oid_compare(next, next_len, name, len) > 0);
        if (each)
            each(next + t + 2, next_len - t - 2, &cell);
        memcpy(name, next, next_len * sizeof(oid));
        len = next_len;
        if (++n > 100000)
            break;
    }
    return n;
}

static int get_cell(const struct pna_metric_table *def, unsigned col, const oid *idx, size_t idx_len,
                    struct pna_cell *out)
{
    oid name[MAX_OID_LEN];
    size_t t = pna_table_oid(def, name);
    name[t] = 1;
    name[t + 1] = col;
    memcpy(name + t + 2, idx, idx_len * sizeof(oid));
    struct pna_view held;
    int rc = pna_table_get(def, name, t + 2 + idx_len, out, &held);
    pna_view_release(&held);
    return rc;
}

static size_t port_idx(const char *dev, uint32_t port, oid *idx)
{
    size_t n = pna_index_put_string(idx, 64, dev);
    idx[n] = port;
    return n + 1;
}

static void check_port_counters(const char *dev, const struct pna_ib_port *p)
{
    static const struct {
        const char *object;
        enum pna_ib_counter c;
    } map[] = {
        { "primusIbPortRcvData", PNA_IBC_RCV_DATA },
        { "primusIbPortXmitData", PNA_IBC_XMIT_DATA },
        { "primusIbPortRcvPkts", PNA_IBC_RCV_PACKETS },
        { "primusIbPortXmitPkts", PNA_IBC_XMIT_PACKETS },
        { "primusIbPortUnicastRcvPkts", PNA_IBC_UNICAST_RCV_PACKETS },
        { "primusIbPortMcastXmitPkts", PNA_IBC_MULTICAST_XMIT_PACKETS },
        { "primusIbPortSymbolErrors", PNA_IBC_SYMBOL_ERROR },
        { "primusIbPortXmitDiscards", PNA_IBC_XMIT_DISCARDS },
        { "primusIbPortVl15Dropped", PNA_IBC_VL15_DROPPED },
        { "primusIbPortXmitWait", PNA_IBC_XMIT_WAIT },
        { "primusIbPortRcvDiscards", PNA_IBC_RCV_DISCARDS },
    };
    oid idx[80];
    size_t n = port_idx(dev, p->num, idx);
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
        struct pna_cell c;
        int rc = get_cell(&pna_ib_port_metrics, mib_column(map[i].object), idx, n, &c);
        if (p->counters[map[i].c].present) {
            CHECK_INT(rc, 0);
            CHECK_INT(c.type, ASN_COUNTER64);
            CHECK_U64(c.u, p->counters[map[i].c].value);
        } else {
            CHECK_INT(rc, -1); /* absent, not zero */
        }
    }
}

static size_t state_cells;
static void count_state(const oid *idx, size_t len, const struct pna_cell *c)
{
    (void)idx;
    (void)len;
    CHECK_INT(c->type, ASN_INTEGER);
    CHECK(c->i >= 1 && c->i <= 5);
    state_cells++;
}

static void test_ib_tables_procfs(void)
{
    CHECK(publish_ib_tree("ib-sysfs/procfs/sys"));
    struct pna_snap *s = pna_cache_acquire(PNA_DOM_IB);
    const struct pna_ib_model *m = &((const struct pna_ib_snap *)s)->model;

    /* devices: 3 rows in index order (length first: hfi1_0, mlx4_0, mlx5_0) */
    CHECK_U64(walk_column(&pna_rdma_device_metrics, mib_column("primusRdmaFirmware"), NULL), 3);
    CHECK_U64(walk_column(&pna_rdma_device_metrics, mib_column("primusRdmaNodeGuid"), NULL), 1); /* mlx5 only */
    CHECK_U64(walk_column(&pna_rdma_device_metrics, mib_column("primusRdmaNodeType"), NULL), 0); /* no node_type files */
    oid idx[80];
    struct pna_cell c;
    size_t n = pna_index_put_string(idx, 64, "mlx5_0");
    CHECK_INT(get_cell(&pna_rdma_device_metrics, mib_column("primusRdmaNodeGuid"), idx, n, &c), 0);
    CHECK(c.type == ASN_OCTET_STR && c.len == 19 && memcmp(c.str, "0a7f:bc12:45ef:d23b", 19) == 0);
    CHECK_INT(get_cell(&pna_rdma_device_metrics, mib_column("primusRdmaPortCount"), idx, n, &c), 0);
    CHECK_U64(c.u, 1);

    /* ports: 4, all ACTIVE(4) */
    state_cells = 0;
    CHECK_U64(walk_column(&pna_ib_port_metrics, mib_column("primusIbPortState"), count_state), 4);
    CHECK_U64(state_cells, 4);
    for (size_t i = 0; i < m->n_devices; i++)
        for (size_t p = 0; p < m->devices[i].n_ports; p++)
            check_port_counters(m->devices[i].name, &m->devices[i].ports[p]);
    n = port_idx("mlx5_0", 1, idx);
    CHECK_INT(get_cell(&pna_ib_port_metrics, mib_column("primusIbPortRate"), idx, n, &c), 0);
    CHECK_U64(c.u, 25000);
    CHECK_INT(get_cell(&pna_ib_port_metrics, mib_column("primusIbPortLinkLayer"), idx, n, &c), 0);
    CHECK_INT(c.i, 1); /* infiniband(1) */
    CHECK_INT(get_cell(&pna_ib_port_metrics, mib_column("primusIbPortStateText"), idx, n, &c), 0);
    CHECK(c.len == 9 && memcmp(c.str, "4: ACTIVE", 9) == 0);
    CHECK_INT(get_cell(&pna_ib_port_metrics, mib_column("primusIbPortRateInterval"), idx, n, &c), 0);
    CHECK_U64(c.u, 0);  /* one poll: no rates yet */
    CHECK_INT(get_cell(&pna_ib_port_metrics, mib_column("primusIbPortRxBytesPerSec"), idx, n, &c), -1);
    CHECK_INT(get_cell(&pna_ib_port_metrics, mib_column("primusIbPortCounterSource"), idx, n, &c), 0);
    CHECK_INT(c.i, 1); /* sysfs(1) */
    CHECK_INT(get_cell(&pna_ib_port_metrics, mib_column("primusIbPortSaturated"), idx, n, &c), 0);
    CHECK_U64(c.u, 0);

    /* congestion: only mlx5_0/1 has hw_counters */
    CHECK_U64(walk_column(&pna_roce_cong_metrics, mib_column("primusRoceAdpRetrans"), NULL), 1);
    CHECK_U64(walk_column(&pna_roce_cong_metrics, mib_column("primusRoceNpCnpSent"), NULL), 0);
    CHECK_INT(get_cell(&pna_roce_cong_metrics, mib_column("primusRoceLocalAckTimeoutErr"), idx, n, &c), 0);
    CHECK_U64(c.u, 131);

    /* hw counters: 24 of mlx5_0 port 1, none at device level */
    CHECK_U64(walk_column(&pna_hw_counter_metrics, mib_column("primusHwCounterValue"), NULL), 24);
    oid hidx[96];
    size_t hn = pna_index_put_string(hidx, 64, "mlx5_0");
    hidx[hn++] = 1;
    hn += pna_index_put_string(hidx + hn, 64, "rx_write_requests");
    CHECK_INT(get_cell(&pna_hw_counter_metrics, mib_column("primusHwCounterValue"), hidx, hn, &c), 0);
    CHECK_U64(c.u, 742114);
    CHECK_INT(get_cell(&pna_hw_counter_metrics, mib_column("primusHwCounterWraps32"), hidx, hn, &c), 0);
    CHECK_INT(c.i, 1); /* true: an mlx5 Q counter */
    hidx[hn - 1] = 'X'; /* no such counter */
    CHECK_INT(get_cell(&pna_hw_counter_metrics, mib_column("primusHwCounterValue"), hidx, hn, &c), -1);
    pna_snap_release(s);
}

static void test_ib_tables_node_exporter(void)
{
    CHECK(publish_ib_tree("ib-sysfs/node_exporter/sys"));
    oid idx[80];
    struct pna_cell c;
    size_t n = port_idx("mlx4_0", 1, idx);
    /* port_xmit_wait saturated: column 40 is bit 20 */
    CHECK_INT(get_cell(&pna_ib_port_metrics, mib_column("primusIbPortSaturated"), idx, n, &c), 0);
    CHECK_U64(c.u, UINT32_C(1) << 20);
    CHECK_INT(get_cell(&pna_ib_port_metrics, mib_column("primusIbPortCounterSource"), idx, n, &c), 0);
    CHECK_INT(c.i, 2); /* sysfsExt64(2) */
    CHECK_INT(get_cell(&pna_ib_port_metrics, mib_column("primusIbPortRcvData"), idx, n, &c), 0);
    CHECK_U64(c.u, UINT64_C(4631917) * 4);
    /* port_rcv_discards (column 41): the file says 0, and 0 is served */
    CHECK_INT(get_cell(&pna_ib_port_metrics, mib_column("primusIbPortRcvDiscards"), idx, n, &c), 0);
    CHECK_INT(c.type, ASN_COUNTER64);
    CHECK_U64(c.u, 0);
    CHECK_U64(walk_column(&pna_ib_port_metrics, mib_column("primusIbPortRcvDiscards"), NULL), 1); /* mlx4 p1 only */
    /* iWARP: every counter absent, state still there */
    n = port_idx("i40iw0", 1, idx);
    CHECK_INT(get_cell(&pna_ib_port_metrics, mib_column("primusIbPortSymbolErrors"), idx, n, &c), -1);
    CHECK_INT(get_cell(&pna_ib_port_metrics, mib_column("primusIbPortCounterSource"), idx, n, &c), -1);
    CHECK_INT(get_cell(&pna_ib_port_metrics, mib_column("primusIbPortState"), idx, n, &c), 0);
    CHECK_INT(c.i, 4);
    CHECK_U64(walk_column(&pna_ib_port_metrics, mib_column("primusIbPortXmitDiscards"), NULL), 1); /* mlx4 p1 */
    CHECK_U64(walk_column(&pna_ib_port_metrics, mib_column("primusIbPortMcastRcvPkts"), NULL), 2); /* mlx4 p1, p2 */
}

/* ---- PFC ---------------------------------------------------------------- */

static size_t load_stats(const char *rel, struct pna_eth_stat **out)
{
    char path[PATH_MAX], line[256];
    snprintf(path, sizeof path, "%s/%s", unit_fixtures(), rel);
    FILE *f = fopen(path, "r");
    size_t n = 0;
    struct pna_eth_stat *v = calloc(2048, sizeof *v);
    while (f && v && n < 2048 && fgets(line, sizeof line, f)) {
        char *s = line + strspn(line, " \t");
        char *colon = strstr(s, ": ");
        if (!colon || strncmp(s, "NIC statistics", 14) == 0 || colon - s > 32)
            continue;
        memcpy(v[n].name, s, (size_t)(colon - s));
        v[n].value = strtoull(colon + 2, NULL, 10);
        n++;
    }
    if (f)
        fclose(f);
    *out = v;
    return n;
}

static void test_pfc_tables(void)
{
    struct pna_pfc_snap *s = calloc(1, sizeof *s);
    s->model.ifs = calloc(2, sizeof *s->model.ifs);
    s->model.n_ifs = 2;
    struct pna_eth_stat *v;
    size_t n_mlx5 = load_stats("ethtool/ethq-mlx5_core-connectx4lx.txt", &v);
    pna_strlcpy(s->model.ifs[0].ifname, "enp1s0f0", sizeof s->model.ifs[0].ifname);
    pna_strlcpy(s->model.ifs[0].driver, "mlx5_core", sizeof s->model.ifs[0].driver);
    CHECK_INT(pna_pfc_fill(&s->model.ifs[0], v, n_mlx5), 0);
    free(v);
    size_t n_ionic = load_stats("ethtool/amd-ainic-ionic/ethtool_S_enp68s0.txt", &v);
    pna_strlcpy(s->model.ifs[1].ifname, "enp68s0", sizeof s->model.ifs[1].ifname);
    CHECK_INT(pna_pfc_fill(&s->model.ifs[1], v, n_ionic), 0);
    free(v);
    pna_pfc_model_index(&s->model);
    pna_snap_init(&s->base, free_pfc);
    pna_cache_publish(PNA_DOM_PFC, &s->base);

    /* the pause table: two rows */
    CHECK_U64(walk_column(&pna_pause_metrics, mib_column("primusPauseDriver"), NULL), 2);
    CHECK_U64(walk_column(&pna_pause_metrics, mib_column("primusPauseRxFrames"), NULL), 2);
    CHECK_U64(walk_column(&pna_pause_metrics, mib_column("primusPauseStormWarnings"), NULL), 0);
    CHECK_U64(walk_column(&pna_pause_metrics, mib_column("primusPauseRxRate"), NULL), 0); /* one poll */
    /* the PFC table: ionic has per-priority durations; mlx5 (global pause) none */
    CHECK_U64(walk_column(&pna_pfc_metrics, mib_column("primusPfcRxDuration"), NULL), 8);
    CHECK_U64(walk_column(&pna_pfc_metrics, mib_column("primusPfcRxFrames"), NULL), 0);

    /* every statistic exactly once: served by a named column, or generic */
    size_t generic = walk_column(&pna_ethtool_metrics, mib_column("primusEthtoolCounterValue"), NULL);
    /* Named: a column serves the statistic as it is.  mlx5: rx/tx_pause_ctrl_phy
     * (primusPauseRx/TxFrames), rx/tx_global_pause_duration,
     * rx_global_pause_transition, rx/tx_discards_phy, rx_out_of_buffer, and the
     * 32 rx/tx_prioN_bytes/packets; rx/tx_global_pause stay generic (the
     * physical-port count is the pause total).  ionic: frames_rx/tx_pripause,
     * rx_pause_1us_count, and the 32 frames_rx/tx_pri_N and
     * rx/tx_pripause_N_1us_count; frames_rx/tx_pause stay generic (they only
     * enter the pause total, with the PFC frames). */
    size_t named_mlx5 = 8 + 32;
    size_t named_ionic = 3 + 32;
    CHECK_U64(generic, n_mlx5 - named_mlx5 + n_ionic - named_ionic);
    /* rx_global_pause is generic on mlx5 (rx_pause_ctrl_phy takes the column) */
    oid idx[80];
    struct pna_cell c;
    size_t n = pna_index_put_string(idx, 40, "enp1s0f0");
    n += pna_index_put_string(idx + n, 40, "rx_global_pause");
    CHECK_INT(get_cell(&pna_ethtool_metrics, mib_column("primusEthtoolCounterValue"), idx, n, &c), 0);
    n = pna_index_put_string(idx, 40, "enp1s0f0");
    n += pna_index_put_string(idx + n, 40, "rx_pause_ctrl_phy");
    CHECK_INT(get_cell(&pna_ethtool_metrics, mib_column("primusEthtoolCounterValue"), idx, n, &c), -1);
    n = pna_index_put_string(idx, 40, "enp68s0");
    n += pna_index_put_string(idx + n, 40, "octets_rx_ok");
    CHECK_INT(get_cell(&pna_ethtool_metrics, mib_column("primusEthtoolCounterValue"), idx, n, &c), 0);
    CHECK_U64(c.u, UINT64_C(306471174847120));
}

int main(void)
{
    test_ib_tables_procfs();
    test_ib_tables_node_exporter();
    test_pfc_tables();
    pna_cache_clear();
    UNIT_END();
}
