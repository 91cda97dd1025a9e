/* sources/containers/docker_api.h -- Docker containers through the Engine API
 * on dockerd's unix socket (transport/http_client.h):
 *
 *   GET /containers/json        running and paused containers (one request)
 *   GET /containers/{id}/json   asked once per container and again only when
 *                               its state changes or an event says so
 *                               (pna_docker_invalidate)
 *
 * The answers are parsed by docker.h. */
#ifndef PNA_SOURCES_DOCKER_API_H
#define PNA_SOURCES_DOCKER_API_H

#include <stdint.h>

#include "model/containers.h"
#include "model/kubernetes/pod_labels.h"

struct pna_roots;
struct pna_cgroup_env;

#define PNA_DOCKER_LIST_MAX (64u << 20)
#define PNA_DOCKER_INSPECT_MAX (4u << 20)

struct pna_docker;

struct pna_docker *pna_docker_new(const char *socket_path, unsigned timeout_ms);
void pna_docker_free(struct pna_docker *d);

/* Append every running or paused container to SET, with devices and host
 * figures (pid, cgroup, memory via CG).  Returns 0, or -1 with ERR when dockerd
 * did not answer the list request (nothing appended). */
int pna_docker_collect(struct pna_docker *d, const struct pna_roots *roots,
                       const struct pna_cgroup_env *cg, struct pna_container_set *set,
                       char *err, size_t errlen);

/* Read the pod labels ALLOW names from the pod sandboxes of every list from
 * now on (ALLOW outlives D; NULL: none).  pna_docker_take_pod_labels() then
 * hands over the last collect's. */
void pna_docker_read_pod_labels(struct pna_docker *d, const struct pna_label_allow *allow);
/* Move the labels the last pna_docker_collect() read onto the end of OUT
 * (unfinished; D's set is left empty).  Returns 0, or -1 when out of memory. */
int pna_docker_take_pod_labels(struct pna_docker *d, struct pna_pod_label_set *out);

/* Forget what was inspected about ID (an event said it changed). Any thread. */
void pna_docker_invalidate(struct pna_docker *d, const char *id);
/* The same for every container (the event stream was down: nothing is known
 * to be unchanged).  Any thread. */
void pna_docker_invalidate_all(struct pna_docker *d);

/* Counters for the poller: requests that failed, containers inspected. */
uint32_t pna_docker_errors(const struct pna_docker *d);
uint32_t pna_docker_inspects(const struct pna_docker *d);

#endif
