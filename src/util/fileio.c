/* util/fileio.c -- bounded, non-blocking reads of small kernel files (see
 * fileio.h). */
#include "pna_autoconf.h"
#include "util/fileio.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int pna_path(char *buf, size_t cap, const char *root, const char *fmt, ...)
{
    size_t used = 0;
    if (root && root[0] && !(root[0] == '/' && root[1] == '\0')) {
        used = strlen(root);
        while (used > 1 && root[used - 1] == '/')
            used--;
        if (used >= cap)
            return -ENAMETOOLONG;
        memcpy(buf, root, used);
    }
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + used, cap - used, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= cap - used)
        return -ENAMETOOLONG;
    return 0;
}

/* O_NONBLOCK: a FIFO (or a misbehaving device node) planted where a sysfs file
 * is expected returns EAGAIN or EOF instead of hanging the poller. */
static int open_source(const char *path)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    return fd < 0 ? -errno : fd;
}

/* Read until EOF or until CAP bytes are in; returns bytes read, or -errno.
 * Reading one byte past the caller's bound tells "too big" from "exactly full". */
static ssize_t read_all(int fd, char *buf, size_t cap)
{
    size_t got = 0;
    while (got < cap) {
        ssize_t n = read(fd, buf + got, cap - got);
        if (n == 0)
            break;
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        got += (size_t)n;
    }
    return (ssize_t)got;
}

static size_t trim_trailing(char *s, size_t len)
{
    while (len > 0 && isspace((unsigned char)s[len - 1]))
        len--;
    s[len] = '\0';
    return len;
}

/* One read() at the file position (AT < 0), or pread() at offset AT,
 * restarted after a signal: the bytes read, or -errno. */
static ssize_t read_once(int fd, char *buf, size_t cap, off_t at)
{
    ssize_t n;
    do
        n = at < 0 ? read(fd, buf, cap) : pread(fd, buf, cap, at);
    while (n < 0 && errno == EINTR);
    return n < 0 ? -errno : n;
}

/* A full buffer is fine when all that is left is the trailing newline (or
 * other blanks); anything else means the file is bigger than the caller
 * allows.  What is left is read on from the file position (AT < 0), or from
 * offset AT (the position stays). */
static bool only_blanks_follow(int fd, off_t at)
{
    char rest[64];
    ssize_t n = at < 0 ? read_all(fd, rest, sizeof rest) : read_once(fd, rest, sizeof rest, at);
    if (n < 0 || n == (ssize_t)sizeof rest)
        return false;
    for (ssize_t i = 0; i < n; i++)
        if (!isspace((unsigned char)rest[i]))
            return false;
    return true;
}

/* The text in BUF (CAP bytes) of the N bytes just read from FD (N < 0:
 * -errno), read at the file position (AT < 0) or from offset AT: its
 * length, trailing blanks removed; -EFBIG when more than blanks follows a
 * full buffer; or N's error. */
static int text_read(int fd, char *buf, size_t cap, ssize_t n, off_t at)
{
    if (n == (ssize_t)(cap - 1) && !only_blanks_follow(fd, at < 0 ? -1 : at + n))
        n = -EFBIG;
    if (n < 0) {
        buf[0] = '\0';
        return (int)n;
    }
    return (int)trim_trailing(buf, (size_t)n);
}

/* Read the file open on FD into BUF (see pna_read_text); closes FD.  ONE_READ:
 * the file comes whole in one read() (pna_read_attr_at), so a short read is
 * its end. */
static int read_text_fd(int fd, char *buf, size_t cap, bool one_read)
{
    if (fd < 0) {
        buf[0] = '\0';
        return fd;
    }
    ssize_t n = one_read ? read_once(fd, buf, cap - 1, -1) : read_all(fd, buf, cap - 1);
    int rc = text_read(fd, buf, cap, n, -1);
    close(fd);
    return rc;
}

int pna_read_text(const char *path, char *buf, size_t cap)
{
    if (cap < 2)
        return -EINVAL;
    return read_text_fd(open_source(path), buf, cap, false);
}

int pna_read_attr_fd(int fd, char *buf, size_t cap)
{
    if (cap < 2)
        return -EINVAL;
    return text_read(fd, buf, cap, read_once(fd, buf, cap - 1, 0), 0);
}

int pna_open_attr_at(int dirfd, const char *name)
{
    int fd = openat(dirfd, name, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    return fd < 0 ? -errno : fd;
}

static int read_text_at(int dirfd, const char *name, char *buf, size_t cap, bool one_read)
{
    if (cap < 2)
        return -EINVAL;
    return read_text_fd(pna_open_attr_at(dirfd, name), buf, cap, one_read);
}

int pna_read_text_at(int dirfd, const char *name, char *buf, size_t cap)
{
    return read_text_at(dirfd, name, buf, cap, false);
}

/* ---- numbers ---------------------------------------------------------------
 * Written out rather than strtoull(): strtoull with base 0 reads "010" as 8
 * and "0x10" as 16, and with any base it takes a sign ("-1" is 2^64 - 1) and
 * leading blanks of its own.  Here the base is the caller's word, digits are
 * ASCII whatever the locale, and nothing else is accepted. */

static int digit_value(char c, unsigned base)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (base == 16 && c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (base == 16 && c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* The digits at S in BASE into *OUT, *END just past them.  -EINVAL when
 * there is no digit, -ERANGE when the value does not fit 64 bits. */
static int parse_digits(const char *s, unsigned base, const char **end, uint64_t *out)
{
    /* v * base + d overflows exactly when v is past UINT64_MAX / base, or at
     * it with d past UINT64_MAX % base: two divisions a number, not one a
     * digit (a containers poll parses four numbers in every container). */
    const uint64_t max_v = UINT64_MAX / base, max_d = UINT64_MAX % base;
    uint64_t v = 0;
    const char *p = s;
    for (int d; (d = digit_value(*p, base)) >= 0; p++) {
        if (v > max_v || (v == max_v && (uint64_t)d > max_d))
            return -ERANGE;
        v = v * base + (uint64_t)d;
    }
    if (p == s)
        return -EINVAL;
    *end = p;
    *out = v;
    return 0;
}

static const char *skip_blanks(const char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    return s;
}

/* One number in BASE, blanks around it allowed, nothing else. */
static int parse_whole(const char *text, unsigned base, uint64_t *out)
{
    const char *p = skip_blanks(text), *end;
    if (base == 16 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X') && digit_value(p[2], 16) >= 0)
        p += 2;
    uint64_t v;
    int rc = parse_digits(p, base, &end, &v);
    if (rc < 0)
        return rc;
    if (*skip_blanks(end) != '\0')
        return -EINVAL;
    *out = v;
    return 0;
}

int pna_parse_u64(const char *text, uint64_t *out)
{
    return parse_whole(text, 10, out);
}

int pna_parse_hex_u64(const char *text, uint64_t *out)
{
    return parse_whole(text, 16, out);
}

int pna_scan_u64(const char **p, uint64_t *out)
{
    const char *s = *p, *end;
    while (*s == ' ' || *s == '\t')
        s++;
    uint64_t v;
    int rc = parse_digits(s, 10, &end, &v);
    if (rc < 0)
        return rc;
    if (*end != '\0' && !isspace((unsigned char)*end))
        return -EINVAL;
    *out = v;
    *p = end;
    return 0;
}

static int read_number(const char *path, unsigned base, uint64_t *out)
{
    char buf[64];
    int n = pna_read_text(path, buf, sizeof buf);
    if (n < 0)
        return n;
    return parse_whole(buf, base, out);
}

int pna_read_u64(const char *path, uint64_t *out)
{
    return read_number(path, 10, out);
}

int pna_read_attr_at(int dirfd, const char *name, char *buf, size_t cap)
{
    return read_text_at(dirfd, name, buf, cap, true);
}

int pna_read_attr_u64_at(int dirfd, const char *name, uint64_t *out)
{
    char buf[64];
    int n = pna_read_attr_at(dirfd, name, buf, sizeof buf);
    if (n < 0)
        return n;
    return parse_whole(buf, 10, out);
}

int pna_read_hex_u64(const char *path, uint64_t *out)
{
    return read_number(path, 16, out);
}

int pna_read_alloc(const char *path, size_t max, char **out, size_t *len)
{
    int fd = open_source(path);
    if (fd < 0)
        return fd;
    struct stat st;
    size_t cap = 4096;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
        cap = (size_t)st.st_size + 1;
    if (cap > max + 1)
        cap = max + 1;
    char *buf = malloc(cap + 1);
    if (!buf) {
        close(fd);
        return -ENOMEM;
    }
    size_t got = 0;
    int err = 0;
    for (;;) {
        ssize_t n = read_all(fd, buf + got, cap - got);
        if (n < 0) {
            err = (int)n;
            break;
        }
        got += (size_t)n;
        if (got < cap)
            break;
        if (got > max) {
            err = -EFBIG;
            break;
        }
        /* Not util/array.h: this buffer is bounded by MAX (a file over it is an
         * error, not a bigger buffer) and keeps a byte for the NUL. */
        size_t ncap = cap * 2 > max + 1 ? max + 1 : cap * 2;
        char *nbuf = realloc(buf, ncap + 1);
        if (!nbuf) {
            err = -ENOMEM;
            break;
        }
        buf = nbuf;
        cap = ncap;
    }
    close(fd);
    if (err) {
        free(buf);
        return err;
    }
    buf[got] = '\0';
    *out = buf;
    if (len)
        *len = got;
    return 0;
}

size_t pna_strlcpy(char *dst, const char *src, size_t cap)
{
    size_t n = strlen(src);
    if (cap == 0)
        return n;
    size_t c = n < cap - 1 ? n : cap - 1;
    memcpy(dst, src, c);
    dst[c] = '\0';
    return c;
}
