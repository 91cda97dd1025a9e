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
 * net-snmp's line buffer holds (PNA_CONFIG_LINE_MAX). */
#include "pna_autoconf.h"
#include "core/config.h"
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

void pna_config_defaults(struct pna_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    struct pna_roots roots = PNA_ROOTS_DEFAULT;
    cfg->roots = roots;
    cfg->agentx_ping_s = 15;
    cfg->http_max_connections = 32;
    cfg->event_history = 100;
    cfg->gpu_process_rows = 64;
    cfg->log_rate_interval_s = PNA_RATELIMIT_DEFAULT_INTERVAL;
    cfg->stale_after_s = 300;
    cfg->pause_storm_pps = 10000;
    cfg->module_interval_ms = 60000;
    cfg->link_events = true;
    cfg->nvml_library = "libnvidia-ml.so.1";
    cfg->nvidia_smi = "/usr/bin/nvidia-smi";
    cfg->nvidia_smi_timeout_ms = 5000;
    cfg->containerd_state = "run/containerd";
    cfg->docker_socket = "run/docker.sock";
    cfg->cgroup_root = "fs/cgroup";
    cfg->cgroup_files_held = 4096;
    cfg->kubelet_url = "";
    cfg->podres_socket = "var/lib/kubelet/pod-resources/kubelet.sock";
    cfg->lldp_socket = "run/lldpd.socket";
    cfg->kubelet_token_file = "/var/run/secrets/kubernetes.io/serviceaccount/token";
    cfg->kubelet_ca_file = "/var/run/secrets/kubernetes.io/serviceaccount/ca.crt";
    cfg->kubelet_root = "var/lib/kubelet";
}

/* ---- parsing state ------------------------------------------------------ */

struct parse {
    struct pna_config *cfg;
    const char *file;
    unsigned line;
    char *err;
    size_t errlen;
    const char *const *poller_names;   /* the pollers a line may name */
    size_t n_pollers;
    void (*remember)(const struct pna_netsnmp_line *, void *);
    void *remember_arg;
    char **users;                      /* createUser so far: "engine/name" */
    size_t nusers, users_cap;
};

/* Position of poller NAME in the caller's list (= its slot in cfg->pollers),
 * or -1. */
static int poller_slot(const struct parse *ps, const char *name)
{
    for (size_t i = 0; i < ps->n_pollers && i < PNA_MAX_POLLERS; i++)
        if (ps->poller_names[i] && strcasecmp(ps->poller_names[i], name) == 0)
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

/* Strings owned by the config (freed by pna_config_free); no limit. */
static char **owned;
static size_t nowned, owned_cap;

static const char *keep(struct parse *ps, const char *value, int *rc)
{
    char *copy = strdup(value);
    if (!copy || PNA_ARRAY_RESERVE(owned, owned_cap, nowned + 1) != 0) {
        free(copy);
        *rc = fail(ps, "out of memory");
        return NULL;
    }
    owned[nowned++] = copy;
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

/* ---- agent tokens ------------------------------------------------------- */

enum kind { K_STR, K_UINT, K_U64, K_SECONDS_MS, K_BOOL, K_INT };

struct token {
    const char *name;
    enum kind kind;
    size_t offset;          /* into struct pna_config */
    uint64_t min, max;
};

#define OFF(field) offsetof(struct pna_config, field)
static const struct token simple_tokens[] = {
    { "sysfsRoot", K_STR, OFF(roots.sysfs), 0, 0 },
    { "procfsRoot", K_STR, OFF(roots.procfs), 0, 0 },
    { "devfsRoot", K_STR, OFF(roots.devfs), 0, 0 },
    { "rootfsRoot", K_STR, OFF(roots.rootfs), 0, 0 },
    { "standalone", K_STR, OFF(standalone_addr), 0, 0 },
    { "httpAddress", K_STR, OFF(http_addr), 0, 0 },
    { "httpTlsCert", K_STR, OFF(http_tls_cert), 0, 0 },
    { "httpTlsKey", K_STR, OFF(http_tls_key), 0, 0 },
    { "httpBasicAuthFile", K_STR, OFF(http_basic_auth_file), 0, 0 },
    { "httpMaxConnections", K_UINT, OFF(http_max_connections), 1, 10000 },
    { "httpProbeAuth", K_BOOL, OFF(http_probe_auth), 0, 0 },
    { "eventHistory", K_UINT, OFF(event_history), 1, 100000 },
    { "logRateInterval", K_UINT, OFF(log_rate_interval_s), 0, 86400 },
    { "staleAfter", K_UINT, OFF(stale_after_s), 0, 86400 * 7 },
    { "pauseStormThreshold", K_U64, OFF(pause_storm_pps), 1, UINT64_MAX },
    { "moduleInterval", K_SECONDS_MS, OFF(module_interval_ms), 0, 86400 },
    { "linkEvents", K_BOOL, OFF(link_events), 0, 0 },
    { "lldpSocket", K_STR, OFF(lldp_socket), 0, 0 },
    { "nvmlLibrary", K_STR, OFF(nvml_library), 0, 0 },
    { "nvidiaSmi", K_STR, OFF(nvidia_smi), 0, 0 },
    { "nvidiaSmiTimeout", K_SECONDS_MS, OFF(nvidia_smi_timeout_ms), 1, 600 },
    { "gpuTempThreshold", K_INT, OFF(gpu_temp_threshold_c), 0, 200 },
    { "gpuProcessRows", K_UINT, OFF(gpu_process_rows), 0, 4096 },
    { "containerdState", K_STR, OFF(containerd_state), 0, 0 },
    { "dockerSocket", K_STR, OFF(docker_socket), 0, 0 },
    { "cgroupRoot", K_STR, OFF(cgroup_root), 0, 0 },
    { "cgroupFilesHeld", K_UINT, OFF(cgroup_files_held), 0, 65536 },
    { "kubeletUrl", K_STR, OFF(kubelet_url), 0, 0 },
    { "podResourcesSocket", K_STR, OFF(podres_socket), 0, 0 },
    { "kubeletTokenFile", K_STR, OFF(kubelet_token_file), 0, 0 },
    { "kubeletCaFile", K_STR, OFF(kubelet_ca_file), 0, 0 },
    { "kubeletInsecure", K_BOOL, OFF(kubelet_insecure), 0, 0 },
    { "kubeletRoot", K_STR, OFF(kubelet_root), 0, 0 },
    { "nodeName", K_STR, OFF(node_name), 0, 0 },
};
#undef OFF

static int apply_simple(struct parse *ps, const struct token *t, const char *value)
{
    char *field = (char *)ps->cfg + t->offset;
    uint64_t v;
    int rc = 0;
    switch (t->kind) {
    case K_STR: {
        const char *s = keep(ps, value, &rc);
        if (s)
            *(const char **)field = s;
        return rc;
    }
    case K_UINT:
        if (parse_uint(ps, t->name, value, t->min, t->max, &v))
            return -1;
        *(unsigned *)field = (unsigned)v;
        return 0;
    case K_U64:
        if (parse_uint(ps, t->name, value, t->min, t->max, &v))
            return -1;
        *(uint64_t *)field = v;
        return 0;
    case K_SECONDS_MS:
        if (parse_uint(ps, t->name, value, t->min, t->max, &v))
            return -1;
        *(unsigned *)field = (unsigned)(v * 1000);
        return 0;
    case K_INT:
        if (parse_uint(ps, t->name, value, t->min, t->max, &v))
            return -1;
        *(int32_t *)field = (int32_t)v;
        return 0;
    case K_BOOL:
        return parse_bool(ps, t->name, value, (bool *)field);
    }
    return 0;
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

static int apply_list_token(struct parse *ps, struct pna_name_list *list, const char *token,
                            char *rest)
{
    char *w;
    int rc = 0, any = 0;
    while ((w = next_word(&rest)) != NULL) {
        if (list->count == PNA_MAX_NAMES)
            return fail(ps, "%s: more than %d names", token, PNA_MAX_NAMES);
        const char *s = keep(ps, w, &rc);
        if (!s)
            return rc;
        list->names[list->count++] = (char *)s;
        any = 1;
    }
    return any ? 0 : fail(ps, "%s: expected at least one interface name", token);
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

/* losslessPfcPriorities P[,P...] | none: the PFC priorities every RoCE
 * interface should have. */
static int apply_lossless_pfc(struct parse *ps, const char *token, char *rest)
{
    char *w = next_word(&rest);
    if (!w || next_word(&rest))
        return fail(ps, "%s: expected priorities such as 3 or 3,4, or none", token);
    uint8_t mask = 0;
    if (strcasecmp(w, "none") != 0) {
        for (char *p = w; *p; p++) {
            if (*p >= '0' && *p <= '7' && (p[1] == ',' || p[1] == '\0'))
                mask |= (uint8_t)(1u << (*p - '0'));
            else if (*p != ',' || p == w || p[1] == '\0' || p[1] == ',')
                return fail(ps, "%s: '%s' is not a list of priorities 0-7 such as 3 or 3,4", token, w);
        }
    }
    ps->cfg->lossless_expect_pfc = true;
    ps->cfg->lossless_pfc_en = mask;
    return 0;
}

/* losslessTrust dscp|pcp: what every RoCE interface should classify by. */
static int apply_lossless_trust(struct parse *ps, const char *token, char *rest)
{
    char *w = next_word(&rest);
    if (!w || next_word(&rest) || (strcasecmp(w, "dscp") != 0 && strcasecmp(w, "pcp") != 0))
        return fail(ps, "%s: expected dscp or pcp", token);
    ps->cfg->lossless_trust = strcasecmp(w, "pcp") == 0 ? 1 : 2;
    return 0;
}

static int apply_agentx_socket(struct parse *ps, char *rest)
{
    char *w = next_word(&rest);
    int rc = 0;
    if (!w || next_word(&rest))
        return fail(ps, "agentXSocket: expected one address");
    const char *s = keep(ps, w, &rc);
    if (s && !ps->cfg->agentx_socket)
        ps->cfg->agentx_socket = s; /* -x on the command line wins */
    return rc;
}

static int apply_ping_interval(struct parse *ps, char *rest)
{
    uint64_t v;
    char *w = next_word(&rest);
    if (!w || next_word(&rest))
        return fail(ps, "agentXPingInterval: expected seconds");
    if (parse_uint(ps, "agentXPingInterval", w, 1, 3600, &v))
        return -1;
    ps->cfg->agentx_ping_s = (unsigned)v;
    return 0;
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
    for (size_t i = 0; i < sizeof simple_tokens / sizeof simple_tokens[0]; i++) {
        if (strcasecmp(token, simple_tokens[i].name) != 0)
            continue;
        char *value = next_word(&rest);
        if (!value || next_word(&rest))
            return fail(ps, "%s: expected exactly one value", token);
        return apply_simple(ps, &simple_tokens[i], value);
    }
    if (strcasecmp(token, "poller") == 0 || strcasecmp(token, "pollInterval") == 0 ||
        strcasecmp(token, "pollTimeout") == 0)
        return apply_poller_token(ps, token, rest);
    if (strcasecmp(token, "pfcInterface") == 0)
        return apply_list_token(ps, &ps->cfg->pfc_interfaces, token, rest);
    if (strcasecmp(token, "prometheusCompat") == 0)
        return apply_compat_token(ps, token, rest);
    if (strcasecmp(token, "losslessPfcPriorities") == 0)
        return apply_lossless_pfc(ps, token, rest);
    if (strcasecmp(token, "losslessTrust") == 0)
        return apply_lossless_trust(ps, token, rest);
    if (strcasecmp(token, "agentXSocket") == 0)
        return apply_agentx_socket(ps, rest);
    if (strcasecmp(token, "agentXPingInterval") == 0)
        return apply_ping_interval(ps, rest);
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
                    const char *const *poller_names, size_t n_pollers,
                    void (*remember)(const struct pna_netsnmp_line *line, void *arg),
                    void *arg, char *err, size_t errlen)
{
    struct parse ps = { cfg, path, 0, err, errlen, poller_names, n_pollers, remember, arg,
                        NULL, 0, 0 };
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
    (void)cfg;
    for (size_t i = 0; i < nowned; i++)
        free(owned[i]);
    free(owned);
    owned = NULL;
    nowned = owned_cap = 0;
}
