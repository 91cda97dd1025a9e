/* model/export/export.c -- the export control, checked against the
 * descriptors and made into lookups once at start-up (see export.h).
 *
 * Thread ownership: pna_export_setup() runs on the main thread before any
 * front end or poller thread starts; afterwards everything here is read
 * only, from any thread. */
#include "pna_autoconf.h"
#include "model/export/export.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#define TABLES_MAX 64

/* One name of a front end: a family, an object, a table; the verdict. */
struct name_entry {
    const char *name;
    bool on;
    bool described;           /* pna_export_describe() wrote it (main thread) */
};

struct control {
    bool active;
    const struct pna_export_config *cfg;    /* the patterns, for run-time names */
    const struct pna_metric_table *const *all_tables;   /* what was checked */
    struct pna_export_names names;          /* a copy: the caller's may be on its stack */
    bool bridge_include, snmp_include;      /* an include pattern names that front end */
    /* SNMP: per table handed in, one verdict per descriptor. */
    const struct pna_metric_table *tables[TABLES_MAX];
    bool *object_on[TABLES_MAX];
    bool table_on[TABLES_MAX];
    size_t ntables;
    /* the bridge: every known family (open addressing, a power of two) */
    struct name_entry *families;
    size_t families_cap;
    const char *drops[PNA_EXPORT_PATTERNS_MAX];
    size_t ndrops;
    const char *static_names[PNA_EXPORT_STATIC_MAX], *static_values[PNA_EXPORT_STATIC_MAX];
    size_t nstatic;
    uint64_t series_limit;
};

static struct control ctl;

/* ---- names and patterns ------------------------------------------------------ */

static bool is_glob(const char *p)
{
    return strpbrk(p, "*?[") != NULL;
}

static bool matches(const char *pattern, const char *name)
{
    return fnmatch(pattern, name, 0) == 0;
}

/* Whether PATTERN matches family NAME of the bridge's list: a name ending in
 * '*' stands for the run-time names with its prefix, which PATTERN meets
 * when it matches the prefix written with the star, or begins with the
 * prefix itself ("rdma_stat_rx*"). */
static bool matches_family(const char *pattern, const char *name)
{
    size_t n = strlen(name);
    if (n && name[n - 1] == '*')
        return matches(pattern, name) || strncmp(pattern, name, n - 1) == 0;
    return matches(pattern, name);
}

static bool any_match(const struct pna_export_list *l, const char *name, bool family)
{
    for (size_t i = 0; i < l->count; i++)
        if (family ? matches_family(l->items[i].text, name) : matches(l->items[i].text, name))
            return true;
    return false;
}

/* Include first (when the front end's include list names anything), then exclude. */
static bool passes(const struct pna_export_config *cfg, bool include_applies, const char *name,
                   bool family)
{
    if (include_applies && !any_match(&cfg->include, name, family))
        return false;
    return !any_match(&cfg->exclude, name, family);
}

/* ---- what the agent serves: the universe the patterns are checked against ----- */

struct universe {
    const struct pna_metric_table *const *tables;
    const struct pna_export_names *names;
};

/* Calls EACH(name, is_family, arg) for every name of both front ends. */
static bool each_name(const struct universe *u, bool (*each)(const char *, bool, void *),
                      void *arg)
{
    for (size_t t = 0; u->tables[t]; t++) {
        const struct pna_metric_table *tab = u->tables[t];
        if (each(tab->object, false, arg))
            return true;
        if (tab->info_family && each(tab->info_family, true, arg))
            return true;
        for (size_t i = 0; i < tab->count; i++) {
            const struct pna_metric *m = &tab->metrics[i];
            if (m->object && m->syntax != PNA_SYNTAX_NONE && m->column && each(m->object, false, arg))
                return true;
            if (m->family && each(m->family, true, arg))
                return true;
        }
    }
    for (size_t i = 0; u->names && u->names->families && u->names->families[i]; i++)
        if (each(u->names->families[i], true, arg))
            return true;
    return false;
}

struct match_arg {
    const char *pattern;
    bool family, object;       /* what it matched */
};

static bool note_match(const char *name, bool is_family, void *arg)
{
    struct match_arg *a = arg;
    if (is_family ? matches_family(a->pattern, name) : matches(a->pattern, name)) {
        if (is_family)
            a->family = true;
        else
            a->object = true;
    }
    return false;
}

/* The index object of a table key named NAME, or NULL. */
static const struct pna_metric_table *index_table(const struct universe *u, const char *name)
{
    for (size_t t = 0; u->tables[t]; t++)
        for (size_t i = 0; i < u->tables[t]->key.count; i++) {
            const char *o = u->tables[t]->key.parts[i].object;
            if (o && strcmp(o, name) == 0)
                return u->tables[t];
        }
    return NULL;
}

static int fail_at(char *err, size_t errlen, const struct pna_export_item *it, const char *token,
                   const char *why)
{
    snprintf(err, errlen, "%s:%u: %s: %s", it->file, it->line, token, why);
    return -1;
}

/* Every pattern of L names something; notes which front ends an include names. */
static int check_patterns(const struct universe *u, const struct pna_export_list *l,
                          const char *token, bool *bridge, bool *snmp, char *err, size_t errlen)
{
    for (size_t i = 0; i < l->count; i++) {
        const struct pna_export_item *it = &l->items[i];
        struct match_arg a = { it->text, false, false };
        each_name(u, note_match, &a);
        char why[400];
        if (!a.family && !a.object) {
            const struct pna_metric_table *t = is_glob(it->text) ? NULL : index_table(u, it->text);
            if (t)
                snprintf(why, sizeof why, "'%s' is an index object of %s: not served "
                         "(not-accessible), so not exported; name the table or its columns",
                         it->text, t->object);
            else if (is_glob(it->text))
                snprintf(why, sizeof why, "'%s' matches no family or MIB object", it->text);
            else
                snprintf(why, sizeof why, "no family or MIB object is named '%s'", it->text);
            return fail_at(err, errlen, it, token, why);
        }
        if (bridge && a.family)
            *bridge = true;
        if (snmp && a.object)
            *snmp = true;
    }
    return 0;
}

/* ---- labels ------------------------------------------------------------------- */

/* What a label is to the series that carry it. */
enum label_role { LABEL_UNKNOWN, LABEL_PLAIN, LABEL_IDENTITY };

struct label_find {
    const char *label;
    enum label_role role;
    char where[200];          /* what makes it identity, or where it is */
};

static void note_role(struct label_find *f, enum label_role role, const char *what,
                      const char *name)
{
    if (role > f->role) {
        f->role = role;
        snprintf(f->where, sizeof f->where, what, name);
    }
}

/* Whether every index part of KEY is a label: then a label-only part (a
 * GPU's uuid) repeats what the index labels say, and may go. */
static bool index_all_labelled(const struct pna_key *key)
{
    for (size_t i = 0; i < key->count; i++)
        if ((key->parts[i].use & PNA_KEY_INDEX) && !key->parts[i].label)
            return false;
    return true;
}

static void key_roles(const struct pna_metric_table *t, struct label_find *f)
{
    const struct pna_key *key = &t->key;
    bool all = index_all_labelled(key);
    for (size_t i = 0; i < key->count; i++) {
        const struct pna_key_part *p = &key->parts[i];
        if (!p->label || strcmp(p->label, f->label) != 0)
            continue;
        note_role(f, (p->use & PNA_KEY_INDEX) || !all ? LABEL_IDENTITY : LABEL_PLAIN,
                  "a part of %s's row key", t->object);
    }
    for (size_t i = 0; key->join_labels && key->join_labels[i]; i++)
        if (strcmp(key->join_labels[i], f->label) == 0)
            note_role(f, LABEL_PLAIN, "joined to %s's rows", t->object);
}

/* Whether the bridge's label NAME (ending in '*': a prefix) is LABEL. */
static bool label_matches(const char *name, const char *label)
{
    size_t n = strlen(name);
    if (n && name[n - 1] == '*')
        return strncmp(name, label, n - 1) == 0;
    return strcmp(name, label) == 0;
}

static void find_label(const struct universe *u, struct label_find *f)
{
    for (size_t t = 0; u->tables[t]; t++) {
        const struct pna_metric_table *tab = u->tables[t];
        key_roles(tab, f);
        for (size_t i = 0; i < tab->count; i++) {
            const struct pna_metric *m = &tab->metrics[i];
            if (m->label && strcmp(m->label, f->label) == 0)   /* a family's own: identity */
                note_role(f, m->family ? LABEL_IDENTITY : LABEL_PLAIN,
                          m->family ? "the label that tells %s's series apart"
                                    : "a label of %s", m->family ? m->family : tab->info_family);
        }
    }
    const struct pna_export_names *n = u->names;
    for (size_t i = 0; n && n->identity_labels && n->identity_labels[i]; i++)
        if (label_matches(n->identity_labels[i], f->label))
            note_role(f, LABEL_IDENTITY, "%s", "it tells apart the series of a family the "
                      "bridge renders in code");
    for (size_t i = 0; n && n->labels && n->labels[i]; i++)
        if (label_matches(n->labels[i], f->label))
            note_role(f, LABEL_PLAIN, "%s", "a label of a family the bridge renders in code");
}

static int check_label_drops(const struct universe *u, const struct pna_export_list *l,
                             char *err, size_t errlen)
{
    for (size_t i = 0; i < l->count; i++) {
        struct label_find f = { l->items[i].text, LABEL_UNKNOWN, "" };
        find_label(u, &f);
        char why[400];
        if (f.role == LABEL_UNKNOWN)
            snprintf(why, sizeof why, "no series has a label '%s'", f.label);
        else if (f.role == LABEL_IDENTITY)
            snprintf(why, sizeof why, "'%s' tells series apart (%s): without it two series "
                     "would be the same", f.label, f.where);
        else
            continue;
        return fail_at(err, errlen, &l->items[i], "exportLabelDrop", why);
    }
    return 0;
}

static int check_static_labels(const struct universe *u, const struct pna_export_list *l,
                               char *err, size_t errlen)
{
    for (size_t i = 0; i < l->count; i++) {
        struct label_find f = { l->items[i].text, LABEL_UNKNOWN, "" };
        find_label(u, &f);
        if (f.role == LABEL_UNKNOWN)
            continue;
        char why[400];
        snprintf(why, sizeof why, "'%s' is a label the agent's series have already (%s)",
                 f.label, f.where);
        return fail_at(err, errlen, &l->items[i], "exportStaticLabels", why);
    }
    return 0;
}

struct known_arg {
    const char *name;
    bool found;
};

static bool note_known(const char *name, bool is_family, void *arg)
{
    struct known_arg *a = arg;
    size_t n = strlen(name);
    if (is_family && (strcmp(name, a->name) == 0 ||
                      (n && name[n - 1] == '*' && strncmp(name, a->name, n - 1) == 0)))
        a->found = true;
    return a->found;
}

bool pna_export_known_family(const struct pna_metric_table *const *tables,
                             const struct pna_export_names *names, const char *name)
{
    struct universe u = { tables, names };
    struct known_arg a = { name, false };
    each_name(&u, note_known, &a);
    return a.found;
}

bool pna_export_known_label(const struct pna_metric_table *const *tables,
                            const struct pna_export_names *names, const char *label)
{
    struct universe u = { tables, names };
    struct label_find f = { label, LABEL_UNKNOWN, "" };
    find_label(&u, &f);
    return f.role != LABEL_UNKNOWN;
}

/* ---- the lookups ----------------------------------------------------------------- */

static uint64_t name_hash(const char *s)
{
    uint64_t h = 1469598103934665603ULL;   /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

static struct name_entry *family_slot(struct name_entry *tab, size_t cap, const char *name)
{
    size_t j = name_hash(name) & (cap - 1);
    while (tab[j].name && strcmp(tab[j].name, name) != 0)
        j = (j + 1) & (cap - 1);
    return &tab[j];
}

struct build {
    struct control *c;
    size_t count;
    bool counting;
};

static bool add_family(const char *name, bool is_family, void *arg)
{
    struct build *b = arg;
    size_t n = strlen(name);
    if (!is_family || (n && name[n - 1] == '*'))     /* run-time names: matched when met */
        return false;
    if (b->counting) {
        b->count++;
        return false;
    }
    struct name_entry *e = family_slot(b->c->families, b->c->families_cap, name);
    e->name = name;
    e->on = passes(b->c->cfg, b->c->bridge_include, name, true);
    return false;
}

static int build_families(struct control *c, const struct universe *u)
{
    struct build b = { c, 0, true };
    each_name(u, add_family, &b);
    size_t cap = 64;
    while (cap < b.count * 2)
        cap *= 2;
    c->families = calloc(cap, sizeof *c->families);
    if (!c->families)
        return -1;
    c->families_cap = cap;
    b.counting = false;
    each_name(u, add_family, &b);
    return 0;
}

static int build_objects(struct control *c, const struct universe *u)
{
    for (size_t t = 0; u->tables[t]; t++) {
        const struct pna_metric_table *tab = u->tables[t];
        if (c->ntables == TABLES_MAX)
            return -1;
        bool *on = calloc(tab->count ? tab->count : 1, sizeof *on);
        if (!on)
            return -1;
        bool table = passes(c->cfg, false, tab->object, false);
        bool table_included = !c->snmp_include || any_match(&c->cfg->include, tab->object, false);
        bool any = false;
        for (size_t i = 0; i < tab->count; i++) {
            const char *o = tab->metrics[i].object;
            bool included = table_included || (o && any_match(&c->cfg->include, o, false));
            on[i] = table && included && (!o || passes(c->cfg, false, o, false));
            any |= on[i] && o && tab->metrics[i].column && tab->metrics[i].syntax != PNA_SYNTAX_NONE;
        }
        c->tables[c->ntables] = tab;
        c->object_on[c->ntables] = on;
        c->table_on[c->ntables] = any;
        c->ntables++;
    }
    return 0;
}

static void control_free(struct control *c)
{
    for (size_t i = 0; i < c->ntables; i++)
        free(c->object_on[i]);
    free(c->families);
    memset(c, 0, sizeof *c);
}

static void take_labels(struct control *c, const struct pna_export_config *cfg)
{
    for (size_t i = 0; i < cfg->label_drop.count; i++)
        c->drops[c->ndrops++] = cfg->label_drop.items[i].text;
    for (size_t i = 0; i < cfg->static_labels.count && i < PNA_EXPORT_STATIC_MAX; i++) {
        c->static_names[c->nstatic] = cfg->static_labels.items[i].text;
        c->static_values[c->nstatic++] = cfg->static_labels.items[i].value;
    }
    c->series_limit = cfg->series_limit;
}

static bool config_empty(const struct pna_export_config *cfg)
{
    return !cfg->include.count && !cfg->exclude.count && !cfg->label_drop.count &&
           !cfg->static_labels.count && !cfg->series_limit;
}

int pna_export_setup(const struct pna_export_config *cfg,
                     const struct pna_metric_table *const *tables,
                     const struct pna_export_names *names, char *err, size_t errlen)
{
    struct universe u = { tables, names };
    struct control c = { .cfg = cfg, .all_tables = tables, .names = *names };
    if (check_patterns(&u, &cfg->include, "exportInclude", &c.bridge_include, &c.snmp_include,
                       err, errlen) != 0 ||
        check_patterns(&u, &cfg->exclude, "exportExclude", NULL, NULL, err, errlen) != 0 ||
        check_label_drops(&u, &cfg->label_drop, err, errlen) != 0 ||
        check_static_labels(&u, &cfg->static_labels, err, errlen) != 0)
        return -1;
    c.active = !config_empty(cfg);
    if (build_families(&c, &u) != 0 || build_objects(&c, &u) != 0) {
        control_free(&c);
        snprintf(err, errlen, "export control: out of memory");
        return -1;
    }
    take_labels(&c, cfg);
    control_free(&ctl);
    ctl = c;
    return 0;
}

void pna_export_reset(void)
{
    control_free(&ctl);
}

bool pna_export_active(void)
{
    return ctl.active;
}

static int table_slot(const struct pna_metric_table *t)
{
    for (size_t i = 0; i < ctl.ntables; i++)
        if (ctl.tables[i] == t)
            return (int)i;
    return -1;
}

bool pna_export_object_on(const struct pna_metric_table *t, const struct pna_metric *m)
{
    int s = ctl.active ? table_slot(t) : -1;
    if (s < 0 || m < t->metrics || m >= t->metrics + t->count)
        return true;
    return ctl.object_on[s][m - t->metrics];
}

bool pna_export_table_on(const struct pna_metric_table *t)
{
    int s = ctl.active ? table_slot(t) : -1;
    return s < 0 || ctl.table_on[s];
}

bool pna_export_family_on(const char *name)
{
    if (!ctl.active || !name)
        return true;
    const struct name_entry *e = family_slot(ctl.families, ctl.families_cap, name);
    if (e->name)
        return e->on;
    return passes(ctl.cfg, ctl.bridge_include, name, true);   /* named at run time */
}

const char *const *pna_export_label_drops(size_t *n)
{
    *n = ctl.ndrops;
    return ctl.drops;
}

const char *const *pna_export_static_names(size_t *n)
{
    *n = ctl.nstatic;
    return ctl.static_names;
}

const char *const *pna_export_static_values(size_t *n)
{
    *n = ctl.nstatic;
    return ctl.static_values;
}

uint64_t pna_export_series_limit(void)
{
    return ctl.series_limit;
}

static bool describe_family(const char *name, bool is_family, void *arg)
{
    FILE *out = arg;
    if (!is_family)
        return false;
    struct name_entry *e = family_slot(ctl.families, ctl.families_cap, name);
    if (e->name && !e->on && !e->described) {
        e->described = true;
        fprintf(out, "# not exported: family %s\n", name);
    }
    return false;
}

void pna_export_describe(FILE *out)
{
    if (!ctl.active)
        return;
    struct universe u = { ctl.all_tables, &ctl.names };
    each_name(&u, describe_family, out);   /* in the order /metrics has them */
    for (size_t i = 0; i < ctl.ntables; i++)
        if (!ctl.table_on[i])
            fprintf(out, "# not exported: table %s\n", ctl.tables[i]->object);
    for (size_t i = 0; i < ctl.ndrops; i++)
        fprintf(out, "# label dropped: %s\n", ctl.drops[i]);
    for (size_t i = 0; i < ctl.nstatic; i++)
        fprintf(out, "# label added: %s=\"%s\"\n", ctl.static_names[i], ctl.static_values[i]);
    if (ctl.series_limit)
        fprintf(out, "# series limit: %llu\n", (unsigned long long)ctl.series_limit);
}
