/* pollers/pfc_poller.c -- the "pfc" poller: pause and PFC counters of every
 * RoCE netdev found in the latest IB snapshot plus the netdevs named with
 * pfcInterface, read with the ethtool ioctl into a struct pna_pfc_snap, and a
 * notification when an interface enters a pause storm; with them, each
 * interface's lossless-RoCE configuration and verdict (pfc_lossless.c).
 *
 * The ioctl works in the agent's network namespace: in a container the agent
 * needs the host's network namespace to see the host's interfaces.
 * Thread ownership: runs on the pfc poller thread only. */
#include "pna_autoconf.h"
#include "core/config.h"
#include "pollers/pollers.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <syslog.h>

#include "core/cache.h"
#include "sources/pfc/ethtool.h"
#include "sources/pfc/pfc_names.h"
#include "core/events.h"
#include "core/log.h"
#include "model/ib.h"
#include "model/pfc.h"
#include "pollers/pfc_lossless.h"
#include "util/fileio.h"

#define MAX_IFS 256

/* The statistics reader: the ethtool ioctl, or a test's stand-in (a veth
 * sends no pause frames, so a storm can only be driven through this). */
static pna_pfc_stats_reader *stats_reader = pna_ethtool_read;

void pna_pfc_poller_set_reader(pna_pfc_stats_reader *reader)
{
    stats_reader = reader ? reader : pna_ethtool_read;
}

struct pfc_state {
    struct pna_roots roots;
    char (*extra)[32];          /* pfcInterface names */
    size_t n_extra;
    uint64_t storm_pps;
    char lldp_socket[512];      /* lldpSocket under rootfs, "" = no LLDP */
    struct pna_lossless_expect expect;  /* losslessPfcPriorities, losslessTrust */
    struct pna_pfc_snap *last;  /* one reference held: rates and storm edges */
    struct pna_lossless_notes lossless_notes;  /* the verdicts last notified */
};

static void pfc_snap_destroy(struct pna_snap *snap)
{
    struct pna_pfc_snap *s = (struct pna_pfc_snap *)snap;
    pna_pfc_model_free(&s->model);
    free(s);
}

static void pfc_fini(void *state)
{
    struct pfc_state *st = state;
    if (!st)
        return;
    pna_snap_release(st->last ? &st->last->base : NULL);
    pna_pfc_lossless_notes_free(&st->lossless_notes);
    free(st->extra);
    free(st);
}

static int pfc_init(void **state, const struct pna_config *cfg, const void *settings, char *err,
                    size_t errlen)
{
    const struct pna_pfc_settings *set = settings;
    struct pfc_state *st = calloc(1, sizeof *st);
    size_t n = set->interfaces.count;
    if (st && n)
        st->extra = calloc(n, sizeof *st->extra);
    if (!st || (n && !st->extra)) {
        free(st);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    st->roots = cfg->roots;
    st->storm_pps = set->storm_pps;
    st->expect = set->expect;
    if (set->lldp_socket && set->lldp_socket[0] &&
        pna_path(st->lldp_socket, sizeof st->lldp_socket, cfg->roots.rootfs, "/%s",
                 set->lldp_socket + strspn(set->lldp_socket, "/")) != 0) {
        free(st->extra);
        free(st);
        snprintf(err, errlen, "lldpSocket: path too long");
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        if (set->interfaces.names[i] && set->interfaces.names[i][0])
            pna_strlcpy(st->extra[st->n_extra++], set->interfaces.names[i],
                        sizeof st->extra[0]);
    *state = st;
    return 0;
}

static int cmp_if(const void *a, const void *b)
{
    return strcmp(((const struct pna_pfc_if *)a)->ifname, ((const struct pna_pfc_if *)b)->ifname);
}

/* The interfaces to read: RoCE netdevs of IB (the latest IB snapshot, an
 * input of this poller; NULL before the first), then the configured ones;
 * sorted by name, each once.  Which RDMA port an interface belongs to is
 * joined when an answer is built (model/pfc_metrics.c), as every join is. */
static size_t list_interfaces(const struct pfc_state *st, const struct pna_ib_snap *ib_snap,
                              struct pna_pfc_if *ifs)
{
    size_t n = 0;
    const struct pna_ib_model *ib = ib_snap ? &ib_snap->model : NULL;
    for (size_t i = 0; ib && i < ib->n_devices; i++) {
        const struct pna_ib_device *d = &ib->devices[i];
        for (size_t p = 0; p < d->n_ports && n < MAX_IFS; p++) {
            if (!d->ports[p].netdev[0])
                continue;
            pna_strlcpy(ifs[n].ifname, d->ports[p].netdev, sizeof ifs[n].ifname);
            n++;
        }
    }
    for (size_t i = 0; i < st->n_extra && n < MAX_IFS; i++)
        pna_strlcpy(ifs[n++].ifname, st->extra[i], sizeof ifs[0].ifname);
    if (n > 1)
        qsort(ifs, n, sizeof *ifs, cmp_if);
    size_t out = 0;
    for (size_t i = 0; i < n; i++)
        if (out == 0 || strcmp(ifs[out - 1].ifname, ifs[i].ifname) != 0)
            ifs[out++] = ifs[i];
    return out;
}

static void read_ifindex(const struct pfc_state *st, struct pna_pfc_if *pif)
{
    char path[PATH_MAX];
    uint64_t v;
    if (pif->ifindex == 0 &&
        pna_path(path, sizeof path, st->roots.sysfs, "/class/net/%s/ifindex", pif->ifname) == 0 &&
        pna_read_u64(path, &v) == 0 && v <= INT32_MAX)
        pif->ifindex = (int32_t)v;
}

/* Returns -1 only when memory runs out; a read failure is the row's error. */
static int read_interface(const struct pfc_state *st, struct pna_pfc_if *pif)
{
    struct pna_eth_stats stats;
    read_ifindex(st, pif);
    if (stats_reader(pif->ifname, &stats, pif->error, sizeof pif->error) != 0)
        return 0;
    pna_strlcpy(pif->driver, stats.driver, sizeof pif->driver);
    int rc = pna_pfc_fill(pif, stats.v, stats.n);
    pna_eth_stats_free(&stats);
    return rc;
}

static void post_storm(const struct pna_pfc_if *cur, const struct pna_pfc_if *prev,
                       uint64_t storm_pps)
{
    struct pna_event ev;
    memset(&ev, 0, sizeof ev);
    ev.type = PNA_EV_PFC_PAUSE_STORM;
    const struct pna_counter *err_now = &cur->f[PNA_PFC_STORM_ERROR_EVENTS];
    const struct pna_counter *err_then = &prev->f[PNA_PFC_STORM_ERROR_EVENTS];
    bool stall_error = err_now->present && err_then->present && err_now->value > err_then->value;
    ev.severity = stall_error ? PNA_SEV_ERROR : PNA_SEV_WARNING;
    pna_strlcpy(ev.subject, cur->ifname, sizeof ev.subject);
    int fastest_prio;
    uint64_t rate = pna_pfc_peak_rate(cur, &fastest_prio);
    if (stall_error)
        snprintf(ev.text, sizeof ev.text,
                 "pause storm on %s: the device stopped sending pause frames after a stall "
                 "(%" PRIu64 " rx, %" PRIu64 " tx pause frames/s)",
                 cur->ifname, cur->rx_pause_per_s, cur->tx_pause_per_s);
    else if (rate > storm_pps && storm_pps && fastest_prio >= 0)
        snprintf(ev.text, sizeof ev.text,
                 "pause storm on %s: %" PRIu64 " pause frames/s on priority %d "
                 "(threshold %" PRIu64 "; the interface's total says %" PRIu64 " rx, %" PRIu64 " tx)",
                 cur->ifname, rate, fastest_prio, storm_pps, cur->rx_pause_per_s,
                 cur->tx_pause_per_s);
    else if (rate > storm_pps && storm_pps)
        snprintf(ev.text, sizeof ev.text,
                 "pause storm on %s: %" PRIu64 " rx, %" PRIu64 " tx pause frames/s "
                 "(threshold %" PRIu64 ")",
                 cur->ifname, cur->rx_pause_per_s, cur->tx_pause_per_s, storm_pps);
    else
        snprintf(ev.text, sizeof ev.text,
                 "pause storm on %s: the device reported a transmit stall "
                 "(pause storm warning event)",
                 cur->ifname);
    pna_strlcpy(ev.u.pfc.ifname, cur->ifname, sizeof ev.u.pfc.ifname);
    ev.u.pfc.priority = cur->storm_prio;
    ev.u.pfc.pause_per_s = rate;
    pna_event_post(&ev);
}

/* lldpd's absence or failure is said once, and again when it changes. */
static void log_lldp_change(const struct pna_pfc_model *cur, const struct pna_pfc_model *prev)
{
    const char *was = prev ? prev->lldp_error : "";
    if (cur->lldp_error[0] && strcmp(cur->lldp_error, was) != 0)
        pna_log(LOG_NOTICE, "pfc: no LLDP neighbours: %s", cur->lldp_error);
    else if (!cur->lldp_error[0] && was[0])
        pna_log(LOG_NOTICE, "pfc: lldpd answers again");
}

static int pfc_collect(void *state, const struct pna_snap *prev,
                       const struct pna_poller_inputs *in, struct pna_snap **out,
                       char *err, size_t errlen)
{
    struct pfc_state *st = state;
    const struct pna_pfc_snap *before = st->last ? st->last : (const struct pna_pfc_snap *)prev;
    struct pna_pfc_snap *snap = calloc(1, sizeof *snap);
    struct pna_pfc_if *ifs = calloc(MAX_IFS, sizeof *ifs);
    if (!snap || !ifs)
        goto nomem;
    snap->model.sample_mono_ms = pna_mono_ms();
    const struct pna_ib_snap *ib = (const struct pna_ib_snap *)pna_poller_input(in, PNA_DOM_IB);
    snap->model.n_ifs = list_interfaces(st, ib, ifs);
    if (snap->model.n_ifs == 0) {
        free(ifs);
        ifs = NULL;
    } else {
        /* give back the unused room: the snapshot may live for a while */
        struct pna_pfc_if *fit = realloc(ifs, snap->model.n_ifs * sizeof *ifs);
        if (fit)
            ifs = fit;
    }
    snap->model.ifs = ifs;
    for (size_t i = 0; i < snap->model.n_ifs; i++)
        if (read_interface(st, &ifs[i]) != 0)
            goto nomem;
    pna_pfc_model_index(&snap->model);
    pna_pfc_lossless_collect(&st->roots, st->lldp_socket, &st->expect, ib, &snap->model);
    log_lldp_change(&snap->model, before ? &before->model : NULL);
    int64_t interval_ms = before ? snap->model.sample_mono_ms - before->model.sample_mono_ms : 0;
    for (size_t i = 0; i < snap->model.n_ifs; i++) {
        struct pna_pfc_if *cur = &ifs[i];
        const struct pna_pfc_if *old = before ? pna_pfc_find_if(&before->model, cur->ifname) : NULL;
        pna_pfc_derive(cur, old, interval_ms, st->storm_pps);
        if (cur->storm && old && !old->storm)
            post_storm(cur, old, st->storm_pps);
    }
    pna_pfc_lossless_events(&st->lossless_notes, &snap->model, ib != NULL);
    pna_snap_init(&snap->base, pfc_snap_destroy);
    pna_snap_retain(&snap->base); /* our own, see ib_poller.c */
    pna_snap_release(st->last ? &st->last->base : NULL);
    st->last = snap;
    *out = &snap->base;
    return 0;
nomem:
    if (snap)
        pna_pfc_model_free(&snap->model);
    else
        free(ifs);
    free(snap);
    snprintf(err, errlen, "out of memory");
    return -1;
}

/* losslessPfcPriorities P[,P...] | none: the PFC priorities every RoCE
 * interface should have (VALUE: the settings' struct pna_lossless_expect). */
static int parse_lossless_pfc(void *value, char *const *words, size_t nwords, char *why,
                              size_t whylen)
{
    struct pna_lossless_expect *e = value;
    if (nwords != 1) {
        snprintf(why, whylen, "expected priorities such as 3 or 3,4, or none");
        return -1;
    }
    const char *w = words[0];
    uint8_t mask = 0;
    if (strcasecmp(w, "none") != 0) {
        for (const char *p = w; *p; p++) {
            if (*p >= '0' && *p <= '7' && (p[1] == ',' || p[1] == '\0'))
                mask |= (uint8_t)(1u << (*p - '0'));
            else if (*p != ',' || p == w || p[1] == '\0' || p[1] == ',') {
                snprintf(why, whylen, "'%s' is not a list of priorities 0-7 such as 3 or 3,4", w);
                return -1;
            }
        }
    }
    e->has_pfc = true;
    e->pfc_en = mask;
    return 0;
}

/* losslessTrust dscp|pcp: what every RoCE interface should classify by
 * (VALUE: struct pna_lossless_expect's trust, enum pna_trust's values). */
static int parse_lossless_trust(void *value, char *const *words, size_t nwords, char *why,
                                size_t whylen)
{
    uint8_t *trust = value;
    if (nwords != 1 || (strcasecmp(words[0], "dscp") != 0 && strcasecmp(words[0], "pcp") != 0)) {
        snprintf(why, whylen, "expected dscp or pcp");
        return -1;
    }
    *trust = strcasecmp(words[0], "pcp") == 0 ? PNA_TRUST_PCP : PNA_TRUST_DSCP;
    return 0;
}

/* The pfc poller's tokens (docs/configuration.md, "RDMA and PFC"). */
#define SET(field) offsetof(struct pna_pfc_settings, field)
static const struct pna_config_key pfc_keys[] = {
    { .token = "pfcInterface", .type = PNA_KEY_NAMES, .offset = SET(interfaces),
      .what = "interface name" },
    { .token = "pauseStormThreshold", .type = PNA_KEY_U64, .offset = SET(storm_pps),
      .min = 1, .max = UINT64_MAX, .def = 10000 },
    { .token = "lldpSocket", .type = PNA_KEY_STRING, .offset = SET(lldp_socket),
      .def_str = "run/lldpd.socket" },
    { .token = "losslessPfcPriorities", .type = PNA_KEY_CUSTOM, .offset = SET(expect),
      .parse = parse_lossless_pfc },
    { .token = "losslessTrust", .type = PNA_KEY_CUSTOM, .offset = SET(expect.trust),
      .parse = parse_lossless_trust },
    { .token = NULL },
};
#undef SET

const struct pna_poller_ops pna_pfc_poller = {
    .name = "pfc",
    .index = 4,
    .domain = PNA_DOM_PFC,
    .inputs = PNA_DOM_BIT(PNA_DOM_IB), /* the RoCE netdevs */
    .default_interval_ms = 5000,
    .default_timeout_ms = 3000,
    .keys = pfc_keys,
    .settings_size = sizeof(struct pna_pfc_settings),
    .init = pfc_init,
    .collect = pfc_collect,
    .fini = pfc_fini,
};
