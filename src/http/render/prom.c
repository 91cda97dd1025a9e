/* http/render/prom.c -- the Prometheus text writer (see prom.h). */
#include "pna_autoconf.h"
#include "http/render/prom.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/export/export.h"

void pna_prom_init(struct pna_prom *p, struct pna_buf *out)
{
    memset(p, 0, sizeof *p);
    p->out = out;
    pna_buf_init(&p->stats.names);
    p->drops = pna_export_label_drops(&p->ndrops);
    p->static_names = pna_export_static_names(&p->nstatic);
    p->static_values = pna_export_static_values(&p->nstatic);
}

void pna_prom_stats_free(struct pna_prom_stats *s)
{
    free(s->counts);
    pna_buf_free(&s->names);
    memset(s, 0, sizeof *s);
}

const char *pna_prom_count_name(const struct pna_prom_stats *s, const struct pna_prom_count *c)
{
    return s->names.data ? s->names.data + c->name : "";
}

void pna_prom_free(struct pna_prom *p)
{
    pna_prom_end(p);
    for (size_t i = 0; i < p->seen_cap; i++)
        free(p->seen[i]);
    free(p->seen);
    p->seen = NULL;
    p->seen_cap = p->seen_count = 0;
    free(p->dups);
    p->dups = NULL;
    p->dups_cap = p->dups_count = 0;
    pna_prom_stats_free(&p->stats);
}

void pna_prom_set_limit(struct pna_prom *p, uint64_t limit)
{
    p->limit = limit;
}

static bool name_char(char c, bool first)
{
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_')
        return true;
    return !first && c >= '0' && c <= '9';
}

/* Colons are legal in the format but reserved for recording rules, and the
 * linter flags them, so exported names never use them. */
bool pna_prom_valid_name(const char *name)
{
    if (!name || !name[0] || strlen(name) >= PNA_PROM_NAME_MAX)
        return false;
    for (size_t i = 0; name[i]; i++)
        if (!name_char(name[i], i == 0))
            return false;
    return true;
}

bool pna_prom_valid_label_name(const char *name)
{
    if (!name || !name[0] || (name[0] == '_' && name[1] == '_'))
        return false;   /* "__" names are reserved for Prometheus itself */
    for (size_t i = 0; name[i]; i++)
        if (!name_char(name[i], i == 0))
            return false;
    return true;
}

void pna_prom_name_join(char *dst, size_t cap, const char *prefix, const char *suffix)
{
    const char *parts[2] = { prefix, suffix };
    size_t n = 0;
    if (cap == 0)
        return;
    for (size_t k = 0; k < 2; k++) {
        for (const char *s = parts[k]; s && *s && n + 1 < cap; s++) {
            dst[n] = name_char(*s, n == 0) ? *s : '_';
            n++;
        }
    }
    dst[n] = '\0';
}

/* Write S escaping backslash and newline (and the double quote when QUOTE);
 * invalid UTF-8 bytes become '?'. */
static void escape_text(struct pna_buf *out, const char *s, bool quote)
{
    const unsigned char *u = (const unsigned char *)(s ? s : "");
    while (*u) {
        const unsigned char *run = u;
        while (*u && *u != '\\' && *u != '\n' && !(quote && *u == '"') && *u < 0x80)
            u++;
        pna_buf_append(out, (const char *)run, (size_t)(u - run));
        if (!*u)
            break;
        if (*u == '\\') {
            pna_buf_puts(out, "\\\\");
            u++;
        } else if (*u == '\n') {
            pna_buf_puts(out, "\\n");
            u++;
        } else if (*u == '"') {
            pna_buf_puts(out, "\\\"");
            u++;
        } else {
            size_t n = pna_utf8_seq_len(u);
            if (n) {
                pna_buf_append(out, (const char *)u, n);
                u += n;
            } else {
                pna_buf_putc(out, '?');
                u++;
            }
        }
    }
}

void pna_prom_escape_label(struct pna_buf *out, const char *s)
{
    escape_text(out, s, true);
}

void pna_prom_escape_help(struct pna_buf *out, const char *s)
{
    escape_text(out, s, false);
}

/* ---- the set of family names written -------------------------------------- */

static uint64_t name_hash(const char *s)
{
    uint64_t h = 1469598103934665603ULL;   /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

/* Not util/array.h: an open-addressing table whose size is a power of two
 * is rebuilt, every name rehashed, rather than extended. */
static bool seen_grow(struct pna_prom *p)
{
    size_t cap = p->seen_cap ? p->seen_cap * 2 : 256;
    char **tab = calloc(cap, sizeof *tab);
    if (!tab)
        return false;
    for (size_t i = 0; i < p->seen_cap; i++) {
        if (!p->seen[i])
            continue;
        size_t j = name_hash(p->seen[i]) & (cap - 1);
        while (tab[j])
            j = (j + 1) & (cap - 1);
        tab[j] = p->seen[i];
    }
    free(p->seen);
    p->seen = tab;
    p->seen_cap = cap;
    return true;
}

/* Records NAME; returns true when it was already there. */
static bool seen_add(struct pna_prom *p, const char *name)
{
    if ((p->seen_count + 1) * 2 > p->seen_cap && !seen_grow(p)) {
        p->out->failed = true;
        return false;
    }
    size_t j = name_hash(name) & (p->seen_cap - 1);
    while (p->seen[j]) {
        if (strcmp(p->seen[j], name) == 0)
            return true;
        j = (j + 1) & (p->seen_cap - 1);
    }
    p->seen[j] = strdup(name);
    if (!p->seen[j]) {
        p->out->failed = true;
        return false;
    }
    p->seen_count++;
    return false;
}

/* ---- families and samples -------------------------------------------------- */

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* ---- the export control: family counts, the series limit ------------------------ */

static void count_family(struct pna_prom *p, bool dropped)
{
    struct pna_prom_stats *s = &p->stats;
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 128;
        struct pna_prom_count *c = realloc(s->counts, cap * sizeof *c);
        if (!c) {
            p->out->failed = true;
            return;
        }
        s->counts = c;
        s->cap = cap;
    }
    s->counts[s->n++] = (struct pna_prom_count){ s->names.len, p->family_samples, dropped };
    pna_buf_append(&s->names, p->family, strlen(p->family) + 1);
}

/* The current family is complete: counted, and taken out of OUT whole when
 * it would pass the limit. */
static void family_close(struct pna_prom *p)
{
    if (!p->family_open)
        return;
    p->family_open = false;
    if (!p->family_samples)
        return;
    struct pna_prom_stats *s = &p->stats;
    bool drop = p->limit && s->series + p->family_samples > p->limit;
    if (drop) {
        p->out->len = p->family_start;
        if (p->out->data)
            p->out->data[p->out->len] = '\0';
        p->families--;
        p->samples -= p->family_samples;
        s->limit_families++;
        s->limit_series += p->family_samples;
    } else {
        s->series += p->family_samples;
    }
    count_family(p, drop);
}

void pna_prom_end(struct pna_prom *p)
{
    family_close(p);
}

void pna_prom_take_stats(struct pna_prom *p, struct pna_prom_stats *out)
{
    pna_prom_end(p);
    *out = p->stats;
    memset(&p->stats, 0, sizeof p->stats);
    pna_buf_init(&p->stats.names);
}

int pna_prom_family(struct pna_prom *p, const char *name, enum pna_prom_type type,
                    const char *help)
{
    family_close(p);
    p->header_done = false;
    p->type = type;
    p->help = help ? help : "";
    p->family_ok = pna_prom_valid_name(name) &&
                   (type != PNA_PROM_COUNTER || ends_with(name, "_total"));
    snprintf(p->family, sizeof p->family, "%s", p->family_ok ? name : "");
    if (!p->family_ok) {
        p->errors++;
        return -1;
    }
    if (!pna_export_family_on(name)) {
        p->family_ok = false;
        return 1;
    }
    p->family_open = true;
    p->family_start = p->out->len;
    p->family_samples = 0;
    p->dups_count = 0;
    p->dups_family++;       /* the guard's table is empty for the new family */
    return 0;
}

bool pna_prom_wanted(const struct pna_prom *p)
{
    return p->family_ok;
}

static const char *type_name(enum pna_prom_type t)
{
    switch (t) {
    case PNA_PROM_GAUGE: return "gauge";
    case PNA_PROM_COUNTER:
    case PNA_PROM_COUNTER_FOREIGN: return "counter";
    case PNA_PROM_UNTYPED: return "untyped";
    }
    return "untyped";
}

static void write_header(struct pna_prom *p)
{
    p->header_done = true;
    if (seen_add(p, p->family)) {
        /* Already written earlier: a second header would not parse, and a
         * family split in two is a rendering bug; count it for the tests. */
        p->errors++;
        return;
    }
    p->families++;
    pna_buf_printf(p->out, "# HELP %s ", p->family);
    pna_prom_escape_help(p->out, p->help);
    pna_buf_printf(p->out, "\n# TYPE %s %s\n", p->family, type_name(p->type));
}

/* Whether NAME is one of the N NAMES (the first character compared first:
 * this runs for every label of every series). */
static bool one_of(const char *const *names, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (names[i][0] == name[0] && strcmp(names[i], name) == 0)
            return true;
    return false;
}

static bool has_label(const struct pna_prom_label *labels, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (labels[i].name[0] == name[0] && strcmp(labels[i].name, name) == 0)
            return true;
    return false;
}

/* The label set of a sample once its dropped labels (bits of DROP) are out
 * (FNV-1a over names and values, each ended by a byte no name or value
 * has); never 0. */
static uint64_t label_set_hash(const struct pna_prom_label *labels, size_t n, uint64_t drop)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++) {
        if (drop & (1ull << i))
            continue;
        const char *parts[2] = { labels[i].name, labels[i].value ? labels[i].value : "" };
        for (size_t k = 0; k < 2; k++) {
            for (const char *c = parts[k]; *c; c++)
                h = (h ^ (unsigned char)*c) * 1099511628211ULL;
            h = (h ^ 0xffu) * 1099511628211ULL;
        }
    }
    return h ? h : 1;
}

/* A slot of the duplicate guard's table belongs to the family whose serial
 * it holds: a new family starts with an empty table without clearing it. */
static bool dups_grow(struct pna_prom *p)
{
    size_t cap = p->dups_cap ? p->dups_cap * 2 : 256;
    struct pna_prom_dup *tab = calloc(cap, sizeof *tab);
    if (!tab)
        return false;
    for (size_t i = 0; i < p->dups_cap; i++) {
        if (p->dups[i].family != p->dups_family)
            continue;
        size_t j = p->dups[i].hash & (cap - 1);
        while (tab[j].family == p->dups_family)
            j = (j + 1) & (cap - 1);
        tab[j] = p->dups[i];
    }
    free(p->dups);
    p->dups = tab;
    p->dups_cap = cap;
    return true;
}

/* Whether a sample of the current family had this label set already (the
 * guard behind exportLabelDrop: a drop the start-up check let through must
 * still not make two series one); records it when not. */
static bool duplicate(struct pna_prom *p, const struct pna_prom_label *labels, size_t n,
                      uint64_t drop)
{
    if ((p->dups_count + 1) * 2 > p->dups_cap && !dups_grow(p)) {
        p->out->failed = true;
        return false;
    }
    uint64_t h = label_set_hash(labels, n, drop);
    size_t j = h & (p->dups_cap - 1);
    while (p->dups[j].family == p->dups_family) {
        if (p->dups[j].hash == h)
            return true;
        j = (j + 1) & (p->dups_cap - 1);
    }
    p->dups[j] = (struct pna_prom_dup){ h, p->dups_family };
    p->dups_count++;
    return false;
}

/* The labels of LABELS that exportLabelDrop leaves out, one bit each (a
 * sample has at most PNA_PROM_LABELS_DROPPABLE labels that can be: past
 * those, none is). */
#define PNA_PROM_LABELS_DROPPABLE 64
static uint64_t drop_mask(const struct pna_prom *p, const struct pna_prom_label *labels, size_t n)
{
    uint64_t drop = 0;
    for (size_t i = 0; i < n && i < PNA_PROM_LABELS_DROPPABLE; i++)
        if (one_of(p->drops, p->ndrops, labels[i].name))
            drop |= 1ull << i;
    return drop;
}

static void put_label(struct pna_prom *p, bool *first, const char *name)
{
    pna_buf_putc(p->out, *first ? '{' : ',');
    pna_buf_puts(p->out, name);
    pna_buf_puts(p->out, "=\"");
    *first = false;
}

/* Name and labels of a sample; false when the sample must be dropped. */
static bool begin_sample(struct pna_prom *p, const struct pna_prom_label *labels, size_t n)
{
    if (!p->family_ok)
        return false;
    for (size_t i = 0; i < n; i++) {
        if (!pna_prom_valid_label_name(labels[i].name)) {
            p->errors++;
            return false;
        }
    }
    uint64_t drop = p->ndrops ? drop_mask(p, labels, n) : 0;
    if (p->ndrops && duplicate(p, labels, n, drop)) {
        p->stats.duplicates++;
        return false;
    }
    if (!p->header_done)
        write_header(p);
    pna_buf_puts(p->out, p->family);
    bool first = true;
    for (size_t i = 0; i < n; i++) {
        if (i < PNA_PROM_LABELS_DROPPABLE && (drop & (1ull << i)))
            continue;
        put_label(p, &first, labels[i].name);
        pna_prom_escape_label(p->out, labels[i].value);
        pna_buf_putc(p->out, '"');
    }
    /* Static values were checked at start-up: nothing in them to escape.
     * The agent's own label of that name wins (the check refuses every
     * label the agent is known to use; this keeps the exposition valid). */
    for (size_t i = 0; i < p->nstatic; i++) {
        if (has_label(labels, n, p->static_names[i]))
            continue;
        put_label(p, &first, p->static_names[i]);
        pna_buf_puts(p->out, p->static_values[i]);
        pna_buf_putc(p->out, '"');
    }
    if (!first)
        pna_buf_putc(p->out, '}');
    pna_buf_putc(p->out, ' ');
    p->samples++;
    p->family_samples++;
    return true;
}

void pna_prom_u64(struct pna_prom *p, const struct pna_prom_label *labels, size_t n, uint64_t v)
{
    if (begin_sample(p, labels, n))
        pna_buf_printf(p->out, "%" PRIu64 "\n", v);
}

void pna_prom_i64(struct pna_prom *p, const struct pna_prom_label *labels, size_t n, int64_t v)
{
    if (begin_sample(p, labels, n))
        pna_buf_printf(p->out, "%" PRId64 "\n", v);
}

void pna_prom_fixed(struct pna_prom *p, const struct pna_prom_label *labels, size_t n,
                    int64_t v, unsigned decimals)
{
    if (!begin_sample(p, labels, n))
        return;
    if (decimals > 18)
        decimals = 18;
    uint64_t scale = 1;
    for (unsigned i = 0; i < decimals; i++)
        scale *= 10;
    /* Work on the magnitude as unsigned so INT64_MIN is fine too. */
    uint64_t mag = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    uint64_t whole = mag / scale, frac = mag % scale;
    pna_buf_printf(p->out, "%s%" PRIu64, v < 0 ? "-" : "", whole);
    if (frac) {
        char digits[24];
        snprintf(digits, sizeof digits, "%0*" PRIu64, (int)decimals, frac);
        size_t len = strlen(digits);
        while (len > 0 && digits[len - 1] == '0')
            len--;
        pna_buf_putc(p->out, '.');
        pna_buf_append(p->out, digits, len);
    }
    pna_buf_putc(p->out, '\n');
}

void pna_prom_double(struct pna_prom *p, const struct pna_prom_label *labels, size_t n, double v)
{
    if (!begin_sample(p, labels, n))
        return;
    if (isnan(v))
        pna_buf_puts(p->out, "NaN\n");
    else if (isinf(v))
        pna_buf_puts(p->out, v > 0 ? "+Inf\n" : "-Inf\n");
    else {
        /* The shortest of %.15g and %.17g that reads back as V. */
        char text[40];
        snprintf(text, sizeof text, "%.15g", v);
        if (strtod(text, NULL) != v)
            snprintf(text, sizeof text, "%.17g", v);
        pna_buf_printf(p->out, "%s\n", text);
    }
}

void pna_prom_gauge_u64(struct pna_prom *p, const char *name, const char *help, uint64_t v)
{
    pna_prom_family(p, name, PNA_PROM_GAUGE, help);
    pna_prom_u64(p, NULL, 0, v);
}
