/* fuzz_podresources.c -- libFuzzer harness for the kubelet pod-resources
 * answers (sources/kubernetes/podresources.c): the same bytes are decoded as
 * a ListPodResourcesResponse and as an AllocatableResourcesResponse, through
 * protobuf-c's generated unpackers and the walk into device rows (the
 * device plugins' ids, and the devices of DRA claims with their CDI device
 * names).
 *
 * The seed corpus (tests/fuzz/corpus/podresources/) holds messages packed by
 * protobuf-c from podresources.proto (see its README): there is no recording
 * of a real kubelet's answer. */
#include "pna_autoconf.h"
#include "sources/kubernetes/podresources.h"
#include "fuzz.h"

#include <stdlib.h>
#include <string.h>

static void check_set(const struct pna_podres_set *set)
{
    size_t dra = 0;
    /* Every kept row is a whole, terminated set of strings. */
    for (size_t i = 0; i < set->count; i++) {
        const struct pna_podres_device *d = &set->rows[i];
        if (memchr(d->id, 0, sizeof d->id) == NULL || memchr(d->resource, 0, sizeof d->resource) == NULL ||
            memchr(d->pod_name, 0, sizeof d->pod_name) == NULL ||
            memchr(d->pod_namespace, 0, sizeof d->pod_namespace) == NULL ||
            memchr(d->container, 0, sizeof d->container) == NULL)
            abort();
        const struct pna_podres_dra *x = d->dra;
        if (!x)
            continue;
        /* A DRA device has its driver, no device plugin id, and nothing
         * resolved yet. */
        if (memchr(x->claim_namespace, 0, sizeof x->claim_namespace) == NULL ||
            memchr(x->claim_name, 0, sizeof x->claim_name) == NULL ||
            memchr(x->driver, 0, sizeof x->driver) == NULL ||
            memchr(x->pool, 0, sizeof x->pool) == NULL ||
            memchr(x->device, 0, sizeof x->device) == NULL || x->n_cdi > PNA_PODRES_MAX_CDI ||
            !x->driver[0] || d->id[0] || d->resource[0] || x->n_nodes || x->cdi_device[0])
            abort();
        for (uint8_t k = 0; k < x->n_cdi; k++)
            if (memchr(x->cdi[k], 0, sizeof x->cdi[k]) == NULL || !x->cdi[k][0])
                abort();
        dra++;
    }
    if (dra != set->n_dra || dra > PNA_PODRES_MAX_DRA_DEVICES)
        abort();
    if (set->count > PNA_PODRES_MAX_DEVICES)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct pna_podres_set set;
    char err[256];

    pna_podres_set_init(&set);
    if (pna_podres_decode_list(data, size, &set, err, sizeof err) == 0)
        check_set(&set);
    else if (set.count != 0 || set.rows != NULL)
        abort();   /* an error leaves the set empty */
    pna_podres_set_free(&set);

    pna_podres_set_init(&set);
    if (pna_podres_decode_allocatable(data, size, &set, err, sizeof err) == 0)
        check_set(&set);
    else if (set.count != 0 || set.rows != NULL)
        abort();
    pna_podres_set_free(&set);
    return 0;
}
