/* util/rfc3339.h -- RFC 3339 time stamps ("2018-06-14T05:48:53.266176036Z",
 * offsets allowed) to epoch milliseconds.  Pure; used for Docker's
 * State.StartedAt. */
#ifndef PNA_UTIL_RFC3339_H
#define PNA_UTIL_RFC3339_H

#include <stdint.h>

/* RFC 3339 time to epoch ms (fraction beyond milliseconds dropped); 0 for
 * Docker's zero time "0001-01-01T00:00:00Z"; -1 when malformed or NULL. */
int64_t pna_parse_rfc3339_ms(const char *s);

#endif
