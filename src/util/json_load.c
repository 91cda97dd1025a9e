/* util/json_load.c -- see json_load.h. */
#include "pna_autoconf.h"
#include "util/json_load.h"

#include <stdio.h>

json_t *pna_json_load(const char *text, size_t len, size_t max, bool object, const char *what,
                      char *err, size_t errlen)
{
    const char *sep = what ? ": " : "";
    what = what ? what : "";
    if (max && len > max) {
        snprintf(err, errlen, "%s%s%zu bytes, over the %zu limit", what, sep, len, max);
        return NULL;
    }
    json_error_t jerr;
    json_t *root = json_loadb(text, len, 0, &jerr);
    if (!root) {
        snprintf(err, errlen, "%s%sline %d: %s", what, sep, jerr.line, jerr.text);
        return NULL;
    }
    if (object && !json_is_object(root)) {
        snprintf(err, errlen, "%s%snot a JSON object", what, sep);
        json_decref(root);
        return NULL;
    }
    return root;
}
