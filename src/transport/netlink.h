/* transport/netlink.h -- netlink messages and attributes as the kernel sends
 * them, parsed with every length checked: the one attribute parser of the
 * readers that talk to the kernel over netlink (sources/phy/ethtool_nl*.c,
 * sources/pfc/dcb.c, sources/rdma/rtnl_link.c), and their error convention.
 *
 * The attribute parse is the kernel's nla_parse() with a struct nla_policy
 * (and ethtool's use of it): a policy entry per attribute type says what the
 * attribute must be; the parse fills tb[type] with the attribute or NULL and
 * refuses, with a reason that names the attribute, one that does not fit.
 * No I/O and no libmnl: the parsers of the readers build and run without it
 * (the fuzzing harnesses and the minimal build's unit tests use them), and
 * libmnl's attribute walk (mnl_attr_for_each(), under mnl_attr_parse())
 * stops silently at an attribute that runs past its container, where this
 * parse must refuse the reply.  The sockets stay libmnl's (mnl_socket_*,
 * mnl_attr_put_*()).
 *
 * THE ERROR CONVENTION of those readers:
 *   - a call returns 0, or a negative errno: the kernel's own when it refused
 *     the request (the code of its NLMSG_ERROR), -EBADMSG when its answer is
 *     malformed, -ETIMEDOUT when none came in time, -EMSGSIZE when one was
 *     too large, -ENODEV for a name that cannot be an interface's, -ENOSYS in
 *     a build without libmnl, or the errno of the system call that failed;
 *   - with it, one line of text (the reader's error buffer) that names what
 *     failed and, where the kernel sent an extended ACK message
 *     (NLMSGERR_ATTR_MSG, struct pna_nl_error's extack), ends with it after
 *     ": " ("link state: no such interface (ENODEV): no device matches name").
 *
 * Every function reads through memcpy: the data need not be aligned, and a
 * length read from the data is compared in size_t (NLMSG_ALIGN() wraps a
 * 32-bit length near 4 GiB to 0; libmnl's mnl_nlmsg_ok() compares one as an
 * int). */
#ifndef PNA_TRANSPORT_NETLINK_H
#define PNA_TRANSPORT_NETLINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- messages ------------------------------------------------------------- */

/* One message of a datagram. */
struct pna_nl_msg {
    uint16_t type, flags;
    uint32_t seq, portid;
    const uint8_t *start;      /* the struct nlmsghdr */
    size_t len;                /* nlmsg_len: header and payload */
    const uint8_t *payload;    /* after the header */
    size_t payload_len;
};

/* The messages of LEN octets at BUF, one after the other. */
struct pna_nl_msgs {
    const uint8_t *p;
    size_t left;
};

void pna_nl_msgs_init(struct pna_nl_msgs *it, const void *buf, size_t len);

/* The next message into *M: 1, 0 at the end of the data, -EBADMSG with WHY
 * ("message truncated (N octets left)") when the message at hand is shorter
 * than its own header or longer than what is left.  The last message's
 * padding may be missing, as the kernel's netlink_rcv_skb() allows. */
int pna_nl_msgs_next(struct pna_nl_msgs *it, struct pna_nl_msg *m, char *why, size_t whylen);

/* How far IT has come from BUF: where the next message starts. */
size_t pna_nl_msgs_used(const struct pna_nl_msgs *it, const void *buf);

/* ---- NLMSG_ERROR: refusals, acknowledgements, the extended ACK -------------- */

struct pna_nl_error {
    int errnum;                /* 0: an acknowledgement; else the errno refused with (> 0) */
    const uint8_t *request;    /* the kernel's copy of the request: its struct nlmsghdr, */
    size_t request_len;        /* and its payload unless the copy was capped (NLM_F_CAPPED) */
    char extack[96];           /* NLMSGERR_ATTR_MSG in printable ASCII, or "" */
};

/* Parse the NLMSG_ERROR message M into *E.  Returns 0, or -EBADMSG with WHY
 * when it is shorter than a struct nlmsgerr ("NLMSG_ERROR of N octets") or
 * its code is not 0 or an errno ("NLMSG_ERROR code N").  An extended ACK
 * that cannot be read leaves extack "": the code alone is the answer. */
int pna_nl_error_parse(const struct pna_nl_msg *m, struct pna_nl_error *e, char *why,
                       size_t whylen);

/* "ENODEV" for ENODEV, for the errnos netlink answers with; NULL for others. */
const char *pna_errno_name(int e);

/* ---- attributes ------------------------------------------------------------- */

/* An attribute where it lies in a message (perhaps unaligned, so the type is
 * incomplete: read it through the functions below). */
struct pna_nla;

enum pna_nla_kind {
    PNA_NLA_UNSPEC = 0,  /* not checked, may repeat (the kernel's NLA_UNSPEC) */
    PNA_NLA_U8,          /* exactly 1 octet */
    PNA_NLA_U16,         /* exactly 2 */
    PNA_NLA_U32,         /* exactly 4 */
    PNA_NLA_U64,         /* exactly 8 */
    PNA_NLA_UINT,        /* 1, 2, 4 or 8 octets: ethtool's integers, whose width the
                            kernel has changed (nla_put_uint(), NLA_UINT) */
    PNA_NLA_STRING,      /* NUL-terminated within its payload; max_len: the longest
                            string, the NUL not counted (0: no limit) */
    PNA_NLA_BINARY,      /* min_len to max_len octets (max_len 0: no limit) */
    PNA_NLA_NESTED,      /* empty, or room for an attribute; its attributes are
                            checked by pna_nla_parse_nested() */
    PNA_NLA_FLAG,        /* no payload */
    PNA_NLA_U64_ARRAY,   /* whole u64s, none or more */
};

/* What the attribute of one type must be.  A checked attribute (any kind but
 * UNSPEC) may appear once in its container unless MULTI says it may repeat
 * (list entries, padding): tb[] then holds the last, and the container is
 * walked for all of them (pna_nla_for_each). */
struct pna_nla_policy {
    enum pna_nla_kind kind;
    bool multi;
    uint16_t min_len, max_len;
    const char *name;    /* in reasons: "ETHTOOL_A_PAUSE_STAT_TX_FRAMES", "device name" */
};

/* Parse the attributes in LEN octets at DATA (CONTAINER names it in reasons:
 * "the message", a nest's name) into TB[0..MAXTYPE]: each type's attribute
 * or NULL.  POLICY[0..MAXTYPE] (NULL: nothing checked) says what each type
 * must be; types above MAXTYPE are skipped, as a newer kernel's attributes
 * must be.  One to three octets after the last attribute are its padding.
 * Returns 0, or -EBADMSG with the reason in WHY and TB all NULL:
 *   "attribute of N octets in CONTAINER" (shorter than its own header),
 *   "attribute of N octets in CONTAINER runs past its end (M left)",
 *   "NAME twice in CONTAINER", "NAME is N octets" (a number or a flag of
 *   the wrong size), "NAME is N octets, expected MIN" / ", at most MAX"
 *   (binary), "NAME not terminated", "NAME is longer than MAX octets"
 *   (string), "NAME is N octets, not whole u64s", "NAME is N octets, not a
 *   nest".  WHY is left alone on success. */
int pna_nla_parse(const struct pna_nla **tb, unsigned maxtype,
                  const struct pna_nla_policy *policy, const void *data, size_t len,
                  const char *container, char *why, size_t whylen);

/* The same on the payload of NEST (an attribute a parse checked as
 * PNA_NLA_NESTED); CONTAINER is its name. */
int pna_nla_parse_nested(const struct pna_nla **tb, unsigned maxtype,
                         const struct pna_nla_policy *policy, const struct pna_nla *nest,
                         const char *container, char *why, size_t whylen);

/* The attributes of a nest (or of LEN octets at DATA) one after the other,
 * in the kernel's order: how a type that may repeat is read, after a parse
 * of the same octets.  The walk stops at the first one that does not fit
 * (which that parse has refused). */
struct pna_nla_iter {
    const uint8_t *p;
    size_t left;
};

void pna_nla_iter_init(struct pna_nla_iter *it, const void *data, size_t len);
void pna_nla_iter_nested(struct pna_nla_iter *it, const struct pna_nla *nest);
const struct pna_nla *pna_nla_iter_next(struct pna_nla_iter *it);

#define pna_nla_for_each(a, it, nest) \
    for (pna_nla_iter_nested(&(it), (nest)); ((a) = pna_nla_iter_next(&(it))) != NULL;)

/* The type (without NLA_F_NESTED and NLA_F_NET_BYTEORDER), the payload and
 * its length. */
uint16_t pna_nla_type(const struct pna_nla *a);
size_t pna_nla_len(const struct pna_nla *a);
const uint8_t *pna_nla_data(const struct pna_nla *a);

/* The value of a checked number (PNA_NLA_U8 ... PNA_NLA_UINT), in host order;
 * 0 for a payload too short for it. */
uint8_t pna_nla_u8(const struct pna_nla *a);
uint16_t pna_nla_u16(const struct pna_nla *a);
uint32_t pna_nla_u32(const struct pna_nla *a);
uint64_t pna_nla_u64(const struct pna_nla *a);
uint64_t pna_nla_uint(const struct pna_nla *a);

/* Element I of a checked PNA_NLA_U64_ARRAY (0 past its end). */
uint64_t pna_nla_u64_at(const struct pna_nla *a, size_t i);

/* A checked PNA_NLA_STRING. */
const char *pna_nla_str(const struct pna_nla *a);

#endif
