/* snmp/subtree.h -- one net-snmp registration for the whole MIB subtree the
 * agent serves, and the dispatch of each varbind to the table or scalar whose
 * OID holds it.
 *
 * net-snmp finds a request's registration by walking a list of every
 * registration, once per varbind (and an AgentX master keeps one entry per
 * subagent registration); with one registration per table and per scalar
 * that walk was the largest part of an AgentX GETNEXT the agent could
 * change.  Here the tables and scalars are a sorted array of disjoint
 * subtrees, found by binary search, and a GETNEXT or a GETBULK repetition
 * that runs off the end of one goes on in the next within the same call.
 * Main thread only (net-snmp). */
#ifndef PNA_SNMP_SUBTREE_H
#define PNA_SNMP_SUBTREE_H

#include <stddef.h>
#include <stdint.h>

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>

#include "core/view.h"
#include "snmp/table.h"

/* How one table or scalar resolves names within its subtree.  GET answers
 * 0 or an SNMP exception (SNMP_NOSUCHOBJECT, SNMP_NOSUCHINSTANCE); NEXT
 * answers 0 with the first cell after NAME in its subtree (NAME may lie
 * before the subtree), or -1 when there is none. */
struct pna_resolver {
    uint32_t view;              /* what the view must hold (PNA_VIEW_* bits) */
    void *self;
    int (*get)(void *self, const struct pna_view *v, const oid *name, size_t name_len,
               struct pna_cell *out);
    int (*next)(void *self, const struct pna_view *v, const oid *name, size_t name_len,
                oid *next, size_t *next_len, struct pna_cell *out);
};

/* Serve PREFIX (a table or one scalar) with RS, which is copied.  Subtrees
 * must not overlap; checked at pna_subtree_register().  Returns 0 or -1. */
int pna_subtree_add(const oid *prefix, size_t prefix_len, const struct pna_resolver *rs);

/* Register ROOT, which holds every subtree added, under NAME with the agent
 * (after init_agent()).  Returns 0, or -1 with a log line. */
int pna_subtree_register(const char *name, const oid *root, size_t root_len);

#endif
