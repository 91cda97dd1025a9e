/* test_phy.c -- the phy domain's rules and its poller.
 *
 * Rules (model/phy/phy.c): the pre-FEC bit error rate to three digits, a
 * reading's level against its module's thresholds, optical power in dBm, the
 * words for why a link is down.  Notifications (pollers/phy_alarms.c): a
 * crossing is sent once, start-up sends only bad news, a change inside the
 * hold-off is held and sent when it ends if still changed, a clear names the
 * threshold it left.  The poller (pollers/phy_poller.c) with stand-in readers
 * (no virtual interface has FEC or a module; the figures below are made up):
 * it reads the pfc snapshot's interfaces, reads a module no more often than
 * moduleInterval unless the link changed, takes the BER over two pfc
 * samples of the driver's counters, not over one sample seen twice, and keeps
 * a counter the driver restarted from going back. */
#include "pna_autoconf.h"
#include "core/config.h"
#include "pollers/pollers.h"

#include <stdlib.h>
#include <string.h>

#include "core/cache.h"
#include "core/events.h"
#include "model/pfc.h"
#include "model/phy/phy.h"
#include "pollers/phy_alarms.h"
#include "util/fileio.h"
#include "unit.h"

static void test_ber(void)
{
    uint32_t m;
    int32_t e;
    CHECK(pna_phy_ber(48211, 3906281250003ULL, &m, &e));
    CHECK_U64(m, 123);   /* 1.2342e-08 */
    CHECK_INT(e, -10);
    CHECK(pna_phy_ber(0, 1000, &m, &e));
    CHECK_U64(m, 0);
    CHECK(!pna_phy_ber(5, 0, &m, &e));
    CHECK(pna_phy_ber(9995, 1000000, &m, &e));   /* 9.995e-3 rounds to 1.00e-2 */
    CHECK_U64(m, 100);
    CHECK_INT(e, -4);
    CHECK(pna_phy_ber(1, 1, &m, &e));
    CHECK_U64(m, 100);
    CHECK_INT(e, -2);
}

static void test_levels(void)
{
    struct pna_module_thresholds t = { true, 100, 90, 10, 0 };
    CHECK_INT(pna_module_level_of(50, &t), PNA_MODULE_LEVEL_NORMAL);
    CHECK_INT(pna_module_level_of(95, &t), PNA_MODULE_LEVEL_HIGH_WARNING);
    CHECK_INT(pna_module_level_of(100, &t), PNA_MODULE_LEVEL_HIGH_ALARM);
    CHECK_INT(pna_module_level_of(5, &t), PNA_MODULE_LEVEL_LOW_WARNING);
    CHECK_INT(pna_module_level_of(-3, &t), PNA_MODULE_LEVEL_LOW_ALARM);
    t.present = false;
    CHECK_INT(pna_module_level_of(50, &t), PNA_MODULE_LEVEL_UNKNOWN);

    struct pna_module mod = { .present = true, .lanes = 2, .has_temperature = true,
                              .temperature_mc = 70490 };
    mod.temperature_thr = (struct pna_module_thresholds){ true, 75000, 70000, 0, -5000 };
    mod.rx_power_thr = (struct pna_module_thresholds){ true, 20000, 15000, 500, 200 };
    mod.lane[0].has_rx_power = mod.lane[1].has_rx_power = true;
    mod.lane[0].rx_power_dw = 7000;
    mod.lane[1].rx_power_dw = 100;
    CHECK_INT(pna_module_level(&mod, PNA_MODQ_TEMPERATURE, 0), PNA_MODULE_LEVEL_HIGH_WARNING);
    CHECK_INT(pna_module_level(&mod, PNA_MODQ_VOLTAGE, 0), PNA_MODULE_LEVEL_UNKNOWN);
    CHECK_INT(pna_module_level(&mod, PNA_MODQ_RX_POWER, 1), PNA_MODULE_LEVEL_NORMAL);
    CHECK_INT(pna_module_level(&mod, PNA_MODQ_RX_POWER, 2), PNA_MODULE_LEVEL_LOW_ALARM);
    CHECK_INT(pna_module_level(&mod, PNA_MODQ_RX_POWER, 3), PNA_MODULE_LEVEL_UNKNOWN);
    /* the alarm on lane 2 outranks the temperature warning */
    CHECK_INT(pna_module_worst_level(&mod), PNA_MODULE_LEVEL_LOW_ALARM);
    mod.lane[1].rx_power_dw = 7000;
    CHECK_INT(pna_module_worst_level(&mod), PNA_MODULE_LEVEL_HIGH_WARNING);
}

static void test_dbm_and_reason(void)
{
    int32_t c;
    CHECK(pna_module_dbm(10000, &c));   /* 1 mW */
    CHECK_INT(c, 0);
    CHECK(pna_module_dbm(1000, &c));    /* 0.1 mW */
    CHECK_INT(c, -1000);
    CHECK(pna_module_dbm(7943, &c));    /* -1.00 dBm */
    CHECK_INT(c, -100);
    CHECK(!pna_module_dbm(0, &c));
    char buf[96];
    /* the kernel's LINK_TRAINING_FAILURE (1) + 1, substate KR_LINK_INHIBIT_TIMEOUT (2) */
    CHECK_STR(pna_link_down_reason(2, 2, buf, sizeof buf),
              "link training failure: KR link inhibit timeout");
    CHECK_STR(pna_link_down_reason(5, 0, buf, sizeof buf), "no cable");
    CHECK_STR(pna_link_down_reason(1, 9, buf, sizeof buf), "autonegotiation failure: substate 9");
    CHECK_STR(pna_link_down_reason(40, 0, buf, sizeof buf), "link state 40");
    CHECK_STR(pna_link_down_reason(0, 0, buf, sizeof buf), "");
}

/* ---- notifications ---------------------------------------------------------- */

static struct pna_event seen[16];
static size_t n_seen;

static void sink(const struct pna_event *ev, void *arg)
{
    (void)arg;
    if (n_seen < sizeof seen / sizeof seen[0])
        seen[n_seen++] = *ev;
}

static size_t drain(void)
{
    n_seen = 0;
    pna_events_drain(sink, NULL);
    return n_seen;
}

/* One interface with a one-lane module, temperature T (m°C), lane RX power RX. */
static void one_module(struct pna_phy_model *m, struct pna_phy_if *pif, int32_t t, uint32_t rx)
{
    memset(pif, 0, sizeof *pif);
    pna_strlcpy(pif->ifname, "ens1f0np0", sizeof pif->ifname);
    struct pna_module *mod = &pif->module;
    mod->present = true;
    mod->lanes = 1;
    mod->has_temperature = true;
    mod->temperature_mc = t;
    mod->temperature_thr = (struct pna_module_thresholds){ true, 75000, 70000, 0, -5000 };
    mod->lane[0].has_rx_power = true;
    mod->lane[0].rx_power_dw = rx;
    mod->rx_power_thr = (struct pna_module_thresholds){ true, 20000, 15000, 500, 200 };
    m->ifs = pif;
    m->n_ifs = 1;
}

static void test_alarms(void)
{
    struct pna_phy_alarms *a = pna_phy_alarms_new();
    struct pna_phy_model m;
    struct pna_phy_if pif;
    const int64_t min = 60 * 1000;

    /* start-up: the warm module is news, the normal lane is not */
    one_module(&m, &pif, 70490, 7000);
    pna_phy_alarms_update(a, &m, 1000);
    CHECK_U64(drain(), 1);
    CHECK_INT(seen[0].type, PNA_EV_MODULE_THRESHOLD);
    CHECK_INT(seen[0].severity, PNA_SEV_WARNING);
    CHECK_STR(seen[0].u.module.ifname, "ens1f0np0");
    CHECK_INT(seen[0].u.module.quantity, PNA_MODQ_TEMPERATURE + 1);
    CHECK_U64(seen[0].u.module.lane, 0);
    CHECK_INT(seen[0].u.module.level, PNA_MODULE_LEVEL_HIGH_WARNING);
    CHECK_INT((int)seen[0].u.module.value, 70490);
    CHECK_INT((int)seen[0].u.module.threshold, 70000);

    /* unchanged: nothing */
    pna_phy_alarms_update(a, &m, 1000 + 1 * min);
    CHECK_U64(drain(), 0);

    /* the lane loses its light: an alarm, with the low alarm threshold */
    one_module(&m, &pif, 70490, 150);
    pna_phy_alarms_update(a, &m, 1000 + 2 * min);
    CHECK_U64(drain(), 1);
    CHECK_INT(seen[0].severity, PNA_SEV_ERROR);
    CHECK_INT(seen[0].u.module.quantity, PNA_MODQ_RX_POWER + 1);
    CHECK_U64(seen[0].u.module.lane, 1);
    CHECK_INT(seen[0].u.module.level, PNA_MODULE_LEVEL_LOW_ALARM);
    CHECK_INT(seen[0].u.module.old_level, PNA_MODULE_LEVEL_NORMAL);
    CHECK_INT((int)seen[0].u.module.threshold, 200);

    /* the light comes back three minutes later: held (10 minutes a reading) */
    one_module(&m, &pif, 70490, 7000);
    pna_phy_alarms_update(a, &m, 1000 + 5 * min);
    CHECK_U64(drain(), 0);
    /* and goes again, and comes back, all within the hold-off: still nothing */
    one_module(&m, &pif, 70490, 150);
    pna_phy_alarms_update(a, &m, 1000 + 6 * min);
    one_module(&m, &pif, 70490, 7000);
    pna_phy_alarms_update(a, &m, 1000 + 7 * min);
    CHECK_U64(drain(), 0);
    /* the hold-off ends: the level now (normal) is sent, naming the threshold left */
    pna_phy_alarms_update(a, &m, 1000 + 12 * min + 1);
    CHECK_U64(drain(), 1);
    CHECK_INT(seen[0].type, PNA_EV_MODULE_THRESHOLD_CLEAR);
    CHECK_INT(seen[0].severity, PNA_SEV_INFO);
    CHECK_INT(seen[0].u.module.old_level, PNA_MODULE_LEVEL_LOW_ALARM);
    CHECK_INT((int)seen[0].u.module.threshold, 200);
    CHECK(strstr(seen[0].text, "lane 1 rxPower") != NULL);

    /* a flap that is over by the end of the hold-off sends nothing more */
    one_module(&m, &pif, 70490, 150);
    pna_phy_alarms_update(a, &m, 1000 + 13 * min);
    one_module(&m, &pif, 70490, 7000);
    pna_phy_alarms_update(a, &m, 1000 + 30 * min);
    CHECK_U64(drain(), 0);

    /* the module is pulled: forgotten; plugged in again warm: news again */
    m.n_ifs = 0;
    pna_phy_alarms_update(a, &m, 1000 + 31 * min);
    one_module(&m, &pif, 71000, 7000);
    pna_phy_alarms_update(a, &m, 1000 + 32 * min);
    CHECK_U64(drain(), 1);
    CHECK_INT(seen[0].type, PNA_EV_MODULE_THRESHOLD);
    pna_phy_alarms_free(a);
}

/* ---- the poller, with stand-in readers ---------------------------------------- */

static bool link_up = true;
static unsigned module_reads;
static uint64_t fec_blocks = 4242;

static int read_phy(const char *ifname, struct pna_phy_if *out)
{
    (void)ifname;
    out->link.read = out->link.has_link = true;
    out->link.link = link_up;
    out->c[PNA_PHY_FEC_CORRECTED_BLOCKS] = (struct pna_counter){ .value = fec_blocks, .present = true };
    return 0;
}

static int read_module(const char *ifname, struct pna_module *out, char *err, size_t errlen)
{
    module_reads++;
    if (strcmp(ifname, "ens1f0np0") != 0) {
        snprintf(err, errlen, "no module (ENODEV)");
        return -1;
    }
    struct pna_phy_model m;
    struct pna_phy_if pif;
    one_module(&m, &pif, 41000, 7000);
    *out = pif.module;
    return 0;
}

static void destroy_pfc(struct pna_snap *snap)
{
    struct pna_pfc_snap *s = (struct pna_pfc_snap *)snap;
    pna_pfc_model_free(&s->model);
    free(s);
}

/* A pfc snapshot of ens1f0np0 (with the mlx5 bit counters) and enp132s0
 * taken at SAMPLE_MS. */
static void publish_pfc(int64_t sample_ms, uint64_t bits, uint64_t corrected)
{
    struct pna_pfc_snap *s = calloc(1, sizeof *s);
    s->model.n_ifs = 2;
    s->model.ifs = calloc(2, sizeof *s->model.ifs);
    s->model.sample_mono_ms = sample_ms;
    pna_strlcpy(s->model.ifs[0].ifname, "enp132s0", sizeof s->model.ifs[0].ifname);
    struct pna_pfc_if *mlx = &s->model.ifs[1];
    pna_strlcpy(mlx->ifname, "ens1f0np0", sizeof mlx->ifname);
    mlx->ifindex = 7;
    mlx->stats = calloc(2, sizeof *mlx->stats);
    mlx->n_stats = 2;
    pna_strlcpy(mlx->stats[0].name, "rx_bits_phy", sizeof mlx->stats[0].name);
    mlx->stats[0].value = bits;
    pna_strlcpy(mlx->stats[1].name, "rx_corrected_bits_phy", sizeof mlx->stats[1].name);
    mlx->stats[1].value = corrected;
    pna_snap_init(&s->base, destroy_pfc);
    pna_cache_publish(PNA_DOM_PFC, &s->base);
}

static const struct pna_phy_if *poll(void *state)
{
    char err[160] = "";
    struct pna_snap *out = NULL;
    CHECK_INT(pna_poller_collect(&pna_phy_poller, state, &out, err, sizeof err), 0);
    CHECK_STR(err, "");
    if (!out)
        return NULL;
    pna_cache_publish(PNA_DOM_PHY, out);
    const struct pna_phy_snap *s = (const struct pna_phy_snap *)out;
    CHECK_U64(s->model.n_ifs, 2);
    return pna_phy_find_if(&s->model, "ens1f0np0");
}

static void test_poller(void)
{
    struct pna_config cfg;
    pna_config_defaults(&cfg);
    struct pna_phy_settings phy_set;
    pna_config_poller_defaults(&pna_phy_poller, &phy_set);
    phy_set.module_interval_ms = 60 * 60 * 1000;   /* an hour: only a link change reads again */
    pna_phy_poller_set_readers(read_phy, read_module);
    void *state = NULL;
    char err[160] = "";
    CHECK_INT(pna_phy_poller.init(&state, &cfg, &phy_set, err, sizeof err), 0);

    publish_pfc(1000, 1000000000000ULL, 100);
    const struct pna_phy_if *p = poll(state);
    CHECK(p != NULL);
    if (!p)
        return;
    CHECK_INT(p->ifindex, 7);
    CHECK(p->link.link);
    CHECK_U64(p->c[PNA_PHY_FEC_CORRECTED_BLOCKS].value, 4242);
    CHECK(!p->ber_valid);              /* one sample of the counters */
    CHECK(p->module.present);
    CHECK_U64(module_reads, 2);        /* both interfaces, once */
    CHECK(p->module_read_mono_ms != 0);

    /* the driver's counters move: 123 corrected bits in 10^10 */
    publish_pfc(2000, 1000000000000ULL + 10000000000ULL, 100 + 123);
    p = poll(state);
    CHECK(p && p->ber_valid);
    CHECK_U64(p ? p->ber_mantissa : 0, 123);
    CHECK_INT(p ? p->ber_exponent : 0, -10);
    CHECK_U64(module_reads, 2);        /* within moduleInterval: carried, not read */
    CHECK(p && p->module.present && p->module.temperature_mc == 41000);

    /* the same pfc sample polled again: the same rate, not "no rate" */
    p = poll(state);
    CHECK(p && p->ber_valid && p->ber_mantissa == 123);

    /* the link goes down: the module is read again at once */
    link_up = false;
    p = poll(state);
    CHECK_U64(module_reads, 4);
    CHECK(p && !p->link.link);
    p = poll(state);
    CHECK_U64(module_reads, 4);

    /* the driver reloaded: its counter starts again, the served one goes on */
    fec_blocks = 100;
    p = poll(state);
    CHECK_U64(p ? p->c[PNA_PHY_FEC_CORRECTED_BLOCKS].value : 0, 4242 + 100);
    CHECK_U64(p ? p->raw[PNA_PHY_FEC_CORRECTED_BLOCKS] : 0, 100);
    fec_blocks = 150;
    p = poll(state);
    CHECK_U64(p ? p->c[PNA_PHY_FEC_CORRECTED_BLOCKS].value : 0, 4242 + 150);

    pna_phy_poller.fini(state);
    pna_phy_poller_set_readers(NULL, NULL);
}

/* Six interfaces whose modules are all due: four are read in one poll, the
 * other two in the next; a link change that finds no room is not lost. */
static void test_module_budget(void)
{
    struct pna_config cfg;
    pna_config_defaults(&cfg);
    struct pna_phy_settings phy_set;
    pna_config_poller_defaults(&pna_phy_poller, &phy_set);
    phy_set.module_interval_ms = 60 * 60 * 1000;
    pna_phy_poller_set_readers(read_phy, read_module);
    void *state = NULL;
    char err[160] = "";
    CHECK_INT(pna_phy_poller.init(&state, &cfg, &phy_set, err, sizeof err), 0);
    struct pna_pfc_snap *s = calloc(1, sizeof *s);
    s->model.n_ifs = 6;
    s->model.ifs = calloc(6, sizeof *s->model.ifs);
    for (int i = 0; i < 6; i++)
        snprintf(s->model.ifs[i].ifname, sizeof s->model.ifs[i].ifname, "eth%d", i);
    pna_snap_init(&s->base, destroy_pfc);
    pna_cache_publish(PNA_DOM_PFC, &s->base);

    link_up = true;
    module_reads = 0;
    struct pna_snap *out = NULL;
    CHECK_INT(pna_poller_collect(&pna_phy_poller, state, &out, err, sizeof err), 0);
    pna_cache_publish(PNA_DOM_PHY, out);
    CHECK_U64(module_reads, 4);
    const struct pna_phy_snap *p = (const struct pna_phy_snap *)out;
    CHECK(p->model.ifs[3].module_read_mono_ms != 0 && p->model.ifs[4].module_read_mono_ms == 0);
    CHECK(p->model.ifs[4].module_due && p->model.ifs[5].module_due);
    CHECK_INT(pna_poller_collect(&pna_phy_poller, state, &out, err, sizeof err), 0);
    pna_cache_publish(PNA_DOM_PHY, out);
    CHECK_U64(module_reads, 6);
    CHECK_INT(pna_poller_collect(&pna_phy_poller, state, &out, err, sizeof err), 0);
    pna_cache_publish(PNA_DOM_PHY, out);
    CHECK_U64(module_reads, 6);       /* all read: nothing due */

    /* every link changes: four now, the two left at the next poll */
    link_up = false;
    CHECK_INT(pna_poller_collect(&pna_phy_poller, state, &out, err, sizeof err), 0);
    pna_cache_publish(PNA_DOM_PHY, out);
    CHECK_U64(module_reads, 10);
    CHECK_INT(pna_poller_collect(&pna_phy_poller, state, &out, err, sizeof err), 0);
    pna_cache_publish(PNA_DOM_PHY, out);
    CHECK_U64(module_reads, 12);
    pna_phy_poller.fini(state);
    pna_phy_poller_set_readers(NULL, NULL);
}

int main(void)
{
    CHECK_INT(pna_events_init(64), 0);
    test_ber();
    test_levels();
    test_dbm_and_reason();
    test_alarms();
    test_poller();
    test_module_budget();
    pna_cache_clear();
    pna_events_shutdown();
    UNIT_END();
}
