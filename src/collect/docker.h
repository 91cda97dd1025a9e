/* docker.h -- Docker containers through the Engine API on dockerd's unix socket.
 *
 *   GET /containers/json        running and paused containers (one request)
 *   GET /containers/{id}/json   pid, start time, devices, memory limit; asked
 *                               once per container and again only when its
 *                               state changes or an event says so
 *   GET /events                 a stream of start/die/oom/destroy..., followed
 *                               on a thread of its own, reconnecting when
 *                               dockerd restarts
 * Read from a container: id, name, image, state, start time, pid, devices,
 * memory limit and the io.kubernetes.{pod,container}.* labels dockershim set.
 * Nothing else (no environment, command, or other label). */
#ifndef PNA_COLLECT_DOCKER_H
#define PNA_COLLECT_DOCKER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/containers.h"

struct pna_roots;
struct pna_cgroup_env;

#define PNA_DOCKER_LIST_MAX (64u << 20)
#define PNA_DOCKER_INSPECT_MAX (4u << 20)
#define PNA_DOCKER_EVENT_LINE_MAX 65536

/* ---- pure parsers -------------------------------------------------------------- */

/* GET /containers/json: append one record per container (runtime DOCKER,
 * devices none).  Returns 0 or -1 with ERR (nothing appended). */
int pna_docker_parse_list(const char *text, size_t len, struct pna_container_set *set,
                          char *err, size_t errlen);

struct pna_docker_inspect {
    uint8_t state;             /* enum pna_ctr_state */
    int32_t pid;
    int64_t start_ms;          /* State.StartedAt; 0 unknown */
    bool oom_killed;           /* State.OOMKilled */
    bool has_mem_limit;
    uint64_t mem_limit_bytes;  /* HostConfig.Memory (0 there = none) */
    size_t ndevs;
    struct pna_ctr_device devs[64]; /* HostConfig.Devices, DeviceRequests GPU ids */
};

/* GET /containers/{id}/json.  Returns 0 or -1 with ERR. */
int pna_docker_parse_inspect(const char *text, size_t len, struct pna_docker_inspect *out,
                             char *err, size_t errlen);

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

/* RFC 3339 time ("2018-06-14T05:48:53.266176036Z", offsets allowed) to
 * epoch ms; 0 for Docker's zero time "0001-01-01T00:00:00Z"; -1 malformed. */
int64_t pna_parse_rfc3339_ms(const char *s);

/* ---- the client -------------------------------------------------------------------- */

struct pna_docker;

struct pna_docker *pna_docker_new(const char *socket_path, unsigned timeout_ms);
void pna_docker_free(struct pna_docker *d);

/* Append every running or paused container to SET, with devices and host
 * figures (pid, cgroup, memory via CG).  Returns 0, or -1 with ERR when dockerd
 * did not answer the list request (nothing appended). */
int pna_docker_collect(struct pna_docker *d, const struct pna_roots *roots,
                       const struct pna_cgroup_env *cg, struct pna_container_set *set,
                       char *err, size_t errlen);

/* Forget what was inspected about ID (an event said it changed). Any thread. */
void pna_docker_invalidate(struct pna_docker *d, const char *id);

/* Counters for the poller: requests that failed, containers inspected. */
uint32_t pna_docker_errors(const struct pna_docker *d);
uint32_t pna_docker_inspects(const struct pna_docker *d);

/* ---- the event stream ---------------------------------------------------------------- */

typedef void (*pna_docker_event_fn)(void *arg, const struct pna_docker_event *ev);
struct pna_docker_events;

/* Follow GET /events (container events only) on a thread; reconnect after
 * RETRY_MS (doubling up to 8x) whenever the stream ends or fails. */
struct pna_docker_events *pna_docker_events_start(const char *socket_path, unsigned timeout_ms,
                                                  unsigned retry_ms, pna_docker_event_fn fn,
                                                  void *arg);
void pna_docker_events_stop(struct pna_docker_events *e);
/* Successful connections so far, and failed attempts. */
uint32_t pna_docker_events_connects(const struct pna_docker_events *e);
uint32_t pna_docker_events_failures(const struct pna_docker_events *e);

#endif
