/* sources/gpu/nvml.h -- NVIDIA GPUs through NVML, loaded at run time.
 *
 * libnvidia-ml.so.1 is opened with dlopen() so one build runs on GPU and
 * CPU-only nodes alike.  GPUs are identified by PCI address and UUID: NVML's
 * index order may change between boots and is never used as an identity.
 *
 * Thread ownership: pna_nvml_collect() runs on the GPU poller thread; the XID
 * listener runs on a thread of its own (NVML is thread-safe).  Any NVML call
 * may hang on a sick driver: the poller core's deadline covers collect(), and
 * the listener waits in short slices so it can be stopped. */
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

/* nvmlShutdown and dlclose (stops the XID listener first).  Returns 1 when a
 * listener stuck inside NVML had to be left running (then nothing is freed,
 * and whatever its callback uses must stay allocated too), else 0. */
int pna_nvml_close(struct pna_nvml *nv);

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

/* Start the XID listener thread: every GPU is registered for
 * nvmlEventTypeXidCriticalError and FN is called (on the listener thread) for
 * each event.  Returns 0 (also when no GPU supports events: then no thread
 * runs), -1 with ERR. */
int pna_nvml_events_start(struct pna_nvml *nv, pna_nvml_xid_fn fn, void *arg, char *err,
                          size_t errlen);

/* Stop and join the listener.  A listener stuck inside NVML is left detached
 * and the library stays loaded (it is never unloaded under a live call). */
void pna_nvml_events_stop(struct pna_nvml *nv);

/* True while a listener thread runs. */
int pna_nvml_events_running(const struct pna_nvml *nv);

#endif
