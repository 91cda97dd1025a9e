/* fuzz_cgroup.c -- libFuzzer harness for the cgroup text parsers
 * (sources/containers/cgroup.c) that need no files: /proc/PID/cgroup in both hierarchy
 * modes, an OCI linux.cgroupsPath (plain and systemd "slice:prefix:name"),
 * and the oom_kill line of memory.events / memory.oom_control.  The input is
 * given to each of them as text, and to the path ones with small buffers too
 * (the length checks are part of what is tested). */
#include "pna_autoconf.h"
#include "sources/containers/cgroup.h"
#include "fuzz.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fz_cstr(data, size);
    char buf[256], tiny[8];
    uint64_t kills;
    pna_cgroup_parse_proc(text, PNA_CG_V2, buf, sizeof buf);
    pna_cgroup_parse_proc(text, PNA_CG_V1, buf, sizeof buf);
    pna_cgroup_parse_proc(text, PNA_CG_V1, tiny, sizeof tiny);
    pna_cgroup_path_from_spec(text, buf, sizeof buf);
    pna_cgroup_path_from_spec(text, tiny, sizeof tiny);
    pna_cgroup_parse_oom_kill(text, &kills);
    free(text);
    return 0;
}
