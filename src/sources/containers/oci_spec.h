/* sources/containers/oci_spec.h -- one OCI runtime spec (a task bundle's
 * config.json) turned into a container record.
 *
 * Only these are read: the io.kubernetes.cri.* annotations that name the
 * container, its pod and image (CRI-O's io.kubernetes.cri-o.ContainerType
 * and ImageName, and the io.kubernetes.container.name and io.kubernetes.pod.*
 * ones it copies, where those are absent); io.container.manager (Podman's
 * mark); the cdi.k8s.io/ annotations (CDI device
 * names, resolved through the node's CDI specs: cdi.h); linux.cgroupsPath;
 * the memory limit; the device nodes of linux.devices and
 * linux.resources.devices; and, in process.env, the one entry
 * NVIDIA_VISIBLE_DEVICES=.  That entry's value is only turned into the GPUs
 * it names: it is never logged or exported, it is kept in memory (in the
 * spec's facts, below) only to name those GPUs again, and no other variable
 * of the environment is read.  Arguments and every other annotation are never
 * looked at, but for a CRI-O sandbox's io.kubernetes.cri-o.Labels, of which
 * only the keys podLabels names are copied (pna_oci_facts_read_labels). */
#ifndef PNA_SOURCES_OCI_SPEC_H
#define PNA_SOURCES_OCI_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/containers.h"
#include "sources/containers/oci_pod_labels.h"

struct pna_roots;
struct pna_cdi_registry;

#define PNA_OCI_MAX_BYTES (4u << 20)   /* a spec larger than this is refused */

struct pna_oci_info {
    bool sandbox;                /* a pod sandbox ("pause") container */
    bool has_mem_limit;
    uint64_t mem_limit_bytes;    /* linux.resources.memory.limit */
    char cgroups_path[256];      /* linux.cgroupsPath as written */
    unsigned unresolved;         /* devices named (a CDI name, an NVIDIA_VISIBLE_DEVICES
                                    index or UUID, a MIG UUID) that no spec or GPU of
                                    the node resolved: not listed */
};

/* An allow rule of linux.resources.devices that names one device. */
struct pna_oci_rule {
    char type;               /* 'c' or 'b' */
    uint32_t major, minor;
};

/* What one spec says, read once: everything taken from the JSON, before any
 * of the node is looked at (sysfs device names, the CDI specs, the NVIDIA
 * GPU list).  The containerd source keeps them while the bundle's
 * config.json is unchanged (bundle_cache.h) and applies them to the node
 * at every poll, so a cached spec and a re-read one give the same record. */
struct pna_oci_facts {
    bool sandbox;                 /* as pna_oci_info's */
    bool libpod;                  /* io.container.manager is "libpod": Podman wrote it */
    bool has_mem_limit;
    uint64_t mem_limit_bytes;
    char *cgroups_path;           /* linux.cgroupsPath as written (display form); NULL absent */
    char *name, *pod_name, *pod_namespace, *pod_uid, *image;   /* NULL: absent */
    struct pna_container_device *devs;   /* linux.devices, classified */
    size_t ndevs, devs_cap;
    struct pna_oci_rule *rules;   /* allow rules naming one device, in order */
    size_t nrules, rules_cap;
    char **cdi;                   /* CDI device names of the cdi.k8s.io/ annotations */
    size_t ncdi, cdi_cap;
    char *nvidia;                 /* NVIDIA_VISIBLE_DEVICES when it selects GPUs, else NULL */
    struct pna_oci_pod_labels labels; /* a CRI-O sandbox's allowed pod labels
                                         (pna_oci_facts_read_labels) */
};

/* Read TEXT (LEN bytes), the spec of container ID, into F.  Returns 0, or -1
 * with one line in ERR and F empty. */
int pna_oci_facts_read(const char *text, size_t len, const char *id, struct pna_oci_facts *f,
                       char *err, size_t errlen);

/* pna_oci_facts_read(), and the pod labels of a CRI-O pod sandbox
 * (io.kubernetes.cri-o.Labels) that ALLOW names into F->labels
 * (sources/containers/oci_pod_labels.h); pna_oci_pod_labels_add() gives them
 * to a snapshot's set.  No other annotation is read. */
int pna_oci_facts_read_labels(const char *text, size_t len, const char *id,
                              const struct pna_label_allow *allow, struct pna_oci_facts *f,
                              char *err, size_t errlen);

/* Append the record F describes to SET, with its devices resolved on the
 * node (ROOTS and CDI as for pna_oci_parse), and fill INFO.  Returns 0, or -1
 * (out of memory) with ERR and nothing appended. */
int pna_oci_facts_apply(const struct pna_oci_facts *f, const char *id,
                        const struct pna_roots *roots, const struct pna_cdi_registry *cdi,
                        struct pna_container_set *set, struct pna_oci_info *info, char *err,
                        size_t errlen);

void pna_oci_facts_free(struct pna_oci_facts *f);   /* F may be NULL; left empty */

/* pna_oci_facts_read() then pna_oci_facts_apply(): parse TEXT (LEN bytes) for the container ID and append one record to SET,
 * with its devices.  ROOTS (may be NULL) resolves allow-list entries that have
 * numbers but no path through sysfs, and NVIDIA_VISIBLE_DEVICES through
 * procfs driver/nvidia/gpus (without ROOTS it is not read).  CDI (may be
 * NULL: no CDI device resolves) holds the node's CDI specs.  Returns 0, or
 * -1 with one line in ERR and nothing appended.
 *
 * NVIDIA_VISIBLE_DEVICES, as the NVIDIA container runtime reads it: "all"
 * every NVIDIA GPU of the node; "none", "void" or empty none; else a comma
 * list of GPU indexes (NVML's order: PCI address), GPU UUIDs ("GPU-...") and
 * MIG UUIDs ("MIG-...", counted as unresolved: nothing maps them to a
 * capability yet).  Each GPU becomes /dev/nvidiaN (N its "Device Minor"). */
int pna_oci_parse(const char *text, size_t len, const char *id, const struct pna_roots *roots,
                  const struct pna_cdi_registry *cdi, struct pna_container_set *set,
                  struct pna_oci_info *info, char *err, size_t errlen);

#endif
