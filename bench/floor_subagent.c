/* floor_subagent.c -- the fastest an AgentX subagent of net-snmp's snmpd can
 * be walked: the floor the benchmark measures the agent against.
 *
 *   floor_subagent SOCKET COUNT [PAD]
 *
 * connects to the master at SOCKET (unix:/path) and answers COUNT integers,
 * .1.3.6.1.4.1.59888.99.1.1.1.I = I for I in 1..COUNT (each OID followed by
 * PAD more sub-identifiers when PAD is given), from nothing: no
 * table, no lookup, no allocation per request.  GET answers an exact OID,
 * GETNEXT computes the next index.  What is left is what every subagent pays:
 * net-snmp's master forwards each GETBULK repetition as one AgentX round trip,
 * and the subagent library's own request handling.  The OIDs have 12
 * sub-identifiers, as many as a GPU or port cell of the agent; a container
 * cell has 78 (its index is the container id), which the kernel, the master
 * and the client pay for.  Runs in the foreground until SIGTERM or SIGINT. */
#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <net-snmp/agent/net-snmp-agent-includes.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const oid floor_root[] = { 1, 3, 6, 1, 4, 1, 59888, 99, 1, 1, 1 };
#define ROOT_LEN OID_LENGTH(floor_root)

static unsigned long count;
static volatile sig_atomic_t running = 1;

static void stop(int sig)
{
    (void)sig;
    running = 0;
}

/* Sub-identifiers after I in every OID (0: ROOT.I), so that the OIDs can be
 * as long as another MIB's: a fixed tail of digits' codes, as a string index
 * would have. */
static size_t pad;
#define PAD_MAX 100

/* ROOT.I.TAIL into BUF; returns its length. */
static size_t full_oid(unsigned long i, oid *buf)
{
    memcpy(buf, floor_root, sizeof floor_root);
    buf[ROOT_LEN] = i;
    for (size_t k = 0; k < pad; k++)
        buf[ROOT_LEN + 1 + k] = 48 + k % 10;
    return ROOT_LEN + 1 + pad;
}

/* The index I of NAME when it is ROOT.I.TAIL exactly; 0 otherwise. */
static unsigned long exact_index(const oid *name, size_t len)
{
    oid full[ROOT_LEN + 1 + PAD_MAX];
    if (len != ROOT_LEN + 1 + pad || snmp_oid_compare(name, ROOT_LEN, floor_root, ROOT_LEN) != 0 ||
        name[ROOT_LEN] < 1 || name[ROOT_LEN] > count)
        return 0;
    size_t flen = full_oid((unsigned long)name[ROOT_LEN], full);
    return snmp_oid_compare(name, len, full, flen) == 0 ? (unsigned long)name[ROOT_LEN] : 0;
}

/* The first index whose OID is after NAME; COUNT + 1 when none. */
static unsigned long next_index(const oid *name, size_t len)
{
    int c = snmp_oid_compare(name, len < ROOT_LEN ? len : ROOT_LEN, floor_root,
                             len < ROOT_LEN ? len : ROOT_LEN);
    if (c < 0 || len <= ROOT_LEN)
        return c > 0 ? count + 1 : 1;
    if (c > 0)
        return count + 1;
    unsigned long i = name[ROOT_LEN];
    if (i == 0)
        return 1;
    if (i > count)
        return count + 1;
    /* Before ROOT.I.TAIL: I; at it or under it: I + 1. */
    oid full[ROOT_LEN + 1 + PAD_MAX];
    size_t flen = full_oid(i, full);
    if (snmp_oid_compare(name, len, full, flen) < 0)
        return i;
    return i >= count ? count + 1 : i + 1;
}

static void answer(netsnmp_request_info *r, unsigned long i)
{
    oid name[ROOT_LEN + 1 + PAD_MAX];
    size_t len = full_oid(i, name);
    long v = (long)i;
    snmp_set_var_objid(r->requestvb, name, len);
    snmp_set_var_typed_value(r->requestvb, ASN_INTEGER, &v, sizeof v);
}

static int handle(netsnmp_mib_handler *h, netsnmp_handler_registration *reg,
                  netsnmp_agent_request_info *info, netsnmp_request_info *requests)
{
    (void)h;
    (void)reg;
    for (netsnmp_request_info *r = requests; r; r = r->next) {
        const netsnmp_variable_list *vb = r->requestvb;
        unsigned long i;
        switch (info->mode) {
        case MODE_GET:
            if ((i = exact_index(vb->name, vb->name_length)) != 0)
                answer(r, i);
            else
                netsnmp_set_request_error(info, r, SNMP_NOSUCHINSTANCE);
            break;
        case MODE_GETNEXT:
            /* past the last one: no answer, and the master goes on */
            if ((i = next_index(vb->name, vb->name_length)) <= count)
                answer(r, i);
            break;
        default:
            netsnmp_set_request_error(info, r, SNMP_ERR_NOTWRITABLE);
        }
    }
    return SNMP_ERR_NOERROR;
}

int main(int argc, char **argv)
{
    if ((argc != 3 && argc != 4) || (count = strtoul(argv[2], NULL, 10)) == 0 ||
        (argc == 4 && (pad = strtoul(argv[3], NULL, 10)) > PAD_MAX)) {
        fprintf(stderr, "usage: %s unix:/path/to/agentx.sock COUNT [PAD (0..%d)]\n", argv[0],
                PAD_MAX);
        return 2;
    }
    netsnmp_ds_set_boolean(NETSNMP_DS_APPLICATION_ID, NETSNMP_DS_AGENT_ROLE, 1);
    netsnmp_ds_set_string(NETSNMP_DS_APPLICATION_ID, NETSNMP_DS_AGENT_X_SOCKET, argv[1]);
    netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_DONT_PERSIST_STATE, 1);
    snmp_disable_log();
    snmp_enable_stderrlog();
    init_agent("floor-subagent");
    netsnmp_handler_registration *reg = netsnmp_create_handler_registration(
        "floor", handle, floor_root, ROOT_LEN, HANDLER_CAN_RONLY);
    if (!reg || netsnmp_register_handler(reg) != MIB_REGISTERED_OK) {
        fprintf(stderr, "floor_subagent: cannot register the subtree\n");
        return 1;
    }
    init_snmp("floor-subagent");
    signal(SIGTERM, stop);
    signal(SIGINT, stop);
    while (running)
        agent_check_and_process(1);
    snmp_shutdown("floor-subagent");
    return 0;
}
