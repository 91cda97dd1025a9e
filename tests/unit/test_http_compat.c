/* test_http_compat.c -- prometheusCompat's mapping tables (http/render/compat_*.c):
 * every line names a descriptor the model has (or, marked pending, one it
 * does not have yet), and on a fixture view (three NVIDIA GPUs read from
 * nvidia-smi XML, one AMD GPU, a pod holding one GPU of each vendor) every
 * compat sample equals its descriptor's value after the line's conversion,
 * and the ones that mirror a primus family equal that family's sample after
 * the unit change; the label sets are the exporters'; without the token no
 * compat name is served. */
#include "pna_autoconf.h"
#include "sources/gpu/nvsmi.h"
#include "util/fileio.h"
#include "core/config.h"
#include "http/render/compat.h"
#include "model/containers.h"
#include "model/gpu/gpu.h"
#include "model/metric_tables.h"
#include "unit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NOW_MS 1795000000000LL

static const struct pna_compat_exporter *const exporters[] = { &pna_compat_dcgm, &pna_compat_amd };
#define N_EXPORTERS (sizeof exporters / sizeof exporters[0])

/* ---- the view ---------------------------------------------------------------- */

struct fixture {
    struct pna_gpu_snap gpu;
    struct pna_gpu_list list;
    struct pna_containers_snap containers;
    struct pna_container rows[2];
    struct pna_container_device devs[2];
    struct pna_http_view v;
};

static bool load_nvidia(struct fixture *f)
{
    static const char *const files[] = {
        "h100-nvidia-smi-q-x.xml", "a100-sxm4-80gb-nvidia-smi-q-x.xml", "tesla-t4-nvidia-smi-q-x.xml",
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char path[1024], err[256];
        size_t len;
        snprintf(path, sizeof path, "%s/nvidia/%s", unit_fixtures(), files[i]);
        char *xml = NULL;
        if (pna_read_alloc(path, 1 << 20, &xml, &len) != 0)
            return false;
        int rc = pna_nvsmi_parse(xml, len, &f->list, f->gpu.nvidia_driver_version,
                                 sizeof f->gpu.nvidia_driver_version, f->gpu.cuda_version,
                                 sizeof f->gpu.cuda_version, err, sizeof err);
        free(xml);
        if (rc != 0)
            return false;
        /* one NVML enumeration numbers them 0..N-1, in the files' order */
        f->list.gpus[f->list.count - 1].has_vendor_index = true;
        f->list.gpus[f->list.count - 1].vendor_index = (uint32_t)i;
    }
    return true;
}

/* An AMD GPU whose figures are all different from each other. */
static void add_amd(struct fixture *f)
{
    struct pna_gpu *g = pna_gpu_list_add(&f->list);
    g->vendor = PNA_GPU_VND_AMD;
    g->source = PNA_GPU_SRC_AMDGPU_SYSFS;
    pna_gpu_set_pci(g, "0000:c1:00.0");
    g->has_pci_ids = true;
    g->pci_vendor_id = 0x1002;
    g->pci_device_id = 0x74a1;
    snprintf(g->name, sizeof g->name, "AMD Instinct MI300X");
    snprintf(g->uuid, sizeof g->uuid, "0x5a1b2c3d4e5f6071");
    snprintf(g->serial, sizeof g->serial, "692251001124");
    snprintf(g->vbios, sizeof g->vbios, "113-M3000100-102");
    snprintf(g->driver_version, sizeof g->driver_version, "6.8.5");
    g->has_util_gpu = g->has_util_mem = true;
    g->util_gpu_pct = 37;
    g->util_mem_pct = 12;
    g->has_mem_total = g->has_mem_used = g->has_mem_free = true;
    g->mem_total_bytes = 206141652992ULL;
    g->mem_used_bytes = 3221225472ULL + 12345;   /* not whole MiB: truncated */
    g->mem_free_bytes = g->mem_total_bytes - g->mem_used_bytes;
    g->has_temp = g->has_temp_hotspot = g->has_temp_mem = true;
    g->temp_c = 41;
    g->temp_hotspot_c = 48;
    g->temp_mem_c = 44;
    g->has_power = true;
    g->power_mw = 173250;
    g->has_energy = true;
    g->energy_mj = 9876543210ULL;
    g->has_clock_sm = g->has_clock_mem = true;
    g->clock_sm_mhz = 2100;
    g->clock_mem_mhz = 1300;
    g->has_pcie_replay = true;
    g->pcie_replay = 3;
    g->has_ecc = true;
    g->ecc_corrected = 5;
    g->ecc_uncorrected = 1;
}

/* Container "trainer" of pod ml/llm-0 holds the GPU at INDEX. */
static void add_holder(struct fixture *f, uint32_t index)
{
    struct pna_container *c = &f->rows[0];
    pna_container_init(c);
    c->id = "4c1f7d5ab4e6d9d55a0cd0b7ff81f0ddc3a1c2e0c7b0f1a2b3c4d5e6f7a8b9c0";
    c->name = "trainer";
    c->pod_name = "llm-0";
    c->pod_namespace = "ml";
    c->runtime = PNA_RUNTIME_CONTAINERD;
    c->state = PNA_CSTATE_RUNNING;
    c->dev_first = 0;
    c->dev_count = 1;
    c->gpu_count = 1;
    f->devs[0] = (struct pna_container_device){ .kind = PNA_DEV_GPU, .family = PNA_DEVF_DRM_RENDER,
                                                .type = 'c', .has_numbers = true, .major = 226,
                                                .minor = 128, .unit = 128, .gpu_index = index };
    snprintf(f->devs[0].path, sizeof f->devs[0].path, "/dev/dri/renderD128");
    f->containers.set.rows = f->rows;
    f->containers.set.count = 1;
    f->containers.set.devs = f->devs;
    f->containers.set.dev_count = 1;
}

static const struct pna_gpu *find_vendor(const struct fixture *f, enum pna_gpu_vendor vendor)
{
    for (size_t i = 0; i < f->gpu.count; i++)
        if (f->gpu.gpus[i].vendor == vendor)
            return &f->gpu.gpus[i];
    return NULL;
}

static bool load(struct fixture *f, unsigned compat)
{
    memset(f, 0, sizeof *f);
    if (!load_nvidia(f))
        return false;
    add_amd(f);
    pna_gpu_list_sort(&f->list);
    f->gpu.gpus = f->list.gpus;
    f->gpu.count = f->list.count;
    add_holder(f, find_vendor(f, PNA_GPU_VND_AMD)->index);
    struct pna_http_view *v = &f->v;
    v->base.now_ms = NOW_MS;
    v->base.snap[PNA_DOM_GPU] = &f->gpu.base;
    v->base.snap[PNA_DOM_CONTAINERS] = &f->containers.base;
    pna_http_view_complete(v, "gpu-node-01");
    v->compat = compat;
    return true;
}

static void unload(struct fixture *f)
{
    pna_gpu_list_free(&f->list);
}

static char *render(const struct fixture *f, size_t *errors)
{
    struct pna_buf b;
    pna_buf_init(&b);
    pna_buf_putc(&b, '\n');   /* every sample line starts after a '\n' */
    *errors = pna_metrics_render(&b, &f->v);
    return pna_buf_steal(&b, NULL);
}

/* ---- reading the exposition ------------------------------------------------------ */

/* The line of family NAME whose labels hold every one of the NEED strings
 * (label="value", written out), or NULL. */
static const char *find_line(const char *text, const char *name, const char *const *need, size_t n,
                             char *line, size_t cap)
{
    char key[256];
    snprintf(key, sizeof key, "\n%s{", name);
    for (const char *p = strstr(text, key); p; p = strstr(p + 1, key)) {
        size_t len = strcspn(p + 1, "\n");
        snprintf(line, cap, "%.*s", (int)len, p + 1);
        size_t k = 0;
        while (k < n && strstr(line, need[k]))
            k++;
        if (k == n)
            return line;
    }
    return NULL;
}

static double line_value(const char *line)
{
    const char *sp = strrchr(line, ' ');
    return sp ? strtod(sp + 1, NULL) : NAN;
}

/* The identity a GPU's compat samples carry: UUID (dcgm) or gpu_uuid (amd). */
static void identity(const struct pna_compat_exporter *e, const struct pna_gpu *g, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s=\"%s\"", e == &pna_compat_dcgm ? "UUID" : "gpu_uuid", g->uuid);
}

/* ---- tests ------------------------------------------------------------------------- */

/* Every line names a descriptor of primusGpuTable, a number (not text); a
 * pending line one the model does not have yet. */
static void test_mapping_resolves(void)
{
    for (size_t k = 0; k < N_EXPORTERS; k++) {
        const struct pna_compat_exporter *e = exporters[k];
        CHECK(e->count > 0);
        for (size_t j = 0; j < e->count; j++) {
            const struct pna_compat_map *m = &e->maps[j];
            const struct pna_metric *d = pna_compat_source(m);
            if (m->pending) {
                if (d)
                    fprintf(stderr, "%s: %s now exists: drop the pending mark of %s and check its "
                            "conversion\n", e->name, m->source, m->name);
                CHECK(d == NULL);
                continue;
            }
            if (!d)
                fprintf(stderr, "%s: %s maps %s, which primusGpuTable lacks\n", e->name, m->name,
                        m->source);
            CHECK(d != NULL);
            CHECK(!d || d->syntax != PNA_SYNTAX_TEXT);
            /* the first line of a family says its HELP */
            bool first = j == 0 || strcmp(e->maps[j - 1].name, m->name) != 0;
            CHECK(!first || (m->help && m->help[0]));
        }
    }
}

/* The sample of line M for GPU G, or NAN when there is none. */
static double compat_sample(const char *text, const struct pna_compat_exporter *e,
                            const struct pna_compat_map *m, const struct pna_gpu *g)
{
    char id[128], extra[2][96], line[2048];
    const char *need[3] = { id, extra[0], extra[1] };
    size_t n = 1;
    identity(e, g, id, sizeof id);
    for (size_t k = 0; k < 2 && m->extra[k].name; k++)
        snprintf(extra[n - 1], sizeof extra[0], "%s=\"%s\"", m->extra[k].name, m->extra[k].value), n++;
    return find_line(text, m->name, need, n, line, sizeof line) ? line_value(line) : NAN;
}

/* What the line says the sample is, worked out here in floating point from
 * the descriptor's value: NAN when the descriptor has none. */
static double expected(const struct fixture *f, const struct pna_compat_map *m, const struct pna_gpu *g)
{
    const struct pna_metric *d = pna_compat_source(m);
    struct pna_row row = { .rec = g, .view = &f->v.base, .pos = (size_t)(g - f->gpu.gpus) };
    struct pna_value val;
    pna_metric_value(&pna_gpu_metrics, d, &row, &val);
    if (val.state != PNA_PRESENT)
        return NAN;
    double x = val.is_signed ? (double)val.i : (double)val.u;
    x = trunc(x / ldexp(1.0, m->shift));
    return x * (m->scale.mul ? m->scale.mul : 1) * pow(10.0, m->scale.exp10);
}

static bool close_to(double a, double b)
{
    return fabs(a - b) <= 1e-9 * fmax(1.0, fabs(b));
}

/* Every mapped value of every GPU of the exporter's vendor: the converted
 * descriptor value, or no sample where the descriptor has none. */
static void test_values(void)
{
    struct fixture f;
    CHECK(load(&f, PNA_COMPAT_DCGM | PNA_COMPAT_AMD));
    size_t errors;
    char *text = render(&f, &errors);
    CHECK_INT(errors, 0);
    size_t samples = 0;
    for (size_t k = 0; k < N_EXPORTERS; k++) {
        const struct pna_compat_exporter *e = exporters[k];
        enum pna_gpu_vendor vendor = e == &pna_compat_dcgm ? PNA_GPU_VND_NVIDIA : PNA_GPU_VND_AMD;
        for (size_t j = 0; j < e->count; j++) {
            const struct pna_compat_map *m = &e->maps[j];
            if (!pna_compat_source(m))
                continue;
            for (size_t i = 0; i < f.gpu.count; i++) {
                const struct pna_gpu *g = &f.gpu.gpus[i];
                double got = compat_sample(text, e, m, g), want = expected(&f, m, g);
                if (g->vendor != vendor)
                    want = NAN;   /* another vendor's GPU is not this exporter's */
                bool same = isnan(want) ? isnan(got) : close_to(got, want);
                if (!same)
                    fprintf(stderr, "%s of %s: %g, expected %g\n", m->name, g->pci_bus_id, got, want);
                CHECK(same);
                samples += !isnan(got);
            }
        }
    }
    CHECK(samples >= 40);
    free(text);
    unload(&f);
}

/* A primus family's sample for G (its labels hold uuid="..."). */
static double primus_sample(const char *text, const char *family, const struct pna_gpu *g)
{
    char id[128], line[2048];
    const char *need[1] = { id };
    snprintf(id, sizeof id, "uuid=\"%s\"", g->uuid);
    return find_line(text, family, need, 1, line, sizeof line) ? line_value(line) : NAN;
}

/* The compat names that mirror a primus family equal it after the unit change. */
static void test_against_primus(void)
{
    static const struct {
        const char *compat, *primus;
        double factor;   /* compat = primus x factor */
        bool whole;      /* compat is truncated to an integer (MiB) */
        enum pna_gpu_vendor vendor;
    } pairs[] = {
        { "DCGM_FI_DEV_GPU_TEMP", "primus_gpu_temperature_celsius", 1, false, PNA_GPU_VND_NVIDIA },
        { "DCGM_FI_DEV_POWER_USAGE", "primus_gpu_power_watts", 1, false, PNA_GPU_VND_NVIDIA },
        { "DCGM_FI_DEV_FB_USED", "primus_gpu_memory_used_bytes", 1.0 / 1048576, true, PNA_GPU_VND_NVIDIA },
        { "DCGM_FI_DEV_FB_FREE", "primus_gpu_memory_free_bytes", 1.0 / 1048576, true, PNA_GPU_VND_NVIDIA },
        { "DCGM_FI_DEV_SM_CLOCK", "primus_gpu_sm_clock_hertz", 1e-6, false, PNA_GPU_VND_NVIDIA },
        { "DCGM_FI_DEV_GPU_UTIL", "primus_gpu_utilization_ratio", 100, false, PNA_GPU_VND_NVIDIA },
        { "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "primus_gpu_energy_joules_total", 1000, false,
          PNA_GPU_VND_NVIDIA },
        { "gpu_edge_temperature", "primus_gpu_temperature_celsius", 1, false, PNA_GPU_VND_AMD },
        { "gpu_junction_temperature", "primus_gpu_hotspot_temperature_celsius", 1, false, PNA_GPU_VND_AMD },
        { "gpu_power_usage", "primus_gpu_power_watts", 1, false, PNA_GPU_VND_AMD },
        { "gpu_energy_consumed", "primus_gpu_energy_joules_total", 1e6, false, PNA_GPU_VND_AMD },
        { "gpu_used_vram", "primus_gpu_memory_used_bytes", 1.0 / 1048576, true, PNA_GPU_VND_AMD },
        { "gpu_gfx_activity", "primus_gpu_utilization_ratio", 100, false, PNA_GPU_VND_AMD },
    };
    struct fixture f;
    CHECK(load(&f, PNA_COMPAT_DCGM | PNA_COMPAT_AMD));
    size_t errors, compared = 0;
    char *text = render(&f, &errors);
    for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++) {
        const struct pna_compat_exporter *e = pairs[k].vendor == PNA_GPU_VND_NVIDIA ? &pna_compat_dcgm
                                                                                    : &pna_compat_amd;
        for (size_t i = 0; i < f.gpu.count; i++) {
            const struct pna_gpu *g = &f.gpu.gpus[i];
            if (g->vendor != pairs[k].vendor)
                continue;
            char id[128], line[2048];
            const char *need[1] = { id };
            identity(e, g, id, sizeof id);
            double primus = primus_sample(text, pairs[k].primus, g);
            double want = primus * pairs[k].factor;
            if (pairs[k].whole)
                want = trunc(want);
            double got = find_line(text, pairs[k].compat, need, 1, line, sizeof line) ? line_value(line)
                                                                                       : NAN;
            bool same = isnan(primus) ? isnan(got) : close_to(got, want);
            if (!same)
                fprintf(stderr, "%s of %s: %g, %s says %g\n", pairs[k].compat, g->pci_bus_id, got,
                        pairs[k].primus, want);
            CHECK(same);
            compared += !isnan(primus);
        }
    }
    CHECK(compared >= 15);
    free(text);
    unload(&f);
}

/* The label names of LINE, in order, comma-separated. */
static void label_names(const char *line, char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = '\0';
    const char *p = strchr(line, '{');
    while (p && *p && *p != '}') {
        p++;
        size_t len = strcspn(p, "=");
        n += (size_t)snprintf(buf + n, n < cap ? cap - n : 0, "%s%.*s", n ? "," : "", (int)len, p);
        p = strchr(p, '"');
        p = p ? strchr(p + 1, '"') : NULL;   /* the fixture's values hold no escaped quote */
        if (p)
            p++;
    }
}

static void test_labels(void)
{
    struct fixture f;
    CHECK(load(&f, PNA_COMPAT_DCGM | PNA_COMPAT_AMD));
    size_t errors;
    char *text = render(&f, &errors);
    char line[2048], names[512], id[128];
    const char *need[1] = { id };

    /* an NVIDIA GPU no pod holds: dcgm-exporter's set and spellings */
    const struct pna_gpu *nv = find_vendor(&f, PNA_GPU_VND_NVIDIA);
    identity(&pna_compat_dcgm, nv, id, sizeof id);
    CHECK(find_line(text, "DCGM_FI_DEV_GPU_TEMP", need, 1, line, sizeof line) != NULL);
    label_names(line, names, sizeof names);
    CHECK_STR(names, "gpu,UUID,pci_bus_id,device,modelName,Hostname,DCGM_FI_DRIVER_VERSION");
    char bus[64];
    unsigned dom, b, d, fn;
    CHECK_INT(sscanf(nv->pci_bus_id, "%x:%x:%x.%x", &dom, &b, &d, &fn), 4);
    snprintf(bus, sizeof bus, "pci_bus_id=\"%08X:%02X:%02X.%X\"", dom, b, d, fn);
    CHECK(strstr(line, bus) != NULL);
    snprintf(bus, sizeof bus, "device=\"nvidia%u\"", (unsigned)nv->minor);
    CHECK(nv->has_minor && strstr(line, bus) != NULL);
    CHECK(strstr(line, "Hostname=\"gpu-node-01\"") != NULL);
    snprintf(bus, sizeof bus, "gpu=\"%u\"", (unsigned)nv->vendor_index);
    CHECK(strstr(line, bus) != NULL);
    CHECK(strstr(text, "# TYPE DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS counter\n") != NULL);
    CHECK(strstr(text, "# HELP DCGM_FI_DEV_FB_USED Framebuffer memory used (in MiB).\n") != NULL);

    /* the AMD GPU, held by a pod: the exporter's lower-case names, holder last */
    const struct pna_gpu *amd = find_vendor(&f, PNA_GPU_VND_AMD);
    identity(&pna_compat_amd, amd, id, sizeof id);
    CHECK(find_line(text, "gpu_edge_temperature", need, 1, line, sizeof line) != NULL);
    label_names(line, names, sizeof names);
    CHECK_STR(names, "card_model,card_series,driver_version,gpu_id,gpu_uuid,hostname,serial_number,"
                     "vbios_version,container,namespace,pod");
    CHECK(strstr(line, "card_model=\"0x74a1\"") && strstr(line, "container=\"trainer\"") &&
          strstr(line, "namespace=\"ml\"") && strstr(line, "pod=\"llm-0\""));
    CHECK(strstr(text, "\ngpu_nodes_total{hostname=\"gpu-node-01\"} 1\n") != NULL);
    CHECK(strstr(text, "clock_index=\"0\",clock_type=\"system\"} 2100\n") != NULL);
    free(text);
    unload(&f);
}

/* Without the token, no compat name; each word only its own. */
static void test_off(void)
{
    struct fixture f;
    size_t errors;
    CHECK(load(&f, 0));
    char *text = render(&f, &errors);
    CHECK(strstr(text, "DCGM_") == NULL);
    CHECK(strstr(text, "\ngpu_gfx_activity") == NULL);
    free(text);
    unload(&f);
    CHECK(load(&f, PNA_COMPAT_AMD));
    text = render(&f, &errors);
    CHECK(strstr(text, "DCGM_") == NULL);
    CHECK(strstr(text, "\ngpu_gfx_activity{") != NULL);
    free(text);
    unload(&f);
    CHECK(load(&f, PNA_COMPAT_DCGM));
    text = render(&f, &errors);
    CHECK(strstr(text, "\nDCGM_FI_DEV_GPU_UTIL{") != NULL);
    CHECK(strstr(text, "\ngpu_gfx_activity") == NULL);
    free(text);
    unload(&f);
}

int main(void)
{
    test_mapping_resolves();
    test_values();
    test_against_primus();
    test_labels();
    test_off();
    UNIT_END();
}
