/* pollers/pfc_lossless.c -- the lossless-RoCE part of the pfc poller (see
 * pfc_lossless.h).  The configuration changes rarely, but reading it costs
 * one netlink round trip and a score of sysfs reads per interface, so it is
 * read at every poll: a change made by hand shows within one interval. */
#include "pna_autoconf.h"
#include "pollers/pfc_lossless.h"
#include "pollers/pollers.h"

#include <stdio.h>
#include <string.h>

#include "core/events.h"
#include "core/transitions.h"
#include "model/lossless/lossless.h"
#include "sources/pfc/dcb.h"
#include "sources/pfc/ecn.h"
#include "sources/pfc/lldp.h"
#include "util/fileio.h"

/* lldpd answers from memory; a second is plenty and bounds a stuck daemon. */
#define LLDP_TIMEOUT_MS 1000
/* Interfaces judged together for the node verdict (the poller's own bound). */
#define MAX_JUDGED 256

static pna_dcb_reader *dcb_reader = pna_dcb_read;
static pna_lldp_reader *lldp_reader = pna_lldp_read;

void pna_pfc_poller_set_dcb_reader(pna_dcb_reader *reader)
{
    dcb_reader = reader ? reader : pna_dcb_read;
}

void pna_pfc_poller_set_lldp_reader(pna_lldp_reader *reader)
{
    lldp_reader = reader ? reader : pna_lldp_read;
}

/* The RDMA CM ToS of the RDMA port whose netdev IFNAME is; -1 when none. */
static int16_t roce_tos_of(const struct pna_roots *roots, const struct pna_ib_snap *ib,
                           const char *ifname)
{
    const struct pna_ib_device *d;
    const struct pna_ib_port *p;
    if (!ib || !pna_ib_find_netdev(&ib->model, ifname, &d, &p))
        return -1;
    return pna_roce_tos_read(roots, d->name, p->num);
}

/* lldpd's neighbours, once per poll; M->lldp_error says why there are none. */
static void read_lldp(const char *socket, struct pna_lldp_table *t, struct pna_pfc_model *m)
{
    memset(t, 0, sizeof *t);
    if (!socket || !socket[0])
        return;
    if (lldp_reader(socket, LLDP_TIMEOUT_MS, t, m->lldp_error, sizeof m->lldp_error) != 0)
        memset(t, 0, sizeof *t);
}

static void read_interface(const struct pna_roots *roots, const struct pna_ib_snap *ib,
                           const struct pna_lldp_table *lldp,
                           const struct pna_lossless_expect *expect, struct pna_pfc_if *pif)
{
    struct pna_lossless_if *l = &pif->lossless;
    pna_lossless_if_init(l);
    dcb_reader(pif->ifname, &l->dcb);
    pna_ecn_read(roots, pif->ifname, &l->ecn);
    l->roce_tos = roce_tos_of(roots, ib, pif->ifname);
    const struct pna_lldp_neighbor *n = pna_lldp_find(lldp, pif->ifname);
    if (n)
        l->lldp = *n;
    pna_lossless_judge(l, expect);
}

void pna_pfc_lossless_collect(const struct pna_roots *roots, const char *lldp_socket,
                              const struct pna_lossless_expect *expect,
                              const struct pna_ib_snap *ib, struct pna_pfc_model *m)
{
    struct pna_lldp_table lldp;
    read_lldp(lldp_socket, &lldp, m);
    const struct pna_lossless_if *judged[MAX_JUDGED];
    const char *names[MAX_JUDGED];
    size_t n = 0;
    for (size_t i = 0; i < m->n_ifs; i++) {
        read_interface(roots, ib, &lldp, expect, &m->ifs[i]);
        if (n < MAX_JUDGED) {
            judged[n] = &m->ifs[i].lossless;
            names[n++] = m->ifs[i].ifname;
        }
    }
    pna_lldp_table_free(&lldp);
    pna_lossless_judge_node(judged, names, n, &m->lossless);
}

static void post(enum pna_event_type type, const char *ifname, uint8_t verdict, uint8_t old,
                 const char *reason)
{
    struct pna_event ev;
    memset(&ev, 0, sizeof ev);
    ev.type = type;
    ev.severity = verdict == PNA_LOSSLESS_READY ? PNA_SEV_INFO : PNA_SEV_WARNING;
    pna_strlcpy(ev.subject, ifname[0] ? ifname : "node", sizeof ev.subject);
    if (reason[0])
        snprintf(ev.text, sizeof ev.text, "lossless RoCE on %s: %s (%s)", ev.subject,
                 pna_lossless_verdict_names[verdict], reason);
    else
        snprintf(ev.text, sizeof ev.text, "lossless RoCE on %s: %s", ev.subject,
                 pna_lossless_verdict_names[verdict]);
    pna_strlcpy(ev.u.lossless.ifname, ifname, sizeof ev.u.lossless.ifname);
    ev.u.lossless.verdict = verdict;
    ev.u.lossless.old_verdict = old;
    pna_strlcpy(ev.u.lossless.reason, reason, sizeof ev.u.lossless.reason);
    pna_event_post(&ev);
}

/* ---- notifications: the verdicts through core/transitions.c -------------- */

/* The node's verdict is the key ("", 1); an interface's (ifname, 0). */
static struct pna_transition_key verdict_key(const char *ifname)
{
    return pna_transition_key(ifname, ifname[0] ? 0 : 1, 0);
}

static enum pna_event_type event_type(const struct pna_transition_key *key)
{
    return key->name[0] ? PNA_EV_ROCE_LOSSLESS : PNA_EV_ROCE_NODE_LOSSLESS;
}

/* At the first sighting only bad news is news. */
static bool verdict_is_bad(int32_t verdict)
{
    return verdict == PNA_LOSSLESS_NOT_READY;
}

/* OBS: the verdict's reason. */
static void verdict_first_seen(void *arg, const struct pna_transition_key *key, void *data,
                               int32_t verdict, const void *obs)
{
    (void)arg;
    (void)data;
    post(event_type(key), key->name, (uint8_t)verdict, 0, obs);
}

/* Every change is news. */
static bool verdict_changed(void *arg, const struct pna_transition_key *key, void *data,
                            int32_t old, int32_t verdict, const void *obs)
{
    (void)arg;
    (void)data;
    post(event_type(key), key->name, (uint8_t)verdict, (uint8_t)old, obs);
    return true;
}

/* An interface (or every one, taking the node's verdict along) no longer
 * watched is forgotten quietly; one missing because there was no IB snapshot
 * to list it is kept. */
static bool verdict_gone(void *arg, const struct pna_transition_key *key, void *data, int32_t last)
{
    (void)key;
    (void)data;
    (void)last;
    return ((const struct pna_lossless_notes *)arg)->roce_listed;
}

static const struct pna_transition_rule verdict_rule = {
    .bad = verdict_is_bad,
    .first_seen = verdict_first_seen,
    .changed = verdict_changed,
    .gone = verdict_gone,
};

void pna_pfc_lossless_notes_free(struct pna_lossless_notes *notes)
{
    pna_transitions_free(notes->verdicts);
    notes->verdicts = NULL;
}

void pna_pfc_lossless_events(struct pna_lossless_notes *notes, const struct pna_pfc_model *cur,
                             bool roce_listed)
{
    if (!notes->verdicts && !(notes->verdicts = pna_transitions_new(&verdict_rule, 0, notes)))
        return; /* out of memory: no notifications until there is room */
    notes->roce_listed = roce_listed;
    pna_transitions_begin(notes->verdicts);
    for (size_t i = 0; i < cur->n_ifs; i++) {
        const struct pna_pfc_if *now = &cur->ifs[i];
        struct pna_transition_key key = verdict_key(now->ifname);
        pna_transitions_observe(notes->verdicts, &key, now->lossless.verdict, now->lossless.reason);
    }
    if (cur->n_ifs) {
        struct pna_transition_key key = verdict_key("");
        pna_transitions_observe(notes->verdicts, &key, cur->lossless.verdict, cur->lossless.reason);
    }
    pna_transitions_end(notes->verdicts);
}
