/* sources/phy/ethtool_nl_stats.c -- ETHTOOL_MSG_STATS_GET: the IEEE 802.3
 * and RMON statistics groups (`ethtool -S IFNAME --all-groups`; see
 * ethtool_nl_reply.h for how a request is made and its reply parsed).
 *
 * Asked for the eth-phy, eth-mac, eth-ctrl and rmon groups as a compact
 * bitset, without ETHTOOL_FLAG_STATS: STATS_GET's header policy is the plain
 * ethnl_header_policy, which refuses that flag ("reserved bit set", EINVAL).
 * The kernel answers with one ETHTOOL_A_STATS_GRP nest per group the driver
 * fills. */
#include "pna_autoconf.h"
#include "sources/phy/ethtool_nl_reply.h"

#include <errno.h>
#include <linux/ethtool.h>
#include <linux/ethtool_netlink.h>

_Static_assert(ETHTOOL_A_STATS_GRP <= PNA_ETHNL_MAX_ATTR, "the reply's table holds STATS'");

static const struct pna_nla_policy STATS_POLICY[ETHTOOL_A_STATS_GRP + 1] = {
    PNA_ETHNL_ATTR(ETHTOOL_A_STATS_HEADER, PNA_NLA_NESTED),
    [ETHTOOL_A_STATS_GRP] = {.kind = PNA_NLA_NESTED, .multi = true, .name = "ETHTOOL_A_STATS_GRP"},
};

/* A group: its ID, then one ETHTOOL_A_STATS_GRP_STAT nest per counter.
 * Histograms (HIST_RX, HIST_TX) are skipped. */
static const struct pna_nla_policy GROUP_POLICY[ETHTOOL_A_STATS_GRP_STAT + 1] = {
    PNA_ETHNL_ATTR(ETHTOOL_A_STATS_GRP_ID, PNA_NLA_UINT),
    [ETHTOOL_A_STATS_GRP_STAT] = {.kind = PNA_NLA_NESTED, .multi = true,
                                  .name = "ETHTOOL_A_STATS_GRP_STAT"},
};

#define NOT_MAPPED (-1)

/* The 802.3 and RMON counters by group and attribute number (the kernel's
 * ETHTOOL_A_STATS_ETH_*; the numbers in the names are the 802.3 clauses). */
static const int8_t MAP_PHY[] = {
    [ETHTOOL_A_STATS_ETH_PHY_5_SYM_ERR] = PNA_PHY_SYMBOL_ERRORS,
};

static const int8_t MAP_MAC[] = {
    [ETHTOOL_A_STATS_ETH_MAC_2_TX_PKT] = PNA_PHY_FRAMES_TX_OK,
    [ETHTOOL_A_STATS_ETH_MAC_3_SINGLE_COL] = NOT_MAPPED,
    [ETHTOOL_A_STATS_ETH_MAC_4_MULTI_COL] = NOT_MAPPED,
    [ETHTOOL_A_STATS_ETH_MAC_5_RX_PKT] = PNA_PHY_FRAMES_RX_OK,
    [ETHTOOL_A_STATS_ETH_MAC_6_FCS_ERR] = PNA_PHY_FCS_ERRORS,
    [ETHTOOL_A_STATS_ETH_MAC_7_ALIGN_ERR] = PNA_PHY_ALIGNMENT_ERRORS,
    [ETHTOOL_A_STATS_ETH_MAC_8_TX_BYTES] = PNA_PHY_OCTETS_TX_OK,
    [ETHTOOL_A_STATS_ETH_MAC_9_TX_DEFER] = NOT_MAPPED,
    [ETHTOOL_A_STATS_ETH_MAC_10_LATE_COL] = NOT_MAPPED,
    [ETHTOOL_A_STATS_ETH_MAC_11_XS_COL] = NOT_MAPPED,
    [ETHTOOL_A_STATS_ETH_MAC_12_TX_INT_ERR] = PNA_PHY_MAC_INTERNAL_TX_ERRORS,
    [ETHTOOL_A_STATS_ETH_MAC_13_CS_ERR] = NOT_MAPPED,
    [ETHTOOL_A_STATS_ETH_MAC_14_RX_BYTES] = PNA_PHY_OCTETS_RX_OK,
    [ETHTOOL_A_STATS_ETH_MAC_15_RX_INT_ERR] = PNA_PHY_MAC_INTERNAL_RX_ERRORS,
    [ETHTOOL_A_STATS_ETH_MAC_18_TX_MCAST] = NOT_MAPPED,
    [ETHTOOL_A_STATS_ETH_MAC_19_TX_BCAST] = NOT_MAPPED,
    [ETHTOOL_A_STATS_ETH_MAC_20_XS_DEFER] = NOT_MAPPED,
    [ETHTOOL_A_STATS_ETH_MAC_21_RX_MCAST] = NOT_MAPPED,
    [ETHTOOL_A_STATS_ETH_MAC_22_RX_BCAST] = NOT_MAPPED,
    [ETHTOOL_A_STATS_ETH_MAC_23_IR_LEN_ERR] = PNA_PHY_IN_RANGE_LENGTH_ERRORS,
    [ETHTOOL_A_STATS_ETH_MAC_24_OOR_LEN] = NOT_MAPPED,
    [ETHTOOL_A_STATS_ETH_MAC_25_TOO_LONG_ERR] = PNA_PHY_FRAME_TOO_LONG_ERRORS,
};

static const int8_t MAP_CTRL[] = {
    [ETHTOOL_A_STATS_ETH_CTRL_3_TX] = PNA_PHY_CTRL_FRAMES_TX,
    [ETHTOOL_A_STATS_ETH_CTRL_4_RX] = PNA_PHY_CTRL_FRAMES_RX,
    [ETHTOOL_A_STATS_ETH_CTRL_5_RX_UNSUP] = PNA_PHY_CTRL_UNSUPPORTED_OPCODES,
};

static const int8_t MAP_RMON[] = {
    [ETHTOOL_A_STATS_RMON_UNDERSIZE] = PNA_PHY_RMON_UNDERSIZE,
    [ETHTOOL_A_STATS_RMON_OVERSIZE] = PNA_PHY_RMON_OVERSIZE,
    [ETHTOOL_A_STATS_RMON_FRAG] = PNA_PHY_RMON_FRAGMENTS,
    [ETHTOOL_A_STATS_RMON_JABBER] = PNA_PHY_RMON_JABBERS,
};

_Static_assert(PNA_PHY_COUNT < 127, "counter numbers fit the maps' int8_t");
_Static_assert(PNA_PHY_RMON_JABBERS - PNA_PHY_SYMBOL_ERRORS == 17,
               "the statistics groups' counters are contiguous in phy.h");

static const struct {
    const int8_t *map;
    size_t n;
} GROUP_MAP[] = {
    [ETHTOOL_STATS_ETH_PHY] = {MAP_PHY, sizeof MAP_PHY},
    [ETHTOOL_STATS_ETH_MAC] = {MAP_MAC, sizeof MAP_MAC},
    [ETHTOOL_STATS_ETH_CTRL] = {MAP_CTRL, sizeof MAP_CTRL},
    [ETHTOOL_STATS_RMON] = {MAP_RMON, sizeof MAP_RMON},
};

/* A GRP_STAT nest holds one counter whose attribute type (from 0) is its
 * number in the group: any number the groups have is checked as one. */
#define COUNTER {.kind = PNA_NLA_UINT, .name = "a statistics counter"}
#define FOUR_COUNTERS COUNTER, COUNTER, COUNTER, COUNTER
static const struct pna_nla_policy STAT_POLICY[] = {
    FOUR_COUNTERS, FOUR_COUNTERS, FOUR_COUNTERS, FOUR_COUNTERS, FOUR_COUNTERS, COUNTER, COUNTER,
};
#define STAT_TYPES (sizeof STAT_POLICY / sizeof STAT_POLICY[0])
_Static_assert(STAT_TYPES >= sizeof MAP_PHY && STAT_TYPES >= sizeof MAP_MAC &&
                   STAT_TYPES >= sizeof MAP_CTRL && STAT_TYPES >= sizeof MAP_RMON,
               "every group's counters are checked");

/* One GRP_STAT nest's counters into OUT by the group's MAP (N entries). */
static int take_stat(struct pna_ethnl_reply *r, const struct pna_nla *stat, const int8_t *map,
                     size_t n)
{
    const struct pna_nla *tb[STAT_TYPES];
    if (pna_ethnl_parse_nest(r, tb, STAT_TYPES - 1, STAT_POLICY, stat,
                             "ETHTOOL_A_STATS_GRP_STAT") != 0)
        return -EBADMSG;
    for (size_t t = 0; t < n; t++)
        if (tb[t] && map[t] != NOT_MAPPED)
            pna_ethnl_set_counter(r->out, (enum pna_phy_counter)map[t], pna_nla_uint(tb[t]));
    return 0;
}

/* One ETHTOOL_A_STATS_GRP.  A group this agent does not know is still
 * checked, and skipped. */
static int take_group(struct pna_ethnl_reply *r, const struct pna_nla *grp)
{
    const struct pna_nla *tb[ETHTOOL_A_STATS_GRP_STAT + 1];
    if (pna_ethnl_parse_nest(r, tb, ETHTOOL_A_STATS_GRP_STAT, GROUP_POLICY, grp,
                             "ETHTOOL_A_STATS_GRP") != 0)
        return -EBADMSG;
    if (!tb[ETHTOOL_A_STATS_GRP_ID])
        return pna_ethnl_malformed(r, "statistics group without ETHTOOL_A_STATS_GRP_ID");
    uint64_t id = pna_nla_uint(tb[ETHTOOL_A_STATS_GRP_ID]);
    const int8_t *map = NULL;
    size_t n = 0;
    if (id < sizeof GROUP_MAP / sizeof GROUP_MAP[0]) {
        map = GROUP_MAP[id].map;
        n = GROUP_MAP[id].n;
    }
    struct pna_nla_iter it;
    const struct pna_nla *a;
    pna_nla_for_each(a, it, grp) {
        if (pna_nla_type(a) == ETHTOOL_A_STATS_GRP_STAT && take_stat(r, a, map, n) != 0)
            return -EBADMSG;
    }
    return 0;
}

static int take_stats(struct pna_ethnl_reply *r, const struct pna_nla *const *tb)
{
    (void)tb;  /* it holds the last group: each one is walked in the message */
    struct pna_nla_iter it;
    const struct pna_nla *a;
    pna_nla_iter_init(&it, r->attrs, r->attrs_len);
    while ((a = pna_nla_iter_next(&it)) != NULL) {
        if (pna_nla_type(a) == ETHTOOL_A_STATS_GRP && take_group(r, a) != 0)
            return -EBADMSG;
    }
    r->out->stats_read = true;
    return 0;
}

static void clear_stats(struct pna_phy_if *out)
{
    out->stats_read = false;
    for (int c = PNA_PHY_SYMBOL_ERRORS; c <= PNA_PHY_RMON_JABBERS; c++)
        out->c[c] = (struct pna_counter){0};
}

const struct pna_ethnl_request pna_ethnl_stats = {
    .kind = PNA_ETHNL_STATS,
    .name = "statistics",
    .msg = "STATS_GET",
    .cmd = ETHTOOL_MSG_STATS_GET,
    .reply_cmd = ETHTOOL_MSG_STATS_GET_REPLY,
    .hdr_attr = ETHTOOL_A_STATS_HEADER,
    .flags = ETHTOOL_FLAG_COMPACT_BITSETS,
    .max_attr = ETHTOOL_A_STATS_GRP,
    .policy = STATS_POLICY,
    .take = take_stats,
    .clear = clear_stats,
};

int pna_ethnl_parse_stats(const void *buf, size_t len, struct pna_phy_if *out)
{
    return pna_ethnl_parse_part(&pna_ethnl_stats, 0, buf, len, out, out->error,
                                sizeof out->error);
}
