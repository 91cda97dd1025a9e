/* model/gpu/gpu_idle_rule.c -- see gpu_idle.h: the idle rule on its own (its
 * configuration syntax, the activity it reads, one poll's step), no joins,
 * so the config parser's fuzz harness links it alone. */
#include "pna_autoconf.h"
#include "model/gpu/gpu_idle.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>

/* "5", "2.5", "0.25", "7%": hundredths of a percent in 0..10000. */
static int parse_percent(const char *s, uint32_t *bp)
{
    uint32_t whole = 0, frac = 0, digits = 0;
    const char *p = s;
    if (!isdigit((unsigned char)*p))
        return -1;
    for (; isdigit((unsigned char)*p); p++) {
        whole = whole * 10 + (uint32_t)(*p - '0');
        if (whole > 100)
            return -1;
    }
    if (*p == '.') {
        for (p++; isdigit((unsigned char)*p); p++) {
            if (++digits > 2)
                return -1;
            frac = frac * 10 + (uint32_t)(*p - '0');
        }
        if (digits == 0)
            return -1;
        if (digits == 1)
            frac *= 10;
    }
    if (*p == '%')
        p++;
    if (*p || whole * 100 + frac > 10000)
        return -1;
    *bp = whole * 100 + frac;
    return 0;
}

/* "900", "900s", "15m", "2h", "1d": seconds up to PNA_GPU_IDLE_MAX_WINDOW_S. */
static int parse_window(const char *s, uint32_t *seconds)
{
    char *end;
    if (!isdigit((unsigned char)s[0]))
        return -1;
    unsigned long long n = strtoull(s, &end, 10);
    unsigned long long unit = 1;
    if (*end == 'm')
        unit = 60;
    else if (*end == 'h')
        unit = 3600;
    else if (*end == 'd')
        unit = 86400;
    else if (*end && *end != 's')
        return -1;
    if (*end && end[1])
        return -1;
    if (n > PNA_GPU_IDLE_MAX_WINDOW_S || n * unit > PNA_GPU_IDLE_MAX_WINDOW_S)
        return -1;
    *seconds = (uint32_t)(n * unit);
    return 0;
}

int pna_gpu_idle_rule_parse(void *value, char *const *words, size_t nwords, char *why,
                            size_t whylen)
{
    struct pna_gpu_idle_rule *rule = value;
    struct pna_gpu_idle_rule r = { .set = true, .window_s = PNA_GPU_IDLE_DEFAULT_WINDOW_S };
    if (nwords < 1 || nwords > 2) {
        snprintf(why, whylen, "expected PERCENT [WINDOW]");
        return -1;
    }
    if (parse_percent(words[0], &r.threshold_bp) != 0) {
        snprintf(why, whylen, "'%s' is not a percentage from 0 to 100 (at most two decimals)",
                 words[0]);
        return -1;
    }
    if (nwords == 2 && parse_window(words[1], &r.window_s) != 0) {
        snprintf(why, whylen, "'%s' is not a window of 0 to %u seconds (a number, with s, m, h or "
                 "d)", words[1], PNA_GPU_IDLE_MAX_WINDOW_S);
        return -1;
    }
    *rule = r;
    return 0;
}

struct pna_gpu_idle_rule pna_gpu_idle_rule_effective(const struct pna_gpu_idle_rule *rule)
{
    if (rule && rule->set)
        return *rule;
    return (struct pna_gpu_idle_rule){ .set = false, .threshold_bp = PNA_GPU_IDLE_DEFAULT_BP,
                                       .window_s = PNA_GPU_IDLE_DEFAULT_WINDOW_S };
}

bool pna_gpu_idle_activity(const struct pna_gpu *g, uint32_t *bp)
{
    if (g->has_activity[PNA_GPU_ACT_SM]) {
        *bp = g->activity_bp[PNA_GPU_ACT_SM];
        return true;
    }
    if (g->has_activity[PNA_GPU_ACT_GRAPHICS]) {
        *bp = g->activity_bp[PNA_GPU_ACT_GRAPHICS];
        return true;
    }
    if (g->has_util_gpu) {
        *bp = g->util_gpu_pct * 100;
        return true;
    }
    return false;
}

enum pna_gpu_idle_verdict pna_gpu_idle_step(const struct pna_gpu_idle_rule *rule,
                                            struct pna_gpu_idle_track *t, uint64_t holders,
                                            bool has_bp, uint32_t bp, int64_t now_ms,
                                            int64_t *since_ms)
{
    bool same_holders = t->holders == holders;
    t->holders = holders;
    *since_ms = 0;
    if (!holders) {
        t->low = false;
        return PNA_GPU_IDLE_NO;
    }
    if (!has_bp) {
        /* no figure this poll: no verdict, and the window starts again */
        t->low = false;
        return PNA_GPU_IDLE_UNKNOWN;
    }
    if (bp >= rule->threshold_bp) {
        t->low = false;
        return PNA_GPU_IDLE_NO;
    }
    if (!t->low || !same_holders || now_ms < t->low_since_ms) {
        /* a new holder's window starts at its first low poll; so does one
         * after the clock stepped back */
        t->low = true;
        t->low_since_ms = now_ms;
    }
    *since_ms = t->low_since_ms;
    return now_ms - t->low_since_ms >= (int64_t)rule->window_s * 1000 ? PNA_GPU_IDLE_YES
                                                                       : PNA_GPU_IDLE_NO;
}

