/* unit.h -- the smallest test harness that does the job.
 *
 * Each unit test is one program; CHECK* macros record failures and keep going,
 * and UNIT_END() prints a summary and returns automake's exit codes
 * (0 pass, 1 fail, 77 skip). */
#ifndef PNA_UNIT_H
#define PNA_UNIT_H

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int unit_failures;
static int unit_checks;

#define CHECK(cond)                                                              \
    do {                                                                         \
        unit_checks++;                                                           \
        if (!(cond)) {                                                           \
            unit_failures++;                                                     \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                        \
    } while (0)

#define CHECK_INT(a, b)                                                          \
    do {                                                                         \
        long long unit_a = (long long)(a), unit_b = (long long)(b);              \
        unit_checks++;                                                           \
        if (unit_a != unit_b) {                                                  \
            unit_failures++;                                                     \
            fprintf(stderr, "%s:%d: %s == %lld, expected %s == %lld\n", __FILE__, \
                    __LINE__, #a, unit_a, #b, unit_b);                           \
        }                                                                        \
    } while (0)

#define CHECK_U64(a, b)                                                          \
    do {                                                                         \
        uint64_t unit_a = (uint64_t)(a), unit_b = (uint64_t)(b);                 \
        unit_checks++;                                                           \
        if (unit_a != unit_b) {                                                  \
            unit_failures++;                                                     \
            fprintf(stderr, "%s:%d: %s == %" PRIu64 ", expected %" PRIu64 "\n",   \
                    __FILE__, __LINE__, #a, unit_a, unit_b);                     \
        }                                                                        \
    } while (0)

#define CHECK_STR(a, b)                                                          \
    do {                                                                         \
        const char *unit_a = (a), *unit_b = (b);                                 \
        unit_checks++;                                                           \
        if (!unit_a || !unit_b || strcmp(unit_a, unit_b) != 0) {                 \
            unit_failures++;                                                     \
            fprintf(stderr, "%s:%d: %s == \"%s\", expected \"%s\"\n", __FILE__,  \
                    __LINE__, #a, unit_a ? unit_a : "(null)",                    \
                    unit_b ? unit_b : "(null)");                                 \
        }                                                                        \
    } while (0)

/* The fixture tree (tests/fixtures), from the environment make check sets. */
static inline const char *unit_fixtures(void)
{
    const char *d = getenv("PNA_FIXTURES");
    return d && *d ? d : "tests/fixtures";
}

/* Write CONTENT to ROOT/REL, making the directories on the way. */
static inline void unit_put(const char *root, const char *rel, const char *content)
{
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s/%s", root, rel);
    for (char *s = p + strlen(root) + 1; (s = strchr(s, '/')) != NULL; s++) {
        *s = '\0';
        mkdir(p, 0755);
        *s = '/';
    }
    FILE *f = fopen(p, "w");
    if (!f) {
        perror(p);
        return;
    }
    fputs(content, f);
    fclose(f);
}

/* Remove the tree at PATH (a test's temp root, or part of it). */
static inline void unit_rmtree(const char *path)
{
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", path);
}

#define UNIT_END()                                                               \
    do {                                                                         \
        printf("%s: %d checks, %d failed\n", __FILE__, unit_checks, unit_failures); \
        return unit_failures ? 1 : 0;                                            \
    } while (0)

#endif
