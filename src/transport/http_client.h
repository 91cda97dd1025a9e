/* transport/http_client.h -- the small HTTP client the Docker and kubelet
 * sources share: libcurl over a unix socket or TCP/TLS, strict deadlines,
 * bounded bodies.
 *
 * Every request has a connect deadline and a whole-request deadline; a body
 * larger than the caller's bound is an error, not a truncation.  A bearer
 * token is sent as a header and never appears in an error text.
 * A client is used by one thread at a time (it keeps its connection open). */
#ifndef PNA_TRANSPORT_HTTP_CLIENT_H
#define PNA_TRANSPORT_HTTP_CLIENT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "transport/line_split.h"

struct pna_hclient_target {
    const char *unix_socket;     /* path of a unix socket, or NULL for TCP */
    const char *base_url;        /* "http://localhost", "https://127.0.0.1:10250" */
    const char *bearer_token;    /* NULL: none */
    const char *ca_file;         /* NULL: the system's CAs */
    bool insecure;               /* do not verify the server's certificate */
    unsigned timeout_ms;         /* whole request; for streams: until the headers */
    unsigned connect_timeout_ms;
};

struct pna_hclient;

/* Returns NULL when libcurl cannot be set up. */
struct pna_hclient *pna_hclient_new(void);
void pna_hclient_free(struct pna_hclient *c);

/* GET BASE_URL+PATH.  On a 2xx answer returns 0 with a malloc'd NUL-terminated
 * body (caller frees) of at most MAX_BYTES.  Otherwise -1 and one line in ERR
 * ("HTTP 404 for /x", "timed out after 500 ms", "body over N bytes"...).
 * STATUS (may be NULL) gets the HTTP status, 0 when there was none. */
int pna_hclient_get(struct pna_hclient *c, const struct pna_hclient_target *t, const char *path,
                    size_t max_bytes, char **body, size_t *len, long *status,
                    char *err, size_t errlen);

/* GET a long-lived stream (Docker /events) and call FN per line until the
 * server closes it, an error occurs, FN asks to stop, or *STOP becomes true
 * (checked at least once a second).  ON_OPEN (may be NULL) is called once the
 * server answered 2xx.  A line longer than MAX_LINE is dropped.
 * Returns 0 when the server ended the stream or it was stopped, -1 with ERR. */
int pna_hclient_stream_lines(struct pna_hclient *c, const struct pna_hclient_target *t,
                             const char *path, size_t max_line, pna_line_fn fn,
                             void (*on_open)(void *arg), void *arg,
                             const atomic_bool *stop, char *err, size_t errlen);

#endif
