/* sources/pfc/lldp.h -- the LLDP neighbour of each interface, as the node's
 * lldpd knows it: asked over lldpd's control socket through liblldpctl.
 *
 * The agent only reads: it never configures lldpd, never sends LLDP itself.
 * Connecting needs write access to the socket (Debian: /run/lldpd.socket,
 * owner and group _lldpd, mode 0770): root keeping CAP_DAC_OVERRIDE, or a
 * member of group _lldpd (docs/security.md, "lldpd's control socket").
 *
 * lldpd runs in one network namespace and knows the interfaces of that one:
 * the socket given is the lldpd of the namespace whose interfaces are wanted.
 *
 * The PFC Configuration TLV decoder (lldp_tlv.c) is pure and built in every
 * configuration; the reader (lldp.c) needs liblldpctl (HAVE_LLDPCTL) and
 * fails with "built without liblldpctl" otherwise. */
#ifndef PNA_SOURCES_LLDP_H
#define PNA_SOURCES_LLDP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/lossless/lossless.h" /* struct pna_lldp_neighbor */

/* Debian's lldpd (and lldpd's own default, LLDPD_CTL_SOCKET). */
#define PNA_LLDP_DEFAULT_SOCKET "/run/lldpd.socket"

/* IEEE 802.1's organizationally specific TLVs (802.1Q Annex D): OUI
 * 00-80-C2; subtype 0x0B is the PFC Configuration TLV that 802.1Qaz added,
 * whose information string after OUI and subtype is exactly two octets. */
#define PNA_LLDP_OUI_IEEE_8021 0x0080c2u
#define PNA_LLDP_SUBTYPE_PFC 0x0b
#define PNA_LLDP_PFC_INFO_LEN 2
#define PNA_LLDP_PFC_CAP_MAX 8  /* traffic classes: a 4-bit field, at most 8 */

/* One local interface and the first neighbour lldpd lists on it. */
struct pna_lldp_entry {
    char ifname[32];
    struct pna_lldp_neighbor n;
};

/* Every interface with at least one (visible) neighbour, sorted by ifname. */
struct pna_lldp_table {
    struct pna_lldp_entry *v;
    size_t n;
};

/* Ask the lldpd listening on SOCKET_PATH for its neighbours.  TIMEOUT_MS
 * (> 0) bounds the whole read: connecting, every request and every answer;
 * the calling thread never waits longer.  Returns 0 with OUT filled (free it
 * with pna_lldp_table_free(); an lldpd that knows no neighbour gives an empty
 * table), or -1 with OUT empty and one line in ERR, among them
 *   "lldpd is not running (no SOCKET)"        the socket does not exist
 *   "lldpd did not answer within N ms"         the deadline passed
 *   "built without liblldpctl"                 a build without liblldpctl */
int pna_lldp_read(const char *socket_path, int timeout_ms, struct pna_lldp_table *out, char *err,
                  size_t errlen);

void pna_lldp_table_free(struct pna_lldp_table *t);

/* IFNAME's neighbour in T, or NULL (binary search: T is sorted). */
const struct pna_lldp_neighbor *pna_lldp_find(const struct pna_lldp_table *t, const char *ifname);

/* ---- sources/pfc/lldp_tlv.c: pure, no liblldpctl ---------------------------- */

/* Decode the information string of a PFC Configuration TLV (the octets after
 * OUI and subtype): octet 1 is willing (bit 8), MBC (bit 7), two reserved
 * bits (ignored on receipt) and the PFC capability (bits 4..1); octet 2 is
 * the PFC enable vector, bit p for priority p.  Returns false, and sets
 * nothing, for NULL, a length other than 2, or a capability above 8. */
bool pna_lldp_parse_pfc_tlv(const uint8_t *info, size_t len, uint8_t *pfc_en, uint8_t *pfc_cap,
                            bool *mbc, bool *willing);

/* One organizationally specific TLV as lldpd hands it over (OUI of OUI_LEN
 * octets, SUBTYPE, information string INFO of LEN octets): when it is a valid
 * PFC Configuration TLV, set N's pfc_known and pfc_en and return true;
 * anything else leaves N alone and returns false. */
bool pna_lldp_org_tlv_pfc(const uint8_t *oui, size_t oui_len, long subtype, const uint8_t *info,
                          size_t len, struct pna_lldp_neighbor *n);

#endif
