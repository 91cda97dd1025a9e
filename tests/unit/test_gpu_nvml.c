/* test_gpu_nvml.c -- the NVML collector against the test NVML library
 * (tests/nvml/libnvidia-ml.so.1), which answers from recorded nvidia-smi XML.
 *
 * Every figure NVML returns is compared with what the nvidia-smi parser reads
 * from the same file (itself checked against literal values in
 * test_gpu_nvsmi.c); also: GPUs come out in PCI order whatever NVML's index
 * order, unsupported figures are absent, a lost GPU keeps its identity, a
 * vanished GPU is gone, XID events arrive through the XID watch's thread
 * (watchers/gpu_xid.c), and a hung NVML call holds only the caller. */
#include "pna_autoconf.h"
#include "sources/gpu/nvml.h"
#include "sources/gpu/nvsmi.h"
#include "util/fileio.h"
#include "watchers/gpu_xid.h"
#include "unit.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <time.h>
#include <unistd.h>

static char lib[4096];
static char ctl[] = "/tmp/pna-fake-nvml-ctl-XXXXXX";

/* NVML index order on purpose not PCI order. */
static const char *const fixtures[] = {
    "nvidia/tesla-t4-nvidia-smi-q-x.xml",            /* 00:1e.0 */
    "nvidia/h100-nvidia-smi-q-x.xml",                /* 00:06.0 */
    "nvidia/gtx-1660-ti-nvidia-smi-q-x.xml",         /* 43:00.0 */
    "nvidia/a100-sxm4-80gb-nvidia-smi-q-x.xml",      /* 01:00.0 */
    "nvidia/rtx-4000-sff-ada-v13-nvidia-smi-q-x.xml", /* 06:00.0 */
};
#define NFIX (sizeof fixtures / sizeof fixtures[0])

static void write_ctl(const char *text)
{
    FILE *f = fopen(ctl, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void setup_env(void)
{
    const char *b = getenv("top_builddir");
    snprintf(lib, sizeof lib, "%s/tests/nvml/libnvidia-ml.so.1", b ? b : ".");
    char list[8192] = "";
    for (size_t i = 0; i < NFIX; i++) {
        char p[4096];
        snprintf(p, sizeof p, "%s%s/%s", i ? ":" : "", unit_fixtures(), fixtures[i]);
        strncat(list, p, sizeof list - strlen(list) - 1);
    }
    setenv("PNA_FAKE_NVML_XML", list, 1);
    int fd = mkstemp(ctl);
    CHECK(fd >= 0);
    if (fd >= 0)
        close(fd);
    setenv("PNA_FAKE_NVML_CTL", ctl, 1);
}

/* The nvidia-smi parser's reading of a fixture. */
static struct pna_gpu parsed(const char *rel)
{
    char path[4096], drv[80], cuda[16], err[160];
    snprintf(path, sizeof path, "%s/%s", unit_fixtures(), rel);
    char *xml = NULL;
    size_t len = 0;
    struct pna_gpu g;
    memset(&g, 0, sizeof g);
    struct pna_gpu_list l = { 0 };
    if (pna_read_alloc(path, 8u << 20, &xml, &len) == 0 &&
        pna_nvsmi_parse(xml, len, &l, drv, sizeof drv, cuda, sizeof cuda, err, sizeof err) == 0 &&
        l.count == 1)
        g = l.gpus[0];
    free(xml);
    pna_gpu_list_free(&l);
    return g;
}

#define SAME_OPT(flag, field)                    \
    do {                                         \
        CHECK_INT(n->flag, x->flag);             \
        if (n->flag && x->flag)                  \
            CHECK_U64(n->field, x->field);       \
    } while (0)

/* N from NVML, X from nvidia-smi, for the same GPU. */
static void compare(const struct pna_gpu *n, const struct pna_gpu *x)
{
    CHECK_STR(n->pci_bus_id, x->pci_bus_id);
    CHECK_U64(n->index, x->index);
    CHECK_STR(n->name, x->name);
    CHECK_STR(n->uuid, x->uuid);
    CHECK_STR(n->serial, x->serial);
    CHECK_STR(n->vbios, x->vbios);
    CHECK_INT(n->pci_device_id, x->pci_device_id);
    CHECK_INT(n->pci_vendor_id, x->pci_vendor_id);
    CHECK_INT(n->pci_subsys_device_id, x->pci_subsys_device_id);
    SAME_OPT(has_minor, minor);
    SAME_OPT(has_util_gpu, util_gpu_pct);
    SAME_OPT(has_util_mem, util_mem_pct);
    SAME_OPT(has_mem_total, mem_total_bytes);
    SAME_OPT(has_mem_used, mem_used_bytes);
    SAME_OPT(has_mem_free, mem_free_bytes);
    SAME_OPT(has_temp, temp_c);
    SAME_OPT(has_temp_mem, temp_mem_c);
    SAME_OPT(has_temp_slowdown, temp_slowdown_c);
    SAME_OPT(has_temp_shutdown, temp_shutdown_c);
    SAME_OPT(has_power, power_mw);
    SAME_OPT(has_power_limit, power_limit_mw);
    SAME_OPT(has_energy, energy_mj);
    SAME_OPT(has_clock_sm, clock_sm_mhz);
    SAME_OPT(has_clock_mem, clock_mem_mhz);
    SAME_OPT(has_fan, fan_pct);
    SAME_OPT(has_pcie_gen, pcie_gen);
    SAME_OPT(has_pcie_width, pcie_width);
    SAME_OPT(has_pcie_replay, pcie_replay);
    SAME_OPT(has_pcie_gen_max, pcie_gen_max);
    SAME_OPT(has_pcie_width_max, pcie_width_max);
    SAME_OPT(has_perf_state, perf_state);
    SAME_OPT(has_ecc, ecc_corrected);
    SAME_OPT(has_ecc, ecc_uncorrected);
    SAME_OPT(has_retired_pages, retired_pages_sbe);
    SAME_OPT(has_retired_pages, retired_pages_dbe);
    SAME_OPT(has_remapped_rows, remapped_rows_corr);
    SAME_OPT(has_remapped_rows, remapped_rows_unc);
    SAME_OPT(has_throttle, throttle_reasons);
    SAME_OPT(has_processes, process_count);
    SAME_OPT(has_mig, mig_enabled);
    CHECK_INT(n->remap_pending, x->remap_pending);
    CHECK(!n->lost);
    CHECK(!n->has_tlimit); /* an nvidia-smi v13 notion, not NVML's */
}

static void test_open_failures(void)
{
    struct pna_nvml *nv = NULL;
    char err[256];
    CHECK_INT(pna_nvml_open("/nonexistent/libnvidia-ml.so.1", &nv, err, sizeof err),
              PNA_NVML_ABSENT);
    CHECK(strstr(err, "cannot load") != NULL);
    /* a library that is not NVML */
    CHECK_INT(pna_nvml_open("libc.so.6", &nv, err, sizeof err), -1);
    CHECK(strstr(err, "lacks") != NULL);
    /* the driver is not loaded: a CPU-only node, not an error */
    setenv("PNA_FAKE_NVML_INIT_RC", "9", 1);
    CHECK_INT(pna_nvml_open(lib, &nv, err, sizeof err), PNA_NVML_ABSENT);
    CHECK(strstr(err, "Driver Not Loaded") != NULL);
    setenv("PNA_FAKE_NVML_INIT_RC", "999", 1);
    CHECK_INT(pna_nvml_open(lib, &nv, err, sizeof err), -1);
    unsetenv("PNA_FAKE_NVML_INIT_RC");
}

static void test_collect(struct pna_nvml *nv)
{
    struct pna_gpu_list l = { 0 };
    char drv[80], cuda[16], err[200];
    CHECK_INT(pna_nvml_collect(nv, &l, drv, sizeof drv, cuda, sizeof cuda, err, sizeof err), 0);
    CHECK_INT(l.count, NFIX);
    /* system-wide versions come from the first file the library loaded (T4) */
    CHECK_STR(drv, "515.105.01");
    CHECK_STR(cuda, "11.7");
    pna_gpu_list_sort(&l);
    /* PCI order, not NVML order */
    static const char *const order[] = { "0000:00:06.0", "0000:00:1e.0", "0000:01:00.0",
                                         "0000:06:00.0", "0000:43:00.0" };
    for (size_t i = 0; i < l.count && i < NFIX; i++)
        CHECK_STR(l.gpus[i].pci_bus_id, order[i]);
    for (size_t i = 0; i < NFIX; i++) {
        struct pna_gpu x = parsed(fixtures[i]);
        const struct pna_gpu *n = pna_gpu_find(l.gpus, l.count, x.index);
        CHECK(n != NULL);
        if (!n)
            continue;
        compare(n, &x);
        CHECK_INT(n->source, PNA_GPU_SRC_NVML);
        CHECK(n->has_vendor_index && n->vendor_index == i); /* NVML's own index */
        CHECK_STR(n->driver_version, "515.105.01");
        CHECK_STR(n->cuda_version, "11.7");
    }
    /* a few literal H100 values (h100-nvidia-smi-q-x.xml) on the NVML path */
    const struct pna_gpu *h = pna_gpu_find(l.gpus, l.count, 6u << 3);
    CHECK(h != NULL);
    if (h) {
        CHECK_STR(h->uuid, "GPU-9523b415-042d-2522-6d49-eb87275e096c");
        CHECK_U64(h->mem_total_bytes, 81559ULL * 1048576);
        CHECK_U64(h->mem_used_bytes, 0);  /* v2 memory info: the 480 MiB reserve apart */
        CHECK_INT(h->power_mw, 121730);
        CHECK_INT(h->temp_mem_c, 38);     /* NVML_FI_DEV_MEMORY_TEMP */
        CHECK(!h->has_energy);            /* NOT_SUPPORTED: absent, not 0 */
        CHECK(!h->has_fan);
    }
    pna_gpu_list_free(&l);
}

static void test_control(struct pna_nvml *nv)
{
    struct pna_gpu_list l = { 0 };
    char drv[80], cuda[16], err[200];
    write_ctl("set 00000000:00:06.0 temp 91\n"
              "set 00000000:00:06.0 energy_mj 123456789\n"
              "lost 00000000:01:00.0\n"
              "gone 00000000:43:00.0\n");
    CHECK_INT(pna_nvml_collect(nv, &l, drv, sizeof drv, cuda, sizeof cuda, err, sizeof err), 0);
    pna_gpu_list_sort(&l);
    CHECK_INT(l.count, NFIX - 1); /* the gone one is not listed */
    const struct pna_gpu *h = pna_gpu_find(l.gpus, l.count, 6u << 3);
    CHECK(h && h->has_temp && h->temp_c == 91);
    CHECK(h && h->has_energy && h->energy_mj == 123456789ULL);
    const struct pna_gpu *a = pna_gpu_find(l.gpus, l.count, 1u << 8);
    CHECK(a != NULL);
    if (a) {
        /* lost: identity kept from the earlier poll, no figures */
        CHECK(a->lost);
        CHECK_STR(a->uuid, "GPU-513536b6-7d19-9063-b049-1e69664bb298");
        CHECK_STR(a->name, "NVIDIA A100-SXM4-80GB");
        CHECK(!a->has_temp && !a->has_mem_total && !a->has_power);
    }
    CHECK(pna_gpu_find(l.gpus, l.count, 0x43u << 8) == NULL);
    pna_gpu_list_free(&l);
    write_ctl("");
}

/* --- XID listener ----------------------------------------------------- */

static pthread_mutex_t xid_lock = PTHREAD_MUTEX_INITIALIZER;
static struct pna_nvml_xid xids[8];
static int nxids;

static void on_xid(const struct pna_nvml_xid *x, void *arg)
{
    (void)arg;
    pthread_mutex_lock(&xid_lock);
    if (nxids < 8)
        xids[nxids++] = *x;
    pthread_mutex_unlock(&xid_lock);
}

static int xid_count(void)
{
    pthread_mutex_lock(&xid_lock);
    int n = nxids;
    pthread_mutex_unlock(&xid_lock);
    return n;
}

static void test_xid(struct pna_nvml *nv)
{
    char err[200];
    struct pna_xid_watch *w = NULL;
    CHECK_INT(pna_xid_watch_start(nv, on_xid, NULL, &w, err, sizeof err), 0);
    CHECK(w != NULL);
    CHECK(pna_xid_watch_gpus(w) >= 2);
    write_ctl("xid 00000000:00:06.0 79\nxid 00000000:06:00.0 13\n");
    for (int i = 0; i < 150 && xid_count() < 2; i++)
        usleep(20000);
    CHECK_INT(xid_count(), 2);
    if (xid_count() >= 2) {
        CHECK_U64(xids[0].xid, 79);
        CHECK_U64(xids[0].index, 6u << 3);
        CHECK_STR(xids[0].pci_bus_id, "0000:00:06.0");
        CHECK_STR(xids[0].uuid, "GPU-9523b415-042d-2522-6d49-eb87275e096c");
        CHECK_U64(xids[1].xid, 13);
        CHECK_STR(xids[1].pci_bus_id, "0000:06:00.0");
    }
    /* each event once */
    usleep(300000);
    CHECK_INT(xid_count(), 2);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    CHECK_INT(pna_xid_watch_stop(w), 0);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    CHECK(t1.tv_sec - t0.tv_sec < 2); /* the listener waits in short slices */
    write_ctl("");
}

/* --- a hung call ------------------------------------------------------ */

struct hung_call {
    struct pna_nvml *nv;
    atomic_bool done;
    int rc;
};

static void *collect_thread(void *arg)
{
    struct hung_call *h = arg;
    struct pna_gpu_list l = { 0 };
    char drv[80], cuda[16], err[200];
    h->rc = pna_nvml_collect(h->nv, &l, drv, sizeof drv, cuda, sizeof cuda, err, sizeof err);
    pna_gpu_list_free(&l);
    atomic_store(&h->done, true);
    return NULL;
}

static void test_hang(struct pna_nvml *nv)
{
    char flag[] = "/tmp/pna-fake-nvml-hang-XXXXXX";
    int fd = mkstemp(flag);
    CHECK(fd >= 0);
    if (fd < 0)
        return;
    close(fd);
    setenv("PNA_FAKE_NVML_HANG", "nvmlDeviceGetPowerUsage", 1);
    setenv("PNA_FAKE_NVML_HANG_FILE", flag, 1);
    struct hung_call h = { .nv = nv };
    atomic_init(&h.done, false);
    pthread_t t;
    CHECK_INT(pthread_create(&t, NULL, collect_thread, &h), 0);
    usleep(400000);
    CHECK(!atomic_load(&h.done)); /* stuck inside NVML, as a sick driver would be */
    unlink(flag);                 /* the driver recovers */
    for (int i = 0; i < 100 && !atomic_load(&h.done); i++)
        usleep(20000);
    CHECK(atomic_load(&h.done));
    pthread_join(t, NULL);
    CHECK_INT(h.rc, 0);
    unsetenv("PNA_FAKE_NVML_HANG");
    unsetenv("PNA_FAKE_NVML_HANG_FILE");
}

int main(void)
{
    setup_env();
    if (access(lib, R_OK) != 0) {
        fprintf(stderr, "%s not built\n", lib);
        return 1;
    }
    test_open_failures();
    struct pna_nvml *nv = NULL;
    char err[256];
    CHECK_INT(pna_nvml_open(lib, &nv, err, sizeof err), 0);
    if (nv) {
        test_collect(nv);
        test_control(nv);
        test_xid(nv);
        test_hang(nv);
        pna_nvml_close(nv);
    }
    unlink(ctl);
    UNIT_END();
}
