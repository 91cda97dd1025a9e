/* sources/phy/ethtool_nl_eeprom.c -- ETHTOOL_MSG_MODULE_EEPROM_GET: up to
 * 128 octets of one page of a pluggable module's EEPROM (what `ethtool -m`
 * reads; see ethtool_nl_reply.h for how a request is made and its reply
 * parsed).  The request names OFFSET, LENGTH, PAGE, BANK and I2C_ADDRESS;
 * the answer is DATA.
 *
 * MODULE_EEPROM_GET is GENL_UNS_ADMIN_PERM (net/ethtool/netlink.c): it needs
 * CAP_NET_ADMIN in the user namespace that owns the socket's network
 * namespace, and is refused with EPERM otherwise (recorded in
 * tests/fixtures/ethtool-nl/). */
#include "pna_autoconf.h"
#include "sources/phy/ethtool_nl_reply.h"

#include <errno.h>
#include <linux/ethtool_netlink.h>
#include <string.h>

/* ETH_MODULE_EEPROM_PAGE_LEN and ETH_MODULE_MAX_I2C_ADDRESS live in the
 * kernel's include/linux/ethtool.h, not in the uapi headers. */
#define EEPROM_HALF_PAGE 128u
#define EEPROM_MAX_I2C_ADDRESS 0x7fu

_Static_assert(ETHTOOL_A_MODULE_EEPROM_DATA <= PNA_ETHNL_MAX_ATTR,
               "the reply's table holds MODULE_EEPROM's");

static const struct pna_nla_policy EEPROM_POLICY[ETHTOOL_A_MODULE_EEPROM_DATA + 1] = {
    PNA_ETHNL_ATTR(ETHTOOL_A_MODULE_EEPROM_HEADER, PNA_NLA_NESTED),
    PNA_ETHNL_ATTR(ETHTOOL_A_MODULE_EEPROM_DATA, PNA_NLA_BINARY),
};

static int take_eeprom(struct pna_ethnl_reply *r, const struct pna_nla *const *tb)
{
    if (tb[ETHTOOL_A_MODULE_EEPROM_DATA]) {
        r->eeprom = pna_nla_data(tb[ETHTOOL_A_MODULE_EEPROM_DATA]);
        r->eeprom_len = pna_nla_len(tb[ETHTOOL_A_MODULE_EEPROM_DATA]);
    }
    return 0;
}

/* The module's words for a refusal; NULL: the common ones. */
static const char *eeprom_refusal(int e, const char *extack)
{
    switch (e) {
    case ENODEV:
        /* The header's device lookup says "no device matches name"; a
         * module EEPROM read refused with ENODEV otherwise found no module. */
        return strncmp(extack, "no device matches", 17) != 0 ? "no module" : NULL;
    case EPERM:
    case EACCES:
        return "not permitted without CAP_NET_ADMIN";
    case EIO:
    case EREMOTEIO:
        return "module not readable";
    default:
        return NULL;
    }
}

const struct pna_ethnl_request pna_ethnl_eeprom = {
    .kind = PNA_ETHNL_EEPROM,
    .name = "module EEPROM",
    .msg = "MODULE_EEPROM_GET",
    .cmd = ETHTOOL_MSG_MODULE_EEPROM_GET,
    .reply_cmd = ETHTOOL_MSG_MODULE_EEPROM_GET_REPLY,
    .hdr_attr = ETHTOOL_A_MODULE_EEPROM_HEADER,
    .flags = 0,
    .max_attr = ETHTOOL_A_MODULE_EEPROM_DATA,
    .policy = EEPROM_POLICY,
    .take = take_eeprom,
    .refusal = eeprom_refusal,
};

static int length_ok(struct pna_ethnl_reply *r, uint32_t length)
{
    if (length == 0 || length > EEPROM_HALF_PAGE)
        return pna_ethnl_fail(r, -EINVAL, "module EEPROM: length %u, not 1 to %u",
                              (unsigned)length, EEPROM_HALF_PAGE);
    return 0;
}

int pna_ethnl_eeprom_parse(uint16_t family, const void *buf, size_t len, uint8_t *data,
                           uint32_t length, char *err, size_t errlen)
{
    struct pna_ethnl_reply r = {.req = &pna_ethnl_eeprom, .err = err, .errlen = errlen,
                                .family = family};
    int rc;
    if ((rc = length_ok(&r, length)) != 0 || (rc = pna_ethnl_parse_messages(&r, buf, len)) != 0)
        return rc;
    if (!r.eeprom)
        return pna_ethnl_malformed(&r, "no ETHTOOL_A_MODULE_EEPROM_DATA");
    if (r.eeprom_len != length)
        return pna_ethnl_malformed(&r, "%zu octets of data for %u asked", r.eeprom_len,
                                   (unsigned)length);
    memcpy(data, r.eeprom, length);
    if (err && errlen)
        err[0] = '\0';
    return 0;
}

int pna_ethnl_parse_eeprom(const void *buf, size_t len, uint8_t *data, uint32_t length, char *err,
                           size_t errlen)
{
    return pna_ethnl_eeprom_parse(0, buf, len, data, length, err, errlen);
}

/* The kernel's rules (eeprom_parse_request()): at most 128 octets, within
 * the lower half (offsets 0-127, page 0 only) or within the upper half
 * (128-255). */
int pna_ethnl_eeprom_args_ok(uint8_t i2c_addr, uint8_t page, uint32_t offset, uint32_t length,
                             char *err, size_t errlen)
{
    struct pna_ethnl_reply r = {.req = &pna_ethnl_eeprom, .err = err, .errlen = errlen};
    if (length_ok(&r, length) != 0)
        return -EINVAL;
    if (i2c_addr > EEPROM_MAX_I2C_ADDRESS)
        return pna_ethnl_fail(&r, -EINVAL, "module EEPROM: I2C address 0x%x above 0x7f",
                              (unsigned)i2c_addr);
    if (offset >= 2 * EEPROM_HALF_PAGE)
        return pna_ethnl_fail(&r, -EINVAL, "module EEPROM: offset %u past 255", (unsigned)offset);
    if (offset < EEPROM_HALF_PAGE && page != 0)
        return pna_ethnl_fail(&r, -EINVAL,
                              "module EEPROM: offset %u is in the lower page, which has no page %u",
                              (unsigned)offset, (unsigned)page);
    uint32_t end = offset < EEPROM_HALF_PAGE ? EEPROM_HALF_PAGE : 2 * EEPROM_HALF_PAGE;
    if (length > end - offset)
        return pna_ethnl_fail(&r, -EINVAL, "module EEPROM: offset %u + length %u crosses offset %u",
                              (unsigned)offset, (unsigned)length, (unsigned)end);
    return 0;
}
