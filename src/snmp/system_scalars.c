/* snmp/system_scalars.c -- primusSystem, primusCpu and primusMemory: the node
 * snapshot as scalars. */
#include "pna_autoconf.h"
#include "model/node.h"
#include "snmp/agent.h"
#include "snmp/oids.h"
#include "snmp/table.h"

static const struct pna_node *node_of(const void *ctx)
{
    return &((const struct pna_node_snap *)ctx)->node;
}

static int text_or_absent(struct pna_cell *out, const char *s)
{
    return s[0] ? pna_cell_str(out, s) : PNA_CELL_ABSENT;
}

static int get_system(const void *ctx, unsigned subid, struct pna_cell *out)
{
    const struct pna_node *n = node_of(ctx);
    switch (subid) {
    case PNA_SC_NODE_HOSTNAME: return pna_cell_str(out, n->hostname);
    case PNA_SC_NODE_OS_NAME: return text_or_absent(out, n->os_name);
    case PNA_SC_NODE_KERNEL: return text_or_absent(out, n->kernel);
    case PNA_SC_NODE_CPU_MODEL: return text_or_absent(out, n->cpu_model);
    case PNA_SC_NODE_UPTIME: return pna_cell_u32(out, (uint32_t)n->uptime_s);
    case PNA_SC_NODE_ARCHITECTURE: return text_or_absent(out, n->arch);
    case PNA_SC_NODE_BOOT_TIME: return pna_cell_u32(out, (uint32_t)n->boot_time_s);
    }
    return PNA_CELL_ABSENT;
}

static int get_cpu(const void *ctx, unsigned subid, struct pna_cell *out)
{
    const struct pna_node *n = node_of(ctx);
    switch (subid) {
    case PNA_SC_CPU_CORES: return pna_cell_u32(out, n->cpu_cores);
    case PNA_SC_CPU_THREADS: return pna_cell_u32(out, n->cpu_threads);
    case PNA_SC_CPU_USAGE:
        /* Usage needs two samples: absent until the second poll. */
        return n->have_cpu_usage ? pna_cell_u32(out, n->cpu_usage_hundredths) : PNA_CELL_ABSENT;
    case PNA_SC_CPU_SOCKETS: return pna_cell_u32(out, n->cpu_sockets);
    case PNA_SC_CPU_LOAD1: return pna_cell_u32(out, n->load1_hundredths);
    case PNA_SC_CPU_LOAD5: return pna_cell_u32(out, n->load5_hundredths);
    case PNA_SC_CPU_LOAD15: return pna_cell_u32(out, n->load15_hundredths);
    case PNA_SC_CPU_IOWAIT:
        return n->have_cpu_usage ? pna_cell_u32(out, n->cpu_iowait_hundredths) : PNA_CELL_ABSENT;
    }
    return PNA_CELL_ABSENT;
}

static int get_memory(const void *ctx, unsigned subid, struct pna_cell *out)
{
    const struct pna_node *n = node_of(ctx);
    switch (subid) {
    case PNA_SC_MEM_TOTAL: return pna_cell_counter64(out, n->mem_total_bytes);
    case PNA_SC_MEM_USED: return pna_cell_counter64(out, n->mem_used_bytes);
    case PNA_SC_MEM_AVAILABLE: return pna_cell_counter64(out, n->mem_available_bytes);
    case PNA_SC_MEM_USAGE: return pna_cell_u32(out, n->mem_usage_hundredths);
    case PNA_SC_MEM_SWAP_TOTAL: return pna_cell_counter64(out, n->swap_total_bytes);
    case PNA_SC_MEM_SWAP_USED: return pna_cell_counter64(out, n->swap_used_bytes);
    }
    return PNA_CELL_ABSENT;
}

static const oid system_oid[] = { PNA_OID_SYSTEM };
static const oid cpu_oid[] = { PNA_OID_CPU };
static const oid memory_oid[] = { PNA_OID_MEMORY };

static const struct pna_scalar_def system_def = {
    "primusSystem", system_oid, OID_LENGTH(system_oid), PNA_DOM_NODE,
    PNA_SC_NODE_HOSTNAME, PNA_SC_NODE_BOOT_TIME, get_system,
};
static const struct pna_scalar_def cpu_def = {
    "primusCpu", cpu_oid, OID_LENGTH(cpu_oid), PNA_DOM_NODE,
    PNA_SC_CPU_CORES, PNA_SC_CPU_IOWAIT, get_cpu,
};
static const struct pna_scalar_def memory_def = {
    "primusMemory", memory_oid, OID_LENGTH(memory_oid), PNA_DOM_NODE,
    PNA_SC_MEM_TOTAL, PNA_SC_MEM_SWAP_USED, get_memory,
};

void pna_system_scalars_register(void)
{
    pna_scalars_register(&system_def);
    pna_scalars_register(&cpu_def);
    pna_scalars_register(&memory_def);
}
