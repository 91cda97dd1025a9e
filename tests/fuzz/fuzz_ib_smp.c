/* fuzz_ib_smp.c -- libFuzzer harness for the decoders of the SMP replies that
 * name an InfiniBand port's neighbour (sources/rdma/ib_smp_decode.c):
 * NodeInfo and NodeDescription attribute data as a neighbour, or whatever
 * answers in its place, sends them.
 *
 * The input's first octet picks the size of the description buffer (1..80
 * octets); the rest is the attribute data, given with its exact length, so a
 * read past it is a sanitizer report.  What the decoders promise is checked:
 * NodeInfo is refused below 40 octets and with a zero GUID; the description
 * fits its buffer, is printable ASCII and has no blank at either end. */
#include "pna_autoconf.h"
#include "sources/rdma/ib_smp.h"

#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

static void check_desc(const char *desc, size_t cap)
{
    size_t n = strlen(desc);
    if (n >= cap || n > PNA_SMP_DATA_SIZE)
        abort();
    for (size_t i = 0; i < n; i++)
        if (desc[i] < 0x20 || desc[i] > 0x7e)
            abort();
    if (n && (desc[0] == ' ' || desc[n - 1] == ' '))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char desc[80];
    struct pna_smp_node_info ni;
    size_t cap = size ? 1 + data[0] % sizeof desc : sizeof desc;
    const uint8_t *attr = size ? data + 1 : NULL;
    size_t len = size ? size - 1 : 0;
    if (pna_ib_smp_decode_node_info(attr, len, &ni) == 0 && (len < 40 || ni.node_guid == 0))
        abort();
    pna_ib_smp_decode_node_desc(attr, len, desc, cap);
    check_desc(desc, cap);
    return 0;
}
