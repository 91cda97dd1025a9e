/* fuzz_config.c -- libFuzzer harness for the agent's config file parser
 * (pna_config_load, src/core/config.c).  The input is written to a scratch file
 * and loaded over the defaults; the net-snmp lines handed over are counted,
 * and everything the load kept is freed again.
 *
 * config.c looks poller names up in the registry of src/pollers.c, which
 * would bring every collector along; this file defines a registry with the
 * same names instead (only the names are read while parsing). */
#include "core/config.h"
#include "fuzz.h"
#include "core/poller.h"

static const struct pna_poller_ops node = { .name = "node" }, gpu = { .name = "gpu" },
                                   ib = { .name = "ib" }, pfc = { .name = "pfc" },
                                   containers = { .name = "containers" },
                                   kubelet = { .name = "kubelet" },
                                   storage = { .name = "storage" };
const struct pna_poller_ops *const pna_poller_registry[] = {
    &node, &gpu, &ib, &pfc, &containers, &kubelet, &storage,
};
const size_t pna_poller_registry_len = sizeof pna_poller_registry / sizeof pna_poller_registry[0];

static void remember(const char *line, void *arg)
{
    (void)line;
    (*(unsigned *)arg)++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fz_write_file("agent.conf", data, size);
    struct pna_config cfg;
    unsigned netsnmp_lines = 0;
    char err[512];
    pna_config_defaults(&cfg);
    pna_config_load(&cfg, path, remember, &netsnmp_lines, err, sizeof err);
    pna_config_free(&cfg);
    return 0;
}
