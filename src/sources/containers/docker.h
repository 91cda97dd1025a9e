/* sources/containers/docker.h -- pure parsers of the Docker Engine API's
 * answers:
 *
 *   GET /containers/json        running and paused containers
 *   GET /containers/{id}/json   pid, start time, devices, memory limit
 *   GET /events                 one JSON object per line: start/die/oom/destroy...
 *
 * Read from a container: id, name, image, state, start time, pid, devices,
 * memory limit and the io.kubernetes.{pod,container}.* labels dockershim set;
 * of a pod sandbox, the pod labels podLabels names.  Nothing else (no
 * environment, command, or other label).  The requests are
 * made by docker_api.h, the event stream is followed by
 * watchers/docker_events.h. */
#ifndef PNA_SOURCES_DOCKER_H
#define PNA_SOURCES_DOCKER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/containers.h"
#include "model/kubernetes/pod_labels.h"

/* GET /containers/json: append one record per container (runtime DOCKER,
 * devices none).  Returns 0 or -1 with ERR (nothing appended). */
int pna_docker_parse_list(const char *text, size_t len, struct pna_container_set *set,
                          char *err, size_t errlen);

/* pna_docker_parse_list(), and the pod labels of every pod sandbox in the
 * list (a container labelled io.kubernetes.docker.type=podsandbox, as
 * cri-dockerd and dockershim make them: they copy the pod's labels onto it
 * as Docker labels) that ALLOW names into LABELS (not finished), one pod per
 * sandbox.  The kubelet's own io.kubernetes.* labels and cri-dockerd's
 * "annotation."-prefixed copies of the pod's annotations are never taken. */
int pna_docker_parse_list_labels(const char *text, size_t len, struct pna_container_set *set,
                                 const struct pna_label_allow *allow,
                                 struct pna_pod_label_set *labels, char *err, size_t errlen);

#define PNA_DOCKER_INSPECT_DEVS 64

struct pna_docker_inspect {
    uint8_t state;             /* enum pna_container_state */
    int32_t pid;
    int64_t start_ms;          /* State.StartedAt; 0 unknown */
    bool oom_killed;           /* State.OOMKilled */
    bool has_mem_limit;
    uint64_t mem_limit_bytes;  /* HostConfig.Memory (0 there = none) */
    size_t ndevs;
    struct pna_container_device devs[PNA_DOCKER_INSPECT_DEVS]; /* HostConfig.Devices,
                                                                 DeviceRequests GPU ids */
};

/* PathOnHost of each device of an inspect ("" for a GPU request), for its
 * numbers: the path in the container may name another device. */
typedef char pna_docker_host_paths[PNA_DOCKER_INSPECT_DEVS][96];

/* GET /containers/{id}/json.  HOST_PATHS (may be NULL) gets each device's
 * PathOnHost.  Returns 0 or -1 with ERR. */
int pna_docker_parse_inspect(const char *text, size_t len, struct pna_docker_inspect *out,
                             pna_docker_host_paths *host_paths, char *err, size_t errlen);

struct pna_docker_event {
    char type[16];             /* "container", "network"... ("container" for legacy lines) */
    char action[32];           /* "start", "die", "oom", "destroy"... */
    char id[80];
    char name[128];
    int64_t time_ns;
    bool has_exit_code;
    int exit_code;
};

/* One line of GET /events (modern Type/Action/Actor and legacy status/id
 * fields).  Returns 0, or -1 for a line that is not an event object. */
int pna_docker_parse_event(const char *line, size_t len, struct pna_docker_event *ev);

#endif
