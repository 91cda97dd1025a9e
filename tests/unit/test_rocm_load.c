/* test_rocm_load.c -- rocm-smi-lib is loaded at run time, not linked.
 *
 * The program links the agent's core as the agent does: before anything
 * opens rocm-smi-lib, it is not mapped.
 * pna_rocm_open() then loads the real library by the soname configure found
 * and resolves every function the agent calls: on this machine, without an
 * AMD GPU, it must get as far as the library's own answer (rsmi_init's
 * status, or no GPU), never "cannot load" or a missing function. */
#include "pna_autoconf.h"
#include "sources/gpu/amd.h"
#include "unit.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#ifdef HAVE_ROCM_SMI
/* Whether a mapping of this process names a file containing NAME. */
static bool mapped(const char *name)
{
    FILE *f = fopen("/proc/self/maps", "r");
    CHECK(f != NULL);
    if (!f)
        return false;
    char line[1024];
    bool found = false;
    while (!found && fgets(line, sizeof line, f))
        found = strstr(line, name) != NULL;
    fclose(f);
    return found;
}
#endif

int main(void)
{
#ifndef HAVE_ROCM_SMI
    printf("SKIP: built without rocm-smi-lib\n");
    return 77;
#else
    CHECK(!mapped("librocm_smi64"));
    struct pna_rocm *r = NULL;
    char err[256] = "";
    int rc = pna_rocm_open(&r, err, sizeof err);
    printf("pna_rocm_open: %d (%s), soname %s\n", rc, rc ? err : "an AMD GPU answered",
           PNA_ROCM_SMI_SONAME);
    if (rc == 0) {
        /* a machine with an AMD GPU: the library answered */
        pna_rocm_close(r);
    } else {
        CHECK(strstr(err, "rsmi_init failed") != NULL || strstr(err, "no AMD GPU") != NULL);
        CHECK(strstr(err, "cannot load") == NULL && strstr(err, " has no ") == NULL);
    }
    /* No check that it is gone after the failure: the loader keeps a C++
     * library with unique symbols loaded (NODELETE) whatever dlclose() says.
     * That is why the poller opens it only where sysfs shows an AMD GPU. */
    UNIT_END();
#endif
}
