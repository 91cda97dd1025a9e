/* sources/storage/statvfs.h -- node ephemeral storage from statvfs() of the
 * kubelet's root directory, for nodes where no kubelet answers. */
#ifndef PNA_SOURCES_STATVFS_H
#define PNA_SOURCES_STATVFS_H

#include <stddef.h>

#include "model/storage.h"

struct pna_roots;

/* statvfs() of ROOTS->rootfs + REL ("var/lib/kubelet").  Fills OUT (source
 * STATVFS) and the path asked about.  Returns 0, or -errno with ERR. */
int pna_storage_statvfs(const struct pna_roots *roots, const char *rel,
                        struct pna_node_storage *out, char *path, size_t path_cap,
                        char *err, size_t errlen);

#endif
