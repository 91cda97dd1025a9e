/* test_config.c -- the config parser: every kind of token, net-snmp
 * pass-through, quoting, and errors with file, line and reason. */
#include "pna_autoconf.h"
#include "core/config.h"
#include "unit.h"

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

/* The pollers a config line may name: the loader is given them, it does not
 * look for them. */
static const char *const pollers[] = { "gpu", "node", "ib" };
#define NPOLLERS (sizeof pollers / sizeof pollers[0])

static int load_n(struct pna_config *cfg, const char *text, size_t len, char *err,
                  size_t errlen)
{
    write_conf_n(text, len);
    pna_config_defaults(cfg);
    nremembered = 0;
    return pna_config_load(cfg, path, pollers, NPOLLERS, remember, NULL, err, errlen);
}

static int load(struct pna_config *cfg, const char *text, char *err, size_t errlen)
{
    return load_n(cfg, text, strlen(text), err, errlen);
}

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
    int slot = 1; /* "node": its position in the names given */
    CHECK_INT(cfg.pollers[slot].interval_ms, 7000);
    CHECK_INT(cfg.pollers[slot].timeout_ms, 2000);
    CHECK(cfg.pollers[slot].set_enabled && !cfg.pollers[slot].enabled);
    CHECK_INT(cfg.event_history, 500);
    CHECK_INT(cfg.stale_after_s, 0);
    CHECK_U64(cfg.pause_storm_pps, 5000000000ull);
    CHECK(!cfg.link_events);
    CHECK_U64(cfg.module_interval_ms, 0); /* modules not read */
    CHECK_INT(cfg.nvidia_smi_timeout_ms, 3000);
    CHECK_INT(cfg.gpu_temp_threshold_c, 85);
    CHECK(cfg.kubelet_insecure);
    CHECK_INT(cfg.cgroup_files_held, 0);
    CHECK_INT(cfg.pfc_interfaces.count, 3);
    CHECK_STR(cfg.pfc_interfaces.names[2], "eth2");
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
    CHECK_STR(cfg.kubelet_url, "https://h:10250/#x");
    CHECK_STR(cfg.docker_socket, "run/a#b.sock");
    CHECK_STR(cfg.nvidia_smi, "/opt/say \"hi\"");
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
    CHECK(!cfg.lossless_expect_pfc);
    CHECK_INT(cfg.lossless_trust, 0);
    pna_config_free(&cfg);
    CHECK_INT(load(&cfg, "losslessPfcPriorities 3,4\nlosslessTrust DSCP\n", err, sizeof err), 0);
    CHECK(cfg.lossless_expect_pfc);
    CHECK_INT(cfg.lossless_pfc_en, 0x18);
    CHECK_INT(cfg.lossless_trust, 2);
    pna_config_free(&cfg);
    CHECK_INT(load(&cfg, "losslessPfcPriorities none\nlosslessTrust pcp\n", err, sizeof err), 0);
    CHECK(cfg.lossless_expect_pfc);
    CHECK_INT(cfg.lossless_pfc_en, 0);
    CHECK_INT(cfg.lossless_trust, 1);
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
    /* a real poller's name, but not one of those given to the loader */
    expect_error("poller storage off\n", "1: poller: no poller named 'storage'");
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
    CHECK(cfg.link_events); /* linkEvents: yes unless said otherwise */
    CHECK_U64(cfg.module_interval_ms, 60000); /* moduleInterval: a minute */
    CHECK_INT(cfg.cgroup_files_held, 4096);   /* cgroupFilesHeld */
    CHECK_INT(pna_config_load(&cfg, "/nonexistent/pna.conf", pollers, NPOLLERS, NULL, NULL, err,
                              sizeof err), -1);
    CHECK(strstr(err, "/nonexistent/pna.conf: cannot open") != NULL);
    /* a directory opens, and read as nothing it was an empty config once */
    CHECK_INT(pna_config_load(&cfg, "/tmp", pollers, NPOLLERS, NULL, NULL, err, sizeof err), -1);
    CHECK_STR(err, "/tmp: is a directory, not a config file");
}

int main(void)
{
    int fd = mkstemp(path);
    if (fd < 0)
        return 99;
    close(fd);
    test_good();
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
