/* pollers/pollers.h -- every poller of the agent, for the registry
 * (pollers/registry.c), their settings, and the hooks the unit tests drive
 * them with.
 *
 * Each poller is one `struct pna_poller_ops` (core/poller.h) in
 * pollers/<name>_poller.c; its snapshot is declared in its domain's model
 * header (model/node.h, model/gpu/gpu.h, model/ib.h, model/pfc.h,
 * model/containers.h, model/storage.h). */
#ifndef PNA_POLLERS_H
#define PNA_POLLERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/config.h"
#include "core/poller.h"
#include "model/gpu/gpu_idle.h"
#include "model/lossless/lossless.h"

/* The registry, in config slot order: main.c hands it to the config loader
 * and the poller core. */
extern const struct pna_poller_ops *const pna_poller_registry[];
extern const size_t pna_poller_registry_len;

extern const struct pna_poller_ops pna_node_poller;       /* index 1, PNA_DOM_NODE */
extern const struct pna_poller_ops pna_gpu_poller;        /* index 2, PNA_DOM_GPU */
extern const struct pna_poller_ops pna_ib_poller;         /* index 3, PNA_DOM_IB */
extern const struct pna_poller_ops pna_pfc_poller;        /* index 4, PNA_DOM_PFC */
extern const struct pna_poller_ops pna_containers_poller; /* index 5, PNA_DOM_CONTAINERS */
extern const struct pna_poller_ops pna_kubelet_poller;    /* index 6, PNA_DOM_KUBELET */
extern const struct pna_poller_ops pna_storage_poller;    /* index 7, PNA_DOM_STORAGE */
extern const struct pna_poller_ops pna_podres_poller;     /* index 8, PNA_DOM_PODRES */
extern const struct pna_poller_ops pna_phy_poller;        /* index 9, PNA_DOM_PHY */
extern const struct pna_poller_ops pna_slurm_poller;      /* index 10, PNA_DOM_SLURM */
extern const struct pna_poller_ops pna_accounting_poller; /* index 11, PNA_DOM_ACCOUNTING */
extern const struct pna_poller_ops pna_topology_poller;   /* index 12, PNA_DOM_TOPOLOGY */

/* Each poller's settings: the values of the config keys it declares (its
 * ops' key table; docs/configuration.md lists them), handed to its init().
 * Strings are NULL when not set and have no default.  Every token has one
 * owner; what two pollers need is the agent's (the roots, nodeName: struct
 * pna_config). */
struct pna_gpu_settings {
    const char *nvml_library;          /* nvmlLibrary */
    const char *nvidia_smi;            /* nvidiaSmi */
    unsigned nvidia_smi_timeout_ms;    /* nvidiaSmiTimeout */
    int32_t temp_threshold_c;          /* gpuTempThreshold: 0 = each GPU's slowdown */
    unsigned process_rows;             /* gpuProcessRows */
    struct pna_gpu_idle_rule idle_rule; /* accountingIdleThreshold (all zeros: the defaults) */
};

struct pna_ib_settings {
    bool link_events;                  /* linkEvents: port changes from rtnetlink and
                                          verbs events, besides the poll */
};

struct pna_pfc_settings {
    struct pna_name_list interfaces;   /* pfcInterface: besides the RoCE netdevs */
    uint64_t storm_pps;                /* pauseStormThreshold: pause frames/s of a storm */
    const char *lldp_socket;           /* lldpSocket, under rootfs; "" = off */
    /* losslessPfcPriorities, losslessTrust: the lossless-RoCE configuration the
     * fleet is meant to have (an interface that differs is not ready) */
    struct pna_lossless_expect expect;
};

struct pna_phy_settings {
    unsigned module_interval_ms;       /* moduleInterval: least time between two
                                          reads of a module's EEPROM; 0 = none */
};

struct pna_containers_settings {
    const char *containerd_state;      /* containerdState, under rootfs */
    const char *docker_socket;         /* dockerSocket, under rootfs */
    const char *cgroup_root;           /* cgroupRoot, under sysfs */
    unsigned cgroup_files_held;        /* cgroupFilesHeld: containers whose cgroup
                                          files stay open between polls */
    const char *storage_root;          /* containersStorageRoot (CRI-O, Podman), under rootfs */
    const char *storage_run_root;      /* containersStorageRunRoot, under rootfs */
};

struct pna_kubelet_settings {
    const char *url;                   /* kubeletUrl; "" = off */
    const char *token_file;            /* kubeletTokenFile */
    const char *ca_file;               /* kubeletCaFile */
    bool insecure;                     /* kubeletInsecure */
};

struct pna_podres_settings {
    const char *socket;                /* podResourcesSocket, under rootfs */
};

struct pna_slurm_settings {
    const char *cgroup_root;           /* slurmCgroupRoot, under sysfs */
};

struct pna_accounting_settings {
    const char *state_file;            /* accountingStateFile; "" = none */
    unsigned retention_ms;             /* accountingRetention: a gone holder's row is kept */
};

struct pna_storage_settings {
    const char *kubelet_root;          /* kubeletRoot: statvfs target, under rootfs */
};

/* Tests: the libibmad (PMA counters, neighbour SMPs) and libibverbs tables
 * the next ib init() uses (NULL: not used), and ANY_ROOTS to use them on a
 * sysfs tree that is not the host's own.  By default the real libraries
 * where built, on the host's roots only. */
struct pna_ib_mad_ops;
struct pna_ib_smp_ops;
struct pna_ib_verbs_ops;
void pna_ib_poller_set_ext_ops(const struct pna_ib_mad_ops *mad, const struct pna_ib_smp_ops *smp,
                               const struct pna_ib_verbs_ops *verbs, bool any_roots);

/* Tests: the tables the next ib init() starts its link watcher with
 * (watchers/link_watch.h): the rtnetlink socket and the verbs asynchronous
 * events (the latter, like the tables above, only on the host's roots unless
 * ANY_ROOTS was set).  NULL: that source is not used.  By default libmnl and
 * libibverbs where built. */
struct pna_rtnl_ops;
struct pna_ib_async_ops;
void pna_ib_poller_set_link_ops(const struct pna_rtnl_ops *rtnl,
                                const struct pna_ib_async_ops *async);

/* Tests: what the pfc poller reads an interface's statistics with (the
 * signature of pna_ethtool_read(), sources/pfc/ethtool.h; the result is freed
 * with pna_eth_stats_free()).  NULL restores the ethtool ioctl. */
struct pna_eth_stats;
typedef int pna_pfc_stats_reader(const char *ifname, struct pna_eth_stats *out, char *err,
                                 size_t errlen);
void pna_pfc_poller_set_reader(pna_pfc_stats_reader *reader);

/* Tests: what the pfc poller reads an interface's DCB configuration with (the
 * signature of pna_dcb_read(), sources/pfc/dcb.h).  NULL restores DCB netlink. */
struct pna_dcb;
typedef int pna_dcb_reader(const char *ifname, struct pna_dcb *out);
void pna_pfc_poller_set_dcb_reader(pna_dcb_reader *reader);

/* Tests: what the pfc poller asks lldpd with (the signature of
 * pna_lldp_read(), sources/pfc/lldp.h; the table is freed with
 * pna_lldp_table_free()).  NULL restores liblldpctl. */
struct pna_lldp_table;
typedef int pna_lldp_reader(const char *socket_path, int timeout_ms, struct pna_lldp_table *out,
                            char *err, size_t errlen);
void pna_pfc_poller_set_lldp_reader(pna_lldp_reader *reader);

/* Tests: what the phy poller reads an interface's physical layer with (as
 * pna_ethnl_read_phy(), sources/phy/ethtool_nl.h) and its module with (as
 * pna_module_read() on the interface's EEPROM, sources/phy/module.h): no
 * virtual interface has FEC, 802.3 statistics or a module.  Set before the
 * poller starts; NULL restores ethtool netlink. */
struct pna_phy_if;
struct pna_module;
typedef int pna_phy_reader(const char *ifname, struct pna_phy_if *out);
typedef int pna_phy_module_reader(const char *ifname, struct pna_module *out, char *err,
                                  size_t errlen);
void pna_phy_poller_set_readers(pna_phy_reader *phy, pna_phy_module_reader *module);

#endif
