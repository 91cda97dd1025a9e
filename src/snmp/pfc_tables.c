/* snmp/pfc_tables.c -- primusPfc: primusPauseTable (global pause per interface),
 * primusPfcTable (per interface and priority) and primusEthtoolCounterTable
 * (every other ethtool statistic under the driver's name), answered from the
 * PFC snapshot (struct pna_pfc_snap, model/pfc.h).
 *
 * A statistic appears in exactly one place: in a named column when one takes
 * it, otherwise in primusEthtoolCounterTable.  Counters a driver does not offer
 * are absent cells.  Main thread only (net-snmp). */
#include "pna_autoconf.h"
#include "snmp/rdma_tables.h"

#include <string.h>

#include "core/cache.h"
#include "sources/pfc/pfc_names.h"
#include "model/pfc.h"
#include "snmp/oids.h"
#include "snmp/table.h"

#define MAX_IFNAME 15      /* primusPfcIfName SIZE (1..15) */
#define MAX_STAT_NAME 32   /* primusEthtoolCounterName SIZE (1..32) */

static const struct pna_pfc_model *model_of(const void *ctx)
{
    return ctx ? &((const struct pna_pfc_snap *)ctx)->m : NULL;
}

static bool ifname_ok(const char *name)
{
    size_t n = strlen(name);
    return n >= 1 && n <= MAX_IFNAME;
}

static uint32_t clamp_u32(uint64_t v)
{
    return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

static int counter_cell(const struct pna_counter *c, struct pna_cell *out)
{
    return c->present ? pna_cell_counter64(out, c->value) : PNA_CELL_ABSENT;
}

/* Global pause frames: the physical-port count where the driver has one
 * (mlx5 rx/tx_pause_ctrl_phy), else its global pause count (ionic). */
static const struct pna_counter *pause_frames(const struct pna_pfc_if *pif, bool tx)
{
    const struct pna_counter *phy = &pif->f[tx ? PNA_PFC_TX_PAUSE_CTRL_PHY : PNA_PFC_RX_PAUSE_CTRL_PHY];
    return phy->present ? phy : &pif->f[tx ? PNA_PFC_TX_PAUSE : PNA_PFC_RX_PAUSE];
}

/* ---- primusPauseTable --------------------------------------------------- */

static size_t pause_rows(const void *ctx)
{
    const struct pna_pfc_model *m = model_of(ctx);
    return m ? m->n_ifs : 0;
}

static size_t pause_index(const void *ctx, size_t row, oid *idx)
{
    const char *name = model_of(ctx)->ifs[row].ifname;
    if (!ifname_ok(name)) {
        idx[0] = 0; /* not indexable: the impossible empty name, no cells */
        return 1;
    }
    return pna_index_put_string(idx, PNA_MAX_INDEX_LEN, name);
}

static int pause_cell(const void *ctx, size_t row, unsigned col, struct pna_cell *out)
{
    const struct pna_pfc_if *pif = &model_of(ctx)->ifs[row];
    if (!ifname_ok(pif->ifname))
        return PNA_CELL_ABSENT;
    switch (col) {
    case PNA_COL_PAUSE_IF_INDEX: return pna_cell_int(out, pif->ifindex > 0 ? pif->ifindex : 0);
    case PNA_COL_PAUSE_RDMA_DEVICE: return pna_cell_str(out, pif->rdma_device);
    case PNA_COL_PAUSE_RDMA_PORT: return pna_cell_u32(out, pif->rdma_port);
    case PNA_COL_PAUSE_DRIVER: return pna_cell_str(out, pif->driver);
    case PNA_COL_PAUSE_RX_FRAMES: return counter_cell(pause_frames(pif, false), out);
    case PNA_COL_PAUSE_TX_FRAMES: return counter_cell(pause_frames(pif, true), out);
    case PNA_COL_PAUSE_RX_DURATION: return counter_cell(&pif->f[PNA_PFC_RX_PAUSE_DURATION_US], out);
    case PNA_COL_PAUSE_TX_DURATION: return counter_cell(&pif->f[PNA_PFC_TX_PAUSE_DURATION_US], out);
    case PNA_COL_PAUSE_RX_TRANSITIONS: return counter_cell(&pif->f[PNA_PFC_RX_PAUSE_TRANSITION], out);
    case PNA_COL_PAUSE_STORM_WARNINGS: return counter_cell(&pif->f[PNA_PFC_STORM_WARNING_EVENTS], out);
    case PNA_COL_PAUSE_STORM_ERRORS: return counter_cell(&pif->f[PNA_PFC_STORM_ERROR_EVENTS], out);
    case PNA_COL_PAUSE_RX_DISCARDS_PHY: return counter_cell(&pif->f[PNA_PFC_RX_DISCARDS_PHY], out);
    case PNA_COL_PAUSE_RX_RATE:
        return pif->rates_valid ? pna_cell_u32(out, clamp_u32(pif->rx_pause_per_s)) : PNA_CELL_ABSENT;
    case PNA_COL_PAUSE_TX_RATE:
        return pif->rates_valid ? pna_cell_u32(out, clamp_u32(pif->tx_pause_per_s)) : PNA_CELL_ABSENT;
    }
    return PNA_CELL_ABSENT; /* primusPauseTxTransitions: no known driver counts it */
}

/* ---- primusPfcTable ----------------------------------------------------- */

/* Rows: every interface times priorities 0-7; a priority without any pause
 * counter has no cells and so no row. */
static size_t pfc_rows(const void *ctx)
{
    const struct pna_pfc_model *m = model_of(ctx);
    return m ? m->n_ifs * PNA_PFC_PRIOS : 0;
}

static size_t pfc_index(const void *ctx, size_t row, oid *idx)
{
    const char *name = model_of(ctx)->ifs[row / PNA_PFC_PRIOS].ifname;
    if (!ifname_ok(name)) {
        idx[0] = 0;
        idx[1] = row % PNA_PFC_PRIOS;
        return 2;
    }
    size_t n = pna_index_put_string(idx, PNA_MAX_INDEX_LEN - 1, name);
    idx[n] = row % PNA_PFC_PRIOS;
    return n + 1;
}

static int pfc_cell(const void *ctx, size_t row, unsigned col, struct pna_cell *out)
{
    const struct pna_pfc_if *pif = &model_of(ctx)->ifs[row / PNA_PFC_PRIOS];
    int p = (int)(row % PNA_PFC_PRIOS);
    const struct pna_counter *c = pif->prio[p];
    if (!ifname_ok(pif->ifname))
        return PNA_CELL_ABSENT;
    switch (col) {
    case PNA_COL_PFC_RX_FRAMES: return counter_cell(&c[PNA_PFCP_RX_PAUSE], out);
    case PNA_COL_PFC_TX_FRAMES: return counter_cell(&c[PNA_PFCP_TX_PAUSE], out);
    case PNA_COL_PFC_RX_DURATION: return counter_cell(&c[PNA_PFCP_RX_PAUSE_DURATION_US], out);
    case PNA_COL_PFC_TX_DURATION: return counter_cell(&c[PNA_PFCP_TX_PAUSE_DURATION_US], out);
    case PNA_COL_PFC_RX_TRANSITIONS: return counter_cell(&c[PNA_PFCP_RX_PAUSE_TRANSITION], out);
    case PNA_COL_PFC_RX_RATE:
        return pif->rates_valid && c[PNA_PFCP_RX_PAUSE].present
                   ? pna_cell_u32(out, clamp_u32(pif->prio_rx_pause_per_s[p]))
                   : PNA_CELL_ABSENT;
    case PNA_COL_PFC_TX_RATE:
        return pif->rates_valid && c[PNA_PFCP_TX_PAUSE].present
                   ? pna_cell_u32(out, clamp_u32(pif->prio_tx_pause_per_s[p]))
                   : PNA_CELL_ABSENT;
    }
    return PNA_CELL_ABSENT; /* primusPfcTxTransitions: no known driver counts it */
}

/* ---- primusEthtoolCounterTable ------------------------------------------ */

/* True when a named column above serves statistic S of PIF. */
static bool served_by_column(const struct pna_pfc_if *pif, const struct pna_eth_stat *s)
{
    if (s->map_kind == PNA_PFC_MAP_PRIO) {
        switch (s->map_field) {
        case PNA_PFCP_RX_PAUSE:
        case PNA_PFCP_TX_PAUSE:
        case PNA_PFCP_RX_PAUSE_DURATION_US:
        case PNA_PFCP_TX_PAUSE_DURATION_US:
        case PNA_PFCP_RX_PAUSE_TRANSITION:
            return true;
        }
        return false; /* per-priority traffic and discards */
    }
    if (s->map_kind != PNA_PFC_MAP_IF)
        return false;
    switch (s->map_field) {
    case PNA_PFC_RX_PAUSE_CTRL_PHY:
    case PNA_PFC_TX_PAUSE_CTRL_PHY:
    case PNA_PFC_RX_PAUSE_DURATION_US:
    case PNA_PFC_TX_PAUSE_DURATION_US:
    case PNA_PFC_RX_PAUSE_TRANSITION:
    case PNA_PFC_STORM_WARNING_EVENTS:
    case PNA_PFC_STORM_ERROR_EVENTS:
    case PNA_PFC_RX_DISCARDS_PHY:
        return true;
    case PNA_PFC_RX_PAUSE:
        return pause_frames(pif, false) == &pif->f[PNA_PFC_RX_PAUSE];
    case PNA_PFC_TX_PAUSE:
        return pause_frames(pif, true) == &pif->f[PNA_PFC_TX_PAUSE];
    }
    return false; /* PFC totals, tx discards, rx_out_of_buffer */
}

static size_t ethtool_rows(const void *ctx)
{
    const struct pna_pfc_model *m = model_of(ctx);
    return m ? m->total_stats : 0;
}

/* Row ROW of the flat statistics list: binary search on first_stat. */
static bool stat_at(const struct pna_pfc_model *m, size_t row, const struct pna_pfc_if **pif,
                    const struct pna_eth_stat **s)
{
    size_t lo = 0, hi = m->n_ifs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const struct pna_pfc_if *x = &m->ifs[mid];
        if (row < x->first_stat)
            hi = mid;
        else if (row >= x->first_stat + x->n_stats)
            lo = mid + 1;
        else {
            *pif = x;
            *s = &x->stats[row - x->first_stat];
            return true;
        }
    }
    return false;
}

static bool stat_indexable(const struct pna_pfc_if *pif, const struct pna_eth_stat *s)
{
    size_t n = strlen(s->name);
    return ifname_ok(pif->ifname) && n >= 1 && n <= MAX_STAT_NAME;
}

static size_t ethtool_index(const void *ctx, size_t row, oid *idx)
{
    const struct pna_pfc_if *pif;
    const struct pna_eth_stat *s;
    if (!stat_at(model_of(ctx), row, &pif, &s) || !stat_indexable(pif, s)) {
        idx[0] = idx[1] = 0;
        return 2;
    }
    size_t n = pna_index_put_string(idx, PNA_MAX_INDEX_LEN, pif->ifname);
    return n + pna_index_put_string(idx + n, PNA_MAX_INDEX_LEN - n, s->name);
}

static int ethtool_cell(const void *ctx, size_t row, unsigned col, struct pna_cell *out)
{
    const struct pna_pfc_if *pif;
    const struct pna_eth_stat *s;
    if (col != PNA_COL_ETHTOOL_COUNTER_VALUE || !stat_at(model_of(ctx), row, &pif, &s) ||
        !stat_indexable(pif, s) || served_by_column(pif, s))
        return PNA_CELL_ABSENT;
    return pna_cell_counter64(out, s->value);
}

/* ---- registration ------------------------------------------------------- */

static const oid pause_table_oid[] = { PNA_OID_PAUSE_TABLE };
static const oid pfc_table_oid[] = { PNA_OID_PFC_TABLE };
static const oid ethtool_table_oid[] = { PNA_OID_ETHTOOL_COUNTER_TABLE };

const struct pna_table_def pna_pause_table = {
    .name = "primusPauseTable",
    .table_oid = pause_table_oid,
    .table_oid_len = OID_LENGTH(pause_table_oid),
    .domain = PNA_DOM_PFC,
    .min_col = PNA_COL_PAUSE_IF_INDEX,
    .max_col = PNA_COL_PAUSE_TX_RATE,
    .row_count = pause_rows,
    .row_index = pause_index,
    .get_cell = pause_cell,
};

const struct pna_table_def pna_pfc_table = {
    .name = "primusPfcTable",
    .table_oid = pfc_table_oid,
    .table_oid_len = OID_LENGTH(pfc_table_oid),
    .domain = PNA_DOM_PFC,
    .min_col = PNA_COL_PFC_RX_FRAMES,
    .max_col = PNA_COL_PFC_TX_RATE,
    .row_count = pfc_rows,
    .row_index = pfc_index,
    .get_cell = pfc_cell,
};

const struct pna_table_def pna_ethtool_counter_table = {
    .name = "primusEthtoolCounterTable",
    .table_oid = ethtool_table_oid,
    .table_oid_len = OID_LENGTH(ethtool_table_oid),
    .domain = PNA_DOM_PFC,
    .min_col = PNA_COL_ETHTOOL_COUNTER_VALUE,
    .max_col = PNA_COL_ETHTOOL_COUNTER_VALUE,
    .row_count = ethtool_rows,
    .row_index = ethtool_index,
    .get_cell = ethtool_cell,
};

void pna_pfc_tables_register(void)
{
    pna_table_register(&pna_pause_table);
    pna_table_register(&pna_pfc_table);
    pna_table_register(&pna_ethtool_counter_table);
}
