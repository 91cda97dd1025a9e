/* httpstub.c -- a small HTTP/1.1 server serving recorded responses for tests
 * (see httpstub.h).  Test code: simple over clever, bounded everywhere. */
#include "pna_autoconf.h"
#include "httpstub.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define MAX_ROUTES 32
#define MAX_CONNS 64
#define MAX_RETIRED 64

struct route {
    char path[256];
    int status;
    char *body;
    size_t len;
    enum stub_mode mode;
    int delay_ms;
    char *inject;
    unsigned hits;
};

struct conn {
    struct httpstub *s;
    int fd;
    pthread_t thread;
    bool used;
    bool done;       /* the thread finished: the slot can be joined and reused */
};

struct httpstub {
    int lfd;
    int stop_pipe[2];
    pthread_t acceptor;
    pthread_mutex_t lock;     /* routes, conns, last_auth */
    struct route routes[MAX_ROUTES];
    size_t nroutes;
    struct conn conns[MAX_CONNS];
    char last_auth[512];
    char *retired[MAX_RETIRED];
    size_t nretired;
    bool stopping;
};

static bool stopping(struct httpstub *s)
{
    pthread_mutex_lock(&s->lock);
    bool v = s->stopping;
    pthread_mutex_unlock(&s->lock);
    return v;
}

/* Wait up to MS for FD to be readable; false when the stub is stopping. */
static bool wait_readable(struct httpstub *s, int fd, int ms)
{
    struct pollfd p[2] = { { .fd = fd, .events = POLLIN }, { .fd = s->stop_pipe[0], .events = POLLIN } };
    int n = poll(p, 2, ms);
    if (n <= 0 || (p[1].revents & POLLIN))
        return false;
    return true;
}

/* Sleep MS unless the stub stops first; false when stopping. */
static bool nap(struct httpstub *s, int ms)
{
    struct pollfd p = { .fd = s->stop_pipe[0], .events = POLLIN };
    return poll(&p, 1, ms) == 0;
}

static bool send_all(int fd, const char *buf, size_t len)
{
    while (len) {
        ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);
        if (n <= 0) {
            if (n < 0 && errno == EINTR)
                continue;
            return false;
        }
        buf += n;
        len -= (size_t)n;
    }
    return true;
}

static const char *reason(int status)
{
    switch (status) {
    case 200: return "OK";
    case 404: return "Not Found";
    case 500: return "Internal Server Error";
    default: return "Status";
    }
}

static bool send_response(int fd, int status, const char *body, size_t len)
{
    char head[256];
    int n = snprintf(head, sizeof head,
                     "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\n"
                     "Content-Length: %zu\r\n\r\n", status, reason(status), len);
    return send_all(fd, head, (size_t)n) && send_all(fd, body, len);
}

static bool send_chunk(int fd, const char *data, size_t len)
{
    char head[32];
    int n = snprintf(head, sizeof head, "%zx\r\n", len);
    return send_all(fd, head, (size_t)n) && send_all(fd, data, len) && send_all(fd, "\r\n", 2);
}

/* The chunked stream: one chunk per line of BODY, then INJECT, then hold the
 * connection open until the stub stops (as dockerd does with /events). */
static void serve_stream(struct httpstub *s, int fd, const struct route *r)
{
    const char *head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                       "Transfer-Encoding: chunked\r\n\r\n";
    if (!send_all(fd, head, strlen(head)))
        return;
    const char *p = r->body, *end = r->body + r->len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
        if (!send_chunk(fd, p, n))
            return;
        p += n;
        if (r->delay_ms && !nap(s, r->delay_ms))
            return;
    }
    if (r->inject && !send_chunk(fd, r->inject, strlen(r->inject)))
        return;
    while (nap(s, 200)) {
    }
}

/* Read one request head into BUF; false on EOF, error or stop. */
static bool read_request(struct httpstub *s, int fd, char *buf, size_t cap)
{
    size_t got = 0;
    while (got + 1 < cap) {
        if (!wait_readable(s, fd, 10000))
            return false;
        ssize_t n = recv(fd, buf + got, cap - 1 - got, 0);
        if (n <= 0)
            return false;
        got += (size_t)n;
        buf[got] = '\0';
        if (strstr(buf, "\r\n\r\n"))
            return true;
    }
    return false;
}

static void note_auth(struct httpstub *s, const char *req)
{
    const char *a = strcasestr(req, "\r\nAuthorization: ");
    char val[512] = "";
    if (a) {
        a += 17;
        size_t n = strcspn(a, "\r\n");
        snprintf(val, sizeof val, "%.*s", (int)n, a);
    }
    pthread_mutex_lock(&s->lock);
    snprintf(s->last_auth, sizeof s->last_auth, "%s", val);
    pthread_mutex_unlock(&s->lock);
}

static void *conn_main(void *arg)
{
    struct conn *c = arg;
    struct httpstub *s = c->s;
    char req[8192];
    while (!stopping(s) && read_request(s, c->fd, req, sizeof req)) {
        char method[16], target[1024];
        if (sscanf(req, "%15s %1023s", method, target) != 2)
            break;
        target[strcspn(target, "?")] = '\0';
        note_auth(s, req);
        struct route r = { .status = 404 };
        bool found = false;
        pthread_mutex_lock(&s->lock);
        for (size_t i = 0; i < s->nroutes; i++)
            if (strcmp(s->routes[i].path, target) == 0) {
                s->routes[i].hits++;
                r = s->routes[i];   /* body pointers stay valid until stop */
                found = true;
                break;
            }
        pthread_mutex_unlock(&s->lock);
        if (!found) {
            const char *msg = "{\"message\":\"page not found\"}";
            if (!send_response(c->fd, 404, msg, strlen(msg)))
                break;
            continue;
        }
        bool ok = true;
        switch (r.mode) {
        case STUB_OK:
            ok = send_response(c->fd, r.status, r.body, r.len);
            break;
        case STUB_MALFORMED:
            ok = send_response(c->fd, r.status, r.body, r.len / 2);
            break;
        case STUB_STALL:
            while (nap(s, 200)) {
            }
            ok = false;
            break;
        case STUB_CLOSE:
            ok = false;
            break;
        case STUB_STREAM:
            serve_stream(s, c->fd, &r);
            ok = false;
            break;
        }
        if (!ok)
            break;
    }
    shutdown(c->fd, SHUT_RDWR);
    pthread_mutex_lock(&s->lock);
    c->done = true;
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

static void *accept_main(void *arg)
{
    struct httpstub *s = arg;
    while (wait_readable(s, s->lfd, -1)) {
        int fd = accept(s->lfd, NULL, NULL);
        if (fd < 0)
            continue;
        pthread_mutex_lock(&s->lock);
        struct conn *c = NULL;
        for (size_t i = 0; i < MAX_CONNS && !c; i++)
            if (!s->conns[i].used)
                c = &s->conns[i];
        for (size_t i = 0; i < MAX_CONNS && !c; i++)
            if (s->conns[i].done) {
                c = &s->conns[i];
                pthread_join(c->thread, NULL);   /* it has returned already */
                close(c->fd);
            }
        if (c) {
            c->used = true;
            c->done = false;
            c->fd = fd;
            c->s = s;
            if (pthread_create(&c->thread, NULL, conn_main, c) != 0) {
                c->used = false;
                close(fd);
            }
        } else {
            close(fd);
        }
        pthread_mutex_unlock(&s->lock);
    }
    return NULL;
}

static struct httpstub *start(int lfd)
{
    struct httpstub *s = calloc(1, sizeof *s);
    if (!s) {
        close(lfd);
        return NULL;
    }
    s->lfd = lfd;
    pthread_mutex_init(&s->lock, NULL);
    if (pipe(s->stop_pipe) < 0 || listen(lfd, 16) < 0 ||
        pthread_create(&s->acceptor, NULL, accept_main, s) != 0) {
        close(lfd);
        free(s);
        return NULL;
    }
    return s;
}

struct httpstub *httpstub_start_unix(const char *path)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    if (strlen(path) >= sizeof sa.sun_path)
        return NULL;
    strcpy(sa.sun_path, path);
    unlink(path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return NULL;
    if (bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
        close(fd);
        return NULL;
    }
    return start(fd);
}

struct httpstub *httpstub_start_tcp(int *port)
{
    struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)*port) };
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return NULL;
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    socklen_t len = sizeof sa;
    if (bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0 ||
        getsockname(fd, (struct sockaddr *)&sa, &len) < 0) {
        close(fd);
        return NULL;
    }
    *port = ntohs(sa.sin_port);
    return start(fd);
}

static struct route *route_for(struct httpstub *s, const char *path)
{
    for (size_t i = 0; i < s->nroutes; i++)
        if (strcmp(s->routes[i].path, path) == 0)
            return &s->routes[i];
    if (s->nroutes == MAX_ROUTES)
        return NULL;
    struct route *r = &s->routes[s->nroutes++];
    memset(r, 0, sizeof *r);
    snprintf(r->path, sizeof r->path, "%s", path);
    r->status = 200;
    return r;
}

void httpstub_route(struct httpstub *s, const char *path, int status, const char *body, size_t len)
{
    pthread_mutex_lock(&s->lock);
    struct route *r = route_for(s, path);
    if (r) {
        /* Old bodies are kept until stop: a connection thread may be sending one. */
        char *copy = malloc(len + 1);
        if (copy) {
            memcpy(copy, body, len);
            copy[len] = '\0';
            /* A connection thread may still be sending the old body: retire it
             * and free it at stop. */
            if (r->body && s->nretired < MAX_RETIRED)
                s->retired[s->nretired++] = r->body;
            else
                free(r->body);
            r->body = copy;
            r->len = len;
            r->status = status;
        }
    }
    pthread_mutex_unlock(&s->lock);
}

int httpstub_route_file(struct httpstub *s, const char *path, int status, const char *file)
{
    FILE *f = fopen(file, "rb");
    if (!f)
        return -1;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        fclose(f);
        return -1;
    }
    fclose(f);
    httpstub_route(s, path, status, buf, (size_t)n);
    free(buf);
    return 0;
}

void httpstub_mode(struct httpstub *s, const char *path, enum stub_mode mode)
{
    pthread_mutex_lock(&s->lock);
    struct route *r = route_for(s, path);
    if (r)
        r->mode = mode;
    pthread_mutex_unlock(&s->lock);
}

void httpstub_stream(struct httpstub *s, const char *path, int line_delay_ms, const char *inject)
{
    pthread_mutex_lock(&s->lock);
    struct route *r = route_for(s, path);
    if (r) {
        r->mode = STUB_STREAM;
        r->delay_ms = line_delay_ms;
        free(r->inject);
        r->inject = inject ? strdup(inject) : NULL;
    }
    pthread_mutex_unlock(&s->lock);
}

unsigned httpstub_hits(struct httpstub *s, const char *path)
{
    pthread_mutex_lock(&s->lock);
    unsigned n = 0;
    for (size_t i = 0; i < s->nroutes; i++)
        if (strcmp(s->routes[i].path, path) == 0)
            n = s->routes[i].hits;
    pthread_mutex_unlock(&s->lock);
    return n;
}

void httpstub_last_auth(struct httpstub *s, char *buf, size_t cap)
{
    pthread_mutex_lock(&s->lock);
    snprintf(buf, cap, "%s", s->last_auth);
    pthread_mutex_unlock(&s->lock);
}

void httpstub_stop(struct httpstub *s)
{
    if (!s)
        return;
    pthread_mutex_lock(&s->lock);
    s->stopping = true;
    pthread_mutex_unlock(&s->lock);
    if (write(s->stop_pipe[1], "x", 1) != 1) {
        /* the pipe is empty and ours: cannot fail */
    }
    pthread_join(s->acceptor, NULL);
    close(s->lfd);
    for (size_t i = 0; i < MAX_CONNS; i++) {
        if (!s->conns[i].used)
            continue;
        shutdown(s->conns[i].fd, SHUT_RDWR);
        pthread_join(s->conns[i].thread, NULL);
        close(s->conns[i].fd);
    }
    for (size_t i = 0; i < s->nroutes; i++) {
        free(s->routes[i].body);
        free(s->routes[i].inject);
    }
    for (size_t i = 0; i < s->nretired; i++)
        free(s->retired[i]);
    close(s->stop_pipe[0]);
    close(s->stop_pipe[1]);
    pthread_mutex_destroy(&s->lock);
    free(s);
}
