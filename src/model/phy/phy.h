/* model/phy/phy.h -- the physical layer of the RDMA ports' Ethernet
 * interfaces: FEC mode and counters, the IEEE 802.3 statistics groups, the
 * standard pause statistics, why a link is down, a pre-FEC bit error rate,
 * and the pluggable module (transceiver, optic or cable) with its
 * diagnostics and its own alarm and warning thresholds.
 *
 * Domain PNA_DOM_PHY, filled by the "phy" poller (pollers/phy_poller.c) from
 * the kernel's ethtool netlink interface (sources/phy/ethtool_nl.c) and the
 * module's EEPROM (sources/phy/module.c, decoded by sources/phy/sff8636.c and
 * sources/phy/cmis.c).  Plain data: nothing here knows netlink or SNMP.
 *
 * Units are the MIB's: temperatures in thousandths of a degree Celsius,
 * voltages in microvolts, bias currents in microamperes, optical powers in
 * tenths of a microwatt (the EEPROM's own unit: 0.1 uW) and in hundredths of
 * a dBm. */
#ifndef PNA_MODEL_PHY_H
#define PNA_MODEL_PHY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/cache.h"
#include "model/counter.h"

/* The FEC the link runs (ETHTOOL_A_FEC_ACTIVE's link mode, named as the MIB's
 * PrimusFecMode numbers it).  0: not known. */
enum pna_fec_mode {
    PNA_FEC_UNKNOWN = 0,
    PNA_FEC_OFF = 1,        /* ETHTOOL_LINK_MODE_FEC_NONE_BIT */
    PNA_FEC_BASER = 2,      /* Clause 74 Fire Code (BASE-R) */
    PNA_FEC_RS = 3,         /* Clause 91/134 Reed-Solomon */
    PNA_FEC_LLRS = 4,       /* low-latency Reed-Solomon */
    PNA_FEC_OTHER = 5,      /* a mode this agent does not know by name */
};

/* The counters of the statistics groups (ETHTOOL_MSG_STATS_GET,
 * ETHTOOL_MSG_PAUSE_GET with statistics, ETHTOOL_MSG_FEC_GET with
 * statistics): IEEE 802.3 names, one column each.  A counter the driver does
 * not report is absent (present false), not zero. */
enum pna_phy_counter {
    /* FEC (ETHTOOL_A_FEC_STAT_*: the totals, not the per-lane values) */
    PNA_PHY_FEC_CORRECTED_BLOCKS,
    PNA_PHY_FEC_UNCORRECTABLE_BLOCKS,
    PNA_PHY_FEC_CORRECTED_BITS,
    /* eth-phy */
    PNA_PHY_SYMBOL_ERRORS,              /* SymbolErrorDuringCarrier */
    /* eth-mac */
    PNA_PHY_FRAMES_TX_OK,
    PNA_PHY_FRAMES_RX_OK,
    PNA_PHY_FCS_ERRORS,                 /* FrameCheckSequenceErrors */
    PNA_PHY_ALIGNMENT_ERRORS,
    PNA_PHY_OCTETS_TX_OK,
    PNA_PHY_OCTETS_RX_OK,
    PNA_PHY_FRAME_TOO_LONG_ERRORS,
    PNA_PHY_IN_RANGE_LENGTH_ERRORS,
    PNA_PHY_MAC_INTERNAL_TX_ERRORS,     /* FramesLostDueToIntMACXmitError */
    PNA_PHY_MAC_INTERNAL_RX_ERRORS,     /* FramesLostDueToIntMACRcvError */
    /* eth-ctrl */
    PNA_PHY_CTRL_FRAMES_TX,             /* MACControlFramesTransmitted */
    PNA_PHY_CTRL_FRAMES_RX,             /* MACControlFramesReceived */
    PNA_PHY_CTRL_UNSUPPORTED_OPCODES,   /* UnsupportedOpcodesReceived */
    /* rmon */
    PNA_PHY_RMON_UNDERSIZE,             /* etherStatsUndersizePkts */
    PNA_PHY_RMON_OVERSIZE,
    PNA_PHY_RMON_FRAGMENTS,
    PNA_PHY_RMON_JABBERS,
    /* pause (ETHTOOL_A_PAUSE_STAT_*) */
    PNA_PHY_PAUSE_TX_FRAMES,
    PNA_PHY_PAUSE_RX_FRAMES,
    /* link state (ETHTOOL_A_LINKSTATE_EXT_DOWN_CNT, Linux 6.3+) */
    PNA_PHY_LINK_DOWN_EVENTS,
    PNA_PHY_COUNT
};

/* What ethtool netlink said of one interface in one poll. */
struct pna_phy_link {
    bool read;                     /* LINKSTATE_GET answered */
    bool has_link;
    bool link;                     /* ETHTOOL_A_LINKSTATE_LINK */
    bool has_ext_state;            /* the driver says why the link is down */
    uint8_t ext_state;             /* enum ethtool_link_ext_state + 1 (0: none) */
    uint8_t ext_substate;          /* its substate, as the kernel numbers it from 1 (0: none) */
    bool has_sqi;
    uint32_t sqi, sqi_max;         /* signal quality index (BASE-T1 PHYs) */
};

struct pna_phy_fec {
    bool read;                     /* FEC_GET answered */
    enum pna_fec_mode active;      /* ETHTOOL_A_FEC_ACTIVE */
    bool auto_;                    /* ETHTOOL_A_FEC_AUTO: the driver picks */
    char configured[64];           /* the modes allowed, "rs baser" ("" none) */
};

/* SFF-8024 identifier and the management interface the EEPROM follows. */
enum pna_module_spec {
    PNA_MODULE_SPEC_UNKNOWN = 0,
    PNA_MODULE_SPEC_SFF8636 = 1,   /* QSFP+/QSFP28/QSFP56 */
    PNA_MODULE_SPEC_CMIS = 2,      /* QSFP-DD, OSFP, QSFP112 (CMIS 3.0+) */
    PNA_MODULE_SPEC_SFF8472 = 3,   /* SFP/SFP+ (identified, diagnostics not decoded) */
};

/* A value with its module's thresholds (the module's own, from its EEPROM).
 * Units as above.  HAS_THRESHOLDS false: the module publishes none. */
struct pna_module_thresholds {
    bool present;
    int64_t high_alarm, high_warning, low_warning, low_alarm;
};

/* Alarm and warning flags of one monitored value, as the module latched
 * them (bit 0 high alarm, 1 low alarm, 2 high warning, 3 low warning). */
#define PNA_MODULE_FLAG_HIGH_ALARM   0x1u
#define PNA_MODULE_FLAG_LOW_ALARM    0x2u
#define PNA_MODULE_FLAG_HIGH_WARNING 0x4u
#define PNA_MODULE_FLAG_LOW_WARNING  0x8u

#define PNA_MODULE_MAX_LANES 8

struct pna_module_lane {
    bool has_bias, has_tx_power, has_rx_power;
    uint32_t bias_ua;              /* TX bias current, microamperes */
    uint32_t tx_power_dw;          /* TX optical power, tenths of a microwatt */
    uint32_t rx_power_dw;          /* RX optical power, tenths of a microwatt */
    uint8_t bias_flags, tx_power_flags, rx_power_flags;  /* PNA_MODULE_FLAG_* */
    bool has_flags;                /* the module reports per-lane flags */
};

struct pna_module {
    bool present;                  /* a module answered (EEPROM read and identified) */
    enum pna_module_spec spec;
    uint8_t identifier;            /* SFF-8024 byte 0 (0x11 QSFP28, 0x18 QSFP-DD, ...) */
    char identifier_text[48];      /* "QSFP28", "QSFP-DD Double Density 8X Pluggable" */
    char spec_revision[16];        /* "4.0" (CMIS), "2.8" (SFF-8636 byte 1 text) */
    char vendor[17];               /* printable ASCII, trimmed */
    char vendor_oui[9];            /* "00:1c:73" */
    char part_number[17];
    char revision[5];
    char serial[17];
    char date_code[9];             /* "YYMMDDLL" as the module writes it, trimmed */
    char media[64];                /* what the module says it is ("100GBASE-SR4",
                                      "passive copper", ...), "" unknown */
    uint32_t lanes;                /* lanes described below: the media lanes of the module's first
                                      application (CMIS), 4 for SFF-8636 */
    bool flat_memory;              /* no pages beyond 0 (passive copper): no diagnostics */

    bool has_temperature, has_voltage;
    int32_t temperature_mc;        /* thousandths of a degree Celsius */
    uint32_t voltage_uv;           /* supply voltage, microvolts */
    uint8_t temperature_flags, voltage_flags;   /* PNA_MODULE_FLAG_* */
    bool has_module_flags;

    struct pna_module_thresholds temperature_thr;  /* thousandths of a degree */
    struct pna_module_thresholds voltage_thr;      /* microvolts */
    struct pna_module_thresholds bias_thr;         /* microamperes */
    struct pna_module_thresholds tx_power_thr;     /* tenths of a microwatt */
    struct pna_module_thresholds rx_power_thr;     /* tenths of a microwatt */

    struct pna_module_lane lane[PNA_MODULE_MAX_LANES];
};

/* One interface of the domain: a RoCE netdev of an RDMA port, or one named
 * with pfcInterface (the same set the pfc poller reads). */
struct pna_phy_if {
    char ifname[32];
    int32_t ifindex;               /* IF-MIB ifIndex, 0 unknown */
    struct pna_phy_link link;
    struct pna_phy_fec fec;
    struct pna_counter c[PNA_PHY_COUNT];  /* widened: never back (see raw) */
    uint64_t raw[PNA_PHY_COUNT];   /* what the driver said: C's value before widening */
    bool stats_read;               /* STATS_GET answered (even with no group) */
    char error[160];               /* why ethtool netlink could not be read, or "" */

    /* The pre-FEC bit error rate over the last interval, from the driver's
     * named statistics where it has them (mlx5: rx_corrected_bits_phy over
     * rx_bits_phy); mantissa and exponent as the NVLink BER: value =
     * ber_mantissa * 10^ber_exponent.  VALID false: no such statistics, first
     * sample, or no bits received. */
    bool ber_valid;
    uint32_t ber_mantissa;         /* 0..999: three significant digits */
    int32_t ber_exponent;
    uint64_t ber_bits, ber_corrected;  /* the driver's counters the BER came from */
    int64_t ber_sample_ms;         /* monotonic time of the statistics used */

    struct pna_module module;
    int64_t module_read_mono_ms;   /* when the EEPROM was last read, 0 never */
    bool module_due;               /* to be read at the next poll that has room */
    char module_error[160];        /* why the module could not be read, or "" */
};

struct pna_phy_model {
    int64_t sample_mono_ms;
    struct pna_phy_if *ifs;        /* sorted by ifname */
    size_t n_ifs;
};

/* The phy domain's snapshot in the cache (PNA_DOM_PHY). */
struct pna_phy_snap {
    struct pna_snap base;          /* first */
    struct pna_phy_model model;    /* what the poll found */
};

/* src/model/phy/phy.c */
void pna_phy_model_free(struct pna_phy_model *m);
const struct pna_phy_if *pna_phy_find_if(const struct pna_phy_model *m, const char *ifname);
const char *pna_fec_mode_name(enum pna_fec_mode mode);   /* "rs", "" unknown */
/* "link training failure: KR link inhibit timeout": EXT_STATE and
 * EXT_SUBSTATE as struct pna_phy_link holds them, in words, into BUF. */
const char *pna_link_down_reason(uint8_t ext_state, uint8_t ext_substate, char *buf, size_t cap);
/* The phy model of view V, or NULL (model/phy/phy_metrics.c). */
struct pna_view;
const struct pna_phy_model *pna_phy_view_model(const struct pna_view *v);
/* NAME can index a row: primusPhyIfName is SIZE (1..15), as primusPfcIfName. */
bool pna_phy_ifname_ok(const char *name);
/* The error of the first interface that has one, or "". */
const char *pna_phy_first_error(const struct pna_phy_model *m);

/* The bit error rate CORRECTED / BITS to three significant digits:
 * *MANTISSA (100..999, or 0 when nothing was corrected) times
 * 10^*EXPONENT.  False when BITS is 0. */
bool pna_phy_ber(uint64_t corrected, uint64_t bits, uint32_t *mantissa, int32_t *exponent);

/* Where a monitored value stands against its module's own thresholds,
 * numbered as the MIB's PrimusModuleLevel.  0: not known (no value, or the
 * module publishes no thresholds). */
enum pna_module_level {
    PNA_MODULE_LEVEL_UNKNOWN = 0,
    PNA_MODULE_LEVEL_NORMAL = 1,
    PNA_MODULE_LEVEL_LOW_WARNING = 2,
    PNA_MODULE_LEVEL_HIGH_WARNING = 3,
    PNA_MODULE_LEVEL_LOW_ALARM = 4,
    PNA_MODULE_LEVEL_HIGH_ALARM = 5,
};
extern const char *const pna_module_level_names[6];   /* "normal", "lowWarning", ... */

/* The monitored values of a module: the module's own (lane 0) and each lane's. */
enum pna_module_quantity {
    PNA_MODQ_TEMPERATURE = 0,
    PNA_MODQ_VOLTAGE,
    PNA_MODQ_BIAS,
    PNA_MODQ_TX_POWER,
    PNA_MODQ_RX_POWER,
    PNA_MODQ_COUNT
};
extern const char *const pna_module_quantity_names[PNA_MODQ_COUNT];  /* MIB spelling */

/* VALUE against T: an alarm before a warning, high before low (a module
 * whose thresholds overlap says high). */
enum pna_module_level pna_module_level_of(int64_t value, const struct pna_module_thresholds *t);

/* The level of quantity Q of M (LANE 1..lanes for the lane quantities, 0 for
 * temperature and voltage); UNKNOWN when the value or the thresholds are
 * missing. */
enum pna_module_level pna_module_level(const struct pna_module *m, enum pna_module_quantity q,
                                       uint32_t lane);

/* The worst level over all of M's monitored values (an alarm is worse than a
 * warning); UNKNOWN when none is known. */
enum pna_module_level pna_module_worst_level(const struct pna_module *m);

/* Optical power in hundredths of a dBm from tenths of a microwatt; false for
 * no light (0 uW: minus infinity). */
bool pna_module_dbm(uint32_t power_dw, int32_t *centi_dbm);

#endif
