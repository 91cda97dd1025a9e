/* sources/rdma/ib_mad.c -- 64-bit data and packet counters from the port's PMA
 * (PortCountersExtended through libibmad) where sysfs has only the 32-bit
 * PortCounters ones: which ports are queried, when a port is given up, and
 * the libibmad calls behind struct pna_ib_mad_ops (see ib_mad.h).
 *
 * Which ports: link layer InfiniBand (the PMA answers MADs; RoCE ports have
 * none), state ACTIVE with a LID (a MAD to a port without one times out), and
 * sysfs counters that are the 32-bit ones -- no counters_ext directory and no
 * unicast_*_packets file.  (A kernel that reads PortCountersExtended itself
 * shows the unicast/multicast files and 64-bit data counters: nothing to add.)
 *
 * Thread ownership: the ib poller thread only. */
#include "pna_autoconf.h"
#include "sources/rdma/ib_mad.h"
#include "util/array.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/fileio.h"

#ifdef HAVE_IBMAD
#include <infiniband/mad.h>
#endif

/* ---- the host's own roots ---------------------------------------------- */

static bool resolves_to(const char *path, const char *want)
{
    char real[PATH_MAX];
    return path && realpath(path, real) && strcmp(real, want) == 0;
}

bool pna_ib_host_roots(const struct pna_roots *roots)
{
    return roots && resolves_to(roots->sysfs, "/sys") && resolves_to(roots->devfs, "/dev");
}

/* ---- the umad device of a port ----------------------------------------- */

/* NAME is PREFIX followed by digits only ("umad0", not "issm0"). */
static bool numbered(const char *name, const char *prefix)
{
    size_t n = strlen(prefix);
    if (strncmp(name, prefix, n) != 0 || !name[n])
        return false;
    for (const char *p = name + n; *p; p++)
        if (*p < '0' || *p > '9')
            return false;
    return true;
}

int pna_ib_find_cdev(const struct pna_roots *roots, const char *cls, const char *prefix,
                     const char *device, uint32_t port, char *out, size_t cap)
{
    char dir[PATH_MAX];
    if (pna_path(dir, sizeof dir, roots->sysfs, "/class/%s", cls) != 0)
        return 0;
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int rc = 0;
    struct dirent *de;
    while (rc == 0 && (de = readdir(d)) != NULL) {
        char path[PATH_MAX], text[80];
        uint64_t num;
        if (!numbered(de->d_name, prefix))
            continue;
        if (snprintf(path, sizeof path, "%s/%s/ibdev", dir, de->d_name) >= (int)sizeof path ||
            pna_read_text(path, text, sizeof text) < 0 || strcmp(text, device) != 0)
            continue;
        if (port) {
            if (snprintf(path, sizeof path, "%s/%s/port", dir, de->d_name) >= (int)sizeof path ||
                pna_read_u64(path, &num) != 0 || num != port)
                continue;
        }
        /* The library opens /dev/infiniband/<name>: without read and write
         * permission there it would fail, and say so on stderr. */
        if (pna_path(path, sizeof path, roots->devfs, "/infiniband/%s", de->d_name) != 0 ||
            access(path, R_OK | W_OK) != 0) {
            rc = -EACCES;
            break;
        }
        pna_strlcpy(out, de->d_name, cap);
        rc = 1;
    }
    closedir(d);
    return rc;
}

/* ---- per-port state ---------------------------------------------------- */

struct mad_port {
    char device[64];
    uint32_t port;
    enum pna_ib_mad_port_state state;
    void *handle;               /* open while SERVING or BACKOFF */
    bool noietf;                /* the PMA keeps no unicast/multicast counters */
    bool seen;                  /* the port was in this poll's model */
    uint32_t backoff_polls;     /* current back-off length */
    uint32_t wait_polls;        /* polls left before the next try */
};

struct pna_ib_mad {
    const struct pna_ib_mad_ops *ops;
    struct pna_roots roots;
    struct mad_port *ports;
    size_t n_ports, cap_ports;
};

struct pna_ib_mad *pna_ib_mad_new(const struct pna_ib_mad_ops *ops, const struct pna_roots *roots)
{
    struct pna_ib_mad *mad = calloc(1, sizeof *mad);
    if (!mad)
        return NULL;
    mad->ops = ops;
    mad->roots = *roots;
    return mad;
}

static void close_port(struct pna_ib_mad *mad, struct mad_port *mp)
{
    if (mp->handle)
        mad->ops->close_port(mp->handle);
    mp->handle = NULL;
}

void pna_ib_mad_free(struct pna_ib_mad *mad)
{
    if (!mad)
        return;
    for (size_t i = 0; i < mad->n_ports; i++)
        close_port(mad, &mad->ports[i]);
    free(mad->ports);
    free(mad);
}

static struct mad_port *find_port(const struct pna_ib_mad *mad, const char *device, uint32_t port)
{
    for (size_t i = 0; i < mad->n_ports; i++)
        if (mad->ports[i].port == port && strcmp(mad->ports[i].device, device) == 0)
            return &mad->ports[i];
    return NULL;
}

static struct mad_port *add_port(struct pna_ib_mad *mad, const char *device, uint32_t port)
{
    if (PNA_ARRAY_RESERVE(mad->ports, mad->cap_ports, mad->n_ports + 1) != 0)
        return NULL;
    struct mad_port *mp = &mad->ports[mad->n_ports++];
    memset(mp, 0, sizeof *mp);
    pna_strlcpy(mp->device, device, sizeof mp->device);
    mp->port = port;
    return mp;
}

enum pna_ib_mad_port_state pna_ib_mad_port_state(const struct pna_ib_mad *mad,
                                                 const char *device, uint32_t port)
{
    const struct mad_port *mp = mad ? find_port(mad, device, port) : NULL;
    return mp ? mp->state : PNA_MAD_UNTRIED;
}

/* ---- which counters, and from where ------------------------------------ */

/* The counters PortCountersExtended replaces, in struct pna_pma_ext order;
 * the last four only when the PMA keeps them (not NoIETF). */
static const enum pna_ib_counter pma_counters[] = {
    PNA_IBC_XMIT_DATA, PNA_IBC_RCV_DATA, PNA_IBC_XMIT_PACKETS, PNA_IBC_RCV_PACKETS,
    PNA_IBC_UNICAST_XMIT_PACKETS, PNA_IBC_UNICAST_RCV_PACKETS,
    PNA_IBC_MULTICAST_XMIT_PACKETS, PNA_IBC_MULTICAST_RCV_PACKETS,
};

static size_t pma_counter_count(const struct mad_port *mp)
{
    return mp->noietf ? 4 : sizeof pma_counters / sizeof pma_counters[0];
}

/* Worth asking the PMA, and able to answer. */
static bool eligible(const struct pna_ib_port *p)
{
    return strcmp(p->link_layer, "InfiniBand") == 0 && p->state == PNA_IB_STATE_ACTIVE &&
           p->has_lid && p->lid != 0 && p->lid < 0xc000 /* unicast LIDs only */;
}

/* The kernel's own counters are the 32-bit PortCounters ones. */
static bool sysfs_counters_narrow(const struct pna_ib_port *p)
{
    return !p->counters[PNA_IBC_XMIT_DATA].from_ext && !p->counters[PNA_IBC_RCV_DATA].from_ext &&
           !p->counters[PNA_IBC_UNICAST_XMIT_PACKETS].present &&
           !p->counters[PNA_IBC_UNICAST_RCV_PACKETS].present;
}

static void set_pma(struct pna_counter *c, uint64_t raw, unsigned scale)
{
    *c = (struct pna_counter){ .present = true, .from_pma = true };
    if (raw > UINT64_MAX / scale) { /* 2^62 words: not in this universe, but never wrap */
        c->value = UINT64_MAX;
        c->saturated = true;
    } else {
        c->value = raw * scale;
    }
}

static void fill_port(struct pna_ib_port *p, const struct mad_port *mp,
                      const struct pna_pma_ext *x)
{
    const uint64_t v[] = { x->xmit_words, x->rcv_words, x->xmit_pkts, x->rcv_pkts,
                           x->ucast_xmit_pkts, x->ucast_rcv_pkts, x->mcast_xmit_pkts,
                           x->mcast_rcv_pkts };
    for (size_t i = 0; i < pma_counter_count(mp); i++)
        set_pma(&p->counters[pma_counters[i]], v[i], pna_ib_counter_descs[pma_counters[i]].scale);
}

/* A port that served PMA values and cannot now: its counters are absent for
 * this poll.  The sysfs ones count from another origin (and saturate at 32
 * bits): serving them would make the Counter64s jump backwards. */
static void blank_port(struct pna_ib_port *p, const struct mad_port *mp)
{
    for (size_t i = 0; i < pma_counter_count(mp); i++)
        p->counters[pma_counters[i]] = (struct pna_counter){ 0 };
}

static void note(struct pna_ib_port *p, const char *who, const char *what)
{
    if (!p->error[0])
        snprintf(p->error, sizeof p->error, "%s: %s", who, what);
}

/* First contact: umad device, open, ClassPortInfo, one query. */
static void probe(struct pna_ib_mad *mad, struct mad_port *mp, struct pna_ib_port *p,
                  const char *who)
{
    char umad[32];
    uint16_t cap = 0;
    struct pna_pma_ext x;
    if (pna_ib_find_cdev(&mad->roots, "infiniband_mad", "umad", mp->device, mp->port, umad,
                         sizeof umad) != 1) {
        mp->state = PNA_MAD_NO_UMAD;
        return;
    }
    mp->handle = mad->ops->open_port(mp->device, mp->port);
    if (!mp->handle) {
        mp->state = PNA_MAD_FAILED;
        note(p, who, "cannot open the umad port: PMA counters not used");
        return;
    }
    if (mad->ops->class_port_info(mp->handle, p->lid, mp->port, &cap) != 0) {
        mp->state = PNA_MAD_FAILED;
        note(p, who, "the PMA did not answer ClassPortInfo: PMA counters not used");
        close_port(mad, mp);
        return;
    }
    if (!(cap & (PNA_PMA_CAP_EXT_WIDTH | PNA_PMA_CAP_EXT_WIDTH_NOIETF))) {
        mp->state = PNA_MAD_NOT_EXT;
        close_port(mad, mp);
        return;
    }
    mp->noietf = !(cap & PNA_PMA_CAP_EXT_WIDTH);
    if (mad->ops->query_ext(mp->handle, p->lid, mp->port, &x) != 0) {
        mp->state = PNA_MAD_FAILED;
        note(p, who, "PortCountersExtended query failed: PMA counters not used");
        close_port(mad, mp);
        return;
    }
    mp->state = PNA_MAD_SERVING;
    fill_port(p, mp, &x);
}

/* A port that has answered before: query, or wait out its back-off. */
static bool refresh(struct pna_ib_mad *mad, struct mad_port *mp, struct pna_ib_port *p)
{
    struct pna_pma_ext x;
    if (mp->state == PNA_MAD_BACKOFF && mp->wait_polls > 0) {
        mp->wait_polls--;
        return false;
    }
    if (mad->ops->query_ext(mp->handle, p->lid, mp->port, &x) == 0) {
        mp->state = PNA_MAD_SERVING;
        mp->backoff_polls = 0;
        fill_port(p, mp, &x);
        return true;
    }
    mp->state = PNA_MAD_BACKOFF;
    mp->backoff_polls = mp->backoff_polls ? mp->backoff_polls * 2 : 2;
    if (mp->backoff_polls > PNA_IB_MAD_MAX_BACKOFF_POLLS)
        mp->backoff_polls = PNA_IB_MAD_MAX_BACKOFF_POLLS;
    mp->wait_polls = mp->backoff_polls;
    return false;
}

/* Forget ports that are gone (closing their handles): a device that comes
 * back, after a driver reload say, is a new device and is probed again. */
static void drop_unseen(struct pna_ib_mad *mad)
{
    size_t out = 0;
    for (size_t i = 0; i < mad->n_ports; i++) {
        if (!mad->ports[i].seen) {
            close_port(mad, &mad->ports[i]);
            continue;
        }
        mad->ports[out++] = mad->ports[i];
    }
    mad->n_ports = out;
}

size_t pna_ib_mad_apply(struct pna_ib_mad *mad, struct pna_ib_model *m)
{
    size_t filled = 0;
    unsigned probes = 0;
    if (!mad || !mad->ops)
        return 0;
    for (size_t i = 0; i < mad->n_ports; i++)
        mad->ports[i].seen = false;
    for (size_t i = 0; i < m->n_devices; i++) {
        struct pna_ib_device *d = &m->devices[i];
        for (size_t j = 0; j < d->n_ports; j++) {
            struct pna_ib_port *p = &d->ports[j];
            char who[96];
            if (strcmp(p->link_layer, "InfiniBand") != 0)
                continue; /* RoCE, iWARP: no PMA to ask; never tracked */
            struct mad_port *mp = find_port(mad, d->name, p->num);
            if (!mp && !(mp = add_port(mad, d->name, p->num)))
                return filled; /* out of memory: sysfs values stay */
            mp->seen = true;
            snprintf(who, sizeof who, "%s/%u", d->name, p->num);
            switch (mp->state) {
            case PNA_MAD_UNTRIED:
            case PNA_MAD_NO_UMAD:
                if (eligible(p) && sysfs_counters_narrow(p) &&
                    probes < PNA_IB_MAD_PROBES_PER_POLL) {
                    probes++;
                    probe(mad, mp, p, who);
                    filled += mp->state == PNA_MAD_SERVING;
                }
                break;
            case PNA_MAD_SERVING:
            case PNA_MAD_BACKOFF:
                if (eligible(p) && refresh(mad, mp, p))
                    filled++;
                else
                    blank_port(p, mp);
                break;
            case PNA_MAD_FAILED:
            case PNA_MAD_NOT_EXT:
                break; /* given up: the sysfs counters stay */
            }
        }
    }
    drop_unseen(mad);
    return filled;
}

/* ---- libibmad ---------------------------------------------------------- */

#ifdef HAVE_IBMAD

/* One MAD waits this long for its answer, and is sent this many times: a poll
 * stays far below its deadline even when a PMA does not answer. */
#define MAD_TIMEOUT_MS 100
#define MAD_TRIES 2

static void *libibmad_open(const char *device, uint32_t port)
{
    int classes[] = { IB_PERFORMANCE_CLASS };
    char name[64];
    pna_strlcpy(name, device, sizeof name);
    struct ibmad_port *mp = mad_rpc_open_port(name, (int)port, classes, 1);
    if (mp) {
        mad_rpc_set_timeout(mp, MAD_TIMEOUT_MS);
        mad_rpc_set_retries(mp, MAD_TRIES);
    }
    return mp;
}

static uint8_t *pma_get(void *handle, uint32_t lid, uint32_t port, unsigned attr, uint8_t *buf)
{
    ib_portid_t dest;
    memset(&dest, 0, sizeof dest);
    ib_portid_set(&dest, (int)lid, 0, 0); /* pma_query_via fills QP1 and its Q_Key */
    return pma_query_via(buf, &dest, (int)port, MAD_TIMEOUT_MS, attr, handle);
}

static int libibmad_class_port_info(void *handle, uint32_t lid, uint32_t port, uint16_t *cap)
{
    uint8_t buf[1024] = { 0 };
    uint32_t v = 0;
    if (!pma_get(handle, lid, port, CLASS_PORT_INFO, buf))
        return -1;
    mad_decode_field(buf, IB_CPI_CAPMASK_F, &v);
    *cap = (uint16_t)v;
    return 0;
}

static int libibmad_query_ext(void *handle, uint32_t lid, uint32_t port, struct pna_pma_ext *x)
{
    uint8_t buf[1024] = { 0 };
    if (!pma_get(handle, lid, port, IB_GSI_PORT_COUNTERS_EXT, buf))
        return -1;
    mad_decode_field(buf, IB_PC_EXT_XMT_BYTES_F, &x->xmit_words);
    mad_decode_field(buf, IB_PC_EXT_RCV_BYTES_F, &x->rcv_words);
    mad_decode_field(buf, IB_PC_EXT_XMT_PKTS_F, &x->xmit_pkts);
    mad_decode_field(buf, IB_PC_EXT_RCV_PKTS_F, &x->rcv_pkts);
    mad_decode_field(buf, IB_PC_EXT_XMT_UPKTS_F, &x->ucast_xmit_pkts);
    mad_decode_field(buf, IB_PC_EXT_RCV_UPKTS_F, &x->ucast_rcv_pkts);
    mad_decode_field(buf, IB_PC_EXT_XMT_MPKTS_F, &x->mcast_xmit_pkts);
    mad_decode_field(buf, IB_PC_EXT_RCV_MPKTS_F, &x->mcast_rcv_pkts);
    return 0;
}

static void libibmad_close(void *handle)
{
    mad_rpc_close_port(handle);
}

const struct pna_ib_mad_ops pna_ib_mad_libibmad = {
    .open_port = libibmad_open,
    .class_port_info = libibmad_class_port_info,
    .query_ext = libibmad_query_ext,
    .close_port = libibmad_close,
};

#endif /* HAVE_IBMAD */
