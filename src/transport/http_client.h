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

/* A long-lived stream of lines (Docker's GET /events), read without
 * blocking on the caller's event loop, which watches the stream's sockets
 * and keeps its one timer as IO asks.  The transport knows no loop of its
 * own: IO's functions are called during pna_hstream_open(), _ready(),
 * _timeout() and _close() only, on the caller's thread. */
#define PNA_HSTREAM_IN 1u
#define PNA_HSTREAM_OUT 2u
#define PNA_HSTREAM_ERR 4u   /* ready only: an error on the socket */

struct pna_hstream_io {
    /* Watch FD for WHAT (PNA_HSTREAM_IN, _OUT or both) and call
     * pna_hstream_ready() when it is ready; WHAT 0: no longer (the socket
     * is about to close).  Called again for the same FD to change WHAT. */
    void (*watch)(void *ctx, int fd, unsigned what);
    /* Call pna_hstream_timeout() in MS ms (0: as soon as the loop can, not
     * from within this call); -1: no timer.  Replaces the previous one. */
    void (*timer)(void *ctx, long ms);
    void *ctx;
};

struct pna_hstream;

/* GET BASE_URL+PATH and call FN per line as the body comes, ON_OPEN (may be
 * NULL) once the server answered 2xx.  A line longer than MAX_LINE is
 * dropped.  The server must send its headers within T->timeout_ms.  T's
 * strings are read during the call only.  Returns NULL with ERR. */
struct pna_hstream *pna_hstream_open(const struct pna_hclient_target *t, const char *path,
                                     size_t max_line, pna_line_fn fn, void (*on_open)(void *arg),
                                     void *arg, const struct pna_hstream_io *io, char *err,
                                     size_t errlen);

/* FD is ready for WHAT, or the timer is due: read what came.  Each returns
 * 1 while the stream goes on, 0 once it ended (the server closed it, or FN
 * asked to stop), -1 with ERR once it failed; then close it. */
int pna_hstream_ready(struct pna_hstream *s, int fd, unsigned what, char *err, size_t errlen);
int pna_hstream_timeout(struct pna_hstream *s, char *err, size_t errlen);

/* End the stream and free it; its sockets' watches are ended through IO.
 * NULL is allowed. */
void pna_hstream_close(struct pna_hstream *s);

#endif
