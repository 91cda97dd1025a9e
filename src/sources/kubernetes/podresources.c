/* sources/kubernetes/podresources.c -- devices the kubelet assigned and can
 * assign, from its pod-resources v1 API (see podresources.h).
 *
 * The messages are unpacked by the code protoc-c generates from
 * podresources.proto at build time; this file only walks the unpacked tree
 * into flat rows, one per device id, and one per device of each DRA claim
 * a container got.  Fields the agent does not read (CPU ids, memory) are
 * skipped by the unpacker or ignored here.
 *
 * A string that does not fit its row field drops the whole device row (and is
 * counted): a cut id could equal another device's id, and a cut pod name
 * would join the device to the wrong pod. */
#include "pna_autoconf.h"
#include "sources/kubernetes/podresources.h"
#include "sources/kubernetes/podresources.pb-c.h"
#include "transport/grpc_client.h"
#include "model/containers.h"
#include "util/array.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void pna_podres_set_init(struct pna_podres_set *set)
{
    memset(set, 0, sizeof *set);
}

void pna_podres_set_free(struct pna_podres_set *set)
{
    for (size_t i = 0; i < set->count; i++)
        free(set->rows[i].dra);
    free(set->rows);
    pna_podres_set_init(set);
}

/* Lowest NUMA node of TOPO; -1 when it names none (or only ids that are
 * not node numbers). */
static int32_t lowest_numa(const V1__TopologyInfo *topo)
{
    int64_t best = -1;
    if (!topo)
        return -1;
    for (size_t i = 0; i < topo->n_nodes; i++) {
        const V1__NUMANode *n = topo->nodes[i];
        if (!n || n->id < 0 || n->id > INT32_MAX)
            continue;
        if (best < 0 || n->id < best)
            best = n->id;
    }
    return (int32_t)best;
}

/* Copy SRC into DST[CAP] for export; false when it does not fit whole.
 * pna_copy_display() never makes a string longer (one '?' per bad byte), so
 * a source shorter than CAP fits. */
static bool fits_copy(char *dst, size_t cap, const char *src)
{
    if (!src)
        src = "";
    if (strlen(src) >= cap)
        return false;
    pna_copy_display(dst, src, cap);
    return true;
}

/* One row per device id of DEVS, with the pod, namespace and container
 * given (empty strings for allocatable devices).  -1 only when memory runs
 * out. */
static int add_devices(struct pna_podres_set *out, const V1__ContainerDevices *devs,
                       const char *pod, const char *ns, const char *container)
{
    if (!devs)
        return 0;
    int32_t numa = lowest_numa(devs->topology);
    for (size_t i = 0; i < devs->n_device_ids; i++) {
        if (out->count >= PNA_PODRES_MAX_DEVICES) {
            out->dropped++;
            continue;
        }
        if (PNA_ARRAY_RESERVE(out->rows, out->cap, out->count + 1) != 0)
            return -1;
        struct pna_podres_device *d = &out->rows[out->count];
        memset(d, 0, sizeof *d);
        if (!fits_copy(d->resource, sizeof d->resource, devs->resource_name) ||
            !fits_copy(d->id, sizeof d->id, devs->device_ids[i]) ||
            !fits_copy(d->pod_name, sizeof d->pod_name, pod) ||
            !fits_copy(d->pod_namespace, sizeof d->pod_namespace, ns) ||
            !fits_copy(d->container, sizeof d->container, container)) {
            out->dropped++;
            continue;
        }
        d->numa_node = numa;
        out->count++;
    }
    return 0;
}

/* A new zeroed row of OUT for container CONTAINER of pod NS/POD, or NULL:
 * *DROPPED when the row limit or a name's length left it out (counted), or
 * out of memory (*DROPPED false). */
static struct pna_podres_device *new_row(struct pna_podres_set *out, const char *pod,
                                         const char *ns, const char *container, bool *dropped)
{
    *dropped = true;
    if (out->count >= PNA_PODRES_MAX_DEVICES) {
        out->dropped++;
        return NULL;
    }
    if (PNA_ARRAY_RESERVE(out->rows, out->cap, out->count + 1) != 0) {
        *dropped = false;
        return NULL;
    }
    struct pna_podres_device *d = &out->rows[out->count];
    memset(d, 0, sizeof *d);
    d->numa_node = -1;
    if (!fits_copy(d->pod_name, sizeof d->pod_name, pod) ||
        !fits_copy(d->pod_namespace, sizeof d->pod_namespace, ns) ||
        !fits_copy(d->container, sizeof d->container, container)) {
        out->dropped++;
        return NULL;
    }
    return d;
}

/* The CDI device names of RES, as many as fit (PNA_PODRES_MAX_CDI); a name
 * too long to keep whole is left out (a cut name resolves to nothing or to
 * another device). */
static void copy_cdi_names(struct pna_podres_dra *d, const V1__ClaimResource *res)
{
    for (size_t i = 0; i < res->n_cdi_devices && d->n_cdi < PNA_PODRES_MAX_CDI; i++) {
        const V1__CDIDevice *c = res->cdi_devices[i];
        if (c && c->name && c->name[0] && fits_copy(d->cdi[d->n_cdi], sizeof d->cdi[0], c->name))
            d->n_cdi++;
    }
}

/* The DRA part of claim resource RES of claim DYN, or NULL: *DROPPED when
 * a name is too long to keep whole or the driver is missing (the API
 * requires one), else out of memory. */
static struct pna_podres_dra *claim_device(const V1__DynamicResource *dyn,
                                           const V1__ClaimResource *res, bool *dropped)
{
    *dropped = true;
    if (!res || !res->driver_name || !res->driver_name[0])
        return NULL;
    struct pna_podres_dra *d = pna_podres_dra_new();
    if (!d) {
        *dropped = false;
        return NULL;
    }
    if (!fits_copy(d->claim_namespace, sizeof d->claim_namespace, dyn->claim_namespace) ||
        !fits_copy(d->claim_name, sizeof d->claim_name, dyn->claim_name) ||
        !fits_copy(d->driver, sizeof d->driver, res->driver_name) ||
        !fits_copy(d->pool, sizeof d->pool, res->pool_name) ||
        !fits_copy(d->device, sizeof d->device, res->device_name)) {
        free(d);
        return NULL;
    }
    copy_cdi_names(d, res);
    return d;
}

/* One row per claim resource of DYN (a DRA claim container CONTAINER of pod
 * NS/POD references).  -1 only when memory runs out. */
static int add_claim(struct pna_podres_set *out, const V1__DynamicResource *dyn,
                     const char *pod, const char *ns, const char *container)
{
    for (size_t i = 0; dyn && i < dyn->n_claim_resources; i++) {
        bool dropped;
        if (out->n_dra >= PNA_PODRES_MAX_DRA_DEVICES) {
            out->dropped++;
            continue;
        }
        struct pna_podres_device *d = new_row(out, pod, ns, container, &dropped);
        if (!d) {
            if (!dropped)
                return -1;
            continue;
        }
        if (!(d->dra = claim_device(dyn, dyn->claim_resources[i], &dropped))) {
            if (!dropped)
                return -1;
            out->dropped++;
            continue;
        }
        out->count++;
        out->n_dra++;
    }
    return 0;
}

/* Every device id and DRA device of container CTR of pod POD. */
static int add_container(struct pna_podres_set *out, const V1__PodResources *pod,
                         const V1__ContainerResources *ctr)
{
    int rc = 0;
    for (size_t d = 0; d < ctr->n_devices && rc == 0; d++)
        rc = add_devices(out, ctr->devices[d], pod->name, pod->namespace_, ctr->name);
    for (size_t d = 0; d < ctr->n_dynamic_resources && rc == 0; d++)
        rc = add_claim(out, ctr->dynamic_resources[d], pod->name, pod->namespace_, ctr->name);
    return rc;
}

static void fail_empty(struct pna_podres_set *out, char *err, size_t errlen, const char *what,
                       size_t len)
{
    pna_podres_set_free(out);
    if (what)
        snprintf(err, errlen, "malformed %s (%zu bytes)", what, len);
    else
        snprintf(err, errlen, "out of memory");
}

int pna_podres_decode_list(const uint8_t *msg, size_t len, struct pna_podres_set *out,
                           char *err, size_t errlen)
{
    V1__ListPodResourcesResponse *r = v1__list_pod_resources_response__unpack(NULL, len, msg);
    if (!r) {
        fail_empty(out, err, errlen, "ListPodResourcesResponse", len);
        return -1;
    }
    int rc = 0;
    for (size_t p = 0; p < r->n_pod_resources && rc == 0; p++) {
        const V1__PodResources *pod = r->pod_resources[p];
        for (size_t c = 0; c < pod->n_containers && rc == 0; c++)
            rc = add_container(out, pod, pod->containers[c]);
    }
    v1__list_pod_resources_response__free_unpacked(r, NULL);
    if (rc != 0) {
        fail_empty(out, err, errlen, NULL, len);
        return -1;
    }
    return 0;
}

int pna_podres_decode_allocatable(const uint8_t *msg, size_t len, struct pna_podres_set *out,
                                  char *err, size_t errlen)
{
    V1__AllocatableResourcesResponse *r =
        v1__allocatable_resources_response__unpack(NULL, len, msg);
    if (!r) {
        fail_empty(out, err, errlen, "AllocatableResourcesResponse", len);
        return -1;
    }
    int rc = 0;
    for (size_t d = 0; d < r->n_devices && rc == 0; d++)
        rc = add_devices(out, r->devices[d], "", "", "");
    v1__allocatable_resources_response__free_unpacked(r, NULL);
    if (rc != 0) {
        fail_empty(out, err, errlen, NULL, len);
        return -1;
    }
    return 0;
}

#define METHOD_LIST "/v1.PodResourcesLister/List"
#define METHOD_ALLOCATABLE "/v1.PodResourcesLister/GetAllocatableResources"

int pna_podres_fetch(struct pna_grpc_client *c, const char *socket_path, unsigned timeout_ms,
                     struct pna_podres_set *assigned, struct pna_podres_set *allocatable,
                     int *has_allocatable, char *err, size_t errlen)
{
    char why[512];
    uint8_t *resp = NULL;
    size_t resp_len = 0;
    /* Both requests are empty messages: their serialized form is 0 bytes
     * (packed anyway, so that a field added to the .proto is sent). */
    V1__ListPodResourcesRequest lreq = V1__LIST_POD_RESOURCES_REQUEST__INIT;
    V1__AllocatableResourcesRequest areq = V1__ALLOCATABLE_RESOURCES_REQUEST__INIT;
    uint8_t req[64];

    *has_allocatable = 0;
    pna_podres_set_free(assigned);
    pna_podres_set_free(allocatable);

    size_t req_len = v1__list_pod_resources_request__get_packed_size(&lreq);
    if (req_len > sizeof req) {
        snprintf(err, errlen, "List: request too large");
        return -1;
    }
    v1__list_pod_resources_request__pack(&lreq, req);
    if (pna_grpc_unary(c, socket_path, METHOD_LIST, req, req_len, timeout_ms,
                       PNA_PODRES_MAX_BYTES, &resp, &resp_len, why, sizeof why) != 0) {
        snprintf(err, errlen, "List: %s", why);
        return -1;
    }
    int rc = pna_podres_decode_list(resp, resp_len, assigned, why, sizeof why);
    free(resp);
    resp = NULL;
    if (rc != 0) {
        snprintf(err, errlen, "List: %s", why);
        return -1;
    }

    req_len = v1__allocatable_resources_request__get_packed_size(&areq);
    if (req_len > sizeof req) {
        pna_podres_set_free(assigned);
        snprintf(err, errlen, "GetAllocatableResources: request too large");
        return -1;
    }
    v1__allocatable_resources_request__pack(&areq, req);
    if (pna_grpc_unary(c, socket_path, METHOD_ALLOCATABLE, req, req_len, timeout_ms,
                       PNA_PODRES_MAX_BYTES, &resp, &resp_len, why, sizeof why) != 0) {
        /* Kubelets before 1.23 (or with the feature gate off) lack the call. */
        if (pna_grpc_last_status(c) == PNA_GRPC_UNIMPLEMENTED)
            return 0;
        pna_podres_set_free(assigned);
        snprintf(err, errlen, "GetAllocatableResources: %s", why);
        return -1;
    }
    rc = pna_podres_decode_allocatable(resp, resp_len, allocatable, why, sizeof why);
    free(resp);
    if (rc != 0) {
        pna_podres_set_free(assigned);
        snprintf(err, errlen, "GetAllocatableResources: %s", why);
        return -1;
    }
    *has_allocatable = 1;
    return 0;
}
