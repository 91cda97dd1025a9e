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

/* Read a file that holds one unsigned decimal number.  Kernel and cgroup files
 * print counters and sizes in decimal: "010" is ten and "0x10" is not a number
 * (a reader that took C literals would serve them as 8 and 16).  Returns 0,
 * -EINVAL when the content is not a decimal number (for example
 * "N/A (no PMA)"), -ERANGE on overflow, or the error of pna_read_text(). */
int pna_read_u64(const char *path, uint64_t *out);

/* Parse TEXT as one unsigned decimal number the same way: digits only, blanks
 * around them allowed, no sign, no base prefix.  Returns 0, -EINVAL or -ERANGE. */
int pna_parse_u64(const char *text, uint64_t *out);

/* The few sysfs files that print in hex (the InfiniBand port's lid and sm_lid,
 * "0x1a7"): hex digits with an optional 0x/0X prefix, blanks around them
 * allowed.  Same returns as pna_parse_u64() / pna_read_u64(). */
int pna_parse_hex_u64(const char *text, uint64_t *out);
int pna_read_hex_u64(const char *path, uint64_t *out);

/* One decimal field of a line with several ("cpu  4705 150 1120 ..." in
 * /proc/stat, "MemTotal:   16314340 kB"): skips blanks (not newlines) at *P,
 * reads the digits, which must end at a blank, a newline or the end of the
 * text ("12kB", "0x10", "-5" and "1.5" are not numbers), and moves *P past
 * them.  Returns 0, -EINVAL (*P unchanged) or -ERANGE. */
int pna_scan_u64(const char **p, uint64_t *out);

/* pna_read_text() for the file NAME in the open directory DIRFD: reading
 * through the directory's descriptor ties what is read to that directory, and
 * not to whichever one holds its path by the time the file is opened. */
int pna_read_text_at(int dirfd, const char *name, char *buf, size_t cap);
/* pna_read_text_at() for a kernel attribute: a cgroupfs or sysfs file the
 * kernel writes in one piece (one seq_file record, or a sysfs show), or a
 * regular file.  One read() gives such a file whole when the buffer has
 * room, so a shorter read is its end and no second read() is made to see
 * EOF.  Not for procfs or debugfs lists, which come a page at a time. */
int pna_read_attr_at(int dirfd, const char *name, char *buf, size_t cap);

/* The file NAME in directory DIRFD opened for reading as the readers above
 * open their files (O_NONBLOCK, close-on-exec): the descriptor, or -errno. */
int pna_open_attr_at(int dirfd, const char *name);

/* pna_read_attr_at() of the file open on FD, read from its start (pread at
 * offset 0) and left open.  A kernel attribute is made anew by each read
 * from offset 0, so a descriptor kept open reads what a fresh open would
 * (util/held_files.h). */
int pna_read_attr_fd(int fd, char *buf, size_t cap);

/* pna_read_attr_at() of a decimal number, as pna_read_u64(). */
int pna_read_attr_u64_at(int dirfd, const char *name, uint64_t *out);

/* Read a whole file of at most MAX bytes into a malloc'd, NUL-terminated buffer.
 * Returns 0 and sets *OUT (caller frees) and *LEN, or -EFBIG / -errno. */
int pna_read_alloc(const char *path, size_t max, char **out, size_t *len);

/* Copy SRC into DST of CAP bytes, always NUL-terminating; returns strlen(dst). */
size_t pna_strlcpy(char *dst, const char *src, size_t cap);

#endif
