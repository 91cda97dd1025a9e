/* test_gpu_nvsmi.c -- the nvidia-smi -q -x parser on every recorded XML
 * (three DTD versions), cross-checked with the H100 CSV query; the command
 * runner's deadline, exit status and process-group kill; bad input. */
#include "pna_autoconf.h"
#include "sources/gpu/nvsmi.h"
#include "transport/process.h"
#include "util/fileio.h"
#include "unit.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <time.h>
#include <unistd.h>

#define MIB 1048576ULL

static char *slurp(const char *rel, size_t *len)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", unit_fixtures(), rel);
    char *buf = NULL;
    if (pna_read_alloc(path, 8u << 20, &buf, len) != 0) {
        fprintf(stderr, "cannot read %s\n", path);
        return NULL;
    }
    return buf;
}

/* Parse one fixture; returns the number of GPUs, fills LIST. */
static size_t parse_fixture(const char *rel, struct pna_gpu_list *list, char *drv, char *cuda)
{
    size_t len = 0;
    char *xml = slurp(rel, &len);
    char err[160] = "";
    CHECK(xml != NULL);
    if (!xml)
        return 0;
    int rc = pna_nvsmi_parse(xml, len, list, drv, 80, cuda, 16, err, sizeof err);
    CHECK_INT(rc, 0);
    if (rc)
        fprintf(stderr, "%s: %s\n", rel, err);
    free(xml);
    return list->count;
}

/* H100, nvsmi_device_v13.dtd.  Literal values read from the file. */
static void test_h100(void)
{
    struct pna_gpu_list l = { 0 };
    char drv[80], cuda[16];
    CHECK_INT(parse_fixture("nvidia/h100-nvidia-smi-q-x.xml", &l, drv, cuda), 1);
    if (l.count != 1)
        return;
    const struct pna_gpu *g = &l.gpus[0];
    CHECK_STR(drv, "580.159.04");                          /* <driver_version> */
    CHECK_STR(cuda, "13.0");                               /* <cuda_version> */
    CHECK_STR(g->driver_version, "580.159.04");
    CHECK_INT(g->vendor, PNA_GPU_VND_NVIDIA);
    CHECK_INT(g->source, PNA_GPU_SRC_NVIDIA_SMI);
    CHECK_STR(g->pci_bus_id, "0000:00:06.0");              /* <gpu id="00000000:00:06.0"> */
    CHECK_U64(g->index, 6u << 3);
    CHECK(g->has_pci_ids);
    CHECK_INT(g->pci_device_id, 0x2330);                   /* <pci_device_id>233010DE */
    CHECK_INT(g->pci_vendor_id, 0x10de);
    CHECK_INT(g->pci_subsys_device_id, 0x16c1);            /* <pci_sub_system_id>16C110DE */
    CHECK_STR(g->name, "NVIDIA H100 80GB HBM3");
    CHECK_STR(g->uuid, "GPU-9523b415-042d-2522-6d49-eb87275e096c");
    CHECK_STR(g->serial, "1752624009638");
    CHECK_STR(g->vbios, "96.00.DA.00.0C");
    CHECK(g->has_minor && g->minor == 0);
    CHECK(g->has_util_gpu && g->util_gpu_pct == 0);        /* <gpu_util>0 % */
    CHECK(g->has_util_mem && g->util_mem_pct == 0);
    CHECK_U64(g->mem_total_bytes, 81559 * MIB);            /* <fb_memory_usage><total>81559 MiB */
    CHECK_U64(g->mem_used_bytes, 0);
    CHECK_U64(g->mem_free_bytes, 81079 * MIB);
    CHECK(g->has_temp && g->temp_c == 35);                 /* <gpu_temp>35 C */
    CHECK(g->has_temp_mem && g->temp_mem_c == 38);         /* <memory_temp>38 C */
    /* v13 has only T.Limit margins; the absolute thresholds follow from them
     * (35 + 52 + 2, 35 + 52 + 8): what NVML reports on a real H100 */
    CHECK(g->has_temp_slowdown && g->temp_slowdown_c == 89);
    CHECK(g->has_temp_shutdown && g->temp_shutdown_c == 95);
    CHECK(g->has_tlimit);
    CHECK_INT(g->temp_tlimit_c, 52);                       /* <gpu_temp_tlimit>52 C */
    CHECK_INT(g->temp_slowdown_tlimit_c, -2);              /* <gpu_temp_slow_tlimit_threshold>-2 C */
    CHECK(g->has_power);
    CHECK_INT(g->power_mw, 121730);                        /* <average_power_draw>121.73 W */
    CHECK(g->has_power_limit);
    CHECK_INT(g->power_limit_mw, 700000);                  /* <current_power_limit>700.00 W */
    CHECK(!g->has_energy);                                 /* nvidia-smi -q -x has none */
    CHECK(g->has_clock_sm && g->clock_sm_mhz == 1980);     /* <clocks><sm_clock>1980 MHz */
    CHECK(g->has_clock_mem && g->clock_mem_mhz == 2619);
    CHECK(!g->has_fan);                                    /* <fan_speed>N/A */
    CHECK(g->has_pcie_gen && g->pcie_gen == 5);
    CHECK(g->has_pcie_width && g->pcie_width == 16);       /* <current_link_width>16x */
    CHECK(g->has_pcie_replay && g->pcie_replay == 0);
    CHECK(g->has_pcie_gen_max && g->pcie_gen_max == 5);    /* <max_link_gen>5 */
    CHECK(g->has_pcie_width_max && g->pcie_width_max == 16);
    CHECK(g->has_perf_state && g->perf_state == 0);        /* <performance_state>P0 */
    CHECK(!g->has_xid);                                    /* only NVML's listener counts */
    CHECK(g->has_ecc);                                     /* aggregate: all 0 */
    CHECK_U64(g->ecc_corrected, 0);
    CHECK_U64(g->ecc_uncorrected, 0);
    CHECK(!g->has_retired_pages);                          /* <retired_count>N/A */
    CHECK(g->has_remapped_rows);
    CHECK_INT(g->remapped_rows_corr, 0);
    CHECK(!g->remap_pending && !g->remap_failure);
    CHECK(g->has_throttle);                                /* gpu_idle Active, rest Not Active */
    CHECK_U64(g->throttle_reasons, PNA_GPU_THROTTLE_GPU_IDLE);
    CHECK(g->has_processes && g->process_count == 0);      /* <processes> empty */
    CHECK(g->has_mig && !g->mig_enabled);                  /* <current_mig>Disabled */
    CHECK(!g->lost);
    CHECK_STR(g->drm_card, "");

    /* The CSV query of the same GPU (h100-query.csv) agrees on every column
     * it shares with the XML except power.draw, a reading of another moment. */
    size_t clen;
    char *csv = slurp("nvidia/h100-query.csv", &clen);
    CHECK(csv != NULL);
    if (csv) {
        char *line2 = strchr(csv, '\n');
        CHECK(line2 != NULL);
        if (line2) {
            char name[96], uuid[96], bus[32];
            unsigned idx, total, used, util, temp;
            double draw, limit;
            int n = sscanf(line2 + 1,
                           "%u, %95[^,], %95[^,], %31[^,], %u MiB, %u MiB, %u %%, %u, %lf W, %lf W",
                           &idx, name, uuid, bus, &total, &used, &util, &temp, &draw, &limit);
            CHECK_INT(n, 10);
            CHECK_STR(name, g->name);
            CHECK_STR(uuid, g->uuid);
            char canon[24];
            CHECK_INT(pna_gpu_canon_bus_id(bus, canon, sizeof canon), 0);
            CHECK_STR(canon, g->pci_bus_id);
            CHECK_U64(total * MIB, g->mem_total_bytes);
            CHECK_U64(used * MIB, g->mem_used_bytes);
            CHECK_INT(util, g->util_gpu_pct);
            CHECK_INT(temp, g->temp_c);
            CHECK_INT((unsigned)(limit * 1000 + 0.5), g->power_limit_mw);
            CHECK_INT(idx, g->vendor_index);
        }
        free(csv);
    }
    pna_gpu_list_free(&l);
}

/* A100 SXM4 80GB, v12, MIG enabled: the GPU's own figures, not its MIG
 * devices' (which nest fb_memory_usage and ecc counts of their own). */
static void test_a100(void)
{
    struct pna_gpu_list l = { 0 };
    char drv[80], cuda[16];
    CHECK_INT(parse_fixture("nvidia/a100-sxm4-80gb-nvidia-smi-q-x.xml", &l, drv, cuda), 1);
    if (l.count != 1)
        return;
    const struct pna_gpu *g = &l.gpus[0];
    CHECK_STR(drv, "535.54.03");
    CHECK_STR(cuda, "12.2");
    CHECK_STR(g->pci_bus_id, "0000:01:00.0");
    CHECK_U64(g->index, 1u << 8);
    CHECK_INT(g->pci_device_id, 0x20b2);
    CHECK_STR(g->name, "NVIDIA A100-SXM4-80GB");
    CHECK_STR(g->uuid, "GPU-513536b6-7d19-9063-b049-1e69664bb298");
    CHECK(g->has_minor && g->minor == 1);                  /* <minor_number>1 */
    CHECK(!g->has_util_gpu && !g->has_util_mem);           /* <gpu_util>N/A under MIG */
    CHECK_U64(g->mem_total_bytes, 81920 * MIB);            /* not a MIG slice's 19968 MiB */
    CHECK_U64(g->mem_used_bytes, 50 * MIB);
    CHECK_U64(g->mem_free_bytes, 80999 * MIB);
    CHECK(g->has_temp && g->temp_c == 27);
    CHECK(g->has_temp_mem && g->temp_mem_c == 44);
    CHECK(g->has_temp_slowdown && g->temp_slowdown_c == 89); /* <gpu_temp_slow_threshold> */
    CHECK(g->has_temp_shutdown && g->temp_shutdown_c == 92); /* <gpu_temp_max_threshold> */
    CHECK(!g->has_tlimit);                                 /* <gpu_temp_tlimit>N/A */
    CHECK_INT(g->power_mw, 67030);                         /* <gpu_power_readings><power_draw>67.03 W */
    CHECK_INT(g->power_limit_mw, 500000);
    CHECK_INT(g->clock_sm_mhz, 1275);
    CHECK_INT(g->clock_mem_mhz, 1593);
    CHECK(g->has_pcie_gen && g->pcie_gen == 4);
    CHECK(g->has_ecc && g->ecc_corrected == 0 && g->ecc_uncorrected == 0);
    CHECK(!g->has_retired_pages);
    CHECK(!g->has_remapped_rows);                          /* <remapped_rows>N/A */
    CHECK(g->has_throttle && g->throttle_reasons == 0);    /* every reason Not Active */
    CHECK(g->has_processes && g->process_count == 0);      /* <processes /> */
    CHECK(g->has_mig && g->mig_enabled);                   /* <current_mig>Enabled */
    pna_gpu_list_free(&l);
}

/* Tesla T4, v11: power_readings, clocks_throttle_reasons, retired pages. */
static void test_t4(void)
{
    struct pna_gpu_list l = { 0 };
    char drv[80], cuda[16];
    CHECK_INT(parse_fixture("nvidia/tesla-t4-nvidia-smi-q-x.xml", &l, drv, cuda), 1);
    if (l.count != 1)
        return;
    const struct pna_gpu *g = &l.gpus[0];
    CHECK_STR(drv, "515.105.01");
    CHECK_STR(cuda, "11.7");
    CHECK_STR(g->pci_bus_id, "0000:00:1e.0");              /* <gpu id="00000000:00:1E.0"> */
    CHECK_STR(g->name, "Tesla T4");
    CHECK_STR(g->serial, "0000000000000");                 /* as the file says */
    CHECK_U64(g->mem_total_bytes, 15360 * MIB);
    CHECK_U64(g->mem_used_bytes, 1032 * MIB);
    CHECK(!g->has_temp_mem);                               /* <memory_temp>N/A */
    CHECK_INT(g->temp_slowdown_c, 93);
    CHECK_INT(g->power_mw, 26780);                         /* <power_readings><power_draw>26.78 W */
    CHECK_INT(g->power_limit_mw, 70000);                   /* <enforced_power_limit>70.00 W */
    CHECK_INT(g->clock_sm_mhz, 585);
    CHECK_INT(g->clock_mem_mhz, 5000);
    CHECK(g->has_pcie_width && g->pcie_width == 8);        /* 8x */
    CHECK(g->has_pcie_width_max && g->pcie_width_max == 16); /* a x16 card in an x8 link */
    CHECK(g->has_retired_pages);                           /* <retired_count>0 both */
    CHECK_INT(g->retired_pages_sbe, 0);
    CHECK_INT(g->retired_pages_dbe, 0);
    CHECK(!g->has_remapped_rows);
    CHECK(g->has_throttle && g->throttle_reasons == 0);
    CHECK(g->has_processes);
    CHECK_INT(g->process_count, 2);                        /* pids 675 (G) and 5762 (C) */
    CHECK(!g->has_mig);                                    /* <current_mig>N/A */
    pna_gpu_list_free(&l);
}

/* A10G, v11: fan, remapped rows, one throttle reason, PCIe gen 1 at idle. */
static void test_a10g(void)
{
    struct pna_gpu_list l = { 0 };
    char drv[80], cuda[16];
    CHECK_INT(parse_fixture("nvidia/a10g-nvidia-smi-q-x.xml", &l, drv, cuda), 1);
    if (l.count != 1)
        return;
    const struct pna_gpu *g = &l.gpus[0];
    CHECK_STR(g->name, "NVIDIA A10G");
    CHECK_STR(g->uuid, "GPU-9a9a6c50-2a47-2f51-a902-b82c3b127e94");
    /* the sample's ids were blanked: <pci_device_id>000000DE */
    CHECK_INT(g->pci_device_id, 0x0000);
    CHECK_INT(g->pci_vendor_id, 0x00de);
    CHECK(g->has_temp && g->temp_c == 17);
    CHECK_INT(g->temp_slowdown_c, 95);
    CHECK_INT(g->temp_shutdown_c, 98);
    CHECK_INT(g->power_mw, 25580);
    CHECK_INT(g->power_limit_mw, 300000);
    CHECK(g->has_fan && g->fan_pct == 0);                  /* <fan_speed>0 % */
    CHECK(g->has_pcie_gen && g->pcie_gen == 1);
    CHECK(g->has_pcie_gen_max && g->pcie_gen_max == 4);    /* idle links train down */
    CHECK(g->has_perf_state && g->perf_state == 8);        /* <performance_state>P8 */
    CHECK(g->has_remapped_rows && g->remapped_rows_corr == 0 && g->remapped_rows_unc == 0);
    CHECK(!g->remap_pending);                              /* <remapped_row_pending>No */
    CHECK_U64(g->throttle_reasons, PNA_GPU_THROTTLE_GPU_IDLE);
    CHECK_INT(g->process_count, 1);                        /* one process_info */
    pna_gpu_list_free(&l);
}

/* GTX 1660 Ti, driver 418 (2019): no DOCTYPE, no mig_mode element, ECC N/A. */
static void test_gtx(void)
{
    struct pna_gpu_list l = { 0 };
    char drv[80], cuda[16];
    CHECK_INT(parse_fixture("nvidia/gtx-1660-ti-nvidia-smi-q-x.xml", &l, drv, cuda), 1);
    if (l.count != 1)
        return;
    const struct pna_gpu *g = &l.gpus[0];
    CHECK_STR(drv, "418.43");
    CHECK_STR(cuda, "10.1");
    CHECK_STR(g->pci_bus_id, "0000:43:00.0");
    CHECK_STR(g->name, "Graphics Device");                 /* the driver predates the name */
    CHECK_STR(g->serial, "");                              /* <serial>N/A */
    CHECK_INT(g->pci_subsys_vendor_id, 0x1458);            /* <pci_sub_system_id>3FC81458 */
    CHECK_INT(g->pci_subsys_device_id, 0x3fc8);
    CHECK(g->has_util_mem && g->util_mem_pct == 1);
    CHECK_U64(g->mem_total_bytes, 5912 * MIB);
    CHECK(!g->has_ecc);                                    /* every ECC count N/A */
    CHECK(!g->has_mig);                                    /* no <mig_mode> */
    CHECK_INT(g->power_mw, 8930);
    CHECK_INT(g->power_limit_mw, 130000);
    CHECK(g->has_processes && g->process_count == 0);
    pna_gpu_list_free(&l);
}

/* RTX 4000 SFF Ada, v13 (driver 595): four processes, one of them "C+G". */
static void test_rtx_v13(void)
{
    struct pna_gpu_list l = { 0 };
    char drv[80], cuda[16];
    CHECK_INT(parse_fixture("nvidia/rtx-4000-sff-ada-v13-nvidia-smi-q-x.xml", &l, drv, cuda), 1);
    if (l.count != 1)
        return;
    const struct pna_gpu *g = &l.gpus[0];
    CHECK_STR(drv, "595.84");
    CHECK_STR(cuda, "13.2");
    CHECK_STR(g->name, "NVIDIA RTX 4000 SFF Ada Generation");
    CHECK_STR(g->serial, "REDACTED");
    CHECK_INT(g->util_mem_pct, 37);
    CHECK_U64(g->mem_used_bytes, 3534 * MIB);
    CHECK(g->has_tlimit && g->temp_tlimit_c == 49 && g->temp_slowdown_tlimit_c == -2);
    CHECK(g->has_temp_slowdown && g->temp_slowdown_c == 38 + 49 + 2);
    CHECK(g->has_temp_shutdown && g->temp_shutdown_c == 38 + 49 + 7);
    CHECK_INT(g->power_mw, 8810);                          /* <average_power_draw>8.81 W */
    CHECK_INT(g->power_limit_mw, 70000);
    CHECK(g->has_fan && g->fan_pct == 30);
    CHECK(!g->has_ecc);                                    /* all N/A (no ECC on this card) */
    CHECK_INT(g->process_count, 4);                        /* 1842, 3190, 4937, 34626 */
    CHECK(g->has_remapped_rows);
    CHECK(!g->has_mig);
    /* clocks_event_reasons_counters: sw_power_cap 4251825415 us, the rest 0 */
    CHECK(g->has_held[PNA_GPU_HELD_POWER] && g->held_us[PNA_GPU_HELD_POWER] == 4251825415ULL);
    CHECK(g->has_held[PNA_GPU_HELD_HW_POWER_BRAKE] && g->held_us[PNA_GPU_HELD_HW_POWER_BRAKE] == 0);
    CHECK(!g->has_held[PNA_GPU_HELD_THERMAL]);             /* not printed by nvidia-smi */
    CHECK(g->has_recovery_action && g->recovery_action == PNA_GPU_RECOVERY_NONE);
    /* the process rows: type C+G is both, memory in MiB */
    CHECK_U64(l.nprocs, 4);
    for (size_t i = 0; i < l.nprocs; i++) {
        const struct pna_gpu_proc *p = &l.procs[i];
        CHECK_INT(p->gpu_index, g->index);
        if (p->pid == 34626) {
            CHECK_INT(p->type, PNA_GPU_PROC_COMPUTE | PNA_GPU_PROC_GRAPHICS);
            CHECK(p->has_mem && p->mem_bytes == 183 * MIB);
        }
        if (p->pid == 1842)
            CHECK(p->type == PNA_GPU_PROC_GRAPHICS && p->mem_bytes == 410 * MIB);
        CHECK(!p->has_instance);                           /* N/A: no MIG */
    }
    pna_gpu_list_free(&l);
}

/* Several <gpu> elements in one document keep their order and their own
 * figures; a <gpu> without any PCI address is skipped, not fatal. */
static void test_multi_and_bad(void)
{
    const char *doc =
        "<?xml version=\"1.0\" ?>\n<nvidia_smi_log><driver_version>1.2</driver_version>"
        "<gpu id=\"00000000:C1:00.0\"><product_name>B</product_name>"
        "<fb_memory_usage><total>10 MiB</total></fb_memory_usage></gpu>"
        "<gpu><product_name>no address</product_name></gpu>"
        "<gpu id=\"00000000:41:00.0\"><product_name>A</product_name>"
        "<temperature><gpu_temp>[N/A]</gpu_temp></temperature></gpu></nvidia_smi_log>";
    struct pna_gpu_list l = { 0 };
    char drv[80], cuda[16], err[160];
    CHECK_INT(pna_nvsmi_parse(doc, strlen(doc), &l, drv, sizeof drv, cuda, sizeof cuda, err,
                              sizeof err), 0);
    CHECK_INT(l.count, 2);
    if (l.count == 2) {
        CHECK_STR(l.gpus[0].name, "B");
        CHECK_INT(l.gpus[0].vendor_index, 0);
        CHECK_U64(l.gpus[0].mem_total_bytes, 10 * MIB);
        CHECK_STR(l.gpus[1].name, "A");
        CHECK_INT(l.gpus[1].vendor_index, 2);
        CHECK(!l.gpus[1].has_temp);
        CHECK(!l.gpus[1].has_mem_total);
    }
    CHECK_STR(drv, "1.2");
    CHECK_STR(cuda, "");
    pna_gpu_list_free(&l);

    /* not XML, the wrong root, truncated, empty: errors with a reason */
    const char *bad[] = { "No devices were found", "<html><body>x</body></html>",
                          "<nvidia_smi_log><gpu id=\"00000000:01:00.0\">", "" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        CHECK_INT(pna_nvsmi_parse(bad[i], strlen(bad[i]), &l, drv, sizeof drv, cuda, sizeof cuda,
                                  err, sizeof err), -1);
        CHECK(err[0] != '\0');
        CHECK_INT(l.count, 0);
    }
    /* an external entity is not expanded and nothing is fetched */
    const char *xxe = "<?xml version=\"1.0\"?><!DOCTYPE nvidia_smi_log [<!ENTITY x SYSTEM "
                      "\"file:///etc/passwd\">]><nvidia_smi_log><gpu id=\"00000000:01:00.0\">"
                      "<product_name>&x;</product_name></gpu></nvidia_smi_log>";
    if (pna_nvsmi_parse(xxe, strlen(xxe), &l, drv, sizeof drv, cuda, sizeof cuda, err,
                        sizeof err) == 0 && l.count == 1)
        CHECK(strstr(l.gpus[0].name, "root:") == NULL);
    pna_gpu_list_free(&l);
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Any live (non-zombie) process left in process group PGID? */
static bool group_alive(pid_t pgid)
{
    DIR *d = opendir("/proc");
    bool alive = false;
    struct dirent *de;
    while (d && !alive && (de = readdir(d)) != NULL) {
        char path[300], buf[512];
        if (de->d_name[0] < '0' || de->d_name[0] > '9')
            continue;
        snprintf(path, sizeof path, "/proc/%s/stat", de->d_name);
        if (pna_read_text(path, buf, sizeof buf) <= 0)
            continue;
        char *rp = strrchr(buf, ')');
        char state;
        int ppid, pgrp;
        if (rp && sscanf(rp + 2, "%c %d %d", &state, &ppid, &pgrp) == 3 && pgrp == pgid &&
            state != 'Z')
            alive = true;
    }
    if (d)
        closedir(d);
    return alive;
}

static void test_runner(void)
{
    char *out = NULL, err[200];
    size_t len = 0;
    const char *echo[] = { "/bin/sh", "-c", "printf 'a\\nb'", NULL };
    CHECK_INT(pna_run_capture(echo, 2000, 1024, &out, &len, err, sizeof err), 0);
    CHECK(out && len == 3 && strcmp(out, "a\nb") == 0);
    free(out);
    out = NULL;

    /* a bare name is looked up in PATH */
    const char *tru[] = { "true", NULL };
    CHECK_INT(pna_run_capture(tru, 2000, 1024, &out, &len, err, sizeof err), 0);
    CHECK_INT(len, 0);
    free(out);
    out = NULL;

    const char *fail[] = { "/bin/sh", "-c", "echo partial; exit 3", NULL };
    CHECK_INT(pna_run_capture(fail, 2000, 1024, &out, &len, err, sizeof err), -1);
    CHECK(strstr(err, "status 3") != NULL);
    CHECK(out == NULL);

    const char *missing[] = { "/nonexistent/nvidia-smi", "-q", "-x", NULL };
    CHECK_INT(pna_run_capture(missing, 2000, 1024, &out, &len, err, sizeof err), -1);
    CHECK(err[0] != '\0');

    const char *big[] = { "/bin/sh", "-c", "yes 0123456789", NULL };
    int64_t t0 = now_ms();
    CHECK_INT(pna_run_capture(big, 5000, 100000, &out, &len, err, sizeof err), -1);
    CHECK(strstr(err, "more than") != NULL);
    CHECK(now_ms() - t0 < 3000);

    /* stdin is /dev/null: a command that reads it ends at once */
    const char *cat[] = { "/bin/cat", NULL };
    CHECK_INT(pna_run_capture(cat, 2000, 1024, &out, &len, err, sizeof err), 0);
    free(out);
    out = NULL;

    /* a command that closes its output but keeps running still meets the deadline */
    const char *lingering[] = { "/bin/sh", "-c", "exec >&-; sleep 30", NULL };
    t0 = now_ms();
    CHECK_INT(pna_run_capture(lingering, 300, 1024, &out, &len, err, sizeof err), -1);
    CHECK(now_ms() - t0 < 2000);
    CHECK(strstr(err, "did not finish") != NULL);
}

static void test_nvsmi_command(void)
{
    const char *top = getenv("top_srcdir");
    char script[4096], xml[4096], hang[] = "/tmp/pna-nvsmi-hang-XXXXXX";
    snprintf(script, sizeof script, "%s/tests/nvml/fake-nvidia-smi", top ? top : ".");
    snprintf(xml, sizeof xml, "%s/nvidia/h100-nvidia-smi-q-x.xml", unit_fixtures());
    if (access(script, X_OK) != 0) {
        fprintf(stderr, "skipping command tests: %s not executable\n", script);
        return;
    }
    setenv("PNA_FAKE_NVSMI_XML", xml, 1);
    struct pna_gpu_list l = { 0 };
    char drv[80], cuda[16], err[200];
    CHECK_INT(pna_nvsmi_collect(script, 5000, &l, drv, sizeof drv, cuda, sizeof cuda, err,
                                sizeof err), 0);
    CHECK_INT(l.count, 1);
    if (l.count)
        CHECK_STR(l.gpus[0].uuid, "GPU-9523b415-042d-2522-6d49-eb87275e096c");
    pna_gpu_list_free(&l);

    setenv("PNA_FAKE_NVSMI_EXIT", "9", 1);
    CHECK_INT(pna_nvsmi_collect(script, 5000, &l, drv, sizeof drv, cuda, sizeof cuda, err,
                                sizeof err), -1);
    CHECK(strstr(err, "status 9") != NULL);
    unsetenv("PNA_FAKE_NVSMI_EXIT");

    /* a hung nvidia-smi: killed at the deadline with what it started */
    int fd = mkstemp(hang);
    CHECK(fd >= 0);
    if (fd >= 0)
        close(fd);
    setenv("PNA_FAKE_NVSMI_HANG", hang, 1);
    int64_t t0 = now_ms();
    CHECK_INT(pna_nvsmi_collect(script, 400, &l, drv, sizeof drv, cuda, sizeof cuda, err,
                                sizeof err), -1);
    int64_t took = now_ms() - t0;
    CHECK(took >= 350 && took < 2500);
    CHECK(strstr(err, "did not finish within 400 ms") != NULL);
    CHECK_INT(l.count, 0);
    char pidbuf[32];
    long pgid = 0;
    if (pna_read_text(hang, pidbuf, sizeof pidbuf) > 0)
        pgid = strtol(pidbuf, NULL, 10);
    CHECK(pgid > 1);
    bool gone = false;
    for (int i = 0; i < 100 && pgid > 1 && !(gone = !group_alive((pid_t)pgid)); i++)
        usleep(20000);
    CHECK(gone); /* the shell and its sleep child both */
    unsetenv("PNA_FAKE_NVSMI_HANG");
    unlink(hang);
}

int main(void)
{
    test_h100();
    test_a100();
    test_t4();
    test_a10g();
    test_gtx();
    test_rtx_v13();
    test_multi_and_bad();
    test_runner();
    test_nvsmi_command();
    UNIT_END();
}
