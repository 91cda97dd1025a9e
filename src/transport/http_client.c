/* transport/http_client.c -- bounded HTTP GETs and line streams over libcurl
 * (see http_client.h). */
#include "pna_autoconf.h"
#include "transport/http_client.h"

#include "transport/curl_global.h"
#include "util/clock.h"

#include <curl/curl.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct pna_hclient {
    CURL *h;
};

struct pna_hclient *pna_hclient_new(void)
{
    if (!pna_curl_global_init())
        return NULL;
    struct pna_hclient *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->h = curl_easy_init();
    if (!c->h) {
        free(c);
        return NULL;
    }
    return c;
}

void pna_hclient_free(struct pna_hclient *c)
{
    if (!c)
        return;
    curl_easy_cleanup(c->h);
    free(c);
}

/* Options every request gets.  HEADERS is returned for the caller to free. */
static int setup(struct pna_hclient *c, const struct pna_hclient_target *t, const char *path,
                 struct curl_slist **headers, char *err, size_t errlen)
{
    char url[1024];
    CURL *h = c->h;
    curl_easy_reset(h);   /* keeps the open connection */
    if (snprintf(url, sizeof url, "%s%s", t->base_url, path) >= (int)sizeof url) {
        snprintf(err, errlen, "URL too long");
        return -1;
    }
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);   /* we run in threads */
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS,
                     (long)(t->connect_timeout_ms ? t->connect_timeout_ms : 1000));
#if LIBCURL_VERSION_NUM >= 0x075500
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
#else
    curl_easy_setopt(h, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
    if (t->unix_socket)
        curl_easy_setopt(h, CURLOPT_UNIX_SOCKET_PATH, t->unix_socket);
    if (t->ca_file)
        curl_easy_setopt(h, CURLOPT_CAINFO, t->ca_file);
    if (t->insecure) {
        curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 0L);
        curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 0L);
    }
    *headers = curl_slist_append(NULL, "Accept: application/json");
    if (t->bearer_token && *t->bearer_token) {
        size_t n = strlen(t->bearer_token) + 32;
        char *auth = malloc(n);
        if (!auth) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        snprintf(auth, n, "Authorization: Bearer %s", t->bearer_token);
        struct curl_slist *nh = curl_slist_append(*headers, auth);
        /* The token must not linger in freed memory longer than needed. */
        memset(auth, 0, n);
        free(auth);
        if (!nh) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        *headers = nh;
    }
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, *headers);
    return 0;
}

/* A failure to trust the server's certificate: the operator's next question
 * is which CAs were used, so the error says. */
static bool is_verify_failure(CURLcode rc)
{
    return rc == CURLE_PEER_FAILED_VERIFICATION || rc == CURLE_SSL_CACERT_BADFILE ||
           rc == CURLE_SSL_ISSUER_ERROR;
}

/* Why a unix socket could not be connected to.  libcurl says only "Failed to
 * connect to localhost port 80", which sends an operator looking for a TCP
 * problem; the cause is nearly always the socket's permissions. */
static const char *unix_socket_problem(const char *sock)
{
    struct stat st;
    if (stat(sock, &st) != 0)
        return errno == EACCES ? "permission denied on its directory" : "no such socket";
    if (!S_ISSOCK(st.st_mode))
        return "not a socket";
    if (access(sock, R_OK | W_OK) != 0)
        return "permission denied (connecting needs write access to the socket)";
    return "connection refused (nothing listening)";
}

static void describe_failure(CURLcode rc, const struct pna_hclient_target *t, const char *path,
                             const char *curl_err, char *err, size_t errlen)
{
    const char *what = curl_err[0] ? curl_err : curl_easy_strerror(rc);
    if (rc == CURLE_COULDNT_CONNECT && t->unix_socket)
        snprintf(err, errlen, "%s: unix socket %s: %s", path, t->unix_socket,
                 unix_socket_problem(t->unix_socket));
    else if (rc == CURLE_OPERATION_TIMEDOUT)
        snprintf(err, errlen, "%s: timed out after %u ms", path, t->timeout_ms);
    else if (is_verify_failure(rc) && t->ca_file)
        snprintf(err, errlen, "%s: %s (CA file %s)", path, what, t->ca_file);
    else if (is_verify_failure(rc))
        snprintf(err, errlen, "%s: %s (system CAs)", path, what);
    else
        snprintf(err, errlen, "%s: %s", path, what);
}

struct body {
    char *data;
    size_t len, cap, max;
    bool too_big;
};

static size_t on_body(char *ptr, size_t size, size_t nmemb, void *arg)
{
    struct body *b = arg;
    size_t n = size * nmemb;
    if (b->len + n > b->max) {
        b->too_big = true;
        return 0;   /* makes libcurl stop with CURLE_WRITE_ERROR */
    }
    /* Not util/array.h: the body is bounded by MAX (more is an error, caught
     * above) and the room never passes MAX + 1 (the NUL). */
    if (b->len + n + 1 > b->cap) {
        size_t ncap = b->cap ? b->cap : 16384;
        while (ncap < b->len + n + 1)
            ncap *= 2;
        if (ncap > b->max + 1)
            ncap = b->max + 1;
        char *nd = realloc(b->data, ncap);
        if (!nd)
            return 0;
        b->data = nd;
        b->cap = ncap;
    }
    memcpy(b->data + b->len, ptr, n);
    b->len += n;
    return n;
}

int pna_hclient_get(struct pna_hclient *c, const struct pna_hclient_target *t, const char *path,
                    size_t max_bytes, char **body, size_t *len, long *status,
                    char *err, size_t errlen)
{
    struct curl_slist *headers = NULL;
    struct body b = { .max = max_bytes };
    char curl_err[CURL_ERROR_SIZE] = "";
    *body = NULL;
    if (status)
        *status = 0;
    if (setup(c, t, path, &headers, err, errlen) < 0) {
        curl_slist_free_all(headers);
        return -1;
    }
    curl_easy_setopt(c->h, CURLOPT_TIMEOUT_MS, (long)(t->timeout_ms ? t->timeout_ms : 5000));
    curl_easy_setopt(c->h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c->h, CURLOPT_WRITEDATA, &b);
    curl_easy_setopt(c->h, CURLOPT_ERRORBUFFER, curl_err);
    CURLcode rc = curl_easy_perform(c->h);
    curl_slist_free_all(headers);
    curl_easy_setopt(c->h, CURLOPT_ERRORBUFFER, NULL);
    long code = 0;
    curl_easy_getinfo(c->h, CURLINFO_RESPONSE_CODE, &code);
    if (status)
        *status = code;
    if (rc != CURLE_OK) {
        if (b.too_big)
            snprintf(err, errlen, "%s: body over %zu bytes", path, max_bytes);
        else
            describe_failure(rc, t, path, curl_err, err, errlen);
        free(b.data);
        return -1;
    }
    if (code < 200 || code > 299) {
        snprintf(err, errlen, "%s: HTTP %ld", path, code);
        free(b.data);
        return -1;
    }
    if (!b.data) {
        b.data = malloc(1);
        if (!b.data) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
    }
    b.data[b.len] = '\0';
    *body = b.data;
    if (len)
        *len = b.len;
    return 0;
}

/* ---- streams ------------------------------------------------------------------ */

/* A stream is one transfer on a multi handle of its own, driven by the
 * caller's event loop through libcurl's socket and timer callbacks
 * (curl_multi_socket_action): libcurl says which sockets to watch for what
 * and when it wants to be called back; nothing here blocks. */
struct pna_hstream {
    struct pna_hclient *c;
    CURLM *m;
    struct pna_hstream_io io;
    struct pna_line_split lines;
    pna_line_fn fn;
    void (*on_open)(void *arg);
    void *arg;
    struct curl_slist *headers;
    char curl_err[CURL_ERROR_SIZE];
    struct pna_hclient_target t;   /* its unix socket path copied, for errors */
    char *path;
    bool fn_stopped;
    bool checked_status, bad_status;
    bool got_headers;
    unsigned header_timeout_ms;
    int64_t header_due_ms;         /* CLOCK_MONOTONIC: no headers by then is a failure */
    int64_t curl_due_ms;           /* when libcurl wants its timeout call, -1 none */
    int result;                    /* 1 running, 0 ended, -1 failed (error in ERR) */
    char err[256];
};

static size_t on_stream(char *ptr, size_t size, size_t nmemb, void *arg)
{
    struct pna_hstream *s = arg;
    size_t n = size * nmemb;
    if (!s->checked_status) {
        /* An error page is not a stream of events. */
        long code = 0;
        curl_easy_getinfo(s->c->h, CURLINFO_RESPONSE_CODE, &code);
        s->checked_status = true;
        s->bad_status = code < 200 || code > 299;
    }
    if (s->bad_status)
        return 0;
    if (pna_line_split_feed(&s->lines, ptr, n, s->fn, s->arg)) {
        s->fn_stopped = true;
        return 0;   /* makes libcurl end the transfer */
    }
    return n;
}

static size_t on_header(char *ptr, size_t size, size_t nmemb, void *arg)
{
    struct pna_hstream *s = arg;
    size_t n = size * nmemb;
    s->got_headers = true;
    /* The blank line that ends the headers: the stream is open. */
    if ((n == 2 && ptr[0] == '\r') || (n == 1 && ptr[0] == '\n')) {
        long code = 0;
        curl_easy_getinfo(s->c->h, CURLINFO_RESPONSE_CODE, &code);
        if (code >= 200 && code <= 299 && s->on_open)
            s->on_open(s->arg);
    }
    return n;
}

/* The caller's timer set for the earlier of libcurl's timeout and, until the
 * headers came, their deadline. */
static void set_timer(struct pna_hstream *s)
{
    int64_t due = s->curl_due_ms;
    if (!s->got_headers && (due < 0 || s->header_due_ms < due))
        due = s->header_due_ms;
    if (due < 0 || s->result != 1) {
        s->io.timer(s->io.ctx, -1);
        return;
    }
    int64_t left = due - pna_mono_ms();
    s->io.timer(s->io.ctx, left > 0 ? (long)left : 0);
}

/* CURLMOPT_TIMERFUNCTION: libcurl wants a call in MS (-1: no more). */
static int on_curl_timer(CURLM *m, long ms, void *arg)
{
    (void)m;
    struct pna_hstream *s = arg;
    s->curl_due_ms = ms < 0 ? -1 : pna_mono_ms() + ms;
    set_timer(s);
    return 0;
}

/* CURLMOPT_SOCKETFUNCTION: what to watch SOCK for. */
static int on_curl_socket(CURL *h, curl_socket_t sock, int what, void *arg, void *sockp)
{
    (void)h, (void)sockp;
    struct pna_hstream *s = arg;
    unsigned want = what == CURL_POLL_IN ? PNA_HSTREAM_IN : what == CURL_POLL_OUT ? PNA_HSTREAM_OUT
                    : what == CURL_POLL_INOUT ? PNA_HSTREAM_IN | PNA_HSTREAM_OUT : 0;
    s->io.watch(s->io.ctx, (int)sock, want);
    return 0;
}

/* The transfer ended with RC: how the stream ended. */
static void finish(struct pna_hstream *s, CURLcode rc)
{
    long code = 0;
    curl_easy_getinfo(s->c->h, CURLINFO_RESPONSE_CODE, &code);
    s->result = -1;
    if (s->fn_stopped)
        s->result = 0;
    else if (s->bad_status || (rc == CURLE_OK && (code < 200 || code > 299)))
        snprintf(s->err, sizeof s->err, "%s: HTTP %ld", s->path, code);
    else if (rc != CURLE_OK)
        describe_failure(rc, &s->t, s->path, s->curl_err, s->err, sizeof s->err);
    else
        s->result = 0;   /* the server ended the stream */
}

/* After libcurl was called: whether the transfer ended, and the timer. */
static int settle(struct pna_hstream *s, char *err, size_t errlen)
{
    CURLMsg *msg;
    int left;
    while (s->result == 1 && (msg = curl_multi_info_read(s->m, &left)) != NULL)
        if (msg->msg == CURLMSG_DONE)
            finish(s, msg->data.result);
    set_timer(s);
    if (s->result < 0)
        snprintf(err, errlen, "%s", s->err);
    return s->result;
}

int pna_hstream_ready(struct pna_hstream *s, int fd, unsigned what, char *err, size_t errlen)
{
    int running, mask = (what & PNA_HSTREAM_IN ? CURL_CSELECT_IN : 0) |
                        (what & PNA_HSTREAM_OUT ? CURL_CSELECT_OUT : 0) |
                        (what & PNA_HSTREAM_ERR ? CURL_CSELECT_ERR : 0);
    if (s->result == 1)
        curl_multi_socket_action(s->m, fd, mask, &running);
    return settle(s, err, errlen);
}

int pna_hstream_timeout(struct pna_hstream *s, char *err, size_t errlen)
{
    int64_t now = pna_mono_ms();
    int running;
    if (s->result == 1 && !s->got_headers && now >= s->header_due_ms) {
        /* A server that accepts and never answers must not hold us forever. */
        s->result = -1;
        snprintf(s->err, sizeof s->err, "%s: no answer within %u ms", s->path,
                 s->header_timeout_ms);
    } else if (s->result == 1 && s->curl_due_ms >= 0 && now >= s->curl_due_ms) {
        s->curl_due_ms = -1;
        curl_multi_socket_action(s->m, CURL_SOCKET_TIMEOUT, 0, &running);
    }
    return settle(s, err, errlen);
}

struct pna_hstream *pna_hstream_open(const struct pna_hclient_target *t, const char *path,
                                     size_t max_line, pna_line_fn fn, void (*on_open)(void *arg),
                                     void *arg, const struct pna_hstream_io *io, char *err,
                                     size_t errlen)
{
    struct pna_hstream *s = calloc(1, sizeof *s);
    if (!s || pna_line_split_init(&s->lines, max_line) != 0) {
        free(s);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    s->fn = fn;
    s->on_open = on_open;
    s->arg = arg;
    s->io = *io;
    s->t = *t;
    s->result = 1;
    s->curl_due_ms = -1;
    s->header_timeout_ms = t->timeout_ms ? t->timeout_ms : 5000;
    s->header_due_ms = pna_mono_ms() + s->header_timeout_ms;
    /* What describe_failure() reads later, copied; the rest is not kept. */
    s->t.unix_socket = t->unix_socket ? strdup(t->unix_socket) : NULL;
    s->t.ca_file = t->ca_file ? strdup(t->ca_file) : NULL;
    s->t.base_url = s->t.bearer_token = NULL;
    s->path = strdup(path);
    s->c = pna_hclient_new();
    s->m = s->c ? curl_multi_init() : NULL;
    if (!s->path || (t->unix_socket && !s->t.unix_socket) || (t->ca_file && !s->t.ca_file) ||
        !s->m) {
        snprintf(err, errlen, "out of memory");
        pna_hstream_close(s);
        return NULL;
    }
    if (setup(s->c, t, path, &s->headers, err, errlen) < 0) {
        pna_hstream_close(s);
        return NULL;
    }
    CURL *h = s->c->h;
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_stream);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, s);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, s);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, s->curl_err);
    curl_multi_setopt(s->m, CURLMOPT_SOCKETFUNCTION, on_curl_socket);
    curl_multi_setopt(s->m, CURLMOPT_SOCKETDATA, s);
    curl_multi_setopt(s->m, CURLMOPT_TIMERFUNCTION, on_curl_timer);
    curl_multi_setopt(s->m, CURLMOPT_TIMERDATA, s);
    if (curl_multi_add_handle(s->m, h) != CURLM_OK) {
        snprintf(err, errlen, "%s: cannot start the transfer", path);
        pna_hstream_close(s);
        return NULL;
    }
    return s;
}

void pna_hstream_close(struct pna_hstream *s)
{
    if (!s)
        return;
    if (s->m) {
        curl_multi_remove_handle(s->m, s->c->h);   /* its sockets' watches end here */
        curl_multi_cleanup(s->m);
    }
    if (s->c)
        curl_easy_setopt(s->c->h, CURLOPT_ERRORBUFFER, NULL);
    pna_hclient_free(s->c);
    curl_slist_free_all(s->headers);
    pna_line_split_free(&s->lines);
    free((char *)s->t.unix_socket);
    free((char *)s->t.ca_file);
    free(s->path);
    free(s);
}
