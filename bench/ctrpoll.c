/* ctrpoll.c -- time of one containers poll on a generated node: the agent's
 * own "containers" poller, init once, then collect() N times, each result
 * kept as the next poll's previous snapshot as the poller core does.  A
 * benchmark helper (bench/run.sh), not a test.
 *
 *   ctrpoll --sysfs DIR --procfs DIR --rootfs DIR [--devfs DIR] --polls N
 *
 * The first poll (everything new) is timed apart from the N that follow it,
 * in which nothing changed: the quiet poll the figure is about.
 * The peer, in the same run: the containerd scan alone with no bundle cache
 * (every spec parsed, every file read), as every poll did before the cache.
 * The floor, alternating with the quiet polls: the system calls that any poll
 * reading every cgroup figure at every poll must make (cgroup_floor below),
 * and nothing else.
 * Prints one line:
 *   containers=C first_ms=F quiet_cpu_us_per_poll=X quiet_wall_us_per_poll=Y
 *   quiet_min_wall_us=M quiet_max_wall_us=W rescan_wall_us_per_scan=R
 *   floor_wall_us_per_round=L floor_min_wall_us=K floor_syscalls_per_round=S
 * CPU time is user+system of this process (getrusage) over the N polls; the
 * floor's rounds are not in it. */
#include "pna_autoconf.h"
#include "core/config.h"
#include "core/events.h"
#include "core/poller.h"
#include "model/containers.h"
#include "pollers/pollers.h"
#include "sources/containers/cgroup.h"
#include "sources/containers/containerd.h"
#include "util/fileio.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double cpu_us(void)
{
    struct rusage self;
    getrusage(RUSAGE_SELF, &self);
    return (self.ru_utime.tv_sec + self.ru_stime.tv_sec) * 1e6 +
           (self.ru_utime.tv_usec + self.ru_stime.tv_usec);
}

static double wall_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static struct pna_snap *poll_once(void *st, struct pna_snap *prev)
{
    struct pna_snap *out = NULL;
    char err[256] = "";
    if (pna_containers_poller.collect(st, prev, NULL, &out, err, sizeof err) != 0) {
        fprintf(stderr, "ctrpoll: containers poll: %s\n", err);
        exit(2);
    }
    if (prev)
        pna_snap_release(prev);
    return out;
}

/* The peer: N containerd scans without a cache, wall time per scan. */
static double full_rescans(const struct pna_config *cfg, long n)
{
    struct pna_cgroup_env cg;
    char err[256];
    if (pna_cgroup_detect(&cfg->roots, "fs/cgroup", &cg, err, sizeof err) < 0)
        cg.mode = PNA_CG_NONE;
    struct pna_container_set set;
    struct pna_containerd_stats st;
    pna_container_set_init(&set);
    double t0 = wall_us();
    for (long i = 0; i < n; i++) {
        pna_container_set_clear(&set);
        if (pna_containerd_scan(&cfg->roots, "run/containerd", &cg, NULL, &set, &st, err,
                                sizeof err) < 0) {
            fprintf(stderr, "ctrpoll: scan: %s\n", err);
            exit(2);
        }
    }
    double per = (wall_us() - t0) / n;
    pna_container_set_free(&set);
    return per;
}

/* The files of a container's cgroup (v2) that a poll reads: the freezer,
 * usage, limit, OOM kills, and memory.stat for the working set. */
static const char *const cgroup_files[] = {
    "cgroup.events", "memory.current", "memory.max", "memory.events", "memory.stat",
};

/* One round of the floor over the rows of SET: for each running container,
 * a stat of /proc/PID under ROOTS (is its process alive), its cgroup directory under
 * MEM_ROOT opened, and each of cgroup_files opened, read once and closed.
 * No parsing, no record, no snapshot: what is left of a quiet poll when
 * every cgroup figure is still read at every poll, as the agent's poll does
 * it (one read() per file, the files opened relative to the directory).
 * Returns the system calls made. */
static long cgroup_floor_round(const struct pna_roots *roots, const char *mem_root,
                               const struct pna_container_set *set)
{
    char path[1024], buf[PNA_CGROUP_MEMORY_STAT_MAX];
    long calls = 0;
    for (size_t i = 0; i < set->count; i++) {
        const struct pna_container *c = &set->rows[i];
        struct stat st;
        if (c->pid <= 0 || !c->cgroup_path || !c->cgroup_path[0])
            continue;
        if (pna_path(path, sizeof path, roots->procfs, "/%d", c->pid) < 0)
            continue;
        calls++;
        if (stat(path, &st) < 0)
            continue;
        snprintf(path, sizeof path, "%s%s", mem_root, c->cgroup_path);
        int dirfd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
        calls++;
        if (dirfd < 0)
            continue;
        for (size_t f = 0; f < sizeof cgroup_files / sizeof cgroup_files[0]; f++) {
            int fd = openat(dirfd, cgroup_files[f], O_RDONLY | O_CLOEXEC);
            calls++;
            if (fd < 0)
                continue;
            calls += 2;
            if (read(fd, buf, sizeof buf) < 0)
                perror("ctrpoll: floor read");
            close(fd);
        }
        close(dirfd);
        calls++;
    }
    return calls;
}

static void usage(void)
{
    fprintf(stderr, "usage: ctrpoll --sysfs DIR --procfs DIR --rootfs DIR [--devfs DIR] "
                    "--polls N\n");
    exit(2);
}

int main(int argc, char **argv)
{
    struct pna_config cfg;
    pna_config_defaults(&cfg);
    long polls = 50;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--sysfs") == 0)
            cfg.roots.sysfs = argv[i + 1];
        else if (strcmp(argv[i], "--procfs") == 0)
            cfg.roots.procfs = argv[i + 1];
        else if (strcmp(argv[i], "--rootfs") == 0)
            cfg.roots.rootfs = argv[i + 1];
        else if (strcmp(argv[i], "--devfs") == 0)
            cfg.roots.devfs = argv[i + 1];
        else if (strcmp(argv[i], "--polls") == 0)
            polls = atol(argv[i + 1]);
        else
            usage();
    }
    if (polls < 1 || argc % 2 == 0)
        usage();
    pna_events_init(1000);
    void *st = NULL;
    char err[256] = "";
    if (pna_containers_poller.init(&st, &cfg, err, sizeof err) != 0) {
        fprintf(stderr, "ctrpoll: containers poller init: %s\n", err);
        return 2;
    }
    double w0 = wall_us();
    struct pna_snap *snap = poll_once(st, NULL);
    double first_ms = (wall_us() - w0) / 1e3;
    /* The second poll settles what the first one set up (watches added,
     * holders that need the previous snapshot): not timed as quiet. */
    snap = poll_once(st, snap);
    struct pna_cgroup_env cg;
    if (pna_cgroup_detect(&cfg.roots, "fs/cgroup", &cg, err, sizeof err) < 0 ||
        cg.mode != PNA_CG_V2) {
        fprintf(stderr, "ctrpoll: no cgroup v2 tree under the sysfs root: %s\n", err);
        return 2;
    }
    /* Quiet polls and floor rounds alternate, so that both see the machine
     * in the same state; only the polls are in the CPU figure. */
    double min_w = 1e18, max_w = 0, wall = 0, cpu = 0, floor_wall = 0, floor_min = 1e18;
    long floor_calls = 0;
    for (long i = 0; i < polls; i++) {
        double c = cpu_us(), w = wall_us();
        snap = poll_once(st, snap);
        w = wall_us() - w;
        cpu += cpu_us() - c;
        wall += w;
        min_w = w < min_w ? w : min_w;
        max_w = w > max_w ? w : max_w;
        double f = wall_us();
        floor_calls = cgroup_floor_round(&cfg.roots, cg.mem_root,
                                         &((const struct pna_containers_snap *)snap)->set);
        f = wall_us() - f;
        floor_wall += f;
        floor_min = f < floor_min ? f : floor_min;
    }
    size_t rows = ((const struct pna_containers_snap *)snap)->set.count;
    pna_snap_release(snap);
    pna_containers_poller.fini(st);
    double rescan = full_rescans(&cfg, polls);
    printf("containers=%zu first_ms=%.1f quiet_cpu_us_per_poll=%.0f quiet_wall_us_per_poll=%.0f "
           "quiet_min_wall_us=%.0f quiet_max_wall_us=%.0f rescan_wall_us_per_scan=%.0f "
           "floor_wall_us_per_round=%.0f floor_min_wall_us=%.0f floor_syscalls_per_round=%ld\n",
           rows, first_ms, cpu / polls, wall / polls, min_w, max_w, rescan, floor_wall / polls,
           floor_min, floor_calls);
    pna_events_shutdown();
    return 0;
}
