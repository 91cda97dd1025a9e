/* test_node_decimal.c -- /proc's multi-field files read as decimal, nothing
 * else: the fields of /proc/stat and /proc/meminfo, /proc/loadavg and
 * /proc/uptime.  sscanf("%lf") read "0x10" as 16 (a hex float), and "%lu"
 * took "-5" as 2^64 - 5. */
#include "pna_autoconf.h"
#include "sources/node/procfs.h"
#include "unit.h"

#include <sys/stat.h>
#include <unistd.h>

static char root[] = "/tmp/pna-node-dec-XXXXXX";

static void put(const char *rel, const char *content)
{
    unit_put(root, rel, content);
}

static const char good_stat[] = "cpu  1000 0 500 8000 500 0 0 0 0 0\nbtime 1700000000\n";
static const char good_meminfo[] = "MemTotal:       16384000 kB\nMemAvailable:    4096000 kB\n";

/* A tree whose files are good but for the ones the caller puts after. */
static int collect(struct pna_node *out)
{
    static struct pna_node_scratch scratch; /* the reader's, as the node poller keeps one */
    char procfs[600], err[256];
    snprintf(procfs, sizeof procfs, "%s/proc", root);
    struct pna_roots roots = { "/sys", procfs, "/dev", root };
    return pna_node_collect(&roots, NULL, &scratch, out, err, sizeof err);
}

static void reset_tree(void)
{
    put("proc/stat", good_stat);
    put("proc/meminfo", good_meminfo);
    put("proc/cpuinfo", "processor\t: 0\n");
    put("proc/loadavg", "1.50 0.75 0.10 2/300 4242\n");
    put("proc/uptime", "12345.67 20000.00\n");
}

static void test_stat(void)
{
    struct pna_cpu_times t;
    uint64_t btime = 0;
    CHECK_INT(pna_node_parse_stat(good_stat, &t, &btime), 0);
    CHECK_U64(t.user, 1000);
    CHECK_U64(t.idle, 8000);
    CHECK_U64(btime, 1700000000);
    /* Leading zeros are decimal. */
    CHECK_INT(pna_node_parse_stat("cpu  010 0 0 010\nbtime 010\n", &t, &btime), 0);
    CHECK_U64(t.user, 10);
    CHECK_U64(t.idle, 10);
    CHECK_U64(btime, 10);
    /* A sign, a base prefix, a unit glued on: the line is bad, not a value. */
    CHECK_INT(pna_node_parse_stat("cpu  -5 0 500 8000\n", &t, &btime), -1);
    CHECK_INT(pna_node_parse_stat("cpu  5 0 500 8000 0x10\n", &t, &btime), -1);
    CHECK_INT(pna_node_parse_stat("cpu  5 0 500 8000\nbtime -1\n", &t, &btime), -1);
    CHECK_INT(pna_node_parse_stat("cpu  5 0 500 8000\nbtime 0x10\n", &t, &btime), -1);
    CHECK_INT(pna_node_parse_stat("cpu  5 0 500\n", &t, &btime), -1);   /* fewer than 4 */
}

static void test_meminfo(void)
{
    struct pna_node n;
    memset(&n, 0, sizeof n);
    CHECK_INT(pna_node_parse_meminfo("MemTotal: 0100 kB\nMemAvailable: 010 kB\n", &n), 0);
    CHECK_U64(n.mem_total_bytes, 100 * 1024);
    CHECK_U64(n.mem_available_bytes, 10 * 1024);
    /* MemAvailable "-5" was 2^64 - 5 KiB (clamped to the total: 0 % used);
     * "0x10" was 0 (100 % used).  Neither is a number: the MemFree estimate
     * is used, as on a kernel without MemAvailable. */
    const char *bad[] = { "-5", "0x10", "16kB", "1.5" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[256];
        snprintf(text, sizeof text,
                 "MemTotal: 1000 kB\nMemFree: 100 kB\nMemAvailable: %s kB\nBuffers: 50 kB\n"
                 "Cached: 250 kB\n", bad[i]);
        memset(&n, 0, sizeof n);
        CHECK_INT(pna_node_parse_meminfo(text, &n), 0);
        CHECK_U64(n.mem_available_bytes, 400 * 1024);
    }
    CHECK_INT(pna_node_parse_meminfo("MemTotal: 0x10 kB\nMemAvailable: 1 kB\n", &n), -1);
}

static void test_load_and_uptime(void)
{
    struct pna_node n;
    reset_tree();
    CHECK_INT(collect(&n), 0);
    CHECK_INT(n.load1_hundredths, 150);
    CHECK_INT(n.load5_hundredths, 75);
    CHECK_INT(n.load15_hundredths, 10);
    CHECK_U64(n.uptime_s, 12345);

    /* "0x10" was 16 (1600 hundredths, 16 s). */
    put("proc/loadavg", "0x10 0x10 0x10 1/2 3\n");
    put("proc/uptime", "0x10 0x10\n");
    CHECK_INT(collect(&n), 0);
    CHECK_INT(n.load1_hundredths, 0);
    CHECK_INT(n.load5_hundredths, 0);
    CHECK_INT(n.load15_hundredths, 0);
    CHECK_U64(n.uptime_s, 0);

    /* All three load averages or none. */
    put("proc/loadavg", "1.50 0x10 0.10 1/2 3\n");
    put("proc/uptime", "inf 1\n");
    CHECK_INT(collect(&n), 0);
    CHECK_INT(n.load1_hundredths, 0);
    CHECK_INT(n.load15_hundredths, 0);
    CHECK_U64(n.uptime_s, 0);

    /* Decimal forms the kernel does not print but that mean what they say. */
    put("proc/loadavg", "2 0.5 010.25 1/2 3\n");
    put("proc/uptime", "99.999 1\n");
    CHECK_INT(collect(&n), 0);
    CHECK_INT(n.load1_hundredths, 200);
    CHECK_INT(n.load5_hundredths, 50);
    CHECK_INT(n.load15_hundredths, 1025);
    CHECK_U64(n.uptime_s, 99);

    /* Out of range: a load over uint32 hundredths, an uptime over 2^64 / 100 s. */
    put("proc/loadavg", "42949673.00 1 -1 1/2 3\n");
    put("proc/uptime", "184467440737095516 1\n");
    CHECK_INT(collect(&n), 0);
    CHECK_INT(n.load1_hundredths, 0);
    CHECK_U64(n.uptime_s, 0);
    put("proc/loadavg", "42949672.95 1 1 1/2 3\n");
    put("proc/uptime", "184467440737095515 1\n");
    CHECK_INT(collect(&n), 0);
    CHECK_U64(n.load1_hundredths, UINT32_MAX);
    CHECK_U64(n.uptime_s, 184467440737095515ull);
}

int main(void)
{
    if (!mkdtemp(root))
        return 99;
    test_stat();
    test_meminfo();
    test_load_and_uptime();
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", root);
    UNIT_END();
}
