/* podres_call.c -- the pod-resources client, from the command line, for
 * tests/integration/podresources_grpc.sh (built by make check, not a test):
 *
 *   podres_call SOCKET [TIMEOUT_MS [CALLS]]
 *
 * calls pna_podres_fetch() CALLS times (default 1) on one client, and prints
 * for each call one line per row,
 *   assigned RESOURCE ID NAMESPACE/POD CONTAINER numa=N
 *   allocatable RESOURCE ID numa=N
 * then "dropped A B", "allocatable yes|no" and "ok", or "error: TEXT".
 * Exits 0 when every call succeeded, 1 otherwise. */
#include "pna_autoconf.h"
#include "sources/kubernetes/podresources.h"
#include "transport/grpc_client.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 4) {
        fprintf(stderr, "usage: %s SOCKET [TIMEOUT_MS [CALLS]]\n", argv[0]);
        return 2;
    }
    unsigned timeout_ms = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : 2000;
    int calls = argc > 3 ? atoi(argv[3]) : 1;
    struct pna_grpc_client *c = pna_grpc_client_new();
    if (!c) {
        printf("error: no gRPC client (libcurl without HTTP/2?)\n");
        return 1;
    }
    int failed = 0;
    for (int n = 0; n < calls; n++) {
        struct pna_podres_set assigned, allocatable;
        int has_allocatable = -1;
        char err[512] = "";
        pna_podres_set_init(&assigned);
        pna_podres_set_init(&allocatable);
        if (pna_podres_fetch(c, argv[1], timeout_ms, &assigned, &allocatable, &has_allocatable,
                             err, sizeof err) != 0) {
            printf("error: %s\n", err);
            if (assigned.count || allocatable.count)
                printf("error: sets not empty after an error\n");
            failed = 1;
        } else {
            for (size_t i = 0; i < assigned.count; i++) {
                const struct pna_podres_device *d = &assigned.rows[i];
                printf("assigned %s %s %s/%s %s numa=%d\n", d->resource, d->id, d->pod_namespace,
                       d->pod_name, d->container, (int)d->numa_node);
            }
            for (size_t i = 0; i < allocatable.count; i++) {
                const struct pna_podres_device *d = &allocatable.rows[i];
                printf("allocatable %s %s numa=%d\n", d->resource, d->id, (int)d->numa_node);
            }
            printf("dropped %llu %llu\n", (unsigned long long)assigned.dropped,
                   (unsigned long long)allocatable.dropped);
            printf("allocatable %s\nok\n", has_allocatable ? "yes" : "no");
        }
        pna_podres_set_free(&assigned);
        pna_podres_set_free(&allocatable);
        fflush(stdout);
    }
    pna_grpc_client_free(c);
    return failed;
}
