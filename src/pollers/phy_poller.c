/* pollers/phy_poller.c -- the "phy" poller: the physical layer of every
 * interface the pfc poller watches (the RoCE netdevs of the RDMA ports and
 * those named with pfcInterface): link state and why a link is down, FEC and
 * its counters, the IEEE 802.3 statistics groups and pause statistics, read
 * with ethtool netlink; the pre-FEC bit error rate from the driver's named
 * statistics in the pfc snapshot; and the pluggable module's EEPROM, read no
 * more often than moduleInterval, with a notification when a reading crosses
 * one of the module's own thresholds (phy_alarms.c).
 *
 * Like the pfc poller it works in the agent's network namespace.
 * Thread ownership: runs on the phy poller thread only. */
#include "pna_autoconf.h"
#include "core/config.h"
#include "pollers/pollers.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cache.h"
#include "model/pfc.h"
#include "model/phy/phy.h"
#include "pollers/phy_alarms.h"
#include "sources/phy/ethtool_nl.h"
#include "sources/phy/module.h"
#include "util/fileio.h"

#define PHY_INDEX 9
/* Module EEPROM reads one poll makes at most: each is a few I2C page reads
 * (tens of milliseconds on real modules), and a node with 32 ports must not
 * overrun the poll's deadline; the rest are read in the next polls. */
#define MODULE_READS_PER_POLL 4

/* The readers: ethtool netlink, or a test's stand-ins (no virtual interface
 * has FEC, 802.3 statistics or a module). */
static pna_phy_reader *phy_reader;
static pna_phy_module_reader *module_reader;

void pna_phy_poller_set_readers(pna_phy_reader *phy, pna_phy_module_reader *module)
{
    phy_reader = phy;
    module_reader = module;
}

struct phy_state {
    struct pna_ethnl *nl;        /* NULL when the test readers stand in */
    unsigned module_interval_ms;
    struct pna_phy_alarms *alarms;
    struct pna_phy_snap *last;   /* one reference held: BER, modules between reads */
};

static void phy_snap_destroy(struct pna_snap *snap)
{
    struct pna_phy_snap *s = (struct pna_phy_snap *)snap;
    pna_phy_model_free(&s->model);
    free(s);
}

static void phy_fini(void *state)
{
    struct phy_state *st = state;
    if (!st)
        return;
    pna_snap_release(st->last ? &st->last->base : NULL);
    pna_ethnl_close(st->nl);
    pna_phy_alarms_free(st->alarms);
    free(st);
}

static int phy_init(void **state, const struct pna_config *cfg, const void *settings, char *err,
                    size_t errlen)
{
    (void)cfg;
    const struct pna_phy_settings *set = settings;
    struct phy_state *st = calloc(1, sizeof *st);
    if (!st || !(st->alarms = pna_phy_alarms_new())) {
        free(st);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    st->module_interval_ms = set->module_interval_ms;
    if (!phy_reader && !(st->nl = pna_ethnl_open(err, errlen))) {
        /* No ethtool netlink (built without libmnl, or a kernel before
         * 5.6): nothing to read, and nothing will appear without a restart. */
        pna_phy_alarms_free(st->alarms);
        free(st);
        return PNA_POLLER_DISABLED;
    }
    *state = st;
    return 0;
}

/* ---- the module ------------------------------------------------------------ */

struct eeprom_ctx {
    struct pna_ethnl *nl;
    const char *ifname;
};

static int read_eeprom_page(void *arg, uint8_t i2c_addr, uint8_t page, uint8_t bank,
                            uint32_t offset, uint32_t length, uint8_t *buf, char *err,
                            size_t errlen)
{
    const struct eeprom_ctx *c = arg;
    return pna_ethnl_module_eeprom(c->nl, c->ifname, i2c_addr, page, bank, offset, length, buf,
                                   err, errlen);
}

static void read_module(struct phy_state *st, struct pna_phy_if *pif)
{
    int rc;
    if (module_reader) {
        rc = module_reader(pif->ifname, &pif->module, pif->module_error,
                           sizeof pif->module_error);
    } else {
        struct eeprom_ctx ctx = { st->nl, pif->ifname };
        rc = pna_module_read(read_eeprom_page, &ctx, &pif->module, pif->module_error,
                             sizeof pif->module_error);
    }
    if (rc != 0)
        memset(&pif->module, 0, sizeof pif->module);
}

/* A module's EEPROM is read when it was never read, after moduleInterval, or
 * when the link changed since (a module swapped or reseated takes the link
 * down), as long as *BUDGET (reads left in this poll) allows; between reads
 * its last reading is carried over with its age. */
static void update_module(struct phy_state *st, struct pna_phy_if *pif,
                          const struct pna_phy_if *old, int64_t now_ms, unsigned *budget)
{
    if (st->module_interval_ms == 0)
        return;   /* moduleInterval 0: modules are not read (no CAP_NET_ADMIN kept) */
    bool link_changed = old && old->link.read && pif->link.read && old->link.link != pif->link.link;
    bool due = !old || !old->module_read_mono_ms || link_changed || old->module_due ||
               now_ms - old->module_read_mono_ms >= (int64_t)st->module_interval_ms;
    pif->module_due = due && *budget == 0;
    if (due && *budget > 0) {
        (*budget)--;
        read_module(st, pif);
        pif->module_read_mono_ms = now_ms;
        return;
    }
    if (old) {
        pif->module = old->module;
        pif->module_read_mono_ms = old->module_read_mono_ms;
        memcpy(pif->module_error, old->module_error, sizeof pif->module_error);
    }
}

/* ---- the pre-FEC bit error rate --------------------------------------------- */

static bool named_stat(const struct pna_pfc_if *pfc, const char *name, uint64_t *value)
{
    for (size_t i = 0; i < pfc->n_stats; i++)
        if (strcmp(pfc->stats[i].name, name) == 0) {
            *value = pfc->stats[i].value;
            return true;
        }
    return false;
}

/* Over the interval between two pfc samples of the driver's own counters
 * (mlx5: rx_corrected_bits_phy, rx_bits_phy); a sample already used is not
 * used again, so the rate stays that of the last pfc interval. */
static void update_ber(struct pna_phy_if *pif, const struct pna_pfc_if *pfc, int64_t pfc_ms,
                       const struct pna_phy_if *old)
{
    uint64_t corrected, bits;
    if (!pfc || !named_stat(pfc, "rx_corrected_bits_phy", &corrected) ||
        !named_stat(pfc, "rx_bits_phy", &bits))
        return;
    if (old && old->ber_sample_ms == pfc_ms) {
        pif->ber_valid = old->ber_valid;
        pif->ber_mantissa = old->ber_mantissa;
        pif->ber_exponent = old->ber_exponent;
        pif->ber_bits = old->ber_bits;
        pif->ber_corrected = old->ber_corrected;
        pif->ber_sample_ms = old->ber_sample_ms;
        return;
    }
    pif->ber_bits = bits;
    pif->ber_corrected = corrected;
    pif->ber_sample_ms = pfc_ms;
    if (old && old->ber_sample_ms && bits >= old->ber_bits && corrected >= old->ber_corrected)
        pif->ber_valid = pna_phy_ber(corrected - old->ber_corrected, bits - old->ber_bits,
                                     &pif->ber_mantissa, &pif->ber_exponent);
}

/* ---- one poll ------------------------------------------------------------------ */

/* The driver's counters start again at 0 when it is reloaded or the device
 * reset (and the kernel's link-down count is 32 bits): served as Counter64s
 * they must not go back, so each continues from its last value. */
static void widen_counters(struct pna_phy_if *pif, const struct pna_phy_if *old)
{
    for (int i = 0; i < PNA_PHY_COUNT; i++) {
        struct pna_counter *c = &pif->c[i];
        if (!c->present)
            continue;
        pif->raw[i] = c->value;
        bool have_prev = old && old->c[i].present;
        pna_counter_widen64(have_prev, have_prev ? old->raw[i] : 0,
                            have_prev ? old->c[i].value : 0, pif->raw[i], &c->value);
    }
}

static void read_interface(struct phy_state *st, struct pna_phy_if *pif)
{
    if (phy_reader)
        phy_reader(pif->ifname, pif);
    else
        pna_ethnl_read_phy(st->nl, pif);
}

static int phy_collect(void *state, const struct pna_snap *prev,
                       const struct pna_poller_inputs *in, struct pna_snap **out,
                       char *err, size_t errlen)
{
    struct phy_state *st = state;
    const struct pna_phy_snap *before = st->last ? st->last : (const struct pna_phy_snap *)prev;
    const struct pna_pfc_snap *pfc = (const struct pna_pfc_snap *)pna_poller_input(in, PNA_DOM_PFC);
    size_t n = pfc ? pfc->model.n_ifs : 0;
    struct pna_phy_snap *snap = calloc(1, sizeof *snap);
    struct pna_phy_if *ifs = n ? calloc(n, sizeof *ifs) : NULL;
    if (!snap || (n && !ifs)) {
        free(snap);
        free(ifs);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    snap->model.sample_mono_ms = pna_mono_ms();
    snap->model.ifs = ifs;
    snap->model.n_ifs = n;
    unsigned unreadable = 0, module_budget = MODULE_READS_PER_POLL;
    for (size_t i = 0; i < n; i++) {
        const struct pna_pfc_if *pfc_if = &pfc->model.ifs[i];   /* sorted by name: so are we */
        struct pna_phy_if *pif = &ifs[i];
        pna_strlcpy(pif->ifname, pfc_if->ifname, sizeof pif->ifname);
        pif->ifindex = pfc_if->ifindex;
        const struct pna_phy_if *old = before ? pna_phy_find_if(&before->model, pif->ifname) : NULL;
        read_interface(st, pif);
        widen_counters(pif, old);
        if (pif->error[0])
            unreadable++;
        update_ber(pif, pfc_if, pfc->model.sample_mono_ms, old);
        update_module(st, pif, old, snap->model.sample_mono_ms, &module_budget);
    }
    pna_phy_alarms_update(st->alarms, &snap->model, snap->model.sample_mono_ms);
    pna_snap_init(&snap->base, phy_snap_destroy);
    pna_snap_retain(&snap->base); /* our own, see ib_poller.c */
    pna_snap_release(st->last ? &st->last->base : NULL);
    st->last = snap;
    *out = &snap->base;
    if (unreadable)
        snprintf(err, errlen, "%u interface(s) unreadable, first: %s", unreadable,
                 pna_phy_first_error(&snap->model));
    return 0;
}

/* The phy poller's token (docs/configuration.md, "RDMA and PFC"). */
static const struct pna_config_key phy_keys[] = {
    { .token = "moduleInterval", .type = PNA_KEY_SECONDS_MS,
      .offset = offsetof(struct pna_phy_settings, module_interval_ms), .min = 0, .max = 86400,
      .def = 60 },
    { .token = NULL },
};

const struct pna_poller_ops pna_phy_poller = {
    .name = "phy",
    .index = PHY_INDEX,
    .domain = PNA_DOM_PHY,
    .inputs = PNA_DOM_BIT(PNA_DOM_PFC), /* the interfaces, and the driver's BER counters */
    .default_interval_ms = 5000,
    .default_timeout_ms = 4000,
    .keys = phy_keys,
    .settings_size = sizeof(struct pna_phy_settings),
    .init = phy_init,
    .collect = phy_collect,
    .fini = phy_fini,
};
