/* test_config.c -- the config parser: every kind of token, net-snmp
 * pass-through, and errors with file, line and reason. */
#include "pna_autoconf.h"
#include "core/config.h"
#include "unit.h"

#include <unistd.h>

static char path[] = "/tmp/pna-config-XXXXXX";

static void write_conf(const char *text)
{
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
}

static char remembered[8][256];
static int nremembered;

static void remember(const char *line, void *arg)
{
    (void)arg;
    if (nremembered < 8)
        snprintf(remembered[nremembered++], sizeof remembered[0], "%s", line);
}

/* The pollers a config line may name: the loader is given them, it does not
 * look for them. */
static const char *const pollers[] = { "gpu", "node", "ib" };
#define NPOLLERS (sizeof pollers / sizeof pollers[0])

static int load(struct pna_config *cfg, const char *text, char *err, size_t errlen)
{
    write_conf(text);
    pna_config_defaults(cfg);
    nremembered = 0;
    return pna_config_load(cfg, path, pollers, NPOLLERS, remember, NULL, err, errlen);
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
                  "nvidiaSmiTimeout 3\n"
                  "gpuTempThreshold 85\n"
                  "kubeletInsecure yes\n"
                  "pfcInterface eth0 eth1\n"
                  "pfcInterface eth2\n"
                  "agentXSocket tcp:127.0.0.1:705\n"
                  "agentXPingInterval 2\n"
                  "rocommunity public 127.0.0.1\n"
                  "createUser primus SHA-256 \"a secret\" AES \"another\"\n",
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
    CHECK_INT(cfg.nvidia_smi_timeout_ms, 3000);
    CHECK_INT(cfg.gpu_temp_threshold_c, 85);
    CHECK(cfg.kubelet_insecure);
    CHECK_INT(cfg.pfc_interfaces.count, 3);
    CHECK_STR(cfg.pfc_interfaces.names[2], "eth2");
    CHECK_STR(cfg.agentx_socket, "tcp:127.0.0.1:705");
    CHECK_INT(cfg.agentx_ping_s, 2);
    CHECK_INT(nremembered, 2);
    CHECK_STR(remembered[0], "rocommunity public 127.0.0.1");
    CHECK_STR(remembered[1], "createUser primus SHA-256 \"a secret\" AES \"another\"");
    pna_config_free(&cfg);
}

static void expect_error(const char *text, const char *want)
{
    struct pna_config cfg;
    char err[512] = "";
    CHECK_INT(load(&cfg, text, err, sizeof err), -1);
    char full[600];
    snprintf(full, sizeof full, "%s:%s", path, want);
    if (strncmp(err, full, strlen(full)) != 0) {
        fprintf(stderr, "error '%s' does not start with '%s'\n", err, full);
        CHECK(0);
    }
    pna_config_free(&cfg);
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
    expect_error("pfcInterface\n", "1: pfcInterface: expected at least one interface name");
    expect_error("rwuser admin\n", "1: unknown token 'rwuser'");
    expect_error("trap2sink\n", "1: trap2sink: missing value");
    expect_error("sysfsRoot /a /b\n", "1: sysfsRoot: expected exactly one value");

    /* A line too long to be a real directive is an error, not two lines. */
    char big[3000];
    memset(big, 'x', sizeof big - 2);
    big[sizeof big - 2] = '\n';
    big[sizeof big - 1] = '\0';
    expect_error(big, "1: line longer than");

    struct pna_config cfg;
    char err[512] = "";
    pna_config_defaults(&cfg);
    CHECK_INT(pna_config_load(&cfg, "/nonexistent/pna.conf", pollers, NPOLLERS, NULL, NULL, err,
                              sizeof err), -1);
    CHECK(strstr(err, "/nonexistent/pna.conf: cannot open") != NULL);
}

int main(void)
{
    int fd = mkstemp(path);
    if (fd < 0)
        return 99;
    close(fd);
    test_good();
    test_errors();
    unlink(path);
    UNIT_END();
}
