/* util/label_allow.h -- which Kubernetes label keys the agent may copy: the
 * podLabels token's list of keys and globs ("team", or "app.kubernetes.io/" then a star).
 *
 * A pattern is a label key as Kubernetes writes one (an optional DNS prefix
 * and '/', then a name of letters, digits, '-', '_' and '.'), in which '*'
 * stands for any run of characters, '/' included.  No other glob character
 * exists: '?', '[' and '\' cannot occur in a label key and are refused.  The
 * list is empty by default: no label is copied. */
#ifndef PNA_UTIL_LABEL_ALLOW_H
#define PNA_UTIL_LABEL_ALLOW_H

#include <stdbool.h>
#include <stddef.h>

/* A label key: a prefix of at most 253 characters, '/', a name of at most 63. */
#define PNA_LABEL_KEY_MAX 317
#define PNA_LABEL_ALLOW_MAX 32

struct pna_label_allow {
    size_t count;
    char patterns[PNA_LABEL_ALLOW_MAX][PNA_LABEL_KEY_MAX + 1];
};

/* Add the patterns of TEXT, separated by commas ("team,queue"), to ALLOW.
 * Returns 0, or -1 with WHY filled (an empty item, a character no label key
 * has, a part too long, more than PNA_LABEL_ALLOW_MAX patterns); ALLOW then
 * keeps the patterns of TEXT before the bad one. */
int pna_label_allow_add(struct pna_label_allow *allow, const char *text, char *why, size_t whylen);

/* The config loader's parser (struct pna_config_key's parse): every word of
 * the line is a comma list for pna_label_allow_add(). */
int pna_label_allow_parse(void *value, char *const *words, size_t nwords, char *why,
                          size_t whylen);

/* Whether KEY is a valid label key (the characters and lengths above, no '*'). */
bool pna_label_key_valid(const char *key);

/* Whether some pattern of ALLOW (NULL: none) matches KEY. */
bool pna_label_allowed(const struct pna_label_allow *allow, const char *key);

#endif
