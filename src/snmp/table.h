/* snmp/table.h -- the read-only MIB engine: tables and scalar groups driven by
 * the model's descriptor tables (model/metric.h), each a subtree of the
 * agent's one registration (snmp/subtree.h).
 *
 * A descriptor table says all the engine needs: its OID, its row key (the
 * index is encoded from the key's index parts, in order), its rows and its
 * columns.  The engine answers GET and GETNEXT (a GETBULK is a run of
 * GETNEXTs; through AgentX the master sends them one by one) from a view of
 * the cache taken for the request, with no allocation per request: the rows'
 * index order is computed once per snapshot generation, and a request is a
 * binary search.  Every cell is the descriptor's value (pna_metric_value),
 * encoded in the descriptor's syntax: the engine never decides which counter
 * backs a column.
 *
 * Cells a row does not have (a GPU without a fan, an iWARP counter with no PMA)
 * are absent: GET answers noSuchInstance, GETNEXT skips them.  A value that is
 * "none" (model/metric.h) is answered as the MIB's stand-in, 0 or "".
 * Main thread only (net-snmp). */
#ifndef PNA_SNMP_TABLE_H
#define PNA_SNMP_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <net-snmp/agent/net-snmp-agent-includes.h>

#include "core/view.h"
#include "model/metric.h"

/* Sub-identifiers in one row index (model/metric.h). */
#define PNA_MAX_INDEX_LEN PNA_KEY_INDEX_MAX

/* One encoded value.  STR points into the view's snapshots or at COPY. */
struct pna_cell {
    u_char type;     /* ASN_INTEGER, ASN_UNSIGNED (Gauge32/Unsigned32), ASN_COUNTER,
                        ASN_COUNTER64 (Counter64, CounterBasedGauge64), ASN_OCTET_STR */
    int64_t i;       /* ASN_INTEGER */
    uint64_t u;      /* ASN_UNSIGNED, ASN_COUNTER, ASN_COUNTER64 */
    const char *str; /* ASN_OCTET_STR */
    size_t len;
    char copy[256];  /* text that does not outlive the value it came from */
};

/* A value in the descriptor's syntax; false when absent (no cell). */
bool pna_cell_encode(const struct pna_metric *m, const struct pna_value *v, struct pna_cell *out);

/* Cells made by hand (notification varbinds).  STR must outlive the cell. */
void pna_cell_int(struct pna_cell *c, int64_t v);
void pna_cell_u32(struct pna_cell *c, uint32_t v);      /* Unsigned32 / Gauge32 */
void pna_cell_counter32(struct pna_cell *c, uint32_t v);
void pna_cell_counter64(struct pna_cell *c, uint64_t v);
void pna_cell_str(struct pna_cell *c, const char *s);   /* NUL-terminated */

/* Helpers for row indexes: a string index is its length then one sub-identifier
 * per octet (SMIv2 non-IMPLIED OCTET STRING); returns sub-identifiers written. */
size_t pna_index_put_string(oid *idx, size_t cap, const char *s);

/* The index of ROW of table T, from its key's index parts (at most
 * PNA_MAX_INDEX_LEN sub-identifiers); returns their number. */
size_t pna_key_index(const struct pna_metric_table *t, const struct pna_row *row, oid *idx);

/* T's OID (its table or group object) as net-snmp's sub-identifiers; returns
 * their number (at most MAX_OID_LEN). */
size_t pna_table_oid(const struct pna_metric_table *t, oid *out);

/* Add T, a table or a scalar group by its kind, to the subtrees served
 * (pna_subtree_register() then registers them all with the agent).  T must
 * outlive the agent. */
int pna_table_register(const struct pna_metric_table *t);

/* Register every table of pna_metric_tables[], then the one subtree that
 * holds them (after init_agent()); 0 or -1. */
int pna_snmp_tables_register(void);

/* Testing hooks: resolve a GET / GETNEXT against table T (a scalar group:
 * pna_scalar_get) without net-snmp's request machinery.  NAME is the full
 * OID; on success *OUT holds the value and, for getnext, NEXT/NEXT_LEN the
 * OID found.  VIEW receives the view the answer was built from: release it
 * (pna_view_release) once OUT has been read.  Return 0, or -1 (none). */
int pna_table_get(const struct pna_metric_table *t, const oid *name, size_t name_len,
                  struct pna_cell *out, struct pna_view *view);
int pna_table_getnext(const struct pna_metric_table *t, const oid *name, size_t name_len,
                      oid *next, size_t *next_len, struct pna_cell *out, struct pna_view *view);
int pna_scalar_get(const struct pna_metric_table *t, const oid *name, size_t name_len,
                   struct pna_cell *out, struct pna_view *view);
/* The same against a view the caller took (or built): answers for a view
 * the test also renders /metrics from. */
int pna_table_getnext_in(const struct pna_metric_table *t, const struct pna_view *view,
                         const oid *name, size_t name_len, oid *next, size_t *next_len,
                         struct pna_cell *out);
int pna_scalar_get_in(const struct pna_metric_table *t, const struct pna_view *view,
                      const oid *name, size_t name_len, struct pna_cell *out);

#endif
