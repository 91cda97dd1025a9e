/* httpstub.h -- a small HTTP/1.1 server for the Docker and kubelet tests.
 *
 * It serves recorded responses over a unix socket or on 127.0.0.1, one thread
 * per connection, keep-alive, and can misbehave on purpose per route:
 * truncated JSON, a connection that is accepted and never answered, a
 * connection closed without an answer, and a chunked stream (Docker /events)
 * that sends its lines slowly, then injected lines, then stays open. */
#ifndef PNA_TEST_HTTPSTUB_H
#define PNA_TEST_HTTPSTUB_H

#include <stddef.h>

enum stub_mode {
    STUB_OK,          /* the body as given */
    STUB_MALFORMED,   /* the first half of the body, cut mid-JSON */
    STUB_STALL,       /* read the request, never answer */
    STUB_CLOSE,       /* read the request, close without a word */
    STUB_STREAM,      /* chunked: each line of the body, then the injected text, then hold */
};

struct httpstub;

/* Listen on a unix socket at PATH (removed first). */
struct httpstub *httpstub_start_unix(const char *path);
/* Listen on 127.0.0.1:*PORT (0: any; the chosen port is written back). */
struct httpstub *httpstub_start_tcp(int *port);

/* Serve BODY (copied) with STATUS for requests whose path (query ignored) is PATH. */
void httpstub_route(struct httpstub *s, const char *path, int status, const char *body, size_t len);
/* The same with the body read from FILE; returns -1 when it cannot be read. */
int httpstub_route_file(struct httpstub *s, const char *path, int status, const char *file);
void httpstub_mode(struct httpstub *s, const char *path, enum stub_mode mode);
/* For STUB_STREAM: milliseconds between lines, and text sent after them. */
void httpstub_stream(struct httpstub *s, const char *path, int line_delay_ms, const char *inject);

/* Requests seen for PATH, and the Authorization header of the last request. */
unsigned httpstub_hits(struct httpstub *s, const char *path);
void httpstub_last_auth(struct httpstub *s, char *buf, size_t cap);

/* Close every connection and the listener; join all threads. */
void httpstub_stop(struct httpstub *s);

#endif
