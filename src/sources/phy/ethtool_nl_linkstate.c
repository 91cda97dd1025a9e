/* sources/phy/ethtool_nl_linkstate.c -- ETHTOOL_MSG_LINKSTATE_GET: the link
 * as `ethtool IFNAME` prints it ("Link detected"), the signal quality index
 * of a T1 PHY, the extended state that says why a link is down, and the
 * link down counter (see ethtool_nl_reply.h for how a request is made and
 * its reply parsed).
 *
 * Asked with ETHTOOL_FLAG_STATS for the counter (Linux 6.2 on: older
 * kernels refuse the flag, and the socket asks again without it, see
 * ethtool_nl.c). */
#include "pna_autoconf.h"
#include "sources/phy/ethtool_nl_reply.h"

#include <linux/ethtool_netlink.h>

/* Linux 6.2 appended this to the LINKSTATE attributes (include/uapi/linux/
 * ethtool_netlink.h; later kernels generate it into ethtool_netlink_generated.h
 * from the YNL spec): a u32 count of link down events, sent when the request
 * sets ETHTOOL_FLAG_STATS and the driver has get_link_ext_stats.  Debian
 * 12's headers (6.1) lack it.  Own name, because newer headers declare the
 * kernel's as an enum constant. */
#define PNA_ETHTOOL_A_LINKSTATE_EXT_DOWN_CNT 7
#define LINKSTATE_MAX PNA_ETHTOOL_A_LINKSTATE_EXT_DOWN_CNT

_Static_assert(LINKSTATE_MAX <= PNA_ETHNL_MAX_ATTR, "the reply's table holds LINKSTATE's");

static const struct pna_nla_policy LINKSTATE_POLICY[LINKSTATE_MAX + 1] = {
    PNA_ETHNL_ATTR(ETHTOOL_A_LINKSTATE_HEADER, PNA_NLA_NESTED),
    PNA_ETHNL_ATTR(ETHTOOL_A_LINKSTATE_LINK, PNA_NLA_UINT),
    PNA_ETHNL_ATTR(ETHTOOL_A_LINKSTATE_SQI, PNA_NLA_UINT),
    PNA_ETHNL_ATTR(ETHTOOL_A_LINKSTATE_SQI_MAX, PNA_NLA_UINT),
    PNA_ETHNL_ATTR(ETHTOOL_A_LINKSTATE_EXT_STATE, PNA_NLA_UINT),
    PNA_ETHNL_ATTR(ETHTOOL_A_LINKSTATE_EXT_SUBSTATE, PNA_NLA_UINT),
    [PNA_ETHTOOL_A_LINKSTATE_EXT_DOWN_CNT] = {.kind = PNA_NLA_UINT,
                                              .name = "ETHTOOL_A_LINKSTATE_EXT_DOWN_CNT"},
};

/* enum ethtool_link_ext_state as the model's code: the kernel's value + 1,
 * so that 0 means none (phy.h; the substates already start at 1); 254 and
 * above cannot be shifted and become 255. */
static uint8_t ext_state_code(uint64_t kernel_state)
{
    return kernel_state >= 254 ? 255 : (uint8_t)(kernel_state + 1);
}

static uint32_t clamp_u32(uint64_t v)
{
    return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

static int take_linkstate(struct pna_ethnl_reply *r, const struct pna_nla *const *tb)
{
    struct pna_phy_if *out = r->out;
    struct pna_phy_link *l = &out->link;
    if (r->ifindex)
        out->ifindex = r->ifindex;
    if (tb[ETHTOOL_A_LINKSTATE_LINK]) {
        l->has_link = true;
        l->link = pna_nla_uint(tb[ETHTOOL_A_LINKSTATE_LINK]) != 0;
    }
    /* The kernel sends both or neither (linkstate_sqi_valid()). */
    if (tb[ETHTOOL_A_LINKSTATE_SQI] && tb[ETHTOOL_A_LINKSTATE_SQI_MAX]) {
        l->has_sqi = true;
        l->sqi = clamp_u32(pna_nla_uint(tb[ETHTOOL_A_LINKSTATE_SQI]));
        l->sqi_max = clamp_u32(pna_nla_uint(tb[ETHTOOL_A_LINKSTATE_SQI_MAX]));
    }
    if (tb[ETHTOOL_A_LINKSTATE_EXT_STATE]) {
        l->has_ext_state = true;
        l->ext_state = ext_state_code(pna_nla_uint(tb[ETHTOOL_A_LINKSTATE_EXT_STATE]));
    }
    if (tb[ETHTOOL_A_LINKSTATE_EXT_SUBSTATE]) {
        uint64_t v = pna_nla_uint(tb[ETHTOOL_A_LINKSTATE_EXT_SUBSTATE]);
        l->ext_substate = v > 255 ? 255 : (uint8_t)v;
    }
    if (tb[PNA_ETHTOOL_A_LINKSTATE_EXT_DOWN_CNT])
        pna_ethnl_set_counter(out, PNA_PHY_LINK_DOWN_EVENTS,
                              pna_nla_uint(tb[PNA_ETHTOOL_A_LINKSTATE_EXT_DOWN_CNT]));
    l->read = true;
    return 0;
}

static void clear_linkstate(struct pna_phy_if *out)
{
    out->link = (struct pna_phy_link){0};
    out->c[PNA_PHY_LINK_DOWN_EVENTS] = (struct pna_counter){0};
}

const struct pna_ethnl_request pna_ethnl_linkstate = {
    .kind = PNA_ETHNL_LINKSTATE,
    .name = "link state",
    .msg = "LINKSTATE_GET",
    .cmd = ETHTOOL_MSG_LINKSTATE_GET,
    .reply_cmd = ETHTOOL_MSG_LINKSTATE_GET_REPLY,
    .hdr_attr = ETHTOOL_A_LINKSTATE_HEADER,
    .flags = ETHTOOL_FLAG_STATS,
    .max_attr = LINKSTATE_MAX,
    .policy = LINKSTATE_POLICY,
    .take = take_linkstate,
    .clear = clear_linkstate,
};

int pna_ethnl_parse_linkstate(const void *buf, size_t len, struct pna_phy_if *out)
{
    return pna_ethnl_parse_part(&pna_ethnl_linkstate, 0, buf, len, out, out->error,
                                sizeof out->error);
}
