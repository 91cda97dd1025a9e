/* test_pfc_storm.c -- pause storms driven through the pfc poller itself.
 *
 * A veth pair sends no pause frames, so the poller's statistics reader is
 * replaced (pna_pfc_poller_set_reader) by one that serves the recorded
 * ConnectX-4 Lx statistics (tests/fixtures/ethtool) plus the mlx5 PFC and
 * pause-storm counters, whose values the test moves between polls.  Checked:
 * one PNA_EV_PFC_PAUSE_STORM when a storm starts and none while it lasts,
 * a new one only after a quiet interval; the busiest priority and the rate in
 * the event; the NIC's own storm counters (tx_pause_storm_warning_events,
 * tx_pause_storm_error_events) trigger it too, the error one with severity
 * error; a reader failure is no storm; one priority's pause rate above the
 * threshold is a storm even when the interface's total does not move. */
#include "pna_autoconf.h"
#include "core/config.h"
#include "pollers/pollers.h"

#include <limits.h>
#include <time.h>
#include <unistd.h>

#include "core/cache.h"
#include "sources/pfc/ethtool.h"
#include "core/events.h"
#include "model/pfc.h"
#include "util/fileio.h"
#include "unit.h"

#define IFNAME "ens1f0np0"
#define THRESHOLD_PPS 1000

/* The recorded statistics, then the moving ones (mlx5 names, counters.rst). */
static struct pna_eth_stat base[1024];
static size_t n_base;

enum { RX_PHY, TX_PHY, RX_PRIO3, TX_PRIO3, RX_PRIO5, STORM_WARN, STORM_ERR, N_MOVING };
static const char *const moving_names[N_MOVING] = {
    "rx_pause_ctrl_phy", "tx_pause_ctrl_phy", "rx_prio3_pause", "tx_prio3_pause",
    "rx_prio5_pause", "tx_pause_storm_warning_events", "tx_pause_storm_error_events",
};
static uint64_t moving[N_MOVING];
static bool reader_fails;
static unsigned reads;

static void load_base(void)
{
    char path[PATH_MAX], line[256];
    snprintf(path, sizeof path, "%s/ethtool/ethq-mlx5_core-connectx4lx.txt", unit_fixtures());
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    while (f && n_base < sizeof base / sizeof base[0] && fgets(line, sizeof line, f)) {
        char *s = line + strspn(line, " \t");
        char *colon = strstr(s, ": ");
        uint64_t v;
        if (!colon || colon - s > 32)
            continue;
        *colon = '\0';
        colon[strcspn(colon + 2, "\n") + 2] = '\0';
        if (pna_parse_u64(colon + 2, &v) != 0)
            continue;
        bool is_moving = false;
        for (int i = 0; i < N_MOVING; i++)
            is_moving |= strcmp(s, moving_names[i]) == 0;
        if (is_moving)
            continue; /* the test's own value replaces the recorded one */
        pna_strlcpy(base[n_base].name, s, sizeof base[n_base].name);
        base[n_base++].value = v;
    }
    if (f)
        fclose(f);
    CHECK(n_base > 100);
}

static int stub_reader(const char *ifname, struct pna_eth_stats *out, char *err, size_t errlen)
{
    reads++;
    memset(out, 0, sizeof *out);
    CHECK_STR(ifname, IFNAME);
    if (reader_fails) {
        snprintf(err, errlen, "%s: No such device", ifname);
        return -1;
    }
    out->v = calloc(n_base + N_MOVING, sizeof *out->v);
    if (!out->v) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    memcpy(out->v, base, n_base * sizeof *base);
    for (int i = 0; i < N_MOVING; i++) {
        pna_strlcpy(out->v[n_base + i].name, moving_names[i], sizeof out->v[0].name);
        out->v[n_base + i].value = moving[i];
    }
    out->n = n_base + N_MOVING;
    pna_strlcpy(out->driver, "mlx5_core", sizeof out->driver);
    return 0;
}

static struct pna_event seen[16];
static size_t n_seen;

static void sink(const struct pna_event *ev, void *arg)
{
    (void)arg;
    if (n_seen < sizeof seen / sizeof seen[0])
        seen[n_seen++] = *ev;
}

static void sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

/* One poll the way the poller core does it; returns the storm events it
 * posted (those land in SEEN). */
static size_t poll_storms(void *state, const struct pna_pfc_snap **snap)
{
    char err[160] = "";
    struct pna_snap *out = NULL;
    sleep_ms(60);
    int rc = pna_poller_collect(&pna_pfc_poller, state, &out, err, sizeof err);
    CHECK_INT(rc, 0);
    if (rc == 0)
        pna_cache_publish(PNA_DOM_PFC, out);
    if (snap)
        *snap = rc == 0 ? (const struct pna_pfc_snap *)out : NULL;
    n_seen = 0;
    pna_events_drain(sink, NULL);
    size_t storms = 0;
    for (size_t i = 0; i < n_seen; i++) {
        CHECK_INT(seen[i].type, PNA_EV_PFC_PAUSE_STORM);
        storms += seen[i].type == PNA_EV_PFC_PAUSE_STORM;
    }
    return storms;
}

/* Pause frames received on priority 3: N more since the last poll. */
static void pfc_rx(uint64_t n)
{
    moving[RX_PRIO3] += n;
    moving[RX_PHY] += n; /* the physical-port count includes PFC frames */
}

static void test_storms(void *state)
{
    const struct pna_pfc_snap *snap = NULL;

    /* first poll: counters only, no interval yet */
    pfc_rx(123456);
    CHECK_U64(poll_storms(state, &snap), 0);
    CHECK(snap && snap->model.n_ifs == 1);
    if (snap && snap->model.n_ifs == 1) {
        const struct pna_pfc_if *pif = &snap->model.ifs[0];
        CHECK_STR(pif->driver, "mlx5_core");
        CHECK(pif->prio[3][PNA_PFCP_RX_PAUSE].present);
        CHECK_U64(pif->prio[3][PNA_PFCP_RX_PAUSE].value, 123456);
        CHECK(pif->f[PNA_PFC_STORM_WARNING_EVENTS].present);
        CHECK(!pif->storm);
    }

    /* a storm on priority 3, well above the threshold: one event */
    pfc_rx(50000);
    moving[RX_PRIO5] += 10; /* a little on another priority */
    moving[RX_PHY] += 10;
    CHECK_U64(poll_storms(state, &snap), 1);
    if (n_seen == 1) {
        CHECK_STR(seen[0].u.pfc.ifname, IFNAME);
        CHECK_STR(seen[0].subject, IFNAME);
        CHECK_INT(seen[0].u.pfc.priority, 3);
        CHECK_INT(seen[0].severity, PNA_SEV_WARNING);
        CHECK(seen[0].u.pfc.pause_per_s > THRESHOLD_PPS);
        CHECK(strstr(seen[0].text, "threshold 1000") != NULL);
        if (snap && snap->model.n_ifs == 1)
            CHECK_U64(seen[0].u.pfc.pause_per_s, snap->model.ifs[0].rx_pause_per_s);
    }
    CHECK(snap && snap->model.n_ifs == 1 && snap->model.ifs[0].storm);

    /* it goes on for three more polls: no flood */
    for (int i = 0; i < 3; i++) {
        pfc_rx(50000);
        CHECK_U64(poll_storms(state, NULL), 0);
    }

    /* quiet: over, no event */
    CHECK_U64(poll_storms(state, &snap), 0);
    CHECK(snap && snap->model.n_ifs == 1 && !snap->model.ifs[0].storm);
    /* a trickle below the threshold (at most 20 frames in >= 60 ms): no storm */
    pfc_rx(20);
    CHECK_U64(poll_storms(state, &snap), 0);
    CHECK(snap && snap->model.n_ifs == 1 && !snap->model.ifs[0].storm);

    /* a second storm, sent this time (tx): a second event */
    moving[TX_PRIO3] += 80000;
    moving[TX_PHY] += 80000;
    CHECK_U64(poll_storms(state, NULL), 1);
    CHECK_INT(n_seen == 1 ? seen[0].u.pfc.priority : -2, 3);
    moving[TX_PRIO3] += 80000;
    moving[TX_PHY] += 80000;
    CHECK_U64(poll_storms(state, NULL), 0);
    CHECK_U64(poll_storms(state, NULL), 0); /* quiet */

    /* the NIC's storm warning counter rises, no pause frames at all */
    moving[STORM_WARN] += 1;
    CHECK_U64(poll_storms(state, &snap), 1);
    if (n_seen == 1) {
        CHECK_INT(seen[0].severity, PNA_SEV_WARNING);
        CHECK_INT(seen[0].u.pfc.priority, -1);
        CHECK(strstr(seen[0].text, "pause storm warning event") != NULL);
    }
    /* still rising: the same storm */
    moving[STORM_WARN] += 2;
    CHECK_U64(poll_storms(state, NULL), 0);
    CHECK_U64(poll_storms(state, NULL), 0); /* stopped rising: over */

    /* the storm protection gave up sending pause frames: severity error */
    moving[STORM_ERR] += 1;
    CHECK_U64(poll_storms(state, NULL), 1);
    if (n_seen == 1) {
        CHECK_INT(seen[0].severity, PNA_SEV_ERROR);
        CHECK(strstr(seen[0].text, "stopped sending pause frames") != NULL);
    }
    CHECK_U64(poll_storms(state, NULL), 0);

    /* the interface cannot be read for a poll in the middle of a storm: the
     * row has no counters and no storm; afterwards the counters are read
     * again and, with the storm still going, it is reported again */
    pfc_rx(50000);
    CHECK_U64(poll_storms(state, NULL), 1);
    reader_fails = true;
    pfc_rx(50000);
    CHECK_U64(poll_storms(state, &snap), 0);
    if (snap && snap->model.n_ifs == 1) {
        CHECK(!snap->model.ifs[0].storm);
        CHECK(!snap->model.ifs[0].f[PNA_PFC_RX_PAUSE_CTRL_PHY].present);
        CHECK(strstr(snap->model.ifs[0].error, "No such device") != NULL);
    }
    reader_fails = false;
    pfc_rx(50000);
    CHECK_U64(poll_storms(state, NULL), 0); /* no previous counters to compare with */
    pfc_rx(50000);
    CHECK_U64(poll_storms(state, NULL), 1);
    CHECK_U64(poll_storms(state, NULL), 0); /* quiet: over */

    /* PFC frames on priority 5 that the physical-port total does not count
     * (rx_pause_ctrl_phy stays put, as on a firmware that leaves PFC out of
     * it): still a storm, named by the priority and its own rate */
    moving[RX_PRIO5] += 60000;
    CHECK_U64(poll_storms(state, &snap), 1);
    if (n_seen == 1) {
        CHECK_INT(seen[0].u.pfc.priority, 5);
        CHECK(seen[0].u.pfc.pause_per_s > THRESHOLD_PPS);
        CHECK(strstr(seen[0].text, "on priority 5") != NULL);
    }
    if (snap && snap->model.n_ifs == 1) {
        CHECK(snap->model.ifs[0].storm);
        CHECK_U64(snap->model.ifs[0].rx_pause_per_s, 0);
    }
}

int main(void)
{
    char root[] = "/tmp/pna-pfcstorm-XXXXXX";
    if (!mkdtemp(root)) {
        perror("mkdtemp");
        return 1;
    }
    load_base();
    struct pna_config cfg;
    pna_config_defaults(&cfg);
    cfg.roots.sysfs = root; /* no RDMA devices: only the configured interface */
    char ifname[] = IFNAME;
    struct pna_pfc_settings pfc_set;
    pna_config_poller_defaults(&pna_pfc_poller, &pfc_set);
    pfc_set.interfaces.names[0] = ifname;
    pfc_set.interfaces.count = 1;
    pfc_set.storm_pps = THRESHOLD_PPS;
    CHECK_INT(pna_events_init(64), 0);

    pna_pfc_poller_set_reader(stub_reader);
    void *state = NULL;
    char err[160] = "";
    CHECK_INT(pna_pfc_poller.init(&state, &cfg, &pfc_set, err, sizeof err), 0);
    test_storms(state);
    CHECK_INT(reads, 21); /* one read per poll */
    pna_pfc_poller.fini(state);
    pna_pfc_poller_set_reader(NULL);

    pna_cache_clear();
    pna_events_shutdown();
    rmdir(root);
    UNIT_END();
}
