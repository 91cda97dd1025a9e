/* fuzz_fileio.c -- libFuzzer harness for util/fileio.c: the number parsers
 * (pna_parse_u64, pna_parse_hex_u64, pna_scan_u64) on the input as text, each
 * held to what it promises (decimal means decimal: an accepted text is blanks
 * and digits, worth what strtoull reads in that base), and the bounded readers
 * (pna_read_text, pna_read_u64, pna_read_hex_u64, pna_read_alloc) on a file
 * holding the input, with bounds picked from its first byte so that "exactly
 * full", "one byte over" and tiny buffers occur. */
#include "pna_autoconf.h"
#include "fuzz.h"
#include "util/fileio.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* An accepted text has no sign, no other base's prefix (hex: only its own
 * 0x), and the value strtoull gives it in BASE. */
static void check_number(const char *text, unsigned base)
{
    uint64_t v;
    int rc = base == 10 ? pna_parse_u64(text, &v) : pna_parse_hex_u64(text, &v);
    if (rc != 0)
        return;
    if (strpbrk(text, base == 10 ? "+-xX" : "+-"))
        abort();
    if (strtoull(text, NULL, (int)base) != v)
        abort();
}

/* Field by field: each accepted field is blanks then digits, ends at a blank
 * or the end, and moves the cursor forward. */
static void check_scan(const char *text)
{
    const char *p = text;
    uint64_t v;
    for (;;) {
        const char *before = p;
        if (pna_scan_u64(&p, &v) != 0) {
            if (p != before)
                abort();
            return;
        }
        const char *q = before + strspn(before, " \t");
        if (p <= q || strspn(q, "0123456789") != (size_t)(p - q) ||
            (*p && !isspace((unsigned char)*p)) || strtoull(q, NULL, 10) != v)
            abort();
        if (*p != ' ' && *p != '\t')
            return;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fz_cstr(data, size);
    check_number(text, 10);
    check_number(text, 16);
    check_scan(text);
    free(text);

    const char *path = fz_write_file("fileio", data, size);
    size_t cap = size ? 2 + data[0] % 96 : 2;
    char *buf = malloc(cap);
    if (!buf)
        abort();
    pna_read_text(path, buf, cap);
    free(buf);

    char big[4096];
    uint64_t v;
    pna_read_text(path, big, sizeof big);
    pna_read_u64(path, &v);
    pna_read_hex_u64(path, &v);

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
