/* sources/rdma/ib_verbs.c -- port MTUs from libibverbs: which devices are
 * opened, when a device is given up, and the libibverbs calls behind struct
 * pna_ib_verbs_ops (see ib_verbs.h).
 *
 * A device is opened once, when sysfs shows a uverbs device for it that the
 * agent may open; its ports are then queried every poll (ibv_query_port is
 * one ioctl on an open device).  A device whose open fails is not tried again
 * while it stays; one that disappears is closed and forgotten.
 *
 * The asynchronous event table (struct pna_ib_async_ops) opens contexts of
 * its own for the link watcher.
 *
 * Thread ownership: the ib poller thread only; the async event table's
 * contexts, the link watch thread only. */
#include "pna_autoconf.h"
#include "sources/rdma/ib_verbs.h"
#include "util/array.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sources/rdma/ib_mad.h"   /* pna_ib_find_cdev */
#include "util/fileio.h"

#ifdef HAVE_IBVERBS
#include <errno.h>
#include <fcntl.h>
#include <infiniband/verbs.h>
#endif

uint32_t pna_ib_mtu_octets(int ibv_mtu)
{
    /* IBV_MTU_256 = 1 ... IBV_MTU_4096 = 5 (the IBA's MTU encoding) */
    return ibv_mtu >= 1 && ibv_mtu <= 5 ? UINT32_C(128) << ibv_mtu : 0;
}

struct verbs_dev {
    char name[64];
    enum pna_ib_verbs_dev_state state;
    void *ctx;                  /* open while OPEN */
    bool seen;
};

struct pna_ib_verbs {
    const struct pna_ib_verbs_ops *ops;
    struct pna_roots roots;
    struct verbs_dev *devs;
    size_t n_devs, cap_devs;
};

struct pna_ib_verbs *pna_ib_verbs_new(const struct pna_ib_verbs_ops *ops,
                                      const struct pna_roots *roots)
{
    struct pna_ib_verbs *v = calloc(1, sizeof *v);
    if (!v)
        return NULL;
    v->ops = ops;
    v->roots = *roots;
    return v;
}

static void close_dev(struct pna_ib_verbs *v, struct verbs_dev *vd)
{
    if (vd->ctx)
        v->ops->close_device(vd->ctx);
    vd->ctx = NULL;
}

void pna_ib_verbs_free(struct pna_ib_verbs *v)
{
    if (!v)
        return;
    for (size_t i = 0; i < v->n_devs; i++)
        close_dev(v, &v->devs[i]);
    free(v->devs);
    free(v);
}

static struct verbs_dev *find_dev(const struct pna_ib_verbs *v, const char *name)
{
    for (size_t i = 0; i < v->n_devs; i++)
        if (strcmp(v->devs[i].name, name) == 0)
            return &v->devs[i];
    return NULL;
}

static struct verbs_dev *add_dev(struct pna_ib_verbs *v, const char *name)
{
    if (PNA_ARRAY_RESERVE(v->devs, v->cap_devs, v->n_devs + 1) != 0)
        return NULL;
    struct verbs_dev *vd = &v->devs[v->n_devs++];
    memset(vd, 0, sizeof *vd);
    pna_strlcpy(vd->name, name, sizeof vd->name);
    return vd;
}

enum pna_ib_verbs_dev_state pna_ib_verbs_dev_state(const struct pna_ib_verbs *v,
                                                   const char *device)
{
    const struct verbs_dev *vd = v ? find_dev(v, device) : NULL;
    return vd ? vd->state : PNA_VERBS_UNTRIED;
}

/* Open the device if it has not been tried: false when it is not open. */
static bool ensure_open(struct pna_ib_verbs *v, struct verbs_dev *vd)
{
    char uverbs[32];
    switch (vd->state) {
    case PNA_VERBS_OPEN:
        return true;
    case PNA_VERBS_FAILED:
        return false;
    case PNA_VERBS_UNTRIED:
    case PNA_VERBS_NO_UVERBS:
        break;
    }
    if (pna_ib_find_cdev(&v->roots, "infiniband_verbs", "uverbs", vd->name, 0, uverbs,
                         sizeof uverbs) != 1) {
        vd->state = PNA_VERBS_NO_UVERBS;
        return false;
    }
    vd->ctx = v->ops->open_device(vd->name);
    vd->state = vd->ctx ? PNA_VERBS_OPEN : PNA_VERBS_FAILED;
    return vd->ctx != NULL;
}

size_t pna_ib_verbs_apply(struct pna_ib_verbs *v, struct pna_ib_model *m)
{
    size_t filled = 0;
    if (!v || !v->ops)
        return 0;
    for (size_t i = 0; i < v->n_devs; i++)
        v->devs[i].seen = false;
    for (size_t i = 0; i < m->n_devices; i++) {
        struct pna_ib_device *d = &m->devices[i];
        struct verbs_dev *vd = find_dev(v, d->name);
        if (!vd && !(vd = add_dev(v, d->name)))
            break; /* out of memory: no MTUs this poll */
        vd->seen = true;
        if (!ensure_open(v, vd))
            continue;
        for (size_t j = 0; j < d->n_ports; j++) {
            struct pna_ib_port_attr a = { 0 };
            if (v->ops->query_port(vd->ctx, d->ports[j].num, &a) != 0)
                continue; /* this poll only: the attributes stay unknown */
            d->ports[j].active_mtu = a.active_mtu_octets;
            d->ports[j].max_mtu = a.max_mtu_octets;
            filled++;
        }
    }
    size_t out = 0;
    for (size_t i = 0; i < v->n_devs; i++) {
        if (!v->devs[i].seen) {
            close_dev(v, &v->devs[i]);
            continue;
        }
        v->devs[out++] = v->devs[i];
    }
    v->n_devs = out;
    return filled;
}

/* ---- libibverbs -------------------------------------------------------- */

#ifdef HAVE_IBVERBS

static void *libibverbs_open(const char *device)
{
    int n = 0;
    struct ibv_context *ctx = NULL;
    /* NULL with errno ENOSYS on a kernel without RDMA: nothing to open. */
    struct ibv_device **list = ibv_get_device_list(&n);
    if (!list)
        return NULL;
    for (int i = 0; i < n && !ctx; i++)
        if (strcmp(ibv_get_device_name(list[i]), device) == 0)
            ctx = ibv_open_device(list[i]);
    ibv_free_device_list(list);
    return ctx;
}

static int libibverbs_query_port(void *ctx, uint32_t port, struct pna_ib_port_attr *out)
{
    struct ibv_port_attr attr;
    memset(&attr, 0, sizeof attr);
    if (port == 0 || port > 255 || ibv_query_port(ctx, (uint8_t)port, &attr) != 0)
        return -1;
    out->active_mtu_octets = pna_ib_mtu_octets((int)attr.active_mtu);
    out->max_mtu_octets = pna_ib_mtu_octets((int)attr.max_mtu);
    return 0;
}

static void libibverbs_close(void *ctx)
{
    ibv_close_device(ctx);
}

const struct pna_ib_verbs_ops pna_ib_verbs_libibverbs = {
    .open_device = libibverbs_open,
    .query_port = libibverbs_query_port,
    .close_device = libibverbs_close,
};

/* ---- libibverbs: asynchronous events ------------------------------------- */

static int libibverbs_event_fd(void *ctx)
{
    int fd = ((struct ibv_context *)ctx)->async_fd;
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
        return -1;
    return fd;
}

static int libibverbs_get_event(void *ctx, struct pna_ib_async_event *out)
{
    struct ibv_async_event ev;
    if (ibv_get_async_event(ctx, &ev) != 0)
        return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
    memset(out, 0, sizeof *out);
    switch (ev.event_type) {
    case IBV_EVENT_PORT_ACTIVE:
        out->kind = PNA_IB_ASYNC_PORT_ACTIVE;
        out->port = (uint32_t)ev.element.port_num;
        break;
    case IBV_EVENT_PORT_ERR:
        out->kind = PNA_IB_ASYNC_PORT_ERR;
        out->port = (uint32_t)ev.element.port_num;
        break;
    default:
        out->kind = PNA_IB_ASYNC_OTHER;
        break;
    }
    /* Every event must be acknowledged, or ibv_close_device() waits forever. */
    ibv_ack_async_event(&ev);
    return 1;
}

const struct pna_ib_async_ops pna_ib_async_libibverbs = {
    .open_device = libibverbs_open,
    .event_fd = libibverbs_event_fd,
    .get_event = libibverbs_get_event,
    .close_device = libibverbs_close,
};

#endif /* HAVE_IBVERBS */
