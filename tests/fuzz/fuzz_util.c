/* fuzz_util.c -- scratch files and fuzzed file trees for the harnesses (see fuzz.h).
 *
 * Safety of the trees: nothing is ever created through a symbolic link (every
 * parent directory of a record is checked with lstat), and a link's target is
 * "../" repeated at most as deep as the link sits, then plain names.  Resolving
 * such a link starts in a directory with no link above it and climbs no
 * higher than the tree, and the names after it only enter other links of the
 * same kind: whatever a collector opens stays inside the tree. */
#include "pna_autoconf.h"
#include "fuzz.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MARK "=== "
#define MARK_LEN 4
#define MAX_RECORDS 512
#define MAX_DEPTH 16
#define MAX_COMPONENT 64
#define ROOTFS_MIN_LEN 128

static char tmpdir[PATH_MAX / 2];

char *fz_cstr(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        abort();
    if (size)
        memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

void fz_rm_rf(const char *path)
{
    nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static void remove_tmpdir(void)
{
    if (tmpdir[0])
        fz_rm_rf(tmpdir);
}

const char *fz_tmpdir(void)
{
    if (tmpdir[0])
        return tmpdir;
    const char *base = getenv("TMPDIR");
    if (!base || !*base)
        base = "/tmp";
    if (snprintf(tmpdir, sizeof tmpdir, "%s/pna-fuzz-XXXXXX", base) >= (int)sizeof tmpdir ||
        !mkdtemp(tmpdir)) {
        fprintf(stderr, "fuzz: cannot create a scratch directory under %s: %s\n", base,
                strerror(errno));
        abort();
    }
    atexit(remove_tmpdir);
    return tmpdir;
}

const char *fz_write_file(const char *name, const uint8_t *data, size_t size)
{
    static char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", fz_tmpdir(), name);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
        fprintf(stderr, "fuzz: cannot write %s: %s\n", path, strerror(errno));
        abort();
    }
    size_t done = 0;
    while (done < size) {
        ssize_t n = write(fd, data + done, size - done);
        if (n <= 0) {
            fprintf(stderr, "fuzz: cannot write %s: %s\n", path, strerror(errno));
            abort();
        }
        done += (size_t)n;
    }
    close(fd);
    return path;
}

void fz_split(const uint8_t *data, size_t size, const char *sep, size_t *a_len,
              const uint8_t **b, size_t *b_len)
{
    size_t sl = strlen(sep);
    const uint8_t *hit = sl && size >= sl ? memmem(data, size, sep, sl) : NULL;
    if (!hit) {
        *a_len = size;
        *b = data + size;
        *b_len = 0;
        return;
    }
    *a_len = (size_t)(hit - data);
    *b = hit + sl;
    *b_len = size - *a_len - sl;
}

/* ---- trees ---------------------------------------------------------------- */

static char tree[PATH_MAX / 2];
static char root_sys[PATH_MAX / 2 + 8], root_proc[PATH_MAX / 2 + 8];
static char root_dev[PATH_MAX / 2 + 8], root_root[PATH_MAX / 2 + 8];
static struct pna_roots roots;

static bool component_ok(const char *s, size_t n)
{
    if (n == 0 || n > MAX_COMPONENT || (n == 1 && s[0] == '.') ||
        (n == 2 && s[0] == '.' && s[1] == '.'))
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              strchr("._:,+=@-", c)))
            return false;
    }
    return true;
}

/* Split a relative path into components; returns their count, or -1 when one
 * is not acceptable (or there are too many). */
static int split_path(char *path, char **comp)
{
    int n = 0;
    for (char *save = NULL, *c = strtok_r(path, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
        if (n == MAX_DEPTH || !component_ok(c, strlen(c)))
            return -1;
        comp[n++] = c;
    }
    return n;
}

static bool is_root_name(const char *s)
{
    return !strcmp(s, "sys") || !strcmp(s, "proc") || !strcmp(s, "dev") || !strcmp(s, "root");
}

/* The parent directories of COMP[0..N-1] under the tree, made where missing;
 * fills PATH with the full path of the last component.  False when a parent
 * is a link or not a directory. */
static bool make_parents(char **comp, int n, char *path, size_t cap)
{
    size_t at = (size_t)snprintf(path, cap, "%s", tree);
    for (int i = 0; i < n; i++) {
        int w = snprintf(path + at, cap - at, "/%s", comp[i]);
        if (w < 0 || (size_t)w >= cap - at)
            return false;
        at += (size_t)w;
        if (i == n - 1)
            break;
        struct stat st;
        if (lstat(path, &st) == 0) {
            if (!S_ISDIR(st.st_mode))
                return false;
        } else if (mkdir(path, 0755) != 0) {
            return false;
        }
    }
    return true;
}

/* "../" at most DEPTH times, then at least one plain component. */
static bool link_target_ok(const char *target, int depth)
{
    char copy[1024];
    if (!*target || target[0] == '/' || strlen(target) >= sizeof copy)
        return false;
    strcpy(copy, target);
    int ups = 0, names = 0;
    for (char *save = NULL, *c = strtok_r(copy, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
        if (!strcmp(c, "..")) {
            if (names || ++ups > depth)
                return false;
        } else if (component_ok(c, strlen(c))) {
            names++;
        } else {
            return false;
        }
    }
    return names > 0;
}

static void write_record(const char *header, size_t hlen, const uint8_t *body, size_t blen)
{
    char line[1024], target[1024], path[PATH_MAX];
    char *comp[MAX_DEPTH];
    if (hlen >= sizeof line)
        return;
    memcpy(line, header, hlen);
    line[hlen] = '\0';
    if (memchr(line, '\0', hlen))
        return;
    char *arrow = strstr(line, " -> ");
    target[0] = '\0';
    if (arrow) {
        *arrow = '\0';
        strcpy(target, arrow + 4);
    }
    int n = split_path(line, comp);
    if (n < 2 || !is_root_name(comp[0]) || !make_parents(comp, n, path, sizeof path))
        return;
    struct stat st;
    if (arrow) {
        /* the link sits at depth N-1 below the tree */
        if (lstat(path, &st) == 0 || !link_target_ok(target, n - 1))
            return;
        if (symlink(target, path) != 0)
            return;
        return;
    }
    if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode))
        return;
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0)
        return;
    size_t done = 0;
    while (done < blen) {
        ssize_t w = write(fd, body + done, blen - done);
        if (w <= 0)
            break;
        done += (size_t)w;
    }
    close(fd);
}

static void make_tree_dirs(void)
{
    if (!tree[0]) {
        /* pad the directory name so that every root is at least ROOTFS_MIN_LEN long */
        int at = snprintf(tree, sizeof tree, "%s/tree", fz_tmpdir());
        while (at > 0 && (size_t)at + 5 < ROOTFS_MIN_LEN + 8 && (size_t)at + 1 < sizeof tree)
            tree[at++] = '_';
        tree[at] = '\0';
        snprintf(root_sys, sizeof root_sys, "%s/sys", tree);
        snprintf(root_proc, sizeof root_proc, "%s/proc", tree);
        snprintf(root_dev, sizeof root_dev, "%s/dev", tree);
        snprintf(root_root, sizeof root_root, "%s/root", tree);
        roots.sysfs = root_sys;
        roots.procfs = root_proc;
        roots.devfs = root_dev;
        roots.rootfs = root_root;
    }
    fz_rm_rf(tree);
    if (mkdir(tree, 0755) != 0 || mkdir(root_sys, 0755) != 0 || mkdir(root_proc, 0755) != 0 ||
        mkdir(root_dev, 0755) != 0 || mkdir(root_root, 0755) != 0) {
        fprintf(stderr, "fuzz: cannot create %s: %s\n", tree, strerror(errno));
        abort();
    }
}

/* Start of the next "\n=== " at or after FROM, or SIZE. */
static size_t next_record(const uint8_t *data, size_t size, size_t from)
{
    const uint8_t *hit = from < size ? memmem(data + from, size - from, "\n" MARK, MARK_LEN + 1)
                                     : NULL;
    return hit ? (size_t)(hit - data) : size;
}

const struct pna_roots *fz_tree_build(const uint8_t *data, size_t size)
{
    make_tree_dirs();
    size_t pos;
    if (size >= MARK_LEN && memcmp(data, MARK, MARK_LEN) == 0)
        pos = 0;
    else if ((pos = next_record(data, size, 0)) < size)
        pos++;
    for (int records = 0; pos < size && records < MAX_RECORDS; records++) {
        /* DATA + POS starts with the mark */
        size_t h = pos + MARK_LEN;
        const uint8_t *eol = h < size ? memchr(data + h, '\n', size - h) : NULL;
        size_t hend = eol ? (size_t)(eol - data) : size;
        size_t body = hend < size ? hend + 1 : size;
        size_t end, next;
        if (size - body >= MARK_LEN && memcmp(data + body, MARK, MARK_LEN) == 0) {
            end = next = body;        /* empty file, the next record follows at once */
        } else {
            size_t nl = next_record(data, size, body);
            end = nl < size ? nl + 1 : size;   /* the newline is the file's */
            next = end;
        }
        write_record((const char *)data + h, hend - h, data + body, end - body);
        pos = next;
    }
    return &roots;
}

void fz_tree_clear(void)
{
    if (tree[0])
        fz_rm_rf(tree);
}
