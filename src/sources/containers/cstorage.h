/* sources/containers/cstorage.h -- CRI-O's and Podman's containers, from the
 * containers/storage store they share, on disk.
 *
 * containers/storage keeps each container of graph driver DRIVER (overlay,
 * vfs, btrfs...) at GRAPH/DRIVER-containers/<id>/userdata/ (persistent:
 * CRI-O's /var/lib/containers/storage, Podman's too when rootful) and
 * RUN/DRIVER-containers/<id>/userdata/ (a tmpfs: /run/containers/storage).
 * Both runtimes write the OCI spec there as config.json (oci_spec.h); which
 * one made a container, its spec's annotations say (Podman's
 * io.container.manager: libpod; else CRI-O).  PID and state without a
 * daemon socket:
 *   - CRI-O writes state.json (cstorage_json.h) at each change of state:
 *     status, initPid and initStartTime, the process's start in clock ticks
 *     as /proc/PID/stat gives it.  The process is the container's while
 *     /proc/PID exists with that start time (CRI-O's own check); a
 *     "running" whose process is gone is exited (the container died while
 *     CRI-O was down).
 *   - Podman keeps its states in libpod's database (bolt or sqlite), which
 *     is not read; the OCI runtime writes the container's pid to
 *     RUN/.../userdata/pidfile when the process starts and Podman leaves it
 *     after the container stops.  No pidfile: created; a pidfile whose
 *     process is alive and started before the file was written: running;
 *     else exited (a pid reused later belongs to a process started after
 *     the file).  Paused, for both, is the cgroup's freezer (containerd.h).
 * The names come from the spec (Kubernetes containers), else from the
 * store's containers.json (Podman's names and image).  The store is read
 * whole at every scan; pna_cstorage_watch_dirs() names the directories
 * whose changes should wake the poller.  Pod sandboxes
 * (infra containers) are left out of the rows; a CRI-O sandbox's spec gives
 * its pod's labels (io.kubernetes.cri-o.Labels) to the scan's pod label set
 * when podLabels names some.  Rootless Podman (a store under a
 * user's home) is not read. */
#ifndef PNA_SOURCES_CSTORAGE_H
#define PNA_SOURCES_CSTORAGE_H

#include <stddef.h>
#include <stdint.h>

#include "model/containers.h"
#include "model/kubernetes/pod_labels.h"

struct pna_roots;
struct pna_label_allow;
struct pna_cgroup_env;
struct pna_cdi_registry;
struct pna_cstorage;

#define PNA_CSTORAGE_MAX_CONTAINERS 65536

struct pna_cstorage_stats {
    unsigned containers;     /* container directories seen */
    unsigned crio, podman;   /* records appended, by runtime */
    unsigned sandboxes;      /* skipped pod sandboxes */
    unsigned bad_specs;      /* unreadable or malformed config.json: not listed */
    unsigned bad_states;     /* unreadable or malformed state.json: the last good
                                one served, else state unknown */
    unsigned unresolved;     /* devices named that nothing on the node resolved */
    char last_error[160];
};

/* A reader: what it keeps between scans (each container's last good
 * state.json).  NULL when out of memory. */
struct pna_cstorage *pna_cstorage_new(void);
void pna_cstorage_free(struct pna_cstorage *cs);

/* Keep the labels ALLOW names of each CRI-O pod sandbox a scan sees (ALLOW
 * outlives CS; NULL or empty: none), as the Docker reader does;
 * pna_cstorage_take_pod_labels() then appends the last scan's to OUT and
 * forgets them.  Returns 0, or -1 when out of memory. */
void pna_cstorage_read_pod_labels(struct pna_cstorage *cs, const struct pna_label_allow *allow);
int pna_cstorage_take_pod_labels(struct pna_cstorage *cs, struct pna_pod_label_set *out);

/* Scan ROOTS->rootfs/GRAPH_REL and ROOTS->rootfs/RUN_REL and append one
 * record per container to SET (cgroups through CG, which may be NULL; CDI
 * names through CDI, which may be NULL).  Returns 0, 1 when GRAPH_REL does
 * not exist (neither CRI-O nor Podman on this node), or -1 with ERR when it
 * cannot be read.  A bad container is counted in STATS, never fatal. */
int pna_cstorage_scan(struct pna_cstorage *cs, const struct pna_roots *roots,
                      const char *graph_rel, const char *run_rel,
                      const struct pna_cgroup_env *cg, const struct pna_cdi_registry *cdi,
                      struct pna_container_set *set, struct pna_cstorage_stats *stats,
                      char *err, size_t errlen);

/* The directories whose entries change as containers come, go and change
 * state: under each root, every DRIVER-containers directory and every
 * container's userdata directory (config.json, state.json, pidfile are
 * written there).  Nothing when GRAPH_REL does not exist.  A malloc'd array
 * of malloc'd strings, count in *N (free with pna_cstorage_free_dirs). */
char **pna_cstorage_watch_dirs(const struct pna_roots *roots, const char *graph_rel,
                               const char *run_rel, size_t *n);
void pna_cstorage_free_dirs(char **dirs, size_t n);

#endif
