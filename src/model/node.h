/* model/node.h -- what the node collector knows about the machine itself:
 * identity, CPU and memory, and the node domain's snapshot.  Plain data;
 * filled by sources/node/procfs.c. */
#ifndef PNA_MODEL_NODE_H
#define PNA_MODEL_NODE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/cache.h"

/* Jiffies from the "cpu" line of /proc/stat (all CPUs summed). */
struct pna_cpu_times {
    uint64_t user, nice, system, idle, iowait, irq, softirq, steal;
};

struct pna_node {
    char hostname[256];
    char os_name[256];       /* os-release PRETTY_NAME */
    char kernel[128];        /* kernel release */
    char arch[64];           /* machine, e.g. x86_64 */
    char cpu_model[256];

    uint32_t cpu_threads;    /* logical CPUs ("processor" entries) */
    uint32_t cpu_cores;      /* distinct (physical id, core id) pairs */
    uint32_t cpu_sockets;    /* distinct physical ids */

    struct pna_cpu_times cpu_raw;
    bool have_cpu_usage;     /* false on the first poll: usage needs two samples */
    uint32_t cpu_usage_hundredths;  /* busy share since the previous poll, 0..10000 */
    uint32_t cpu_iowait_hundredths;

    uint32_t load1_hundredths, load5_hundredths, load15_hundredths;

    uint64_t mem_total_bytes;
    uint64_t mem_available_bytes;
    uint64_t mem_used_bytes;        /* total - available, as the system-info exporter reports */
    uint32_t mem_usage_hundredths;  /* used / total, 0..10000 */
    uint64_t swap_total_bytes;
    uint64_t swap_used_bytes;

    uint64_t uptime_s;
    uint64_t boot_time_s;    /* seconds since the epoch ("btime") */
};

/* The node domain's snapshot in the cache (PNA_DOM_NODE). */
struct pna_node_snap {
    struct pna_snap base; /* first: the cache handles it as a struct pna_snap */
    struct pna_node node;
};

#endif
