/* core/log.c -- thread-safe logging that reaches net-snmp only on the main thread. */
#include "pna_autoconf.h"
#include "core/log.h"
#include "core/events.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>

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
static atomic_int use_netsnmp;
static pthread_t main_thread;

void pna_log_use_netsnmp(int on)
{
    main_thread = pthread_self();
    atomic_store(&use_netsnmp, on);
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
    if (!atomic_load(&use_netsnmp)) {
        fprintf(stderr, "%s\n", text);
        return;
    }
    if (pthread_equal(pthread_self(), main_thread))
        snmp_log(priority, "%s\n", text);
    else {
        enqueue(priority, text);
        pna_wake_main();
    }
}

void pna_log_flush(void)
{
    for (;;) {
        struct log_line l;
        unsigned long dropped;
        pthread_mutex_lock(&log_lock);
        if (queue_len == 0) {
            dropped = lines_dropped;
            lines_dropped = 0;
            pthread_mutex_unlock(&log_lock);
            if (dropped)
                snmp_log(LOG_WARNING, "%lu log lines dropped (queue full)\n", dropped);
            return;
        }
        l = queue[queue_head];
        queue_head = (queue_head + 1) % LOG_QUEUE_LEN;
        queue_len--;
        pthread_mutex_unlock(&log_lock);
        snmp_log(l.priority, "%s\n", l.text);
    }
}
