/* test_ib_sysfs.c -- the IB sysfs reader on the fixture trees (procfs: hfi1,
 * mlx4, mlx5; node_exporter: mlx4 with counters_ext, iWARP i40iw) and on
 * broken temp trees.  Expected values are read from the fixture files by the
 * test itself with stdio, independently of util/fileio.c. */
#include "pna_autoconf.h"
#include "sources/rdma/ib_sysfs.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unit.h"

/* ---- independent reading of fixture files ---- */

static int slurp(const char *path, char *buf, size_t cap)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, cap - 1, f);
    fclose(f);
    buf[n] = '\0';
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
        buf[--n] = '\0';
    return (int)n;
}

/* 1 = a number in *V, 0 = file missing, -1 = not a number ("N/A (no PMA)") */
static int fixture_u64(const char *dir, const char *sub, const char *name, uint64_t *v)
{
    char path[PATH_MAX], buf[128], *end;
    snprintf(path, sizeof path, "%s/%s/%s", dir, sub, name);
    if (slurp(path, buf, sizeof buf) < 0)
        return 0;
    errno = 0;
    *v = strtoull(buf, &end, 10);
    return (end != buf && *end == '\0' && !errno) ? 1 : -1;
}

/* Every standard counter of PORT equals what the files say: counters_ext
 * first (x4 for data), else counters (x4 for data); N/A or missing: absent. */
static void check_port_counters_against_files(const char *pdir, const struct pna_ib_port *port)
{
    for (int i = 0; i < PNA_IBC_COUNT; i++) {
        const struct pna_ib_counter_desc *d = &pna_ib_counter_descs[i];
        uint64_t v = 0;
        int got = 0;
        bool ext = false;
        if (d->ext_file && (got = fixture_u64(pdir, "counters_ext", d->ext_file, &v)) == 1)
            ext = true;
        else
            got = fixture_u64(pdir, "counters", d->file, &v);
        uint64_t scale = (strstr(d->file, "_data") != NULL) ? 4 : 1; /* 4-octet words */
        if (got == 1) {
            if (!port->counters[i].present || port->counters[i].value != v * scale)
                fprintf(stderr, "  %s %s\n", pdir, d->file);
            CHECK(port->counters[i].present);
            CHECK_U64(port->counters[i].value, v * scale);
            CHECK_INT(port->counters[i].from_ext, ext);
        } else {
            if (port->counters[i].present)
                fprintf(stderr, "  %s %s should be absent\n", pdir, d->file);
            CHECK(!port->counters[i].present);
        }
    }
}

static void check_hw_against_files(const char *dir, const struct pna_hw_counter *hw, size_t n)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/hw_counters", dir);
    size_t files = 0;
    DIR *d = opendir(path);
    if (d) {
        struct dirent *de;
        while ((de = readdir(d)))
            if (de->d_name[0] != '.' && strcmp(de->d_name, "lifespan") != 0)
                files++;
        closedir(d);
    }
    CHECK_U64(n, files);
    for (size_t i = 0; i < n; i++) {
        uint64_t v;
        CHECK_INT(fixture_u64(path, ".", hw[i].name, &v), 1);
        CHECK_U64(hw[i].raw, v);
        if (i > 0)
            CHECK(strcmp(hw[i - 1].name, hw[i].name) < 0); /* sorted by name */
    }
}

static void check_all_ports_against_files(const char *root, const struct pna_ib_model *m)
{
    for (size_t i = 0; i < m->n_devices; i++) {
        const struct pna_ib_device *d = &m->devices[i];
        char ddir[512], buf[256];
        snprintf(ddir, sizeof ddir, "%s/class/infiniband/%s", root, d->name);
        char path[768];
        snprintf(path, sizeof path, "%s/fw_ver", ddir);
        CHECK_STR(d->fw_ver, slurp(path, buf, sizeof buf) >= 0 ? buf : "");
        snprintf(path, sizeof path, "%s/board_id", ddir);
        CHECK_STR(d->board_id, slurp(path, buf, sizeof buf) >= 0 ? buf : "");
        snprintf(path, sizeof path, "%s/hca_type", ddir);
        CHECK_STR(d->hca_type, slurp(path, buf, sizeof buf) >= 0 ? buf : "");
        check_hw_against_files(ddir, d->hw, d->n_hw);
        for (size_t p = 0; p < d->n_ports; p++) {
            char pdir[640];
            snprintf(pdir, sizeof pdir, "%s/ports/%u", ddir, d->ports[p].num);
            check_port_counters_against_files(pdir, &d->ports[p]);
            check_hw_against_files(pdir, d->ports[p].hw, d->ports[p].n_hw);
            uint64_t state;
            snprintf(path, sizeof path, "%s/state", pdir);
            slurp(path, buf, sizeof buf);
            state = strtoull(buf, NULL, 10);
            CHECK_INT(d->ports[p].state, state);
            if (p > 0)
                CHECK(d->ports[p - 1].num < d->ports[p].num);
        }
        if (i > 0)
            CHECK(strcmp(m->devices[i - 1].name, d->name) < 0);
    }
}

/* ---- fixture trees ---- */

static void test_procfs_tree(void)
{
    char root[PATH_MAX], err[160] = "";
    struct pna_roots roots = PNA_ROOTS_DEFAULT;
    struct pna_ib_model m;
    snprintf(root, sizeof root, "%s/ib-sysfs/procfs/sys", unit_fixtures());
    roots.sysfs = root;
    CHECK_INT(pna_ib_sysfs_read(&roots, &m, err, sizeof err), 0);
    CHECK_U64(m.n_devices, 3);
    CHECK_U64(m.problems, 0);
    if (m.problems)
        fprintf(stderr, "  problem: %s\n", m.problem);
    if (m.n_devices != 3)
        return;
    check_all_ports_against_files(root, &m);

    const struct pna_ib_device *hfi = &m.devices[0], *mlx4 = &m.devices[1], *mlx5 = &m.devices[2];
    CHECK_STR(hfi->name, "hfi1_0");
    CHECK_STR(hfi->hca_type, "");           /* hfi1 has no hca_type file */
    CHECK(!hfi->has_node_guid);
    CHECK_STR(hfi->fw_ver, "1.27.0");
    CHECK_U64(hfi->n_ports, 1);
    CHECK_U64(hfi->ports[0].rate_mbps, 100000);
    CHECK_INT(hfi->ports[0].width, 4);
    CHECK_STR(hfi->ports[0].rate_text, "100 Gb/sec (4X EDR)");
    CHECK_U64(hfi->ports[0].counters[PNA_IBC_RCV_DATA].value, UINT64_C(345091702026) * 4);
    CHECK(!hfi->ports[0].counters[PNA_IBC_RCV_DATA].saturated);
    CHECK(!hfi->ports[0].counters[PNA_IBC_UNICAST_RCV_PACKETS].present); /* no such file */

    CHECK_STR(mlx4->name, "mlx4_0");
    CHECK_U64(mlx4->n_ports, 2);
    CHECK_STR(mlx4->ports[1].link_layer, "InfiniBand"); /* file has an extra blank line */
    CHECK_U64(mlx4->ports[1].rate_mbps, 40000);
    CHECK_U64(mlx4->ports[1].counters[PNA_IBC_XMIT_WAIT].value, 3846);

    CHECK_STR(mlx5->name, "mlx5_0");
    CHECK(mlx5->has_node_guid);             /* file without trailing newline */
    CHECK_U64(mlx5->node_guid, UINT64_C(0x0a7fbc1245efd23b));
    CHECK_STR(mlx5->node_guid_text, "0a7f:bc12:45ef:d23b");
    CHECK_STR(mlx5->hca_type, "MT4118");
    const struct pna_ib_port *p = &mlx5->ports[0];
    CHECK_INT(p->num, 1);
    CHECK_INT(p->state, PNA_IB_STATE_ACTIVE);
    CHECK_STR(p->state_text, "4: ACTIVE");
    CHECK(p->has_state && p->has_phys_state);
    CHECK_INT(p->phys_state, 4);            /* "4: ACTIVE": only the number is trusted */
    CHECK_STR(p->phys_state_text, "4: ACTIVE"); /* as the file says */
    CHECK_U64(p->rate_mbps, 25000);
    CHECK_INT(p->width, 1);
    CHECK_U64(p->counters[PNA_IBC_XMIT_DATA].value, UINT64_C(2880761508848) * 4);
    CHECK_U64(p->counters[PNA_IBC_XMIT_PACKETS].value, UINT64_C(10907922116));
    CHECK_U64(p->counters[PNA_IBC_UNICAST_XMIT_PACKETS].value, UINT64_C(10907922116));
    CHECK(!p->counters[PNA_IBC_RCV_DISCARDS].present);
    CHECK_U64(p->n_hw, 24);                 /* 25 files minus "lifespan" */
    const struct pna_hw_counter *h = pna_ib_find_hw(p->hw, p->n_hw, "rx_read_requests");
    CHECK(h && h->raw == 175528982);
    CHECK(pna_ib_find_hw(p->hw, p->n_hw, "lifespan") == NULL);
    CHECK_STR(p->netdev, "");               /* InfiniBand link layer: no netdev */

    pna_ib_derive(&m, NULL);
    CHECK(p->cc[PNA_CC_ROCE_ADP_RETRANS].present);
    CHECK_U64(p->cc[PNA_CC_ROCE_ADP_RETRANS].value, 99);
    CHECK_U64(p->cc[PNA_CC_LOCAL_ACK_TIMEOUT_ERR].value, 131);
    CHECK_U64(p->cc[PNA_CC_DUPLICATE_REQUEST].value, 41);
    CHECK(!p->cc[PNA_CC_NP_CNP_SENT].present); /* not offered by this HCA */
    CHECK(!p->rates.valid);                     /* first poll */
    h = pna_ib_find_hw(p->hw, p->n_hw, "out_of_sequence");
    CHECK(h && h->wraps32 && h->value == 1);
    pna_ib_model_free(&m);
}

static void test_node_exporter_tree(void)
{
    char root[PATH_MAX], err[160] = "";
    struct pna_roots roots = PNA_ROOTS_DEFAULT;
    struct pna_ib_model m;
    snprintf(root, sizeof root, "%s/ib-sysfs/node_exporter/sys", unit_fixtures());
    roots.sysfs = root;
    CHECK_INT(pna_ib_sysfs_read(&roots, &m, err, sizeof err), 0);
    CHECK_U64(m.n_devices, 2);
    CHECK_U64(m.problems, 0);
    if (m.n_devices != 2)
        return;
    check_all_ports_against_files(root, &m);

    const struct pna_ib_device *iw = &m.devices[0], *mlx4 = &m.devices[1];
    CHECK_STR(iw->name, "i40iw0");
    CHECK_U64(iw->ports[0].rate_mbps, 10000);
    CHECK_INT(iw->ports[0].width, 4);        /* "10 Gb/sec (4X)": no speed name */
    for (int i = 0; i < PNA_IBC_COUNT; i++)
        CHECK(!iw->ports[0].counters[i].present); /* "N/A (no PMA)": absent, not zero */

    const struct pna_ib_port *p1 = &mlx4->ports[0], *p2 = &mlx4->ports[1];
    /* saturated 32-bit PortXmitWait */
    CHECK(p1->counters[PNA_IBC_XMIT_WAIT].present);
    CHECK(p1->counters[PNA_IBC_XMIT_WAIT].saturated);
    CHECK_U64(p1->counters[PNA_IBC_XMIT_WAIT].value, UINT64_C(4294967295));
    CHECK(!p1->counters[PNA_IBC_XMIT_DISCARDS].saturated);
    CHECK_U64(p1->counters[PNA_IBC_XMIT_DISCARDS].value, 5);
    /* counters_ext preferred: port_rcv_packets_64 = 0 beats counters' 6825908347 */
    CHECK(p1->counters[PNA_IBC_RCV_PACKETS].from_ext);
    CHECK_U64(p1->counters[PNA_IBC_RCV_PACKETS].value, 0);
    CHECK_U64(p1->counters[PNA_IBC_RCV_DATA].value, UINT64_C(4631917) * 4);
    CHECK(p1->counters[PNA_IBC_RCV_DISCARDS].present);
    /* port 2: counters has multicast 0, counters_ext 93 */
    CHECK_U64(p2->counters[PNA_IBC_MULTICAST_RCV_PACKETS].value, 93);
    CHECK(!p2->counters[PNA_IBC_SYMBOL_ERROR].present);
    pna_ib_model_free(&m);
}

/* ---- temp trees ---- */

static char tmp_root[64];

static void put(const char *rel, const char *content)
{
    unit_put(tmp_root, rel, content);
}

static void mkdirs(const char *rel)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s/x", tmp_root, rel);
    for (char *s = path + strlen(tmp_root) + 1; *s; s++)
        if (*s == '/') {
            *s = '\0';
            mkdir(path, 0755);
            *s = '/';
        }
}

static void remove_tree(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_root);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", tmp_root);
}

#define D "class/infiniband/"

static void test_broken_tree(void)
{
    char err[160] = "";
    struct pna_roots roots = PNA_ROOTS_DEFAULT;
    struct pna_ib_model m;
    roots.sysfs = tmp_root;

    /* no class/infiniband at all: no RDMA stack, no devices, no error */
    CHECK_INT(pna_ib_sysfs_read(&roots, &m, err, sizeof err), 0);
    CHECK_U64(m.n_devices, 0);
    CHECK_U64(m.problems, 0);
    pna_ib_model_free(&m);

    /* class/infiniband is a file: an error with a clear reason */
    put("class/infiniband", "x\n");
    CHECK_INT(pna_ib_sysfs_read(&roots, &m, err, sizeof err), -1);
    CHECK(strstr(err, "class/infiniband") && strstr(err, "Not a directory"));
    char file[PATH_MAX];
    snprintf(file, sizeof file, "%s/class/infiniband", tmp_root);
    unlink(file);

    /* a RoCE device in good order, with a PCI link and a netdev */
    put(D "rxe_b/node_type", "1: CA\n");
    put(D "rxe_b/node_guid", "0002:c903:00f1:a0b0\n");
    put(D "rxe_b/sys_image_guid", "0002:c903:00f1:a0b3\n");
    put(D "rxe_b/ports/1/state", "1: DOWN\n");
    put(D "rxe_b/ports/1/phys_state", "3: Disabled\n");
    put(D "rxe_b/ports/1/link_layer", "Ethernet\n");
    put(D "rxe_b/ports/1/rate", "2.5 Gb/sec (1X SDR)\n");
    put(D "rxe_b/ports/1/lid", "0x0\n");
    put(D "rxe_b/ports/1/gids/0", "fe80:0000:0000:0000:0202:c9ff:fef1:a0b1\n");
    put(D "rxe_b/ports/1/gid_attrs/ndevs/0", "enp94s0f0np0\n");
    put("class/net/enp94s0f0np0/ifindex", "7\n");
    put(D "rxe_b/ports/1/hw_counters/np_cnp_sent", "12\n");
    put(D "rxe_b/ports/1/hw_counters/rx_rdma_ecn_pkts", "4\n");
    put(D "rxe_b/ports/1/hw_counters/lifespan", "10\n");
    /* no counters/ directory at all: the port still shows its state */
    put("devices/pci0000:5d/0000:5e:00.0/x", "");
    char link[PATH_MAX], target[PATH_MAX];
    snprintf(link, sizeof link, "%s/" D "rxe_b/device", tmp_root);
    snprintf(target, sizeof target, "../../../devices/pci0000:5d/0000:5e:00.0");
    CHECK_INT(symlink(target, link), 0);

    /* a device with every kind of damage */
    put(D "bad_a/node_guid", "zzzz\n");
    put(D "bad_a/fw_ver", "");                       /* empty file */
    put(D "bad_a/ports/2/state", "banana\n");
    put(D "bad_a/ports/2/rate", "fast\n");
    put(D "bad_a/ports/2/counters/symbol_error", "12abc\n");
    put(D "bad_a/ports/2/counters/link_downed", "255\n");   /* 8-bit: saturated */
    put(D "bad_a/ports/2/counters/port_rcv_errors", "N/A (no PMA)\n");
    put(D "bad_a/ports/2/counters/port_xmit_data",
        "1234567890123456789012345678901234567890123456789012345678901234567890\n"); /* too big */
    put(D "bad_a/ports/2/counters/port_rcv_data", "18446744073709551615\n"); /* x4 overflows */
    put(D "bad_a/ports/2/counters/VL15_dropped", "7\n");
    put(D "bad_a/ports/2/hw_counters/weird", "-3\n");
    put(D "bad_a/ports/2/hw_counters/ok", "3\n");
    mkdirs(D "bad_a/ports/notaport");
    mkdirs(D "bad_a/ports/10");                      /* port with no files: kept, unknown */
    char fifo[PATH_MAX];
    snprintf(fifo, sizeof fifo, "%s/" D "bad_a/ports/2/counters/port_xmit_wait", tmp_root);
    CHECK_INT(mkfifo(fifo, 0644), 0);                /* must not block the reader */

    memset(err, 0, sizeof err);
    CHECK_INT(pna_ib_sysfs_read(&roots, &m, err, sizeof err), 0);
    CHECK_U64(m.n_devices, 2);
    if (m.n_devices != 2)
        return;
    CHECK(m.problems >= 7);
    CHECK(m.problem[0] != '\0');
    const struct pna_ib_device *bad = &m.devices[0], *rxe = &m.devices[1];
    CHECK_STR(bad->name, "bad_a");
    CHECK(!bad->has_node_guid);
    CHECK(strstr(bad->error, "node_guid") != NULL);
    CHECK_STR(bad->fw_ver, "");
    CHECK_U64(bad->n_ports, 2);                      /* 2 and 10, "notaport" skipped */
    CHECK_INT(bad->ports[0].num, 2);
    CHECK_INT(bad->ports[1].num, 10);
    const struct pna_ib_port *b2 = &bad->ports[0];
    CHECK_INT(b2->state, 0);
    CHECK(!b2->has_state);
    CHECK_STR(b2->state_text, "banana");
    CHECK(strstr(b2->error, "state") != NULL);
    CHECK_U64(b2->rate_mbps, 0);
    CHECK(!b2->counters[PNA_IBC_SYMBOL_ERROR].present);
    CHECK(b2->counters[PNA_IBC_LINK_DOWNED].present && b2->counters[PNA_IBC_LINK_DOWNED].saturated);
    CHECK(!b2->counters[PNA_IBC_RCV_ERRORS].present);
    CHECK(!b2->counters[PNA_IBC_XMIT_DATA].present);
    CHECK(!b2->counters[PNA_IBC_RCV_DATA].present);
    CHECK(!b2->counters[PNA_IBC_XMIT_WAIT].present);
    CHECK(b2->counters[PNA_IBC_VL15_DROPPED].present && b2->counters[PNA_IBC_VL15_DROPPED].value == 7);
    CHECK_U64(b2->n_hw, 1);
    CHECK(b2->n_hw == 1 && strcmp(b2->hw[0].name, "ok") == 0);
    CHECK_INT(bad->ports[1].state, 0);

    CHECK_STR(rxe->name, "rxe_b");
    CHECK_INT(rxe->node_type, 1);
    CHECK_STR(rxe->node_type_text, "CA");
    CHECK(rxe->has_sys_image_guid);
    CHECK_U64(rxe->sys_image_guid, UINT64_C(0x0002c90300f1a0b3));
    CHECK_STR(rxe->pci_addr, "0000:5e:00.0");
    CHECK_STR(rxe->error, "");
    const struct pna_ib_port *r1 = &rxe->ports[0];
    CHECK_INT(r1->state, PNA_IB_STATE_DOWN);
    CHECK_STR(r1->state_text, "1: DOWN");
    CHECK_INT(r1->phys_state, 3);
    CHECK_U64(r1->rate_mbps, 2500);
    CHECK_STR(r1->netdev, "enp94s0f0np0");
    CHECK_INT(r1->ifindex, 7);
    CHECK(r1->has_lid && r1->lid == 0);
    CHECK(!r1->has_port_guid);                       /* Ethernet: the GID is not a GUID */
    CHECK_STR(r1->gid0, "fe80:0000:0000:0000:0202:c9ff:fef1:a0b1");
    CHECK_STR(r1->error, "");
    for (int i = 0; i < PNA_IBC_COUNT; i++)
        CHECK(!r1->counters[i].present);
    pna_ib_derive(&m, NULL);
    CHECK(r1->cc[PNA_CC_NP_CNP_SENT].present && r1->cc[PNA_CC_NP_CNP_SENT].value == 12);
    /* ionic's name for ECN-marked packets lands in the same column */
    CHECK(r1->cc[PNA_CC_NP_ECN_MARKED_ROCE_PACKETS].present &&
          r1->cc[PNA_CC_NP_ECN_MARKED_ROCE_PACKETS].value == 4);
    pna_ib_model_free(&m);

    /* the netdev found through the PCI function's net/ directory (mlx4, 2 ports) */
    put(D "rxe_b/ports/2/link_layer", "Ethernet\n");
    put(D "rxe_b/ports/2/state", "4: ACTIVE\n");
    put("devices/pci0000:5d/0000:5e:00.0/net/eth3/dev_port", "1\n");
    put("devices/pci0000:5d/0000:5e:00.0/net/eth2/dev_port", "0\n");
    put("class/net/eth3/ifindex", "9\n");
    CHECK_INT(pna_ib_sysfs_read(&roots, &m, err, sizeof err), 0);
    if (m.n_devices == 2 && m.devices[1].n_ports == 2) {
        CHECK_STR(m.devices[1].ports[1].netdev, "eth3");
        CHECK_INT(m.devices[1].ports[1].ifindex, 9);
        CHECK_STR(m.devices[1].ports[0].netdev, "enp94s0f0np0"); /* ndevs/0 still wins */
    } else {
        CHECK(0);
    }
    pna_ib_model_free(&m);
}

int main(void)
{
    test_procfs_tree();
    test_node_exporter_tree();
    snprintf(tmp_root, sizeof tmp_root, "/tmp/pna-ib-XXXXXX");
    if (!mkdtemp(tmp_root)) {
        perror("mkdtemp");
        return 1;
    }
    test_broken_tree();
    remove_tree();
    UNIT_END();
}
