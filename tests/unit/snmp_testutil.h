/* snmp_testutil.h -- small helpers for the tests of the MIB tables: a scalar's
 * cell through the table engine, as snmpd would get it. */
#ifndef PNA_TEST_SNMP_TESTUTIL_H
#define PNA_TEST_SNMP_TESTUTIL_H

#include <string.h>

#include "mib_columns.h"
#include "snmp/table.h"

/* GET <group>.SUBID.0 of DEF into OUT (strings copied into OUT->copy, so the
 * cell outlives the view); 0, or -1 when absent. */
static inline int scalar_cell(const struct pna_metric_table *def, unsigned subid,
                              struct pna_cell *out)
{
    oid name[MAX_OID_LEN];
    size_t g = pna_table_oid(def, name);
    name[g] = subid;
    name[g + 1] = 0;
    struct pna_view view;
    int rc = pna_scalar_get(def, name, g + 2, out, &view);
    if (rc == 0 && out->type == ASN_OCTET_STR && out->str != out->copy) {
        size_t n = out->len < sizeof out->copy ? out->len : sizeof out->copy - 1;
        memmove(out->copy, out->str, n);
        out->copy[n] = '\0';
        out->str = out->copy;
        out->len = n;
    }
    pna_view_release(&view);
    return rc;
}

#endif
