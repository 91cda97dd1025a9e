/* test_kubelet.c -- kubelet /pods and /stats/summary on recorded responses
 * (node and pod ephemeral storage, GPU allocation), quantities, malformed
 * input, and the client against a stub kubelet on 127.0.0.1 (bearer token
 * sent and never echoed, strict deadline, malformed body). */
#include "pna_autoconf.h"
#include "sources/containers/devmap.h"
#include "transport/http_client.h"
#include "sources/kubernetes/kubelet.h"
#include "core/roots.h"
#include "containers_testutil.h"
#include "httpstub.h"

#include <jansson.h>

static char tmp[] = "/tmp/pna-kubelet-XXXXXX";

#define NRI "kubelet/nri-kubernetes-k8s-1.35/"

static uint64_t jget_u64(json_t *o, const char *a, const char *b, const char *c)
{
    json_t *v = json_object_get(json_object_get(json_object_get(o, a), b), c);
    return (uint64_t)json_integer_value(v);
}

static const struct pna_pod *pod_named(const struct pna_pod_set *s, const char *name)
{
    for (size_t i = 0; i < s->count; i++)
        if (!strcmp(s->rows[i].name, name))
            return &s->rows[i];
    return NULL;
}

static void test_pods_and_summary(void)
{
    size_t len;
    char *text = tt_fixture(NRI "pods.json", &len);
    json_t *ref = json_loads(text, 0, NULL);
    size_t want_pods = json_array_size(json_object_get(ref, "items"));
    int want_running = 0;
    for (size_t i = 0; i < want_pods; i++) {
        const char *ph = json_string_value(json_object_get(
            json_object_get(json_array_get(json_object_get(ref, "items"), i), "status"), "phase"));
        want_running += ph && !strcmp(ph, "Running");
    }
    json_decref(ref);

    struct pna_pod_set pods;
    pna_pod_set_init(&pods);
    uint32_t gpus = 0;
    char err[160] = "";
    CHECK_INT(pna_kubelet_parse_pods(text, len, &pods, &gpus, err, sizeof err), 0);
    CHECK_INT(pods.count, want_pods);
    CHECK_INT(pods.count, 24);
    CHECK_INT(gpus, 0);    /* no GPU requests in this cluster */
    int running = 0, failed = 0;
    for (size_t i = 0; i < pods.count; i++) {
        running += pods.rows[i].phase == PNA_POD_RUNNING;
        failed += pods.rows[i].phase == PNA_POD_FAILED;
    }
    CHECK_INT(running, want_running);
    CHECK_INT(failed, 4);
    const struct pna_pod *p = pod_named(&pods, "e2e-scraper-5f97dc94d8-vkcjl");
    CHECK(p && !strcmp(p->namespace_, "scraper") &&
          !strcmp(p->uid, "559f50c7-6133-4901-a283-262ff4358722"));
    free(text);

    text = tt_fixture(NRI "stats-summary.json", &len);
    ref = json_loads(text, 0, NULL);
    struct pna_node_storage fs;
    char node[254];
    CHECK_INT(pna_kubelet_parse_summary(text, len, &pods, &fs, node, sizeof node, err, sizeof err), 0);
    CHECK_STR(node, "datagen-1-35");
    CHECK(fs.valid);
    CHECK_INT(fs.source, PNA_STORAGE_KUBELET);
    CHECK_U64(fs.capacity_bytes, jget_u64(ref, "node", "fs", "capacityBytes"));
    CHECK_U64(fs.available_bytes, jget_u64(ref, "node", "fs", "availableBytes"));
    CHECK_U64(fs.used_bytes, jget_u64(ref, "node", "fs", "usedBytes"));
    CHECK_U64(fs.inodes, jget_u64(ref, "node", "fs", "inodes"));
    CHECK_U64(fs.inodes_free, jget_u64(ref, "node", "fs", "inodesFree"));
    uint64_t want_pct = (fs.used_bytes * 10000 + fs.capacity_bytes / 2) / fs.capacity_bytes;
    CHECK_INT(fs.usage_percent_x100, want_pct);
    CHECK_INT(fs.usage_percent_x100, 1094);
    /* Every summary pod is in the list: joined, no extra rows. */
    CHECK_INT(pods.count, 24);
    size_t with_eph = 0;
    json_t *sp = json_object_get(ref, "pods");
    for (size_t i = 0; i < json_array_size(sp); i++) {
        json_t *e = json_array_get(sp, i);
        const char *name = json_string_value(json_object_get(json_object_get(e, "podRef"), "name"));
        const struct pna_pod *q = pod_named(&pods, name);
        CHECK(q && q->has_ephemeral);
        if (q)
            CHECK_U64(q->ephemeral_used_bytes,
                      json_integer_value(json_object_get(json_object_get(e, "ephemeral-storage"),
                                                         "usedBytes")));
    }
    for (size_t i = 0; i < pods.count; i++)
        with_eph += pods.rows[i].has_ephemeral;
    CHECK_INT(with_eph, json_array_size(sp));
    p = pod_named(&pods, "e2e-scraper-5f97dc94d8-vkcjl");
    CHECK(p && p->ephemeral_used_bytes == 13295616);
    p = pod_named(&pods, "e2e-failjob-64h4g");
    CHECK(p && !p->has_ephemeral);
    json_decref(ref);
    free(text);

    /* The 2020 minikube summary, with no pod list: pods come from the summary. */
    pna_pod_set_free(&pods);
    pna_pod_set_init(&pods);
    text = tt_fixture("kubelet/stats-summary-minikube-2020.json", &len);
    CHECK_INT(pna_kubelet_parse_summary(text, len, &pods, &fs, node, sizeof node, err, sizeof err), 0);
    CHECK_STR(node, "minikube");
    CHECK_INT(pods.count, 9);
    CHECK_U64(fs.capacity_bytes, 17361125376ULL);
    CHECK_U64(fs.used_bytes, 2626973696ULL);
    CHECK_INT(fs.usage_percent_x100, 1513);
    p = pod_named(&pods, "kube-scheduler-minikube");
    CHECK(p && p->phase == PNA_POD_UNKNOWN && p->ephemeral_used_bytes == 49152 &&
          !strcmp(p->uid, "5795d0c442cb997ff93c49feeb9f6386"));
    free(text);

    /* Stable indexes across polls; a new pod takes a free one. */
    pna_pod_set_sort(&pods);
    pna_pod_set_assign_indexes(&pods, NULL);
    struct pna_pod_set next;
    pna_pod_set_init(&next);
    for (size_t i = 1; i < pods.count; i++)
        *pna_pod_set_add(&next) = pods.rows[i];
    struct pna_pod *np = pna_pod_set_add(&next);
    strcpy(np->name, "new-pod");
    strcpy(np->uid, "u-new");
    for (size_t i = 0; i + 1 < next.count; i++)
        next.rows[i].index = 0;
    pna_pod_set_sort(&next);
    pna_pod_set_assign_indexes(&next, &pods);
    int kept = 0;
    for (size_t i = 0; i < next.count; i++) {
        const struct pna_pod *old = pod_named(&pods, next.rows[i].name);
        kept += old && old->index == next.rows[i].index;
        CHECK(next.rows[i].index > 0);
    }
    CHECK_INT(kept, 8);
    pna_pod_set_free(&next);
    pna_pod_set_free(&pods);
}

/* GPU requests as the scheduler counts them. */
static const char *GPU_PODS =
    "{\"kind\":\"PodList\",\"items\":["
    /* 2 GPUs by limit */
    "{\"metadata\":{\"name\":\"a\",\"namespace\":\"ml\",\"uid\":\"ua\"},\"status\":{\"phase\":\"Running\"},"
    " \"spec\":{\"containers\":[{\"name\":\"c\",\"resources\":{\"limits\":{\"nvidia.com/gpu\":\"2\",\"cpu\":\"4\"}}}]}},"
    /* 1 GPU by request only, pending: still holds its allocation */
    "{\"metadata\":{\"name\":\"b\",\"namespace\":\"ml\",\"uid\":\"ub\"},\"status\":{\"phase\":\"Pending\"},"
    " \"spec\":{\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":{\"amd.com/gpu\":\"1\"}}}]}},"
    /* finished: released */
    "{\"metadata\":{\"name\":\"c\",\"namespace\":\"ml\",\"uid\":\"uc\"},\"status\":{\"phase\":\"Succeeded\"},"
    " \"spec\":{\"containers\":[{\"name\":\"c\",\"resources\":{\"limits\":{\"nvidia.com/gpu\":\"4\"}}}]}},"
    /* init container 3 > containers 1+0: effective 3 */
    "{\"metadata\":{\"name\":\"d\",\"namespace\":\"ml\",\"uid\":\"ud\"},\"status\":{\"phase\":\"Running\"},"
    " \"spec\":{\"initContainers\":[{\"name\":\"i\",\"resources\":{\"limits\":{\"nvidia.com/gpu\":\"3\"}}}],"
    "  \"containers\":[{\"name\":\"c\",\"resources\":{\"limits\":{\"nvidia.com/gpu\":\"1\"}}},{\"name\":\"e\"}]}},"
    /* a sidecar (restartable init) adds to the containers: 1 + 1 */
    "{\"metadata\":{\"name\":\"e\",\"namespace\":\"ml\",\"uid\":\"ue\"},\"status\":{\"phase\":\"Running\"},"
    " \"spec\":{\"initContainers\":[{\"name\":\"s\",\"restartPolicy\":\"Always\",\"resources\":{\"limits\":{\"gpu.intel.com/i915\":\"1\"}}}],"
    "  \"containers\":[{\"name\":\"c\",\"resources\":{\"limits\":{\"nvidia.com/gpu\":\"1\"}}}]}},"
    /* MIG slices and odd names are not whole GPUs */
    "{\"metadata\":{\"name\":\"f\",\"namespace\":\"ml\",\"uid\":\"uf\"},\"status\":{\"phase\":\"Running\"},"
    " \"spec\":{\"containers\":[{\"name\":\"c\",\"resources\":{\"limits\":{\"nvidia.com/mig-1g.5gb\":\"1\",\"gpu\":\"9\",\"example.com/gpux\":\"9\"}}}]}},"
    /* a metadata-less item is skipped */
    "{\"status\":{}}"
    "]}";

static void test_gpu_allocation(void)
{
    struct pna_pod_set pods;
    pna_pod_set_init(&pods);
    uint32_t gpus = 0;
    char err[160];
    CHECK_INT(pna_kubelet_parse_pods(GPU_PODS, strlen(GPU_PODS), &pods, &gpus, err, sizeof err), 0);
    CHECK_INT(pods.count, 6);
    CHECK_INT(gpus, 2 + 1 + 3 + 2);
    CHECK_INT(pod_named(&pods, "c")->gpus_requested, 4);
    CHECK_INT(pod_named(&pods, "d")->gpus_requested, 3);
    CHECK_INT(pod_named(&pods, "f")->gpus_requested, 0);
    pna_pod_set_free(&pods);

    /* The node total comes from its device nodes. */
    char devfs[600];
    snprintf(devfs, sizeof devfs, "%s/dev", tmp);
    for (int i = 0; i < 16; i++) {
        char rel[64];
        snprintf(rel, sizeof rel, "dev/nvidia%d", i);
        tt_write(tmp, rel, "");
    }
    struct pna_roots roots = { tmp, tmp, devfs, tmp };
    struct pna_k8s_gpu g;
    pna_k8s_gpu_compute(&g, gpus, pna_devmap_count_gpus(&roots));
    CHECK(g.valid);
    CHECK_INT(g.total, 16);
    CHECK_INT(g.allocated, 8);
    CHECK_INT(g.rate_x100, 5000);         /* 50.00 % */
    pna_k8s_gpu_compute(&g, 1, 3);
    CHECK_INT(g.rate_x100, 3333);
    pna_k8s_gpu_compute(&g, 0, 0);        /* CPU-only node: no rate at all */
    CHECK(!g.valid);
}

static void test_quantities(void)
{
    int64_t v;
    CHECK_INT(pna_k8s_quantity_milli("2", &v), 0);
    CHECK(v == 2000);
    CHECK_INT(pna_k8s_quantity_milli("500m", &v), 0);
    CHECK(v == 500);
    CHECK_INT(pna_k8s_quantity_milli("1k", &v), 0);
    CHECK(v == 1000000);
    CHECK_INT(pna_k8s_quantity_milli("1Ki", &v), 0);
    CHECK(v == 1024000);
    CHECK_INT(pna_k8s_quantity_milli("0.5", &v), 0);
    CHECK(v == 500);
    CHECK_INT(pna_k8s_quantity_milli("15Mi", &v), 0);
    CHECK(v == 15LL * 1048576 * 1000);
    CHECK_INT(pna_k8s_quantity_milli("", &v), -1);
    CHECK_INT(pna_k8s_quantity_milli("-1", &v), -1);
    CHECK_INT(pna_k8s_quantity_milli("2x", &v), -1);
    CHECK_INT(pna_k8s_quantity_milli("99999999999999999999", &v), -1);
}

static void test_malformed(void)
{
    struct pna_pod_set pods;
    pna_pod_set_init(&pods);
    uint32_t gpus = 0;
    struct pna_node_storage fs;
    char node[64], err[160];
    size_t len;
    char *text = tt_fixture(NRI "pods.json", &len);
    CHECK_INT(pna_kubelet_parse_pods(text, len / 3, &pods, &gpus, err, sizeof err), -1);
    CHECK(strstr(err, "/pods") != NULL);
    CHECK_INT(pods.count, 0);
    free(text);
    CHECK_INT(pna_kubelet_parse_pods("[]", 2, &pods, &gpus, err, sizeof err), -1);
    CHECK_INT(pna_kubelet_parse_pods("{\"items\":{}}", 12, &pods, &gpus, err, sizeof err), -1);
    text = tt_fixture(NRI "stats-summary.json", &len);
    CHECK_INT(pna_kubelet_parse_summary(text, len - 10, &pods, &fs, node, sizeof node, err, sizeof err), -1);
    free(text);
    CHECK_INT(pna_kubelet_parse_summary("{\"pods\":[]}", 11, &pods, &fs, node, sizeof node, err, sizeof err), -1);
    /* A node without fs figures: valid summary, no node storage. */
    const char *nofs = "{\"node\":{\"nodeName\":\"n\",\"fs\":{\"capacityBytes\":\"x\"}},\"pods\":[{\"podRef\":{}},"
                       "{\"podRef\":{\"name\":\"p\",\"namespace\":\"n\",\"uid\":\"u\"},\"ephemeral-storage\":{\"usedBytes\":-5}}]}";
    CHECK_INT(pna_kubelet_parse_summary(nofs, strlen(nofs), &pods, &fs, node, sizeof node, err, sizeof err), 0);
    CHECK(!fs.valid);
    CHECK_INT(pods.count, 1);
    CHECK(!pods.rows[0].has_ephemeral);
    pna_pod_set_free(&pods);
}

static void test_client(void)
{
    int port = 0;
    struct httpstub *s = httpstub_start_tcp(&port);
    CHECK(s != NULL);
    if (!s)
        return;
    char p[600], url[64], token_file[600];
    tt_fixture_path(p, sizeof p, NRI "pods.json");
    httpstub_route_file(s, "/pods", 200, p);
    tt_fixture_path(p, sizeof p, NRI "stats-summary.json");
    httpstub_route_file(s, "/stats/summary", 200, p);
    snprintf(url, sizeof url, "http://127.0.0.1:%d", port);
    tt_write(tmp, "token", "eyJhbGciOiJSUzI1NiJ9.TOPSECRET-TOKEN\n");
    snprintf(token_file, sizeof token_file, "%s/token", tmp);
    struct pna_kubelet_opts o = { .url = url, .token_file = token_file,
                                  .ca_file = "/nonexistent/ca.crt", .timeout_ms = 400 };
    struct pna_hclient *h = pna_hclient_new();
    struct pna_kubelet_result r;
    char err[160] = "";
    CHECK_INT(pna_kubelet_fetch(h, &o, &r, err, sizeof err), 0);
    CHECK_STR(r.node_name, "datagen-1-35");
    CHECK_INT(r.pods.count, 24);
    CHECK(r.node_fs.valid && r.node_fs.capacity_bytes == 977896124416ULL);
    char auth[512];
    httpstub_last_auth(s, auth, sizeof auth);
    CHECK_STR(auth, "Bearer eyJhbGciOiJSUzI1NiJ9.TOPSECRET-TOKEN");
    pna_pod_set_free(&r.pods);

    /* Malformed summary: an error, and it names the endpoint, not the token. */
    httpstub_mode(s, "/stats/summary", STUB_MALFORMED);
    CHECK_INT(pna_kubelet_fetch(h, &o, &r, err, sizeof err), -1);
    CHECK(strstr(err, "/stats/summary") != NULL);
    CHECK(strstr(err, "TOPSECRET") == NULL);
    CHECK_INT(r.pods.count, 0);

    /* A stalled kubelet: the deadline, not a hang. */
    httpstub_mode(s, "/stats/summary", STUB_OK);
    httpstub_mode(s, "/pods", STUB_STALL);
    int64_t t0 = tt_mono_ms();
    CHECK_INT(pna_kubelet_fetch(h, &o, &r, err, sizeof err), -1);
    int64_t took = tt_mono_ms() - t0;
    printf("stalled kubelet: error after %lld ms (deadline 400 ms): %s\n", (long long)took, err);
    CHECK(took >= 350 && took < 1400);
    CHECK(strstr(err, "TOPSECRET") == NULL);

    /* No token file: no Authorization header at all. */
    httpstub_mode(s, "/pods", STUB_OK);
    o.token_file = "/nonexistent/token";
    CHECK_INT(pna_kubelet_fetch(h, &o, &r, err, sizeof err), 0);
    httpstub_last_auth(s, auth, sizeof auth);
    CHECK_STR(auth, "");
    pna_pod_set_free(&r.pods);

    /* HTTP errors are errors. */
    httpstub_route(s, "/pods", 500, "{}", 2);
    CHECK_INT(pna_kubelet_fetch(h, &o, &r, err, sizeof err), -1);
    CHECK(strstr(err, "HTTP 500") != NULL);

    httpstub_stop(s);
    /* Nobody listening: refused at once. */
    t0 = tt_mono_ms();
    CHECK_INT(pna_kubelet_fetch(h, &o, &r, err, sizeof err), -1);
    CHECK(tt_mono_ms() - t0 < 400);
    pna_hclient_free(h);
}

int main(void)
{
    if (!mkdtemp(tmp))
        return 99;
    test_pods_and_summary();
    test_gpu_allocation();
    test_quantities();
    test_malformed();
    test_client();
    tt_rmrf(tmp);
    UNIT_END();
}
