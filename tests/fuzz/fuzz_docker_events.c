/* fuzz_docker_events.c -- libFuzzer harness for the Docker /events stream:
 * the line splitter that libcurl's write callback feeds with the body
 * (pna_line_split_feed, transport/line_split.c) and the event parser each
 * line goes to (pna_docker_parse_event, sources/containers/docker.c).
 *
 * The splitter is fed the way libcurl would: the input (after its first byte)
 * is the body, handed over in pieces whose sizes follow from the first byte,
 * with a line bound of 512 bytes (the agent uses 64 KiB) so that over-long
 * lines are dropped often. */
#include "pna_autoconf.h"
#include "sources/containers/docker.h"
#include "transport/line_split.h"
#include "fuzz.h"

#include <stdlib.h>

#define LINE_MAX_BYTES 512

static int on_event_line(void *arg, const char *line, size_t len)
{
    struct pna_docker_event ev;
    unsigned *lines = arg;
    (*lines)++;
    pna_docker_parse_event(line, len, &ev);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    unsigned piece = 1 + data[0] % 64, lines = 0;
    struct pna_line_split split;
    if (pna_line_split_init(&split, LINE_MAX_BYTES) != 0)
        abort();
    /* libcurl hands the body over in a writable buffer of its own */
    char *body = fz_cstr(data + 1, size - 1);
    for (size_t at = 0; at < size - 1;) {
        size_t n = size - 1 - at < piece ? size - 1 - at : piece;
        if (pna_line_split_feed(&split, body + at, n, on_event_line, &lines) != 0)
            break;
        at += n;
        piece = piece * 3 % 61 + 1;
    }
    free(body);
    pna_line_split_free(&split);
    return 0;
}
