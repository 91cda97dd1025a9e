/* pollers/ib_poller.c -- the "ib" poller: reads /sys/class/infiniband into a
 * struct pna_ib_snap every interval, widens wrapping counters and computes rates
 * against the previous poll, reads the PCIe health of each device's PCI
 * function, and posts a notification when a port leaves or enters its up
 * state and when a device's PCIe link falls below its maximum or returns to it.
 *
 * Port changes come first from the link watcher (watchers/link_watch.c:
 * rtnetlink carrier changes of RoCE netdevs, verbs PORT_ERR/PORT_ACTIVE of
 * InfiniBand ports), which wakes this poller at once: each collect consumes
 * the recorded changes in order, so a flap shorter than a poll still gives
 * DOWN then UP.  The poll stays the fallback and the reconciler: a transition
 * it sees counts only when no event covered it (an event already moved the
 * port there, or one arrived for the port in this same collect, when the
 * state file may lag behind the event: the next poll settles it).
 *
 * A port is up when its state is ACTIVE and, for a RoCE port whose netdev's
 * carrier an event reported, that carrier is on: a carrier loss is a flap
 * even when the state file still (or again) reads ACTIVE.
 *
 * Thread ownership: everything here runs on the ib poller thread; the state
 * (last snapshot built, last known port states) is touched by no other thread
 * (the link watcher is reached through its own locked calls).  The snapshots
 * it publishes are read-only for everyone once published. */
#include "pna_autoconf.h"
#include "core/config.h"
#include "pollers/pollers.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cache.h"
#include "sources/pci/pcie_sysfs.h"
#include "sources/rdma/ib_mad.h"
#include "sources/rdma/ib_smp.h"
#include "sources/rdma/ib_sysfs.h"
#include "sources/rdma/ib_verbs.h"
#include "core/events.h"
#include "core/log.h"
#include "core/transitions.h"
#include "model/ib.h"
#include "util/fileio.h"
#include "core/event_loop.h"
#include "watchers/link_watch.h"

/* A port's state as reported (event or poll), the transition's state of
 * the key (device, port number); 0 before it was seen. */
enum { PORT_ABSENT = 0, PORT_NOT_UP = 1, PORT_UP = 2 };
/* Its netdev's carrier from events. */
enum { CARRIER_UNKNOWN = 0, CARRIER_OFF = 1, CARRIER_ON = 2 };

/* What is kept of a port besides whether it was reported up.  A port whose
 * state file could not be read in one poll keeps its previous known state,
 * so a passing read error is neither a DOWN nor, one poll later, an UP. */
struct known_port {
    int32_t state;              /* the port state number at the last poll */
    uint8_t carrier;            /* CARRIER_* */
    bool event_this_collect;    /* an event moved it in this collect */
    uint32_t flaps;
    uint32_t last_change_s;
};

/* A device's PCIe verdict as reported, the transition's state of the key
 * (device); a poll that cannot judge it (a link in low power) keeps it. */
enum { PCIE_AT_MAX = 1, PCIE_DOWNTRAINED = 2 };

struct ib_state {
    struct pna_roots roots;
    /* The last snapshot this poller built (one reference held).  Counter
     * widening continues from it even when the cache dropped the domain as
     * stale, so a widened Counter64 never falls back to the raw value. */
    struct pna_ib_snap *last;
    /* The notifications' state (core/transitions.c), made at the first
     * collect: ports (data struct known_port) and PCIe links. */
    struct pna_transitions *ports;
    struct pna_transitions *pcie;
    /* What sysfs lacks, from libibmad and libibverbs: NULL when not built,
     * or when the roots are not the host's own (see ib_mad.h).  SMP holds
     * each InfiniBand port's neighbour between its queries (ib_smp.h). */
    struct pna_ib_mad *mad;
    struct pna_ib_smp *smp;
    struct pna_ib_verbs *verbs;
    /* Port changes as they happen; NULL with linkEvents no, or when neither
     * rtnetlink nor verbs events could be opened. */
    struct pna_link_watch *watch;
    struct pna_loop *loop;   /* the agent's event loop, which WATCH runs on */
};

/* The library tables the next init() uses: the real ones where built. */
#ifdef HAVE_IBMAD
static const struct pna_ib_mad_ops *mad_ops = &pna_ib_mad_libibmad;
static const struct pna_ib_smp_ops *smp_ops = &pna_ib_smp_libibmad;
#else
static const struct pna_ib_mad_ops *mad_ops = NULL;
static const struct pna_ib_smp_ops *smp_ops = NULL;
#endif
#ifdef HAVE_IBVERBS
static const struct pna_ib_verbs_ops *verbs_ops = &pna_ib_verbs_libibverbs;
#else
static const struct pna_ib_verbs_ops *verbs_ops = NULL;
#endif
#ifdef HAVE_LIBMNL
static const struct pna_rtnl_ops *rtnl_ops = &pna_rtnl_libmnl;
#else
static const struct pna_rtnl_ops *rtnl_ops = NULL;
#endif
#ifdef HAVE_IBVERBS
static const struct pna_ib_async_ops *async_ops = &pna_ib_async_libibverbs;
#else
static const struct pna_ib_async_ops *async_ops = NULL;
#endif
static bool ext_any_roots;

void pna_ib_poller_set_ext_ops(const struct pna_ib_mad_ops *mad, const struct pna_ib_smp_ops *smp,
                               const struct pna_ib_verbs_ops *verbs, bool any_roots)
{
    mad_ops = mad;
    smp_ops = smp;
    verbs_ops = verbs;
    ext_any_roots = any_roots;
}

void pna_ib_poller_set_link_ops(const struct pna_rtnl_ops *rtnl,
                                const struct pna_ib_async_ops *async)
{
    rtnl_ops = rtnl;
    async_ops = async;
}

static void ib_snap_destroy(struct pna_snap *snap)
{
    struct pna_ib_snap *ib = (struct pna_ib_snap *)snap;
    pna_ib_model_free(&ib->model);
    free(ib);
}

static const char *state_label(int32_t state)
{
    const char *s = pna_ib_state_name(state);
    return s[0] ? s : "gone";
}

/* UP: a primusIbPortUp, else a primusIbPortDown.  WHY: the text after
 * "RDMA port D/P", NULL for the poll's own wording.  WALL_MS: when, 0 now. */
static void post_port_event(const char *device, uint32_t port, bool up, int32_t old_state,
                            int32_t new_state, const char *why, int64_t wall_ms)
{
    struct pna_event ev;
    memset(&ev, 0, sizeof ev);
    ev.type = up ? PNA_EV_IB_PORT_UP : PNA_EV_IB_PORT_DOWN;
    ev.severity = up ? PNA_SEV_INFO : PNA_SEV_ERROR;
    ev.time_ms = wall_ms; /* 0: now */
    snprintf(ev.subject, sizeof ev.subject, "%s/%u", device, port);
    if (why)
        snprintf(ev.text, sizeof ev.text, "RDMA port %s/%u %s", device, port, why);
    else if (up)
        snprintf(ev.text, sizeof ev.text, "RDMA port %s/%u is ACTIVE (was %s)", device, port,
                 old_state ? state_label(old_state) : "absent");
    else
        snprintf(ev.text, sizeof ev.text, "RDMA port %s/%u left ACTIVE: now %s", device, port,
                 state_label(new_state));
    pna_strlcpy(ev.u.ib_port.device, device, sizeof ev.u.ib_port.device);
    ev.u.ib_port.port = port;
    /* PrimusPortState has no 0: a port that is absent (or in the kernel's
     * NOP state) is reported as down(1); the text says which. */
    ev.u.ib_port.old_state = old_state ? old_state : PNA_IB_STATE_DOWN;
    ev.u.ib_port.new_state = new_state ? new_state : PNA_IB_STATE_DOWN;
    pna_event_post(&ev);
}

/* The port KEY (K its data) went up or down (from OLD_STATE to NEW_STATE)
 * at WALL_MS (0: now): the notification, and the flap count and time of the
 * last change.  WAS_UP: as reported before. */
static void port_moved(const struct pna_transition_key *key, struct known_port *k, bool was_up,
                       bool up, int32_t old_state, int32_t new_state, const char *why,
                       int64_t wall_ms)
{
    int64_t when_ms = wall_ms ? wall_ms : pna_now_ms();
    post_port_event(key->name, key->a, up, old_state, new_state, why, wall_ms);
    if (was_up && !up)
        k->flaps++;
    k->last_change_s = when_ms > 0 ? (uint32_t)(when_ms / 1000) : 0;
}

/* One change the link watcher recorded, against the last known states.  A
 * change to the state the port is already in (the poll saw it first, or a
 * repeated event) is no transition: nothing is counted twice. */
static void apply_change(struct ib_state *st, const struct pna_link_change *c)
{
    struct pna_transition_key key = pna_transition_key(c->device, c->port, 0);
    int32_t reported;
    struct known_port *k = pna_transitions_find(st->ports, &key, &reported);
    if (!k)
        return; /* a port the last poll did not list */
    bool netdev = c->source == PNA_LINK_FROM_NETDEV;
    if (netdev)
        k->carrier = c->up ? CARRIER_ON : CARRIER_OFF;
    bool was_up = reported == PORT_UP;
    if (was_up == c->up)
        return;
    k->event_this_collect = true;
    char why[sizeof ((struct pna_event *)0)->text];
    if (netdev)
        snprintf(why, sizeof why, c->up ? "is up: carrier on %s" : "is down: carrier lost on %s",
                 c->netdev);
    else
        snprintf(why, sizeof why, c->up ? "is ACTIVE (port active event)"
                                        : "left ACTIVE (port error event)");
    /* The state file may not have followed yet (RoCE: it may never): the
     * notification says ACTIVE -> down or down -> ACTIVE, as the event does. */
    port_moved(&key, k, was_up, c->up, c->up ? PNA_IB_STATE_DOWN : PNA_IB_STATE_ACTIVE,
               c->up ? PNA_IB_STATE_ACTIVE : PNA_IB_STATE_DOWN, why, c->wall_ms);
    pna_transitions_set(st->ports, &key, c->up ? PORT_UP : PORT_NOT_UP);
}

static void clear_event_mark(void *arg, const struct pna_transition_key *key, void *data,
                             int32_t state)
{
    (void)arg;
    (void)key;
    (void)state;
    ((struct known_port *)data)->event_this_collect = false;
}

static void forget_carrier(void *arg, const struct pna_transition_key *key, void *data,
                           int32_t state)
{
    (void)arg;
    (void)key;
    (void)state;
    ((struct known_port *)data)->carrier = CARRIER_UNKNOWN;
}

/* Consume every change recorded since the last collect, oldest first.  When
 * some were lost (the queue was full) the carriers are forgotten: the poll
 * alone decides until the next events. */
static void consume_changes(struct ib_state *st)
{
    pna_transitions_foreach(st->ports, clear_event_mark, NULL);
    if (!st->watch)
        return;
    struct pna_link_change batch[32];
    bool lost = false, lost_now;
    size_t n;
    while ((n = pna_link_watch_take(st->watch, batch, 32, &lost_now)) > 0 || lost_now) {
        lost |= lost_now;
        for (size_t i = 0; i < n; i++)
            apply_change(st, &batch[i]);
        if (n == 0)
            break;
    }
    if (lost)
        pna_transitions_foreach(st->ports, forget_carrier, NULL);
}

/* The ports the link watcher is to follow: the model's, InfiniBand ones by
 * their device, the others by their netdev. */
static void sync_watch(struct ib_state *st, const struct pna_ib_model *m)
{
    if (!st->watch)
        return;
    size_t n = 0;
    for (size_t i = 0; i < m->n_devices; i++)
        n += m->devices[i].n_ports;
    struct pna_link_target *t = n ? calloc(n, sizeof *t) : NULL;
    if (n && !t)
        return; /* out of memory: the old set stays */
    size_t k = 0;
    for (size_t i = 0; i < m->n_devices; i++) {
        const struct pna_ib_device *d = &m->devices[i];
        for (size_t p = 0; p < d->n_ports; p++) {
            const struct pna_ib_port *port = &d->ports[p];
            pna_strlcpy(t[k].device, d->name, sizeof t[k].device);
            t[k].port = port->num;
            t[k].infiniband = strcmp(port->link_layer, "InfiniBand") == 0;
            pna_strlcpy(t[k].netdev, port->netdev, sizeof t[k].netdev);
            k++;
        }
    }
    pna_link_watch_sync(st->watch, t, k);
    free(t);
}

/* Up as the poll sees it: ACTIVE, and the carrier an event reported not off. */
static bool poll_up(const struct pna_ib_port *port, int32_t state, uint8_t carrier)
{
    bool infiniband = strcmp(port->link_layer, "InfiniBand") == 0;
    return state == PNA_IB_STATE_ACTIVE && (infiniband || carrier != CARRIER_OFF);
}

/* What a port's observation gives the rule: its state number now. */
struct port_obs {
    int32_t new_state;
};

/* A change of up/not up the poll sees is news unless an event of this
 * collect moved the port (the state file may lag behind the event: the next
 * poll settles it).  A port that appears after the first poll is news when
 * it is up ("was absent"), not when it is not. */
static bool port_changed(void *arg, const struct pna_transition_key *key, void *data,
                         int32_t old, int32_t now, const void *obs)
{
    (void)arg;
    struct known_port *k = data;
    int32_t new_state = ((const struct port_obs *)obs)->new_state;
    if (k->event_this_collect)
        return false;
    bool up = now == PORT_UP;
    if (old == PORT_ABSENT && !up)
        return true;
    port_moved(key, k, old == PORT_UP, up, k->state,
               up || new_state != PNA_IB_STATE_ACTIVE ? new_state : PNA_IB_STATE_DOWN, NULL, 0);
    return true;
}

/* A port that vanished while up is reported down ("gone"). */
static bool port_gone(void *arg, const struct pna_transition_key *key, void *data, int32_t last)
{
    (void)arg;
    const struct known_port *k = data;
    if (last == PORT_UP)
        post_port_event(key->name, key->a, false, k->state, 0, NULL, 0);
    return true;
}

/* Nothing is posted on the first poll: there is no transition to report. */
static const struct pna_transition_rule port_rule = {
    .appearing_is_change = true,
    .changed = port_changed,
    .gone = port_gone,
};

/* Compare every port with its last reported state and post the transitions
 * no event covered; the flap counts and change times go into the model. */
static int track_port_states(struct ib_state *st, struct pna_ib_model *m)
{
    pna_transitions_begin(st->ports);
    for (size_t i = 0; i < m->n_devices; i++) {
        struct pna_ib_device *d = &m->devices[i];
        for (size_t p = 0; p < d->n_ports; p++) {
            struct pna_ib_port *port = &d->ports[p];
            struct pna_transition_key key = pna_transition_key(d->name, port->num, 0);
            const struct known_port *before = pna_transitions_find(st->ports, &key, NULL);
            struct port_obs o = { port->state ? port->state : before ? before->state : 0 };
            bool up = poll_up(port, o.new_state, before ? before->carrier : CARRIER_UNKNOWN);
            struct known_port *k =
                pna_transitions_observe(st->ports, &key, up ? PORT_UP : PORT_NOT_UP, &o);
            if (!k)
                return -1;
            k->state = o.new_state;
            port->flaps = k->flaps;
            port->last_change_s = k->last_change_s;
        }
    }
    pna_transitions_end(st->ports);
    return 0;
}

/* ---- PCIe health ---------------------------------------------------------------- */

/* The PCIe files of each device's PCI function; their problems join the
 * model's (software devices have no PCI address and read nothing). */
static void read_pcie(const struct pna_roots *roots, struct pna_ib_model *m)
{
    for (size_t i = 0; i < m->n_devices; i++) {
        struct pna_ib_device *d = &m->devices[i];
        if (!d->pci_addr[0])
            continue;
        int problems = pna_pcie_read(roots, d->pci_addr, &d->pcie);
        if (problems <= 0)
            continue;
        if (!m->problem[0])
            snprintf(m->problem, sizeof m->problem, "%.40s PCIe %.100s", d->name, d->pcie.error);
        m->problems += (uint32_t)problems;
    }
}

static void post_pcie_event(const struct pna_ib_device *d, bool downtrained)
{
    const struct pna_pcie *p = &d->pcie;
    struct pna_event ev;
    memset(&ev, 0, sizeof ev);
    ev.type = downtrained ? PNA_EV_PCIE_DOWNTRAINED : PNA_EV_PCIE_RESTORED;
    ev.severity = downtrained ? PNA_SEV_WARNING : PNA_SEV_INFO;
    snprintf(ev.subject, sizeof ev.subject, "%s", d->name);
    struct pna_event_pcie *e = &ev.u.pcie;
    pna_strlcpy(e->device, d->name, sizeof e->device);
    e->speed_mtps = p->has_link_speed ? p->link_speed_mtps : 0;
    e->max_speed_mtps = p->has_max_link_speed ? p->max_link_speed_mtps : 0;
    e->width = p->has_link_width ? p->link_width : 0;
    e->max_width = p->has_max_link_width ? p->max_link_width : 0;
    snprintf(ev.text, sizeof ev.text, "RDMA device %s (%s) PCIe link %s: %u.%u GT/s x%u of %u.%u GT/s x%u",
             d->name, d->pci_addr, downtrained ? "below its maximum" : "back at its maximum",
             e->speed_mtps / 1000, e->speed_mtps % 1000 / 100, e->width, e->max_speed_mtps / 1000,
             e->max_speed_mtps % 1000 / 100, e->max_width);
    pna_event_post(&ev);
}

static bool is_downtrained(int32_t verdict)
{
    return verdict == PCIE_DOWNTRAINED;
}

/* OBS: the device. */
static void pcie_first_seen(void *arg, const struct pna_transition_key *key, void *data,
                            int32_t verdict, const void *obs)
{
    (void)arg;
    (void)key;
    (void)data;
    (void)verdict;
    post_pcie_event(obs, true);
}

static bool pcie_changed(void *arg, const struct pna_transition_key *key, void *data,
                         int32_t old, int32_t verdict, const void *obs)
{
    (void)arg;
    (void)key;
    (void)data;
    (void)old;
    post_pcie_event(obs, verdict == PCIE_DOWNTRAINED);
    return true;
}

/* On the first poll only a downtrained link is reported; a device that
 * appears later downtrained is reported too.  A device that is gone is
 * forgotten without a word (its port events say it went). */
static const struct pna_transition_rule pcie_rule = {
    .bad = is_downtrained,
    .first_seen = pcie_first_seen,
    .changed = pcie_changed,
};

/* Compare each device's PCIe verdict with the last reported one and post
 * the changes. */
static int track_pcie_links(struct ib_state *st, const struct pna_ib_model *m)
{
    pna_transitions_begin(st->pcie);
    for (size_t i = 0; i < m->n_devices; i++) {
        const struct pna_ib_device *d = &m->devices[i];
        struct pna_transition_key key = pna_transition_key(d->name, 0, 0);
        int32_t was = PCIE_AT_MAX;
        pna_transitions_find(st->pcie, &key, &was);
        int32_t is = was; /* not judged (a link in low power): as before */
        if (d->pcie.has_downtrained)
            is = d->pcie.downtrained ? PCIE_DOWNTRAINED : PCIE_AT_MAX;
        if (!pna_transitions_observe(st->pcie, &key, is, d))
            return -1;
    }
    pna_transitions_end(st->pcie);
    return 0;
}

/* The notifications' state (freed by ib_fini() on failure). */
static int make_trackers(struct ib_state *st)
{
    st->ports = pna_transitions_new(&port_rule, sizeof(struct known_port), st);
    st->pcie = pna_transitions_new(&pcie_rule, 0, st);
    return st->ports && st->pcie ? 0 : -1;
}

/* The libraries read the process's own /sys and /dev: on any other tree (a
 * fixture, a host mounted elsewhere) their answers would describe other
 * devices than the ones read from sysfs, so they are not used there. */
static bool libraries_apply(const struct ib_state *st)
{
    return ext_any_roots || pna_ib_host_roots(&st->roots);
}

/* rtnetlink describes the agent's own network namespace, whatever sysfs tree
 * is read (a fixture's RoCE netdev may be a real interface); verbs events,
 * like the other libraries, only the host's own devices. */
static void start_link_watch(struct ib_state *st)
{
    const struct pna_ib_async_ops *async = libraries_apply(st) ? async_ops : NULL;
    if (!rtnl_ops && !async)
        return;
    char why[160];
    st->loop = pna_loop_shared_acquire(why, sizeof why);
    st->watch = st->loop ? pna_link_watch_new(st->loop, rtnl_ops, async, why, sizeof why) : NULL;
    if (!st->watch) {
        pna_loop_shared_release(st->loop);
        st->loop = NULL;
        pna_log(LOG_WARNING, "ib: no link events (%s): port changes are seen by the poll only",
                why);
    }
}

static int open_libraries(struct ib_state *st)
{
    if (!libraries_apply(st))
        return 0;
    if ((mad_ops && !(st->mad = pna_ib_mad_new(mad_ops, &st->roots))) ||
        (smp_ops && !(st->smp = pna_ib_smp_new(smp_ops, &st->roots))) ||
        (verbs_ops && !(st->verbs = pna_ib_verbs_new(verbs_ops, &st->roots))))
        return -1;
    return 0;
}

static void ib_fini(void *state)
{
    struct ib_state *st = state;
    if (!st)
        return;
    pna_snap_release(st->last ? &st->last->base : NULL);
    pna_ib_mad_free(st->mad);
    pna_ib_smp_free(st->smp);
    pna_ib_verbs_free(st->verbs);
    pna_link_watch_free(st->watch);
    pna_loop_shared_release(st->loop);
    pna_transitions_free(st->ports);
    pna_transitions_free(st->pcie);
    free(st);
}

static int ib_init(void **state, const struct pna_config *cfg, const void *settings, char *err,
                   size_t errlen)
{
    const struct pna_ib_settings *set = settings;
    struct ib_state *st = calloc(1, sizeof *st);
    if (st)
        st->roots = cfg->roots;
    if (!st || make_trackers(st) != 0 || open_libraries(st) != 0) {
        ib_fini(st);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (set->link_events)
        start_link_watch(st);
    *state = st;
    return 0;
}

static int ib_collect(void *state, const struct pna_snap *prev,
                      const struct pna_poller_inputs *in, struct pna_snap **out,
                      char *err, size_t errlen)
{
    (void)in; /* reads no other domain */
    struct ib_state *st = state;
    const struct pna_ib_snap *before = st->last ? st->last : (const struct pna_ib_snap *)prev;
    struct pna_ib_snap *snap = calloc(1, sizeof *snap);
    if (!snap) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    /* the changes recorded since the last collect, in order, before the
     * poll reads where the ports are now */
    consume_changes(st);
    if (pna_ib_sysfs_read(&st->roots, &snap->model, err, errlen) != 0) {
        free(snap);
        return -1;
    }
    read_pcie(&st->roots, &snap->model);
    /* 64-bit PMA counters and port attributes first: rates use them */
    pna_ib_mad_apply(st->mad, &snap->model);
    pna_ib_verbs_apply(st->verbs, &snap->model);
    /* the neighbours: asked at link-up and every few minutes, else kept */
    pna_ib_smp_apply(st->smp, &snap->model);
    pna_ib_derive(&snap->model, before ? &before->model : NULL);
    if (track_port_states(st, &snap->model) != 0 || track_pcie_links(st, &snap->model) != 0) {
        pna_ib_model_free(&snap->model);
        free(snap);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    sync_watch(st, &snap->model);
    pna_snap_init(&snap->base, ib_snap_destroy);
    /* A reference of our own besides the one the core publishes. */
    pna_snap_retain(&snap->base);
    pna_snap_release(st->last ? &st->last->base : NULL);
    st->last = snap;
    *out = &snap->base;
    /* Files skipped this poll: the rest is served, the problem is shown. */
    if (snap->model.problems)
        snprintf(err, errlen, "%u file(s) unreadable, first: %s", snap->model.problems,
                 snap->model.problem);
    return 0;
}

/* The ib poller's token (docs/configuration.md, "RDMA and PFC"). */
static const struct pna_config_key ib_keys[] = {
    { .token = "linkEvents", .type = PNA_KEY_BOOL,
      .offset = offsetof(struct pna_ib_settings, link_events), .def = 1 },
    { .token = NULL },
};

const struct pna_poller_ops pna_ib_poller = {
    .name = "ib",
    .index = 3,
    .domain = PNA_DOM_IB,
    .default_interval_ms = 5000,
    .default_timeout_ms = 3000,
    .keys = ib_keys,
    .settings_size = sizeof(struct pna_ib_settings),
    .init = ib_init,
    .collect = ib_collect,
    .fini = ib_fini,
};
