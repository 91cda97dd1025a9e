/* core/transitions.h -- the one rule that turns a change of state into a
 * notification, for every poller that posts one.
 *
 * A poller keeps one struct pna_transitions per kind of state it reports (a
 * port up or not, a GPU's health verdict, a module reading's level).  At each
 * poll it feeds what it saw: pna_transitions_begin(), one
 * pna_transitions_observe() per key with the key's state now, then
 * pna_transitions_end().  The helper holds the state last reported for each
 * key and calls the caller's rule (struct pna_transition_rule):
 *
 *   first_seen(state)  a key not known before, and only when the rule's bad()
 *                      says STATE is bad news: at start-up a key first seen in
 *                      a good state reports nothing, first seen bad reports;
 *                      a key that appears later is judged the same way (or,
 *                      with appearing_is_change, as a change from state 0);
 *   changed(old, new)  a known key's state differs from the one last
 *                      reported; the callback returns whether NEW is the
 *                      reported state from now on (false: it held the change
 *                      back, a rate limit say, and the next poll compares
 *                      with OLD again);
 *   gone(last)         a known key not observed in this poll; the callback
 *                      returns whether to forget the key (false: its absence
 *                      is not news, its state is kept for when it is seen
 *                      again).  No callback: forgotten without a word.
 *
 * What counts as bad and as a change, and every text, stay the caller's.
 * first_seen and changed run inside observe(), so events come in the order
 * the caller observes its keys; gone runs inside end(), in key order (name,
 * then a, then b).  A key observed twice in one poll counts once: the first
 * observation decides, a repeat changes nothing.  A callback may call find(),
 * set() and foreach(), never observe() or end() of the same set.
 *
 * The state lives in the poller's own state, never in a published snapshot:
 * a snapshot the cache dropped as stale does not make the start-up rule fire
 * again.  Keys are found through a hash table, not a scan.
 *
 * Each key may carry DATA_SIZE bytes of the caller's own (zeroed when the key
 * is first seen): what its texts need once the key is gone, a hold-off time.
 * A data pointer stays valid until the next observe() or end(); with
 * DATA_SIZE 0 it is only to be compared with NULL.
 *
 * Thread ownership: one thread at a time (a poller's); nothing here locks. */
#ifndef PNA_CORE_TRANSITIONS_H
#define PNA_CORE_TRANSITIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A key: a string and/or numbers, as the caller needs ("" and 0 when unused). */
struct pna_transition_key {
    char name[64];
    uint32_t a, b;
};

/* A key built from its parts (NAME may be NULL; cut at 63 bytes). */
struct pna_transition_key pna_transition_key(const char *name, uint32_t a, uint32_t b);

/* The caller's rule.  ARG is the one given to pna_transitions_new(); OBS is
 * what observe() was given (the row the state was read from), for texts. */
struct pna_transition_rule {
    /* Whether STATE is bad news at a key's first sighting; NULL: none is. */
    bool (*bad)(int32_t state);
    /* After the first poll, a key that appears is a change from state 0
     * (changed(0, state)) instead of a first sighting: for a rule where a
     * key appearing is itself news (a port that shows up ACTIVE). */
    bool appearing_is_change;
    void (*first_seen)(void *arg, const struct pna_transition_key *key, void *data,
                       int32_t state, const void *obs);
    /* Required. */
    bool (*changed)(void *arg, const struct pna_transition_key *key, void *data,
                    int32_t old_state, int32_t new_state, const void *obs);
    bool (*gone)(void *arg, const struct pna_transition_key *key, void *data, int32_t last_state);
};

struct pna_transitions;

/* RULE must outlive the result.  NULL when memory runs out. */
struct pna_transitions *pna_transitions_new(const struct pna_transition_rule *rule,
                                            size_t data_size, void *arg);
void pna_transitions_free(struct pna_transitions *t);

/* One poll's observations. */
void pna_transitions_begin(struct pna_transitions *t);
/* KEY is in STATE now.  Returns the key's data, or NULL when memory ran out
 * for a new key (it is not watched until a later poll has room). */
void *pna_transitions_observe(struct pna_transitions *t, const struct pna_transition_key *key,
                              int32_t state, const void *obs);
void pna_transitions_end(struct pna_transitions *t);

/* A known key's data and (STATE not NULL) its last reported state; NULL
 * when the key is not known. */
void *pna_transitions_find(const struct pna_transitions *t, const struct pna_transition_key *key,
                           int32_t *state);
/* The caller reported a change of KEY itself (an event between polls):
 * STATE is its last reported state now.  False when the key is not known. */
bool pna_transitions_set(struct pna_transitions *t, const struct pna_transition_key *key,
                         int32_t state);
/* FN for every known key, in no particular order. */
void pna_transitions_foreach(struct pna_transitions *t,
                             void (*fn)(void *arg, const struct pna_transition_key *key,
                                        void *data, int32_t state),
                             void *arg);
size_t pna_transitions_count(const struct pna_transitions *t);

#endif
