/* sources/containers/containerd.h -- containerd tasks from their OCI bundles on
 * disk.
 *
 * containerd's v2 runtime keeps one bundle per task at
 * STATE/io.containerd.runtime.v2.task/<namespace>/<id>/ with config.json (the
 * OCI spec) and init.pid (written when the task's process starts).  Reading
 * them needs no gRPC client and sees every namespace (k8s.io, moby, default...).
 * Pod sandboxes ("pause" containers) are left out, as the CRI's container list
 * leaves them out. */
#ifndef PNA_SOURCES_CONTAINERD_H
#define PNA_SOURCES_CONTAINERD_H

#include <stddef.h>
#include <stdint.h>

#include "model/containers.h"

struct pna_roots;
struct pna_cgroup_env;
struct pna_cdi_registry;
struct pna_bundle_cache;

#define PNA_CONTAINERD_TASK_DIR "io.containerd.runtime.v2.task"
#define PNA_CONTAINERD_MAX_BUNDLES 65536

struct pna_containerd_stats {
    unsigned bundles;        /* bundle directories seen */
    unsigned added;          /* records appended */
    unsigned sandboxes;      /* skipped pod sandboxes */
    unsigned bad_specs;      /* unreadable or malformed config.json */
    unsigned unresolved;     /* devices named by CDI or NVIDIA_VISIBLE_DEVICES that
                                nothing on the node resolved (pna_oci_info) */
    unsigned files_kept;     /* tasks whose cgroup files stay open until the next
                                scan (pna_bundle_cache_keep_files) */
    char last_error[160];
};

/* Scan ROOTS->rootfs/STATE_REL/io.containerd.runtime.v2.task and append one
 * record per task to SET (cgroup figures read through CG, which may be NULL or
 * mode NONE; CDI device names resolved through CDI, which may be NULL).  Returns 0, 1 when the directory does not exist (containerd not
 * on this node), or -1 with ERR when it cannot be read.  A bad bundle is
 * skipped and counted in STATS, never fatal. */
int pna_containerd_scan(const struct pna_roots *roots, const char *state_rel,
                        const struct pna_cgroup_env *cg, const struct pna_cdi_registry *cdi,
                        struct pna_container_set *set,
                        struct pna_containerd_stats *stats, char *err, size_t errlen);

/* pna_containerd_scan() that keeps each bundle's spec and init.pid in CACHE
 * (bundle_cache.h; NULL: none) and re-reads them only when they changed.
 * The records are the same as a scan without a cache gives. */
int pna_containerd_scan_cached(const struct pna_roots *roots, const char *state_rel,
                               const struct pna_cgroup_env *cg,
                               const struct pna_cdi_registry *cdi,
                               struct pna_bundle_cache *cache, struct pna_container_set *set,
                               struct pna_containerd_stats *stats, char *err, size_t errlen);

/* The directories whose entries change as tasks come and go: the task
 * directory, each namespace directory and each bundle; when the task
 * directory does not exist yet, the state directory it will appear in (if
 * that exists).  Returns a malloc'd array of malloc'd strings (free with
 * pna_containerd_free_dirs), count in *N. */
char **pna_containerd_watch_dirs(const struct pna_roots *roots, const char *state_rel, size_t *n);
void pna_containerd_free_dirs(char **dirs, size_t n);

/* Fill a record C of SET (its strings go to SET's pool) from the host: state from init.pid and procfs
 * (running, exited; paused when its cgroup is frozen), cgroup path (the
 * process's, else the spec's), memory from the cgroup.  Shared with the
 * Docker source. */
void pna_container_fill_runtime(const struct pna_roots *roots, const struct pna_cgroup_env *cg,
                                struct pna_container_set *set, struct pna_container *c,
                                const char *spec_cgroups_path);

#endif
