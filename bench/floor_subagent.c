/* floor_subagent.c -- the fastest an AgentX subagent of net-snmp's snmpd can
 * be walked: the floor the benchmark measures the agent against.
 *
 *   floor_subagent SOCKET COUNT [PAD]
 *   floor_subagent SOCKET --replay FILE
 *
 * connects to the master at SOCKET (unix:/path) and answers from nothing: no
 * table, no lookup, no allocation per request.  With COUNT it serves COUNT
 * integers, .1.3.6.1.4.1.59888.99.1.1.1.I = I for I in 1..COUNT (each OID
 * followed by PAD more sub-identifiers when PAD is given); GET answers an
 * exact OID, GETNEXT computes the next index.  With --replay it serves the
 * varbinds of another agent's walk as `bulkcount -d FILE` wrote them, each
 * OID's suffix under .1.3.6.1.4.1.59888.99 (as long a root as the agent's
 * .1.3.6.1.4.1.59888.1), with the same types and values, from a static
 * array: the same bytes for the master and the client as the agent's walk,
 * and a GETNEXT that follows the last one answered costs one comparison.
 * What is left is what every subagent pays: net-snmp's master forwards each
 * GETBULK repetition as one AgentX round trip, and the subagent library's own
 * request handling.  The integers' OIDs have 12 sub-identifiers, as many as a
 * GPU or port cell of the agent; a container cell has 78 (its index is the
 * container id), which the kernel, the master and the client pay for.  Runs
 * in the foreground until SIGTERM or SIGINT. */
#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <net-snmp/agent/net-snmp-agent-includes.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const oid floor_root[] = { 1, 3, 6, 1, 4, 1, 59888, 99, 1, 1, 1 };
#define ROOT_LEN OID_LENGTH(floor_root)
/* --replay: the suffixes go under the first REPLAY_ROOT_LEN of floor_root. */
#define REPLAY_ROOT_LEN 8

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

/* --replay: one varbind of the walk replayed. */
struct replayed {
    oid *name;
    size_t name_len;
    u_char type;
    u_char *val;
    size_t val_len;
};
static struct replayed *replay;   /* COUNT of them, in OID order; NULL: integers */
static unsigned long replay_last; /* the index last answered (1-based), 0: none */

/* The index (1-based) of the first varbind whose OID is after NAME, or whose
 * OID equals it when AT_OR_AFTER; COUNT + 1 when none. */
static unsigned long replay_search(const oid *name, size_t len, int at_or_after)
{
    unsigned long lo = 0, hi = count;
    while (lo < hi) {
        unsigned long mid = lo + (hi - lo) / 2;
        int c = snmp_oid_compare(replay[mid].name, replay[mid].name_len, name, len);
        if (c < 0 || (c == 0 && !at_or_after))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo + 1;
}

static unsigned long replay_exact(const oid *name, size_t len)
{
    unsigned long i = replay_search(name, len, 1);
    return i <= count && snmp_oid_compare(replay[i - 1].name, replay[i - 1].name_len, name, len) == 0
               ? i
               : 0;
}

/* A walk asks for the next of the one last answered: one comparison. */
static unsigned long replay_next(const oid *name, size_t len)
{
    if (replay_last &&
        snmp_oid_compare(name, len, replay[replay_last - 1].name, replay[replay_last - 1].name_len) == 0)
        return replay_last + 1;
    return replay_search(name, len, 0);
}

static void replay_answer(netsnmp_request_info *r, unsigned long i)
{
    static u_char empty[1];
    const struct replayed *v = &replay[i - 1];
    snmp_set_var_objid(r->requestvb, v->name, v->name_len);
    snmp_set_var_typed_value(r->requestvb, v->type, v->val_len ? v->val : empty, v->val_len);
    replay_last = i;
}

/* One line of a bulkcount -d file ("SUFFIX TYPE HEX") into V; 0 when it is
 * well formed. */
static int replay_parse(char *line, struct replayed *v)
{
    oid name[MAX_OID_LEN];
    size_t len = REPLAY_ROOT_LEN;
    char *p = line, *end;
    memcpy(name, floor_root, REPLAY_ROOT_LEN * sizeof(oid));
    for (;;) {
        unsigned long sub = strtoul(p, &end, 10);
        if (end == p || len == MAX_OID_LEN)
            return -1;
        name[len++] = sub;
        p = end;
        if (*p != '.')
            break;
        p++;
    }
    unsigned long type = strtoul(p, &end, 10);
    if (*p != ' ' || end == p || type > 255)
        return -1;
    p = end + strspn(end, " ");
    size_t hex = strcspn(p, " \n");
    int none = hex == 1 && *p == '-';
    if ((!none && hex % 2) || p[hex + strspn(p + hex, " \n")] != '\0')
        return -1;
    v->name = netsnmp_memdup(name, len * sizeof(oid));
    v->name_len = len;
    v->type = (u_char)type;
    v->val_len = none ? 0 : hex / 2;
    v->val = malloc(v->val_len + 1);
    if (!v->name || !v->val)
        return -1;
    for (size_t k = 0; k < v->val_len; k++) {
        char byte[3] = { p[2 * k], p[2 * k + 1], '\0' };
        v->val[k] = (u_char)strtoul(byte, &end, 16);
        if (end != byte + 2)
            return -1;
    }
    return 0;
}

/* Reads PATH into replay[] and count; says why on stderr and returns -1 when
 * a line is malformed or the OIDs are not in increasing order. */
static int replay_load(const char *path)
{
    FILE *in = fopen(path, "r");
    if (!in) {
        perror(path);
        return -1;
    }
    char line[8192];
    size_t cap = 0;
    int rc = 0;
    while (rc == 0 && fgets(line, sizeof line, in)) {
        if (count == cap) {
            cap = cap ? cap * 2 : 4096;
            struct replayed *more = realloc(replay, cap * sizeof *replay);
            if (!more) {
                rc = -1;
                break;
            }
            replay = more;
        }
        struct replayed *v = &replay[count];
        if (replay_parse(line, v) != 0 ||
            (count && snmp_oid_compare(replay[count - 1].name, replay[count - 1].name_len,
                                       v->name, v->name_len) >= 0)) {
            fprintf(stderr, "floor_subagent: %s: line %lu: malformed or not after the one before\n",
                    path, count + 1);
            rc = -1;
        }
        count++;
    }
    fclose(in);
    if (rc == 0 && count == 0) {
        fprintf(stderr, "floor_subagent: %s: no varbinds\n", path);
        rc = -1;
    }
    return rc;
}

static void answer(netsnmp_request_info *r, unsigned long i)
{
    if (replay) {
        replay_answer(r, i);
        return;
    }
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
            i = replay ? replay_exact(vb->name, vb->name_length)
                       : exact_index(vb->name, vb->name_length);
            if (i != 0)
                answer(r, i);
            else
                netsnmp_set_request_error(info, r, SNMP_NOSUCHINSTANCE);
            break;
        case MODE_GETNEXT:
            /* past the last one: no answer, and the master goes on */
            i = replay ? replay_next(vb->name, vb->name_length)
                       : next_index(vb->name, vb->name_length);
            if (i <= count)
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
    int replaying = argc == 4 && strcmp(argv[2], "--replay") == 0;
    if (replaying) {
        if (replay_load(argv[3]) != 0)
            return 2;
    } else if ((argc != 3 && argc != 4) || (count = strtoul(argv[2], NULL, 10)) == 0 ||
               (argc == 4 && (pad = strtoul(argv[3], NULL, 10)) > PAD_MAX)) {
        fprintf(stderr,
                "usage: %s unix:/path/to/agentx.sock COUNT [PAD (0..%d)]\n"
                "       %s unix:/path/to/agentx.sock --replay FILE\n",
                argv[0], PAD_MAX, argv[0]);
        return 2;
    }
    netsnmp_ds_set_boolean(NETSNMP_DS_APPLICATION_ID, NETSNMP_DS_AGENT_ROLE, 1);
    netsnmp_ds_set_string(NETSNMP_DS_APPLICATION_ID, NETSNMP_DS_AGENT_X_SOCKET, argv[1]);
    netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_DONT_PERSIST_STATE, 1);
    snmp_disable_log();
    snmp_enable_stderrlog();
    init_agent("floor-subagent");
    netsnmp_handler_registration *reg = netsnmp_create_handler_registration(
        "floor", handle, floor_root, replaying ? REPLAY_ROOT_LEN : ROOT_LEN, HANDLER_CAN_RONLY);
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
