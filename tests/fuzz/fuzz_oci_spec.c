/* fuzz_oci_spec.c -- libFuzzer harness for the OCI runtime spec reader
 * (sources/containers/oci_spec.c): a task bundle's config.json as containerd's runtime
 * writes it, with the CRI annotations, linux.cgroupsPath, the memory limit,
 * linux.devices and the linux.resources.devices allow-list.
 *
 * The input is the JSON text.  It is parsed as two containers (ids "task-a"
 * and "task-b", so the set has rows to sort and number), allow-list entries
 * are resolved against an empty sysfs tree, and the parsed cgroupsPath goes
 * through pna_cgroup_path_from_spec() as the containerd source does. */
#include "pna_autoconf.h"
#include "sources/containers/cgroup.h"
#include "sources/containers/oci_spec.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const struct pna_roots *roots;
    if (!roots)
        roots = fz_tree_build(NULL, 0);   /* empty: every number is unresolved */
    struct pna_container_set set;
    struct pna_oci_info info;
    char err[256], cg[256];
    pna_container_set_init(&set);
    if (pna_oci_parse((const char *)data, size, "task-b", roots, NULL, &set, &info, err, sizeof err) == 0)
        pna_cgroup_path_from_spec(info.cgroups_path, cg, sizeof cg);
    pna_oci_parse((const char *)data, size, "task-a", NULL, NULL, &set, &info, err, sizeof err);
    if (pna_container_set_sort(&set) == 0 && pna_container_set_merge_runtimes(&set) == 0) {
        pna_container_set_assign_indexes(&set, NULL);
        pna_container_set_count_devices(&set);
    }
    pna_container_set_free(&set);
    return 0;
}
