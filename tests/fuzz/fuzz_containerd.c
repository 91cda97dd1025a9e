/* fuzz_containerd.c -- libFuzzer harness for the containerd source end to
 * end: task bundles (sources/containers/containerd.c, oci_spec.c), the cgroup memory
 * figures of each task (cgroup.c) and the device owners (devmap.c).
 *
 * The input is a file tree (see fuzz.h):
 *   root/run/containerd/io.containerd.runtime.v2.task/NS/ID/{config.json,init.pid}
 *   proc/PID/cgroup                     (the task's cgroup)
 *   sys/fs/cgroup/cgroup.controllers    (v2) or sys/fs/cgroup/memory/ (v1),
 *   sys/fs/cgroup/PATH/memory.{current,max,events} (v1: usage_in_bytes,
 *                                       limit_in_bytes, oom_control)
 *   sys/dev/char/MAJ:MIN/uevent, sys/class/drm/..., proc/driver/nvidia/gpus/...
 * The scan runs as the containers poller runs it, through a bundle cache
 * (bundle_cache.h), twice: the second scan goes through the entries the
 * first one made (the files are new, so inside the racy window: they are
 * read again; test_bundle_cache covers the entries used as they are).
 * Then the set is sorted, merged, numbered and the OOM-kill file of every
 * row is read. */
#include "pna_autoconf.h"
#include "sources/containers/bundle_cache.h"
#include "sources/containers/cgroup.h"
#include "sources/containers/containerd.h"
#include "sources/containers/devmap.h"
#include "fuzz.h"

static void read_oom_files(const struct pna_cgroup_env *env, const struct pna_container_set *set)
{
    for (size_t i = 0; i < set->count; i++) {
        char file[1024];
        uint64_t kills;
        if (!set->rows[i].cgroup_path[0])
            continue;
        if (pna_cgroup_oom_file(env, set->rows[i].cgroup_path, file, sizeof file) == 0)
            pna_cgroup_read_oom_kill(file, &kills);
        pna_cgroup_event_control(env, set->rows[i].cgroup_path, file, sizeof file);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const struct pna_roots *roots = fz_tree_build(data, size);
    struct pna_cgroup_env env;
    struct pna_container_set set;
    struct pna_containerd_stats stats;
    char err[256];
    if (pna_cgroup_detect(roots, "fs/cgroup", &env, err, sizeof err) != 0)
        env.mode = PNA_CG_NONE;
    pna_container_set_init(&set);
    struct pna_bundle_cache *cache = pna_bundle_cache_new();
    if (cache && pna_containerd_scan_cached(roots, "run/containerd", &env, NULL, cache, &set, &stats,
                                            err, sizeof err) == 0)
        pna_container_set_clear(&set);
    if (pna_containerd_scan_cached(roots, "run/containerd", &env, NULL, cache, &set, &stats, err,
                                   sizeof err) == 0) {
        size_t n = 0;
        char **dirs = pna_containerd_watch_dirs(roots, "run/containerd", &n);
        pna_containerd_free_dirs(dirs, n);
        pna_devmap_owners(roots, &set);
        read_oom_files(&env, &set);
        if (pna_container_set_sort(&set) == 0 && pna_container_set_merge_runtimes(&set) == 0) {
            pna_container_set_assign_indexes(&set, NULL);
            pna_container_set_count_devices(&set);
        }
        pna_devmap_count_gpus(roots);
    }
    pna_container_set_free(&set);
    pna_bundle_cache_free(cache);
    fz_tree_clear();
    return 0;
}
