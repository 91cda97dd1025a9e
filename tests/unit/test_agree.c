/* test_agree.c -- the SNMP tables and the HTTP bridge serve the same value for
 * every cell.
 *
 * The real pollers read tests/fixtures/distinct/ (built for this test from the
 * real samples' layouts: within a row no two figures are equal, and every column
 * has a non-zero figure in some row), twice where a figure needs two samples,
 * through the fixture roots, the test NVML library, a stub kubelet, a stand-in
 * ethtool reader, a stand-in libibverbs and a stand-in libibmad for the IB
 * port's neighbour.  One view of the cache is then
 * answered both ways: every cell of every MIB table and scalar group through
 * the SNMP table engine (the code snmpd's requests reach), and /metrics and the
 * JSON endpoints through the bridge's renderers.
 *
 * What is compared is what the exposition itself claims: a /metrics family
 * whose HELP ends in "(primusObject[ scale])." must have, for every row of that
 * object's table, the sample the cell times that scale says, and no other; an
 * info series claims its table's text and enumeration columns as labels; the
 * family whose HELP ends in "(primusObject is their sum)." splits the cell by
 * a label; the replaced exporters' names are listed here with the MIB object each
 * mirrors; a JSON member is its descriptor's column times its JSON scale, and
 * the members the replaced exporters' JSON names itself are checked one by one.  A renderer
 * that reads another counter than the SNMP table, drops or invents a row, or
 * applies another scale fails here; so does a fixture whose row holds the same
 * number twice (the comparison could then not tell two columns apart). */
#include "pna_autoconf.h"

#include <ftw.h>
#include <limits.h>
#include <ctype.h>
#include <math.h>

#include "core/config.h"
#include "core/events.h"
#include "core/view.h"
#include "http/render/render.h"
#include "model/gpu/gpu.h"
#include "model/ib.h"
#include "model/metric_tables.h"
#include "model/oids.h"
#include "model/kubernetes/podres.h"
#include "pollers/pollers.h"
#include "snmp/table.h"
#include "model/metric_tables.h"
#include "sources/pfc/ethtool.h"
#include "sources/pfc/lldp.h"
#include "model/phy/phy.h"
#include "sources/rdma/ib_smp.h"
#include "sources/rdma/ib_verbs.h"
#include "util/fileio.h"
#include "containers_testutil.h"
#include "httpstub.h"

static char tmp[] = "/tmp/pna-agree-XXXXXX";
static char rootfs[PATH_MAX], sysfs[PATH_MAX], procfs[PATH_MAX], devfs[PATH_MAX];

/* ---- the fixture roots -------------------------------------------------------- */

/* Copy the fixture directory REL's content into DST (cp -a keeps the links). */
static void copy_fixture(const char *rel, const char *dst)
{
    char cmd[3 * PATH_MAX];
    tt_mkdirs(dst);
    snprintf(cmd, sizeof cmd, "cp -a '%s/distinct/%s/.' '%s/'", unit_fixtures(), rel, dst);
    CHECK_INT(system(cmd), 0);
}

static void build_roots(void)
{
    snprintf(rootfs, sizeof rootfs, "%s/root", tmp);
    snprintf(sysfs, sizeof sysfs, "%s/sys", tmp);
    snprintf(procfs, sizeof procfs, "%s/proc", tmp);
    snprintf(devfs, sizeof devfs, "%s/dev", tmp);
    copy_fixture("rootfs", rootfs);
    copy_fixture("containerd", rootfs);
    copy_fixture("sys", sysfs);
    copy_fixture("cgroup", sysfs);
    copy_fixture("slurm", sysfs);
    copy_fixture("proc", procfs);
    copy_fixture("dev", devfs);
    char dir[PATH_MAX + 32];
    snprintf(dir, sizeof dir, "%s/var/lib/kubelet", rootfs);
    tt_mkdirs(dir);
    /* the RoCE device's verbs node beside the fixture's uverbs0 (mlx5_0), and
     * the device nodes the verbs reader looks for */
    tt_write(sysfs, "class/infiniband_verbs/uverbs1/ibdev", "mlx5_1\n");
    tt_write(sysfs, "class/infiniband_verbs/uverbs1/dev", "231:193\n");
    tt_write(devfs, "infiniband/uverbs0", "");
    tt_write(devfs, "infiniband/uverbs1", "");
    /* the umad device of the InfiniBand port, which the neighbour SMPs use */
    tt_write(sysfs, "class/infiniband_mad/umad0/ibdev", "mlx5_0\n");
    tt_write(sysfs, "class/infiniband_mad/umad0/port", "1\n");
    tt_write(devfs, "infiniband/umad0", "");
}

/* libibverbs, as the test sees it: each device answers its ports' MTUs. */
static char verbs_ctx[2];

static void *verbs_open(const char *device)
{
    if (!strcmp(device, "mlx5_0"))
        return &verbs_ctx[0];
    return !strcmp(device, "mlx5_1") ? &verbs_ctx[1] : NULL;
}

static int verbs_query(void *ctx, uint32_t port, struct pna_ib_port_attr *out)
{
    (void)port;
    out->active_mtu_octets = ctx == &verbs_ctx[0] ? pna_ib_mtu_octets(4) : pna_ib_mtu_octets(3);
    out->max_mtu_octets = pna_ib_mtu_octets(5);
    return 0;
}

static void verbs_close(void *ctx)
{
    (void)ctx;
}

static const struct pna_ib_verbs_ops fixture_verbs = { verbs_open, verbs_query, verbs_close };

/* libibmad's directed-route SMPs, as the test sees them: mlx5_0/1 is cabled to
 * port 37 of a switch, whose answers are the IBA attribute layouts (NodeInfo:
 * NodeType at octet 2, NodeGUID at 12..19, LocalPortNum at 36;
 * NodeDescription: 64 octets, padded with blanks as switches do). */
static char smp_ctx;

static void *smp_open(const char *device, uint32_t port)
{
    return !strcmp(device, "mlx5_0") && port == 1 ? &smp_ctx : NULL;
}

static int smp_query(void *handle, uint32_t port, uint16_t attr, uint8_t data[PNA_SMP_DATA_SIZE])
{
    static const uint8_t guid[8] = { 0x0c, 0x42, 0xa1, 0x03, 0x00, 0x79, 0xb1, 0xd6 };
    static const char desc[] = "MF0;agree-leaf-03:MQM8790/U1";
    (void)handle;
    (void)port;
    memset(data, attr == PNA_SMP_ATTR_NODE_DESC ? ' ' : 0, PNA_SMP_DATA_SIZE);
    if (attr == PNA_SMP_ATTR_NODE_DESC) {
        memcpy(data, desc, sizeof desc - 1);
        return 0;
    }
    data[0] = data[1] = 1;  /* BaseVersion, ClassVersion */
    data[2] = 2;            /* NodeType: switch */
    data[3] = 41;           /* NumPorts */
    memcpy(data + 12, guid, sizeof guid);
    data[36] = 37;          /* LocalPortNum */
    return 0;
}

static void smp_close(void *handle)
{
    (void)handle;
}

static const struct pna_ib_smp_ops fixture_smp = { smp_open, smp_query, smp_close };

/* Add a different amount to every counter file under the IB tree, as the
 * hardware would between two polls: rates come out distinct. */
static unsigned bump_step;

static int bump_file(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)ftw;
    if (flag != FTW_F || (!strstr(path, "/counters/") && !strstr(path, "/counters_ext/") &&
                          !strstr(path, "/hw_counters/")))
        return 0;
    FILE *f = fopen(path, "r+");
    unsigned long long v;
    if (f && fscanf(f, "%llu", &v) == 1) {
        rewind(f);
        bump_step++;
        unsigned long long add = 1000ULL * bump_step + 7ULL * bump_step * bump_step;
        /* the data counters (4-byte words) by amounts that leave the two
         * directions' utilization apart however long the interval is */
        if (strstr(path, "/port_rcv_data"))
            add = 40000000ULL;
        else if (strstr(path, "/port_xmit_data"))
            add = 90000000ULL;
        fprintf(f, "%llu\n", v + add);
    }
    if (f)
        fclose(f);
    return 0;
}

/* The cpu line of proc/stat, every field grown by its own amount. */
static void bump_cpu_times(void)
{
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/stat", procfs);
    size_t len;
    FILE *f = fopen(path, "r");
    char *text = NULL;
    if (f) {
        text = calloc(1, 1 << 16);
        len = fread(text, 1, (1 << 16) - 1, f);
        fclose(f);
        text[len] = '\0';
    }
    CHECK(text != NULL);
    if (!text)
        return;
    unsigned long long t[10] = { 0 };
    int n = sscanf(text, "cpu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu", &t[0], &t[1],
                   &t[2], &t[3], &t[4], &t[5], &t[6], &t[7], &t[8], &t[9]);
    CHECK(n >= 8);
    static const unsigned long long grow[10] = { 3217, 41, 1409, 5113, 877, 13, 29, 7, 0, 0 };
    char line[512];
    snprintf(line, sizeof line, "cpu  %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu",
             t[0] + grow[0], t[1] + grow[1], t[2] + grow[2], t[3] + grow[3], t[4] + grow[4],
             t[5] + grow[5], t[6] + grow[6], t[7] + grow[7], t[8], t[9]);
    char *rest = strchr(text, '\n');
    f = fopen(path, "w");
    if (f) {
        fprintf(f, "%s%s", line, rest ? rest : "\n");
        fclose(f);
    }
    free(text);
}

/* ---- the stand-in DCB and LLDP readers ---------------------------------------- */

/* DCB netlink answers no virtual interface: what an mlx5 port in DSCP trust
 * would answer (built, with figures distinct from the row's others): PFC on
 * priority 3 of 4 possible, delay 32, MBC, priority p in traffic class p with
 * TC 6 strict, the 64 DSCP entries mlx5 keeps while it trusts DSCP.  The
 * ionic port has no DCB support; ens2f0np0 is configured as ens1f0np0, so
 * the node counts two interfaces ready and one unreadable. */
static int read_dcb(const char *ifname, struct pna_dcb *out)
{
    memset(out, 0, sizeof *out);
    if (strcmp(ifname, "enp132s0") == 0) {
        snprintf(out->error, sizeof out->error, "no DCB support in the driver (EOPNOTSUPP)");
        return -1;
    }
    out->read = true;
    out->has_pfc = true;
    out->pfc_cap = 4;
    out->pfc_en = 1u << 3;
    out->pfc_mbc = 1;
    out->pfc_delay = 32;
    out->has_ets = true;
    out->ets_cap = 8;
    for (uint8_t p = 0; p < 8; p++) {
        out->prio_tc[p] = p;
        out->tc_tsa[p] = p == 6 ? PNA_ETS_TSA_STRICT : PNA_ETS_TSA_ETS;
        out->tc_tx_bw[p] = p == 6 ? 0 : (uint8_t)(p == 3 ? 40 : 10);
    }
    for (uint16_t d = 0; d < 64; d++)
        out->apps[out->n_apps++] = (struct pna_dcb_app){ PNA_DCB_SEL_DSCP, (uint8_t)(d >> 3), d };
    return 0;
}

/* lldpd's answer: the leaf switch port behind ens1f0np0 (built). */
static int read_lldp(const char *socket_path, int timeout_ms, struct pna_lldp_table *out, char *err,
                     size_t errlen)
{
    (void)socket_path;
    (void)timeout_ms;
    (void)err;
    (void)errlen;
    out->v = calloc(1, sizeof *out->v);
    if (!out->v)
        return -1;
    out->n = 1;
    struct pna_lldp_entry *e = &out->v[0];
    snprintf(e->ifname, sizeof e->ifname, "ens1f0np0");
    e->n.present = true;
    snprintf(e->n.sys_name, sizeof e->n.sys_name, "leaf-07.fabric");
    snprintf(e->n.chassis_id, sizeof e->n.chassis_id, "7c:fe:90:12:34:56");
    snprintf(e->n.port_id, sizeof e->n.port_id, "Ethernet184");
    snprintf(e->n.port_descr, sizeof e->n.port_descr, "rail 3, gpu-node-17");
    snprintf(e->n.mgmt_addr, sizeof e->n.mgmt_addr, "10.0.0.7");
    e->n.pvid = 100;
    e->n.pfc_known = true;
    e->n.pfc_en = (1u << 3) | (1u << 4);
    e->n.age_s = 9;
    return 0;
}

/* ---- the stand-in ethtool reader ---------------------------------------------- */

static unsigned ethtool_round;

static const char *ethtool_file(const char *ifname)
{
    if (strcmp(ifname, "ens1f0np0") == 0)
        return "distinct/ethtool/mlx5-ens1f0np0.txt";
    if (strcmp(ifname, "enp132s0") == 0)
        return "distinct/ethtool/ionic-enp132s0.txt";
    return NULL;
}

/* `ethtool -S` text of the interface; the second round has every statistic
 * grown by its own amount, as two polls of a busy port would. */
static int read_stats(const char *ifname, struct pna_eth_stats *out, char *err, size_t errlen)
{
    const char *rel = ethtool_file(ifname);
    size_t len;
    char *text = rel ? tt_fixture(rel, &len) : NULL;
    memset(out, 0, sizeof *out);
    if (!text) {
        snprintf(err, errlen, "%s: no such interface", ifname);
        return -1;
    }
    snprintf(out->driver, sizeof out->driver, "%s",
             strcmp(ifname, "ens1f0np0") == 0 ? "mlx5_core" : "ionic");
    out->v = calloc(4096, sizeof *out->v);
    for (char *line = strtok(text, "\n"); line && out->v && out->n < 4096; line = strtok(NULL, "\n")) {
        line += strspn(line, " \t");
        char *colon = strstr(line, ": ");
        if (!colon || strncmp(line, "NIC statistics", 14) == 0 || colon - line > 32)
            continue;
        struct pna_eth_stat *s = &out->v[out->n];
        memcpy(s->name, line, (size_t)(colon - line));
        s->value = strtoull(colon + 2, NULL, 10) + ethtool_round * (1009ULL + 13ULL * out->n);
        out->n++;
    }
    free(text);
    return 0;
}

/* ---- the stand-in physical layer and module readers -------------------------------- */

/* What ethtool netlink would answer for the two mlx5 ports and the ionic one
 * (built: no virtual interface has FEC or 802.3 statistics): every counter a
 * figure of its own, ens2f0np0 with its link down for a reason. */
static int read_phy(const char *ifname, struct pna_phy_if *out)
{
    uint64_t base = strcmp(ifname, "ens1f0np0") == 0 ? 7000000 : strcmp(ifname, "enp132s0") == 0
                                                                    ? 5000000 : 3000000;
    out->link.read = true;
    out->link.has_link = true;
    out->link.link = strcmp(ifname, "ens2f0np0") != 0;
    if (!out->link.link) {
        out->link.has_ext_state = true;
        out->link.ext_state = 2;      /* the kernel's LINK_TRAINING_FAILURE (1), + 1 */
        out->link.ext_substate = 2;   /* KR link inhibit timeout */
    }
    out->fec.read = true;
    out->fec.active = strcmp(ifname, "enp132s0") == 0 ? PNA_FEC_BASER : PNA_FEC_RS;
    out->fec.auto_ = strcmp(ifname, "ens1f0np0") == 0;
    snprintf(out->fec.configured, sizeof out->fec.configured, "rs");
    out->stats_read = true;
    for (int c = 0; c < PNA_PHY_COUNT; c++) {
        out->c[c].present = true;
        out->c[c].value = base + 7919u * (uint64_t)(c + 1) + 104729u * ethtool_round;
    }
    return 0;
}

/* A QSFP28 SR4 in ens1f0np0 and a QSFP-DD in ens2f0np0 (built values, each
 * distinct in its row); enp132s0 has an empty cage. */
static int read_phy_module(const char *ifname, struct pna_module *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    bool qsfp28 = strcmp(ifname, "ens1f0np0") == 0;
    if (!qsfp28 && strcmp(ifname, "ens2f0np0") != 0) {
        snprintf(err, errlen, "no module (ENODEV)");
        return -1;
    }
    int k = qsfp28 ? 1 : 2;
    out->present = true;
    out->spec = qsfp28 ? PNA_MODULE_SPEC_SFF8636 : PNA_MODULE_SPEC_CMIS;
    out->identifier = qsfp28 ? 0x11 : 0x18;
    snprintf(out->identifier_text, sizeof out->identifier_text, "%s", qsfp28 ? "QSFP28" : "QSFP-DD");
    snprintf(out->spec_revision, sizeof out->spec_revision, "%s", qsfp28 ? "2.8" : "4.0");
    snprintf(out->vendor, sizeof out->vendor, "%s", qsfp28 ? "Mellanox" : "Arista Networks");
    snprintf(out->vendor_oui, sizeof out->vendor_oui, "00:02:c9");
    snprintf(out->part_number, sizeof out->part_number, "%s", qsfp28 ? "MMA1B00-C100D" : "QDD-400G-XDR4");
    snprintf(out->revision, sizeof out->revision, "A3");
    snprintf(out->serial, sizeof out->serial, "MT19%02dFT0%d", k, k);
    snprintf(out->date_code, sizeof out->date_code, "2305%02d", k);
    snprintf(out->media, sizeof out->media, "%s", qsfp28 ? "100GBASE-SR4" : "400GBASE-DR4");
    out->lanes = 4;
    out->has_temperature = out->has_voltage = true;
    out->temperature_mc = 41250 + k * 1000;
    out->voltage_uv = 3291300 + k * 100;
    out->temperature_thr = (struct pna_module_thresholds){ true, 80003 + k, 75001 + k, -4998 - k, -9997 - k };
    out->voltage_thr = (struct pna_module_thresholds){ true, 3630011, 3465013, 3135017, 2970019 };
    out->bias_thr = (struct pna_module_thresholds){ true, 13001, 12002, 2003, 1004 };
    out->tx_power_thr = (struct pna_module_thresholds){ true, 35481, 28183, 1778, 1122 };
    out->rx_power_thr = (struct pna_module_thresholds){ true, 35483, 28185, 1771, 1125 };
    for (uint32_t l = 0; l < out->lanes; l++) {
        struct pna_module_lane *lane = &out->lane[l];
        lane->has_bias = lane->has_tx_power = lane->has_rx_power = true;
        lane->bias_ua = 6500 + 37 * l + 1000 * (uint32_t)k;
        lane->tx_power_dw = 8000 + 113 * l + 100 * (uint32_t)k;
        /* lane 3 of the QSFP-DD below its low warning: a level of its own */
        lane->rx_power_dw = !qsfp28 && l == 2 ? 1500 : 7000 + 151 * l + 100 * (uint32_t)k;
    }
    return 0;
}

/* ---- the pollers ----------------------------------------------------------------- */

static void collect(const struct pna_poller_ops *ops, void *state)
{
    char err[256] = "";
    struct pna_snap *out = NULL;
    int rc = pna_poller_collect(ops, state, &out, err, sizeof err);
    if (rc != 0 || !out)
        fprintf(stderr, "%s poll failed: %s\n", ops->name, err);
    CHECK(rc == 0 && out != NULL);
    if (rc == 0 && out)
        pna_cache_publish(ops->domain, out);
}

static void *start(const struct pna_poller_ops *ops, const struct pna_config *cfg)
{
    void *state = NULL;
    char err[256] = "";
    int rc = ops->init ? ops->init(&state, cfg, pna_config_settings(cfg, ops), err, sizeof err) : 0;
    if (rc != 0)
        fprintf(stderr, "%s init: %d %s\n", ops->name, rc, err);
    CHECK_INT(rc, 0);
    return state;
}

static void stop(const struct pna_poller_ops *ops, void *state)
{
    if (ops->fini && state)
        ops->fini(state);
}

static void ignore_event(const struct pna_event *ev, void *arg)
{
    (void)ev;
    (void)arg;
}

/* The energy counter: not in nvidia-smi's XML, so the test NVML's control file has it. */
/* What the test NVML's control file adds to the distinct XML: the energy
 * counter, and what no XML carries (built values, distinct in each row; see
 * tests/fixtures/distinct/README.md): GPM activity, the violation policies
 * nvidia-smi does not print, the links' version, remote end, kind and
 * error counters, and GPM per MIG GPU instance. */
#define BUS "00000000:4E:00.0"
#define CTL_LINES                                                                           \
    "set " BUS " energy_mj 48215903\n"                                                     \
    "gpm " BUS " 1 91.37\ngpm " BUS " 2 82.41\ngpm " BUS " 3 44.13\ngpm " BUS " 5 67.29\n" \
    "gpm " BUS " 10 58.63\ngpm " BUS " 11 3.17\ngpm " BUS " 12 21.59\ngpm " BUS " 13 35.71\n" \
    "gpm " BUS " 20 1111\ngpm " BUS " 21 777\ngpm " BUS " 61 22222\ngpm " BUS " 60 21111\n" \
    "violation " BUS " 1 130661000\nviolation " BUS " 3 130773000\n"                       \
    "violation " BUS " 4 130887000\nviolation " BUS " 5 130999000\n"                       \
    "linkversion " BUS " 0 4\nlinkversion " BUS " 1 5\n"                                   \
    "linkremote " BUS " 0 00000000:A1:00.0\nlinkremote " BUS " 1 00000000:A2:00.0\n"       \
    "linktype " BUS " 0 gpu\nlinktype " BUS " 1 switch\n"                                   \
    "linkerr " BUS " 0 11 12 13 14\nlinkerr " BUS " 1 21 22 23 24\n"                        \
    "linksymbol " BUS " 0 15\nlinksymbol " BUS " 1 25\n"                                   \
    "linkber " BUS " 0 0x30c\nlinkber " BUS " 1 0x70f\n"                                     \
    "procutil " BUS " 48213 61 17\nprocutil " BUS " 48297 43 19\nprocutil " BUS " 48311 5 3\n"  \
    "miggpm " BUS " 3 2 53.17\nmiggpm " BUS " 3 5 29.83\n"                                 \
    "miggpm " BUS " 5 2 37.61\nmiggpm " BUS " 5 5 11.29\n"

/* XIDs on the GPU, through the test NVML's event API: the next poll counts
 * them (the listener thread takes them in half-second slices).  Six: no other
 * figure of the GPU's row is 6. */
static const unsigned xids[] = { 13, 31, 43, 48, 63, 79 };

static void raise_xids(const char *ctl, void *gpu_state)
{
    FILE *f = fopen(ctl, "w");
    if (f) {
        fputs(CTL_LINES, f);
        for (size_t i = 0; i < sizeof xids / sizeof xids[0]; i++)
            fprintf(f, "xid 00000000:4E:00.0 %u\n", xids[i]);
        fclose(f);
    }
    for (int i = 0; i < 300; i++) {
        collect(&pna_gpu_poller, gpu_state);
        const struct pna_gpu_snap *s = (const struct pna_gpu_snap *)pna_cache_acquire(PNA_DOM_GPU);
        bool done = s && s->count && s->gpus[0].has_xid && s->gpus[0].xid_errors == sizeof xids / sizeof xids[0];
        pna_snap_release((struct pna_snap *)s);
        pna_events_drain(ignore_event, NULL);
        if (done)
            return;
        tt_sleep_ms(20);
    }
    CHECK(!"the XIDs never reached the GPU's row");
}

/* GPU accounting: the accounting poller charges two GPU snapshots to the
 * holders the pod-resources rows below give the MIG devices (and the Slurm
 * job its process puts on one), the energy counter moved 3187 mJ (built:
 * neither 3187 nor its sevenths is another figure of a row) over at least
 * 0.7 s, so that the GPU-time and SM-active counters are not 0. */
static void publish_pod_resources(void);

static void account_gpus(struct pna_config *cfg, const char *ctl, void *gpu_state)
{
    struct pna_accounting_settings *set = pna_config_settings(cfg, &pna_accounting_poller);
    set->state_file = "";
    publish_pod_resources();
    void *acct = start(&pna_accounting_poller, cfg);
    collect(&pna_accounting_poller, acct);   /* the first sample */
    tt_sleep_ms(700);
    FILE *f = fopen(ctl, "w");
    if (f) {
        fputs(CTL_LINES, f);
        for (size_t i = 0; i < sizeof xids / sizeof xids[0]; i++)
            fprintf(f, "xid 00000000:4E:00.0 %u\n", xids[i]);
        fputs("set " BUS " energy_mj 48219090\n", f);
        fclose(f);
    }
    collect(&pna_gpu_poller, gpu_state);
    pna_events_drain(ignore_event, NULL);
    collect(&pna_accounting_poller, acct);
    stop(&pna_accounting_poller, acct);
}

/* OOM kills in both containers after the first look (trainer 5 -> 8, log-shipper
 * 7 -> 13): the agent's total counts the 9 it saw. */
static int add_kills(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)ftw;
    size_t len = strlen(path);
    if (flag != FTW_F || len < 14 || strcmp(path + len - 14, "/memory.events") != 0)
        return 0;
    char *text = NULL;
    size_t n = 0;
    if (pna_read_alloc(path, 1 << 16, &text, &n) != 0)
        return 0;
    char *at = text ? strstr(text, "oom_kill ") : NULL;
    if (at) {
        unsigned long long kills = strtoull(at + 9, NULL, 10);
        char *end = at + 9 + strspn(at + 9, "0123456789");
        FILE *f = fopen(path, "w");
        if (f) {
            fprintf(f, "%.*soom_kill %llu%s", (int)(at - text), text,
                    kills == 5 ? 8ULL : kills == 7 ? 13ULL : kills, end);
            fclose(f);
        }
    }
    free(text);
    return 0;
}

static void add_oom_kills(void)
{
    char dir[PATH_MAX + 16];
    snprintf(dir, sizeof dir, "%s/fs/cgroup", sysfs);
    nftw(dir, add_kills, 16, FTW_PHYS);
}

/* The ports go down and up between polls before the counters move, so
 * primusIbPortFlaps and primusIbPortLastChange have figures: mlx5_0/1 six
 * times, mlx5_1/1 nine (distinct from the rows' other figures). */
static void set_port_state(const char *device, const char *state)
{
    char path[2 * PATH_MAX];
    snprintf(path, sizeof path, "%s/class/infiniband/%s/ports/1/state", sysfs, device);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(state, f);
        fclose(f);
    }
}

static void flap_ports(void *ib)
{
    collect(&pna_ib_poller, ib);
    for (int i = 0; i < 9; i++) {
        if (i < 6)
            set_port_state("mlx5_0", "1: DOWN\n");
        set_port_state("mlx5_1", "1: DOWN\n");
        collect(&pna_ib_poller, ib);
        set_port_state("mlx5_0", "4: ACTIVE\n");
        set_port_state("mlx5_1", "4: ACTIVE\n");
        collect(&pna_ib_poller, ib);
    }
}

static void poll_everything(struct pna_config *cfg, struct httpstub **kubelet)
{
    char ctl[PATH_MAX + 16], xml[PATH_MAX], url[64], lib[PATH_MAX];
    const char *b = getenv("top_builddir");
    snprintf(lib, sizeof lib, "%s/tests/nvml/libnvidia-ml.so.1", b ? b : ".");
    tt_fixture_path(xml, sizeof xml, "distinct/nvidia/h100-distinct-nvidia-smi-q-x.xml");
    snprintf(ctl, sizeof ctl, "%s/nvml.ctl", tmp);
    tt_write(tmp, "nvml.ctl", CTL_LINES);
    char nvlink[2 * PATH_MAX + 2], status[PATH_MAX], traffic[PATH_MAX];
    tt_fixture_path(status, sizeof status, "distinct/nvidia/nvlink-status.txt");
    tt_fixture_path(traffic, sizeof traffic, "distinct/nvidia/nvlink-gt-d.txt");
    snprintf(nvlink, sizeof nvlink, "%s:%s", status, traffic);
    setenv("PNA_FAKE_NVML_NVLINK", nvlink, 1);
    char mig[PATH_MAX];
    tt_fixture_path(mig, sizeof mig, "distinct/nvidia/mig.txt");
    setenv("PNA_FAKE_NVML_MIG", mig, 1);
    setenv("PNA_FAKE_NVML_XML", xml, 1);
    setenv("PNA_FAKE_NVML_CTL", ctl, 1);
    struct pna_gpu_settings *gpu_set = pna_config_settings(cfg, &pna_gpu_poller);
    gpu_set->nvml_library = lib;
    gpu_set->process_rows = 2; /* of the three processes: primusGpuProcessesOmitted 1 */
    /* Idle below 90 % from the first poll with an activity figure: the H100
     * (SM activity 82.41 %, held by Slurm job 60917) is idle allocated, and
     * primusGpuLowActivitySince is that poll's time.  Process 48311 runs in
     * a login session's cgroup: primusGpuOrphanProcesses 1. */
    gpu_set->idle_rule = (struct pna_gpu_idle_rule){ .set = true, .threshold_bp = 9000,
                                                     .window_s = 0 };

    int port = 0;
    *kubelet = httpstub_start_tcp(&port);
    char path[PATH_MAX];
    tt_fixture_path(path, sizeof path, "distinct/kubelet/pods.json");
    httpstub_route_file(*kubelet, "/pods", 200, path);
    tt_fixture_path(path, sizeof path, "distinct/kubelet/stats-summary.json");
    httpstub_route_file(*kubelet, "/stats/summary", 200, path);
    snprintf(url, sizeof url, "http://127.0.0.1:%d", port);
    struct pna_kubelet_settings *kubelet_set = pna_config_settings(cfg, &pna_kubelet_poller);
    kubelet_set->url = url;
    kubelet_set->token_file = "/nonexistent";
    /* the fixture pods' labels primusPodLabelTable serves */
    char why[200];
    CHECK_INT(pna_label_allow_add(&cfg->pod_labels, "app,statefulset.kubernetes.io/*", why,
                                  sizeof why), 0);

    struct pna_pfc_settings *pfc_set = pna_config_settings(cfg, &pna_pfc_poller);
    pfc_set->interfaces.names[0] = "enp132s0";
    pfc_set->interfaces.names[1] = "ens2f0np0";
    pfc_set->interfaces.count = 2;
    pna_pfc_poller_set_reader(read_stats);
    pna_pfc_poller_set_dcb_reader(read_dcb);
    pna_pfc_poller_set_lldp_reader(read_lldp);
    pna_phy_poller_set_readers(read_phy, read_phy_module);
    pna_ib_poller_set_ext_ops(NULL, &fixture_smp, &fixture_verbs, true);
    pna_ib_poller_set_link_ops(NULL, NULL); /* flaps come from polls (flap_ports) */

    void *node = start(&pna_node_poller, cfg), *gpu = start(&pna_gpu_poller, cfg);
    void *ib = start(&pna_ib_poller, cfg), *pfc = start(&pna_pfc_poller, cfg);
    void *ctr = start(&pna_containers_poller, cfg), *kub = start(&pna_kubelet_poller, cfg);
    void *sto = start(&pna_storage_poller, cfg);
    /* Slurm's v1 tree beside the containers' v2 one (tests/fixtures/distinct/README.md) */
    struct pna_slurm_settings *slurm_set = pna_config_settings(cfg, &pna_slurm_poller);
    slurm_set->cgroup_root = "fs/slurm-v1";
    void *slurm = start(&pna_slurm_poller, cfg);
    void *phy = start(&pna_phy_poller, cfg);

    /* first polls, then the sources move on, then the polls that give rates */
    collect(&pna_node_poller, node);
    flap_ports(ib);
    collect(&pna_pfc_poller, pfc);
    collect(&pna_phy_poller, phy);
    bump_cpu_times();
    nftw(sysfs, bump_file, 16, FTW_PHYS);
    /* two IB error counters stopped at the top of their width (16 and 8 bits) */
    tt_write(sysfs, "class/infiniband/mlx5_0/ports/1/counters/symbol_error", "65535\n");
    tt_write(sysfs, "class/infiniband/mlx5_0/ports/1/counters/link_downed", "255\n");
    ethtool_round = 1;
    tt_sleep_ms(50);   /* an interval the per-second figures are computed over */
    collect(&pna_node_poller, node);
    collect(&pna_ib_poller, ib);
    collect(&pna_pfc_poller, pfc);
    collect(&pna_phy_poller, phy);
    collect(&pna_containers_poller, ctr);
    add_oom_kills();
    collect(&pna_containers_poller, ctr);
    collect(&pna_kubelet_poller, kub);
    collect(&pna_storage_poller, sto);
    collect(&pna_slurm_poller, slurm);
    collect(&pna_gpu_poller, gpu); /* the first GPU performance sample */
    raise_xids(ctl, gpu);
    account_gpus(cfg, ctl, gpu);
    void *topo = start(&pna_topology_poller, cfg); /* over the gpu and ib snapshots */
    collect(&pna_topology_poller, topo);
    stop(&pna_topology_poller, topo);

    stop(&pna_node_poller, node);
    stop(&pna_gpu_poller, gpu);
    stop(&pna_ib_poller, ib);
    stop(&pna_pfc_poller, pfc);
    stop(&pna_phy_poller, phy);
    stop(&pna_containers_poller, ctr);
    stop(&pna_kubelet_poller, kub);
    stop(&pna_storage_poller, sto);
    stop(&pna_slurm_poller, slurm);
    kubelet_set->url = "";
}

/* The kubelet's device assignments.  The pod-resources poller needs a gRPC
 * server (tests/integration/podresources_*.sh run one); here its snapshot is
 * built the way the poller builds it, from rows as the kubelet would list
 * them (made for this test: six time-sliced shares of the H100 (seven holders with
 * the MIG device's: a count no other figure of the GPU's row has) and a MIG device
 * held, an RDMA VF, a RoCE netdev of the RDMA shared-device plugin, and two
 * devices no container holds), so that every cell
 * of primusPodResourceTable and the holder joins are compared. */
static void podres_row(struct pna_podres_snap *s, const char *ns, const char *pod,
                       const char *container, const char *resource, const char *id, int numa,
                       bool allocatable, const char *rdma)
{
    struct pna_podres_row *r = pna_podres_add(s);
    CHECK(r != NULL);
    if (!r)
        return;
    r->assigned = pod[0] != '\0';
    r->allocatable = allocatable;
    r->numa_node = numa;
    snprintf(r->pod_namespace, sizeof r->pod_namespace, "%s", ns);
    snprintf(r->pod_name, sizeof r->pod_name, "%s", pod);
    snprintf(r->container, sizeof r->container, "%s", container);
    snprintf(r->resource, sizeof r->resource, "%s", resource);
    snprintf(r->id, sizeof r->id, "%s", id);
    snprintf(r->rdma_dev, sizeof r->rdma_dev, "%s", rdma);
}

/* A DRA claim's device as the poller resolves it: its claim, driver, pool,
 * device and CDI device; RDMA the RDMA device its name resolved to. */
static void podres_dra_row(struct pna_podres_snap *s, const char *pod, const char *claim,
                           const char *driver, const char *device, const char *cdi, int numa,
                           const char *rdma)
{
    podres_row(s, "ml-research", pod, "eval", "", "", numa, false, rdma);
    struct pna_podres_dra *d = pna_podres_dra_new();
    CHECK(d != NULL);
    if (!d)
        return;
    s->rows[s->count - 1].dra = d;
    snprintf(d->claim_namespace, sizeof d->claim_namespace, "ml-research");
    snprintf(d->claim_name, sizeof d->claim_name, "%s", claim);
    snprintf(d->driver, sizeof d->driver, "%s", driver);
    snprintf(d->pool, sizeof d->pool, "gpu-node-07");
    snprintf(d->device, sizeof d->device, "%s", device);
    snprintf(d->cdi_device, sizeof d->cdi_device, "%s", cdi);
}

static void destroy_podres(struct pna_snap *snap)
{
    pna_podres_snap_free((struct pna_podres_snap *)snap);
}

static void publish_pod_resources(void)
{
    struct pna_podres_snap *s = calloc(1, sizeof *s);
    CHECK(s != NULL);
    if (!s)
        return;
    podres_row(s, "ml-research", "llm-train-0", "trainer", "nvidia.com/gpu.shared",
               "GPU-3f7a91c2-58e4-4d1b-a69f-2c7e05b8d413::2", 3, false, "");
    podres_row(s, "ml-research", "llm-train-1", "trainer", "nvidia.com/gpu.shared",
               "GPU-3f7a91c2-58e4-4d1b-a69f-2c7e05b8d413::3", 6, true, "");
    podres_row(s, "ml-research", "llm-train-2", "trainer", "nvidia.com/gpu.shared",
               "GPU-3f7a91c2-58e4-4d1b-a69f-2c7e05b8d413::4", 7, true, "");
    podres_row(s, "ml-research", "llm-train-4", "trainer", "nvidia.com/gpu.shared",
               "GPU-3f7a91c2-58e4-4d1b-a69f-2c7e05b8d413::6", 9, false, "");
    podres_row(s, "ml-research", "llm-train-5", "trainer", "nvidia.com/gpu.shared",
               "GPU-3f7a91c2-58e4-4d1b-a69f-2c7e05b8d413::7", 10, false, "");
    podres_row(s, "ml-research", "llm-train-3", "trainer", "nvidia.com/gpu.shared",
               "GPU-3f7a91c2-58e4-4d1b-a69f-2c7e05b8d413::5", 8, false, "");
    podres_row(s, "ml-research", "llm-eval-1", "eval", "nvidia.com/mig-1g.10gb",
               "MIG-a41c7f08-2e96-5d3b-8c57-e0b9d14f6a23", 1, true, "");
    podres_row(s, "ml-research", "llm-train-0", "trainer", "nvidia.com/sriov_rdma_vf",
               "0000:3b:00.2", 2, true, "mlx5_1");
    podres_row(s, "", "", "", "nvidia.com/mig-2g.20gb", "MIG-6b2d9e41-7c35-5a80-b1f4-93e7c0a2d518",
               5, true, "");
    podres_row(s, "", "", "", "example.com/fpga", "fpga-7", 4, true, "");
    /* The RDMA shared-device plugin's way: the id is the RoCE netdev. */
    podres_row(s, "ml-research", "llm-eval-1", "eval", "rdma/roce_shared", "ens1f0np0", 11, false,
               "mlx5_1");
    /* DRA: dranet's NIC (named by its interface), an unknown driver's
     * device resolved to nothing (a plain row). */
    podres_dra_row(s, "llm-eval-1", "eval-fabric-q2w8", "dra.net", "ens1f0np0", "", 12, "mlx5_1");
    podres_dra_row(s, "llm-eval-2", "eval-fpga-k9d3x", "fpga.example.com", "slot3",
                   "example.com/fpga=slot3", 13, "");
    s->socket_seen = s->has_allocatable = true;
    CHECK_INT(pna_podres_finish(s, NULL), 0);
    pna_snap_init(&s->base, destroy_podres);
    s->base.taken_ms = pna_now_ms();
    pna_cache_publish(PNA_DOM_PODRES, &s->base);
}

/* The agent's own rows, with distinct figures: what the poller core and the
 * event history would hold (they are not running in this test). */
static void fill_agent_state(struct pna_view *v)
{
    static const char *const names[] = { "node", "gpu", "ib" };
    v->n_pollers = 3;
    v->pollers = calloc(3, sizeof *v->pollers);
    for (size_t i = 0; v->pollers && i < 3; i++) {
        struct pna_poller_info *p = &v->pollers[i];
        unsigned k = (unsigned)i + 1;
        p->index = k;
        snprintf(p->name, sizeof p->name, "%s", names[i]);
        p->interval_ms = 4000 + 1100 * k;
        p->timeout_ms = 2000 + 700 * k;
        p->status = k == 2 ? PNA_POLLER_FAILING : PNA_POLLER_OK;
        p->last_success_ms = v->now_ms - 3300 * k;
        p->last_duration_ms = 17 + 23 * k;
        p->runs = 900 + 41 * k;
        p->errors = 5 + 3 * k;
        p->consecutive_failures = 11 + k;
        snprintf(p->last_error, sizeof p->last_error, "error %u", k);
        p->data_taken_ms = v->now_ms - 6100 * k;
    }
    v->all_ran = true;
    v->agent.version = "1.2.3";
    v->agent.started_ms = v->now_ms - 91234;
    v->events_total = 4321;
    v->events_dropped = 17;
    v->event_capacity = 250;
    v->series_served = 23456;
    v->series_dropped_limit = 4100;
    v->series_dropped_duplicate = 31;
}

/* ---- /metrics, parsed ------------------------------------------------------------ */

#define MAX_LABELS 32

struct sample {
    char *name;
    size_t nl;
    char *key[MAX_LABELS], *val[MAX_LABELS];
    char *value;
    bool matched;
};

struct family {
    char *name, *help;
};

struct exposition {
    struct sample *s;
    size_t ns;
    struct family *f;
    size_t nf;
};

static char *copy_n(const char *p, size_t n)
{
    char *s = malloc(n + 1);
    if (s) {
        memcpy(s, p, n);
        s[n] = '\0';
    }
    return s;
}

/* A label value up to its closing quote, unescaped. */
static char *label_value(const char **p)
{
    struct pna_buf b;
    pna_buf_init(&b);
    const char *q = *p;
    while (*q && *q != '"') {
        if (*q == '\\' && q[1]) {
            q++;
            pna_buf_putc(&b, *q == 'n' ? '\n' : *q);
        } else {
            pna_buf_putc(&b, *q);
        }
        q++;
    }
    *p = *q ? q + 1 : q;
    return pna_buf_steal(&b, NULL);
}

static void parse_sample(struct exposition *e, const char *line)
{
    struct sample *s = &e->s[e->ns++];
    memset(s, 0, sizeof *s);
    size_t n = strcspn(line, "{ ");
    s->name = copy_n(line, n);
    const char *p = line + n;
    if (*p == '{') {
        p++;
        while (*p && *p != '}' && s->nl < MAX_LABELS) {
            size_t k = strcspn(p, "=");
            s->key[s->nl] = copy_n(p, k);
            p += k + 2; /* =" */
            s->val[s->nl++] = label_value(&p);
            if (*p == ',')
                p++;
        }
        p = strchr(p, '}');
        p = p ? p + 1 : line + strlen(line);
    }
    s->value = strdup(p + strspn(p, " "));
}

static void parse_exposition(char *text, struct exposition *e)
{
    memset(e, 0, sizeof *e);
    size_t lines = 1;
    for (const char *c = text; *c; c++)
        lines += *c == '\n';
    e->s = calloc(lines, sizeof *e->s);
    e->f = calloc(lines, sizeof *e->f);
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        if (strncmp(line, "# HELP ", 7) == 0) {
            struct family *f = &e->f[e->nf++];
            size_t n = strcspn(line + 7, " ");
            f->name = copy_n(line + 7, n);
            f->help = strdup(line + 7 + n + 1);
        } else if (line[0] != '#') {
            parse_sample(e, line);
        }
    }
}

static void free_exposition(struct exposition *e)
{
    for (size_t i = 0; i < e->ns; i++) {
        free(e->s[i].name);
        free(e->s[i].value);
        for (size_t k = 0; k < e->s[i].nl; k++) {
            free(e->s[i].key[k]);
            free(e->s[i].val[k]);
        }
    }
    for (size_t i = 0; i < e->nf; i++) {
        free(e->f[i].name);
        free(e->f[i].help);
    }
    free(e->s);
    free(e->f);
}

static const char *sample_label(const struct sample *s, const char *key)
{
    for (size_t i = 0; i < s->nl; i++)
        if (strcmp(s->key[i], key) == 0)
            return s->val[i];
    return NULL;
}

/* ---- SNMP, walked -------------------------------------------------------------- */

struct cell {
    const struct pna_metric_table *t;
    const struct pna_metric *m;
    oid idx[MAX_OID_LEN];
    size_t idx_len;
    bool is_text;
    char text[256];
    int64_t i;     /* ASN_INTEGER */
    uint64_t u;    /* the others */
};

static struct cell *cells;
static size_t n_cells, cap_cells;

static struct cell *new_cell(const struct pna_metric_table *t, unsigned col, const oid *idx,
                             size_t idx_len, const struct pna_cell *c)
{
    if (n_cells == cap_cells) {
        cap_cells = cap_cells ? 2 * cap_cells : 1024;
        cells = realloc(cells, cap_cells * sizeof *cells);
    }
    struct cell *x = &cells[n_cells++];
    memset(x, 0, sizeof *x);
    x->t = t;
    x->m = pna_metric_by_column(t, col);
    memcpy(x->idx, idx, idx_len * sizeof(oid));
    x->idx_len = idx_len;
    x->is_text = c->type == ASN_OCTET_STR;
    if (x->is_text)
        snprintf(x->text, sizeof x->text, "%.*s", (int)c->len, c->str);
    x->i = c->type == ASN_INTEGER ? c->i : (int64_t)c->u;
    x->u = c->type == ASN_INTEGER ? (uint64_t)c->i : c->u;
    CHECK(x->m != NULL);
    return x;
}

static void walk_table(const struct pna_metric_table *def, const struct pna_view *v)
{
    oid cur[MAX_OID_LEN], next[MAX_OID_LEN];
    size_t t = pna_table_oid(def, cur), cur_len = t, next_len;
    for (size_t guard = 0; guard < 200000; guard++) {
        struct pna_cell c;
        if (pna_table_getnext_in(def, v, cur, cur_len, next, &next_len, &c) != 0)
            break;
        CHECK(snmp_oid_compare(next, next_len, cur, cur_len) > 0);
        new_cell(def, (unsigned)next[t + 1], next + t + 2, next_len - t - 2, &c);
        memcpy(cur, next, next_len * sizeof(oid));
        cur_len = next_len;
    }
}

static void walk_scalars(const struct pna_metric_table *t, const struct pna_view *v)
{
    for (size_t i = 0; i < t->count; i++) {
        const struct pna_metric *m = &t->metrics[i];
        if (!m->column || m->syntax == PNA_SYNTAX_NONE)
            continue;
        oid name[MAX_OID_LEN];
        size_t g = pna_table_oid(t, name);
        name[g] = m->column;
        name[g + 1] = 0;
        struct pna_cell c;
        oid none[1] = { 0 };
        if (pna_scalar_get_in(t, v, name, g + 2, &c) == 0)
            new_cell(t, m->column, none, 0, &c);
    }
}

/* ---- rows: the SNMP index as the labels that name the row on /metrics ------------- */

struct key {
    size_t n;
    const char *name[4];
    char value[4][160];
};

static size_t get_string(const oid *idx, size_t len, size_t at, char *out, size_t cap)
{
    if (at >= len)
        return len;
    size_t n = idx[at], k = 0;
    for (size_t i = 0; i < n && at + 1 + i < len && k + 1 < cap; i++)
        out[k++] = (char)idx[at + 1 + i];
    out[k] = '\0';
    return at + 1 + n;
}

/* The poller named by primusPollerName in the row with index IDX. */
static const char *poller_name(const oid *idx)
{
    for (size_t i = 0; i < n_cells; i++)
        if (cells[i].m && cells[i].m->object && !strcmp(cells[i].m->object, "primusPollerName") &&
            cells[i].idx_len == 1 && cells[i].idx[0] == idx[0])
            return cells[i].text;
    return "";
}

/* How a table's index names its row on /metrics: each part of the index and
 * the label it is. */
enum part { STR, NUM, PCI, POLLER, SKIP /* a number no label carries */ };

static const struct {
    const char *table;
    size_t n;
    struct {
        enum part kind;
        const char *label;
    } parts[3];
} key_specs[] = {
    { "primusGpuTable", 1, { { PCI, "pci_bus_id" } } },
    { "primusGpuLinkTable", 2, { { PCI, "pci_bus_id" }, { NUM, "link" } } },
    { "primusGpuProcTable", 2, { { PCI, "pci_bus_id" }, { NUM, "pid" } } },
    { "primusGpuMigTable", 3, { { PCI, "pci_bus_id" }, { NUM, "gpu_instance" },
                                { NUM, "compute_instance" } } },
    { "primusGpuPartitionTable", 2, { { PCI, "pci_bus_id" }, { NUM, "partition" } } },
    { "primusRdmaDeviceTable", 1, { { STR, "device" } } },
    { "primusIbPortTable", 2, { { STR, "device" }, { NUM, "port" } } },
    { "primusRoceCongTable", 2, { { STR, "device" }, { NUM, "port" } } },
    { "primusHwCounterTable", 3, { { STR, "device" }, { NUM, "port" }, { STR, "counter" } } },
    { "primusPauseTable", 1, { { STR, "interface" } } },
    { "primusPfcTable", 2, { { STR, "interface" }, { NUM, "priority" } } },
    { "primusEthtoolCounterTable", 2, { { STR, "interface" }, { STR, "statistic" } } },
    { "primusRoceConfigTable", 1, { { STR, "interface" } } },
    { "primusPhyTable", 1, { { STR, "interface" } } },
    { "primusModuleTable", 1, { { STR, "interface" } } },
    { "primusModuleLaneTable", 2, { { STR, "interface" }, { NUM, "lane" } } },
    { "primusContainerTable", 1, { { STR, "container_id" } } },
    { "primusContainerDeviceTable", 2, { { STR, "container_id" }, { STR, "path" } } },
    { "primusPodStorageTable", 1, { { STR, "pod_uid" } } },
    { "primusPollerTable", 1, { { POLLER, "poller" } } },
    { "primusPodResourceTable", 1, { { NUM, "pod_resource_index" } } },
    { "primusGpuUsageTable", 3, { { SKIP, NULL }, { STR, "holder_id" }, { PCI, "pci_bus_id" } } },
    { "primusPodGpuUsageTable", 2, { { STR, "namespace" }, { STR, "pod" } } },
    { "primusSlurmJobGpuUsageTable", 1, { { NUM, "job" } } },
    { "primusTopoTable", 2, { { STR, "a" }, { STR, "b" } } },
};

/* The labels that name C's row (none for a scalar group: one row). */
static void row_key(const struct cell *c, struct key *k)
{
    memset(k, 0, sizeof *k);
    for (size_t i = 0; i < sizeof key_specs / sizeof key_specs[0]; i++) {
        if (strcmp(key_specs[i].table, c->t->object) != 0)
            continue;
        size_t at = 0, q = 0;
        for (size_t p = 0; p < key_specs[i].n; p++) {
            if (key_specs[i].parts[p].kind == SKIP) {
                at++;
                continue;
            }
            char *out = k->value[q];
            size_t cap = sizeof k->value[q];
            unsigned long x = at < c->idx_len ? (unsigned long)c->idx[at] : 0;
            k->name[q++] = key_specs[i].parts[p].label;
            switch (key_specs[i].parts[p].kind) {
            case STR: at = get_string(c->idx, c->idx_len, at, out, cap); break;
            case NUM: snprintf(out, cap, "%lu", x); at++; break;
            case PCI:
                snprintf(out, cap, "%04lx:%02lx:%02lx.%lx", x >> 16, (x >> 8) & 0xff, (x >> 3) & 0x1f,
                         x & 7);
                at++;
                break;
            case POLLER: snprintf(out, cap, "%.100s", poller_name(c->idx)); at++; break;
            case SKIP: break;
            }
        }
        k->n = q;
    }
    /* A family split by a constant label (the cause of the time held back)
     * keeps each descriptor's sample apart by it. */
    if (c->m->label_value && k->n < sizeof k->name / sizeof k->name[0]) {
        k->name[k->n] = c->m->label;
        snprintf(k->value[k->n], sizeof k->value[k->n], "%s", c->m->label_value);
        k->n++;
    }
}

static bool sample_has_key(const struct sample *s, const struct key *k)
{
    for (size_t i = 0; i < k->n; i++) {
        const char *v = sample_label(s, k->name[i]);
        if (!v || strcmp(v, k->value[i]) != 0)
            return false;
    }
    return true;
}

/* The next sample of FAMILY whose labels hold key K, from *AT on (start at 0);
 * NULL after the last. */
static struct sample *next_sample(struct exposition *e, const char *family, const struct key *k,
                                  size_t *at)
{
    while (*at < e->ns) {
        struct sample *s = &e->s[(*at)++];
        if (!strcmp(s->name, family) && sample_has_key(s, k))
            return s;
    }
    return NULL;
}

static bool same_row(const struct cell *a, const struct cell *b)
{
    return a->t == b->t && a->idx_len == b->idx_len &&
           memcmp(a->idx, b->idx, a->idx_len * sizeof(oid)) == 0;
}

/* The cell of MIB object OBJECT in the row of C, or NULL. */
static const struct cell *cell_in_row(const struct cell *c, const char *object)
{
    for (size_t i = 0; i < n_cells; i++)
        if (same_row(&cells[i], c) && cells[i].m->object && !strcmp(cells[i].m->object, object))
            return &cells[i];
    return NULL;
}

/* ---- values -------------------------------------------------------------------- */

/* The cell as /metrics would print it, times 10^EXP x MUL. */
static long double cell_number(const struct cell *c)
{
    return c->m->syntax == PNA_SYNTAX_INTEGER ? (long double)c->i : (long double)c->u;
}

static long double scaled(const struct cell *c, long double mul, int exp10)
{
    long double v = cell_number(c) * mul;
    for (int i = 0; i < exp10; i++)
        v *= 10;
    for (int i = 0; i > exp10; i--)
        v /= 10;
    return v;
}

static bool numbers_equal(long double a, long double b)
{
    long double d = fabsl(a - b), m = fabsl(a) > fabsl(b) ? fabsl(a) : fabsl(b);
    return d <= 1e-12L * m || d < 1e-12L;
}

/* " / 1000", " x 1000000", " x 125000": what a HELP's reference says. */
static void parse_scale(const char *text, long double *mul, int *exp10)
{
    *mul = 1;
    *exp10 = 0;
    while (*text == ' ')
        text++;
    while (*text) {
        char op = *text;
        text++;
        unsigned long long n = strtoull(text, (char **)&text, 10);
        int zeros = 0;
        unsigned long long k = n;
        while (k >= 10 && k % 10 == 0) {
            k /= 10;
            zeros++;
        }
        if (op == '/' && k == 1)
            *exp10 -= zeros;
        else if (op == 'x' && k == 1)
            *exp10 += zeros;
        else if (op == 'x')
            *mul *= (long double)n;
        while (*text == ' ')
            text++;
    }
}

/* " x 1000", " / 100 x 8": a scale, and nothing else. */
static bool is_scale(const char *text)
{
    while (*text) {
        if (text[0] != ' ' || (text[1] != 'x' && text[1] != '/') || text[2] != ' ' ||
            !isdigit((unsigned char)text[3]))
            return false;
        text += 3;
        text += strspn(text, "0123456789");
    }
    return true;
}

enum claim { NO_CLAIM, CLAIM_VALUE, CLAIM_SUM };

/* The claim at the end of a HELP text: "(OBJECT[ SCALE])." (the family serves
 * the object's value) or "(OBJECT is their sum)." (the family splits it by a
 * label); NO_CLAIM for any other text. */
static enum claim help_claim(const char *help, char *object, size_t cap, long double *mul,
                             int *exp10)
{
    size_t n = strlen(help);
    if (n < 4 || strcmp(help + n - 2, ").") != 0)
        return NO_CLAIM;
    const char *open = help + n - 2;
    while (open > help && *open != '(')
        open--;
    if (*open != '(' || strncmp(open + 1, "primus", 6) != 0)
        return NO_CLAIM;
    size_t len = strcspn(open + 1, " )");
    snprintf(object, cap, "%.*s", (int)len, open + 1);
    char rest[64];
    snprintf(rest, sizeof rest, "%.*s", (int)(help + n - 2 - (open + 1 + len)), open + 1 + len);
    *mul = 1;
    *exp10 = 0;
    if (!strcmp(rest, " is their sum"))
        return CLAIM_SUM;
    if (!is_scale(rest))
        return NO_CLAIM;
    parse_scale(rest, mul, exp10);
    return CLAIM_VALUE;
}

/* The text an info label carries for a cell: its text, its enumeration label, its
 * number; "" for the MIB's stand-in 0 and for an absent cell. */
static void label_text(const struct cell *c, char *buf, size_t cap)
{
    if (!c)
        snprintf(buf, cap, "%s", "");
    else if (c->is_text)
        snprintf(buf, cap, "%s", c->text);
    else if (c->m->enums && c->i > 0 && (size_t)c->i < c->m->enums->count)
        snprintf(buf, cap, "%s", c->m->enums->names[c->i] ? c->m->enums->names[c->i] : "");
    else if (cell_number(c) == 0)
        snprintf(buf, cap, "%s", "");
    else
        snprintf(buf, cap, "%llu", (unsigned long long)c->u);
}

/* ---- the comparisons ---------------------------------------------------------------- */

static size_t compared;

/* The /metrics value the claim says cell C has in family type T. */
static long double expected_value(const struct cell *c, long double mul, int exp10)
{
    if (c->m->true_value)
        return c->i == c->m->true_value;
    if (c->m->syntax == PNA_SYNTAX_TRUTH)
        return c->i == 1; /* true(1) */
    return scaled(c, mul, exp10);
}

/* Family F claims column (T, M): every cell of it has its sample, and the
 * other way round. */
static void compare_column(struct exposition *e, const struct family *f,
                           const struct pna_metric_table *t, const struct pna_metric *m,
                           long double mul, int exp10)
{
    for (size_t i = 0; i < n_cells; i++) {
        const struct cell *c = &cells[i];
        if (c->t != t || c->m != m)
            continue;
        struct key k;
        row_key(c, &k);
        size_t found = 0;
        struct sample *s;
        for (size_t at = 0; (s = next_sample(e, f->name, &k, &at)) != NULL;) {
            found++;
            s->matched = true;
            long double got = strtold(s->value, NULL);
            if (m->type == PNA_FAMILY_STATESET || m->type == PNA_FAMILY_STATE) {
                char want[64];
                label_text(c, want, sizeof want);
                const char *l = sample_label(s, m->label);
                bool mine = l && !strcmp(l, want);
                if (!numbers_equal(got, mine ? 1 : 0))
                    fprintf(stderr, "%s{%s=%s} = %s, %s says %s\n", f->name, m->label, l ? l : "?",
                            s->value, m->object, want);
                CHECK(numbers_equal(got, mine ? 1 : 0));
            } else {
                long double want = expected_value(c, mul, exp10);
                if (!numbers_equal(got, want))
                    fprintf(stderr, "%s{%s=\"%s\"} = %s, but %s = %llu (x %Lg x 10^%d)\n", f->name,
                            k.n ? k.name[0] : "", k.n ? k.value[0] : "", s->value, m->object,
                            (unsigned long long)c->u, mul, exp10);
                CHECK(numbers_equal(got, want));
            }
            compared++;
        }
        bool none = !c->is_text && cell_number(c) == 0; /* the MIB's stand-in: no sample */
        if (m->type == PNA_FAMILY_STATESET && c->m->enums)
            CHECK(found == c->m->enums->count - 1 || found == c->m->enums->count);
        else if (!(none && found == 0)) {
            if (found != 1)
                fprintf(stderr, "%s: %zu samples for the %s cell of row %s=%s\n", f->name, found,
                        m->object, k.n ? k.name[0] : "-", k.n ? k.value[0] : "-");
            CHECK_INT(found, 1);
        }
    }
}

/* Family F splits column (T, M) by a label: its samples of a row add up to the cell. */
static void compare_sum(struct exposition *e, const struct family *f,
                        const struct pna_metric_table *t, const struct pna_metric *m)
{
    for (size_t i = 0; i < n_cells; i++) {
        const struct cell *c = &cells[i];
        if (c->t != t || c->m != m)
            continue;
        struct key k;
        row_key(c, &k);
        size_t found = 0;
        long double sum = 0;
        struct sample *s;
        for (size_t at = 0; (s = next_sample(e, f->name, &k, &at)) != NULL;) {
            found++;
            s->matched = true;
            sum += strtold(s->value, NULL);
        }
        if (!numbers_equal(sum, cell_number(c)))
            fprintf(stderr, "%s: the samples of row %s=%s add up to %Lg, but %s = %llu\n", f->name,
                    k.n ? k.name[0] : "-", k.n ? k.value[0] : "-", sum, m->object,
                    (unsigned long long)c->u);
        CHECK(numbers_equal(sum, cell_number(c)));
        CHECK(found >= 2 || (found == 0 && cell_number(c) == 0));
        compared++;
    }
}

/* Family F is table T's info series: a sample per row, each label of a
 * descriptor the row's cell of that column. */
static void compare_info(struct exposition *e, const struct family *f,
                         const struct pna_metric_table *t)
{
    for (size_t i = 0; i < n_cells; i++) {
        const struct cell *c = &cells[i];
        bool first = c->t == t;
        for (size_t j = 0; first && j < i; j++)
            first = !same_row(&cells[j], c);
        if (!first)
            continue;       /* one check per row */
        struct key k;
        row_key(c, &k);
        size_t found = 0;
        struct sample *s;
        for (size_t at = 0; (s = next_sample(e, f->name, &k, &at)) != NULL;) {
            found++;
            s->matched = true;
            for (size_t d = 0; d < t->count; d++) {
                const struct pna_metric *m = &t->metrics[d];
                if (!m->label || m->family || !m->column || !m->object)
                    continue;
                char want[256];
                label_text(cell_in_row(c, m->object), want, sizeof want);
                const char *got = sample_label(s, m->label);
                if (!got)
                    got = "";   /* Prometheus: an empty label is no label */
                if (strcmp(got, want) != 0)
                    fprintf(stderr, "%s %s=\"%s\", but %s is \"%s\"\n", f->name, m->label, got,
                            m->object, want);
                CHECK(!strcmp(got, want));
                compared++;
            }
        }
        CHECK_INT(found, 1);
    }
}

static const struct pna_metric_table *table_named(const char *object)
{
    for (size_t i = 0; pna_metric_tables[i]; i++)
        if (!strcmp(pna_metric_tables[i]->object, object))
            return pna_metric_tables[i];
    return NULL;
}

static bool descriptor_of(const char *object, const struct pna_metric_table **t,
                          const struct pna_metric **m)
{
    for (size_t i = 0; pna_metric_tables[i]; i++)
        if ((*m = pna_metric_by_object(pna_metric_tables[i], object)) != NULL) {
            *t = pna_metric_tables[i];
            return true;
        }
    return false;
}

/* Every family that names a MIB object in its HELP. */
static void compare_claims(struct exposition *e)
{
    size_t claims = 0;
    for (size_t i = 0; i < e->nf; i++) {
        const struct family *f = &e->f[i];
        char object[96];
        long double mul;
        int exp10;
        enum claim claim = help_claim(f->help, object, sizeof object, &mul, &exp10);
        if (claim == NO_CLAIM) {
            printf("# no MIB claim (replaced exporter's name, join or bridge-only): %s\n", f->name);
            continue;
        }
        const struct pna_metric_table *t = table_named(object);
        const struct pna_metric *m;
        if (t) {
            compare_info(e, f, t);
        } else if (claim == CLAIM_SUM && descriptor_of(object, &t, &m)) {
            compare_sum(e, f, t, m);
        } else if (descriptor_of(object, &t, &m)) {
            compare_column(e, f, t, m, mul, exp10);
            /* a family split by a constant label serves its siblings too
             * (primus_gpu_throttle_seconds_total{cause}): the HELP names the first */
            for (size_t d = 0; m->label_value && d < t->count; d++)
                if (&t->metrics[d] != m && t->metrics[d].family &&
                    !strcmp(t->metrics[d].family, m->family))
                    compare_column(e, f, t, &t->metrics[d], mul, exp10);
        } else {
            fprintf(stderr, "%s names %s, which nothing serves\n", f->name, object);
            CHECK(!"a HELP names an unknown MIB object");
            continue;
        }
        claims++;
        for (size_t j = 0; j < e->ns; j++)
            if (!strcmp(e->s[j].name, f->name) && !e->s[j].matched) {
                fprintf(stderr, "%s: a sample with no SNMP row\n", f->name);
                CHECK(e->s[j].matched);
            }
    }
    CHECK(claims > 150);
    printf("# %zu families name a MIB object\n", claims);
}

/* primus_gpu_holder_info: as many container series for a GPU as
 * primusGpuHolderCount says, and primusGpuHolderContainer (the lowest id)
 * among them; a Slurm job's series (the job label set) for
 * primusGpuHolderJob when it names one. */
static void compare_holders(struct exposition *e)
{
    size_t rows = 0;
    for (size_t i = 0; i < n_cells; i++) {
        const struct cell *c = &cells[i];
        if (strcmp(c->m->object, "primusGpuHolderCount") != 0)
            continue;
        struct key k;
        row_key(c, &k);
        const struct cell *lowest = cell_in_row(c, "primusGpuHolderContainer");
        const struct cell *job = cell_in_row(c, "primusGpuHolderJob");
        size_t found = 0;
        bool lowest_seen = false, job_seen = !job || cell_number(job) == 0;
        struct sample *s;
        for (size_t at = 0; (s = next_sample(e, "primus_gpu_holder_info", &k, &at)) != NULL;) {
            const char *job_label = sample_label(s, "job");
            if (job_label && job_label[0]) {
                job_seen |= job && strtoull(job_label, NULL, 10) == cell_number(job);
                continue;
            }
            found++;
            const char *id = sample_label(s, "container_id");
            /* a holder the kubelet names without a runtime record has
             * no container id: "" on both sides */
            lowest_seen |= !strcmp(id ? id : "", lowest ? lowest->text : "");
        }
        CHECK_U64(found, cell_number(c));
        CHECK(lowest_seen || found == 0);
        CHECK(job_seen);
        rows += found > 0;
        compared++;
    }
    CHECK(rows > 0);
}

/* primusPodResourceRdmaPort against the fixture's IB tree: mlx5_1 has one
 * port (1), whose RoCE netdev is ens1f0np0; the VF's and the netdev's rows
 * (the device plugin's id, and dranet's DRA device of that name) name it,
 * the others none. */
static void check_pod_resource_ports(void)
{
    size_t named = 0;
    for (size_t i = 0; i < n_cells; i++) {
        const struct cell *c = &cells[i];
        if (strcmp(c->m->object, "primusPodResourceDeviceId") != 0)
            continue;
        const struct cell *port = cell_in_row(c, "primusPodResourceRdmaPort");
        const struct cell *dra = cell_in_row(c, "primusPodResourceDevice");
        const char *name = c->text[0] || !dra ? c->text : dra->text;
        if (!strcmp(name, "0000:3b:00.2") || !strcmp(name, "ens1f0np0")) {
            CHECK(port != NULL && cell_number(port) == 1);
            named++;
        } else {
            CHECK(port == NULL);
        }
    }
    CHECK_U64(named, 3);
}

/* primus_ib_port_saturated{counter}: a series for each bit of the port's
 * primusIbPortSaturated, named by the counter's sysfs file. */
static void compare_saturated(struct exposition *e)
{
    size_t bits_seen = 0;
    for (size_t i = 0; i < n_cells; i++) {
        const struct cell *c = &cells[i];
        if (strcmp(c->m->object, "primusIbPortSaturated") != 0)
            continue;
        struct key k;
        row_key(c, &k);
        size_t found = 0, bits = 0;
        for (unsigned b = 0; b < 32; b++)
            bits += (c->u >> b) & 1;
        struct sample *s;
        for (size_t at = 0; (s = next_sample(e, "primus_ib_port_saturated", &k, &at)) != NULL;) {
            found++;
            const char *counter = sample_label(s, "counter");
            bool named = false;
            for (unsigned b = 0; b < 32; b++)
                named |= ((c->u >> b) & 1) && counter &&
                         !strcmp(counter, pna_ib_saturated_counter_file(b));
            CHECK(named);
        }
        CHECK_U64(found, bits);
        bits_seen += bits;
        compared++;
    }
    CHECK_U64(bits_seen, 2);   /* symbol_error and link_downed of mlx5_0 */
}

/* primus_poller_info{poller, index}: the poller's name and its fixed
 * primusPollerIndex, one series per row of primusPollerTable. */
static void compare_poller_info(struct exposition *e)
{
    size_t rows = 0;
    for (size_t i = 0; i < n_cells; i++) {
        const struct cell *c = &cells[i];
        if (strcmp(c->m->object, "primusPollerName") != 0)
            continue;
        char index[24];
        snprintf(index, sizeof index, "%lu", (unsigned long)c->idx[0]);
        size_t found = 0;
        for (size_t j = 0; j < e->ns; j++) {
            const struct sample *s = &e->s[j];
            const char *name = sample_label(s, "poller"), *at = sample_label(s, "index");
            found += !strcmp(s->name, "primus_poller_info") && name && at &&
                     !strcmp(name, c->text) && !strcmp(at, index);
        }
        CHECK_U64(found, 1);
        rows++;
        compared++;
    }
    CHECK(rows > 0);
}

/* The GPU snapshot of the answers, for the replaced exporters' GPU numbers. */
static const struct pna_gpu_snap *replaced_gpus;

/* The replaced exporters' "gpu" of CELL's row: the vendor's own numbers, or positions on a
 * node with NVIDIA and AMD GPUs (pna_gpu_number). */
static unsigned gpu_replaced_number(const struct cell *cell)
{
    for (size_t i = 0; replaced_gpus && i < replaced_gpus->count; i++)
        if (replaced_gpus->gpus[i].index == cell->idx[0])
            return pna_gpu_number(replaced_gpus, i);
    return (unsigned)cell->u;
}

/* The replaced exporters' names: the MIB object each one mirrors, the scale, and
 * the label that names the row (KEY_LABEL = the row's KEY_OBJECT cell). */
static const struct {
    const char *family, *object;
    int exp10;
    const char *key_label, *key_object;
} replaced[] = {
    { "hw_node_uptime_seconds", "primusNodeUptime", 0, NULL, NULL },
    { "hw_cpu_cores", "primusCpuCores", 0, NULL, NULL },
    { "hw_cpu_threads", "primusCpuThreads", 0, NULL, NULL },
    { "hw_cpu_usage_percent", "primusCpuUsage", -2, NULL, NULL },
    { "hw_memory_total_bytes", "primusMemTotal", 0, NULL, NULL },
    { "hw_memory_used_bytes", "primusMemUsed", 0, NULL, NULL },
    { "hw_memory_available_bytes", "primusMemAvailable", 0, NULL, NULL },
    { "hw_memory_usage_percent", "primusMemUsage", -2, NULL, NULL },
    { "hw_gpu_count", "primusGpuCount", 0, NULL, NULL },
    { "gpu_utilization", "primusGpuUtilization", 0, "gpu_id", "primusGpuOrdinal" },
    { "hw_gpu_memory_total_bytes", "primusGpuMemTotal", 0, "gpu_uuid", "primusGpuUuid" },
    { "hw_gpu_memory_used_bytes", "primusGpuMemUsed", 0, "gpu_uuid", "primusGpuUuid" },
    { "hw_gpu_memory_free_bytes", "primusGpuMemFree", 0, "gpu_uuid", "primusGpuUuid" },
    { "hw_gpu_utilization_percent", "primusGpuUtilization", 0, "gpu_uuid", "primusGpuUuid" },
    { "hw_gpu_temperature_celsius", "primusGpuTemperature", 0, "gpu_uuid", "primusGpuUuid" },
    { "hw_gpu_power_draw_watts", "primusGpuPowerDraw", -3, "gpu_uuid", "primusGpuUuid" },
    { "hw_gpu_power_limit_watts", "primusGpuPowerLimit", -3, "gpu_uuid", "primusGpuUuid" },
    { "rdma_ecn_marked_packets", "primusRoceNpEcnMarkedRocePackets", 0, "", NULL },
    { "rdma_cnp_sent", "primusRoceNpCnpSent", 0, "", NULL },
    { "rdma_cnp_handled", "primusRoceRpCnpHandled", 0, "", NULL },
    { "rdma_out_of_sequence", "primusRoceOutOfSequence", 0, "", NULL },
    { "node_ephemeral_storage_usage_bytes", "primusStorageUsed", 0, NULL, NULL },
    { "node_ephemeral_storage_available_bytes", "primusStorageAvailable", 0, NULL, NULL },
    { "node_ephemeral_storage_capacity_bytes", "primusStorageCapacity", 0, NULL, NULL },
    { "node_ephemeral_storage_usage_percent", "primusStorageUsage", -2, NULL, NULL },
    { "pod_ephemeral_storage_usage_bytes", "primusPodStorageUsed", 0, "pod", "primusPodName" },
    { "node_k8s_gpu_allocation_rate", "primusK8sGpuAllocRate", -2, NULL, NULL },
};

static void compare_replaced(struct exposition *e)
{
    for (size_t i = 0; i < sizeof replaced / sizeof replaced[0]; i++) {
        const struct pna_metric_table *t = NULL;
        const struct pna_metric *m = NULL;
        CHECK(descriptor_of(replaced[i].object, &t, &m));
        size_t samples = 0;
        for (size_t j = 0; j < e->ns; j++)
            samples += !strcmp(e->s[j].name, replaced[i].family);
        size_t rows = 0;
        for (size_t c = 0; c < n_cells; c++) {
            if (cells[c].t != t || cells[c].m != m)
                continue;
            rows++;
            struct key k;
            if (replaced[i].key_label && !replaced[i].key_object) {
                row_key(&cells[c], &k);            /* the table's own key (device, port) */
            } else {
                memset(&k, 0, sizeof k);
                if (replaced[i].key_label) {
                    const struct cell *key = cell_in_row(&cells[c], replaced[i].key_object);
                    k.n = 1;
                    k.name[0] = replaced[i].key_label;
                    if (!key)
                        k.value[0][0] = 0;
                    else if (!strcmp(replaced[i].key_object, "primusGpuOrdinal"))
                        snprintf(k.value[0], sizeof k.value[0], "%u", gpu_replaced_number(key));
                    else if (key->is_text)
                        snprintf(k.value[0], sizeof k.value[0], "%.150s", key->text);
                    else    /* an index: 0 is GPU 0, not "none" */
                        snprintf(k.value[0], sizeof k.value[0], "%llu", (unsigned long long)key->u);
                }
            }
            size_t found = 0;
            struct sample *s;
            for (size_t at = 0; (s = next_sample(e, replaced[i].family, &k, &at)) != NULL;) {
                found++;
                long double want = scaled(&cells[c], 1, replaced[i].exp10);
                if (!numbers_equal(strtold(s->value, NULL), want))
                    fprintf(stderr, "%s = %s, but %s = %llu\n", replaced[i].family, s->value,
                            replaced[i].object, (unsigned long long)cells[c].u);
                CHECK(numbers_equal(strtold(s->value, NULL), want));
                compared++;
            }
            if (found != 1)
                fprintf(stderr, "%s: %zu samples for a row of %s\n", replaced[i].family, found,
                        replaced[i].object);
            CHECK_INT(found, 1);
        }
        if (samples != rows)
            fprintf(stderr, "%s: %zu samples, %zu rows of %s\n", replaced[i].family, samples, rows,
                    replaced[i].object);
        CHECK_INT(samples, rows);
        CHECK(rows > 0);
    }
}

/* rdma_stat_<counter>{device,port}: every port's hw counter (port 0 is the device's own). */
static void compare_rdma_stat(struct exposition *e)
{
    size_t n = 0;
    for (size_t c = 0; c < n_cells; c++) {
        const struct cell *x = &cells[c];
        if (strcmp(x->t->object, "primusHwCounterTable") || strcmp(x->m->object, "primusHwCounterValue"))
            continue;
        struct key k;
        row_key(x, &k);
        if (!strcmp(k.value[1], "0"))
            continue;
        char family[200];
        snprintf(family, sizeof family, "rdma_stat_%s", k.value[2]);
        k.n = 2;
        size_t found = 0;
        struct sample *s;
        for (size_t at = 0; (s = next_sample(e, family, &k, &at)) != NULL;) {
            found++;
            CHECK(numbers_equal(strtold(s->value, NULL), cell_number(x)));
        }
        CHECK_INT(found, 1);
        n++;
    }
    CHECK(n > 20);
    compared += n;
}

/* ---- JSON ------------------------------------------------------------------------ */

static json_t *json_reply(struct pna_json_reply r)
{
    CHECK_INT(r.status, 200);
    return r.body;
}

/* Member M->json of OBJ against cell C (NULL: absent). */
static void compare_member(json_t *obj, const struct pna_metric *m, const struct cell *c)
{
    json_t *j = json_object_get(obj, m->json);
    if (!c) {
        /* absent: no member, or the endpoint's own null / "" */
        CHECK(!j || json_is_null(j) || (json_is_string(j) && !json_string_value(j)[0]));
        return;
    }
    compared++;
    if (c->is_text || m->enums) {
        char want[256];
        label_text(c, want, sizeof want);
        if (c->is_text)
            snprintf(want, sizeof want, "%s", c->text);
        if (!json_is_string(j) || strcmp(json_string_value(j), want) != 0)
            fprintf(stderr, "JSON %s = %s, but %s is \"%s\"\n", m->json,
                    json_is_string(j) ? json_string_value(j) : "(not a string)", m->object, want);
        CHECK(json_is_string(j) && !strcmp(json_string_value(j), want));
        return;
    }
    if (m->syntax == PNA_SYNTAX_TRUTH) {
        /* TruthValue: true(1) and false(2) in SNMP, 1 and 0 in JSON */
        bool ok = json_is_number(j) && json_number_value(j) == (c->u == PNA_TRUTH_TRUE ? 1 : 0);
        if (!ok)
            fprintf(stderr, "JSON %s = %g, but %s = %llu\n", m->json,
                    json_is_number(j) ? json_number_value(j) : -1.0, m->object,
                    (unsigned long long)c->u);
        CHECK(ok);
        return;
    }
    if (cell_number(c) == 0 && json_is_null(j))
        return; /* the MIB's stand-in for none */
    long double want = scaled(c, m->json_scale.mul ? m->json_scale.mul : 1, m->json_scale.exp10);
    bool ok = json_is_number(j) && numbers_equal(json_number_value(j), want);
    if (!ok)
        fprintf(stderr, "JSON %s = %g, but %s = %llu\n", m->json, json_is_number(j) ? json_number_value(j) : -1.0,
                m->object, (unsigned long long)c->u);
    CHECK(ok);
}

/* The descriptors of T with a JSON member, in OBJ, for the row of cell ROW (a
 * scalar group: any of its cells): every one (EVERY), or those the endpoint has
 * (a brief one, as /metrics/json). */
static void compare_json_row(json_t *obj, const struct pna_metric_table *t, const struct cell *row,
                             bool every)
{
    CHECK(obj != NULL);
    for (size_t d = 0; obj && d < t->count; d++) {
        const struct pna_metric *m = &t->metrics[d];
        if (!m->json || !m->column || (!every && !json_object_get(obj, m->json)))
            continue;
        compare_member(obj, m, row ? cell_in_row(row, m->object) : NULL);
    }
}

static const struct cell *any_cell(const char *table)
{
    for (size_t i = 0; i < n_cells; i++)
        if (!strcmp(cells[i].t->object, table))
            return &cells[i];
    return NULL;
}

/* The rows of TABLE, each against the element of ARRAY whose MEMBER is the row's KEY_OBJECT. */
static void compare_json_rows(json_t *array, const char *table, const char *member,
                              const char *key_object, bool every)
{
    const struct pna_metric_table *t = table_named(table);
    size_t rows = 0;
    for (size_t i = 0; i < n_cells; i++) {
        if (cells[i].t != t || strcmp(cells[i].m->object, key_object) != 0)
            continue;
        rows++;
        json_t *el = NULL, *x;
        size_t k;
        json_array_foreach(array, k, x)
        {
            const char *name = json_string_value(json_object_get(x, member));
            if (name && !strcmp(name, cells[i].text))
                el = x;
        }
        compare_json_row(el, t, &cells[i], every);
    }
    CHECK_INT(json_array_size(array), rows);
    CHECK(rows > 0);
}

/* The GPU sub-tables in the JSON GPU detail: every cell with a JSON member is
 * the member of the element of its GPU's MEMBER array whose KEYS (the MIB
 * index after primusGpuIndex) are the cell's. */
static void compare_json_sub(json_t *gpus, const char *table, const char *member,
                             const char *const keys[2])
{
    const struct pna_metric_table *t = table_named(table);
    size_t seen = 0;
    for (size_t i = 0; i < n_cells; i++) {
        const struct cell *c = &cells[i];
        if (c->t != t || !c->m->json)
            continue;
        char pci[32];
        unsigned long x = (unsigned long)c->idx[0];
        snprintf(pci, sizeof pci, "%04lx:%02lx:%02lx.%lx", x >> 16, (x >> 8) & 0xff, (x >> 3) & 0x1f, x & 7);
        json_t *gpu = NULL, *el = NULL, *e;
        size_t k;
        json_array_foreach(gpus, k, e) {
            const char *bus = json_string_value(json_object_get(e, "pci_bus_id"));
            if (bus && !strcmp(bus, pci))
                gpu = e;
        }
        json_array_foreach(json_object_get(gpu, member), k, e) {
            bool match = true;
            for (size_t n = 0; n < 2 && keys[n]; n++)
                match = match && json_integer_value(json_object_get(e, keys[n])) == (json_int_t)c->idx[1 + n];
            if (match)
                el = e;
        }
        if (!el)
            fprintf(stderr, "JSON: no %s element of GPU %s for a %s cell\n", member, pci, c->m->object);
        CHECK(el != NULL);
        if (el)
            compare_member(el, c->m, c);
        seen++;
    }
    CHECK(seen > 0);
}

/* The primusIbPortTable row of DEVICE's port PORT: its primusIbPortFlaps cell. */
static const struct cell *ib_port_cell(const char *device, json_int_t port)
{
    for (size_t i = 0; i < n_cells; i++) {
        if (strcmp(cells[i].m->object, "primusIbPortFlaps") != 0)
            continue;
        char name[64];
        size_t at = get_string(cells[i].idx, cells[i].idx_len, 0, name, sizeof name);
        if (!strcmp(name, device) && at < cells[i].idx_len && (json_int_t)cells[i].idx[at] == port)
            return &cells[i];
    }
    return NULL;
}

/* /rdma: every port carries its primusIbPortTable members (flaps, last
 * change); each RDMA port with a netdev carries that interface's
 * primusRoceConfigTable row under ports[].roce; /node carries the node's
 * verdict under "roce". */
static void compare_roce_json(const struct pna_http_view *v)
{
    json_t *rdma = json_reply(pna_json_rdma(v)), *dev, *port;
    size_t k, n, seen = 0, seen_phy = 0, ports_seen = 0;
    json_array_foreach(json_object_get(rdma, "data"), k, dev)
    {
        json_array_foreach(json_object_get(dev, "ports"), n, port)
        {
            const struct cell *pc =
                ib_port_cell(json_string_value(json_object_get(dev, "if_name")),
                             json_integer_value(json_object_get(port, "port")));
            CHECK(pc != NULL);
            if (pc)
                compare_json_row(port, table_named("primusIbPortTable"), pc, true);
            ports_seen++;
            const char *ifname = json_string_value(json_object_get(port, "netdev"));
            for (size_t i = 0; ifname && i < n_cells; i++)
                if (!strcmp(cells[i].t->object, "primusRoceConfigTable") &&
                    !strcmp(cells[i].m->object, "primusRoceRdmaDevice")) {
                    char name[64];
                    get_string(cells[i].idx, cells[i].idx_len, 0, name, sizeof name);
                    if (!strcmp(name, ifname)) {
                        compare_json_row(json_object_get(port, "roce"), cells[i].t, &cells[i], true);
                        seen++;
                    }
                }
            for (size_t i = 0; ifname && i < n_cells; i++)
                if ((!strcmp(cells[i].m->object, "primusPhyRdmaDevice") ||
                     !strcmp(cells[i].m->object, "primusModuleState"))) {
                    char name[64];
                    get_string(cells[i].idx, cells[i].idx_len, 0, name, sizeof name);
                    if (strcmp(name, ifname) != 0)
                        continue;
                    bool phy = cells[i].m->object[6] == 'P';
                    compare_json_row(json_object_get(port, phy ? "phy" : "module"), cells[i].t,
                                     &cells[i], true);
                    seen_phy++;
                }
        }
    }
    CHECK(seen > 0);
    CHECK(seen_phy >= 2);   /* the RoCE port's interface: its phy row and its module row */
    CHECK_INT(ports_seen, 2);
    json_decref(rdma);
    json_t *node = json_reply(pna_json_node(v));
    compare_json_row(json_object_get(node, "roce"), table_named("primusPfc"), any_cell("primusPfc"), true);
    json_decref(node);
}

static void compare_json(const struct pna_http_view *v)
{
    json_t *node = json_reply(pna_json_node(v));
    compare_json_row(node, table_named("primusSystem"), any_cell("primusSystem"), true);
    compare_json_row(json_object_get(node, "cpu"), table_named("primusCpu"), any_cell("primusCpu"),
                     true);
    compare_json_row(json_object_get(node, "memory"), table_named("primusMemory"),
                     any_cell("primusMemory"), true);
    compare_json_rows(json_object_get(json_object_get(node, "gpu"), "gpus"), "primusGpuTable",
                      "pci_bus_id", "primusGpuPciBusId", true);
    json_t *gpus = json_object_get(json_object_get(node, "gpu"), "gpus");
    compare_json_sub(gpus, "primusGpuLinkTable", "links", (const char *const[2]){ "link", NULL });
    compare_json_sub(gpus, "primusGpuProcTable", "processes", (const char *const[2]){ "pid", NULL });
    compare_json_sub(gpus, "primusGpuMigTable", "mig",
                     (const char *const[2]){ "gpu_instance", "compute_instance" });
    compare_json_sub(gpus, "primusGpuPartitionTable", "partitions",
                     (const char *const[2]){ "partition", NULL });
    json_decref(node);

    json_t *brief = json_reply(pna_json_metrics(v));
    compare_json_row(json_object_get(brief, "cpu"), table_named("primusCpu"), any_cell("primusCpu"),
                     false);
    compare_json_row(json_object_get(brief, "memory"), table_named("primusMemory"),
                     any_cell("primusMemory"), false);
    compare_json_rows(json_object_get(json_object_get(brief, "gpu"), "gpus"), "primusGpuTable",
                      "pci_bus_id", "primusGpuPciBusId", false);
    json_decref(brief);

    json_t *health = json_reply(pna_json_health(v));
    compare_json_row(health, table_named("primusAgent"), any_cell("primusAgent"), true);
    compare_json_rows(json_object_get(health, "pollers"), "primusPollerTable", "name",
                      "primusPollerName", true);
    json_decref(health);
}

/* The JSON member at PATH ("a.b") of OBJ is the text WANT. */
static void json_text_is(json_t *obj, const char *path, const char *want)
{
    char first[32];
    const char *dot = strchr(path, '.');
    json_t *j = obj;
    if (dot) {
        snprintf(first, sizeof first, "%.*s", (int)(dot - path), path);
        j = json_object_get(obj, first);
        path = dot + 1;
    }
    j = json_object_get(j, path);
    bool ok = json_is_string(j) && !strcmp(json_string_value(j), want);
    if (!ok)
        fprintf(stderr, "JSON %s = %s, want \"%s\"\n", path,
                json_is_string(j) ? json_string_value(j) : "(not a string)", want);
    CHECK(ok);
    compared++;
}

static void json_number_is(json_t *obj, const char *member, long double want)
{
    json_t *j = json_object_get(obj, member);
    bool ok = json_is_number(j) && numbers_equal(json_number_value(j), want);
    if (!ok)
        fprintf(stderr, "JSON %s = %g, want %Lg\n", member, json_is_number(j) ? json_number_value(j) : -1.0,
                want);
    CHECK(ok);
    compared++;
}

static const char *row_text(const struct cell *row, const char *object)
{
    const struct cell *c = cell_in_row(row, object);
    return c && c->is_text ? c->text : "";
}

static long double row_number(const struct cell *row, const char *object)
{
    const struct cell *c = cell_in_row(row, object);
    return c ? cell_number(c) : 0;
}

/* "/dev/dri/card1" for "card1", "" for none: the node exporter's device paths. */
static const char *dri_path(const struct cell *row, const char *object, char *buf, size_t cap)
{
    const char *node = row_text(row, object);
    snprintf(buf, cap, "%s%.40s", node[0] ? "/dev/dri/" : "", node);
    return buf;
}

/* The node exporter's GPU endpoints (/gpus, /cardMetrics, /driMapping,
 * /gpuDriverVersion): their own member names, the MIB's values. */
static void compare_gpu_replaced_json(const struct pna_http_view *v)
{
    json_t *replies[] = { json_reply(pna_json_gpus(v)), json_reply(pna_json_card_metrics(v)),
                          json_reply(pna_json_dri_mapping(v)),
                          json_reply(pna_json_gpu_driver_version(v)) };
    json_t *gpus = json_object_get(replies[0], "data"), *cards = json_object_get(replies[1], "data");
    json_t *dri = json_object_get(replies[2], "data"), *version = json_object_get(replies[3], "data");
    size_t rows = 0, with_card = 0;
    const char *want_version = NULL;
    bool amd_seen = false;
    for (size_t i = 0; i < n_cells; i++) {
        const struct cell *row = &cells[i];
        if (strcmp(row->m->object, "primusGpuPciBusId") != 0)
            continue;
        json_t *g = json_array_get(gpus, rows), *c = json_array_get(cards, rows);
        char buf[64];
        rows++;
        /* the vendor's own numbers, or positions on a node with NVIDIA and AMD GPUs */
        long double number = pna_gpu_number(pna_view_snap(&v->base, PNA_DOM_GPU), rows - 1);
        json_number_is(g, "gpu", number);
        json_text_is(g, "asic.market_name", row_text(row, "primusGpuName"));
        json_text_is(g, "asic.asic_serial", row_text(row, "primusGpuSerial"));
        const char *ids = row_text(row, "primusGpuPciDeviceId");     /* "10de:2330" */
        snprintf(buf, sizeof buf, "%s%.8s", strchr(ids, ':') ? "0x" : "",
                 strchr(ids, ':') ? strchr(ids, ':') + 1 : "");
        json_text_is(g, "asic.device_id", buf);
        json_text_is(g, "bus.bdf", row->text);
        json_text_is(g, "dri_device.pci_addr", row->text);
        json_text_is(g, "dri_device.card", dri_path(row, "primusGpuDrmCard", buf, sizeof buf));
        json_text_is(g, "dri_device.render", dri_path(row, "primusGpuDrmRender", buf, sizeof buf));
        with_card += row_text(row, "primusGpuDrmCard")[0] != 0;
        json_text_is(g, "health_reason", row_text(row, "primusGpuHealthReason"));
        /* the GPU's detail is the one /node carries (compare_json checks that) */
        json_t *node = json_reply(pna_json_node(v));
        json_t *ng = json_array_get(json_object_get(json_object_get(node, "gpu"), "gpus"), rows - 1);
        static const char *const detail[] = { "health", "links", "processes", "mig", "partitions" };
        for (size_t k = 0; k < sizeof detail / sizeof detail[0]; k++)
            CHECK(json_equal(json_object_get(g, detail[k]), json_object_get(ng, detail[k])));
        json_decref(node);

        json_number_is(c, "gpu", number);
        json_number_is(c, "gpu_use_percent", row_number(row, "primusGpuUtilization"));
        /* hundredths of a percent, rounded half up */
        unsigned long long used = (unsigned long long)row_number(row, "primusGpuMemUsed");
        unsigned long long total = (unsigned long long)row_number(row, "primusGpuMemTotal");
        CHECK(total > 0);
        if (total)
            json_number_is(c, "memory_use_percent",
                           (long double)((used * 10000 + total / 2) / total) / 100);
        /* the AMD driver's version where there is one, as the node exporter's endpoint did */
        bool amd = row_number(row, "primusGpuVendor") == PNA_GPU_VENDOR_AMD;
        if (rows == 1 || (amd && !amd_seen))
            want_version = row_text(row, "primusGpuDriverVersion");
        amd_seen = amd_seen || amd;
    }
    CHECK(json_is_string(version) && want_version &&
          !strcmp(json_string_value(version), want_version));
    CHECK_U64(json_array_size(gpus), rows);
    CHECK_U64(json_array_size(cards), rows);
    CHECK_U64(json_object_size(dri), with_card);
    CHECK(rows > 0);
    for (size_t i = 0; i < sizeof replies / sizeof replies[0]; i++)
        json_decref(replies[i]);
}

/* Members the node's JSON names itself, not after a descriptor. */
static void compare_named_json(const struct pna_http_view *v)
{
    json_t *node = json_reply(pna_json_node(v));
    const struct cell *system = any_cell("primusSystem");
    json_text_is(node, "cpu.model", row_text(system, "primusNodeCpuModel"));
    json_t *gpu = json_object_get(node, "gpu");
    json_number_is(gpu, "count", row_number(any_cell("primusGpu"), "primusGpuCount"));
    json_number_is(json_array_get(json_object_get(gpu, "gpus"), 0), "index",
                   row_number(any_cell("primusGpuTable"), "primusGpuOrdinal"));
    json_decref(node);

    json_t *health = json_reply(pna_json_health(v));
    json_t *pollers = json_object_get(health, "pollers");
    size_t i = 0;
    for (size_t c = 0; c < n_cells; c++)
        if (!strcmp(cells[c].m->object, "primusPollerName")) {
            json_t *p = json_array_get(pollers, i++);
            json_number_is(p, "index", (long double)cells[c].idx[0]);
            json_number_is(p, "last_success", row_number(&cells[c], "primusPollerLastSuccess"));
        }
    CHECK_U64(i, json_array_size(pollers));
    json_decref(health);
}

/* primusPodLabelTable: every row is label label_<key> of its pod's one
 * primus_pod_labels_info series, and member <key> of its pod's "labels" in
 * /podLabels.  The label name is written here from kube-state-metrics' rule
 * for the fixture's keys (no capitals, no two alike). */
static void ksm_label_name(const char *key, char *out, size_t cap)
{
    size_t n = (size_t)snprintf(out, cap, "label_");
    for (; *key && n + 1 < cap; key++)
        out[n++] = isalnum((unsigned char)*key) || *key == '_' ? *key : '_';
    out[n] = '\0';
}

static void compare_pod_labels(struct exposition *e, const struct pna_http_view *v)
{
    json_t *pods = json_reply(pna_json_pod_labels(v));
    size_t rows = 0;
    for (size_t i = 0; i < n_cells; i++) {
        const struct cell *c = &cells[i];
        if (strcmp(c->m->object, "primusPodLabelValue") != 0)
            continue;
        const char *ns = row_text(c, "primusPodLabelNamespace"), *pod = row_text(c, "primusPodLabelPod");
        const char *key = row_text(c, "primusPodLabelKey");
        char name[700];
        ksm_label_name(key, name, sizeof name);
        size_t series = 0;
        for (size_t k = 0; k < e->ns; k++) {
            const struct sample *s = &e->s[k];
            const char *sn = sample_label(s, "namespace"), *sp = sample_label(s, "pod");
            if (strcmp(s->name, "primus_pod_labels_info") || !sn || !sp || strcmp(sn, ns) || strcmp(sp, pod))
                continue;
            series++;
            const char *got = sample_label(s, name);
            if (!got || strcmp(got, c->text) != 0)
                fprintf(stderr, "%s/%s: %s=%s, but primusPodLabelValue is \"%s\"\n", ns, pod, name,
                        got ? got : "(none)", c->text);
            CHECK(got && !strcmp(got, c->text));
            CHECK(!strcmp(s->value, "1"));
        }
        CHECK_U64(series, 1);
        json_t *entry = NULL, *x;
        size_t k;
        json_array_foreach(pods, k, x)
            if (!strcmp(json_string_value(json_object_get(x, "namespace")), ns) &&
                !strcmp(json_string_value(json_object_get(x, "pod")), pod))
                entry = x;
        json_t *value = json_object_get(json_object_get(entry, "labels"), key);
        CHECK(json_is_string(value) && !strcmp(json_string_value(value), c->text));
        rows++;
        compared += 2;
    }
    CHECK_U64(rows, 3);   /* the two pods: app of both, statefulset.kubernetes.io/pod-name of one */
    json_decref(pods);
}

/* ---- the fixture: distinct values ------------------------------------------------- */

/* Objects whose value may repeat another of its row or be 0 in every row, and why. */
static const char *const not_distinct[] = {
    "primusIbPortState",            /* PrimusPortState: active(4), as the 4X width */
    "primusIbPortLidMaskCount",     /* LMC 0 on the IB port; the RoCE port has none */
    "primusGpuOrdinal",             /* nvidia-smi's GPU 0 */
    "primusContainerDeviceGpu",     /* the GPU's ordinal, 0 */
    "primusPollerConsecutiveFailures",
    "primusGpuWorstXid",            /* XID 79, the last raised, is also the most severe */
    "primusGpuProcessesOmitted",    /* 1 of 3 processes, as the GPU's one holder */
    "primusModuleAge",              /* read at the first poll, 50 ms before the last: 0 s */
    "primusRdmaHolderCount",        /* 1 and 2 holders, as a port count and a link width */
    "primusGpuLowActivitySince",    /* a poll's time, in the second of the accounting's first
                                       sample (primusGpuIdleEnergyDiscontinuityTime) */
};

static bool may_repeat(const struct pna_metric *m)
{
    if (m->enums || m->syntax == PNA_SYNTAX_TRUTH || m->syntax == PNA_SYNTAX_TEXT)
        return true;
    for (size_t i = 0; i < sizeof not_distinct / sizeof not_distinct[0]; i++)
        if (!strcmp(m->object, not_distinct[i]))
            return true;
    return false;
}

/* Some row has a non-zero value in the column of cell C: a value that cannot
 * be told from the MIB's stand-in for "none" is compared somewhere. */
static bool column_has_figure(const struct cell *c)
{
    for (size_t i = 0; i < n_cells; i++)
        if (cells[i].m == c->m && cell_number(&cells[i]) != 0)
            return true;
    return false;
}

/* Within a row no two figures are equal, so a renderer that serves one column's
 * value under another's name is caught.  A row may lack a figure (an IB port has
 * no netdev, a container no devices): 0 there is the MIB's "none". */
static void check_distinct(void)
{
    for (size_t i = 0; i < n_cells; i++) {
        const struct cell *a = &cells[i];
        if (may_repeat(a->m))
            continue;
        if (!column_has_figure(a)) {
            fprintf(stderr, "fixture: %s is 0 in every row\n", a->m->object);
            CHECK(!"a column without a figure");
        }
        for (size_t j = i + 1; j < n_cells && cell_number(a) != 0; j++) {
            const struct cell *b = &cells[j];
            if (!same_row(a, b) || may_repeat(b->m) || cell_number(a) != cell_number(b))
                continue;
            fprintf(stderr, "fixture: %s and %s are both %llu in one row\n", a->m->object,
                    b->m->object, (unsigned long long)a->u);
            CHECK(cell_number(a) != cell_number(b));
        }
    }
}

/* Columns the fixture cannot fill, and why. */
static bool served_elsewhere(const char *object)
{
    static const char *const objects[] = {
        "primusPauseTxTransitions", /* no driver counts transitions of the pause it sends: */
        "primusPfcTxTransitions",   /* always absent, the column kept for the MIB's shape */
    };
    for (size_t i = 0; i < sizeof objects / sizeof objects[0]; i++)
        if (!strcmp(object, objects[i]))
            return true;
    return false;
}

/* Every descriptor with a MIB column met at least one cell: no table is left
 * out of the comparison by a fixture that lacks it. */
static void check_coverage(void)
{
    size_t missing = 0;
    for (size_t t = 0; pna_metric_tables[t]; t++) {
        const struct pna_metric_table *tab = pna_metric_tables[t];
        if (tab == &pna_event_metrics)
            continue; /* rows of the main thread's event history: no events here */
        for (size_t d = 0; d < tab->count; d++) {
            const struct pna_metric *m = &tab->metrics[d];
            bool seen = !m->column;
            for (size_t i = 0; i < n_cells && !seen; i++)
                seen = cells[i].m == m;
            if (!seen && !served_elsewhere(m->object)) {
                fprintf(stderr, "no cell of %s in the fixture\n", m->object);
                missing++;
            }
        }
    }
    CHECK_U64(missing, 0);
}

/* The export control's start-up checks know every family and label that
 * /metrics carries (model/export/export.h): the descriptors' and the
 * bridge's lists (http/render/metrics_names.c), the compat names included. */
static void check_export_names(struct pna_http_view *hv)
{
    struct pna_export_names names = pna_metrics_export_names();
    unsigned saved = hv->compat;
    hv->compat = PNA_COMPAT_DCGM | PNA_COMPAT_AMD;
    struct pna_buf out;
    pna_buf_init(&out);
    CHECK_U64(pna_metrics_render(&out, hv), 0);
    hv->compat = saved;
    char *text = pna_buf_steal(&out, NULL);
    struct exposition e;
    parse_exposition(text, &e);
    size_t unknown = 0;
    for (size_t i = 0; i < e.ns; i++) {
        const struct sample *s = &e.s[i];
        if (!pna_export_known_family(pna_metric_tables, &names, s->name)) {
            if (unknown++ < 20)
                fprintf(stderr, "# family %s is not known to the export control\n", s->name);
        }
        for (size_t k = 0; k < s->nl; k++)
            if (!pna_export_known_label(pna_metric_tables, &names, s->key[k]) &&
                unknown++ < 20)
                fprintf(stderr, "# label %s (of %s) is not known to the export control\n",
                        s->key[k], s->name);
    }
    CHECK_U64(unknown, 0);
    free_exposition(&e);
    free(text);
}

/* primus_agent_series{family} says how many series each family has, as the
 * exposition itself shows them; it lists every family but its own three. */
static void compare_series_counts(const struct exposition *e)
{
    size_t families = 0, listed = 0;
    for (size_t i = 0; i < e->nf; i++) {
        const char *f = e->f[i].name;
        if (strncmp(f, PNA_SERIES_FAMILY, strlen(PNA_SERIES_FAMILY)) == 0)
            continue;
        size_t n = 0;
        for (size_t j = 0; j < e->ns; j++)
            n += strcmp(e->s[j].name, f) == 0;
        families++;
        for (size_t j = 0; j < e->ns; j++) {
            const struct sample *s = &e->s[j];
            const char *fam = sample_label(s, "family");
            if (strcmp(s->name, PNA_SERIES_FAMILY) != 0 || !fam || strcmp(fam, f) != 0)
                continue;
            listed++;
            if (strtoull(s->value, NULL, 10) != n)
                fprintf(stderr, "# %s{family=\"%s\"} is %s, the exposition has %zu\n",
                        PNA_SERIES_FAMILY, f, s->value, n);
            CHECK_U64(strtoull(s->value, NULL, 10), n);
            compared++;
        }
    }
    CHECK_U64(listed, families);
    CHECK(families > 100);
}

int main(void)
{
    if (!mkdtemp(tmp))
        return 99;
    CHECK_INT(pna_events_init(64), 0);
    build_roots();
    struct pna_config cfg;
    pna_config_defaults(&cfg);
    cfg.roots.rootfs = rootfs;
    cfg.roots.sysfs = sysfs;
    cfg.roots.procfs = procfs;
    cfg.roots.devfs = devfs;
    char err[256];
    CHECK_INT(pna_config_set_pollers(&cfg, pna_poller_registry, pna_poller_registry_len, err,
                                     sizeof err), 0);
    struct httpstub *kubelet = NULL;
    poll_everything(&cfg, &kubelet);
    publish_pod_resources();

    struct pna_http_view hv;
    memset(&hv, 0, sizeof hv);
    pna_view_take(&hv.base, PNA_VIEW_ALL & ~PNA_VIEW_POLLERS);
    fill_agent_state(&hv.base);
    pna_http_view_complete(&hv, "agree-node");

    for (size_t i = 0; pna_metric_tables[i]; i++) {
        if (pna_metric_tables[i]->kind == PNA_TABLE_SCALARS)
            walk_scalars(pna_metric_tables[i], &hv.base);
        else
            walk_table(pna_metric_tables[i], &hv.base);
    }
    printf("# %zu SNMP cells\n", n_cells);

    struct pna_buf out;
    pna_buf_init(&out);
    CHECK_U64(pna_metrics_render(&out, &hv), 0);
    char *text = pna_buf_steal(&out, NULL);
    struct exposition e;
    parse_exposition(text, &e);

    check_distinct();
    check_coverage();
    compare_claims(&e);
    replaced_gpus = pna_view_snap(&hv.base, PNA_DOM_GPU);
    /* the fixture's idle verdict and orphan are the ones compared above */
    CHECK(replaced_gpus && replaced_gpus->count && replaced_gpus->gpus[0].idle_allocated);
    CHECK(replaced_gpus && replaced_gpus->count && replaced_gpus->gpus[0].orphan_processes == 1);
    compare_replaced(&e);
    compare_holders(&e);
    check_pod_resource_ports();
    compare_saturated(&e);
    compare_poller_info(&e);
    compare_rdma_stat(&e);
    compare_json(&hv);
    compare_roce_json(&hv);
    compare_gpu_replaced_json(&hv);
    compare_named_json(&hv);
    compare_pod_labels(&e, &hv);
    compare_series_counts(&e);
    check_export_names(&hv);
    printf("# %zu values compared\n", compared);

    free_exposition(&e);
    free(text);
    free(cells);
    pna_view_release(&hv.base);
    httpstub_stop(kubelet);
    pna_cache_clear();
    pna_events_shutdown();
    pna_config_free(&cfg);
    tt_rmrf(tmp);
    UNIT_END();
}
