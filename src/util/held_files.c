/* util/held_files.c -- a directory's files kept open between polls (see
 * held_files.h). */
#include "pna_autoconf.h"
#include "util/held_files.h"
#include "util/fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void pna_held_dir_init(struct pna_held_dir *h)
{
    memset(h, 0, sizeof *h);
}

void pna_held_dir_close(struct pna_held_dir *h)
{
    for (size_t i = 0; i < h->count; i++)
        if (h->fd[i] >= 0)
            close(h->fd[i]);
    pna_held_dir_init(h);
}

void pna_held_dir_done(struct pna_held_dir *h)
{
    if (!h->kept)
        pna_held_dir_close(h);
}

static int64_t realtime_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Whether H's files are still DIR's: the directory at the path is the one
 * they were opened in, and its identity was settled then. */
static bool still_current(const struct pna_held_dir *h, int at, const char *dir)
{
    struct stat st;
    struct pna_file_id now;
    if (!h->open || !h->settled || fstatat(at, dir, &st, 0) < 0)
        return false;
    pna_file_id_of(&st, &now);
    return pna_file_id_equal(&now, &h->id);
}

int pna_fd_renumber_high(int fd)
{
    int high = fcntl(fd, F_DUPFD_CLOEXEC, PNA_HELD_FD_FLOOR);
    if (high >= 0)
        close(fd);
    return high;
}

/* FD renumbered from PNA_HELD_FD_FLOOR up; FD itself, and *KEPT false, when
 * no number that high is free. */
static int number_high(int fd, bool *kept)
{
    int high = pna_fd_renumber_high(fd);
    if (high < 0) {
        *kept = false;
        return fd;
    }
    return high;
}

/* Open NAMES through the directory open on DIRFD into H. */
static void open_files(struct pna_held_dir *h, int dirfd, const char *const *names, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int fd = pna_open_attr_at(dirfd, names[i]);
        if (fd >= 0 && h->kept)
            fd = number_high(fd, &h->kept);
        /* A file not there stays so until the directory changes (which its
         * coming moves the directory's times); any other failure (out of
         * descriptors, no right) is tried again at the next poll. */
        if (fd < 0 && fd != -ENOENT)
            h->settled = false;
        h->fd[i] = fd;
        h->count = (uint8_t)(i + 1);
    }
}

int pna_held_dir_open(struct pna_held_dir *h, int at, const char *dir, const char *const *names,
                      size_t n, bool keep)
{
    if (n > PNA_HELD_FILES_MAX)
        return -EINVAL;
    if (keep && h->kept && still_current(h, at, dir))
        return 0;
    pna_held_dir_close(h);
    /* O_PATH: a handle to open the files by, no read right on the
     * directory itself needed. */
    int dirfd = openat(at, dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (dirfd < 0)
        return -errno;
    struct stat st;
    if (fstat(dirfd, &st) < 0) {
        int rc = -errno;
        close(dirfd);
        return rc;
    }
    /* The identity of the directory opened, not of whatever the path held a
     * moment before: a change after this look moves it, and the next poll
     * opens again. */
    pna_file_id_of(&st, &h->id);
    h->settled = pna_file_id_settled(&h->id, realtime_ms());
    h->kept = keep;
    h->open = true;
    open_files(h, dirfd, names, n);
    close(dirfd);
    return 0;
}

int pna_held_dir_read(struct pna_held_dir *h, size_t i, char *buf, size_t cap)
{
    if (cap > 0)
        buf[0] = '\0';
    if (!h->open || i >= h->count)
        return -EBADF;
    if (h->fd[i] < 0)
        return h->fd[i];
    int rc = pna_read_attr_fd(h->fd[i], buf, cap);
    if (rc < 0)
        h->settled = false;
    return rc;
}

size_t pna_held_files_reserve(size_t fds, uint64_t *before, uint64_t *after)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
        return 0;
    if (before)
        *before = (uint64_t)rl.rlim_cur;
    rlim_t want = fds > RLIM_INFINITY - PNA_HELD_FD_FLOOR ? RLIM_INFINITY
                                                          : (rlim_t)(PNA_HELD_FD_FLOOR + fds);
    if (want > rl.rlim_max)
        want = rl.rlim_max;
    if (want > rl.rlim_cur) {
        struct rlimit raised = { want, rl.rlim_max };
        if (setrlimit(RLIMIT_NOFILE, &raised) == 0)
            rl.rlim_cur = want;
    }
    if (after)
        *after = (uint64_t)rl.rlim_cur;
    return rl.rlim_cur > PNA_HELD_FD_FLOOR ? (size_t)(rl.rlim_cur - PNA_HELD_FD_FLOOR) : 0;
}
