/* sources/storage/statvfs.c -- node ephemeral storage from statvfs() of the
 * kubelet root (see statvfs.h). */
#include "pna_autoconf.h"
#include "sources/storage/statvfs.h"
#include "core/roots.h"
#include "util/fileio.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/statvfs.h>

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
