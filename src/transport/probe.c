/* transport/probe.c -- one GET for a container's health check (see probe.h). */
#include "pna_autoconf.h"
#include "transport/probe.h"

#include "transport/http_client.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Enough for /healthz, /ready and any JSON endpoint; the body is discarded. */
#define PROBE_MAX_BODY (16u << 20)

static int is_http_url(const char *url)
{
    return strncmp(url, "http://", 7) == 0 || strncmp(url, "https://", 8) == 0;
}

int pna_probe(const char *url, char *err, size_t errlen)
{
    if (!is_http_url(url)) {
        snprintf(err, errlen, "%s: not an http:// or https:// URL", url);
        return -1;
    }
    struct pna_hclient *c = pna_hclient_new();
    if (!c) {
        snprintf(err, errlen, "%s: cannot set up libcurl", url);
        return -1;
    }
    /* The whole URL as the base and an empty path: the client's error line
     * then names the path, "", as ": HTTP 503"; the URL goes before it. */
    struct pna_hclient_target t = { .base_url = url, .timeout_ms = PNA_PROBE_TIMEOUT_MS,
                                    .connect_timeout_ms = PNA_PROBE_TIMEOUT_MS };
    char why[512];
    char *body = NULL;
    int rc = pna_hclient_get(c, &t, "", PROBE_MAX_BODY, &body, NULL, NULL, why, sizeof why);
    free(body);
    pna_hclient_free(c);
    if (rc != 0)
        snprintf(err, errlen, "%s%s%s", url, why[0] == ':' ? "" : ": ", why);
    return rc;
}
