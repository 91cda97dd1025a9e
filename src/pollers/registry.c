/* pollers/registry.c -- the poller registry: adding a source is one file
 * (pollers/<name>_poller.c) plus one line here and one in pollers.h.  The
 * order is the config slot order; primusPollerIndex comes from each poller's
 * own fixed index, so reordering never renumbers rows. */
#include "pna_autoconf.h"
#include "pollers/pollers.h"

const struct pna_poller_ops *const pna_poller_registry[] = {
    &pna_node_poller,
    &pna_gpu_poller,
    &pna_ib_poller,
    &pna_pfc_poller,
    &pna_containers_poller,
    &pna_kubelet_poller,
    &pna_storage_poller,
    &pna_podres_poller,
    &pna_phy_poller,
    &pna_slurm_poller,
    &pna_accounting_poller,
    &pna_topology_poller,
};

const size_t pna_poller_registry_len =
    sizeof pna_poller_registry / sizeof pna_poller_registry[0];
