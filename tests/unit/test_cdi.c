/* test_cdi.c -- CDI spec files (the real nvidia-ctk spec, a JSON spec, a
 * malformed one, directory precedence), the cdi.k8s.io/ annotations and
 * NVIDIA_VISIBLE_DEVICES of an OCI spec, and which source a device row names
 * when several found it. */
#include "pna_autoconf.h"
#include "sources/containers/cdi.h"
#include "sources/containers/devmap.h"
#include "sources/containers/oci_spec.h"
#include "model/containers.h"
#include "model/gpu/gpu.h"
#include "core/roots.h"
#include "containers_testutil.h"

#include <sys/time.h>

static char tmp[] = "/tmp/pna-cdi-XXXXXX";

static const char *const nvidia_ctk = "cdi/nvidia-ctk-1.17.8-driver-575.64.03-1gpu.yaml";

static void check_paths(const struct pna_cdi_node **nodes, int n, const char *const *want,
                        int nwant)
{
    CHECK_INT(n, nwant);
    for (int i = 0; i < n && i < nwant; i++)
        CHECK_STR(nodes[i]->path, want[i]);
}

/* nvidia-ctk's spec: spec-level nodes (modeset, uvm, uvm-tools, ctl) plus each
 * device's own (nvidia0, card1, renderD128); "0", the UUID and "all" name the
 * same GPU. */
static void test_real_spec(void)
{
    size_t len;
    char *text = tt_fixture(nvidia_ctk, &len);
    struct pna_cdi_spec spec;
    char err[160] = "";
    CHECK_INT(pna_cdi_parse(text, len, &spec, err, sizeof err), 0);
    CHECK_STR(spec.kind, "nvidia.com/gpu");
    CHECK_INT((int)spec.ndevs, 3);
    CHECK_INT((int)spec.ncommon, 4);
    static const char *const want[] = {
        "/dev/nvidia-modeset", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools", "/dev/nvidiactl",
        "/dev/nvidia0", "/dev/dri/card1", "/dev/dri/renderD128",
    };
    struct pna_cdi_registry *reg = pna_cdi_registry_new();
    CHECK_INT(pna_cdi_registry_add(reg, &spec), 0);
    const struct pna_cdi_node *nodes[PNA_CDI_MAX_NODES];
    const char *names[] = { "nvidia.com/gpu=0", "nvidia.com/gpu=GPU-520e01f2-cf30-6396-abef-e8e9a5233b0e",
                            "nvidia.com/gpu=all" };
    for (size_t i = 0; i < 3; i++) {
        int n = pna_cdi_resolve(reg, names[i], nodes, PNA_CDI_MAX_NODES);
        check_paths(nodes, n, want, 7);
        CHECK(n > 4 && !nodes[4]->has_numbers && nodes[4]->host_path[0] == '\0');
    }
    CHECK_INT(pna_cdi_resolve(reg, "nvidia.com/gpu=1", nodes, PNA_CDI_MAX_NODES), -1);
    CHECK_INT(pna_cdi_resolve(reg, "amd.com/gpu=0", nodes, PNA_CDI_MAX_NODES), -1);
    CHECK_INT(pna_cdi_resolve(reg, "nvidia.com/gpu", nodes, PNA_CDI_MAX_NODES), -1);
    CHECK_INT(pna_cdi_resolve(reg, "gpu=0", nodes, PNA_CDI_MAX_NODES), -1);
    CHECK_INT(pna_cdi_resolve(reg, "nvidia.com/gpu/x=0", nodes, PNA_CDI_MAX_NODES), -1);
    CHECK_INT(pna_cdi_resolve(reg, "nvidia.com/gpu=0", nodes, 2), 2);   /* capped */
    pna_cdi_registry_free(reg);
    free(text);
}

/* Built from the CDI specification (SPEC.md, "CDI JSON Specification"): a
 * JSON spec with numbered nodes, a host path and a spec-level node. */
static const char json_spec[] =
    "{\n"
    "\t\"cdiVersion\": \"0.6.0\",\n"
    "\t\"kind\": \"vendor.com/device\",\n"
    "\t\"devices\": [\n"
    "\t\t{ \"name\": \"myDevice\", \"containerEdits\": { \"deviceNodes\": [\n"
    "\t\t\t{ \"path\": \"/dev/card1\", \"hostPath\": \"/dev/dri/card1\", \"type\": \"c\",\n"
    "\t\t\t  \"major\": 226, \"minor\": 1 },\n"
    "\t\t\t{ \"path\": \"/dev/card-render1\", \"type\": \"c\", \"major\": 226, \"minor\": 129 }\n"
    "\t\t] } }\n"
    "\t],\n"
    "\t\"containerEdits\": { \"deviceNodes\": [ { \"path\": \"/dev/vendorctl\" } ],\n"
    "\t\t\"env\": [ \"FOO=VALID_SPEC\" ] }\n"
    "}\n";

static void test_json_spec(void)
{
    struct pna_cdi_spec spec;
    char err[160] = "";
    CHECK_INT(pna_cdi_parse(json_spec, strlen(json_spec), &spec, err, sizeof err), 0);
    if (err[0])
        fprintf(stderr, "json: %s\n", err);
    CHECK_STR(spec.kind, "vendor.com/device");
    const struct pna_cdi_node *nodes[8];
    int n = pna_cdi_spec_nodes(&spec, "vendor.com/device", "myDevice", nodes, 8);
    static const char *const want[] = { "/dev/vendorctl", "/dev/card1", "/dev/card-render1" };
    check_paths(nodes, n, want, 3);
    if (n == 3) {
        CHECK_STR(nodes[1]->host_path, "/dev/dri/card1");
        CHECK(nodes[1]->has_numbers && nodes[1]->major == 226 && nodes[1]->minor == 1);
        CHECK_INT(nodes[1]->type, 'c');
        CHECK(nodes[2]->has_numbers && nodes[2]->minor == 129);
        CHECK(!nodes[0]->has_numbers);
    }
    pna_cdi_spec_free(&spec);
}

static void test_malformed(void)
{
    static const char *const bad[] = {
        "kind: vendor.com/x\ndevices: [ {name: a",          /* YAML error */
        "- just\n- a list\n",                                /* not a mapping */
        "devices: []\n",                                     /* no kind */
        "kind: noslash\ndevices: []\n",                      /* kind without class */
        "kind: vendor.com/x\n",                              /* no devices */
        "kind: vendor.com/x\ndevices:\n- containerEdits: {}\n",  /* device without a name */
        "{\"kind\": \"vendor.com/x\", \"devices\": [",       /* JSON cut short */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct pna_cdi_spec spec;
        char err[160] = "";
        CHECK_INT(pna_cdi_parse(bad[i], strlen(bad[i]), &spec, err, sizeof err), -1);
        CHECK(err[0] != '\0');
        CHECK(spec.devs == NULL && spec.nodes == NULL);
    }
    /* Too many devices. */
    size_t cap = 64 + (PNA_CDI_MAX_DEVICES + 1) * 16;
    char *many = malloc(cap);
    size_t off = (size_t)snprintf(many, cap, "kind: v.com/c\ndevices:\n");
    for (int i = 0; i <= PNA_CDI_MAX_DEVICES; i++)
        off += (size_t)snprintf(many + off, cap - off, "- name: d%d\n", i);
    struct pna_cdi_spec spec;
    char err[160];
    CHECK_INT(pna_cdi_parse(many, off, &spec, err, sizeof err), -1);
    free(many);
}

static void touch_at(const char *root, const char *rel, time_t t)
{
    char p[1024];
    snprintf(p, sizeof p, "%s/%s", root, rel);
    struct timeval tv[2] = { { t, 0 }, { t, 0 } };
    utimes(p, tv);
}

/* /etc/cdi then /var/run/cdi: the later directory wins for the same kind and
 * device; a malformed file is skipped and reported, the others still used;
 * a changed file is read again, an unchanged one is not. */
static void test_registry(void)
{
    char root[512];
    snprintf(root, sizeof root, "%s/reg", tmp);
    size_t len;
    char *text = tt_fixture(nvidia_ctk, &len);
    tt_write(root, "etc/cdi/nvidia.yaml", text);
    free(text);
    tt_write(root, "etc/cdi/vendor.yaml",
             "kind: vendor.com/dev\ndevices:\n- name: x\n  containerEdits:\n    deviceNodes:\n"
             "    - path: /dev/foo0\n- name: y\n  containerEdits:\n    deviceNodes:\n"
             "    - path: /dev/bar0\n");
    tt_write(root, "var/run/cdi/vendor.json",
             "{\"kind\":\"vendor.com/dev\",\"devices\":[{\"name\":\"x\",\"containerEdits\":"
             "{\"deviceNodes\":[{\"path\":\"/dev/foo1\"}]}}]}");
    tt_write(root, "var/run/cdi/broken.yaml", "kind: [\n");
    tt_write(root, "var/run/cdi/notes.txt", "not a spec");
    struct pna_roots roots = { root, root, root, root };
    struct pna_cdi_registry *reg = pna_cdi_registry_new();
    pna_cdi_registry_refresh(reg, &roots);
    const char *why;
    CHECK_INT((int)pna_cdi_registry_error(reg, &why), 1);
    CHECK(strstr(why, "broken.yaml") != NULL);
    const struct pna_cdi_node *nodes[8];
    CHECK_INT(pna_cdi_resolve(reg, "vendor.com/dev=x", nodes, 8), 1);
    CHECK_STR(nodes[0]->path, "/dev/foo1");            /* /var/run/cdi overrides /etc/cdi */
    CHECK_INT(pna_cdi_resolve(reg, "vendor.com/dev=y", nodes, 8), 1);
    CHECK_STR(nodes[0]->path, "/dev/bar0");            /* only /etc/cdi has it */
    CHECK_INT(pna_cdi_resolve(reg, "nvidia.com/gpu=0", nodes, 8), 7);

    /* The broken file fixed, the JSON one removed. */
    tt_write(root, "var/run/cdi/broken.yaml",
             "kind: other.com/c\ndevices:\n- name: z\n  containerEdits:\n    deviceNodes:\n"
             "    - path: /dev/z9\n      major: 10\n      minor: 9\n      type: c\n");
    touch_at(root, "var/run/cdi/broken.yaml", 1000000);
    char p[1024];
    snprintf(p, sizeof p, "%s/var/run/cdi/vendor.json", root);
    unlink(p);
    pna_cdi_registry_refresh(reg, &roots);
    CHECK_INT((int)pna_cdi_registry_error(reg, &why), 0);
    CHECK_INT(pna_cdi_resolve(reg, "vendor.com/dev=x", nodes, 8), 1);
    CHECK_STR(nodes[0]->path, "/dev/foo0");
    CHECK_INT(pna_cdi_resolve(reg, "other.com/c=z", nodes, 8), 1);
    CHECK(nodes[0]->has_numbers && nodes[0]->major == 10 && nodes[0]->minor == 9);
    pna_cdi_registry_free(reg);
}

/* ---- the OCI spec: cdi.k8s.io/ annotations and NVIDIA_VISIBLE_DEVICES ---------- */

/* Two NVIDIA GPUs whose directory order is not their PCI order: index 0 is
 * 0000:05:00.0 (minor 3), index 1 is 0000:84:00.0 (minor 1). */
static void nvidia_procfs(const char *root)
{
    tt_write(root, "proc/driver/nvidia/gpus/0000:84:00.0/information",
             "Model: \t\t NVIDIA H100 80GB HBM3\nGPU UUID: \t GPU-520e01f2-cf30-6396-abef-e8e9a5233b0e\n"
             "Bus Location: \t 0000:84:00.0\nDevice Minor: \t 1\n");
    tt_write(root, "proc/driver/nvidia/gpus/0000:05:00.0/information",
             "Model: \t\t NVIDIA H100 80GB HBM3\nGPU UUID: \t GPU-3f7a91c2-58e4-4d1b-a69f-2c7e05b8d413\n"
             "Bus Location: \t 0000:05:00.0\nDevice Minor: \t 3\n");
}

static int parse_spec(const char *json, const struct pna_roots *roots,
                      const struct pna_cdi_registry *cdi, struct pna_container_set *set,
                      struct pna_oci_info *info)
{
    char err[200] = "";
    pna_container_set_clear(set);
    int rc = pna_oci_parse(json, strlen(json), "task1", roots, cdi, set, info, err, sizeof err);
    if (rc < 0)
        fprintf(stderr, "parse: %s\n", err);
    return rc;
}

static const struct pna_container_device *find_dev(const struct pna_container_set *set,
                                                   const char *path)
{
    for (size_t i = 0; i < set->dev_count; i++)
        if (strcmp(set->devs[i].path, path) == 0)
            return &set->devs[i];
    return NULL;
}

/* NVIDIA_VISIBLE_DEVICES=VALUE; WANT: the /dev/nvidiaN paths, in order. */
static void env_case(const struct pna_roots *roots, const char *value, const char *const *want,
                     size_t nwant, unsigned unresolved)
{
    char json[512];
    snprintf(json, sizeof json,
             "{\"process\":{\"env\":[\"PATH=/usr/bin\",\"NVIDIA_VISIBLE_DEVICES=%s\","
             "\"SECRET=hunter2\"]}}", value);
    struct pna_container_set set;
    struct pna_oci_info info;
    pna_container_set_init(&set);
    CHECK_INT(parse_spec(json, roots, NULL, &set, &info), 0);
    if (set.dev_count != nwant || info.unresolved != unresolved)
        fprintf(stderr, "NVIDIA_VISIBLE_DEVICES=%s\n", value);
    CHECK_INT((int)set.dev_count, (int)nwant);
    CHECK_INT((int)info.unresolved, (int)unresolved);
    for (size_t i = 0; i < set.dev_count && i < nwant; i++) {
        CHECK_STR(set.devs[i].path, want[i]);
        CHECK_INT(set.devs[i].source, PNA_DEVS_NVIDIA_ENV);
        CHECK_INT(set.devs[i].family, PNA_DEVF_NVIDIA_GPU);
    }
    pna_container_set_free(&set);
}

static void test_nvidia_env(void)
{
    char root[512], proc[600];
    snprintf(root, sizeof root, "%s/nv", tmp);
    nvidia_procfs(root);
    snprintf(proc, sizeof proc, "%s/proc", root);
    struct pna_roots roots = { root, proc, root, root };

    struct pna_nvidia_gpu gpus[4];
    CHECK_INT((int)pna_devmap_nvidia_gpus(&roots, gpus, 4), 2);
    CHECK_INT(gpus[0].minor, 3);
    CHECK_STR(gpus[0].uuid, "GPU-3f7a91c2-58e4-4d1b-a69f-2c7e05b8d413");
    CHECK_INT(gpus[1].minor, 1);

    static const char *const both[] = { "/dev/nvidia3", "/dev/nvidia1" };
    static const char *const second[] = { "/dev/nvidia1" };
    static const char *const first[] = { "/dev/nvidia3" };
    env_case(&roots, "all", both, 2, 0);
    env_case(&roots, "none", NULL, 0, 0);
    env_case(&roots, "void", NULL, 0, 0);
    env_case(&roots, "", NULL, 0, 0);
    env_case(&roots, "1", second, 1, 0);
    env_case(&roots, "0", first, 1, 0);
    env_case(&roots, "0, 1", both, 2, 0);
    env_case(&roots, "1,7", second, 1, 1);                  /* no GPU 7 */
    env_case(&roots, "GPU-520e01f2-cf30-6396-abef-e8e9a5233b0e", second, 1, 0);
    env_case(&roots, "GPU-3f7a91c2-58e4-4d1b-a69f-2c7e05b8d413,GPU-520e01f2-cf30-6396-abef-e8e9a5233b0e",
             both, 2, 0);
    env_case(&roots, "GPU-00000000-0000-0000-0000-000000000000", NULL, 0, 1);   /* unknown UUID */
    env_case(&roots, "MIG-9a3f27d1-0b1c-5e2f-8d4a-6c7b8e9f0a1b", NULL, 0, 1);    /* kept for later */

    /* No NVIDIA_VISIBLE_DEVICES: no device; without roots it is not read. */
    struct pna_container_set set;
    struct pna_oci_info info;
    pna_container_set_init(&set);
    CHECK_INT(parse_spec("{\"process\":{\"env\":[\"NVIDIA_DRIVER_CAPABILITIES=all\"]}}", &roots,
                         NULL, &set, &info), 0);
    CHECK_INT((int)set.dev_count, 0);
    CHECK_INT(parse_spec("{\"process\":{\"env\":[\"NVIDIA_VISIBLE_DEVICES=all\"]}}", NULL, NULL,
                         &set, &info), 0);
    CHECK_INT((int)set.dev_count, 0);

    /* The GPU it is, through devmap's owners: 0000:84:00.0 is minor 1. */
    CHECK_INT(parse_spec("{\"process\":{\"env\":[\"NVIDIA_VISIBLE_DEVICES=1\"]}}", &roots, NULL,
                         &set, &info), 0);
    pna_devmap_owners(&roots, &set);
    CHECK_INT((int)set.dev_count, 1);
    CHECK_INT((int)set.devs[0].gpu_index, (int)pna_gpu_pci_key(0, 0x84, 0, 0));
    CHECK_INT((int)set.rows[0].gpu_count, 1);
    pna_container_set_free(&set);
}

static void test_cdi_annotations(void)
{
    char root[512], proc[600];
    snprintf(root, sizeof root, "%s/oci", tmp);
    nvidia_procfs(root);
    snprintf(proc, sizeof proc, "%s/proc", root);
    struct pna_roots roots = { root, proc, root, root };
    size_t len;
    char *text = tt_fixture(nvidia_ctk, &len);
    tt_write(root, "etc/cdi/nvidia.yaml", text);
    free(text);
    struct pna_cdi_registry *reg = pna_cdi_registry_new();
    pna_cdi_registry_refresh(reg, &roots);

    struct pna_container_set set;
    struct pna_oci_info info;
    pna_container_set_init(&set);
    /* As containerd writes it when it applied the CDI edits itself: the GPU
     * is in linux.devices too (with numbers), and the row says cdi. */
    CHECK_INT(parse_spec("{\"annotations\":{\"cdi.k8s.io/nvidia-device-plugin_x\":"
                         "\"nvidia.com/gpu=0, vendor.com/none=9\",\"other\":\"nvidia.com/gpu=all\"},"
                         "\"linux\":{\"devices\":[{\"path\":\"/dev/nvidia0\",\"type\":\"c\","
                         "\"major\":195,\"minor\":0},{\"path\":\"/dev/fuse\",\"type\":\"c\","
                         "\"major\":10,\"minor\":229}]}}",
                         &roots, reg, &set, &info), 0);
    CHECK_INT((int)info.unresolved, 1);
    CHECK_INT((int)set.dev_count, 8);
    const struct pna_container_device *d = find_dev(&set, "/dev/nvidia0");
    CHECK(d && d->source == PNA_DEVS_CDI && d->has_numbers && d->minor == 0);
    d = find_dev(&set, "/dev/fuse");
    CHECK(d && d->source == PNA_DEVS_SPEC_DEVICE);
    d = find_dev(&set, "/dev/dri/renderD128");
    CHECK(d && d->source == PNA_DEVS_CDI && d->kind == PNA_DEV_GPU &&
          d->family == PNA_DEVF_DRM_RENDER);
    d = find_dev(&set, "/dev/nvidiactl");
    CHECK(d && d->source == PNA_DEVS_CDI && d->family == PNA_DEVF_NVIDIA_CTL);

    /* Without a registry (or an unknown name) nothing is added. */
    CHECK_INT(parse_spec("{\"annotations\":{\"cdi.k8s.io/x\":\"nvidia.com/gpu=0\"}}", &roots, NULL,
                         &set, &info), 0);
    CHECK_INT((int)set.dev_count, 0);
    CHECK_INT((int)info.unresolved, 1);

    /* CDI and NVIDIA_VISIBLE_DEVICES name the same GPU: cdi ranks higher. */
    CHECK_INT(parse_spec("{\"annotations\":{\"cdi.k8s.io/x\":\"nvidia.com/gpu=0\"},"
                         "\"process\":{\"env\":[\"NVIDIA_VISIBLE_DEVICES=all\"]}}",
                         &roots, reg, &set, &info), 0);
    d = find_dev(&set, "/dev/nvidia0");
    CHECK(d && d->source == PNA_DEVS_CDI);
    d = find_dev(&set, "/dev/nvidia1");
    CHECK(d && d->source == PNA_DEVS_NVIDIA_ENV);
    pna_container_set_free(&set);
    pna_cdi_registry_free(reg);
}

/* ---- precedence in the model --------------------------------------------------- */

static void add(struct pna_container_set *set, const char *path, uint8_t source, bool numbers)
{
    struct pna_container_device d = { .type = 'c', .source = source, .has_numbers = numbers,
                                      .major = 195, .minor = 0 };
    snprintf(d.path, sizeof d.path, "%s", path);
    CHECK_INT(pna_container_set_add_device(set, &d), 0);
}

static void test_precedence(void)
{
    CHECK(pna_dev_source_rank(PNA_DEVS_POD_RESOURCES) > pna_dev_source_rank(PNA_DEVS_CDI));
    CHECK(pna_dev_source_rank(PNA_DEVS_CDI) > pna_dev_source_rank(PNA_DEVS_NVIDIA_ENV));
    CHECK(pna_dev_source_rank(PNA_DEVS_NVIDIA_ENV) > pna_dev_source_rank(PNA_DEVS_DOCKER_REQUEST));
    CHECK(pna_dev_source_rank(PNA_DEVS_DOCKER_REQUEST) > pna_dev_source_rank(PNA_DEVS_SPEC_DEVICE));
    CHECK(pna_dev_source_rank(PNA_DEVS_SPEC_DEVICE) > pna_dev_source_rank(PNA_DEVS_CGROUP));
    struct pna_container_set set;
    pna_container_set_init(&set);
    pna_container_set_add(&set);
    add(&set, "/dev/char/195:0", PNA_DEVS_CGROUP, true);
    add(&set, "/dev/nvidia0", PNA_DEVS_SPEC_DEVICE, true);       /* same numbers: raises */
    CHECK_INT((int)set.dev_count, 1);
    CHECK_INT(set.devs[0].source, PNA_DEVS_SPEC_DEVICE);
    CHECK_STR(set.devs[0].path, "/dev/char/195:0");              /* the first row stays */
    add(&set, "/dev/nvidia0", PNA_DEVS_POD_RESOURCES, true);
    add(&set, "/dev/nvidia0", PNA_DEVS_CDI, true);               /* lower: kept */
    CHECK_INT(set.devs[0].source, PNA_DEVS_POD_RESOURCES);
    CHECK_INT((int)set.dev_count, 1);
    /* A row without numbers takes them from the same path found later. */
    add(&set, "/dev/nvidia-uvm", PNA_DEVS_CDI, false);
    struct pna_container_device d = { .type = 'c', .source = PNA_DEVS_CGROUP, .has_numbers = true,
                                      .major = 511, .minor = 0 };
    snprintf(d.path, sizeof d.path, "/dev/nvidia-uvm");
    CHECK_INT(pna_container_set_add_device(&set, &d), 0);
    CHECK_INT((int)set.dev_count, 2);
    CHECK(set.devs[1].has_numbers && set.devs[1].major == 511);
    CHECK_INT(set.devs[1].source, PNA_DEVS_CDI);
    pna_container_set_free(&set);
}

int main(void)
{
    if (!mkdtemp(tmp))
        return 99;
    test_real_spec();
    test_json_spec();
    test_malformed();
    test_registry();
    test_nvidia_env();
    test_cdi_annotations();
    test_precedence();
    tt_rmrf(tmp);
    UNIT_END();
}
