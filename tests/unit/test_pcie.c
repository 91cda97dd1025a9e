/* test_pcie.c -- the PCIe link, AER and locality reader (sources/pci/pcie_sysfs.c)
 * on tests/fixtures/pcie/ (see its README.md): real files of three AMD GPUs,
 * and built trees for what no capture shows (a downtrained link, a link in
 * low power, an older kernel's text, garbage); and its parsers on text. */
#include "pna_autoconf.h"
#include "sources/pci/pcie_sysfs.h"

#include <errno.h>

#include "unit.h"

static struct pna_roots roots_of(const char *tree, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s/pcie/%s/sys", unit_fixtures(), tree);
    struct pna_roots r = PNA_ROOTS_DEFAULT;
    r.sysfs = buf;
    return r;
}

static int read_dev(const char *tree, const char *addr, struct pna_pcie *p)
{
    char dir[PATH_MAX];
    struct pna_roots r = roots_of(tree, dir, sizeof dir);
    return pna_pcie_read(&r, addr, p);
}

static void check_link(const struct pna_pcie *p, uint32_t speed, uint32_t max_speed,
                       uint32_t width, uint32_t max_width)
{
    CHECK(p->has_link_speed && p->has_max_link_speed);
    CHECK(p->has_link_width && p->has_max_link_width);
    CHECK_INT(p->link_speed_mtps, speed);
    CHECK_INT(p->max_link_speed_mtps, max_speed);
    CHECK_INT(p->link_width, width);
    CHECK_INT(p->max_link_width, max_width);
}

static void check_aer(const struct pna_pcie *p, uint64_t cor, uint64_t nonfatal, uint64_t fatal)
{
    CHECK(p->aer_correctable.present && p->aer_nonfatal.present && p->aer_fatal.present);
    CHECK_U64(p->aer_correctable.value, cor);
    CHECK_U64(p->aer_nonfatal.value, nonfatal);
    CHECK_U64(p->aer_fatal.value, fatal);
}

/* Real: RX 6900 XT at 16.0 GT/s x16 of the same, AER all 0, no NUMA node. */
static void test_real_rx6900xt(void)
{
    struct pna_pcie p;
    CHECK_INT(read_dev("real-lact-rx6900xt", "0000:0c:00.0", &p), 0);
    check_link(&p, 16000, 16000, 16, 16);
    CHECK(p.has_downtrained && !p.downtrained);
    check_aer(&p, 0, 0, 0);
    CHECK(p.has_numa_node);
    CHECK_INT(p.numa_node, -1);
    CHECK(p.has_local_cpus);
    CHECK_STR(p.local_cpus, "0-15");
    CHECK_STR(p.error, "");
}

/* Real: the Phoenix iGPU has no AER files: absent, not 0, and no problem. */
static void test_real_phoenix_no_aer(void)
{
    struct pna_pcie p;
    CHECK_INT(read_dev("real-lact-phoenix", "0000:64:00.0", &p), 0);
    check_link(&p, 16000, 16000, 16, 16);
    CHECK(!p.aer_correctable.present && !p.aer_nonfatal.present && !p.aer_fatal.present);
    CHECK(p.has_numa_node);
    CHECK_INT(p.numa_node, -1);
}

/* Real: Vega 10 at 8.0 GT/s x16. */
static void test_real_vega10(void)
{
    struct pna_pcie p;
    CHECK_INT(read_dev("real-procfs-vega10", "0000:09:00.0", &p), 0);
    check_link(&p, 8000, 8000, 16, 16);
    CHECK(p.has_downtrained && !p.downtrained);
    check_aer(&p, 0, 0, 0);
}

/* Built: trained at x8 of x16 and 8 of 16 GT/s, with AER counts. */
static void test_built_downtrained(void)
{
    struct pna_pcie p;
    CHECK_INT(read_dev("built", "0000:5e:00.0", &p), 0);
    check_link(&p, 8000, 16000, 8, 16);
    CHECK(p.has_downtrained && p.downtrained);
    check_aer(&p, 7, 3, 1);
    CHECK_INT(p.numa_node, 1);
    CHECK_STR(p.local_cpus, "16-31,48-63");
}

/* Built: a link in low power ("Unknown", width 0) is unknown, not downtrained. */
static void test_built_low_power(void)
{
    struct pna_pcie p;
    CHECK_INT(read_dev("built", "0000:17:00.0", &p), 0);
    CHECK(!p.has_link_speed && p.has_max_link_speed);
    CHECK(!p.has_link_width && p.has_max_link_width);
    CHECK_INT(p.max_link_speed_mtps, 32000);
    CHECK(!p.has_downtrained && !p.downtrained);
    CHECK(p.has_numa_node);
    CHECK_INT(p.numa_node, 0);
    CHECK(!p.has_local_cpus);
}

/* Built: an older kernel's "2.5 GT/s" of "8 GT/s" at full width is downtrained. */
static void test_built_old_kernel(void)
{
    struct pna_pcie p;
    CHECK_INT(read_dev("built", "0000:3b:00.1", &p), 0);
    check_link(&p, 2500, 8000, 4, 4);
    CHECK(p.has_downtrained && p.downtrained);
    CHECK(!p.aer_correctable.present && !p.has_numa_node && !p.has_local_cpus);
}

/* Built: garbage in all eight files: all absent, each counted. */
static void test_built_garbage(void)
{
    struct pna_pcie p;
    CHECK_INT(read_dev("built", "0000:af:00.0", &p), 8);
    CHECK(!p.has_link_speed && !p.has_max_link_speed && !p.has_link_width && !p.has_max_link_width);
    CHECK(!p.has_downtrained);
    CHECK(!p.aer_correctable.present && !p.aer_nonfatal.present && !p.aer_fatal.present);
    CHECK(!p.has_numa_node);
    CHECK_STR(p.error, "current_link_speed: unexpected 'fast'");
}

/* Built: PCIe 6.0's 64 GT/s. */
static void test_built_gen6(void)
{
    struct pna_pcie p;
    CHECK_INT(read_dev("built", "0000:c1:00.0", &p), 0);
    check_link(&p, 64000, 64000, 16, 16);
    CHECK(!p.downtrained);
    CHECK_INT(p.numa_node, 3);
}

/* A device that is not there has nothing; a name that is not a PCI address
 * is not read at all. */
static void test_missing_and_bad_names(void)
{
    struct pna_pcie p;
    CHECK_INT(read_dev("built", "0000:00:1f.0", &p), 0);
    CHECK(!p.has_link_speed && !p.has_downtrained && !p.has_numa_node);
    static const char *const bad[] = { "", "..", "0000:5e:00.0/..", "../0000:5e:00", "5e:00.0",
                                       "0000:5e:00.00", "0000:5g:00.0" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK_INT(read_dev("built", bad[i], &p), 1);
        CHECK(!p.has_link_speed && !p.has_numa_node);
    }
    CHECK_INT(read_dev("built", "0000:5E:00.0", &p), 0); /* hex either case; no such dir */
}

/* The locality alone (the GPU's): nothing else read. */
static void test_locality_only(void)
{
    char dir[PATH_MAX];
    struct pna_roots r = roots_of("built", dir, sizeof dir);
    struct pna_pcie p;
    CHECK_INT(pna_pcie_read_locality(&r, "0000:5e:00.0", &p), 0);
    CHECK(p.has_numa_node && p.has_local_cpus && !p.has_link_speed && !p.aer_fatal.present);
    CHECK_INT(p.numa_node, 1);
    CHECK_INT(pna_pcie_read_locality(&r, "0000:af:00.0", &p), 1);
}

static void test_parse_speed(void)
{
    static const struct { const char *text; int rc; uint32_t mtps; } cases[] = {
        { "2.5 GT/s PCIe", 0, 2500 }, { "5.0 GT/s PCIe", 0, 5000 }, { "8.0 GT/s PCIe", 0, 8000 },
        { "16.0 GT/s PCIe", 0, 16000 }, { "32.0 GT/s PCIe", 0, 32000 },
        { "64.0 GT/s PCIe", 0, 64000 }, { "2.5 GT/s", 0, 2500 }, { "5 GT/s", 0, 5000 },
        { "Unknown", -ENODATA, 0 }, { "Unknown speed", -ENODATA, 0 },
        { "", -EINVAL, 0 }, { "16.0", -EINVAL, 0 }, { "16.0 GB/s", -EINVAL, 0 },
        { "0.0 GT/s", -EINVAL, 0 }, { "-8.0 GT/s", -EINVAL, 0 }, { ".5 GT/s", -EINVAL, 0 },
        { "8. GT/s", -EINVAL, 0 }, { "2.5001 GT/s", -EINVAL, 0 }, { "1234567 GT/s", -EINVAL, 0 },
        { "16.0 GT/s PCIe x16", -EINVAL, 0 }, { "Unknownx", -EINVAL, 0 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint32_t v = 0;
        CHECK_INT(pna_pcie_parse_speed(cases[i].text, &v), cases[i].rc);
        if (cases[i].rc == 0)
            CHECK_INT(v, cases[i].mtps);
    }
}

static void test_parse_width_numa(void)
{
    uint32_t w = 0;
    CHECK_INT(pna_pcie_parse_width("16", &w), 0);
    CHECK_INT(w, 16);
    CHECK_INT(pna_pcie_parse_width("010", &w), 0); /* decimal, not octal */
    CHECK_INT(w, 10);
    CHECK_INT(pna_pcie_parse_width("0", &w), -ENODATA);
    CHECK_INT(pna_pcie_parse_width("33", &w), -EINVAL);
    CHECK_INT(pna_pcie_parse_width("0x10", &w), -EINVAL);
    CHECK_INT(pna_pcie_parse_width("-1", &w), -EINVAL);
    int32_t n = 0;
    CHECK_INT(pna_pcie_parse_numa("-1", &n), 0);
    CHECK_INT(n, -1);
    CHECK_INT(pna_pcie_parse_numa("7", &n), 0);
    CHECK_INT(n, 7);
    CHECK_INT(pna_pcie_parse_numa("-2", &n), -EINVAL);
    CHECK_INT(pna_pcie_parse_numa("65536", &n), -EINVAL);
    CHECK_INT(pna_pcie_parse_numa("", &n), -EINVAL);
}

static void test_parse_aer(void)
{
    uint64_t v = 0;
    CHECK_INT(pna_pcie_parse_aer("RxErr 1\nTOTAL_ERR_COR 18446744073709551615", "TOTAL_ERR_COR", &v), 0);
    CHECK_U64(v, UINT64_MAX);
    CHECK_INT(pna_pcie_parse_aer("TOTAL_ERR_COR 18446744073709551616", "TOTAL_ERR_COR", &v), -ERANGE);
    CHECK_INT(pna_pcie_parse_aer("RxErr 1", "TOTAL_ERR_COR", &v), -ENOENT);
    CHECK_INT(pna_pcie_parse_aer("", "TOTAL_ERR_COR", &v), -ENOENT);
    CHECK_INT(pna_pcie_parse_aer("TOTAL_ERR_CORX 1", "TOTAL_ERR_COR", &v), -ENOENT);
    CHECK_INT(pna_pcie_parse_aer("TOTAL_ERR_COR 1\nTOTAL_ERR_COR 2", "TOTAL_ERR_COR", &v), -EINVAL);
    CHECK_INT(pna_pcie_parse_aer("RxErr\nTOTAL_ERR_COR 1", "TOTAL_ERR_COR", &v), -EINVAL);
    CHECK_INT(pna_pcie_parse_aer("Rx Err 1\nTOTAL_ERR_COR 1", "TOTAL_ERR_COR", &v), -EINVAL);
    CHECK_INT(pna_pcie_parse_aer("RxErr 1\n\nTOTAL_ERR_COR 1", "TOTAL_ERR_COR", &v), -EINVAL);
    CHECK_INT(pna_pcie_parse_aer("TOTAL_ERR_COR 1 2", "TOTAL_ERR_COR", &v), -EINVAL);
    CHECK_INT(pna_pcie_parse_aer(" TOTAL_ERR_COR 1", "TOTAL_ERR_COR", &v), -EINVAL);
}

int main(void)
{
    test_real_rx6900xt();
    test_real_phoenix_no_aer();
    test_real_vega10();
    test_built_downtrained();
    test_built_low_power();
    test_built_old_kernel();
    test_built_garbage();
    test_built_gen6();
    test_missing_and_bad_names();
    test_locality_only();
    test_parse_speed();
    test_parse_width_numa();
    test_parse_aer();
    UNIT_END();
}
