/* test_held_files.c -- a directory's files kept open between polls
 * (util/held_files.h) read what a fresh open would, and are opened again
 * whenever the directory changes.
 *
 * The tree is made here on the test's temporary directory.  The last part
 * runs on the kernel's own cgroupfs, where a memory cgroup can be made (as
 * root, on a memory hierarchy this process may write): there a kept
 * descriptor must read a new limit written after it was opened, and an error
 * once the cgroup is removed.  Without one it says so and that part only is
 * left out. */
#include "pna_autoconf.h"
#include "util/held_files.h"
#include "containers_testutil.h"

#include <fcntl.h>
#include <sys/resource.h>

static char tmp[] = "/tmp/pna-held-XXXXXX";
static const char *const names[] = { "a", "b", "missing" };
#define N 3

static void put(const char *rel, const char *text)
{
    tt_write(tmp, rel, text);
}

/* Date PATH (under the temporary tree) a minute back: settled. */
static void age(const char *rel)
{
    CHECK_INT(tt_date(tmp, rel, time(NULL) - 60), 0);
}

static void path_of(const char *rel, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s/%s", tmp, rel);
}

static const char *read_i(struct pna_held_dir *h, size_t i)
{
    static char buf[128];
    int rc = pna_held_dir_read(h, i, buf, sizeof buf);
    if (rc < 0)
        snprintf(buf, sizeof buf, "error %d", rc);
    return buf;
}

/* A kept descriptor carries its own file offset; one opened anew starts at
 * 0.  Setting it tells a descriptor kept from one opened again, whatever
 * number the new one gets. */
static void mark(const struct pna_held_dir *h)
{
    for (size_t i = 0; i < h->count; i++)
        if (h->fd[i] >= 0)
            lseek(h->fd[i], 7, SEEK_SET);
}

static bool marked(const struct pna_held_dir *h)
{
    return h->fd[0] >= 0 && lseek(h->fd[0], 0, SEEK_CUR) == 7;
}

static bool is_open(int fd)
{
    return fd >= 0 && fcntl(fd, F_GETFD) >= 0;
}

static void test_kept_and_current(void)
{
    char dir[1024];
    path_of("d", dir, sizeof dir);
    put("d/a", "1\n");
    put("d/b", "x y\nz 2\n");
    age("d");
    struct pna_held_dir h;
    pna_held_dir_init(&h);
    CHECK_INT(pna_held_dir_open(&h, AT_FDCWD, dir, names, N, true), 0);
    CHECK(h.kept && h.settled);
    CHECK(h.fd[0] >= PNA_HELD_FD_FLOOR && h.fd[1] >= PNA_HELD_FD_FLOOR);
    CHECK_STR(read_i(&h, 0), "1");
    CHECK_STR(read_i(&h, 1), "x y\nz 2");
    CHECK_INT(h.fd[2], -ENOENT);
    CHECK_STR(read_i(&h, 2), "error -2");
    CHECK_STR(read_i(&h, 3), "error -9");   /* not a file it holds: -EBADF */
    pna_held_dir_done(&h);
    CHECK(is_open(h.fd[0]));
    mark(&h);

    /* Rewritten in place (what the kernel's files do): the same descriptor
     * reads the new text, from its start whatever its offset. */
    put("d/a", "22\n");
    CHECK_INT(pna_held_dir_open(&h, AT_FDCWD, dir, names, N, true), 0);
    CHECK(marked(&h));
    CHECK_STR(read_i(&h, 0), "22");
    pna_held_dir_done(&h);

    /* Replaced by rename: the directory changed, the files are opened again. */
    put("d/a.new", "333\n");
    char from[1100], to[1100];
    path_of("d/a.new", from, sizeof from);
    path_of("d/a", to, sizeof to);
    CHECK_INT(rename(from, to), 0);
    CHECK_INT(pna_held_dir_open(&h, AT_FDCWD, dir, names, N, true), 0);
    CHECK(!marked(&h));
    CHECK_STR(read_i(&h, 0), "333");
    /* ... and a file that comes where none was. */
    put("d/missing", "here\n");
    CHECK_INT(pna_held_dir_open(&h, AT_FDCWD, dir, names, N, true), 0);
    CHECK_STR(read_i(&h, 2), "here");
    pna_held_dir_close(&h);
    CHECK_INT(h.count, 0);
}

static void test_racy_and_replaced_dir(void)
{
    char dir[1024];
    path_of("r", dir, sizeof dir);
    put("r/a", "1\n");
    put("r/b", "2\n");
    /* Just made: its identity is not trusted, the next open opens again
     * even though nothing is seen to differ. */
    struct pna_held_dir h;
    pna_held_dir_init(&h);
    CHECK_INT(pna_held_dir_open(&h, AT_FDCWD, dir, names, N, true), 0);
    CHECK(h.kept && !h.settled);
    mark(&h);
    CHECK_INT(pna_held_dir_open(&h, AT_FDCWD, dir, names, N, true), 0);
    CHECK(!marked(&h));
    age("r");
    CHECK_INT(pna_held_dir_open(&h, AT_FDCWD, dir, names, N, true), 0);
    CHECK(h.settled);
    mark(&h);
    CHECK_INT(pna_held_dir_open(&h, AT_FDCWD, dir, names, N, true), 0);
    CHECK(marked(&h));

    /* The directory removed and made again at its path (a container's
     * cgroup made anew): another directory, its own files. */
    char gone[1100];
    path_of("r", gone, sizeof gone);
    tt_rmrf(gone);
    CHECK_INT(pna_held_dir_open(&h, AT_FDCWD, dir, names, N, true), -ENOENT);
    CHECK(!h.open && h.count == 0);
    put("r/a", "fresh\n");
    age("r");
    CHECK_INT(pna_held_dir_open(&h, AT_FDCWD, dir, names, N, true), 0);
    CHECK_STR(read_i(&h, 0), "fresh");
    CHECK_STR(read_i(&h, 1), "error -2");
    tt_rmrf(gone);
    put("r/a", "again\n");
    age("r");   /* settled, as the one before: another inode all the same */
    CHECK_INT(pna_held_dir_open(&h, AT_FDCWD, dir, names, N, true), 0);
    CHECK_STR(read_i(&h, 0), "again");

    /* A read that fails has the next open open again. */
    mark(&h);
    CHECK_INT(pna_held_dir_read(&h, 0, (char[2]){ 0 }, 2), -EFBIG);
    CHECK(!h.settled);
    CHECK_INT(pna_held_dir_open(&h, AT_FDCWD, dir, names, N, true), 0);
    CHECK(!marked(&h));
    pna_held_dir_close(&h);

    /* Not a directory. */
    put("plain", "x\n");
    path_of("plain", dir, sizeof dir);
    CHECK_INT(pna_held_dir_open(&h, AT_FDCWD, dir, names, N, true), -ENOTDIR);
    CHECK_INT(pna_held_dir_open(&h, AT_FDCWD, dir, names, PNA_HELD_FILES_MAX + 1, true), -EINVAL);
}

/* Not asked to keep, or no descriptor from the floor up to be had: the files
 * are read all the same and closed when the poll is done. */
static void test_not_kept(void)
{
    char dir[1024];
    path_of("n", dir, sizeof dir);
    put("n/a", "5\n");
    age("n");
    struct pna_held_dir h;
    pna_held_dir_init(&h);
    CHECK_INT(pna_held_dir_open(&h, AT_FDCWD, dir, names, N, false), 0);
    CHECK(!h.kept);
    int fd = h.fd[0];
    CHECK_STR(read_i(&h, 0), "5");
    pna_held_dir_done(&h);
    CHECK(!is_open(fd));
    CHECK(!h.open);

    /* Kept, then not wanted kept any more: closed after the poll. */
    CHECK_INT(pna_held_dir_open(&h, AT_FDCWD, dir, names, N, true), 0);
    CHECK(h.kept);
    pna_held_dir_done(&h);
    fd = h.fd[0];
    CHECK_INT(pna_held_dir_open(&h, AT_FDCWD, dir, names, N, false), 0);
    CHECK(!is_open(fd));
    CHECK_STR(read_i(&h, 0), "5");
    pna_held_dir_done(&h);
    CHECK(!h.open);

    struct rlimit saved, low;
    CHECK_INT(getrlimit(RLIMIT_NOFILE, &saved), 0);
    low = saved;
    low.rlim_cur = PNA_HELD_FD_FLOOR / 2;
    if (setrlimit(RLIMIT_NOFILE, &low) != 0) {
        printf("skip: cannot lower RLIMIT_NOFILE: %s\n", strerror(errno));
        return;
    }
    CHECK_INT(pna_held_dir_open(&h, AT_FDCWD, dir, names, N, true), 0);
    CHECK(!h.kept);
    CHECK(h.fd[0] >= 0 && h.fd[0] < PNA_HELD_FD_FLOOR);
    fd = h.fd[0];
    CHECK_STR(read_i(&h, 0), "5");
    pna_held_dir_done(&h);
    CHECK(!is_open(fd));

    /* The reserve raises the soft limit as far as asked and no further than
     * the hard limit, and never lowers it. */
    uint64_t before = 0, after = 0;
    size_t room = pna_held_files_reserve(100, &before, &after);
    CHECK_U64(before, PNA_HELD_FD_FLOOR / 2);
    uint64_t want = PNA_HELD_FD_FLOOR + 100;
    if (saved.rlim_max >= want) {
        CHECK_U64(after, want);
        CHECK_INT(room, 100);
        CHECK_INT(pna_held_dir_open(&h, AT_FDCWD, dir, names, N, true), 0);
        CHECK(h.kept && h.fd[0] >= PNA_HELD_FD_FLOOR);
        pna_held_dir_close(&h);
    } else {
        CHECK_U64(after, saved.rlim_max);
    }
    room = pna_held_files_reserve(10, &before, &after);
    CHECK_U64(after, before);
    CHECK(setrlimit(RLIMIT_NOFILE, &saved) == 0);
}

/* The kernel's own files, where a memory cgroup can be made here: the root
 * of the v2 hierarchy with the memory controller, or v1's memory mount. */
static bool real_cgroup(char *dir, size_t cap, const char **limit_file)
{
    char text[256];
    FILE *f = fopen("/sys/fs/cgroup/cgroup.controllers", "r");
    bool v2 = f && fgets(text, sizeof text, f) && strstr(text, "memory");
    if (f)
        fclose(f);
    snprintf(dir, cap, "%s/pna-held-test-%d", v2 ? "/sys/fs/cgroup" : "/sys/fs/cgroup/memory",
             (int)getpid());
    *limit_file = v2 ? "memory.max" : "memory.limit_in_bytes";
    return mkdir(dir, 0755) == 0;
}

static void write_limit(const char *dir, const char *file, const char *value)
{
    char p[1200];
    snprintf(p, sizeof p, "%s/%s", dir, file);
    FILE *f = fopen(p, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(value, f);
        CHECK_INT(fclose(f), 0);
    }
}

static void test_kernel_cgroupfs(void)
{
    char dir[512];
    const char *limit;
    if (!real_cgroup(dir, sizeof dir, &limit)) {
        printf("skip (this part only): no memory cgroup can be made here (%s: %s)\n", dir,
               strerror(errno));
        return;
    }
    const char *const files[] = { limit, "memory.stat" };
    struct pna_held_dir h;
    pna_held_dir_init(&h);
    write_limit(dir, limit, "1073741824");
    CHECK_INT(pna_held_dir_open(&h, AT_FDCWD, dir, files, 2, true), 0);
    CHECK(h.kept);
    CHECK_STR(read_i(&h, 0), "1073741824");
    mark(&h);
    /* The kernel makes the text anew at each read from offset 0. */
    write_limit(dir, limit, "536870912");
    CHECK_INT(pna_held_dir_open(&h, AT_FDCWD, dir, files, 2, true), 0);
    CHECK_STR(read_i(&h, 0), "536870912");
    char stat_text[8192];
    CHECK(pna_held_dir_read(&h, 1, stat_text, sizeof stat_text) > 0);
    CHECK(strstr(stat_text, "inactive_file") != NULL);
    /* Removed: the kept descriptor reads an error, and the cgroup is gone. */
    CHECK_INT(rmdir(dir), 0);
    CHECK(pna_held_dir_read(&h, 0, stat_text, sizeof stat_text) < 0);
    CHECK(!h.settled);
    CHECK_INT(pna_held_dir_open(&h, AT_FDCWD, dir, files, 2, true), -ENOENT);
    pna_held_dir_close(&h);
    printf("kernel cgroupfs: %s\n", dir);
}

int main(void)
{
    if (!mkdtemp(tmp)) {
        perror("mkdtemp");
        return 99;
    }
    test_kept_and_current();
    test_racy_and_replaced_dir();
    test_not_kept();
    test_kernel_cgroupfs();
    tt_rmrf(tmp);
    UNIT_END();
}
