/* snmp/directive_errors.c -- which of the config's net-snmp directives did
 * net-snmp refuse?
 *
 * net-snmp reads the directives the agent hands over (netsnmp_config_remember)
 * inside init_snmp(), and reports one it refuses only in its log, as
 * "(null): line 0: Error: REASON", and goes on without it.  So before each
 * directive the agent hands over a marker line of a token of its own
 * ("pnaDirectiveMark N"), which net-snmp processes in order; a log observer,
 * enabled for the length of init_snmp(), pins each error on the directive
 * whose marker came last. */
#include "pna_autoconf.h"
#include "snmp/directive_errors.h"
#include "snmp/log_gate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>

#define MARK_TOKEN "pnaDirectiveMark"
#define MAX_ERRORS 16
#define ERROR_TAG "line 0: Error: "

static struct {
    const char *app_name;
    netsnmp_log_handler *observer;
    size_t current;                 /* the directive being read, or NONE */
    size_t count;
    struct { size_t directive; char reason[200]; } errors[MAX_ERRORS];
} de;

static void on_mark(const char *token, char *value)
{
    (void)token;
    de.current = (size_t)strtoull(value, NULL, 10);
}

/* A line of net-snmp's log while it reads the directives. */
static int observe(netsnmp_log_handler *self, int priority, const char *text)
{
    (void)self;
    (void)priority;
    const char *tag = strstr(text, ERROR_TAG);
    if (!tag || de.count == MAX_ERRORS)
        return 1;
    const char *reason = tag + strlen(ERROR_TAG);
    de.errors[de.count].directive = de.current;
    snprintf(de.errors[de.count].reason, sizeof de.errors[de.count].reason, "%.*s",
             (int)strcspn(reason, "\n"), reason);
    de.count++;
    return 1;
}

void pna_directive_errors_begin(const char *app_name)
{
    memset(&de, 0, sizeof de);
    de.app_name = app_name;
    de.current = PNA_DIRECTIVE_NONE;
    register_config_handler(app_name, MARK_TOKEN, on_mark, NULL, NULL);
    de.observer = pna_log_handler_add(observe);
}

void pna_directive_errors_mark(size_t directive)
{
    char line[64];
    snprintf(line, sizeof line, MARK_TOKEN " %zu", directive);
    netsnmp_config_remember(line);      /* net-snmp copies it */
}

size_t pna_directive_errors_end(pna_directive_error_report *report, void *arg)
{
    pna_log_handler_retire(de.observer);
    unregister_config_handler(de.app_name, MARK_TOKEN);
    for (size_t i = 0; i < de.count; i++)
        report(de.errors[i].directive, de.errors[i].reason, arg);
    return de.count;
}
