/* util/label_allow.c -- the podLabels allow-list: validation of the patterns
 * at start-up and matching of label keys (see label_allow.h). */
#include "pna_autoconf.h"
#include "util/label_allow.h"

#include <stdio.h>
#include <string.h>

#define PREFIX_MAX 253
#define NAME_MAX_LEN 63

static bool name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '-' || c == '_' || c == '.';
}

/* TEXT[0..LEN) is a key (or, with GLOB, a pattern): the characters a key
 * may have, at most one '/', neither part empty nor too long. */
static bool key_shape_ok(const char *text, size_t len, bool glob)
{
    const char *slash = memchr(text, '/', len);
    size_t name_start = slash ? (size_t)(slash - text) + 1 : 0;
    if (len == 0 || len > PNA_LABEL_KEY_MAX || name_start == len || (slash && slash == text))
        return false;
    if (name_start > PREFIX_MAX + 1 || len - name_start > NAME_MAX_LEN)
        return false;
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        if (i + 1 == name_start)
            continue;                 /* the one '/' */
        if (!name_char(c) && !(glob && c == '*'))
            return false;
    }
    return true;
}

bool pna_label_key_valid(const char *key)
{
    return key && key_shape_ok(key, strlen(key), false);
}

int pna_label_allow_add(struct pna_label_allow *allow, const char *text, char *why, size_t whylen)
{
    const char *p = text;
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (!key_shape_ok(p, len, true)) {
            snprintf(why, whylen,
                     "'%.*s' is not a label key or a glob of one (letters, digits, '-', '_', "
                     "'.', '*'; at most one '/'; a prefix of at most %d and a name of at most "
                     "%d characters)",
                     (int)(len > 80 ? 80 : len), p, PREFIX_MAX, NAME_MAX_LEN);
            return -1;
        }
        if (allow->count == PNA_LABEL_ALLOW_MAX) {
            snprintf(why, whylen, "more than %d label patterns", PNA_LABEL_ALLOW_MAX);
            return -1;
        }
        memcpy(allow->patterns[allow->count], p, len);
        allow->patterns[allow->count++][len] = '\0';
        if (!comma)
            return 0;
        p = comma + 1;
    }
}

int pna_label_allow_parse(void *value, char *const *words, size_t nwords, char *why,
                          size_t whylen)
{
    if (nwords == 0) {
        snprintf(why, whylen, "expected at least one label key");
        return -1;
    }
    for (size_t i = 0; i < nwords; i++)
        if (pna_label_allow_add(value, words[i], why, whylen) != 0)
            return -1;
    return 0;
}

/* '*' matches any run of characters: the classic backtracking to the last
 * star, linear in practice and at most len(pattern) x len(key) steps. */
static bool glob_match(const char *pat, const char *key)
{
    const char *star = NULL, *resume = NULL;
    while (*key) {
        if (*pat == '*') {
            star = pat++;
            resume = key;
        } else if (*pat == *key) {
            pat++;
            key++;
        } else if (star) {
            pat = star + 1;
            key = ++resume;
        } else {
            return false;
        }
    }
    while (*pat == '*')
        pat++;
    return *pat == '\0';
}

bool pna_label_allowed(const struct pna_label_allow *allow, const char *key)
{
    for (size_t i = 0; allow && i < allow->count; i++)
        if (glob_match(allow->patterns[i], key))
            return true;
    return false;
}
