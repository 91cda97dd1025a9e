/* model/gpu/gpu_key.h -- the key parts that identify a GPU, shared by the
 * GPU table and the tables of its links, processes, MIG devices and
 * partitions (model/metric.h, "a row's key").
 *
 * In the index: primusGpuIndex, the GPU's PCI key, so a GPU that goes keeps
 * the others' rows.  As labels: gpu (the vendor tool's GPU number, as the
 * exporters the agent replaces use it), pci_bus_id (the stable identity) and
 * uuid. */
#ifndef PNA_MODEL_GPU_KEY_H
#define PNA_MODEL_GPU_KEY_H

#include "model/gpu/gpu.h"
#include "model/metric.h"

/* The "gpu" label of GPU record GPU in ROW's view (pna_gpu_number()). */
void pna_gpu_key_number(const struct pna_row *row, const void *gpu, struct pna_value *out);

/* The GPU's parts, read from the row's record or its parent (FROM). */
#define PNA_GPU_KEY_PARTS(from)                                                              \
    PNA_KEY_INDEX_FIELD("primusGpuIndex", NULL, from, struct pna_gpu, index),                \
    PNA_KEY_LABEL_GET("gpu", from, false, pna_gpu_key_number),                               \
    PNA_KEY_LABEL_FIELD("pci_bus_id", from, struct pna_gpu, pci_bus_id),                     \
    PNA_KEY_LABEL_FIELD("uuid", from, struct pna_gpu, uuid)

#endif
