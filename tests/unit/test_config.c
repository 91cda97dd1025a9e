/* test_config.c -- the config parser: every kind of token, net-snmp
 * pass-through, quoting, and errors with file, line and reason; the keys each
 * poller declares (parsed into its own settings, with its defaults, refused
 * as strictly as the agent's own), and one owner per token. */
#include "pna_autoconf.h"
#include "core/config.h"
#include "pollers/pollers.h"
#include "unit.h"

#include <stddef.h>
#include <unistd.h>

static char path[] = "/tmp/pna-config-XXXXXX";

static void write_conf_n(const char *text, size_t len)
{
    FILE *f = fopen(path, "w");
    fwrite(text, 1, len, f);
    fclose(f);
}


/* The first lines handed over, and how many there were in all. */
#define KEEP 8
static char remembered[KEEP][256];
static unsigned remembered_line[KEEP];
static char remembered_user[KEEP][64], remembered_engine[KEEP][80];
static int nremembered;

static void remember(const struct pna_netsnmp_line *l, void *arg)
{
    (void)arg;
    if (nremembered < KEEP) {
        int i = nremembered;
        snprintf(remembered[i], sizeof remembered[0], "%s", l->text);
        remembered_line[i] = l->line;
        snprintf(remembered_user[i], sizeof remembered_user[0], "%s", l->user ? l->user : "-");
        snprintf(remembered_engine[i], sizeof remembered_engine[0], "%s",
                 l->engine_id ? l->engine_id : "-");
        CHECK_STR(l->file, path);
    }
    nremembered++;
}

/* The pollers a config line may name, and whose keys it may hold: the
 * loader is given them, it does not look for them.  Most tests give it the
 * agent's registry; SOME is three of its pollers. */
static const struct pna_poller_ops *const some[] = { &pna_gpu_poller, &pna_node_poller,
                                                     &pna_ib_poller };
#define NSOME (sizeof some / sizeof some[0])
static const struct pna_poller_ops *const *registry = pna_poller_registry;
static size_t nregistry;

static int load_n(struct pna_config *cfg, const char *text, size_t len, char *err,
                  size_t errlen)
{
    write_conf_n(text, len);
    pna_config_defaults(cfg);
    CHECK_INT(pna_config_set_pollers(cfg, registry, nregistry, err, errlen), 0);
    nremembered = 0;
    return pna_config_load(cfg, path, remember, NULL, err, errlen);
}

static int load(struct pna_config *cfg, const char *text, char *err, size_t errlen)
{
    return load_n(cfg, text, strlen(text), err, errlen);
}

/* The settings OPS's keys went to in CFG. */
#define SETTINGS(cfg, type, ops) ((const struct type *)pna_config_settings(cfg, ops))

static void test_good(void)
{
    struct pna_config cfg;
    char err[512] = "";
    int rc = load(&cfg,
                  "# a comment\n"
                  "\n"
                  "   sysfsRoot /host/sys   # trailing comment\n"
                  "PROCFSROOT /host/proc\n"
                  "pollInterval node 7\n"
                  "pollTimeout node 2\n"
                  "poller node off\n"
                  "eventHistory 500\n"
                  "staleAfter 0\n"
                  "pauseStormThreshold 5000000000\n"
                  "linkEvents no\n"
                  "moduleInterval 0\n"
                  "nvidiaSmiTimeout 3\n"
                  "gpuTempThreshold 85\n"
                  "kubeletInsecure yes\n"
                  "cgroupFilesHeld 0\n"
                  "pfcInterface eth0 eth1\n"
                  "pfcInterface eth2\n"
                  "agentXSocket tcp:127.0.0.1:705\n"
                  "agentXPingInterval 2\n"
                  "rocommunity public 127.0.0.1\n"
                  "createUser primus SHA-256 \"a secret\" AES \"another secret\"\n",
                  err, sizeof err);
    CHECK_INT(rc, 0);
    CHECK_STR(err, "");
    CHECK_STR(cfg.roots.sysfs, "/host/sys");
    CHECK_STR(cfg.roots.procfs, "/host/proc");
    CHECK_STR(cfg.roots.devfs, "/dev");
    const struct pna_poller_cfg *node = pna_config_poller(&cfg, &pna_node_poller);
    CHECK(node == &cfg.pollers[0]); /* the registry's first */
    CHECK_INT(node->interval_ms, 7000);
    CHECK_INT(node->timeout_ms, 2000);
    CHECK(node->set_enabled && !node->enabled);
    CHECK_INT(cfg.event_history, 500);
    CHECK_INT(cfg.stale_after_s, 0);
    const struct pna_pfc_settings *pfc = SETTINGS(&cfg, pna_pfc_settings, &pna_pfc_poller);
    const struct pna_gpu_settings *gpu = SETTINGS(&cfg, pna_gpu_settings, &pna_gpu_poller);
    CHECK_U64(pfc->storm_pps, 5000000000ull);
    CHECK(!SETTINGS(&cfg, pna_ib_settings, &pna_ib_poller)->link_events);
    /* modules not read */
    CHECK_U64(SETTINGS(&cfg, pna_phy_settings, &pna_phy_poller)->module_interval_ms, 0);
    CHECK_INT(gpu->nvidia_smi_timeout_ms, 3000);
    CHECK_INT(gpu->temp_threshold_c, 85);
    CHECK(SETTINGS(&cfg, pna_kubelet_settings, &pna_kubelet_poller)->insecure);
    CHECK_INT(SETTINGS(&cfg, pna_containers_settings, &pna_containers_poller)->cgroup_files_held,
              0);
    CHECK_INT(pfc->interfaces.count, 3);
    CHECK_STR(pfc->interfaces.names[2], "eth2");
    CHECK_STR(cfg.agentx_socket, "tcp:127.0.0.1:705");
    CHECK_INT(cfg.agentx_ping_s, 2);
    CHECK_INT(nremembered, 2);
    CHECK_STR(remembered[0], "rocommunity public 127.0.0.1");
    CHECK_STR(remembered[1], "createUser primus SHA-256 \"a secret\" AES \"another secret\"");
    CHECK_INT(remembered_line[0], 21);
    CHECK_INT(remembered_line[1], 22);
    CHECK_STR(remembered_user[0], "-");
    CHECK_STR(remembered_user[1], "primus");
    CHECK_STR(remembered_engine[1], "-");
    pna_config_free(&cfg);
}

/* Words are read as net-snmp reads them; '#' is a comment outside quotes only. */
static void test_quoting(void)
{
    struct pna_config cfg;
    char err[512] = "";
    int rc = load(&cfg,
                  "nodeName \"gpu node 17\"   # a comment\n"
                  "kubeletUrl 'https://h:10250/#x'\n"
                  "dockerSocket run/a\\#b.sock#comment\n"
                  "nvidiaSmi \"/opt/say \\\"hi\\\"\"\n"
                  "createUser u1 SHA-256 \"pass#word1\" AES 'pr#v secret'  # comment\n"
                  "createUser -e 0x80000000010203 u2 SHA abcdefgh\n"
                  "createUser u3\n"
                  "createUser \"u 4\" sha1 abcdefgh aes\n"
                  "createUser u5 SHA-512 -m 0x0102 AES-256 -l 0x0304\n"
                  "rouser u1 priv\n",
                  err, sizeof err);
    CHECK_INT(rc, 0);
    CHECK_STR(err, "");
    CHECK_STR(cfg.node_name, "gpu node 17");
    CHECK_STR(SETTINGS(&cfg, pna_kubelet_settings, &pna_kubelet_poller)->url,
              "https://h:10250/#x");
    CHECK_STR(SETTINGS(&cfg, pna_containers_settings, &pna_containers_poller)->docker_socket,
              "run/a#b.sock");
    CHECK_STR(SETTINGS(&cfg, pna_gpu_settings, &pna_gpu_poller)->nvidia_smi, "/opt/say \"hi\"");
    CHECK_INT(nremembered, 6);
    /* net-snmp gets the line as written, less the comment: it unquotes itself */
    CHECK_STR(remembered[0], "createUser u1 SHA-256 \"pass#word1\" AES 'pr#v secret'");
    CHECK_STR(remembered_user[0], "u1");
    CHECK_STR(remembered_user[1], "u2");
    CHECK_STR(remembered_engine[1], "80000000010203");
    CHECK_STR(remembered_user[2], "u3");
    CHECK_STR(remembered_user[3], "u 4");
    CHECK_STR(remembered_user[4], "u5");
    CHECK_STR(remembered_user[5], "-");
    CHECK_INT(remembered_line[5], 10);
    pna_config_free(&cfg);
}

/* No limit on how many directives or string settings a file has (the
 * agent kept the first 64 net-snmp lines once, and dropped the rest). */
static void test_many_lines(void)
{
    size_t n = 500, cap = n * 64 + 1, len = 0;
    char *text = malloc(cap);
    for (size_t i = 1; i <= n; i++)
        len += (size_t)snprintf(text + len, cap - len, "rocommunity c%zu 127.0.0.1\n"
                                "nodeName node%zu\n", i, i);
    struct pna_config cfg;
    char err[512] = "";
    CHECK_INT(load(&cfg, text, err, sizeof err), 0);
    CHECK_INT(nremembered, (int)n);
    CHECK_STR(cfg.node_name, "node500");
    pna_config_free(&cfg);
    free(text);
}

/* The longest line taken is PNA_CONFIG_LINE_MAX characters. */
static void test_line_length(void)
{
    char line[PNA_CONFIG_LINE_MAX + 3];
    struct pna_config cfg;
    char err[512] = "";
    memset(line, 'x', sizeof line);
    memcpy(line, "nodeName ", 9);
    line[PNA_CONFIG_LINE_MAX] = '\n';
    line[PNA_CONFIG_LINE_MAX + 1] = '\0';
    CHECK_INT(load(&cfg, line, err, sizeof err), 0);
    CHECK_INT(strlen(cfg.node_name), PNA_CONFIG_LINE_MAX - 9);
    pna_config_free(&cfg);
    line[PNA_CONFIG_LINE_MAX] = 'x';
    line[PNA_CONFIG_LINE_MAX + 1] = '\n';
    line[PNA_CONFIG_LINE_MAX + 2] = '\0';
    CHECK_INT(load(&cfg, line, err, sizeof err), -1);
    CHECK(strstr(err, ":1: line longer than 1022 characters") != NULL);
    pna_config_free(&cfg);
}

static void expect_error_n(const char *text, size_t len, const char *want)
{
    struct pna_config cfg;
    char err[512] = "";
    CHECK_INT(load_n(&cfg, text, len, err, sizeof err), -1);
    char full[600];
    snprintf(full, sizeof full, "%s:%s", path, want);
    if (strncmp(err, full, strlen(full)) != 0) {
        fprintf(stderr, "error '%s' does not start with '%s'\n", err, full);
        CHECK(0);
    }
    pna_config_free(&cfg);
}

static void expect_error(const char *text, const char *want)
{
    expect_error_n(text, strlen(text), want);
}

/* What net-snmp would read differently from what the line says. */
static void test_quoting_errors(void)
{
    expect_error("nodeName \"abc\n", "1: unterminated quoted string");
    /* the attacker's line: a '#' inside quotes no longer cuts it, and an
     * unclosed quote is refused rather than handed over */
    expect_error("createUser u1 SHA-256 \"pass#word\n", "1: unterminated quoted string");
    expect_error("nodeName 'abc\\'\n", "1: unterminated quoted string");
    expect_error("nodeName \"a\"b\n", "1: text right after a closing quote");
    /* net-snmp would not know these tokens and drop the line with a warning */
    expect_error("\"rocommunity\" public\n", "1: a token is written plainly");
    expect_error("rocommunity=public\n", "1: a token is written plainly");
    static const char nul[] = "rocommunity public\nnodeName a\0b\n";
    expect_error_n(nul, sizeof nul - 1, "2: NUL byte in the line");
    expect_error_n("\0", 1, "1: NUL byte in the line");
}

static void test_create_user_errors(void)
{
    expect_error("createUser\n", "1: createUser: missing value");
    expect_error("createUser \"\"\n", "1: createUser: expected a user name");
    expect_error("createUser u1 SHA-256\n", "1: createUser: missing authentication passphrase");
    expect_error("createUser u1 SHA-256 short\n",
                 "1: createUser: authentication passphrase shorter than 8 characters");
    expect_error("createUser u1 SHA-256 \"\" AES\n",
                 "1: createUser: authentication passphrase shorter than 8 characters");
    expect_error("createUser u1 default abcdefgh\n",
                 "1: createUser: unknown authentication protocol 'default'");
    expect_error("createUser u1 SHA abcdefgh BLAH abcdefgh\n",
                 "1: createUser: unknown privacy protocol 'BLAH'");
    expect_error("createUser u1 SHA abcdefgh AES short\n",
                 "1: createUser: privacy passphrase shorter than 8 characters");
    expect_error("createUser u1 SHA abcdefgh AES abcdefgh extra\n",
                 "1: createUser: unexpected 'extra' after the privacy passphrase");
    expect_error("createUser u1 SHA -m\n", "1: createUser: missing authentication key after -m");
    expect_error("createUser -e zz u1 SHA abcdefgh\n",
                 "1: createUser: -e: 'zz' is not an engine ID in hex");
    expect_error("createUser -e 0x800000000102030 u1 SHA abcdefgh\n",
                 "1: createUser: -e: '0x800000000102030' is not an engine ID in hex");
    expect_error("createUser -e\n", "1: createUser: -e: '' is not an engine ID in hex");
    expect_error("createUser abcdefghijklmnopqrstuvwxyz0123456 SHA abcdefgh\n",
                 "1: createUser: user name longer than 32 characters");
    expect_error("createUser u1 SHA abcdefgh\ncreateUser u1 MD5 abcdefgh\n",
                 "2: createUser: user 'u1' is created twice");
    expect_error("createUser -e 0x8000AB u1 SHA abcdefgh\ncreateUser -e 8000ab u1 SHA abcdefgh\n",
                 "2: createUser: user 'u1' is created twice");
}

/* prometheusCompat: one or both exporters, any order, any case. */
static void test_prometheus_compat(void)
{
    struct pna_config cfg;
    char err[512] = "";
    CHECK_INT(load(&cfg, "nodeName n\n", err, sizeof err), 0);
    CHECK_INT(cfg.prometheus_compat, 0);
    pna_config_free(&cfg);
    CHECK_INT(load(&cfg, "prometheusCompat amd DCGM\n", err, sizeof err), 0);
    CHECK_INT(cfg.prometheus_compat, PNA_COMPAT_DCGM | PNA_COMPAT_AMD);
    pna_config_free(&cfg);
    CHECK_INT(load(&cfg, "prometheusCompat dcgm\n", err, sizeof err), 0);
    CHECK_INT(cfg.prometheus_compat, PNA_COMPAT_DCGM);
    pna_config_free(&cfg);
}

/* losslessPfcPriorities, losslessTrust: the fleet's lossless-RoCE set-up. */
static void test_lossless_expect(void)
{
    struct pna_config cfg;
    char err[512] = "";
    CHECK_INT(load(&cfg, "nodeName n\n", err, sizeof err), 0);
    const struct pna_lossless_expect *e =
        &SETTINGS(&cfg, pna_pfc_settings, &pna_pfc_poller)->expect;
    CHECK(!e->has_pfc);
    CHECK_INT(e->trust, 0);
    pna_config_free(&cfg);
    CHECK_INT(load(&cfg, "losslessPfcPriorities 3,4\nlosslessTrust DSCP\n", err, sizeof err), 0);
    e = &SETTINGS(&cfg, pna_pfc_settings, &pna_pfc_poller)->expect;
    CHECK(e->has_pfc);
    CHECK_INT(e->pfc_en, 0x18);
    CHECK_INT(e->trust, PNA_TRUST_DSCP);
    pna_config_free(&cfg);
    CHECK_INT(load(&cfg, "losslessPfcPriorities none\nlosslessTrust pcp\n", err, sizeof err), 0);
    e = &SETTINGS(&cfg, pna_pfc_settings, &pna_pfc_poller)->expect;
    CHECK(e->has_pfc);
    CHECK_INT(e->pfc_en, 0);
    CHECK_INT(e->trust, PNA_TRUST_PCP);
    pna_config_free(&cfg);
    expect_error("losslessPfcPriorities 8\n",
                 "1: losslessPfcPriorities: '8' is not a list of priorities 0-7 such as 3 or 3,4");
    expect_error("losslessPfcPriorities 3,\n",
                 "1: losslessPfcPriorities: '3,' is not a list of priorities 0-7 such as 3 or 3,4");
    expect_error("losslessPfcPriorities 34\n",
                 "1: losslessPfcPriorities: '34' is not a list of priorities 0-7 such as 3 or 3,4");
    expect_error("losslessPfcPriorities\n",
                 "1: losslessPfcPriorities: expected priorities such as 3 or 3,4, or none");
    expect_error("nodeName n\nlosslessTrust cos\n", "2: losslessTrust: expected dscp or pcp");
}

static void test_errors(void)
{
    expect_error("eventHistory 5\nbogus 1\n", "2: unknown token 'bogus'");
    expect_error("\n\npollInterval nosuch 5\n", "3: pollInterval: no poller named 'nosuch'");
    /* a real poller's name, but not one of those given to the loader; its
     * keys are then no tokens either */
    registry = some;
    nregistry = NSOME;
    expect_error("poller storage off\n", "1: poller: no poller named 'storage'");
    expect_error("nodeName n\nkubeletUrl http://h\n", "2: unknown token 'kubeletUrl'");
    registry = pna_poller_registry;
    nregistry = pna_poller_registry_len;
    expect_error("pollInterval node\n", "1: pollInterval: expected 'pollInterval POLLER VALUE'");
    expect_error("eventHistory -1\n", "1: eventHistory: '-1' is not a number");
    expect_error("eventHistory 0\n", "1: eventHistory: 0 is out of range");
    expect_error("gpuTempThreshold 201\n", "1: gpuTempThreshold: 201 is out of range");
    expect_error("poller node sometimes\n", "1: poller: 'sometimes' is not yes or no");
    expect_error("linkEvents sometimes\n", "1: linkEvents: 'sometimes' is not yes or no");
    expect_error("moduleInterval 86401\n", "1: moduleInterval: 86401 is out of range");
    expect_error("cgroupFilesHeld 65537\n", "1: cgroupFilesHeld: 65537 is out of range");
    expect_error("cgroupFilesHeld -1\n", "1: cgroupFilesHeld: '-1' is not a number");
    expect_error("pfcInterface\n", "1: pfcInterface: expected at least one interface name");
    expect_error("rwuser admin\n", "1: unknown token 'rwuser'");
    expect_error("trap2sink\n", "1: trap2sink: missing value");
    expect_error("sysfsRoot /a /b\n", "1: sysfsRoot: expected exactly one value");
    expect_error("prometheusCompat dcgm nvidia\n",
                 "1: prometheusCompat: unknown exporter 'nvidia' (dcgm, amd)");
    expect_error("prometheusCompat\n", "1: prometheusCompat: expected dcgm, amd or both");

    /* A line too long to be a real directive is an error, not two lines. */
    char big[3000];
    memset(big, 'x', sizeof big - 2);
    big[sizeof big - 2] = '\n';
    big[sizeof big - 1] = '\0';
    expect_error(big, "1: line longer than");

    struct pna_config cfg;
    char err[512] = "";
    pna_config_defaults(&cfg);
    CHECK_INT(pna_config_load(&cfg, "/nonexistent/pna.conf", NULL, NULL, err, sizeof err), -1);
    CHECK(strstr(err, "/nonexistent/pna.conf: cannot open") != NULL);
    /* a directory opens, and read as nothing it was an empty config once */
    CHECK_INT(pna_config_load(&cfg, "/tmp", NULL, NULL, err, sizeof err), -1);
    CHECK_STR(err, "/tmp: is a directory, not a config file");
    pna_config_free(&cfg);
}

/* Every token's default, as docs/configuration.md gives it: the agent's and
 * each poller's (written once, in its key table). */
static void test_defaults(void)
{
    struct pna_config cfg;
    char err[512] = "";
    CHECK_INT(load(&cfg, "", err, sizeof err), 0);
    CHECK_STR(cfg.roots.sysfs, "/sys");
    CHECK_STR(cfg.roots.procfs, "/proc");
    CHECK_STR(cfg.roots.devfs, "/dev");
    CHECK_STR(cfg.roots.rootfs, "/");
    CHECK_INT(cfg.agentx_ping_s, 15);
    CHECK_INT(cfg.http_max_connections, 32);
    CHECK(!cfg.http_probe_auth);
    CHECK_INT(cfg.event_history, 100);
    CHECK_INT(cfg.log_rate_interval_s, 60);
    CHECK_INT(cfg.stale_after_s, 300);
    CHECK(cfg.node_name == NULL && cfg.http_addr == NULL && cfg.standalone_addr == NULL);
    for (size_t i = 0; i < cfg.n_pollers; i++) /* poller NAME on, its own interval */
        CHECK(!cfg.pollers[i].set_enabled && cfg.pollers[i].interval_ms == 0 &&
              cfg.pollers[i].timeout_ms == 0);

    const struct pna_gpu_settings *gpu = SETTINGS(&cfg, pna_gpu_settings, &pna_gpu_poller);
    CHECK_STR(gpu->nvml_library, "libnvidia-ml.so.1");
    CHECK_STR(gpu->nvidia_smi, "/usr/bin/nvidia-smi");
    CHECK_INT(gpu->nvidia_smi_timeout_ms, 5000);
    CHECK_INT(gpu->temp_threshold_c, 0);
    CHECK_INT(gpu->process_rows, 64);
    CHECK(SETTINGS(&cfg, pna_ib_settings, &pna_ib_poller)->link_events);
    const struct pna_pfc_settings *pfc = SETTINGS(&cfg, pna_pfc_settings, &pna_pfc_poller);
    CHECK_INT(pfc->interfaces.count, 0);
    CHECK_U64(pfc->storm_pps, 10000);
    CHECK_STR(pfc->lldp_socket, "run/lldpd.socket");
    CHECK(!pfc->expect.has_pfc && pfc->expect.trust == PNA_TRUST_UNKNOWN);
    CHECK_INT(SETTINGS(&cfg, pna_phy_settings, &pna_phy_poller)->module_interval_ms, 60000);
    const struct pna_containers_settings *ctr =
        SETTINGS(&cfg, pna_containers_settings, &pna_containers_poller);
    CHECK_STR(ctr->containerd_state, "run/containerd");
    CHECK_STR(ctr->docker_socket, "run/docker.sock");
    CHECK_STR(ctr->cgroup_root, "fs/cgroup");
    CHECK_INT(ctr->cgroup_files_held, 4096);
    const struct pna_kubelet_settings *kub =
        SETTINGS(&cfg, pna_kubelet_settings, &pna_kubelet_poller);
    CHECK_STR(kub->url, "");
    CHECK_STR(kub->token_file, "/var/run/secrets/kubernetes.io/serviceaccount/token");
    CHECK_STR(kub->ca_file, "/var/run/secrets/kubernetes.io/serviceaccount/ca.crt");
    CHECK(!kub->insecure);
    CHECK_STR(SETTINGS(&cfg, pna_podres_settings, &pna_podres_poller)->socket,
              "/var/lib/kubelet/pod-resources/kubelet.sock");
    CHECK_STR(SETTINGS(&cfg, pna_storage_settings, &pna_storage_poller)->kubelet_root,
              "var/lib/kubelet");
    const struct pna_accounting_settings *acct =
        SETTINGS(&cfg, pna_accounting_settings, &pna_accounting_poller);
    CHECK_STR(acct->state_file, "/var/lib/primus-node-agent/accounting.state");
    CHECK_INT(acct->retention_ms, 3600000);
    pna_config_free(&cfg);

    /* the same defaults for a caller without a config (tests, benchmarks) */
    struct pna_gpu_settings own;
    memset(&own, 0xa5, sizeof own);
    pna_config_poller_defaults(&pna_gpu_poller, &own);
    CHECK_STR(own.nvidia_smi, "/usr/bin/nvidia-smi");
    CHECK_INT(own.process_rows, 64);
}

/* Each poller's keys, from the file into that poller's settings, matched
 * without regard to case as the agent's are. */
static void test_poller_keys(void)
{
    struct pna_config cfg;
    char err[512] = "";
    int rc = load(&cfg,
                  "NVMLLIBRARY /opt/nvml.so\n"
                  "nvidiaSmi /opt/nvidia-smi\n"
                  "nvidiaSmiTimeout 600\n"
                  "gpuTempThreshold 200\n"
                  "gpuProcessRows 0\n"
                  "linkevents off\n"
                  "pfcInterface eth0\n"
                  "pauseStormThreshold 1\n"
                  "lldpSocket \"\"\n"
                  "moduleInterval 86400\n"
                  "containerdState run/k3s/containerd\n"
                  "dockerSocket /run/other.sock\n"
                  "cgroupRoot fs/cgroup/unified\n"
                  "cgroupFilesHeld 65536\n"
                  "kubeletUrl https://127.0.0.1:10250\n"
                  "kubeletTokenFile /t\n"
                  "kubeletCaFile /ca\n"
                  "kubeletInsecure 1\n"
                  "podResourcesSocket run/podres.sock\n"
                  "kubeletRoot data/kubelet\n",
                  err, sizeof err);
    CHECK_INT(rc, 0);
    CHECK_STR(err, "");
    const struct pna_gpu_settings *gpu = SETTINGS(&cfg, pna_gpu_settings, &pna_gpu_poller);
    CHECK_STR(gpu->nvml_library, "/opt/nvml.so");
    CHECK_STR(gpu->nvidia_smi, "/opt/nvidia-smi");
    CHECK_INT(gpu->nvidia_smi_timeout_ms, 600000);
    CHECK_INT(gpu->temp_threshold_c, 200);
    CHECK_INT(gpu->process_rows, 0);
    CHECK(!SETTINGS(&cfg, pna_ib_settings, &pna_ib_poller)->link_events);
    const struct pna_pfc_settings *pfc = SETTINGS(&cfg, pna_pfc_settings, &pna_pfc_poller);
    CHECK(pfc->interfaces.count == 1 && strcmp(pfc->interfaces.names[0], "eth0") == 0);
    CHECK_U64(pfc->storm_pps, 1);
    CHECK_STR(pfc->lldp_socket, ""); /* "": LLDP off */
    CHECK_INT(SETTINGS(&cfg, pna_phy_settings, &pna_phy_poller)->module_interval_ms, 86400000);
    const struct pna_containers_settings *ctr =
        SETTINGS(&cfg, pna_containers_settings, &pna_containers_poller);
    CHECK_STR(ctr->containerd_state, "run/k3s/containerd");
    CHECK_STR(ctr->docker_socket, "/run/other.sock");
    CHECK_STR(ctr->cgroup_root, "fs/cgroup/unified");
    CHECK_INT(ctr->cgroup_files_held, 65536);
    const struct pna_kubelet_settings *kub =
        SETTINGS(&cfg, pna_kubelet_settings, &pna_kubelet_poller);
    CHECK_STR(kub->url, "https://127.0.0.1:10250");
    CHECK_STR(kub->token_file, "/t");
    CHECK_STR(kub->ca_file, "/ca");
    CHECK(kub->insecure);
    CHECK_STR(SETTINGS(&cfg, pna_podres_settings, &pna_podres_poller)->socket, "run/podres.sock");
    CHECK_STR(SETTINGS(&cfg, pna_storage_settings, &pna_storage_poller)->kubelet_root,
              "data/kubelet");
    pna_config_free(&cfg);

    /* an empty NVML library, nvidia-smi or pod-resources socket is the default */
    CHECK_INT(load(&cfg, "nvmlLibrary \"\"\nnvidiaSmi ''\npodResourcesSocket \"\"\n", err,
                   sizeof err), 0);
    gpu = SETTINGS(&cfg, pna_gpu_settings, &pna_gpu_poller);
    CHECK_STR(gpu->nvml_library, "libnvidia-ml.so.1");
    CHECK_STR(gpu->nvidia_smi, "/usr/bin/nvidia-smi");
    CHECK_STR(SETTINGS(&cfg, pna_podres_settings, &pna_podres_poller)->socket,
              "/var/lib/kubelet/pod-resources/kubelet.sock");
    pna_config_free(&cfg);
}

/* A poller's bad value stops start-up as the agent's do: file, line, token
 * and reason. */
static void test_poller_key_errors(void)
{
    expect_error("nvidiaSmiTimeout 0\n", "1: nvidiaSmiTimeout: 0 is out of range (1..600)");
    expect_error("nvidiaSmiTimeout 601\n", "1: nvidiaSmiTimeout: 601 is out of range (1..600)");
    expect_error("nvidiaSmiTimeout 5s\n", "1: nvidiaSmiTimeout: '5s' is not a number");
    expect_error("gpuTempThreshold -5\n", "1: gpuTempThreshold: '-5' is not a number");
    expect_error("gpuProcessRows 4097\n", "1: gpuProcessRows: 4097 is out of range (0..4096)");
    expect_error("nvmlLibrary a b\n", "1: nvmlLibrary: expected exactly one value");
    expect_error("nvidiaSmi\n", "1: nvidiaSmi: expected exactly one value");
    expect_error("pauseStormThreshold 0\n", "1: pauseStormThreshold: 0 is out of range");
    expect_error("pauseStormThreshold 18446744073709551616\n",
                 "1: pauseStormThreshold: '18446744073709551616' is not a number");
    expect_error("lldpSocket\n", "1: lldpSocket: expected exactly one value");
    expect_error("moduleInterval soon\n", "1: moduleInterval: 'soon' is not a number");
    expect_error("dockerSocket a b\n", "1: dockerSocket: expected exactly one value");
    expect_error("kubeletInsecure maybe\n", "1: kubeletInsecure: 'maybe' is not yes or no");
    expect_error("podResourcesSocket\n", "1: podResourcesSocket: expected exactly one value");
    expect_error("kubeletRoot a b\n", "1: kubeletRoot: expected exactly one value");
    expect_error("# a\n\nlinkEvents\n", "3: linkEvents: expected exactly one value");
    expect_error("losslessTrust dscp pcp\n", "1: losslessTrust: expected dscp or pcp");
    /* the token as written, in the reason as in the agent's own */
    expect_error("LLDPSOCKET a b\n", "1: LLDPSOCKET: expected exactly one value");
    char many[1024];
    size_t len = (size_t)snprintf(many, sizeof many, "pfcInterface");
    for (int i = 0; i <= PNA_MAX_NAMES; i++)
        len += (size_t)snprintf(many + len, sizeof many - len, " e%d", i);
    snprintf(many + len, sizeof many - len, "\n");
    expect_error(many, "1: pfcInterface: more than 32 names");
}

/* A poller that declares a token the agent or another poller has is
 * refused when the pollers are given to the config: every token has one
 * owner. */
struct dup_settings {
    const char *value;
};
static const struct pna_config_key agent_dup[] = {
    { .token = "NodeName", .type = PNA_KEY_STRING, .offset = offsetof(struct dup_settings, value) },
    { .token = NULL },
};
static const struct pna_config_key ib_dup[] = {
    { .token = "linkEvents", .type = PNA_KEY_STRING,
      .offset = offsetof(struct dup_settings, value) },
    { .token = NULL },
};
static const struct pna_config_key snmp_dup[] = {
    { .token = "rocommunity", .type = PNA_KEY_STRING,
      .offset = offsetof(struct dup_settings, value) },
    { .token = NULL },
};

static void test_one_owner(void)
{
    static const struct pna_poller_ops a = { .name = "a", .keys = agent_dup,
                                             .settings_size = sizeof(struct dup_settings) };
    static const struct pna_poller_ops b = { .name = "b", .keys = ib_dup,
                                             .settings_size = sizeof(struct dup_settings) };
    static const struct pna_poller_ops c = { .name = "c", .keys = snmp_dup,
                                             .settings_size = sizeof(struct dup_settings) };
    const struct pna_poller_ops *const with_a[] = { &a };
    const struct pna_poller_ops *const with_b[] = { &pna_ib_poller, &b };
    const struct pna_poller_ops *const with_c[] = { &c };
    struct pna_config cfg;
    char err[256];
    pna_config_defaults(&cfg);
    CHECK_INT(pna_config_set_pollers(&cfg, with_a, 1, err, sizeof err), -1);
    CHECK_STR(err, "poller a: token NodeName is the agent's already");
    pna_config_free(&cfg);
    pna_config_defaults(&cfg);
    CHECK_INT(pna_config_set_pollers(&cfg, with_b, 2, err, sizeof err), -1);
    CHECK_STR(err, "poller b: token linkEvents is ib's already");
    pna_config_free(&cfg);
    pna_config_defaults(&cfg);
    CHECK_INT(pna_config_set_pollers(&cfg, with_c, 1, err, sizeof err), -1);
    CHECK_STR(err, "poller c: token rocommunity is net-snmp's already");
    pna_config_free(&cfg);
    /* the agent's registry: each of its tokens has one owner */
    pna_config_defaults(&cfg);
    CHECK_INT(pna_config_set_pollers(&cfg, pna_poller_registry, pna_poller_registry_len, err,
                                     sizeof err), 0);
    CHECK_INT(cfg.n_pollers, pna_poller_registry_len);
    pna_config_free(&cfg);
}

int main(void)
{
    int fd = mkstemp(path);
    if (fd < 0)
        return 99;
    close(fd);
    nregistry = pna_poller_registry_len;
    test_good();
    test_defaults();
    test_poller_keys();
    test_poller_key_errors();
    test_one_owner();
    test_prometheus_compat();
    test_lossless_expect();
    test_quoting();
    test_many_lines();
    test_line_length();
    test_errors();
    test_quoting_errors();
    test_create_user_errors();
    unlink(path);
    UNIT_END();
}
