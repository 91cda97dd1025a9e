/* sources/containers/cdi.h -- CDI (Container Device Interface) spec files: which
 * device nodes a fully qualified CDI device name ("nvidia.com/gpu=0") stands for.
 *
 * A CDI spec (YAML or JSON; JSON is read as YAML, as the CDI reference library
 * reads it) names a kind ("vendor.com/class") and its devices; each device's
 * containerEdits.deviceNodes, plus the spec-level containerEdits.deviceNodes
 * that apply to every device of the spec, are what a runtime injects.  Only
 * kind, devices[].name and the deviceNodes (path, hostPath, type, major,
 * minor) are read: hooks, mounts and environment are never looked at.
 *
 * Spec files are read from ROOTS->rootfs/etc/cdi then ROOTS->rootfs/var/run/cdi,
 * the directories the CDI specification names.  For the same kind and device
 * a later directory overrides an earlier one (and, within a directory, a later
 * file name a former one).
 *
 * Threads: a registry belongs to one thread (the containers poller's). */
#ifndef PNA_SOURCES_CDI_H
#define PNA_SOURCES_CDI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct pna_roots;

#define PNA_CDI_MAX_BYTES (1u << 20)   /* a larger spec file is refused */
#define PNA_CDI_MAX_DEVICES 1024       /* devices per spec file; more: the file is refused */
#define PNA_CDI_MAX_NODES 64           /* device nodes per device, and spec-level; more are ignored */
#define PNA_CDI_MAX_FILES 256          /* spec files per directory; more are ignored */
#define PNA_CDI_NAME_MAX 128           /* a kind or device name longer than this is refused */

struct pna_cdi_node {
    char path[96];         /* in the container ("/dev/nvidia0") */
    char host_path[96];    /* on the host; empty: the same as path */
    char type;             /* 'c', 'b', 'u', 'p'; 0 unknown */
    bool has_numbers;
    uint32_t major, minor;
};

struct pna_cdi_device {
    char name[PNA_CDI_NAME_MAX];
    uint32_t first, count; /* its own nodes: spec->nodes[first..first+count) */
};

/* One parsed spec file.  nodes[0..ncommon) are the spec-level deviceNodes. */
struct pna_cdi_spec {
    char kind[PNA_CDI_NAME_MAX];   /* "vendor.com/class" */
    struct pna_cdi_device *devs;
    size_t ndevs;
    struct pna_cdi_node *nodes;
    size_t nnodes, ncommon;
};

/* Parse spec TEXT (LEN bytes, YAML or JSON) into SPEC: pure, no I/O.  Returns
 * 0, or -1 with one line in ERR and SPEC empty.  Free with pna_cdi_spec_free. */
int pna_cdi_parse(const char *text, size_t len, struct pna_cdi_spec *spec, char *err,
                  size_t errlen);
void pna_cdi_spec_free(struct pna_cdi_spec *spec);

/* Split "vendor.com/class=name" into KIND and NAME; false when it is not a
 * fully qualified CDI device name. */
bool pna_cdi_split_name(const char *qualified, char *kind, size_t kcap, char *name, size_t ncap);

/* The device nodes of QUALIFIED in SPEC (spec-level first), at most CAP, as
 * pointers into SPEC; -1 when SPEC has no such device. */
int pna_cdi_spec_nodes(const struct pna_cdi_spec *spec, const char *kind, const char *name,
                       const struct pna_cdi_node **out, size_t cap);

/* ---- the registry: the node's spec files, cached by path and mtime ---------------- */

struct pna_cdi_registry;

struct pna_cdi_registry *pna_cdi_registry_new(void);
void pna_cdi_registry_free(struct pna_cdi_registry *reg);

/* Look at the spec directories again: a stat per file; a file is parsed only
 * when new or changed (path, mtime, size).  A malformed file is skipped (the
 * others still count) and reported once through pna_cdi_registry_error(). */
void pna_cdi_registry_refresh(struct pna_cdi_registry *reg, const struct pna_roots *roots);

/* Malformed spec files seen at the last refresh, and the first one's reason
 * ("" when none). */
unsigned pna_cdi_registry_error(const struct pna_cdi_registry *reg, const char **why);

/* The device nodes QUALIFIED ("vendor.com/class=name") stands for, as
 * pointers into REG (valid until the next refresh), at most CAP: -1 when no
 * spec defines it. */
int pna_cdi_resolve(const struct pna_cdi_registry *reg, const char *qualified,
                    const struct pna_cdi_node **out, size_t cap);

/* For tests and the fuzz harness: add SPEC (taken over) as if read from a
 * file after every file read so far. */
int pna_cdi_registry_add(struct pna_cdi_registry *reg, struct pna_cdi_spec *spec);

#endif
