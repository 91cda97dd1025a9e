/* snmp/log_gate.c -- the rate-limiting gate in front of net-snmp's log
 * handlers (see log_gate.h). */
#include "pna_autoconf.h"
#include "snmp/log_gate.h"
#include "core/cache.h"
#include "core/ratelimit.h"

#include <string.h>

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>

#define MAX_OUTPUTS 8

static struct {
    netsnmp_log_handler *self;
    netsnmp_log_handler *outputs[MAX_OUTPUTS];  /* disabled, written to by hand */
    size_t n_outputs;
    unsigned alarm;
    bool mute_v1;
} gate;

static int64_t monotonic_seconds(void)
{
    return pna_mono_ms() / 1000;
}

/* What net-snmp's own loop would do with an enabled handler: a handler takes
 * priorities from its pri_max (most severe) to its priority (least). */
static void write_out(int priority, const char *text)
{
    for (size_t i = 0; i < gate.n_outputs; i++) {
        netsnmp_log_handler *h = gate.outputs[i];
        if (priority <= h->priority && priority >= h->pri_max)
            h->handler(h, priority, text);
    }
}

static void write_summary(int priority, const char *line, void *arg)
{
    (void)arg;
    char text[512];
    snprintf(text, sizeof text, "%s\n", line);
    write_out(priority, text);
}

/* net-snmp says these for every notification that has a Counter64 varbind,
 * whether or not an SNMPv1 sink exists (it builds the v1 form first). */
static bool is_v1_conversion_line(const char *text)
{
    return strstr(text, "send_trap: v1 traps can't carry Counter64 varbinds") ||
           strstr(text, "send_trap: failed to convert v2->v1 template PDU");
}

static int gate_handler(netsnmp_log_handler *self, int priority, const char *text)
{
    (void)self;
    if (gate.mute_v1 && is_v1_conversion_line(text))
        return 1;
    if (pna_ratelimit_admit(priority, text, monotonic_seconds()))
        write_out(priority, text);
    return 1;
}

static void on_second(unsigned int reg, void *arg)
{
    (void)reg;
    (void)arg;
    pna_ratelimit_tick(monotonic_seconds(), write_summary, NULL);
}

void pna_log_gate_install(unsigned interval_s)
{
    if (gate.self)
        return;
    pna_ratelimit_configure(interval_s);
    for (netsnmp_log_handler *h = get_logh_head(); h; h = h->next)
        if (h->enabled && gate.n_outputs < MAX_OUTPUTS)
            gate.outputs[gate.n_outputs++] = h;
    if (gate.n_outputs == 0)
        return;     /* nothing set up: net-snmp's stderr fallback stays */
    gate.self = pna_log_handler_add(gate_handler);
    if (!gate.self) {
        gate.n_outputs = 0;
        return;
    }
    for (size_t i = 0; i < gate.n_outputs; i++)
        netsnmp_disable_this_loghandler(gate.outputs[i]);
    gate.alarm = snmp_alarm_register(1, SA_REPEAT, on_second, NULL);
}

void pna_log_gate_mute_v1_conversion(bool mute)
{
    gate.mute_v1 = mute;
}

void pna_log_gate_remove(void)
{
    if (!gate.self)
        return;
    if (gate.alarm)
        snmp_alarm_unregister(gate.alarm);
    pna_ratelimit_flush(monotonic_seconds(), write_summary, NULL);
    for (size_t i = 0; i < gate.n_outputs; i++)
        netsnmp_enable_this_loghandler(gate.outputs[i]);
    pna_log_handler_retire(gate.self);
    memset(&gate, 0, sizeof gate);
}

netsnmp_log_handler *pna_log_handler_add(NetsnmpLogHandler *fn)
{
    netsnmp_log_handler *h = netsnmp_register_loghandler(NETSNMP_LOGHANDLER_CALLBACK, LOG_DEBUG);
    if (h) {
        h->handler = fn;
        h->pri_max = LOG_EMERG;
    }
    return h;
}

void pna_log_handler_retire(netsnmp_log_handler *h)
{
    /* Disabled, not removed: netsnmp_remove_loghandler() clears the
     * per-priority index of every handler, not only its own. */
    if (h)
        netsnmp_disable_this_loghandler(h);
}
