/* watchers/link_watch.c -- carrier and port state changes as they happen
 * (see link_watch.h).
 *
 * Thread ownership: `lock` guards the targets (with each netdev's known
 * state), the queue and the counters; the caller's thread changes the
 * targets and takes from the queue, the event loop's thread matches what it
 * receives against the targets and fills the queue.  The InfiniBand device
 * contexts are opened, read and closed on the loop's thread only (the
 * caller's sync only sets a timer there), and the rtnetlink socket is read
 * there; pna_link_watch_free() closes both inside pna_loop_call(), with no
 * callback running, so no context is closed while it is read. */
#include "pna_autoconf.h"
#include "watchers/link_watch.h"
#include "core/cache.h"
#include "core/event_loop.h"
#include "core/log.h"
#include "core/poller.h"
#include "sources/rdma/rtnl_link.h"
#include "util/array.h"
#include "util/fileio.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define RTNL_BUF 32768

/* A watched port and, for a netdev, what the watch last knew of it. */
struct target {
    struct pna_link_target t;
    bool known;                   /* UP holds the netdev's state */
    bool up;
};

/* An InfiniBand device whose events are read (loop thread only). */
struct device {
    char name[64];
    void *ctx;                    /* NULL: the open failed; not tried again while listed */
    int fd;
    uint64_t reg;                 /* the loop's registration of FD */
    bool listed;
};

struct pna_link_watch {
    struct pna_loop *loop;
    const struct pna_rtnl_ops *rtnl;
    const struct pna_ib_async_ops *async;
    void *sock;                   /* read on the loop thread */
    uint64_t sock_reg;
    struct device *devs;          /* loop thread */
    size_t n_devs, cap_devs;
    uint8_t *buf;                 /* RTNL_BUF, loop thread */

    pthread_mutex_t lock;         /* guards everything below */
    struct target *targets;
    size_t n_targets;
    bool need_dump;               /* a netdev was added since the last dump */
    uint64_t sync_timer;          /* the loop's timer that takes up a sync, 0 none */
    struct pna_link_change queue[PNA_LINK_QUEUE_MAX];
    size_t q_head, q_len;
    bool lost;
    struct pna_link_watch_stats stats;
};

/* ---- the queue ------------------------------------------------------------ */

/* Under the lock.  A full queue drops its oldest change. */
static void push_locked(struct pna_link_watch *w, const struct pna_link_change *c)
{
    if (w->q_len == PNA_LINK_QUEUE_MAX) {
        w->q_head = (w->q_head + 1) % PNA_LINK_QUEUE_MAX;
        w->q_len--;
        w->stats.dropped++;
        w->lost = true;
    }
    w->queue[(w->q_head + w->q_len) % PNA_LINK_QUEUE_MAX] = *c;
    w->q_len++;
    w->stats.recorded++;
}

static void wake_pollers(void)
{
    /* An index no poller has is ignored (pna_poller_wake). */
    pna_poller_wake(PNA_LINK_WAKE_IB_POLLER);
    pna_poller_wake(PNA_LINK_WAKE_PHY_POLLER);
}

size_t pna_link_watch_take(struct pna_link_watch *w, struct pna_link_change *out, size_t cap,
                           bool *lost)
{
    size_t n = 0;
    pthread_mutex_lock(&w->lock);
    while (n < cap && w->q_len) {
        out[n++] = w->queue[w->q_head];
        w->q_head = (w->q_head + 1) % PNA_LINK_QUEUE_MAX;
        w->q_len--;
    }
    if (lost)
        *lost = w->lost;
    w->lost = false;
    pthread_mutex_unlock(&w->lock);
    return n;
}

void pna_link_watch_stats(struct pna_link_watch *w, struct pna_link_watch_stats *out)
{
    pthread_mutex_lock(&w->lock);
    *out = w->stats;
    pthread_mutex_unlock(&w->lock);
}

/* ---- rtnetlink ------------------------------------------------------------- */

/* Under the lock: the target whose netdev is IFNAME, or NULL. */
static struct target *netdev_target(struct pna_link_watch *w, const char *ifname)
{
    for (size_t i = 0; ifname[0] && i < w->n_targets; i++)
        if (!w->targets[i].t.infiniband && strcmp(w->targets[i].t.netdev, ifname) == 0)
            return &w->targets[i];
    return NULL;
}

/* One link message.  Returns true when it recorded a change. */
static bool take_link(struct pna_link_watch *w, const struct pna_rtnl_link *l, int64_t mono,
                      int64_t wall)
{
    bool up = pna_rtnl_link_up(l), changed = false;
    pthread_mutex_lock(&w->lock);
    struct target *t = netdev_target(w, l->ifname);
    if (t && t->known && t->up != up) {
        struct pna_link_change c;
        memset(&c, 0, sizeof c);
        c.source = PNA_LINK_FROM_NETDEV;
        c.up = up;
        pna_strlcpy(c.netdev, l->ifname, sizeof c.netdev);
        c.ifindex = l->ifindex;
        c.mono_ms = mono;
        c.wall_ms = wall;
        /* Every port of the netdev (one, in practice) records it. */
        for (size_t i = 0; i < w->n_targets; i++) {
            struct target *o = &w->targets[i];
            if (o->t.infiniband || strcmp(o->t.netdev, l->ifname) != 0)
                continue;
            pna_strlcpy(c.device, o->t.device, sizeof c.device);
            c.port = o->t.port;
            push_locked(w, &c);
        }
        changed = true;
    }
    /* A notification about a netdev the watch has no state for yet sets it
     * as a dump does: what it was before is not known, so it is no change. */
    for (size_t i = 0; t && i < w->n_targets; i++) {
        struct target *o = &w->targets[i];
        if (!o->t.infiniband && strcmp(o->t.netdev, l->ifname) == 0) {
            o->known = true;
            o->up = up;
        }
    }
    pthread_mutex_unlock(&w->lock);
    return changed;
}

/* Every message of one datagram.  A malformed one ends the datagram. */
static bool take_datagram(struct pna_link_watch *w, const uint8_t *p, size_t len)
{
    int64_t mono = pna_mono_ms(), wall = pna_now_ms();
    bool changed = false;
    size_t off = 0;
    while (off < len) {
        struct pna_rtnl_link l;
        long used = pna_rtnl_link_parse(p + off, len - off, &l);
        if (used < 0) {
            pthread_mutex_lock(&w->lock);
            bool first = w->stats.malformed++ == 0;
            pthread_mutex_unlock(&w->lock);
            if (first)
                pna_log(LOG_WARNING, "link watch: malformed rtnetlink message: %s", l.error);
            break;
        }
        if (l.ifindex > 0)
            changed |= take_link(w, &l, mono, wall);
        off += (size_t)used;
    }
    return changed;
}

static void request_dump(struct pna_link_watch *w)
{
    if (w->sock && w->rtnl->request_dump(w->sock) != 0)
        pna_log(LOG_WARNING, "link watch: RTM_GETLINK dump request failed: %s", strerror(errno));
}

static bool drain_rtnl(struct pna_link_watch *w)
{
    bool changed = false;
    for (;;) {
        long n = w->rtnl->recv(w->sock, w->buf, RTNL_BUF);
        if (n > 0) {
            changed |= take_datagram(w, w->buf, (size_t)n);
            continue;
        }
        if (n < 0 && errno == ENOBUFS) {
            /* notifications were lost: ask for every link's state again */
            pthread_mutex_lock(&w->lock);
            w->stats.overflows++;
            pthread_mutex_unlock(&w->lock);
            request_dump(w);
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        return changed;
    }
}

/* ---- InfiniBand devices ---------------------------------------------------- */

static bool ib_target(struct pna_link_watch *w, const char *device, uint32_t port)
{
    for (size_t i = 0; i < w->n_targets; i++)
        if (w->targets[i].t.infiniband && w->targets[i].t.port == port &&
            strcmp(w->targets[i].t.device, device) == 0)
            return true;
    return false;
}

static bool drain_device(struct pna_link_watch *w, struct device *d)
{
    bool changed = false;
    struct pna_ib_async_event ev;
    int rc;
    while ((rc = w->async->get_event(d->ctx, &ev)) == 1) {
        if (ev.kind != PNA_IB_ASYNC_PORT_ACTIVE && ev.kind != PNA_IB_ASYNC_PORT_ERR)
            continue;
        struct pna_link_change c;
        memset(&c, 0, sizeof c);
        c.source = PNA_LINK_FROM_VERBS;
        c.up = ev.kind == PNA_IB_ASYNC_PORT_ACTIVE;
        pna_strlcpy(c.device, d->name, sizeof c.device);
        c.port = ev.port;
        c.mono_ms = pna_mono_ms();
        c.wall_ms = pna_now_ms();
        pthread_mutex_lock(&w->lock);
        if (ib_target(w, d->name, ev.port)) {
            push_locked(w, &c);
            changed = true;
        }
        pthread_mutex_unlock(&w->lock);
    }
    if (rc < 0) {
        /* A device that was removed or reset: stop reading it (the poll still
         * sees its ports); it is opened again if it is listed anew. */
        pna_log(LOG_WARNING, "link watch: %s: reading its events failed; polled only", d->name);
        pna_loop_remove_fd(w->loop, d->reg);
        w->async->close_device(d->ctx);
        d->ctx = NULL;
    }
    return changed;
}

static void close_device(struct pna_link_watch *w, struct device *d)
{
    if (!d->ctx)
        return;
    pna_loop_remove_fd(w->loop, d->reg);
    w->async->close_device(d->ctx);
    d->ctx = NULL;
}

static void on_device_ready(void *arg, int fd, unsigned ready);

static void open_device(struct pna_link_watch *w, struct device *d)
{
    d->ctx = w->async->open_device(d->name);
    d->fd = d->ctx ? w->async->event_fd(d->ctx) : -1;
    if (d->ctx && (d->fd < 0 || !(d->reg = pna_loop_add_fd(w->loop, d->fd, PNA_LOOP_READ,
                                                           on_device_ready, w)))) {
        w->async->close_device(d->ctx);
        d->ctx = NULL;
    }
    if (!d->ctx)
        pna_log(LOG_INFO, "link watch: %s: no asynchronous events (cannot open it); polled only",
                d->name);
}

static struct device *find_device(struct pna_link_watch *w, const char *name)
{
    for (size_t i = 0; i < w->n_devs; i++)
        if (strcmp(w->devs[i].name, name) == 0)
            return &w->devs[i];
    return NULL;
}

/* Open the devices of InfiniBand targets not open yet, close those no
 * target names any more. */
static void reconcile_devices(struct pna_link_watch *w)
{
    char (*names)[64] = NULL;
    size_t n = 0, cap = 0;
    pthread_mutex_lock(&w->lock);
    for (size_t i = 0; i < w->n_targets; i++)
        if (w->targets[i].t.infiniband && PNA_ARRAY_RESERVE(names, cap, n + 1) == 0)
            pna_strlcpy(names[n++], w->targets[i].t.device, sizeof names[0]);
    pthread_mutex_unlock(&w->lock);
    for (size_t i = 0; i < w->n_devs; i++)
        w->devs[i].listed = false;
    for (size_t i = 0; i < n; i++) {
        struct device *d = find_device(w, names[i]);
        if (d) {
            d->listed = true;
            continue;
        }
        if (PNA_ARRAY_RESERVE(w->devs, w->cap_devs, w->n_devs + 1) != 0)
            break;
        d = &w->devs[w->n_devs++];
        memset(d, 0, sizeof *d);
        pna_strlcpy(d->name, names[i], sizeof d->name);
        d->listed = true;
        open_device(w, d);
    }
    free(names);
    size_t kept = 0;
    for (size_t i = 0; i < w->n_devs; i++) {
        if (!w->devs[i].listed)
            close_device(w, &w->devs[i]);
        else
            w->devs[kept++] = w->devs[i];
    }
    w->n_devs = kept;
    size_t open = 0;
    for (size_t i = 0; i < w->n_devs; i++)
        open += w->devs[i].ctx != NULL;
    pthread_mutex_lock(&w->lock);
    w->stats.devices_open = open;
    pthread_mutex_unlock(&w->lock);
}

/* ---- on the loop ------------------------------------------------------------------ */

/* Loop thread: what a sync asked for (devices to open or close, a dump). */
static int64_t on_sync_due(void *arg)
{
    struct pna_link_watch *w = arg;
    pthread_mutex_lock(&w->lock);
    w->sync_timer = 0;
    bool dump = w->need_dump;
    w->need_dump = false;
    pthread_mutex_unlock(&w->lock);
    if (w->async)
        reconcile_devices(w);
    if (dump)
        request_dump(w);
    return PNA_LOOP_TIMER_DONE;
}

static void on_rtnl_ready(void *arg, int fd, unsigned ready)
{
    (void)fd, (void)ready;
    struct pna_link_watch *w = arg;
    if (drain_rtnl(w))
        wake_pollers();
}

static void on_device_ready(void *arg, int fd, unsigned ready)
{
    (void)ready;
    struct pna_link_watch *w = arg;
    for (size_t i = 0; i < w->n_devs; i++)
        if (w->devs[i].ctx && w->devs[i].fd == fd) {
            if (drain_device(w, &w->devs[i]))
                wake_pollers();
            return;
        }
}

static int open_rtnl(struct pna_link_watch *w, char *err, size_t errlen)
{
    if (!w->rtnl)
        return 0;
    w->sock = w->rtnl->open(err, errlen);
    if (!w->sock)
        return -1;
    w->sock_reg = pna_loop_add_fd(w->loop, w->rtnl->fd(w->sock), PNA_LOOP_READ, on_rtnl_ready, w);
    if (!w->sock_reg) {
        snprintf(err, errlen, "epoll: %s", strerror(errno));
        w->rtnl->close(w->sock);
        w->sock = NULL;
        return -1;
    }
    return 0;
}

struct pna_link_watch *pna_link_watch_new(struct pna_loop *loop, const struct pna_rtnl_ops *rtnl,
                                          const struct pna_ib_async_ops *async,
                                          char *err, size_t errlen)
{
    struct pna_link_watch *w = calloc(1, sizeof *w);
    if (!w || !(w->buf = malloc(RTNL_BUF))) {
        free(w);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    pthread_mutex_init(&w->lock, NULL);
    w->loop = loop;
    w->rtnl = rtnl;
    w->async = async;
    char why[160] = "";
    if (open_rtnl(w, why, sizeof why) != 0) {
        if (!async) {
            snprintf(err, errlen, "rtnetlink: %s", why);
            pna_link_watch_free(w);
            return NULL;
        }
        pna_log(LOG_WARNING, "link watch: rtnetlink: %s; RoCE carrier changes are polled", why);
        w->rtnl = NULL;
    }
    if (!w->rtnl && !async) {
        snprintf(err, errlen, "neither rtnetlink nor verbs events are available");
        pna_link_watch_free(w);
        return NULL;
    }
    return w;
}

/* Under the lock: the known state of NETDEV in the current targets. */
static const struct target *old_netdev(const struct pna_link_watch *w, const char *netdev)
{
    for (size_t i = 0; i < w->n_targets; i++)
        if (!w->targets[i].t.infiniband && strcmp(w->targets[i].t.netdev, netdev) == 0)
            return &w->targets[i];
    return NULL;
}

int pna_link_watch_sync(struct pna_link_watch *w, const struct pna_link_target *targets, size_t n)
{
    struct target *next = n ? calloc(n, sizeof *next) : NULL;
    if (n && !next)
        return -1;
    bool added_netdev = false, devices_changed = false;
    pthread_mutex_lock(&w->lock);
    for (size_t i = 0; i < n; i++) {
        next[i].t = targets[i];
        if (targets[i].infiniband) {
            devices_changed |= !ib_target(w, targets[i].device, targets[i].port);
            continue;
        }
        if (!targets[i].netdev[0])
            continue;
        const struct target *o = old_netdev(w, targets[i].netdev);
        if (o) {
            next[i].known = o->known;
            next[i].up = o->up;
        } else {
            added_netdev = true;
        }
    }
    devices_changed |= w->n_targets != n;
    free(w->targets);
    w->targets = next;
    w->n_targets = n;
    w->need_dump |= added_netdev;
    /* The loop takes it up: devices are opened there, and a dump's answer
     * is read there. */
    if (((added_netdev && w->rtnl) || (devices_changed && w->async)) && !w->sync_timer)
        w->sync_timer = pna_loop_add_timer(w->loop, 0, on_sync_due, w);
    pthread_mutex_unlock(&w->lock);
    return 0;
}

/* With no callback running: off the loop, devices and socket closed. */
static void leave_loop(void *arg)
{
    struct pna_link_watch *w = arg;
    pthread_mutex_lock(&w->lock);
    pna_loop_cancel_timer(w->loop, w->sync_timer);
    w->sync_timer = 0;
    pthread_mutex_unlock(&w->lock);
    for (size_t i = 0; i < w->n_devs; i++)
        close_device(w, &w->devs[i]);
    pna_loop_remove_fd(w->loop, w->sock_reg);
    if (w->sock)
        w->rtnl->close(w->sock);
    w->sock = NULL;
}

void pna_link_watch_free(struct pna_link_watch *w)
{
    if (!w)
        return;
    pna_loop_call(w->loop, leave_loop, w);
    free(w->devs);
    pthread_mutex_destroy(&w->lock);
    free(w->targets);
    free(w->buf);
    free(w);
}

/* ---- libmnl ------------------------------------------------------------------ */

#ifdef HAVE_LIBMNL

#include <libmnl/libmnl.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>

static void *mnl_open(char *err, size_t errlen)
{
    struct mnl_socket *nl = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (!nl) {
        snprintf(err, errlen, "socket: %s", strerror(errno));
        return NULL;
    }
    /* Joining the link group needs no capability (rtnetlink marks none of
     * its groups NL_CFG_F_NONROOT_RECV-only). */
    if (mnl_socket_bind(nl, RTMGRP_LINK, MNL_SOCKET_AUTOPID) < 0) {
        snprintf(err, errlen, "bind to RTNLGRP_LINK: %s", strerror(errno));
        mnl_socket_close(nl);
        return NULL;
    }
    return nl;
}

static int mnl_fd(void *sock)
{
    return mnl_socket_get_fd(sock);
}

static long mnl_recv(void *sock, void *buf, size_t cap)
{
    return (long)mnl_socket_recvfrom(sock, buf, cap);
}

static int mnl_dump(void *sock)
{
    char buf[MNL_SOCKET_BUFFER_SIZE];
    struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
    nlh->nlmsg_type = RTM_GETLINK;
    nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
    nlh->nlmsg_seq = (uint32_t)time(NULL);
    struct rtgenmsg *rt = mnl_nlmsg_put_extra_header(nlh, sizeof *rt);
    rt->rtgen_family = AF_UNSPEC;
    return mnl_socket_sendto(sock, nlh, nlh->nlmsg_len) < 0 ? -1 : 0;
}

static void mnl_close(void *sock)
{
    mnl_socket_close(sock);
}

const struct pna_rtnl_ops pna_rtnl_libmnl = {
    .open = mnl_open,
    .fd = mnl_fd,
    .recv = mnl_recv,
    .request_dump = mnl_dump,
    .close = mnl_close,
};

#endif /* HAVE_LIBMNL */
