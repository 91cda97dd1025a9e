/* transport/line_split.h -- a byte stream that arrives in pieces (an HTTP
 * body, Docker's /events) cut into lines.  Each complete line, without its
 * newline, goes to a callback; empty lines are skipped and a line longer than
 * the bound is dropped whole rather than cut.  No I/O: the HTTP client feeds
 * it from libcurl's write callback, the fuzzing harness directly. */
#ifndef PNA_TRANSPORT_LINE_SPLIT_H
#define PNA_TRANSPORT_LINE_SPLIT_H

#include <stdbool.h>
#include <stddef.h>

/* Called for each complete line (NUL-terminated, LEN bytes, no newline).
 * Return nonzero to stop. */
typedef int (*pna_line_fn)(void *arg, const char *line, size_t len);

struct pna_line_split {
    char *line;        /* MAX + 1 bytes */
    size_t len, max;
    bool overlong;     /* dropping the rest of a too-long line */
};

/* Lines of at most MAX_LINE bytes.  Returns 0, or -1 when memory runs out. */
int pna_line_split_init(struct pna_line_split *s, size_t max_line);
void pna_line_split_free(struct pna_line_split *s);

/* Feed N bytes of the stream; FN gets every line they complete.  Returns 0,
 * or nonzero as soon as FN returned nonzero (the rest of DATA is not read). */
int pna_line_split_feed(struct pna_line_split *s, const char *data, size_t n, pna_line_fn fn,
                        void *arg);

#endif
