/* test_gpu_amd_metrics.c -- amdgpu's binary gpu_metrics parser and the KFD
 * process reader.
 *
 * Recorded blobs (tests/fixtures/amdgpu-sysfs/gpu_metrics: v1.3 desktop GPUs,
 * v2.1 and v3.0 APUs) are compared with a decoder written apart from the
 * agent's: python3's struct.unpack at the offsets of the kernel's structs.
 *
 * No MI-series blob (v1.4 to v1.8) was recorded anywhere we could find, so
 * those are BUILT here: the field lists below follow the kernel's struct
 * gpu_metrics_v1_4 .. v1_8 and struct amdgpu_xcp_metrics .. _v1_2
 * (kgd_pp_interface.h) in order, and the builder lays them out by natural
 * alignment itself, so the parser's hand-written offsets are checked against
 * an independent layout.  Their values are made up for the test (the
 * residency counts are amd-smi's from its changelog); they are not captures.
 * The v1.6 that AMD proposed in May 2024 and withdrew is built too, to check
 * that it is refused rather than misread.
 *
 * Likewise no KFD proc tree was recorded: the one built here follows
 * amdkfd's sysfs layout (class/kfd/kfd/proc/<pid>/vram_<gpu_id>, bytes) and
 * the topology of the recorded Phoenix APU (gpu_id 35218, location_id 25600). */
#include "pna_autoconf.h"
#include "sources/gpu/amd_gpu_metrics.h"
#include "sources/gpu/amd_kfd.h"
#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- recorded blobs against python3's decoding -------------------------------- */

static size_t load(const char *name, uint8_t *buf, size_t cap, char *path, size_t pcap)
{
    snprintf(path, pcap, "%s/amdgpu-sysfs/gpu_metrics/%s", unit_fixtures(), name);
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL);
    if (!f)
        return 0;
    size_t n = fread(buf, 1, cap, f);
    fclose(f);
    return n;
}

/* "format content gfx umc mm" from python3 (umc -1 where the layout has none). */
static void python_decode(const char *path, int want[5])
{
    char cmd[8600];
    snprintf(cmd, sizeof cmd,
             "python3 -c \"import struct,sys\n"
             "b=open(sys.argv[1],'rb').read()\n"
             "s,f,c=struct.unpack_from('<HBB',b,0)\n"
             "o={1:(16,18,20),2:(28,None,30),3:(42,None,44)}[f]\n"
             "v=[struct.unpack_from('<H',b,x)[0] if x else -1 for x in o]\n"
             "print(f,c,*v)\" '%s'", path);
    FILE *p = popen(cmd, "r");
    CHECK(p != NULL);
    if (!p)
        return;
    CHECK_INT(fscanf(p, "%d %d %d %d %d", &want[0], &want[1], &want[2], &want[3], &want[4]), 5);
    pclose(p);
}

static void test_recorded(void)
{
    static const char *const blobs[] = {
        "lact-rx6900xt-navi21-v1_3.bin", "lact-rx7600s-navi33-v1_3.bin",
        "lact-rx7800xt-navi32-v1_3.bin", "lact-rx9070-navi48-v1_3.bin",
        "lact-phoenix-apu-v2_1.bin",     "lact-strixpoint-apu-v3_0.bin",
    };
    for (size_t i = 0; i < sizeof blobs / sizeof blobs[0]; i++) {
        uint8_t buf[4096];
        char path[4200], err[160];
        size_t n = load(blobs[i], buf, sizeof buf, path, sizeof path);
        struct pna_amd_gpu_metrics m;
        CHECK_INT(pna_amd_gpu_metrics_parse(buf, n, &m, err, sizeof err), 0);
        int want[5] = { 0 };
        python_decode(path, want);
        CHECK_INT(m.format, want[0]);
        CHECK_INT(m.content, want[1]);
        CHECK(m.has_gfx_activity);
        CHECK_INT(m.gfx_activity_bp, want[2] * 100);
        CHECK_INT(m.has_umc_activity, want[3] >= 0);
        if (want[3] >= 0)
            CHECK_INT(m.umc_activity_bp, want[3] * 100);
        CHECK_INT(m.mm_activity_bp, want[4] * 100);
        CHECK(!m.has_xgmi_link && !m.has_residency && !m.has_pcie_bandwidth);
        struct pna_gpu g;
        memset(&g, 0, sizeof g);
        pna_amd_gpu_metrics_apply(&m, &g);
        CHECK(g.has_activity[PNA_GPU_ACT_GRAPHICS]);
        CHECK_INT(g.has_activity[PNA_GPU_ACT_DRAM], want[3] >= 0);
        CHECK_INT(g.has_activity[PNA_GPU_ACT_MULTIMEDIA], m.has_mm_activity);
        CHECK_INT(g.activity_bp[PNA_GPU_ACT_MULTIMEDIA], m.has_mm_activity ? want[4] * 100 : 0);
        CHECK(!g.has_pcie_bandwidth && !g.has_acc_cycles);
        CHECK_INT(g.link_count, 0);
    }
    /* the RX 6900 XT's 3 % is its gpu_busy_percent in the same LACT dump */
    uint8_t buf[4096];
    char path[4200], err[160];
    struct pna_amd_gpu_metrics m;
    size_t n = load("lact-rx6900xt-navi21-v1_3.bin", buf, sizeof buf, path, sizeof path);
    CHECK_INT(pna_amd_gpu_metrics_parse(buf, n, &m, err, sizeof err), 0);
    CHECK_INT(m.gfx_activity_bp, 300);
    /* its energy_accumulator, 17691682 x 2^-16 J; the Navi 3x and 4x dumps hold 0 there
     * (not kept): no figure */
    CHECK(m.has_energy);
    CHECK_U64(m.energy_mj, 269953);
    n = load("lact-rx7800xt-navi32-v1_3.bin", buf, sizeof buf, path, sizeof path);
    CHECK_INT(pna_amd_gpu_metrics_parse(buf, n, &m, err, sizeof err), 0);
    CHECK(!m.has_energy);
}

/* ---- built v1.4 .. v1.8 blobs ------------------------------------------------- */

struct field {
    const char *name;
    unsigned size, count, align;     /* align 0: the field's size */
};

#define F(n, s) { n, s, 1, 0 }
#define A(n, s, c) { n, s, c, 0 }
#define COMMON_HEAD                                                                         \
    F("structure_size", 2), F("format_revision", 1), F("content_revision", 1),              \
    F("temperature_hotspot", 2), F("temperature_mem", 2), F("temperature_vrsoc", 2),        \
    F("curr_socket_power", 2), F("average_gfx_activity", 2), F("average_umc_activity", 2)
#define RESIDENCY                                                                           \
    F("accumulation_counter", 4), F("prochot_residency_acc", 4), F("ppt_residency_acc", 4), \
    F("socket_thm_residency_acc", 4), F("vr_thm_residency_acc", 4), F("hbm_thm_residency_acc", 4)
#define PCIE_XGMI                                                                           \
    F("pcie_link_width", 2), F("pcie_link_speed", 2), F("xgmi_link_width", 2),              \
    F("xgmi_link_speed", 2), F("gfx_activity_acc", 4), F("mem_activity_acc", 4),            \
    F("pcie_bandwidth_acc", 8), F("pcie_bandwidth_inst", 8), F("pcie_l0_to_recov_count_acc", 8), \
    F("pcie_replay_count_acc", 8), F("pcie_replay_rover_count_acc", 8)
#define NAK F("pcie_nak_sent_count_acc", 4), F("pcie_nak_rcvd_count_acc", 4)
#define XGMI_DATA A("xgmi_read_data_acc", 8, 8), A("xgmi_write_data_acc", 8, 8)
#define CLOCKS                                                                              \
    F("firmware_timestamp", 8), A("current_gfxclk", 2, 8), A("current_socclk", 2, 4),       \
    A("current_vclk0", 2, 4), A("current_dclk0", 2, 4), F("current_uclk", 2)
#define TAIL XGMI_DATA, CLOCKS, F("padding", 2)
/* One partition's statistics, struct amdgpu_xcp_metrics (JPEG 32) or
 * _v1_1/_v1_2: a struct aligned to 8 (its u64 members), flattened. */
#define XCP(i, jpeg, ...)                                                                   \
    { "xcp" #i "_gfx_busy_inst", 4, 8, 8 }, A("xcp" #i "_jpeg_busy", 2, jpeg),              \
    A("xcp" #i "_vcn_busy", 2, 4), A("xcp" #i "_gfx_busy_acc", 8, 8), __VA_ARGS__
#define XCP_V1_0 A("xcp_v1_0_has_no_more", 1, 0)
#define XCPS(jpeg, ...)                                                                     \
    XCP(0, jpeg, __VA_ARGS__), XCP(1, jpeg, __VA_ARGS__), XCP(2, jpeg, __VA_ARGS__),        \
    XCP(3, jpeg, __VA_ARGS__), XCP(4, jpeg, __VA_ARGS__), XCP(5, jpeg, __VA_ARGS__),        \
    XCP(6, jpeg, __VA_ARGS__), XCP(7, jpeg, __VA_ARGS__)
#define XCP_V1_1 A("xcp_below_host_limit_acc", 8, 8)
#define XCP_V1_2                                                                            \
    A("xcp_below_host_limit_ppt_acc", 8, 8), A("xcp_below_host_limit_thm_acc", 8, 8),      \
    A("xcp_low_utilization_acc", 8, 8)

static const struct field v1_4[] = {
    COMMON_HEAD, A("vcn_activity", 2, 4), F("energy_accumulator", 8), F("system_clock_counter", 8),
    F("throttle_status", 4), F("gfxclk_lock_status", 4), PCIE_XGMI, TAIL, { NULL, 0, 0, 0 },
};
static const struct field v1_5[] = {
    COMMON_HEAD, A("vcn_activity", 2, 4), A("jpeg_activity", 2, 32), F("energy_accumulator", 8),
    F("system_clock_counter", 8), F("throttle_status", 4), F("gfxclk_lock_status", 4), PCIE_XGMI,
    NAK, TAIL, { NULL, 0, 0, 0 },
};
/* The released v1.6 (Linux 6.13): VCN/JPEG per partition, no throttle_status. */
static const struct field v1_6[] = {
    COMMON_HEAD, F("energy_accumulator", 8), F("system_clock_counter", 8), RESIDENCY,
    F("gfxclk_lock_status", 4), PCIE_XGMI, NAK, XGMI_DATA, CLOCKS, F("num_partition", 2),
    XCPS(32, XCP_V1_0), F("pcie_lc_perf_other_end_recovery", 4), { NULL, 0, 0, 0 },
};
#define V1_7_HEAD                                                                           \
    COMMON_HEAD, F("mem_max_bandwidth", 8), F("energy_accumulator", 8),                     \
    F("system_clock_counter", 8), RESIDENCY, F("gfxclk_lock_status", 4), PCIE_XGMI, NAK,    \
    XGMI_DATA, A("xgmi_link_status", 2, 8), F("padding", 2), CLOCKS, F("num_partition", 2)
static const struct field v1_7[] = {
    V1_7_HEAD, XCPS(32, XCP_V1_1), F("pcie_lc_perf_other_end_recovery", 4), { NULL, 0, 0, 0 },
};
static const struct field v1_8[] = {
    V1_7_HEAD, XCPS(40, XCP_V1_2), F("pcie_lc_perf_other_end_recovery", 4), { NULL, 0, 0, 0 },
};
/* The v1.6 of the May 2024 patch, withdrawn a week later. */
static const struct field v1_6_withdrawn[] = {
    COMMON_HEAD, A("vcn_activity", 2, 4), A("jpeg_activity", 2, 32), F("energy_accumulator", 8),
    F("system_clock_counter", 8), RESIDENCY, F("throttle_status", 4), F("gfxclk_lock_status", 4),
    PCIE_XGMI, NAK, TAIL, { NULL, 0, 0, 0 },
};

/* A blob of FIELDS laid out as the C compiler lays out the kernel's struct:
 * each field at a multiple of its alignment, the whole a multiple of 8.
 * Every byte starts as 0xff, the driver's "not supported". */
struct blob {
    const struct field *fields;
    uint8_t bytes[4096];
    size_t size;
};

static size_t field_offset(const struct field *fields, const char *name, size_t *end)
{
    size_t off = 0, at = (size_t)-1;
    for (const struct field *f = fields; f->name; f++) {
        unsigned align = f->align ? f->align : f->size;
        if (align)
            off = (off + align - 1) / align * align;
        if (!strcmp(f->name, name) && at == (size_t)-1)
            at = off;
        off += (size_t)f->size * f->count;
    }
    if (end)
        *end = (off + 7) / 8 * 8;
    return at;
}

static void blob_set(struct blob *b, const char *name, unsigned index, uint64_t v)
{
    size_t off = field_offset(b->fields, name, NULL);
    CHECK(off != (size_t)-1);
    unsigned size = 0;
    for (const struct field *f = b->fields; f->name; f++)
        if (!strcmp(f->name, name))
            size = f->size;
    for (unsigned i = 0; i < size; i++) /* little-endian */
        b->bytes[off + (size_t)index * size + i] = (uint8_t)(v >> (8 * i));
}

static void blob_init(struct blob *b, const struct field *fields, unsigned content)
{
    memset(b->bytes, 0xff, sizeof b->bytes);
    b->fields = fields;
    field_offset(fields, "no such field", &b->size);
    CHECK(b->size <= sizeof b->bytes);
    blob_set(b, "structure_size", 0, b->size);
    blob_set(b, "format_revision", 0, 1);
    blob_set(b, "content_revision", 0, content);
}

/* An MI300-like blob: 8 XGMI links at 32 Gb/s x16 (amd-smi xgmi's figures),
 * link 7 without counters; made-up activity and traffic.  Video engines:
 * two report, 10 % and 30 % (top-level in 1.4/1.5; from 1.6 one in each of
 * two partitions). */
static void build_mi(struct blob *b, const struct field *fields, unsigned content)
{
    blob_init(b, fields, content);
    blob_set(b, "average_gfx_activity", 0, 87);
    blob_set(b, "average_umc_activity", 0, 41);
    blob_set(b, "xgmi_link_width", 0, 16);
    blob_set(b, "xgmi_link_speed", 0, 32);
    blob_set(b, "pcie_bandwidth_inst", 0, 18);
    blob_set(b, "energy_accumulator", 0, 1000000000); /* 2^-16 J each: 15258789 mJ */
    for (unsigned i = 0; i < 7; i++) {
        blob_set(b, "xgmi_read_data_acc", i, 1000 + i);
        blob_set(b, "xgmi_write_data_acc", i, 2000 + i);
    }
    blob_set(b, "xgmi_read_data_acc", 6, 3); /* link 6 reads 3 KB */
    (void)content;
    if (field_offset(fields, "num_partition", NULL) == (size_t)-1) {
        blob_set(b, "vcn_activity", 0, 10);
        blob_set(b, "vcn_activity", 2, 30);
    } else {
        blob_set(b, "num_partition", 0, 2);
        blob_set(b, "xcp0_vcn_busy", 0, 10);
        blob_set(b, "xcp1_vcn_busy", 0, 30);
        blob_set(b, "xcp2_vcn_busy", 0, 100); /* a partition past num_partition: not read */
    }
}

static void check_mi(const struct blob *b, unsigned content)
{
    struct pna_amd_gpu_metrics m;
    char err[160];
    CHECK_INT(pna_amd_gpu_metrics_parse(b->bytes, b->size, &m, err, sizeof err), 0);
    CHECK_INT(m.content, content);
    CHECK_INT(m.gfx_activity_bp, 8700);
    CHECK_INT(m.umc_activity_bp, 4100);
    CHECK(m.has_mm_activity);
    CHECK_INT(m.mm_activity_bp, 2000);
    CHECK(m.has_xgmi_link);
    CHECK(m.has_pcie_bandwidth);
    CHECK_U64(m.pcie_bandwidth_inst, 18);
    CHECK(m.has_energy);
    CHECK_U64(m.energy_mj, 15258789);
    struct pna_gpu g;
    memset(&g, 0, sizeof g);
    pna_amd_gpu_metrics_apply(&m, &g);
    CHECK(g.has_energy);
    CHECK_U64(g.energy_mj, 15258789);
    CHECK_INT(g.activity_bp[PNA_GPU_ACT_GRAPHICS], 8700);
    CHECK_INT(g.activity_bp[PNA_GPU_ACT_DRAM], 4100);
    CHECK(g.has_activity[PNA_GPU_ACT_MULTIMEDIA]);
    CHECK_INT(g.activity_bp[PNA_GPU_ACT_MULTIMEDIA], 2000);
    CHECK(!g.has_pcie_rate);
    CHECK(g.has_pcie_bandwidth);
    CHECK_U64(g.pcie_bandwidth_mbps, 18);
    CHECK_INT(g.link_count, 7); /* link 7: all ones, no row */
    CHECK_INT(g.links[0].speed_mbps, 64000); /* 32 Gb/s x 16 lanes = 512 Gb/s */
    CHECK_U64(g.links[2].rx_bytes, 1002 * 1024ULL);
    CHECK_U64(g.links[2].tx_bytes, 2002 * 1024ULL);
    CHECK_U64(g.links[6].rx_bytes, 3 * 1024ULL);
    CHECK_INT(g.links[6].number, 6);
    CHECK(!g.links[0].has_errors);
    CHECK(!g.links[0].has_state); /* xgmi_link_status all ones, or not in the layout */
    for (int c = 0; c < PNA_GPU_HELD_CAUSES; c++)
        CHECK(!g.has_held[c]);
    CHECK(!g.has_acc_cycles); /* accumulation_counter all ones, or not in the layout */
}

/* amd-smi metric --throttle's figures for GPU 0 (its changelog), HBM
 * thermal left unsupported. */
static void set_residency(struct blob *b)
{
    blob_set(b, "accumulation_counter", 0, 3808991);
    blob_set(b, "prochot_residency_acc", 0, 0);
    blob_set(b, "ppt_residency_acc", 0, 585613);
    blob_set(b, "socket_thm_residency_acc", 0, 2190);
    blob_set(b, "vr_thm_residency_acc", 0, 0);
}

static void check_residency(const struct blob *b)
{
    struct pna_amd_gpu_metrics m;
    char err[160];
    CHECK_INT(pna_amd_gpu_metrics_parse(b->bytes, b->size, &m, err, sizeof err), 0);
    CHECK(m.has_residency);
    struct pna_gpu g;
    memset(&g, 0, sizeof g);
    pna_amd_gpu_metrics_apply(&m, &g);
    CHECK(g.has_acc_cycles);
    CHECK_U64(g.acc_cycles, 3808991);
    CHECK_U64(g.residency_cycles[PNA_GPU_RES_PPT], 585613);
    CHECK_U64(g.residency_cycles[PNA_GPU_RES_SOCKET_THERMAL], 2190);
    CHECK(g.has_residency[PNA_GPU_RES_PROCHOT] && g.has_residency[PNA_GPU_RES_VR_THERMAL]);
    CHECK_U64(g.residency_cycles[PNA_GPU_RES_PROCHOT], 0);
    CHECK(!g.has_residency[PNA_GPU_RES_HBM_THERMAL]);
}

/* v1.7+: links 0-4 active, 5 inactive, 6 an error code, 7 unsupported. */
static void check_link_status(struct blob *b)
{
    for (unsigned i = 0; i < 5; i++)
        blob_set(b, "xgmi_link_status", i, 1);
    blob_set(b, "xgmi_link_status", 5, 0);
    blob_set(b, "xgmi_link_status", 6, (uint16_t)-67); /* -ENOLINK as the u16 it lands in */
    struct pna_amd_gpu_metrics m;
    char err[160];
    CHECK_INT(pna_amd_gpu_metrics_parse(b->bytes, b->size, &m, err, sizeof err), 0);
    struct pna_gpu g;
    memset(&g, 0, sizeof g);
    pna_amd_gpu_metrics_apply(&m, &g);
    CHECK_INT(g.link_count, 7);
    CHECK(g.links[0].has_state && g.links[0].up);
    CHECK(g.links[4].has_state && g.links[4].up);
    CHECK(g.links[5].has_state && !g.links[5].up);
    CHECK(!g.links[6].has_state);
}

static void test_built(void)
{
    struct blob b;
    build_mi(&b, v1_4, 4);
    CHECK_U64(b.size, 288);
    check_mi(&b, 4);
    build_mi(&b, v1_5, 5);
    CHECK_U64(b.size, 360);
    check_mi(&b, 5);
    /* the sizes the kernel's sizeof gives (structure_size of a real blob) */
    build_mi(&b, v1_6, 6);
    CHECK_U64(b.size, 1664);
    check_mi(&b, 6);
    set_residency(&b);
    check_residency(&b);
    build_mi(&b, v1_7, 7);
    CHECK_U64(b.size, 2208);
    check_mi(&b, 7);
    set_residency(&b);
    check_residency(&b);
    check_link_status(&b);
    build_mi(&b, v1_8, 8);
    CHECK_U64(b.size, 3360);
    check_mi(&b, 8);
    set_residency(&b);
    check_residency(&b);
    check_link_status(&b);

    /* every activity "not supported": absent, and no link without width */
    struct pna_amd_gpu_metrics m;
    char err[160];
    blob_init(&b, v1_5, 5);
    CHECK_INT(pna_amd_gpu_metrics_parse(b.bytes, b.size, &m, err, sizeof err), 0);
    CHECK(!m.has_gfx_activity && !m.has_umc_activity && !m.has_xgmi_link);
    CHECK(!m.has_xgmi_read[0] && !m.has_pcie_bandwidth && !m.has_mm_activity);
    /* v1.6 with no partition filled: no multimedia figure */
    build_mi(&b, v1_6, 6);
    blob_set(&b, "num_partition", 0, 0);
    CHECK_INT(pna_amd_gpu_metrics_parse(b.bytes, b.size, &m, err, sizeof err), 0);
    CHECK(!m.has_mm_activity && m.partitions == 0);
    /* the withdrawn v1.6 layout: refused, not read at the released offsets */
    build_mi(&b, v1_6_withdrawn, 6);
    CHECK_U64(b.size, 384);
    CHECK_INT(pna_amd_gpu_metrics_parse(b.bytes, b.size, &m, err, sizeof err), -1);
    CHECK(strstr(err, "short") != NULL);
}

static void test_refused(void)
{
    struct blob b;
    struct pna_amd_gpu_metrics m;
    char err[160] = "";
    build_mi(&b, v1_5, 5);
    CHECK_INT(pna_amd_gpu_metrics_parse(b.bytes, 3, &m, err, sizeof err), -1);
    CHECK(strstr(err, "short") != NULL);
    /* structure_size past the data read */
    CHECK_INT(pna_amd_gpu_metrics_parse(b.bytes, b.size - 8, &m, err, sizeof err), -1);
    CHECK(strstr(err, "short") != NULL);
    /* structure_size below what the revision needs */
    blob_set(&b, "structure_size", 0, 120);
    CHECK_INT(pna_amd_gpu_metrics_parse(b.bytes, b.size, &m, err, sizeof err), -1);
    /* revisions without a known layout: 1.0, 1.9 (attribute lists of
     * kernel pointers, not a table), 2.0, 4.0 */
    static const uint8_t revs[][2] = { { 1, 0 }, { 1, 9 }, { 2, 0 }, { 4, 0 } };
    for (size_t i = 0; i < sizeof revs / sizeof revs[0]; i++) {
        build_mi(&b, v1_5, 5);
        b.bytes[2] = revs[i][0];
        b.bytes[3] = revs[i][1];
        CHECK_INT(pna_amd_gpu_metrics_parse(b.bytes, b.size, &m, err, sizeof err), -1);
        CHECK(strstr(err, "unknown revision") != NULL);
    }
    /* an activity above 100 % is not a reading */
    build_mi(&b, v1_4, 4);
    blob_set(&b, "average_gfx_activity", 0, 101);
    CHECK_INT(pna_amd_gpu_metrics_parse(b.bytes, b.size, &m, err, sizeof err), 0);
    CHECK(!m.has_gfx_activity && m.has_umc_activity);

    /* through the file: refused, counted for the caller; the GPU left as it was */
    char dir[] = "/tmp/pna-amd-gm-XXXXXX", path[64];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/gpu_metrics", dir);
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (f) {
        fwrite("\x78\x00\x01\x09", 1, 4, f);
        fclose(f);
    }
    struct pna_amd_gpu_metrics_refusals refusals = { 0 };
    struct pna_gpu g;
    memset(&g, 0, sizeof g);
    CHECK_INT(pna_amd_gpu_metrics_read(path, &g, &refusals, err, sizeof err), -1);
    CHECK(strstr(err, "unknown revision 1.9") != NULL);
    CHECK_U64(refusals.count, 1);
    CHECK(strncmp(refusals.last, path, strlen(path)) == 0 && strstr(refusals.last, err) != NULL);
    CHECK(!g.has_activity[PNA_GPU_ACT_GRAPHICS]);
    CHECK_INT(pna_amd_gpu_metrics_read(path, &g, NULL, err, sizeof err), -1); /* not counted */
    CHECK_U64(refusals.count, 1);
    snprintf(path, sizeof path, "%s/none", dir);
    /* missing: not refused */
    CHECK_INT(pna_amd_gpu_metrics_read(path, &g, &refusals, err, sizeof err), 0);
    CHECK_U64(refusals.count, 1);
    snprintf(path, sizeof path, "%s/gpu_metrics", dir);
    unlink(path);
    rmdir(dir);
}

/* ---- KFD processes ------------------------------------------------------------ */

static void put(const char *root, const char *rel, const char *text)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    for (char *s = strchr(path + strlen(root) + 1, '/'); s; s = strchr(s + 1, '/')) {
        *s = '\0';
        mkdir(path, 0755);
        *s = '/';
    }
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void test_kfd(void)
{
    char root[] = "/tmp/pna-amd-kfd-XXXXXX";
    CHECK(mkdtemp(root) != NULL);
    const char *t = "class/kfd/kfd/topology/nodes";
    char rel[200];
#define PUT(fmt, arg, text) (snprintf(rel, sizeof rel, fmt, t, arg), put(root, rel, text))
    PUT("%s/%d/gpu_id", 0, "0\n"); /* the CPU */
    PUT("%s/%d/properties", 0, "cpu_cores_count 16\nsimd_count 0\nlocation_id 0\ndomain 0\n");
    PUT("%s/%d/gpu_id", 1, "35218\n");
    PUT("%s/%d/properties", 1,
        "simd_count 24\nsimd_per_cu 4\nlocation_id 25600\ndomain 0\ndrm_render_minor 128\nnum_xcc 1\n");
    /* a second partition of the same GPU (same PCI address, its own gpu_id),
     * numbered 10 so that a name sort would put it first */
    PUT("%s/%d/gpu_id", 10, "35219\n");
    PUT("%s/%d/properties", 10, "simd_count 24\nlocation_id 25600\ndomain 0\ndrm_render_minor 999\n");
    put(root, "class/kfd/kfd/proc/4321/vram_35218", "1073741824\n");
    put(root, "class/kfd/kfd/proc/4321/vram_35219", "4096\n");
    put(root, "class/kfd/kfd/proc/4321/pasid", "32770\n");
    put(root, "class/kfd/kfd/proc/987/vram_35218", "65536\n");
    put(root, "class/kfd/kfd/proc/555/vram_77777", "12\n"); /* a GPU not in the list */
    put(root, "class/kfd/kfd/proc/self/vram_35218", "1\n");  /* not a pid */

    struct pna_gpu_list list = { 0 };
    struct pna_gpu *g = pna_gpu_list_add(&list);
    CHECK_INT(pna_gpu_set_pci(g, "0000:64:00.0"), 0);
    g->vendor = PNA_GPU_VND_AMD;
    strcpy(g->compute_partition, "DPX"); /* partitionable: partition rows */
    g->xcp_count = 2;
    g->has_xcp_gfx[1] = g->has_xcp_video[0] = true;
    g->xcp_gfx_bp[1] = 4200;
    g->xcp_video_bp[0] = 1300;
    g = pna_gpu_list_add(&list); /* an NVIDIA GPU: KFD does not speak for it */
    CHECK_INT(pna_gpu_set_pci(g, "0000:65:00.0"), 0);
    g->vendor = PNA_GPU_VND_NVIDIA;
    struct pna_roots roots = { root, "/nonexistent", "/nonexistent", "/nonexistent" };
    CHECK_INT(pna_amd_kfd_read(&roots, &list), 0);
    pna_gpu_list_sort(&list);
    pna_gpu_list_trim_procs(&list, 64);
    CHECK_U64(list.nprocs, 2);
    CHECK_INT(list.procs[0].pid, 987);
    CHECK_U64(list.procs[0].mem_bytes, 65536);
    CHECK_INT(list.procs[1].pid, 4321);
    CHECK_U64(list.procs[1].mem_bytes, 1073741824ULL + 4096);
    CHECK_INT(list.procs[1].type, PNA_GPU_PROC_COMPUTE);
    CHECK(list.procs[1].has_mem && !list.procs[1].has_util);
    CHECK_INT(list.procs[1].gpu_index, list.gpus[0].index);
    CHECK(list.gpus[0].has_processes);
    CHECK_INT(list.gpus[0].process_count, 2);
    CHECK(!list.gpus[1].has_processes);
    /* the partitions, in node order (1 before 10), with the GPU's XCP figures */
    pna_gpu_list_sort_partitions(&list);
    CHECK_U64(list.part_count, 2);
    const struct pna_gpu_partition *p0 = &list.parts[0], *p1 = &list.parts[1];
    CHECK_INT(p0->id, 0);
    CHECK_INT(p0->kfd_gpu_id, 35218);
    CHECK(p0->has_render && p0->render_minor == 128);
    CHECK(p0->has_xcc && p0->xcc_count == 1);
    CHECK(p0->has_cus && p0->cu_count == 6);
    CHECK(!p0->has_gfx_active && p0->has_video_active && p0->video_active_bp == 1300);
    CHECK(p0->has_mem && p0->mem_used_bytes == 1073741824ULL + 65536);
    CHECK_INT(p1->id, 1);
    CHECK_INT(p1->kfd_gpu_id, 35219);
    CHECK(!p1->has_render); /* 999 is no render minor */
    CHECK(!p1->has_xcc && !p1->has_cus);
    CHECK(p1->has_gfx_active && p1->gfx_active_bp == 4200 && !p1->has_video_active);
    CHECK(p1->has_mem && p1->mem_used_bytes == 4096);
    pna_gpu_list_free(&list);

    /* a GPU without a compute partition mode has no partition rows */
    g = pna_gpu_list_add(&list);
    CHECK_INT(pna_gpu_set_pci(g, "0000:64:00.0"), 0);
    g->vendor = PNA_GPU_VND_AMD;
    CHECK_INT(pna_amd_kfd_read(&roots, &list), 0);
    CHECK_U64(list.part_count, 0);
    CHECK_U64(list.nprocs, 2);
    pna_gpu_list_free(&list);

    /* no KFD proc directory: nothing, and the GPU's process count stays absent */
    roots.sysfs = "/nonexistent";
    g = pna_gpu_list_add(&list);
    CHECK_INT(pna_gpu_set_pci(g, "0000:64:00.0"), 0);
    g->vendor = PNA_GPU_VND_AMD;
    CHECK_INT(pna_amd_kfd_read(&roots, &list), 0);
    CHECK_U64(list.nprocs, 0);
    CHECK(!list.gpus[0].has_processes);
    pna_gpu_list_free(&list);
    char cmd[100];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    CHECK_INT(system(cmd), 0);
}

int main(void)
{
    test_recorded();
    test_built();
    test_refused();
    test_kfd();
    UNIT_END();
}
