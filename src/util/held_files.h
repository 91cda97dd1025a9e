/* util/held_files.h -- the files of one directory kept open from one poll to
 * the next and read again from their start.
 *
 * Opening and closing a file costs more than reading it: a path walked, a
 * file structure made and freed, on cgroupfs an open-file record and a read
 * buffer allocated and released, each time.  A kernel attribute (a cgroupfs
 * or sysfs file) read from offset 0 is made anew (seq_file starts again at
 * its first record), so a descriptor kept open reads at each poll what a
 * fresh open would; a regular file read from offset 0 gives its content of
 * now.
 *
 * The files stay open while the directory stays the one they were opened
 * in: the same identity at its path (util/file_id.h), and that identity
 * settled when they were opened.  Another directory at the path (a cgroup
 * removed and made again), or a file added, removed or replaced in it (its
 * modification and change times move), and they are opened again.  A file
 * removed between that look and the read (on kernfs: the cgroup removed)
 * reads as an error (-ENODEV on kernfs), and the next poll opens again.
 *
 * Kept descriptors are numbered from PNA_HELD_FD_FLOOR (FD_SETSIZE) up, so
 * that thousands of them leave the numbers below free for the sockets the
 * agent and its libraries open: code that waits with select() cannot take a
 * higher one.  (The agent's own loop uses net-snmp's large fd sets and its
 * HTTP server epoll; this keeps any library that does not from breaking, for
 * one fcntl() when a file is opened.)  Where no number that high can be had
 * (RLIMIT_NOFILE), the files are opened for the poll and closed after it, as
 * if keeping them had not been asked.
 *
 * What keeping costs: one descriptor per file, and the kernel's memory for
 * an open file, on cgroupfs about 4.5 KiB once read (the seq_file buffer
 * stays allocated while the file is open), charged to the reader's memory
 * cgroup.
 *
 * A struct pna_held_dir is used by one thread at a time. */
#ifndef PNA_UTIL_HELD_FILES_H
#define PNA_UTIL_HELD_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/select.h>

#include "util/file_id.h"

#define PNA_HELD_FD_FLOOR FD_SETSIZE
#define PNA_HELD_FILES_MAX 5

struct pna_held_dir {
    struct pna_file_id id;       /* the directory when its files were opened */
    bool open;                   /* fd[] are its files (or the errors opening them) */
    bool settled;                /* ID was settled then: the same ID again, the same files */
    bool kept;                   /* fd[] stay open after pna_held_dir_done() */
    uint8_t count;               /* entries of fd[] in use */
    int fd[PNA_HELD_FILES_MAX];  /* the file open, or the -errno its open gave */
};

/* FD moved to the lowest free number from PNA_HELD_FD_FLOOR up (FD closed),
 * for any descriptor kept for long (held files, the OOM watch's eventfds);
 * -1, FD left as it is, when no number that high is free (RLIMIT_NOFILE). */
int pna_fd_renumber_high(int fd);

/* H holds nothing. */
void pna_held_dir_init(struct pna_held_dir *h);

/* Make H hold the files NAMES[0..N-1] (N at most PNA_HELD_FILES_MAX; the
 * same names, in the same order, at every call for one H) of directory DIR
 * (relative to the directory open on AT, or AT_FDCWD), open: the ones it
 * holds when DIR is still the directory they were opened in, else opened
 * now, through the directory's descriptor, so that all of them belong to one
 * directory.  KEEP: keep them open after pna_held_dir_done() if descriptors
 * from PNA_HELD_FD_FLOOR up can be had.  Returns 0 (a file that could not be
 * opened reads as the error its open gave), or -errno when DIR cannot be
 * opened (-ENOENT: not there), and then H holds nothing. */
int pna_held_dir_open(struct pna_held_dir *h, int at, const char *dir, const char *const *names,
                      size_t n, bool keep);

/* The text of file I, as pna_read_attr_at() (util/fileio.h) gives it.  An
 * error from a kept file has the next pna_held_dir_open() open it again. */
int pna_held_dir_read(struct pna_held_dir *h, size_t i, char *buf, size_t cap);

/* This poll's reads are done: close the files unless they are kept. */
void pna_held_dir_done(struct pna_held_dir *h);

/* Close whatever H holds; it holds nothing after. */
void pna_held_dir_close(struct pna_held_dir *h);

/* Raise this process's soft RLIMIT_NOFILE, as far as its hard limit allows,
 * so that FDS descriptors can be kept from PNA_HELD_FD_FLOOR up.  Returns how
 * many can be (0 when the hard limit leaves none above the floor); *BEFORE
 * and *AFTER (may be NULL) get the soft limit as it was and as it is. */
size_t pna_held_files_reserve(size_t fds, uint64_t *before, uint64_t *after);

#endif
