/* watchers/oom_ledger.c -- which OOM kills are news (see oom_ledger.h).
 *
 * The watched containers are an array sorted by id, rebuilt at every sync by
 * merging it with the sorted targets; the containers that left it lately are
 * a second array, oldest first.  Each entry's strings are one block, as long
 * as they are: 2,000 containers are kept. */
#include "pna_autoconf.h"
#include "watchers/oom_ledger.h"
#include "core/log.h"
#include "model/counter.h"
#include "util/array.h"
#include "util/fileio.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A container gone from the watched set stays known this long: the runtime's
 * own OOM notice (Docker's "oom" event) can come after the poll that saw the
 * container exit.  A notice within SAME_KILL_MS of a kill the ledger counted,
 * for a cgroup that cannot be read any more, is taken as that same kill.
 *
 * An OOM is signalled before its kill is counted: v1's eventfd and the
 * runtime's notice fire when the cgroup enters OOM, and the kernel counts the
 * kill only after it has chosen the victim and written its report.  When the
 * victim is the container's PID 1, the runtime may remove the cgroup before a
 * re-read sees the count go up; a cgroup that vanishes within SAME_KILL_MS of
 * such a signal, its count unmoved, takes that kill with it, and it is
 * counted then. */
#define GONE_KEEP_MS 10000
#define GONE_MAX 4096
#define SAME_KILL_MS 5000

struct entry {
    char *names;             /* id, name, pod, namespace, cgroup path: NUL after each */
    const char *id, *name, *pod, *namespace_, *cgroup_path;   /* into NAMES */
    void *armed;             /* the owner's notification handle, NULL none */
    uint64_t last;           /* last count reported or taken as the start: the
                                cgroup's high-water mark, never lowered while
                                the cgroup is the same (see account()) */
    struct pna_cgroup_id cg; /* the directory LAST was read in, when has_cg */
    bool has_cg;
    bool from_zero;          /* kills since it was first seen count (not at the first sync) */
    bool warned;             /* a decrease in this cgroup has been logged */
    bool readable;           /* the last read of its count worked */
    int64_t recheck_until;   /* read again until then; 0 none */
    int64_t read_kill_ms;    /* the last kill counted from the cgroup itself: a
                                read of its count, or an OOM it signalled before
                                it vanished (not a runtime's notice); 0 none */
    int64_t oom_signal_ms;   /* an OOM signalled (v1 eventfd, runtime notice)
                                that the count has not shown yet; 0 none */
    int64_t gone_until;      /* in the gone list: forgotten after this */
};

struct pna_oom_ledger {
    struct pna_oom_ledger_hooks hooks;
    struct entry *entries;   /* sorted by id */
    size_t count;
    struct entry *gone;      /* left the set lately, disarmed; oldest first */
    size_t ngone, gone_cap;
    bool primed;             /* sync ran once */
    uint64_t reported, kills, decreases;
};

void pna_oom_hits_free(struct pna_oom_hits *h)
{
    free(h->v);
    h->v = NULL;
    h->n = h->cap = 0;
}

/* ---- counting ------------------------------------------------------------------ */

static void add_hit(struct pna_oom_hits *h, const struct entry *e, uint64_t prev, uint64_t count)
{
    if (PNA_ARRAY_RESERVE(h->v, h->cap, h->n + 1) != 0)
        return;
    struct pna_oom_who *who = &h->v[h->n].who;
    pna_strlcpy(who->id, e->id, sizeof who->id);
    pna_strlcpy(who->name, e->name, sizeof who->name);
    pna_strlcpy(who->pod, e->pod, sizeof who->pod);
    pna_strlcpy(who->namespace_, e->namespace_, sizeof who->namespace_);
    pna_strlcpy(who->cgroup_path, e->cgroup_path, sizeof who->cgroup_path);
    h->v[h->n].kill_count = count;
    h->v[h->n].prev_count = prev;
    h->n++;
}

/* A count lower than the high-water mark in the same cgroup: the kernel's
 * oom_kill never goes down while a cgroup lives, so the file is not telling
 * the truth (or something rewrites it).  Taking the drop as a new start would
 * count every climb back as new kills (a count flipping between 0 and 1000
 * would add 1000 per flip), so it is ignored, counted, and logged once per
 * cgroup: a file that flips a thousand times a second makes one line. */
static void ignore_decrease(struct pna_oom_ledger *l, struct entry *e, uint64_t count)
{
    l->decreases++;
    if (e->warned)
        return;
    e->warned = true;
    pna_log(LOG_WARNING,
            "containers: oom_kill of container %.80s went down from %llu to %llu in the same "
            "cgroup (%.200s); ignored (further decreases in this cgroup are counted, not logged)",
            e->id, (unsigned long long)e->last, (unsigned long long)count, e->cgroup_path);
}

/* COUNT was read in the cgroup directory CG (NULL: not known, a count from
 * elsewhere, taken as the same cgroup).  The rule is pna_counter_hold()'s:
 * another directory than the one counted so far means the container's cgroup
 * was made anew (a restarted Docker container keeps its id and path), its
 * count started at zero, so all of it is new kills; in the same cgroup a
 * higher count is one report, however many kills it covers, and a lower one
 * is ignored (ignore_decrease()). */
static void account(struct pna_oom_ledger *l, struct entry *e, uint64_t count,
                    const struct pna_cgroup_id *cg, int64_t now, struct pna_oom_hits *h)
{
    bool same = !cg || !e->has_cg || pna_cgroup_id_equal(cg, &e->cg);
    uint64_t prev = e->last, added;
    if (cg) {
        e->cg = *cg;
        e->has_cg = true;
    }
    switch (pna_counter_hold(&e->last, count, same, &added)) {
    case PNA_HOLD_RESTART:
        e->warned = false;   /* a new cgroup: its first decrease is news again */
        prev = 0;
        break;
    case PNA_HOLD_DROP:
        ignore_decrease(l, e, count);
        return;
    case PNA_HOLD_SAME:
    case PNA_HOLD_UP:
        break;
    }
    if (added) {
        add_hit(h, e, prev, count);
        if (cg)
            e->read_kill_ms = now;
        e->oom_signal_ms = 0;
        l->reported++;
        l->kills += added;
    }
}

/* A kill of E's cgroup's own (read, or taken at its end) in the last
 * SAME_KILL_MS: a signal or notice now is about that kill. */
static bool recent_own_kill(const struct entry *e, int64_t now)
{
    return e->read_kill_ms && now - e->read_kill_ms < SAME_KILL_MS;
}

/* An OOM signalled in the last SAME_KILL_MS whose kill the count has not
 * shown yet. */
static bool signal_pending(const struct entry *e, int64_t now)
{
    return e->oom_signal_ms && now - e->oom_signal_ms < SAME_KILL_MS;
}

/* An OOM was signalled for E (v1 eventfd, a runtime's notice) and a read
 * just now found its count unmoved: the kill is still to be counted, unless
 * a kill read from the cgroup in the last SAME_KILL_MS was this OOM's. */
static void note_signal(struct entry *e, uint64_t count_before, int64_t now)
{
    if (e->readable && e->last == count_before && !recent_own_kill(e, now))
        e->oom_signal_ms = now;
}

/* E's cgroup cannot be read any more.  An OOM signalled in the last
 * SAME_KILL_MS whose kill the count never showed was that cgroup's end (see
 * SAME_KILL_MS): counted now, as a kill of the cgroup's own. */
static void cgroup_vanished(struct pna_oom_ledger *l, struct entry *e, int64_t now,
                            struct pna_oom_hits *h)
{
    bool pending = signal_pending(e, now);
    e->oom_signal_ms = 0;
    if (!pending)
        return;
    account(l, e, e->last + 1, NULL, now, h);
    e->read_kill_ms = now;
}

/* Read E's count and the identity of the directory it is in, together.
 * Returns 0, -ENOENT when the cgroup (or its file) is not there, or another
 * negative errno (no path known yet: -EINVAL). */
static int read_state(struct pna_oom_ledger *l, const struct entry *e, uint64_t *count,
                      struct pna_cgroup_id *cg)
{
    if (!e->cgroup_path[0])
        return -EINVAL;
    return l->hooks.read(l->hooks.ctx, e->cgroup_path, count, cg);
}

static void recheck(struct pna_oom_ledger *l, struct entry *e, int64_t now, struct pna_oom_hits *h)
{
    uint64_t count;
    struct pna_cgroup_id cg;
    int rc = read_state(l, e, &count, &cg);
    e->readable = rc == 0;
    if (e->readable)
        account(l, e, count, &cg, now, h);
    else if (rc == -ENOENT)   /* not a file that did not parse: the cgroup is gone */
        cgroup_vanished(l, e, now, h);
}

static struct entry *find(struct pna_oom_ledger *l, const char *id)
{
    size_t lo = 0, hi = l->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(l->entries[mid].id, id);
        if (c == 0)
            return &l->entries[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* ---- entries -------------------------------------------------------------------- */

static void arm(struct pna_oom_ledger *l, struct entry *e)
{
    if (!e->armed && e->cgroup_path[0])
        e->armed = l->hooks.arm(l->hooks.ctx, e->id, e->cgroup_path);
}

static void disarm(struct pna_oom_ledger *l, struct entry *e)
{
    if (e->armed)
        l->hooks.disarm(l->hooks.ctx, e->armed);
    e->armed = NULL;
}

static bool same_names(const struct entry *e, const struct pna_oom_target *t)
{
    return strcmp(e->id, t->id) == 0 && strcmp(e->name, t->name) == 0 &&
           strcmp(e->pod, t->pod) == 0 && strcmp(e->namespace_, t->namespace_) == 0 &&
           strcmp(e->cgroup_path, t->cgroup_path) == 0;
}

/* Copy T's strings into one block for E.  Returns -1 when out of memory (E
 * unchanged). */
static int set_names(struct entry *e, const struct pna_oom_target *t)
{
    const char *parts[5] = { t->id, t->name, t->pod, t->namespace_, t->cgroup_path };
    size_t len[5], total = 0;
    for (int i = 0; i < 5; i++)
        total += (len[i] = strlen(parts[i])) + 1;
    char *block = malloc(total), *p = block;
    if (!block)
        return -1;
    const char **into[5] = { &e->id, &e->name, &e->pod, &e->namespace_, &e->cgroup_path };
    for (int i = 0; i < 5; i++) {
        memcpy(p, parts[i], len[i] + 1);
        *into[i] = p;
        p += len[i] + 1;
    }
    free(e->names);
    e->names = block;
    return 0;
}

static void drop_entry(struct pna_oom_ledger *l, struct entry *e)
{
    disarm(l, e);
    free(e->names);
    e->names = NULL;
}

/* Forget the gone entries whose time is up, and the oldest quarter when the
 * list is full. */
static void expire_gone(struct pna_oom_ledger *l, int64_t now)
{
    size_t k = 0;
    while (k < l->ngone && (l->gone[k].gone_until <= now || (l->ngone >= GONE_MAX &&
                                                             k < GONE_MAX / 4)))
        free(l->gone[k++].names);
    if (k) {
        memmove(l->gone, l->gone + k, (l->ngone - k) * sizeof *l->gone);
        l->ngone -= k;
    }
}

/* E left the watched set: disarmed, and kept in the gone list for
 * GONE_KEEP_MS (E is left owning nothing).  Returns the kept copy, or NULL
 * when out of memory (E dropped). */
static struct entry *remember_departed(struct pna_oom_ledger *l, struct entry *e, int64_t now)
{
    disarm(l, e);
    expire_gone(l, now);
    if (PNA_ARRAY_RESERVE(l->gone, l->gone_cap, l->ngone + 1) != 0) {
        drop_entry(l, e);
        return NULL;
    }
    e->gone_until = now + GONE_KEEP_MS;
    if (!e->oom_signal_ms)   /* else read until the count moves or the cgroup goes */
        e->recheck_until = 0;
    l->gone[l->ngone] = *e;
    e->names = NULL;
    return &l->gone[l->ngone++];
}

static struct entry *find_gone(struct pna_oom_ledger *l, const char *id, int64_t now)
{
    for (size_t i = l->ngone; i-- > 0;)   /* the newest first */
        if (l->gone[i].gone_until > now && strcmp(l->gone[i].id, id) == 0)
            return &l->gone[i];
    return NULL;
}

static int init_entry(struct pna_oom_ledger *l, struct entry *e, const struct pna_oom_target *t,
                      bool from_zero)
{
    memset(e, 0, sizeof *e);
    if (set_names(e, t) < 0)
        return -1;
    /* No cgroup path yet (the runtime has not said): nothing to read or
     * arm, but the container is known, so a runtime's notice counts. */
    uint64_t count = 0;
    e->readable = read_state(l, e, &count, &e->cg) == 0;
    e->has_cg = e->readable;
    e->last = from_zero ? 0 : count;
    e->from_zero = from_zero;
    return 0;
}

/* E takes over what FROM counted: a kill already reported for the same
 * container is not reported again.  A cgroup made anew since is told apart
 * by its identity, as always (account()). */
static void resume_entry(struct entry *e, const struct entry *from)
{
    e->last = from->last;
    e->cg = from->cg;
    e->has_cg = from->has_cg;
    e->warned = from->warned;
    e->read_kill_ms = from->read_kill_ms;
    e->oom_signal_ms = from->oom_signal_ms;
}

/* A container seen for the first time (or again): watched from now on. */
static int add_entry(struct pna_oom_ledger *l, struct entry *out, const struct pna_oom_target *t,
                     bool from_zero, int64_t now, struct pna_oom_hits *h)
{
    if (init_entry(l, out, t, from_zero) < 0)
        return -1;
    arm(l, out);
    /* Back within GONE_KEEP_MS (or known so far from a notice only).  Not
     * at the first sync, which takes every count as it is. */
    struct entry *gone = from_zero ? find_gone(l, t->id, now) : NULL;
    if (gone) {
        resume_entry(out, gone);
        gone->gone_until = 0;   /* forgotten: OUT speaks for it now */
    }
    /* A kill in its first moments, before it was watched, counts too. */
    if (from_zero)
        recheck(l, out, now, h);
    return 0;
}

/* A container still there: its entry E moves into OUT, the new table, with
 * T's names and path (E is left owning nothing).  Returns -1 when out of
 * memory, with E dropped. */
static int update_present(struct pna_oom_ledger *l, struct entry *e,
                          const struct pna_oom_target *t, struct entry *out, int64_t now,
                          struct pna_oom_hits *h)
{
    if (strcmp(e->cgroup_path, t->cgroup_path) != 0) {
        /* Its cgroup is known only now: a kill since it was first seen
         * counts, unless a notice already counted it.  Otherwise the same id
         * has a new cgroup (restarted): start over from its count. */
        bool resume = !e->cgroup_path[0] && e->from_zero;
        struct entry was = *e;
        drop_entry(l, e);
        if (init_entry(l, out, t, resume) < 0)
            return -1;
        arm(l, out);
        if (resume) {
            resume_entry(out, &was);
            recheck(l, out, now, h);
        }
        return 0;
    }
    *out = *e;
    e->names = NULL;
    /* Names may have been filled in since; when the copy fails the old ones
     * serve until the next sync. */
    if (!same_names(out, t))
        set_names(out, t);
    if (!out->armed) {
        arm(l, out);
        /* The notification was lost (the cgroup went away) and is back: the
         * cgroup may be a new one, whose count raised no event. */
        if (out->armed)
            recheck(l, out, now, h);
    }
    return 0;
}

static int cmp_targets(const void *a, const void *b)
{
    return strcmp((*(const struct pna_oom_target *const *)a)->id,
                  (*(const struct pna_oom_target *const *)b)->id);
}

/* The targets sorted by id, as pointers (the caller's array is not copied). */
static const struct pna_oom_target **sort_targets(const struct pna_oom_target *targets, size_t n)
{
    const struct pna_oom_target **sorted = malloc(n * sizeof *sorted);
    if (!sorted)
        return NULL;
    for (size_t i = 0; i < n; i++)
        sorted[i] = &targets[i];
    qsort(sorted, n, sizeof *sorted, cmp_targets);
    return sorted;
}

/* One step of the merge of the old table with the sorted targets. */
static void merge_step(struct pna_oom_ledger *l, const struct pna_oom_target **sorted, size_t n,
                       size_t *i, size_t *j, struct entry *next, size_t *k, int64_t now,
                       struct pna_oom_hits *h)
{
    bool from_zero = l->primed;
    int c = *i >= l->count ? 1 : *j >= n ? -1 : strcmp(l->entries[*i].id, sorted[*j]->id);
    if (c < 0) {                     /* gone */
        struct entry *e = &l->entries[(*i)++];
        /* An OOM under way: its count may be readable one last time. */
        if (e->oom_signal_ms)
            recheck(l, e, now, h);
        remember_departed(l, e, now);
        return;
    }
    if (c == 0 && *j > 0 && strcmp(sorted[*j - 1]->id, sorted[*j]->id) == 0) {
        (*j)++;                      /* duplicate id in the input */
        return;
    }
    if (c > 0) {                     /* new */
        bool dup = *k > 0 && strcmp(next[*k - 1].id, sorted[*j]->id) == 0;
        if (!dup && add_entry(l, &next[*k], sorted[*j], from_zero, now, h) == 0)
            (*k)++;
        (*j)++;
        return;
    }
    if (update_present(l, &l->entries[(*i)++], sorted[(*j)++], &next[*k], now, h) == 0)
        (*k)++;
}

int pna_oom_ledger_sync(struct pna_oom_ledger *l, const struct pna_oom_target *targets, size_t n,
                        int64_t now, struct pna_oom_hits *hits)
{
    const struct pna_oom_target **sorted = NULL;
    struct entry *next = NULL;
    if (n) {
        sorted = sort_targets(targets, n);
        next = malloc(n * sizeof *next);
        if (!sorted || !next) {
            free(sorted);
            free(next);
            return -1;
        }
    }
    size_t i = 0, j = 0, k = 0;
    while (i < l->count || j < n)
        merge_step(l, sorted, n, &i, &j, next, &k, now, hits);
    free(l->entries);
    l->entries = next;
    l->count = k;
    l->primed = true;
    free(sorted);
    return 0;
}

uint64_t pna_oom_ledger_observe(struct pna_oom_ledger *l, const char *id, uint64_t count,
                                int64_t now, struct pna_oom_hits *hits)
{
    struct entry *e = find(l, id);
    if (!e)
        return count;
    /* A count that differs is read again here, with its directory's
     * identity: only that can tell a new cgroup from a file that went
     * backwards.  The caller's count serves when the cgroup cannot be read. */
    if (count != e->last) {
        recheck(l, e, now, hits);
        if (!e->readable)
            account(l, e, count, NULL, now, hits);
    }
    return e->last;
}

/* A notice names a container no sync has brought (started and killed
 * between two polls, or its row had not been read yet): it is known from
 * the notice alone, kept as if gone, so the sync that brings it takes its
 * count over (add_entry()).  Returns NULL when out of memory. */
static struct entry *known_from_notice(struct pna_oom_ledger *l, const char *id,
                                       const char *name, int64_t now)
{
    struct pna_oom_target t = { .id = id, .name = name, .pod = "", .namespace_ = "",
                                .cgroup_path = "" };
    struct entry e;
    if (init_entry(l, &e, &t, true) < 0)
        return NULL;
    pna_log(LOG_INFO, "containers: an OOM kill in container %.80s (%.100s), not yet seen by a "
            "poll, is counted from the runtime's notice", id, name[0] ? name : "no name given");
    return remember_departed(l, &e, now);
}

void pna_oom_ledger_runtime_notice(struct pna_oom_ledger *l, const char *id, const char *name,
                                   int64_t now, struct pna_oom_hits *hits)
{
    struct entry *e = find(l, id);
    if (!e)
        e = find_gone(l, id, now);
    if (!e)
        e = known_from_notice(l, id, name, now);
    if (!e)
        return;
    uint64_t before = e->last;
    recheck(l, e, now, hits);
    note_signal(e, before, now);
    if (!e->readable) {
        /* No cgroup to count in (not mounted here, or removed with the
         * container): the runtime's word is all there is, one kill per
         * notice, unless a read of the cgroup counted one just before it
         * went (the notice is about that kill). */
        if (!recent_own_kill(e, now))
            account(l, e, e->last + 1, NULL, now, hits);
    } else {
        e->recheck_until = now + PNA_OOM_RECHECK_FOR_MS;
    }
}

void pna_oom_ledger_cgroup_changed(struct pna_oom_ledger *l, const char *id, int64_t now,
                                   struct pna_oom_hits *hits)
{
    struct entry *e = find(l, id);
    if (e)
        recheck(l, e, now, hits);
}

void pna_oom_ledger_cgroup_oom(struct pna_oom_ledger *l, const char *id, int64_t now,
                               struct pna_oom_hits *hits)
{
    struct entry *e = find(l, id);
    if (!e)
        return;
    uint64_t before = e->last;
    recheck(l, e, now, hits);
    /* Fired with the cgroup still there: an OOM, not its removal (v1
     * signals that too, once the directory is gone). */
    note_signal(e, before, now);
    e->recheck_until = now + PNA_OOM_RECHECK_FOR_MS;
}

void pna_oom_ledger_notify_lost(struct pna_oom_ledger *l, const char *id, int64_t now,
                                struct pna_oom_hits *hits)
{
    struct entry *e = find(l, id);
    if (!e)
        return;
    disarm(l, e);
    cgroup_vanished(l, e, now, hits);
}

void pna_oom_ledger_recheck_all(struct pna_oom_ledger *l, int64_t now)
{
    for (size_t i = 0; i < l->count; i++)
        l->entries[i].recheck_until = now + PNA_OOM_RECHECK_EVERY_MS;
}

/* Re-read E if it waits for its count to move; returns whether it still
 * waits. */
static bool recheck_one(struct pna_oom_ledger *l, struct entry *e, int64_t now,
                        struct pna_oom_hits *h)
{
    if (!e->recheck_until)
        return false;
    uint64_t before = e->last;
    recheck(l, e, now, h);
    /* A signalled OOM not counted yet is read until its cgroup goes or
     * SAME_KILL_MS passes (cgroup_vanished() needs to see it go). */
    if ((now >= e->recheck_until && !signal_pending(e, now)) || e->last != before ||
        !e->readable) {
        e->recheck_until = 0;
        return false;
    }
    return true;
}

bool pna_oom_ledger_recheck(struct pna_oom_ledger *l, int64_t now, struct pna_oom_hits *hits)
{
    bool pending = false;
    for (size_t i = 0; i < l->count; i++)
        pending |= recheck_one(l, &l->entries[i], now, hits);
    for (size_t i = 0; i < l->ngone; i++)
        if (l->gone[i].gone_until > now)   /* not forgotten (see add_entry()) */
            pending |= recheck_one(l, &l->gone[i], now, hits);
    return pending;
}

bool pna_oom_ledger_recheck_pending(const struct pna_oom_ledger *l, int64_t now)
{
    for (size_t i = 0; i < l->count; i++)
        if (l->entries[i].recheck_until)
            return true;
    for (size_t i = 0; i < l->ngone; i++)
        if (l->gone[i].gone_until > now && l->gone[i].recheck_until)
            return true;
    return false;
}

uint64_t pna_oom_ledger_reported(const struct pna_oom_ledger *l)
{
    return l->reported;
}

uint64_t pna_oom_ledger_kills(const struct pna_oom_ledger *l)
{
    return l->kills;
}

uint64_t pna_oom_ledger_decreases(const struct pna_oom_ledger *l)
{
    return l->decreases;
}

struct pna_oom_ledger *pna_oom_ledger_new(const struct pna_oom_ledger_hooks *hooks)
{
    struct pna_oom_ledger *l = calloc(1, sizeof *l);
    if (l)
        l->hooks = *hooks;
    return l;
}

void pna_oom_ledger_free(struct pna_oom_ledger *l)
{
    if (!l)
        return;
    for (size_t i = 0; i < l->count; i++)
        drop_entry(l, &l->entries[i]);
    free(l->entries);
    for (size_t i = 0; i < l->ngone; i++)
        free(l->gone[i].names);
    free(l->gone);
    free(l);
}
