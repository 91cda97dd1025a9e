/* test_ratelimit.c -- log lines limited per kind: first line written, the
 * rest of the interval counted and summarized once, floods of differing
 * lines held by the per-second burst.  Time is given, never read. */
#include "pna_autoconf.h"
#include "core/ratelimit.h"

#include <stdio.h>
#include <string.h>
#include <syslog.h>

#include "unit.h"

static char last_summary[512];
static int last_priority;
static int summaries;

static void catch_summary(int priority, const char *line, void *arg)
{
    (void)arg;
    snprintf(last_summary, sizeof last_summary, "%s", line);
    last_priority = priority;
    summaries++;
}

static void reset_summaries(void)
{
    last_summary[0] = '\0';
    last_priority = -1;
    summaries = 0;
}

/* The SNMPv3 replay: one text, thousands of times a second. */
static void test_one_kind_flood(void)
{
    pna_ratelimit_configure(60);
    reset_summaries();
    int written = 0;
    for (int64_t t = 100; t < 130; t++)
        for (int i = 0; i < 1000; i++)
            written += pna_ratelimit_admit(LOG_WARNING, "Authentication failed for primus\n", t);
    CHECK_INT(written, 1);
    for (int64_t t = 100; t < 160; t++)
        pna_ratelimit_tick(t, catch_summary, NULL);
    CHECK_INT(summaries, 0);            /* the interval has not ended */
    pna_ratelimit_tick(160, catch_summary, NULL);
    CHECK_INT(summaries, 1);
    CHECK_STR(last_summary,
              "suppressed 29999 similar messages in the last 60 s: Authentication failed for primus");
    CHECK_INT(last_priority, LOG_WARNING);
    /* Still flooding: counted on, not written again; one summary a minute. */
    CHECK_INT(pna_ratelimit_admit(LOG_WARNING, "Authentication failed for primus\n", 161), 0);
    pna_ratelimit_tick(219, catch_summary, NULL);
    CHECK_INT(summaries, 1);
    pna_ratelimit_tick(220, catch_summary, NULL);
    CHECK_INT(summaries, 2);
    CHECK_STR(last_summary,
              "suppressed 1 similar messages in the last 60 s: Authentication failed for primus");
    /* A quiet interval forgets the kind: the next line is a first again. */
    pna_ratelimit_tick(280, catch_summary, NULL);
    CHECK_INT(summaries, 2);
    CHECK_INT(pna_ratelimit_admit(LOG_WARNING, "Authentication failed for primus\n", 281), 1);
    CHECK_U64(pna_ratelimit_suppressed_total(), 30000);
}

/* Numbers do not make a new kind; other words do. */
static void test_kinds(void)
{
    pna_ratelimit_configure(60);
    reset_summaries();
    CHECK_INT(pna_ratelimit_admit(LOG_INFO, "Connection from UDP: [127.0.0.1]:40112\n", 5), 1);
    CHECK_INT(pna_ratelimit_admit(LOG_INFO, "Connection from UDP: [127.0.0.1]:40113\n", 5), 0);
    CHECK_INT(pna_ratelimit_admit(LOG_INFO, "Connection from UDP: [10.2.0.17]:9\n", 6), 0);
    CHECK_INT(pna_ratelimit_admit(LOG_WARNING, "cgroup /kubepods/a: memory.events unreadable", 6), 1);
    CHECK_INT(pna_ratelimit_admit(LOG_WARNING, "cgroup /kubepods/b: memory.events unreadable", 6), 1);
    CHECK_INT(pna_ratelimit_admit(LOG_WARNING, "cgroup /kubepods/b: memory.events unreadable", 7), 0);
    /* The summary carries the most severe priority suppressed. */
    CHECK_INT(pna_ratelimit_admit(LOG_ERR, "Connection from UDP: [127.0.0.1]:1\n", 8), 0);
    pna_ratelimit_tick(65, catch_summary, NULL);
    CHECK_INT(summaries, 1);            /* the connections' interval began at 5 */
    CHECK_INT(last_priority, LOG_ERR);
    pna_ratelimit_tick(66, catch_summary, NULL);
    CHECK_INT(summaries, 2);            /* cgroup b's at 6; cgroup a's is forgotten */
    pna_ratelimit_flush(66, catch_summary, NULL);
    CHECK_INT(summaries, 2);            /* nothing left to say */
}

/* A flood whose every line differs (a new user name each time): the burst. */
static void test_burst(void)
{
    pna_ratelimit_configure(60);
    reset_summaries();
    int written = 0;
    char text[64];
    for (int i = 0; i < 5000; i++) {
        snprintf(text, sizeof text, "Authentication failed for user-%c%c%c", 'a' + i % 26,
                 'a' + i / 26 % 26, 'a' + i / 676 % 26);
        written += pna_ratelimit_admit(LOG_WARNING, text, 300);
    }
    CHECK_INT(written, PNA_RATELIMIT_BURST);
    pna_ratelimit_tick(300, catch_summary, NULL);
    CHECK_INT(summaries, 0);            /* the second is not over */
    pna_ratelimit_tick(301, catch_summary, NULL);
    CHECK_INT(summaries, 1);
    CHECK_STR(last_summary, "suppressed 4950 messages over the limit of 50 a second");
    /* The next second has a fresh burst. */
    CHECK_INT(pna_ratelimit_admit(LOG_WARNING, "something else", 301), 1);
}

static void test_off_and_flush(void)
{
    pna_ratelimit_configure(0);
    for (int i = 0; i < 100; i++)
        CHECK_INT(pna_ratelimit_admit(LOG_INFO, "same", 1), 1);
    pna_ratelimit_configure(60);
    reset_summaries();
    pna_ratelimit_admit(LOG_INFO, "same", 1);
    pna_ratelimit_admit(LOG_NOTICE, "same", 2);
    pna_ratelimit_flush(3, catch_summary, NULL);
    CHECK_INT(summaries, 1);
    CHECK_STR(last_summary, "suppressed 1 similar messages in the last 2 s: same");
    CHECK_INT(last_priority, LOG_NOTICE);
}

int main(void)
{
    test_one_kind_flood();
    test_kinds();
    test_burst();
    test_off_and_flush();
    UNIT_END();
}
