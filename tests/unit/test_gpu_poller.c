/* test_gpu_poller.c -- the "gpu" poller end to end on the test NVML, the fake
 * nvidia-smi and amdgpu fixture trees: a CPU-only node is disabled quietly;
 * NVIDIA and AMD GPUs land in one snapshot in PCI order with /dev/dri names;
 * thermal crossings, lost and vanished GPUs and XIDs each post one event. */
#include "pna_autoconf.h"
#include "core/config.h"
#include "pollers/pollers.h"
#include "core/events.h"
#include "model/gpu/gpu.h"
#include "unit.h"

#include <stdbool.h>
#include <sys/stat.h>
#include <unistd.h>

static char ctl[] = "/tmp/pna-gpupoll-ctl-XXXXXX";
static char devfs[] = "/tmp/pna-gpupoll-dev-XXXXXX";
static char emptydir[] = "/tmp/pna-gpupoll-empty-XXXXXX";
static char procfs[] = "/tmp/pna-gpupoll-proc-XXXXXX";
static char lib[4096], amd_sysfs[4096];

struct seen {
    int n;
    struct pna_event ev[32];
};

static void sink(const struct pna_event *ev, void *arg)
{
    struct seen *s = arg;
    if (s->n < 32)
        s->ev[s->n++] = *ev;
}

static struct seen drain(void)
{
    struct seen s;
    memset(&s, 0, sizeof s);
    pna_events_drain(sink, &s);
    return s;
}

static int count_type(const struct seen *s, enum pna_event_type t)
{
    int n = 0;
    for (int i = 0; i < s->n; i++)
        n += s->ev[i].type == t;
    return n;
}

static const struct pna_event *find_type(const struct seen *s, enum pna_event_type t)
{
    for (int i = 0; i < s->n; i++)
        if (s->ev[i].type == t)
            return &s->ev[i];
    return NULL;
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

static void setup(void)
{
    const char *b = getenv("top_builddir");
    snprintf(lib, sizeof lib, "%s/tests/nvml/libnvidia-ml.so.1", b ? b : ".");
    snprintf(amd_sysfs, sizeof amd_sysfs, "%s/amdgpu-sysfs/lact-rx6900xt/sys", unit_fixtures());
    char list[8400];
    snprintf(list, sizeof list, "%s/nvidia/a100-sxm4-80gb-nvidia-smi-q-x.xml:%s/nvidia/"
             "h100-nvidia-smi-q-x.xml", unit_fixtures(), unit_fixtures());
    setenv("PNA_FAKE_NVML_XML", list, 1);
    int fd = mkstemp(ctl);
    if (fd >= 0)
        close(fd);
    setenv("PNA_FAKE_NVML_CTL", ctl, 1);
    CHECK(mkdtemp(devfs) != NULL);
    CHECK(mkdtemp(emptydir) != NULL);
    CHECK(mkdtemp(procfs) != NULL);
    /* /dev/dri/by-path for the H100 and the RX 6900 XT */
    char p[4200];
    snprintf(p, sizeof p, "%s/dri", devfs);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/dri/by-path", devfs);
    mkdir(p, 0755);
    static const char *const links[][2] = {
        { "pci-0000:00:06.0-card", "../card1" }, { "pci-0000:00:06.0-render", "../renderD129" },
        { "pci-0000:0c:00.0-card", "../card0" }, { "pci-0000:0c:00.0-render", "../renderD128" },
    };
    for (size_t i = 0; i < 4; i++) {
        snprintf(p, sizeof p, "%s/dri/by-path/%s", devfs, links[i][0]);
        CHECK_INT(symlink(links[i][1], p), 0);
    }
    CHECK_INT(pna_events_init(64), 0);
}

/* The GPU poller's settings, as the config loader hands them to init(). */
static struct pna_gpu_settings gpu_set;

static void base_config(struct pna_config *cfg)
{
    pna_config_defaults(cfg);
    cfg->roots.sysfs = emptydir;
    cfg->roots.procfs = emptydir;
    cfg->roots.devfs = devfs;
    cfg->roots.rootfs = emptydir;
    pna_config_poller_defaults(&pna_gpu_poller, &gpu_set);
    gpu_set.nvml_library = "/nonexistent/libnvidia-ml.so.1";
    gpu_set.nvidia_smi = "/nonexistent/nvidia-smi";
    gpu_set.temp_threshold_c = 0;
}

static struct pna_gpu_snap *poll_once(void *state, char *err, size_t errlen)
{
    struct pna_snap *out = NULL;
    int rc = pna_gpu_poller.collect(state, NULL, NULL, &out, err, errlen);
    return rc == 0 ? (struct pna_gpu_snap *)out : NULL;
}

static void test_registry_entry(void)
{
    CHECK_STR(pna_gpu_poller.name, "gpu");
    CHECK_INT(pna_gpu_poller.index, 2);
    CHECK_INT(pna_gpu_poller.domain, PNA_DOM_GPU);
    CHECK_INT(pna_gpu_poller.default_interval_ms, 10000);
    /* The nvidia-smi fallback has its own deadline; the poll's must be longer
     * so the command is killed (and reported) before the poll overruns. */
    struct pna_gpu_settings set;
    pna_config_poller_defaults(&pna_gpu_poller, &set);
    CHECK(pna_gpu_poller.default_timeout_ms > set.nvidia_smi_timeout_ms);
}

/* No NVML, no nvidia-smi, no amdgpu card: absent for now, with a reason (the
 * poller keeps looking, see test_poller's "late"). */
static void test_cpu_only(void)
{
    struct pna_config cfg;
    base_config(&cfg);
    void *state = NULL;
    char err[300] = "";
    CHECK_INT(pna_gpu_poller.init(&state, &cfg, &gpu_set, err, sizeof err), PNA_POLLER_ABSENT);
    CHECK(strstr(err, "no GPU source") != NULL);
    CHECK(state == NULL);
    /* nvidia-smi present but no NVIDIA driver loaded (/proc/driver/nvidia): still off */
    char script[4096];
    const char *top = getenv("top_srcdir");
    snprintf(script, sizeof script, "%s/tests/nvml/fake-nvidia-smi", top ? top : ".");
    gpu_set.nvidia_smi = script;
    CHECK_INT(pna_gpu_poller.init(&state, &cfg, &gpu_set, err, sizeof err), PNA_POLLER_ABSENT);
    CHECK_INT(drain().n, 0);
}

static void test_nvml_and_amd(void)
{
    struct pna_config cfg;
    base_config(&cfg);
    gpu_set.nvml_library = lib;
    cfg.roots.sysfs = amd_sysfs;
    write_file(ctl, "");
    void *state = NULL;
    char err[300] = "";
    CHECK_INT(pna_gpu_poller.init(&state, &cfg, &gpu_set, err, sizeof err), 0);
    if (!state)
        return;
    struct pna_gpu_snap *s = poll_once(state, err, sizeof err);
    CHECK(s != NULL);
    if (s) {
        CHECK_INT(s->count, 3);
        CHECK_U64(s->sources, (1u << PNA_GPU_SRC_NVML) | (1u << PNA_GPU_SRC_AMDGPU_SYSFS));
        CHECK_STR(s->nvidia_driver_version, "535.54.03"); /* first file loaded: the A100's */
        CHECK_STR(s->cuda_version, "12.2");
        if (s->count == 3) {
            CHECK_STR(s->gpus[0].pci_bus_id, "0000:00:06.0"); /* H100 */
            CHECK_STR(s->gpus[1].pci_bus_id, "0000:01:00.0"); /* A100 */
            CHECK_STR(s->gpus[2].pci_bus_id, "0000:0c:00.0"); /* RX 6900 XT */
            CHECK_INT(s->gpus[0].vendor, PNA_GPU_VND_NVIDIA);
            CHECK_INT(s->gpus[2].vendor, PNA_GPU_VND_AMD);
            CHECK_STR(s->gpus[0].drm_card, "card1");
            CHECK_STR(s->gpus[0].drm_render, "renderD129");
            CHECK(s->gpus[0].has_drm_card_id && s->gpus[0].drm_card_id == 1);
            CHECK_STR(s->gpus[1].drm_card, "");               /* no by-path entry */
            CHECK_STR(s->gpus[2].drm_card, "card0");
            CHECK_STR(s->gpus[2].drm_render, "renderD128");
            CHECK(pna_gpu_find(s->gpus, s->count, 1u << 8) == &s->gpus[1]);
        }
        CHECK(s->base.destroy != NULL);
        pna_snap_release(&s->base);
    }
    /* nothing happened yet */
    struct seen ev = drain();
    CHECK_INT(ev.n, 0);

    /* A100 (slowdown 89 C) crosses: one event; staying hot, or cooling only
     * within the hysteresis, posts nothing more; a new crossing posts again. */
    static const struct {
        const char *temp;
        int events;
    } steps[] = { { "90", 1 }, { "91", 0 }, { "88", 0 }, { "80", 0 }, { "95", 1 } };
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        char line[128];
        snprintf(line, sizeof line, "set 00000000:01:00.0 temp %s\n", steps[i].temp);
        write_file(ctl, line);
        s = poll_once(state, err, sizeof err);
        CHECK(s != NULL);
        if (s)
            pna_snap_release(&s->base);
        ev = drain();
        CHECK_INT(count_type(&ev, PNA_EV_GPU_THERMAL), steps[i].events);
        const struct pna_event *t = find_type(&ev, PNA_EV_GPU_THERMAL);
        if (t) {
            CHECK_INT(t->severity, PNA_SEV_WARNING);
            CHECK_U64(t->u.gpu.index, 1u << 8);
            CHECK_STR(t->u.gpu.uuid, "GPU-513536b6-7d19-9063-b049-1e69664bb298");
            CHECK_INT(t->u.gpu.threshold_c, 89);
            CHECK_INT(t->u.gpu.temperature_c, atoi(steps[i].temp));
            CHECK_STR(t->subject, "gpu 0000:01:00.0");
            CHECK_STR(t->u.gpu.pci_bus_id, "0000:01:00.0");
        }
    }

    /* an XID on the H100 reaches the queue from the listener thread */
    write_file(ctl, "xid 00000000:00:06.0 48\n");
    const struct pna_event *x = NULL;
    for (int i = 0; i < 150 && !x; i++) {
        usleep(20000);
        ev = drain();
        x = find_type(&ev, PNA_EV_GPU_XID);
    }
    CHECK(x != NULL);
    if (x) {
        CHECK_U64(x->u.gpu.xid, 48);
        CHECK_U64(x->u.gpu.index, 6u << 3);
        CHECK_STR(x->u.gpu.pci_bus_id, "0000:00:06.0");
        CHECK_INT(x->severity, PNA_SEV_CRITICAL); /* 48: double-bit ECC */
        CHECK_STR(x->u.gpu.uuid, "GPU-9523b415-042d-2522-6d49-eb87275e096c");
    }

    /* the next snapshot counts it on the GPU's row */
    s = poll_once(state, err, sizeof err);
    CHECK(s != NULL);
    if (s) {
        const struct pna_gpu *h = pna_gpu_find(s->gpus, s->count, 6u << 3);
        CHECK(h && h->has_xid && h->xid_errors == 1 && h->last_xid == 48);
        const struct pna_gpu *a = pna_gpu_find(s->gpus, s->count, 1u << 8);
        CHECK(a && a->has_xid && a->xid_errors == 0 && a->last_xid == 0);
        const struct pna_gpu *amd = pna_gpu_find(s->gpus, s->count, 0x0cu << 8);
        CHECK(amd && !amd->has_xid);
        pna_snap_release(&s->base);
    }
    drain();

    /* NVML says GPU_IS_LOST for the A100: one event, the row stays, marked */
    for (int round = 0; round < 2; round++) {
        write_file(ctl, "xid 00000000:00:06.0 48\nlost 00000000:01:00.0\n");
        s = poll_once(state, err, sizeof err);
        CHECK(s != NULL);
        if (s) {
            const struct pna_gpu *a = pna_gpu_find(s->gpus, s->count, 1u << 8);
            CHECK(a && a->lost && strcmp(a->uuid, "GPU-513536b6-7d19-9063-b049-1e69664bb298") == 0);
            pna_snap_release(&s->base);
        }
        ev = drain();
        CHECK_INT(count_type(&ev, PNA_EV_GPU_LOST), round == 0 ? 1 : 0);
        CHECK_INT(count_type(&ev, PNA_EV_GPU_THERMAL), 0);
        if (round == 0 && find_type(&ev, PNA_EV_GPU_LOST)) {
            CHECK_INT(find_type(&ev, PNA_EV_GPU_LOST)->severity, PNA_SEV_CRITICAL);
            CHECK_U64(find_type(&ev, PNA_EV_GPU_LOST)->u.gpu.index, 1u << 8);
        }
    }

    /* the H100 disappears from enumeration: one event, its row is gone */
    write_file(ctl, "xid 00000000:00:06.0 48\nlost 00000000:01:00.0\ngone 00000000:00:06.0\n");
    s = poll_once(state, err, sizeof err);
    CHECK(s != NULL);
    if (s) {
        CHECK_INT(s->count, 2);
        CHECK(pna_gpu_find(s->gpus, s->count, 6u << 3) == NULL);
        pna_snap_release(&s->base);
    }
    ev = drain();
    CHECK_INT(count_type(&ev, PNA_EV_GPU_LOST), 1);
    const struct pna_event *l = find_type(&ev, PNA_EV_GPU_LOST);
    if (l) {
        CHECK_U64(l->u.gpu.index, 6u << 3);
        CHECK_STR(l->u.gpu.uuid, "GPU-9523b415-042d-2522-6d49-eb87275e096c");
        CHECK(strstr(l->text, "disappeared") != NULL);
    }
    s = poll_once(state, err, sizeof err);
    if (s)
        pna_snap_release(&s->base);
    ev = drain();
    CHECK_INT(count_type(&ev, PNA_EV_GPU_LOST), 0);

    pna_gpu_poller.fini(state);
    write_file(ctl, "");
}

/* A configured threshold overrides the GPU's own. */
static void test_configured_threshold(void)
{
    struct pna_config cfg;
    base_config(&cfg);
    gpu_set.nvml_library = lib;
    gpu_set.temp_threshold_c = 30; /* the H100 is at 35 C */
    write_file(ctl, "");
    void *state = NULL;
    char err[300];
    CHECK_INT(pna_gpu_poller.init(&state, &cfg, &gpu_set, err, sizeof err), 0);
    if (!state)
        return;
    struct pna_gpu_snap *s = poll_once(state, err, sizeof err);
    if (s)
        pna_snap_release(&s->base);
    struct seen ev = drain();
    CHECK_INT(count_type(&ev, PNA_EV_GPU_THERMAL), 1); /* H100 35 >= 30; A100 27 < 30 */
    const struct pna_event *t = find_type(&ev, PNA_EV_GPU_THERMAL);
    CHECK(t && t->u.gpu.index == (6u << 3) && t->u.gpu.threshold_c == 30);
    pna_gpu_poller.fini(state);
}

/* NVML unavailable, nvidia-smi there with the driver loaded: the fallback. */
static void test_nvsmi_fallback(void)
{
    struct pna_config cfg;
    base_config(&cfg);
    char p[4200], script[4096], xml[4096];
    const char *top = getenv("top_srcdir");
    snprintf(script, sizeof script, "%s/tests/nvml/fake-nvidia-smi", top ? top : ".");
    snprintf(xml, sizeof xml, "%s/nvidia/tesla-t4-nvidia-smi-q-x.xml", unit_fixtures());
    setenv("PNA_FAKE_NVSMI_XML", xml, 1);
    snprintf(p, sizeof p, "%s/driver", procfs);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/driver/nvidia", procfs);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/driver/nvidia/version", procfs);
    write_file(p, "NVRM version: NVIDIA UNIX x86_64 Kernel Module  515.105.01\n");
    cfg.roots.procfs = procfs;
    gpu_set.nvidia_smi = script;
    gpu_set.nvidia_smi_timeout_ms = 3000;
    void *state = NULL;
    char err[300];
    CHECK_INT(pna_gpu_poller.init(&state, &cfg, &gpu_set, err, sizeof err), 0);
    if (!state)
        return;
    struct pna_gpu_snap *s = poll_once(state, err, sizeof err);
    CHECK(s != NULL);
    if (s) {
        CHECK_INT(s->count, 1);
        CHECK_U64(s->sources, 1u << PNA_GPU_SRC_NVIDIA_SMI);
        CHECK_STR(s->nvidia_driver_version, "515.105.01");
        if (s->count)
            CHECK_STR(s->gpus[0].name, "Tesla T4");
        pna_snap_release(&s->base);
    }
    /* The recorded T4 trained its PCIe link at x8 of x16: a warning from the
     * first poll, with its reason. */
    struct seen first = drain();
    CHECK_INT(count_type(&first, PNA_EV_GPU_HEALTH), 1);
    const struct pna_event *h = find_type(&first, PNA_EV_GPU_HEALTH);
    CHECK(h && h->u.gpu.health == PNA_VERDICT_WARNING && h->severity == PNA_SEV_WARNING);
    CHECK(h && strcmp(h->u.gpu.reason, "PCIe link trained at x8 of x16") == 0);
    /* nvidia-smi failing fails the poll (the core keeps the last snapshot) */
    setenv("PNA_FAKE_NVSMI_EXIT", "6", 1);
    err[0] = '\0';
    CHECK(poll_once(state, err, sizeof err) == NULL);
    CHECK(strstr(err, "status 6") != NULL);
    unsetenv("PNA_FAKE_NVSMI_EXIT");
    CHECK_INT(drain().n, 0); /* a failed poll says nothing about the GPUs */
    pna_gpu_poller.fini(state);
}

static void test_thermal_state(void)
{
    struct pna_gpu g;
    memset(&g, 0, sizeof g);
    int32_t lim = 0;
    CHECK_INT(pna_gpu_thermal_state(&g, 0, false, &lim), -1); /* nothing known */
    g.has_temp = true;
    g.temp_c = 80;
    CHECK_INT(pna_gpu_thermal_state(&g, 0, false, &lim), -1);
    CHECK_INT(pna_gpu_thermal_state(&g, 80, false, &lim), 1);
    CHECK_INT(lim, 80);
    g.has_temp_slowdown = true;
    g.temp_slowdown_c = 85;
    CHECK_INT(pna_gpu_thermal_state(&g, 0, false, &lim), 0);
    CHECK_INT(pna_gpu_thermal_state(&g, 0, true, &lim), 0);  /* 80 < 85 - 2 */
    g.temp_c = 84;
    CHECK_INT(pna_gpu_thermal_state(&g, 0, true, &lim), 1);  /* within the hysteresis */
    CHECK_INT(pna_gpu_thermal_state(&g, 0, false, &lim), 0);
    /* nvidia-smi v13: margins below T.Limit (H100 file: 52 now, slowdown at -2) */
    memset(&g, 0, sizeof g);
    g.has_temp = true;
    g.temp_c = 35;
    g.has_tlimit = true;
    g.temp_tlimit_c = 52;
    g.temp_slowdown_tlimit_c = -2;
    CHECK_INT(pna_gpu_thermal_state(&g, 0, false, &lim), 0);
    CHECK_INT(lim, -2);
    g.temp_tlimit_c = -3;
    CHECK_INT(pna_gpu_thermal_state(&g, 0, false, &lim), 1);
    g.lost = true;
    CHECK_INT(pna_gpu_thermal_state(&g, 0, false, &lim), -1);
}

static void cleanup(void)
{
    char cmd[8400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s' '%s' '%s'", devfs, emptydir, procfs, ctl);
    CHECK_INT(system(cmd), 0);
    pna_events_shutdown();
}

int main(void)
{
    setup();
    test_registry_entry();
    test_thermal_state();
    test_cpu_only();
    if (access(lib, R_OK) == 0) {
        test_nvml_and_amd();
        test_configured_threshold();
    } else {
        fprintf(stderr, "%s not built\n", lib);
        CHECK(0);
    }
    test_nvsmi_fallback();
    cleanup();
    UNIT_END();
}
