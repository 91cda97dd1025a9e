/* fuzz_docker_events.c -- libFuzzer harness for the Docker /events stream:
 * the line splitter that libcurl's write callback runs on the body
 * (transport/http_client.c) and the event parser each line goes to
 * (pna_docker_parse_event, sources/containers/docker.c).
 *
 * The splitter is a static function of httpc.c, so this file includes
 * httpc.c and feeds on_stream() directly, the way libcurl would: the input
 * (after its first byte) is the body, handed over in pieces whose sizes
 * follow from the first byte, with a line bound of 512 bytes (the agent uses
 * 64 KiB) so that over-long lines are dropped often.  The whole of httpc.c
 * comes along; nothing else may then link httpc.o. */
#include "pna_autoconf.h"
#include "sources/containers/docker.h"
#include "fuzz.h"

#include "transport/http_client.c"

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
    struct stream s = { .max = LINE_MAX_BYTES, .fn = on_event_line, .arg = &lines,
                        .checked_status = true };
    s.line = malloc(LINE_MAX_BYTES + 1);
    if (!s.line)
        abort();
    /* libcurl hands the body over in a writable buffer of its own */
    char *body = fz_cstr(data + 1, size - 1);
    for (size_t at = 0; at < size - 1;) {
        size_t n = size - 1 - at < piece ? size - 1 - at : piece;
        if (on_stream(body + at, 1, n, &s) != n)
            break;
        at += n;
        piece = piece * 3 % 61 + 1;
    }
    free(body);
    free(s.line);
    return 0;
}
