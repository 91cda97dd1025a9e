/* sources/phy/ethtool_nl.h -- the kernel's ethtool netlink interface (generic
 * netlink family "ethtool", Linux 5.6+), in-process with libmnl: what
 * `ethtool --show-fec -I`, `ethtool -I --show-pause`, `ethtool -S --all-groups`
 * and `ethtool` (link state) print, and the module EEPROM pages `ethtool -m`
 * reads, without running ethtool.
 *
 * One socket per poller thread; every request waits at most about a second.
 * The link state, FEC, statistics and pause requests need no capability; the
 * module EEPROM needs CAP_NET_ADMIN (EPERM without it): see ethtool_nl.c.
 * Errors follow transport/netlink.h's convention: a negative errno (the
 * kernel's own when it refused) and one line naming the request, ending in
 * the kernel's extended ACK message where it sent one. */
#ifndef PNA_SOURCES_PHY_ETHTOOL_NL_H
#define PNA_SOURCES_PHY_ETHTOOL_NL_H

#include <stddef.h>
#include <stdint.h>

#include "model/phy/phy.h"

struct pna_ethnl;

/* Open a generic netlink socket in the calling thread's network namespace and
 * resolve the "ethtool" family.  NULL with ERR when the kernel has no ethtool
 * netlink or the agent was built without libmnl. */
struct pna_ethnl *pna_ethnl_open(char *err, size_t errlen);
void pna_ethnl_close(struct pna_ethnl *nl);

/* Read IFNAME's link state, FEC (with statistics), statistics groups and
 * pause statistics into OUT (OUT->ifname is set by the caller; the rest is
 * filled).  Parts the driver does not offer stay absent.  Returns 0 when at
 * least the link state was read, else a negative errno with OUT->error set
 * (-ENODEV "link state: no such interface (ENODEV): no device matches name",
 * -ETIMEDOUT, -EBADMSG for a malformed answer, -ENOSYS without libmnl). */
int pna_ethnl_read_phy(struct pna_ethnl *nl, struct pna_phy_if *out);

/* Read LENGTH bytes (at most 128) of IFNAME's module EEPROM at OFFSET of PAGE
 * (and BANK) at I2C address I2C_ADDR (0x50; 0x51 for SFF-8472 diagnostics)
 * into BUF (ETHTOOL_MSG_MODULE_EEPROM_GET).  Offsets 0-127 are the lower
 * page, 128-255 the upper page PAGE.  Returns 0, or a negative errno with
 * ERR, one line naming the request ("module EEPROM: no module (ENODEV)",
 * "module EEPROM: not supported by the driver (EOPNOTSUPP)", "module EEPROM:
 * not permitted without CAP_NET_ADMIN (EPERM)", ...; -EINVAL for a read the
 * kernel's rules refuse, checked before it is asked). */
int pna_ethnl_module_eeprom(struct pna_ethnl *nl, const char *ifname, uint8_t i2c_addr,
                            uint8_t page, uint8_t bank, uint32_t offset, uint32_t length,
                            uint8_t *buf, char *err, size_t errlen);

/* Parsers of the kernel's replies, for tests and fuzzing: LEN bytes of one
 * reply (netlink header included, possibly an NLMSG_ERROR).  The same
 * returns: 0, the kernel's -errno for its refusal, and -EBADMSG for
 * malformed input, each with OUT->error (or ERR) set.  Any byte sequence is
 * accepted, never a read outside BUF.  They build without libmnl. */
int pna_ethnl_parse_linkstate(const void *buf, size_t len, struct pna_phy_if *out);
int pna_ethnl_parse_fec(const void *buf, size_t len, struct pna_phy_if *out);
int pna_ethnl_parse_stats(const void *buf, size_t len, struct pna_phy_if *out);
int pna_ethnl_parse_pause(const void *buf, size_t len, struct pna_phy_if *out);
int pna_ethnl_parse_eeprom(const void *buf, size_t len, uint8_t *data, uint32_t length,
                           char *err, size_t errlen);

#endif
