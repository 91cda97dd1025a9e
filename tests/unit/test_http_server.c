/* test_http_server.c -- the bridge's server pieces: --http address forms,
 * base64, the basic-auth file and check, the connection guard's policy (on
 * socket pairs, with the test's own clock), the shared /metrics body, and a
 * real server on loopback asked with libcurl (routing, 404, 405 with Allow,
 * HEAD, 401 with WWW-Authenticate, a query of 600 parameters, a newcomer let
 * in past idle connections, start-up errors), all without an SNMP agent or
 * pollers. */
#include "pna_autoconf.h"
#include "core/config.h"
#include "http/address.h"
#include "http/auth.h"
#include "http/guard.h"
#include "http/http.h"
#include "http/metrics_body.h"
#include "model/node.h"
#include "unit.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <curl/curl.h>

static void test_addresses(void)
{
    struct sockaddr_storage ss;
    socklen_t len;
    bool any;
    char err[256];
    const struct sockaddr_in *s4 = (const struct sockaddr_in *)&ss;
    const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)&ss;

    CHECK_INT(pna_http_parse_addr("127.0.0.1:9101", &ss, &len, &any, err, sizeof err), 0);
    CHECK_INT(ss.ss_family, AF_INET);
    CHECK_INT(ntohs(s4->sin_port), 9101);
    CHECK_INT(ntohl(s4->sin_addr.s_addr), 0x7f000001);
    CHECK(!any);

    CHECK_INT(pna_http_parse_addr("[::1]:9101", &ss, &len, &any, err, sizeof err), 0);
    CHECK_INT(ss.ss_family, AF_INET6);
    CHECK_INT(ntohs(s6->sin6_port), 9101);
    CHECK(IN6_IS_ADDR_LOOPBACK(&s6->sin6_addr));

    CHECK_INT(pna_http_parse_addr(":9101", &ss, &len, &any, err, sizeof err), 0);
    CHECK(any);
    CHECK_INT(ss.ss_family, AF_INET6);
    CHECK(IN6_IS_ADDR_UNSPECIFIED(&s6->sin6_addr));

    CHECK_INT(pna_http_parse_addr("localhost:8080", &ss, &len, &any, err, sizeof err), 0);
    CHECK(ss.ss_family == AF_INET || ss.ss_family == AF_INET6);

    static const char *const bad[] = {
        "", "9101", "127.0.0.1", "127.0.0.1:", "127.0.0.1:0", "127.0.0.1:65536", "127.0.0.1:91x",
        "::1:9101", "[::1]9101", "[::1", "no.such.host.invalid:9101",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        int rc = pna_http_parse_addr(bad[i], &ss, &len, &any, err, sizeof err);
        CHECK_INT(rc, -1);
        CHECK(err[0] != '\0');
        if (rc == 0)
            fprintf(stderr, "accepted bad address '%s'\n", bad[i]);
    }
}

static void test_base64(void)
{
    char out[64];
    CHECK_INT(pna_base64_decode("dXNlcjpwYXNz", out, sizeof out), 9);
    CHECK_STR(out, "user:pass");
    CHECK_INT(pna_base64_decode("YQ==", out, sizeof out), 1);
    CHECK_STR(out, "a");
    CHECK_INT(pna_base64_decode("YWI=", out, sizeof out), 2);
    CHECK_INT(pna_base64_decode("YWI", out, sizeof out), 2);   /* padding optional */
    CHECK_INT(pna_base64_decode("", out, sizeof out), 0);
    CHECK_INT(pna_base64_decode("Y", out, sizeof out), -1);    /* a lone 6-bit group */
    CHECK_INT(pna_base64_decode("YW!=", out, sizeof out), -1);
    CHECK_INT(pna_base64_decode("YQ==YQ", out, sizeof out), -1);
    CHECK_INT(pna_base64_decode("dXNlcjpwYXNz", out, 5), -1);  /* does not fit */
}

static char tmpdir[] = "/tmp/pna-http-test-XXXXXX";

static const char *write_file(const char *name, const char *content)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "w");
    fputs(content, f);
    fclose(f);
    return path;
}

static void test_auth(void)
{
    struct pna_http_auth a;
    char err[256];
    const char *p = write_file("users", "# operators\n\nprometheus:s3cr:et\r\nalice:pw\n");
    CHECK_INT(pna_http_auth_load(p, &a, err, sizeof err), 0);
    CHECK_U64(a.count, 2);
    /* prometheus:s3cr:et (the password keeps its colon) */
    CHECK(pna_http_auth_check(&a, "Basic cHJvbWV0aGV1czpzM2NyOmV0"));
    CHECK(pna_http_auth_check(&a, "basic   YWxpY2U6cHc="));          /* alice:pw */
    CHECK(pna_http_auth_check(&a, "Basic YWxpY2U6cHc"));             /* unpadded alice:pw */
    CHECK(!pna_http_auth_check(&a, "Basic YWxpY2U6cA=="));            /* alice:p (prefix) */
    CHECK(!pna_http_auth_check(&a, "Basic YWxpY2U6cHd4"));            /* alice:pwx (longer) */
    CHECK(!pna_http_auth_check(&a, "Basic YWxpY2U6UFc="));            /* alice:PW */
    CHECK(!pna_http_auth_check(&a, "Bearer YWxpY2U6cHc="));
    CHECK(!pna_http_auth_check(&a, "Basic !!!"));
    CHECK(!pna_http_auth_check(&a, NULL));
    CHECK(!pna_http_auth_check(&a, ""));
    pna_http_auth_free(&a);

    CHECK_INT(pna_http_auth_load(write_file("empty", "# nobody\n"), &a, err, sizeof err), -1);
    CHECK(strstr(err, "no user:password") != NULL);
    CHECK_INT(pna_http_auth_load(write_file("bad", "alice:pw\nbob\n"), &a, err, sizeof err), -1);
    CHECK(strstr(err, ":2: expected user:password") != NULL);
    CHECK_INT(pna_http_auth_load(write_file("bad2", ":nouser\n"), &a, err, sizeof err), -1);
    CHECK_INT(pna_http_auth_load("/nonexistent/users", &a, err, sizeof err), -1);
    CHECK(strstr(err, "No such file") != NULL);
}

/* ---- the connection guard --------------------------------------------------------- */

/* One client: a socket pair, the guard holding one end. */
struct client {
    int fds[2];
    struct sockaddr_in addr;
    struct pna_http_conn *conn;
};

static void client_open(struct pna_http_guard *g, struct client *c, unsigned host, int64_t now)
{
    CHECK_INT(socketpair(AF_UNIX, SOCK_STREAM, 0, c->fds), 0);
    memset(&c->addr, 0, sizeof c->addr);
    c->addr.sin_family = AF_INET;
    c->addr.sin_addr.s_addr = htonl(0x7f000000u | host);   /* 127.0.0.HOST */
    c->conn = pna_http_guard_open(g, c->fds[0], (const struct sockaddr *)&c->addr, now);
}

/* The guard shut the client's connection down: its peer reads the end. */
static bool client_cut(const struct client *c)
{
    char b;
    return recv(c->fds[1], &b, 1, MSG_DONTWAIT) == 0;
}

static void client_close(struct pna_http_guard *g, struct client *c)
{
    pna_http_guard_close(g, c->conn);
    close(c->fds[0]);
    close(c->fds[1]);
}

static struct pna_http_guard *small_guard(unsigned max, unsigned per_address, unsigned capacity)
{
    struct pna_http_guard_cfg cfg;
    pna_http_guard_defaults(&cfg, max);
    cfg.per_address = per_address;
    cfg.capacity = capacity;
    return pna_http_guard_new(&cfg);
}

static void test_guard_defaults(void)
{
    struct pna_http_guard_cfg cfg;
    pna_http_guard_defaults(&cfg, 0);
    CHECK_INT(cfg.max_connections, 32);
    CHECK_INT(cfg.per_address, 8);
    CHECK(cfg.capacity > cfg.max_connections);
    CHECK(cfg.header_deadline_ms > 0 && cfg.header_deadline_ms < cfg.request_deadline_ms);
    pna_http_guard_defaults(&cfg, 2);
    CHECK_INT(cfg.per_address, 2);
}

/* An address at its share: its own connection that waited longest for its
 * request goes, one being answered stays; other addresses are not touched. */
static void test_guard_per_address(void)
{
    struct pna_http_guard *g = small_guard(8, 2, 12);
    struct client a1, a2, a3, b1;
    client_open(g, &b1, 9, 0);
    client_open(g, &a1, 2, 10);
    client_open(g, &a2, 2, 20);
    pna_http_guard_answering(g, a1.conn, 0);
    client_open(g, &a3, 2, 30);                  /* 127.0.0.2 holds 2 already */
    CHECK(a3.conn != NULL);
    CHECK(!client_cut(&a1));                     /* answered: kept */
    CHECK(client_cut(&a2));                      /* waiting: cut, though newer than a1 */
    CHECK(!client_cut(&a3) && !client_cut(&b1));
    CHECK_U64(pna_http_guard_live(g, (const struct sockaddr *)&a1.addr), 2);
    CHECK_U64(pna_http_guard_live(g, NULL), 3);
    struct pna_http_guard_counts k;
    pna_http_guard_counts(g, &k);
    CHECK_U64(k.evicted_address, 1);
    CHECK_U64(k.evicted_limit, 0);
    client_close(g, &a1);
    client_close(g, &a2);
    client_close(g, &a3);
    client_close(g, &b1);
    pna_http_guard_free(g);
}

/* The table full: a newcomer from a new address is let in; the connection
 * that waited longest goes, and when every one is being answered, the one
 * answered longest. */
static void test_guard_limit(void)
{
    struct pna_http_guard *g = small_guard(3, 3, 8);
    struct client c[5];
    client_open(g, &c[0], 10, 100);
    client_open(g, &c[1], 11, 50);
    client_open(g, &c[2], 12, 200);
    client_open(g, &c[3], 1, 300);               /* a probe: c[1] waited longest */
    CHECK(c[3].conn != NULL);
    CHECK(client_cut(&c[1]));
    CHECK(!client_cut(&c[0]) && !client_cut(&c[2]) && !client_cut(&c[3]));
    pna_http_guard_close(g, c[1].conn);          /* the library closes it */
    for (int i = 0; i < 4; i++)
        if (i != 1)
            pna_http_guard_answering(g, c[i].conn, 0);
    client_open(g, &c[4], 13, 400);
    CHECK(client_cut(&c[0]));                    /* all answered: the oldest request */
    CHECK(!client_cut(&c[2]) && !client_cut(&c[3]) && !client_cut(&c[4]));
    CHECK_U64(pna_http_guard_live(g, NULL), 3);
    struct pna_http_guard_counts k;
    pna_http_guard_counts(g, &k);
    CHECK_U64(k.evicted_limit, 2);
    c[1].conn = NULL;                            /* already closed */
    for (int i = 0; i < 5; i++)
        client_close(g, &c[i]);
    pna_http_guard_free(g);
}

/* Deadlines count from the request's start; activity does not move them, the
 * end of a request does. */
static void test_guard_deadlines(void)
{
    struct pna_http_guard *g = small_guard(8, 8, 8);
    struct pna_http_guard_cfg cfg;
    pna_http_guard_defaults(&cfg, 8);
    const int64_t hd = cfg.header_deadline_ms, rd = cfg.request_deadline_ms;
    struct client w, a, k;
    client_open(g, &w, 2, 1000);                 /* never sends its headers */
    client_open(g, &a, 3, 1000);                 /* answered, never reads */
    client_open(g, &k, 4, 1000);                 /* a request done, then kept alive */
    pna_http_guard_answering(g, a.conn, 0);
    pna_http_guard_answering(g, k.conn, 0);
    pna_http_guard_done(g, k.conn, 1000 + hd - 1);
    CHECK_U64(pna_http_guard_reap(g, 1000 + hd - 1), 0);
    CHECK_U64(pna_http_guard_reap(g, 1000 + hd), 1);
    CHECK(client_cut(&w) && !client_cut(&a) && !client_cut(&k));
    CHECK_U64(pna_http_guard_reap(g, 1000 + hd - 1 + hd), 1);   /* k's next headers */
    CHECK(client_cut(&k) && !client_cut(&a));
    CHECK_U64(pna_http_guard_reap(g, 1000 + rd), 1);
    CHECK(client_cut(&a));
    CHECK_U64(pna_http_guard_reap(g, 1000 + 10 * rd), 0);         /* each cut once */
    struct pna_http_guard_counts n;
    pna_http_guard_counts(g, &n);
    CHECK_U64(n.late_headers, 2);
    CHECK_U64(n.late_requests, 1);
    client_close(g, &w);
    client_close(g, &a);
    client_close(g, &k);
    pna_http_guard_free(g);
}

/* Tags (the /metrics body a connection is sent), a full table, and IPv4
 * clients seen as IPv4-mapped IPv6 addresses (a dual-stack socket). */
static void test_guard_tags_and_table(void)
{
    struct pna_http_guard *g = small_guard(8, 8, 2);
    struct client x, y, z;
    client_open(g, &x, 2, 0);
    client_open(g, &y, 3, 0);
    pna_http_guard_answering(g, x.conn, 7);
    pna_http_guard_answering(g, y.conn, 8);
    CHECK_U64(pna_http_guard_cut_tag(g, 7), 1);
    CHECK(client_cut(&x) && !client_cut(&y));
    CHECK_U64(pna_http_guard_cut_tag(g, 0), 0);
    client_open(g, &z, 4, 0);                    /* both slots held (x is closing) */
    CHECK(z.conn == NULL);
    CHECK(client_cut(&z));
    struct pna_http_guard_counts n;
    pna_http_guard_counts(g, &n);
    CHECK_U64(n.refused, 1);
    CHECK_U64(n.tagged, 1);

    struct sockaddr_in6 mapped;
    memset(&mapped, 0, sizeof mapped);
    mapped.sin6_family = AF_INET6;
    CHECK_INT(inet_pton(AF_INET6, "::ffff:127.0.0.3", &mapped.sin6_addr), 1);
    CHECK_U64(pna_http_guard_live(g, (const struct sockaddr *)&mapped), 1);   /* y */
    /* IPv6 clients count by /64: two addresses of one prefix are one client. */
    struct sockaddr_in6 v6a = mapped, v6b = mapped;
    CHECK_INT(inet_pton(AF_INET6, "2001:db8:1:2::10", &v6a.sin6_addr), 1);
    CHECK_INT(inet_pton(AF_INET6, "2001:db8:1:2:ffff::99", &v6b.sin6_addr), 1);
    int p6[2];
    CHECK_INT(socketpair(AF_UNIX, SOCK_STREAM, 0, p6), 0);
    pna_http_guard_close(g, x.conn);             /* x is closed: a slot for the IPv6 client */
    x.conn = NULL;
    struct pna_http_conn *c6 = pna_http_guard_open(g, p6[0], (const struct sockaddr *)&v6a, 0);
    CHECK(c6 != NULL);
    CHECK_U64(pna_http_guard_live(g, (const struct sockaddr *)&v6b), 1);
    CHECK_INT(inet_pton(AF_INET6, "2001:db8:1:3::10", &v6b.sin6_addr), 1);
    CHECK_U64(pna_http_guard_live(g, (const struct sockaddr *)&v6b), 0);
    pna_http_guard_close(g, c6);
    close(p6[0]);
    close(p6[1]);
    client_close(g, &x);
    client_close(g, &y);
    z.conn = NULL;
    client_close(g, &z);
    pna_http_guard_free(g);
}

/* ---- the shared /metrics body ------------------------------------------------------ */

static void node_view(struct pna_http_view *v, struct pna_node_snap *ns, uint64_t generation)
{
    memset(v, 0, sizeof *v);
    memset(ns, 0, sizeof *ns);
    snprintf(ns->node.hostname, sizeof ns->node.hostname, "node-%llu",
             (unsigned long long)generation);
    ns->node.cpu_cores = 4;
    ns->base.generation = generation;
    v->base.snap[PNA_DOM_NODE] = &ns->base;
    pna_http_view_complete(v, NULL);
}

static void test_metrics_body(void)
{
    struct pna_http_view v;
    struct pna_node_snap ns;
    uint64_t cut;
    pna_metrics_body_reset();
    size_t alive0 = pna_metrics_bodies_alive();
    node_view(&v, &ns, 1001);
    struct pna_metrics_body *b1 = pna_metrics_body_get(&v, &cut);
    CHECK(b1 != NULL);
    CHECK_U64(cut, 0);
    struct pna_metrics_body *again = pna_metrics_body_get(&v, &cut);
    CHECK(again == b1);                           /* same generations: shared */
    size_t len;
    const char *text = pna_metrics_body_data(b1, &len);
    CHECK(strstr(text, "hw_cpu_cores{node=\"node-1001\"} 4\n") != NULL);
    CHECK(strstr(text, "primus_agent") == NULL);  /* the agent's part is per request */
    struct pna_buf whole;
    pna_buf_init(&whole);
    CHECK_U64(pna_metrics_render(&whole, &v), 0);
    CHECK(whole.len > len && memcmp(whole.data, text, len) == 0);
    pna_buf_free(&whole);
    pna_metrics_body_release(again);
    CHECK_U64(pna_metrics_bodies_alive(), alive0 + 1);

    /* Readers that keep old bodies: the fifth alive names the oldest. */
    struct pna_metrics_body *held[5] = { b1 };
    for (int i = 1; i < 5; i++) {
        node_view(&v, &ns, 1001 + (uint64_t)i);
        held[i] = pna_metrics_body_get(&v, &cut);
        CHECK(held[i] != NULL && held[i] != held[i - 1]);
        CHECK_U64(cut, i < 4 ? 0 : pna_metrics_body_serial(b1));
    }
    CHECK_U64(pna_metrics_bodies_alive(), alive0 + 5);
    uint64_t last_serial = pna_metrics_body_serial(held[4]);
    for (int i = 0; i < 5; i++)
        pna_metrics_body_release(held[i]);
    CHECK_U64(pna_metrics_bodies_alive(), alive0);   /* no reader: none kept */
    /* The next reader renders anew, even for the same generations. */
    struct pna_metrics_body *later = pna_metrics_body_get(&v, &cut);
    CHECK(later != NULL && pna_metrics_body_serial(later) > last_serial);
    CHECK_U64(pna_metrics_bodies_alive(), alive0 + 1);
    pna_metrics_body_release(later);
    CHECK_U64(pna_metrics_bodies_alive(), alive0);
    pna_metrics_body_reset();
    CHECK_U64(pna_metrics_bodies_alive(), alive0);
}

/* ---- a real server ------------------------------------------------------------- */

struct reply {
    long status;
    char body[4096];
    size_t len;
    char headers[4096];
    size_t hlen;
};

static size_t on_body(char *data, size_t size, size_t n, void *arg)
{
    struct reply *r = arg;
    size_t k = size * n;
    size_t room = sizeof r->body - 1 - r->len;
    memcpy(r->body + r->len, data, k < room ? k : room);
    r->len += k < room ? k : room;
    r->body[r->len] = '\0';
    return k;
}

static size_t on_header(char *data, size_t size, size_t n, void *arg)
{
    struct reply *r = arg;
    size_t k = size * n;
    size_t room = sizeof r->headers - 1 - r->hlen;
    memcpy(r->headers + r->hlen, data, k < room ? k : room);
    r->hlen += k < room ? k : room;
    r->headers[r->hlen] = '\0';
    return k;
}

static struct reply ask(unsigned port, const char *method, const char *path, const char *userpwd)
{
    struct reply r;
    memset(&r, 0, sizeof r);
    char url[4096];
    snprintf(url, sizeof url, "http://127.0.0.1:%u%s", port, path);
    CURL *c = curl_easy_init();
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &r);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, &r);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 10L);
    if (strcmp(method, "HEAD") == 0)
        curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
    else if (strcmp(method, "GET") != 0)
        curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    if (strcmp(method, "POST") == 0)
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, "x=1");
    if (userpwd)
        curl_easy_setopt(c, CURLOPT_USERPWD, userpwd);
    if (curl_easy_perform(c) == CURLE_OK)
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r.status);
    curl_easy_cleanup(c);
    return r;
}

/* Start on a free loopback port; returns it, or 0. */
static unsigned start_on_free_port(struct pna_config *cfg, char *addr, size_t cap)
{
    for (int tries = 0; tries < 20; tries++) {
        unsigned port = 40000 + (unsigned)((getpid() * 7 + tries * 131) % 20000);
        snprintf(addr, cap, "127.0.0.1:%u", port);
        cfg->http_addr = addr;
        if (pna_http_start(cfg) == 0)
            return port;
    }
    return 0;
}

/* A TCP connection to PORT on loopback that sends nothing; -1 on failure. */
static int idle_connection(unsigned port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    struct timeval tv = { .tv_sec = 10 };
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* httpMaxConnections 2, held by idle connections: a newcomer is answered, and
 * the connections that waited longest are closed to make room for it. */
static void test_newcomer_let_in(struct pna_config *cfg)
{
    char addr[64];
    cfg->http_max_connections = 2;
    unsigned port = start_on_free_port(cfg, addr, sizeof addr);
    CHECK(port != 0);
    if (!port)
        return;
    int idle[3];
    for (int i = 0; i < 3; i++)
        idle[i] = idle_connection(port);
    struct reply r = ask(port, "GET", "/healthz", NULL);
    CHECK_INT(r.status, 200);
    char b;
    for (int i = 0; i < 3; i++) {
        CHECK(idle[i] >= 0);
        if (i < 2)   /* closed by the server: the end of the stream, not a timeout */
            CHECK_INT(recv(idle[i], &b, 1, 0), 0);
        close(idle[i]);
    }
    pna_http_stop();
    cfg->http_max_connections = 0;
}

static void test_server(void)
{
    struct pna_config cfg;
    pna_config_defaults(&cfg);
    char addr[64];
    unsigned port = start_on_free_port(&cfg, addr, sizeof addr);
    CHECK(port != 0);
    if (!port)
        return;

    struct reply r = ask(port, "GET", "/metrics", NULL);
    CHECK_INT(r.status, 200);
    CHECK(strstr(r.headers, "Content-Type: text/plain; version=0.0.4") != NULL);
    CHECK(strstr(r.body, "# TYPE primus_agent_info gauge\n") != NULL);
    r = ask(port, "GET", "/healthz", NULL);
    CHECK_INT(r.status, 200);
    CHECK_STR(r.body, "{\"status\":\"ok\"}");
    CHECK(strstr(r.headers, "Content-Type: application/json") != NULL);
    r = ask(port, "GET", "/node", NULL);      /* no node poller ran: 503 */
    CHECK_INT(r.status, 503);
    r = ask(port, "GET", "/pods", NULL);
    CHECK_INT(r.status, 200);
    CHECK_STR(r.body, "[]");
    r = ask(port, "GET", "/gpus", NULL);
    CHECK_STR(r.body, "{\"code\":0,\"data\":[],\"message\":\"success\"}");
    r = ask(port, "GET", "/nope", NULL);
    CHECK_INT(r.status, 404);
    CHECK_STR(r.body, "404 page not found\n");
    r = ask(port, "GET", "/metrics/", NULL);
    CHECK_INT(r.status, 404);
    r = ask(port, "POST", "/metrics", NULL);
    CHECK_INT(r.status, 405);
    CHECK(strstr(r.headers, "Allow: GET, HEAD") != NULL);
    r = ask(port, "DELETE", "/ready", NULL);
    CHECK_INT(r.status, 405);
    r = ask(port, "HEAD", "/metrics", NULL);
    CHECK_INT(r.status, 200);
    CHECK_U64(r.len, 0);
    CHECK(strstr(r.headers, "Content-Length: ") != NULL);
    /* 600 query parameters: libmicrohttpd 0.9.75 lost its 431 and hung for
     * the idle timeout (15 s, past ask()'s 10); the bridge takes none. */
    char query[700] = "/healthz?";
    memset(query + 9, '&', 600);
    query[609] = '\0';
    r = ask(port, "GET", query, NULL);
    CHECK_INT(r.status, 200);
    CHECK_STR(r.body, "{\"status\":\"ok\"}");
    /* a second start is refused while one runs? it is a no-op */
    CHECK_INT(pna_http_start(&cfg), 0);
    pna_http_stop();
    pna_http_stop();   /* twice is fine */

    /* Basic auth on: 401 with the challenge, 200 with the right user. */
    cfg.http_basic_auth_file = write_file("users", "prometheus:scrape-me\n");
    port = start_on_free_port(&cfg, addr, sizeof addr);
    CHECK(port != 0);
    if (port) {
        r = ask(port, "GET", "/metrics", NULL);
        CHECK_INT(r.status, 401);
        CHECK(strstr(r.headers, "WWW-Authenticate: Basic realm=\"primus-node-agent\"") != NULL);
        r = ask(port, "GET", "/metrics", "prometheus:wrong");
        CHECK_INT(r.status, 401);
        r = ask(port, "GET", "/metrics", "prometheus:scrape-me");
        CHECK_INT(r.status, 200);
        r = ask(port, "POST", "/metrics", NULL);
        CHECK_INT(r.status, 401);
        pna_http_stop();
    }

    /* Start-up errors: one line each, nothing left running. */
    cfg.http_basic_auth_file = NULL;
    test_newcomer_let_in(&cfg);
    cfg.http_addr = "127.0.0.1:notaport";
    CHECK_INT(pna_http_start(&cfg), -1);
    cfg.http_addr = "127.0.0.1:45999";
    cfg.http_basic_auth_file = "/nonexistent/users";
    CHECK_INT(pna_http_start(&cfg), -1);
    cfg.http_basic_auth_file = NULL;
    cfg.http_tls_cert = write_file("cert.pem", "x");
    CHECK_INT(pna_http_start(&cfg), -1);              /* a certificate without a key */
    cfg.http_tls_key = "/nonexistent/key.pem";
    CHECK_INT(pna_http_start(&cfg), -1);              /* an unreadable key */
    cfg.http_tls_key = write_file("key.pem", "not a key");
    CHECK_INT(pna_http_start(&cfg), -1);              /* the library refuses the PEM */
    cfg.http_tls_cert = cfg.http_tls_key = NULL;
    pna_http_stop();
    pna_config_free(&cfg);
}

int main(void)
{
    if (!mkdtemp(tmpdir))
        return 99;
    curl_global_init(CURL_GLOBAL_DEFAULT);
    test_addresses();
    test_base64();
    test_auth();
    test_guard_defaults();
    test_guard_per_address();
    test_guard_limit();
    test_guard_deadlines();
    test_guard_tags_and_table();
    test_metrics_body();
    test_server();
    curl_global_cleanup();
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", tmpdir);
    UNIT_END();
}
