/* fuzz_dcb.c -- libFuzzer harness for the DCB netlink reply parser,
 * pna_dcb_parse() (sources/pfc/dcb.c).  The input is the byte stream the
 * kernel sends for DCB_CMD_IEEE_GET and DCB_CMD_GDCBX, as pna_dcb_read()
 * hands it over (seeds: tests/fixtures/dcb/, real and built).  Besides the
 * sanitizers, the harness checks the answer's own promises and aborts when
 * one is broken: 0 means read with no error line, a negative errno not read
 * with one (nothing above 0), and the counts stay within the model's arrays.  In a build without libmnl the
 * parser refuses everything, which is checked the same way. */
#include "pna_autoconf.h"
#include "sources/pfc/dcb.h"
#include "fuzz.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct pna_dcb d;
    int rc = pna_dcb_parse(data, size, &d);
    size_t error_len = strnlen(d.error, sizeof d.error);
    if (error_len == sizeof d.error)
        abort(); /* not NUL-terminated */
    if (rc == 0 && (!d.read || error_len != 0))
        abort();
    if (rc != 0 && (rc > 0 || d.read || error_len == 0 || d.has_pfc || d.has_ets || d.n_apps))
        abort();
    if (d.n_apps > PNA_DCB_MAX_APPS || d.n_trust > PNA_LOSSLESS_PRIOS)
        abort();
    if (d.apps_truncated && d.n_apps != PNA_DCB_MAX_APPS)
        abort();
    return 0;
}
