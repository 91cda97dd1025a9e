/* model/export/export.h -- what the front ends export: the export control
 * tokens (exportInclude, exportExclude, exportLabelDrop, exportStaticLabels,
 * exportSeriesLimit; core/config.h) checked against the descriptors and
 * turned, once at start-up, into answers the front ends look up.
 *
 * Names.  The SNMP front end's names are the MIB objects of the
 * descriptors (columns and scalars) and their tables and scalar groups
 * ("primusGpuTable": every column of it); the bridge's are its family
 * names: the descriptors' families, the tables' info families, and the
 * families the bridge renders in code (the replaced exporters', the compat
 * ones, the joins, the agent's own), which the bridge hands in
 * (struct pna_export_names).  Each front end is filtered by its own names.
 *
 * Rules.  A name is exported when it passes the include list (if that list
 * names anything of its front end) and no exclude pattern matches it: include
 * first, then exclude.  An include pattern restricts the front end whose names
 * it matches, so "exportInclude primus_gpu_*" bounds /metrics and leaves the
 * MIB whole.  A MIB column is exported when its object and its table pass.
 * Index objects are not served (not-accessible) and are no names here.
 *
 * Start-up checks, each reported with the token's file and line: a name
 * without glob characters that names nothing, a glob that matches nothing,
 * a dropped label that tells two series of one family apart (an index part
 * of a table's key, a state set's or a constant label of a family), or no
 * series has, a static label that the agent's series have already.
 *
 * Cost: the SNMP engine asks once per column, when it registers its
 * tables; the bridge asks once per family rendered (a hash lookup; a family
 * named at run time, rdma_stat_*, is matched against the patterns). */
#ifndef PNA_MODEL_EXPORT_H
#define PNA_MODEL_EXPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/config.h"
#include "model/metric.h"

/* What the bridge serves besides the descriptors' families. */
struct pna_export_names {
    /* Family names, NULL-terminated; one ending in '*' stands for names made
     * at run time with that prefix (rdma_stat_*: a driver's statistics). */
    const char *const *families;
    /* The labels of those families that tell their series apart ("cause",
     * "type"), and the others ("node"), NULL-terminated. */
    const char *const *identity_labels;
    const char *const *labels;
};

/* Check CFG against the descriptors of TABLES (NULL-terminated: what the
 * agent serves) and the bridge's NAMES, and make it the process's export
 * control.  Returns 0, or -1 with "FILE:LINE: TOKEN: reason" in ERR, the
 * control left as it was.  CFG, TABLES and NAMES must outlive the control
 * (pna_export_reset() before pna_config_free()): the patterns are kept for
 * the families named at run time. */
int pna_export_setup(const struct pna_export_config *cfg,
                     const struct pna_metric_table *const *tables,
                     const struct pna_export_names *names, char *err, size_t errlen);

/* Back to exporting everything, nothing added (tests; the agent's exit). */
void pna_export_reset(void);

/* Whether any export control token is in force. */
bool pna_export_active(void);

/* Whether the SNMP front end serves column (or scalar) M of T; a table not
 * handed to pna_export_setup() is served whole. */
bool pna_export_object_on(const struct pna_metric_table *t, const struct pna_metric *m);
/* Whether it serves any column of T. */
bool pna_export_table_on(const struct pna_metric_table *t);

/* Whether the bridge renders family NAME. */
bool pna_export_family_on(const char *name);

/* The labels the bridge leaves out of every series (N of them). */
const char *const *pna_export_label_drops(size_t *n);
/* The labels it adds to every series: names and values, N of them. */
const char *const *pna_export_static_names(size_t *n);
const char *const *pna_export_static_values(size_t *n);
/* The most series /metrics may carry (0: no limit). */
uint64_t pna_export_series_limit(void);

/* Whether NAME is a family (or LABEL a label) of the series that TABLES'
 * descriptors and the bridge's NAMES say the agent serves: what the
 * start-up checks know (the tests hold the renderers to it). */
bool pna_export_known_family(const struct pna_metric_table *const *tables,
                             const struct pna_export_names *names, const char *name);
bool pna_export_known_label(const struct pna_metric_table *const *tables,
                            const struct pna_export_names *names, const char *label);

/* What the control leaves out, as comment lines for --list-metrics. */
void pna_export_describe(FILE *out);

#endif
