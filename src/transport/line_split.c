/* transport/line_split.c -- a byte stream cut into bounded lines (see
 * line_split.h). */
#include "pna_autoconf.h"
#include "transport/line_split.h"

#include <stdlib.h>

int pna_line_split_init(struct pna_line_split *s, size_t max_line)
{
    s->line = malloc(max_line + 1);
    s->len = 0;
    s->max = max_line;
    s->overlong = false;
    return s->line ? 0 : -1;
}

void pna_line_split_free(struct pna_line_split *s)
{
    free(s->line);
    s->line = NULL;
}

int pna_line_split_feed(struct pna_line_split *s, const char *data, size_t n, pna_line_fn fn,
                        void *arg)
{
    for (size_t i = 0; i < n; i++) {
        char ch = data[i];
        if (ch == '\n') {
            int stop = 0;
            if (!s->overlong && s->len) {
                s->line[s->len] = '\0';
                stop = fn(arg, s->line, s->len);
            }
            s->len = 0;
            s->overlong = false;
            if (stop)
                return stop;
            continue;
        }
        if (s->overlong)
            continue;
        if (s->len >= s->max) {
            s->overlong = true;
            continue;
        }
        s->line[s->len++] = ch;
    }
    return 0;
}
