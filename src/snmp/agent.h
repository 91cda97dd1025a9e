/* snmp/agent.h -- the SNMP front end: AgentX subagent or standalone agent,
 * MIB registrations, notifications, and the main loop that owns net-snmp. */
#ifndef PNA_SNMP_AGENT_H
#define PNA_SNMP_AGENT_H

#include <stdbool.h>

struct pna_config;

struct pna_netsnmp_line;

/* Net-snmp directives from the config file, kept until net-snmp reads its
 * configuration (pna_config_load's REMEMBER callback); no limit on their
 * number.  A subagent hands net-snmp only agentXTimeout and agentXRetries and
 * warns, with file and line, that the others are ignored. */
void pna_agent_remember_line(const struct pna_netsnmp_line *line, void *arg);

/* Bring up net-snmp as a subagent (default) or standalone agent and register
 * the MIB.  In both modes every SET is refused and no SMUX port is opened; a
 * standalone agent serves PRIMUS-NODE-MIB only (no management MIB) and listens
 * only where it was told.  Returns 0, or -1 after logging why (a createUser
 * line net-snmp refused: "FILE:LINE: ..."). */
int pna_agent_start(const struct pna_config *cfg, const char *app_name);

/* Serve until pna_agent_request_stop() (a signal handler may call it). */
void pna_agent_run(void);
void pna_agent_request_stop(void);
/* Have every poller poll now (SIGHUP): only a flag is set, which is
 * async-signal-safe; the serving loop kicks the pollers. */
void pna_agent_request_kick(void);

void pna_agent_shutdown(const char *app_name);

/* The log sink (core/log.h) of an agent: one line to net-snmp's logging
 * (stderr, syslog or a file, as -L said).  Main thread only. */
void pna_agent_log_line(int priority, const char *line);

#endif
