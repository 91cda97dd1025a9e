/* core/config.h -- the agent's configuration: command line plus config file.
 *
 * The file is in net-snmp's style: one directive per line, a token followed by
 * its value, quoted words as net-snmp reads them, '#' comments outside quotes.  The agent's own tokens are parsed here and checked
 * strictly (a bad line stops start-up with file, line and reason); net-snmp's
 * own tokens (rocommunity, createUser, rouser, trap2sink, agentXSocket...) are
 * handed to net-snmp unchanged, which is how standalone mode gets its access
 * control.  docs/configuration.md lists every token. */
#ifndef PNA_CONFIG_H
#define PNA_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/roots.h"

#define PNA_MAX_POLLERS 16

/* prometheusCompat: other exporters' names the bridge serves as well. */
enum pna_prom_compat {
    PNA_COMPAT_DCGM = 1u << 0,    /* NVIDIA dcgm-exporter's DCGM_FI_* */
    PNA_COMPAT_AMD = 1u << 1,     /* AMD device-metrics-exporter's gpu_* */
};
#define PNA_MAX_NAMES 32

/* Per-poller settings; index in the array = position of the poller's name in
 * the list given to pna_config_load() (the registry's order, see
 * pna_poller_names()). */
struct pna_poller_cfg {
    bool set_enabled, enabled;
    unsigned interval_ms;   /* 0 = the poller's default */
    unsigned timeout_ms;    /* 0 = the poller's default */
};

struct pna_name_list {
    size_t count;
    char *names[PNA_MAX_NAMES];
};

struct pna_config {
    /* where sources live */
    struct pna_roots roots;

    /* front ends */
    const char *config_file;      /* -c */
    const char *agentx_socket;    /* -x, or agentXSocket in the file */
    const char *standalone_addr;  /* --standalone ADDRESS: own SNMP agent */
    unsigned agentx_ping_s;       /* agentxPingInterval */
    bool foreground;              /* -f */
    const char *http_addr;        /* --http ADDRESS (issue: HTTP bridge) */
    const char *http_tls_cert, *http_tls_key, *http_basic_auth_file;
    unsigned http_max_connections;
    bool http_probe_auth;          /* basic auth for /healthz and /ready too */
    unsigned prometheus_compat;    /* enum pna_prom_compat bits */

    /* logging */
    unsigned log_rate_interval_s; /* logRateInterval: per kind of line; 0 = no limit */

    /* cache and events */
    unsigned event_history;       /* rows kept in primusEventTable */
    unsigned stale_after_s;       /* keep serving the last good data this long */

    /* pollers */
    struct pna_poller_cfg pollers[PNA_MAX_POLLERS];

    /* RDMA / PFC */
    struct pna_name_list pfc_interfaces;  /* netdevs read for pause/PFC besides RoCE ones */
    uint64_t pause_storm_pps;             /* pause frames/s that count as a storm */
    unsigned module_interval_ms;          /* least time between two reads of a module's EEPROM */
    bool link_events;                     /* linkEvents: port changes from rtnetlink and
                                             verbs events, besides the poll (default yes) */

    const char *lldp_socket;              /* lldpd's control socket, under rootfs; "" = off */
    /* The lossless-RoCE configuration the fleet is meant to have (losslessPfcPriorities,
     * losslessTrust): an interface that differs is not ready. */
    bool lossless_expect_pfc;
    uint8_t lossless_pfc_en;              /* bit p: priority p */
    uint8_t lossless_trust;               /* 0 none, 1 pcp, 2 dscp (enum pna_trust's values) */

    /* GPUs */
    const char *nvml_library;             /* default libnvidia-ml.so.1 */
    const char *nvidia_smi;               /* fallback command */
    unsigned nvidia_smi_timeout_ms;
    int32_t gpu_temp_threshold_c;         /* 0 = each GPU's slowdown threshold */
    unsigned gpu_process_rows;            /* process rows kept per GPU (the most memory) */

    /* containers and Kubernetes */
    const char *containerd_state;         /* under rootfs: run/containerd */
    const char *docker_socket;            /* default /run/docker.sock under rootfs */
    const char *cgroup_root;              /* under sysfs: fs/cgroup */
    unsigned cgroup_files_held;           /* containers whose cgroup files stay open
                                             between polls (cgroupFilesHeld) */
    const char *podres_socket;            /* kubelet pod-resources socket, under rootfs */
    const char *kubelet_url;              /* https://127.0.0.1:10250, "" = off */
    const char *kubelet_token_file;
    const char *kubelet_ca_file;
    bool kubelet_insecure;
    const char *kubelet_root;             /* statvfs target: /var/lib/kubelet */
    const char *node_name;
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

/* Fill CFG with defaults. */
void pna_config_defaults(struct pna_config *cfg);

/* Parse PATH into CFG.  POLLER_NAMES (N_POLLERS of them, at most
 * PNA_MAX_POLLERS) are the pollers "poller NAME on|off", "pollInterval NAME
 * SECONDS" and "pollTimeout NAME SECONDS" may name; the settings of
 * POLLER_NAMES[i] go to cfg->pollers[i], any other name is an error.  Lines
 * that belong to net-snmp are passed to REMEMBER (may be NULL), each one once,
 * in the file's order, however many there are.  Returns 0, or -1 after writing
 * "FILE:LINE: reason" (or "FILE: reason": cannot open, a directory) into ERR.
 * A line is refused when it cannot mean what it says: an unterminated quote,
 * text right after a closing quote, a NUL byte, more than PNA_CONFIG_LINE_MAX
 * characters, a createUser that net-snmp would refuse or ignore. */
int pna_config_load(struct pna_config *cfg, const char *path,
                    const char *const *poller_names, size_t n_pollers,
                    void (*remember)(const struct pna_netsnmp_line *line, void *arg),
                    void *arg, char *err, size_t errlen);

/* Free what pna_config_load() allocated. */
void pna_config_free(struct pna_config *cfg);

#endif
