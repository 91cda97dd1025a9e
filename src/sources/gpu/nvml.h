/* sources/gpu/nvml.h -- NVIDIA GPUs through NVML, loaded at run time.
 *
 * libnvidia-ml.so.1 is opened with dlopen() so one build runs on GPU and
 * CPU-only nodes alike.  GPUs are identified by PCI address and UUID: NVML's
 * index order may change between boots and is never used as an identity.
 *
 * Thread ownership: pna_nvml_collect() runs on the GPU poller thread; the XID
 * watch (watchers/gpu_xid.c) waits on an XID set from a thread of its own
 * (NVML is thread-safe).  Any NVML call may hang on a sick driver: the poller
 * core's deadline covers collect(), and the XID watch waits in short slices
 * so it can be stopped. */
#ifndef PNA_GPU_NVML_H
#define PNA_GPU_NVML_H

#include <stddef.h>
#include <stdint.h>

#include "model/gpu/gpu.h"

/* pna_nvml_open(): the library or the driver is not there (not an error). */
#define PNA_NVML_ABSENT 1

struct pna_nvml;

/* Load LIBRARY (NULL or "": libnvidia-ml.so.1), resolve its symbols and call
 * nvmlInit_v2.  Returns 0 with *OUT set; PNA_NVML_ABSENT with ERR saying why
 * when there is no library, no driver or no GPU; -1 with ERR otherwise. */
int pna_nvml_open(const char *library, struct pna_nvml **out, char *err, size_t errlen);

/* nvmlShutdown and dlclose.  The XID set opened on NV is freed first, by its
 * owner (the GPU poller stops its XID watch before it closes NVML); one whose
 * waiting thread is stuck inside NVML means NV is never closed. */
void pna_nvml_close(struct pna_nvml *nv);

/* Append every GPU NVML reports to LIST.  A GPU that answers
 * NVML_ERROR_GPU_IS_LOST is appended with lost = true and the identity it had
 * when last seen.  DRIVER / CUDA receive the system-wide versions ("" when
 * unknown).  Returns 0, or -1 with ERR when NVML itself fails. */
int pna_nvml_collect(struct pna_nvml *nv, struct pna_gpu_list *list, char *driver,
                     size_t driver_len, char *cuda, size_t cuda_len, char *err, size_t errlen);

/* One XID error reported by NVML's event API. */
struct pna_nvml_xid {
    uint32_t index;          /* PCI key of the GPU */
    char pci_bus_id[24];
    char uuid[80];
    uint64_t xid;
};
typedef void (*pna_nvml_xid_fn)(const struct pna_nvml_xid *xid, void *arg);

/* XIDs through NVML's event API (sources/gpu/nvml_events.c).  An XID set
 * holds NV's event set with every GPU that accepts
 * nvmlEventTypeXidCriticalError registered, and each one's identity. */
struct pna_nvml_xid_set;

/* Open a set on NV: 0 with *OUT, or with *OUT NULL when NVML has no event API
 * or no GPU accepts the registration (no XIDs to wait for); -1 with ERR. */
int pna_nvml_xid_set_open(struct pna_nvml *nv, struct pna_nvml_xid_set **out, char *err,
                          size_t errlen);

/* The GPUs registered in S. */
size_t pna_nvml_xid_set_gpus(const struct pna_nvml_xid_set *s);

/* Wait up to TIMEOUT_MS for the next XID (nvmlEventSetWait: it blocks, and
 * NVML gives no descriptor to wait on instead).  Returns 1 with *X filled, 0
 * when none came (or another kind of event), -1 when NVML failed (a GPU lost,
 * driver trouble: the poll reports it). */
int pna_nvml_xid_wait(struct pna_nvml_xid_set *s, unsigned timeout_ms, struct pna_nvml_xid *x);

/* Free S (nvmlEventSetFree).  NULL is allowed. */
void pna_nvml_xid_set_free(struct pna_nvml_xid_set *s);

#endif
