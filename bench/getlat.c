/* getlat.c -- SNMP GET latency percentiles, from one process (no fork per
 * request, so the figures are the agent's and the master's, not a tool's
 * start-up).  A benchmark helper (bench/run.sh), not a test.
 *
 *   getlat [-c COMMUNITY] [-n COUNT] [-t TIMEOUT_S] HOST:PORT OID...
 *
 * Sends COUNT SNMPv2c GETs one after the other, cycling through the OIDs
 * (numeric), and prints:
 *   gets=N errors=E timeouts=T p50_us=.. p95_us=.. p99_us=.. max_us=..
 * An error is a response with an error status or a noSuch* value; a timeout
 * is no response within TIMEOUT_S (no retries).  Latencies include every
 * request, failed ones too. */
#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t pct(const uint64_t *v, size_t n, double p)
{
    size_t i = (size_t)(p * (double)(n - 1) + 0.5);
    return v[i < n ? i : n - 1];
}

int main(int argc, char **argv)
{
    const char *community = "public";
    long count = 1000;
    double timeout_s = 5;
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (strcmp(argv[i], "-c") == 0 && i + 1 < argc)
            community = argv[++i];
        else if (strcmp(argv[i], "-n") == 0 && i + 1 < argc)
            count = atol(argv[++i]);
        else if (strcmp(argv[i], "-t") == 0 && i + 1 < argc)
            timeout_s = atof(argv[++i]);
        else
            break;
    }
    if (argc - i < 2 || count < 1) {
        fprintf(stderr, "usage: getlat [-c COMMUNITY] [-n COUNT] [-t TIMEOUT_S] HOST:PORT OID...\n");
        return 2;
    }
    const char *peer = argv[i++];
    int n_oids = argc - i;
    oid (*oids)[MAX_OID_LEN] = calloc((size_t)n_oids, sizeof *oids);
    size_t *lens = calloc((size_t)n_oids, sizeof *lens);

    setenv("MIBS", "", 1);
    netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_DONT_PERSIST_STATE, 1);
    init_snmp("getlat");
    for (int k = 0; k < n_oids; k++) {
        lens[k] = MAX_OID_LEN;
        if (!read_objid(argv[i + k], oids[k], &lens[k])) {
            fprintf(stderr, "getlat: bad OID %s\n", argv[i + k]);
            return 2;
        }
    }
    netsnmp_session s;
    snmp_sess_init(&s);
    s.version = SNMP_VERSION_2c;
    s.peername = (char *)peer;
    s.community = (u_char *)community;
    s.community_len = strlen(community);
    s.timeout = (long)(timeout_s * 1e6);
    s.retries = 0;
    netsnmp_session *ss = snmp_open(&s);
    if (!ss) {
        snmp_perror("getlat: snmp_open");
        return 2;
    }
    uint64_t *lat = calloc((size_t)count, sizeof *lat);
    long errors = 0, timeouts = 0;
    for (long k = 0; k < count; k++) {
        netsnmp_pdu *pdu = snmp_pdu_create(SNMP_MSG_GET), *resp = NULL;
        snmp_add_null_var(pdu, oids[k % n_oids], lens[k % n_oids]);
        uint64_t t0 = now_ns();
        int st = snmp_synch_response(ss, pdu, &resp);
        lat[k] = now_ns() - t0;
        if (st == STAT_TIMEOUT)
            timeouts++;
        else if (st != STAT_SUCCESS || !resp || resp->errstat != SNMP_ERR_NOERROR ||
                 !resp->variables || resp->variables->type == SNMP_NOSUCHOBJECT ||
                 resp->variables->type == SNMP_NOSUCHINSTANCE ||
                 resp->variables->type == SNMP_ENDOFMIBVIEW)
            errors++;
        if (resp)
            snmp_free_pdu(resp);
    }
    qsort(lat, (size_t)count, sizeof *lat, cmp_u64);
    printf("gets=%ld errors=%ld timeouts=%ld p50_us=%llu p95_us=%llu p99_us=%llu max_us=%llu\n",
           count, errors, timeouts, (unsigned long long)pct(lat, (size_t)count, 0.50) / 1000,
           (unsigned long long)pct(lat, (size_t)count, 0.95) / 1000,
           (unsigned long long)pct(lat, (size_t)count, 0.99) / 1000,
           (unsigned long long)lat[count - 1] / 1000);
    snmp_close(ss);
    free(lat);
    free(oids);
    free(lens);
    snmp_shutdown("getlat");
    return timeouts == count ? 1 : 0;
}
