/* core/ratelimit.c -- log lines limited per kind (see ratelimit.h). */
#include "pna_autoconf.h"
#include "core/ratelimit.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#define MAX_KINDS 256
#define KEY_MAX 128
#define SAMPLE_MAX 240

struct kind {
    bool used;
    uint32_t hash;
    char key[KEY_MAX];
    char sample[SAMPLE_MAX];    /* the line that was written, for the summary */
    int64_t window_start;
    uint64_t suppressed;
    int priority;               /* the most severe one suppressed */
};

static struct {
    unsigned interval;
    struct kind kinds[MAX_KINDS];
    int64_t burst_second;       /* the second the burst counts in */
    unsigned burst_used;
    uint64_t burst_suppressed;
    int burst_priority;
    uint64_t total;
} rl = { .interval = PNA_RATELIMIT_DEFAULT_INTERVAL };

void pna_ratelimit_configure(unsigned interval_s)
{
    memset(&rl, 0, sizeof rl);
    rl.interval = interval_s;
}

/* TEXT up to its first newline, every run of digits made one '#'. */
static void kind_key(const char *text, char key[KEY_MAX])
{
    size_t n = 0;
    for (const char *p = text; *p && *p != '\n' && n < KEY_MAX - 1; p++) {
        if (isdigit((unsigned char)*p)) {
            key[n++] = '#';
            while (isdigit((unsigned char)p[1]))
                p++;
        } else {
            key[n++] = *p;
        }
    }
    key[n] = '\0';
}

static uint32_t fnv1a(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

static struct kind *find_kind(uint32_t hash, const char *key)
{
    for (size_t i = 0; i < MAX_KINDS; i++) {
        struct kind *k = &rl.kinds[i];
        if (k->used && k->hash == hash && strcmp(k->key, key) == 0)
            return k;
    }
    return NULL;
}

static struct kind *new_kind(uint32_t hash, const char *key, const char *text, int64_t now)
{
    for (size_t i = 0; i < MAX_KINDS; i++) {
        struct kind *k = &rl.kinds[i];
        if (k->used)
            continue;
        memset(k, 0, sizeof *k);
        k->used = true;
        k->hash = hash;
        snprintf(k->key, sizeof k->key, "%s", key);
        snprintf(k->sample, sizeof k->sample, "%.*s", (int)strcspn(text, "\n"), text);
        k->window_start = now;
        return k;
    }
    return NULL;
}

static int more_severe(int a, int b)
{
    return a < b ? a : b;   /* syslog: a lower number is more severe */
}

static void count_suppressed(uint64_t *count, int *worst, int priority)
{
    *worst = *count ? more_severe(*worst, priority) : priority;
    (*count)++;
    rl.total++;
}

/* The per-second burst over all kinds: true if one more line fits. */
static bool burst_allows(int priority, int64_t now)
{
    if (now != rl.burst_second) {
        rl.burst_second = now;
        rl.burst_used = 0;
    }
    if (rl.burst_used < PNA_RATELIMIT_BURST) {
        rl.burst_used++;
        return true;
    }
    count_suppressed(&rl.burst_suppressed, &rl.burst_priority, priority);
    return false;
}

bool pna_ratelimit_admit(int priority, const char *text, int64_t now)
{
    if (rl.interval == 0)
        return true;
    char key[KEY_MAX];
    kind_key(text, key);
    uint32_t hash = fnv1a(key);
    struct kind *k = find_kind(hash, key);
    if (k && (now - k->window_start < (int64_t)rl.interval || k->suppressed)) {
        /* Within its interval, or one whose summary is still to be written. */
        count_suppressed(&k->suppressed, &k->priority, priority);
        return false;
    }
    if (!burst_allows(priority, now))
        return false;
    if (k)
        k->window_start = now;      /* a quiet interval ended: a new first line */
    else
        new_kind(hash, key, text, now);   /* table full: limited by the burst only */
    return true;
}

static void summarize_kind(struct kind *k, int64_t now, pna_ratelimit_emit *emit, void *arg)
{
    char line[SAMPLE_MAX + 96];
    snprintf(line, sizeof line, "suppressed %llu similar messages in the last %lld s: %s",
             (unsigned long long)k->suppressed, (long long)(now - k->window_start), k->sample);
    emit(k->priority, line, arg);
    k->suppressed = 0;
}

static void summarize_burst(pna_ratelimit_emit *emit, void *arg)
{
    char line[96];
    snprintf(line, sizeof line, "suppressed %llu messages over the limit of %d a second",
             (unsigned long long)rl.burst_suppressed, PNA_RATELIMIT_BURST);
    emit(rl.burst_priority, line, arg);
    rl.burst_suppressed = 0;
}

void pna_ratelimit_tick(int64_t now, pna_ratelimit_emit *emit, void *arg)
{
    for (size_t i = 0; i < MAX_KINDS && rl.interval; i++) {
        struct kind *k = &rl.kinds[i];
        if (!k->used || now - k->window_start < (int64_t)rl.interval)
            continue;
        if (!k->suppressed) {
            k->used = false;    /* quiet for a whole interval: forgotten */
            continue;
        }
        summarize_kind(k, now, emit, arg);
        /* Still flooding: the next interval is counted too, not logged again. */
        k->window_start = now;
    }
    if (rl.burst_suppressed && now != rl.burst_second)
        summarize_burst(emit, arg);
}

void pna_ratelimit_flush(int64_t now, pna_ratelimit_emit *emit, void *arg)
{
    for (size_t i = 0; i < MAX_KINDS; i++)
        if (rl.kinds[i].used && rl.kinds[i].suppressed)
            summarize_kind(&rl.kinds[i], now, emit, arg);
    if (rl.burst_suppressed)
        summarize_burst(emit, arg);
}

uint64_t pna_ratelimit_suppressed_total(void)
{
    return rl.total;
}
