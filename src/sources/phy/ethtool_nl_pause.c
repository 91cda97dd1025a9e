/* sources/phy/ethtool_nl_pause.c -- ETHTOOL_MSG_PAUSE_GET: the 802.3x pause
 * frames sent and received (`ethtool -I --show-pause`; see
 * ethtool_nl_reply.h for how a request is made and its reply parsed).
 *
 * Asked with ETHTOOL_FLAG_STATS (Linux 5.10 on; older kernels refuse the
 * flag and the socket asks again without it, see ethtool_nl.c).  AUTONEG,
 * RX and TX, the configuration, are not in the model. */
#include "pna_autoconf.h"
#include "sources/phy/ethtool_nl_reply.h"

#include <errno.h>
#include <linux/ethtool_netlink.h>

_Static_assert(ETHTOOL_A_PAUSE_STATS <= PNA_ETHNL_MAX_ATTR, "the reply's table holds PAUSE's");

static const struct pna_nla_policy PAUSE_POLICY[ETHTOOL_A_PAUSE_STATS + 1] = {
    PNA_ETHNL_ATTR(ETHTOOL_A_PAUSE_HEADER, PNA_NLA_NESTED),
    PNA_ETHNL_ATTR(ETHTOOL_A_PAUSE_STATS, PNA_NLA_NESTED),
};

static const struct pna_nla_policy PAUSE_STATS_POLICY[ETHTOOL_A_PAUSE_STAT_RX_FRAMES + 1] = {
    PNA_ETHNL_ATTR(ETHTOOL_A_PAUSE_STAT_TX_FRAMES, PNA_NLA_UINT),
    PNA_ETHNL_ATTR(ETHTOOL_A_PAUSE_STAT_RX_FRAMES, PNA_NLA_UINT),
};

static int take_pause(struct pna_ethnl_reply *r, const struct pna_nla *const *tb)
{
    if (!tb[ETHTOOL_A_PAUSE_STATS])
        return 0;  /* a driver without pause statistics */
    const struct pna_nla *st[ETHTOOL_A_PAUSE_STAT_RX_FRAMES + 1];
    if (pna_ethnl_parse_nest(r, st, ETHTOOL_A_PAUSE_STAT_RX_FRAMES, PAUSE_STATS_POLICY,
                             tb[ETHTOOL_A_PAUSE_STATS], "ETHTOOL_A_PAUSE_STATS") != 0)
        return -EBADMSG;
    if (st[ETHTOOL_A_PAUSE_STAT_TX_FRAMES])
        pna_ethnl_set_counter(r->out, PNA_PHY_PAUSE_TX_FRAMES,
                              pna_nla_uint(st[ETHTOOL_A_PAUSE_STAT_TX_FRAMES]));
    if (st[ETHTOOL_A_PAUSE_STAT_RX_FRAMES])
        pna_ethnl_set_counter(r->out, PNA_PHY_PAUSE_RX_FRAMES,
                              pna_nla_uint(st[ETHTOOL_A_PAUSE_STAT_RX_FRAMES]));
    return 0;
}

static void clear_pause(struct pna_phy_if *out)
{
    out->c[PNA_PHY_PAUSE_TX_FRAMES] = (struct pna_counter){0};
    out->c[PNA_PHY_PAUSE_RX_FRAMES] = (struct pna_counter){0};
}

const struct pna_ethnl_request pna_ethnl_pause = {
    .kind = PNA_ETHNL_PAUSE,
    .name = "pause",
    .msg = "PAUSE_GET",
    .cmd = ETHTOOL_MSG_PAUSE_GET,
    .reply_cmd = ETHTOOL_MSG_PAUSE_GET_REPLY,
    .hdr_attr = ETHTOOL_A_PAUSE_HEADER,
    .flags = ETHTOOL_FLAG_STATS,
    .max_attr = ETHTOOL_A_PAUSE_STATS,
    .policy = PAUSE_POLICY,
    .take = take_pause,
    .clear = clear_pause,
};

int pna_ethnl_parse_pause(const void *buf, size_t len, struct pna_phy_if *out)
{
    return pna_ethnl_parse_part(&pna_ethnl_pause, 0, buf, len, out, out->error,
                                sizeof out->error);
}
