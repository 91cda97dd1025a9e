/* sources/gpu/amd_gpu_metrics.c -- amdgpu's binary gpu_metrics file (see
 * amd_gpu_metrics.h).
 *
 * The layouts are described by the offsets of the fields read, one line per
 * revision, worked out from the kernel's struct definitions (natural
 * alignment, little-endian).  Every read is bounded by the smaller of the
 * data read and the blob's own structure_size, and a revision is only taken
 * when structure_size covers every field its line names.  v1.0 and v2.0 are
 * not naturally aligned (the kernel advises against them) and are refused as
 * unknown, as is any revision newer than the layouts known here: a field
 * read at the wrong offset would be a wrong figure, worse than none.  (v1.9
 * is a list of attributes pointing into the kernel, not a table.) */
#include "pna_autoconf.h"
#include "sources/gpu/amd_gpu_metrics.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Where one revision keeps the fields the agent reads; 0: not in it. */
struct layout {
    uint8_t format, content_lo, content_hi;
    uint16_t need;               /* bytes up to the end of the last field read */
    bool centi;                  /* activity in hundredths of a percent (v2.4) */
    uint16_t gfx, umc, mm;       /* u16 activity */
    uint16_t energy;             /* u64 energy_accumulator, 2^-16 J (15.259 uJ) units */
    uint16_t vcn;                /* u16 vcn_activity[4] (v1.4, v1.5) */
    uint16_t xgmi_width, xgmi_speed;     /* u16 */
    uint16_t pcie_inst;          /* u64 */
    uint16_t xgmi_read, xgmi_write;      /* u64[8] */
    uint16_t xgmi_status;        /* u16[8] */
    uint16_t acc_counter, residency;     /* u32, u32[5] */
    uint16_t num_partition;      /* u16 */
    uint16_t xcp, xcp_size, xcp_vcn;     /* xcp_stats[8]: start, element size,
                                            u16 vcn_busy[4] inside an element */
};

#define NUM_VCN 4
#define NUM_XCP PNA_GPU_MAX_XCP
#define MAX_XCC 8            /* gfx_busy_inst[MAX_XCC] leads each XCP's statistics */

static const struct layout layouts[] = {
    /* gpu_metrics_v1_1 .. v1_3: the same prefix */
    { .format = 1, .content_lo = 1, .content_hi = 3, .need = 32, .gfx = 16, .umc = 18, .mm = 20,
      .energy = 24 },
    /* v1_4 (MI300) */
    { .format = 1, .content_lo = 4, .content_hi = 4, .need = 232, .gfx = 12, .umc = 14, .vcn = 16,
      .energy = 24,
      .xgmi_width = 52, .xgmi_speed = 54, .pcie_inst = 72, .xgmi_read = 104, .xgmi_write = 168 },
    /* v1_5: jpeg_activity[32] and the PCIe NAK counters moved the rest */
    { .format = 1, .content_lo = 5, .content_hi = 5, .need = 304, .gfx = 12, .umc = 14, .vcn = 16,
      .energy = 88, /* after vcn_activity[4] and jpeg_activity[32] */
      .xgmi_width = 116, .xgmi_speed = 118, .pcie_inst = 136, .xgmi_read = 176, .xgmi_write = 240 },
    /* v1_6: no VCN/JPEG arrays; throttle residencies after system_clock_counter;
     * struct amdgpu_xcp_metrics (168 bytes) per partition at the end */
    { .format = 1, .content_lo = 6, .content_hi = 6, .need = 1656, .gfx = 12, .umc = 14, .energy = 16,
      .acc_counter = 32, .residency = 36, .xgmi_width = 64, .xgmi_speed = 66, .pcie_inst = 88,
      .xgmi_read = 128, .xgmi_write = 192, .num_partition = 306, .xcp = 312, .xcp_size = 168,
      .xcp_vcn = 96 },
    /* v1_7: mem_max_bandwidth (u64) at 16 moved the rest; xgmi_link_status[8];
     * struct amdgpu_xcp_metrics_v1_1 (232 bytes) */
    { .format = 1, .content_lo = 7, .content_hi = 7, .need = 2200, .gfx = 12, .umc = 14, .energy = 24,
      .acc_counter = 40, .residency = 44, .xgmi_width = 72, .xgmi_speed = 74, .pcie_inst = 96,
      .xgmi_read = 136, .xgmi_write = 200, .xgmi_status = 264, .num_partition = 338, .xcp = 344,
      .xcp_size = 232, .xcp_vcn = 96 },
    /* v1_8: v1_7 with struct amdgpu_xcp_metrics_v1_2 (376 bytes, 40 JPEG engines) */
    { .format = 1, .content_lo = 8, .content_hi = 8, .need = 3352, .gfx = 12, .umc = 14, .energy = 24,
      .acc_counter = 40, .residency = 44, .xgmi_width = 72, .xgmi_speed = 74, .pcie_inst = 96,
      .xgmi_read = 136, .xgmi_write = 200, .xgmi_status = 264, .num_partition = 338, .xcp = 344,
      .xcp_size = 376, .xcp_vcn = 112 },
    /* gpu_metrics_v2_1 .. v2_3 (APU) */
    { .format = 2, .content_lo = 1, .content_hi = 3, .need = 32, .gfx = 28, .mm = 30 },
    /* v2_4: the same places, utilization in hundredths ("centi") */
    { .format = 2, .content_lo = 4, .content_hi = 4, .need = 32, .centi = true, .gfx = 28, .mm = 30 },
    /* gpu_metrics_v3_0 (APU): average_vcn_activity stands for multimedia */
    { .format = 3, .content_lo = 0, .content_hi = 0, .need = 46, .gfx = 42, .mm = 44 },
};

static uint16_t le16(const uint8_t *p)
{
    return (uint16_t)(p[0] | (unsigned)p[1] << 8);
}

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)le16(p) | (uint32_t)le16(p + 2) << 16;
}

static uint64_t le64(const uint8_t *p)
{
    return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

static const struct layout *find_layout(uint8_t format, uint8_t content)
{
    for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++)
        if (layouts[i].format == format && content >= layouts[i].content_lo &&
            content <= layouts[i].content_hi)
            return &layouts[i];
    return NULL;
}

/* An activity field: percent (or hundredths), 0xffff when not supported; a
 * share above 100 % is not a reading either. */
static bool activity(const uint8_t *buf, uint16_t off, bool centi, uint32_t *bp)
{
    if (!off)
        return false;
    uint32_t v = le16(buf + off);
    if (v == 0xffffu)
        return false;
    v = centi ? v : v * 100u;
    if (v > 10000u)
        return false;
    *bp = v;
    return true;
}

static void read_links(const uint8_t *buf, const struct layout *l, struct pna_amd_gpu_metrics *m)
{
    uint16_t w = le16(buf + l->xgmi_width), s = le16(buf + l->xgmi_speed);
    if (w != 0xffffu && s != 0xffffu && w > 0 && s > 0) {
        m->has_xgmi_link = true;
        m->xgmi_width = w;
        m->xgmi_gbps = s;
    }
    for (int i = 0; i < PNA_AMD_XGMI_LINKS; i++) {
        uint64_t r = le64(buf + l->xgmi_read + 8 * i), t = le64(buf + l->xgmi_write + 8 * i);
        m->has_xgmi_read[i] = r != UINT64_MAX;
        m->xgmi_read_kb[i] = m->has_xgmi_read[i] ? r : 0;
        m->has_xgmi_write[i] = t != UINT64_MAX;
        m->xgmi_write_kb[i] = m->has_xgmi_write[i] ? t : 0;
    }
    for (int i = 0; l->xgmi_status && i < PNA_AMD_XGMI_LINKS; i++) {
        /* the kernel's XGMI_LINK_ACTIVE / INACTIVE; anything else (an
         * error code, 0xffff) says nothing */
        uint16_t st = le16(buf + l->xgmi_status + 2 * i);
        m->has_xgmi_status[i] = st <= 1;
        m->xgmi_up[i] = st == 1;
    }
    uint64_t bw = le64(buf + l->pcie_inst);
    m->has_pcie_bandwidth = bw != UINT64_MAX;
    m->pcie_bandwidth_inst = m->has_pcie_bandwidth ? bw : 0;
}

static void read_residency(const uint8_t *buf, const struct layout *l,
                           struct pna_amd_gpu_metrics *m)
{
    uint32_t acc = le32(buf + l->acc_counter);
    if (acc == UINT32_MAX)
        return;
    m->has_residency = true;
    m->accumulation_counter = acc;
    for (int i = 0; i < PNA_GPU_RESIDENCIES; i++) {
        uint32_t v = le32(buf + l->residency + 4 * i);
        m->has_res[i] = v != UINT32_MAX;
        m->res_cycles[i] = m->has_res[i] ? v : 0;
    }
}

/* Multimedia activity from GROUPS arrays of NUM_VCN u16 readings, the
 * first at OFF and each STRIDE bytes after the one before: the mean of the
 * instances that report.  False when none does. */
static bool vcn_mean(const uint8_t *buf, uint16_t off, uint32_t groups, uint16_t stride,
                     uint32_t *bp)
{
    uint32_t sum = 0, n = 0;
    for (uint32_t g = 0; g < groups; g++)
        for (uint32_t i = 0; i < NUM_VCN; i++) {
            uint32_t v;
            if (activity(buf, (uint16_t)(off + g * stride + 2 * i), false, &v)) {
                sum += v;
                n++;
            }
        }
    if (!n)
        return false;
    *bp = (sum + n / 2) / n;
    return true;
}

/* The mean of the MAX_XCC u32 gfx_busy_inst readings (percent) at OFF that
 * report; false when none does. */
static bool xcc_mean(const uint8_t *buf, uint16_t off, uint32_t *bp)
{
    uint32_t sum = 0, n = 0;
    for (uint32_t i = 0; i < MAX_XCC; i++) {
        uint32_t v = le32(buf + off + 4 * i);
        if (v <= 100) {
            sum += v * 100;
            n++;
        }
    }
    if (!n)
        return false;
    *bp = (sum + n / 2) / n;
    return true;
}

/* v1.6+: the partitions the driver filled (num_partition, at most 8). */
static uint32_t partitions(const uint8_t *buf, const struct layout *l)
{
    uint16_t n = le16(buf + l->num_partition);
    return n == 0xffffu ? 0 : (n > NUM_XCP ? NUM_XCP : n);
}

static void read_xcp(const uint8_t *buf, const struct layout *l, struct pna_amd_gpu_metrics *m)
{
    for (uint32_t p = 0; p < m->partitions; p++) {
        uint16_t at = (uint16_t)(l->xcp + p * l->xcp_size);
        m->has_xcp_gfx[p] = xcc_mean(buf, at, &m->xcp_gfx_bp[p]);
        m->has_xcp_video[p] = vcn_mean(buf, (uint16_t)(at + l->xcp_vcn), 1, 0, &m->xcp_video_bp[p]);
    }
}

static void read_multimedia(const uint8_t *buf, const struct layout *l,
                            struct pna_amd_gpu_metrics *m)
{
    if (l->mm)
        m->has_mm_activity = activity(buf, l->mm, l->centi, &m->mm_activity_bp);
    else if (l->vcn)
        m->has_mm_activity = vcn_mean(buf, l->vcn, 1, 0, &m->mm_activity_bp);
    else if (l->xcp && m->partitions)
        m->has_mm_activity = vcn_mean(buf, (uint16_t)(l->xcp + l->xcp_vcn), m->partitions,
                                      l->xcp_size, &m->mm_activity_bp);
}

int pna_amd_gpu_metrics_parse(const uint8_t *buf, size_t len, struct pna_amd_gpu_metrics *out,
                              char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (len < 4) {
        snprintf(err, errlen, "short: %zu bytes, no header", len);
        return -1;
    }
    out->structure_size = le16(buf);
    out->format = buf[2];
    out->content = buf[3];
    const struct layout *l = find_layout(out->format, out->content);
    if (!l) {
        snprintf(err, errlen, "unknown revision %u.%u (%u bytes)", out->format, out->content,
                 out->structure_size);
        return -1;
    }
    if (out->structure_size > len || out->structure_size < l->need) {
        snprintf(err, errlen, "short: revision %u.%u needs %u bytes, structure_size %u, read %zu",
                 out->format, out->content, l->need, out->structure_size, len);
        return -1;
    }
    out->has_gfx_activity = activity(buf, l->gfx, l->centi, &out->gfx_activity_bp);
    out->has_umc_activity = activity(buf, l->umc, l->centi, &out->umc_activity_bp);
    if (l->energy) {
        /* all ones: not supported; 0: a firmware that does not keep it (three
         * of the four recorded v1.3 desktop blobs) */
        uint64_t e = le64(buf + l->energy);
        out->has_energy = e != UINT64_MAX && e != 0;
        out->energy_mj = out->has_energy ? (uint64_t)((unsigned __int128)e * 1000u >> 16) : 0;
    }
    if (l->num_partition) {
        out->partitions = partitions(buf, l);
        read_xcp(buf, l, out);
    }
    read_multimedia(buf, l, out);
    if (l->xgmi_read)
        read_links(buf, l, out);
    if (l->acc_counter)
        read_residency(buf, l, out);
    return 0;
}

/* KB of the kernel's "accumulated data transfer size (KiloBytes)" to bytes,
 * saturating (2^54 KB is more than any link moves). */
static uint64_t kb_to_bytes(uint64_t kb)
{
    return kb > UINT64_MAX / 1024 ? UINT64_MAX : kb * 1024;
}

/* One link row per array index with a counter.  The rate is amd-smi's
 * max_bandwidth (bit rate x lanes), in megabytes per second. */
static void apply_links(const struct pna_amd_gpu_metrics *m, struct pna_gpu *g)
{
    for (uint32_t i = 0; i < PNA_AMD_XGMI_LINKS && g->link_count < PNA_GPU_MAX_LINKS; i++) {
        if (!m->has_xgmi_read[i] && !m->has_xgmi_write[i])
            continue;
        struct pna_gpu_link *l = &g->links[g->link_count++];
        memset(l, 0, sizeof *l);
        l->number = i;
        l->remote_type = PNA_GPU_LINK_REMOTE_UNKNOWN;
        if (m->has_xgmi_link) {
            l->has_speed = true;
            l->speed_mbps = (uint32_t)((uint64_t)m->xgmi_gbps * m->xgmi_width * 1000u / 8u);
        }
        if (m->has_xgmi_status[i]) {
            l->has_state = true;
            l->up = m->xgmi_up[i];
        }
        /* read: data the GPU read over the link (received); write: sent */
        if (m->has_xgmi_read[i] && m->has_xgmi_write[i]) {
            l->has_traffic = true;
            l->rx_bytes = kb_to_bytes(m->xgmi_read_kb[i]);
            l->tx_bytes = kb_to_bytes(m->xgmi_write_kb[i]);
        }
    }
}

static void apply_residency(const struct pna_amd_gpu_metrics *m, struct pna_gpu *g)
{
    if (!m->has_residency)
        return;
    g->has_acc_cycles = true;
    g->acc_cycles = m->accumulation_counter;
    for (int i = 0; i < PNA_GPU_RESIDENCIES; i++) {
        g->has_residency[i] = m->has_res[i];
        g->residency_cycles[i] = m->res_cycles[i];
    }
}

static void set_activity(struct pna_gpu *g, enum pna_gpu_activity act, bool has, uint32_t bp)
{
    if (has) {
        g->has_activity[act] = true;
        g->activity_bp[act] = bp;
    }
}

void pna_amd_gpu_metrics_apply(const struct pna_amd_gpu_metrics *m, struct pna_gpu *g)
{
    set_activity(g, PNA_GPU_ACT_GRAPHICS, m->has_gfx_activity, m->gfx_activity_bp);
    set_activity(g, PNA_GPU_ACT_DRAM, m->has_umc_activity, m->umc_activity_bp);
    set_activity(g, PNA_GPU_ACT_MULTIMEDIA, m->has_mm_activity, m->mm_activity_bp);
    if (m->has_pcie_bandwidth) {
        g->has_pcie_bandwidth = true;
        g->pcie_bandwidth_mbps = m->pcie_bandwidth_inst;
    }
    apply_residency(m, g);
    if (m->has_energy && !g->has_energy) {   /* hwmon's energy1_input comes first */
        g->has_energy = true;
        g->energy_mj = m->energy_mj;
    }
    g->xcp_count = m->partitions;
    for (uint32_t p = 0; p < m->partitions; p++) {
        g->has_xcp_gfx[p] = m->has_xcp_gfx[p];
        g->xcp_gfx_bp[p] = m->xcp_gfx_bp[p];
        g->has_xcp_video[p] = m->has_xcp_video[p];
        g->xcp_video_bp[p] = m->xcp_video_bp[p];
    }
    apply_links(m, g);
}

/* The largest layout (v1.8) is 3,360 bytes; read more, newer firmware pads. */
#define BLOB_MAX 8192

int pna_amd_gpu_metrics_read(const char *path, struct pna_gpu *g,
                             struct pna_amd_gpu_metrics_refusals *refusals, char *err,
                             size_t errlen)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return 0; /* no gpu_metrics: older GPUs, virtual functions */
    uint8_t buf[BLOB_MAX];
    size_t len = 0;
    ssize_t n;
    while (len < sizeof buf && (n = read(fd, buf + len, sizeof buf - len)) != 0) {
        if (n < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        len += (size_t)n;
    }
    close(fd);
    struct pna_amd_gpu_metrics m;
    if (pna_amd_gpu_metrics_parse(buf, len, &m, err, errlen) != 0) {
        if (refusals) {
            refusals->count++;
            snprintf(refusals->last, sizeof refusals->last, "%s: %s", path, err);
        }
        return -1;
    }
    pna_amd_gpu_metrics_apply(&m, g);
    return 0;
}
