/* core/log.c -- thread-safe logging: lines reach the installed sink only on
 * the main thread; other threads queue them (see log.h). */
#include "pna_autoconf.h"
#include "core/log.h"
#include "core/events.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#define LOG_QUEUE_LEN 64
#define LOG_LINE_MAX 512

struct log_line {
    int priority;
    char text[LOG_LINE_MAX];
};

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static struct log_line queue[LOG_QUEUE_LEN];
static size_t queue_head, queue_len;
static unsigned long lines_dropped;
static _Atomic(pna_log_sink *) sink;
static pthread_t main_thread;

void pna_log_set_sink(pna_log_sink *s)
{
    main_thread = pthread_self();
    atomic_store(&sink, s);
}

static void enqueue(int priority, const char *text)
{
    pthread_mutex_lock(&log_lock);
    if (queue_len == LOG_QUEUE_LEN) {
        lines_dropped++;
    } else {
        struct log_line *l = &queue[(queue_head + queue_len) % LOG_QUEUE_LEN];
        l->priority = priority;
        snprintf(l->text, sizeof l->text, "%s", text);
        queue_len++;
    }
    pthread_mutex_unlock(&log_lock);
}

void pna_log(int priority, const char *fmt, ...)
{
    char text[LOG_LINE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    pna_log_sink *s = atomic_load(&sink);
    if (!s) {
        fprintf(stderr, "%s\n", text);
        return;
    }
    if (pthread_equal(pthread_self(), main_thread))
        s(priority, text);
    else {
        enqueue(priority, text);
        pna_wake_main();
    }
}

void pna_log_flush(void)
{
    pna_log_sink *s = atomic_load(&sink);
    for (;;) {
        struct log_line l;
        unsigned long dropped;
        pthread_mutex_lock(&log_lock);
        if (queue_len == 0) {
            dropped = lines_dropped;
            lines_dropped = 0;
            pthread_mutex_unlock(&log_lock);
            if (dropped && s) {
                char text[64];
                snprintf(text, sizeof text, "%lu log lines dropped (queue full)", dropped);
                s(LOG_WARNING, text);
            }
            return;
        }
        l = queue[queue_head];
        queue_head = (queue_head + 1) % LOG_QUEUE_LEN;
        queue_len--;
        pthread_mutex_unlock(&log_lock);
        if (s)
            s(l.priority, l.text);
        else
            fprintf(stderr, "%s\n", l.text);
    }
}
