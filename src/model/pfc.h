/* model/pfc.h -- the pause / PFC model: per Ethernet interface, IEEE 802.3x global
 * pause and 802.1Qbb per-priority (0-7) flow-control counters, plus every
 * other ethtool statistic the driver offers, kept under its own name.
 *
 * Filled from the kernel's ethtool statistics (src/sources/pfc/ethtool.c)
 * through the driver-specific name mapping of src/sources/pfc/pfc_names.c;
 * completed by the rules of src/model/pfc.c; read by the SNMP and HTTP front
 * ends.  Plain data.
 *
 * Ordering invariants: interfaces ascend by name (strcmp); each interface's
 * statistics keep the driver's own order (the ethtool string-set order, stable
 * for a given driver and firmware), and their names are unique within it. */
#ifndef PNA_MODEL_PFC_H
#define PNA_MODEL_PFC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/cache.h"
#include "model/counter.h"   /* struct pna_counter */
#include "model/lossless/lossless.h"

#define PNA_PFC_PRIOS 8

/* Interface-wide counters. */
enum pna_pfc_if_field {
    PNA_PFC_RX_PAUSE,               /* global (802.3x) pause frames received */
    PNA_PFC_RX_PAUSE_DURATION_US,   /* time the peer held our transmitter paused, us */
    PNA_PFC_RX_PAUSE_TRANSITION,    /* XOFF -> XON transitions of received global pause */
    PNA_PFC_TX_PAUSE,               /* global pause frames sent */
    PNA_PFC_TX_PAUSE_DURATION_US,   /* time we asked the peer to pause, us */
    PNA_PFC_RX_PAUSE_CTRL_PHY,      /* all link-level pause frames received (global + PFC) */
    PNA_PFC_TX_PAUSE_CTRL_PHY,      /* all link-level pause frames sent */
    PNA_PFC_RX_PFC_FRAMES,          /* PFC frames received, all priorities together */
    PNA_PFC_TX_PFC_FRAMES,          /* PFC frames sent, all priorities together */
    PNA_PFC_STORM_WARNING_EVENTS,   /* device stalled past the warning watermark */
    PNA_PFC_STORM_ERROR_EVENTS,     /* stalled past the timeout: pause sending was disabled */
    PNA_PFC_RX_DISCARDS_PHY,        /* packets the physical port dropped on receive */
    PNA_PFC_TX_DISCARDS_PHY,
    PNA_PFC_RX_OUT_OF_BUFFER,       /* packets dropped for lack of receive buffers */
    PNA_PFC_IF_COUNT
};

/* Per-priority counters. */
enum pna_pfc_prio_field {
    PNA_PFCP_RX_PAUSE,              /* PFC frames received for this priority */
    PNA_PFCP_RX_PAUSE_DURATION_US,
    PNA_PFCP_RX_PAUSE_TRANSITION,
    PNA_PFCP_TX_PAUSE,              /* PFC frames sent for this priority */
    PNA_PFCP_TX_PAUSE_DURATION_US,
    PNA_PFCP_RX_BYTES,              /* traffic on this priority */
    PNA_PFCP_RX_PACKETS,
    PNA_PFCP_TX_BYTES,
    PNA_PFCP_TX_PACKETS,
    PNA_PFCP_RX_DISCARDS,
    PNA_PFCP_COUNT
};

/* Column names, in enum order (for logs, JSON, Prometheus labels). */
extern const char *const pna_pfc_if_field_names[PNA_PFC_IF_COUNT];
extern const char *const pna_pfc_prio_field_names[PNA_PFCP_COUNT];

/* Which field of the model a driver statistic fills (the mapping itself is
 * sources/pfc/pfc_names.c). */
enum pna_pfc_map_kind {
    PNA_PFC_MAP_NONE = 0,   /* not a pause/PFC counter we know: generic list */
    PNA_PFC_MAP_IF = 1,     /* the field is an enum pna_pfc_if_field */
    PNA_PFC_MAP_PRIO = 2,   /* the field is an enum pna_pfc_prio_field, for priority 0..7 */
};

/* One driver statistic.  MAP_* say which field above it fills (kind: enum
 * pna_pfc_map_kind). */
struct pna_eth_stat {
    char name[33];                  /* ETH_GSTRING_LEN (32) octets, not always NUL-ended, + NUL */
    uint8_t map_kind, map_field, map_prio;
    uint64_t value;
};

struct pna_pfc_if {
    char ifname[32];
    int32_t ifindex;                /* IF-MIB ifIndex, 0 unknown */
    char driver[32];                /* "mlx5_core", "ionic", "veth"... */

    struct pna_counter f[PNA_PFC_IF_COUNT];
    struct pna_counter prio[PNA_PFC_PRIOS][PNA_PFCP_COUNT];
    struct pna_eth_stat *stats;     /* every statistic, mapped or not, driver order */
    size_t n_stats;
    uint32_t duplicates;            /* statistics dropped for repeating an earlier name */
    size_t first_stat;              /* position of stats[0] in the model's flat list */

    /* Over the last interval (VALID false on the first poll of the interface). */
    bool rates_valid;
    uint64_t rx_pause_per_s;        /* pause frames received per second, global + PFC */
    uint64_t tx_pause_per_s;        /* pause frames sent per second, global + PFC */
    uint64_t prio_rx_pause_per_s[PNA_PFC_PRIOS]; /* PFC frames per second, per priority */
    uint64_t prio_tx_pause_per_s[PNA_PFC_PRIOS];
    int32_t storm_prio;             /* priority with the highest pause rate, -1 global */
    bool storm;                     /* pause storm seen in this interval */
    char error[160];                /* why the statistics could not be read, or "" */

    struct pna_lossless_if lossless;    /* its lossless-RoCE configuration and verdict */
};

struct pna_pfc_model {
    int64_t sample_mono_ms;
    struct pna_pfc_if *ifs;         /* sorted by ifname */
    size_t n_ifs;
    size_t total_stats;             /* sum of n_stats: length of the flat statistics list */
    struct pna_lossless_node lossless;  /* the node's verdict over the interfaces */
    char lldp_error[160];           /* why lldpd could not be asked, or "" */
};

/* The PFC domain's snapshot in the cache (PNA_DOM_PFC). */
struct pna_pfc_snap {
    struct pna_snap base;           /* first */
    struct pna_pfc_model model;     /* what the poll found */
};

/* src/model/pfc.c */
void pna_pfc_model_free(struct pna_pfc_model *m);
void pna_pfc_if_clear(struct pna_pfc_if *pif);   /* frees STATS, zeroes counters */
/* Number the statistics of all interfaces as one list (first_stat, total_stats). */
void pna_pfc_model_index(struct pna_pfc_model *m);
const struct pna_pfc_if *pna_pfc_find_if(const struct pna_pfc_model *m, const char *ifname);

/* Where pna_pfc_pause_frames() took its total from. */
enum pna_pause_source {
    PNA_PAUSE_FROM_NONE = 0,    /* the driver counts no pause frames at all */
    PNA_PAUSE_FROM_PHY,         /* the physical port's own total (mlx5 *_pause_ctrl_phy) */
    PNA_PAUSE_FROM_GLOBAL,      /* the global (802.3x) count alone */
    PNA_PAUSE_FROM_SUM,         /* global + PFC frames (total, or the sum over priorities) */
};

/* All link-level pause frames received (TX false) or sent (TX true), global
 * and PFC together: the physical-port total where the driver has one, else the
 * global count plus the PFC count (the driver's total, or the sum over
 * priorities).  primusPauseRxFrames/TxFrames, and what pause rates and storms
 * are judged on.  Returns where *FRAMES came from (NONE: nothing, *FRAMES
 * untouched). */
enum pna_pause_source pna_pfc_pause_frames(const struct pna_pfc_if *pif, bool tx,
                                           uint64_t *frames);

/* True when the driver counts anything for priority PRIO of PIF. */
bool pna_pfc_prio_counted(const struct pna_pfc_if *pif, int prio);

/* Statistic ROW of M's flat list (see pna_pfc_model_index): its interface and
 * itself; false past the end. */
bool pna_pfc_stat_at(const struct pna_pfc_model *m, size_t row, const struct pna_pfc_if **pif,
                     const struct pna_eth_stat **s);

/* True when a named column serves statistic S of PIF as it is (one counter,
 * one column), so that the generic statistics table leaves it out; a
 * statistic that only enters a sum (ionic's global pause frames in
 * primusPauseRxFrames) is not. */
bool pna_pfc_stat_has_column(const struct pna_pfc_if *pif, const struct pna_eth_stat *s);

/* Rates and storm detection for CUR against PREV (the same interface in the
 * previous poll, or NULL) over INTERVAL_MS.  A storm is a pause-frame rate in
 * either direction, of the interface's total or of any one priority, above
 * STORM_PPS (0: rate check off), or an increase of the driver's own
 * pause-storm event counters. */
void pna_pfc_derive(struct pna_pfc_if *cur, const struct pna_pfc_if *prev, int64_t interval_ms,
                    uint64_t storm_pps);

/* The highest pause-frame rate of CUR (after pna_pfc_derive), either
 * direction: the total's, or a priority's where one ran faster than the
 * total (a physical-port total without PFC frames); *PRIO is then that
 * priority, else -1. */
uint64_t pna_pfc_peak_rate(const struct pna_pfc_if *cur, int *prio);

#endif
