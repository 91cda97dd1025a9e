/* sources/node/procfs.h -- node identity, CPU and memory from procfs (and
 * os-release). */
#ifndef PNA_SOURCES_PROCFS_H
#define PNA_SOURCES_PROCFS_H

#include <stddef.h>
#include <stdint.h>

#include "model/node.h"
#include "core/roots.h"

/* The distinct cores and sockets seen while /proc/cpuinfo is read (128 KiB):
 * the caller's (the node poller keeps one in its state), so that the reader
 * holds nothing of its own.  Its contents are scratch: nothing needs them
 * between calls, and it need not be zeroed (pages a machine's cpuinfo does
 * not reach are never touched). */
#define PNA_NODE_MAX_CORE_IDS 8192
struct pna_node_scratch {
    uint64_t cores[PNA_NODE_MAX_CORE_IDS];   /* (physical id, core id) as one key */
    long sockets[PNA_NODE_MAX_CORE_IDS];     /* physical ids */
};

/* Fill OUT from the files under ROOTS, with SCRATCH for the counting.  PREV
 * (may be NULL) is the previous reading, for CPU usage over the interval.
 * Returns 0, or -1 with ERR set when a file every Linux has (/proc/stat,
 * /proc/meminfo) is unreadable or malformed.  Fields from optional files are
 * left empty when those are absent. */
int pna_node_collect(const struct pna_roots *roots, const struct pna_node *prev,
                     struct pna_node_scratch *scratch, struct pna_node *out, char *err,
                     size_t errlen);

/* Parsers, exposed for the unit tests. */
int pna_node_parse_stat(const char *text, struct pna_cpu_times *cpu, uint64_t *btime);
int pna_node_parse_meminfo(const char *text, struct pna_node *out);
void pna_node_parse_cpuinfo(const char *text, struct pna_node_scratch *scratch,
                            struct pna_node *out);
void pna_node_parse_os_release(const char *text, char *pretty, size_t cap);
void pna_node_cpu_usage(const struct pna_cpu_times *prev, const struct pna_cpu_times *now,
                        uint32_t *busy_hundredths, uint32_t *iowait_hundredths);

#endif
