/* test_line_split.c -- the stream line splitter (transport/line_split.c):
 * lines cut across pieces, empty lines skipped, over-long lines dropped
 * whole, a callback that stops the stream. */
#include "pna_autoconf.h"
#include "transport/line_split.h"
#include "unit.h"

struct seen {
    char lines[8][16];
    int n;
    int stop_after;   /* stop the stream after this many lines, 0 never */
};

static int on_line(void *arg, const char *line, size_t len)
{
    struct seen *s = arg;
    CHECK_INT(strlen(line), len);
    if (s->n < 8)
        snprintf(s->lines[s->n], sizeof s->lines[0], "%s", line);
    s->n++;
    return s->stop_after && s->n >= s->stop_after;
}

static void feed(struct pna_line_split *sp, struct seen *s, const char *text, size_t piece)
{
    size_t n = strlen(text);
    for (size_t at = 0; at < n; at += piece)
        if (pna_line_split_feed(sp, text + at, n - at < piece ? n - at : piece, on_line, s))
            return;
}

static void test_lines(void)
{
    struct pna_line_split sp;
    struct seen s = { .n = 0 };
    CHECK_INT(pna_line_split_init(&sp, 8), 0);
    /* pieces of 3 bytes: lines cross them; empty lines are skipped; a line
     * over 8 bytes is dropped whole, the next one is not */
    feed(&sp, &s, "one\n\ntwo\nmuch-too-long\nthree\nfour", 3);
    CHECK_INT(s.n, 3);
    CHECK_STR(s.lines[0], "one");
    CHECK_STR(s.lines[1], "two");
    CHECK_STR(s.lines[2], "three");
    feed(&sp, &s, "\n", 1);   /* "four" was waiting for its newline */
    CHECK_INT(s.n, 4);
    CHECK_STR(s.lines[3], "four");
    pna_line_split_free(&sp);

    struct seen stop = { .stop_after = 1 };
    CHECK_INT(pna_line_split_init(&sp, 8), 0);
    CHECK(pna_line_split_feed(&sp, "a\nb\nc\n", 6, on_line, &stop) != 0);
    CHECK_INT(stop.n, 1);
    pna_line_split_free(&sp);
}

int main(void)
{
    test_lines();
    UNIT_END();
}
