/* http/http.h -- the HTTP bridge: Prometheus /metrics and JSON endpoints served
 * from the cache with libmicrohttpd, on its own threads.
 *
 * The bridge only reads: cache snapshots (references), the poller counters and
 * the event counters.  It never reads a source and never calls net-snmp, so it
 * runs beside the SNMP main loop without a lock around either.
 *
 * Main thread: pna_http_start() after the pollers started, pna_http_stop()
 * before they stop.  The address, TLS and basic-auth settings come from the
 * config (--http ADDRESS, httpTlsCert/httpTlsKey, httpBasicAuthFile,
 * httpMaxConnections).  Slow and greedy clients are kept in bounds by the
 * connection guard (guard.h: deadlines, per-address and total limits) and by
 * one shared /metrics body per set of cache generations (metrics_body.h). */
#ifndef PNA_HTTP_H
#define PNA_HTTP_H

struct pna_config;

/* Start serving on cfg->http_addr.  Returns 0, or -1 after logging one line
 * saying why (bad address, port in use, unreadable certificate...). */
int pna_http_start(const struct pna_config *cfg);

/* Stop serving: waits for responses being rendered, frees everything. */
void pna_http_stop(void);

#endif
