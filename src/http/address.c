/* http/address.c -- the bridge's listen address: "HOST:PORT", "[IPv6]:PORT"
 * or ":PORT" to a socket address (see address.h). */
#include "pna_autoconf.h"
#include "http/address.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int parse_port(const char *text, unsigned short *port, char *err, size_t errlen)
{
    char *end;
    errno = 0;
    unsigned long p = strtoul(text, &end, 10);
    if (!text[0] || *end || errno || p == 0 || p > 65535) {
        snprintf(err, errlen, "bad port '%s' (1-65535)", text);
        return -1;
    }
    *port = (unsigned short)p;
    return 0;
}

int pna_http_parse_addr(const char *address, struct sockaddr_storage *ss, socklen_t *len,
                        bool *any, char *err, size_t errlen)
{
    char host[256];
    const char *port_text;
    unsigned short port;
    memset(ss, 0, sizeof *ss);
    *any = false;
    if (!address || !address[0]) {
        snprintf(err, errlen, "empty HTTP address");
        return -1;
    }
    if (address[0] == '[') {
        const char *close = strchr(address, ']');
        if (!close || close[1] != ':' || (size_t)(close - address - 1) >= sizeof host) {
            snprintf(err, errlen, "bad HTTP address '%s' (expected [IPv6]:PORT)", address);
            return -1;
        }
        snprintf(host, sizeof host, "%.*s", (int)(close - address - 1), address + 1);
        port_text = close + 2;
    } else {
        const char *colon = strrchr(address, ':');
        if (!colon || strchr(address, ':') != colon || (size_t)(colon - address) >= sizeof host) {
            snprintf(err, errlen, "bad HTTP address '%s' (expected HOST:PORT, [IPv6]:PORT or :PORT)",
                     address);
            return -1;
        }
        snprintf(host, sizeof host, "%.*s", (int)(colon - address), address);
        port_text = colon + 1;
    }
    if (parse_port(port_text, &port, err, errlen) != 0)
        return -1;

    if (!host[0]) {
        /* ":PORT": every address.  IPv6 "any" with dual stack; the caller falls
         * back to IPv4 where the system has no IPv6. */
        struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
        s6->sin6_family = AF_INET6;
        s6->sin6_addr = in6addr_any;
        s6->sin6_port = htons(port);
        *len = sizeof *s6;
        *any = true;
        return 0;
    }
    struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
    struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
    if (inet_pton(AF_INET, host, &s4->sin_addr) == 1) {
        s4->sin_family = AF_INET;
        s4->sin_port = htons(port);
        *len = sizeof *s4;
        return 0;
    }
    if (inet_pton(AF_INET6, host, &s6->sin6_addr) == 1) {
        s6->sin6_family = AF_INET6;
        s6->sin6_port = htons(port);
        *len = sizeof *s6;
        return 0;
    }
    /* A host name ("localhost"): its first address. */
    struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *res = NULL;
    int rc = getaddrinfo(host, NULL, &hints, &res);
    if (rc != 0 || !res) {
        snprintf(err, errlen, "cannot resolve HTTP address '%s': %s", host, gai_strerror(rc));
        return -1;
    }
    memcpy(ss, res->ai_addr, res->ai_addrlen);
    *len = res->ai_addrlen;
    if (ss->ss_family == AF_INET)
        s4->sin_port = htons(port);
    else
        s6->sin6_port = htons(port);
    freeaddrinfo(res);
    return 0;
}
