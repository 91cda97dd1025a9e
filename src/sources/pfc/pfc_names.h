/* sources/pfc/pfc_names.h -- which driver statistic is which pause/PFC counter.
 *
 * ethtool statistic names belong to each driver.  Known names are mapped onto
 * the fields of model/pfc.h; everything else is kept under its own name in the
 * interface's generic list.  Known today:
 *  - mlx5_core (kernel Documentation/networking/device_drivers/ethernet/
 *    mellanox/mlx5/counters.rst): rx/tx_pause_ctrl_phy, rx/tx_global_pause,
 *    *_global_pause_duration (us), rx_global_pause_transition,
 *    rx/tx_prioN_pause, *_prioN_pause_duration (us), rx_prioN_pause_transition,
 *    rx/tx_prioN_bytes|packets, rx_prioN_discards, tx_pause_storm_warning_events,
 *    tx_pause_storm_error_events, rx/tx_discards_phy, rx_out_of_buffer;
 *  - ionic (AMD Pensando): frames_rx/tx_pause, frames_rx/tx_pripause (PFC frames,
 *    all priorities), frames_rx/tx_pri_N (traffic on priority N),
 *    rx/tx_pripause_N_1us_count and rx/tx_pause_1us_count (pause time, us). */
#ifndef PNA_SOURCES_PFC_NAMES_H
#define PNA_SOURCES_PFC_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/pfc.h"

/* Where one statistic goes (enum pna_pfc_map_kind is in model/pfc.h: the
 * model keeps each statistic's mapping). */
struct pna_pfc_slot {
    enum pna_pfc_map_kind kind;
    int field;
    int prio;
};

/* Where statistic NAME goes; returns SLOT->kind. */
enum pna_pfc_map_kind pna_pfc_map_name(const char *name, struct pna_pfc_slot *slot);

/* Fill PIF's counters from N statistics mapped with pna_pfc_map_name(), and
 * keep all of them in PIF->stats with their mapping noted.  A statistic whose
 * slot an earlier one already filled stays unmapped; one whose name repeats an
 * earlier name is dropped (names index the generic table) and counted in
 * PIF->duplicates.  Returns 0, or -1 when memory runs out. */
int pna_pfc_fill(struct pna_pfc_if *pif, const struct pna_eth_stat *stats, size_t n);

#endif
