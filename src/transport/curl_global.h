/* transport/curl_global.h -- libcurl's process-wide set-up, done once.
 *
 * curl_global_init() must not run in two threads at once.  The HTTP client
 * and the gRPC client are created on different poller threads, so both go
 * through this one pthread_once rather than each keeping its own. */
#ifndef PNA_TRANSPORT_CURL_GLOBAL_H
#define PNA_TRANSPORT_CURL_GLOBAL_H

#include <stdbool.h>

/* Initialise libcurl on the first call; true when it is usable. */
bool pna_curl_global_init(void);

#endif
