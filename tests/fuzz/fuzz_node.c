/* fuzz_node.c -- libFuzzer harness for the node collector (sources/node/procfs.c).
 *
 * The input is a file tree (see fuzz.h) under the procfs and rootfs roots:
 * proc/{stat,meminfo,cpuinfo,loadavg,uptime}, proc/sys/kernel/{hostname,
 * osrelease,arch} and root/etc/os-release.  pna_node_collect() reads it twice,
 * the second time against the first reading, as the poller does, so the CPU
 * usage computation sees the parsed counters too. */
#include "pna_autoconf.h"
#include "sources/node/procfs.h"
#include "fuzz.h"

/* The reader's scratch, as the node poller keeps one in its state. */
static struct pna_node_scratch scratch;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const struct pna_roots *roots = fz_tree_build(data, size);
    struct pna_node first, second;
    char err[256];
    if (pna_node_collect(roots, NULL, &scratch, &first, err, sizeof err) == 0)
        pna_node_collect(roots, &first, &scratch, &second, err, sizeof err);
    fz_tree_clear();
    return 0;
}
