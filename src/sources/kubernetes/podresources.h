/* sources/kubernetes/podresources.h -- the kubelet's pod-resources v1 API
 * (the PodResourcesLister service on /var/lib/kubelet/pod-resources/kubelet.sock):
 * which device of which resource the kubelet gave to which container (List),
 * and every device it can give (GetAllocatableResources).
 *
 * Messages are decoded by protobuf-c from the API's proto definition
 * (src/sources/kubernetes/podresources.proto); the call is a unary gRPC call
 * (transport/grpc_client.h).  Only resource names, device ids, pod and
 * container names, namespaces, NUMA nodes and the devices of dynamic
 * resources (DRA claims) are kept: CPU ids and memory are skipped. */
#ifndef PNA_SOURCES_PODRESOURCES_H
#define PNA_SOURCES_PODRESOURCES_H

#include <stddef.h>
#include <stdint.h>

#include "model/kubernetes/podres.h"

struct pna_grpc_client;

#define PNA_PODRES_MAX_BYTES (16u << 20)   /* one response; larger is an error */
#define PNA_PODRES_MAX_DEVICES 65536       /* rows per response; more are dropped, counted */
#define PNA_PODRES_MAX_DRA_DEVICES 4096   /* DRA devices per response; more are dropped, counted */

/* One device id: given to a container (List), or allocatable (pod and
 * container empty).  Or one device of a DRA claim the container got (DRA
 * set; resource and id empty): its claim, the driver, pool and device that
 * name it in the driver's ResourceSlice, and the CDI devices injected for
 * it (at most PNA_PODRES_MAX_CDI, a longer name left out).
 * Strings are cut at a UTF-8 boundary with control
 * characters replaced (pna_copy_display); an id that does not fit is
 * dropped and counted, never cut (two cut ids could collide). */
struct pna_podres_device {
    char resource[128];       /* "nvidia.com/gpu", "nvidia.com/mig-1g.10gb", "rdma/hca_shared" */
    char id[128];             /* the device plugin's id: "GPU-<uuid>", "MIG-<uuid>",
                                 "GPU-<uuid>::3" (time-sliced), "0000:3b:00.2" */
    char pod_name[254];
    char pod_namespace[64];
    char container[128];
    int32_t numa_node;        /* lowest NUMA node of its topology; -1 none */
    struct pna_podres_dra *dra;  /* ContainerResources.dynamic_resources' device
                                    (its resolution empty); NULL for a device
                                    plugin's id.  Owned by the set, which a
                                    caller may take it from (setting NULL). */
};

struct pna_podres_set {
    struct pna_podres_device *rows;
    size_t count, cap;
    uint64_t dropped;         /* over PNA_PODRES_MAX_DEVICES or PNA_PODRES_MAX_DRA_DEVICES,
                                 or a field too long */
    size_t n_dra;             /* DRA devices among the rows */
};

void pna_podres_set_init(struct pna_podres_set *set);
/* Frees the rows' DRA parts too (those still there). */
void pna_podres_set_free(struct pna_podres_set *set);

/* Decode a ListPodResourcesResponse / AllocatableResourcesResponse of LEN
 * bytes into OUT (initialized by the caller; rows are appended in message
 * order).  Returns 0, or -1 with ERR ("malformed ListPodResourcesResponse
 * (N bytes)", "out of memory"): OUT is then left empty. */
int pna_podres_decode_list(const uint8_t *msg, size_t len, struct pna_podres_set *out,
                           char *err, size_t errlen);
int pna_podres_decode_allocatable(const uint8_t *msg, size_t len, struct pna_podres_set *out,
                                  char *err, size_t errlen);

/* Both calls, List then GetAllocatableResources, each with TIMEOUT_MS.
 * Returns 0 with both sets filled (caller frees them), or -1 with ERR naming
 * the call ("List: grpc-status 14 (UNAVAILABLE): ...") and both sets empty.
 * A server without GetAllocatableResources (kubelets before 1.23 answer
 * UNIMPLEMENTED) is not an error: *HAS_ALLOCATABLE is then 0. */
int pna_podres_fetch(struct pna_grpc_client *c, const char *socket_path, unsigned timeout_ms,
                     struct pna_podres_set *assigned, struct pna_podres_set *allocatable,
                     int *has_allocatable, char *err, size_t errlen);

#endif
