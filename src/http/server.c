/* http/server.c -- the HTTP bridge's server: libmicrohttpd set-up, routing,
 * basic auth and TLS (see http.h; the credentials file and its check are
 * auth.c, the listen address address.c, the connection limits and deadlines
 * guard.c, the shared /metrics body metrics_body.c).
 *
 * Threads: libmicrohttpd runs its own polling thread (epoll or poll, chosen by
 * the library) and calls handle_request() and the notifications there; the
 * guard's reaper runs on a thread of its own.  Each request takes a view of
 * the cache (render.h), renders into a growable buffer and releases the view
 * before the response is sent, so a slow client holds no snapshot.  Signals
 * are blocked in these threads: SIGTERM/SIGINT/SIGHUP belong to the main
 * thread.  Logging goes through pna_log(), which queues lines for the main
 * thread; nothing here calls net-snmp. */
#include "pna_autoconf.h"
#include "core/config.h"
#include "core/cache.h"
#include "core/log.h"
#include "http/address.h"
#include "http/auth.h"
#include "http/guard.h"
#include "http/http.h"
#include "http/metrics_body.h"
#include "http/render/render.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <microhttpd.h>

/* libmicrohttpd's idle timeout: a connection that neither sends nor reads for
 * this long is closed (a client that stopped reading its response).  The
 * deadlines that activity cannot extend are the guard's. */
#define CONNECTION_TIMEOUT_S 15

/* TLS 1.2 or newer, GnuTLS's NORMAL ciphers otherwise (docs/security.md). */
#define TLS_PRIORITIES "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2"

static struct {
    struct MHD_Daemon *daemon;
    struct pna_http_guard *guard;
    struct pna_http_auth auth;
    bool auth_on;
    bool probe_auth;            /* httpProbeAuth: the probes need auth too */
    char *tls_cert, *tls_key;   /* PEM text; the library reads them at start */
    char *node_name;            /* configured node name, or NULL */
    unsigned compat;            /* prometheusCompat: enum pna_prom_compat bits */
} srv;

/* ---- responses ---------------------------------------------------------------- */

/* The guard's entry for C (NULL when the guard refused it). */
static struct pna_http_conn *conn_of(struct MHD_Connection *c)
{
    const union MHD_ConnectionInfo *i =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return i ? i->socket_context : NULL;
}

/* Queue R with its headers and give up our reference to it. */
static enum MHD_Result queue(struct MHD_Connection *c, unsigned status, const char *type,
                             struct MHD_Response *r)
{
    if (!r)
        return MHD_NO;
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
        MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
    if (status == MHD_HTTP_UNAUTHORIZED)
        MHD_add_response_header(r, MHD_HTTP_HEADER_WWW_AUTHENTICATE,
                                "Basic realm=\"primus-node-agent\", charset=\"UTF-8\"");
    enum MHD_Result ret = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result send_buffer(struct MHD_Connection *c, unsigned status, const char *type,
                                   char *data, size_t len, bool must_free)
{
    struct MHD_Response *r;
    if (data && len)
        r = MHD_create_response_from_buffer(len, data,
                                            must_free ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
    else {
        if (must_free)
            free(data);
        r = MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
    }
    return queue(c, status, type, r);
}

static enum MHD_Result send_text(struct MHD_Connection *c, unsigned status, const char *text)
{
    return send_buffer(c, status, "text/plain; charset=utf-8", (char *)text, strlen(text), false);
}

static enum MHD_Result send_json(struct MHD_Connection *c, struct pna_json_reply reply)
{
    if (!reply.body)
        return send_text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "500 out of memory\n");
    char *text = json_dumps(reply.body, JSON_COMPACT | JSON_REAL_PRECISION(12));
    json_decref(reply.body);
    if (!text)
        return send_text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "500 out of memory\n");
    return send_buffer(c, reply.status, "application/json", text, strlen(text), true);
}

/* ---- /metrics: the shared body, then this request's agent families ------------- */

struct metrics_reply {
    struct pna_metrics_body *body;   /* a reference */
    const char *head;                /* the body's text */
    size_t head_len;
    char *tail;                      /* the agent's families, rendered for this request */
    size_t tail_len;
};

/* Copy what PART (LEN bytes) has from OFF on into BUF, at most MAX bytes. */
static size_t copy_part(char *buf, size_t max, const char *part, size_t len, uint64_t off)
{
    size_t n = len - (size_t)off;
    if (n > max)
        n = max;
    memcpy(buf, part + off, n);
    return n;
}

static ssize_t metrics_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    const struct metrics_reply *r = cls;
    if (pos < r->head_len)
        return (ssize_t)copy_part(buf, max, r->head, r->head_len, pos);
    if (pos - r->head_len < r->tail_len)
        return (ssize_t)copy_part(buf, max, r->tail, r->tail_len, pos - r->head_len);
    return MHD_CONTENT_READER_END_OF_STREAM;
}

static void metrics_free(void *cls)
{
    struct metrics_reply *r = cls;
    pna_metrics_body_release(r->body);
    free(r->tail);
    free(r);
}

/* This request's part: the agent's families, into a new reply holding BODY. */
static struct metrics_reply *metrics_reply(struct pna_metrics_body *body,
                                           const struct pna_http_view *v)
{
    struct metrics_reply *r = calloc(1, sizeof *r);
    struct pna_buf tail;
    pna_buf_init(&tail);
    size_t errors = pna_metrics_render_agent_after(&tail, v, pna_metrics_body_stats(body));
    if (!r || tail.failed) {
        pna_buf_free(&tail);
        free(r);
        return NULL;
    }
    if (errors)
        pna_log(LOG_WARNING, "http: /metrics rendered with %zu dropped samples", errors);
    r->body = body;
    r->head = pna_metrics_body_data(body, &r->head_len);
    r->tail = pna_buf_steal(&tail, &r->tail_len);
    return r;
}

static enum MHD_Result serve_metrics(struct MHD_Connection *c, const struct pna_http_view *v)
{
    uint64_t cut;
    struct pna_metrics_body *body = pna_metrics_body_get(v, &cut);
    if (cut)   /* one body too many alive: its slow readers go */
        pna_http_guard_cut_tag(srv.guard, cut);
    struct metrics_reply *r = body ? metrics_reply(body, v) : NULL;
    if (!r) {
        pna_metrics_body_release(body);
        return send_text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "500 out of memory\n");
    }
    pna_http_guard_answering(srv.guard, conn_of(c), pna_metrics_body_serial(body));
    /* The library asks for the text in blocks it copies into the connection's
     * write buffer; HEAD gets the length and no body. */
    struct MHD_Response *resp = MHD_create_response_from_callback(
        r->head_len + r->tail_len, 32 * 1024, metrics_read, r, metrics_free);
    if (!resp) {
        metrics_free(r);
        return MHD_NO;
    }
    return queue(c, MHD_HTTP_OK, "text/plain; version=0.0.4; charset=utf-8", resp);
}

static const char index_text[] =
    "primus-node-agent\n\n"
    "/metrics            Prometheus metrics\n"
    "/health             agent and poller health (JSON)\n"
    "/healthz            liveness (JSON)\n"
    "/ready              readiness: 200 once every poller ran (JSON)\n"
    "/metrics/json       CPU, memory and GPU figures (JSON)\n"
    "/node               node information (JSON)\n"
    "/events             the event table, newest last (JSON)\n"
    "/gpus /gpuDriverVersion /cardMetrics /driMapping /rdma /pods   device endpoints (JSON)\n"
    "/gpuUsage           GPU accounting per holder, pod, Slurm job and GPU (JSON)\n"
    "/topology           the GPU and RDMA PCIe distance matrix (JSON)\n";

/* JSON routes; /metrics and / are handled apart. */
static const struct route {
    const char *path;
    struct pna_json_reply (*render)(const struct pna_http_view *v);
} json_routes[] = {
    { "/health", pna_json_health },
    { "/healthz", pna_json_healthz },
    { "/ready", pna_json_ready },
    { "/metrics/json", pna_json_metrics },
    { "/node", pna_json_node },
    { "/gpus", pna_json_gpus },
    { "/gpuDriverVersion", pna_json_gpu_driver_version },
    { "/cardMetrics", pna_json_card_metrics },
    { "/driMapping", pna_json_dri_mapping },
    { "/rdma", pna_json_rdma },
    { "/pods", pna_json_pods },
    { "/podLabels", pna_json_pod_labels },
    { "/events", pna_json_events },
    { "/gpuUsage", pna_json_gpu_usage },
    { "/topology", pna_json_topology },
};

static const struct route *find_json_route(const char *url)
{
    for (size_t i = 0; i < sizeof json_routes / sizeof json_routes[0]; i++)
        if (strcmp(url, json_routes[i].path) == 0)
            return &json_routes[i];
    return NULL;
}

/* Kubernetes' liveness and readiness probes: with basic auth on they stay
 * open unless httpProbeAuth says otherwise (they tell only "ok" and which
 * pollers have not run yet, and a probe would need the secret in the pod spec). */
static bool is_probe(const char *url)
{
    return strcmp(url, "/healthz") == 0 || strcmp(url, "/ready") == 0;
}

static enum MHD_Result handle_request(void *cls, struct MHD_Connection *c, const char *url,
                                      const char *method, const char *version,
                                      const char *upload_data, size_t *upload_data_size,
                                      void **con_cls)
{
    (void)cls;
    (void)version;
    (void)upload_data;
    (void)upload_data_size;
    (void)con_cls;

    pna_http_guard_answering(srv.guard, conn_of(c), 0);
    if (srv.auth_on && (srv.probe_auth || !is_probe(url))) {
        const char *h = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
                                                    MHD_HTTP_HEADER_AUTHORIZATION);
        if (!pna_http_auth_check(&srv.auth, h))
            return send_text(c, MHD_HTTP_UNAUTHORIZED, "401 unauthorized\n");
    }
    if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
        return send_text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "405 method not allowed\n");

    bool is_metrics = strcmp(url, "/metrics") == 0;
    const struct route *route = is_metrics ? NULL : find_json_route(url);
    if (strcmp(url, "/") == 0)
        return send_text(c, MHD_HTTP_OK, index_text);
    if (!is_metrics && !route)
        return send_text(c, MHD_HTTP_NOT_FOUND, "404 page not found\n");

    struct pna_http_view v;
    pna_http_view_take(&v, srv.node_name);
    v.compat = srv.compat;
    enum MHD_Result ret;
    if (is_metrics) {
        ret = serve_metrics(c, &v);
    } else {
        struct pna_json_reply reply = route->render(&v);
        pna_http_view_release(&v);
        return send_json(c, reply);
    }
    pna_http_view_release(&v);
    return ret;
}

/* ---- start and stop ------------------------------------------------------------ */

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
    (void)cls;
    char line[512];
    vsnprintf(line, sizeof line, fmt, ap);
    size_t n = strlen(line);
    while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
        line[--n] = '\0';
    pna_log(LOG_WARNING, "http: %s", line);
}

/* ---- the guard's hooks, on the library's thread ---------------------------------- */

static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
                          enum MHD_ConnectionNotificationCode toe)
{
    (void)cls;
    if (toe == MHD_CONNECTION_NOTIFY_CLOSED) {
        pna_http_guard_close(srv.guard, *socket_context);
        *socket_context = NULL;
        return;
    }
    const union MHD_ConnectionInfo *fd = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    const union MHD_ConnectionInfo *addr =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (fd)
        *socket_context = pna_http_guard_open(srv.guard, fd->connect_fd,
                                              addr ? addr->client_addr : NULL, pna_mono_ms());
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
    (void)cls;
    (void)con_cls;
    (void)toe;
    pna_http_guard_done(srv.guard, conn_of(c), pna_mono_ms());
}

/* The bridge takes no query parameters.  libmicrohttpd 0.9.75 parses every
 * one into the connection's memory pool (32 KiB) before the handler is
 * called; when the pool runs out (600 bare "&" do it) its 431 answer is lost
 * -- the request line's parser carries on as if nothing had happened -- and
 * the connection hangs until the idle timeout.  This callback runs after the
 * library found the '?' and before it parses what follows, in the same
 * buffer: ending the string just after the '?' leaves it nothing to parse.
 * (tests/integration/http_slow_clients.sh checks it still works.) */
static void *on_uri(void *cls, const char *uri, struct MHD_Connection *c)
{
    (void)cls;
    (void)c;
    char *q = uri ? strchr(uri, '?') : NULL;
    if (q && q[1])
        q[1] = '\0';
    return NULL;
}

/* Read a whole PEM file into a new string. */
static char *read_pem(const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "re");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return NULL;
    }
    struct pna_buf b;
    pna_buf_init(&b);
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        pna_buf_append(&b, chunk, n);
    bool bad = ferror(f) || b.failed || b.len == 0;
    fclose(f);
    if (bad) {
        snprintf(err, errlen, "%s: cannot read (or empty)", path);
        pna_buf_free(&b);
        return NULL;
    }
    return pna_buf_steal(&b, NULL);
}

static void free_state(void)
{
    pna_http_guard_free(srv.guard);
    pna_metrics_body_reset();
    pna_http_auth_free(&srv.auth);
    if (srv.tls_key) {
        memset(srv.tls_key, 0, strlen(srv.tls_key));   /* a private key */
        free(srv.tls_key);
    }
    free(srv.tls_cert);
    free(srv.node_name);
    memset(&srv, 0, sizeof srv);
}

/* The guard (limits and deadlines, guard.h) and its reaper thread. */
static int start_guard(const struct pna_config *cfg, struct pna_http_guard_cfg *gcfg)
{
    pna_http_guard_defaults(gcfg, cfg->http_max_connections);
    srv.guard = pna_http_guard_new(gcfg);
    if (!srv.guard || pna_http_guard_run(srv.guard) != 0) {
        pna_log(LOG_ERR, "http: cannot start the connection guard");
        return -1;
    }
    return 0;
}

static struct MHD_Daemon *start_daemon(const struct pna_http_guard_cfg *gcfg, unsigned flags,
                                       const struct sockaddr *sa)
{
    struct MHD_OptionItem tls_opts[] = {
        { MHD_OPTION_HTTPS_MEM_CERT, 0, srv.tls_cert },
        { MHD_OPTION_HTTPS_MEM_KEY, 0, srv.tls_key },
        { MHD_OPTION_HTTPS_PRIORITIES, 0, (void *)TLS_PRIORITIES },
        { MHD_OPTION_END, 0, NULL },
    };
    return MHD_start_daemon(
        flags, 0, NULL, NULL, handle_request, NULL,
        /* The logger first, so that the library's own complaints about the
         * options that follow go to our log too. */
        MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL,
        MHD_OPTION_SOCK_ADDR, sa,
        /* The library's limit is the guard's table: httpMaxConnections is
         * the guard's, which makes room for newcomers instead of leaving
         * them in the listen queue. */
        MHD_OPTION_CONNECTION_LIMIT, gcfg->capacity,
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)CONNECTION_TIMEOUT_S,
        MHD_OPTION_NOTIFY_CONNECTION, on_connection, NULL,
        MHD_OPTION_NOTIFY_COMPLETED, on_completed, NULL,
        MHD_OPTION_URI_LOG_CALLBACK, on_uri, NULL,
        MHD_OPTION_ARRAY, srv.tls_cert ? tls_opts : tls_opts + 3,
        MHD_OPTION_END);
}

/* Start the guard and the daemon on SA, falling back to every IPv4 address
 * when ANY and IPv6 is missing; false when it did not start. */
static bool start_threads(const struct pna_config *cfg, unsigned flags,
                          struct sockaddr_storage *ss, bool any)
{
    struct pna_http_guard_cfg gcfg;
    /* The threads inherit this thread's signal mask: block all signals while
     * they are created so that they go to the main thread. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    if (start_guard(cfg, &gcfg) == 0) {
        srv.daemon = start_daemon(&gcfg, flags, (const struct sockaddr *)ss);
        if (!srv.daemon && any) {
            /* No IPv6 on this system: every IPv4 address instead. */
            struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
            unsigned short port = ((struct sockaddr_in6 *)ss)->sin6_port;
            memset(ss, 0, sizeof *ss);
            s4->sin_family = AF_INET;
            s4->sin_addr.s_addr = htonl(INADDR_ANY);
            s4->sin_port = port;
            flags &= ~(unsigned)MHD_USE_DUAL_STACK;
            srv.daemon = start_daemon(&gcfg, flags, (const struct sockaddr *)ss);
        }
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return srv.daemon != NULL;
}

int pna_http_start(const struct pna_config *cfg)
{
    char err[256];
    struct sockaddr_storage ss;
    socklen_t len;
    bool any;
    if (srv.daemon)
        return 0;
    if (pna_http_parse_addr(cfg->http_addr, &ss, &len, &any, err, sizeof err) != 0) {
        pna_log(LOG_ERR, "http: %s", err);
        return -1;
    }
    if (cfg->http_basic_auth_file && cfg->http_basic_auth_file[0]) {
        if (pna_http_auth_load(cfg->http_basic_auth_file, &srv.auth, err, sizeof err) != 0) {
            pna_log(LOG_ERR, "http: basic auth file %s", err);
            free_state();
            return -1;
        }
        srv.auth_on = true;
        srv.probe_auth = cfg->http_probe_auth;
    }
    bool cert = cfg->http_tls_cert && cfg->http_tls_cert[0];
    bool key = cfg->http_tls_key && cfg->http_tls_key[0];
    if (cert != key) {
        pna_log(LOG_ERR, "http: TLS needs both httpTlsCert and httpTlsKey");
        free_state();
        return -1;
    }
    if (cert) {
        if (MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES) {
            pna_log(LOG_ERR, "http: this libmicrohttpd was built without TLS");
            free_state();
            return -1;
        }
        srv.tls_cert = read_pem(cfg->http_tls_cert, err, sizeof err);
        srv.tls_key = srv.tls_cert ? read_pem(cfg->http_tls_key, err, sizeof err) : NULL;
        if (!srv.tls_key) {
            pna_log(LOG_ERR, "http: TLS %s", err);
            free_state();
            return -1;
        }
    }
    srv.node_name = cfg->node_name && cfg->node_name[0] ? strdup(cfg->node_name) : NULL;
    srv.compat = cfg->prometheus_compat;

    unsigned flags = MHD_USE_AUTO_INTERNAL_THREAD | MHD_USE_ERROR_LOG;
    if (srv.tls_cert)
        flags |= MHD_USE_TLS;
    if (ss.ss_family == AF_INET6)
        flags |= any ? MHD_USE_DUAL_STACK : MHD_USE_IPv6;
    if (!start_threads(cfg, flags, &ss, any)) {
        pna_log(LOG_ERR, "http: cannot start on %s (address in use or not available%s)",
                cfg->http_addr, srv.tls_cert ? ", or the TLS certificate or key refused" : "");
        free_state();
        return -1;
    }
    pna_log(LOG_INFO, "http: serving %s on %s%s", srv.tls_cert ? "https" : "http", cfg->http_addr,
            srv.auth_on ? " with basic auth" : "");
    return 0;
}

void pna_http_stop(void)
{
    if (!srv.daemon)
        return;
    MHD_stop_daemon(srv.daemon);
    free_state();
}
