/* sources/phy/ethtool_nl_reply.h -- what the parts of the ethtool netlink
 * reader share, inside sources/phy/ only (the public interface is
 * ethtool_nl.h):
 *
 *   ethtool_nl.c            the socket: the family, requests, answers
 *   ethtool_nl_reply.c      one reply: its messages, the refusal, the header
 *   ethtool_nl_linkstate.c  LINKSTATE_GET    ethtool_nl_fec.c    FEC_GET
 *   ethtool_nl_stats.c      STATS_GET        ethtool_nl_pause.c  PAUSE_GET
 *   ethtool_nl_eeprom.c     MODULE_EEPROM_GET
 *
 * Each request kind is a struct pna_ethnl_request: how it is asked, the
 * policy of its reply's attributes, and how those fill its part of struct
 * pna_phy_if.  Errors follow transport/netlink.h's convention. */
#ifndef PNA_SOURCES_PHY_ETHTOOL_NL_REPLY_H
#define PNA_SOURCES_PHY_ETHTOOL_NL_REPLY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sources/phy/ethtool_nl.h"
#include "transport/netlink.h"

/* The request kinds, in the order pna_ethnl_read_phy() asks them. */
enum pna_ethnl_kind {
    PNA_ETHNL_LINKSTATE,
    PNA_ETHNL_FEC,
    PNA_ETHNL_STATS,
    PNA_ETHNL_PAUSE,
    PNA_ETHNL_EEPROM,
};

/* The most attribute types a reply's top level is parsed into. */
#define PNA_ETHNL_MAX_ATTR 8

/* A policy entry named after its attribute's constant. */
#define PNA_ETHNL_ATTR(type, kind_) [type] = {.kind = (kind_), .name = #type}

struct pna_ethnl_reply;

struct pna_ethnl_request {
    enum pna_ethnl_kind kind;
    const char *name;          /* the first words of its error lines: "link state" */
    const char *msg;           /* ETHTOOL_MSG_<msg> */
    uint8_t cmd, reply_cmd;
    uint16_t hdr_attr;         /* its ETHTOOL_A_*_HEADER */
    uint32_t flags;            /* ETHTOOL_A_HEADER_FLAGS sent */
    unsigned max_attr;         /* the reply's attributes: policy[0..max_attr] */
    const struct pna_nla_policy *policy;
    /* Fill the request's part from the reply's attributes (the header has
     * been read): 0, or -EBADMSG through pna_ethnl_malformed(). */
    int (*take)(struct pna_ethnl_reply *r, const struct pna_nla *const *tb);
    /* Make the request's part of OUT absent; NULL: it has none. */
    void (*clear)(struct pna_phy_if *out);
    /* Its own words for a refusal with errno E, or NULL for the common ones. */
    const char *(*refusal)(int e, const char *extack);
};

extern const struct pna_ethnl_request pna_ethnl_linkstate;
extern const struct pna_ethnl_request pna_ethnl_fec;
extern const struct pna_ethnl_request pna_ethnl_stats;
extern const struct pna_ethnl_request pna_ethnl_pause;
extern const struct pna_ethnl_request pna_ethnl_eeprom;

/* One reply being parsed. */
struct pna_ethnl_reply {
    const struct pna_ethnl_request *req;
    char *err;                 /* where its error line goes (may be NULL) */
    size_t errlen;
    uint16_t family;           /* the message type expected; 0: any generic netlink type */
    bool got_reply;
    int32_t ifindex;           /* the header's ETHTOOL_A_HEADER_DEV_INDEX; 0: none */
    const uint8_t *attrs;      /* the reply's attributes, for the repeated ones */
    size_t attrs_len;
    struct pna_phy_if *out;    /* the phy requests' part */
    const uint8_t *eeprom;     /* MODULE_EEPROM_GET: its DATA, once found */
    size_t eeprom_len;
};

/* R's error line from FMT; returns RC (a negative errno). */
int pna_ethnl_fail(struct pna_ethnl_reply *r, int rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* "<request>: malformed reply: <what>"; returns -EBADMSG. */
int pna_ethnl_malformed(struct pna_ethnl_reply *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Parse NEST (CONTAINER in reasons) into TB[0..MAXTYPE] with POLICY: 0, or
 * -EBADMSG with the parser's reason as a malformed reply. */
int pna_ethnl_parse_nest(struct pna_ethnl_reply *r, const struct pna_nla **tb, unsigned maxtype,
                         const struct pna_nla_policy *policy, const struct pna_nla *nest,
                         const char *container);

void pna_ethnl_set_counter(struct pna_phy_if *out, enum pna_phy_counter c, uint64_t v);

/* LEN octets of netlink messages: one reply to R->req (an acknowledgement
 * may follow) or the NLMSG_ERROR refusing it.  0, or a negative errno with
 * R's error line: the kernel's (its refusal), -EBADMSG (malformed). */
int pna_ethnl_parse_messages(struct pna_ethnl_reply *r, const void *buf, size_t len);

/* One reply of REQ into its part of OUT, cleared first and again when the
 * reply is not an answer (OUT->ifindex then kept).  FAMILY: the message
 * type expected, 0 for any.  0 with ERR "", or a negative errno with ERR. */
int pna_ethnl_parse_part(const struct pna_ethnl_request *req, uint16_t family, const void *buf,
                         size_t len, struct pna_phy_if *out, char *err, size_t errlen);

/* MODULE_EEPROM_GET (ethtool_nl_eeprom.c): the kernel's rules for a read,
 * checked before it is asked (0, or -EINVAL with ERR); and its reply's
 * LENGTH octets into DATA (the returns of pna_ethnl_parse_eeprom()). */
int pna_ethnl_eeprom_args_ok(uint8_t i2c_addr, uint8_t page, uint32_t offset, uint32_t length,
                             char *err, size_t errlen);
int pna_ethnl_eeprom_parse(uint16_t family, const void *buf, size_t len, uint8_t *data,
                           uint32_t length, char *err, size_t errlen);

#endif
