/* core/poller.h -- the poller core: one thread per source, scheduling, deadlines,
 * error counting and state-change events, written once for every collector.
 *
 * A source is one `struct pna_poller_ops` (src/pollers/<x>_poller.c) plus one
 * line in src/pollers/registry.c and one in src/pollers/pollers.h.  main.c
 * hands the registry to the core (pna_pollers_start()); the core knows no
 * poller by name.  The core
 * runs collect() on the poller's own thread every interval; a successful run publishes the new snapshot to the
 * cache, a failed or overdue one keeps the last good snapshot, counts the error
 * and posts PNA_EV_POLLER_FAILED once (and PNA_EV_POLLER_RECOVERED when it
 * works again). */
#ifndef PNA_POLLER_H
#define PNA_POLLER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/cache.h"

struct pna_config;
struct pna_config_key;
struct pna_roots;

/* Returned by init() when the source does not exist on this node (no GPU, no
 * docker socket...): the poller row shows "disabled" and nothing is logged again. */
#define PNA_POLLER_DISABLED 1
/* Returned by init() when the source is absent for now but may appear without
 * a restart (a GPU driver installed after boot): the row shows "disabled" with
 * the reason, init() is retried quietly at every interval, and polling starts
 * once it succeeds. */
#define PNA_POLLER_ABSENT 2

/* A set of domains, one bit per enum pna_domain. */
#define PNA_DOM_BIT(d) (1u << (unsigned)(d))

/* What collect() reads of other domains: for each domain named in the
 * poller's `inputs`, the cache's current snapshot (NULL until that domain's
 * first poll), with one reference the core holds for the length of the call.
 * Read them with pna_poller_input(). */
struct pna_poller_inputs {
    uint32_t declared;                          /* the poller's ops->inputs */
    const struct pna_snap *snap[PNA_DOM_COUNT];
};

/* Input DOMAIN of IN, or NULL: IN is NULL, DOMAIN has no snapshot yet, or the
 * poller did not declare it (an undeclared domain is never handed out). */
const struct pna_snap *pna_poller_input(const struct pna_poller_inputs *in,
                                        enum pna_domain domain);

struct pna_poller_ops {
    const char *name;              /* config token and primusPollerName */
    uint32_t index;                /* primusPollerIndex: fixed, never reused */
    enum pna_domain domain;        /* the cache slot it publishes */
    uint32_t inputs;               /* PNA_DOM_BIT(PNA_DOM_x) for each other domain
                                      collect() reads (see struct pna_poller_inputs) */
    unsigned default_interval_ms;
    unsigned default_timeout_ms;   /* deadline for one collect() */

    /* Optional: the config tokens the poller owns (core/config.h), ended by
     * one with a NULL token, and the size of the settings struct their values
     * go to (the poller's own, declared in pollers/pollers.h). */
    const struct pna_config_key *keys;
    size_t settings_size;

    /* Optional.  Runs on the poller thread before the first collect(): CFG
     * holds the agent's settings (the roots, the node name), SETTINGS the
     * poller's own keys' values (NULL when it has no keys); both outlive the
     * poller, so init() may keep pointers into them.  Returns 0,
     * PNA_POLLER_DISABLED, PNA_POLLER_ABSENT, or a negative value with ERR
     * filled (the poller then retries init at every interval, counting errors). */
    int (*init)(void **state, const struct pna_config *cfg, const void *settings, char *err,
                size_t errlen);

    /* Build a new snapshot.  PREV is the last published one (or NULL), for
     * rates and counter-wrap handling; IN holds the declared inputs (may be
     * NULL: none).  A poller reads another domain only through IN.  On success return 0 with *OUT set
     * (one reference, the core publishes it); on failure return -1 with ERR
     * filled (one line, no newline).  A success that had to leave something
     * out (an unreadable file, one of two runtimes not answering) returns 0
     * with ERR filled: the snapshot is published, the problem is counted and
     * shown in the poller's row, and the status stays ok. */
    int (*collect)(void *state, const struct pna_snap *prev,
                   const struct pna_poller_inputs *in, struct pna_snap **out,
                   char *err, size_t errlen);

    /* Optional: free STATE at shutdown. */
    void (*fini)(void *state);
};

enum pna_poller_status {
    PNA_POLLER_OK = 1,
    PNA_POLLER_FAILING = 2,
    PNA_POLLER_TIMED_OUT = 3,
    PNA_POLLER_OFF = 4,       /* disabled: source absent or switched off in config */
    PNA_POLLER_PENDING = 5,   /* no poll finished yet */
};

/* A copy of one poller's counters, for the poller table and /metrics. */
struct pna_poller_info {
    uint32_t index;
    char name[32];
    unsigned interval_ms;
    unsigned timeout_ms;
    enum pna_poller_status status;
    int64_t last_success_ms;     /* CLOCK_REALTIME, 0 = never */
    uint32_t last_duration_ms;
    uint32_t runs;
    uint32_t errors;
    uint32_t consecutive_failures;
    char last_error[160];
    int64_t data_taken_ms;       /* age reference of the snapshot served, 0 = none */
};

/* One poll of OPS with STATE, as the core runs it but without publishing:
 * the previous snapshot of OPS->domain and the declared inputs are taken from
 * the cache for the call and released after.  Returns what collect() did.
 * The core's threads use it; so do tests that drive a poller by hand. */
int pna_poller_collect(const struct pna_poller_ops *ops, void *state, struct pna_snap **out,
                       char *err, size_t errlen);

/* Start a thread for every enabled poller of REGISTRY (N of them, at most
 * PNA_MAX_POLLERS; the agent's is src/pollers/registry.c, handed down by
 * main.c).  Each poller's switch, interval, deadline and settings are CFG's
 * (pna_config_poller()); a poller CFG does not know runs with its defaults,
 * unless it has keys, which it cannot run without: -1 then, as when a thread
 * cannot be made. */
int pna_pollers_start(const struct pna_config *cfg, const struct pna_poller_ops *const *registry,
                      size_t n);

/* Main thread, about once a second: notice polls that overran their deadline
 * (the thread is stuck in a source) and report them. */
void pna_pollers_watchdog(void);

/* Ask every poller to stop and join the threads (a thread stuck in a source
 * is detached after a grace period rather than waited for forever). */
void pna_pollers_stop(void);

/* Ask every poller to poll now (tests; SIGHUP through the serving loop).
 * It takes the pollers' locks: never call it from a signal handler. */
void pna_pollers_kick(void);

/* Any thread: ask the poller with primusPollerIndex INDEX to poll now (an
 * event source saw a change, e.g. a container was created). */
void pna_poller_wake(uint32_t index);

size_t pna_pollers_count(void);
bool pna_pollers_info(size_t i, struct pna_poller_info *out);

/* True when every enabled poller finished at least one poll (HTTP /ready). */
bool pna_pollers_all_ran(void);

#endif
