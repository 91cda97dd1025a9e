/* fuzz_cdi.c -- libFuzzer harness for the CDI spec reader
 * (sources/containers/cdi.c): a spec file of /etc/cdi or /var/run/cdi, YAML
 * or JSON, as nvidia-ctk, the AMD container toolkit or a device plugin
 * writes it.
 *
 * The input is the spec text.  When it parses, the spec goes into a registry
 * (twice, so a later spec overrides an earlier one's devices) and the names a
 * container's cdi.k8s.io/ annotation could carry are resolved through it: the
 * spec's own first and last device, and fixed names that may or may not be
 * there. */
#include "pna_autoconf.h"
#include "sources/containers/cdi.h"
#include "fuzz.h"

#include <stdio.h>
#include <string.h>

static void resolve(const struct pna_cdi_registry *reg, const char *kind, const char *name)
{
    char qualified[2 * PNA_CDI_NAME_MAX + 2], k[PNA_CDI_NAME_MAX], n[PNA_CDI_NAME_MAX];
    snprintf(qualified, sizeof qualified, "%s=%s", kind, name);
    if (!pna_cdi_split_name(qualified, k, sizeof k, n, sizeof n))
        return;
    const struct pna_cdi_node *nodes[PNA_CDI_MAX_NODES * 2];
    int count = pna_cdi_resolve(reg, qualified, nodes, sizeof nodes / sizeof nodes[0]);
    for (int i = 0; i < count; i++)   /* touch what came back: ASan sees a stale pointer */
        (void)strlen(nodes[i]->path);
}

static int add_parsed(struct pna_cdi_registry *reg, const uint8_t *data, size_t size,
                      char *kind, char *first, char *last)
{
    struct pna_cdi_spec spec;
    char err[256];
    if (pna_cdi_parse((const char *)data, size, &spec, err, sizeof err) != 0)
        return -1;
    snprintf(kind, PNA_CDI_NAME_MAX, "%s", spec.kind);
    snprintf(first, PNA_CDI_NAME_MAX, "%s", spec.ndevs ? spec.devs[0].name : "");
    snprintf(last, PNA_CDI_NAME_MAX, "%s", spec.ndevs ? spec.devs[spec.ndevs - 1].name : "");
    if (pna_cdi_registry_add(reg, &spec) != 0) {
        pna_cdi_spec_free(&spec);
        return -1;
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct pna_cdi_registry *reg = pna_cdi_registry_new();
    if (!reg)
        return 0;
    char kind[PNA_CDI_NAME_MAX], first[PNA_CDI_NAME_MAX], last[PNA_CDI_NAME_MAX];
    if (add_parsed(reg, data, size, kind, first, last) == 0 &&
        add_parsed(reg, data, size, kind, first, last) == 0) {
        resolve(reg, kind, first);
        resolve(reg, kind, last);
        resolve(reg, kind, "all");
        resolve(reg, "nvidia.com/gpu", "0");
    }
    pna_cdi_registry_free(reg);
    return 0;
}
