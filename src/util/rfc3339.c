/* util/rfc3339.c -- RFC 3339 times as Docker's Engine API writes them, to
 * epoch milliseconds (see rfc3339.h). */
#include "pna_autoconf.h"
#include "util/rfc3339.h"

#include <ctype.h>
#include <stddef.h>
#include <time.h>

static int digits(const char **p, int n)
{
    int v = 0;
    for (int i = 0; i < n; i++, (*p)++) {
        if (!isdigit((unsigned char)**p))
            return -1;
        v = v * 10 + (**p - '0');
    }
    return v;
}

int64_t pna_parse_rfc3339_ms(const char *s)
{
    if (!s)
        return -1;
    const char *p = s;
    int Y = digits(&p, 4);
    if (Y < 0 || *p++ != '-')
        return -1;
    int M = digits(&p, 2);
    if (M < 1 || M > 12 || *p++ != '-')
        return -1;
    int D = digits(&p, 2);
    if (D < 1 || D > 31 || (*p != 'T' && *p != 't' && *p != ' '))
        return -1;
    p++;
    int h = digits(&p, 2);
    if (h < 0 || h > 23 || *p++ != ':')
        return -1;
    int m = digits(&p, 2);
    if (m < 0 || m > 59 || *p++ != ':')
        return -1;
    int sec = digits(&p, 2);
    if (sec < 0 || sec > 60)
        return -1;
    int ms = 0;
    if (*p == '.') {
        p++;
        int n = 0;
        while (isdigit((unsigned char)*p)) {
            if (n < 3)
                ms = ms * 10 + (*p - '0');
            n++;
            p++;
        }
        if (n == 0)
            return -1;
        for (; n < 3; n++)
            ms *= 10;
    }
    int off_min = 0;
    if (*p == 'Z' || *p == 'z') {
        p++;
    } else if (*p == '+' || *p == '-') {
        int sign = *p++ == '-' ? -1 : 1;
        int oh = digits(&p, 2);
        if (oh < 0 || *p++ != ':')
            return -1;
        int om = digits(&p, 2);
        if (om < 0)
            return -1;
        off_min = sign * (oh * 60 + om);
    } else {
        return -1;
    }
    if (*p)
        return -1;
    if (Y <= 1)
        return 0;   /* Go's zero time: never started */
    struct tm tm = { .tm_year = Y - 1900, .tm_mon = M - 1, .tm_mday = D,
                     .tm_hour = h, .tm_min = m, .tm_sec = sec };
    time_t t = timegm(&tm);
    return ((int64_t)t - (int64_t)off_min * 60) * 1000 + ms;
}

