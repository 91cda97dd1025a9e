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
 * The floors, alternating with the quiet polls: the system calls that any
 * poll reading every cgroup figure at every poll must make, and nothing
 * else; with each container's cgroup files held open (held_floor_round
 * below, what the agent does), and with them opened and closed at every
 * round (open_floor_round).  --files-held N is the agent's cgroupFilesHeld
 * (0: none held).
 * Prints one line:
 *   containers=C cgroup=vV files_held=H first_ms=F quiet_cpu_us_per_poll=X
 *   quiet_wall_us_per_poll=Y quiet_min_wall_us=M quiet_max_wall_us=W
 *   rescan_wall_us_per_scan=R floor_wall_us_per_round=L floor_min_wall_us=K
 *   floor_syscalls_per_round=S openfloor_wall_us_per_round=...
 *   openfloor_min_wall_us=... openfloor_syscalls_per_round=...
 *   kernel_bytes_before=B kernel_bytes_after=A
 * CPU time is user+system of this process (getrusage) over the N polls; the
 * floors' rounds are not in it.  The kernel bytes are what this process's
 * memory cgroup was charged for kernel memory after init and after the
 * quiet polls (-1: not readable); bench/run.sh runs it alone in a cgroup
 * of its own, where the difference is what the poll holds in the kernel. */
#include "pna_autoconf.h"
#include "core/config.h"
#include "core/events.h"
#include "core/poller.h"
#include "core/roots.h"
#include "model/containers.h"
#include "pollers/pollers.h"
#include "sources/containers/cgroup.h"
#include "sources/containers/containerd.h"
#include "util/fileio.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
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

/* The files of a container's cgroup that a poll reads: the freezer, usage,
 * limit, OOM kills, and memory.stat for the working set.  v2 has them in
 * one directory; v1 in the memory controller's and the freezer's. */
#define FILES_MAX 5
struct floor_dir {
    const char *root;              /* the hierarchy's root, "" for none */
    const char *files[FILES_MAX];
    size_t n;
    int fd;                        /* ROOT opened (O_PATH), as the agent's scan opens it */
};
static struct floor_dir floor_dirs[2];
static int proc_fd;                /* the procfs root opened */

static void floor_setup(const struct pna_cgroup_env *cg)
{
    static const struct floor_dir v2 = {
        "", { "cgroup.events", "memory.current", "memory.max", "memory.events", "memory.stat" }, 5, -1
    };
    static const struct floor_dir v1_mem = {
        "", { "memory.usage_in_bytes", "memory.limit_in_bytes", "memory.oom_control",
              "memory.stat" }, 4, -1
    };
    static const struct floor_dir v1_freezer = { "", { "freezer.state" }, 1, -1 };
    floor_dirs[0] = cg->mode == PNA_CG_V2 ? v2 : v1_mem;
    floor_dirs[0].root = cg->mem_root;
    floor_dirs[1] = v1_freezer;
    floor_dirs[1].root = cg->mode == PNA_CG_V1 ? cg->freezer_root : "";
    /* The roots as the kernel names them: the agent's descriptors are
     * matched to rows by the paths /proc/self/fd shows, links resolved. */
    static char real[2][PATH_MAX];
    for (size_t d = 0; d < 2; d++) {
        floor_dirs[d].fd = -1;
        if (!floor_dirs[d].root[0] || !realpath(floor_dirs[d].root, real[d]))
            continue;
        floor_dirs[d].root = real[d];
        floor_dirs[d].fd = open(real[d], O_PATH | O_DIRECTORY | O_CLOEXEC);
    }
}


/* A running container as the floors read it: its process's procfs
 * directory (from the procfs root), its cgroup directories, and (held floor)
 * the descriptors of its cgroup files the agent holds open. */
struct floor_row {
    char proc[32];
    char dir[2][1024];
    int fd[2][FILES_MAX];
};

/* Directory D of row R as a path from floor_dirs[D].fd. */
static const char *rel_dir(const struct floor_row *r, size_t d)
{
    return r->dir[d] + strlen(floor_dirs[d].root) + 1;
}

static int cmp_dir(const void *a, const void *b)
{
    return strcmp(((const struct floor_row *)a)->dir[0], ((const struct floor_row *)b)->dir[0]);
}

/* The row whose cgroup directory D is DIR (ROWS sorted by dir[0] for D 0). */
static struct floor_row *row_of(struct floor_row *rows, size_t n, size_t d, const char *dir)
{
    if (d == 0) {
        struct floor_row key;
        snprintf(key.dir[0], sizeof key.dir[0], "%s", dir);
        return bsearch(&key, rows, n, sizeof *rows, cmp_dir);
    }
    for (size_t i = 0; i < n; i++)
        if (strcmp(rows[i].dir[d], dir) == 0)
            return &rows[i];
    return NULL;
}

/* The held floor reads the very descriptors the agent holds (from
 * FD_SETSIZE up, named in /proc/self/fd): as many again of its own would
 * not fit under a hard limit of twice their number.  Each goes to the row
 * and file its path names. */
static void adopt_held_files(struct floor_row *rows, size_t n)
{
    DIR *fds = opendir("/proc/self/fd");
    struct dirent *e;
    while (fds && (e = readdir(fds)) != NULL) {
        int fd = atoi(e->d_name);
        char link[64], path[1024];
        if (fd < FD_SETSIZE)
            continue;
        snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
        ssize_t len = readlink(link, path, sizeof path - 1);
        if (len <= 0)
            continue;
        path[len] = '\0';
        char *slash = strrchr(path, '/');
        if (!slash)
            continue;
        *slash = '\0';
        for (size_t d = 0; d < 2; d++) {
            struct floor_row *r = floor_dirs[d].root[0] ? row_of(rows, n, d, path) : NULL;
            for (size_t f = 0; r && f < floor_dirs[d].n; f++)
                if (strcmp(floor_dirs[d].files[f], slash + 1) == 0)
                    r->fd[d][f] = fd;
        }
    }
    if (fds)
        closedir(fds);
}

/* The rows of SET with a process and a cgroup, with the agent's descriptors
 * of their files where it holds them (-1 where not).  Not timed. */
static struct floor_row *floor_rows(const struct pna_container_set *set, size_t *n)
{
    struct floor_row *rows = calloc(set->count ? set->count : 1, sizeof *rows);
    *n = 0;
    for (size_t i = 0; rows && i < set->count; i++) {
        const struct pna_container *c = &set->rows[i];
        struct floor_row *r = &rows[*n];
        if (c->pid <= 0 || !c->cgroup_path || !c->cgroup_path[0] ||
            strcmp(c->cgroup_path, "/") == 0)
            continue;
        snprintf(r->proc, sizeof r->proc, "%d", c->pid);
        for (size_t d = 0; d < 2; d++) {
            r->dir[d][0] = '\0';
            if (floor_dirs[d].root[0])
                snprintf(r->dir[d], sizeof r->dir[d], "%s%s", floor_dirs[d].root, c->cgroup_path);
            for (size_t f = 0; f < FILES_MAX; f++)
                r->fd[d][f] = -1;
        }
        (*n)++;
    }
    if (rows) {
        qsort(rows, *n, sizeof *rows, cmp_dir);
        adopt_held_files(rows, *n);
    }
    return rows;
}

/* One round of the floor: for each row, a stat of its process's directory
 * (is it alive), and for each of its cgroup directories a stat (is it the
 * one the files are of) and each file read from offset 0 through the
 * descriptor held open.  No parsing, no record, no snapshot: what is left
 * of a quiet poll when every cgroup figure is read at every poll.  Returns
 * the system calls made. */
static long held_floor_round(const struct floor_row *rows, size_t n)
{
    char buf[PNA_CGROUP_MEMORY_STAT_MAX];
    long calls = 0;
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        calls++;
        if (fstatat(proc_fd, rows[i].proc, &st, 0) < 0)
            continue;
        for (size_t d = 0; d < 2; d++) {
            if (!rows[i].dir[d][0])
                continue;
            calls++;
            if (fstatat(floor_dirs[d].fd, rel_dir(&rows[i], d), &st, 0) < 0)
                continue;
            for (size_t f = 0; f < floor_dirs[d].n; f++) {
                if (rows[i].fd[d][f] < 0)
                    continue;
                calls++;
                if (pread(rows[i].fd[d][f], buf, sizeof buf, 0) < 0)
                    perror("ctrpoll: floor read");
            }
        }
    }
    return calls;
}

/* The same with every file opened, read once and closed at every round,
 * through its cgroup directory opened (O_PATH): the floor of a poll that
 * keeps nothing open. */
static long open_floor_round(const struct floor_row *rows, size_t n)
{
    char buf[PNA_CGROUP_MEMORY_STAT_MAX];
    long calls = 0;
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        calls++;
        if (fstatat(proc_fd, rows[i].proc, &st, 0) < 0)
            continue;
        for (size_t d = 0; d < 2; d++) {
            if (!rows[i].dir[d][0])
                continue;
            int dirfd = openat(floor_dirs[d].fd, rel_dir(&rows[i], d),
                               O_PATH | O_DIRECTORY | O_CLOEXEC);
            calls++;
            if (dirfd < 0)
                continue;
            for (size_t f = 0; f < floor_dirs[d].n; f++) {
                int fd = openat(dirfd, floor_dirs[d].files[f], O_RDONLY | O_CLOEXEC);
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
    }
    return calls;
}

/* The kernel memory charged to this process's memory cgroup, in bytes: v2
 * memory.stat "kernel" (Linux 5.18 on; "slab" before), v1
 * memory.kmem.usage_in_bytes.  -1 when it cannot be read.  Meaningful when
 * this process is alone in its cgroup (bench/run.sh makes one). */
static long long kernel_bytes(void)
{
    struct pna_roots host = PNA_ROOTS_DEFAULT;
    struct pna_cgroup_env env;
    char err[160], cg[1024], path[1600], text[4096];
    uint64_t v;
    if (pna_cgroup_detect(&host, "fs/cgroup", &env, err, sizeof err) < 0 ||
        pna_cgroup_path_of_pid(&host, env.mode, (int)getpid(), cg, sizeof cg) < 0)
        return -1;
    const char *dir = strcmp(cg, "/") ? cg : "";   /* the root cgroup: no double slash */
    if (env.mode == PNA_CG_V1) {
        snprintf(path, sizeof path, "%s%s/memory.kmem.usage_in_bytes", env.mem_root, dir);
        return pna_read_u64(path, &v) == 0 ? (long long)v : -1;
    }
    snprintf(path, sizeof path, "%s%s/memory.stat", env.mem_root, dir);
    if (pna_read_text(path, text, sizeof text) < 0)
        return -1;
    if (pna_cgroup_parse_key(text, "kernel", &v) == 0 ||
        pna_cgroup_parse_key(text, "slab", &v) == 0)
        return (long long)v;
    return -1;
}

static void usage(void)
{
    fprintf(stderr, "usage: ctrpoll --sysfs DIR --procfs DIR --rootfs DIR [--devfs DIR] "
                    "--polls N [--files-held N]\n");
    exit(2);
}

static double since(double t0)
{
    return wall_us() - t0;
}

int main(int argc, char **argv)
{
    struct pna_config cfg;
    pna_config_defaults(&cfg);
    struct pna_containers_settings set;
    pna_config_poller_defaults(&pna_containers_poller, &set);
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
        else if (strcmp(argv[i], "--files-held") == 0)
            set.cgroup_files_held = (unsigned)atol(argv[i + 1]);
        else
            usage();
    }
    if (polls < 1 || argc % 2 == 0)
        usage();
    pna_events_init(1000);
    void *st = NULL;
    char err[256] = "";
    if (pna_containers_poller.init(&st, &cfg, &set, err, sizeof err) != 0) {
        fprintf(stderr, "ctrpoll: containers poller init: %s\n", err);
        return 2;
    }
    long long kernel_before = kernel_bytes();
    double w0 = wall_us();
    struct pna_snap *snap = poll_once(st, NULL);
    double first_ms = since(w0) / 1e3;
    /* The second poll settles what the first one set up (watches added,
     * holders that need the previous snapshot): not timed as quiet. */
    snap = poll_once(st, snap);
    struct pna_cgroup_env cg;
    if (pna_cgroup_detect(&cfg.roots, "fs/cgroup", &cg, err, sizeof err) < 0) {
        fprintf(stderr, "ctrpoll: no cgroup tree under the sysfs root: %s\n", err);
        return 2;
    }
    floor_setup(&cg);
    char proc[512];
    proc_fd = pna_path(proc, sizeof proc, cfg.roots.procfs, "/") == 0
                  ? open(proc, O_PATH | O_DIRECTORY | O_CLOEXEC)
                  : -1;
    size_t nrows;
    struct floor_row *rows =
        floor_rows(&((const struct pna_containers_snap *)snap)->set, &nrows);
    /* Quiet polls and floor rounds alternate, so that all see the machine
     * in the same state; only the polls are in the CPU figure. */
    double min_w = 1e18, max_w = 0, wall = 0, cpu = 0;
    double held_wall = 0, held_min = 1e18, open_wall = 0, open_min = 1e18;
    long held_calls = 0, open_calls = 0;
    for (long i = 0; i < polls; i++) {
        double c = cpu_us(), w = wall_us();
        snap = poll_once(st, snap);
        w = since(w);
        cpu += cpu_us() - c;
        wall += w;
        min_w = w < min_w ? w : min_w;
        max_w = w > max_w ? w : max_w;
        double f = wall_us();
        held_calls = held_floor_round(rows, nrows);
        f = since(f);
        held_wall += f;
        held_min = f < held_min ? f : held_min;
        f = wall_us();
        open_calls = open_floor_round(rows, nrows);
        f = since(f);
        open_wall += f;
        open_min = f < open_min ? f : open_min;
    }
    free(rows);   /* the descriptors are the agent's */
    long long kernel_after = kernel_bytes();
    size_t count = ((const struct pna_containers_snap *)snap)->set.count;
    pna_snap_release(snap);
    pna_containers_poller.fini(st);
    double rescan = full_rescans(&cfg, polls);
    printf("containers=%zu cgroup=v%d files_held=%u first_ms=%.1f quiet_cpu_us_per_poll=%.0f "
           "quiet_wall_us_per_poll=%.0f quiet_min_wall_us=%.0f quiet_max_wall_us=%.0f "
           "rescan_wall_us_per_scan=%.0f "
           "floor_wall_us_per_round=%.0f floor_min_wall_us=%.0f floor_syscalls_per_round=%ld "
           "openfloor_wall_us_per_round=%.0f openfloor_min_wall_us=%.0f "
           "openfloor_syscalls_per_round=%ld kernel_bytes_before=%lld kernel_bytes_after=%lld\n",
           count, cg.mode, set.cgroup_files_held, first_ms, cpu / polls, wall / polls, min_w,
           max_w, rescan, held_wall / polls, held_min, held_calls, open_wall / polls, open_min,
           open_calls, kernel_before, kernel_after);
    pna_events_shutdown();
    return 0;
}
