/* sources/phy/ethtool_nl_fec.c -- ETHTOOL_MSG_FEC_GET: the FEC modes
 * configured, whether the mode is chosen automatically, the mode active,
 * and the FEC statistics (`ethtool -I --show-fec`; see ethtool_nl_reply.h
 * for how a request is made and its reply parsed).
 *
 * Asked with ETHTOOL_FLAG_COMPACT_BITSETS (the modes as one bitmap) and
 * ETHTOOL_FLAG_STATS (Linux 5.13 on; older kernels refuse the flag and the
 * socket asks again without it, see ethtool_nl.c). */
#include "pna_autoconf.h"
#include "sources/phy/ethtool_nl_reply.h"

#include <errno.h>
#include <inttypes.h>
#include <linux/ethtool.h>
#include <linux/ethtool_netlink.h>
#include <stdio.h>
#include <string.h>

_Static_assert(ETHTOOL_A_FEC_STATS <= PNA_ETHNL_MAX_ATTR, "the reply's table holds FEC's");

static const struct pna_nla_policy FEC_POLICY[ETHTOOL_A_FEC_STATS + 1] = {
    PNA_ETHNL_ATTR(ETHTOOL_A_FEC_HEADER, PNA_NLA_NESTED),
    PNA_ETHNL_ATTR(ETHTOOL_A_FEC_MODES, PNA_NLA_NESTED),
    PNA_ETHNL_ATTR(ETHTOOL_A_FEC_AUTO, PNA_NLA_UINT),
    PNA_ETHNL_ATTR(ETHTOOL_A_FEC_ACTIVE, PNA_NLA_UINT),
    PNA_ETHNL_ATTR(ETHTOOL_A_FEC_STATS, PNA_NLA_NESTED),
};

/* The statistics: u64 arrays, the first element the total and the rest per
 * lane (fec_stats_recalc()); empty when the driver does not count it.  PAD,
 * and the FEC histogram of newer kernels, are skipped. */
static const struct pna_nla_policy FEC_STATS_POLICY[ETHTOOL_A_FEC_STAT_CORR_BITS + 1] = {
    PNA_ETHNL_ATTR(ETHTOOL_A_FEC_STAT_CORRECTED, PNA_NLA_U64_ARRAY),
    PNA_ETHNL_ATTR(ETHTOOL_A_FEC_STAT_UNCORR, PNA_NLA_U64_ARRAY),
    PNA_ETHNL_ATTR(ETHTOOL_A_FEC_STAT_CORR_BITS, PNA_NLA_U64_ARRAY),
};

static const enum pna_phy_counter FEC_COUNTER_OF[ETHTOOL_A_FEC_STAT_CORR_BITS + 1] = {
    [ETHTOOL_A_FEC_STAT_CORRECTED] = PNA_PHY_FEC_CORRECTED_BLOCKS,
    [ETHTOOL_A_FEC_STAT_UNCORR] = PNA_PHY_FEC_UNCORRECTABLE_BLOCKS,
    [ETHTOOL_A_FEC_STAT_CORR_BITS] = PNA_PHY_FEC_CORRECTED_BITS,
};

/* A bitset (bitset.h): compact (ETHTOOL_A_BITSET_SIZE bits in
 * ETHTOOL_A_BITSET_VALUE, u32 words) or verbose (ETHTOOL_A_BITSET_BITS, one
 * BIT nest per listed bit).  MASK is not read. */
static const struct pna_nla_policy BITSET_POLICY[ETHTOOL_A_BITSET_VALUE + 1] = {
    PNA_ETHNL_ATTR(ETHTOOL_A_BITSET_NOMASK, PNA_NLA_FLAG),
    PNA_ETHNL_ATTR(ETHTOOL_A_BITSET_SIZE, PNA_NLA_UINT),
    PNA_ETHNL_ATTR(ETHTOOL_A_BITSET_BITS, PNA_NLA_NESTED),
    PNA_ETHNL_ATTR(ETHTOOL_A_BITSET_VALUE, PNA_NLA_BINARY),
};

static const struct pna_nla_policy BITS_POLICY[ETHTOOL_A_BITSET_BITS_BIT + 1] = {
    [ETHTOOL_A_BITSET_BITS_BIT] = {.kind = PNA_NLA_NESTED, .multi = true,
                                   .name = "ETHTOOL_A_BITSET_BITS_BIT"},
};

static const struct pna_nla_policy BIT_POLICY[ETHTOOL_A_BITSET_BIT_VALUE + 1] = {
    PNA_ETHNL_ATTR(ETHTOOL_A_BITSET_BIT_INDEX, PNA_NLA_UINT),
    PNA_ETHNL_ATTR(ETHTOOL_A_BITSET_BIT_VALUE, PNA_NLA_FLAG),
};

static enum pna_fec_mode fec_mode_of_bit(uint64_t bit)
{
    switch (bit) {
    case ETHTOOL_LINK_MODE_FEC_NONE_BIT: return PNA_FEC_OFF;
    case ETHTOOL_LINK_MODE_FEC_RS_BIT: return PNA_FEC_RS;
    case ETHTOOL_LINK_MODE_FEC_BASER_BIT: return PNA_FEC_BASER;
    case ETHTOOL_LINK_MODE_FEC_LLRS_BIT: return PNA_FEC_LLRS;
    default: return PNA_FEC_OTHER;
    }
}

/* Append the name of FEC link mode BIT to TEXT ("off", "rs", "baser",
 * "llrs", or "mode<N>" for a bit this agent does not know); a name that does
 * not fit is left out whole. */
static void fec_text_add(char *text, size_t size, uint32_t bit)
{
    char name[24];
    switch (bit) {
    case ETHTOOL_LINK_MODE_FEC_NONE_BIT: snprintf(name, sizeof name, "off"); break;
    case ETHTOOL_LINK_MODE_FEC_RS_BIT: snprintf(name, sizeof name, "rs"); break;
    case ETHTOOL_LINK_MODE_FEC_BASER_BIT: snprintf(name, sizeof name, "baser"); break;
    case ETHTOOL_LINK_MODE_FEC_LLRS_BIT: snprintf(name, sizeof name, "llrs"); break;
    default: snprintf(name, sizeof name, "mode%u", (unsigned)bit); break;
    }
    size_t have = strlen(text), add = strlen(name) + (have ? 1 : 0);
    if (have + add + 1 > size)
        return;
    snprintf(text + have, size - have, "%s%s", have ? " " : "", name);
}

/* The compact form: bit N set in the u32 words of VALUE. */
static int compact_modes(struct pna_ethnl_reply *r, const struct pna_nla *const *set, char *text,
                         size_t size)
{
    const struct pna_nla *value = set[ETHTOOL_A_BITSET_VALUE];
    if (!set[ETHTOOL_A_BITSET_SIZE])
        return pna_ethnl_malformed(r, "compact FEC modes without ETHTOOL_A_BITSET_SIZE");
    uint64_t nbits = pna_nla_uint(set[ETHTOOL_A_BITSET_SIZE]);
    size_t len = pna_nla_len(value);
    /* (nbits is the sender's u64: compared with the octets at hand, not
     * rounded up, which would wrap) */
    if (len % 4 != 0 || nbits > (uint64_t)len * 8)
        return pna_ethnl_malformed(r, "FEC modes of %" PRIu64 " bits in %zu octets", nbits, len);
    const uint8_t *words = pna_nla_data(value);
    for (uint64_t bit = 0; bit < nbits; bit++) {
        uint32_t word;
        memcpy(&word, words + (bit / 32) * 4, sizeof word);
        if (word & (1u << (bit % 32)))
            fec_text_add(text, size, (uint32_t)bit);
    }
    return 0;
}

/* The verbose form: without a mask (NOMASK, as the kernel sends it) every
 * listed bit is set; with one, a listed bit is set when it carries VALUE. */
static int verbose_modes(struct pna_ethnl_reply *r, const struct pna_nla *const *set, char *text,
                         size_t size)
{
    const struct pna_nla *bits[ETHTOOL_A_BITSET_BITS_BIT + 1];
    if (pna_ethnl_parse_nest(r, bits, ETHTOOL_A_BITSET_BITS_BIT, BITS_POLICY,
                             set[ETHTOOL_A_BITSET_BITS], "ETHTOOL_A_BITSET_BITS") != 0)
        return -EBADMSG;
    bool nomask = set[ETHTOOL_A_BITSET_NOMASK] != NULL;
    struct pna_nla_iter it;
    const struct pna_nla *bit;
    pna_nla_for_each(bit, it, set[ETHTOOL_A_BITSET_BITS]) {
        if (pna_nla_type(bit) != ETHTOOL_A_BITSET_BITS_BIT)
            continue;
        const struct pna_nla *f[ETHTOOL_A_BITSET_BIT_VALUE + 1];
        if (pna_ethnl_parse_nest(r, f, ETHTOOL_A_BITSET_BIT_VALUE, BIT_POLICY, bit,
                                 "ETHTOOL_A_BITSET_BITS_BIT") != 0)
            return -EBADMSG;
        if (!f[ETHTOOL_A_BITSET_BIT_INDEX])
            return pna_ethnl_malformed(r, "FEC mode without ETHTOOL_A_BITSET_BIT_INDEX");
        uint64_t index = pna_nla_uint(f[ETHTOOL_A_BITSET_BIT_INDEX]);
        if ((nomask || f[ETHTOOL_A_BITSET_BIT_VALUE]) && index <= UINT32_MAX)
            fec_text_add(text, size, (uint32_t)index);
    }
    return 0;
}

/* ETHTOOL_A_FEC_MODES, a bitset of link modes, as their names in TEXT. */
static int parse_fec_modes(struct pna_ethnl_reply *r, const struct pna_nla *modes, char *text,
                           size_t size)
{
    const struct pna_nla *set[ETHTOOL_A_BITSET_VALUE + 1];
    if (pna_ethnl_parse_nest(r, set, ETHTOOL_A_BITSET_VALUE, BITSET_POLICY, modes,
                             "ETHTOOL_A_FEC_MODES") != 0)
        return -EBADMSG;
    text[0] = '\0';
    if (set[ETHTOOL_A_BITSET_VALUE])
        return compact_modes(r, set, text, size);
    if (set[ETHTOOL_A_BITSET_BITS])
        return verbose_modes(r, set, text, size);
    return 0;
}

static int parse_fec_stats(struct pna_ethnl_reply *r, const struct pna_nla *stats)
{
    const struct pna_nla *tb[ETHTOOL_A_FEC_STAT_CORR_BITS + 1];
    if (pna_ethnl_parse_nest(r, tb, ETHTOOL_A_FEC_STAT_CORR_BITS, FEC_STATS_POLICY, stats,
                             "ETHTOOL_A_FEC_STATS") != 0)
        return -EBADMSG;
    for (unsigned t = ETHTOOL_A_FEC_STAT_CORRECTED; t <= ETHTOOL_A_FEC_STAT_CORR_BITS; t++)
        if (tb[t] && pna_nla_len(tb[t]) > 0)
            pna_ethnl_set_counter(r->out, FEC_COUNTER_OF[t], pna_nla_u64_at(tb[t], 0));
    return 0;
}

static int take_fec(struct pna_ethnl_reply *r, const struct pna_nla *const *tb)
{
    struct pna_phy_fec *f = &r->out->fec;
    if (tb[ETHTOOL_A_FEC_MODES] &&
        parse_fec_modes(r, tb[ETHTOOL_A_FEC_MODES], f->configured, sizeof f->configured) != 0)
        return -EBADMSG;
    if (tb[ETHTOOL_A_FEC_AUTO])
        f->auto_ = pna_nla_uint(tb[ETHTOOL_A_FEC_AUTO]) != 0;
    if (tb[ETHTOOL_A_FEC_ACTIVE])
        f->active = fec_mode_of_bit(pna_nla_uint(tb[ETHTOOL_A_FEC_ACTIVE]));
    if (tb[ETHTOOL_A_FEC_STATS] && parse_fec_stats(r, tb[ETHTOOL_A_FEC_STATS]) != 0)
        return -EBADMSG;
    f->read = true;
    return 0;
}

static void clear_fec(struct pna_phy_if *out)
{
    out->fec = (struct pna_phy_fec){0};
    for (unsigned t = ETHTOOL_A_FEC_STAT_CORRECTED; t <= ETHTOOL_A_FEC_STAT_CORR_BITS; t++)
        out->c[FEC_COUNTER_OF[t]] = (struct pna_counter){0};
}

const struct pna_ethnl_request pna_ethnl_fec = {
    .kind = PNA_ETHNL_FEC,
    .name = "FEC",
    .msg = "FEC_GET",
    .cmd = ETHTOOL_MSG_FEC_GET,
    .reply_cmd = ETHTOOL_MSG_FEC_GET_REPLY,
    .hdr_attr = ETHTOOL_A_FEC_HEADER,
    .flags = ETHTOOL_FLAG_COMPACT_BITSETS | ETHTOOL_FLAG_STATS,
    .max_attr = ETHTOOL_A_FEC_STATS,
    .policy = FEC_POLICY,
    .take = take_fec,
    .clear = clear_fec,
};

int pna_ethnl_parse_fec(const void *buf, size_t len, struct pna_phy_if *out)
{
    return pna_ethnl_parse_part(&pna_ethnl_fec, 0, buf, len, out, out->error, sizeof out->error);
}
