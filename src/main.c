/* main.c -- primus-node-agent: command line, start-up order and shutdown.
 *
 * Start-up: defaults, then the config file, then the command line (which wins);
 * a bad config line stops here with file, line and reason.  Then logging, the
 * event queue, net-snmp (subagent or standalone), and last the poller threads,
 * so nothing they report can arrive before the front end is ready.  The
 * poller registry (pollers/registry.c) is handed from here to the config
 * loader, which takes each poller's keys, and to the poller core. */
#include "pna_autoconf.h"
#include "core/config.h"
#include "core/events.h"
#include "core/heap.h"
#include "http/http.h"
#include "http/render/render.h"
#include "core/log.h"
#include "core/poller.h"
#include "core/privileges.h"
#include "core/view.h"
#include "model/export/export.h"
#include "model/metric_tables.h"
#include "pollers/pollers.h"
#include "snmp/agent.h"
#include "snmp/log_gate.h"
#include "transport/probe.h"
#include "sources/pci/pci_topology.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>

#define APP_NAME "primus-node-agent"

#ifndef PNA_DEFAULT_CONFIG
#define PNA_DEFAULT_CONFIG "/etc/primus-node-agent/primus-node-agent.conf"
#endif

/* What the command line said; applied over the config file. */
struct cli {
    const char *config_file;
    const char *agentx_socket;
    const char *standalone_addr;
    const char *http_addr;
    const char *pidfile;
    const char *probe_url;
    int topo;                   /* --topo: print the distance matrix and exit */
    struct pna_roots roots;     /* NULL members: not given */
    int foreground;
    int logging_set;
    int list_metrics;           /* --list-metrics: after the config is read */
};

static void usage(FILE *out)
{
    fprintf(out,
        "Usage: " APP_NAME " [OPTIONS]\n"
        "Serve GPU, RDMA, container and node metrics as PRIMUS-NODE-MIB.\n\n"
        "  -c FILE              config file (default " PNA_DEFAULT_CONFIG " if present)\n"
        "  -x ADDRESS           AgentX master socket (default: net-snmp's, unix:/var/agentx/master)\n"
        "      --standalone ADDRESS\n"
        "                       be a standalone SNMP agent on ADDRESS (e.g. udp:127.0.0.1:1161)\n"
        "                       instead of an AgentX subagent\n"
        "      --http ADDRESS   serve the HTTP bridge on ADDRESS (off by default)\n"
        "  -f                   stay in the foreground\n"
        "  -L OPTS              logging, as net-snmp: -Le stderr, -Lo stdout, -Lf FILE,\n"
        "                       -Ls FACILITY syslog (default: stderr with -f, else syslog daemon)\n"
        "  -D TOKENS            net-snmp debug tokens\n"
        "  -p FILE              write the process id to FILE\n"
        "      --sysfs DIR      read sysfs under DIR (default /sys)\n"
        "      --procfs DIR     read procfs under DIR (default /proc)\n"
        "      --devfs DIR      read device nodes under DIR (default /dev)\n"
        "      --rootfs DIR     read host files (os-release, runtimes) under DIR (default /)\n"
        "      --list-metrics   print every served value (MIB object, column, syntax,\n"
        "                       Prometheus family, type, scale, label, JSON member) that the\n"
        "                       config file (-c, or the default) exports, and exit\n"
        "      --list-tables    print every table and scalar group (OID, index objects,\n"
        "                       identity labels) and exit\n"
        "      --topo           print the GPU and RDMA PCIe distance matrix of the sysfs\n"
        "                       tree (--sysfs) as nvidia-smi topo -m does, and exit\n"
        "      --probe URL      GET URL (e.g. http://127.0.0.1:9101/healthz) and exit: 0 on a\n"
        "                       2xx answer within 5 s, else 1 and the reason on stderr;\n"
        "                       starts nothing else and reads no config file (the image's\n"
        "                       HEALTHCHECK)\n"
        "  -h, --help           this text\n"
        "  -v, --version        version\n\n"
        "Config file tokens are described in docs/configuration.md.\n");
}

enum { OPT_STANDALONE = 256, OPT_HTTP, OPT_SYSFS, OPT_PROCFS, OPT_DEVFS, OPT_ROOTFS, OPT_LIST_METRICS,
       OPT_LIST_TABLES,
       OPT_PROBE,
       OPT_TOPO };

static const struct option long_options[] = {
    { "standalone", required_argument, NULL, OPT_STANDALONE },
    { "http", required_argument, NULL, OPT_HTTP },
    { "sysfs", required_argument, NULL, OPT_SYSFS },
    { "procfs", required_argument, NULL, OPT_PROCFS },
    { "devfs", required_argument, NULL, OPT_DEVFS },
    { "rootfs", required_argument, NULL, OPT_ROOTFS },
    { "list-metrics", no_argument, NULL, OPT_LIST_METRICS },
    { "list-tables", no_argument, NULL, OPT_LIST_TABLES },
    { "probe", required_argument, NULL, OPT_PROBE },
    { "topo", no_argument, NULL, OPT_TOPO },
    { "help", no_argument, NULL, 'h' },
    { "version", no_argument, NULL, 'v' },
    { NULL, 0, NULL, 0 },
};

/* Returns 0 to go on, 1 to exit successfully, -1 on a usage error. */
static int parse_args(int argc, char **argv, struct cli *cli)
{
    int c;
    while ((c = getopt_long(argc, argv, "c:x:fL:D:p:hv", long_options, NULL)) != -1) {
        switch (c) {
        case 'c': cli->config_file = optarg; break;
        case 'x': cli->agentx_socket = optarg; break;
        case 'f': cli->foreground = 1; break;
        case 'p': cli->pidfile = optarg; break;
        case 'L':
            if (snmp_log_options(optarg, argc, argv) < 0) {
                fprintf(stderr, APP_NAME ": bad -L option '%s'\n", optarg);
                return -1;
            }
            cli->logging_set = 1;
            break;
        case 'D':
            debug_register_tokens(optarg);
            snmp_set_do_debugging(1);
            break;
        case OPT_STANDALONE: cli->standalone_addr = optarg; break;
        case OPT_HTTP: cli->http_addr = optarg; break;
        case OPT_SYSFS: cli->roots.sysfs = optarg; break;
        case OPT_PROCFS: cli->roots.procfs = optarg; break;
        case OPT_DEVFS: cli->roots.devfs = optarg; break;
        case OPT_ROOTFS: cli->roots.rootfs = optarg; break;
        case OPT_LIST_METRICS: cli->list_metrics = 1; break;
        case OPT_LIST_TABLES: pna_table_catalogue(stdout); return 1;
        case OPT_PROBE: cli->probe_url = optarg; break;
        case OPT_TOPO: cli->topo = 1; break;
        case 'h': usage(stdout); return 1;
        case 'v': printf(APP_NAME " " PACKAGE_VERSION "\n"); return 1;
        default: usage(stderr); return -1;
        }
    }
    if (optind < argc) {
        fprintf(stderr, APP_NAME ": unexpected argument '%s'\n", argv[optind]);
        return -1;
    }
    return 0;
}

static void apply_cli(struct pna_config *cfg, const struct cli *cli)
{
    if (cli->agentx_socket)
        cfg->agentx_socket = cli->agentx_socket;
    if (cli->standalone_addr)
        cfg->standalone_addr = cli->standalone_addr;
    if (cli->http_addr)
        cfg->http_addr = cli->http_addr;
    if (cli->roots.sysfs)
        cfg->roots.sysfs = cli->roots.sysfs;
    if (cli->roots.procfs)
        cfg->roots.procfs = cli->roots.procfs;
    if (cli->roots.devfs)
        cfg->roots.devfs = cli->roots.devfs;
    if (cli->roots.rootfs)
        cfg->roots.rootfs = cli->roots.rootfs;
    cfg->foreground = cli->foreground;
}

static int load_config(struct pna_config *cfg, const struct cli *cli)
{
    const char *path = cli->config_file;
    if (!path) {
        if (access(PNA_DEFAULT_CONFIG, F_OK) != 0)
            return 0;
        path = PNA_DEFAULT_CONFIG;
    }
    char err[512];
    /* -x on the command line beats agentXSocket in the file. */
    cfg->agentx_socket = cli->agentx_socket;
    if (pna_config_load(cfg, path, pna_agent_remember_line, NULL, err, sizeof err) != 0) {
        fprintf(stderr, APP_NAME ": %s\n", err);
        return -1;
    }
    return 0;
}

/* The export control tokens checked against what the front ends serve. */
static int setup_exports(const struct pna_config *cfg)
{
    char err[512];
    struct pna_export_names names = pna_metrics_export_names();
    if (pna_export_setup(&cfg->exports, pna_metric_tables, &names, err, sizeof err) != 0) {
        fprintf(stderr, APP_NAME ": %s\n", err);
        return -1;
    }
    return 0;
}

/* --topo: the GPU and RDMA distance matrix of the sysfs tree (--sysfs), as
 * `nvidia-smi topo -m` prints it; exit status 0, or 1 when the PCI devices
 * cannot be listed.  A device whose place is unknown is named after it. */
static int print_topology(const struct cli *cli)
{
    static struct pna_topo_matrix m; /* large: not on the stack */
    struct pna_roots roots = PNA_ROOTS_DEFAULT;
    if (cli->roots.sysfs)
        roots.sysfs = cli->roots.sysfs;
    int rc = pna_topo_collect(&roots, &m);
    if (rc < 0) {
        fprintf(stderr, APP_NAME ": topo: %s/bus/pci/devices: %s\n", roots.sysfs, strerror(-rc));
        return 1;
    }
    pna_topo_matrix_print(&m, stdout);
    return 0;
}

/* --probe URL: one GET for a container's HEALTHCHECK; exit status 0 or 1. */
static int probe(const char *url)
{
    char err[768];
    if (pna_probe(url, err, sizeof err) == 0)
        return 0;
    fprintf(stderr, APP_NAME ": probe %s\n", err);
    return 1;
}

static void on_stop_signal(int sig)
{
    (void)sig;
    pna_agent_request_stop();
}

static void on_hup(int sig)
{
    (void)sig;
    pna_agent_request_kick();
}

static void install_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    /* No SA_RESTART: the signal must interrupt select() in the main loop. */
    sa.sa_handler = on_stop_signal;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sa.sa_handler = on_hup;
    sigaction(SIGHUP, &sa, NULL);
    sa.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &sa, NULL);
}

static void setup_logging(const struct cli *cli)
{
    if (!cli->logging_set) {
        if (cli->foreground)
            snmp_enable_stderrlog();
        else
            snmp_enable_syslog_ident(APP_NAME, LOG_DAEMON);
    }
    pna_log_set_sink(pna_agent_log_line);
}

static int write_pidfile(const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        pna_log(LOG_ERR, "cannot write pid file %s: %s", path, strerror(errno));
        return -1;
    }
    fprintf(f, "%ld\n", (long)getpid());
    fclose(f);
    return 0;
}

/* After the pollers started: stop them and the agent, and free what start-up
 * kept (the bridge is stopped by the caller, where it started). */
static void stop_everything(struct pna_config *cfg)
{
    pna_pollers_stop();
    pna_log_gate_remove();
    pna_agent_shutdown(APP_NAME);
    pna_events_shutdown();
    pna_cache_clear();
    pna_export_reset();
    pna_config_free(cfg);
}

int main(int argc, char **argv)
{
    struct cli cli = { 0 };
    struct pna_config cfg;
    bool heap_tuned = pna_heap_init();
    int rc = parse_args(argc, argv, &cli);
    if (rc != 0)
        return rc > 0 ? 0 : 2;
    if (cli.probe_url)
        return probe(cli.probe_url);
    if (cli.topo)
        return print_topology(&cli);
    pna_config_defaults(&cfg);
    char err[256];
    if (pna_config_set_pollers(&cfg, pna_poller_registry, pna_poller_registry_len, err,
                               sizeof err) != 0) {
        fprintf(stderr, APP_NAME ": %s\n", err);
        return 1;
    }
    if (load_config(&cfg, &cli) != 0 || setup_exports(&cfg) != 0) {
        pna_export_reset();
        pna_config_free(&cfg);
        return 1;
    }
    if (cli.list_metrics) {
        pna_metric_catalogue(stdout);
        pna_export_describe(stdout);
        pna_export_reset();
        pna_config_free(&cfg);
        return 0;
    }
    apply_cli(&cfg, &cli);
    setup_logging(&cli);
    if (!heap_tuned)
        pna_log(LOG_DEBUG, "heap: malloc settings not taken; the C library's defaults apply");
    if (!cfg.foreground && netsnmp_daemonize(1, snmp_stderrlog_status()) != 0)
        return 1;
    pna_log_gate_install(cfg.log_rate_interval_s);
    if (cli.pidfile && write_pidfile(cli.pidfile) != 0)
        return 1;
    install_signals();
    pna_agent_set_identity(PACKAGE_VERSION, cfg.standalone_addr != NULL);
    if (pna_events_init(cfg.event_history) != 0 || pna_agent_start(&cfg, APP_NAME) != 0)
        return 1;
    /* Capabilities are per thread: drop them before any thread is made. */
    char why[256];
    const struct pna_phy_settings *phy = pna_config_settings(&cfg, &pna_phy_poller);
    if (pna_drop_privileges(phy->module_interval_ms != 0, why, sizeof why) != 0)
        pna_log(LOG_WARNING, "keeping all capabilities: %s", why);
    if (pna_pollers_start(&cfg, pna_poller_registry, pna_poller_registry_len) != 0)
        return 1;
    if (cfg.http_addr && pna_http_start(&cfg) != 0) {
        stop_everything(&cfg);   /* a bridge that cannot listen stops start-up */
        return 1;
    }
    pna_log(LOG_INFO, APP_NAME " " PACKAGE_VERSION " started (%s)",
            cfg.standalone_addr ? "standalone agent" : "AgentX subagent");

    pna_agent_run();

    pna_log(LOG_INFO, APP_NAME " stopping");
    pna_http_stop();
    stop_everything(&cfg);
    if (cli.pidfile)
        unlink(cli.pidfile);
    return 0;
}
