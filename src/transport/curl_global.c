/* transport/curl_global.c -- see curl_global.h. */
#include "pna_autoconf.h"
#include "transport/curl_global.h"

#include <curl/curl.h>
#include <pthread.h>

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static CURLcode curl_init_rc;

static void global_init(void)
{
    curl_init_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

bool pna_curl_global_init(void)
{
    pthread_once(&curl_once, global_init);
    return curl_init_rc == CURLE_OK;
}
