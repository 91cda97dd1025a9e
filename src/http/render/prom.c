/* http/render/prom.c -- the Prometheus text writer (see prom.h). */
#include "pna_autoconf.h"
#include "http/render/prom.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void pna_prom_init(struct pna_prom *p, struct pna_buf *out)
{
    memset(p, 0, sizeof *p);
    p->out = out;
}

void pna_prom_free(struct pna_prom *p)
{
    for (size_t i = 0; i < p->seen_cap; i++)
        free(p->seen[i]);
    free(p->seen);
    p->seen = NULL;
    p->seen_cap = p->seen_count = 0;
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

int pna_prom_family(struct pna_prom *p, const char *name, enum pna_prom_type type,
                    const char *help)
{
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
    return 0;
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
    if (!p->header_done)
        write_header(p);
    pna_buf_puts(p->out, p->family);
    if (n) {
        pna_buf_putc(p->out, '{');
        for (size_t i = 0; i < n; i++) {
            pna_buf_printf(p->out, "%s%s=\"", i ? "," : "", labels[i].name);
            pna_prom_escape_label(p->out, labels[i].value);
            pna_buf_putc(p->out, '"');
        }
        pna_buf_putc(p->out, '}');
    }
    pna_buf_putc(p->out, ' ');
    p->samples++;
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
