/* util/fileio.h -- small, bounded, non-blocking reads of sysfs/procfs style files.
 *
 * Every collector reads its sources through these helpers so that the same rules
 * hold everywhere: a path is always built under a configurable root, a read never
 * blocks on a FIFO or device node (O_NONBLOCK), and a file larger than the
 * caller's bound is an error rather than a silent truncation. */
#ifndef PNA_FILEIO_H
#define PNA_FILEIO_H

#include <stddef.h>
#include <stdint.h>

/* Join ROOT and a printf-formatted relative path into BUF.  A ROOT of "/" or ""
 * adds nothing.  Returns 0, or -ENAMETOOLONG when BUF is too small. */
int pna_path(char *buf, size_t cap, const char *root, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Read a small text file into BUF (NUL-terminated) with trailing whitespace
 * removed.  Returns the length, -EFBIG when the file does not fit in CAP-1
 * bytes, -EAGAIN when it would block (a FIFO without data), or -errno. */
int pna_read_text(const char *path, char *buf, size_t cap);

/* Read a file that holds one unsigned decimal (or 0x-prefixed hex) number.
 * Returns 0, -EINVAL when the content is not a number (for example
 * "N/A (no PMA)"), -ERANGE on overflow, or the error of pna_read_text(). */
int pna_read_u64(const char *path, uint64_t *out);

/* Parse TEXT as an unsigned number the same way (leading/trailing blanks
 * allowed).  Returns 0, -EINVAL or -ERANGE. */
int pna_parse_u64(const char *text, uint64_t *out);

/* Read a whole file of at most MAX bytes into a malloc'd, NUL-terminated buffer.
 * Returns 0 and sets *OUT (caller frees) and *LEN, or -EFBIG / -errno. */
int pna_read_alloc(const char *path, size_t max, char **out, size_t *len);

/* Copy SRC into DST of CAP bytes, always NUL-terminating; returns strlen(dst). */
size_t pna_strlcpy(char *dst, const char *src, size_t cap);

#endif
