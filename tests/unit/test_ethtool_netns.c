/* test_ethtool_netns.c -- the SIOCETHTOOL reader against the `ethtool -S`
 * command on a real netdev: a veth pair created in a private network
 * namespace, so the host's interfaces are never touched.
 *
 * Needs root, `ip` (iproute2) and `ethtool`; skips (exit 77) with the reason
 * otherwise.  The namespace is removed on every exit path. */
#include "pna_autoconf.h"
#include "sources/pfc/ethtool.h"

#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include "unit.h"

static char ns_name[64];
static bool ns_created;

static int run(const char *cmd)
{
    int rc = system(cmd);
    return rc == -1 ? -1 : WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static void remove_namespace(void)
{
    if (!ns_created)
        return;
    char cmd[160];
    snprintf(cmd, sizeof cmd, "ip netns del %s 2>/dev/null", ns_name);
    if (run(cmd) != 0)
        fprintf(stderr, "warning: could not remove network namespace %s\n", ns_name);
    ns_created = false;
}

static void on_signal(int sig)
{
    remove_namespace();
    signal(sig, SIG_DFL);
    raise(sig);
}

static int skip(const char *why)
{
    printf("SKIP: %s\n", why);
    remove_namespace();
    return 77;
}

struct cli_stat {
    char name[64];
    unsigned long long value;
};

/* `ethtool -S IF` run inside the namespace: "NIC statistics:" then
 * "     name: value" lines. */
static size_t ethtool_command(const char *ifname, struct cli_stat *out, size_t cap)
{
    char cmd[200], line[256];
    snprintf(cmd, sizeof cmd, "ip netns exec %s ethtool -S %s", ns_name, ifname);
    FILE *p = popen(cmd, "r");
    size_t n = 0;
    if (!p)
        return 0;
    while (fgets(line, sizeof line, p)) {
        char *s = line;
        while (*s == ' ' || *s == '\t')
            s++;
        char *colon = strrchr(s, ':');
        if (!colon || strncmp(s, "NIC statistics", 14) == 0 || n == cap)
            continue;
        *colon = '\0';
        if (strlen(s) >= sizeof out[n].name)
            continue;
        memcpy(out[n].name, s, strlen(s) + 1);
        out[n].value = strtoull(colon + 1, NULL, 10);
        n++;
    }
    pclose(p);
    return n;
}

static int enter_namespace(void)
{
    char path[128];
    snprintf(path, sizeof path, "/run/netns/%s", ns_name);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int rc = setns(fd, CLONE_NEWNET);
    close(fd);
    return rc;
}

int main(void)
{
    char cmd[512], err[160] = "";
    if (geteuid() != 0)
        return skip("needs root to create a network namespace and a veth pair");
    if (run("command -v ip >/dev/null 2>&1") != 0)
        return skip("the ip command (iproute2) is not installed");
    if (run("command -v ethtool >/dev/null 2>&1") != 0)
        return skip("the ethtool command is not installed (apt-get install ethtool)");

    snprintf(ns_name, sizeof ns_name, "pna-ethtool-%ld", (long)getpid());
    atexit(remove_namespace);
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    snprintf(cmd, sizeof cmd, "ip netns add %s 2>/dev/null", ns_name);
    if (run(cmd) != 0)
        return skip("network namespaces are not supported here (ip netns add failed)");
    ns_created = true;
    snprintf(cmd, sizeof cmd,
             "ip -n %s link add pnav0 type veth peer name pnav1 2>/dev/null && "
             "ip -n %s link set pnav0 up && ip -n %s link set pnav1 up",
             ns_name, ns_name, ns_name);
    if (run(cmd) != 0)
        return skip("veth interfaces are not supported here");
    if (enter_namespace() != 0)
        return skip("setns() into the test namespace failed");

    /* The ioctl reader first, then the command: veth statistics only move
     * with XDP traffic, so nothing changes in between. */
    struct pna_eth_stats st;
    int rc = pna_ethtool_read("pnav0", &st, err, sizeof err);
    CHECK_INT(rc, 0);
    if (rc != 0)
        fprintf(stderr, "  %s\n", err);
    CHECK_STR(st.driver, "veth");

    static struct cli_stat cli[4096];
    size_t n_cli = ethtool_command("pnav0", cli, sizeof cli / sizeof cli[0]);
    CHECK(n_cli > 0);
    CHECK_U64(st.n, n_cli);
    size_t same = 0;
    for (size_t i = 0; i < st.n && i < n_cli; i++) {
        CHECK_STR(st.v[i].name, cli[i].name);   /* same names, same order */
        CHECK_U64(st.v[i].value, cli[i].value);
        same += strcmp(st.v[i].name, cli[i].name) == 0 && st.v[i].value == cli[i].value;
    }
    printf("pnav0: %zu statistics, %zu equal to `ethtool -S`\n", st.n, same);
    /* peer_ifindex is the one counter that is not zero: the peer's ifindex */
    bool peer = false;
    for (size_t i = 0; i < st.n; i++)
        if (strcmp(st.v[i].name, "peer_ifindex") == 0)
            peer = st.v[i].value == if_nametoindex("pnav1") && st.v[i].value > 0;
    CHECK(peer);
    pna_eth_stats_free(&st);

    /* errors are one clear line, never a crash */
    CHECK_INT(pna_ethtool_read("pna-none0", &st, err, sizeof err), -1);
    CHECK(strstr(err, "pna-none0") && strstr(err, "no such interface"));
    CHECK_INT(pna_ethtool_read("lo", &st, err, sizeof err), -1);
    CHECK(strstr(err, "lo:") && strstr(err, "no statistics"));
    CHECK_INT(pna_ethtool_read("", &st, err, sizeof err), -1);
    CHECK_INT(pna_ethtool_read("a-name-longer-than-ifnamsiz", &st, err, sizeof err), -1);
    CHECK(strstr(err, "not an interface name") != NULL);

    remove_namespace();
    UNIT_END();
}
