/* sources/gpu/amd_gpu_metrics.h -- amdgpu's binary gpu_metrics file
 * (/sys/class/drm/cardN/device/gpu_metrics): a header (structure_size,
 * format_revision, content_revision) and a little-endian, naturally aligned
 * structure whose layout the revision names, as the kernel's
 * drivers/gpu/drm/amd/include/kgd_pp_interface.h defines them
 * (struct gpu_metrics_v1_1 .. v1_8, v2_1 .. v2_4, v3_0).
 *
 * Format 1 is a discrete GPU's, format 2 and 3 an APU's.  The firmware fills
 * what it has and the driver leaves the rest as all ones: 0xffff, 0xffffffff
 * and all-ones 64-bit fields mean "not supported" and are absent here.
 *
 * The revisions are not append-only: v1.6 dropped v1.5's VCN and JPEG arrays
 * for per-partition (XCP) statistics, v1.7 inserted mem_max_bandwidth near
 * the top.  A v1.6 with the layout AMD proposed in May 2024 and withdrew
 * (384 bytes, never in a kernel release) is refused as short. */
#ifndef PNA_GPU_AMD_GPU_METRICS_H
#define PNA_GPU_AMD_GPU_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/gpu/gpu.h"

#define PNA_AMD_XGMI_LINKS 8     /* NUM_XGMI_LINKS of the kernel's layouts */

/* What one gpu_metrics blob said.  Every figure has its flag. */
struct pna_amd_gpu_metrics {
    uint16_t structure_size;
    uint8_t format, content;     /* revision format.content: 1.3, 2.1, 3.0 */
    bool has_gfx_activity;
    uint32_t gfx_activity_bp;    /* hundredths of a percent */
    bool has_energy;             /* energy_accumulator, since the driver loaded */
    uint64_t energy_mj;
    bool has_umc_activity;       /* memory controllers busy */
    uint32_t umc_activity_bp;
    bool has_mm_activity;        /* multimedia (UVD/VCN) busy: v1.1-1.3, v2.x, v3.0;
                                    v1.4+: the mean of the VCN instances that report */
    uint32_t mm_activity_bp;
    bool has_xgmi_link;          /* v1.4+: one width and rate for every link */
    uint32_t xgmi_width, xgmi_gbps;  /* lanes; gigabits per second per lane */
    bool has_xgmi_read[PNA_AMD_XGMI_LINKS], has_xgmi_write[PNA_AMD_XGMI_LINKS];
    uint64_t xgmi_read_kb[PNA_AMD_XGMI_LINKS], xgmi_write_kb[PNA_AMD_XGMI_LINKS];
    bool has_xgmi_status[PNA_AMD_XGMI_LINKS];    /* v1.7+ */
    bool xgmi_up[PNA_AMD_XGMI_LINKS];
    bool has_pcie_bandwidth;     /* v1.4+: instantaneous, both directions together, */
    uint64_t pcie_bandwidth_inst;    /* in the unit amd-smi prints, Mb/s */
    bool has_residency;          /* v1.6+: firmware accumulation cycles */
    uint32_t accumulation_counter;
    bool has_res[PNA_GPU_RESIDENCIES];
    uint32_t res_cycles[PNA_GPU_RESIDENCIES];
    uint32_t partitions;         /* v1.6+: XCPs with statistics (num_partition), else 0 */
    /* v1.6+, per XCP: the mean of its XCCs' gfx_busy_inst and of its VCNs' vcn_busy */
    bool has_xcp_gfx[PNA_GPU_MAX_XCP], has_xcp_video[PNA_GPU_MAX_XCP];
    uint32_t xcp_gfx_bp[PNA_GPU_MAX_XCP], xcp_video_bp[PNA_GPU_MAX_XCP];
};

/* The blobs a caller's reads refused, for its log line (sources do not log):
 * the caller's own (the GPU poller keeps one in its state), counted from zero. */
struct pna_amd_gpu_metrics_refusals {
    unsigned long count;         /* refused since the struct was zeroed */
    char last[320];              /* the last one: "PATH: why" */
};

/* Decode the LEN bytes at BUF.  Returns 0, or -1 with ERR ("short ...",
 * "unknown revision ...") when the header is short, structure_size is past
 * the data or below what the revision needs, or the revision is not one of
 * the layouts above. */
int pna_amd_gpu_metrics_parse(const uint8_t *buf, size_t len, struct pna_amd_gpu_metrics *out,
                              char *err, size_t errlen);

/* Fill G's activity, throttle residency, PCIe bandwidth and XGMI link rows
 * from M (see docs/gpu.md, "AMD"). */
void pna_amd_gpu_metrics_apply(const struct pna_amd_gpu_metrics *m, struct pna_gpu *g);

/* Read the gpu_metrics file at PATH into G.  A missing file is normal (older
 * GPUs, virtual functions): 0, G untouched.  An unreadable, short or unknown
 * blob leaves G as it was: -1 with ERR, counted in REFUSALS (may be NULL)
 * with ERR as its last refusal. */
int pna_amd_gpu_metrics_read(const char *path, struct pna_gpu *g,
                             struct pna_amd_gpu_metrics_refusals *refusals, char *err,
                             size_t errlen);

#endif
