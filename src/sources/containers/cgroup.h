/* sources/containers/cgroup.h -- a container's memory figures and freezer state
 * from its cgroup, for cgroup v1 and v2, and the kernel's notification of its
 * OOMs (struct pna_cgroup_oom_notify: the one place that knows how each
 * version signals them).
 *
 *   v2: memory.current, memory.max ("max" = no limit), memory.events oom_kill;
 *       cgroup.events "frozen 1" (else cgroup.freeze "1") = paused
 *   v1: memory.usage_in_bytes, memory.limit_in_bytes (a value near 2^63 = no
 *       limit), memory.oom_control oom_kill (kernel 4.13 and later);
 *       freezer.state FROZEN or FREEZING in the freezer hierarchy = paused
 *
 * Paths are relative to the memory hierarchy's root (the cgroup path a process
 * shows in /proc/PID/cgroup), under the configured cgroup root in --sysfs. */
#ifndef PNA_SOURCES_CGROUP_H
#define PNA_SOURCES_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/held_files.h"

struct pna_roots;

enum pna_cgroup_mode {
    PNA_CG_NONE = 0,   /* no memory hierarchy found */
    PNA_CG_V1 = 1,
    PNA_CG_V2 = 2,
};

struct pna_cgroup_env {
    int mode;            /* enum pna_cgroup_mode */
    char mem_root[512];  /* the memory hierarchy's root directory */
    /* The freezer's: v2 the unified root (= mem_root); v1 the freezer
     * controller's mount, "" when there is none.  Runtimes (runc, crun) give
     * a container the same path in every v1 hierarchy, so the memory path
     * serves for the freezer too. */
    char freezer_root[512];
};

/* The files of one cgroup a poll keeps open (struct pna_cgroup_files): v2
 * memory.current, .max, .events, .stat and cgroup.events; v1 the four
 * memory files and freezer.state. */
#define PNA_CGROUP_FILES_HELD 5

/* memory.stat is about 1.5 KB in v1 (35 keys, twice) and 1 KB in v2. */
#define PNA_CGROUP_MEMORY_STAT_MAX 8192

struct pna_cgroup_mem {
    bool has_usage, has_limit, has_oom, has_working_set;
    uint64_t usage_bytes;
    uint64_t working_set_bytes;  /* usage less inactive file cache (memory.stat) */
    uint64_t limit_bytes;
    uint64_t oom_kills;
};

/* Find the memory hierarchy under ROOTS->sysfs + REL (usually "fs/cgroup"):
 * v2 when REL/cgroup.controllers exists (unified), else v1 when REL/memory is a
 * memory controller mount. Returns 0, or -1 with ERR (mode NONE). */
int pna_cgroup_detect(const struct pna_roots *roots, const char *rel,
                      struct pna_cgroup_env *env, char *err, size_t errlen);

/* The memory cgroup of process PID from ROOTS->procfs/PID/cgroup.
 * Returns 0 with a path starting with '/', or -errno. */
int pna_cgroup_path_of_pid(const struct pna_roots *roots, int mode, int pid,
                           char *buf, size_t cap);

/* Parse a /proc/PID/cgroup text (see above). */
int pna_cgroup_parse_proc(const char *text, int mode, char *buf, size_t cap);

/* linux.cgroupsPath of an OCI spec as a hierarchy path: "/a/b" stays, the
 * systemd driver's "slice:prefix:name" becomes
 * "/a.slice/a-b.slice/prefix-name.scope". Returns 0 or -EINVAL. */
int pna_cgroup_path_from_spec(const char *spec, char *buf, size_t cap);

/* Read the memory figures of cgroup PATH. Returns 0 when the directory
 * exists (each figure has its own has_ flag), or -errno. */
int pna_cgroup_read_memory(const struct pna_cgroup_env *env, const char *path,
                           struct pna_cgroup_mem *mem);

/* Whether cgroup PATH is frozen (the runtime paused the container): v2
 * cgroup.events "frozen 1", or cgroup.freeze "1" on a kernel whose
 * cgroup.events has no frozen key; v1 freezer.state FROZEN, or FREEZING (a
 * pause under way).  Returns 0 with *FROZEN set, or -errno when the state
 * cannot be read (no freezer, cgroup gone). */
int pna_cgroup_read_frozen(const struct pna_cgroup_env *env, const char *path, bool *frozen);

/* pna_cgroup_read_memory(), and pna_cgroup_read_frozen() when FROZEN is not
 * NULL (its return in *FROZEN_RC), with the cgroup's directory opened once
 * where both live in it (v2).  Returns what pna_cgroup_read_memory() does. */
int pna_cgroup_read_state(const struct pna_cgroup_env *env, const char *path,
                          struct pna_cgroup_mem *mem, bool *frozen, int *frozen_rc);

/* A cgroup's files kept open from one poll to the next (util/held_files.h):
 * its memory directory's (v2: with cgroup.events) and, in v1, its
 * freezer's.  Asked for another cgroup, they are opened anew: the directory
 * at its path is not the one they were opened in. */
struct pna_cgroup_files {
    bool keep;                       /* the caller's word: keep them open for the next call */
    struct pna_held_dir mem;
    struct pna_held_dir *freezer;    /* v1's freezer directory; NULL: none yet */
};

void pna_cgroup_files_init(struct pna_cgroup_files *f);
void pna_cgroup_files_close(struct pna_cgroup_files *f);

/* The hierarchies' root directories, opened (O_PATH) for one scan: each
 * cgroup's path is then walked from there rather than from the file
 * system's root through the configured roots, a shorter walk for every
 * container at every poll.  -1: not open, paths walked whole. */
struct pna_cgroup_at {
    int mem, freezer;
};

void pna_cgroup_at_open(const struct pna_cgroup_env *env, struct pna_cgroup_at *at);
void pna_cgroup_at_close(struct pna_cgroup_at *at);

/* pna_cgroup_read_state() through FILES: the files it holds are read again
 * while the cgroup's directory is the one they were opened in, else opened
 * (and kept open for the next call when FILES->keep).  AT: the scan's
 * opened roots, or NULL. */
int pna_cgroup_read_state_kept(const struct pna_cgroup_env *env, const struct pna_cgroup_at *at,
                               const char *path, struct pna_cgroup_files *files,
                               struct pna_cgroup_mem *mem, bool *frozen, int *frozen_rc);

/* The same from the texts: cgroup.events (v2) or freezer.state (v1).
 * Return 0, or -EINVAL when the text says neither. */
int pna_cgroup_parse_v2_frozen(const char *events_text, bool *frozen);
int pna_cgroup_parse_v1_freezer(const char *state_text, bool *frozen);

/* The file whose change signals an OOM kill: memory.events (v2) or
 * memory.oom_control (v1), and the control file v1 registers eventfds on. */
int pna_cgroup_oom_file(const struct pna_cgroup_env *env, const char *path, char *buf, size_t cap);
int pna_cgroup_event_control(const struct pna_cgroup_env *env, const char *path,
                             char *buf, size_t cap);

/* What signals an OOM in one cgroup, armed by pna_cgroup_oom_notify():
 *   v2: an inotify watch on its memory.events, in the caller's inotify
 *       instance: the kernel signals IN_MODIFY whenever one of the file's
 *       counters moves (oom, oom_kill, but also max and high), and
 *       IN_IGNORED once the cgroup is removed.  WD is the watch, FD -1.  One
 *       instance serves every cgroup: instances are few (128 a user by
 *       default), watches are many.
 *   v1: an eventfd registered through cgroup.event_control on
 *       memory.oom_control: readable when the cgroup enters OOM, before the
 *       victim dies and the oom_kill count moves; readable too once the
 *       cgroup is removed.  FD is it (numbered high, as held files are:
 *       util/held_files.h), WD -1.  The kernel takes what it needs of
 *       memory.oom_control during the registration, so only the eventfd
 *       stays open, for as long as the notification is wanted. */
struct pna_cgroup_oom_notify {
    int fd;
    int wd;
};

/* Arm the OOM notification of cgroup PATH into *OUT (INOTIFY_FD: the
 * instance a v2 watch is added to).  Returns 0, or -errno (-EINVAL: no
 * hierarchy, a bad path; -ENOENT: no such cgroup; -EACCES: not allowed to
 * register), *OUT then holding -1 in both. */
int pna_cgroup_oom_notify(const struct pna_cgroup_env *env, int inotify_fd, const char *path,
                          struct pna_cgroup_oom_notify *out);

/* Disarm N (v2: the watch removed from INOTIFY_FD unless WD is already -1,
 * which the caller sets once the kernel dropped it; v1: the eventfd
 * closed); N holds -1 in both after. */
void pna_cgroup_oom_unnotify(int inotify_fd, struct pna_cgroup_oom_notify *n);

/* The value of KEY in a flat-keyed cgroup file ("key value" lines:
 * memory.stat, memory.events, memory.oom_control).  Returns 0, -ENOENT when
 * the key is not there, or -EINVAL for a value that is not a number. */
int pna_cgroup_parse_key(const char *text, const char *key, uint64_t *out);

/* The oom_kill count in the text of memory.events or memory.oom_control. */
int pna_cgroup_parse_oom_kill(const char *text, uint64_t *out);

/* Read it from a file path (as pna_cgroup_oom_file() gives). */
int pna_cgroup_read_oom_kill(const char *file, uint64_t *out);

/* What tells a cgroup directory from one made later at the same path (a
 * Docker container restarted under its id gets a new cgroup where the old one
 * was): its device and inode number -- on cgroupfs the inode number is the
 * cgroup's id, which the kernel hands out in turn (64 bits wide since Linux
 * 5.5, so never twice) -- and its creation time where the file system reports
 * one (statx; 0 where it does not), so that a file system that reuses a freed
 * inode number (a fixture tree on ext4) still tells the two apart. */
struct pna_cgroup_id {
    uint64_t dev;
    uint64_t ino;
    int64_t btime_ns;
};

bool pna_cgroup_id_equal(const struct pna_cgroup_id *a, const struct pna_cgroup_id *b);

/* The oom_kill count of cgroup PATH (memory.events, v1 memory.oom_control)
 * and the identity of the directory it was read in.  The file is opened
 * through the directory's descriptor, so the two belong to one cgroup even
 * while the path is being given to a new one.  Returns 0, or -errno (-ENOENT:
 * the cgroup or its file is not there), -ENODATA (no oom_kill line), -EINVAL
 * (not a number, or no hierarchy). */
int pna_cgroup_read_oom_state(const struct pna_cgroup_env *env, const char *path,
                              uint64_t *count, struct pna_cgroup_id *id);

#endif
