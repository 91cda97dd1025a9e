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
 * read at the wrong offset would be a wrong figure, worse than none. */
#include "pna_autoconf.h"
#include "sources/gpu/amd_gpu_metrics.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Where one revision keeps the fields the agent reads; 0: not in it. */
struct layout {
    uint8_t format, content_lo, content_hi;
    uint16_t need;               /* bytes up to the end of the last field read */
    bool centi;                  /* activity in hundredths of a percent (v2.4) */
    uint16_t gfx, umc, mm;       /* u16 activity */
    uint16_t xgmi_width, xgmi_speed;     /* u16 */
    uint16_t pcie_inst;          /* u64 */
    uint16_t xgmi_read, xgmi_write;      /* u64[8] */
    uint16_t acc_counter, residency;     /* u32, u32[5] */
};

static const struct layout layouts[] = {
    /* gpu_metrics_v1_1 .. v1_3: the same prefix */
    { 1, 1, 3, 22, false, 16, 18, 20, 0, 0, 0, 0, 0, 0, 0 },
    /* v1_4 (MI300) */
    { 1, 4, 4, 232, false, 12, 14, 0, 52, 54, 72, 104, 168, 0, 0 },
    /* v1_5: jpeg_activity[32] and the PCIe NAK counters moved the rest */
    { 1, 5, 5, 304, false, 12, 14, 0, 116, 118, 136, 176, 240, 0, 0 },
    /* v1_6: the throttle residency accumulators after system_clock_counter */
    { 1, 6, 6, 328, false, 12, 14, 0, 140, 142, 160, 200, 264, 104, 108 },
    /* gpu_metrics_v2_1 .. v2_3 (APU) */
    { 2, 1, 3, 32, false, 28, 0, 30, 0, 0, 0, 0, 0, 0, 0 },
    /* v2_4: the same places, utilization in hundredths ("centi") */
    { 2, 4, 4, 32, true, 28, 0, 30, 0, 0, 0, 0, 0, 0, 0 },
    /* gpu_metrics_v3_0 (APU): average_vcn_activity stands for multimedia */
    { 3, 0, 0, 46, false, 42, 0, 44, 0, 0, 0, 0, 0, 0, 0 },
};

static atomic_ulong rejected;

static char last_refusal[320];

unsigned long pna_amd_gpu_metrics_rejected(void)
{
    return atomic_load(&rejected);
}

const char *pna_amd_gpu_metrics_last_refusal(void)
{
    return last_refusal;
}

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
    for (int i = 0; i < PNA_AMD_RESIDENCIES; i++) {
        uint32_t v = le32(buf + l->residency + 4 * i);
        m->has_res[i] = v != UINT32_MAX;
        m->res_cycles[i] = m->has_res[i] ? v : 0;
    }
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
    out->has_mm_activity = activity(buf, l->mm, l->centi, &out->mm_activity_bp);
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
        /* read: data the GPU read over the link (received); write: sent */
        if (m->has_xgmi_read[i] && m->has_xgmi_write[i]) {
            l->has_traffic = true;
            l->rx_bytes = kb_to_bytes(m->xgmi_read_kb[i]);
            l->tx_bytes = kb_to_bytes(m->xgmi_write_kb[i]);
        }
    }
}

void pna_amd_gpu_metrics_apply(const struct pna_amd_gpu_metrics *m, struct pna_gpu *g)
{
    if (m->has_gfx_activity) {
        g->has_activity[PNA_GPU_ACT_GRAPHICS] = true;
        g->activity_bp[PNA_GPU_ACT_GRAPHICS] = m->gfx_activity_bp;
    }
    if (m->has_umc_activity) {
        g->has_activity[PNA_GPU_ACT_DRAM] = true;
        g->activity_bp[PNA_GPU_ACT_DRAM] = m->umc_activity_bp;
    }
    /* Not served (docs/gpu.md): multimedia activity has no column; the PCIe
     * figure is both directions in one, in units that changed between
     * revisions; the residency counts are firmware cycles of a period the
     * kernel does not document. */
    apply_links(m, g);
}

/* The largest layout is 328 bytes; newer firmware pads, so read more. */
#define BLOB_MAX 4096

int pna_amd_gpu_metrics_read(const char *path, struct pna_gpu *g, char *err, size_t errlen)
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
        atomic_fetch_add(&rejected, 1);
        snprintf(last_refusal, sizeof last_refusal, "%s: %s", path, err);
        return -1;
    }
    pna_amd_gpu_metrics_apply(&m, g);
    return 0;
}
