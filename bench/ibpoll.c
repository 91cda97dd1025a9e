/* ibpoll.c -- CPU time of one InfiniBand poll cycle: the agent's ib poller
 * against reading the same sysfs data the way exporters that fork a command
 * per poll do.  A benchmark helper (bench/run.sh), not a test.
 *
 *   ibpoll --sysfs DIR --polls N MODE
 *
 * MODE:
 *   agent      the agent's own "ib" poller (pna_ib_poller: init once, then
 *              collect() N times, each result kept as the next poll's previous
 *              snapshot as the poller core does): every file read once, no fork.
 *   fork-poll  per poll, one fork+exec of `cat` with every counter and state
 *              file of every port as arguments, its output read through a pipe
 *              and parsed: one command per poll, as an exporter that runs
 *              `rdma statistic show` every poll does.
 *   fork-port  per poll, one `cat` per port with that port's files: one command
 *              per port, as `rdma statistic show link DEV/PORT` per port.
 *   fork-file  per poll, one `cat` per file: a command per counter, as shell
 *              or perfquery-per-counter scripts do.
 *   exec-only  per poll, one fork+exec of COMMAND (after --, e.g. `rdma
 *              statistic show`), output discarded: the bare price of one exec
 *              of the real tool, without the data it would read.
 *
 * Prints one line: MODE polls=N files=F forks=K cpu_us_per_poll=X
 * wall_us_per_poll=Y values=V, where CPU time is user+system of this process
 * and its children (getrusage), measured around the N polls only. */
#include "pna_autoconf.h"
#include "core/config.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pollers/pollers.h"
#include "core/events.h"
#include "core/poller.h"

struct strv {
    char **v;
    size_t n, cap;
};

static void strv_push(struct strv *s, const char *str)
{
    if (s->n + 1 >= s->cap) {
        s->cap = s->cap ? s->cap * 2 : 256;
        s->v = realloc(s->v, s->cap * sizeof *s->v);
        if (!s->v) {
            perror("ibpoll: realloc");
            exit(2);
        }
    }
    s->v[s->n++] = strdup(str);
    s->v[s->n] = NULL;
}

/* printf into a path buffer; a path that does not fit ends the run. */
static void pathf(char *buf, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void pathf(char *buf, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, cap, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= cap) {
        fprintf(stderr, "ibpoll: path too long\n");
        exit(2);
    }
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The regular files of DIR (sorted), appended to OUT as full paths. */
static void list_files(const char *dir, struct strv *out)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct strv names = { 0 };
    struct dirent *e;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.' && e->d_type != DT_DIR && strcmp(e->d_name, "lifespan") != 0)
            strv_push(&names, e->d_name);
    closedir(d);
    if (names.n)
        qsort(names.v, names.n, sizeof *names.v, cmp_str);
    char path[4096];
    for (size_t i = 0; i < names.n; i++) {
        pathf(path, sizeof path, "%s/%s", dir, names.v[i]);
        strv_push(out, path);
        free(names.v[i]);
    }
    free(names.v);
}

/* Every port of every device: its state files, counters and hw_counters. */
static size_t list_ports(const char *sysfs, struct strv **ports)
{
    char cls[4096];
    pathf(cls, sizeof cls, "%s/class/infiniband", sysfs);
    struct strv devs = { 0 };
    DIR *d = opendir(cls);
    if (!d) {
        fprintf(stderr, "ibpoll: %s: %s\n", cls, strerror(errno));
        exit(2);
    }
    struct dirent *e;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.')
            strv_push(&devs, e->d_name);
    closedir(d);
    qsort(devs.v, devs.n, sizeof *devs.v, cmp_str);
    size_t n = 0;
    *ports = NULL;
    for (size_t i = 0; i < devs.n; i++) {
        char pdir[4096];
        pathf(pdir, sizeof pdir, "%s/%s/ports", cls, devs.v[i]);
        DIR *pd = opendir(pdir);
        if (!pd)
            continue;
        while ((e = readdir(pd))) {
            if (e->d_name[0] == '.')
                continue;
            *ports = realloc(*ports, (n + 1) * sizeof **ports);
            struct strv *files = &(*ports)[n++];
            memset(files, 0, sizeof *files);
            char p[4096];
            static const char *const attrs[] = { "state", "phys_state", "rate", "link_layer" };
            for (size_t a = 0; a < sizeof attrs / sizeof attrs[0]; a++) {
                pathf(p, sizeof p, "%s/%s/%s", pdir, e->d_name, attrs[a]);
                strv_push(files, p);
            }
            pathf(p, sizeof p, "%s/%s/counters", pdir, e->d_name);
            list_files(p, files);
            pathf(p, sizeof p, "%s/%s/hw_counters", pdir, e->d_name);
            list_files(p, files);
        }
        closedir(pd);
    }
    return n;
}

/* fork+exec ARGV, read its stdout; returns the numbers parsed from it. */
static size_t run_and_parse(char *const argv[], bool parse)
{
    int fds[2];
    if (pipe(fds) != 0) {
        perror("ibpoll: pipe");
        exit(2);
    }
    pid_t pid = fork();
    if (pid < 0) {
        perror("ibpoll: fork");
        exit(2);
    }
    if (pid == 0) {
        dup2(fds[1], 1);
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0)
            dup2(null, 2);
        close(fds[0]);
        close(fds[1]);
        execvp(argv[0], argv);
        _exit(127);
    }
    close(fds[1]);
    static char buf[1 << 20];
    size_t len = 0;
    ssize_t r;
    while ((r = read(fds[0], buf + len, sizeof buf - 1 - len)) > 0 || (r < 0 && errno == EINTR))
        if (r > 0)
            len += (size_t)r;
    close(fds[0]);
    waitpid(pid, NULL, 0);
    buf[len] = '\0';
    if (!parse)
        return 0;
    size_t values = 0;
    for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
        char *end;
        errno = 0;
        (void)strtoull(line, &end, 0);
        if (end != line && errno == 0)
            values++;
    }
    return values;
}

static double cpu_us(void)
{
    struct rusage self, kids;
    getrusage(RUSAGE_SELF, &self);
    getrusage(RUSAGE_CHILDREN, &kids);
    return (self.ru_utime.tv_sec + self.ru_stime.tv_sec + kids.ru_utime.tv_sec +
            kids.ru_stime.tv_sec) * 1e6 +
           (self.ru_utime.tv_usec + self.ru_stime.tv_usec + kids.ru_utime.tv_usec +
            kids.ru_stime.tv_usec);
}

static double wall_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static size_t agent_polls(const char *sysfs, long polls, double *cpu, double *wall)
{
    struct pna_config cfg;
    pna_config_defaults(&cfg);
    struct pna_ib_settings set;
    pna_config_poller_defaults(&pna_ib_poller, &set);
    cfg.roots.sysfs = sysfs;
    pna_events_init(1000);
    void *st = NULL;
    char err[256] = "";
    if (pna_ib_poller.init && pna_ib_poller.init(&st, &cfg, &set, err, sizeof err) != 0) {
        fprintf(stderr, "ibpoll: ib poller init: %s\n", err);
        exit(2);
    }
    struct pna_snap *prev = NULL;
    double c0 = cpu_us(), w0 = wall_us();
    for (long i = 0; i < polls; i++) {
        struct pna_snap *out = NULL;
        if (pna_ib_poller.collect(st, prev, NULL, &out, err, sizeof err) != 0) {
            fprintf(stderr, "ibpoll: ib poll: %s\n", err);
            exit(2);
        }
        if (prev)
            pna_snap_release(prev);
        prev = out;
    }
    *cpu = cpu_us() - c0;
    *wall = wall_us() - w0;
    if (prev)
        pna_snap_release(prev);
    if (pna_ib_poller.fini)
        pna_ib_poller.fini(st);
    pna_events_shutdown();
    return 0;
}

static void usage(void)
{
    fprintf(stderr, "usage: ibpoll --sysfs DIR --polls N agent|fork-poll|fork-port|fork-file\n"
                    "       ibpoll --sysfs DIR --polls N exec-only -- COMMAND [ARG...]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    const char *sysfs = NULL, *mode = NULL;
    long polls = 100;
    char **command = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--sysfs") == 0 && i + 1 < argc)
            sysfs = argv[++i];
        else if (strcmp(argv[i], "--polls") == 0 && i + 1 < argc)
            polls = atol(argv[++i]);
        else if (strcmp(argv[i], "--") == 0) {
            command = argv + i + 1;
            break;
        } else if (!mode)
            mode = argv[i];
        else
            usage();
    }
    if (!sysfs || !mode || polls < 1)
        usage();

    struct strv *ports;
    size_t nports = list_ports(sysfs, &ports);
    struct strv all = { 0 };
    strv_push(&all, "cat");
    for (size_t p = 0; p < nports; p++)
        for (size_t f = 0; f < ports[p].n; f++)
            strv_push(&all, ports[p].v[f]);
    size_t files = all.n - 1;

    double cpu = 0, wall = 0;
    size_t forks = 0, values = 0;
    if (strcmp(mode, "agent") == 0) {
        agent_polls(sysfs, polls, &cpu, &wall);
    } else if (strcmp(mode, "fork-poll") == 0 || strcmp(mode, "fork-port") == 0 ||
               strcmp(mode, "fork-file") == 0 || strcmp(mode, "exec-only") == 0) {
        /* per-port argv: "cat" then the port's files */
        struct strv *per_port = calloc(nports ? nports : 1, sizeof *per_port);
        for (size_t p = 0; p < nports; p++) {
            strv_push(&per_port[p], "cat");
            for (size_t f = 0; f < ports[p].n; f++)
                strv_push(&per_port[p], ports[p].v[f]);
        }
        if (strcmp(mode, "exec-only") == 0 && (!command || !*command))
            usage();
        double c0 = cpu_us(), w0 = wall_us();
        for (long i = 0; i < polls; i++) {
            values = 0;
            if (strcmp(mode, "fork-poll") == 0) {
                values += run_and_parse(all.v, true);
                forks++;
            } else if (strcmp(mode, "fork-port") == 0) {
                for (size_t p = 0; p < nports; p++, forks++)
                    values += run_and_parse(per_port[p].v, true);
            } else if (strcmp(mode, "fork-file") == 0) {
                for (size_t f = 1; f < all.n; f++, forks++) {
                    char *argv1[] = { "cat", all.v[f], NULL };
                    values += run_and_parse(argv1, true);
                }
            } else {
                run_and_parse(command, false);
                forks++;
            }
        }
        cpu = cpu_us() - c0;
        wall = wall_us() - w0;
    } else {
        usage();
    }
    printf("%s polls=%ld ports=%zu files=%zu forks_per_poll=%zu cpu_us_per_poll=%.0f "
           "wall_us_per_poll=%.0f values_per_poll=%zu\n",
           mode, polls, nports, files, forks / (size_t)polls, cpu / polls, wall / polls, values);
    return 0;
}
