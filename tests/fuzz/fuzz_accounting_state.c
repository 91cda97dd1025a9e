/* fuzz_accounting_state.c -- libFuzzer harness for the accounting state
 * file (sources/accounting/state_file.c): the JSON the agent reads back at
 * start.  A file it accepts must make a ledger the rules can go on with, so
 * the harness ages it, charges its first GPU one sample and writes it again,
 * as the poller does. */
#include "pna_autoconf.h"
#include "sources/accounting/state_file.h"
#include "fuzz.h"

#include <stdio.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct pna_usage_ledger l = { 0 };
    bool clean = false;
    char why[256];
    if (pna_usage_state_parse((const char *)data, size, &l, &clean, why, sizeof why) == 0) {
        pna_usage_age(&l, 1796689402000, 3600000);
        if (l.n_gpus) {
            struct pna_usage_sample s = { .index = l.gpus[0].index, .uuid = l.gpus[0].uuid,
                                          .pci_bus_id = l.gpus[0].pci_bus_id,
                                          .taken_ms = 1796689403000, .has_energy = true,
                                          .energy_mj = 123457, .has_power_limit = true,
                                          .power_limit_mw = 700000 };
            struct pna_usage_gpu *g = pna_usage_gpu_of(&l, &s, s.taken_ms);
            if (g)
                pna_usage_charge_gpu(&l, g, &s, NULL, 0, 1, why, sizeof why);
        }
        char path[4096];
        snprintf(path, sizeof path, "%s/state", fz_tmpdir());
        pna_usage_state_write(path, &l, false, 0, why, sizeof why);
        unlink(path);
    }
    pna_usage_ledger_free(&l);
    return 0;
}
