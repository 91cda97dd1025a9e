/* snmp/agent.c -- net-snmp set-up and the main loop.
 *
 * This is the only thread that touches net-snmp (ARCHITECTURE.md rule 1).  The
 * loop is net-snmp's agent_check_and_process() with pselect() for select():
 * pollers wake it with a signal sent to this thread alone (the event queue's
 * waker), and a one-second alarm runs the poller watchdog, so pollers never
 * call into net-snmp. */
#include "pna_autoconf.h"
#include "snmp/agent.h"
#include "snmp/directive_errors.h"
#include "core/config.h"
#include "snmp/notify.h"
#include "snmp/table.h"
#include "core/events.h"
#include "core/log.h"
#include "core/poller.h"
#include "util/array.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/select.h>

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <net-snmp/agent/net-snmp-agent-includes.h>
#include <net-snmp/agent/ds_agent.h>
#include <net-snmp/agent/agent_callbacks.h>
#include <net-snmp/library/large_fd_set.h>

/* A standalone agent's config tokens for access control (rocommunity, rouser,
 * view, access...) and USM users (createUser) come from init_agent() itself:
 * in the master role it runs the agent library's modules, among them
 * mibII/vacm_conf and snmpv3/usmConf, which register tokens and no MIB
 * object.  Nothing from libnetsnmpmibs is initialised: init_usmUser() there
 * would serve the writable usmUserTable (user names, key changes, row
 * deletion), init_vacm_vars() the VACM tables, and so on. */

/* Values of NETSNMP_DS_AGENT_ROLE (net-snmp keeps its names private). */
enum { ROLE_MASTER = 0, ROLE_SUBAGENT = 1 };

static volatile sig_atomic_t stop_requested, kick_requested;

/* ---- net-snmp directives from the config file --------------------------- */

/* One directive, copied from pna_config_load()'s callback, kept until
 * net-snmp has read it and the agent has checked what it did. */
struct remembered {
    char *text, *file, *user, *engine_id;   /* user, engine_id: createUser only */
    unsigned line;
};

static struct remembered *remembered;
static size_t nremembered, remembered_cap;

static char *dup_or_null(const char *s, bool *ok)
{
    if (!s)
        return NULL;
    char *copy = strdup(s);
    if (!copy)
        *ok = false;
    return copy;
}

static void forget_remembered(void)
{
    for (size_t i = 0; i < nremembered; i++) {
        struct remembered *r = &remembered[i];
        free(r->text);
        free(r->file);
        free(r->user);
        free(r->engine_id);
    }
    free(remembered);
    remembered = NULL;
    nremembered = remembered_cap = 0;
}

void pna_agent_remember_line(const struct pna_netsnmp_line *line, void *arg)
{
    (void)arg;
    bool ok = true;
    struct remembered r = {
        dup_or_null(line->text, &ok), dup_or_null(line->file, &ok),
        dup_or_null(line->user, &ok), dup_or_null(line->engine_id, &ok), line->line,
    };
    if (!ok || PNA_ARRAY_RESERVE(remembered, remembered_cap, nremembered + 1) != 0) {
        /* Out of memory while reading the config: nothing sensible is left. */
        fprintf(stderr, "%s:%u: out of memory\n", line->file, line->line);
        exit(1);
    }
    remembered[nremembered++] = r;
}

/* The token of a remembered line is its first word (never quoted). */
static bool token_is(const struct remembered *r, const char *token)
{
    size_t n = strcspn(r->text, " \t");
    return strlen(token) == n && strncasecmp(r->text, token, n) == 0;
}

/* A subagent has no access control, users or sinks of its own (the master's
 * snmpd.conf has them): of net-snmp's tokens only these mean something to it. */
static bool used_by_subagent(const struct remembered *r)
{
    return token_is(r, "agentXTimeout") || token_is(r, "agentXRetries");
}

static void hand_over_remembered_lines(bool standalone)
{
    for (size_t i = 0; i < nremembered; i++) {
        const struct remembered *r = &remembered[i];
        if (standalone || used_by_subagent(r)) {
            pna_directive_errors_mark(i);
            netsnmp_config_remember(r->text);   /* net-snmp copies it */
            pna_notify_note_directive(r->text); /* an SNMPv1 sink? */
        } else {
            pna_log(LOG_WARNING, "%s:%u: ignored: %.*s applies to the standalone agent "
                    "only (a subagent's access, users and sinks are the master's)",
                    r->file, r->line, (int)strcspn(r->text, " \t"), r->text);
        }
    }
}

/* net-snmp reports a createUser it refuses in its log only, as "(null): line
 * 0: ...", and goes on without the user: check that every user exists. */
static int check_users_created(void)
{
    u_char local[SNMP_MAXBUF_SMALL];
    size_t local_len = snmpv3_get_engineID(local, sizeof local);
    for (size_t i = 0; i < nremembered; i++) {
        const struct remembered *r = &remembered[i];
        if (!r->user)
            continue;
        u_char *engine = NULL;
        size_t cap = 0, len = 0;
        if (r->engine_id && !snmp_hex_to_binary(&engine, &cap, &len, 1, r->engine_id))
            len = 0;
        bool created = usm_get_user(engine ? engine : local, engine ? len : local_len,
                                    r->user) != NULL;
        free(engine);
        if (!created) {
            pna_log(LOG_ERR, "%s:%u: createUser: net-snmp did not create user '%s' "
                    "(its reason is logged above)", r->file, r->line, r->user);
            return -1;
        }
    }
    return 0;
}

void pna_agent_log_line(int priority, const char *line)
{
    snmp_log(priority, "%s\n", line);
}

/* ---- the main loop -------------------------------------------------------- */

/* Pollers wake the main thread with a signal sent to it alone, not through a
 * pipe in its select(): every descriptor in the set is polled by the kernel
 * at every SNMP request, and a wake-up is needed only a few times a poll.
 * The signal is blocked on this thread except inside pselect(), so one sent
 * while the thread works is taken by the next pselect(), which then returns
 * at once: none is lost.  Threads made later inherit the block, and the
 * signal is sent to this thread only. */
static pthread_t loop_thread;
static atomic_bool wake_pending;
static sigset_t wait_mask; /* this thread's mask inside pselect(): the wake signal open */

static int wake_signal(void)
{
    return SIGRTMIN;
}

static void on_wake_signal(int sig)
{
    (void)sig; /* ending pselect() is all it is for */
}

/* Any thread (the event queue's waker): wake the loop, once for however
 * many calls come before it looks. */
static void wake_loop(void)
{
    if (!atomic_exchange(&wake_pending, true))
        pthread_kill(loop_thread, wake_signal());
}

/* On the thread that will run the loop, before any poller thread exists. */
static int install_wake(void)
{
    struct sigaction sa;
    sigset_t block;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = on_wake_signal; /* no SA_RESTART: it must end pselect() */
    sigemptyset(&block);
    sigaddset(&block, wake_signal());
    if (sigaction(wake_signal(), &sa, NULL) != 0)
        return -1;
    int rc = pthread_sigmask(SIG_BLOCK, &block, &wait_mask);
    if (rc != 0) {
        errno = rc;
        return -1;
    }
    sigdelset(&wait_mask, wake_signal());
    loop_thread = pthread_self();
    pna_events_set_waker(wake_loop);
    return 0;
}

/* One turn of the loop: what agent_check_and_process(1) does, with pselect()
 * in its select()'s place so that the wake signal arrives only while the
 * thread waits. */
static void serve_once(void)
{
    netsnmp_large_fd_set rd, wr, ex;
    struct timeval tv = { LONG_MAX, 0 };
    int nfds = 0, forever = 0;
    netsnmp_large_fd_set_init(&rd, FD_SETSIZE);
    netsnmp_large_fd_set_init(&wr, FD_SETSIZE);
    netsnmp_large_fd_set_init(&ex, FD_SETSIZE);
    snmp_select_info2(&nfds, &rd, &tv, &forever);
    netsnmp_external_event_info2(&nfds, &rd, &wr, &ex);
    struct timespec ts = { .tv_sec = tv.tv_sec, .tv_nsec = tv.tv_usec * 1000L };
    int count = pselect(nfds, rd.lfs_setptr, wr.lfs_setptr, ex.lfs_setptr,
                        forever ? NULL : &ts, &wait_mask);
    if (count > 0) {
        netsnmp_dispatch_external_events2(&count, &rd, &wr, &ex);
        snmp_read2(&rd);
    } else if (count == 0) {
        snmp_timeout();
    } else if (errno != EINTR) {
        snmp_log_perror("pselect");
    }
    if (count >= 0) {
        run_alarms();
        netsnmp_check_outstanding_agent_requests();
    }
    netsnmp_large_fd_set_cleanup(&rd);
    netsnmp_large_fd_set_cleanup(&wr);
    netsnmp_large_fd_set_cleanup(&ex);
}

static void on_tick(unsigned int reg, void *arg)
{
    (void)reg;
    (void)arg;
    pna_pollers_watchdog();
    pna_log_flush();
}

static void set_agent_role(const struct pna_config *cfg)
{
    netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_DONT_READ_CONFIGS, 1);
    netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_DONT_PERSIST_STATE, 1);
    netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_DISABLE_PERSISTENT_LOAD, 1);
    netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_DISABLE_PERSISTENT_SAVE, 1);
    if (cfg->standalone_addr) {
        netsnmp_ds_set_boolean(NETSNMP_DS_APPLICATION_ID, NETSNMP_DS_AGENT_ROLE, ROLE_MASTER);
        netsnmp_ds_set_string(NETSNMP_DS_APPLICATION_ID, NETSNMP_DS_AGENT_PORTS,
                              cfg->standalone_addr);
        /* A standalone agent serves no AgentX master socket of its own. */
        netsnmp_ds_set_boolean(NETSNMP_DS_APPLICATION_ID, NETSNMP_DS_AGENT_AGENTX_MASTER, 0);
    } else {
        netsnmp_ds_set_boolean(NETSNMP_DS_APPLICATION_ID, NETSNMP_DS_AGENT_ROLE, ROLE_SUBAGENT);
        if (cfg->agentx_socket)
            netsnmp_ds_set_string(NETSNMP_DS_APPLICATION_ID, NETSNMP_DS_AGENT_X_SOCKET,
                                  cfg->agentx_socket);
    }
}

/* ---- read-only, and nothing but the configured listener ------------------ */

/* net-snmp asks SNMPD_CALLBACK_ACM_CHECK about every varbind of a GET or SET
 * before any handler runs; VACM answers from the view an `access` line gives.
 * Saying "not in view" to every SET makes the agent read-only whatever the
 * access lines say: the SET fails (noAccess) before any handler, net-snmp's
 * own included, is reached. */
static int refuse_set(int major, int minor, void *serverarg, void *clientarg)
{
    struct view_parameters *vp = serverarg;
    (void)major;
    (void)minor;
    (void)clientarg;
    if (vp && vp->pdu && vp->pdu->command == SNMP_MSG_SET)
        vp->errorcode = VACM_NOTINVIEW;
    return 0;
}

/* init_master_agent() opens net-snmp's SMUX port (TCP 199 on every address)
 * unless module "smux" is on the do-not-init list, as snmpd's `-I -smux` puts
 * it there.  Nothing here speaks SMUX.  Before init_agent(). */
static void no_smux(void)
{
    char list[] = "-smux";  /* add_to_init_list() cuts up its argument */
    add_to_init_list(list);
}

static void report_refused(size_t directive, const char *reason, void *arg)
{
    (void)arg;
    if (directive < nremembered)
        pna_log(LOG_ERR, "%s:%u: net-snmp refused this line: %s", remembered[directive].file,
                remembered[directive].line, reason);
    else
        pna_log(LOG_ERR, "net-snmp refused a line of the config: %s", reason);
}

/* Read the config lines and open the listener; a line net-snmp refused and
 * the users are checked before anything is served. */
static int configure_and_listen(const struct pna_config *cfg, const char *app_name)
{
    pna_directive_errors_begin(app_name);
    hand_over_remembered_lines(cfg->standalone_addr != NULL);
    init_snmp(app_name);
    int rc = pna_directive_errors_end(report_refused, NULL) ? -1 : 0;
    if (cfg->standalone_addr && check_users_created() != 0)
        rc = -1;
    forget_remembered();
    if (rc != 0)
        return -1;
    if (cfg->standalone_addr && init_master_agent() != 0) {
        pna_log(LOG_ERR, "cannot listen on %s", cfg->standalone_addr);
        return -1;
    }
    return 0;
}

int pna_agent_start(const struct pna_config *cfg, const char *app_name)
{
    /* The agent needs no MIB files at run time; without this, net-snmp tries
     * the default module list and logs hundreds of "Cannot find module". */
    setenv("MIBS", "", 1);
    set_agent_role(cfg);
    no_smux();
    SOCK_STARTUP;
    if (init_agent(app_name) != 0) {
        pna_log(LOG_ERR, "net-snmp agent initialisation failed");
        return -1;
    }
    if (cfg->standalone_addr) {
        /* Quiet by default: net-snmp would log "Connection from ..." for every
         * request; `dontLogTCPWrappersConnects no` in the config still wins. */
        netsnmp_ds_set_boolean(NETSNMP_DS_APPLICATION_ID,
                               NETSNMP_DS_AGENT_DONT_LOG_TCPWRAPPERS_CONNECTS, 1);
    } else {
        /* init_agent() resets the ping interval to its default: set it after. */
        netsnmp_ds_set_int(NETSNMP_DS_APPLICATION_ID, NETSNMP_DS_AGENT_AGENTX_PING_INTERVAL,
                           (int)cfg->agentx_ping_s);
    }
    snmp_register_callback(SNMP_CALLBACK_APPLICATION, SNMPD_CALLBACK_ACM_CHECK, refuse_set,
                           NULL);
    if (pna_snmp_tables_register() != 0 || configure_and_listen(cfg, app_name) != 0)
        return -1;
    if (install_wake() != 0) {
        pna_log(LOG_ERR, "cannot set up the event queue's wake-up signal: %s", strerror(errno));
        return -1;
    }
    snmp_alarm_register(1, SA_REPEAT, on_tick, NULL);
    return 0;
}

void pna_agent_request_stop(void)
{
    stop_requested = 1;
}

void pna_agent_request_kick(void)
{
    kick_requested = 1;
}

void pna_agent_run(void)
{
    while (!stop_requested) {
        serve_once(); /* a signal ends its pselect() */
        if (atomic_exchange(&wake_pending, false)) {
            /* Taken before the queue is read: a post after this wakes the
             * next turn. */
            pna_events_drain(pna_notify_event, NULL);
            pna_log_flush();
        }
        /* The pollers' locks are taken here, never in the signal handler:
         * the signal may land on this thread while it holds one (reading
         * the poller table), and a handler waiting for it would wait for
         * ever.  A signal just before select() waits for the next second's
         * alarm. */
        if (kick_requested) {
            kick_requested = 0;
            pna_pollers_kick();
        }
    }
}

void pna_agent_shutdown(const char *app_name)
{
    pna_events_set_waker(NULL);
    snmp_shutdown(app_name);
    shutdown_agent();
    SOCK_CLEANUP;
}
