/* bulkcount.c -- a GETBULK walk that counts what it receives instead of
 * printing it.  A benchmark helper (bench/run.sh), not a test.
 *
 *   bulkcount [-c COMMUNITY] [-r REPETITIONS] [-d FILE] HOST:PORT OID...
 *
 * Walks each subtree as `snmpbulkwalk -Cr<REPETITIONS>` does (SNMPv2c, one
 * GETBULK after the other from the last OID received, until an OID outside
 * the subtree or endOfMibView) and prints:
 *   varbinds=N requests=R
 * Every response is decoded by net-snmp as snmpbulkwalk's is; only the
 * printing is left out.  snmpbulkwalk formats every OID it receives, which
 * costs in proportion to the OID's length: for a MIB whose rows are indexed
 * by 64-character strings it is most of a fast agent's walk time, and a rate
 * measured with it says more about the client than about the agent.
 *
 * With -d every varbind received is also written to FILE, one a line:
 *   SUFFIX TYPE HEX
 * the OID after the root of its walk (dotted), the ASN.1 type (decimal) and
 * the value as net-snmp holds it on this machine (hex, "-" when empty): what
 * `floor_subagent --replay` serves again, in the same run on the same machine.
 *
 * Exits 1 when an OID does not increase (the agent's ordering is broken), on
 * an error status, a timeout or a failed send, so that a wrong walk never
 * passes for a fast one. */
#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct walk_count {
    long varbinds;
    long requests;
    FILE *dump; /* -d FILE, or NULL */
};

/* One varbind as a line of the -d file. */
static void dump_varbind(FILE *out, const netsnmp_variable_list *v, size_t root_len)
{
    for (size_t k = root_len; k < v->name_length; k++)
        fprintf(out, k == root_len ? "%lu" : ".%lu", (unsigned long)v->name[k]);
    fprintf(out, " %u ", (unsigned)v->type);
    if (v->val_len == 0)
        fputc('-', out);
    for (size_t k = 0; k < v->val_len; k++)
        fprintf(out, "%02x", v->val.string[k]);
    fputc('\n', out);
}

/* walk_subtree: walk one subtree into COUNT; 0 when done, -1 on an error
 * (said on stderr). */
static int walk_subtree(netsnmp_session *ss, const oid *root, size_t root_len, long reps,
                        struct walk_count *count)
{
    oid last[MAX_OID_LEN];
    size_t last_len = root_len;
    memcpy(last, root, root_len * sizeof(oid));
    for (;;) {
        netsnmp_pdu *pdu = snmp_pdu_create(SNMP_MSG_GETBULK), *resp = NULL;
        pdu->non_repeaters = 0;
        pdu->max_repetitions = reps;
        snmp_add_null_var(pdu, last, last_len);
        int st = snmp_synch_response(ss, pdu, &resp);
        count->requests++;
        if (st != STAT_SUCCESS || !resp) {
            fprintf(stderr, "bulkcount: request %ld: %s\n", count->requests,
                    st == STAT_TIMEOUT ? "timeout" : snmp_api_errstring(ss->s_snmp_errno));
            if (resp)
                snmp_free_pdu(resp);
            return -1;
        }
        if (resp->errstat != SNMP_ERR_NOERROR) {
            fprintf(stderr, "bulkcount: request %ld: %s\n", count->requests,
                    snmp_errstring((int)resp->errstat));
            snmp_free_pdu(resp);
            return -1;
        }
        int done = resp->variables == NULL;
        for (netsnmp_variable_list *v = resp->variables; v && !done; v = v->next_variable) {
            if (v->type == SNMP_ENDOFMIBVIEW || v->type == SNMP_NOSUCHOBJECT ||
                v->type == SNMP_NOSUCHINSTANCE ||
                netsnmp_oid_is_subtree(root, root_len, v->name, v->name_length) != 0) {
                done = 1;
                break;
            }
            if (snmp_oid_compare(v->name, v->name_length, last, last_len) <= 0) {
                fprintf(stderr, "bulkcount: OID not increasing after %ld varbinds\n",
                        count->varbinds);
                snmp_free_pdu(resp);
                return -1;
            }
            memcpy(last, v->name, v->name_length * sizeof(oid));
            last_len = v->name_length;
            count->varbinds++;
            if (count->dump)
                dump_varbind(count->dump, v, root_len);
        }
        snmp_free_pdu(resp);
        if (done)
            return 0;
    }
}

int main(int argc, char **argv)
{
    const char *community = "public", *dump_path = NULL;
    long reps = 50;
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (strcmp(argv[i], "-c") == 0 && i + 1 < argc)
            community = argv[++i];
        else if (strcmp(argv[i], "-r") == 0 && i + 1 < argc)
            reps = atol(argv[++i]);
        else if (strcmp(argv[i], "-d") == 0 && i + 1 < argc)
            dump_path = argv[++i];
        else
            break;
    }
    if (argc - i < 2 || reps < 1) {
        fprintf(stderr, "usage: bulkcount [-c COMMUNITY] [-r REPETITIONS] [-d FILE] HOST:PORT OID...\n");
        return 2;
    }
    const char *peer = argv[i++];

    setenv("MIBS", "", 1);
    netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_DONT_PERSIST_STATE, 1);
    init_snmp("bulkcount");
    netsnmp_session s;
    snmp_sess_init(&s);
    s.version = SNMP_VERSION_2c;
    s.peername = (char *)peer;
    s.community = (u_char *)community;
    s.community_len = strlen(community);
    s.timeout = 5000000;
    s.retries = 0;
    netsnmp_session *ss = snmp_open(&s);
    if (!ss) {
        snmp_perror("bulkcount: snmp_open");
        return 2;
    }
    struct walk_count count = { 0, 0, NULL };
    if (dump_path && !(count.dump = fopen(dump_path, "w"))) {
        perror(dump_path);
        return 2;
    }
    int rc = 0;
    for (; i < argc && rc == 0; i++) {
        oid root[MAX_OID_LEN];
        size_t root_len = MAX_OID_LEN;
        if (!read_objid(argv[i], root, &root_len)) {
            fprintf(stderr, "bulkcount: bad OID %s\n", argv[i]);
            rc = 2;
        } else if (walk_subtree(ss, root, root_len, reps, &count) < 0) {
            rc = 1;
        }
    }
    printf("varbinds=%ld requests=%ld\n", count.varbinds, count.requests);
    if (count.dump && fclose(count.dump) != 0) {
        perror(dump_path);
        rc = 1;
    }
    snmp_close(ss);
    snmp_shutdown("bulkcount");
    return rc;
}
