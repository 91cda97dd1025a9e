/* storage.c -- node ephemeral storage: statvfs() of the kubelet root, and the
 * rules that turn capacity/available/used into the usage ratio (see
 * collect/storage.h and model/storage.h). */
#include "core/config.h"
#include "collect/storage.h"
#include "core/roots.h"
#include "util/fileio.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/statvfs.h>

void pna_node_storage_finish(struct pna_node_storage *s)
{
    if (s->used_bytes == 0 && s->capacity_bytes >= s->available_bytes)
        s->used_bytes = s->capacity_bytes - s->available_bytes;
    s->usage_percent_x100 = 0;
    if (s->capacity_bytes) {
        /* 128-bit intermediate: used * 10000 overflows 64 bits past ~1.8 EB. */
        unsigned __int128 r = ((unsigned __int128)s->used_bytes * 10000 + s->capacity_bytes / 2) /
                              s->capacity_bytes;
        s->usage_percent_x100 = r > 10000 ? 10000 : (uint32_t)r;
    }
}

int pna_storage_statvfs(const struct pna_roots *roots, const char *rel,
                        struct pna_node_storage *out, char *path, size_t path_cap,
                        char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (pna_path(path, path_cap, roots->rootfs, "/%s", rel) < 0) {
        snprintf(err, errlen, "kubelet root path too long");
        return -ENAMETOOLONG;
    }
    struct statvfs vfs;
    if (statvfs(path, &vfs) < 0) {
        int e = errno;
        snprintf(err, errlen, "statvfs %s: %s", path, strerror(e));
        return -e;
    }
    uint64_t frsize = vfs.f_frsize ? vfs.f_frsize : vfs.f_bsize;
    out->valid = true;
    out->source = PNA_STORAGE_STATVFS;
    out->capacity_bytes = (uint64_t)vfs.f_blocks * frsize;
    out->available_bytes = (uint64_t)vfs.f_bavail * frsize;
    /* Used is what is allocated (blocks - free), as cAdvisor and df count it;
     * the root-reserved blocks are neither used nor available. */
    out->used_bytes = ((uint64_t)vfs.f_blocks - (uint64_t)vfs.f_bfree) * frsize;
    out->inodes = vfs.f_files;
    out->inodes_free = vfs.f_ffree;
    pna_node_storage_finish(out);
    return 0;
}

const struct pna_node_storage *pna_node_storage_pick(const struct pna_kubelet_snap *kubelet,
                                                     const struct pna_storage_snap *storage,
                                                     int64_t now_ms, int64_t max_age_ms)
{
    if (kubelet && kubelet->node_fs.valid && now_ms - kubelet->base.taken_ms <= max_age_ms)
        return &kubelet->node_fs;
    if (storage && storage->node_fs.valid)
        return &storage->node_fs;
    return NULL;
}
