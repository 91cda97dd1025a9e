/* watchers/link_watch.h -- RDMA port state changes as they happen.
 *
 * On an event loop (core/event_loop.h), the watch reads:
 *   - an rtnetlink socket subscribed to RTNLGRP_LINK: a change of carrier
 *     (IFLA_CARRIER, IFF_LOWER_UP), operstate or flags of any interface in
 *     the socket's network namespace arrives as RTM_NEWLINK (RTM_DELLINK when
 *     it goes); those of the RoCE ports' netdevs are kept.  Listening needs
 *     no capability;
 *   - the asynchronous event channel of each InfiniBand device
 *     (ibv_get_async_event: IBV_EVENT_PORT_ACTIVE, IBV_EVENT_PORT_ERR), which
 *     needs read-write access to its /dev/infiniband/uverbsN.
 * Each change (a netdev's carrier gained or lost, an InfiniBand port made
 * active or in error) is recorded, with its monotonic and wall-clock time, in
 * a bounded queue that the ib poller consumes in order, and the ib poller
 * (index 3) and the phy poller (index 9) are woken at once.
 *
 * A netdev's change is a change of pna_rtnl_link_up() against the last state
 * the watch knew: the kernel sends RTM_NEWLINK for many other reasons (a
 * statistics or address change), which are not changes here.  The known
 * state comes from an RTM_GETLINK dump made whenever the list of netdevs
 * grows and after the socket overflowed (ENOBUFS); a dump's answer that
 * differs from the known state is a change too (one that was missed).
 *
 * Both sources sit behind tables of functions (struct pna_rtnl_ops, struct
 * pna_ib_async_ops in sources/rdma/ib_verbs.h) that tests replace; the real
 * ones exist only with libmnl (HAVE_LIBMNL) and libibverbs (HAVE_IBVERBS).
 *
 * Thread ownership: the targets, the netdev states and the queue are shared
 * between the caller (sync, take) and the loop's thread, under one lock; the
 * socket and the device contexts are read on the loop's thread alone. */
#ifndef PNA_WATCHERS_LINK_WATCH_H
#define PNA_WATCHERS_LINK_WATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sources/rdma/ib_verbs.h"

#define PNA_LINK_QUEUE_MAX 256     /* changes kept between two takes; older ones dropped */
#define PNA_LINK_WAKE_IB_POLLER 3
#define PNA_LINK_WAKE_PHY_POLLER 9

/* A port to watch: an InfiniBand port through its device's events, any other
 * (RoCE) through its netdev. */
struct pna_link_target {
    char device[64];
    uint32_t port;
    bool infiniband;
    char netdev[32];
};

enum pna_link_source {
    PNA_LINK_FROM_VERBS = 1,       /* DEVICE/PORT */
    PNA_LINK_FROM_NETDEV = 2,      /* NETDEV/IFINDEX */
};

struct pna_link_change {
    uint8_t source;                /* enum pna_link_source */
    bool up;                       /* PORT_ACTIVE, carrier gained; else lost */
    char device[64];
    uint32_t port;
    char netdev[32];
    int32_t ifindex;
    int64_t mono_ms;               /* CLOCK_MONOTONIC when it was received */
    int64_t wall_ms;               /* CLOCK_REALTIME, the same moment */
};

/* The rtnetlink socket.  RECV reads without blocking: the bytes of one
 * datagram, or -1 with errno (EAGAIN: nothing waits; ENOBUFS: notifications
 * were lost). */
struct pna_rtnl_ops {
    void *(*open)(char *err, size_t errlen);  /* bound to RTNLGRP_LINK */
    int (*fd)(void *sock);
    long (*recv)(void *sock, void *buf, size_t cap);
    int (*request_dump)(void *sock);          /* RTM_GETLINK, NLM_F_DUMP; 0 or -1 */
    void (*close)(void *sock);
};

#ifdef HAVE_LIBMNL
extern const struct pna_rtnl_ops pna_rtnl_libmnl;
#endif

struct pna_link_watch;

struct pna_loop;

/* Watch with RTNL and ASYNC (either may be NULL: that source is not used) on
 * LOOP.  NULL with ERR when neither source could be opened. */
struct pna_link_watch *pna_link_watch_new(struct pna_loop *loop, const struct pna_rtnl_ops *rtnl,
                                          const struct pna_ib_async_ops *async,
                                          char *err, size_t errlen);

/* Make the watched ports exactly TARGETS.  Returns 0, or -1 when out of
 * memory (the old set stays). */
int pna_link_watch_sync(struct pna_link_watch *w, const struct pna_link_target *targets, size_t n);

/* Move up to CAP recorded changes, oldest first, into OUT; returns how many.
 * *LOST (may be NULL) is set when changes were dropped since the last take
 * (the queue was full): the caller's view of carriers is then not to be
 * trusted until the next poll. */
size_t pna_link_watch_take(struct pna_link_watch *w, struct pna_link_change *out, size_t cap,
                           bool *lost);

struct pna_link_watch_stats {
    uint64_t recorded;             /* changes put in the queue */
    uint64_t dropped;              /* changes lost to a full queue */
    uint64_t malformed;            /* rtnetlink datagrams refused by the parser */
    uint64_t overflows;            /* ENOBUFS on the rtnetlink socket */
    size_t devices_open;           /* InfiniBand devices whose events are read */
};
void pna_link_watch_stats(struct pna_link_watch *w, struct pna_link_watch_stats *out);

/* Off the loop, everything closed. NULL is allowed. */
void pna_link_watch_free(struct pna_link_watch *w);

#endif
