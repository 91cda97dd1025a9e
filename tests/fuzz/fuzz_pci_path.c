/* fuzz_pci_path.c -- libFuzzer harness for pna_pci_path_parse()
 * (sources/pci/pci_path.c): the resolved /sys/bus/pci/devices link of a
 * function, below <sysfs>/devices/ (seeds: every device of the trees of
 * tests/fixtures/topology/).  The function it must end in is the input's last
 * component when that fits an address, else a fixed one.  Besides the
 * sanitizers, the harness aborts when a promise is broken: only the
 * documented return codes, an error line with every failure, and on success a
 * host bridge, 1..PNA_PCI_PATH_MAX functions ending in the function asked for. */
#include "pna_autoconf.h"
#include "sources/pci/pci_path.h"
#include "fuzz.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    char addr[PNA_PCI_ADDR_CAP] = "0000:00:00.0";
    const char *last = strrchr(text, '/');
    last = last ? last + 1 : text;
    if (strlen(last) < sizeof addr)
        strcpy(addr, last);
    struct pna_pci_path p;
    char err[128] = "";
    int rc = pna_pci_path_parse(text, addr, &p, err, sizeof err);
    if (rc != 0 && rc != -EINVAL && rc != -ENOENT)
        abort();
    if (rc != 0 && err[0] == '\0')
        abort();
    if (rc == 0 && (p.depth < 1 || p.depth > PNA_PCI_PATH_MAX ||
                    strncmp(p.host_bridge, "pci", 3) != 0 ||
                    strcmp(p.hops[p.depth - 1], addr) != 0 || p.has_numa_node))
        abort();
    free(text);
    return 0;
}
