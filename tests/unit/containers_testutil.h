/* containers_testutil.h -- temp trees and fixture reading for the containers,
 * kubelet and storage unit tests (header-only, test code). */
#ifndef PNA_CONTAINERS_TESTUTIL_H
#define PNA_CONTAINERS_TESTUTIL_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "unit.h"

/* Make every directory of PATH (like mkdir -p). */
static inline void tt_mkdirs(const char *path)
{
    char buf[2048];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            mkdir(buf, 0755);
            *p = '/';
        }
    mkdir(buf, 0755);
}

/* Write LEN bytes to ROOT/REL, making its directories. */
static inline void tt_write_bytes(const char *root, const char *rel, const void *data, size_t len)
{
    char p[2048], dir[2048];
    snprintf(p, sizeof p, "%s/%s", root, rel);
    snprintf(dir, sizeof dir, "%s", p);
    char *slash = strrchr(dir, '/');
    if (slash) {
        *slash = '\0';
        tt_mkdirs(dir);
    }
    FILE *f = fopen(p, "wb");
    if (!f) {
        fprintf(stderr, "cannot write %s: %s\n", p, strerror(errno));
        return;
    }
    fwrite(data, 1, len, f);
    fclose(f);
}

static inline void tt_write(const char *root, const char *rel, const char *text)
{
    tt_write_bytes(root, rel, text, strlen(text));
}

/* Date ROOT/REL (file or directory) WHEN, access and modification time:
 * 0, or -errno. */
static inline int tt_date(const char *root, const char *rel, time_t when)
{
    char p[2048];
    snprintf(p, sizeof p, "%s/%s", root, rel);
    struct timespec ts[2] = { { when, 0 }, { when, 0 } };
    return utimensat(AT_FDCWD, p, ts, 0) == 0 ? 0 : -errno;
}

static int tt_rm_one(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb, (void)flag, (void)ftw;
    remove(p);
    return 0;
}

static inline void tt_rmrf(const char *path)
{
    nftw(path, tt_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* A fixture file (under tests/fixtures) in a malloc'd NUL-terminated buffer. */
static inline char *tt_fixture(const char *rel, size_t *len)
{
    char p[1024];
    snprintf(p, sizeof p, "%s/%s", unit_fixtures(), rel);
    FILE *f = fopen(p, "rb");
    if (!f) {
        fprintf(stderr, "missing fixture %s\n", p);
        exit(99);
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n)
        exit(99);
    buf[n] = '\0';
    fclose(f);
    if (len)
        *len = (size_t)n;
    return buf;
}

static inline void tt_fixture_path(char *buf, size_t cap, const char *rel)
{
    snprintf(buf, cap, "%s/%s", unit_fixtures(), rel);
}

static inline int64_t tt_mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static inline void tt_sleep_ms(int ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };
    nanosleep(&ts, NULL);
}

/* True when the LEN bytes at P contain NEEDLE anywhere (secrets must not). */
static inline int tt_contains(const void *p, size_t len, const char *needle)
{
    return memmem(p, len, needle, strlen(needle)) != NULL;
}

#endif
