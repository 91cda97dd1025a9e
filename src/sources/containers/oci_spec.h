/* sources/containers/oci_spec.h -- one OCI runtime spec (a task bundle's
 * config.json) turned into a container record.
 *
 * Only these are read: the io.kubernetes.cri.* annotations that name the
 * container, its pod and image; linux.cgroupsPath; the memory limit; and the
 * device nodes of linux.devices and linux.resources.devices.  The environment,
 * arguments and every other annotation are never looked at. */
#ifndef PNA_SOURCES_OCI_SPEC_H
#define PNA_SOURCES_OCI_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/containers.h"

struct pna_roots;

#define PNA_OCI_MAX_BYTES (4u << 20)   /* a spec larger than this is refused */

struct pna_oci_info {
    bool sandbox;                /* a pod sandbox ("pause") container */
    bool has_mem_limit;
    uint64_t mem_limit_bytes;    /* linux.resources.memory.limit */
    char cgroups_path[256];      /* linux.cgroupsPath as written */
};

/* Parse TEXT (LEN bytes) for the container ID and append one record to SET,
 * with its devices.  ROOTS (may be NULL) resolves allow-list entries that have
 * numbers but no path through sysfs.  Returns 0, or -1 with one line in ERR
 * and nothing appended. */
int pna_oci_parse(const char *text, size_t len, const char *id, const struct pna_roots *roots,
                  struct pna_container_set *set, struct pna_oci_info *info,
                  char *err, size_t errlen);

#endif
