/* test_http_server.c -- the bridge's server pieces: --http address forms,
 * base64, the basic-auth file and check, and a real server on loopback asked
 * with libcurl (routing, 404, 405 with Allow, HEAD, 401 with WWW-Authenticate,
 * start-up errors), all without an SNMP agent or pollers. */
#include "pna_autoconf.h"
#include "core/config.h"
#include "http/address.h"
#include "http/auth.h"
#include "http/http.h"
#include "unit.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
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
    char url[256];
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
    test_server();
    curl_global_cleanup();
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", tmpdir);
    UNIT_END();
}
