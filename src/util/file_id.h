/* util/file_id.h -- what tells a file (or directory) from its next version:
 * the identity a cache compares to know whether what it read from a path is
 * still what the path holds.
 *
 * The identity is the device, inode, size, and modification and change
 * times.  A file rewritten within one tick of its file system's clock, at the
 * same size, keeps that identity; so an identity is trusted only once the
 * file has been left alone for PNA_FILE_RACY_MS ("settled"), and a cache
 * reads again at the next poll what it read while the file was younger than
 * that (git's "racily clean" entries have the same cure). */
#ifndef PNA_UTIL_FILE_ID_H
#define PNA_UTIL_FILE_ID_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#define PNA_FILE_RACY_MS 2000

/* The identity of a file as caches compare it; all zero: not there. */
struct pna_file_id {
    uint64_t dev, ino, size;
    int64_t mtime_ns, ctime_ns;
};

/* The identity of the file at NAME relative to directory DIRFD (AT_FDCWD:
 * the working directory, or NAME absolute): 0, or a negative errno
 * (-ENOENT: not there) with *ID zeroed. */
int pna_file_identity_at(int dirfd, const char *name, struct pna_file_id *id);

/* The identity of what ST describes. */
void pna_file_id_of(const struct stat *st, struct pna_file_id *id);

/* Whether a file with identity ID, read now (CLOCK_REALTIME NOW_MS), can be
 * trusted to keep that identity for as long as its content stays the same
 * (see PNA_FILE_RACY_MS); the same identity seen again then means the same
 * content. */
bool pna_file_id_settled(const struct pna_file_id *id, int64_t now_ms);
bool pna_file_id_equal(const struct pna_file_id *a, const struct pna_file_id *b);

#endif
