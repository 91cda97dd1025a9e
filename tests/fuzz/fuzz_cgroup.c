/* fuzz_cgroup.c -- libFuzzer harness for the cgroup text parsers
 * (sources/containers/cgroup.c): /proc/PID/cgroup in both hierarchy modes, an
 * OCI linux.cgroupsPath (plain and systemd "slice:prefix:name"), and the
 * oom_kill line of memory.events / memory.oom_control and any key of
 * memory.stat.  The input is given to
 * each of them as text, and to the path ones with small buffers too (the
 * length checks are part of what is tested); then it is written as a
 * cgroup's memory.events and read back with the directory's identity
 * (pna_cgroup_read_oom_state), which must agree with the text parser and
 * name the same directory twice. */
#include "pna_autoconf.h"
#include "sources/containers/cgroup.h"
#include "fuzz.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void check_oom_state(const uint8_t *data, size_t size, int text_rc, uint64_t text_kills)
{
    struct pna_cgroup_env env = { .mode = PNA_CG_V2 };
    char dir[PATH_MAX], file[PATH_MAX + 32];
    snprintf(env.mem_root, sizeof env.mem_root, "%s/cg", fz_tmpdir());
    snprintf(dir, sizeof dir, "%s/c", env.mem_root);
    snprintf(file, sizeof file, "%s/memory.events", dir);
    if (mkdir(env.mem_root, 0700) != 0 || mkdir(dir, 0700) != 0)
        abort();
    FILE *f = fopen(file, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0)
        abort();
    uint64_t kills, again;
    struct pna_cgroup_id a, b;
    int rc = pna_cgroup_read_oom_state(&env, "/c", &kills, &a);
    if (rc == 0 && text_rc == 0 && kills != text_kills)
        abort();
    if (rc == 0 && (pna_cgroup_read_oom_state(&env, "/c", &again, &b) != 0 || again != kills ||
                    !pna_cgroup_id_equal(&a, &b)))
        abort();
    fz_rm_rf(env.mem_root);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fz_cstr(data, size);
    char buf[256], tiny[8];
    uint64_t kills = 0;
    pna_cgroup_parse_proc(text, PNA_CG_V2, buf, sizeof buf);
    pna_cgroup_parse_proc(text, PNA_CG_V1, buf, sizeof buf);
    pna_cgroup_parse_proc(text, PNA_CG_V1, tiny, sizeof tiny);
    pna_cgroup_path_from_spec(text, buf, sizeof buf);
    pna_cgroup_path_from_spec(text, tiny, sizeof tiny);
    uint64_t any;
    pna_cgroup_parse_key(text, "total_inactive_file", &any);
    pna_cgroup_parse_key(text, "", &any);
    int rc = pna_cgroup_parse_oom_kill(text, &kills);
    free(text);
    check_oom_state(data, size, rc, kills);
    return 0;
}
