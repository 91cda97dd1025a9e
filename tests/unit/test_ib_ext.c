/* test_ib_ext.c -- what libibmad and libibverbs add to the sysfs model, with
 * the library calls stubbed (no InfiniBand hardware here): which ports are
 * asked for PortCountersExtended (InfiniBand, ACTIVE, with a LID, 32-bit sysfs
 * counters, a umad device the agent may open), the fallbacks (open or first
 * query failing: never tried again; no extended counters: sysfs kept; a
 * serving port failing: absent, then retried after 2, 4... polls), which
 * devices verbs opens (once), and the ib poller using neither library on a
 * tree that is not the host's own /sys. */
#include "pna_autoconf.h"
#include "core/config.h"
#include "sources/rdma/ib_mad.h"
#include "sources/rdma/ib_verbs.h"

#include <errno.h>
#include <limits.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/cache.h"
#include "pollers/pollers.h"
#include "sources/rdma/ib_sysfs.h"
#include "core/events.h"
#include "model/ib.h"
#include "model/oids.h"
#include "snmp/table.h"
#include "model/metric_tables.h"
#include "util/fileio.h"
#include "unit.h"
#include "mib_columns.h"

static char root[] = "/tmp/pna-ibext-XXXXXX";

static void put(const char *rel, const char *content)
{
    unit_put(root, rel, content);
}

static void rm(const char *rel)
{
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf %s/%s", root, rel);
    CHECK_INT(system(cmd), 0);
}

/* An InfiniBand port with the 32-bit PortCounters files only. */
static void ib_port(const char *dev, unsigned port, const char *state, unsigned lid)
{
    char rel[160], buf[32];
    struct { const char *file, *value; } files[] = {
        { "state", state }, { "link_layer", "InfiniBand\n" }, { "rate", "56 Gb/sec (4X FDR)\n" },
        { "counters/port_xmit_data", "4294967295\n" }, { "counters/port_rcv_data", "1000\n" },
        { "counters/port_xmit_packets", "70\n" }, { "counters/port_rcv_packets", "80\n" },
        { "counters/symbol_error", "3\n" },
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(rel, sizeof rel, "sys/class/infiniband/%s/ports/%u/%s", dev, port, files[i].file);
        put(rel, files[i].value);
    }
    snprintf(rel, sizeof rel, "sys/class/infiniband/%s/ports/%u/lid", dev, port);
    snprintf(buf, sizeof buf, "0x%x\n", lid);
    put(rel, buf);
}

/* A umad device for DEV/PORT, with (or without) its /dev node. */
static void umad(unsigned n, const char *dev, unsigned port, bool node)
{
    char rel[96], buf[80];
    snprintf(rel, sizeof rel, "sys/class/infiniband_mad/umad%u/ibdev", n);
    snprintf(buf, sizeof buf, "%s\n", dev);
    put(rel, buf);
    snprintf(rel, sizeof rel, "sys/class/infiniband_mad/umad%u/port", n);
    snprintf(buf, sizeof buf, "%u\n", port);
    put(rel, buf);
    if (node) {
        snprintf(rel, sizeof rel, "dev/infiniband/umad%u", n);
        put(rel, "");
    }
}

/* ---- the stub libibmad ------------------------------------------------- */

struct stub_port {
    char device[64];
    uint32_t port;
    bool open_fails, cpi_fails, query_fails;
    uint16_t cap;
    unsigned opens, cpis, queries;
    uint32_t lid_seen;
    struct pna_pma_ext ext;
};
static struct stub_port sp[16];
static size_t n_sp;
static unsigned mad_opens, mad_closes, mad_calls;

static struct stub_port *stub(const char *device, uint32_t port)
{
    for (size_t i = 0; i < n_sp; i++)
        if (sp[i].port == port && strcmp(sp[i].device, device) == 0)
            return &sp[i];
    struct stub_port *s = &sp[n_sp++];
    memset(s, 0, sizeof *s);
    pna_strlcpy(s->device, device, sizeof s->device);
    s->port = port;
    s->cap = PNA_PMA_CAP_EXT_WIDTH;
    s->ext = (struct pna_pma_ext){ UINT64_C(5000000000), 1000, 70, 80, 60, 75, 10, 5 };
    return s;
}

static void *stub_open(const char *device, uint32_t port)
{
    struct stub_port *s = stub(device, port);
    mad_calls++;
    s->opens++;
    if (s->open_fails)
        return NULL;
    mad_opens++;
    return s;
}

static int stub_cpi(void *h, uint32_t lid, uint32_t port, uint16_t *cap)
{
    struct stub_port *s = h;
    mad_calls++;
    s->cpis++;
    CHECK_INT(port, s->port);
    if (s->cpi_fails)
        return -1;
    *cap = s->cap;
    s->lid_seen = lid;
    return 0;
}

static int stub_query(void *h, uint32_t lid, uint32_t port, struct pna_pma_ext *out)
{
    struct stub_port *s = h;
    mad_calls++;
    s->queries++;
    CHECK_INT(port, s->port);
    CHECK_INT(lid, s->lid_seen);
    if (s->query_fails)
        return -1;
    *out = s->ext;
    return 0;
}

static void stub_close(void *h)
{
    (void)h;
    mad_closes++;
}

static const struct pna_ib_mad_ops stub_mad = { stub_open, stub_cpi, stub_query, stub_close };

/* ---- the stub libibverbs ----------------------------------------------- */

static unsigned verbs_opens, verbs_closes, verbs_calls, verbs_open_tries[4];
static int vctx[4];

static void *stub_vopen(const char *device)
{
    verbs_calls++;
    if (strcmp(device, "mlx4_0") == 0 || strcmp(device, "mlx4_9") == 0) {
        verbs_open_tries[0]++;
        verbs_opens++;
        return &vctx[0];
    }
    if (strcmp(device, "mlx5_0") == 0)
        verbs_open_tries[1]++;
    else
        verbs_open_tries[2]++;
    return NULL;
}

static int stub_vquery(void *ctx, uint32_t port, struct pna_ib_port_attr *out)
{
    verbs_calls++;
    CHECK(ctx == &vctx[0]);
    if (port == 2)
        return -1;
    out->active_mtu_octets = pna_ib_mtu_octets(4); /* IBV_MTU_2048 */
    out->max_mtu_octets = pna_ib_mtu_octets(5);
    return 0;
}

static void stub_vclose(void *ctx)
{
    (void)ctx;
    verbs_closes++;
}

static const struct pna_ib_verbs_ops stub_verbs = { stub_vopen, stub_vquery, stub_vclose };

/* ---- helpers ----------------------------------------------------------- */

static struct pna_roots tree_roots(char *sys, char *dev, size_t cap)
{
    struct pna_roots r = PNA_ROOTS_DEFAULT;
    snprintf(sys, cap, "%s/sys", root);
    snprintf(dev, cap, "%s/dev", root);
    r.sysfs = sys;
    r.devfs = dev;
    return r;
}

static bool read_tree(const struct pna_roots *r, struct pna_ib_model *m)
{
    char err[160];
    int rc = pna_ib_sysfs_read(r, m, err, sizeof err);
    CHECK_INT(rc, 0);
    return rc == 0;
}

static struct pna_ib_port *port_of(struct pna_ib_model *m, const char *dev, uint32_t num)
{
    return (struct pna_ib_port *)pna_ib_find_port(pna_ib_find_device(m, dev), num);
}

/* One poll of the PMA reader; returns the ports it filled. */
static size_t mad_poll(struct pna_ib_mad *mad, const struct pna_roots *r, struct pna_ib_model *m)
{
    pna_ib_model_free(m);
    if (!read_tree(r, m))
        return 0;
    return pna_ib_mad_apply(mad, m);
}

/* ---- tests ------------------------------------------------------------- */

static void test_host_roots(void)
{
    struct pna_roots r = PNA_ROOTS_DEFAULT;
    char sys[PATH_MAX], dev[PATH_MAX], fx[PATH_MAX];
    CHECK(pna_ib_host_roots(&r));
    r.sysfs = "/sys/";
    CHECK(pna_ib_host_roots(&r));
    snprintf(fx, sizeof fx, "%s/ib-sysfs/procfs/sys", unit_fixtures());
    r.sysfs = fx;
    CHECK(!pna_ib_host_roots(&r));
    r = tree_roots(sys, dev, sizeof sys);
    CHECK(!pna_ib_host_roots(&r));
    r.sysfs = "/sys";
    CHECK(!pna_ib_host_roots(&r)); /* devfs elsewhere: the library would open /dev */
    r.devfs = NULL;
    CHECK(!pna_ib_host_roots(&r));
    CHECK(!pna_ib_host_roots(NULL));

    CHECK_U64(pna_ib_mtu_octets(1), 256);
    CHECK_U64(pna_ib_mtu_octets(3), 1024);
    CHECK_U64(pna_ib_mtu_octets(5), 4096);
    CHECK_U64(pna_ib_mtu_octets(0), 0);
    CHECK_U64(pna_ib_mtu_octets(6), 0);
}

static void test_find_cdev(void)
{
    char sys[PATH_MAX], dev[PATH_MAX], name[32];
    struct pna_roots r = tree_roots(sys, dev, sizeof sys);
    CHECK_INT(pna_ib_find_cdev(&r, "infiniband_mad", "umad", "mlx4_0", 1, name, sizeof name), 0);
    umad(0, "mlx4_0", 1, true);
    umad(1, "mlx4_0", 2, false);
    put("sys/class/infiniband_mad/issm0/ibdev", "mlx4_0\n"); /* the SM device: never */
    put("sys/class/infiniband_mad/issm0/port", "1\n");
    put("dev/infiniband/issm0", "");
    put("sys/class/infiniband_mad/abi_version", "5\n");
    CHECK_INT(pna_ib_find_cdev(&r, "infiniband_mad", "umad", "mlx4_0", 1, name, sizeof name), 1);
    CHECK_STR(name, "umad0");
    CHECK_INT(pna_ib_find_cdev(&r, "infiniband_mad", "umad", "mlx4_0", 2, name, sizeof name),
              -EACCES); /* no /dev node */
    CHECK_INT(pna_ib_find_cdev(&r, "infiniband_mad", "umad", "mlx4_0", 3, name, sizeof name), 0);
    CHECK_INT(pna_ib_find_cdev(&r, "infiniband_mad", "umad", "mlx4_1", 1, name, sizeof name), 0);
    rm("sys/class/infiniband_mad");
    rm("dev");
}

static void test_mad_decisions(void)
{
    char sys[PATH_MAX], dev[PATH_MAX];
    struct pna_roots r = tree_roots(sys, dev, sizeof sys);
    struct pna_ib_model m;
    memset(&m, 0, sizeof m);

    ib_port("mlx4_0", 1, "4: ACTIVE\n", 5);        /* queried */
    ib_port("mlx4_0", 2, "1: DOWN\n", 0);          /* not yet: down, no LID */
    ib_port("mlx5_0", 1, "4: ACTIVE\n", 7);        /* kernel already 64-bit: */
    put("sys/class/infiniband/mlx5_0/ports/1/counters/unicast_xmit_packets", "60\n");
    put("sys/class/infiniband/mlx5_0/ports/1/counters/unicast_rcv_packets", "75\n");
    ib_port("mlx4_1", 1, "4: ACTIVE\n", 9);        /* counters_ext: 64-bit already */
    put("sys/class/infiniband/mlx4_1/ports/1/counters_ext/port_xmit_data_64", "123\n");
    put("sys/class/infiniband/mlx4_1/ports/1/counters_ext/port_rcv_data_64", "456\n");
    put("sys/class/infiniband/roce0/ports/1/link_layer", "Ethernet\n"); /* no PMA */
    put("sys/class/infiniband/roce0/ports/1/state", "4: ACTIVE\n");
    put("sys/class/infiniband/roce0/ports/1/counters/port_xmit_data", "1\n");
    umad(0, "mlx4_0", 1, true);
    umad(1, "mlx4_0", 2, false);
    umad(2, "mlx5_0", 1, true);
    umad(3, "mlx4_1", 1, true);

    struct pna_ib_mad *mad = pna_ib_mad_new(&stub_mad, &r);
    CHECK(mad != NULL);
    if (!mad)
        return;

    /* poll 1: only mlx4_0/1 is asked; its 8 counters come from the PMA */
    CHECK_U64(mad_poll(mad, &r, &m), 1);
    struct stub_port *s41 = stub("mlx4_0", 1);
    CHECK_INT(s41->opens, 1);
    CHECK_INT(s41->cpis, 1);
    CHECK_INT(s41->queries, 1);
    CHECK_INT(s41->lid_seen, 5);
    CHECK_INT(mad_opens, 1); /* nobody else */
    CHECK_INT(pna_ib_mad_port_state(mad, "mlx4_0", 1), PNA_MAD_SERVING);
    CHECK_INT(pna_ib_mad_port_state(mad, "mlx4_0", 2), PNA_MAD_UNTRIED);
    CHECK_INT(pna_ib_mad_port_state(mad, "mlx5_0", 1), PNA_MAD_UNTRIED);
    CHECK_INT(pna_ib_mad_port_state(mad, "mlx4_1", 1), PNA_MAD_UNTRIED);
    struct pna_ib_port *p = port_of(&m, "mlx4_0", 1);
    CHECK(p != NULL);
    if (p) {
        /* sysfs said 4294967295 (saturated 32-bit); the PMA's 64-bit words x4 */
        CHECK(p->counters[PNA_IBC_XMIT_DATA].present && p->counters[PNA_IBC_XMIT_DATA].from_pma);
        CHECK(!p->counters[PNA_IBC_XMIT_DATA].saturated);
        CHECK_U64(p->counters[PNA_IBC_XMIT_DATA].value, UINT64_C(5000000000) * 4);
        CHECK_U64(p->counters[PNA_IBC_RCV_DATA].value, 4000);
        CHECK_U64(p->counters[PNA_IBC_UNICAST_XMIT_PACKETS].value, 60);
        CHECK(p->counters[PNA_IBC_UNICAST_XMIT_PACKETS].from_pma);
        CHECK_U64(p->counters[PNA_IBC_MULTICAST_RCV_PACKETS].value, 5);
        CHECK(!p->counters[PNA_IBC_SYMBOL_ERROR].from_pma); /* errors stay sysfs */
        CHECK_U64(p->counters[PNA_IBC_SYMBOL_ERROR].value, 3);
    }
    p = port_of(&m, "mlx4_1", 1);
    CHECK(p && p->counters[PNA_IBC_XMIT_DATA].from_ext && !p->counters[PNA_IBC_XMIT_DATA].from_pma);

    /* poll 2: the serving port fails: absent (not the sysfs value), back-off 2 */
    s41->query_fails = true;
    CHECK_U64(mad_poll(mad, &r, &m), 0);
    CHECK_INT(s41->queries, 2);
    CHECK_INT(pna_ib_mad_port_state(mad, "mlx4_0", 1), PNA_MAD_BACKOFF);
    p = port_of(&m, "mlx4_0", 1);
    CHECK(p && !p->counters[PNA_IBC_XMIT_DATA].present && !p->counters[PNA_IBC_MULTICAST_RCV_PACKETS].present);
    CHECK(p && p->counters[PNA_IBC_SYMBOL_ERROR].present);
    /* polls 3, 4: waiting, no MAD sent, still absent */
    mad_poll(mad, &r, &m);
    mad_poll(mad, &r, &m);
    CHECK_INT(s41->queries, 2);
    p = port_of(&m, "mlx4_0", 1);
    CHECK(p && !p->counters[PNA_IBC_RCV_DATA].present);
    /* poll 5: asked again, fails again: back-off 4 */
    mad_poll(mad, &r, &m);
    CHECK_INT(s41->queries, 3);
    for (int i = 0; i < 4; i++)
        mad_poll(mad, &r, &m);
    CHECK_INT(s41->queries, 3);
    /* poll 10: answers: serving again, back-off reset */
    s41->query_fails = false;
    CHECK_U64(mad_poll(mad, &r, &m), 1);
    CHECK_INT(s41->queries, 4);
    CHECK_INT(pna_ib_mad_port_state(mad, "mlx4_0", 1), PNA_MAD_SERVING);
    p = port_of(&m, "mlx4_0", 1);
    CHECK(p && p->counters[PNA_IBC_XMIT_DATA].from_pma);
    CHECK_INT(s41->opens, 1); /* the same handle all along */

    /* mlx4_0/2 comes up, but its umad node is missing: no library call */
    ib_port("mlx4_0", 2, "4: ACTIVE\n", 6);
    struct stub_port *s42 = stub("mlx4_0", 2);
    s42->open_fails = true;
    mad_poll(mad, &r, &m);
    CHECK_INT(s42->opens, 0);
    CHECK_INT(pna_ib_mad_port_state(mad, "mlx4_0", 2), PNA_MAD_NO_UMAD);
    /* the node appears (permissions given): one open, it fails, given up */
    put("dev/infiniband/umad1", "");
    mad_poll(mad, &r, &m);
    CHECK_INT(s42->opens, 1);
    CHECK_INT(pna_ib_mad_port_state(mad, "mlx4_0", 2), PNA_MAD_FAILED);
    p = port_of(&m, "mlx4_0", 2);
    CHECK(p && p->counters[PNA_IBC_XMIT_DATA].present && !p->counters[PNA_IBC_XMIT_DATA].from_pma);
    CHECK_U64(p ? p->counters[PNA_IBC_XMIT_DATA].value : 0, UINT64_C(4294967295) * 4);
    CHECK(p && p->counters[PNA_IBC_XMIT_DATA].saturated);
    CHECK(p && strstr(p->error, "cannot open the umad port") != NULL);
    for (int i = 0; i < 5; i++)
        mad_poll(mad, &r, &m);
    CHECK_INT(s42->opens, 1); /* once */

    /* a PMA without PortCountersExtended: asked once, sysfs kept */
    ib_port("mlx4_2", 1, "4: ACTIVE\n", 11);
    umad(4, "mlx4_2", 1, true);
    struct stub_port *s2 = stub("mlx4_2", 1);
    s2->cap = 0x0100;
    unsigned closes = mad_closes;
    mad_poll(mad, &r, &m);
    mad_poll(mad, &r, &m);
    CHECK_INT(s2->opens, 1);
    CHECK_INT(s2->cpis, 1);
    CHECK_INT(s2->queries, 0);
    CHECK_INT(mad_closes, closes + 1);
    CHECK_INT(pna_ib_mad_port_state(mad, "mlx4_2", 1), PNA_MAD_NOT_EXT);
    p = port_of(&m, "mlx4_2", 1);
    CHECK(p && p->counters[PNA_IBC_XMIT_DATA].present && !p->counters[PNA_IBC_XMIT_DATA].from_pma);

    /* NoIETF: data and packets from the PMA, unicast/multicast not */
    ib_port("mlx4_3", 1, "4: ACTIVE\n", 12);
    umad(5, "mlx4_3", 1, true);
    stub("mlx4_3", 1)->cap = PNA_PMA_CAP_EXT_WIDTH_NOIETF;
    mad_poll(mad, &r, &m);
    p = port_of(&m, "mlx4_3", 1);
    CHECK(p && p->counters[PNA_IBC_RCV_PACKETS].from_pma && p->counters[PNA_IBC_RCV_PACKETS].value == 80);
    CHECK(p && !p->counters[PNA_IBC_UNICAST_XMIT_PACKETS].present);

    /* a first query that fails: given up, sysfs kept, never again */
    ib_port("mlx4_4", 1, "4: ACTIVE\n", 13);
    umad(6, "mlx4_4", 1, true);
    struct stub_port *s4 = stub("mlx4_4", 1);
    s4->query_fails = true;
    mad_poll(mad, &r, &m);
    mad_poll(mad, &r, &m);
    CHECK_INT(s4->queries, 1);
    CHECK_INT(pna_ib_mad_port_state(mad, "mlx4_4", 1), PNA_MAD_FAILED);
    p = port_of(&m, "mlx4_4", 1);
    CHECK(p && p->counters[PNA_IBC_XMIT_DATA].present && !p->counters[PNA_IBC_XMIT_DATA].from_pma);

    /* a serving port goes DOWN: absent while down, not asked */
    unsigned q = s41->queries;
    put("sys/class/infiniband/mlx4_0/ports/1/state", "1: DOWN\n");
    mad_poll(mad, &r, &m);
    CHECK_INT(s41->queries, q);
    p = port_of(&m, "mlx4_0", 1);
    CHECK(p && !p->counters[PNA_IBC_XMIT_DATA].present);
    put("sys/class/infiniband/mlx4_0/ports/1/state", "4: ACTIVE\n");
    mad_poll(mad, &r, &m);
    CHECK_INT(s41->queries, q + 1);

    /* the device goes away: its handle is closed and the port forgotten */
    closes = mad_closes;
    rm("sys/class/infiniband/mlx4_0");
    mad_poll(mad, &r, &m);
    CHECK_INT(mad_closes, closes + 1);
    CHECK_INT(pna_ib_mad_port_state(mad, "mlx4_0", 1), PNA_MAD_UNTRIED);

    pna_ib_mad_free(mad);
    CHECK_INT(mad_opens, mad_closes); /* every handle closed */
    pna_ib_model_free(&m);
    rm("sys");
    rm("dev");
}

/* Six ports come up at once: four are probed in the first poll. */
static void test_mad_probe_limit(void)
{
    char sys[PATH_MAX], dev[PATH_MAX], name[16];
    struct pna_roots r = tree_roots(sys, dev, sizeof sys);
    struct pna_ib_model m;
    memset(&m, 0, sizeof m);
    for (unsigned i = 0; i < 6; i++) {
        snprintf(name, sizeof name, "qib%u", i);
        ib_port(name, 1, "4: ACTIVE\n", 20 + i);
        umad(i, name, 1, true);
    }
    struct pna_ib_mad *mad = pna_ib_mad_new(&stub_mad, &r);
    unsigned before = mad_opens;
    CHECK_U64(mad_poll(mad, &r, &m), PNA_IB_MAD_PROBES_PER_POLL);
    CHECK_INT(mad_opens - before, PNA_IB_MAD_PROBES_PER_POLL);
    CHECK_U64(mad_poll(mad, &r, &m), 6);
    CHECK_INT(mad_opens - before, 6);
    pna_ib_mad_free(mad);
    CHECK_INT(mad_opens, mad_closes);
    pna_ib_model_free(&m);
    rm("sys");
    rm("dev");
}

static void test_verbs_decisions(void)
{
    char sys[PATH_MAX], dev[PATH_MAX];
    struct pna_roots r = tree_roots(sys, dev, sizeof sys);
    struct pna_ib_model m;
    memset(&m, 0, sizeof m);
    ib_port("mlx4_0", 1, "4: ACTIVE\n", 5);
    ib_port("mlx4_0", 2, "4: ACTIVE\n", 6);
    ib_port("mlx5_0", 1, "4: ACTIVE\n", 7);
    put("sys/class/infiniband/rxe0/ports/1/state", "4: ACTIVE\n");
    put("sys/class/infiniband_verbs/uverbs0/ibdev", "mlx4_0\n");
    put("sys/class/infiniband_verbs/uverbs1/ibdev", "mlx5_0\n");
    put("sys/class/infiniband_verbs/abi_version", "6\n");
    put("dev/infiniband/uverbs0", "");
    put("dev/infiniband/uverbs1", "");
    /* rxe0: no uverbs device at all */

    struct pna_ib_verbs *v = pna_ib_verbs_new(&stub_verbs, &r);
    for (int poll = 0; poll < 3; poll++) {
        pna_ib_model_free(&m);
        if (!read_tree(&r, &m))
            break;
        CHECK_U64(pna_ib_verbs_apply(v, &m), 1); /* mlx4_0/1 */
    }
    CHECK_INT(verbs_open_tries[0], 1);  /* mlx4_0: opened once, kept open */
    CHECK_INT(verbs_open_tries[1], 1);  /* mlx5_0: failed once, never again */
    CHECK_INT(verbs_open_tries[2], 0);  /* rxe0: no uverbs: the library is not asked */
    CHECK_INT(pna_ib_verbs_dev_state(v, "mlx4_0"), PNA_VERBS_OPEN);
    CHECK_INT(pna_ib_verbs_dev_state(v, "mlx5_0"), PNA_VERBS_FAILED);
    CHECK_INT(pna_ib_verbs_dev_state(v, "rxe0"), PNA_VERBS_NO_UVERBS);
    struct pna_ib_port *p = port_of(&m, "mlx4_0", 1);
    CHECK(p && p->active_mtu == 2048 && p->max_mtu == 4096);
    p = port_of(&m, "mlx4_0", 2); /* its query fails: unknown this poll */
    CHECK(p && p->active_mtu == 0 && p->max_mtu == 0);
    p = port_of(&m, "mlx5_0", 1);
    CHECK(p && p->active_mtu == 0);

    /* mlx4_0 disappears: closed */
    rm("sys/class/infiniband/mlx4_0");
    pna_ib_model_free(&m);
    read_tree(&r, &m);
    pna_ib_verbs_apply(v, &m);
    CHECK_INT(verbs_closes, 1);
    CHECK_INT(pna_ib_verbs_dev_state(v, "mlx4_0"), PNA_VERBS_UNTRIED);
    pna_ib_verbs_free(v);
    CHECK_INT(verbs_opens, verbs_closes);
    pna_ib_model_free(&m);
    rm("sys");
    rm("dev");
}

static const struct pna_ib_snap *poll_ib(void *state)
{
    char err[160] = "";
    struct pna_snap *out = NULL;
    int rc = pna_poller_collect(&pna_ib_poller, state, &out, err, sizeof err);
    CHECK_INT(rc, 0);
    if (rc != 0)
        return NULL;
    pna_cache_publish(PNA_DOM_IB, out);
    return (const struct pna_ib_snap *)out;
}

static int port_cell(unsigned col, const char *dev, uint32_t port, struct pna_cell *c)
{
    oid name[MAX_OID_LEN];
    size_t t = pna_table_oid(&pna_ib_port_metrics, name);
    name[t] = 1;
    name[t + 1] = col;
    size_t n = pna_index_put_string(name + t + 2, 64, dev);
    name[t + 2 + n] = port;
    struct pna_view held;
    int rc = pna_table_get(&pna_ib_port_metrics, name, t + 3 + n, c, &held);
    pna_view_release(&held);
    return rc;
}

/* The poller: neither library on a fixture tree; with the gate opened for
 * the test, PMA counters reach the rates and the table says pmaExtended. */
static void test_poller(void)
{
    struct pna_config cfg;
    char fx[PATH_MAX], sys[PATH_MAX], dev[PATH_MAX], err[160];
    void *state = NULL;
    pna_config_defaults(&cfg);
    struct pna_ib_settings ib_set;
    pna_config_poller_defaults(&pna_ib_poller, &ib_set);
    snprintf(fx, sizeof fx, "%s/ib-sysfs/node_exporter/sys", unit_fixtures());
    cfg.roots.sysfs = fx;
    pna_ib_poller_set_ext_ops(&stub_mad, NULL, &stub_verbs, false);
    unsigned calls = mad_calls, vcalls = verbs_calls;
    CHECK_INT(pna_ib_poller.init(&state, &cfg, &ib_set, err, sizeof err), 0);
    poll_ib(state);
    poll_ib(state);
    CHECK_INT(mad_calls, calls);
    CHECK_INT(verbs_calls, vcalls);
    pna_ib_poller.fini(state);
    pna_cache_clear();

    /* a tree where both libraries would have work: an eligible IB port with
     * its umad and uverbs devices -- but it is not the host's /sys */
    ib_port("mlx4_9", 1, "4: ACTIVE\n", 30);
    umad(0, "mlx4_9", 1, true);
    put("sys/class/infiniband_verbs/uverbs0/ibdev", "mlx4_9\n");
    put("dev/infiniband/uverbs0", "");
    struct stub_port *s = stub("mlx4_9", 1);
    cfg.roots = tree_roots(sys, dev, sizeof sys);
    CHECK_INT(pna_ib_poller.init(&state, &cfg, &ib_set, err, sizeof err), 0);
    poll_ib(state);
    poll_ib(state);
    CHECK_INT(mad_calls, calls);
    CHECK_INT(verbs_calls, vcalls);
    pna_ib_poller.fini(state);
    pna_cache_clear();

    /* the gate opened for the test: the poller uses them */
    pna_ib_poller_set_ext_ops(&stub_mad, NULL, &stub_verbs, true);
    CHECK_INT(pna_ib_poller.init(&state, &cfg, &ib_set, err, sizeof err), 0);
    pna_ib_poller_set_ext_ops(NULL, NULL, NULL, false);
    poll_ib(state);
    struct timespec ts = { 0, 150 * 1000000L };
    nanosleep(&ts, NULL);
    s->ext.rcv_words += 250000000; /* 1 GB more */
    const struct pna_ib_snap *snap = poll_ib(state);
    const struct pna_ib_port *p =
        snap ? pna_ib_find_port(pna_ib_find_device(&snap->model, "mlx4_9"), 1) : NULL;
    CHECK(p && p->rates.valid);
    if (p && p->rates.valid && p->rates.interval_ms > 0)
        CHECK_U64(p->rates.rx_bytes_per_s,
                  UINT64_C(1000000000) * 1000 / (uint64_t)p->rates.interval_ms);
    struct pna_cell c;
    CHECK_INT(port_cell(mib_column("primusIbPortCounterSource"), "mlx4_9", 1, &c), 0);
    CHECK_INT(c.i, PNA_IB_PORT_COUNTER_SOURCE_PMA_EXTENDED);
    CHECK_INT(port_cell(mib_column("primusIbPortRcvData"), "mlx4_9", 1, &c), 0);
    CHECK_U64(c.u, (UINT64_C(1000) + 250000000) * 4);
    CHECK_INT(port_cell(mib_column("primusIbPortSaturated"), "mlx4_9", 1, &c), 0);
    CHECK_U64(c.u, 0); /* the sysfs 4294967295 is not what is served */
    CHECK_INT(port_cell(mib_column("primusIbPortActiveMtu"), "mlx4_9", 1, &c), 0);
    CHECK_U64(c.u, 2048);
    CHECK_INT(port_cell(mib_column("primusIbPortMaxMtu"), "mlx4_9", 1, &c), 0);
    CHECK_U64(c.u, 4096);
    pna_ib_poller.fini(state);
    CHECK_INT(mad_opens, mad_closes);
    CHECK_INT(verbs_opens, verbs_closes);
    pna_cache_clear();

    rm("sys");
    rm("dev");
}

int main(void)
{
    if (!mkdtemp(root)) {
        perror("mkdtemp");
        return 1;
    }
    test_host_roots();
    test_find_cdev();
    test_mad_decisions();
    test_mad_probe_limit();
    test_verbs_decisions();
    CHECK_INT(pna_events_init(64), 0);
    test_poller();
    pna_events_shutdown();
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", root);
    UNIT_END();
}
