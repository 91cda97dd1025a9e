/* core/health.h -- the one rule for "is the agent healthy", shared by the SNMP
 * front end (primusAgentStatus) and the HTTP bridge (/health, /metrics).
 *
 * A poller degrades the agent when its last run failed or timed out, or when
 * the data it serves is stale: older than twice its interval plus deadline (so
 * one late run is tolerated, two are not).  Disabled pollers and pollers that
 * have not finished a first run never degrade it (/ready covers the latter). */
#ifndef PNA_HEALTH_H
#define PNA_HEALTH_H

#include <stdbool.h>
#include <stdint.h>

#include "core/poller.h"

/* P is failing, timed out or stale at NOW_MS: its last run failed or timed
 * out, or the data it serves is older than its poller's schedule allows. */
bool pna_poller_degraded(const struct pna_poller_info *p, int64_t now_ms);

/* P's last run failed or timed out: a source it is configured to read does
 * not answer (what /ready reports besides pollers that have not run yet). */
bool pna_poller_failing(const struct pna_poller_info *p);

#endif
