/* sources/accounting/state_file.c -- see state_file.h.
 *
 * Each record is a JSON object whose members are described once, in a table
 * of (name, type, offset): the writer and the parser walk the same table, so
 * they cannot disagree.  A member of the wrong type, a text longer than its
 * field, a number beyond its width refuse the whole file (the counters then
 * start anew, said in one log line by the poller). */
#include "pna_autoconf.h"
#include "sources/accounting/state_file.h"
#include "util/array.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define STATE_VERSION 1

enum member_type { M_U64, M_I64, M_U32, M_U8, M_BOOL, M_TEXT };

struct member {
    const char *name;
    uint8_t type;
    size_t offset;
    size_t size;          /* a text's buffer */
};

#define U64(rec, m) { #m, M_U64, offsetof(rec, m), 0 }
#define I64(rec, m) { #m, M_I64, offsetof(rec, m), 0 }
#define U32(rec, m) { #m, M_U32, offsetof(rec, m), 0 }
#define U8(rec, m) { #m, M_U8, offsetof(rec, m), 0 }
#define BOOL(rec, m) { #m, M_BOOL, offsetof(rec, m), 0 }
#define TEXT(rec, m) { #m, M_TEXT, offsetof(rec, m), sizeof(((rec *)0)->m) }
#define NAMED(name, type, rec, m) { name, type, offsetof(rec, m), 0 }
#define NAMED_TEXT(name, rec, m) { name, M_TEXT, offsetof(rec, m), sizeof(((rec *)0)->m) }

#define FIGURES(rec, f)                                                                   \
    NAMED("has_energy", M_BOOL, rec, f.has_energy),                                       \
    NAMED("energy_mj", M_U64, rec, f.energy_mj), NAMED("held_ms", M_U64, rec, f.held_ms), \
    NAMED("has_sm_active", M_BOOL, rec, f.has_sm_active),                                 \
    NAMED("sm_active_ms", M_U64, rec, f.sm_active_ms),                                    \
    NAMED("has_mem", M_BOOL, rec, f.has_mem),                                             \
    NAMED("mem_byte_s", M_U64, rec, f.mem_byte_s),                                        \
    NAMED("mem_byte_ms_rem", M_U32, rec, f.mem_byte_ms_rem)

static const struct member gpu_members[] = {
    U32(struct pna_usage_gpu, index), TEXT(struct pna_usage_gpu, pci_bus_id),
    TEXT(struct pna_usage_gpu, uuid), U8(struct pna_usage_gpu, energy_from),
    BOOL(struct pna_usage_gpu, has_sample), I64(struct pna_usage_gpu, sample_ms),
    U64(struct pna_usage_gpu, counter_mj), U64(struct pna_usage_gpu, idle_mj),
    U64(struct pna_usage_gpu, charged_mj), I64(struct pna_usage_gpu, created_ms),
    U64(struct pna_usage_gpu, rejected),
};

static const struct member row_members[] = {
    U32(struct pna_usage_row, gpu_index), TEXT(struct pna_usage_row, pci_bus_id),
    TEXT(struct pna_usage_row, uuid), U32(struct pna_usage_row, gpu_number),
    NAMED("kind", M_U8, struct pna_usage_row, who.kind),
    NAMED_TEXT("id", struct pna_usage_row, who.id),
    NAMED_TEXT("namespace", struct pna_usage_row, who.pod_namespace),
    NAMED_TEXT("pod", struct pna_usage_row, who.pod),
    NAMED_TEXT("container", struct pna_usage_row, who.container),
    NAMED("job", M_U32, struct pna_usage_row, who.job),
    U8(struct pna_usage_row, energy_from), U8(struct pna_usage_row, rule),
    FIGURES(struct pna_usage_row, f),
    I64(struct pna_usage_row, created_ms), I64(struct pna_usage_row, last_seen_ms),
};

static const struct member sum_members[] = {
    NAMED_TEXT("namespace", struct pna_usage_sum, pod_namespace),
    TEXT(struct pna_usage_sum, pod), U32(struct pna_usage_sum, job),
    FIGURES(struct pna_usage_sum, f),
    I64(struct pna_usage_sum, created_ms), I64(struct pna_usage_sum, last_seen_ms),
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* ---- writing ----------------------------------------------------------------- */

static json_t *record_json(const void *rec, const struct member *ms, size_t n)
{
    json_t *o = json_object();
    for (size_t i = 0; o && i < n; i++) {
        const char *p = (const char *)rec + ms[i].offset;
        json_t *v = NULL;
        switch (ms[i].type) {
        case M_U64: { uint64_t x; memcpy(&x, p, sizeof x); v = json_integer((json_int_t)x); break; }
        case M_I64: { int64_t x; memcpy(&x, p, sizeof x); v = json_integer(x); break; }
        case M_U32: { uint32_t x; memcpy(&x, p, sizeof x); v = json_integer(x); break; }
        case M_U8: v = json_integer(*(const uint8_t *)p); break;
        case M_BOOL: v = json_boolean(*(const bool *)p); break;
        case M_TEXT: v = json_string(p); break;
        }
        if (!v || json_object_set_new(o, ms[i].name, v) < 0) {
            json_decref(o);
            return NULL;
        }
    }
    return o;
}

static json_t *array_json(const void *items, size_t n, size_t size, const struct member *ms,
                          size_t nm)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < n; i++)
        if (json_array_append_new(a, record_json((const char *)items + i * size, ms, nm)) < 0) {
            json_decref(a);
            return NULL;
        }
    return a;
}

static json_t *ledger_json(const struct pna_usage_ledger *l, bool clean, int64_t saved_ms)
{
    json_t *o = json_pack("{s:i, s:b, s:I}", "version", STATE_VERSION, "clean", clean, "saved_ms",
                          (json_int_t)saved_ms);
    if (!o)
        return NULL;
    /* uint64 counters are kept below 2^63 by any real figure; json_int_t is signed */
    if (json_object_set_new(o, "gpus", array_json(l->gpus, l->n_gpus, sizeof *l->gpus,
                                                  gpu_members, N(gpu_members))) < 0 ||
        json_object_set_new(o, "rows", array_json(l->rows, l->n_rows, sizeof *l->rows,
                                                  row_members, N(row_members))) < 0 ||
        json_object_set_new(o, "pods", array_json(l->pods, l->n_pods, sizeof *l->pods,
                                                  sum_members, N(sum_members))) < 0 ||
        json_object_set_new(o, "jobs", array_json(l->jobs, l->n_jobs, sizeof *l->jobs,
                                                  sum_members, N(sum_members))) < 0) {
        json_decref(o);
        return NULL;
    }
    return o;
}

int pna_usage_state_write(const char *path, const struct pna_usage_ledger *l, bool clean,
                          int64_t saved_ms, char *why, size_t cap)
{
    json_t *o = ledger_json(l, clean, saved_ms);
    char *text = o ? json_dumps(o, JSON_COMPACT) : NULL;
    json_decref(o);
    if (!text) {
        snprintf(why, cap, "out of memory");
        return -1;
    }
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) {
        snprintf(why, cap, "%.200s: %s", tmp, strerror(errno));
        free(text);
        return -1;
    }
    size_t len = strlen(text), done = 0;
    while (done < len) {
        ssize_t w = write(fd, text + done, len - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            break;
        done += (size_t)w;
    }
    free(text);
    int rc = done == len && fsync(fd) == 0 ? 0 : -1;
    int saved_errno = errno;
    close(fd);
    if (rc == 0 && rename(tmp, path) < 0) {
        saved_errno = errno;
        rc = -1;
    }
    if (rc < 0) {
        snprintf(why, cap, "%.200s: %s", path, strerror(saved_errno));
        unlink(tmp);
    }
    return rc;
}

/* ---- reading ----------------------------------------------------------------- */

static int record_parse(json_t *o, void *rec, const struct member *ms, size_t n, char *why,
                        size_t cap)
{
    if (!json_is_object(o)) {
        snprintf(why, cap, "a record is not an object");
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        json_t *v = json_object_get(o, ms[i].name);
        char *p = (char *)rec + ms[i].offset;
        bool bad = !v;
        if (!bad && ms[i].type == M_TEXT) {
            bad = !json_is_string(v) || json_string_length(v) >= ms[i].size;
            if (!bad)
                memcpy(p, json_string_value(v), json_string_length(v) + 1);
        } else if (!bad && ms[i].type == M_BOOL) {
            bad = !json_is_boolean(v);
            if (!bad)
                *(bool *)p = json_is_true(v);
        } else if (!bad) {
            json_int_t x = json_is_integer(v) ? json_integer_value(v) : -1;
            bad = !json_is_integer(v) || (ms[i].type != M_I64 && x < 0) ||
                  (ms[i].type == M_U32 && x > UINT32_MAX) || (ms[i].type == M_U8 && x > 255);
            if (!bad) {
                uint64_t u = (uint64_t)x;
                uint32_t u32 = (uint32_t)x;
                int64_t i64 = x;
                if (ms[i].type == M_U64)
                    memcpy(p, &u, sizeof u);
                else if (ms[i].type == M_I64)
                    memcpy(p, &i64, sizeof i64);
                else if (ms[i].type == M_U32)
                    memcpy(p, &u32, sizeof u32);
                else
                    *(uint8_t *)p = (uint8_t)x;
            }
        }
        if (bad) {
            snprintf(why, cap, "member \"%s\" missing or malformed", ms[i].name);
            return -1;
        }
    }
    return 0;
}

static int array_parse(json_t *root, const char *name, void **items, size_t *n, size_t *cap_items,
                       size_t size, const struct member *ms, size_t nm, char *why, size_t cap)
{
    json_t *a = json_object_get(root, name);
    if (!json_is_array(a)) {
        snprintf(why, cap, "\"%s\" missing or not an array", name);
        return -1;
    }
    size_t count = json_array_size(a);
    if (count && pna_array_reserve(items, cap_items, count, size) < 0) {
        snprintf(why, cap, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < count; i++) {
        char *rec = (char *)*items + i * size;
        memset(rec, 0, size);
        if (record_parse(json_array_get(a, i), rec, ms, nm, why, cap) < 0)
            return -1;
        *n = i + 1;
    }
    return 0;
}

/* The orders the ledger keeps (usage.h); a file out of order is refused. */
static bool ordered(const struct pna_usage_ledger *l)
{
    for (size_t i = 1; i < l->n_gpus; i++)
        if (l->gpus[i - 1].index >= l->gpus[i].index)
            return false;
    for (size_t i = 1; i < l->n_jobs; i++)
        if (l->jobs[i - 1].job >= l->jobs[i].job)
            return false;
    for (size_t i = 1; i < l->n_pods; i++) {
        int c = strcmp(l->pods[i - 1].pod_namespace, l->pods[i].pod_namespace);
        if (c > 0 || (c == 0 && strcmp(l->pods[i - 1].pod, l->pods[i].pod) >= 0))
            return false;
    }
    for (size_t i = 1; i < l->n_rows; i++) {
        const struct pna_usage_row *a = &l->rows[i - 1], *b = &l->rows[i];
        if (a->gpu_index > b->gpu_index)
            return false;
        if (a->gpu_index < b->gpu_index)
            continue;
        if (a->who.kind != b->who.kind) {
            if (a->who.kind > b->who.kind)
                return false;
            continue;
        }
        int c = strcmp(a->who.id, b->who.id);
        if (c > 0 || (c == 0 && a->who.job >= b->who.job))
            return false;
    }
    return true;
}

int pna_usage_state_parse(const char *text, size_t len, struct pna_usage_ledger *l, bool *clean,
                          char *why, size_t cap)
{
    json_error_t jerr;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!root) {
        snprintf(why, cap, "not JSON: %.100s (line %d)", jerr.text, jerr.line);
        return -1;
    }
    json_t *version = json_object_get(root, "version"), *c = json_object_get(root, "clean");
    int rc = -1;
    if (!json_is_integer(version) || json_integer_value(version) != STATE_VERSION)
        snprintf(why, cap, "not a version %d state file", STATE_VERSION);
    else if (!json_is_boolean(c))
        snprintf(why, cap, "\"clean\" missing or not a boolean");
    else if (array_parse(root, "gpus", (void **)&l->gpus, &l->n_gpus, &l->cap_gpus,
                         sizeof *l->gpus, gpu_members, N(gpu_members), why, cap) == 0 &&
             array_parse(root, "rows", (void **)&l->rows, &l->n_rows, &l->cap_rows,
                         sizeof *l->rows, row_members, N(row_members), why, cap) == 0 &&
             array_parse(root, "pods", (void **)&l->pods, &l->n_pods, &l->cap_pods,
                         sizeof *l->pods, sum_members, N(sum_members), why, cap) == 0 &&
             array_parse(root, "jobs", (void **)&l->jobs, &l->n_jobs, &l->cap_jobs,
                         sizeof *l->jobs, sum_members, N(sum_members), why, cap) == 0) {
        if (ordered(l)) {
            *clean = json_is_true(c);
            rc = 0;
        } else {
            snprintf(why, cap, "records out of order");
        }
    }
    json_decref(root);
    if (rc < 0)
        pna_usage_ledger_free(l);
    return rc;
}

int pna_usage_state_read(const char *path, struct pna_usage_ledger *l, bool *clean, char *why,
                         size_t cap)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT)
            return 1;
        snprintf(why, cap, "%s", strerror(errno));
        return -1;
    }
    struct stat sb;
    if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode) || sb.st_size > PNA_USAGE_STATE_MAX_BYTES) {
        snprintf(why, cap, "not a regular file of at most %u bytes", PNA_USAGE_STATE_MAX_BYTES);
        close(fd);
        return -1;
    }
    size_t size = (size_t)sb.st_size, got = 0;
    char *buf = malloc(size + 1);
    while (buf && got < size) {
        ssize_t r = read(fd, buf + got, size - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    if (!buf) {
        snprintf(why, cap, "out of memory");
        return -1;
    }
    int rc = pna_usage_state_parse(buf, got, l, clean, why, cap);
    free(buf);
    return rc;
}
