/* sources/node/procfs.c -- the node collector: procfs (under --procfs) and
 * os-release (under --rootfs) into struct pna_node.
 *
 * Everything the system-info exporter reports: hostname, OS, kernel, CPU
 * model, physical cores, threads, CPU usage over the last interval, memory
 * total/used/available/usage and uptime; plus load averages and swap. */
#include "pna_autoconf.h"
#include "sources/node/procfs.h"
#include "util/fileio.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#define MAX_PROC_FILE (4u << 20) /* cpuinfo on a 512-thread machine is ~1 MiB */

/* ---- /proc/stat ---------------------------------------------------------- */

/* The counters of the "cpu " line, into T in order; fields after "steal"
 * (guest, guest_nice) are already in user/nice and are not read.  Returns how
 * many were read, or -1 when a field is there but is not a decimal number. */
static int parse_cpu_fields(const char *p, struct pna_cpu_times *t)
{
    uint64_t *field[] = { &t->user, &t->nice, &t->system, &t->idle, &t->iowait, &t->irq,
                          &t->softirq, &t->steal };
    int n = 0;
    for (; n < 8; n++) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '\n' || *p == '\0')
            break;
        if (pna_scan_u64(&p, field[n]) != 0)
            return -1;
    }
    return n;
}

int pna_node_parse_stat(const char *text, struct pna_cpu_times *cpu, uint64_t *btime)
{
    bool have_cpu = false;
    *btime = 0;
    for (const char *line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
        if (strncmp(line, "cpu ", 4) == 0) {
            struct pna_cpu_times t = { 0 };
            if (parse_cpu_fields(line + 4, &t) < 4)
                return -1;
            *cpu = t;
            have_cpu = true;
        } else if (strncmp(line, "btime ", 6) == 0) {
            const char *p = line + 6;
            if (pna_scan_u64(&p, btime) != 0)
                return -1;
        }
    }
    return have_cpu ? 0 : -1;
}

static uint64_t cpu_total(const struct pna_cpu_times *t)
{
    return t->user + t->nice + t->system + t->idle + t->iowait + t->irq + t->softirq + t->steal;
}

/* Busy = everything but idle and iowait, as top and the system-info exporter count it. */
void pna_node_cpu_usage(const struct pna_cpu_times *prev, const struct pna_cpu_times *now,
                        uint32_t *busy_hundredths, uint32_t *iowait_hundredths)
{
    uint64_t total_prev = cpu_total(prev), total_now = cpu_total(now);
    uint64_t idle_prev = prev->idle + prev->iowait, idle_now = now->idle + now->iowait;
    *busy_hundredths = 0;
    *iowait_hundredths = 0;
    /* Counters only grow; a decrease means a reset (CPU hot-unplug), skip it. */
    if (total_now <= total_prev || idle_now < idle_prev || now->iowait < prev->iowait)
        return;
    uint64_t dt = total_now - total_prev;
    uint64_t didle = idle_now - idle_prev;
    uint64_t busy = didle > dt ? 0 : dt - didle;
    *busy_hundredths = (uint32_t)(busy * 10000 / dt);
    *iowait_hundredths = (uint32_t)((now->iowait - prev->iowait) * 10000 / dt);
}

/* ---- /proc/meminfo ------------------------------------------------------- */

static bool meminfo_field(const char *text, const char *key, uint64_t *bytes)
{
    size_t klen = strlen(key);
    for (const char *line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
        if (strncmp(line, key, klen) != 0 || line[klen] != ':')
            continue;
        uint64_t kib;
        const char *p = line + klen + 1;
        if (pna_scan_u64(&p, &kib) != 0)
            return false;
        *bytes = kib * 1024; /* meminfo says "kB" and means KiB */
        return true;
    }
    return false;
}

int pna_node_parse_meminfo(const char *text, struct pna_node *out)
{
    uint64_t total, avail, free_b = 0, buffers = 0, cached = 0, swap_total = 0, swap_free = 0;
    if (!meminfo_field(text, "MemTotal", &total) || total == 0)
        return -1;
    if (!meminfo_field(text, "MemAvailable", &avail)) {
        /* Kernels before 3.14 have no MemAvailable: approximate it as free(1) did. */
        if (!meminfo_field(text, "MemFree", &free_b))
            return -1;
        meminfo_field(text, "Buffers", &buffers);
        meminfo_field(text, "Cached", &cached);
        avail = free_b + buffers + cached;
    }
    if (avail > total)
        avail = total;
    meminfo_field(text, "SwapTotal", &swap_total);
    meminfo_field(text, "SwapFree", &swap_free);
    out->mem_total_bytes = total;
    out->mem_available_bytes = avail;
    out->mem_used_bytes = total - avail;
    out->mem_usage_hundredths = (uint32_t)((total - avail) * 10000 / total);
    out->swap_total_bytes = swap_total;
    out->swap_used_bytes = swap_free > swap_total ? 0 : swap_total - swap_free;
    return 0;
}

/* ---- /proc/cpuinfo ------------------------------------------------------- */

/* Value of "key<tabs>: value" if LINE has KEY, else NULL. */
static const char *cpuinfo_value(const char *line, const char *key, size_t *len)
{
    size_t klen = strlen(key);
    if (strncmp(line, key, klen) != 0)
        return NULL;
    const char *p = line + klen;
    while (*p == ' ' || *p == '\t')
        p++;
    if (*p != ':')
        return NULL;
    p++;
    while (*p == ' ' || *p == '\t')
        p++;
    const char *end = strchr(p, '\n');
    *len = end ? (size_t)(end - p) : strlen(p);
    return p;
}

void pna_node_parse_cpuinfo(const char *text, struct pna_node_scratch *scratch,
                            struct pna_node *out)
{
    /* A core is a distinct (physical id, core id) pair; kept as one 64-bit key. */
    uint64_t *cores = scratch->cores;
    long *sockets = scratch->sockets;
    size_t ncores = 0, nsockets = 0;
    long phys = -1;
    uint32_t threads = 0;
    out->cpu_model[0] = '\0';

    for (const char *line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
        size_t len;
        const char *v;
        if ((v = cpuinfo_value(line, "processor", &len)) != NULL) {
            threads++;
        } else if (!out->cpu_model[0] && (v = cpuinfo_value(line, "model name", &len)) != NULL) {
            snprintf(out->cpu_model, sizeof out->cpu_model, "%.*s", (int)len, v);
        } else if ((v = cpuinfo_value(line, "physical id", &len)) != NULL) {
            phys = strtol(v, NULL, 10);
            size_t i;
            for (i = 0; i < nsockets && sockets[i] != phys; i++)
                ;
            if (i == nsockets && nsockets < PNA_NODE_MAX_CORE_IDS)
                sockets[nsockets++] = phys;
        } else if ((v = cpuinfo_value(line, "core id", &len)) != NULL) {
            uint64_t key = ((uint64_t)(uint32_t)phys << 32) | (uint32_t)strtol(v, NULL, 10);
            size_t i;
            for (i = 0; i < ncores && cores[i] != key; i++)
                ;
            if (i == ncores && ncores < PNA_NODE_MAX_CORE_IDS)
                cores[ncores++] = key;
        }
    }
    out->cpu_threads = threads;
    /* Without topology lines (some ARM and virtual machines) every thread is a core. */
    out->cpu_cores = ncores ? (uint32_t)ncores : threads;
    out->cpu_sockets = nsockets ? (uint32_t)nsockets : (threads ? 1 : 0);
}

/* ---- os-release ---------------------------------------------------------- */

void pna_node_parse_os_release(const char *text, char *pretty, size_t cap)
{
    pretty[0] = '\0';
    for (const char *line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
        if (strncmp(line, "PRETTY_NAME=", 12) != 0)
            continue;
        const char *v = line + 12;
        const char *end = strchr(v, '\n');
        size_t len = end ? (size_t)(end - v) : strlen(v);
        if (len >= 2 && (v[0] == '"' || v[0] == '\'') && v[len - 1] == v[0]) {
            v++;
            len -= 2;
        }
        snprintf(pretty, cap, "%.*s", (int)len, v);
        return;
    }
}

/* ---- the collector ------------------------------------------------------- */

static int read_whole(const char *root, const char *rel, char **text, char *err, size_t errlen)
{
    char path[4096];
    int rc = pna_path(path, sizeof path, root, "%s", rel);
    if (rc == 0)
        rc = pna_read_alloc(path, MAX_PROC_FILE, text, NULL);
    if (rc != 0)
        snprintf(err, errlen, "%s: %s", path, strerror(-rc));
    return rc;
}

static void read_line_file(const char *root, const char *rel, char *buf, size_t cap)
{
    char path[4096];
    buf[0] = '\0';
    if (pna_path(path, sizeof path, root, "%s", rel) == 0 && pna_read_text(path, buf, cap) < 0)
        buf[0] = '\0';
}

static void read_identity(const struct pna_roots *roots, struct pna_node *out)
{
    read_line_file(roots->procfs, "/sys/kernel/hostname", out->hostname, sizeof out->hostname);
    read_line_file(roots->procfs, "/sys/kernel/osrelease", out->kernel, sizeof out->kernel);
    read_line_file(roots->procfs, "/sys/kernel/arch", out->arch, sizeof out->arch);
    if (!out->arch[0]) {
        /* /proc/sys/kernel/arch is recent (6.1); the running kernel knows it too. */
        struct utsname u;
        if (uname(&u) == 0)
            pna_strlcpy(out->arch, u.machine, sizeof out->arch);
    }
    char *text = NULL, ignore[8];
    if (read_whole(roots->rootfs, "/etc/os-release", &text, ignore, sizeof ignore) != 0)
        read_whole(roots->rootfs, "/usr/lib/os-release", &text, ignore, sizeof ignore);
    if (text)
        pna_node_parse_os_release(text, out->os_name, sizeof out->os_name);
    free(text);
}

/* A number as the kernel prints loadavg and uptime ("%lu.%02lu"), in
 * hundredths, from *P (moved past it): decimal digits, optionally a point and
 * more digits (those past the second dropped), ending at a blank or the end.
 * Not strtod(): that reads "0x10" as 16, and takes "inf" and "-1" as numbers.
 * Returns 0, or -1 for anything else. */
static int scan_hundredths(const char **p, uint64_t *out)
{
    const char *s = *p;
    while (*s == ' ' || *s == '\t')
        s++;
    const uint64_t limit = (UINT64_MAX - 99) / 100;   /* v * 100 + 99 must fit */
    uint64_t v = 0;
    int whole = 0, frac = 0;
    for (; *s >= '0' && *s <= '9'; s++, whole++) {
        uint64_t d = (uint64_t)(*s - '0');
        if (v > (limit - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    v *= 100;
    if (whole && *s == '.') {
        for (s++; *s >= '0' && *s <= '9'; s++, frac++)
            if (frac < 2)
                v += (uint64_t)(*s - '0') * (frac == 0 ? 10 : 1);
        if (!frac)
            return -1;
    }
    if (!whole || (*s && !isspace((unsigned char)*s)))
        return -1;
    *out = v;
    *p = s;
    return 0;
}

static void read_load_and_uptime(const struct pna_roots *roots, struct pna_node *out)
{
    char buf[256];
    const char *p = buf;
    uint64_t h[3];
    read_line_file(roots->procfs, "/loadavg", buf, sizeof buf);
    /* All three or none; one over uint32 hundredths is left at 0. */
    if (scan_hundredths(&p, &h[0]) == 0 && scan_hundredths(&p, &h[1]) == 0 &&
        scan_hundredths(&p, &h[2]) == 0) {
        out->load1_hundredths = h[0] <= UINT32_MAX ? (uint32_t)h[0] : 0;
        out->load5_hundredths = h[1] <= UINT32_MAX ? (uint32_t)h[1] : 0;
        out->load15_hundredths = h[2] <= UINT32_MAX ? (uint32_t)h[2] : 0;
    }
    p = buf;
    read_line_file(roots->procfs, "/uptime", buf, sizeof buf);
    if (scan_hundredths(&p, &h[0]) == 0)
        out->uptime_s = h[0] / 100;
}

static int read_cpu(const struct pna_roots *roots, const struct pna_node *prev,
                    struct pna_node_scratch *scratch, struct pna_node *out, char *err,
                    size_t errlen)
{
    char *text = NULL;
    if (read_whole(roots->procfs, "/stat", &text, err, errlen) != 0)
        return -1;
    int rc = pna_node_parse_stat(text, &out->cpu_raw, &out->boot_time_s);
    free(text);
    if (rc != 0) {
        snprintf(err, errlen, "%s/stat: no \"cpu\" line with 4 or more counters", roots->procfs);
        return -1;
    }
    if (prev) {
        pna_node_cpu_usage(&prev->cpu_raw, &out->cpu_raw, &out->cpu_usage_hundredths,
                           &out->cpu_iowait_hundredths);
        out->have_cpu_usage = true;
    }
    if (read_whole(roots->procfs, "/cpuinfo", &text, err, errlen) != 0)
        return -1;
    pna_node_parse_cpuinfo(text, scratch, out);
    free(text);
    return 0;
}

static int read_memory(const struct pna_roots *roots, struct pna_node *out, char *err,
                       size_t errlen)
{
    char *text = NULL;
    if (read_whole(roots->procfs, "/meminfo", &text, err, errlen) != 0)
        return -1;
    int rc = pna_node_parse_meminfo(text, out);
    free(text);
    if (rc != 0)
        snprintf(err, errlen, "%s/meminfo: no MemTotal/MemAvailable", roots->procfs);
    return rc;
}

int pna_node_collect(const struct pna_roots *roots, const struct pna_node *prev,
                     struct pna_node_scratch *scratch, struct pna_node *out, char *err,
                     size_t errlen)
{
    memset(out, 0, sizeof *out);
    read_identity(roots, out);
    read_load_and_uptime(roots, out);
    if (read_cpu(roots, prev, scratch, out, err, errlen) != 0)
        return -1;
    return read_memory(roots, out, err, errlen);
}
