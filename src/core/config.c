/* core/config.c -- the config file parser (net-snmp style) and defaults.
 *
 * One directive per line: TOKEN VALUE...  Tokens are matched without regard to
 * case, as net-snmp does.  Every agent token is validated here and a bad line
 * stops start-up with "FILE:LINE: reason".  Tokens that belong to net-snmp
 * (access control, trap sinks, AgentX settings) are checked to be known and
 * handed over untouched (createUser is checked in full: net-snmp would only
 * log its refusal); anything else is an error, so a typo never silently
 * leaves a setting at its default.
 *
 * Words are read as net-snmp's copy_nword() reads them, so that a line means
 * the same to both: a word that starts with " or ' runs to the matching quote,
 * and a backslash takes the next character literally.  '#' outside quotes (and
 * not after a backslash) starts a comment.  What net-snmp would read
 * differently from what the line seems to say is refused: an unterminated
 * quote, text glued to a closing quote, a NUL byte, a line longer than
 * net-snmp's line buffer holds (PNA_CONFIG_LINE_MAX).
 *
 * The agent's own simple tokens are one key table here (agent_keys); each
 * poller's are the key table of its ops (core/poller.h), read by the same
 * code with the same checks into the poller's own settings struct. */
#include "pna_autoconf.h"
#include "core/config.h"
#include "core/poller.h"
#include "core/ratelimit.h"
#include "util/fileio.h"

#include "util/array.h"

#include <ctype.h>
#include <stddef.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

/* ---- parsing state ------------------------------------------------------ */

struct parse {
    struct pna_config *cfg;
    const char *file;
    unsigned line;
    char *err;
    size_t errlen;
    void (*remember)(const struct pna_netsnmp_line *, void *);
    void *remember_arg;
    char **users;                      /* createUser so far: "engine/name" */
    size_t nusers, users_cap;
    const char *file_kept;             /* FILE, copied once for the export items */
};

/* The slot in cfg->pollers of the poller named NAME, or -1. */
static int poller_slot(const struct parse *ps, const char *name)
{
    for (size_t i = 0; i < ps->cfg->n_pollers; i++)
        if (strcasecmp(ps->cfg->pollers[i].ops->name, name) == 0)
            return (int)i;
    return -1;
}

static int fail(struct parse *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct parse *ps, const char *fmt, ...)
{
    char why[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    snprintf(ps->err, ps->errlen, "%s:%u: %s", ps->file, ps->line, why);
    return -1;
}

/* A copy of VALUE that the config owns (freed by pna_config_free); no limit. */
static const char *keep(struct parse *ps, const char *value, int *rc)
{
    struct pna_config *cfg = ps->cfg;
    char *copy = strdup(value);
    if (!copy || PNA_ARRAY_RESERVE(cfg->owned, cfg->owned_cap, cfg->n_owned + 1) != 0) {
        free(copy);
        *rc = fail(ps, "out of memory");
        return NULL;
    }
    cfg->owned[cfg->n_owned++] = copy;
    return copy;
}

static int parse_uint(struct parse *ps, const char *token, const char *value,
                      uint64_t min, uint64_t max, uint64_t *out)
{
    uint64_t v;
    if (pna_parse_u64(value, &v) != 0)
        return fail(ps, "%s: '%s' is not a number", token, value);
    if (v < min || v > max)
        return fail(ps, "%s: %s is out of range (%llu..%llu)", token, value,
                    (unsigned long long)min, (unsigned long long)max);
    *out = v;
    return 0;
}

static int parse_bool(struct parse *ps, const char *token, const char *value, bool *out)
{
    static const char *yes[] = { "yes", "true", "on", "1" };
    static const char *no[] = { "no", "false", "off", "0" };
    for (size_t i = 0; i < 4; i++) {
        if (strcasecmp(value, yes[i]) == 0)
            return *out = true, 0;
        if (strcasecmp(value, no[i]) == 0)
            return *out = false, 0;
    }
    return fail(ps, "%s: '%s' is not yes or no", token, value);
}

static bool is_quote(char c)
{
    return c == '"' || c == '\'';
}

/* Split off the first word of *REST, as net-snmp's copy_nword() would read
 * it: quotes removed, backslash escapes resolved (in place).  The line has
 * passed scan_line(), so a quoted word is terminated. */
static char *next_word(char **rest)
{
    char *s = *rest;
    while (isspace((unsigned char)*s))
        s++;
    if (!*s)
        return NULL;
    char *word = s, *out = s;
    char quote = is_quote(*s) ? *s++ : '\0';
    while (*s && (quote ? *s != quote : !isspace((unsigned char)*s))) {
        if (*s == '\\' && s[1])
            s++;
        *out++ = *s++;
    }
    if (quote && *s == quote)
        s++;
    if (*s)                 /* the blank after the word */
        s++;
    *out = '\0';           /* out <= the character just skipped */
    *rest = s;
    return word;
}

/* Every word of REST (at most MAX) into WORDS; returns how many.  A line
 * of PNA_CONFIG_LINE_MAX characters has at most PNA_CONFIG_WORDS_MAX. */
#define PNA_CONFIG_WORDS_MAX (PNA_CONFIG_LINE_MAX / 2 + 1)
static size_t split_words(char *rest, char **words, size_t max)
{
    size_t n = 0;
    char *w;
    while (n < max && (w = next_word(&rest)) != NULL)
        words[n++] = w;
    return n;
}

/* ---- keys --------------------------------------------------------------- */

#define OFF(field) offsetof(struct pna_config, field)
/* The agent's own simple tokens.  The roots' defaults are PNA_ROOTS_DEFAULT. */
static const struct pna_config_key agent_keys[] = {
    { .token = "sysfsRoot", .type = PNA_KEY_STRING, .offset = OFF(roots.sysfs) },
    { .token = "procfsRoot", .type = PNA_KEY_STRING, .offset = OFF(roots.procfs) },
    { .token = "devfsRoot", .type = PNA_KEY_STRING, .offset = OFF(roots.devfs) },
    { .token = "rootfsRoot", .type = PNA_KEY_STRING, .offset = OFF(roots.rootfs) },
    { .token = "standalone", .type = PNA_KEY_STRING, .offset = OFF(standalone_addr) },
    { .token = "httpAddress", .type = PNA_KEY_STRING, .offset = OFF(http_addr) },
    { .token = "httpTlsCert", .type = PNA_KEY_STRING, .offset = OFF(http_tls_cert) },
    { .token = "httpTlsKey", .type = PNA_KEY_STRING, .offset = OFF(http_tls_key) },
    { .token = "httpBasicAuthFile", .type = PNA_KEY_STRING, .offset = OFF(http_basic_auth_file) },
    { .token = "httpMaxConnections", .type = PNA_KEY_UINT, .offset = OFF(http_max_connections),
      .min = 1, .max = 10000, .def = 32 },
    { .token = "httpProbeAuth", .type = PNA_KEY_BOOL, .offset = OFF(http_probe_auth) },
    { .token = "eventHistory", .type = PNA_KEY_UINT, .offset = OFF(event_history),
      .min = 1, .max = 100000, .def = 100 },
    { .token = "logRateInterval", .type = PNA_KEY_UINT, .offset = OFF(log_rate_interval_s),
      .min = 0, .max = 86400, .def = PNA_RATELIMIT_DEFAULT_INTERVAL },
    { .token = "staleAfter", .type = PNA_KEY_UINT, .offset = OFF(stale_after_s),
      .min = 0, .max = 86400 * 7, .def = 300 },
    { .token = "nodeName", .type = PNA_KEY_STRING, .offset = OFF(node_name) },
    { .token = "podLabels", .type = PNA_KEY_CUSTOM, .offset = OFF(pod_labels),
      .parse = pna_label_allow_parse },
    { .token = NULL },
};
#undef OFF

/* Write KEY's default into BASE (its owner's settings). */
static void key_default(const struct pna_config_key *key, char *base)
{
    void *v = base + key->offset;
    switch (key->type) {
    case PNA_KEY_STRING: *(const char **)v = key->def_str; break;
    case PNA_KEY_BOOL: *(bool *)v = key->def != 0; break;
    case PNA_KEY_UINT: *(unsigned *)v = (unsigned)key->def; break;
    case PNA_KEY_U64: *(uint64_t *)v = key->def; break;
    case PNA_KEY_INT: *(int32_t *)v = (int32_t)key->def; break;
    case PNA_KEY_SECONDS_MS: *(unsigned *)v = (unsigned)(key->def * 1000); break;
    case PNA_KEY_NAMES: memset(v, 0, sizeof(struct pna_name_list)); break;
    case PNA_KEY_CUSTOM: break;   /* all zeros, as its owner's struct was made */
    }
}

static void keys_defaults(const struct pna_config_key *keys, void *base)
{
    for (const struct pna_config_key *k = keys; k && k->token; k++)
        key_default(k, base);
}

void pna_config_defaults(struct pna_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    keys_defaults(agent_keys, cfg);
    struct pna_roots roots = PNA_ROOTS_DEFAULT;
    cfg->roots = roots;
    cfg->agentx_ping_s = 15;
}

void pna_config_poller_defaults(const struct pna_poller_ops *ops, void *settings)
{
    memset(settings, 0, ops->settings_size);
    keys_defaults(ops->keys, settings);
}

static bool is_netsnmp_token(const char *token);
struct agent_token;
static const struct agent_token *agent_token(const char *token);

static const struct pna_config_key *key_in(const struct pna_config_key *keys, const char *token)
{
    for (const struct pna_config_key *k = keys; k && k->token; k++)
        if (strcasecmp(k->token, token) == 0)
            return k;
    return NULL;
}

/* Who has TOKEN already, for the check that each token has one owner:
 * "the agent", "net-snmp", a poller's name, or NULL. */
static const char *owner_of(const struct pna_config *cfg, const char *token)
{
    if (key_in(agent_keys, token) || agent_token(token))
        return "the agent";
    if (is_netsnmp_token(token))
        return "net-snmp";
    for (size_t i = 0; i < cfg->n_pollers; i++)
        if (key_in(cfg->pollers[i].ops->keys, token))
            return cfg->pollers[i].ops->name;
    return NULL;
}

/* Add OPS's slot to CFG, with its settings at their defaults. */
static int add_poller(struct pna_config *cfg, const struct pna_poller_ops *ops, char *err,
                      size_t errlen)
{
    for (const struct pna_config_key *k = ops->keys; k && k->token; k++) {
        const char *owner = owner_of(cfg, k->token);
        for (const struct pna_config_key *e = ops->keys; !owner && e < k; e++)
            if (strcasecmp(e->token, k->token) == 0)
                owner = ops->name;
        if (owner) {
            snprintf(err, errlen, "poller %s: token %s is %s's already", ops->name, k->token,
                     owner);
            return -1;
        }
    }
    struct pna_poller_cfg *pc = &cfg->pollers[cfg->n_pollers];
    memset(pc, 0, sizeof *pc);
    pc->ops = ops;
    if (ops->keys && ops->settings_size) {
        pc->settings = malloc(ops->settings_size);
        if (!pc->settings) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        pna_config_poller_defaults(ops, pc->settings);
    }
    cfg->n_pollers++;
    return 0;
}

int pna_config_set_pollers(struct pna_config *cfg, const struct pna_poller_ops *const *registry,
                           size_t n, char *err, size_t errlen)
{
    if (n > PNA_MAX_POLLERS - cfg->n_pollers) {
        snprintf(err, errlen, "%zu pollers, at most %d", cfg->n_pollers + n, PNA_MAX_POLLERS);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        if (add_poller(cfg, registry[i], err, errlen) != 0)
            return -1;
    return 0;
}

const struct pna_poller_cfg *pna_config_poller(const struct pna_config *cfg,
                                               const struct pna_poller_ops *ops)
{
    for (size_t i = 0; i < cfg->n_pollers; i++)
        if (cfg->pollers[i].ops == ops)
            return &cfg->pollers[i];
    return NULL;
}

void *pna_config_settings(const struct pna_config *cfg, const struct pna_poller_ops *ops)
{
    const struct pna_poller_cfg *pc = pna_config_poller(cfg, ops);
    return pc ? pc->settings : NULL;
}

/* The key TOKEN names and the settings it writes into (*BASE), or NULL. */
static const struct pna_config_key *find_key(struct pna_config *cfg, const char *token,
                                             char **base)
{
    const struct pna_config_key *k = key_in(agent_keys, token);
    if (k) {
        *base = (char *)cfg;
        return k;
    }
    for (size_t i = 0; i < cfg->n_pollers; i++) {
        if (cfg->pollers[i].settings && (k = key_in(cfg->pollers[i].ops->keys, token))) {
            *base = cfg->pollers[i].settings;
            return k;
        }
    }
    return NULL;
}

static int apply_names(struct parse *ps, const struct pna_config_key *key, const char *token,
                       struct pna_name_list *list, char *const *words, size_t nwords)
{
    int rc = 0;
    if (nwords == 0)
        return fail(ps, "%s: expected at least one %s", token, key->what ? key->what : "name");
    for (size_t i = 0; i < nwords; i++) {
        if (list->count == PNA_MAX_NAMES)
            return fail(ps, "%s: more than %d names", token, PNA_MAX_NAMES);
        const char *s = keep(ps, words[i], &rc);
        if (!s)
            return rc;
        list->names[list->count++] = (char *)s;
    }
    return 0;
}

static int apply_custom(struct parse *ps, const struct pna_config_key *key, const char *token,
                        void *value, char *const *words, size_t nwords)
{
    char why[200] = "";
    if (key->parse(value, words, nwords, why, sizeof why) != 0)
        return fail(ps, "%s: %s", token, why[0] ? why : "bad value");
    return 0;
}

/* The one WORD of KEY's line, into V (its place in its owner's settings). */
static int apply_one(struct parse *ps, const struct pna_config_key *key, void *v, const char *word)
{
    uint64_t n;
    int rc = 0;
    switch (key->type) {
    case PNA_KEY_STRING: {
        const char *s = word[0] || !key->empty_is_default ? keep(ps, word, &rc) : key->def_str;
        if (s)
            *(const char **)v = s;
        return rc;
    }
    case PNA_KEY_BOOL:
        return parse_bool(ps, key->token, word, (bool *)v);
    default:
        break;
    }
    if (parse_uint(ps, key->token, word, key->min, key->max, &n))
        return -1;
    if (key->type == PNA_KEY_U64)
        *(uint64_t *)v = n;
    else if (key->type == PNA_KEY_INT)
        *(int32_t *)v = (int32_t)n;
    else if (key->type == PNA_KEY_SECONDS_MS)
        *(unsigned *)v = (unsigned)(n * 1000);
    else
        *(unsigned *)v = (unsigned)n;
    return 0;
}

/* A line of KEY, whose value goes into BASE (its owner's settings): TOKEN
 * as written (the messages name it so), REST the words after it. */
static int apply_key(struct parse *ps, const struct pna_config_key *key, char *base,
                     const char *token, char *rest)
{
    char *words[PNA_CONFIG_WORDS_MAX];
    size_t nwords = split_words(rest, words, PNA_CONFIG_WORDS_MAX);
    void *v = base + key->offset;
    if (key->type == PNA_KEY_NAMES)
        return apply_names(ps, key, token, v, words, nwords);
    if (key->type == PNA_KEY_CUSTOM)
        return apply_custom(ps, key, token, v, words, nwords);
    if (nwords != 1)
        return fail(ps, "%s: expected exactly one value", token);
    return apply_one(ps, key, v, words[0]);
}

/* poller NAME on|off, pollInterval NAME SECONDS, pollTimeout NAME SECONDS */
static int apply_poller_token(struct parse *ps, const char *token, char *rest)
{
    char *name = next_word(&rest);
    char *value = next_word(&rest);
    if (!name || !value || next_word(&rest))
        return fail(ps, "%s: expected '%s POLLER VALUE'", token, token);
    int slot = poller_slot(ps, name);
    if (slot < 0)
        return fail(ps, "%s: no poller named '%s'", token, name);
    struct pna_poller_cfg *pc = &ps->cfg->pollers[slot];
    uint64_t v;
    if (strcasecmp(token, "poller") == 0) {
        pc->set_enabled = true;
        return parse_bool(ps, token, value, &pc->enabled);
    }
    if (parse_uint(ps, token, value, 1, 86400, &v))
        return -1;
    if (strcasecmp(token, "pollInterval") == 0)
        pc->interval_ms = (unsigned)(v * 1000);
    else
        pc->timeout_ms = (unsigned)(v * 1000);
    return 0;
}

/* prometheusCompat dcgm|amd...: the exporters whose names /metrics serves too. */
static int apply_compat_token(struct parse *ps, const char *token, char *rest)
{
    static const struct { const char *word; unsigned bit; } words[] = {
        { "dcgm", PNA_COMPAT_DCGM }, { "amd", PNA_COMPAT_AMD },
    };
    char *w;
    unsigned bits = 0;
    while ((w = next_word(&rest)) != NULL) {
        size_t i = 0;
        while (i < sizeof words / sizeof words[0] && strcasecmp(w, words[i].word) != 0)
            i++;
        if (i == sizeof words / sizeof words[0])
            return fail(ps, "%s: unknown exporter '%s' (dcgm, amd)", token, w);
        bits |= words[i].bit;
    }
    if (!bits)
        return fail(ps, "%s: expected dcgm, amd or both", token);
    ps->cfg->prometheus_compat = bits;
    return 0;
}

static int apply_agentx_socket(struct parse *ps, const char *token, char *rest)
{
    (void)token;
    char *w = next_word(&rest);
    int rc = 0;
    if (!w || next_word(&rest))
        return fail(ps, "agentXSocket: expected one address");
    const char *s = keep(ps, w, &rc);
    if (s && !ps->cfg->agentx_socket)
        ps->cfg->agentx_socket = s; /* -x on the command line wins */
    return rc;
}

static int apply_ping_interval(struct parse *ps, const char *token, char *rest)
{
    (void)token;
    uint64_t v;
    char *w = next_word(&rest);
    if (!w || next_word(&rest))
        return fail(ps, "agentXPingInterval: expected seconds");
    if (parse_uint(ps, "agentXPingInterval", w, 1, 3600, &v))
        return -1;
    ps->cfg->agentx_ping_s = (unsigned)v;
    return 0;
}

/* ---- export control --------------------------------------------------------
 * What the patterns and labels name is checked later, against the
 * descriptors (model/export/export.c), with the file and line kept here. */

/* A Prometheus label name: [a-zA-Z_][a-zA-Z0-9_]*, not "__" (Prometheus's own). */
static bool export_label_name_ok(const char *s)
{
    if (!s[0] || (s[0] == '_' && s[1] == '_') || strlen(s) >= PNA_EXPORT_NAME_MAX)
        return false;
    for (size_t i = 0; s[i]; i++) {
        char c = s[i];
        bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
        if (!letter && !(i > 0 && c >= '0' && c <= '9'))
            return false;
    }
    return true;
}

/* A glob over family and object names: their characters and fnmatch(3)'s
 * '*', '?' and bracket expressions ('[', ']', '!', '-'). */
static bool export_pattern_ok(const char *s)
{
    if (!s[0] || strlen(s) >= PNA_EXPORT_NAME_MAX)
        return false;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && !strchr("_*?[]!-", *s))
            return false;
    return true;
}

/* FILE as the config owns it (for the items that keep where they were written). */
static const char *kept_file(struct parse *ps, int *rc)
{
    if (!ps->file_kept)
        ps->file_kept = keep(ps, ps->file, rc);
    return ps->file_kept;
}

static int export_add(struct parse *ps, const char *token, struct pna_export_list *list,
                      size_t max, const char *text, const char *value)
{
    int rc = 0;
    if (list->count >= max)
        return fail(ps, "%s: more than %zu entries", token, max);
    const char *t = keep(ps, text, &rc), *v = value ? keep(ps, value, &rc) : NULL;
    const char *file = kept_file(ps, &rc);
    if (rc)
        return rc;
    list->items[list->count++] = (struct pna_export_item){ t, v, file, ps->line };
    return 0;
}

/* exportInclude / exportExclude PATTERN...: every line adds to the list. */
static int apply_export_patterns(struct parse *ps, const char *token, char *rest)
{
    struct pna_export_config *e = &ps->cfg->exports;
    struct pna_export_list *list = strcasecmp(token, "exportInclude") == 0 ? &e->include
                                                                           : &e->exclude;
    char *w;
    size_t n = 0;
    while ((w = next_word(&rest)) != NULL) {
        if (!export_pattern_ok(w))
            return fail(ps, "%s: '%s' is not a family or MIB object name or glob (letters, "
                        "digits, '_', and the glob characters * ? [ ] ! -)", token, w);
        if (export_add(ps, token, list, PNA_EXPORT_PATTERNS_MAX, w, NULL) != 0)
            return -1;
        n++;
    }
    return n ? 0 : fail(ps, "%s: expected at least one family or MIB object name", token);
}

/* exportLabelDrop LABEL... */
static int apply_export_label_drop(struct parse *ps, const char *token, char *rest)
{
    char *w;
    size_t n = 0;
    while ((w = next_word(&rest)) != NULL) {
        if (!export_label_name_ok(w))
            return fail(ps, "%s: '%s' is not a Prometheus label name", token, w);
        if (export_add(ps, token, &ps->cfg->exports.label_drop, PNA_EXPORT_PATTERNS_MAX, w,
                       NULL) != 0)
            return -1;
        n++;
    }
    return n ? 0 : fail(ps, "%s: expected at least one label name", token);
}

/* A static label's value: printable, valid UTF-8 (a bad byte would fail the
 * whole scrape), no quote or backslash that a relabel rule would have to
 * unescape, at most PNA_EXPORT_VALUE_MAX bytes. */
static bool export_value_ok(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > PNA_EXPORT_VALUE_MAX)
        return false;
    for (const unsigned char *u = (const unsigned char *)s; *u;) {
        if (*u < 0x80) {
            if (*u < 0x20 || *u == 0x7f || *u == '"' || *u == '\\')
                return false;
            u++;
            continue;
        }
        size_t len = (*u & 0xe0) == 0xc0 ? 2 : (*u & 0xf0) == 0xe0 ? 3 : (*u & 0xf8) == 0xf0 ? 4 : 0;
        if (len == 0 || (len == 2 && *u < 0xc2))
            return false;
        for (size_t i = 1; i < len; i++)
            if ((u[i] & 0xc0) != 0x80)
                return false;
        u += len;
    }
    return true;
}

/* One "key=value" of exportStaticLabels. */
static int export_static_one(struct parse *ps, const char *token, char *item)
{
    struct pna_export_list *list = &ps->cfg->exports.static_labels;
    char *eq = strchr(item, '=');
    if (!eq)
        return fail(ps, "%s: '%s' is not key=value", token, item);
    *eq = '\0';
    const char *value = eq + 1;
    if (!export_label_name_ok(item))
        return fail(ps, "%s: '%s' is not a Prometheus label name", token, item);
    if (!export_value_ok(value))
        return fail(ps, "%s: %s: the value must be 1 to %d bytes of printable UTF-8 without "
                    "'\"' or '\\'", token, item, PNA_EXPORT_VALUE_MAX);
    for (size_t i = 0; i < list->count; i++)
        if (strcmp(list->items[i].text, item) == 0)
            return fail(ps, "%s: label '%s' is given twice (first at %s:%u)", token, item,
                        list->items[i].file, list->items[i].line);
    return export_add(ps, token, list, PNA_EXPORT_STATIC_MAX, item, value);
}

/* exportStaticLabels KEY=VALUE[,KEY=VALUE...] (words or commas). */
static int apply_export_static(struct parse *ps, const char *token, char *rest)
{
    char *w;
    size_t n = 0;
    while ((w = next_word(&rest)) != NULL) {
        char *save = NULL;
        if (w[0] == ',' || (w[0] && w[strlen(w) - 1] == ',') || strstr(w, ",,"))
            return fail(ps, "%s: an empty item in '%s'", token, w);
        for (char *item = strtok_r(w, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
            if (export_static_one(ps, token, item) != 0)
                return -1;
            n++;
        }
    }
    return n ? 0 : fail(ps, "%s: expected key=value[,key=value...]", token);
}

/* exportSeriesLimit N: at most N series on /metrics (0: no limit). */
static int apply_export_limit(struct parse *ps, const char *token, char *rest)
{
    uint64_t v;
    char *w = next_word(&rest);
    if (!w || next_word(&rest))
        return fail(ps, "%s: expected one number of series", token);
    if (parse_uint(ps, token, w, 0, 100000000, &v))
        return -1;
    struct pna_export_config *e = &ps->cfg->exports;
    int rc = 0;
    e->series_limit = v;
    e->series_limit_file = kept_file(ps, &rc);
    e->series_limit_line = ps->line;
    return rc;
}

/* The agent's tokens that are not simple keys, each with its parser. */
struct agent_token {
    const char *token;
    int (*apply)(struct parse *ps, const char *token, char *rest);
};

static const struct agent_token agent_tokens[] = {
    { "poller", apply_poller_token },
    { "pollInterval", apply_poller_token },
    { "pollTimeout", apply_poller_token },
    { "prometheusCompat", apply_compat_token },
    { "agentXSocket", apply_agentx_socket },
    { "agentXPingInterval", apply_ping_interval },
    { "exportInclude", apply_export_patterns },
    { "exportExclude", apply_export_patterns },
    { "exportLabelDrop", apply_export_label_drop },
    { "exportStaticLabels", apply_export_static },
    { "exportSeriesLimit", apply_export_limit },
};

static const struct agent_token *agent_token(const char *token)
{
    for (size_t i = 0; i < sizeof agent_tokens / sizeof agent_tokens[0]; i++)
        if (strcasecmp(agent_tokens[i].token, token) == 0)
            return &agent_tokens[i];
    return NULL;
}

/* net-snmp's own directives, handed over unchanged.  Anything that would make
 * the MIB writable (rwcommunity, rwuser) is deliberately not here, nor are
 * smuxpeer / smuxsocket: the agent opens no SMUX port. */
static const char *const netsnmp_tokens[] = {
    "rocommunity", "rocommunity6", "rouser", "createUser", "com2sec", "com2sec6",
    "group", "view", "access", "authcommunity", "trapsink", "trap2sink", "informsink",
    "trapsess", "trapcommunity", "authtrapenable", "agentaddress", "agentXPerms",
    "agentXTimeout", "agentXRetries", "engineID", "engineIDType", "engineIDNic",
    "dontLogTCPWrappersConnects",
};

static bool is_netsnmp_token(const char *token)
{
    for (size_t i = 0; i < sizeof netsnmp_tokens / sizeof netsnmp_tokens[0]; i++)
        if (strcasecmp(token, netsnmp_tokens[i]) == 0)
            return true;
    return false;
}

/* ---- createUser --------------------------------------------------------- */

/* Whether a word is left in S (without taking it: next_word() rewrites). */
static bool has_word(const char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    return *s != '\0';
}

/* The names net-snmp 5.9 takes (without regard to case; "default" is not one:
 * net-snmp refuses it in a config file). */
static const char *const auth_protocols[] = {
    "MD5", "SHA", "SHA1", "SHA-224", "SHA-256", "SHA-384", "SHA-512", NULL,
};
static const char *const priv_protocols[] = {
    "DES", "AES", "AES-128", "AES128", "AES-192", "AES192", "AES-256", "AES256", NULL,
};

/* RFC 3414: a user name is at most 32 octets; a passphrase at least 8
 * characters (net-snmp's USM_LENGTH_P_MIN). */
#define USM_NAME_MAX 32
#define USM_PASSPHRASE_MIN 8

static bool is_one_of(const char *word, const char *const *names)
{
    for (; *names; names++)
        if (strcasecmp(word, *names) == 0)
            return true;
    return false;
}

/* An engine ID as net-snmp's -e takes it: hex digits, an even number of
 * them, optionally after 0x. */
static bool is_hex_engine_id(const char *s)
{
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
        s += 2;
    size_t n = strlen(s);
    if (n == 0 || n % 2 != 0)
        return false;
    for (; *s; s++)
        if (!isxdigit((unsigned char)*s))
            return false;
    return true;
}

/* One passphrase (or, after -m / -l, a key net-snmp checks itself). */
static int check_secret(struct parse *ps, char **rest, const char *what)
{
    char *w = next_word(rest);
    if (w && (strcmp(w, "-m") == 0 || strcmp(w, "-l") == 0)) {
        if (!next_word(rest))
            return fail(ps, "createUser: missing %s key after %s", what, w);
        return 0;
    }
    if (!w)
        return fail(ps, "createUser: missing %s passphrase", what);
    if (strlen(w) < USM_PASSPHRASE_MIN)
        return fail(ps, "createUser: %s passphrase shorter than %d characters", what,
                    USM_PASSPHRASE_MIN);
    return 0;
}

/* Remember "ENGINE/NAME" of a createUser line; a second line for the same
 * user is refused (net-snmp would keep one of the two). */
static int note_user(struct parse *ps, const char *engine, const char *name)
{
    size_t n = strlen(engine) + strlen(name) + 2;
    char *key = malloc(n);
    if (!key)
        return fail(ps, "out of memory");
    snprintf(key, n, "%s/%s", engine, name);
    for (char *c = key; *c != '/'; c++)
        *c = (char)tolower((unsigned char)*c);
    for (size_t i = 0; i < ps->nusers; i++) {
        if (strcmp(ps->users[i], key) == 0) {
            free(key);
            return fail(ps, "createUser: user '%s' is created twice", name);
        }
    }
    if (PNA_ARRAY_RESERVE(ps->users, ps->users_cap, ps->nusers + 1) != 0) {
        free(key);
        return fail(ps, "out of memory");
    }
    ps->users[ps->nusers++] = key;
    return 0;
}

/* createUser [-e ENGINEID] NAME [AUTH [-m|-l] AUTHPASS [PRIV [[-m|-l] PRIVPASS]]]
 * (snmpd.conf(5)).  Fills L's user and engine_id. */
static int check_create_user(struct parse *ps, char *rest, struct pna_netsnmp_line *l)
{
    char *w = next_word(&rest);
    if (w && strcmp(w, "-e") == 0) {
        char *id = next_word(&rest);
        if (!id || !is_hex_engine_id(id))
            return fail(ps, "createUser: -e: '%s' is not an engine ID in hex", id ? id : "");
        l->engine_id = id + ((id[1] == 'x' || id[1] == 'X') ? 2 : 0);
        w = next_word(&rest);
    }
    if (!w || !*w)
        return fail(ps, "createUser: expected a user name");
    if (strlen(w) > USM_NAME_MAX)
        return fail(ps, "createUser: user name longer than %d characters", USM_NAME_MAX);
    l->user = w;
    if (note_user(ps, l->engine_id ? l->engine_id : "", w) != 0)
        return -1;
    if (!(w = next_word(&rest)))
        return 0;   /* a user without authentication (securityLevel noAuthNoPriv) */
    if (!is_one_of(w, auth_protocols))
        return fail(ps, "createUser: unknown authentication protocol '%s' (MD5, SHA, SHA-224, "
                    "SHA-256, SHA-384, SHA-512)", w);
    if (check_secret(ps, &rest, "authentication") != 0)
        return -1;
    if (!(w = next_word(&rest)))
        return 0;
    if (!is_one_of(w, priv_protocols))
        return fail(ps, "createUser: unknown privacy protocol '%s' (DES, AES, AES-128, "
                    "AES-192, AES-256)", w);
    if (!has_word(rest))
        return 0;   /* net-snmp takes the authentication passphrase */
    if (check_secret(ps, &rest, "privacy") != 0)
        return -1;
    if ((w = next_word(&rest)))
        return fail(ps, "createUser: unexpected '%s' after the privacy passphrase", w);
    return 0;
}

/* A net-snmp line: known token, a value, handed over as written. */
static int apply_netsnmp(struct parse *ps, const char *token, char *rest, const char *original)
{
    struct pna_netsnmp_line l = { original, ps->file, ps->line, NULL, NULL };
    if (!has_word(rest))
        return fail(ps, "%s: missing value", token);
    if (strcasecmp(token, "createUser") == 0 && check_create_user(ps, rest, &l) != 0)
        return -1;
    if (ps->remember)
        ps->remember(&l, ps->remember_arg);
    return 0;
}

static int apply_line(struct parse *ps, char *line)
{
    char original[PNA_CONFIG_LINE_MAX + 1];
    while (isspace((unsigned char)*line))
        line++;
    pna_strlcpy(original, line, sizeof original);
    char *rest = line;
    char *token = next_word(&rest);
    if (!token)
        return 0;
    /* net-snmp takes the token as written, up to a blank or '=' */
    if (strcspn(original, " \t=") != strlen(token))
        return fail(ps, "a token is written plainly: no quotes, backslashes or '='");
    char *base;
    const struct pna_config_key *key = find_key(ps->cfg, token, &base);
    if (key)
        return apply_key(ps, key, base, token, rest);
    const struct agent_token *at = agent_token(token);
    if (at)
        return at->apply(ps, token, rest);
    if (is_netsnmp_token(token))
        return apply_netsnmp(ps, token, rest, original);
    return fail(ps, "unknown token '%s'", token);
}

/* Check LINE's quoting, cut its comment and trailing blanks (see the top of
 * this file for the rules). */
static int scan_line(struct parse *ps, char *line)
{
    char *s = line;
    for (;;) {
        while (isspace((unsigned char)*s))
            s++;
        if (!*s || *s == '#')
            break;
        if (is_quote(*s)) {
            char quote = *s++;
            while (*s && *s != quote)
                s += (*s == '\\' && s[1]) ? 2 : 1;
            if (!*s)
                return fail(ps, "unterminated quoted string");
            s++;
            if (*s && !isspace((unsigned char)*s) && *s != '#')
                return fail(ps, "text right after a closing quote");
        } else {
            while (*s && !isspace((unsigned char)*s) && *s != '#')
                s += (*s == '\\' && s[1]) ? 2 : 1;
        }
    }
    *s = '\0';
    size_t n = strlen(line);
    while (n > 0 && isspace((unsigned char)line[n - 1]))
        line[--n] = '\0';
    return 0;
}

/* One line of LEN bytes (its newline included, if any) read by getline(). */
static int load_line(struct parse *ps, char *line, size_t len)
{
    if (memchr(line, '\0', len))
        return fail(ps, "NUL byte in the line");
    if (len > 0 && line[len - 1] == '\n')
        line[--len] = '\0';
    if (len > PNA_CONFIG_LINE_MAX)
        return fail(ps, "line longer than %d characters", PNA_CONFIG_LINE_MAX);
    if (scan_line(ps, line) != 0)
        return -1;
    return apply_line(ps, line);
}

static FILE *open_config(const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    struct stat st;
    if (!f) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s: is a directory, not a config file", path);
        fclose(f);
        return NULL;
    }
    return f;
}

int pna_config_load(struct pna_config *cfg, const char *path,
                    void (*remember)(const struct pna_netsnmp_line *line, void *arg),
                    void *arg, char *err, size_t errlen)
{
    struct parse ps = { cfg, path, 0, err, errlen, remember, arg, NULL, 0, 0, NULL };
    FILE *f = open_config(path, err, errlen);
    if (!f)
        return -1;
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int rc = 0;
    errno = 0;
    while (rc == 0 && (len = getline(&line, &cap, f)) >= 0) {
        ps.line++;
        rc = load_line(&ps, line, (size_t)len);
    }
    if (rc == 0 && ferror(f)) {
        snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno ? errno : EIO));
        rc = -1;
    }
    free(line);
    fclose(f);
    for (size_t i = 0; i < ps.nusers; i++)
        free(ps.users[i]);
    free(ps.users);
    return rc;
}

void pna_config_free(struct pna_config *cfg)
{
    for (size_t i = 0; i < cfg->n_owned; i++)
        free(cfg->owned[i]);
    free(cfg->owned);
    cfg->owned = NULL;
    cfg->n_owned = cfg->owned_cap = 0;
    for (size_t i = 0; i < cfg->n_pollers; i++) {
        free(cfg->pollers[i].settings);
        cfg->pollers[i].settings = NULL;
    }
    cfg->n_pollers = 0;
}
