/* test_node.c -- the node collector on a temp procfs tree and on this machine. */
#include "pna_autoconf.h"
#include "sources/node/procfs.h"
#include "unit.h"

#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

static char root[] = "/tmp/pna-node-XXXXXX";

/* The reader's scratch, the caller's as in the node poller's state. */
static struct pna_node_scratch scratch;

static void put(const char *rel, const char *content)
{
    unit_put(root, rel, content);
}

/* Two sockets, two cores each, hyper-threaded: 8 threads, 4 cores. */
static const char cpuinfo[] =
    "processor\t: 0\nmodel name\t: Intel(R) Xeon(R) Gold 6330 CPU @ 2.00GHz\nphysical id\t: 0\ncore id\t\t: 0\n\n"
    "processor\t: 1\nmodel name\t: Intel(R) Xeon(R) Gold 6330 CPU @ 2.00GHz\nphysical id\t: 0\ncore id\t\t: 1\n\n"
    "processor\t: 2\nmodel name\t: Intel(R) Xeon(R) Gold 6330 CPU @ 2.00GHz\nphysical id\t: 1\ncore id\t\t: 0\n\n"
    "processor\t: 3\nmodel name\t: Intel(R) Xeon(R) Gold 6330 CPU @ 2.00GHz\nphysical id\t: 1\ncore id\t\t: 1\n\n"
    "processor\t: 4\nmodel name\t: Intel(R) Xeon(R) Gold 6330 CPU @ 2.00GHz\nphysical id\t: 0\ncore id\t\t: 0\n\n"
    "processor\t: 5\nmodel name\t: Intel(R) Xeon(R) Gold 6330 CPU @ 2.00GHz\nphysical id\t: 0\ncore id\t\t: 1\n\n"
    "processor\t: 6\nmodel name\t: Intel(R) Xeon(R) Gold 6330 CPU @ 2.00GHz\nphysical id\t: 1\ncore id\t\t: 0\n\n"
    "processor\t: 7\nmodel name\t: Intel(R) Xeon(R) Gold 6330 CPU @ 2.00GHz\nphysical id\t: 1\ncore id\t\t: 1\n\n";

static void build_tree(void)
{
    put("proc/stat", "cpu  1000 0 500 8000 500 0 0 0 0 0\ncpu0 1000 0 500 8000 500 0 0 0 0 0\n"
                     "intr 1\nbtime 1700000000\n");
    put("proc/meminfo", "MemTotal:       16384000 kB\nMemFree:         1000000 kB\n"
                        "MemAvailable:    4096000 kB\nSwapTotal:       2048000 kB\n"
                        "SwapFree:        1024000 kB\n");
    put("proc/cpuinfo", cpuinfo);
    put("proc/loadavg", "1.50 0.75 0.10 2/300 4242\n");
    put("proc/uptime", "12345.67 20000.00\n");
    put("proc/sys/kernel/hostname", "gpu-node-17\n");
    put("proc/sys/kernel/osrelease", "6.1.0-18-amd64\n");
    put("proc/sys/kernel/arch", "x86_64\n");
    put("etc/os-release", "NAME=\"Debian GNU/Linux\"\nPRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\n");
}

static void test_tree(void)
{
    char procfs[600];
    snprintf(procfs, sizeof procfs, "%s/proc", root);
    struct pna_roots roots = { "/sys", procfs, "/dev", root };
    struct pna_node first, second;
    char err[256] = "";
    CHECK_INT(pna_node_collect(&roots, NULL, &scratch, &first, err, sizeof err), 0);
    CHECK_STR(first.hostname, "gpu-node-17");
    CHECK_STR(first.kernel, "6.1.0-18-amd64");
    CHECK_STR(first.arch, "x86_64");
    CHECK_STR(first.os_name, "Debian GNU/Linux 12 (bookworm)");
    CHECK_STR(first.cpu_model, "Intel(R) Xeon(R) Gold 6330 CPU @ 2.00GHz");
    CHECK_INT(first.cpu_threads, 8);
    CHECK_INT(first.cpu_cores, 4);
    CHECK_INT(first.cpu_sockets, 2);
    CHECK(!first.have_cpu_usage);
    CHECK_U64(first.mem_total_bytes, 16384000ull * 1024);
    CHECK_U64(first.mem_available_bytes, 4096000ull * 1024);
    CHECK_U64(first.mem_used_bytes, (16384000ull - 4096000ull) * 1024);
    CHECK_INT(first.mem_usage_hundredths, 7500);
    CHECK_U64(first.swap_used_bytes, 1024000ull * 1024);
    CHECK_INT(first.load1_hundredths, 150);
    CHECK_INT(first.load15_hundredths, 10);
    CHECK_U64(first.uptime_s, 12345);
    CHECK_U64(first.boot_time_s, 1700000000);

    /* 1000 more jiffies: 300 user, 100 system, 500 idle, 100 iowait -> 40 % busy. */
    put("proc/stat", "cpu  1300 0 600 8500 600 0 0 0 0 0\nbtime 1700000000\n");
    CHECK_INT(pna_node_collect(&roots, &first, &scratch, &second, err, sizeof err), 0);
    CHECK(second.have_cpu_usage);
    CHECK_INT(second.cpu_usage_hundredths, 4000);
    CHECK_INT(second.cpu_iowait_hundredths, 1000);
}

static void test_malformed(void)
{
    char procfs[600];
    snprintf(procfs, sizeof procfs, "%s/proc", root);
    struct pna_roots roots = { "/sys", procfs, "/dev", root };
    struct pna_node out;
    char err[256] = "";

    put("proc/stat", "garbage\n");
    CHECK_INT(pna_node_collect(&roots, NULL, &scratch, &out, err, sizeof err), -1);
    CHECK(strstr(err, "/stat") != NULL);

    put("proc/stat", "cpu  1 2 3 4\n");
    put("proc/meminfo", "MemFree: 12 kB\n");
    CHECK_INT(pna_node_collect(&roots, NULL, &scratch, &out, err, sizeof err), -1);
    CHECK(strstr(err, "meminfo") != NULL);

    /* Old kernels: no MemAvailable, so free + buffers + cached. */
    put("proc/meminfo", "MemTotal: 1000 kB\nMemFree: 100 kB\nBuffers: 50 kB\nCached: 250 kB\n");
    CHECK_INT(pna_node_collect(&roots, NULL, &scratch, &out, err, sizeof err), 0);
    CHECK_U64(out.mem_available_bytes, 400 * 1024);

    char p[600];
    snprintf(p, sizeof p, "%s/proc/meminfo", root);
    unlink(p);
    CHECK_INT(pna_node_collect(&roots, NULL, &scratch, &out, err, sizeof err), -1);
    CHECK(strstr(err, "No such file") != NULL);

    /* A CPU counter going backwards (hot-unplug) yields 0 %, not garbage. */
    struct pna_cpu_times a = { 100, 0, 100, 800, 0, 0, 0, 0 }, b = { 50, 0, 50, 400, 0, 0, 0, 0 };
    uint32_t busy = 1, iow = 1;
    pna_node_cpu_usage(&a, &b, &busy, &iow);
    CHECK_INT(busy, 0);
    CHECK_INT(iow, 0);
}

/* The scratch the caller passes holds nothing the reader needs: what a
 * previous call (or anything else) left there changes no count. */
static void test_scratch_reused(void)
{
    struct pna_node_scratch *dirty = malloc(sizeof *dirty);
    CHECK(dirty != NULL);
    if (!dirty)
        return;
    memset(dirty, 0xa5, sizeof *dirty);
    struct pna_node a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    pna_node_parse_cpuinfo(cpuinfo, dirty, &a);
    pna_node_parse_cpuinfo("processor\t: 0\nprocessor\t: 1\n", dirty, &b);
    CHECK_INT(a.cpu_threads, 8);
    CHECK_INT(a.cpu_cores, 4);
    CHECK_INT(a.cpu_sockets, 2);
    /* no topology lines: every thread a core, one socket */
    CHECK_INT(b.cpu_threads, 2);
    CHECK_INT(b.cpu_cores, 2);
    CHECK_INT(b.cpu_sockets, 1);
    free(dirty);
}

/* This machine, against independent readings. */
static void test_live(void)
{
    struct pna_roots roots = PNA_ROOTS_DEFAULT;
    struct pna_node out;
    char err[256] = "";
    CHECK_INT(pna_node_collect(&roots, NULL, &scratch, &out, err, sizeof err), 0);
    CHECK_INT(out.cpu_threads, sysconf(_SC_NPROCESSORS_CONF));
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    CHECK_U64(out.mem_total_bytes, (uint64_t)pages * (uint64_t)page);
    char host[256];
    gethostname(host, sizeof host);
    CHECK_STR(out.hostname, host);
}

int main(void)
{
    if (!mkdtemp(root))
        return 99;
    build_tree();
    test_tree();
    test_malformed();
    test_scratch_reused();
    test_live();
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    if (system(cmd) != 0)
        return 99;
    UNIT_END();
}
