/* test_oci.c -- OCI runtime spec (config.json) to container record: identity
 * from the CRI annotations only, devices from linux.devices and the cgroup
 * allow-list, and nothing from env, args or other annotations. */
#include "pna_autoconf.h"
#include "sources/containers/oci_spec.h"
#include "core/roots.h"
#include "containers_testutil.h"

#include <jansson.h>

static char tmp[] = "/tmp/pna-oci-XXXXXX";

static const struct pna_container *last(const struct pna_container_set *s)
{
    return &s->rows[s->count - 1];
}

/* The spec's reference example: no CRI annotations, two devices, a memory limit. */
static void test_reference_example(void)
{
    size_t len;
    char *text = tt_fixture("containerd/oci-runtime-spec-config-example.json", &len);
    json_t *ref = json_loads(text, 0, NULL);   /* the expected values, read independently */
    json_t *lin = json_object_get(ref, "linux");
    json_t *devs = json_object_get(lin, "devices");

    struct pna_container_set set;
    pna_container_set_init(&set);
    struct pna_oci_info info;
    char err[160] = "";
    CHECK_INT(pna_oci_parse(text, len, "myContainer", NULL, NULL, &set, &info, err, sizeof err), 0);
    CHECK_INT(set.count, 1);
    const struct pna_container *c = last(&set);
    CHECK_STR(c->id, "myContainer");
    CHECK_STR(c->name, "myContainer");      /* no CRI name: the id */
    CHECK_STR(c->pod_name, "");
    CHECK_STR(c->pod_namespace, "");
    CHECK_STR(c->image, "");
    CHECK_INT(c->runtime, PNA_RUNTIME_CONTAINERD);
    CHECK(!info.sandbox);
    CHECK_STR(info.cgroups_path, json_string_value(json_object_get(lin, "cgroupsPath")));
    CHECK(info.has_mem_limit);
    CHECK_U64(info.mem_limit_bytes,
              json_integer_value(json_object_get(json_object_get(json_object_get(lin, "resources"),
                                                                 "memory"), "limit")));
    CHECK(c->has_limit);
    /* linux.devices: both listed; the allow-list repeats them and adds nothing. */
    CHECK_INT(c->dev_count, json_array_size(devs));
    for (size_t i = 0; i < c->dev_count && i < json_array_size(devs); i++) {
        const struct pna_container_device *d = &set.devs[c->dev_first + i];
        json_t *e = json_array_get(devs, i);
        CHECK_STR(d->path, json_string_value(json_object_get(e, "path")));
        CHECK_INT(d->major, json_integer_value(json_object_get(e, "major")));
        CHECK_INT(d->minor, json_integer_value(json_object_get(e, "minor")));
        CHECK_INT(d->type, json_string_value(json_object_get(e, "type"))[0]);
        CHECK_INT(d->kind, PNA_DEV_OTHER);
    }
    /* Nothing of env, args or the com.example annotations reached the record. */
    CHECK(!tt_contains(set.rows, set.count * sizeof *set.rows, "PATH="));
    CHECK(!tt_contains(set.rows, set.count * sizeof *set.rows, "value1"));
    CHECK(!tt_contains(set.rows, set.count * sizeof *set.rows, "TERM=xterm"));
    json_decref(ref);
    free(text);
    pna_container_set_free(&set);
}

/* A Kubernetes container as containerd's CRI plugin writes it, with GPU and
 * RDMA devices and secrets in env, args and a foreign annotation. */
static char *cri_spec(const char *type)
{
    char *text = tt_fixture("containerd/oci-runtime-spec-config-example.json", NULL);
    json_t *root = json_loads(text, 0, NULL);
    free(text);
    json_t *ann = json_object();
    json_object_set_new(ann, "io.kubernetes.cri.container-type", json_string(type));
    json_object_set_new(ann, "io.kubernetes.cri.container-name", json_string("trainer"));
    json_object_set_new(ann, "io.kubernetes.cri.sandbox-name", json_string("llm-train-0"));
    json_object_set_new(ann, "io.kubernetes.cri.sandbox-namespace", json_string("ml"));
    json_object_set_new(ann, "io.kubernetes.cri.sandbox-uid",
                        json_string("0d5d2a4e-3b1c-4f1a-9b0e-6a3e2f6c7d10"));
    json_object_set_new(ann, "io.kubernetes.cri.image-name", json_string("registry.local/train:1.2"));
    json_object_set_new(ann, "vendor.example/api-key", json_string("TOPSECRET-ANNOTATION"));
    json_object_set_new(root, "annotations", ann);
    json_t *proc = json_object_get(root, "process");
    json_array_append_new(json_object_get(proc, "env"), json_string("DB_PASSWORD=TOPSECRET-ENV"));
    json_array_append_new(json_object_get(proc, "args"), json_string("--token=TOPSECRET-ARG"));
    json_t *lin = json_object_get(root, "linux");
    json_t *devs = json_object_get(lin, "devices");   /* keep fuse and sda */
    const char *paths[] = { "/dev/dri/card1", "/dev/dri/renderD128", "/dev/kfd",
                            "/dev/infiniband/uverbs0", "/dev/infiniband/rdma_cm", "/dev/nvidia3" };
    const int majors[] = { 226, 226, 235, 231, 10, 195 }, minors[] = { 1, 128, 0, 192, 58, 3 };
    for (size_t i = 0; i < 6; i++)
        json_array_append_new(devs, json_pack("{s:s,s:s,s:i,s:i}", "path", paths[i], "type", "c",
                                              "major", majors[i], "minor", minors[i]));
    json_t *rules = json_object_get(json_object_get(lin, "resources"), "devices");
    /* An allow-list entry by number only (resolved through sysfs), one already
     * listed, a wildcard, and the default tty rule (not a GPU/RDMA device). */
    json_array_append_new(rules, json_pack("{s:b,s:s,s:i,s:i,s:s}", "allow", 1, "type", "c",
                                           "major", 226, "minor", 129, "access", "rw"));
    json_array_append_new(rules, json_pack("{s:b,s:s,s:i,s:i,s:s}", "allow", 1, "type", "c",
                                           "major", 231, "minor", 192, "access", "rw"));
    json_array_append_new(rules, json_pack("{s:b,s:s,s:i,s:s}", "allow", 1, "type", "c",
                                           "major", 136, "access", "rwm"));
    json_array_append_new(rules, json_pack("{s:b,s:s,s:i,s:i,s:s}", "allow", 1, "type", "c",
                                           "major", 5, "minor", 0, "access", "rwm"));
    char *out = json_dumps(root, JSON_COMPACT);
    json_decref(root);
    return out;
}

static void test_cri_container(void)
{
    char *text = cri_spec("container");
    struct pna_roots roots = { tmp, tmp, tmp, tmp };
    tt_write(tmp, "dev/char/226:129/uevent", "MAJOR=226\nMINOR=129\nDEVNAME=dri/renderD129\nDEVTYPE=drm_minor\n");
    struct pna_container_set set;
    pna_container_set_init(&set);
    struct pna_oci_info info;
    char err[160] = "";
    const char *id = "5f4a1c2b9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b7a6f5e4d3c2b";
    CHECK_INT(pna_oci_parse(text, strlen(text), id, &roots, NULL, &set, &info, err, sizeof err), 0);
    const struct pna_container *c = last(&set);
    CHECK_STR(c->id, id);
    CHECK_STR(c->name, "trainer");
    CHECK_STR(c->pod_name, "llm-train-0");
    CHECK_STR(c->pod_namespace, "ml");
    CHECK_STR(c->pod_uid, "0d5d2a4e-3b1c-4f1a-9b0e-6a3e2f6c7d10");
    CHECK_STR(c->image, "registry.local/train:1.2");
    CHECK(!info.sandbox);
    /* 2 reference devices + 6 passed + renderD129 from the allow-list. */
    CHECK_INT(c->dev_count, 9);
    struct { const char *path; int kind, family, unit; } want[] = {
        { "/dev/fuse", PNA_DEV_OTHER, PNA_DEVF_OTHER, -1 },
        { "/dev/sda", PNA_DEV_OTHER, PNA_DEVF_OTHER, -1 },
        { "/dev/dri/card1", PNA_DEV_GPU, PNA_DEVF_DRM_CARD, 1 },
        { "/dev/dri/renderD128", PNA_DEV_GPU, PNA_DEVF_DRM_RENDER, 128 },
        { "/dev/kfd", PNA_DEV_GPU, PNA_DEVF_KFD, -1 },
        { "/dev/infiniband/uverbs0", PNA_DEV_RDMA, PNA_DEVF_IB_UVERBS, 0 },
        { "/dev/infiniband/rdma_cm", PNA_DEV_RDMA, PNA_DEVF_RDMA_CM, -1 },
        { "/dev/nvidia3", PNA_DEV_GPU, PNA_DEVF_NVIDIA_GPU, 3 },
        { "/dev/dri/renderD129", PNA_DEV_GPU, PNA_DEVF_DRM_RENDER, 129 },
    };
    for (size_t i = 0; i < 9 && i < c->dev_count; i++) {
        const struct pna_container_device *d = &set.devs[c->dev_first + i];
        CHECK_STR(d->path, want[i].path);
        CHECK_INT(d->kind, want[i].kind);
        CHECK_INT(d->family, want[i].family);
        CHECK_INT(d->unit, want[i].unit);
    }
    size_t all = set.count * sizeof *set.rows;
    CHECK(!tt_contains(set.rows, all, "TOPSECRET"));
    CHECK(!tt_contains(set.devs, set.dev_count * sizeof *set.devs, "TOPSECRET"));
    free(text);

    /* The pod's sandbox is flagged so the scan can leave it out. */
    text = cri_spec("sandbox");
    CHECK_INT(pna_oci_parse(text, strlen(text), "sb1", &roots, NULL, &set, &info, err, sizeof err), 0);
    CHECK(info.sandbox);
    free(text);
    pna_container_set_free(&set);
}

static void expect_error(const char *what, const char *text, size_t len)
{
    struct pna_container_set set;
    pna_container_set_init(&set);
    struct pna_oci_info info;
    char err[160] = "";
    int rc = pna_oci_parse(text, len, "bad", NULL, NULL, &set, &info, err, sizeof err);
    if (rc != -1)
        fprintf(stderr, "case %s: rc %d\n", what, rc);
    CHECK_INT(rc, -1);
    CHECK_INT(set.count, 0);
    CHECK(err[0] != '\0' && !strchr(err, '\n'));
    pna_container_set_free(&set);
}

static void test_malformed(void)
{
    size_t len;
    char *text = tt_fixture("containerd/oci-runtime-spec-config-example.json", &len);
    expect_error("truncated", text, len / 2);
    expect_error("empty", "", 0);
    expect_error("array", "[1,2]", 5);
    expect_error("garbage", "\x01\x02not json", 10);
    free(text);

    /* Bigger than the bound: refused without parsing. */
    size_t big = PNA_OCI_MAX_BYTES + 10;
    char *huge = malloc(big);
    memset(huge, ' ', big);
    huge[0] = '{';
    huge[big - 1] = '}';
    expect_error("huge", huge, big);
    free(huge);

    /* Missing and wrongly typed fields are tolerated: a record with what is there. */
    const char *odd[] = {
        "{}",
        "{\"linux\":5,\"annotations\":[]}",
        "{\"linux\":{\"devices\":\"x\",\"resources\":{\"devices\":{},\"memory\":{\"limit\":\"1\"}}}}",
        "{\"linux\":{\"devices\":[{\"path\":7},{\"path\":\"/dev/dri/card0\",\"major\":\"abc\"},{}]}}",
        "{\"annotations\":{\"io.kubernetes.cri.container-name\":123}}",
        "{\"linux\":{\"cgroupsPath\":\"/a/../../etc\",\"resources\":{\"memory\":{\"limit\":-1}}}}",
    };
    for (size_t i = 0; i < sizeof odd / sizeof odd[0]; i++) {
        struct pna_container_set set;
        pna_container_set_init(&set);
        struct pna_oci_info info;
        char err[160] = "";
        CHECK_INT(pna_oci_parse(odd[i], strlen(odd[i]), "odd", NULL, NULL, &set, &info, err, sizeof err), 0);
        CHECK_INT(set.count, 1);
        CHECK(!info.has_mem_limit);
        CHECK_STR(set.rows[0].name, "odd");
        if (i == 3) {
            CHECK_INT(set.rows[0].dev_count, 1);
            CHECK(!set.devs[0].has_numbers);
            CHECK_INT(set.devs[0].kind, PNA_DEV_GPU);
        }
        pna_container_set_free(&set);
    }
}

/* A privileged container gets every host device: the per-container bound holds. */
static void test_device_bound(void)
{
    json_t *root = json_object(), *devs = json_array();
    for (int i = 0; i < 300; i++) {
        char p[64];
        snprintf(p, sizeof p, "/dev/loop%d", i);
        json_array_append_new(devs, json_pack("{s:s,s:s,s:i,s:i}", "path", p, "type", "b",
                                              "major", 7, "minor", i));
    }
    json_object_set_new(root, "linux", json_pack("{s:o}", "devices", devs));
    char *text = json_dumps(root, 0);
    struct pna_container_set set;
    pna_container_set_init(&set);
    struct pna_oci_info info;
    char err[160];
    CHECK_INT(pna_oci_parse(text, strlen(text), "priv", NULL, NULL, &set, &info, err, sizeof err), 0);
    CHECK_INT(set.rows[0].dev_count, PNA_CONTAINER_MAX_DEVICES);
    CHECK_U64(set.devices_dropped, 300 - PNA_CONTAINER_MAX_DEVICES);
    free(text);
    json_decref(root);
    pna_container_set_free(&set);
}

/* Display copies: control characters replaced, UTF-8 never cut in half. */
static void test_copy_display(void)
{
    char buf[8];
    CHECK_INT(pna_copy_display(buf, "a\tb\nc", sizeof buf), 5);
    CHECK_STR(buf, "a?b?c");
    CHECK_INT(pna_copy_display(buf, "abcde\xc3\xa9", 7), 5);   /* é does not fit whole */
    CHECK_STR(buf, "abcde");
    CHECK_INT(pna_copy_display(buf, "ab\xc3\xa9", sizeof buf), 4);
    CHECK_STR(buf, "ab\xc3\xa9");
    CHECK_INT(pna_copy_display(buf, "\xff\xfe", sizeof buf), 2);
    CHECK_STR(buf, "??");
    CHECK_INT(pna_copy_display(buf, NULL, sizeof buf), 0);
    /* A 4-byte lead with the string ending after it: nothing past the NUL is
     * read (a heap copy, so ASan and valgrind see an overread). */
    char *cut = strdup("x\xf0\x9f");
    CHECK(cut != NULL);
    if (cut) {
        CHECK_INT(pna_copy_display(buf, cut, sizeof buf), 3);
        CHECK_STR(buf, "x??");
        free(cut);
    }
}

int main(void)
{
    if (!mkdtemp(tmp))
        return 99;
    test_reference_example();
    test_cri_container();
    test_malformed();
    test_device_bound();
    test_copy_display();
    tt_rmrf(tmp);
    UNIT_END();
}
