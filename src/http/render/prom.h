/* http/render/prom.h -- a small writer for the Prometheus text exposition format 0.0.4.
 *
 * Families are written one after the other: start one with pna_prom_family(),
 * then write its samples.  The "# HELP" and "# TYPE" lines are written once, at
 * the first sample, so a family with no sample leaves no trace.  HELP and TYPE
 * name the sample's full name: a counter's name ends in "_total" and its HELP
 * and TYPE lines say so too (what promtool's linter wants for 0.0.4; OpenMetrics
 * would differ).  Label values and HELP text are escaped here, and bytes that are
 * not valid UTF-8 become '?', since one bad byte fails the whole scrape.
 *
 * Numbers: integers are printed exactly; pna_prom_fixed() prints a scaled
 * integer (hundredths of a percent as a ratio, milliwatts as watts) exactly,
 * without a round trip through floating point. */
#ifndef PNA_HTTP_PROM_H
#define PNA_HTTP_PROM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "http/buf.h"

enum pna_prom_type {
    PNA_PROM_GAUGE,
    PNA_PROM_COUNTER,     /* the name must end in "_total" */
    PNA_PROM_UNTYPED,     /* replaced exporters' names that the linter would refuse as typed */
    PNA_PROM_COUNTER_FOREIGN, /* a counter under a name another exporter chose, without
                                 "_total" (dcgm-exporter's DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION):
                                 its TYPE says counter as the original's does; compat names only */
};

struct pna_prom_label {
    const char *name;     /* [a-zA-Z_][a-zA-Z0-9_]* */
    const char *value;    /* any text; NULL is written as "" */
};

#define PNA_PROM_NAME_MAX 160

/* A label set seen in family FAMILY (the duplicate guard). */
struct pna_prom_dup {
    uint64_t hash;
    uint64_t family;
};

/* One family's series in a rendering (primus_agent_series{family}). */
struct pna_prom_count {
    size_t name;          /* offset of its name in the stats' NAMES */
    size_t series;
    bool dropped;         /* left out whole by exportSeriesLimit */
};

/* What a rendering served, family by family, and what the export control
 * took out of it (model/export/export.h). */
struct pna_prom_stats {
    struct pna_prom_count *counts;
    size_t n, cap;
    struct pna_buf names;           /* the families' names, NUL-separated */
    uint64_t series;                /* series written (those kept) */
    uint64_t limit_families;        /* families dropped whole by the limit */
    uint64_t limit_series;          /* their series */
    uint64_t duplicates;            /* series dropped as another's duplicate */
};

void pna_prom_stats_free(struct pna_prom_stats *s);
/* The name of count C of S. */
const char *pna_prom_count_name(const struct pna_prom_stats *s, const struct pna_prom_count *c);

struct pna_prom {
    struct pna_buf *out;
    char family[PNA_PROM_NAME_MAX];
    const char *help;
    enum pna_prom_type type;
    bool header_done;     /* HELP/TYPE of the current family written */
    bool family_ok;       /* the current family's name and type are valid */
    /* Names of the families written so far (open addressing), to write each
     * header once and to count a family split in two (a bug). */
    char **seen;
    size_t seen_cap, seen_count;
    size_t families;      /* families with at least one sample */
    size_t samples;
    size_t errors;        /* rejected names or types, split families */

    /* The export control, taken at init (model/export/export.h): labels
     * left out and added, and the series limit (pna_prom_set_limit). */
    const char *const *drops;
    size_t ndrops;
    const char *const *static_names, *const *static_values;
    size_t nstatic;
    uint64_t limit;       /* 0: none */
    /* The current family: where it began in OUT, its samples so far, the
     * hashes of their label sets (the duplicate guard, with drops). */
    bool family_open;
    size_t family_start, family_samples;
    struct pna_prom_dup *dups;
    size_t dups_cap, dups_count;
    uint64_t dups_family;         /* the serial of the current family (from 1) */
    struct pna_prom_stats stats;
};

void pna_prom_init(struct pna_prom *p, struct pna_buf *out);
void pna_prom_free(struct pna_prom *p);

/* At most LIMIT series from here on (0: none): a family that would pass it
 * is taken out of OUT whole when it ends, and counted; the families after
 * it are still written when they fit. */
void pna_prom_set_limit(struct pna_prom *p, uint64_t limit);
/* End the last family (its limit check); then P's stats are complete.
 * pna_prom_free() does it too. */
void pna_prom_end(struct pna_prom *p);
/* Move P's stats into OUT (ended first); P keeps none. */
void pna_prom_take_stats(struct pna_prom *p, struct pna_prom_stats *out);

/* Start family NAME (copied).  HELP must stay valid until the next call.
 * Returns 0, 1 when the export control leaves the family out (its samples
 * are then dropped silently: pna_prom_wanted() says so), or -1 when NAME is
 * not a valid metric name or a counter's name does not end in "_total" (its
 * samples are then dropped and counted). */
int pna_prom_family(struct pna_prom *p, const char *name, enum pna_prom_type type,
                    const char *help);

/* Whether the current family's samples are written (a renderer may skip
 * computing them when not). */
bool pna_prom_wanted(const struct pna_prom *p);

/* One sample of the current family; LABELS may be NULL when N is 0. */
void pna_prom_u64(struct pna_prom *p, const struct pna_prom_label *labels, size_t n, uint64_t v);
void pna_prom_i64(struct pna_prom *p, const struct pna_prom_label *labels, size_t n, int64_t v);
/* V / 10^DECIMALS, e.g. (1234, 4) is 0.1234 and (-5, 1) is -0.5. */
void pna_prom_fixed(struct pna_prom *p, const struct pna_prom_label *labels, size_t n,
                    int64_t v, unsigned decimals);
void pna_prom_double(struct pna_prom *p, const struct pna_prom_label *labels, size_t n, double v);

/* Shorthands: start a family and write one sample without labels. */
void pna_prom_gauge_u64(struct pna_prom *p, const char *name, const char *help, uint64_t v);

/* Helpers, exposed for the tests and the domain renderers. */
bool pna_prom_valid_name(const char *name);
bool pna_prom_valid_label_name(const char *name);
/* Copy PREFIX + SUFFIX into DST as a valid metric name: any character outside
 * [a-zA-Z0-9_:] becomes '_' (hardware counter names come from drivers). */
void pna_prom_name_join(char *dst, size_t cap, const char *prefix, const char *suffix);
/* Escaped label value / HELP text into OUT (exposed for tests). */
void pna_prom_escape_label(struct pna_buf *out, const char *s);
void pna_prom_escape_help(struct pna_buf *out, const char *s);

#endif
