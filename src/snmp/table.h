/* table.h -- the read-only MIB engine: one handler per table or scalar group.
 *
 * A table file (src/snmp/<group>_table.c) describes its table with a
 * `struct pna_table_def`: how many rows the snapshot has, each row's index
 * sub-identifiers, and each cell's value.  The engine answers GET and GETNEXT
 * (the master turns GETBULK into GETNEXTs) from the current snapshot with no
 * allocation per request: the rows' index order is computed once per snapshot
 * generation, and a request is a binary search.
 *
 * Cells a row does not have (a GPU without a fan, an iWARP counter with no PMA)
 * are reported absent: GET answers noSuchInstance, GETNEXT skips them.
 * Main thread only (net-snmp). */
#ifndef PNA_SNMP_TABLE_H
#define PNA_SNMP_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <net-snmp/agent/net-snmp-agent-includes.h>

#include "core/cache.h"

/* Sub-identifiers in one row index: an OID has at most 128 (MAX_OID_LEN), and
 * the deepest table's entry.column prefix takes 14 of them. */
#define PNA_MAX_INDEX_LEN 114

/* One value.  STR points into the snapshot (valid while it is held). */
struct pna_cell {
    u_char type;     /* ASN_INTEGER, ASN_UNSIGNED (Gauge32/Unsigned32), ASN_COUNTER,
                        ASN_COUNTER64, ASN_OCTET_STR, ASN_TIMETICKS, ASN_IPADDRESS,
                        ASN_OPAQUE_U64 is not used: CounterBasedGauge64 is ASN_COUNTER64 */
    int64_t i;       /* ASN_INTEGER */
    uint64_t u;      /* ASN_UNSIGNED, ASN_COUNTER, ASN_TIMETICKS, ASN_COUNTER64 */
    const char *str; /* ASN_OCTET_STR */
    size_t len;
    char copy[256];  /* pna_cell_strcopy(): for text that does not outlive the call */
};

/* Cell setters; each returns 0 so a get_cell can `return pna_cell_u32(...)`. */
int pna_cell_int(struct pna_cell *c, int64_t v);
int pna_cell_u32(struct pna_cell *c, uint32_t v);      /* Unsigned32 / Gauge32 */
int pna_cell_counter32(struct pna_cell *c, uint32_t v);
int pna_cell_counter64(struct pna_cell *c, uint64_t v); /* Counter64, CounterBasedGauge64 */
int pna_cell_str(struct pna_cell *c, const char *s);    /* NUL-terminated */
int pna_cell_bytes(struct pna_cell *c, const void *p, size_t len);
int pna_cell_strcopy(struct pna_cell *c, const char *s);  /* copied, cut at 255 */
#define PNA_CELL_ABSENT (-1)

/* Helpers for row indexes: a string index is its length then one sub-identifier
 * per octet (SMIv2 non-IMPLIED OCTET STRING); returns sub-identifiers written. */
size_t pna_index_put_string(oid *idx, size_t cap, const char *s);

struct pna_table_def {
    const char *name;              /* for logs: "primusGpuTable" */
    const oid *table_oid;          /* OID of the table object (xxxTable) */
    size_t table_oid_len;
    enum pna_domain domain;        /* snapshot served; PNA_DOM_NONE: ctx is NULL */
    unsigned min_col, max_col;     /* accessible columns */
    bool rows_in_index_order;      /* skip sorting (rows already ascend by index) */

    size_t (*row_count)(const void *ctx);
    /* Write the row's index sub-identifiers; return their number (<= PNA_MAX_INDEX_LEN). */
    size_t (*row_index)(const void *ctx, size_t row, oid *idx);
    /* Fill OUT for column COL; return 0, or PNA_CELL_ABSENT. */
    int (*get_cell)(const void *ctx, size_t row, unsigned col, struct pna_cell *out);
};

struct pna_scalar_def {
    const char *name;              /* "primusSystem" */
    const oid *group_oid;          /* scalars are group_oid.N.0 */
    size_t group_oid_len;
    enum pna_domain domain;        /* PNA_DOM_NONE: ctx is NULL */
    unsigned min_subid, max_subid;
    int (*get)(const void *ctx, unsigned subid, struct pna_cell *out);
};

/* Register with the agent (after init_agent()).  DEF must outlive the agent. */
int pna_table_register(const struct pna_table_def *def);
int pna_scalars_register(const struct pna_scalar_def *def);

/* Testing hooks: resolve a GET / GETNEXT against DEF without net-snmp's
 * request machinery.  NAME is the full OID; on success *OUT holds the value and,
 * for getnext, NEXT/NEXT_LEN the OID found.  Return 0, or -1 (none). */
int pna_table_get(const struct pna_table_def *def, const oid *name, size_t name_len,
                  struct pna_cell *out, struct pna_snap **held);
int pna_table_getnext(const struct pna_table_def *def, const oid *name, size_t name_len,
                      oid *next, size_t *next_len, struct pna_cell *out,
                      struct pna_snap **held);

#endif
