/* sources/rdma/ib_verbs.h -- port attributes that sysfs does not show, read with
 * libibverbs (ibv_query_port): the active and the largest supported MTU.
 *
 * A RoCE port whose active MTU is 1024 while the fabric runs 4096, or an IB
 * port that came up at 2048, loses bandwidth without a single error counter
 * moving; the MTU is only visible through verbs.
 *
 * As with ib_mad.h, the decision logic is here and the library calls sit
 * behind a table of functions (struct pna_ib_verbs_ops) that tests stub;
 * the real table is built only with HAVE_IBVERBS.  libibverbs reads the
 * process's own /sys (the poller uses this only when pna_ib_host_roots()),
 * returns NULL with ENOSYS from ibv_get_device_list() on a kernel without
 * RDMA, and may warn on stderr about devices without a user-space driver:
 * a device is opened only when sysfs shows a uverbs device for it that the
 * agent may open, and a device whose open fails is never tried again.
 *
 * Thread ownership: one struct pna_ib_verbs belongs to the ib poller thread. */
#ifndef PNA_SOURCES_IB_VERBS_H
#define PNA_SOURCES_IB_VERBS_H

#include <stddef.h>
#include <stdint.h>

#include "model/ib.h"
#include "core/roots.h"

struct pna_ib_port_attr {
    uint32_t active_mtu_octets;  /* 256..4096; 0 unknown */
    uint32_t max_mtu_octets;
};

struct pna_ib_verbs_ops {
    /* Open the verbs device named DEVICE (ibv_get_device_list, then
     * ibv_open_device on the entry of that name); NULL on failure. */
    void *(*open_device)(const char *device);
    /* ibv_query_port of PORT.  0 or -1. */
    int (*query_port)(void *ctx, uint32_t port, struct pna_ib_port_attr *out);
    void (*close_device)(void *ctx);
};

#ifdef HAVE_IBVERBS
extern const struct pna_ib_verbs_ops pna_ib_verbs_libibverbs;
#endif

/* Port state changes as the device reports them (ibv_get_async_event on the
 * device's asynchronous event channel), for the link watcher
 * (watchers/link_watch.c), which owns every context it opens with this table
 * and uses it on its own thread only. */
enum pna_ib_async_kind {
    PNA_IB_ASYNC_OTHER = 0,      /* any other event: acknowledged, ignored */
    PNA_IB_ASYNC_PORT_ACTIVE,    /* IBV_EVENT_PORT_ACTIVE */
    PNA_IB_ASYNC_PORT_ERR,       /* IBV_EVENT_PORT_ERR: the port left ACTIVE */
};

struct pna_ib_async_event {
    uint8_t kind;                /* enum pna_ib_async_kind */
    uint32_t port;
};

struct pna_ib_async_ops {
    /* Open DEVICE for its events; NULL on failure. */
    void *(*open_device)(const char *device);
    /* The descriptor that becomes readable when an event waits, set
     * non-blocking; -1 on failure. */
    int (*event_fd)(void *ctx);
    /* Take one waiting event into OUT and acknowledge it (ibv_ack_async_event):
     * 1, 0 when none waits, -1 on error. */
    int (*get_event)(void *ctx, struct pna_ib_async_event *out);
    void (*close_device)(void *ctx);
};

#ifdef HAVE_IBVERBS
extern const struct pna_ib_async_ops pna_ib_async_libibverbs;
#endif

/* IBV_MTU_256 (1) .. IBV_MTU_4096 (5) in octets; 0 for anything else. */
uint32_t pna_ib_mtu_octets(int ibv_mtu);

struct pna_ib_verbs;

/* A new attribute reader using OPS; uverbs devices are looked up under ROOTS
 * (sysfs class/infiniband_verbs, devfs infiniband/uverbsN).  NULL when out
 * of memory. */
struct pna_ib_verbs *pna_ib_verbs_new(const struct pna_ib_verbs_ops *ops,
                                      const struct pna_roots *roots);
void pna_ib_verbs_free(struct pna_ib_verbs *v);

/* Fill the MTU fields of every port of M whose device can be opened.
 * Returns the number of ports filled. */
size_t pna_ib_verbs_apply(struct pna_ib_verbs *v, struct pna_ib_model *m);

enum pna_ib_verbs_dev_state {
    PNA_VERBS_UNTRIED = 0,
    PNA_VERBS_OPEN = 1,        /* opened: ports queried every poll */
    PNA_VERBS_NO_UVERBS = 2,   /* no uverbs device, or no permission (looked at again
                                * next poll: no library call is made for it) */
    PNA_VERBS_FAILED = 3,      /* the library could not open it: given up */
};
enum pna_ib_verbs_dev_state pna_ib_verbs_dev_state(const struct pna_ib_verbs *v,
                                                   const char *device);

#endif
