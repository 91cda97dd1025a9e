/* snmp/gpu_table.c -- primusGpu: primusGpuCount and primusGpuTable, served
 * from the GPU snapshot (struct pna_gpu_snap, model/gpu.h).
 *
 * Rows come sorted by primusGpuIndex (the PCI key) from the poller.  A figure
 * the GPU or its source does not offer is absent from the row; a GPU that
 * fell off the bus keeps only its identity columns.  The DRM and holder
 * columns are the MIB's "empty when none" strings. */
#include "pna_autoconf.h"
#include "model/gpu.h"
#include "snmp/gpu_table.h"
#include "snmp/oids.h"
#include "snmp/table.h"

#include <stdio.h>

static const struct pna_gpu_snap *snap_of(const void *ctx)
{
    return ctx;
}

/* primusGpuCount: 0 (not absent) before a first poll or without GPUs. */
static int get_gpu_scalar(const void *ctx, unsigned subid, struct pna_cell *out)
{
    (void)ctx;
    if (subid != PNA_SC_GPU_COUNT)
        return PNA_CELL_ABSENT;
    const struct pna_gpu_snap *s = (const struct pna_gpu_snap *)pna_cache_acquire(PNA_DOM_GPU);
    uint32_t n = s ? (uint32_t)s->count : 0;
    pna_snap_release((struct pna_snap *)s);
    return pna_cell_u32(out, n);
}

static size_t gpu_rows(const void *ctx)
{
    return snap_of(ctx)->count;
}

static size_t gpu_index(const void *ctx, size_t row, oid *idx)
{
    idx[0] = snap_of(ctx)->gpus[row].index;
    return 1;
}

static int text_or_absent(struct pna_cell *out, const char *s)
{
    return s[0] ? pna_cell_str(out, s) : PNA_CELL_ABSENT;
}

#define OPT_U32(flag, v) ((flag) ? pna_cell_u32(out, (uint32_t)(v)) : PNA_CELL_ABSENT)
#define OPT_INT(flag, v) ((flag) ? pna_cell_int(out, (v)) : PNA_CELL_ABSENT)
#define OPT_C64(flag, v) ((flag) ? pna_cell_counter64(out, (v)) : PNA_CELL_ABSENT)

static int vendor_value(enum pna_gpu_vendor v)
{
    switch (v) {
    case PNA_GPU_VND_NVIDIA: return PNA_GPU_VENDOR_NVIDIA;
    case PNA_GPU_VND_AMD: return PNA_GPU_VENDOR_AMD;
    }
    return PNA_GPU_VENDOR_OTHER;
}

static int source_value(enum pna_gpu_source s)
{
    switch (s) {
    case PNA_GPU_SRC_NVML: return PNA_GPU_DATA_SOURCE_NVML;
    case PNA_GPU_SRC_NVIDIA_SMI: return PNA_GPU_DATA_SOURCE_NVIDIA_SMI;
    case PNA_GPU_SRC_ROCM_SMI: return PNA_GPU_DATA_SOURCE_ROCM_SMI;
    case PNA_GPU_SRC_AMDGPU_SYSFS: return PNA_GPU_DATA_SOURCE_AMDGPU_SYSFS;
    }
    return PNA_GPU_DATA_SOURCE_NVML;
}

/* Columns every row has, lost GPUs included. */
static int identity_cell(const struct pna_gpu *g, unsigned col, struct pna_cell *out)
{
    char buf[16];
    switch (col) {
    case PNA_COL_GPU_VENDOR: return pna_cell_int(out, vendor_value(g->vendor));
    case PNA_COL_GPU_ORDINAL: return OPT_U32(g->has_vendor_index, g->vendor_index);
    case PNA_COL_GPU_NAME: return text_or_absent(out, g->name);
    case PNA_COL_GPU_UUID: return text_or_absent(out, g->uuid);
    case PNA_COL_GPU_SERIAL: return text_or_absent(out, g->serial);
    case PNA_COL_GPU_PCI_BUS_ID: return pna_cell_str(out, g->pci_bus_id);
    case PNA_COL_GPU_DRIVER_VERSION: return text_or_absent(out, g->driver_version);
    case PNA_COL_GPU_COMPUTE_VERSION: return text_or_absent(out, g->cuda_version);
    case PNA_COL_GPU_VBIOS: return text_or_absent(out, g->vbios);
    case PNA_COL_GPU_PCI_DEVICE_ID:
        if (!g->has_pci_ids)
            return PNA_CELL_ABSENT;
        /* as lspci -n prints it */
        snprintf(buf, sizeof buf, "%04x:%04x", g->pci_vendor_id, g->pci_device_id);
        return pna_cell_strcopy(out, buf);
    case PNA_COL_GPU_DATA_SOURCE: return pna_cell_int(out, source_value(g->source));
    case PNA_COL_GPU_DRM_CARD: return pna_cell_str(out, g->drm_card);
    case PNA_COL_GPU_DRM_RENDER: return pna_cell_str(out, g->drm_render);
    case PNA_COL_GPU_HOLDER_CONTAINER: return pna_cell_str(out, g->has_holder ? g->holder_container : "");
    case PNA_COL_GPU_HOLDER_POD: return pna_cell_str(out, g->has_holder ? g->holder_pod : "");
    case PNA_COL_GPU_HOLDER_NAMESPACE:
        return pna_cell_str(out, g->has_holder ? g->holder_namespace : "");
    case PNA_COL_GPU_XID_ERRORS: return g->has_xid ? pna_cell_counter32(out, g->xid_errors) : PNA_CELL_ABSENT;
    case PNA_COL_GPU_LAST_XID: return OPT_U32(g->has_xid, g->last_xid);
    case PNA_COL_GPU_HOLDER_COUNT: return pna_cell_u32(out, g->has_holder ? g->holder_count : 0);
    }
    return 1; /* not an identity column */
}

static int figure_cell(const struct pna_gpu *g, unsigned col, struct pna_cell *out)
{
    switch (col) {
    case PNA_COL_GPU_UTILIZATION: return OPT_U32(g->has_util_gpu, g->util_gpu_pct);
    case PNA_COL_GPU_MEM_UTILIZATION: return OPT_U32(g->has_util_mem, g->util_mem_pct);
    case PNA_COL_GPU_MEM_TOTAL: return OPT_C64(g->has_mem_total, g->mem_total_bytes);
    case PNA_COL_GPU_MEM_USED: return OPT_C64(g->has_mem_used, g->mem_used_bytes);
    case PNA_COL_GPU_MEM_FREE: return OPT_C64(g->has_mem_free, g->mem_free_bytes);
    case PNA_COL_GPU_TEMPERATURE: return OPT_INT(g->has_temp, g->temp_c);
    case PNA_COL_GPU_MEM_TEMPERATURE: return OPT_INT(g->has_temp_mem, g->temp_mem_c);
    case PNA_COL_GPU_TEMP_SLOWDOWN: return OPT_INT(g->has_temp_slowdown, g->temp_slowdown_c);
    case PNA_COL_GPU_TEMP_SHUTDOWN: return OPT_INT(g->has_temp_shutdown, g->temp_shutdown_c);
    case PNA_COL_GPU_POWER_DRAW: return OPT_U32(g->has_power, g->power_mw);
    case PNA_COL_GPU_POWER_LIMIT: return OPT_U32(g->has_power_limit, g->power_limit_mw);
    case PNA_COL_GPU_ENERGY: return OPT_C64(g->has_energy, g->energy_mj);
    case PNA_COL_GPU_SM_CLOCK: return OPT_U32(g->has_clock_sm, g->clock_sm_mhz);
    case PNA_COL_GPU_MEM_CLOCK: return OPT_U32(g->has_clock_mem, g->clock_mem_mhz);
    case PNA_COL_GPU_FAN_SPEED: return OPT_U32(g->has_fan, g->fan_pct);
    case PNA_COL_GPU_PCIE_GEN: return OPT_U32(g->has_pcie_gen, g->pcie_gen);
    case PNA_COL_GPU_PCIE_WIDTH: return OPT_U32(g->has_pcie_width, g->pcie_width);
    case PNA_COL_GPU_PCIE_REPLAYS: return OPT_C64(g->has_pcie_replay, g->pcie_replay);
    case PNA_COL_GPU_ECC_CORRECTED: return OPT_C64(g->has_ecc, g->ecc_corrected);
    case PNA_COL_GPU_ECC_UNCORRECTED: return OPT_C64(g->has_ecc, g->ecc_uncorrected);
    case PNA_COL_GPU_RETIRED_PAGES:
        return OPT_U32(g->has_retired_pages, g->retired_pages_sbe + g->retired_pages_dbe);
    case PNA_COL_GPU_REMAPPED_ROWS:
        return OPT_U32(g->has_remapped_rows, g->remapped_rows_corr + g->remapped_rows_unc);
    case PNA_COL_GPU_REMAP_PENDING:
        return OPT_INT(g->has_remapped_rows, g->remap_pending ? PNA_TRUTH_TRUE : PNA_TRUTH_FALSE);
    case PNA_COL_GPU_THROTTLE_REASONS: return OPT_U32(g->has_throttle, g->throttle_reasons);
    case PNA_COL_GPU_PROCESS_COUNT: return OPT_U32(g->has_processes, g->process_count);
    case PNA_COL_GPU_MIG_MODE:
        return OPT_INT(g->has_mig, g->mig_enabled ? PNA_GPU_MIG_MODE_ENABLED
                                                  : PNA_GPU_MIG_MODE_DISABLED);
    case PNA_COL_GPU_PCIE_GEN_MAX: return OPT_U32(g->has_pcie_gen_max, g->pcie_gen_max);
    case PNA_COL_GPU_PCIE_WIDTH_MAX: return OPT_U32(g->has_pcie_width_max, g->pcie_width_max);
    case PNA_COL_GPU_PERF_STATE: return OPT_U32(g->has_perf_state, g->perf_state);
    }
    return PNA_CELL_ABSENT;
}

static int gpu_cell(const void *ctx, size_t row, unsigned col, struct pna_cell *out)
{
    const struct pna_gpu *g = &snap_of(ctx)->gpus[row];
    int rc = identity_cell(g, col, out);
    if (rc <= 0)
        return rc;
    /* the model's flags are cleared for a lost GPU; say so explicitly */
    return g->lost ? PNA_CELL_ABSENT : figure_cell(g, col, out);
}

static const oid gpu_group_oid[] = { PNA_OID_GPU };
static const oid gpu_table_oid[] = { PNA_OID_GPU_TABLE };

const struct pna_scalar_def pna_gpu_scalars_def = {
    .name = "primusGpu",
    .group_oid = gpu_group_oid,
    .group_oid_len = OID_LENGTH(gpu_group_oid),
    .domain = PNA_DOM_NONE, /* reads the snapshot itself: 0 GPUs, not absent */
    .min_subid = PNA_SC_GPU_COUNT,
    .max_subid = PNA_SC_GPU_COUNT,
    .get = get_gpu_scalar,
};

const struct pna_table_def pna_gpu_table_def = {
    .name = "primusGpuTable",
    .table_oid = gpu_table_oid,
    .table_oid_len = OID_LENGTH(gpu_table_oid),
    .domain = PNA_DOM_GPU,
    .min_col = PNA_COL_GPU_VENDOR,
    .max_col = PNA_COL_GPU_HOLDER_COUNT,
    .rows_in_index_order = true, /* the poller sorts by PCI key */
    .row_count = gpu_rows,
    .row_index = gpu_index,
    .get_cell = gpu_cell,
};

void pna_gpu_table_register(void)
{
    pna_scalars_register(&pna_gpu_scalars_def);
    pna_table_register(&pna_gpu_table_def);
}
