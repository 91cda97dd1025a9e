/* http/auth.h -- HTTP basic auth for the bridge (httpBasicAuthFile): the
 * credentials file and the check of a request's Authorization header. */
#ifndef PNA_HTTP_AUTH_H
#define PNA_HTTP_AUTH_H

#include <stdbool.h>
#include <stddef.h>

/* HTTP basic-auth credentials: a file of "user:password" lines ('#' comments and
 * blank lines ignored; the password is everything after the first ':'). */
struct pna_http_auth {
    char **entries;     /* "user:password" */
    size_t *lens;
    size_t count;
    size_t entries_cap, lens_cap;   /* room in each array */
};

int pna_http_auth_load(const char *path, struct pna_http_auth *auth, char *err, size_t errlen);
void pna_http_auth_free(struct pna_http_auth *auth);

/* Does the Authorization header value HEADER ("Basic base64(user:password)")
 * match an entry?  Every entry is compared, each in time that depends on the
 * stored entry's length only, never on where the first difference is. */
bool pna_http_auth_check(const struct pna_http_auth *auth, const char *header);

/* Standard base64 (RFC 4648, padding optional); returns the decoded length or
 * -1 when IN is not base64 or does not fit OUT (CAP includes the NUL). */
long pna_base64_decode(const char *in, char *out, size_t cap);

#endif
