/* snmp/directive_errors.h -- the config's net-snmp directives that net-snmp
 * refused while reading them, pinned on their directive (main thread, during
 * start-up). */
#ifndef PNA_DIRECTIVE_ERRORS_H
#define PNA_DIRECTIVE_ERRORS_H

#include <stddef.h>
#include <stdint.h>

/* An error before any directive's marker (net-snmp's earliest pass). */
#define PNA_DIRECTIVE_NONE SIZE_MAX

typedef void pna_directive_error_report(size_t directive, const char *reason, void *arg);

/* Before the directives are handed over to net-snmp (after init_agent()). */
void pna_directive_errors_begin(const char *app_name);

/* Hand over a marker just before directive number DIRECTIVE. */
void pna_directive_errors_mark(size_t directive);

/* After init_snmp(): REPORT for each error, in order; returns their count. */
size_t pna_directive_errors_end(pna_directive_error_report *report, void *arg);

#endif
