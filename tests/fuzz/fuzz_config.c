/* fuzz_config.c -- libFuzzer harness for the agent's config file parser
 * (pna_config_load, src/core/config.c).  The input is written to a scratch file
 * and loaded over the defaults, with pollers of the agent's names and one
 * made for this harness that declares a key of every type (the pollers
 * themselves are not linked: the loader reads only their names and key
 * tables); the net-snmp lines handed over are counted (each must say where it
 * was written, and a createUser line its user), and everything the load kept
 * is freed again. */
#include "pna_autoconf.h"
#include "core/config.h"
#include "core/poller.h"
#include "fuzz.h"
#include "model/gpu/gpu_idle.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* A poller's settings with one value of each key type. */
struct fz_settings {
    const char *str;
    bool flag;
    unsigned num, ms;
    uint64_t big;
    int32_t small;
    struct pna_name_list names;
    unsigned custom;
    struct pna_gpu_idle_rule idle;   /* a real custom parser: accountingIdleThreshold's */
};

/* A custom key: one word of at most 8 characters, its length kept. */
static int fz_parse(void *value, char *const *words, size_t nwords, char *why, size_t whylen)
{
    if (nwords != 1 || strlen(words[0]) > 8) {
        snprintf(why, whylen, "expected one short word");
        return -1;
    }
    *(unsigned *)value = (unsigned)strlen(words[0]);
    return 0;
}

#define FZ(field) offsetof(struct fz_settings, field)
static const struct pna_config_key fz_keys[] = {
    { .token = "fzString", .type = PNA_KEY_STRING, .offset = FZ(str), .def_str = "x",
      .empty_is_default = true },
    { .token = "fzBool", .type = PNA_KEY_BOOL, .offset = FZ(flag), .def = 1 },
    { .token = "fzUint", .type = PNA_KEY_UINT, .offset = FZ(num), .min = 1, .max = 100, .def = 5 },
    { .token = "fzSeconds", .type = PNA_KEY_SECONDS_MS, .offset = FZ(ms), .max = 86400, .def = 60 },
    { .token = "fzU64", .type = PNA_KEY_U64, .offset = FZ(big), .min = 1, .max = UINT64_MAX,
      .def = 10 },
    { .token = "fzInt", .type = PNA_KEY_INT, .offset = FZ(small), .max = 200 },
    { .token = "fzNames", .type = PNA_KEY_NAMES, .offset = FZ(names), .what = "name" },
    { .token = "fzCustom", .type = PNA_KEY_CUSTOM, .offset = FZ(custom), .parse = fz_parse },
    { .token = "fzIdleThreshold", .type = PNA_KEY_CUSTOM, .offset = FZ(idle),
      .parse = pna_gpu_idle_rule_parse },
    { .token = NULL },
};
#undef FZ

/* The names of pollers/registry.c, in its order, and the harness's own. */
#define FZ_POLLER(n) { .name = n }
static const struct pna_poller_ops fz_pollers[] = {
    FZ_POLLER("node"), FZ_POLLER("gpu"), FZ_POLLER("ib"), FZ_POLLER("pfc"),
    FZ_POLLER("containers"), FZ_POLLER("kubelet"), FZ_POLLER("storage"),
    FZ_POLLER("podresources"), FZ_POLLER("phy"),
    { .name = "fuzzed", .keys = fz_keys, .settings_size = sizeof(struct fz_settings) },
};
#define FZ_NPOLLERS (sizeof fz_pollers / sizeof fz_pollers[0])

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
    const struct pna_poller_ops *registry[FZ_NPOLLERS];
    for (size_t i = 0; i < FZ_NPOLLERS; i++)
        registry[i] = &fz_pollers[i];
    pna_config_defaults(&cfg);
    if (pna_config_set_pollers(&cfg, registry, FZ_NPOLLERS, err, sizeof err) != 0)
        __builtin_trap();
    pna_config_load(&cfg, path, remember, &netsnmp_lines, err, sizeof err);
    pna_config_free(&cfg);
    return 0;
}
