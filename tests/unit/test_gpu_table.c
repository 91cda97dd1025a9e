/* test_gpu_table.c -- primusGpuTable and primusGpuCount resolved through the
 * table engine (no net-snmp agent): a snapshot made by the real collectors
 * from fixtures (nvidia-smi XML for an H100 and an A100, amdgpu sysfs for a
 * Vega 10), published to the cache, read back cell by cell and walked. */
#include "pna_autoconf.h"
#include "sources/gpu/amd.h"
#include "sources/gpu/nvsmi.h"
#include "model/gpu/gpu.h"
#include "snmp/table.h"
#include "model/metric_tables.h"
#include "model/oids.h"
#include "util/fileio.h"
#include "unit.h"
#include "snmp_testutil.h"

static const oid entry[] = { PNA_OID_GPU, 10, 1 }; /* primusGpuEntry */
#define ELEN OID_LENGTH(entry)

static void snap_free(struct pna_snap *s)
{
    free(((struct pna_gpu_snap *)s)->gpus);
    free(s);
}

static void add_xml(struct pna_gpu_list *l, const char *rel)
{
    char path[4096], drv[80], cuda[16], err[160];
    snprintf(path, sizeof path, "%s/%s", unit_fixtures(), rel);
    char *xml = NULL;
    size_t len = 0;
    CHECK_INT(pna_read_alloc(path, 8u << 20, &xml, &len), 0);
    CHECK_INT(pna_nvsmi_parse(xml, len, l, drv, sizeof drv, cuda, sizeof cuda, err, sizeof err), 0);
    free(xml);
}

static void publish(void)
{
    struct pna_gpu_list l = { 0 };
    add_xml(&l, "nvidia/a100-sxm4-80gb-nvidia-smi-q-x.xml");
    add_xml(&l, "nvidia/h100-nvidia-smi-q-x.xml");
    char sysfs[4096], drv[80], err[160];
    snprintf(sysfs, sizeof sysfs, "%s/amdgpu-sysfs/procfs/sys", unit_fixtures());
    struct pna_roots roots = { sysfs, "/nonexistent", "/nonexistent", "/nonexistent" };
    CHECK_INT(pna_amd_sysfs_collect(&roots, &l, NULL, drv, sizeof drv, err, sizeof err), 0);
    CHECK_INT(l.count, 3);
    pna_gpu_list_sort(&l);
    /* the A100 (01:00.0) fell off the bus; an XID was seen on the H100 */
    struct pna_gpu *a = (struct pna_gpu *)pna_gpu_find(l.gpus, l.count, 1u << 8);
    CHECK(a != NULL);
    if (a)
        a->lost = true;
    struct pna_gpu *h = (struct pna_gpu *)pna_gpu_find(l.gpus, l.count, 6u << 3);
    if (h) {
        h->has_xid = true;
        h->xid_errors = 2;
        h->last_xid = 79;
    }
    struct pna_gpu_snap *s = calloc(1, sizeof *s);
    s->count = l.count;
    s->gpus = l.gpus;
    pna_snap_init(&s->base, snap_free);
    pna_cache_publish(PNA_DOM_GPU, &s->base);
}

/* GET entry.COL.INDEX; returns 0 with *OUT, or -1 when absent. */
static int get(unsigned col, uint32_t index, struct pna_cell *out)
{
    oid name[MAX_OID_LEN];
    memcpy(name, entry, sizeof entry);
    name[ELEN] = col;
    name[ELEN + 1] = index;
    struct pna_view held;
    int rc = pna_table_get(&pna_gpu_metrics, name, ELEN + 2, out, &held);
    pna_view_release(&held);
    return rc;
}

static const char *get_str(unsigned col, uint32_t index, char *buf, size_t cap)
{
    struct pna_cell c;
    if (get(col, index, &c) != 0 || c.type != ASN_OCTET_STR)
        return "(absent)";
    snprintf(buf, cap, "%.*s", (int)c.len, c.str ? c.str : c.copy);
    return buf;
}

static void test_cells(void)
{
    const uint32_t h100 = 6u << 3, a100 = 1u << 8, vega = 9u << 8;
    struct pna_cell c;
    char buf[256];
    CHECK_INT(get(mib_column("primusGpuVendor"), h100, &c), 0);
    CHECK_INT(c.type, ASN_INTEGER);
    CHECK_INT(c.i, PNA_GPU_VENDOR_NVIDIA);
    CHECK_INT(get(mib_column("primusGpuVendor"), vega, &c), 0);
    CHECK_INT(c.i, PNA_GPU_VENDOR_AMD);
    CHECK_STR(get_str(mib_column("primusGpuName"), h100, buf, sizeof buf), "NVIDIA H100 80GB HBM3");
    CHECK_STR(get_str(mib_column("primusGpuPciBusId"), h100, buf, sizeof buf), "0000:00:06.0");
    CHECK_STR(get_str(mib_column("primusGpuPciDeviceId"), h100, buf, sizeof buf), "10de:2330");
    CHECK_STR(get_str(mib_column("primusGpuPciDeviceId"), vega, buf, sizeof buf), "1002:687f");
    CHECK_STR(get_str(mib_column("primusGpuDriverVersion"), h100, buf, sizeof buf), "580.159.04");
    CHECK_STR(get_str(mib_column("primusGpuComputeVersion"), h100, buf, sizeof buf), "13.0");
    CHECK_INT(get(mib_column("primusGpuComputeVersion"), vega, &c), -1);
    CHECK_INT(get(mib_column("primusGpuDataSource"), h100, &c), 0);
    CHECK_INT(c.i, PNA_GPU_DATA_SOURCE_NVIDIA_SMI);
    CHECK_INT(get(mib_column("primusGpuDataSource"), vega, &c), 0);
    CHECK_INT(c.i, PNA_GPU_DATA_SOURCE_AMDGPU_SYSFS);
    CHECK_INT(get(mib_column("primusGpuMemTotal"), h100, &c), 0);
    CHECK_INT(c.type, ASN_COUNTER64);               /* CounterBasedGauge64 */
    CHECK_U64(c.u, 81559ULL * 1048576);
    CHECK_INT(get(mib_column("primusGpuTemperature"), h100, &c), 0);
    CHECK_INT(c.type, ASN_INTEGER);
    CHECK_INT(c.i, 35);
    CHECK_INT(get(mib_column("primusGpuPowerDraw"), h100, &c), 0);
    CHECK_INT(c.type, ASN_UNSIGNED);
    CHECK_U64(c.u, 121730);                         /* milliwatts */
    CHECK_INT(get(mib_column("primusGpuFanSpeed"), h100, &c), -1); /* <fan_speed>N/A: absent */
    CHECK_INT(get(mib_column("primusGpuTempSlowdown"), h100, &c), 0); /* from the T.Limit margins */
    CHECK_INT(c.i, 89);
    CHECK_INT(get(mib_column("primusGpuRemapPending"), h100, &c), 0);
    CHECK_INT(c.i, PNA_TRUTH_FALSE);
    CHECK_INT(get(mib_column("primusGpuMigMode"), h100, &c), 0);
    CHECK_INT(c.i, PNA_GPU_MIG_MODE_DISABLED);
    CHECK_INT(get(mib_column("primusGpuThrottleReasons"), h100, &c), 0);
    CHECK_U64(c.u, 1);                              /* idle */
    CHECK_INT(get(mib_column("primusGpuPcieGenMax"), h100, &c), 0);
    CHECK_U64(c.u, 5);
    CHECK_INT(get(mib_column("primusGpuPerfState"), h100, &c), 0);
    CHECK_U64(c.u, 0);
    CHECK_INT(get(mib_column("primusGpuXidErrors"), h100, &c), 0);
    CHECK_INT(c.type, ASN_COUNTER);
    CHECK_U64(c.u, 2);
    CHECK_INT(get(mib_column("primusGpuLastXid"), h100, &c), 0);
    CHECK_U64(c.u, 79);
    CHECK_INT(get(mib_column("primusGpuXidErrors"), vega, &c), -1);
    /* "empty when none" strings are served empty */
    CHECK_STR(get_str(mib_column("primusGpuDrmCard"), h100, buf, sizeof buf), "");
    CHECK_STR(get_str(mib_column("primusGpuDrmCard"), vega, buf, sizeof buf), "card0");
    CHECK_STR(get_str(mib_column("primusGpuHolderContainer"), h100, buf, sizeof buf), "");
    CHECK_INT(get(mib_column("primusGpuHolderCount"), h100, &c), 0);
    CHECK_U64(c.u, 0);
    /* the lost A100: identity only */
    CHECK_STR(get_str(mib_column("primusGpuUuid"), a100, buf, sizeof buf),
              "GPU-513536b6-7d19-9063-b049-1e69664bb298");
    CHECK_INT(get(mib_column("primusGpuTemperature"), a100, &c), -1);
    CHECK_INT(get(mib_column("primusGpuMemTotal"), a100, &c), -1);
    CHECK_INT(get(mib_column("primusGpuMigMode"), a100, &c), -1);
    /* AMD: the Vega 10 has no hwmon */
    CHECK_INT(get(mib_column("primusGpuTemperature"), vega, &c), -1);
    CHECK_INT(get(mib_column("primusGpuUtilization"), vega, &c), 0);
    CHECK_U64(c.u, 4);
    /* no such row, no such column */
    CHECK_INT(get(mib_column("primusGpuName"), 12345, &c), -1);
    CHECK_INT(get(13, h100, &c), -1);
    CHECK_INT(get(1, h100, &c), -1); /* primusGpuIndex, column 1: not-accessible */
}

/* A walk visits column by column, rows in PCI order, never an absent cell. */
static void test_walk(void)
{
    oid cur[MAX_OID_LEN], next[MAX_OID_LEN];
    size_t cur_len = ELEN, next_len;
    memcpy(cur, entry, sizeof entry);
    size_t cells = 0, first_col_rows = 0;
    uint32_t last_index = 0;
    for (;;) {
        struct pna_cell c;
        struct pna_view held;
        int rc = pna_table_getnext(&pna_gpu_metrics, cur, cur_len, next, &next_len, &c, &held);
        pna_view_release(&held);
        if (rc != 0)
            break;
        CHECK(snmp_oid_compare(next, next_len, cur, cur_len) > 0);
        CHECK(next[ELEN] != mib_column("primusGpuFanSpeed") || next[ELEN + 1] != (6u << 3));
        if (next[ELEN] == mib_column("primusGpuVendor")) {
            CHECK(first_col_rows == 0 || next[ELEN + 1] > last_index);
            last_index = (uint32_t)next[ELEN + 1];
            first_col_rows++;
        }
        memcpy(cur, next, next_len * sizeof(oid));
        cur_len = next_len;
        if (++cells > 1000)
            break;
    }
    CHECK_INT(first_col_rows, 3);
    CHECK(cells > 60 && cells < 200);
    /* the last column: primusGpuLowActivitySince, answered (0) while no GPU
     * is held below the idle threshold */
    CHECK_INT(cur[ELEN], mib_column("primusGpuLowActivitySince"));
}

static void test_count(void)
{
    struct pna_cell c;
    memset(&c, 0, sizeof c);
    CHECK_INT(scalar_cell(&pna_gpu_scalar_metrics, mib_column("primusGpuCount"), &c), 0);
    CHECK_U64(c.u, 3);
    pna_cache_clear();
    memset(&c, 0, sizeof c);
    CHECK_INT(scalar_cell(&pna_gpu_scalar_metrics, mib_column("primusGpuCount"), &c), 0);
    CHECK_U64(c.u, 0); /* no snapshot (CPU-only node): 0, not absent */
    struct pna_view held;
    oid name[MAX_OID_LEN];
    memcpy(name, entry, sizeof entry);
    name[ELEN] = mib_column("primusGpuName");
    name[ELEN + 1] = 6u << 3;
    CHECK_INT(pna_table_get(&pna_gpu_metrics, name, ELEN + 2, &c, &held), -1);
    pna_view_release(&held);
}

int main(void)
{
    publish();
    test_cells();
    test_walk();
    test_count();
    UNIT_END();
}
