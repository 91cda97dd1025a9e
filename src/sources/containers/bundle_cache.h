/* sources/containers/bundle_cache.h -- what each containerd bundle's files
 * said, kept while the files are unchanged.
 *
 * A bundle's config.json is written once, when the task is created, and its
 * init.pid once, when the task's process starts; yet parsing every spec at
 * every poll was most of a containers poll's cost.  The cache keeps, per
 * bundle, the spec's facts (oci_spec.h: the JSON's content, before anything
 * of the node is looked at) and the pid, with the identity of the file each
 * came from (device, inode, size, modification and change times).  A poll
 * compares identities (one fstatat per file) and re-reads only what
 * differs.  Everything that depends on the node (device names, CDI, the
 * NVIDIA GPU list, the process, its cgroup and every cgroup figure) is still
 * read at every poll.
 *
 * A file modified less than PNA_FILE_RACY_MS before it was read is read
 * again at the next poll (util/file_id.h: a rewrite within one tick of the
 * file system's clock, at the same size, keeps its identity).
 *
 * Entries are keyed by namespace and task id; one a scan does not see is
 * dropped when the scan ends.  Used by the containers poller's thread only. */
#ifndef PNA_SOURCES_BUNDLE_CACHE_H
#define PNA_SOURCES_BUNDLE_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sources/containers/cgroup.h"
#include "sources/containers/oci_spec.h"
#include "util/file_id.h"

struct pna_bundle_entry {
    struct pna_file_id spec_id;   /* config.json when the facts were read */
    bool spec_known;              /* facts or spec_error hold what that file said */
    char *spec_error;             /* the spec could not be read or parsed (one line) */
    struct pna_oci_facts facts;
    struct pna_file_id pid_id;    /* init.pid when pid/start_ms were read */
    bool pid_known;
    int32_t pid;                  /* 0: init.pid absent or not a pid */
    int64_t start_ms;             /* init.pid's modification time */
    char *pid_cgroup;             /* that process's cgroup path (/proc/PID/cgroup),
                                     NULL: not read yet */
    struct pna_cgroup_files cgroup_files; /* its cgroup's files, open between scans
                                             (cgroup.h) */
};

struct pna_bundle_cache;

struct pna_bundle_cache *pna_bundle_cache_new(void);   /* NULL: out of memory */
void pna_bundle_cache_free(struct pna_bundle_cache *cache);

/* Tell the next scans whether the caller knows that no bundle file changed
 * since the last scan (an inotify watch on every bundle directory saw
 * nothing): then a spec known and settled is used without looking at its
 * file at all.  Off by default. */
void pna_bundle_cache_set_quiet(struct pna_bundle_cache *cache, bool quiet);
bool pna_bundle_cache_quiet(const struct pna_bundle_cache *cache);

/* Keep the cgroup files of at most N containers open from one scan to the
 * next (cgroup.h, util/held_files.h); 0, the default: open, read and close
 * them at every scan. */
void pna_bundle_cache_keep_files(struct pna_bundle_cache *cache, size_t n);
size_t pna_bundle_cache_files_limit(const struct pna_bundle_cache *cache);

/* A scan begins: entries it does not ask for are dropped at its end. */
void pna_bundle_cache_begin(struct pna_bundle_cache *cache);

/* The entry of task ID in containerd namespace NS, created empty (nothing
 * known) when new; NULL when out of memory. */
struct pna_bundle_entry *pna_bundle_cache_get(struct pna_bundle_cache *cache, const char *ns,
                                              const char *id);

/* The scan ended: drop the entries it did not ask for.  Returns how many
 * entries remain. */
size_t pna_bundle_cache_end(struct pna_bundle_cache *cache);

/* Forget what E's spec said (it changed, or vanished). */
void pna_bundle_entry_forget_spec(struct pna_bundle_entry *e);

/* Forget E's process: pid, start time, cgroup path, and close its cgroup's
 * files. */
void pna_bundle_entry_forget_pid(struct pna_bundle_entry *e);

#endif
