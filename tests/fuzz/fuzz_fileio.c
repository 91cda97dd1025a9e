/* fuzz_fileio.c -- libFuzzer harness for util/fileio.c: pna_parse_u64() on
 * the input as text, and the bounded readers (pna_read_text, pna_read_u64,
 * pna_read_alloc) on a file holding the input, with bounds picked from its
 * first byte so that "exactly full", "one byte over" and tiny buffers occur. */
#include "pna_autoconf.h"
#include "fuzz.h"
#include "util/fileio.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fz_cstr(data, size);
    uint64_t v;
    pna_parse_u64(text, &v);
    free(text);

    const char *path = fz_write_file("fileio", data, size);
    size_t cap = size ? 2 + data[0] % 96 : 2;
    char *buf = malloc(cap);
    if (!buf)
        abort();
    pna_read_text(path, buf, cap);
    free(buf);

    char big[4096];
    pna_read_text(path, big, sizeof big);
    pna_read_u64(path, &v);

    char *all = NULL;
    size_t len = 0;
    size_t max = size ? (size_t)data[size - 1] * 16 : 0;
    if (pna_read_alloc(path, max, &all, &len) == 0)
        free(all);
    all = NULL;
    if (pna_read_alloc(path, 1u << 20, &all, &len) == 0)
        free(all);
    return 0;
}
