/* fuzz_rfc3339.c -- libFuzzer harness for pna_parse_rfc3339_ms()
 * (util/rfc3339.c), which reads Docker's State.StartedAt times
 * ("2018-06-14T05:48:53.266176036Z", offsets allowed).  The input is the text. */
#include "pna_autoconf.h"
#include "util/rfc3339.h"
#include "fuzz.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fz_cstr(data, size);
    pna_parse_rfc3339_ms(text);
    free(text);
    return 0;
}
