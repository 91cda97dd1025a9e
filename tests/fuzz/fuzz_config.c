/* fuzz_config.c -- libFuzzer harness for the agent's config file parser
 * (pna_config_load, src/core/config.c).  The input is written to a scratch file
 * and loaded over the defaults with the agent's poller names; the net-snmp
 * lines handed over are counted (each must say where it was written, and a
 * createUser line its user), and everything the load kept is freed again. */
#include "pna_autoconf.h"
#include "core/config.h"
#include "fuzz.h"

#include <strings.h>

/* The names of pollers/registry.c, in its order (the loader only compares
 * names, so the pollers themselves need not come along). */
static const char *const pollers[] = {
    "node", "gpu", "ib", "pfc", "containers", "kubelet", "storage",
};

/* A createUser line handed over names its user; every line its place. */
static void remember(const struct pna_netsnmp_line *line, void *arg)
{
    if (!line->text || !line->file || line->line == 0)
        __builtin_trap();
    if (strncasecmp(line->text, "createUser", 10) == 0 && !line->user)
        __builtin_trap();
    (*(unsigned *)arg)++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fz_write_file("agent.conf", data, size);
    struct pna_config cfg;
    unsigned netsnmp_lines = 0;
    char err[512];
    pna_config_defaults(&cfg);
    pna_config_load(&cfg, path, pollers, sizeof pollers / sizeof pollers[0], remember,
                    &netsnmp_lines, err, sizeof err);
    pna_config_free(&cfg);
    return 0;
}
