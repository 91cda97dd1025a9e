/* http/server.c -- the HTTP bridge's server: libmicrohttpd set-up, routing,
 * basic auth and TLS (see http.h; the credentials file and its check are
 * auth.c, the listen address address.c).
 *
 * Threads: libmicrohttpd runs its own polling thread (epoll or poll, chosen by
 * the library) and calls handle_request() there.  Each request takes a view of
 * the cache (render.h), renders into a growable buffer and releases the view
 * before the response is sent, so a slow client holds no snapshot.  Signals
 * are blocked in the library's threads: SIGTERM/SIGINT/SIGHUP belong to the
 * main thread.  Logging goes through pna_log(), which queues lines for the
 * main thread; nothing here calls net-snmp. */
#include "pna_autoconf.h"
#include "core/config.h"
#include "core/cache.h"
#include "core/log.h"
#include "http/address.h"
#include "http/auth.h"
#include "http/http.h"
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

#define CONNECTION_TIMEOUT_S 15
static struct {
    struct MHD_Daemon *daemon;
    struct pna_http_auth auth;
    bool auth_on;
    bool probe_auth;            /* httpProbeAuth: the probes need auth too */
    char *tls_cert, *tls_key;   /* PEM text; the library reads them at start */
    char *node_name;            /* configured node name, or NULL */
} srv;

/* ---- responses ---------------------------------------------------------------- */

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

static enum MHD_Result serve_metrics(struct MHD_Connection *c, const struct pna_http_view *v)
{
    struct pna_buf b;
    pna_buf_init(&b);
    size_t errors = pna_metrics_render(&b, v);
    if (b.failed) {
        pna_buf_free(&b);
        return send_text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "500 out of memory\n");
    }
    if (errors)
        pna_log(LOG_WARNING, "http: /metrics rendered with %zu dropped samples", errors);
    size_t len;
    char *data = pna_buf_steal(&b, &len);
    return send_buffer(c, MHD_HTTP_OK, "text/plain; version=0.0.4; charset=utf-8", data, len, true);
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
    "/gpus /gpuDriverVersion /cardMetrics /driMapping /rdma /pods   device endpoints (JSON)\n";

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
    { "/events", pna_json_events },
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
    pna_http_auth_free(&srv.auth);
    if (srv.tls_key) {
        memset(srv.tls_key, 0, strlen(srv.tls_key));   /* a private key */
        free(srv.tls_key);
    }
    free(srv.tls_cert);
    free(srv.node_name);
    memset(&srv, 0, sizeof srv);
}

static struct MHD_Daemon *start_daemon(const struct pna_config *cfg, unsigned flags,
                                       const struct sockaddr *sa)
{
    struct MHD_OptionItem tls_opts[] = {
        { MHD_OPTION_HTTPS_MEM_CERT, 0, srv.tls_cert },
        { MHD_OPTION_HTTPS_MEM_KEY, 0, srv.tls_key },
        { MHD_OPTION_END, 0, NULL },
    };
    unsigned limit = cfg->http_max_connections ? cfg->http_max_connections : 32;
    /* The library's threads inherit this thread's signal mask: block all
     * signals while they are created so that they go to the main thread. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    struct MHD_Daemon *d = MHD_start_daemon(
        flags, 0, NULL, NULL, handle_request, NULL,
        /* The logger first, so that the library's own complaints about the
         * options that follow go to our log too. */
        MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL,
        MHD_OPTION_SOCK_ADDR, sa,
        MHD_OPTION_CONNECTION_LIMIT, limit,
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)CONNECTION_TIMEOUT_S,
        MHD_OPTION_ARRAY, srv.tls_cert ? tls_opts : tls_opts + 2,
        MHD_OPTION_END);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return d;
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

    unsigned flags = MHD_USE_AUTO_INTERNAL_THREAD | MHD_USE_ERROR_LOG;
    if (srv.tls_cert)
        flags |= MHD_USE_TLS;
    if (ss.ss_family == AF_INET6)
        flags |= any ? MHD_USE_DUAL_STACK : MHD_USE_IPv6;
    srv.daemon = start_daemon(cfg, flags, (const struct sockaddr *)&ss);
    if (!srv.daemon && any) {
        /* No IPv6 on this system: every IPv4 address instead. */
        struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
        unsigned short port = ((struct sockaddr_in6 *)&ss)->sin6_port;
        memset(&ss, 0, sizeof ss);
        s4->sin_family = AF_INET;
        s4->sin_addr.s_addr = htonl(INADDR_ANY);
        s4->sin_port = port;
        flags &= ~(unsigned)MHD_USE_DUAL_STACK;
        srv.daemon = start_daemon(cfg, flags, (const struct sockaddr *)&ss);
    }
    if (!srv.daemon) {
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
