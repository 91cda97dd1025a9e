/* replay.c -- run a fuzzing harness over its seed corpus without libFuzzer.
 *
 * Linked with one tests/fuzz/fuzz_<name>.c by the normal compiler, this makes
 * tests/fuzz/replay_<name>, a plain regression test in make check: every file
 * of tests/fuzz/corpus/<name>/ (found through $top_srcdir, or the current
 * directory) is fed to LLVMFuzzerTestOneInput() once.  A crash, or a sanitizer
 * report in the sanitizer build, fails the test.
 *
 * Arguments, when given, are files or directories to replay instead (to check
 * a crash file from a fuzzing run: tests/fuzz/replay_<name> crash-...). */
#include "pna_autoconf.h"
#include "fuzz.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define REPLAY_MAX_BYTES (16u << 20)

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
        return -1;
    }
    uint8_t *buf = malloc(REPLAY_MAX_BYTES);
    if (!buf) {
        fclose(f);
        return -1;
    }
    size_t n = fread(buf, 1, REPLAY_MAX_BYTES, f);
    fclose(f);
    /* an exact-size copy, so that ASan sees a read past the input's end */
    uint8_t *input = malloc(n ? n : 1);
    if (!input) {
        free(buf);
        return -1;
    }
    memcpy(input, buf, n);
    free(buf);
    LLVMFuzzerTestOneInput(input, n);
    free(input);
    return 0;
}

/* Replay PATH (a file, or every regular file in a directory, in name order);
 * adds the number of inputs to *COUNT.  Returns 0, or -1 when unreadable. */
static int replay_path(const char *path, unsigned *count)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        if (replay_file(path) != 0)
            return -1;
        (*count)++;
        return 0;
    }
    DIR *d = opendir(path);
    if (!d) {
        fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
        return -1;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.')
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            char **nn = realloc(names, cap * sizeof *names);
            if (!nn)
                abort();
            names = nn;
        }
        if (!(names[n++] = strdup(de->d_name)))
            abort();
    }
    closedir(d);
    if (n > 1)
        qsort(names, n, sizeof *names, cmp_names);
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        char file[PATH_MAX];
        snprintf(file, sizeof file, "%s/%s", path, names[i]);
        if (stat(file, &st) == 0 && S_ISREG(st.st_mode)) {
            if (replay_file(file) != 0)
                rc = -1;
            else
                (*count)++;
        }
        free(names[i]);
    }
    free(names);
    return rc;
}

int main(int argc, char **argv)
{
    unsigned count = 0;
    int rc = 0;
    const char *prog = strrchr(argv[0], '/');
    prog = prog ? prog + 1 : argv[0];
    if (argc > 1) {
        for (int i = 1; i < argc; i++)
            if (replay_path(argv[i], &count) != 0)
                rc = 1;
    } else {
        /* replay_<name>: the corpus is tests/fuzz/corpus/<name> */
        const char *name = strncmp(prog, "replay_", 7) == 0 ? prog + 7 : prog;
        const char *top = getenv("top_srcdir");
        char dir[PATH_MAX];
        snprintf(dir, sizeof dir, "%s/tests/fuzz/corpus/%s", top && *top ? top : ".", name);
        if (replay_path(dir, &count) != 0)
            rc = 1;
        else if (count == 0) {
            fprintf(stderr, "replay: %s: no inputs\n", dir);
            rc = 1;
        }
    }
    printf("%s: %u inputs replayed%s\n", prog, count, rc ? ", some unreadable" : "");
    return rc;
}
