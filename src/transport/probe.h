/* transport/probe.h -- `primus-node-agent --probe URL`: one GET of a URL, for
 * a container's HEALTHCHECK in an image that has no curl or wget.  It uses the
 * HTTP client of the Docker and kubelet sources (system CAs for https) and
 * starts nothing else: no poller, no listening socket, no config file. */
#ifndef PNA_TRANSPORT_PROBE_H
#define PNA_TRANSPORT_PROBE_H

#include <stddef.h>

/* The whole request, connection included, must finish within this. */
#define PNA_PROBE_TIMEOUT_MS 5000u

/* GET URL (http:// or https://).  Returns 0 on a 2xx answer; otherwise -1
 * with one line in ERR that starts with the URL ("URL: HTTP 503",
 * "URL: Failed to connect to ...", "URL: timed out after 5000 ms"). */
int pna_probe(const char *url, char *err, size_t errlen);

#endif
