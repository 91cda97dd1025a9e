/* snmp/agent.c -- net-snmp set-up and the main loop.
 *
 * This is the only thread that touches net-snmp (ARCHITECTURE.md rule 1).  The
 * loop is net-snmp's own agent_check_and_process(); the event queue's wake-up
 * pipe is registered as an external read fd, and a one-second alarm runs the
 * poller watchdog, so pollers never call into net-snmp. */
#include "pna_autoconf.h"
#include "snmp/agent.h"
#include "core/config.h"
#include "snmp/notify.h"
#include "snmp/tables.h"
#include "core/events.h"
#include "core/log.h"
#include "core/poller.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <net-snmp/agent/net-snmp-agent-includes.h>
#include <net-snmp/agent/ds_agent.h>

/* From libnetsnmpmibs: the config tokens a standalone agent needs for access
 * control (rocommunity, rouser...) and USM users (createUser). */
void init_vacm_conf(void);
void init_usmUser(void);

/* Values of NETSNMP_DS_AGENT_ROLE (net-snmp keeps its names private). */
enum { ROLE_MASTER = 0, ROLE_SUBAGENT = 1 };

static volatile sig_atomic_t stop_requested;

/* Directives from our config file that net-snmp itself must apply. */
#define MAX_REMEMBERED 64
static char *remembered[MAX_REMEMBERED];
static size_t nremembered;

void pna_agent_remember_line(const char *line, void *arg)
{
    (void)arg;
    if (nremembered < MAX_REMEMBERED)
        remembered[nremembered++] = strdup(line);
}

static void hand_over_remembered_lines(void)
{
    for (size_t i = 0; i < nremembered; i++) {
        if (remembered[i])
            netsnmp_config_remember(remembered[i]);
        free(remembered[i]);
        remembered[i] = NULL;
    }
    nremembered = 0;
}

void pna_agent_log_line(int priority, const char *line)
{
    snmp_log(priority, "%s\n", line);
}

static void on_wake(int fd, void *arg)
{
    (void)fd;
    (void)arg;
    pna_events_drain(pna_notify_event, NULL);
    pna_log_flush();
}

static void on_tick(unsigned int reg, void *arg)
{
    (void)reg;
    (void)arg;
    pna_pollers_watchdog();
    pna_log_flush();
}

static void set_agent_role(const struct pna_config *cfg)
{
    netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_DONT_READ_CONFIGS, 1);
    netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_DONT_PERSIST_STATE, 1);
    netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_DISABLE_PERSISTENT_LOAD, 1);
    netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_DISABLE_PERSISTENT_SAVE, 1);
    if (cfg->standalone_addr) {
        netsnmp_ds_set_boolean(NETSNMP_DS_APPLICATION_ID, NETSNMP_DS_AGENT_ROLE, ROLE_MASTER);
        netsnmp_ds_set_string(NETSNMP_DS_APPLICATION_ID, NETSNMP_DS_AGENT_PORTS,
                              cfg->standalone_addr);
        /* A standalone agent serves no AgentX master socket of its own. */
        netsnmp_ds_set_boolean(NETSNMP_DS_APPLICATION_ID, NETSNMP_DS_AGENT_AGENTX_MASTER, 0);
    } else {
        netsnmp_ds_set_boolean(NETSNMP_DS_APPLICATION_ID, NETSNMP_DS_AGENT_ROLE, ROLE_SUBAGENT);
        if (cfg->agentx_socket)
            netsnmp_ds_set_string(NETSNMP_DS_APPLICATION_ID, NETSNMP_DS_AGENT_X_SOCKET,
                                  cfg->agentx_socket);
    }
}

int pna_agent_start(const struct pna_config *cfg, const char *app_name)
{
    /* The agent needs no MIB files at run time; without this, net-snmp tries
     * the default module list and logs hundreds of "Cannot find module". */
    setenv("MIBS", "", 1);
    set_agent_role(cfg);
    SOCK_STARTUP;
    if (init_agent(app_name) != 0) {
        pna_log(LOG_ERR, "net-snmp agent initialisation failed");
        return -1;
    }
    /* init_agent() resets the ping interval to its default: set it after. */
    if (!cfg->standalone_addr)
        netsnmp_ds_set_int(NETSNMP_DS_APPLICATION_ID, NETSNMP_DS_AGENT_AGENTX_PING_INTERVAL,
                           (int)cfg->agentx_ping_s);
    if (cfg->standalone_addr) {
        init_vacm_conf();
        init_usmUser();
        /* Quiet by default: net-snmp would log "Connection from ..." for every
         * request; `dontLogTCPWrappersConnects no` in the config still wins. */
        netsnmp_ds_set_boolean(NETSNMP_DS_APPLICATION_ID,
                               NETSNMP_DS_AGENT_DONT_LOG_TCPWRAPPERS_CONNECTS, 1);
    }
    if (pna_snmp_tables_register() != 0)
        return -1;
    hand_over_remembered_lines();
    init_snmp(app_name);
    if (cfg->standalone_addr && init_master_agent() != 0) {
        pna_log(LOG_ERR, "cannot listen on %s", cfg->standalone_addr);
        return -1;
    }
    if (register_readfd(pna_events_wake_fd(), on_wake, NULL) != FD_REGISTERED_OK) {
        pna_log(LOG_ERR, "cannot watch the event queue");
        return -1;
    }
    snmp_alarm_register(1, SA_REPEAT, on_tick, NULL);
    return 0;
}

void pna_agent_request_stop(void)
{
    stop_requested = 1;
}

void pna_agent_run(void)
{
    while (!stop_requested)
        agent_check_and_process(1);
}

void pna_agent_shutdown(const char *app_name)
{
    unregister_readfd(pna_events_wake_fd());
    snmp_shutdown(app_name);
    shutdown_agent();
    SOCK_CLEANUP;
}
