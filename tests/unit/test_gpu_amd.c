/* test_gpu_amd.c -- the amdgpu sysfs collector on every recorded amdgpu tree
 * (tests/fixtures/amdgpu-sysfs, quirks in SOURCES.md: no hwmon, card1 not
 * card0, an empty unique_id, no `device` file, NUL padding, dumps that are a
 * bare device directory), the pci.ids name lookup, RAS counts and malformed
 * trees; and rocm-smi-lib failing cleanly on a machine without an AMD GPU. */
#include "pna_autoconf.h"
#include "sources/gpu/amd.h"
#include "util/fileio.h"
#include "unit.h"

#include <errno.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <unistd.h>

static char empty_root[] = "/tmp/pna-amd-empty-XXXXXX"; /* rootfs/procfs without files */

static void fixture_path(char *buf, size_t cap, const char *rel)
{
    snprintf(buf, cap, "%s/amdgpu-sysfs/%s", unit_fixtures(), rel);
}

/* Collect from SYSFS; returns the number of GPUs. */
static size_t collect(const char *sysfs, struct pna_gpu_list *l, char *drv)
{
    struct pna_roots roots = { sysfs, empty_root, "/nonexistent", empty_root };
    char err[200] = "";
    int rc = pna_amd_sysfs_collect(&roots, l, NULL, drv, 80, err, sizeof err);
    CHECK_INT(rc, 0);
    if (rc)
        fprintf(stderr, "%s: %s\n", sysfs, err);
    return l->count;
}

/* A number read straight from a fixture file, to compare with the model. */
static uint64_t file_u64(const char *dir, const char *name)
{
    char path[8300];
    uint64_t v = 0;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    CHECK_INT(pna_read_u64(path, &v), 0);
    return v;
}

/* prometheus/procfs Vega 10: no hwmon directory at all. */
static void test_procfs_vega10(void)
{
    char sysfs[4096], dev[4096], drv[80];
    fixture_path(sysfs, sizeof sysfs, "procfs/sys");
    fixture_path(dev, sizeof dev, "procfs/sys/class/drm/card0/device");
    struct pna_roots roots = { sysfs, empty_root, "/nonexistent", empty_root };
    CHECK_INT(pna_amd_sysfs_count(&roots), 1);
    struct pna_gpu_list l = { 0 };
    CHECK_INT(collect(sysfs, &l, drv), 1);
    if (l.count != 1)
        return;
    const struct pna_gpu *g = &l.gpus[0];
    CHECK_INT(g->vendor, PNA_GPU_VND_AMD);
    CHECK_INT(g->source, PNA_GPU_SRC_AMDGPU_SYSFS);
    CHECK_STR(g->pci_bus_id, "0000:09:00.0");         /* uevent PCI_SLOT_NAME */
    CHECK_U64(g->index, 9u << 8);
    CHECK_INT(g->pci_vendor_id, 0x1002);              /* uevent PCI_ID=1002:687F */
    CHECK_INT(g->pci_device_id, 0x687f);
    CHECK_INT(g->pci_subsys_vendor_id, 0x1043);
    CHECK_INT(g->pci_subsys_device_id, 0x04c4);
    CHECK_STR(g->uuid, "0x0123456789abcdef");         /* unique_id (a placeholder, as recorded) */
    CHECK_STR(g->serial, "");                         /* serial_number is empty */
    CHECK_STR(g->name, "");                           /* product_name empty, no pci.ids here */
    CHECK_STR(g->vbios, "115-D050PIL-100");
    CHECK(g->has_util_gpu && g->util_gpu_pct == 4);   /* gpu_busy_percent */
    CHECK(!g->has_util_mem);                          /* no mem_busy_percent */
    CHECK_U64(g->mem_total_bytes, file_u64(dev, "mem_info_vram_total"));
    CHECK_U64(g->mem_total_bytes, 8573157376ULL);
    CHECK_U64(g->mem_used_bytes, 1490378752ULL);
    CHECK_U64(g->mem_free_bytes, 8573157376ULL - 1490378752ULL);
    CHECK(g->has_pcie_gen && g->pcie_gen == 3);       /* "8.0 GT/s PCIe" */
    CHECK(g->has_pcie_width && g->pcie_width == 16);
    CHECK(g->has_pcie_replay && g->pcie_replay == 0);
    CHECK(g->has_pcie_gen_max && g->pcie_gen_max == 3);   /* max_link_speed 8.0 GT/s */
    CHECK(g->has_pcie_width_max && g->pcie_width_max == 16);
    CHECK(!g->has_perf_state && !g->has_xid);
    /* no hwmon: every sensor absent */
    CHECK(!g->has_temp && !g->has_temp_hotspot && !g->has_temp_mem);
    CHECK(!g->has_power && !g->has_power_limit && !g->has_fan && !g->has_energy);
    /* clocks from the '*' level of pp_dpm_sclk / pp_dpm_mclk */
    CHECK(g->has_clock_sm && g->clock_sm_mhz == 852);
    CHECK(g->has_clock_mem && g->clock_mem_mhz == 167);
    CHECK(!g->has_ecc);
    CHECK_STR(g->drm_card, "card0");
    CHECK(g->has_drm_card_id && g->drm_card_id == 0);
    CHECK_STR(g->drm_render, "");
    CHECK(g->has_vendor_index && g->vendor_index == 0);
    CHECK_STR(drv, ""); /* neither module version nor osrelease under these roots */
    pna_gpu_list_free(&l);
}

/* LACT RX 6900 XT: real unique_id, full hwmon, no `device` file. */
static void test_rx6900xt(void)
{
    char sysfs[4096], drv[80];
    fixture_path(sysfs, sizeof sysfs, "lact-rx6900xt/sys");
    struct pna_gpu_list l = { 0 };
    CHECK_INT(collect(sysfs, &l, drv), 1);
    if (l.count != 1)
        return;
    const struct pna_gpu *g = &l.gpus[0];
    CHECK_STR(g->pci_bus_id, "0000:0c:00.0");
    CHECK_INT(g->pci_device_id, 0x73bf);              /* from uevent: there is no device file */
    CHECK_STR(g->uuid, "0x946d7e1ef9b172dd");
    CHECK_STR(g->vbios, "113-D4121EXT-CO1");
    CHECK_INT(g->util_gpu_pct, 3);
    CHECK(g->has_util_mem && g->util_mem_pct == 0);   /* mem_busy_percent */
    CHECK_U64(g->mem_total_bytes, 17163091968ULL);
    CHECK_U64(g->mem_used_bytes, 668274688ULL);
    /* hwmon5: temp1 edge 56000, temp2 junction 59000, temp3 mem 54000 m°C */
    CHECK(g->has_temp && g->temp_c == 56);
    CHECK(g->has_temp_hotspot && g->temp_hotspot_c == 59);
    CHECK(g->has_temp_mem && g->temp_mem_c == 54);
    CHECK(g->has_temp_slowdown && g->temp_slowdown_c == 100);  /* temp1_crit 100000 */
    CHECK(g->has_temp_shutdown && g->temp_shutdown_c == 105);  /* temp1_emergency 105000 */
    CHECK(g->has_power && g->power_mw == 36000);               /* power1_average 36000000 µW */
    CHECK(g->has_power_limit && g->power_limit_mw == 289000);  /* power1_cap 289000000 µW */
    CHECK(g->has_clock_sm && g->clock_sm_mhz == 500);          /* freq1 sclk 500000000 Hz */
    CHECK(g->has_clock_mem && g->clock_mem_mhz == 1000);       /* freq2 mclk */
    CHECK(g->has_fan && g->fan_pct == 0);                      /* pwm1 0 of 255 */
    CHECK(g->has_fan_rpm && g->fan_rpm == 0);
    CHECK(g->has_pcie_gen && g->pcie_gen == 4);                /* 16.0 GT/s */
    pna_gpu_list_free(&l);
}

/* LACT Phoenix APU: card1, empty unique_id, power1_average and power1_input,
 * no fan, no cap; render node from the KFD topology. */
static void test_phoenix(void)
{
    char sysfs[4096], drv[80];
    fixture_path(sysfs, sizeof sysfs, "lact-phoenix/sys");
    struct pna_gpu_list l = { 0 };
    CHECK_INT(collect(sysfs, &l, drv), 1);
    if (l.count != 1)
        return;
    const struct pna_gpu *g = &l.gpus[0];
    CHECK_STR(g->pci_bus_id, "0000:64:00.0");
    CHECK_INT(g->pci_device_id, 0x15bf);
    CHECK_STR(g->uuid, "");                                    /* unique_id: 0 bytes */
    CHECK_STR(g->drm_card, "card1");
    CHECK(g->has_drm_card_id && g->drm_card_id == 1);
    /* kfd/topology/nodes/1: location_id 25600 = 0x6400 (bus 0x64), drm_render_minor 128 */
    CHECK_STR(g->drm_render, "renderD128");
    CHECK_U64(g->mem_total_bytes, 4294967296ULL);
    CHECK(g->has_temp && g->temp_c == 25);
    CHECK(!g->has_temp_slowdown && !g->has_temp_hotspot && !g->has_temp_mem);
    CHECK(g->has_power && g->power_mw == 3103);                /* the average, not input 3142 */
    CHECK(!g->has_power_limit);
    CHECK(!g->has_fan && !g->has_fan_rpm);
    CHECK(g->has_clock_sm && g->clock_sm_mhz == 800);          /* freq1 sclk */
    CHECK(g->has_clock_mem && g->clock_mem_mhz == 400);        /* pp_dpm_mclk '*' level */
    pna_gpu_list_free(&l);
}

static void link_card(const char *root, unsigned num, const char *fixture_rel)
{
    char path[4096], target[4096];
    snprintf(path, sizeof path, "%s/class/drm/card%u", root, num);
    CHECK_INT(mkdir(path, 0755), 0);
    fixture_path(target, sizeof target, fixture_rel);
    snprintf(path, sizeof path, "%s/class/drm/card%u/device", root, num);
    CHECK_INT(symlink(target, path), 0);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void rm_rf(const char *root)
{
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    CHECK_INT(system(cmd), 0);
}

/* amdgpu-sysfs-rs dumps are bare device directories: mount them as
 * class/drm/cardN/device of a temporary sysfs, with a connector, a render
 * node, a card of another driver and a card without uevent beside them. */
static void test_two_cards_and_noise(void)
{
    char root[] = "/tmp/pna-amd-XXXXXX", path[4200], drv[80];
    CHECK(mkdtemp(root) != NULL);
    snprintf(path, sizeof path, "%s/class", root);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/class/drm", root);
    mkdir(path, 0755);
    link_card(root, 0, "amdgpu-sysfs-rs/rx7900xt");
    link_card(root, 3, "amdgpu-sysfs-rs/vega56");
    snprintf(path, sizeof path, "%s/class/drm/card0-DP-1", root); /* connector */
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/class/drm/renderD128", root);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/class/drm/card1", root);      /* i915 */
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/class/drm/card1/device", root);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/class/drm/card1/device/uevent", root);
    write_file(path, "DRIVER=i915\nPCI_ID=8086:46A6\nPCI_SLOT_NAME=0000:00:02.0\n");
    snprintf(path, sizeof path, "%s/class/drm/card2", root);      /* no device */
    mkdir(path, 0755);

    struct pna_roots roots = { root, empty_root, "/nonexistent", empty_root };
    CHECK_INT(pna_amd_sysfs_count(&roots), 2);
    struct pna_gpu_list l = { 0 };
    CHECK_INT(collect(root, &l, drv), 2);
    if (l.count == 2) {
        /* PCI order: rx7900xt 03:00.0 before vega56 0b:00.0 */
        const struct pna_gpu *r = &l.gpus[0], *v = &l.gpus[1];
        CHECK_STR(r->pci_bus_id, "0000:03:00.0");
        CHECK_INT(r->vendor_index, 0);
        CHECK_INT(r->pci_device_id, 0x744c);
        CHECK(!r->has_mem_total && !r->has_mem_used);           /* no mem_info_* in the dump */
        CHECK_INT(r->temp_c, 53);
        CHECK_INT(r->temp_hotspot_c, 61);
        CHECK_INT(r->temp_mem_c, 68);
        CHECK_INT(r->power_mw, 68000);                           /* 68000000 µW */
        CHECK_INT(r->power_limit_mw, 290000);
        CHECK_INT(r->clock_sm_mhz, 31);                          /* freq1_input 31000000 Hz */
        CHECK_INT(r->clock_mem_mhz, 1249);
        CHECK_STR(r->drm_card, "card0");

        CHECK_STR(v->pci_bus_id, "0000:0b:00.0");
        CHECK_INT(v->vendor_index, 1);
        CHECK_STR(v->drm_card, "card3");
        CHECK_INT(v->drm_card_id, 3);
        CHECK_STR(v->uuid, "");                                  /* consumer card: no unique_id */
        CHECK_INT(v->pci_subsys_device_id, 0x0555);
        CHECK_U64(v->mem_used_bytes, 16613376ULL);
        CHECK_INT(v->temp_c, 38);
        CHECK_INT(v->temp_slowdown_c, 85);                       /* temp1_crit 85000 */
        CHECK_INT(v->temp_shutdown_c, 90);
        CHECK_INT(v->power_mw, 8000);                            /* 8000000 µW = 8 W */
        CHECK_INT(v->power_limit_mw, 260000);
        CHECK_INT(v->clock_sm_mhz, 26);
        CHECK_INT(v->clock_mem_mhz, 167);
        CHECK(v->has_fan_rpm && v->fan_rpm == 5);                /* fan1_input */
        CHECK(v->has_fan && v->fan_pct == 0);                    /* pwm1 0 */
    }
    pna_gpu_list_free(&l);
    rm_rf(root);
}

/* Hand-made device directories for what the recorded trees lack: RAS error
 * counts, a module version, garbage values, a card with half a uevent. */
static void test_synthetic(void)
{
    char root[] = "/tmp/pna-amd-XXXXXX", proc[] = "/tmp/pna-amd-proc-XXXXXX", p[4200], drv[80];
    CHECK(mkdtemp(root) != NULL);
    CHECK(mkdtemp(proc) != NULL);
    const char *dirs[] = { "class", "class/drm", "class/drm/card0", "class/drm/card0/device",
                           "class/drm/card0/device/ras", "class/drm/card0/device/hwmon",
                           "class/drm/card0/device/hwmon/hwmon2", "class/drm/card0/device/drm",
                           "class/drm/card0/device/drm/renderD131", "class/drm/card1",
                           "class/drm/card1/device", "module", "module/amdgpu" };
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", root, dirs[i]);
        CHECK_INT(mkdir(p, 0755), 0);
    }
#define W(rel, text) (snprintf(p, sizeof p, "%s/%s", root, rel), write_file(p, text))
    W("class/drm/card0/device/uevent",
      "DRIVER=amdgpu\nPCI_ID=1002:740F\nPCI_SLOT_NAME=0001:C1:00.0\n");
    W("class/drm/card0/device/ras/umc_err_count", "ue: 1\nce: 5\n");
    W("class/drm/card0/device/ras/gfx_err_count", "ue: 0\nce: 2\n");
    W("class/drm/card0/device/ras/features", "feature mask: 0x3fff\n");
    W("class/drm/card0/device/gpu_busy_percent", "abc\n");          /* garbage: absent */
    W("class/drm/card0/device/mem_info_vram_total", "100\n");
    W("class/drm/card0/device/mem_info_vram_used", "200\n");        /* used > total: no free */
    W("class/drm/card0/device/current_link_speed", "Unknown\n");
    W("class/drm/card0/device/hwmon/hwmon2/temp1_input", "47000\n"); /* unlabelled: edge */
    W("class/drm/card0/device/hwmon/hwmon2/energy1_input", "123456789\n"); /* µJ */
    W("class/drm/card1/device/uevent", "DRIVER=amdgpu\n");          /* no PCI address */
    W("module/amdgpu/version", "6.2.4\n");
#undef W
    struct pna_roots roots = { root, proc, "/nonexistent", empty_root };
    struct pna_gpu_list l = { 0 };
    char err[200];
    CHECK_INT(pna_amd_sysfs_collect(&roots, &l, NULL, drv, sizeof drv, err, sizeof err), 0);
    CHECK_INT(l.count, 1);
    CHECK_STR(drv, "6.2.4");
    if (l.count == 1) {
        const struct pna_gpu *g = &l.gpus[0];
        CHECK_STR(g->pci_bus_id, "0001:c1:00.0");
        CHECK_U64(g->index, (1u << 16) | (0xc1u << 8));
        CHECK(g->has_ecc && g->ecc_corrected == 7 && g->ecc_uncorrected == 1);
        CHECK(!g->has_util_gpu);
        CHECK(g->has_mem_total && g->has_mem_used && !g->has_mem_free);
        CHECK(!g->has_pcie_gen);
        CHECK(g->has_temp && g->temp_c == 47);
        CHECK(g->has_energy && g->energy_mj == 123456);
        CHECK_STR(g->drm_render, "renderD131");                   /* device/drm/ */
        CHECK_STR(g->driver_version, "6.2.4");
    }
    pna_gpu_list_free(&l);

    /* a gpu_metrics blob refused: counted in the caller's struct (each
     * caller its own), the rest of the GPU served */
    snprintf(p, sizeof p, "%s/class/drm/card0/device/gpu_metrics", root);
    FILE *f = fopen(p, "wb");
    CHECK(f != NULL);
    if (f) {
        fwrite("\x78\x00\x01\x09", 1, 4, f);   /* v1.9: a list, not a table */
        fclose(f);
    }
    struct pna_amd_gpu_metrics_refusals mine = { 0 }, other = { 0 };
    CHECK_INT(pna_amd_sysfs_collect(&roots, &l, &mine, drv, sizeof drv, err, sizeof err), 0);
    CHECK(l.count == 1 && l.gpus[0].has_ecc);
    pna_gpu_list_free(&l);
    CHECK_INT(pna_amd_sysfs_collect(&roots, &l, &mine, drv, sizeof drv, err, sizeof err), 0);
    pna_gpu_list_free(&l);
    CHECK_INT(pna_amd_sysfs_collect(&roots, &l, &other, drv, sizeof drv, err, sizeof err), 0);
    pna_gpu_list_free(&l);
    CHECK_U64(mine.count, 2);
    CHECK_U64(other.count, 1);
    CHECK(strstr(mine.last, "card0/device/gpu_metrics: unknown revision 1.9") != NULL);
    unlink(p);

    /* in-tree driver: the kernel release stands for the driver version */
    snprintf(p, sizeof p, "%s/module/amdgpu/version", root);
    unlink(p);
    snprintf(p, sizeof p, "%s/sys", proc);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/sys/kernel", proc);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/sys/kernel/osrelease", proc);
    write_file(p, "6.1.0-13-amd64\n");
    CHECK_INT(pna_amd_sysfs_collect(&roots, &l, NULL, drv, sizeof drv, err, sizeof err), 0);
    CHECK_STR(drv, "6.1.0-13-amd64");
    pna_gpu_list_free(&l);

    /* no class/drm at all (a CPU-only node): nothing, no error */
    roots.sysfs = empty_root;
    CHECK_INT(pna_amd_sysfs_count(&roots), 0);
    CHECK_INT(pna_amd_sysfs_collect(&roots, &l, NULL, drv, sizeof drv, err, sizeof err), 0);
    CHECK_INT(l.count, 0);
    rm_rf(root);
    rm_rf(proc);
}

static void test_pciids(void)
{
    char root[] = "/tmp/pna-pciids-XXXXXX", p[4200], buf[96];
    CHECK(mkdtemp(root) != NULL);
    const char *dirs[] = { "usr", "usr/share", "usr/share/hwdata" };
    for (size_t i = 0; i < 3; i++) {
        snprintf(p, sizeof p, "%s/%s", root, dirs[i]);
        mkdir(p, 0755);
    }
    /* the database's layout: vendor, tab device, two tabs subsystem */
    snprintf(p, sizeof p, "%s/usr/share/hwdata/pci.ids", root);
    write_file(p, "# comment\n"
                  "1000  Broadcom / LSI\n\t15bf  Not this one\n"
                  "1002  Advanced Micro Devices, Inc. [AMD/ATI]\n"
                  "\t15bf  Phoenix1\n\t73bf  Navi 21 [Radeon RX 6800/6800 XT / 6900 XT]\n"
                  "\t\t1da2 440e  Some board\n"
                  "10de  NVIDIA Corporation\n\t73bf  Not AMD\n");
    CHECK_INT(pna_pciids_name(root, 0x1002, 0x73bf, buf, sizeof buf), 0);
    CHECK_STR(buf, "Navi 21 [Radeon RX 6800/6800 XT / 6900 XT]");
    CHECK_INT(pna_pciids_name(root, 0x1002, 0x15bf, buf, sizeof buf), 0);
    CHECK_STR(buf, "Phoenix1");
    CHECK_INT(pna_pciids_name(root, 0x1002, 0x1234, buf, sizeof buf), -1);
    CHECK_INT(pna_pciids_name(empty_root, 0x1002, 0x73bf, buf, sizeof buf), -1);

    /* the collector names a card from it when product_name is empty */
    char sysfs[4096], drv[80];
    fixture_path(sysfs, sizeof sysfs, "lact-rx6900xt/sys");
    struct pna_roots roots = { sysfs, empty_root, "/nonexistent", root };
    struct pna_gpu_list l = { 0 };
    char err[200];
    CHECK_INT(pna_amd_sysfs_collect(&roots, &l, NULL, drv, sizeof drv, err, sizeof err), 0);
    CHECK(l.count == 1 && strcmp(l.gpus[0].name, "Navi 21 [Radeon RX 6800/6800 XT / 6900 XT]") == 0);
    pna_gpu_list_free(&l);
    rm_rf(root);

    /* this machine's own database, where it has one: the AMD entry, never
     * another vendor's device with the same id */
    char *db = NULL;
    if (pna_read_alloc("/usr/share/misc/pci.ids", 16u << 20, &db, NULL) == 0) {
        const char *amd = strstr(db, "\n1002  ");
        const char *want = amd ? strstr(amd, "\n\t15bf  ") : NULL;
        if (want) {
            char expect[96];
            snprintf(expect, sizeof expect, "%.*s", (int)strcspn(want + 8, "\n"), want + 8);
            CHECK_INT(pna_pciids_name("/", 0x1002, 0x15bf, buf, sizeof buf), 0);
            CHECK_STR(buf, expect);
        }
        free(db);
    }
}

/* rocm-smi-lib on a machine without an AMD GPU: an error with a reason, no crash. */
static void test_rocm_absent(void)
{
    struct pna_rocm *r = NULL;
    char err[200] = "";
    CHECK_INT(pna_rocm_open(&r, err, sizeof err), -1);
    CHECK(r == NULL);
    CHECK(strstr(err, "rocm-smi-lib") != NULL);
    fprintf(stderr, "rocm-smi-lib here: %s\n", err);
    pna_rocm_close(NULL);
}

int main(void)
{
    CHECK(mkdtemp(empty_root) != NULL);
    test_procfs_vega10();
    test_rx6900xt();
    test_phoenix();
    test_two_cards_and_noise();
    test_synthetic();
    test_pciids();
    test_rocm_absent();
    rmdir(empty_root);
    UNIT_END();
}
