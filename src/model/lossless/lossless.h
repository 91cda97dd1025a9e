/* model/lossless/lossless.h -- the lossless-RoCE configuration of an Ethernet
 * interface: what the kernel's DCB netlink interface says (IEEE 802.1Qaz PFC,
 * ETS, the APP table and the trust order), the mlx5 ECN/CNP settings under
 * /sys/class/net/IF/ecn, the RDMA CM default ToS of the RDMA port on it, and
 * the LLDP neighbour lldpd learnt on it; then the verdict on all of it.
 *
 * Filled by the pfc poller from sources/pfc/dcb.c, sources/pfc/ecn.c and
 * sources/pfc/lldp.c; judged by model/lossless/lossless.c; served by
 * model/lossless/lossless_metrics.c.  Plain data: no pointers, so a struct
 * pna_pfc_if that holds one copies whole. */
#ifndef PNA_MODEL_LOSSLESS_H
#define PNA_MODEL_LOSSLESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PNA_LOSSLESS_PRIOS 8
/* 64 DSCP entries plus a few of the other selectors; more is kept as
 * "truncated" rather than grown without bound. */
#define PNA_DCB_MAX_APPS 128

/* APP table selectors (IEEE 802.1Qaz, linux/dcbnl.h IEEE_8021QAZ_APP_SEL_*),
 * and the kernel's own PCP selector of the trust table (DCB_APP_SEL_PCP). */
#define PNA_DCB_SEL_ETHERTYPE 1
#define PNA_DCB_SEL_STREAM 2
#define PNA_DCB_SEL_DGRAM 3
#define PNA_DCB_SEL_ANY 4
#define PNA_DCB_SEL_DSCP 5
#define PNA_DCB_SEL_PCP 255

/* ETS transmission selection algorithms (linux/dcbnl.h IEEE_8021QAZ_TSA_*). */
#define PNA_ETS_TSA_STRICT 0
#define PNA_ETS_TSA_CB_SHAPER 1
#define PNA_ETS_TSA_ETS 2
#define PNA_ETS_TSA_VENDOR 255

struct pna_dcb_app {
    uint8_t selector;           /* PNA_DCB_SEL_* */
    uint8_t priority;           /* 0..7 */
    uint16_t protocol;          /* DSCP value, ethertype, port... by selector */
};

/* What DCB_CMD_IEEE_GET (and DCB_CMD_GDCBX) answered for one interface. */
struct pna_dcb {
    bool read;                  /* the kernel answered; else ERROR says why */
    char error[128];            /* "driver has no DCB support (EOPNOTSUPP)"... */
    uint8_t dcbx;               /* DCB_CAP_DCBX_* mode bits, 0 when not given */

    bool has_pfc;               /* DCB_ATTR_IEEE_PFC present */
    uint8_t pfc_cap;            /* traffic classes that may have PFC at once */
    uint8_t pfc_en;             /* bit p: PFC enabled on priority p */
    uint8_t pfc_mbc;            /* macsec bypass capability */
    uint16_t pfc_delay;         /* allowance for the cable, bit times */

    bool has_ets;               /* DCB_ATTR_IEEE_ETS present */
    uint8_t ets_cap;            /* traffic classes the port supports */
    uint8_t ets_willing;
    uint8_t prio_tc[PNA_LOSSLESS_PRIOS];    /* traffic class of each priority */
    uint8_t tc_tx_bw[PNA_LOSSLESS_PRIOS];   /* percent of the bandwidth per TC */
    uint8_t tc_tsa[PNA_LOSSLESS_PRIOS];     /* PNA_ETS_TSA_* per TC */

    struct pna_dcb_app apps[PNA_DCB_MAX_APPS];  /* DCB_ATTR_IEEE_APP_TABLE, kernel order */
    uint16_t n_apps;
    bool apps_truncated;        /* the kernel had more than PNA_DCB_MAX_APPS */

    /* DCB_ATTR_DCB_APP_TRUST_TABLE (Linux 6.3+, drivers that implement
     * dcbnl_getapptrust): the selectors the port trusts, highest precedence
     * first.  n_trust 0: the driver does not report it. */
    uint8_t trust[PNA_LOSSLESS_PRIOS];
    uint8_t n_trust;
};

/* mlx5's DCQCN switches and CNP marking, /sys/class/net/IF/ecn/. */
struct pna_ecn {
    bool present;               /* the ecn directory exists */
    uint8_t np_enabled;         /* bit p: roce_np/enable/p reads 1 (notification point) */
    uint8_t rp_enabled;         /* bit p: roce_rp/enable/p reads 1 (reaction point) */
    uint8_t np_known;           /* bit p: roce_np/enable/p was read */
    uint8_t rp_known;
    int16_t cnp_dscp;           /* roce_np/cnp_dscp, -1 when absent */
    int16_t cnp_802p_prio;      /* roce_np/cnp_802p_prio, -1 when absent */
};

/* The switch port behind an interface, as lldpd last heard it. */
struct pna_lldp_neighbor {
    bool present;
    char sys_name[128];
    char chassis_id[64];        /* printable: a MAC as aa:bb:..., else the text */
    char port_id[64];
    char port_descr[128];
    char mgmt_addr[48];         /* first management address, "" none */
    uint16_t pvid;              /* 802.1 port VLAN id, 0 not sent */
    bool pfc_known;             /* the neighbour sent an 802.1Qaz PFC TLV */
    uint8_t pfc_en;             /* its PFC-enabled priorities, bit p */
    uint32_t age_s;             /* seconds since lldpd took the neighbour's advertisement as
                                 * new: first heard, or changed (lldpcli's "age"); a repeat
                                 * of the same frame does not reset it */
};

enum pna_trust {
    PNA_TRUST_UNKNOWN = 0,
    PNA_TRUST_PCP = 1,          /* 802.1p priority of the VLAN tag */
    PNA_TRUST_DSCP = 2,         /* DSCP of the IP header */
};

enum pna_trust_source {
    PNA_TRUST_FROM_NONE = 0,
    PNA_TRUST_FROM_DRIVER = 1,  /* the trust table the driver reports */
    PNA_TRUST_FROM_APP = 2,     /* inferred: mlx5 maps DSCP in the APP table iff it trusts DSCP */
};

/* The verdict; the MIB's PrimusLossless enumeration. */
enum pna_lossless_verdict {
    PNA_LOSSLESS_UNKNOWN = 0,   /* not judged yet (no poll) */
    PNA_LOSSLESS_READY = 1,
    PNA_LOSSLESS_NOT_READY = 2,
    PNA_LOSSLESS_UNREADABLE = 3,    /* the configuration could not be read */
    PNA_LOSSLESS_NOT_APPLICABLE = 4 /* no RoCE port to judge (node verdict) */
};

/* What the fleet's interfaces are meant to have (losslessPfcPriorities,
 * losslessTrust): the same on every node, so a node set up differently from
 * the rest is not ready. */
struct pna_lossless_expect {
    bool has_pfc;
    uint8_t pfc_en;             /* bit p: priority p */
    uint8_t trust;              /* enum pna_trust; PNA_TRUST_UNKNOWN: not said */
};

/* One interface's configuration and verdict. */
struct pna_lossless_if {
    struct pna_dcb dcb;
    struct pna_ecn ecn;
    int16_t roce_tos;           /* RDMA CM default_roce_tos of the port, -1 absent */
    struct pna_lldp_neighbor lldp;

    /* Judged by pna_lossless_judge(). */
    uint8_t trust;              /* enum pna_trust */
    uint8_t trust_source;       /* enum pna_trust_source */
    int8_t rdma_prio;           /* priority RoCE traffic (roce_tos) is sent on, -1 unknown */
    int8_t cnp_prio;            /* priority CNPs are sent on, -1 unknown */
    uint8_t verdict;            /* enum pna_lossless_verdict */
    char reason[256];           /* the failed rules, "; "-separated, "" when ready */
    char dscp_map[256];         /* the APP table's DSCP entries: "0:0-7 3:24-31,46" */
};

/* The node's verdict over its RoCE interfaces. */
struct pna_lossless_node {
    uint8_t verdict;            /* enum pna_lossless_verdict */
    char reason[256];
    uint32_t ports_ready, ports_not_ready, ports_unreadable;
};

/* src/model/lossless/lossless.c */

/* The MIB's names of the verdicts (PrimusLossless), by value; [0] is "". */
extern const char *const pna_lossless_verdict_names[PNA_LOSSLESS_NOT_APPLICABLE + 1];

/* Clear L to "nothing read" (every optional value absent). */
void pna_lossless_if_init(struct pna_lossless_if *l);

/* The priority DCB maps DSCP value DSCP to through its APP table, or -1. */
int pna_dcb_dscp_prio(const struct pna_dcb *d, unsigned dscp);

/* Trust, RDMA and CNP priorities, and the verdict of one interface (the
 * rules are listed in lossless.c and docs/rdma.md); EXPECT (may be NULL)
 * is the fleet's configuration. */
void pna_lossless_judge(struct pna_lossless_if *l, const struct pna_lossless_expect *expect);

/* The node's verdict over N interfaces (IFS[i] is the i-th one's state,
 * NAMES[i] its name, for the reason): not ready when one is not ready or two
 * are configured differently. */
void pna_lossless_judge_node(const struct pna_lossless_if *const *ifs, const char *const *names,
                             size_t n, struct pna_lossless_node *out);

/* The DSCP entries of D's APP table by priority, "0:0-7 3:24-31,46" ("" for
 * none).  Returns OUT. */
char *pna_dcb_dscp_map(const struct pna_dcb *d, char *out, size_t outlen);

/* "3,4" for bits 3 and 4 of MASK, "" for none.  Returns OUT. */
char *pna_prio_list(uint8_t mask, char *out, size_t outlen);

#endif
