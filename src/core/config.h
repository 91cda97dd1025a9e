/* core/config.h -- the agent's configuration: command line plus config file.
 *
 * The file is in net-snmp's style: one directive per line, a token followed by
 * its value, quoted words as net-snmp reads them, '#' comments outside quotes.  The agent's own tokens are parsed here and checked
 * strictly (a bad line stops start-up with file, line and reason); net-snmp's
 * own tokens (rocommunity, createUser, rouser, trap2sink, agentXSocket...) are
 * handed to net-snmp unchanged, which is how standalone mode gets its access
 * control.  docs/configuration.md lists every token.
 *
 * struct pna_config holds the agent's own settings only: where the sources
 * are, the front ends, logging, the cache and events, and each poller's
 * switch, interval and deadline.  A poller's own settings (the GPU's NVML
 * library, the pfc poller's interfaces...) are declared by the poller: a
 * table of struct pna_config_key in its struct pna_poller_ops, whose values go
 * to a settings struct of its own that the loader allocates, fills with the
 * table's defaults and the file's lines, and that the poller core hands to the
 * poller's init() (see pna_config_set_pollers()). */
#ifndef PNA_CONFIG_H
#define PNA_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/roots.h"
#include "util/label_allow.h"

#define PNA_MAX_POLLERS 16

struct pna_poller_ops;

/* prometheusCompat: other exporters' names the bridge serves as well. */
enum pna_prom_compat {
    PNA_COMPAT_DCGM = 1u << 0,    /* NVIDIA dcgm-exporter's DCGM_FI_* */
    PNA_COMPAT_AMD = 1u << 1,     /* AMD device-metrics-exporter's gpu_* */
};
#define PNA_MAX_NAMES 32

/* ---- export control (exportInclude, exportExclude, exportLabelDrop,
 * exportStaticLabels, exportSeriesLimit) --------------------------------------
 * The loader checks what it can alone (a pattern's characters, a label's
 * name and value); what the patterns name is checked against the
 * descriptors at start-up (model/export/export.h), which reports the
 * pattern's own file and line. */
#define PNA_EXPORT_PATTERNS_MAX 128
#define PNA_EXPORT_STATIC_MAX 16
#define PNA_EXPORT_NAME_MAX 160      /* a pattern, a label name */
#define PNA_EXPORT_VALUE_MAX 128     /* a static label's value */

/* A word of a line and where it was written. */
struct pna_export_item {
    const char *text;                /* owned by the config */
    const char *value;               /* exportStaticLabels: the label's value */
    const char *file;
    unsigned line;
};

struct pna_export_list {
    size_t count;
    struct pna_export_item items[PNA_EXPORT_PATTERNS_MAX];
};

struct pna_export_config {
    struct pna_export_list include;  /* globs: MIB objects and families kept */
    struct pna_export_list exclude;  /* globs: MIB objects and families left out */
    struct pna_export_list label_drop;     /* label names */
    struct pna_export_list static_labels;  /* name (text) = value */
    uint64_t series_limit;           /* 0: none */
    const char *series_limit_file;
    unsigned series_limit_line;
};

/* A name list key's value (PNA_KEY_NAMES): every line of the token adds to it. */
struct pna_name_list {
    size_t count;
    char *names[PNA_MAX_NAMES];
};

/* What a key's value is, and how its line is read. */
enum pna_key_type {
    PNA_KEY_STRING,      /* const char *: one word */
    PNA_KEY_BOOL,        /* bool: yes|no, true|false, on|off, 1|0 */
    PNA_KEY_UINT,        /* unsigned: a decimal number in min..max */
    PNA_KEY_U64,         /* uint64_t: a decimal number in min..max */
    PNA_KEY_INT,         /* int32_t: a decimal number in min..max (max below 2^31) */
    PNA_KEY_SECONDS_MS,  /* unsigned: seconds in min..max written, milliseconds kept */
    PNA_KEY_NAMES,       /* struct pna_name_list: one or more words a line */
    PNA_KEY_CUSTOM,      /* the key's own parse() */
};

/* One config token and where its value goes: OFFSET bytes into the settings
 * struct of its owner (the agent's struct pna_config, or a poller's own).
 * The token is matched without regard to case; a bad value stops start-up
 * with "FILE:LINE: TOKEN: reason". */
struct pna_config_key {
    const char *token;
    enum pna_key_type type;
    size_t offset;
    uint64_t min, max;          /* numbers; seconds for PNA_KEY_SECONDS_MS */
    uint64_t def;               /* the default of a number (in the unit written:
                                   seconds for PNA_KEY_SECONDS_MS) or a bool (1 = yes) */
    const char *def_str;        /* the default of a string (NULL: none) */
    bool empty_is_default;      /* a string written "" means def_str */
    const char *what;           /* PNA_KEY_NAMES: what one word is, for the message
                                   "expected at least one ..." (NULL: "name") */
    /* PNA_KEY_CUSTOM: read the NWORDS words after the token into VALUE;
     * returns 0, or -1 with WHY filled (the loader writes "FILE:LINE: TOKEN: "
     * before it).  Its default is all zeros. */
    int (*parse)(void *value, char *const *words, size_t nwords, char *why, size_t whylen);
};

/* Per-poller settings; cfg->pollers[i] belongs to the i-th poller handed to
 * pna_config_set_pollers() (the registry's order). */
struct pna_poller_cfg {
    const struct pna_poller_ops *ops;
    void *settings;         /* its keys' values (ops->settings_size bytes), or NULL */
    bool set_enabled, enabled;
    unsigned interval_ms;   /* 0 = the poller's default */
    unsigned timeout_ms;    /* 0 = the poller's default */
};

struct pna_config {
    /* where sources live */
    struct pna_roots roots;

    /* front ends */
    const char *agentx_socket;    /* -x, or agentXSocket in the file */
    const char *standalone_addr;  /* --standalone ADDRESS: own SNMP agent */
    unsigned agentx_ping_s;       /* agentxPingInterval */
    bool foreground;              /* -f */
    const char *http_addr;        /* --http ADDRESS (issue: HTTP bridge) */
    const char *http_tls_cert, *http_tls_key, *http_basic_auth_file;
    unsigned http_max_connections;
    bool http_probe_auth;          /* basic auth for /healthz and /ready too */
    unsigned prometheus_compat;    /* enum pna_prom_compat bits */
    /* The node's name: the bridge's node label, and the kubelet poller's
     * when the kubelet does not say (nodeName); NULL: the hostname. */
    const char *node_name;
    /* podLabels: the pod labels served (primusPodLabelTable,
     * primus_pod_labels_info); none by default.  The kubelet and containers
     * pollers both read pod labels, so the list is the agent's. */
    struct pna_label_allow pod_labels;
    /* What the front ends export (exportInclude ... exportSeriesLimit). */
    struct pna_export_config exports;

    /* logging */
    unsigned log_rate_interval_s; /* logRateInterval: per kind of line; 0 = no limit */

    /* cache and events */
    unsigned event_history;       /* rows kept in primusEventTable */
    unsigned stale_after_s;       /* keep serving the last good data this long */

    /* pollers: switch, interval, deadline and their own settings */
    struct pna_poller_cfg pollers[PNA_MAX_POLLERS];
    size_t n_pollers;

    /* the strings the file gave (freed by pna_config_free) */
    char **owned;
    size_t n_owned, owned_cap;
};

/* The longest line (without its newline) the file may have: net-snmp reads
 * a directive handed to it into a buffer of 1024 bytes and would cut it. */
#define PNA_CONFIG_LINE_MAX 1022

/* A directive that belongs to net-snmp, as pna_config_load() hands it over.
 * The pointers are good for the call only. */
struct pna_netsnmp_line {
    const char *text;       /* "token value...", comment and trailing blanks removed */
    const char *file;       /* where it was written */
    unsigned line;
    const char *user;       /* createUser: the user's name, unquoted; else NULL */
    const char *engine_id;  /* createUser -e: the engine ID, hex digits without 0x;
                               else NULL (the agent's own engine) */
};

/* Fill CFG with the agent's defaults; no poller yet. */
void pna_config_defaults(struct pna_config *cfg);

/* The pollers whose settings CFG holds (the registry main.c has, N of them,
 * at most PNA_MAX_POLLERS): cfg->pollers[i] is REGISTRY[i]'s, and each
 * poller with keys gets its settings struct, filled with its keys' defaults.
 * Returns 0, or -1 with ERR filled: too many pollers, out of memory, or a
 * token that two owners declare (each token has one: the agent or a poller). */
int pna_config_set_pollers(struct pna_config *cfg, const struct pna_poller_ops *const *registry,
                           size_t n, char *err, size_t errlen);

/* Fill SETTINGS (OPS->settings_size bytes) with OPS's keys' defaults, for a
 * caller that runs a poller without a config (tests, benchmarks). */
void pna_config_poller_defaults(const struct pna_poller_ops *ops, void *settings);

/* The settings of OPS in CFG: its pna_poller_cfg (NULL: OPS was not handed
 * to pna_config_set_pollers()) and its keys' values (NULL: no keys, or not
 * handed). */
const struct pna_poller_cfg *pna_config_poller(const struct pna_config *cfg,
                                               const struct pna_poller_ops *ops);
void *pna_config_settings(const struct pna_config *cfg, const struct pna_poller_ops *ops);

/* Parse PATH into CFG.  The agent's tokens and the keys of the pollers given
 * to pna_config_set_pollers() are taken; "poller NAME on|off", "pollInterval
 * NAME SECONDS" and "pollTimeout NAME SECONDS" may name those pollers, any
 * other name is an error.  Lines that belong to net-snmp are passed to
 * REMEMBER (may be NULL), each one once, in the file's order, however many
 * there are.  Returns 0, or -1 after writing "FILE:LINE: reason" (or "FILE:
 * reason": cannot open, a directory) into ERR.  A line is refused when it
 * cannot mean what it says: an unterminated quote, text right after a
 * closing quote, a NUL byte, more than PNA_CONFIG_LINE_MAX characters, a
 * createUser that net-snmp would refuse or ignore. */
int pna_config_load(struct pna_config *cfg, const char *path,
                    void (*remember)(const struct pna_netsnmp_line *line, void *arg),
                    void *arg, char *err, size_t errlen);

/* Free what pna_config_set_pollers() and pna_config_load() allocated. */
void pna_config_free(struct pna_config *cfg);

#endif
