/* test_ib_smp.c -- the neighbour of each InfiniBand port (sources/rdma/ib_smp.c),
 * with libibmad stubbed (no InfiniBand hardware here): NodeInfo and
 * NodeDescription decoded from the IBA attribute layouts (checked against
 * libibmad's own field table where it is built), which ports are asked
 * (ACTIVE InfiniBand ports with a umad device the agent may open; never RoCE
 * or down ports), when (at link-up, then every 5 minutes, at most 4 ports a
 * poll), what is served in between and after a failure (the last answer;
 * a port given up until it leaves ACTIVE and comes back), and the ib poller
 * serving it through the primusIbPortTable descriptors (what SNMP and the
 * bridge both read) on the host's roots only. */
#include "pna_autoconf.h"
#include "core/config.h"
#include "sources/rdma/ib_smp.h"

#include <limits.h>
#include <unistd.h>

#ifdef HAVE_IBMAD
#include <infiniband/mad.h>
#endif

#include "core/cache.h"
#include "core/events.h"
#include "core/view.h"
#include "model/ib.h"
#include "model/metric.h"
#include "model/metric_tables.h"
#include "model/oids.h"
#include "pollers/pollers.h"
#include "sources/rdma/ib_sysfs.h"
#include "util/fileio.h"
#include "unit.h"

static char root[] = "/tmp/pna-ibsmp-XXXXXX";

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

/* ---- attribute data, as a neighbour sends it ---------------------------- */

/* NodeInfo (IBA vol. 1, 14.2.5.3) of a node of TYPE with NPORTS ports and
 * GUID, answering on its port LOCAL_PORT. */
static void node_info(uint8_t out[PNA_SMP_DATA_SIZE], uint8_t type, uint8_t nports, uint64_t guid,
                      uint8_t local_port)
{
    memset(out, 0, PNA_SMP_DATA_SIZE);
    out[0] = 1;                         /* BaseVersion */
    out[1] = 1;                         /* ClassVersion */
    out[2] = type;                      /* NodeType */
    out[3] = nports;                    /* NumPorts */
    for (int i = 0; i < 8; i++) {
        out[4 + i] = (uint8_t)(guid >> (56 - 8 * i)) ^ 0x5a; /* SystemImageGUID: not read */
        out[12 + i] = (uint8_t)(guid >> (56 - 8 * i));        /* NodeGUID */
        out[20 + i] = (uint8_t)(guid >> (56 - 8 * i)) ^ 0xa5; /* PortGUID: not read */
    }
    out[28] = 0x00, out[29] = 0x80;     /* PartitionCap */
    out[30] = 0xd2, out[31] = 0xf0;     /* DeviceID (MT53744) */
    out[35] = 0xa1;                     /* Revision */
    out[36] = local_port;               /* LocalPortNum */
    out[37] = 0x00, out[38] = 0x02, out[39] = 0xc9; /* VendorID */
}

/* NodeDescription: TEXT then PAD to 64 octets. */
static void node_desc(uint8_t out[PNA_SMP_DATA_SIZE], const char *text, uint8_t pad)
{
    size_t n = strlen(text);
    memset(out, pad, PNA_SMP_DATA_SIZE);
    memcpy(out, text, n < PNA_SMP_DATA_SIZE ? n : PNA_SMP_DATA_SIZE);
}

/* ---- decoding --------------------------------------------------------- */

static void test_decode_node_info(void)
{
    uint8_t d[PNA_SMP_DATA_SIZE];
    struct pna_smp_node_info ni;

    /* a 40-port HDR switch, the cable in its port 17 */
    node_info(d, 2, 41, UINT64_C(0x0c42a10300798ad0), 17);
    CHECK_INT(pna_ib_smp_decode_node_info(d, sizeof d, &ni), 0);
    CHECK_INT(ni.node_type, 2);
    CHECK_INT(ni.num_ports, 41);
    CHECK_U64(ni.node_guid, UINT64_C(0x0c42a10300798ad0));
    CHECK_INT(ni.local_port, 17);

    /* the other host's HCA, back to back, its port 2 */
    node_info(d, 1, 2, UINT64_C(0xb8599f0300d45a2e), 2);
    CHECK_INT(pna_ib_smp_decode_node_info(d, sizeof d, &ni), 0);
    CHECK_INT(ni.node_type, 1);
    CHECK_U64(ni.node_guid, UINT64_C(0xb8599f0300d45a2e));
    CHECK_INT(ni.local_port, 2);

    /* the 40 octets of the attribute are enough; fewer are not */
    CHECK_INT(pna_ib_smp_decode_node_info(d, 40, &ni), 0);
    CHECK_INT(pna_ib_smp_decode_node_info(d, 39, &ni), -1);
    CHECK_INT(pna_ib_smp_decode_node_info(NULL, 64, &ni), -1);
    /* GUID 0 names no node */
    node_info(d, 2, 41, 0, 17);
    CHECK_INT(pna_ib_smp_decode_node_info(d, sizeof d, &ni), -1);

#ifdef HAVE_IBMAD
    /* the same octets as libibmad's field table reads them */
    uint32_t v = 0;
    uint64_t g = 0;
    node_info(d, 2, 37, UINT64_C(0x98039b0300a1b2c3), 33);
    CHECK_INT(pna_ib_smp_decode_node_info(d, sizeof d, &ni), 0);
    mad_decode_field(d, IB_NODE_TYPE_F, &v);
    CHECK_INT(ni.node_type, v);
    mad_decode_field(d, IB_NODE_NPORTS_F, &v);
    CHECK_INT(ni.num_ports, v);
    mad_decode_field(d, IB_NODE_GUID_F, &g);
    CHECK_U64(ni.node_guid, g);
    mad_decode_field(d, IB_NODE_LOCAL_PORT_F, &v);
    CHECK_INT(ni.local_port, v);
    CHECK_INT(PNA_SMP_ATTR_NODE_INFO, IB_ATTR_NODE_INFO);
    CHECK_INT(PNA_SMP_ATTR_NODE_DESC, IB_ATTR_NODE_DESC);
    CHECK_INT(PNA_SMP_DATA_SIZE, IB_SMP_DATA_SIZE);
#endif
}

static void test_decode_node_desc(void)
{
    uint8_t d[PNA_SMP_DATA_SIZE];
    char out[65];

    /* a switch pads with blanks */
    node_desc(d, "MF0;leaf-03:MQM8700/U1", ' ');
    pna_ib_smp_decode_node_desc(d, sizeof d, out, sizeof out);
    CHECK_STR(out, "MF0;leaf-03:MQM8700/U1");
    /* a host HCA with NULs */
    node_desc(d, "gpu-node-17 mlx5_2", 0);
    pna_ib_smp_decode_node_desc(d, sizeof d, out, sizeof out);
    CHECK_STR(out, "gpu-node-17 mlx5_2");
    /* 64 octets and no NUL: all of them, nothing read beyond */
    memset(d, 'x', sizeof d);
    d[0] = 'A';
    d[63] = 'Z';
    pna_ib_smp_decode_node_desc(d, sizeof d, out, sizeof out);
    CHECK_INT(strlen(out), 64);
    CHECK(out[0] == 'A' && out[63] == 'Z');
    /* a longer buffer is read for 64 octets only */
    uint8_t big[80];
    memset(big, 'y', sizeof big);
    pna_ib_smp_decode_node_desc(big, sizeof big, out, sizeof out);
    CHECK_INT(strlen(out), 64);
    /* control octets and UTF-8 become '?'; blanks around are trimmed,
     * the text after a NUL is not read */
    static const uint8_t odd[] = " \t leaf\x01" "07 caf\xc3\xa9 \r\n\0hidden";
    memset(d, 0, sizeof d);
    memcpy(d, odd, sizeof odd);
    pna_ib_smp_decode_node_desc(d, sizeof d, out, sizeof out);
    CHECK_STR(out, "leaf?07 caf??");
    /* nothing but padding: empty */
    node_desc(d, "", ' ');
    pna_ib_smp_decode_node_desc(d, sizeof d, out, sizeof out);
    CHECK_STR(out, "");
    /* a small buffer: cut, terminated */
    node_desc(d, "MF0;spine-01", ' ');
    char small[5];
    pna_ib_smp_decode_node_desc(d, sizeof d, small, sizeof small);
    CHECK_STR(small, "MF0;");
    node_desc(d, "MF0 leaf", ' '); /* cut at a blank: none at the end */
    pna_ib_smp_decode_node_desc(d, sizeof d, small, sizeof small);
    CHECK_STR(small, "MF0");
    pna_ib_smp_decode_node_desc(NULL, 0, out, sizeof out);
    CHECK_STR(out, "");
#ifdef HAVE_IBMAD
    char lib[IB_SMP_DATA_SIZE + 1] = "";
    node_desc(d, "MF0;leaf-03:MQM8700/U1", 0);
    mad_decode_field(d, IB_NODE_DESC_F, lib);
    pna_ib_smp_decode_node_desc(d, sizeof d, out, sizeof out);
    CHECK_STR(out, lib);
#endif
}

/* ---- the stub libibmad ------------------------------------------------- */

struct stub_nb {
    char device[64];
    uint32_t port;
    bool open_fails, info_fails, desc_fails;
    uint8_t info[PNA_SMP_DATA_SIZE], desc[PNA_SMP_DATA_SIZE];
    unsigned opens, infos, descs;
};
static struct stub_nb nbs[16];
static size_t n_nbs;
static unsigned smp_opens, smp_closes, smp_calls;

/* A new test: every neighbour is new (the open/close totals go on). */
static void stub_reset(void)
{
    n_nbs = 0;
}

/* The stub neighbour of DEVICE/PORT: by default port 9 of a switch. */
static struct stub_nb *stub(const char *device, uint32_t port)
{
    for (size_t i = 0; i < n_nbs; i++)
        if (nbs[i].port == port && strcmp(nbs[i].device, device) == 0)
            return &nbs[i];
    if (n_nbs == sizeof nbs / sizeof nbs[0]) {
        fprintf(stderr, "more stub neighbours than %zu\n", n_nbs);
        abort();
    }
    struct stub_nb *s = &nbs[n_nbs++];
    memset(s, 0, sizeof *s);
    pna_strlcpy(s->device, device, sizeof s->device);
    s->port = port;
    node_info(s->info, 2, 41, UINT64_C(0x0c42a10300798ad0) + n_nbs, 9);
    node_desc(s->desc, "MF0;leaf-01:MQM8700/U1", ' ');
    return s;
}

static void *stub_open(const char *device, uint32_t port)
{
    struct stub_nb *s = stub(device, port);
    smp_calls++;
    s->opens++;
    if (s->open_fails)
        return NULL;
    smp_opens++;
    return s;
}

static int stub_query(void *h, uint32_t port, uint16_t attr, uint8_t data[PNA_SMP_DATA_SIZE])
{
    struct stub_nb *s = h;
    smp_calls++;
    CHECK_INT(port, s->port);
    if (attr == PNA_SMP_ATTR_NODE_INFO) {
        s->infos++;
        if (s->info_fails)
            return -1;
        memcpy(data, s->info, PNA_SMP_DATA_SIZE);
        return 0;
    }
    CHECK_INT(attr, PNA_SMP_ATTR_NODE_DESC);
    s->descs++;
    if (s->desc_fails)
        return -1;
    memcpy(data, s->desc, PNA_SMP_DATA_SIZE);
    return 0;
}

static void stub_close(void *h)
{
    (void)h;
    smp_closes++;
}

static const struct pna_ib_smp_ops stub_smp = { stub_open, stub_query, stub_close };

/* ---- trees ------------------------------------------------------------- */

static void port_files(const char *dev, unsigned port, const char *link_layer, const char *state)
{
    char rel[160];
    snprintf(rel, sizeof rel, "sys/class/infiniband/%s/ports/%u/link_layer", dev, port);
    put(rel, link_layer);
    snprintf(rel, sizeof rel, "sys/class/infiniband/%s/ports/%u/state", dev, port);
    put(rel, state);
    snprintf(rel, sizeof rel, "sys/class/infiniband/%s/ports/%u/rate", dev, port);
    put(rel, "200 Gb/sec (4X HDR)\n");
}

static void set_state(const char *dev, unsigned port, const char *state)
{
    char rel[160];
    snprintf(rel, sizeof rel, "sys/class/infiniband/%s/ports/%u/state", dev, port);
    put(rel, state);
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

static struct pna_roots tree_roots(char *sys, char *dev, size_t cap)
{
    struct pna_roots r = PNA_ROOTS_DEFAULT;
    snprintf(sys, cap, "%s/sys", root);
    snprintf(dev, cap, "%s/dev", root);
    r.sysfs = sys;
    r.devfs = dev;
    return r;
}

/* One poll at NOW_MS: a fresh model read from the tree, the neighbours
 * applied; returns the ports given one. */
static size_t smp_poll(struct pna_ib_smp *smp, const struct pna_roots *r, struct pna_ib_model *m,
                       int64_t now_ms)
{
    char err[160];
    pna_ib_model_free(m);
    int rc = pna_ib_sysfs_read(r, m, err, sizeof err);
    CHECK_INT(rc, 0);
    if (rc != 0)
        return 0;
    m->sample_mono_ms = now_ms;
    return pna_ib_smp_apply(smp, m);
}

static const struct pna_ib_neighbor *nb_of(const struct pna_ib_model *m, const char *dev,
                                           uint32_t port)
{
    const struct pna_ib_port *p = pna_ib_find_port(pna_ib_find_device(m, dev), port);
    CHECK(p != NULL);
    return p ? &p->neighbor : NULL;
}

#define MINUTE_MS (60 * 1000)

/* ---- the decisions ----------------------------------------------------- */

/* A switch neighbour: asked at link-up, kept between polls, asked again
 * after 5 minutes; RoCE, down and umad-less ports never asked. */
static void test_switch_neighbor(void)
{
    stub_reset();
    char sys[PATH_MAX], dev[PATH_MAX];
    struct pna_roots r = tree_roots(sys, dev, sizeof sys);
    struct pna_ib_model m;
    memset(&m, 0, sizeof m);
    port_files("mlx5_0", 1, "InfiniBand\n", "4: ACTIVE\n");     /* asked */
    port_files("mlx5_0", 2, "InfiniBand\n", "1: DOWN\n");       /* down: no neighbour */
    port_files("mlx5_1", 1, "Ethernet\n", "4: ACTIVE\n");       /* RoCE: LLDP's job */
    port_files("mlx5_2", 1, "InfiniBand\n", "4: ACTIVE\n");     /* no /dev node */
    umad(0, "mlx5_0", 1, true);
    umad(1, "mlx5_0", 2, true);
    umad(2, "mlx5_1", 1, true);
    umad(3, "mlx5_2", 1, false);
    struct stub_nb *s = stub("mlx5_0", 1);
    node_info(s->info, 2, 41, UINT64_C(0x0c42a10300798ad0), 17);
    struct pna_ib_smp *smp = pna_ib_smp_new(&stub_smp, &r);
    CHECK(smp != NULL);
    if (!smp)
        return;

    int64_t t = 1000000;
    CHECK_U64(smp_poll(smp, &r, &m, t), 1);
    CHECK_INT(s->opens, 1);
    CHECK_INT(s->infos, 1);
    CHECK_INT(s->descs, 1);
    CHECK_INT(smp_opens, 1); /* nobody else */
    CHECK_INT(smp_closes, 1); /* closed after asking */
    const struct pna_ib_neighbor *nb = nb_of(&m, "mlx5_0", 1);
    CHECK(nb && nb->present);
    if (nb && nb->present) {
        CHECK_U64(nb->guid, UINT64_C(0x0c42a10300798ad0));
        CHECK_INT(nb->node_type, 2);
        CHECK_INT(nb->port, 17);
        CHECK_STR(nb->node_desc, "MF0;leaf-01:MQM8700/U1");
    }
    CHECK(!nb_of(&m, "mlx5_0", 2)->present);
    CHECK(!nb_of(&m, "mlx5_1", 1)->present);
    CHECK(!nb_of(&m, "mlx5_2", 1)->present);
    CHECK_INT(pna_ib_smp_port_state(smp, "mlx5_0", 1), PNA_SMP_KNOWN);
    CHECK_INT(pna_ib_smp_port_state(smp, "mlx5_0", 2), PNA_SMP_UNTRIED);
    CHECK_INT(pna_ib_smp_port_state(smp, "mlx5_1", 1), PNA_SMP_UNTRIED);
    CHECK_INT(pna_ib_smp_port_state(smp, "mlx5_2", 1), PNA_SMP_NO_UMAD);

    /* polls within 5 minutes: no SMP, the answer served from the cache */
    for (int i = 1; i < 60; i++) {
        CHECK_U64(smp_poll(smp, &r, &m, t + i * 5000), 1);
        nb = nb_of(&m, "mlx5_0", 1);
        CHECK(nb && nb->present && nb->port == 17);
    }
    CHECK_INT(s->infos, 1);
    CHECK_INT(stub("mlx5_0", 2)->opens + stub("mlx5_1", 1)->opens + stub("mlx5_2", 1)->opens, 0);

    /* 5 minutes on: asked again, and the switch was renamed meanwhile */
    node_desc(s->desc, "MF0;leaf-01b:MQM8700/U1", ' ');
    CHECK_U64(smp_poll(smp, &r, &m, t + 5 * MINUTE_MS), 1);
    CHECK_INT(s->infos, 2);
    CHECK_INT(s->descs, 2);
    CHECK_STR(nb_of(&m, "mlx5_0", 1)->node_desc, "MF0;leaf-01b:MQM8700/U1");
    smp_poll(smp, &r, &m, t + 9 * MINUTE_MS);
    CHECK_INT(s->infos, 2);
    smp_poll(smp, &r, &m, t + 10 * MINUTE_MS);
    CHECK_INT(s->infos, 3);

    /* the umad node of mlx5_2 appears (permission given): asked */
    put("dev/infiniband/umad3", "");
    CHECK_U64(smp_poll(smp, &r, &m, t + 11 * MINUTE_MS), 2);
    CHECK_INT(stub("mlx5_2", 1)->opens, 1);
    CHECK_INT(pna_ib_smp_port_state(smp, "mlx5_2", 1), PNA_SMP_KNOWN);

    /* the down port comes up: asked at once */
    set_state("mlx5_0", 2, "4: ACTIVE\n");
    CHECK_U64(smp_poll(smp, &r, &m, t + 11 * MINUTE_MS + 5000), 3);
    CHECK_INT(stub("mlx5_0", 2)->opens, 1);
    CHECK_INT(stub("mlx5_1", 1)->opens, 0); /* RoCE: never */

    /* the device goes away: forgotten */
    rm("sys/class/infiniband/mlx5_0");
    smp_poll(smp, &r, &m, t + 12 * MINUTE_MS);
    CHECK_INT(pna_ib_smp_port_state(smp, "mlx5_0", 1), PNA_SMP_UNTRIED);

    pna_ib_smp_free(smp);
    CHECK_INT(smp_opens, smp_closes);
    pna_ib_model_free(&m);
    rm("sys");
    rm("dev");
}

/* Two hosts cabled back to back: the neighbour is a CA. */
static void test_hca_neighbor(void)
{
    stub_reset();
    char sys[PATH_MAX], dev[PATH_MAX];
    struct pna_roots r = tree_roots(sys, dev, sizeof sys);
    struct pna_ib_model m;
    memset(&m, 0, sizeof m);
    port_files("mlx5_4", 1, "InfiniBand\n", "4: ACTIVE\n");
    umad(0, "mlx5_4", 1, true);
    struct stub_nb *s = stub("mlx5_4", 1);
    node_info(s->info, 1, 1, UINT64_C(0xb8599f0300d45a2e), 1);
    node_desc(s->desc, "gpu-node-18 mlx5_4", 0);
    struct pna_ib_smp *smp = pna_ib_smp_new(&stub_smp, &r);
    CHECK_U64(smp_poll(smp, &r, &m, 5000), 1);
    const struct pna_ib_neighbor *nb = nb_of(&m, "mlx5_4", 1);
    CHECK(nb && nb->present && nb->node_type == 1 && nb->port == 1);
    CHECK(nb && nb->guid == UINT64_C(0xb8599f0300d45a2e));
    CHECK_STR(nb ? nb->node_desc : NULL, "gpu-node-18 mlx5_4");
    pna_ib_smp_free(smp);
    pna_ib_model_free(&m);
    rm("sys");
    rm("dev");
}

/* Failures: a first query that fails gives the port up until it leaves
 * ACTIVE; a refresh that fails keeps the answer; a non-printable,
 * unterminated description is served cleaned. */
static void test_failures(void)
{
    stub_reset();
    char sys[PATH_MAX], dev[PATH_MAX];
    struct pna_roots r = tree_roots(sys, dev, sizeof sys);
    struct pna_ib_model m;
    memset(&m, 0, sizeof m);
    port_files("mlx4_0", 1, "InfiniBand\n", "4: ACTIVE\n");
    port_files("mlx4_0", 2, "InfiniBand\n", "4: ACTIVE\n");
    port_files("mlx4_1", 1, "InfiniBand\n", "4: ACTIVE\n");
    port_files("mlx4_2", 1, "InfiniBand\n", "4: ACTIVE\n");
    umad(0, "mlx4_0", 1, true);
    umad(1, "mlx4_0", 2, true);
    umad(2, "mlx4_1", 1, true);
    umad(3, "mlx4_2", 1, true);
    struct stub_nb *s1 = stub("mlx4_0", 1), *s2 = stub("mlx4_0", 2), *s3 = stub("mlx4_1", 1),
                   *s4 = stub("mlx4_2", 1);
    s1->open_fails = true;     /* the library cannot open the port */
    s2->info_fails = true;     /* NodeInfo times out */
    s3->desc_fails = true;     /* NodeInfo answers, NodeDescription does not */
    memset(s4->desc, 0xff, sizeof s4->desc); /* 64 octets, no NUL, none printable */
    memcpy(s4->desc, "\x1b[31mleaf-9", 11);
    struct pna_ib_smp *smp = pna_ib_smp_new(&stub_smp, &r);

    int64_t t = 7000;
    CHECK_U64(smp_poll(smp, &r, &m, t), 1);
    CHECK_INT(pna_ib_smp_port_state(smp, "mlx4_0", 1), PNA_SMP_FAILED);
    CHECK_INT(pna_ib_smp_port_state(smp, "mlx4_0", 2), PNA_SMP_FAILED);
    CHECK_INT(pna_ib_smp_port_state(smp, "mlx4_1", 1), PNA_SMP_FAILED);
    CHECK(!nb_of(&m, "mlx4_0", 1)->present);
    CHECK(!nb_of(&m, "mlx4_0", 2)->present);
    CHECK(!nb_of(&m, "mlx4_1", 1)->present); /* half an answer is none */
    const struct pna_ib_port *p = pna_ib_find_port(pna_ib_find_device(&m, "mlx4_0"), 1);
    CHECK(p && strstr(p->error, "cannot open the umad port") != NULL);
    p = pna_ib_find_port(pna_ib_find_device(&m, "mlx4_0"), 2);
    CHECK(p && strstr(p->error, "did not answer") != NULL);
    CHECK_INT(s2->descs, 0); /* no NodeDescription after a failed NodeInfo */
    const struct pna_ib_neighbor *nb = nb_of(&m, "mlx4_2", 1);
    char want[65];
    memset(want, '?', 64);
    want[64] = '\0';
    memcpy(want + 1, "[31mleaf-9", 10);
    CHECK_STR(nb ? nb->node_desc : NULL, want);

    /* given up: not asked again, however long the port stays ACTIVE */
    for (int i = 1; i <= 4; i++)
        smp_poll(smp, &r, &m, t + i * 5 * MINUTE_MS);
    CHECK_INT(s1->opens, 1);
    CHECK_INT(s2->infos, 1);
    CHECK_INT(s3->descs, 1);
    CHECK_INT(s4->infos, 5); /* the answering one, every 5 minutes */

    /* a refresh that fails: the answer is kept (the link stayed up), the
     * port is given up until it leaves ACTIVE */
    s4->info_fails = true;
    t += 5 * 5 * MINUTE_MS;
    CHECK_U64(smp_poll(smp, &r, &m, t), 1);
    CHECK_INT(s4->infos, 6);
    CHECK_INT(pna_ib_smp_port_state(smp, "mlx4_2", 1), PNA_SMP_FAILED);
    CHECK(nb_of(&m, "mlx4_2", 1)->present);
    smp_poll(smp, &r, &m, t + 6 * MINUTE_MS);
    CHECK_INT(s4->infos, 6);
    CHECK(nb_of(&m, "mlx4_2", 1)->present);

    /* a state file unread for one poll: no change, nothing asked */
    rm("sys/class/infiniband/mlx4_2/ports/1/state");
    CHECK_U64(smp_poll(smp, &r, &m, t + 7 * MINUTE_MS), 1);
    CHECK(nb_of(&m, "mlx4_2", 1)->present);
    CHECK_INT(pna_ib_smp_port_state(smp, "mlx4_2", 1), PNA_SMP_FAILED);
    CHECK_INT(s4->infos, 6);

    /* the ports go down: no neighbour, forgotten */
    set_state("mlx4_0", 1, "1: DOWN\n");
    set_state("mlx4_0", 2, "2: INIT\n");
    set_state("mlx4_2", 1, "1: DOWN\n");
    CHECK_U64(smp_poll(smp, &r, &m, t + 8 * MINUTE_MS), 0);
    CHECK(!nb_of(&m, "mlx4_2", 1)->present);
    CHECK_INT(pna_ib_smp_port_state(smp, "mlx4_0", 1), PNA_SMP_UNTRIED);
    CHECK_INT(pna_ib_smp_port_state(smp, "mlx4_2", 1), PNA_SMP_UNTRIED);
    CHECK_INT(s1->opens + s2->opens + s4->opens, 1 + 1 + 6); /* not asked while down */

    /* and back ACTIVE: asked again at once, once each */
    s1->open_fails = s2->info_fails = s4->info_fails = false;
    set_state("mlx4_0", 1, "4: ACTIVE\n");
    set_state("mlx4_0", 2, "4: ACTIVE\n");
    set_state("mlx4_2", 1, "4: ACTIVE\n");
    CHECK_U64(smp_poll(smp, &r, &m, t + 8 * MINUTE_MS + 5000), 3);
    CHECK_INT(s1->opens, 2);
    CHECK_INT(s2->infos, 2);
    CHECK_INT(s4->infos, 7);
    CHECK_INT(pna_ib_smp_port_state(smp, "mlx4_0", 1), PNA_SMP_KNOWN);
    CHECK_INT(s3->descs, 1); /* mlx4_1 stayed ACTIVE: still given up */

    pna_ib_smp_free(smp);
    CHECK_INT(smp_opens, smp_closes);
    pna_ib_model_free(&m);
    rm("sys");
    rm("dev");
}

/* Six ports come up at once: four are asked in the first poll. */
static void test_query_limit(void)
{
    stub_reset();
    char sys[PATH_MAX], dev[PATH_MAX], name[16];
    struct pna_roots r = tree_roots(sys, dev, sizeof sys);
    struct pna_ib_model m;
    memset(&m, 0, sizeof m);
    for (unsigned i = 0; i < 6; i++) {
        snprintf(name, sizeof name, "qib%u", i);
        port_files(name, 1, "InfiniBand\n", "4: ACTIVE\n");
        umad(i, name, 1, true);
    }
    struct pna_ib_smp *smp = pna_ib_smp_new(&stub_smp, &r);
    unsigned before = smp_opens;
    CHECK_U64(smp_poll(smp, &r, &m, 1000), PNA_IB_SMP_QUERIES_PER_POLL);
    CHECK_INT(smp_opens - before, PNA_IB_SMP_QUERIES_PER_POLL);
    CHECK_U64(smp_poll(smp, &r, &m, 6000), 6);
    CHECK_INT(smp_opens - before, 6);
    pna_ib_smp_free(smp);
    CHECK_INT(smp_opens, smp_closes);
    pna_ib_model_free(&m);
    rm("sys");
    rm("dev");
}

/* ---- the poller and the table ------------------------------------------ */

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

/* A cell of primusIbPortTable, as its descriptor gives it to both front
 * ends: the number, or the text copied into TEXT.  0, or -1 when absent. */
struct cell {
    int64_t i;
    uint64_t u;
    char text[80];
};

static int port_cell(const char *object, const char *dev, uint32_t port, struct cell *c)
{
    const struct pna_metric_table *t = &pna_ib_port_metrics;
    const struct pna_metric *m = pna_metric_by_object(t, object);
    struct pna_view v;
    struct pna_row row;
    struct pna_value val = { 0 };
    CHECK(m != NULL);
    memset(c, 0, sizeof *c);
    pna_view_take(&v, t->view);
    for (size_t i = 0, n = t->rows(&v); m && i < n; i++) {
        if (!pna_metric_row(t, &v, i, &row) || ((const struct pna_ib_port *)row.rec)->num != port ||
            strcmp(((const struct pna_ib_device *)row.parent)->name, dev) != 0)
            continue;
        pna_metric_value(t, m, &row, &val);
        c->i = val.i;
        c->u = val.u;
        if (val.is_text)
            pna_strlcpy(c->text, val.text, sizeof c->text);
    }
    pna_view_release(&v);
    return val.state == PNA_PRESENT ? 0 : -1;
}

/* Not on a tree that is not the host's /sys; on one with the gate opened,
 * the four columns; none on a RoCE port. */
static void test_poller(void)
{
    stub_reset();
    struct pna_config cfg;
    char sys[PATH_MAX], dev[PATH_MAX], err[160];
    void *state = NULL;
    pna_config_defaults(&cfg);
    struct pna_ib_settings ib_set;
    pna_config_poller_defaults(&pna_ib_poller, &ib_set);
    port_files("mlx5_0", 1, "InfiniBand\n", "4: ACTIVE\n");
    port_files("mlx5_1", 1, "Ethernet\n", "4: ACTIVE\n");
    umad(0, "mlx5_0", 1, true);
    struct stub_nb *s = stub("mlx5_0", 1);
    node_info(s->info, 2, 41, UINT64_C(0x0c42a10300798ad0), 23);
    node_desc(s->desc, "MF0;leaf-07:MQM9700/U1", ' ');
    cfg.roots = tree_roots(sys, dev, sizeof sys);

    pna_ib_poller_set_ext_ops(NULL, &stub_smp, NULL, false);
    unsigned calls = smp_calls;
    CHECK_INT(pna_ib_poller.init(&state, &cfg, &ib_set, err, sizeof err), 0);
    poll_ib(state);
    CHECK_INT(smp_calls, calls);
    struct cell c;
    CHECK_INT(port_cell("primusIbPortNeighborGuid", "mlx5_0", 1, &c), -1);
    pna_ib_poller.fini(state);
    pna_cache_clear();

    pna_ib_poller_set_ext_ops(NULL, &stub_smp, NULL, true);
    CHECK_INT(pna_ib_poller.init(&state, &cfg, &ib_set, err, sizeof err), 0);
    pna_ib_poller_set_ext_ops(NULL, NULL, NULL, false);
    poll_ib(state);
    poll_ib(state);
    CHECK_INT(s->infos, 1); /* the second poll served the first answer */
    CHECK_INT(port_cell("primusIbPortNeighborGuid", "mlx5_0", 1, &c), 0);
    CHECK_STR(c.text, "0c42:a103:0079:8ad0");
    CHECK_INT(port_cell("primusIbPortNeighborNodeDesc", "mlx5_0", 1, &c), 0);
    CHECK_STR(c.text, "MF0;leaf-07:MQM9700/U1");
    CHECK_INT(port_cell("primusIbPortNeighborPort", "mlx5_0", 1, &c), 0);
    CHECK_U64(c.u, 23);
    CHECK_INT(port_cell("primusIbPortNeighborNodeType", "mlx5_0", 1, &c), 0);
    CHECK_INT(c.i, PNA_IB_PORT_NEIGHBOR_NODE_TYPE_SWITCH);
    CHECK_INT(port_cell("primusIbPortNeighborGuid", "mlx5_1", 1, &c), -1);
    CHECK_INT(port_cell("primusIbPortNeighborNodeType", "mlx5_1", 1, &c), -1);

    /* a reserved NodeType is unknown(4); a LocalPortNum 0 is no port */
    pna_ib_poller.fini(state);
    pna_cache_clear();
    node_info(s->info, 7, 41, UINT64_C(0x0c42a10300798ad0), 0);
    pna_ib_poller_set_ext_ops(NULL, &stub_smp, NULL, true);
    CHECK_INT(pna_ib_poller.init(&state, &cfg, &ib_set, err, sizeof err), 0);
    pna_ib_poller_set_ext_ops(NULL, NULL, NULL, false);
    poll_ib(state);
    CHECK_INT(port_cell("primusIbPortNeighborNodeType", "mlx5_0", 1, &c), 0);
    CHECK_INT(c.i, PNA_IB_PORT_NEIGHBOR_NODE_TYPE_UNKNOWN);
    CHECK_INT(port_cell("primusIbPortNeighborPort", "mlx5_0", 1, &c), -1);
    CHECK_INT(port_cell("primusIbPortNeighborGuid", "mlx5_0", 1, &c), 0);
    pna_ib_poller.fini(state);
    CHECK_INT(smp_opens, smp_closes);
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
    test_decode_node_info();
    test_decode_node_desc();
    test_switch_neighbor();
    test_hca_neighbor();
    test_failures();
    test_query_limit();
    CHECK_INT(pna_events_init(64), 0);
    test_poller();
    pna_events_shutdown();
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", root);
    UNIT_END();
}
