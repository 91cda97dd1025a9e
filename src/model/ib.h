/* model/ib.h -- the InfiniBand / RoCE model: RDMA devices, their ports, the
 * standard port counters, hardware (driver) counters, RoCE congestion counters
 * and the per-port figures derived from two successive polls.
 *
 * Filled by src/sources/rdma/ib_sysfs.c (from /sys/class/infiniband), the
 * PCIe health of each device by the ib poller (src/sources/pci/pcie_sysfs.c), completed by
 * pna_ib_derive() (src/model/ib.c) against the previous poll, read by
 * the SNMP and HTTP front ends.  Plain data: nothing here knows sysfs or SNMP.
 *
 * Ordering invariants (the front ends rely on them for stable indexes):
 * devices ascend by name (strcmp), ports by port number, hardware counters by
 * name (strcmp).  Every string is NUL-terminated; "" means not known. */
#ifndef PNA_MODEL_IB_H
#define PNA_MODEL_IB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/cache.h"
#include "model/counter.h"   /* struct pna_counter */
#include "model/pcie.h"      /* struct pna_pcie */

/* The standard port counters of /sys/class/infiniband/<dev>/ports/<n>/counters.
 * Order is fixed: it is the column order of the port table. */
enum pna_ib_counter {
    PNA_IBC_XMIT_DATA,                 /* octets (the kernel counts 4-octet words: x4) */
    PNA_IBC_RCV_DATA,                  /* octets */
    PNA_IBC_XMIT_PACKETS,
    PNA_IBC_RCV_PACKETS,
    PNA_IBC_UNICAST_XMIT_PACKETS,
    PNA_IBC_UNICAST_RCV_PACKETS,
    PNA_IBC_MULTICAST_XMIT_PACKETS,
    PNA_IBC_MULTICAST_RCV_PACKETS,
    PNA_IBC_SYMBOL_ERROR,
    PNA_IBC_LINK_ERROR_RECOVERY,
    PNA_IBC_LINK_DOWNED,
    PNA_IBC_RCV_ERRORS,
    PNA_IBC_RCV_REMOTE_PHYSICAL_ERRORS,
    PNA_IBC_RCV_SWITCH_RELAY_ERRORS,
    PNA_IBC_XMIT_DISCARDS,
    PNA_IBC_XMIT_CONSTRAINT_ERRORS,
    PNA_IBC_RCV_CONSTRAINT_ERRORS,
    PNA_IBC_LOCAL_LINK_INTEGRITY_ERRORS,
    PNA_IBC_EXCESSIVE_BUFFER_OVERRUN_ERRORS,
    PNA_IBC_VL15_DROPPED,
    PNA_IBC_XMIT_WAIT,                 /* ticks the port had data but could not send */
    PNA_IBC_RCV_DISCARDS,              /* not a PMA counter; some drivers add it */
    PNA_IBC_COUNT
};

/* What is known of each standard counter (table in src/model/ib.c). */
struct pna_ib_counter_desc {
    const char *file;        /* name under ports/<n>/counters/ */
    const char *ext_file;    /* name under ports/<n>/counters_ext/, or NULL */
    unsigned width_bits;     /* PortCounters width: saturates at 2^width - 1; 0: 64-bit */
    unsigned scale;          /* multiply the raw value by this (4 for data words) */
    bool is_error;           /* counted in the derived error rate */
};
extern const struct pna_ib_counter_desc pna_ib_counter_descs[PNA_IBC_COUNT];

/* A hardware counter (hw_counters/<name>), name discovered at run time.
 * RAW is what the file said; VALUE is RAW widened to 64 bits when the counter
 * is known to wrap at 32 bits (WRAPS32), and in any case kept from going
 * backwards across a driver reload (see src/model/counter.h). */
struct pna_hw_counter {
    char name[64];
    uint64_t raw;
    uint64_t value;
    bool wraps32;
    uint32_t restarts;       /* times RAW went backwards, since the agent started */
};

/* Named RoCE congestion and retransmission counters: a view of the port's
 * hw_counters under stable names (driver aliases resolved, see model/ib.c). */
enum pna_roce_cc {
    PNA_CC_NP_ECN_MARKED_ROCE_PACKETS, /* ECN-marked RoCE packets received (notification point) */
    PNA_CC_NP_CNP_SENT,                /* CNPs sent in answer to them */
    PNA_CC_RP_CNP_HANDLED,             /* CNPs received and acted on (reaction point) */
    PNA_CC_RP_CNP_IGNORED,             /* CNPs received and ignored */
    PNA_CC_OUT_OF_SEQUENCE,
    PNA_CC_PACKET_SEQ_ERR,
    PNA_CC_LOCAL_ACK_TIMEOUT_ERR,
    PNA_CC_RNR_NAK_RETRY_ERR,
    PNA_CC_IMPLIED_NAK_SEQ_ERR,
    PNA_CC_DUPLICATE_REQUEST,
    PNA_CC_ROCE_ADP_RETRANS,
    PNA_CC_ROCE_ADP_RETRANS_TO,
    PNA_CC_ROCE_SLOW_RESTART,
    PNA_CC_ROCE_SLOW_RESTART_CNPS,
    PNA_CC_ROCE_SLOW_RESTART_TRANS,
    PNA_CC_OUT_OF_BUFFER,
    PNA_CC_RX_ICRC_ENCAPSULATED,       /* RoCE packets received with an ICRC error */
    PNA_CC_COUNT
};
extern const char *const pna_roce_cc_names[PNA_CC_COUNT];

/* IB PortInfo PortState. */
enum pna_ib_state {
    PNA_IB_STATE_UNKNOWN = 0,
    PNA_IB_STATE_DOWN = 1,
    PNA_IB_STATE_INIT = 2,
    PNA_IB_STATE_ARMED = 3,
    PNA_IB_STATE_ACTIVE = 4,
    PNA_IB_STATE_ACTIVE_DEFER = 5,
};

/* Figures over the last poll interval; VALID is false on the first poll of a
 * port, when a traffic counter is absent or went backwards, or the interval is 0. */
struct pna_ib_rates {
    bool valid;
    int64_t interval_ms;
    uint64_t rx_bytes_per_s;
    uint64_t tx_bytes_per_s;
    uint32_t rx_util_cpct;        /* hundredths of a percent of rate_mbps, 0..10000+ */
    uint32_t tx_util_cpct;
    uint64_t errors;              /* sum of the error counters' increases in the interval */
    uint64_t error_rate_cps;      /* the same per second, x100 (hundredths per second) */
    bool errors_saturated;        /* an error counter is saturated: the sum undercounts */
};

/* The node at the other end of an InfiniBand port's cable, from
 * directed-route SMPs (src/sources/rdma/ib_smp.c); PRESENT is false on RoCE
 * ports, before the first answer, and where the agent cannot ask. */
struct pna_ib_neighbor {
    bool present;
    uint64_t guid;                /* its node GUID */
    uint8_t node_type;            /* NodeInfo NodeType: 1 CA, 2 switch, 3 router */
    uint32_t port;                /* its port the cable enters (LocalPortNum); 0 unknown */
    char node_desc[65];           /* NodeDescription, printable ASCII, trimmed; "" none */
};

struct pna_ib_port {
    uint32_t num;                 /* port number, 1.. (0 for a switch's management port) */
    char link_layer[16];          /* "InfiniBand", "Ethernet", or "" */
    bool has_state, has_phys_state; /* the file was read and its number parsed */
    int32_t state;                /* enum pna_ib_state; 0: unknown, or the kernel's NOP */
    char state_text[32];          /* the state file as written ("4: ACTIVE"); "" unread */
    int32_t phys_state;           /* 1 Sleep .. 7 PhyTest, 0 unknown */
    char phys_state_text[40];     /* the phys_state file as written ("5: LinkUp") */
    uint32_t width;               /* lanes (1, 2, 4, 8, 12), 0 unknown */
    uint64_t rate_mbps;           /* link rate per direction, Mb/s, 0 unknown */
    char rate_text[48];           /* as the kernel wrote it: "100 Gb/sec (4X EDR)" */
    bool has_lid, has_sm_lid;
    uint32_t lid, sm_lid;
    uint32_t lid_mask_count;
    char gid0[48];                /* gids/0 text; for IB its low 64 bits are the port GUID */
    bool has_port_guid;
    uint64_t port_guid;
    char netdev[32];              /* RoCE: the Ethernet interface of the port */
    int32_t ifindex;              /* its IF-MIB ifIndex, 0 unknown */
    uint32_t active_mtu;          /* octets, from libibverbs (src/sources/rdma/ib_verbs.c); 0 unknown */
    uint32_t max_mtu;             /* largest MTU the port supports, octets; 0 unknown */
    struct pna_ib_neighbor neighbor; /* InfiniBand only: the switch or HCA port cabled to it */
    /* Kept by the ib poller across polls (pollers/ib_poller.c), from the link
     * watcher's events and the poll: times the port left its up state since
     * the agent started (InfiniBand: PORT_ERR or ACTIVE -> not ACTIVE; RoCE:
     * every carrier loss of its netdev), and when it last went up or down. */
    uint32_t flaps;
    uint32_t last_change_s;       /* seconds since 1970-01-01 UTC; 0 no change seen */

    struct pna_counter counters[PNA_IBC_COUNT];
    struct pna_hw_counter *hw;    /* sorted by name */
    size_t n_hw;
    struct pna_counter cc[PNA_CC_COUNT]; /* widened hw counter values by stable name */

    struct pna_ib_rates rates;
    char error[160];              /* why some of this port could not be read, or "" */
};

struct pna_ib_device {
    char name[64];                /* "mlx5_0" */
    int32_t node_type;            /* 1 CA, 2 switch, 3 router, 4 RNIC, 0 unknown */
    char node_type_text[16];
    char fw_ver[64];
    char hca_type[64];
    char board_id[128];
    char node_desc[128];
    bool has_node_guid, has_sys_image_guid;
    uint64_t node_guid, sys_image_guid;
    char node_guid_text[24];      /* "0a7f:bc12:45ef:d23b" */
    char sys_image_guid_text[24];
    char pci_addr[16];            /* "0000:5e:00.0" when the device is a PCI function */
    char driver[32];              /* driver of the parent device ("mlx5_core"), or "" */
    bool has_uverbs;              /* a verbs node /dev/infiniband/uverbsN is its own */
    uint32_t uverbs;              /* N (class/infiniband_verbs/uverbsN/ibdev names it) */
    struct pna_pcie pcie;         /* its PCIe link, AER totals and locality (PCI functions) */

    struct pna_ib_port *ports;    /* sorted by num */
    size_t n_ports;
    struct pna_hw_counter *hw;    /* device-level hw_counters (hfi1), sorted by name */
    size_t n_hw;
    char error[160];
};

struct pna_ib_model {
    int64_t sample_mono_ms;       /* CLOCK_MONOTONIC when the read started */
    struct pna_ib_device *devices;
    size_t n_devices;
    uint32_t problems;            /* files that could not be read or parsed this poll */
    char problem[160];            /* the first such problem, or "" */
};

/* The IB domain's snapshot in the cache (PNA_DOM_IB). */
struct pna_ib_snap {
    struct pna_snap base;         /* first: the cache handles it as a struct pna_snap */
    struct pna_ib_model model;    /* what the poll found */
};

/* src/model/ib.c */
void pna_ib_model_free(struct pna_ib_model *m);
const struct pna_ib_device *pna_ib_find_device(const struct pna_ib_model *m, const char *name);
const struct pna_ib_port *pna_ib_find_port(const struct pna_ib_device *d, uint32_t num);
/* The RoCE port whose netdev is NETDEV: its device and itself; false when none. */
bool pna_ib_find_netdev(const struct pna_ib_model *m, const char *netdev,
                        const struct pna_ib_device **dev, const struct pna_ib_port **port);
const struct pna_hw_counter *pna_ib_find_hw(const struct pna_hw_counter *hw, size_t n,
                                            const char *name);
/* Widen hw counters, fill the congestion view and the rates of CUR using PREV
 * (NULL on the first poll). */
void pna_ib_derive(struct pna_ib_model *cur, const struct pna_ib_model *prev);
/* True when hw counter NAME is known to be a 32-bit counter that wraps. */
bool pna_ib_hw_wraps32(const char *name);
/* Canonical names of state numbers ("ACTIVE", "LinkUp"); "" when unknown
 * (the model keeps the files' own text: drivers and kernels differ). */
const char *pna_ib_state_name(int32_t state);
const char *pna_ib_phys_state_name(int32_t phys_state);

#endif
