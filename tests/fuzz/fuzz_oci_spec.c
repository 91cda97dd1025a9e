/* fuzz_oci_spec.c -- libFuzzer harness for the OCI runtime spec reader
 * (sources/containers/oci_spec.c): a task bundle's config.json as containerd's runtime
 * writes it, with the CRI annotations, linux.cgroupsPath, the memory limit,
 * linux.devices and the linux.resources.devices allow-list.
 *
 * The input is the JSON text.  It is parsed as two containers (ids "task-a"
 * and "task-b", so the set has rows to sort and number), allow-list entries
 * are resolved against an empty sysfs tree, and the parsed cgroupsPath goes
 * through pna_cgroup_path_from_spec() as the containerd source does.  A third
 * read takes a CRI-O sandbox's io.kubernetes.cri-o.Labels under a podLabels
 * allow-list and gives them to a set of served labels. */
#include "pna_autoconf.h"
#include "sources/containers/cgroup.h"
#include "sources/containers/oci_spec.h"
#include "util/label_allow.h"
#include "fuzz.h"

/* The labels of a CRI-O sandbox spec, as a CRI-O reader takes them. */
static void pod_labels(const uint8_t *data, size_t size)
{
    static struct pna_label_allow allow;
    char why[256];
    if (!allow.count)
        pna_label_allow_add(&allow, "team,app.kubernetes.io/*,*", why, sizeof why);
    struct pna_oci_facts f;
    struct pna_pod_label_set set;
    pna_pod_label_set_init(&set);
    if (pna_oci_facts_read_labels((const char *)data, size, "sandbox", &allow, &f, why,
                                  sizeof why) == 0) {
        if (f.labels.count > PNA_POD_LABELS_PER_POD)
            __builtin_trap();
        pna_oci_pod_labels_add(&f.labels, &allow, &set);
        pna_pod_label_set_finish(&set);
        pna_oci_facts_free(&f);
    }
    pna_pod_label_set_free(&set);
}

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
    pod_labels(data, size);
    return 0;
}
