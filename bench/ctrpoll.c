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
 * Prints one line:
 *   containers=C first_ms=F quiet_cpu_us_per_poll=X quiet_wall_us_per_poll=Y
 *   quiet_min_wall_us=M quiet_max_wall_us=W rescan_wall_us_per_scan=R
 * CPU time is user+system of this process (getrusage) over the N polls. */
#include "pna_autoconf.h"
#include "core/config.h"
#include "core/events.h"
#include "core/poller.h"
#include "model/containers.h"
#include "pollers/pollers.h"
#include "sources/containers/cgroup.h"
#include "sources/containers/containerd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

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
    double min_w = 1e18, max_w = 0;
    double c0 = cpu_us(), t0 = wall_us();
    for (long i = 0; i < polls; i++) {
        double w = wall_us();
        snap = poll_once(st, snap);
        w = wall_us() - w;
        min_w = w < min_w ? w : min_w;
        max_w = w > max_w ? w : max_w;
    }
    double cpu = cpu_us() - c0, wall = wall_us() - t0;
    size_t rows = ((const struct pna_containers_snap *)snap)->set.count;
    pna_snap_release(snap);
    pna_containers_poller.fini(st);
    double rescan = full_rescans(&cfg, polls);
    printf("containers=%zu first_ms=%.1f quiet_cpu_us_per_poll=%.0f quiet_wall_us_per_poll=%.0f "
           "quiet_min_wall_us=%.0f quiet_max_wall_us=%.0f rescan_wall_us_per_scan=%.0f\n",
           rows, first_ms, cpu / polls, wall / polls, min_w, max_w, rescan);
    pna_events_shutdown();
    return 0;
}
