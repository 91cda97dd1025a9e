/* ethtool_nl_probe.c -- pna_ethnl_read_phy() and pna_ethnl_module_eeprom()
 * from the command line, for tests/integration/ethtool_nl_live.sh (built by
 * make check, not a test):
 *
 *   ethtool_nl_probe IFNAME...
 *
 * opens one socket and prints, for each interface, one field a line,
 * IFNAME.FIELD=VALUE:
 *   IF.rc=0|-ERRNO (-ENODEV, ...) IF.error= IF.ifindex= IF.link=yes|no|unknown IF.ext_state=
 *   IF.ext_substate= IF.down_events=N|absent IF.fec=read|absent
 *   IF.fec_active= IF.fec_configured= IF.stats=read|absent
 *   IF.counters=N (the counters present) IF.pause_tx=N|absent
 *   IF.eeprom=ok|TEXT (a 128-octet read of page 0, offset 0, at 0x50)
 * Exits 0, 1 when the socket cannot be opened ("error: TEXT"), 2 on bad
 * usage, 77 in a build without libmnl. */
#include "pna_autoconf.h"
#include "sources/phy/ethtool_nl.h"
#include "transport/netlink.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static void counter(const char *ifname, const char *name, const struct pna_counter *c)
{
    if (c->present)
        printf("%s.%s=%" PRIu64 "\n", ifname, name, c->value);
    else
        printf("%s.%s=absent\n", ifname, name);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s IFNAME...\n", argv[0]);
        return 2;
    }
    char err[160];
    struct pna_ethnl *nl = pna_ethnl_open(err, sizeof err);
    if (!nl) {
        printf("error: %s\n", err);
        return strcmp(err, "built without libmnl") == 0 ? 77 : 1;
    }
    for (int i = 1; i < argc; i++) {
        struct pna_phy_if p;
        memset(&p, 0, sizeof p);
        snprintf(p.ifname, sizeof p.ifname, "%s", argv[i]);
        const char *n = argv[i];
        int rc = pna_ethnl_read_phy(nl, &p);
        const char *errno_name = rc < 0 ? pna_errno_name(-rc) : NULL;
        if (errno_name)
            printf("%s.rc=-%s\n", n, errno_name);
        else
            printf("%s.rc=%d\n", n, rc);
        printf("%s.error=%s\n%s.ifindex=%d\n", n, p.error, n, (int)p.ifindex);
        printf("%s.link=%s\n", n, !p.link.has_link ? "unknown" : p.link.link ? "yes" : "no");
        printf("%s.ext_state=%u\n%s.ext_substate=%u\n", n, p.link.ext_state, n,
               p.link.ext_substate);
        counter(n, "down_events", &p.c[PNA_PHY_LINK_DOWN_EVENTS]);
        printf("%s.fec=%s\n%s.fec_active=%d\n%s.fec_configured=%s\n", n,
               p.fec.read ? "read" : "absent", n, (int)p.fec.active, n, p.fec.configured);
        int present = 0;
        for (int c = 0; c < PNA_PHY_COUNT; c++)
            present += p.c[c].present;
        printf("%s.stats=%s\n%s.counters=%d\n", n, p.stats_read ? "read" : "absent", n, present);
        counter(n, "pause_tx", &p.c[PNA_PHY_PAUSE_TX_FRAMES]);
        uint8_t page[128];
        if (pna_ethnl_module_eeprom(nl, n, 0x50, 0, 0, 0, sizeof page, page, err, sizeof err) == 0)
            printf("%s.eeprom=ok\n", n);
        else
            printf("%s.eeprom=%s\n", n, err);
    }
    pna_ethnl_close(nl);
    return 0;
}
