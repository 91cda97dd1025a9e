/* fuzz_cstorage.c -- libFuzzer harness for the two JSON files of the
 * containers/storage store that CRI-O and Podman share
 * (sources/containers/cstorage_json.c): CRI-O's state.json of a container,
 * and the store's containers.json (id, names, the metadata string Podman
 * keeps the image name in, itself parsed as JSON).
 *
 * The input is the JSON text, given to both parsers; the list is then
 * sorted and looked up, as a scan does. */
#include "pna_autoconf.h"
#include "sources/containers/cstorage_json.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct pna_crio_state st;
    struct pna_cstorage_index idx = { 0 };
    char err[256];
    pna_crio_state_parse((const char *)data, size, &st, err, sizeof err);
    pna_cstorage_index_parse((const char *)data, size, &idx, err, sizeof err);
    pna_cstorage_index_sort(&idx);
    if (idx.n)
        pna_cstorage_index_find(&idx, idx.v[idx.n / 2].id);
    pna_cstorage_index_find(&idx, "c4f1a8e2b6d0");
    pna_cstorage_index_free(&idx);
    return 0;
}
