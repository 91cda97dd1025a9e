/* util/json_load.h -- one JSON document from a bounded buffer, with the one
 * error text every JSON source of the agent gives: its size over the
 * source's limit, or the parser's line and message, after the caller's name
 * for the document. */
#ifndef PNA_UTIL_JSON_LOAD_H
#define PNA_UTIL_JSON_LOAD_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

/* Parse TEXT (LEN bytes).  MAX: the longest document taken (0: no bound);
 * OBJECT: only an object is taken.  Returns the document, or NULL with ERR
 * saying why: "WHAT: N bytes, over the MAX limit", "WHAT: line L: ...",
 * "WHAT: not a JSON object" (without "WHAT: " when WHAT is NULL). */
json_t *pna_json_load(const char *text, size_t len, size_t max, bool object, const char *what,
                      char *err, size_t errlen);

#endif
