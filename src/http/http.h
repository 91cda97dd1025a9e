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
 * httpMaxConnections). */
#ifndef PNA_HTTP_H
#define PNA_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

struct pna_config;

/* Start serving on cfg->http_addr.  Returns 0, or -1 after logging one line
 * saying why (bad address, port in use, unreadable certificate...). */
int pna_http_start(const struct pna_config *cfg);

/* Stop serving: waits for responses being rendered, frees everything. */
void pna_http_stop(void);

/* ---- exposed for the unit tests ------------------------------------------- */

/* Parse ADDRESS: "127.0.0.1:9101", "[::1]:9101", "host:9101", or ":9101" for
 * every address (IPv6 and IPv4 where the system has both).  *ANY is set for the
 * last form.  Returns 0, or -1 with ERR. */
int pna_http_parse_addr(const char *address, struct sockaddr_storage *ss, socklen_t *len,
                        bool *any, char *err, size_t errlen);

/* HTTP basic-auth credentials: a file of "user:password" lines ('#' comments and
 * blank lines ignored; the password is everything after the first ':'). */
struct pna_http_auth {
    char **entries;     /* "user:password" */
    size_t *lens;
    size_t count;
};

int pna_http_auth_load(const char *path, struct pna_http_auth *auth, char *err, size_t errlen);
void pna_http_auth_free(struct pna_http_auth *auth);

/* Does the Authorization header value HEADER ("Basic base64(user:password)")
 * match an entry?  Every entry is compared, each in time that depends on the
 * stored entry's length only, never on where the first difference is. */
bool pna_http_auth_check(const struct pna_http_auth *auth, const char *header);

/* Standard base64 (RFC 4648, padding optional); returns the decoded length or
 * -1 when IN is not base64 or does not fit OUT (CAP includes the NUL). */
long pna_base64_decode(const char *in, char *out, size_t cap);

#endif
