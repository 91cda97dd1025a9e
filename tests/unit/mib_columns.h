/* mib_columns.h -- the column (or scalar sub-identifier) of a served value,
 * by MIB object name, from the model's descriptors: the descriptor holds the
 * number (tests/integration/mib_oids_h.sh checks it against the MIB), so the
 * tests name the object instead. */
#ifndef PNA_TEST_MIB_COLUMNS_H
#define PNA_TEST_MIB_COLUMNS_H

#include <stdio.h>
#include <stdlib.h>

#include "model/metric_tables.h"

/* The column of MIB object OBJECT; the test stops when no descriptor serves it. */
static inline unsigned mib_column(const char *object)
{
    for (size_t t = 0; pna_metric_tables[t]; t++) {
        const struct pna_metric *m = pna_metric_by_object(pna_metric_tables[t], object);
        if (m && m->column)
            return m->column;
    }
    fprintf(stderr, "no descriptor serves MIB object %s\n", object);
    abort();
}

/* The lowest column of table T (the first a walk of the table visits). */
static inline unsigned mib_first_column(const struct pna_metric_table *t)
{
    unsigned first = 0;
    for (size_t i = 0; i < t->count; i++)
        if (t->metrics[i].column && t->metrics[i].syntax != PNA_SYNTAX_NONE &&
            (!first || t->metrics[i].column < first))
            first = t->metrics[i].column;
    return first;
}

#endif
