/* pollers/node_poller.c -- the "node" poller: node identity, CPU and memory. */
#include "pna_autoconf.h"
#include "core/config.h"
#include "sources/node/procfs.h"
#include "pollers/pollers.h"
#include "core/poller.h"

#include <stdio.h>
#include <stdlib.h>

/* The poller's own: where to read, and the reader's scratch. */
struct node_state {
    struct pna_roots roots;
    struct pna_node_scratch *scratch;
};

static void node_snap_destroy(struct pna_snap *snap)
{
    free(snap);
}

static int node_init(void **state, const struct pna_config *cfg, const void *settings, char *err,
                     size_t errlen)
{
    (void)settings;
    struct node_state *st = calloc(1, sizeof *st);
    /* not zeroed: only what a poll reaches of it is ever touched */
    if (!st || !(st->scratch = malloc(sizeof *st->scratch))) {
        free(st);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    st->roots = cfg->roots;
    *state = st;
    return 0;
}

static void node_fini(void *state)
{
    struct node_state *st = state;
    if (st)
        free(st->scratch);
    free(st);
}

static int node_collect(void *state, const struct pna_snap *prev,
                        const struct pna_poller_inputs *in, struct pna_snap **out,
                        char *err, size_t errlen)
{
    (void)in; /* reads no other domain */
    struct node_state *st = state;
    struct pna_node_snap *snap = calloc(1, sizeof *snap);
    if (!snap) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    const struct pna_node *before = prev ? &((const struct pna_node_snap *)prev)->node : NULL;
    if (pna_node_collect(&st->roots, before, st->scratch, &snap->node, err, errlen) != 0) {
        free(snap);
        return -1;
    }
    pna_snap_init(&snap->base, node_snap_destroy);
    *out = &snap->base;
    return 0;
}

const struct pna_poller_ops pna_node_poller = {
    .name = "node",
    .index = 1,
    .domain = PNA_DOM_NODE,
    .default_interval_ms = 5000,
    .default_timeout_ms = 3000,
    .init = node_init,
    .collect = node_collect,
    .fini = node_fini,
};
