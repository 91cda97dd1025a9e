/* test_link_events.c -- the ib poller consuming the link watcher's changes
 * (watchers/link_watch.c, pollers/ib_poller.c), with stand-ins for the
 * rtnetlink socket (a socketpair the test writes the kernel's captured
 * RTM_NEWLINK messages into, tests/fixtures/rtnl/) and for libibverbs'
 * asynchronous events (a queue behind an eventfd), on a temp sysfs tree with
 * a RoCE port (netdev rv0, the captures' interface) and an InfiniBand port:
 *   - RoCE flaps shorter than a poll: DOWN, UP, DOWN, UP in order, two flaps,
 *     while the state file reads ACTIVE throughout;
 *   - no double counting: a change the poll saw first and the event that
 *     follows it count once, and a port whose state file reads ACTIVE while
 *     its carrier is off stays down;
 *   - InfiniBand PORT_ERR / PORT_ACTIVE, events for ports not watched;
 *   - linkEvents no: no watcher, the poll alone. */
#include "pna_autoconf.h"
#include "core/config.h"
#include "pollers/pollers.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "core/cache.h"
#include "core/events.h"
#include "model/ib.h"
#include "sources/rdma/ib_verbs.h"
#include "unit.h"
#include "util/fileio.h"
#include "watchers/link_watch.h"

static char root[] = "/tmp/pna-linkev-XXXXXX";

#define ROCE "class/infiniband/mlx5_0/ports/1/"
#define IB "class/infiniband/ibp0/ports/1/"

static void put(const char *rel, const char *content)
{
    unit_put(root, rel, content);
}

static void sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

/* ---- tests/fixtures/rtnl/ ------------------------------------------------------ */

static uint8_t *load(const char *name, size_t *len)
{
    char path[PATH_MAX];
    char *data = NULL;
    snprintf(path, sizeof path, "%s/rtnl/%s", unit_fixtures(), name);
    if (pna_read_alloc(path, 65536, &data, len) != 0) {
        fprintf(stderr, "cannot read %s\n", path);
        exit(99);
    }
    return (uint8_t *)data;
}

/* ---- the rtnetlink stand-in: a datagram socketpair --------------------------- */

static int rtnl_pair[2] = { -1, -1 };   /* [0] the watcher's, [1] the kernel's */
static atomic_int rtnl_opens, rtnl_dumps;

static void send_capture(const char *name)
{
    size_t len;
    uint8_t *msg = load(name, &len);
    if (send(rtnl_pair[1], msg, len, 0) != (ssize_t)len)
        perror("send");
    free(msg);
}

static void *stub_rtnl_open(char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    rtnl_opens++;
    return &rtnl_pair[0];
}

static int stub_rtnl_fd(void *sock)
{
    return *(int *)sock;
}

static long stub_rtnl_recv(void *sock, void *buf, size_t cap)
{
    return (long)recv(*(int *)sock, buf, cap, MSG_DONTWAIT);
}

/* The kernel answers a dump with rv0's state: carrier on. */
static int stub_rtnl_dump(void *sock)
{
    (void)sock;
    send_capture("dump-0-carrier1.bin");
    rtnl_dumps++;
    return 0;
}

static void stub_rtnl_close(void *sock)
{
    (void)sock;
}

static const struct pna_rtnl_ops stub_rtnl = {
    .open = stub_rtnl_open, .fd = stub_rtnl_fd, .recv = stub_rtnl_recv,
    .request_dump = stub_rtnl_dump, .close = stub_rtnl_close,
};

/* ---- the libibverbs stand-in: one device, ibp0, and a queue of events -------- */

static int ib_efd = -1;
static pthread_mutex_t ib_lock = PTHREAD_MUTEX_INITIALIZER;
static struct pna_ib_async_event ib_queue[16];
static size_t ib_queued, ib_head;
static atomic_int ib_opens;

static void push_ib(uint8_t kind, uint32_t port)
{
    pthread_mutex_lock(&ib_lock);
    ib_queue[(ib_head + ib_queued++) % 16] = (struct pna_ib_async_event){ kind, port };
    pthread_mutex_unlock(&ib_lock);
    uint64_t one = 1;
    if (write(ib_efd, &one, sizeof one) != sizeof one)
        perror("eventfd");
}

static void *stub_ib_open(const char *device)
{
    if (strcmp(device, "ibp0") != 0)
        return NULL;
    ib_opens++;
    return &ib_efd;
}

static int stub_ib_fd(void *ctx)
{
    return *(int *)ctx;
}

static int stub_ib_get(void *ctx, struct pna_ib_async_event *out)
{
    (void)ctx;
    pthread_mutex_lock(&ib_lock);
    int rc = 0;
    if (ib_queued) {
        *out = ib_queue[ib_head];
        ib_head = (ib_head + 1) % 16;
        ib_queued--;
        rc = 1;
    } else {
        uint64_t v;
        if (read(ib_efd, &v, sizeof v) < 0 && errno != EAGAIN)
            perror("eventfd");
    }
    pthread_mutex_unlock(&ib_lock);
    return rc;
}

static void stub_ib_close(void *ctx)
{
    (void)ctx;
}

static const struct pna_ib_async_ops stub_async = {
    .open_device = stub_ib_open, .event_fd = stub_ib_fd, .get_event = stub_ib_get,
    .close_device = stub_ib_close,
};

/* ---- polls and the events they posted ------------------------------------------ */

static struct pna_event seen[64];
static size_t n_seen;

static void sink(const struct pna_event *ev, void *arg)
{
    (void)arg;
    if (n_seen < sizeof seen / sizeof seen[0])
        seen[n_seen++] = *ev;
}

static const struct pna_ib_snap *poll_once(void *state)
{
    char err[160] = "";
    struct pna_snap *out = NULL;
    int rc = pna_poller_collect(&pna_ib_poller, state, &out, err, sizeof err);
    CHECK_INT(rc, 0);
    if (rc != 0 || !out)
        return NULL;
    pna_cache_publish(pna_ib_poller.domain, out);
    pna_events_drain(sink, NULL);
    return (const struct pna_ib_snap *)out;
}

static const struct pna_ib_port *port_in(const struct pna_ib_snap *s, const char *device)
{
    const struct pna_ib_device *d = s ? pna_ib_find_device(&s->model, device) : NULL;
    return d ? pna_ib_find_port(d, 1) : NULL;
}

/* Poll until N_SEEN reaches WANT (the watcher works on its own thread), for
 * at most two seconds; then once more, to see that nothing else comes. */
static const struct pna_ib_snap *poll_until(void *state, size_t want)
{
    for (int i = 0; i < 100 && n_seen < want; i++) {
        sleep_ms(20);
        poll_once(state);
    }
    sleep_ms(50);
    return poll_once(state);
}

/* Events SEEN[FROM..] are DOWN/UP of SUBJECT in the order of PATTERN ("DUDU"). */
static void check_order(size_t from, const char *subject, const char *pattern)
{
    size_t n = strlen(pattern);
    CHECK_U64(n_seen - from, n);
    for (size_t i = 0; i < n && from + i < n_seen; i++) {
        const struct pna_event *ev = &seen[from + i];
        CHECK_INT(ev->type, pattern[i] == 'D' ? PNA_EV_IB_PORT_DOWN : PNA_EV_IB_PORT_UP);
        CHECK_STR(ev->subject, subject);
        CHECK_INT(ev->u.ib_port.new_state, pattern[i] == 'D' ? 1 : 4);
    }
}

static void make_tree(void)
{
    put(ROCE "state", "4: ACTIVE\n");
    put(ROCE "link_layer", "Ethernet\n");
    put(ROCE "gid_attrs/ndevs/0", "rv0\n");
    put("class/net/rv0/ifindex", "3\n");
    put(IB "state", "4: ACTIVE\n");
    put(IB "link_layer", "InfiniBand\n");
}

static void wait_for(atomic_int *counter, int want)
{
    for (int i = 0; i < 200 && *counter < want; i++)
        sleep_ms(10);
    CHECK(*counter >= want);
}

static void test_roce(void *state)
{
    /* two flaps within one poll; the state file never changes */
    size_t from = n_seen;
    send_capture("newlink-0-carrier0.bin");
    send_capture("newlink-1-carrier1.bin");
    send_capture("newlink-0-carrier0.bin");
    send_capture("newlink-1-carrier1.bin");
    const struct pna_ib_snap *s = poll_until(state, from + 4);
    check_order(from, "mlx5_0/1", "DUDU");
    const struct pna_ib_port *p = port_in(s, "mlx5_0");
    CHECK(p && p->flaps == 2 && p->state == 4);
    CHECK(p && p->last_change_s >= (uint32_t)(pna_now_ms() / 1000) - 5);
    if (n_seen > from) {
        CHECK(strstr(seen[from].text, "carrier lost on rv0") != NULL);
        CHECK(seen[from].time_ms > 0);
    }

    /* the same message again (the kernel repeats RTM_NEWLINK for other
     * reasons): no change */
    from = n_seen;
    send_capture("newlink-1-carrier1.bin");
    poll_until(state, from + 1);
    CHECK_U64(n_seen, from);

    /* carrier lost while the state file reads ACTIVE: down until the
     * carrier returns, however many polls read ACTIVE */
    send_capture("newlink-0-carrier0.bin");
    poll_until(state, from + 1);
    s = poll_once(state);
    check_order(from, "mlx5_0/1", "D");
    p = port_in(s, "mlx5_0");
    CHECK(p && p->flaps == 3);

    /* the carrier returns: up */
    from = n_seen;
    send_capture("newlink-1-carrier1.bin");
    s = poll_until(state, from + 1);
    check_order(from, "mlx5_0/1", "U");

    /* the poll sees DOWN first, the carrier event follows: one DOWN, one
     * flap; then ACTIVE with the carrier still off: nothing; then the
     * carrier: one UP */
    from = n_seen;
    put(ROCE "state", "1: DOWN\n");
    poll_once(state);
    check_order(from, "mlx5_0/1", "D");
    send_capture("newlink-0-carrier0.bin");
    put(ROCE "state", "4: ACTIVE\n");
    s = poll_until(state, from + 2);
    check_order(from, "mlx5_0/1", "D");
    p = port_in(s, "mlx5_0");
    CHECK(p && p->flaps == 4);
    send_capture("newlink-1-carrier1.bin");
    s = poll_until(state, from + 2);
    check_order(from, "mlx5_0/1", "DU");
    p = port_in(s, "mlx5_0");
    CHECK(p && p->flaps == 4);
}

static void test_infiniband(void *state)
{
    wait_for(&ib_opens, 1);
    /* a flap within one poll: PORT_ERR then PORT_ACTIVE, state ACTIVE */
    size_t from = n_seen;
    push_ib(PNA_IB_ASYNC_PORT_ERR, 1);
    push_ib(PNA_IB_ASYNC_OTHER, 0);
    push_ib(PNA_IB_ASYNC_PORT_ACTIVE, 1);
    const struct pna_ib_snap *s = poll_until(state, from + 2);
    check_order(from, "ibp0/1", "DU");
    const struct pna_ib_port *p = port_in(s, "ibp0");
    CHECK(p && p->flaps == 1);
    if (n_seen > from)
        CHECK(strstr(seen[from].text, "port error event") != NULL);

    /* an event for a port the poll does not list: nothing */
    from = n_seen;
    push_ib(PNA_IB_ASYNC_PORT_ERR, 2);
    poll_until(state, from + 1);
    CHECK_U64(n_seen, from);

    /* the event and the poll both see the port go down: counted once */
    put(IB "state", "1: DOWN\n");
    push_ib(PNA_IB_ASYNC_PORT_ERR, 1);
    poll_until(state, from + 1);
    s = poll_once(state);
    check_order(from, "ibp0/1", "D");
    p = port_in(s, "ibp0");
    CHECK(p && p->flaps == 2);

    /* the poll sees it come back before the event does: one UP */
    put(IB "state", "4: ACTIVE\n");
    poll_once(state);
    push_ib(PNA_IB_ASYNC_PORT_ACTIVE, 1);
    s = poll_until(state, from + 3);
    check_order(from, "ibp0/1", "DU");
    p = port_in(s, "ibp0");
    CHECK(p && p->flaps == 2);
    /* the RoCE port's counter did not move */
    p = port_in(s, "mlx5_0");
    CHECK(p && p->flaps == 4);
}

/* linkEvents no: no watcher; the poll alone, a flap between polls unseen. */
static void test_no_events(struct pna_config *cfg)
{
    struct pna_ib_settings *ib_set = pna_config_settings(cfg, &pna_ib_poller);
    ib_set->link_events = false;
    int opens = rtnl_opens;
    void *state = NULL;
    char err[160];
    CHECK_INT(pna_ib_poller.init(&state, cfg, ib_set, err, sizeof err), 0);
    poll_once(state);
    size_t from = n_seen;
    send_capture("newlink-0-carrier0.bin");
    sleep_ms(100);
    poll_once(state);
    CHECK_U64(n_seen, from);
    CHECK_INT(rtnl_opens, opens);
    put(ROCE "state", "1: DOWN\n");
    const struct pna_ib_snap *s = poll_once(state);
    check_order(from, "mlx5_0/1", "D");
    const struct pna_ib_port *p = port_in(s, "mlx5_0");
    CHECK(p && p->flaps == 1);
    pna_ib_poller.fini(state);
    put(ROCE "state", "4: ACTIVE\n");
    ib_set->link_events = true;
}

int main(void)
{
    if (!mkdtemp(root)) {
        perror("mkdtemp");
        return 1;
    }
    if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, rtnl_pair) != 0 ||
        (ib_efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0) {
        perror("socketpair/eventfd");
        return 99;
    }
    struct pna_config cfg;
    pna_config_defaults(&cfg);
    char cerr[256];
    CHECK_INT(pna_config_set_pollers(&cfg, pna_poller_registry, pna_poller_registry_len, cerr,
                                     sizeof cerr), 0);
    const struct pna_ib_settings *ib_set = pna_config_settings(&cfg, &pna_ib_poller);
    CHECK(ib_set->link_events); /* linkEvents: yes unless said otherwise */
    cfg.roots.sysfs = root;
    CHECK_INT(pna_events_init(64), 0);
    make_tree();
    pna_ib_poller_set_ext_ops(NULL, NULL, NULL, true);
    pna_ib_poller_set_link_ops(&stub_rtnl, &stub_async);

    void *state = NULL;
    char err[160] = "";
    CHECK_INT(pna_ib_poller.init(&state, &cfg, ib_set, err, sizeof err), 0);
    CHECK_INT(rtnl_opens, 1);
    const struct pna_ib_snap *s = poll_once(state);
    CHECK_U64(n_seen, 0);
    CHECK(s && s->model.n_devices == 2);
    const struct pna_ib_port *p = port_in(s, "mlx5_0");
    CHECK(p && p->flaps == 0 && p->last_change_s == 0);
    wait_for(&rtnl_dumps, 1); /* the baseline: rv0 has its carrier */

    test_roce(state);
    test_infiniband(state);
    pna_ib_poller.fini(state);
    pna_cache_clear();
    test_no_events(&cfg);
    pna_cache_clear();
    pna_events_shutdown();
    pna_config_free(&cfg);

    close(rtnl_pair[0]);
    close(rtnl_pair[1]);
    close(ib_efd);
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", root);
    UNIT_END();
}
