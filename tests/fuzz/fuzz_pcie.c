/* fuzz_pcie.c -- libFuzzer harness for the PCIe file parsers of
 * sources/pci/pcie_sysfs.c: pna_pcie_parse_aer() on an aer_dev_* file with each of
 * the three totals the reader asks for, and the link speed, width and NUMA
 * node parsers on the same text (seeds: the real and built files of
 * tests/fixtures/pcie/).  The input is made a C string at its first NUL, as
 * pna_read_text() hands a file over.  Besides the sanitizers, the harness
 * checks each parser's promises and aborts when one is broken: only the
 * documented return codes, and a value in its range when it says 0. */
#include "pna_autoconf.h"
#include "sources/pci/pcie_sysfs.h"
#include "fuzz.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void check_aer(const char *text, const char *key)
{
    uint64_t v = 0;
    int rc = pna_pcie_parse_aer(text, key, &v);
    if (rc != 0 && rc != -EINVAL && rc != -ENOENT && rc != -ERANGE)
        abort();
    if (rc == 0 && !strstr(text, key))
        abort(); /* a total found where the text has none */
}

static void check_link(const char *text)
{
    uint32_t mtps = 0, lanes = 0;
    int32_t node = -2;
    int rc = pna_pcie_parse_speed(text, &mtps);
    if ((rc != 0 && rc != -EINVAL && rc != -ENODATA) || (rc == 0 && (mtps == 0 || mtps > 999999999)))
        abort();
    rc = pna_pcie_parse_width(text, &lanes);
    if ((rc != 0 && rc != -EINVAL && rc != -ENODATA) || (rc == 0 && (lanes < 1 || lanes > 32)))
        abort();
    rc = pna_pcie_parse_numa(text, &node);
    if ((rc != 0 && rc != -EINVAL) || (rc == 0 && (node < -1 || node > 65535)))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    check_aer(text, "TOTAL_ERR_COR");
    check_aer(text, "TOTAL_ERR_NONFATAL");
    check_aer(text, "TOTAL_ERR_FATAL");
    check_link(text);
    free(text);
    return 0;
}
