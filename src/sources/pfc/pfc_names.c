/* sources/pfc/pfc_names.c -- driver statistic names to the pause/PFC model
 * (see pfc_names.h and model/pfc.h). */
#include "pna_autoconf.h"
#include "sources/pfc/pfc_names.h"

#include <stdlib.h>
#include <string.h>

/* Interface-wide names, exact match. */
static const struct {
    const char *name;
    enum pna_pfc_if_field field;
} if_names[] = {
    /* mlx5_core */
    { "rx_pause_ctrl_phy", PNA_PFC_RX_PAUSE_CTRL_PHY },
    { "tx_pause_ctrl_phy", PNA_PFC_TX_PAUSE_CTRL_PHY },
    { "rx_global_pause", PNA_PFC_RX_PAUSE },
    { "rx_global_pause_duration", PNA_PFC_RX_PAUSE_DURATION_US },
    { "rx_global_pause_transition", PNA_PFC_RX_PAUSE_TRANSITION },
    { "tx_global_pause", PNA_PFC_TX_PAUSE },
    { "tx_global_pause_duration", PNA_PFC_TX_PAUSE_DURATION_US },
    { "tx_pause_storm_warning_events", PNA_PFC_STORM_WARNING_EVENTS },
    { "tx_pause_storm_error_events", PNA_PFC_STORM_ERROR_EVENTS },
    { "rx_discards_phy", PNA_PFC_RX_DISCARDS_PHY },
    { "tx_discards_phy", PNA_PFC_TX_DISCARDS_PHY },
    { "rx_out_of_buffer", PNA_PFC_RX_OUT_OF_BUFFER },
    /* ionic */
    { "frames_rx_pause", PNA_PFC_RX_PAUSE },
    { "frames_tx_pause", PNA_PFC_TX_PAUSE },
    { "frames_rx_pripause", PNA_PFC_RX_PFC_FRAMES },
    { "frames_tx_pripause", PNA_PFC_TX_PFC_FRAMES },
    { "rx_pause_1us_count", PNA_PFC_RX_PAUSE_DURATION_US },
    { "tx_pause_1us_count", PNA_PFC_TX_PAUSE_DURATION_US },
};

/* Per-priority names: PREFIX, one digit 0-7, SUFFIX. */
static const struct {
    const char *prefix, *suffix;
    enum pna_pfc_prio_field field;
} prio_names[] = {
    /* mlx5_core */
    { "rx_prio", "_pause", PNA_PFCP_RX_PAUSE },
    { "rx_prio", "_pause_duration", PNA_PFCP_RX_PAUSE_DURATION_US },
    { "rx_prio", "_pause_transition", PNA_PFCP_RX_PAUSE_TRANSITION },
    { "tx_prio", "_pause", PNA_PFCP_TX_PAUSE },
    { "tx_prio", "_pause_duration", PNA_PFCP_TX_PAUSE_DURATION_US },
    { "rx_prio", "_bytes", PNA_PFCP_RX_BYTES },
    { "rx_prio", "_packets", PNA_PFCP_RX_PACKETS },
    { "tx_prio", "_bytes", PNA_PFCP_TX_BYTES },
    { "tx_prio", "_packets", PNA_PFCP_TX_PACKETS },
    { "rx_prio", "_discards", PNA_PFCP_RX_DISCARDS },
    /* ionic */
    { "frames_rx_pri_", "", PNA_PFCP_RX_PACKETS },
    { "frames_tx_pri_", "", PNA_PFCP_TX_PACKETS },
    { "rx_pripause_", "_1us_count", PNA_PFCP_RX_PAUSE_DURATION_US },
    { "tx_pripause_", "_1us_count", PNA_PFCP_TX_PAUSE_DURATION_US },
};

static bool match_prio(const char *name, const char *prefix, const char *suffix, int *prio)
{
    size_t plen = strlen(prefix);
    if (strncmp(name, prefix, plen) != 0)
        return false;
    char d = name[plen];
    if (d < '0' || d > '7')
        return false;
    if (strcmp(name + plen + 1, suffix) != 0)
        return false;
    *prio = d - '0';
    return true;
}

enum pna_pfc_map_kind pna_pfc_map_name(const char *name, struct pna_pfc_slot *slot)
{
    memset(slot, 0, sizeof *slot);
    for (size_t i = 0; i < sizeof if_names / sizeof if_names[0]; i++)
        if (strcmp(name, if_names[i].name) == 0) {
            slot->kind = PNA_PFC_MAP_IF;
            slot->field = (int)if_names[i].field;
            return slot->kind;
        }
    for (size_t i = 0; i < sizeof prio_names / sizeof prio_names[0]; i++) {
        int prio;
        if (match_prio(name, prio_names[i].prefix, prio_names[i].suffix, &prio)) {
            slot->kind = PNA_PFC_MAP_PRIO;
            slot->field = (int)prio_names[i].field;
            slot->prio = prio;
            return slot->kind;
        }
    }
    return PNA_PFC_MAP_NONE;
}

static struct pna_counter *slot_counter(struct pna_pfc_if *pif, const struct pna_pfc_slot *s)
{
    if (s->kind == PNA_PFC_MAP_IF)
        return &pif->f[s->field];
    if (s->kind == PNA_PFC_MAP_PRIO)
        return &pif->prio[s->prio][s->field];
    return NULL;
}

static int cmp_stat_ptr(const void *a, const void *b)
{
    const struct pna_eth_stat *x = *(const struct pna_eth_stat *const *)a;
    const struct pna_eth_stat *y = *(const struct pna_eth_stat *const *)b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x > y) - (x < y); /* equal names: earlier one first */
}

/* Flag in DUP every statistic whose name an earlier one already has. */
static int find_duplicates(const struct pna_eth_stat *stats, size_t n, bool *dup)
{
    if (n < 2)
        return 0;
    const struct pna_eth_stat **byname = malloc(n * sizeof *byname);
    if (!byname)
        return -1;
    for (size_t i = 0; i < n; i++)
        byname[i] = &stats[i];
    qsort(byname, n, sizeof *byname, cmp_stat_ptr);
    for (size_t i = 1; i < n; i++)
        if (strcmp(byname[i - 1]->name, byname[i]->name) == 0)
            dup[byname[i] - stats] = true;
    free(byname);
    return 0;
}

int pna_pfc_fill(struct pna_pfc_if *pif, const struct pna_eth_stat *stats, size_t n)
{
    struct pna_eth_stat *kept = n ? malloc(n * sizeof *kept) : NULL;
    bool *dup = n ? calloc(n, sizeof *dup) : NULL;
    if (n && (!kept || !dup || find_duplicates(stats, n, dup) != 0)) {
        free(kept);
        free(dup);
        return -1;
    }
    size_t n_kept = 0;
    pif->duplicates = 0;
    for (size_t i = 0; i < n; i++) {
        if (dup[i] || !stats[i].name[0]) {
            pif->duplicates += dup[i];
            continue;
        }
        struct pna_eth_stat *k = &kept[n_kept++];
        *k = stats[i];
        k->map_kind = k->map_field = k->map_prio = 0;
        struct pna_pfc_slot slot;
        pna_pfc_map_name(k->name, &slot);
        struct pna_counter *c = slot_counter(pif, &slot);
        if (c && !c->present) {
            c->value = k->value;
            c->present = true;
            k->map_kind = (uint8_t)slot.kind;
            k->map_field = (uint8_t)slot.field;
            k->map_prio = (uint8_t)slot.prio;
        }
    }
    free(dup);
    free(pif->stats);
    pif->stats = kept;
    pif->n_stats = n_kept;
    return 0;
}
