/* test_lossless_notify.c -- the lossless-RoCE notifications of the pfc
 * poller (pollers/pfc_lossless.c) across the cache dropping snapshots as
 * stale, driven through the real ib and pfc pollers on a temp sysfs tree:
 *
 *   - at start-up the interfaces and the node that are not ready notify once;
 *   - the pfc snapshot dropped as stale (the next collect's prev is NULL):
 *     the same verdicts notify nothing again;
 *   - the ib snapshot dropped as stale (the RoCE netdev is not listed for a
 *     poll, then is back with the same verdict): nothing again either;
 *   - a real change still notifies, with the old verdict; an interface that
 *     is really gone (its RDMA port removed) is forgotten, and notifies as
 *     a first sighting when it comes back not ready.
 *
 * The DCB answers are the test's own (pna_pfc_poller_set_dcb_reader): PFC
 * on no priority (notReady), or no answer (unreadable). */
#include "pna_autoconf.h"
#include "core/config.h"
#include "pollers/pollers.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cache.h"
#include "core/events.h"
#include "model/lossless/lossless.h"
#include "model/pfc.h"
#include "unit.h"

#define ROCE "pna-roce0"        /* the netdev of mlx5_0 port 1 */
#define CONFIGURED "pna-cfg0"   /* a pfcInterface */

static char root[] = "/tmp/pna-lossnote-XXXXXX";
static bool unreadable[2];      /* [0] ROCE, [1] CONFIGURED: the DCB reader fails */

static int stub_dcb(const char *ifname, struct pna_dcb *out)
{
    memset(out, 0, sizeof *out);
    bool fails = unreadable[strcmp(ifname, CONFIGURED) == 0];
    if (fails) {
        snprintf(out->error, sizeof out->error, "no DCB support in the driver (EOPNOTSUPP)");
        return -1;
    }
    out->read = true;
    out->has_pfc = true;
    out->pfc_cap = 8; /* pfc_en 0: PFC on no priority, not ready */
    return 0;
}

/* One poll the way the poller core does it: prev and inputs from the cache. */
static void poll_once(const struct pna_poller_ops *ops, void *state)
{
    char err[160] = "";
    struct pna_snap *out = NULL;
    int rc = pna_poller_collect(ops, state, &out, err, sizeof err);
    CHECK_INT(rc, 0);
    if (rc == 0 && out)
        pna_cache_publish(ops->domain, out);
}

/* The event table's index of the first event the last pfc poll queued. */
static size_t first_new;

static bool is_lossless(const struct pna_event *ev)
{
    return ev->type == PNA_EV_ROCE_LOSSLESS || ev->type == PNA_EV_ROCE_NODE_LOSSLESS;
}

/* A pfc poll, its events moved into the event table as the main thread
 * does; returns how many lossless notifications it posted. */
static size_t poll_pfc(void *state)
{
    poll_once(&pna_pfc_poller, state);
    first_new = pna_events_count();
    pna_events_drain(NULL, NULL);
    size_t n = 0;
    for (size_t i = first_new; i < pna_events_count(); i++)
        n += is_lossless(pna_events_at(i));
    return n;
}

static const struct pna_event *find(enum pna_event_type type, const char *ifname)
{
    for (size_t i = first_new; i < pna_events_count(); i++) {
        const struct pna_event *ev = pna_events_at(i);
        if (ev->type == type && strcmp(ev->u.lossless.ifname, ifname) == 0)
            return ev;
    }
    return NULL;
}

static void put_roce_port(void)
{
    unit_put(root, "class/infiniband/mlx5_0/ports/1/state", "4: ACTIVE\n");
    unit_put(root, "class/infiniband/mlx5_0/ports/1/link_layer", "Ethernet\n");
    unit_put(root, "class/infiniband/mlx5_0/ports/1/gid_attrs/ndevs/0", ROCE "\n");
}

static void test_stale_drops(void *ib, void *pfc)
{
    /* start-up: both interfaces and the node are not ready */
    poll_once(&pna_ib_poller, ib);
    CHECK_U64(poll_pfc(pfc), 3);
    const struct pna_event *e = find(PNA_EV_ROCE_LOSSLESS, ROCE);
    CHECK(e && e->u.lossless.verdict == PNA_LOSSLESS_NOT_READY && e->u.lossless.old_verdict == 0);
    CHECK(find(PNA_EV_ROCE_LOSSLESS, CONFIGURED) != NULL);
    e = find(PNA_EV_ROCE_NODE_LOSSLESS, "");
    CHECK(e && e->u.lossless.verdict == PNA_LOSSLESS_NOT_READY);
    CHECK_U64(poll_pfc(pfc), 0);

    /* the pfc snapshot dropped as stale: the next collect has no prev */
    pna_cache_drop(PNA_DOM_PFC);
    CHECK(pna_cache_acquire(PNA_DOM_PFC) == NULL);
    CHECK_U64(poll_pfc(pfc), 0);

    /* the ib snapshot dropped as stale: the RoCE netdev is not listed for
     * a poll (the node is judged on the configured interface alone, still
     * not ready), then it is back, as not ready as before */
    pna_cache_drop(PNA_DOM_IB);
    CHECK_U64(poll_pfc(pfc), 0);
    const struct pna_pfc_snap *s = (const struct pna_pfc_snap *)pna_cache_acquire(PNA_DOM_PFC);
    CHECK(s && s->model.n_ifs == 1);
    pna_snap_release((struct pna_snap *)s);
    poll_once(&pna_ib_poller, ib);
    CHECK_U64(poll_pfc(pfc), 0);

    /* a real change notifies, with the verdict it had */
    unreadable[1] = true;
    CHECK_U64(poll_pfc(pfc), 1);
    e = find(PNA_EV_ROCE_LOSSLESS, CONFIGURED);
    CHECK(e && e->u.lossless.verdict == PNA_LOSSLESS_UNREADABLE &&
          e->u.lossless.old_verdict == PNA_LOSSLESS_NOT_READY);
    /* and again across a stale drop of the pfc snapshot */
    pna_cache_drop(PNA_DOM_PFC);
    unreadable[1] = false;
    CHECK_U64(poll_pfc(pfc), 1);
    e = find(PNA_EV_ROCE_LOSSLESS, CONFIGURED);
    CHECK(e && e->u.lossless.verdict == PNA_LOSSLESS_NOT_READY &&
          e->u.lossless.old_verdict == PNA_LOSSLESS_UNREADABLE);

    /* the RDMA port really goes (the ib snapshot says so): forgotten
     * without a word; back not ready, it is a first sighting again */
    char dev[PATH_MAX];
    snprintf(dev, sizeof dev, "%s/class/infiniband/mlx5_0", root);
    unit_rmtree(dev);
    poll_once(&pna_ib_poller, ib);
    CHECK_U64(poll_pfc(pfc), 0);
    put_roce_port();
    poll_once(&pna_ib_poller, ib);
    CHECK_U64(poll_pfc(pfc), 1);
    e = find(PNA_EV_ROCE_LOSSLESS, ROCE);
    CHECK(e && e->u.lossless.verdict == PNA_LOSSLESS_NOT_READY && e->u.lossless.old_verdict == 0);
}

int main(void)
{
    if (!mkdtemp(root)) {
        perror("mkdtemp");
        return 1;
    }
    put_roce_port();
    struct pna_config cfg;
    pna_config_defaults(&cfg);
    cfg.roots.sysfs = root;
    char configured[] = CONFIGURED;
    struct pna_ib_settings ib_set;
    struct pna_pfc_settings pfc_set;
    pna_config_poller_defaults(&pna_ib_poller, &ib_set);
    pna_config_poller_defaults(&pna_pfc_poller, &pfc_set);
    pfc_set.interfaces.names[0] = configured;
    pfc_set.interfaces.count = 1;
    CHECK_INT(pna_events_init(256), 0); /* holds every event of the test */
    pna_pfc_poller_set_dcb_reader(stub_dcb);
    pna_ib_poller_set_link_ops(NULL, NULL); /* the polls alone */

    void *ib = NULL, *pfc = NULL;
    char err[160] = "";
    CHECK_INT(pna_ib_poller.init(&ib, &cfg, &ib_set, err, sizeof err), 0);
    CHECK_INT(pna_pfc_poller.init(&pfc, &cfg, &pfc_set, err, sizeof err), 0);
    if (ib && pfc)
        test_stale_drops(ib, pfc);
    pna_pfc_poller.fini(pfc);
    pna_ib_poller.fini(ib);
    pna_pfc_poller_set_dcb_reader(NULL);

    pna_cache_clear();
    pna_events_shutdown();
    unit_rmtree(root);
    UNIT_END();
}
