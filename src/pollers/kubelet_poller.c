/* pollers/kubelet_poller.c -- the "kubelet" poller: pods, pod ephemeral
 * storage, the kubelet's node filesystem figures and the Kubernetes GPU
 * allocation rate. Off unless kubeletUrl is configured. */
#include "pna_autoconf.h"
#include "core/config.h"
#include "pollers/pollers.h"
#include "sources/containers/devmap.h"
#include "transport/http_client.h"
#include "sources/kubernetes/kubelet.h"
#include "model/containers.h"
#include "model/storage.h"
#include "util/fileio.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KUBELET_REQUEST_TIMEOUT_MS 2000

struct kubelet_state {
    struct pna_roots roots;
    struct pna_kubelet_opts opts;
    const char *node_name;
    struct pna_hclient *http;
};

static int kubelet_init(void **state, const struct pna_config *cfg, const void *settings,
                        char *err, size_t errlen)
{
    const struct pna_kubelet_settings *set = settings;
    if (!set->url || !set->url[0]) {
        snprintf(err, errlen, "kubeletUrl not set");
        return PNA_POLLER_DISABLED;
    }
    struct kubelet_state *st = calloc(1, sizeof *st);
    if (!st || !(st->http = pna_hclient_new())) {
        free(st);
        snprintf(err, errlen, "cannot set up libcurl");
        return -1;
    }
    st->roots = cfg->roots;
    st->node_name = cfg->node_name;
    /* The service-account files are the agent's own (its pod's), not the
     * host's: they are not placed under --rootfs. */
    st->opts = (struct pna_kubelet_opts){
        .url = set->url, .token_file = set->token_file,
        .ca_file = set->ca_file, .insecure = set->insecure,
        .timeout_ms = KUBELET_REQUEST_TIMEOUT_MS, .pod_labels = &cfg->pod_labels,
    };
    *state = st;
    return 0;
}

static void destroy_snap(struct pna_snap *snap)
{
    struct pna_kubelet_snap *s = (struct pna_kubelet_snap *)snap;
    pna_pod_set_free(&s->pods);
    pna_pod_label_set_free(&s->labels);
    free(s);
}

static int kubelet_collect(void *state, const struct pna_snap *prev,
                           const struct pna_poller_inputs *in, struct pna_snap **out,
                           char *err, size_t errlen)
{
    (void)in; /* reads no other domain */
    struct kubelet_state *st = state;
    struct pna_kubelet_result r;
    if (pna_kubelet_fetch(st->http, &st->opts, &r, err, errlen) < 0)
        return -1;
    struct pna_kubelet_snap *s = calloc(1, sizeof *s);
    if (!s) {
        pna_pod_set_free(&r.pods);
        pna_pod_label_set_free(&r.labels);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    pna_strlcpy(s->node_name, r.node_name[0] || !st->node_name ? r.node_name : st->node_name,
                sizeof s->node_name);
    s->pods = r.pods;
    s->node_fs = r.node_fs;
    s->labels = r.labels;
    pna_pod_set_sort(&s->pods);
    const struct pna_kubelet_snap *p = (const struct pna_kubelet_snap *)prev;
    pna_pod_set_assign_indexes(&s->pods, p ? &p->pods : NULL);
    /* The kubelet's read API has no node allocatable: the node's GPUs are
     * counted from its device nodes. */
    pna_k8s_gpu_compute(&s->gpu, r.gpus_allocated, pna_devmap_count_gpus(&st->roots));
    pna_snap_init(&s->base, destroy_snap);
    s->base.taken_ms = pna_now_ms();
    *out = &s->base;
    /* Labels left out (bounds): published all the same, counted and shown. */
    if (s->labels.dropped)
        snprintf(err, errlen, "%llu pod labels not served; first: %s",
                 (unsigned long long)s->labels.dropped, s->labels.drop_note);
    return 0;
}

static void kubelet_fini(void *state)
{
    struct kubelet_state *st = state;
    if (!st)
        return;
    pna_hclient_free(st->http);
    free(st);
}

/* The kubelet poller's tokens (docs/configuration.md, "Containers and
 * Kubernetes"); nodeName is the agent's (the bridge labels with it too). */
#define SET(field) offsetof(struct pna_kubelet_settings, field)
static const struct pna_config_key kubelet_keys[] = {
    { .token = "kubeletUrl", .type = PNA_KEY_STRING, .offset = SET(url), .def_str = "" },
    { .token = "kubeletTokenFile", .type = PNA_KEY_STRING, .offset = SET(token_file),
      .def_str = "/var/run/secrets/kubernetes.io/serviceaccount/token" },
    { .token = "kubeletCaFile", .type = PNA_KEY_STRING, .offset = SET(ca_file),
      .def_str = "/var/run/secrets/kubernetes.io/serviceaccount/ca.crt" },
    { .token = "kubeletInsecure", .type = PNA_KEY_BOOL, .offset = SET(insecure) },
    { .token = NULL },
};
#undef SET

const struct pna_poller_ops pna_kubelet_poller = {
    .name = "kubelet",
    .index = 6,
    .domain = PNA_DOM_KUBELET,
    .default_interval_ms = 30000,
    .default_timeout_ms = 3 * KUBELET_REQUEST_TIMEOUT_MS,
    .keys = kubelet_keys,
    .settings_size = sizeof(struct pna_kubelet_settings),
    .init = kubelet_init,
    .collect = kubelet_collect,
    .fini = kubelet_fini,
};
