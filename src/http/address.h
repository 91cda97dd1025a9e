/* http/address.h -- the HTTP bridge's listen address (--http ADDRESS,
 * httpAddress) parsed into a socket address. */
#ifndef PNA_HTTP_ADDRESS_H
#define PNA_HTTP_ADDRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

/* Parse ADDRESS: "127.0.0.1:9101", "[::1]:9101", "host:9101", or ":9101" for
 * every address (IPv6 and IPv4 where the system has both).  *ANY is set for the
 * last form.  Returns 0, or -1 with ERR. */
int pna_http_parse_addr(const char *address, struct sockaddr_storage *ss, socklen_t *len,
                        bool *any, char *err, size_t errlen);

#endif
