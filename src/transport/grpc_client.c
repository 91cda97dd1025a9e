/* transport/grpc_client.c -- one unary gRPC call over a unix socket through
 * libcurl's HTTP/2 (see grpc_client.h).
 *
 * What gRPC adds to an HTTP/2 POST, and all this file does about it:
 *   - the request headers: content-type application/grpc, te: trailers and
 *     grpc-timeout (the server may give up at our deadline too);
 *   - the Length-Prefixed-Message framing of request and response: one byte
 *     "compressed" flag, a 4-byte big-endian length, the message;
 *   - the call's status, grpc-status and grpc-message, which a server sends
 *     in the trailers after the response message, or alone in the response
 *     headers when it fails before any message ("Trailers-Only").
 * libcurl (7.88 here) hands HTTP/2 trailers to the header callback after the
 * body, one "name: value" line each, so one callback reads the status from
 * either place; tests/integration/podresources_grpc.sh proves both against a
 * real gRPC server (python3-grpcio).
 *
 * A unary answer is exactly one message.  Its length prefix is checked
 * against MAX_BYTES as soon as it arrives, so a server announcing more is
 * cut off before we buffer it. */
#include "pna_autoconf.h"
#include "transport/grpc_client.h"

#include "transport/curl_global.h"

#include <curl/curl.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define GRPC_PREFIX_LEN 5            /* flag byte + 4-byte big-endian length */
#define GRPC_TIMEOUT_MAX 99999999u   /* grpc-timeout: at most 8 digits */

struct pna_grpc_client {
    CURL *h;
    int last_status;                 /* grpc-status of the last call; -1 none */
    bool fresh_connection;           /* a connection per call (libcurl < 8.0.0) */
};

struct pna_grpc_client *pna_grpc_client_new(void)
{
    if (!pna_curl_global_init())
        return NULL;
    const curl_version_info_data *v = curl_version_info(CURLVERSION_NOW);
    if (!v || !(v->features & CURL_VERSION_HTTP2))
        return NULL;
    struct pna_grpc_client *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->h = curl_easy_init();
    if (!c->h) {
        free(c);
        return NULL;
    }
    c->last_status = -1;
    /* libcurl 7.88.x (Debian 12's 7.88.1 included) fails the second request
     * on a reused prior-knowledge HTTP/2 connection with "Error in the HTTP2
     * framing layer": it stacks a second HTTP/2 filter on the connection
     * (curl issue 10634, fixed in 8.0.0).  Seen here on the second call of
     * pna_podres_fetch().  A new connection per call avoids it; on a unix
     * socket that costs a connect(2) and the HTTP/2 preface, about nothing
     * at one poll every few seconds.  Decided on the libcurl loaded at run
     * time, not the headers built against. */
    c->fresh_connection = v->version_num < 0x080000;
    return c;
}

void pna_grpc_client_free(struct pna_grpc_client *c)
{
    if (!c)
        return;
    curl_easy_cleanup(c->h);
    free(c);
}

int pna_grpc_last_status(const struct pna_grpc_client *c)
{
    return c ? c->last_status : -1;
}

static const char *const status_names[] = {
    "OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
    "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
    "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS",
    "UNAUTHENTICATED",
};

const char *pna_grpc_status_name(int status)
{
    if (status < 0 || (size_t)status >= sizeof status_names / sizeof status_names[0])
        return "unknown code";
    return status_names[status];
}

/* ---- one call's state ----------------------------------------------------------- */

enum body_problem { BODY_OK, BODY_TOO_BIG, BODY_COMPRESSED, BODY_MALFORMED, BODY_NOMEM };

struct call {
    /* response body: the prefix, then the message */
    uint8_t prefix[GRPC_PREFIX_LEN];
    size_t prefix_have;
    uint8_t *msg;
    size_t msg_len, msg_have;        /* announced length, bytes received */
    bool msg_seen;                   /* a complete prefix arrived */
    size_t max_bytes;
    enum body_problem problem;
    /* headers and trailers */
    int status;                      /* grpc-status; -1 not (yet) seen */
    char message[256];               /* grpc-message, percent-decoded */
    bool grpc_content;               /* content-type application/grpc[+...|;...] */
};

static size_t on_body(char *ptr, size_t size, size_t nmemb, void *arg)
{
    struct call *k = arg;
    size_t n = size * nmemb;
    const uint8_t *p = (const uint8_t *)ptr;
    size_t left = n;
    while (left > 0) {
        if (k->msg_seen && k->msg_have == k->msg_len) {
            /* A second message after the one a unary call answers. */
            k->problem = BODY_MALFORMED;
            return 0;   /* makes libcurl stop with CURLE_WRITE_ERROR */
        }
        if (!k->msg_seen) {
            size_t take = GRPC_PREFIX_LEN - k->prefix_have;
            if (take > left)
                take = left;
            memcpy(k->prefix + k->prefix_have, p, take);
            k->prefix_have += take;
            p += take;
            left -= take;
            if (k->prefix_have < GRPC_PREFIX_LEN)
                break;
            if (k->prefix[0] == 1) {
                k->problem = BODY_COMPRESSED;
                return 0;
            }
            if (k->prefix[0] != 0) {
                k->problem = BODY_MALFORMED;
                return 0;
            }
            k->msg_len = (size_t)k->prefix[1] << 24 | (size_t)k->prefix[2] << 16 |
                         (size_t)k->prefix[3] << 8 | (size_t)k->prefix[4];
            if (k->msg_len > k->max_bytes) {
                k->problem = BODY_TOO_BIG;
                return 0;
            }
            /* One byte more so that an empty message is a non-NULL buffer. */
            k->msg = malloc(k->msg_len + 1);
            if (!k->msg) {
                k->problem = BODY_NOMEM;
                return 0;
            }
            k->msg_seen = true;
            continue;
        }
        size_t take = k->msg_len - k->msg_have;
        if (take > left)
            take = left;
        memcpy(k->msg + k->msg_have, p, take);
        k->msg_have += take;
        p += take;
        left -= take;
    }
    return n;
}

static int hexval(char ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    if (ch >= 'a' && ch <= 'f')
        return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F')
        return ch - 'A' + 10;
    return -1;
}

/* grpc-message is percent-encoded (gRPC over HTTP/2, "Responses").  Decoded
 * into DST; control characters become '?' since the text ends up in a log
 * line and an error column. */
static void decode_message(char *dst, size_t cap, const char *src, size_t len)
{
    size_t n = 0;
    for (size_t i = 0; i < len && n + 1 < cap; i++) {
        unsigned char ch = (unsigned char)src[i];
        if (ch == '%' && i + 2 < len && hexval(src[i + 1]) >= 0 && hexval(src[i + 2]) >= 0) {
            ch = (unsigned char)(hexval(src[i + 1]) << 4 | hexval(src[i + 2]));
            i += 2;
        }
        dst[n++] = (ch < 0x20 || ch == 0x7f) ? '?' : (char)ch;
    }
    dst[n] = '\0';
}

/* NAME: VALUE with the value's surrounding blanks and the line end removed. */
static bool header_is(const char *line, size_t len, const char *name, const char **val,
                      size_t *vlen)
{
    size_t nl = strlen(name);
    if (len <= nl || strncasecmp(line, name, nl) != 0 || line[nl] != ':')
        return false;
    const char *v = line + nl + 1;
    const char *end = line + len;
    while (v < end && (*v == ' ' || *v == '\t'))
        v++;
    while (end > v && (end[-1] == '\r' || end[-1] == '\n' || end[-1] == ' ' || end[-1] == '\t'))
        end--;
    *val = v;
    *vlen = (size_t)(end - v);
    return true;
}

/* Every response header line, then (after the body) every trailer line. */
static size_t on_header(char *ptr, size_t size, size_t nmemb, void *arg)
{
    struct call *k = arg;
    size_t n = size * nmemb;
    const char *v;
    size_t vlen;
    if (header_is(ptr, n, "grpc-status", &v, &vlen)) {
        int st = 0;
        bool digits = vlen > 0 && vlen <= 3;
        for (size_t i = 0; i < vlen && digits; i++) {
            if (v[i] < '0' || v[i] > '9')
                digits = false;
            else
                st = st * 10 + (v[i] - '0');
        }
        /* Not a number: UNKNOWN, as gRPC's own clients read it. */
        k->status = digits ? st : 2;
    } else if (header_is(ptr, n, "grpc-message", &v, &vlen)) {
        decode_message(k->message, sizeof k->message, v, vlen);
    } else if (header_is(ptr, n, "content-type", &v, &vlen)) {
        k->grpc_content = vlen >= 16 && strncasecmp(v, "application/grpc", 16) == 0 &&
                          (vlen == 16 || v[16] == '+' || v[16] == ';');
    }
    return n;
}

/* ---- the call ------------------------------------------------------------------ */

static void describe_curl_failure(CURL *h, CURLcode rc, const char *socket_path,
                                  unsigned timeout_ms, const char *curl_err, char *err,
                                  size_t errlen)
{
    if (rc == CURLE_OPERATION_TIMEDOUT) {
        snprintf(err, errlen, "timed out after %u ms", timeout_ms);
        return;
    }
    if (rc == CURLE_COULDNT_CONNECT) {
        /* libcurl says "Failed to connect to localhost port 80"; the errno of
         * the connect(2) on the socket is what an operator needs. */
        long os_errno = 0;
        curl_easy_getinfo(h, CURLINFO_OS_ERRNO, &os_errno);
        snprintf(err, errlen, "connect %s: %s", socket_path,
                 os_errno ? strerror((int)os_errno) : "failed");
        return;
    }
    snprintf(err, errlen, "%s", curl_err[0] ? curl_err : curl_easy_strerror(rc));
}

int pna_grpc_unary(struct pna_grpc_client *c, const char *socket_path, const char *method,
                   const uint8_t *req, size_t req_len, unsigned timeout_ms, size_t max_bytes,
                   uint8_t **resp, size_t *resp_len, char *err, size_t errlen)
{
    char url[512], timeout_hdr[48], curl_err[CURL_ERROR_SIZE] = "";
    struct call k = { .max_bytes = max_bytes, .status = -1 };
    struct curl_slist *headers = NULL;
    CURL *h = c->h;
    int ret = -1;

    *resp = NULL;
    *resp_len = 0;
    c->last_status = -1;
    if (timeout_ms == 0)
        timeout_ms = 1;
    if (req_len > UINT32_MAX) {
        snprintf(err, errlen, "request over %u bytes", (unsigned)UINT32_MAX);
        return -1;
    }
    if (snprintf(url, sizeof url, "http://localhost%s", method) >= (int)sizeof url) {
        snprintf(err, errlen, "method name too long");
        return -1;
    }
    uint8_t *frame = malloc(GRPC_PREFIX_LEN + req_len);
    if (!frame) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    frame[0] = 0;   /* not compressed */
    frame[1] = (uint8_t)(req_len >> 24);
    frame[2] = (uint8_t)(req_len >> 16);
    frame[3] = (uint8_t)(req_len >> 8);
    frame[4] = (uint8_t)req_len;
    if (req_len)
        memcpy(frame + GRPC_PREFIX_LEN, req, req_len);

    snprintf(timeout_hdr, sizeof timeout_hdr, "grpc-timeout: %um",
             timeout_ms > GRPC_TIMEOUT_MAX ? GRPC_TIMEOUT_MAX : timeout_ms);
    static const char *const fixed[] = {
        "content-type: application/grpc",
        "te: trailers",
        "user-agent: primus-node-agent",
        "Expect:",   /* no 100-continue round trip */
        "Accept:",   /* libcurl's default Accept means nothing to gRPC */
    };
    for (size_t i = 0; i <= sizeof fixed / sizeof fixed[0]; i++) {
        const char *line = i < sizeof fixed / sizeof fixed[0] ? fixed[i] : timeout_hdr;
        struct curl_slist *nh = curl_slist_append(headers, line);
        if (!nh) {
            snprintf(err, errlen, "out of memory");
            goto out;
        }
        headers = nh;
    }

    curl_easy_reset(h);   /* keeps the open connection */
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_UNIX_SOCKET_PATH, socket_path);
    curl_easy_setopt(h, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);   /* we run in threads */
#if LIBCURL_VERSION_NUM >= 0x075500
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http");
#else
    curl_easy_setopt(h, CURLOPT_PROTOCOLS, (long)CURLPROTO_HTTP);
#endif
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
    if (c->fresh_connection) {
        curl_easy_setopt(h, CURLOPT_FRESH_CONNECT, 1L);
        curl_easy_setopt(h, CURLOPT_FORBID_REUSE, 1L);
    }
    /* Both deadlines are the call's: a connect on a unix socket either
     * succeeds at once or fails at once, unless the kubelet's accept backlog
     * is full, and then the whole call's deadline is the right bound. */
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, (long)timeout_ms);
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, (long)timeout_ms);
    curl_easy_setopt(h, CURLOPT_POST, 1L);
    curl_easy_setopt(h, CURLOPT_POSTFIELDS, frame);
    curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE, (long)(GRPC_PREFIX_LEN + req_len));
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &k);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, &k);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, curl_err);

    CURLcode rc = curl_easy_perform(h);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, NULL);
    long http = 0;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &http);

    switch (k.problem) {
    case BODY_OK:
        break;
    case BODY_TOO_BIG:
        snprintf(err, errlen, "response over %zu bytes", max_bytes);
        goto out;
    case BODY_COMPRESSED:
        snprintf(err, errlen, "compressed gRPC message (not asked for)");
        goto out;
    case BODY_MALFORMED:
        snprintf(err, errlen, "malformed gRPC frame");
        goto out;
    case BODY_NOMEM:
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    if (rc != CURLE_OK) {
        describe_curl_failure(h, rc, socket_path, timeout_ms, curl_err, err, errlen);
        goto out;
    }
    c->last_status = k.status;
    if (k.status > 0) {
        if (k.message[0])
            snprintf(err, errlen, "grpc-status %d (%s): %s", k.status,
                     pna_grpc_status_name(k.status), k.message);
        else
            snprintf(err, errlen, "grpc-status %d (%s)", k.status,
                     pna_grpc_status_name(k.status));
        goto out;
    }
    if (http != 200) {
        snprintf(err, errlen, "HTTP %ld", http);
        goto out;
    }
    if (k.status < 0) {
        snprintf(err, errlen, k.grpc_content ? "no grpc-status" : "no grpc-status (not a gRPC server)");
        goto out;
    }
    /* OK: exactly one whole message (an empty message still has its prefix). */
    if (!k.msg_seen || k.msg_have != k.msg_len) {
        snprintf(err, errlen, "malformed gRPC frame");
        goto out;
    }
    *resp = k.msg;
    *resp_len = k.msg_len;
    k.msg = NULL;
    ret = 0;
out:
    /* The easy handle keeps pointers to these until the next reset. */
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, NULL);
    curl_easy_setopt(h, CURLOPT_POSTFIELDS, NULL);
    curl_slist_free_all(headers);
    free(frame);
    free(k.msg);
    return ret;
}
