/* model/pfc.c -- the rules of the pause/PFC model (see model/pfc.h): column
 * names, pause-frame totals, rates and storm detection between two polls, and
 * the model's upkeep (freeing, numbering the statistics, finding an
 * interface). */
#include "pna_autoconf.h"
#include "model/pfc.h"
#include "model/counter.h"

#include <stdlib.h>
#include <string.h>

const char *const pna_pfc_if_field_names[PNA_PFC_IF_COUNT] = {
    [PNA_PFC_RX_PAUSE] = "rx_pause",
    [PNA_PFC_RX_PAUSE_DURATION_US] = "rx_pause_duration_us",
    [PNA_PFC_RX_PAUSE_TRANSITION] = "rx_pause_transition",
    [PNA_PFC_TX_PAUSE] = "tx_pause",
    [PNA_PFC_TX_PAUSE_DURATION_US] = "tx_pause_duration_us",
    [PNA_PFC_RX_PAUSE_CTRL_PHY] = "rx_pause_ctrl_phy",
    [PNA_PFC_TX_PAUSE_CTRL_PHY] = "tx_pause_ctrl_phy",
    [PNA_PFC_RX_PFC_FRAMES] = "rx_pfc_frames",
    [PNA_PFC_TX_PFC_FRAMES] = "tx_pfc_frames",
    [PNA_PFC_STORM_WARNING_EVENTS] = "pause_storm_warning_events",
    [PNA_PFC_STORM_ERROR_EVENTS] = "pause_storm_error_events",
    [PNA_PFC_RX_DISCARDS_PHY] = "rx_discards_phy",
    [PNA_PFC_TX_DISCARDS_PHY] = "tx_discards_phy",
    [PNA_PFC_RX_OUT_OF_BUFFER] = "rx_out_of_buffer",
};

const char *const pna_pfc_prio_field_names[PNA_PFCP_COUNT] = {
    [PNA_PFCP_RX_PAUSE] = "rx_pause",
    [PNA_PFCP_RX_PAUSE_DURATION_US] = "rx_pause_duration_us",
    [PNA_PFCP_RX_PAUSE_TRANSITION] = "rx_pause_transition",
    [PNA_PFCP_TX_PAUSE] = "tx_pause",
    [PNA_PFCP_TX_PAUSE_DURATION_US] = "tx_pause_duration_us",
    [PNA_PFCP_RX_BYTES] = "rx_bytes",
    [PNA_PFCP_RX_PACKETS] = "rx_packets",
    [PNA_PFCP_TX_BYTES] = "tx_bytes",
    [PNA_PFCP_TX_PACKETS] = "tx_packets",
    [PNA_PFCP_RX_DISCARDS] = "rx_discards",
};

static bool sum_prio(const struct pna_pfc_if *pif, int field, uint64_t *sum)
{
    bool any = false;
    *sum = 0;
    for (int p = 0; p < PNA_PFC_PRIOS; p++)
        if (pif->prio[p][field].present) {
            *sum += pif->prio[p][field].value;
            any = true;
        }
    return any;
}

enum pna_pause_source pna_pfc_pause_frames(const struct pna_pfc_if *pif, bool tx,
                                           uint64_t *frames)
{
    const struct pna_counter *phy = &pif->f[tx ? PNA_PFC_TX_PAUSE_CTRL_PHY : PNA_PFC_RX_PAUSE_CTRL_PHY];
    const struct pna_counter *global = &pif->f[tx ? PNA_PFC_TX_PAUSE : PNA_PFC_RX_PAUSE];
    const struct pna_counter *pfc = &pif->f[tx ? PNA_PFC_TX_PFC_FRAMES : PNA_PFC_RX_PFC_FRAMES];
    if (phy->present) {
        *frames = phy->value;
        return PNA_PAUSE_FROM_PHY;
    }
    uint64_t prio_sum = 0;
    bool have_prio = pfc->present ? false : sum_prio(pif, tx ? PNA_PFCP_TX_PAUSE : PNA_PFCP_RX_PAUSE,
                                                     &prio_sum);
    if (!global->present && !pfc->present && !have_prio)
        return PNA_PAUSE_FROM_NONE;
    *frames = (global->present ? global->value : 0) + (pfc->present ? pfc->value : prio_sum);
    return pfc->present || have_prio ? PNA_PAUSE_FROM_SUM : PNA_PAUSE_FROM_GLOBAL;
}

bool pna_pfc_prio_counted(const struct pna_pfc_if *pif, int prio)
{
    for (int f = 0; f < PNA_PFCP_COUNT; f++)
        if (pif->prio[prio][f].present)
            return true;
    return false;
}

bool pna_pfc_stat_at(const struct pna_pfc_model *m, size_t row, const struct pna_pfc_if **pif,
                     const struct pna_eth_stat **s)
{
    size_t lo = 0, hi = m ? m->n_ifs : 0;
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

/* The global count is the pause total's only part when neither a physical
 * total nor any PFC count exists (model/pfc_metrics.c reads the rest). */
static bool global_is_total(const struct pna_pfc_if *pif, bool tx)
{
    uint64_t frames;
    return pna_pfc_pause_frames(pif, tx, &frames) == PNA_PAUSE_FROM_GLOBAL;
}

bool pna_pfc_stat_has_column(const struct pna_pfc_if *pif, const struct pna_eth_stat *s)
{
    if (s->map_kind == PNA_PFC_MAP_PRIO)
        return true;                /* every priority field is a primusPfcTable column */
    if (s->map_kind != PNA_PFC_MAP_IF)
        return false;
    switch ((enum pna_pfc_if_field)s->map_field) {
    case PNA_PFC_RX_PAUSE: return global_is_total(pif, false);
    case PNA_PFC_TX_PAUSE: return global_is_total(pif, true);
    case PNA_PFC_RX_PAUSE_CTRL_PHY:
    case PNA_PFC_TX_PAUSE_CTRL_PHY: return true;   /* primusPauseRx/TxFrames when present */
    case PNA_PFC_RX_PAUSE_DURATION_US:
    case PNA_PFC_TX_PAUSE_DURATION_US:
    case PNA_PFC_RX_PAUSE_TRANSITION:
    case PNA_PFC_RX_PFC_FRAMES:
    case PNA_PFC_TX_PFC_FRAMES:
    case PNA_PFC_STORM_WARNING_EVENTS:
    case PNA_PFC_STORM_ERROR_EVENTS:
    case PNA_PFC_RX_DISCARDS_PHY:
    case PNA_PFC_TX_DISCARDS_PHY:
    case PNA_PFC_RX_OUT_OF_BUFFER: return true;
    case PNA_PFC_IF_COUNT: break;
    }
    return false;
}

static uint64_t counter_increase(const struct pna_counter *cur, const struct pna_counter *prev)
{
    return cur->present && prev->present ? pna_counter_delta(prev->value, cur->value) : 0;
}

/* The priority whose pause frames (both directions) grew most, or -1. */
static int busiest_prio(const struct pna_pfc_if *cur, const struct pna_pfc_if *prev)
{
    int best = -1;
    uint64_t best_delta = 0;
    for (int p = 0; p < PNA_PFC_PRIOS; p++) {
        uint64_t d = counter_increase(&cur->prio[p][PNA_PFCP_RX_PAUSE], &prev->prio[p][PNA_PFCP_RX_PAUSE]) +
                     counter_increase(&cur->prio[p][PNA_PFCP_TX_PAUSE], &prev->prio[p][PNA_PFCP_TX_PAUSE]);
        if (d > best_delta) {
            best_delta = d;
            best = p;
        }
    }
    return best;
}

uint64_t pna_pfc_peak_rate(const struct pna_pfc_if *cur, int *prio)
{
    uint64_t peak = cur->rx_pause_per_s > cur->tx_pause_per_s ? cur->rx_pause_per_s
                                                               : cur->tx_pause_per_s;
    *prio = -1;
    for (int p = 0; p < PNA_PFC_PRIOS; p++) {
        uint64_t r = cur->prio_rx_pause_per_s[p] > cur->prio_tx_pause_per_s[p]
                         ? cur->prio_rx_pause_per_s[p] : cur->prio_tx_pause_per_s[p];
        if (r > peak) {
            peak = r;
            *prio = p;
        }
    }
    return peak;
}

void pna_pfc_derive(struct pna_pfc_if *cur, const struct pna_pfc_if *prev, int64_t interval_ms,
                    uint64_t storm_pps)
{
    cur->rates_valid = false;
    cur->rx_pause_per_s = cur->tx_pause_per_s = 0;
    memset(cur->prio_rx_pause_per_s, 0, sizeof cur->prio_rx_pause_per_s);
    memset(cur->prio_tx_pause_per_s, 0, sizeof cur->prio_tx_pause_per_s);
    cur->storm_prio = -1;
    cur->storm = false;
    if (!prev || interval_ms <= 0)
        return;
    uint64_t rx_now, rx_then, tx_now, tx_then;
    bool have_rx = pna_pfc_pause_frames(cur, false, &rx_now) != PNA_PAUSE_FROM_NONE &&
                   pna_pfc_pause_frames(prev, false, &rx_then) != PNA_PAUSE_FROM_NONE;
    bool have_tx = pna_pfc_pause_frames(cur, true, &tx_now) != PNA_PAUSE_FROM_NONE &&
                   pna_pfc_pause_frames(prev, true, &tx_then) != PNA_PAUSE_FROM_NONE;
    if (have_rx)
        cur->rx_pause_per_s = pna_counter_rate(pna_counter_delta(rx_then, rx_now), interval_ms, 1);
    if (have_tx)
        cur->tx_pause_per_s = pna_counter_rate(pna_counter_delta(tx_then, tx_now), interval_ms, 1);
    cur->rates_valid = have_rx || have_tx;
    for (int p = 0; p < PNA_PFC_PRIOS; p++) {
        cur->prio_rx_pause_per_s[p] = pna_counter_rate(
            counter_increase(&cur->prio[p][PNA_PFCP_RX_PAUSE], &prev->prio[p][PNA_PFCP_RX_PAUSE]),
            interval_ms, 1);
        cur->prio_tx_pause_per_s[p] = pna_counter_rate(
            counter_increase(&cur->prio[p][PNA_PFCP_TX_PAUSE], &prev->prio[p][PNA_PFCP_TX_PAUSE]),
            interval_ms, 1);
    }
    cur->storm_prio = busiest_prio(cur, prev);
    /* A priority's own rate counts too: where the physical-port total (mlx5
     * rx_pause_ctrl_phy) holds PFC frames it is never the larger, and where a
     * firmware left them out a PFC storm is still seen. */
    int fastest_prio;
    bool rate_storm = storm_pps > 0 && pna_pfc_peak_rate(cur, &fastest_prio) > storm_pps;
    bool event_storm =
        counter_increase(&cur->f[PNA_PFC_STORM_WARNING_EVENTS], &prev->f[PNA_PFC_STORM_WARNING_EVENTS]) > 0 ||
        counter_increase(&cur->f[PNA_PFC_STORM_ERROR_EVENTS], &prev->f[PNA_PFC_STORM_ERROR_EVENTS]) > 0;
    cur->storm = rate_storm || event_storm;
}

void pna_pfc_if_clear(struct pna_pfc_if *pif)
{
    free(pif->stats);
    pif->stats = NULL;
    pif->n_stats = 0;
    memset(pif->f, 0, sizeof pif->f);
    memset(pif->prio, 0, sizeof pif->prio);
}

void pna_pfc_model_free(struct pna_pfc_model *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->n_ifs; i++)
        free(m->ifs[i].stats);
    free(m->ifs);
    m->ifs = NULL;
    m->n_ifs = 0;
    m->total_stats = 0;
}

void pna_pfc_model_index(struct pna_pfc_model *m)
{
    size_t at = 0;
    for (size_t i = 0; i < m->n_ifs; i++) {
        m->ifs[i].first_stat = at;
        at += m->ifs[i].n_stats;
    }
    m->total_stats = at;
}

const struct pna_pfc_if *pna_pfc_find_if(const struct pna_pfc_model *m, const char *ifname)
{
    size_t lo = 0, hi = m ? m->n_ifs : 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(ifname, m->ifs[mid].ifname);
        if (c == 0)
            return &m->ifs[mid];
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}
