/* sources/rdma/ib_smp.c -- the neighbour of each InfiniBand port from
 * directed-route SMPs: which ports are asked and when, what is kept, and the
 * libibmad calls behind struct pna_ib_smp_ops (see ib_smp.h; the replies are
 * decoded by ib_smp_decode.c).
 *
 * Per port, the reader keeps the last answer and when it came.  A port is
 * tracked only while sysfs shows it ACTIVE on InfiniBand: leaving ACTIVE
 * forgets it (the cable may be moved while the link is down), so coming
 * back is a first contact again, asked at once, and a port given up after
 * a failure is asked again then.
 *
 * Thread ownership: the ib poller thread only. */
#include "pna_autoconf.h"
#include "sources/rdma/ib_smp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sources/rdma/ib_mad.h"   /* pna_ib_find_cdev */
#include "util/array.h"
#include "util/fileio.h"

#ifdef HAVE_IBMAD
#include <infiniband/mad.h>
#endif

/* ---- per-port state ---------------------------------------------------- */

struct smp_port {
    char device[64];
    uint32_t port;
    enum pna_ib_smp_port_state state;
    bool seen;                  /* eligible in this poll's model */
    int64_t answered_ms;        /* sample_mono_ms of the poll NB came in */
    struct pna_ib_neighbor nb;  /* the last answer (present: false before one) */
};

struct pna_ib_smp {
    const struct pna_ib_smp_ops *ops;
    struct pna_roots roots;
    struct smp_port *ports;
    size_t n_ports, cap_ports;
};

struct pna_ib_smp *pna_ib_smp_new(const struct pna_ib_smp_ops *ops, const struct pna_roots *roots)
{
    struct pna_ib_smp *smp = calloc(1, sizeof *smp);
    if (!smp)
        return NULL;
    smp->ops = ops;
    smp->roots = *roots;
    return smp;
}

void pna_ib_smp_free(struct pna_ib_smp *smp)
{
    if (!smp)
        return;
    free(smp->ports);
    free(smp);
}

static struct smp_port *find_port(const struct pna_ib_smp *smp, const char *device, uint32_t port)
{
    for (size_t i = 0; i < smp->n_ports; i++)
        if (smp->ports[i].port == port && strcmp(smp->ports[i].device, device) == 0)
            return &smp->ports[i];
    return NULL;
}

static struct smp_port *add_port(struct pna_ib_smp *smp, const char *device, uint32_t port)
{
    if (PNA_ARRAY_RESERVE(smp->ports, smp->cap_ports, smp->n_ports + 1) != 0)
        return NULL;
    struct smp_port *sp = &smp->ports[smp->n_ports++];
    memset(sp, 0, sizeof *sp);
    pna_strlcpy(sp->device, device, sizeof sp->device);
    sp->port = port;
    return sp;
}

enum pna_ib_smp_port_state pna_ib_smp_port_state(const struct pna_ib_smp *smp,
                                                 const char *device, uint32_t port)
{
    const struct smp_port *sp = smp ? find_port(smp, device, port) : NULL;
    return sp ? sp->state : PNA_SMP_UNTRIED;
}

/* ---- asking ------------------------------------------------------------ */

static bool infiniband(const struct pna_ib_port *p)
{
    return strcmp(p->link_layer, "InfiniBand") == 0;
}

/* ACTIVE: the only state in which the neighbour is asked and kept. */
static bool active(const struct pna_ib_port *p)
{
    return p->state == PNA_IB_STATE_ACTIVE;
}

static void note(struct pna_ib_port *p, const char *who, const char *what)
{
    if (!p->error[0])
        snprintf(p->error, sizeof p->error, "%s: %s", who, what);
}

/* NodeInfo, then NodeDescription, of the node one hop out of PORT. */
static int ask_neighbor(const struct pna_ib_smp *smp, void *handle, uint32_t port,
                        struct pna_ib_neighbor *nb)
{
    uint8_t data[PNA_SMP_DATA_SIZE] = { 0 };
    struct pna_smp_node_info ni;
    if (smp->ops->query_neighbor(handle, port, PNA_SMP_ATTR_NODE_INFO, data) != 0 ||
        pna_ib_smp_decode_node_info(data, sizeof data, &ni) != 0)
        return -1;
    memset(data, 0, sizeof data);
    if (smp->ops->query_neighbor(handle, port, PNA_SMP_ATTR_NODE_DESC, data) != 0)
        return -1;
    *nb = (struct pna_ib_neighbor){ .present = true, .guid = ni.node_guid,
                                    .node_type = ni.node_type, .port = ni.local_port };
    pna_ib_smp_decode_node_desc(data, sizeof data, nb->node_desc, sizeof nb->node_desc);
    return 0;
}

/* Open the port, ask, close: a query every five minutes is not worth a
 * umad descriptor held open.  A failure keeps an earlier answer: the link
 * stayed up, so the cable still ends where it did.  Only library calls
 * count against the poll's QUERIES; a port without a usable umad device
 * waits (NO_UMAD) without taking a turn. */
static void ask(struct pna_ib_smp *smp, struct smp_port *sp, struct pna_ib_port *p,
                const char *who, int64_t now_ms, unsigned *queries)
{
    char umad[32];
    struct pna_ib_neighbor nb;
    if (pna_ib_find_cdev(&smp->roots, "infiniband_mad", "umad", sp->device, sp->port, umad,
                         sizeof umad) != 1) {
        sp->state = PNA_SMP_NO_UMAD;
        return;
    }
    if (*queries >= PNA_IB_SMP_QUERIES_PER_POLL)
        return; /* its turn comes at a later poll */
    (*queries)++;
    void *handle = smp->ops->open_port(sp->device, sp->port);
    if (!handle) {
        sp->state = PNA_SMP_FAILED;
        note(p, who, "cannot open the umad port for SMPs: neighbour not asked");
        return;
    }
    int rc = ask_neighbor(smp, handle, sp->port, &nb);
    smp->ops->close_port(handle);
    if (rc != 0) {
        sp->state = PNA_SMP_FAILED;
        note(p, who, "the neighbour did not answer NodeInfo/NodeDescription");
        return;
    }
    sp->nb = nb;
    sp->state = PNA_SMP_KNOWN;
    sp->answered_ms = now_ms;
}

/* Due to be asked in this poll: never answered yet (and not given up), or
 * its answer is old. */
static bool due(const struct smp_port *sp, int64_t now_ms)
{
    switch (sp->state) {
    case PNA_SMP_UNTRIED:
    case PNA_SMP_NO_UMAD:
        return true;
    case PNA_SMP_KNOWN:
        return now_ms - sp->answered_ms >= PNA_IB_SMP_REFRESH_MS;
    case PNA_SMP_FAILED:
        break;
    }
    return false;
}

/* Ports no longer eligible (gone, down, no longer InfiniBand) are forgotten:
 * when one comes back ACTIVE it is asked as a new port. */
static void drop_unseen(struct pna_ib_smp *smp)
{
    size_t out = 0;
    for (size_t i = 0; i < smp->n_ports; i++)
        if (smp->ports[i].seen)
            smp->ports[out++] = smp->ports[i];
    smp->n_ports = out;
}

/* One port of this poll: ask it when due and allowed, then serve the last
 * answer.  A state file unread this poll (has_state false) is no change:
 * the port keeps its record and its answer, and is not asked. */
static bool port_poll(struct pna_ib_smp *smp, const char *device, struct pna_ib_port *p,
                      int64_t now_ms, unsigned *queries)
{
    struct smp_port *sp = find_port(smp, device, p->num);
    if (!infiniband(p) || (p->has_state && !active(p)) || (!p->has_state && !sp))
        return false;
    if (!sp && !(sp = add_port(smp, device, p->num)))
        return false; /* out of memory: no neighbour this poll */
    sp->seen = true;
    if (p->has_state && due(sp, now_ms)) {
        char who[96];
        snprintf(who, sizeof who, "%s/%u", device, p->num);
        ask(smp, sp, p, who, now_ms, queries);
    }
    p->neighbor = sp->nb;
    return sp->nb.present;
}

size_t pna_ib_smp_apply(struct pna_ib_smp *smp, struct pna_ib_model *m)
{
    size_t filled = 0;
    unsigned queries = 0;
    if (!smp || !smp->ops)
        return 0;
    for (size_t i = 0; i < smp->n_ports; i++)
        smp->ports[i].seen = false;
    for (size_t i = 0; i < m->n_devices; i++) {
        struct pna_ib_device *d = &m->devices[i];
        for (size_t j = 0; j < d->n_ports; j++)
            filled += port_poll(smp, d->name, &d->ports[j], m->sample_mono_ms, &queries);
    }
    drop_unseen(smp);
    return filled;
}

/* ---- libibmad ---------------------------------------------------------- */

#ifdef HAVE_IBMAD

/* One SMP waits this long for its answer, and is sent this many times. */
#define SMP_TIMEOUT_MS 100
#define SMP_TRIES 2

static void *libibmad_open(const char *device, uint32_t port)
{
    int classes[] = { IB_SMI_CLASS, IB_SMI_DIRECT_CLASS };
    char name[64];
    pna_strlcpy(name, device, sizeof name);
    struct ibmad_port *mp = mad_rpc_open_port(name, (int)port, classes, 2);
    if (mp) {
        mad_rpc_set_timeout(mp, SMP_TIMEOUT_MS);
        mad_rpc_set_retries(mp, SMP_TRIES);
    }
    return mp;
}

/* LID 0 and the path "0,PORT" make smp_query_via send a directed-route SMP
 * (class 0x81) out of PORT, one hop; it copies the reply's attribute data
 * into BUF. */
static int libibmad_query_neighbor(void *handle, uint32_t port, uint16_t attr,
                                   uint8_t data[PNA_SMP_DATA_SIZE])
{
    ib_portid_t dest;
    char path[16];
    uint8_t buf[IB_MAD_SIZE] = { 0 };
    memset(&dest, 0, sizeof dest);
    snprintf(path, sizeof path, "0,%u", port);
    if (str2drpath(&dest.drpath, path, 0, 0) < 0)
        return -1;
    if (!smp_query_via(buf, &dest, attr, 0, SMP_TIMEOUT_MS, handle))
        return -1;
    memcpy(data, buf, PNA_SMP_DATA_SIZE);
    return 0;
}

static void libibmad_close(void *handle)
{
    mad_rpc_close_port(handle);
}

const struct pna_ib_smp_ops pna_ib_smp_libibmad = {
    .open_port = libibmad_open,
    .query_neighbor = libibmad_query_neighbor,
    .close_port = libibmad_close,
};

#endif /* HAVE_IBMAD */
