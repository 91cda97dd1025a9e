/* pollers/phy_alarms.c -- module threshold notifications (see phy_alarms.h).
 * Each value's level goes through core/transitions.c (the start-up policy,
 * changes, values that went away); this file keeps the rule: which levels
 * are bad, the hold-off, and the texts. */
#include "pna_autoconf.h"
#include "pollers/phy_alarms.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/events.h"
#include "core/transitions.h"
#include "util/fileio.h"

/* What is kept of a monitored value besides the level last reported (the
 * transition's state): when a notification about it was last sent, 0 never. */
struct watched {
    int64_t sent_ms;
};

struct pna_phy_alarms {
    /* key: (ifname, quantity, lane; 0 for the module's own); state: enum
     * pna_module_level, never UNKNOWN (such a value is not observed) */
    struct pna_transitions *levels;
    int64_t now_ms;              /* the sample time of the poll being judged */
};

static bool level_is_bad(int32_t level)
{
    return level != PNA_MODULE_LEVEL_NORMAL;
}

/* The reading of quantity Q (lane LANE) and its thresholds. */
static int64_t reading(const struct pna_module *m, int q, uint32_t lane,
                       const struct pna_module_thresholds **thr)
{
    const struct pna_module_lane *l = lane ? &m->lane[lane - 1] : NULL;
    switch (q) {
    case PNA_MODQ_TEMPERATURE: *thr = &m->temperature_thr; return m->temperature_mc;
    case PNA_MODQ_VOLTAGE: *thr = &m->voltage_thr; return m->voltage_uv;
    case PNA_MODQ_BIAS: *thr = &m->bias_thr; return l->bias_ua;
    case PNA_MODQ_TX_POWER: *thr = &m->tx_power_thr; return l->tx_power_dw;
    default: *thr = &m->rx_power_thr; return l->rx_power_dw;
    }
}

static int64_t threshold_of(const struct pna_module_thresholds *t, int level)
{
    switch (level) {
    case PNA_MODULE_LEVEL_HIGH_ALARM: return t->high_alarm;
    case PNA_MODULE_LEVEL_LOW_ALARM: return t->low_alarm;
    case PNA_MODULE_LEVEL_HIGH_WARNING: return t->high_warning;
    case PNA_MODULE_LEVEL_LOW_WARNING: return t->low_warning;
    }
    return 0;
}

static bool is_alarm(int level)
{
    return level == PNA_MODULE_LEVEL_HIGH_ALARM || level == PNA_MODULE_LEVEL_LOW_ALARM;
}

/* The notification that value KEY of MODULE is at LEVEL now, OLD_LEVEL
 * before (0 at its first sighting). */
static void post(const struct pna_transition_key *key, const struct pna_module *module, int level,
                 int old_level)
{
    int q = (int)key->a;
    uint32_t lane = key->b;
    const struct pna_module_thresholds *thr;
    int64_t value = reading(module, q, lane, &thr);
    /* a clear names the threshold that was crossed */
    int64_t threshold = threshold_of(thr, level != PNA_MODULE_LEVEL_NORMAL ? level : old_level);
    struct pna_event ev;
    memset(&ev, 0, sizeof ev);
    bool clear = level == PNA_MODULE_LEVEL_NORMAL;
    ev.type = clear ? PNA_EV_MODULE_THRESHOLD_CLEAR : PNA_EV_MODULE_THRESHOLD;
    ev.severity = clear ? PNA_SEV_INFO : is_alarm(level) ? PNA_SEV_ERROR : PNA_SEV_WARNING;
    const char *what = pna_module_quantity_names[q];
    if (lane)
        snprintf(ev.subject, sizeof ev.subject, "%s lane %u %s", key->name, lane, what);
    else
        snprintf(ev.subject, sizeof ev.subject, "%s module %s", key->name, what);
    if (clear)
        snprintf(ev.text, sizeof ev.text,
                 "%s: back inside the module's thresholds (%" PRId64 ", was %s of %" PRId64 ")",
                 ev.subject, value, pna_module_level_names[old_level ? old_level : 1], threshold);
    else
        snprintf(ev.text, sizeof ev.text, "%s: %s (%" PRId64 ", threshold %" PRId64 ")",
                 ev.subject, pna_module_level_names[level], value, threshold);
    struct pna_event_module *m = &ev.u.module;
    pna_strlcpy(m->ifname, key->name, sizeof m->ifname);
    m->quantity = q + 1;
    m->lane = lane;
    m->level = level;
    m->old_level = old_level;
    m->value = value;
    m->threshold = threshold;
    pna_event_post(&ev);
}

static void first_seen(void *arg, const struct pna_transition_key *key, void *data, int32_t level,
                       const void *obs)
{
    const struct pna_phy_alarms *a = arg;
    post(key, obs, level, PNA_MODULE_LEVEL_UNKNOWN);
    ((struct watched *)data)->sent_ms = a->now_ms;
}

/* Rate limit: one notification per value per hold-off; a change inside it
 * is held back, and sent when it ends if the level still differs. */
static bool changed(void *arg, const struct pna_transition_key *key, void *data, int32_t old_level,
                    int32_t level, const void *obs)
{
    const struct pna_phy_alarms *a = arg;
    struct watched *w = data;
    if (w->sent_ms && a->now_ms - w->sent_ms < PNA_MODULE_ALARM_HOLDOFF_MS)
        return false;
    post(key, obs, level, old_level);
    w->sent_ms = a->now_ms;
    return true;
}

/* Start-up, or a module just plugged in: only bad news is news.  A value
 * that went away is forgotten (the module's row says it is gone). */
static const struct pna_transition_rule level_rule = {
    .bad = level_is_bad,
    .first_seen = first_seen,
    .changed = changed,
};

struct pna_phy_alarms *pna_phy_alarms_new(void)
{
    struct pna_phy_alarms *a = calloc(1, sizeof *a);
    if (a && !(a->levels = pna_transitions_new(&level_rule, sizeof(struct watched), a))) {
        free(a);
        a = NULL;
    }
    return a;
}

void pna_phy_alarms_free(struct pna_phy_alarms *a)
{
    if (!a)
        return;
    pna_transitions_free(a->levels);
    free(a);
}

static void observe(struct pna_phy_alarms *a, const struct pna_phy_if *pif, int q, uint32_t lane)
{
    enum pna_module_level level = pna_module_level(&pif->module, (enum pna_module_quantity)q, lane);
    if (level == PNA_MODULE_LEVEL_UNKNOWN)
        return;
    struct pna_transition_key key = pna_transition_key(pif->ifname, (uint32_t)q, lane);
    /* NULL: out of memory, this value goes unwatched until there is room */
    pna_transitions_observe(a->levels, &key, (int32_t)level, &pif->module);
}

void pna_phy_alarms_update(struct pna_phy_alarms *a, const struct pna_phy_model *m, int64_t now_ms)
{
    a->now_ms = now_ms;
    pna_transitions_begin(a->levels);
    for (size_t i = 0; i < m->n_ifs; i++) {
        const struct pna_phy_if *pif = &m->ifs[i];
        if (!pif->module.present)
            continue;
        observe(a, pif, PNA_MODQ_TEMPERATURE, 0);
        observe(a, pif, PNA_MODQ_VOLTAGE, 0);
        for (uint32_t lane = 1; lane <= pif->module.lanes && lane <= PNA_MODULE_MAX_LANES; lane++)
            for (int q = PNA_MODQ_BIAS; q < PNA_MODQ_COUNT; q++)
                observe(a, pif, q, lane);
    }
    pna_transitions_end(a->levels);
}
