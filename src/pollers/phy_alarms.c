/* pollers/phy_alarms.c -- module threshold notifications (see phy_alarms.h). */
#include "pna_autoconf.h"
#include "pollers/phy_alarms.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/events.h"
#include "util/fileio.h"

/* One monitored value: what was last reported of it and what it is now. */
struct watched {
    char ifname[32];
    uint8_t quantity;            /* enum pna_module_quantity */
    uint8_t lane;                /* 0: the module's own */
    uint8_t reported, current;   /* enum pna_module_level */
    bool seen;                   /* in this poll */
    int64_t sent_ms;             /* when a notification about it was last sent, 0 never */
    int64_t value, threshold;    /* the reading now, and the threshold of its level */
};

struct pna_phy_alarms {
    struct watched *v;
    size_t n, cap;
    bool primed;                 /* a first poll was taken as it is */
};

struct pna_phy_alarms *pna_phy_alarms_new(void)
{
    return calloc(1, sizeof(struct pna_phy_alarms));
}

void pna_phy_alarms_free(struct pna_phy_alarms *a)
{
    if (!a)
        return;
    free(a->v);
    free(a);
}

static struct watched *find_or_add(struct pna_phy_alarms *a, const char *ifname, int q,
                                   uint32_t lane)
{
    for (size_t i = 0; i < a->n; i++)
        if (a->v[i].quantity == q && a->v[i].lane == lane && strcmp(a->v[i].ifname, ifname) == 0)
            return &a->v[i];
    if (a->n == a->cap) {
        size_t cap = a->cap ? a->cap * 2 : 32;
        struct watched *v = realloc(a->v, cap * sizeof *v);
        if (!v)
            return NULL;
        a->v = v;
        a->cap = cap;
    }
    struct watched *w = &a->v[a->n++];
    memset(w, 0, sizeof *w);
    pna_strlcpy(w->ifname, ifname, sizeof w->ifname);
    w->quantity = (uint8_t)q;
    w->lane = (uint8_t)lane;
    return w;
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

static void observe(struct pna_phy_alarms *a, const struct pna_phy_if *pif, int q, uint32_t lane)
{
    enum pna_module_level level = pna_module_level(&pif->module, (enum pna_module_quantity)q, lane);
    if (level == PNA_MODULE_LEVEL_UNKNOWN)
        return;
    struct watched *w = find_or_add(a, pif->ifname, q, lane);
    if (!w)
        return;   /* out of memory: this value goes unwatched until there is room */
    const struct pna_module_thresholds *thr;
    w->value = reading(&pif->module, q, lane, &thr);
    /* a clear names the threshold that was crossed */
    w->threshold = threshold_of(thr, level != PNA_MODULE_LEVEL_NORMAL ? level : w->reported);
    w->current = (uint8_t)level;
    w->seen = true;
}

static bool is_alarm(int level)
{
    return level == PNA_MODULE_LEVEL_HIGH_ALARM || level == PNA_MODULE_LEVEL_LOW_ALARM;
}

static void post(const struct watched *w)
{
    struct pna_event ev;
    memset(&ev, 0, sizeof ev);
    bool clear = w->current == PNA_MODULE_LEVEL_NORMAL;
    ev.type = clear ? PNA_EV_MODULE_THRESHOLD_CLEAR : PNA_EV_MODULE_THRESHOLD;
    ev.severity = clear ? PNA_SEV_INFO : is_alarm(w->current) ? PNA_SEV_ERROR : PNA_SEV_WARNING;
    const char *what = pna_module_quantity_names[w->quantity];
    if (w->lane)
        snprintf(ev.subject, sizeof ev.subject, "%s lane %u %s", w->ifname, w->lane, what);
    else
        snprintf(ev.subject, sizeof ev.subject, "%s module %s", w->ifname, what);
    if (clear)
        snprintf(ev.text, sizeof ev.text,
                 "%s: back inside the module's thresholds (%" PRId64 ", was %s of %" PRId64 ")",
                 ev.subject, w->value, pna_module_level_names[w->reported ? w->reported : 1],
                 w->threshold);
    else
        snprintf(ev.text, sizeof ev.text, "%s: %s (%" PRId64 ", threshold %" PRId64 ")",
                 ev.subject, pna_module_level_names[w->current], w->value, w->threshold);
    struct pna_event_module *m = &ev.u.module;
    pna_strlcpy(m->ifname, w->ifname, sizeof m->ifname);
    m->quantity = w->quantity + 1;
    m->lane = w->lane;
    m->level = w->current;
    m->old_level = w->reported;
    m->value = w->value;
    m->threshold = w->threshold;
    pna_event_post(&ev);
}

/* Drop the values not seen this poll (the module went away: its row says so). */
static void forget_unseen(struct pna_phy_alarms *a)
{
    size_t out = 0;
    for (size_t i = 0; i < a->n; i++)
        if (a->v[i].seen)
            a->v[out++] = a->v[i];
    a->n = out;
}

void pna_phy_alarms_update(struct pna_phy_alarms *a, const struct pna_phy_model *m, int64_t now_ms)
{
    for (size_t i = 0; i < a->n; i++)
        a->v[i].seen = false;
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
    forget_unseen(a);
    for (size_t i = 0; i < a->n; i++) {
        struct watched *w = &a->v[i];
        bool fresh = w->reported == PNA_MODULE_LEVEL_UNKNOWN;
        if (fresh && (!a->primed || w->current == PNA_MODULE_LEVEL_NORMAL)) {
            /* start-up, or a module just plugged in: only bad news is news */
            if (w->current != PNA_MODULE_LEVEL_NORMAL) {
                post(w);
                w->sent_ms = now_ms;
            }
            w->reported = w->current;
            continue;
        }
        if (w->current == w->reported)
            continue;
        if (w->sent_ms && now_ms - w->sent_ms < PNA_MODULE_ALARM_HOLDOFF_MS)
            continue;   /* held back; sent when the hold-off ends, if still changed */
        post(w);
        w->reported = w->current;
        w->sent_ms = now_ms;
    }
    a->primed = true;
}
