/* test_ib_poller.c -- the "ib" and "pfc" pollers driven by hand on a temp
 * sysfs tree, with the real cache and event queue: port DOWN/UP events (one per
 * transition, none for a passing read error), 32-bit hw counter widening
 * across polls, rates, and the PFC poller following the IB snapshot's RoCE
 * netdevs and the configured ones. */
#include "pna_autoconf.h"
#include "core/config.h"
#include "pollers/pollers.h"

#include <limits.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/cache.h"
#include "core/events.h"
#include "model/ib.h"
#include "model/pfc.h"
#include "unit.h"

static char root[] = "/tmp/pna-ibpoll-XXXXXX";

static void put(const char *rel, const char *content)
{
    unit_put(root, rel, content);
}

#define P1 "class/infiniband/mlx5_0/ports/1/"

static struct pna_event seen[32];
static size_t n_seen;

static void sink(const struct pna_event *ev, void *arg)
{
    (void)arg;
    if (n_seen < sizeof seen / sizeof seen[0])
        seen[n_seen++] = *ev;
}

static void drain(void)
{
    n_seen = 0;
    pna_events_drain(sink, NULL);
}

/* One poll the way the poller core does it: prev and inputs from the cache,
 * publish. */
static const void *poll_once(const struct pna_poller_ops *ops, void *state)
{
    char err[160] = "";
    struct pna_snap *out = NULL;
    int rc = pna_poller_collect(ops, state, &out, err, sizeof err);
    CHECK_INT(rc, 0);
    if (rc != 0 || !out) {
        fprintf(stderr, "  collect: %s\n", err);
        return NULL;
    }
    pna_cache_publish(ops->domain, out);
    return out; /* valid while the cache holds it (until the next publish) */
}

static void sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

static void test_ib_poller(const struct pna_config *cfg)
{
    void *state = NULL;
    char err[160] = "";
    CHECK_STR(pna_ib_poller.name, "ib");
    CHECK_INT(pna_ib_poller.index, 3);
    CHECK_INT(pna_ib_poller.domain, PNA_DOM_IB);
    CHECK_INT(pna_ib_poller.default_interval_ms, 5000);
    const void *ib_set = pna_config_settings(cfg, &pna_ib_poller);
    CHECK_INT(pna_ib_poller.init(&state, cfg, ib_set, err, sizeof err), 0);

    put(P1 "state", "4: ACTIVE\n");
    put(P1 "link_layer", "Ethernet\n");
    put(P1 "rate", "100 Gb/sec (2X HDR)\n");
    put(P1 "gid_attrs/ndevs/0", "pna-nodev0\n");
    put("class/net/pna-nodev0/ifindex", "42\n");
    put(P1 "counters/port_rcv_data", "1000\n");
    put(P1 "counters/port_xmit_data", "0\n");
    put(P1 "counters/symbol_error", "0\n");
    put(P1 "hw_counters/out_of_sequence", "4294967290\n");
    put(P1 "hw_counters/np_cnp_sent", "7\n");

    const struct pna_ib_snap *s = poll_once(&pna_ib_poller, state);
    drain();
    CHECK_U64(n_seen, 0); /* first poll: no transition to report */
    CHECK(s && s->model.n_devices == 1);
    if (!s || s->model.n_devices != 1)
        return;
    CHECK(!s->model.devices[0].ports[0].rates.valid);

    /* traffic, a wrap of a 32-bit Q counter, an error, and the link going down */
    sleep_ms(120);
    put(P1 "counters/port_rcv_data", "2501000\n");    /* +2500000 words = 10 MB */
    put(P1 "counters/symbol_error", "3\n");
    put(P1 "hw_counters/out_of_sequence", "5\n");
    put(P1 "state", "1: DOWN\n");
    s = poll_once(&pna_ib_poller, state);
    drain();
    CHECK_U64(n_seen, 1);
    if (n_seen == 1) {
        CHECK_INT(seen[0].type, PNA_EV_IB_PORT_DOWN);
        CHECK_STR(seen[0].subject, "mlx5_0/1");
        CHECK_STR(seen[0].u.ib_port.device, "mlx5_0");
        CHECK_INT(seen[0].u.ib_port.port, 1);
        CHECK_INT(seen[0].u.ib_port.old_state, 4);
        CHECK_INT(seen[0].u.ib_port.new_state, 1);
        CHECK(strstr(seen[0].text, "left ACTIVE") && strstr(seen[0].text, "DOWN"));
    }
    if (!s)
        return;
    const struct pna_ib_port *p = &s->model.devices[0].ports[0];
    CHECK_STR(p->netdev, "pna-nodev0");
    CHECK_INT(p->ifindex, 42);
    const struct pna_hw_counter *h = pna_ib_find_hw(p->hw, p->n_hw, "out_of_sequence");
    CHECK(h && h->raw == 5 && h->value == UINT64_C(4294967290) + 11);
    CHECK(p->cc[PNA_CC_OUT_OF_SEQUENCE].present);
    CHECK_U64(p->cc[PNA_CC_OUT_OF_SEQUENCE].value, UINT64_C(4294967301));
    CHECK_U64(p->cc[PNA_CC_NP_CNP_SENT].value, 7);
    CHECK(p->rates.valid);
    CHECK(p->rates.interval_ms >= 100);
    if (p->rates.interval_ms > 0) {
        uint64_t expect = UINT64_C(10000000) * 1000 / (uint64_t)p->rates.interval_ms;
        CHECK_U64(p->rates.rx_bytes_per_s, expect);
        /* 100 Gb/s = 12.5e9 B/s: utilization in hundredths of a percent */
        CHECK_U64(p->rates.rx_util_cpct, expect * 8 / (100000 * 100));
        CHECK_U64(p->rates.errors, 3);
        CHECK_U64(p->rates.error_rate_cps, 3 * UINT64_C(100000) / (uint64_t)p->rates.interval_ms);
    }
    CHECK_U64(p->rates.tx_bytes_per_s, 0);

    /* a state file that cannot be parsed for one poll: no event either way */
    put(P1 "state", "garbage\n");
    poll_once(&pna_ib_poller, state);
    drain();
    CHECK_U64(n_seen, 0);
    put(P1 "state", "1: DOWN\n");
    poll_once(&pna_ib_poller, state);
    drain();
    CHECK_U64(n_seen, 0);

    /* back up: one UP event */
    put(P1 "state", "4: ACTIVE\n");
    s = poll_once(&pna_ib_poller, state);
    drain();
    CHECK_U64(n_seen, 1);
    if (n_seen == 1) {
        CHECK_INT(seen[0].type, PNA_EV_IB_PORT_UP);
        CHECK_INT(seen[0].u.ib_port.old_state, 1);
        CHECK_INT(seen[0].u.ib_port.new_state, 4);
    }
    /* staying up: nothing */
    poll_once(&pna_ib_poller, state);
    drain();
    CHECK_U64(n_seen, 0);

    /* the cache drops the domain (stale): widening still continues from the
     * poller's own last snapshot, so the Counter64 does not fall back */
    pna_cache_drop(PNA_DOM_IB);
    s = poll_once(&pna_ib_poller, state);
    if (s) {
        p = &s->model.devices[0].ports[0];
        h = pna_ib_find_hw(p->hw, p->n_hw, "out_of_sequence");
        CHECK(h && h->value == UINT64_C(4294967301));
    }

    /* the whole device disappears while ACTIVE: DOWN, "gone" */
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf %s/class/infiniband/mlx5_0", root);
    CHECK_INT(system(cmd), 0);
    poll_once(&pna_ib_poller, state);
    drain();
    CHECK_U64(n_seen, 1);
    if (n_seen == 1) {
        CHECK_INT(seen[0].type, PNA_EV_IB_PORT_DOWN);
        CHECK_INT(seen[0].u.ib_port.new_state, 1); /* down(1): PrimusPortState has no 0 */
        CHECK(strstr(seen[0].text, "gone") != NULL);
    }
    pna_ib_poller.fini(state);
}

static void test_pfc_poller(struct pna_config *cfg)
{
    void *ib_state = NULL, *state = NULL;
    char err[160] = "";
    CHECK_STR(pna_pfc_poller.name, "pfc");
    CHECK_INT(pna_pfc_poller.index, 4);
    CHECK_INT(pna_pfc_poller.domain, PNA_DOM_PFC);

    /* a RoCE port whose netdev does not exist in this namespace */
    put(P1 "state", "4: ACTIVE\n");
    put(P1 "link_layer", "Ethernet\n");
    put(P1 "gid_attrs/ndevs/0", "pna-nodev0\n");
    const void *ib_set = pna_config_settings(cfg, &pna_ib_poller);
    CHECK_INT(pna_ib_poller.init(&ib_state, cfg, ib_set, err, sizeof err), 0);
    const struct pna_ib_snap *ib = poll_once(&pna_ib_poller, ib_state);

    struct pna_pfc_settings *pfc_set = pna_config_settings(cfg, &pna_pfc_poller);
    pfc_set->interfaces.names[0] = "pna-nodev1";
    pfc_set->interfaces.names[1] = "pna-nodev0"; /* also RoCE: listed once */
    pfc_set->interfaces.count = 2;
    CHECK_INT(pna_pfc_poller.init(&state, cfg, pfc_set, err, sizeof err), 0);
    const struct pna_pfc_snap *s = poll_once(&pna_pfc_poller, state);
    CHECK(s && s->model.n_ifs == 2);
    if (s && s->model.n_ifs == 2) {
        const struct pna_pfc_if *a = &s->model.ifs[0], *b = &s->model.ifs[1];
        /* which RDMA port each is: joined from the IB snapshot when served */
        const struct pna_ib_device *d = NULL;
        const struct pna_ib_port *p = NULL;
        CHECK_STR(a->ifname, "pna-nodev0");
        CHECK(ib && pna_ib_find_netdev(&ib->model, a->ifname, &d, &p));
        CHECK(d && strcmp(d->name, "mlx5_0") == 0 && p && p->num == 1);
        CHECK_INT(a->ifindex, 42);
        CHECK(strstr(a->error, "no such interface") != NULL);
        CHECK_STR(b->ifname, "pna-nodev1");
        CHECK(!ib || !pna_ib_find_netdev(&ib->model, b->ifname, &d, &p));
        CHECK(b->error[0] != '\0');
        CHECK(!a->f[PNA_PFC_RX_PAUSE].present);
    }
    drain();
    CHECK_U64(n_seen, 0);
    pna_pfc_poller.fini(state);
    pna_ib_poller.fini(ib_state);
}

int main(void)
{
    if (!mkdtemp(root)) {
        perror("mkdtemp");
        return 1;
    }
    struct pna_config cfg;
    pna_config_defaults(&cfg);
    cfg.roots.sysfs = root;
    char err[256];
    CHECK_INT(pna_config_set_pollers(&cfg, pna_poller_registry, pna_poller_registry_len, err,
                                     sizeof err), 0);
    CHECK_INT(pna_events_init(64), 0);

    test_ib_poller(&cfg);
    pna_cache_clear();
    test_pfc_poller(&cfg);
    pna_cache_clear();
    pna_events_shutdown();
    pna_config_free(&cfg);

    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", root);
    UNIT_END();
}
