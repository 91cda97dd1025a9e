/* http/guard.h -- the bridge's connection guard: which connections may stay
 * open, and for how long, so that slow and greedy clients cannot keep the
 * probes (/healthz, /ready) and the scrapes out.
 *
 * libmicrohttpd's own timeout is an idle timeout: every byte a client sends
 * restarts it, so a client sending one header line every few seconds, or a
 * TLS handshake that never ends, holds its connection for as long as it likes.
 * The guard keeps a small table of the open connections (socket, client
 * address, when its current request began, whether the request reached the
 * handler) and enforces, on top of the library:
 *
 *   - a deadline for the TLS handshake and the request headers together,
 *     counted from the connection's start (or from the end of the previous
 *     request on a kept-alive connection); sending slowly does not extend it;
 *   - a deadline for the whole request (body and response included), counted
 *     from the same moment;
 *   - at most PER_ADDRESS connections per client address (an IPv4 address,
 *     an IPv6 /64) and MAX_CONNECTIONS in all.  A newcomer is never kept waiting for a slot: when its address
 *     (or the whole table) is full, the connection that has waited longest
 *     for its request headers (or, when every one is being answered, the one
 *     answered longest) is cut to make room -- of the same address when the
 *     address is full, of any address when the table is.  A client that
 *     sends its request at once (a probe) is thus always let in, and is not
 *     the one cut while it is being answered unless MAX_CONNECTIONS newer
 *     connections arrive first;
 *   - pna_http_guard_cut_tag(): cut the connections being sent a given
 *     response (metrics_body.c's oldest body, to bound memory).
 *
 * Cutting a connection is shutdown(fd, SHUT_RDWR): libmicrohttpd sees the end
 * of the stream and closes the connection itself, on its own thread.  Entries
 * are removed at the library's CLOSED notification, which comes before it
 * closes the socket, under the same lock as every shutdown: a descriptor is
 * never shut down after it was closed and reused.
 *
 * Times are CLOCK_MONOTONIC milliseconds passed in by the caller (the tests
 * pass their own).  Thread ownership: every function takes the guard's lock;
 * the reaper thread (pna_http_guard_run) applies the deadlines ten times a
 * second and logs one summary line a minute of what it cut. */
#ifndef PNA_HTTP_GUARD_H
#define PNA_HTTP_GUARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

struct pna_http_guard_cfg {
    unsigned max_connections;     /* httpMaxConnections */
    unsigned per_address;         /* connections one client address may hold */
    unsigned capacity;            /* table size: the library's own connection limit */
    unsigned header_deadline_ms;  /* TLS handshake + request headers */
    unsigned request_deadline_ms; /* the whole request, response sent */
};

/* What the guard cut since it started. */
struct pna_http_guard_counts {
    uint64_t evicted_address;     /* to make room for a newcomer of the same address */
    uint64_t evicted_limit;       /* to make room for a newcomer, table full */
    uint64_t refused;             /* newcomers refused: no slot (not expected) */
    uint64_t late_headers;        /* handshake and headers not done in time */
    uint64_t late_requests;       /* request not done (response not read) in time */
    uint64_t tagged;              /* cut by pna_http_guard_cut_tag() */
};

struct pna_http_guard;
struct pna_http_conn;

/* The defaults for MAX_CONNECTIONS (0: 32): see server.c. */
void pna_http_guard_defaults(struct pna_http_guard_cfg *cfg, unsigned max_connections);

/* A guard with an empty table, or NULL when out of memory. */
struct pna_http_guard *pna_http_guard_new(const struct pna_http_guard_cfg *cfg);
/* Stop the reaper if it runs, free the table (the connections must be closed). */
void pna_http_guard_free(struct pna_http_guard *g);

/* Start the reaper thread; 0, or -1 when it cannot be created. */
int pna_http_guard_run(struct pna_http_guard *g);

/* A new connection on FD from ADDR (NULL: unknown): room is made for it as
 * described above.  Returns its entry, or NULL when it was refused (FD is
 * then shut down). */
struct pna_http_conn *pna_http_guard_open(struct pna_http_guard *g, int fd,
                                          const struct sockaddr *addr, int64_t now_ms);

/* C's request reached the handler (its headers are in); TAG (0: none) names
 * the response it is sent.  May be called again for the same request. */
void pna_http_guard_answering(struct pna_http_guard *g, struct pna_http_conn *c, uint64_t tag);

/* C's request is over; its next request's deadlines count from NOW_MS. */
void pna_http_guard_done(struct pna_http_guard *g, struct pna_http_conn *c, int64_t now_ms);

/* C is closed: forget it.  NULL is allowed. */
void pna_http_guard_close(struct pna_http_guard *g, struct pna_http_conn *c);

/* Cut every connection being sent TAG; returns how many. */
size_t pna_http_guard_cut_tag(struct pna_http_guard *g, uint64_t tag);

/* Cut the connections past a deadline at NOW_MS; returns how many. */
size_t pna_http_guard_reap(struct pna_http_guard *g, int64_t now_ms);

/* Connections held and not cut, in all and from ADDR's address. */
size_t pna_http_guard_live(struct pna_http_guard *g, const struct sockaddr *addr);

void pna_http_guard_counts(struct pna_http_guard *g, struct pna_http_guard_counts *out);

#endif
