/* lldp_read_probe.c -- pna_lldp_read() from the command line, for
 * tests/integration/lldp_source.sh (built by make check, not a test):
 *
 *   lldp_read_probe SOCKET [TIMEOUT_MS]
 *
 * prints, for each entry of the table (sorted by interface), one field a
 * line, IFNAME.FIELD=VALUE:
 *   IF.sys_name= IF.chassis_id= IF.port_id= IF.port_descr= IF.mgmt_addr=
 *   IF.pvid= IF.pfc_known=0|1 IF.pfc_en=3,4 (the priorities) IF.age_s=
 * then "ok N" (N entries), or "error: TEXT" alone.  Exits 0 on success, 1 on
 * an error, 2 on bad usage. */
#include "pna_autoconf.h"
#include "sources/pfc/lldp.h"

#include <stdio.h>
#include <stdlib.h>

/* "3,4" for bits 3 and 4 of MASK, "" for none. */
static const char *prio_list(uint8_t mask, char *out, size_t cap)
{
    size_t n = 0;
    out[0] = '\0';
    for (unsigned p = 0; p < 8; p++)
        if (mask & (1u << p))
            n += (size_t)snprintf(out + n, cap - n, "%s%u", n ? "," : "", p);
    return out;
}

static void print_entry(const struct pna_lldp_entry *e)
{
    const struct pna_lldp_neighbor *n = &e->n;
    char prios[32];
    printf("%s.sys_name=%s\n", e->ifname, n->sys_name);
    printf("%s.chassis_id=%s\n", e->ifname, n->chassis_id);
    printf("%s.port_id=%s\n", e->ifname, n->port_id);
    printf("%s.port_descr=%s\n", e->ifname, n->port_descr);
    printf("%s.mgmt_addr=%s\n", e->ifname, n->mgmt_addr);
    printf("%s.pvid=%u\n", e->ifname, (unsigned)n->pvid);
    printf("%s.pfc_known=%d\n", e->ifname, n->pfc_known ? 1 : 0);
    printf("%s.pfc_en=%s\n", e->ifname, prio_list(n->pfc_en, prios, sizeof prios));
    printf("%s.age_s=%u\n", e->ifname, (unsigned)n->age_s);
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: %s SOCKET [TIMEOUT_MS]\n", argv[0]);
        return 2;
    }
    int timeout_ms = argc > 2 ? atoi(argv[2]) : 2000;
    struct pna_lldp_table t;
    char err[256] = "";
    if (pna_lldp_read(argv[1], timeout_ms, &t, err, sizeof err) != 0) {
        printf("error: %s\n", err);
        return 1;
    }
    for (size_t i = 0; i < t.n; i++)
        print_entry(&t.v[i]);
    printf("ok %zu\n", t.n);
    pna_lldp_table_free(&t);
    return 0;
}
