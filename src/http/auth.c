/* http/auth.c -- HTTP basic auth for the bridge: the credentials file, and
 * the check of an Authorization header against it in constant time per entry
 * (see auth.h). */
#include "pna_autoconf.h"
#include "http/auth.h"
#include "util/array.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int b64_value(unsigned char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+')
        return 62;
    if (c == '/')
        return 63;
    return -1;
}

long pna_base64_decode(const char *in, char *out, size_t cap)
{
    size_t n = 0;
    uint32_t acc = 0;
    int bits = 0;
    const char *p = in;
    for (; *p && *p != '='; p++) {
        int v = b64_value((unsigned char)*p);
        if (v < 0)
            return -1;
        acc = (acc << 6) | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            if (n + 1 >= cap)
                return -1;
            out[n++] = (char)((acc >> bits) & 0xff);
        }
    }
    /* Only padding may follow, and a lone trailing 6-bit group is malformed. */
    for (; *p == '='; p++)
        ;
    if (*p || bits >= 6)
        return -1;
    out[n] = '\0';
    return (long)n;
}

void pna_http_auth_free(struct pna_http_auth *auth)
{
    for (size_t i = 0; i < auth->count; i++) {
        /* Credentials: wipe before freeing. */
        memset(auth->entries[i], 0, auth->lens[i]);
        free(auth->entries[i]);
    }
    free(auth->entries);
    free(auth->lens);
    memset(auth, 0, sizeof *auth);
}

static int auth_add(struct pna_http_auth *auth, const char *line, size_t len)
{
    if (PNA_ARRAY_RESERVE(auth->entries, auth->entries_cap, auth->count + 1) != 0 ||
        PNA_ARRAY_RESERVE(auth->lens, auth->lens_cap, auth->count + 1) != 0)
        return -1;
    char *copy = malloc(len + 1);
    if (!copy)
        return -1;
    memcpy(copy, line, len);
    copy[len] = '\0';
    auth->entries[auth->count] = copy;
    auth->lens[auth->count] = len;
    auth->count++;
    return 0;
}

int pna_http_auth_load(const char *path, struct pna_http_auth *auth, char *err, size_t errlen)
{
    memset(auth, 0, sizeof *auth);
    FILE *f = fopen(path, "re");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    unsigned lineno = 0;
    int rc = 0;
    while ((n = getline(&line, &cap, f)) >= 0) {
        lineno++;
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
            line[--n] = '\0';
        if (n == 0 || line[0] == '#')
            continue;
        const char *colon = strchr(line, ':');
        if (!colon || colon == line) {
            snprintf(err, errlen, "%s:%u: expected user:password", path, lineno);
            rc = -1;
            break;
        }
        if (auth_add(auth, line, (size_t)n) != 0) {
            snprintf(err, errlen, "%s: out of memory", path);
            rc = -1;
            break;
        }
    }
    if (line) {
        memset(line, 0, cap);
        free(line);
    }
    fclose(f);
    if (rc == 0 && auth->count == 0) {
        snprintf(err, errlen, "%s: no user:password line", path);
        rc = -1;
    }
    if (rc != 0)
        pna_http_auth_free(auth);
    return rc;
}

/* Equal, in time that depends on STORED_LEN only. */
static bool equal_ct(const char *stored, size_t stored_len, const char *given, size_t given_len)
{
    unsigned char diff = stored_len != given_len;
    for (size_t i = 0; i < stored_len; i++)
        diff |= (unsigned char)stored[i] ^ (unsigned char)(i < given_len ? given[i] : 0);
    return diff == 0;
}

bool pna_http_auth_check(const struct pna_http_auth *auth, const char *header)
{
    if (!header)
        return false;
    while (*header == ' ')
        header++;
    if (strncasecmp(header, "Basic ", 6) != 0)
        return false;
    header += 6;
    while (*header == ' ')
        header++;
    char given[1024];
    long len = pna_base64_decode(header, given, sizeof given);
    if (len < 0)
        return false;
    bool ok = false;
    for (size_t i = 0; i < auth->count; i++)
        ok |= equal_ct(auth->entries[i], auth->lens[i], given, (size_t)len);
    memset(given, 0, sizeof given);
    return ok;
}
