/* test_http_render.c -- what /metrics and the JSON endpoints say, rendered
 * from views built by hand and from the collectors' own readings of the fixture
 * trees (nvidia-smi XML, InfiniBand sysfs, mlx5 ethtool statistics), checked
 * against values the test reads from the same files; the replaced exporters' metric names and
 * label sets; the JSON shapes (parsed back with jansson); and, where promtool is
 * installed, a lint-clean exposition of every domain at once. */
#include "pna_autoconf.h"
#include "sources/gpu/nvsmi.h"
#include "sources/rdma/ib_sysfs.h"
#include "sources/pfc/pfc_names.h"
#include "http/render/render.h"
#include "model/containers.h"
#include "model/gpu/gpu.h"
#include "model/ib.h"
#include "model/node.h"
#include "model/pfc.h"
#include "model/storage.h"
#include "unit.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NOW_MS 1795000000000LL

/* ---- helpers ------------------------------------------------------------------ */

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    struct pna_buf b;
    pna_buf_init(&b);
    char chunk[8192];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        pna_buf_append(&b, chunk, n);
    fclose(f);
    return pna_buf_steal(&b, len);
}

static uint64_t file_u64(const char *fmt, const char *arg)
{
    char path[1024];
    snprintf(path, sizeof path, fmt, unit_fixtures(), arg);
    char *t = slurp(path, NULL);
    uint64_t v = t ? strtoull(t, NULL, 10) : UINT64_MAX;
    free(t);
    return v;
}

/* The text of the first "<inner>" inside the first "<outer>" of the GPU's own
 * elements (past its MIG devices, which repeat the same element names). */
static void xml_text(const char *xml, const char *outer, const char *inner, char *buf, size_t cap)
{
    buf[0] = '\0';
    const char *mig = strstr(xml, "</mig_devices>");
    const char *o = strstr(mig && strcmp(outer, "<gpu ") != 0 ? mig : xml, outer);
    const char *i = o ? strstr(o, inner) : NULL;
    if (!i)
        return;
    i += strlen(inner);
    size_t n = strcspn(i, "<");
    snprintf(buf, cap, "%.*s", (int)n, i);
}

/* The value of the sample NAME{LABELS} (LABELS exactly as written, "" for none). */
static const char *sample(const char *text, const char *name, const char *labels)
{
    static char value[64];
    char key[1024];
    if (labels[0])
        snprintf(key, sizeof key, "\n%s{%s} ", name, labels);
    else
        snprintf(key, sizeof key, "\n%s ", name);
    const char *p = strstr(text, key);
    if (!p)
        return "(absent)";
    p += strlen(key);
    snprintf(value, sizeof value, "%.*s", (int)strcspn(p, "\n"), p);
    return value;
}

static bool has_family(const char *text, const char *name)
{
    char key[256];
    snprintf(key, sizeof key, "\n%s{", name);
    if (strstr(text, key))
        return true;
    snprintf(key, sizeof key, "\n%s ", name);
    return strstr(text, key) != NULL;
}

static char *render(const struct pna_http_view *v, size_t *errors)
{
    struct pna_buf b;
    pna_buf_init(&b);
    pna_buf_putc(&b, '\n'); /* so every sample line starts after a '\n' */
    size_t e = pna_metrics_render(&b, v);
    if (errors)
        *errors = e;
    return pna_buf_steal(&b, NULL);
}

static char *dump(struct pna_json_reply r, unsigned *status)
{
    *status = r.status;
    char *s = json_dumps(r.body, JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(12));
    json_decref(r.body);
    return s;
}

static void base_view(struct pna_http_view *v)
{
    memset(v, 0, sizeof *v);
    v->base.now_ms = NOW_MS;
    v->base.all_ran = true;
    v->base.agent.version = "9.9.9";
    v->base.agent.started_ms = NOW_MS - 61500;
    pna_http_view_complete(v, "gpu-node-01");
}

/* Put snapshot S (NULL: none) in V as DOMAIN's, as pna_http_view_take would. */
static void attach(struct pna_http_view *v, enum pna_domain domain, const struct pna_snap *s)
{
    const char *node_name = v->node_name;   /* the test's, kept */
    v->base.snap[domain] = (struct pna_snap *)s;
    pna_http_view_complete(v, "gpu-node-01");
    v->node_name = node_name;
}

/* ---- node ------------------------------------------------------------------------- */

static void fill_node(struct pna_node *n)
{
    memset(n, 0, sizeof *n);
    snprintf(n->hostname, sizeof n->hostname, "gpu-node-01");
    snprintf(n->os_name, sizeof n->os_name, "Ubuntu 22.04.3 LTS");
    snprintf(n->kernel, sizeof n->kernel, "5.15.0");
    snprintf(n->arch, sizeof n->arch, "x86_64");
    snprintf(n->cpu_model, sizeof n->cpu_model, "Intel(R) Xeon(R) Gold 6248R");
    n->cpu_cores = 48;
    n->cpu_threads = 96;
    n->cpu_sockets = 2;
    n->have_cpu_usage = true;
    n->cpu_usage_hundredths = 1234;
    n->cpu_iowait_hundredths = 7;
    n->load1_hundredths = 125;
    n->mem_total_bytes = 270582939648ULL;
    n->mem_available_bytes = 200000000000ULL;
    n->mem_used_bytes = 70582939648ULL;
    n->mem_usage_hundredths = 2609;
    n->uptime_s = 86400;
    n->boot_time_s = 1700000000;
}

static void test_split_os(void)
{
    char os[64], ver[32];
    pna_http_split_os("Ubuntu 22.04.3 LTS", os, sizeof os, ver, sizeof ver);
    CHECK_STR(os, "Ubuntu");
    CHECK_STR(ver, "22.04.3");
    pna_http_split_os("Debian GNU/Linux 12 (bookworm)", os, sizeof os, ver, sizeof ver);
    CHECK_STR(os, "Debian GNU/Linux");
    CHECK_STR(ver, "12");
    pna_http_split_os("Arch Linux", os, sizeof os, ver, sizeof ver);
    CHECK_STR(os, "Arch Linux");
    CHECK_STR(ver, "");
    pna_http_split_os("", os, sizeof os, ver, sizeof ver);
    CHECK_STR(os, "");
}

static void test_node_metrics(void)
{
    struct pna_node_snap ns;
    memset(&ns, 0, sizeof ns);
    fill_node(&ns.node);
    struct pna_http_view v;
    base_view(&v);
    attach(&v, PNA_DOM_NODE, &ns.base);
    ns.base.taken_ms = NOW_MS - 2000;
    attach(&v, PNA_DOM_NODE, &ns.base);
    size_t errors;
    char *t = render(&v, &errors);
    CHECK_U64(errors, 0);

    /* The system-info exporter's names, labels and help, unchanged. */
    CHECK(strstr(t, "\n# HELP hw_node_info Node hardware information\n# TYPE hw_node_info gauge\n"
                    "hw_node_info{node=\"gpu-node-01\",os=\"Ubuntu\",os_version=\"22.04.3\","
                    "kernel=\"5.15.0\",cpu_model=\"Intel(R) Xeon(R) Gold 6248R\"} 1\n") != NULL);
    CHECK(strstr(t, "\n# HELP hw_cpu_cores Number of physical CPU cores\n# TYPE hw_cpu_cores gauge\n"
                    "hw_cpu_cores{node=\"gpu-node-01\"} 48\n") != NULL);
    CHECK(strstr(t, "\n# HELP hw_memory_total_bytes Total memory in bytes\n") != NULL);
    CHECK_STR(sample(t, "hw_memory_total_bytes", "node=\"gpu-node-01\""), "270582939648");
    CHECK_STR(sample(t, "hw_cpu_threads", "node=\"gpu-node-01\""), "96");
    CHECK_STR(sample(t, "hw_cpu_usage_percent", "node=\"gpu-node-01\""), "12.34");
    CHECK_STR(sample(t, "hw_memory_used_bytes", "node=\"gpu-node-01\""), "70582939648");
    CHECK_STR(sample(t, "hw_memory_available_bytes", "node=\"gpu-node-01\""), "200000000000");
    CHECK_STR(sample(t, "hw_memory_usage_percent", "node=\"gpu-node-01\""), "26.09");
    CHECK_STR(sample(t, "hw_node_uptime_seconds", "node=\"gpu-node-01\""), "86400");
    CHECK(strstr(t, "# TYPE hw_node_uptime_seconds untyped\n") != NULL);

    /* primus_* in base units */
    CHECK_STR(sample(t, "primus_cpu_usage_ratio", ""), "0.1234");
    CHECK_STR(sample(t, "primus_cpu_iowait_ratio", ""), "0.0007");
    CHECK_STR(sample(t, "primus_cpu_load1", ""), "1.25");
    CHECK_STR(sample(t, "primus_memory_usage_ratio", ""), "0.2609");
    CHECK_STR(sample(t, "primus_memory_total_bytes", ""), "270582939648");
    CHECK_STR(sample(t, "primus_node_boot_time_seconds", ""), "1700000000");
    CHECK_STR(sample(t, "primus_cpu_sockets", ""), "2");
    CHECK_STR(sample(t, "primus_node_info", "hostname=\"gpu-node-01\",os=\"Ubuntu 22.04.3 LTS\","
                                            "kernel=\"5.15.0\",architecture=\"x86_64\","
                                            "cpu_model=\"Intel(R) Xeon(R) Gold 6248R\""), "1");
    free(t);

    /* First poll: usage needs two samples, so it is absent, not 0. */
    ns.node.have_cpu_usage = false;
    t = render(&v, NULL);
    CHECK(!has_family(t, "hw_cpu_usage_percent"));
    CHECK(!has_family(t, "primus_cpu_usage_ratio"));
    CHECK(has_family(t, "hw_cpu_cores"));
    free(t);

    /* No node snapshot yet: no node metrics, and /node answers 503. */
    attach(&v, PNA_DOM_NODE, NULL);
    t = render(&v, NULL);
    CHECK(!has_family(t, "hw_node_info"));
    free(t);
    unsigned status;
    char *j = dump(pna_json_node(&v), &status);
    CHECK_INT(status, 503);
    free(j);
}

static void test_node_name(void)
{
    struct pna_node_snap ns;
    memset(&ns, 0, sizeof ns);
    fill_node(&ns.node);
    struct pna_kubelet_snap k;
    memset(&k, 0, sizeof k);
    struct pna_http_view v;
    base_view(&v);
    char buf[256];
    CHECK_STR(pna_http_node_name(&v, NULL, buf, sizeof buf), "");
    attach(&v, PNA_DOM_NODE, &ns.base);
    CHECK_STR(pna_http_node_name(&v, NULL, buf, sizeof buf), "gpu-node-01");
    snprintf(k.node_name, sizeof k.node_name, "k8s-node-7");
    attach(&v, PNA_DOM_KUBELET, &k.base);
    CHECK_STR(pna_http_node_name(&v, "", buf, sizeof buf), "k8s-node-7");
    CHECK_STR(pna_http_node_name(&v, "configured", buf, sizeof buf), "configured");
}

static void test_node_json(void)
{
    struct pna_node_snap ns;
    memset(&ns, 0, sizeof ns);
    fill_node(&ns.node);
    struct pna_http_view v;
    base_view(&v);
    attach(&v, PNA_DOM_NODE, &ns.base);
    ns.base.taken_ms = NOW_MS - 2000;
    attach(&v, PNA_DOM_NODE, &ns.base);
    unsigned status;
    char *s = dump(pna_json_node(&v), &status);
    CHECK_INT(status, 200);
    json_t *j = json_loads(s, 0, NULL);
    CHECK(j != NULL);
    CHECK_STR(json_string_value(json_object_get(j, "os")), "Ubuntu");
    CHECK_STR(json_string_value(json_object_get(j, "os_version")), "22.04.3");
    CHECK_STR(json_string_value(json_object_get(j, "cpu_model")), "Intel(R) Xeon(R) Gold 6248R");
    CHECK_INT(json_integer_value(json_object_get(json_object_get(j, "cpu"), "threads")), 96);
    CHECK(json_real_value(json_object_get(json_object_get(j, "cpu"), "usage_percent")) == 12.34);
    CHECK_U64(json_integer_value(json_object_get(json_object_get(j, "memory"), "total_bytes")),
              270582939648ULL);
    CHECK_INT(json_integer_value(json_object_get(j, "timestamp")), (NOW_MS - 2000) / 1000);
    CHECK(json_is_array(json_object_get(json_object_get(j, "gpu"), "gpus")));
    json_decref(j);
    free(s);

    s = dump(pna_json_metrics(&v), &status);
    CHECK_INT(status, 200);
    j = json_loads(s, 0, NULL);
    CHECK_STR(json_string_value(json_object_get(j, "node")), "gpu-node-01");
    CHECK_INT(json_integer_value(json_object_get(json_object_get(j, "cpu"), "cores")), 48);
    CHECK(json_real_value(json_object_get(json_object_get(j, "memory"), "usage_percent")) == 26.09);
    CHECK_INT(json_integer_value(json_object_get(json_object_get(j, "gpu"), "count")), 0);
    json_decref(j);
    free(s);
}

/* ---- agent and pollers ------------------------------------------------------------ */

static void fill_poller(struct pna_poller_info *p, uint32_t index, const char *name,
                        enum pna_poller_status st, int64_t taken_ms)
{
    memset(p, 0, sizeof *p);
    p->index = index;
    snprintf(p->name, sizeof p->name, "%s", name);
    p->status = st;
    p->interval_ms = 5000;
    p->timeout_ms = 3000;
    p->data_taken_ms = taken_ms;
    p->last_success_ms = taken_ms;
    p->last_duration_ms = 12;
    p->runs = 10;
}

static void test_agent(void)
{
    struct pna_poller_info pl[5];
    fill_poller(&pl[0], 1, "node", PNA_POLLER_OK, NOW_MS - 1500);
    fill_poller(&pl[1], 2, "gpu", PNA_POLLER_FAILING, NOW_MS - 4000);
    pl[1].errors = 3;
    pl[1].consecutive_failures = 2;
    snprintf(pl[1].last_error, sizeof pl[1].last_error, "nvml: \"GPU is lost\"");
    fill_poller(&pl[2], 5, "kubelet", PNA_POLLER_PENDING, 0);
    fill_poller(&pl[3], 6, "docker", PNA_POLLER_OFF, 0);
    /* OK but older than 2 x (interval + timeout) = 16 s: stale */
    fill_poller(&pl[4], 3, "ib", PNA_POLLER_OK, NOW_MS - 17000);

    struct pna_http_view v;
    base_view(&v);
    v.base.pollers = pl;
    v.base.n_pollers = 5;
    v.base.all_ran = false;
    v.base.events_total = 42;
    v.base.events_dropped = 1;
    v.base.event_capacity = 100;
    char *t = render(&v, NULL);
    CHECK_STR(sample(t, "primus_agent_info", "version=\"9.9.9\",mode=\"subagent\""), "1");
    CHECK_STR(sample(t, "primus_agent_uptime_seconds", ""), "61"); /* whole seconds, as the MIB */
    CHECK_STR(sample(t, "primus_agent_degraded", ""), "1");
    CHECK_STR(sample(t, "primus_agent_ready", ""), "0");
    CHECK_STR(sample(t, "primus_agent_events_total", ""), "42");
    CHECK(strstr(t, "# TYPE primus_agent_events_total counter\n") != NULL);
    CHECK_STR(sample(t, "primus_agent_events_dropped_total", ""), "1");
    CHECK_STR(sample(t, "primus_poller_info", "poller=\"kubelet\",index=\"5\""), "1");
    CHECK_STR(sample(t, "primus_poller_interval_seconds", "poller=\"node\""), "5");
    CHECK_STR(sample(t, "primus_poller_last_duration_seconds", "poller=\"node\""), "0.012");
    CHECK_STR(sample(t, "primus_poller_last_success_timestamp_seconds", "poller=\"node\""),
              "1794999998");
    CHECK_STR(sample(t, "primus_poller_last_success_timestamp_seconds", "poller=\"kubelet\""), "0");
    CHECK_STR(sample(t, "primus_poller_data_age_seconds", "poller=\"node\""), "1");
    CHECK_STR(sample(t, "primus_poller_data_age_seconds", "poller=\"kubelet\""), "(absent)");
    CHECK_STR(sample(t, "primus_poller_errors_total", "poller=\"gpu\""), "3");
    CHECK_STR(sample(t, "primus_poller_consecutive_failures", "poller=\"gpu\""), "2");
    CHECK_STR(sample(t, "primus_poller_status", "poller=\"gpu\",status=\"failing\""), "1");
    CHECK_STR(sample(t, "primus_poller_status", "poller=\"gpu\",status=\"ok\""), "0");
    CHECK_STR(sample(t, "primus_poller_status", "poller=\"docker\",status=\"disabled\""), "1");
    CHECK_STR(sample(t, "primus_poller_degraded", "poller=\"node\""), "0");
    CHECK_STR(sample(t, "primus_poller_degraded", "poller=\"gpu\""), "1");
    CHECK_STR(sample(t, "primus_poller_degraded", "poller=\"ib\""), "1");
    CHECK_STR(sample(t, "primus_poller_degraded", "poller=\"kubelet\""), "0");
    free(t);

    unsigned status;
    char *s = dump(pna_json_ready(&v), &status);
    CHECK_INT(status, 503);
    /* Not ready: kubelet has not run yet, gpu is failing (ib is only stale:
     * its last run succeeded, so it does not count). */
    CHECK_STR(s, "{\"failing\":[{\"error\":\"nvml: \\\"GPU is lost\\\"\",\"poller\":\"gpu\"}],"
                 "\"pending\":[\"kubelet\"],\"status\":\"not ready\"}");
    free(s);
    s = dump(pna_json_health(&v), &status);
    CHECK_INT(status, 200);
    json_t *j = json_loads(s, 0, NULL);
    CHECK_STR(json_string_value(json_object_get(j, "status")), "degraded");
    CHECK(json_is_false(json_object_get(j, "ready")));
    json_t *gpu = json_array_get(json_object_get(j, "pollers"), 1);
    CHECK_STR(json_string_value(json_object_get(gpu, "status")), "failing");
    CHECK_STR(json_string_value(json_object_get(gpu, "last_error")), "nvml: \"GPU is lost\"");
    CHECK(json_is_null(json_object_get(json_array_get(json_object_get(j, "pollers"), 2),
                                       "data_age_seconds")));
    json_decref(j);
    free(s);

    /* Every poller ran and is fresh: ready, ok. */
    pl[1].status = PNA_POLLER_OK;
    pl[2].status = PNA_POLLER_OK;
    pl[2].data_taken_ms = NOW_MS - 100;
    pl[4].data_taken_ms = NOW_MS - 100;
    v.base.all_ran = true;
    s = dump(pna_json_ready(&v), &status);
    CHECK_INT(status, 200);
    free(s);
    CHECK(!pna_view_degraded(&v.base));
    s = dump(pna_json_health(&v), &status);
    CHECK(strstr(s, "\"status\":\"ok\"") != NULL);
    free(s);
    s = dump(pna_json_healthz(&v), &status);
    CHECK_INT(status, 200);
    CHECK_STR(s, "{\"status\":\"ok\"}");
    free(s);
}

/* ---- GPUs from nvidia-smi XML fixtures ------------------------------------------------ */

static const char *const gpu_fixtures[] = {
    "h100-nvidia-smi-q-x.xml", "a100-sxm4-80gb-nvidia-smi-q-x.xml", "tesla-t4-nvidia-smi-q-x.xml",
};

struct gpu_fixture {
    struct pna_gpu_snap snap;
    struct pna_gpu_list list;
};

static bool load_gpus(struct gpu_fixture *f)
{
    memset(f, 0, sizeof *f);
    for (size_t i = 0; i < sizeof gpu_fixtures / sizeof gpu_fixtures[0]; i++) {
        char path[1024], err[256];
        snprintf(path, sizeof path, "%s/nvidia/%s", unit_fixtures(), gpu_fixtures[i]);
        size_t len;
        char *xml = slurp(path, &len);
        if (!xml)
            return false;
        int rc = pna_nvsmi_parse(xml, len, &f->list, f->snap.nvidia_driver_version,
                                 sizeof f->snap.nvidia_driver_version, f->snap.cuda_version,
                                 sizeof f->snap.cuda_version, err, sizeof err);
        free(xml);
        if (rc != 0)
            return false;
    }
    pna_gpu_list_sort(&f->list);
    /* One nvidia-smi run numbers its GPUs 0..N-1; three files each say 0. */
    for (size_t i = 0; i < f->list.count; i++)
        f->list.gpus[i].vendor_index = (uint32_t)i;
    f->snap.gpus = f->list.gpus;
    f->snap.count = f->list.count;
    return true;
}

/* "81559 MiB" -> bytes; "35 C" -> 35; "12 %" -> 12. */
static uint64_t mib_bytes(const char *text)
{
    return strtoull(text, NULL, 10) * 1048576ULL;
}

static void check_gpu_against_xml(const char *text, const struct pna_gpu *g, const char *file)
{
    char path[1024], value[64], labels[512], want[64];
    snprintf(path, sizeof path, "%s/nvidia/%s", unit_fixtures(), file);
    char *xml = slurp(path, NULL);
    CHECK(xml != NULL);
    if (!xml)
        return;
    snprintf(labels, sizeof labels, "gpu=\"%u\",pci_bus_id=\"%s\",uuid=\"%s\",container=\"\",pod=\"\",namespace=\"\"",
             (unsigned)g->vendor_index, g->pci_bus_id, g->uuid);

    xml_text(xml, "<fb_memory_usage>", "<total>", value, sizeof value);
    snprintf(want, sizeof want, "%" PRIu64, mib_bytes(value));
    CHECK_STR(sample(text, "primus_gpu_memory_total_bytes", labels), want);
    xml_text(xml, "<fb_memory_usage>", "<used>", value, sizeof value);
    snprintf(want, sizeof want, "%" PRIu64, mib_bytes(value));
    CHECK_STR(sample(text, "primus_gpu_memory_used_bytes", labels), want);
    xml_text(xml, "<temperature>", "<gpu_temp>", value, sizeof value);
    snprintf(want, sizeof want, "%ld", strtol(value, NULL, 10));
    CHECK_STR(sample(text, "primus_gpu_temperature_celsius", labels), want);
    xml_text(xml, "<utilization>", "<gpu_util>", value, sizeof value);
    /* "N/A" (MIG mode) is absent, never 0. */
    bool util_known = strcmp(value, "N/A") != 0;
    long util = strtol(value, NULL, 10);
    if (!util_known)
        snprintf(want, sizeof want, "(absent)");
    else if (util == 100 || util == 0)
        snprintf(want, sizeof want, "%ld", util / 100);
    else
        snprintf(want, sizeof want, "0.%02ld", util);
    CHECK_STR(sample(text, "primus_gpu_utilization_ratio", labels), want);

    /* The replaced exporters' names and label sets. */
    char gpu_id[64], util_pct[32];
    snprintf(gpu_id, sizeof gpu_id, "gpu_id=\"%u\"", (unsigned)g->vendor_index);
    snprintf(util_pct, sizeof util_pct, util_known ? "%ld" : "(absent)", util);
    CHECK_STR(sample(text, "gpu_utilization", gpu_id), util_pct);
    snprintf(labels, sizeof labels, "node=\"gpu-node-01\",gpu_index=\"%u\",gpu_name=\"%s\",gpu_uuid=\"%s\"",
             (unsigned)g->vendor_index, g->name, g->uuid);
    xml_text(xml, "<fb_memory_usage>", "<total>", value, sizeof value);
    snprintf(want, sizeof want, "%" PRIu64, mib_bytes(value));
    CHECK_STR(sample(text, "hw_gpu_memory_total_bytes", labels), want);
    CHECK_STR(sample(text, "hw_gpu_utilization_percent", labels), util_pct);
    xml_text(xml, "<gpu ", "<product_name>", value, sizeof value);
    CHECK_STR(g->name, value);
    free(xml);
}

static void test_gpu(void)
{
    struct gpu_fixture f;
    CHECK(load_gpus(&f));
    CHECK_U64(f.snap.count, 3);
    if (f.snap.count != 3) {
        pna_gpu_list_free(&f.list);
        return;
    }
    /* A DRM node for the first GPU, as dri_map would give it. */
    snprintf(f.list.gpus[0].drm_card, sizeof f.list.gpus[0].drm_card, "card1");
    snprintf(f.list.gpus[0].drm_render, sizeof f.list.gpus[0].drm_render, "renderD128");
    f.list.gpus[0].has_drm_card_id = true;
    f.list.gpus[0].drm_card_id = 1;

    struct pna_http_view v;
    base_view(&v);
    attach(&v, PNA_DOM_GPU, &f.snap.base);
    size_t errors;
    char *t = render(&v, &errors);
    CHECK_U64(errors, 0);
    for (size_t i = 0; i < f.snap.count; i++) {
        for (size_t k = 0; k < sizeof gpu_fixtures / sizeof gpu_fixtures[0]; k++) {
            char path[1024];
            snprintf(path, sizeof path, "%s/nvidia/%s", unit_fixtures(), gpu_fixtures[k]);
            char *xml = slurp(path, NULL);
            bool mine = xml && strstr(xml, f.snap.gpus[i].uuid);
            free(xml);
            if (mine)
                check_gpu_against_xml(t, &f.snap.gpus[i], gpu_fixtures[k]);
        }
    }
    CHECK_STR(sample(t, "primus_gpus", ""), "3");
    CHECK_STR(sample(t, "hw_gpu_count", "node=\"gpu-node-01\""), "3");
    CHECK(strstr(t, "# TYPE hw_gpu_count untyped\n") != NULL);
    char labels[256];
    snprintf(labels, sizeof labels, "node=\"gpu-node-01\",gpu_type=\"%s\"", f.snap.gpus[0].name);
    CHECK_STR(sample(t, "hw_gpu_type_count", labels), "1");
    /* each XML reports its power limit in W: served in W, from the model's mW */
    const struct pna_gpu *g = &f.snap.gpus[0];
    if (g->has_power_limit) {
        char want[32];
        snprintf(want, sizeof want, "%u", g->power_limit_mw / 1000);
        snprintf(labels, sizeof labels, "gpu=\"%u\",pci_bus_id=\"%s\",uuid=\"%s\",container=\"\",pod=\"\",namespace=\"\"",
                 (unsigned)g->vendor_index, g->pci_bus_id, g->uuid);
        if (g->power_limit_mw % 1000 == 0)
            CHECK_STR(sample(t, "primus_gpu_power_limit_watts", labels), want);
    }
    free(t);

    /* /gpus, /cardMetrics, /driMapping, /gpuDriverVersion: the node exporter's shapes. */
    unsigned status;
    char *s = dump(pna_json_gpus(&v), &status);
    json_t *j = json_loads(s, 0, NULL);
    CHECK_INT(json_integer_value(json_object_get(j, "code")), 0);
    CHECK_STR(json_string_value(json_object_get(j, "message")), "success");
    json_t *g0 = json_array_get(json_object_get(j, "data"), 0);
    CHECK(json_is_integer(json_object_get(g0, "gpu")));
    CHECK_STR(json_string_value(json_object_get(json_object_get(g0, "asic"), "market_name")), g->name);
    CHECK_STR(json_string_value(json_object_get(json_object_get(g0, "bus"), "bdf")), g->pci_bus_id);
    CHECK_STR(json_string_value(json_object_get(json_object_get(g0, "dri_device"), "card")),
              "/dev/dri/card1");
    CHECK_STR(json_string_value(json_object_get(json_object_get(g0, "dri_device"), "render")),
              "/dev/dri/renderD128");
    CHECK_INT(json_array_size(json_object_get(j, "data")), 3);
    json_decref(j);
    free(s);

    s = dump(pna_json_dri_mapping(&v), &status);
    j = json_loads(s, 0, NULL);
    json_t *m = json_object_get(json_object_get(j, "data"), "/dev/dri/card1");
    CHECK(m != NULL);
    CHECK_INT(json_integer_value(json_object_get(m, "card_id")), 1);
    CHECK_STR(json_string_value(json_object_get(m, "pci_addr")), g->pci_bus_id);
    CHECK_INT(json_object_size(json_object_get(j, "data")), 1);
    json_decref(j);
    free(s);

    s = dump(pna_json_card_metrics(&v), &status);
    j = json_loads(s, 0, NULL);
    json_t *c0 = json_array_get(json_object_get(j, "data"), 0);
    CHECK(json_is_number(json_object_get(c0, "gpu_use_percent")));
    CHECK(json_is_number(json_object_get(c0, "memory_use_percent")));
    json_decref(j);
    free(s);

    s = dump(pna_json_gpu_driver_version(&v), &status);
    j = json_loads(s, 0, NULL);
    CHECK_STR(json_string_value(json_object_get(j, "data")), f.snap.nvidia_driver_version);
    CHECK(f.snap.nvidia_driver_version[0] != '\0');
    json_decref(j);
    free(s);

    /* A lost GPU keeps its identity series only. */
    f.list.gpus[1].lost = true;
    t = render(&v, NULL);
    snprintf(labels, sizeof labels, "gpu=\"%u\",pci_bus_id=\"%s\",uuid=\"%s\",container=\"\",pod=\"\",namespace=\"\"",
             (unsigned)f.list.gpus[1].vendor_index, f.list.gpus[1].pci_bus_id, f.list.gpus[1].uuid);
    CHECK_STR(sample(t, "primus_gpu_lost", labels), "1");
    CHECK_STR(sample(t, "primus_gpu_memory_total_bytes", labels), "(absent)");
    free(t);
    pna_gpu_list_free(&f.list);
}

/* ---- InfiniBand from the sysfs fixture ------------------------------------------------- */

static void test_rdma(void)
{
    char sysfs[1024], err[256];
    snprintf(sysfs, sizeof sysfs, "%s/ib-sysfs/procfs/sys", unit_fixtures());
    struct pna_roots roots = { sysfs, "/nonexistent", "/nonexistent", "/nonexistent" };
    struct pna_ib_snap snap;
    memset(&snap, 0, sizeof snap);
    CHECK_INT(pna_ib_sysfs_read(&roots, &snap.model, err, sizeof err), 0);
    pna_ib_derive(&snap.model, NULL);
    CHECK(snap.model.n_devices >= 2);

    struct pna_http_view v;
    base_view(&v);
    attach(&v, PNA_DOM_IB, &snap.base);
    size_t errors;
    char *t = render(&v, &errors);
    CHECK_U64(errors, 0);

    const char *ib = "%s/ib-sysfs/procfs/sys/class/infiniband/mlx5_0/ports/1/%s";
    char want[32];
    /* port_rcv_data counts 4-octet words: octets are 4 x the file. */
    snprintf(want, sizeof want, "%" PRIu64, 4 * file_u64(ib, "counters/port_rcv_data"));
    CHECK_STR(sample(t, "primus_ib_port_receive_data_bytes_total", "device=\"mlx5_0\",port=\"1\""), want);
    snprintf(want, sizeof want, "%" PRIu64, 4 * file_u64(ib, "counters/port_xmit_data"));
    CHECK_STR(sample(t, "primus_ib_port_transmit_data_bytes_total", "device=\"mlx5_0\",port=\"1\""), want);
    snprintf(want, sizeof want, "%" PRIu64, file_u64(ib, "counters/port_rcv_packets"));
    CHECK_STR(sample(t, "primus_ib_port_receive_packets_total", "device=\"mlx5_0\",port=\"1\""), want);
    /* The node exporter's rdma_stat_<hw counter>{device,port}. */
    snprintf(want, sizeof want, "%" PRIu64, file_u64(ib, "hw_counters/rx_write_requests"));
    CHECK_STR(sample(t, "rdma_stat_rx_write_requests", "device=\"mlx5_0\",port=\"1\""), want);
    CHECK_STR(sample(t, "rdma_rx_write_requests", "device=\"mlx5_0\",port=\"1\""), want);
    snprintf(want, sizeof want, "%" PRIu64, file_u64(ib, "hw_counters/rx_read_requests"));
    CHECK_STR(sample(t, "rdma_stat_rx_read_requests", "device=\"mlx5_0\",port=\"1\""), want);
    CHECK_STR(sample(t, "primus_rdma_hw_stat_total",
                     "device=\"mlx5_0\",port=\"1\",counter=\"rx_read_requests\""), want);
    snprintf(want, sizeof want, "%" PRIu64, file_u64(ib, "hw_counters/out_of_sequence"));
    CHECK_STR(sample(t, "primus_roce_out_of_sequence_total", "device=\"mlx5_0\",port=\"1\""), want);
    CHECK_STR(sample(t, "rdma_out_of_sequence", "device=\"mlx5_0\",port=\"1\""), want);
    snprintf(want, sizeof want, "%" PRIu64, file_u64(ib, "hw_counters/roce_adp_retrans"));
    CHECK_STR(sample(t, "primus_roce_adp_retrans_total", "device=\"mlx5_0\",port=\"1\""), want);
    CHECK(strstr(t, "# TYPE rdma_stat_rx_write_requests untyped\n") != NULL);
    CHECK_STR(sample(t, "primus_ib_port_state", "device=\"mlx5_0\",port=\"1\""), "4");
    /* rate: "25 Gb/sec (1X EDR)" = 25000 Mb/s = 3125000000 bytes/s */
    CHECK_STR(sample(t, "primus_ib_port_rate_bytes_per_second", "device=\"mlx5_0\",port=\"1\""),
              "3125000000");
    char devs[16];
    snprintf(devs, sizeof devs, "%zu", snap.model.n_devices);
    CHECK_STR(sample(t, "primus_rdma_devices", ""), devs);
    /* first poll: no rates yet */
    CHECK(!has_family(t, "primus_ib_port_receive_bytes_per_second"));
    free(t);

    /* /rdma: one entry per device, GUIDs as colon-separated bytes. */
    unsigned status;
    char *s = dump(pna_json_rdma(&v), &status);
    json_t *j = json_loads(s, 0, NULL);
    json_t *data = json_object_get(j, "data");
    CHECK_INT(json_array_size(data), snap.model.n_devices);
    for (size_t i = 0; i < json_array_size(data); i++) {
        json_t *e = json_array_get(data, i);
        if (strcmp(json_string_value(json_object_get(e, "if_name")), "mlx5_0") != 0)
            continue;
        CHECK_INT(json_integer_value(json_object_get(e, "if_index")), i);
        /* node_guid file "0a7f:bc12:45ef:d23b" */
        CHECK_STR(json_string_value(json_object_get(e, "node_guid")), "0a:7f:bc:12:45:ef:d2:3b");
        CHECK(json_is_string(json_object_get(e, "link_layer")));
        CHECK(json_is_string(json_object_get(e, "port_guid")));
        CHECK(json_is_string(json_object_get(e, "sys_image_guid")));
    }
    json_decref(j);
    free(s);
    pna_ib_model_free(&snap.model);
}

/* ---- PFC from recorded mlx5 ethtool statistics ---------------------------------------- */

static bool load_pfc(struct pna_pfc_snap *snap)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/ethtool/ethq-mlx5_core-connectx4lx.txt", unit_fixtures());
    char *text = slurp(path, NULL);
    if (!text)
        return false;
    size_t cap = 1024, n = 0;
    struct pna_eth_stat *stats = calloc(cap, sizeof *stats);
    for (char *line = strtok(text, "\n"); line && n + 1 < cap; line = strtok(NULL, "\n")) {
        char *colon = strchr(line, ':');
        if (!colon)
            continue;
        *colon = '\0';
        snprintf(stats[n].name, sizeof stats[n].name, "%s", line);
        stats[n].value = strtoull(colon + 1, NULL, 10);
        n++;
    }
    /* One PFC duration the recorded NIC did not have, to check the us -> s step. */
    snprintf(stats[n].name, sizeof stats[n].name, "rx_prio3_pause_duration");
    stats[n].value = 1500000;
    n++;
    free(text);
    memset(snap, 0, sizeof *snap);
    snap->model.ifs = calloc(1, sizeof *snap->model.ifs);
    snap->model.n_ifs = 1;
    struct pna_pfc_if *pif = &snap->model.ifs[0];
    snprintf(pif->ifname, sizeof pif->ifname, "ens1f0np0");
    snprintf(pif->driver, sizeof pif->driver, "mlx5_core");
    pif->ifindex = 4;
    int rc = pna_pfc_fill(pif, stats, n);
    free(stats);
    pna_pfc_model_index(&snap->model);
    return rc == 0;
}

static void test_pfc(void)
{
    struct pna_pfc_snap snap;
    CHECK(load_pfc(&snap));
    struct pna_http_view v;
    base_view(&v);
    attach(&v, PNA_DOM_PFC, &snap.base);
    size_t errors;
    char *t = render(&v, &errors);
    CHECK_U64(errors, 0);
    const char *ifl = "interface=\"ens1f0np0\"";
    /* Which RDMA port the interface is: joined from the view's IB snapshot. */
    CHECK_STR(sample(t, "primus_pfc_interface_info", "interface=\"ens1f0np0\",if_index=\"4\","
                                                     "rdma_device=\"\",rdma_port=\"\",driver=\"mlx5_core\""),
              "1");
    struct pna_ib_snap ib;
    struct pna_ib_device dev;
    struct pna_ib_port port;
    memset(&ib, 0, sizeof ib);
    memset(&dev, 0, sizeof dev);
    memset(&port, 0, sizeof port);
    snprintf(dev.name, sizeof dev.name, "mlx5_0");
    snprintf(port.netdev, sizeof port.netdev, "ens1f0np0");
    port.num = 1;
    dev.ports = &port;
    dev.n_ports = 1;
    ib.model.devices = &dev;
    ib.model.n_devices = 1;
    attach(&v, PNA_DOM_IB, &ib.base);
    free(t);
    t = render(&v, &errors);
    CHECK_U64(errors, 0);
    CHECK_STR(sample(t, "primus_pfc_interface_info", "interface=\"ens1f0np0\",if_index=\"4\","
                                                     "rdma_device=\"mlx5_0\",rdma_port=\"1\",driver=\"mlx5_core\""),
              "1");
    /* The file says rx_pause_ctrl_phy: 0 and rx_discards_phy: 0, both present:
     * primusPauseRxFrames is mlx5's physical-port count of all pause frames. */
    CHECK_STR(sample(t, "primus_pause_rx_frames_total", ifl), "0");
    CHECK_STR(sample(t, "primus_pause_rx_discards_phy_packets_total", ifl), "0");
    CHECK_STR(sample(t, "primus_pfc_rx_duration_seconds_total", "interface=\"ens1f0np0\",priority=\"3\""),
              "1.5");
    /* Unmapped statistics keep the driver's name: rx_packets: 845320277 in the file. */
    CHECK_STR(sample(t, "primus_ethtool_statistic_total", "interface=\"ens1f0np0\",statistic=\"rx_packets\""),
              "845320277");
    CHECK_STR(sample(t, "primus_ethtool_statistic_total",
                     "interface=\"ens1f0np0\",statistic=\"rx_pause_ctrl_phy\""), "(absent)");
    free(t);
    pna_pfc_model_free(&snap.model);
}

/* ---- containers, pods, storage ---------------------------------------------------------- */

struct container_fixture {
    struct pna_containers_snap snap;
    struct pna_kubelet_snap kubelet;
    struct pna_storage_snap storage;
    struct pna_container_device devs[3];
    struct pna_container rows[2];
    struct pna_pod pods[2];
};

static void fill_containers(struct container_fixture *f, const struct pna_gpu *gpu)
{
    memset(f, 0, sizeof *f);
    struct pna_container *c = &f->rows[0];
    pna_container_init(c);
    c->runtime = PNA_RUNTIME_CONTAINERD;
    c->state = PNA_CSTATE_RUNNING;
    c->id = "4c1f7d5ab4e6d9d55a0cd0b7ff81f0ddc3a1c2e0c7b0f1a2b3c4d5e6f7a8b9c0";
    c->name = "trainer";
    c->pod_name = "llm-train-0";
    c->pod_namespace = "ml";
    c->pod_uid = "0e9a6b1c-1111-2222-3333-444455556666";
    c->image = "registry.local/train:1.0";
    c->rt_namespace = "k8s.io";
    c->has_memory = c->has_limit = c->has_oom = true;
    c->mem_usage_bytes = 1073741824;
    c->mem_limit_bytes = 4294967296;
    c->oom_kills = 2;
    c->start_ms = 1794999000000LL;
    c->dev_first = 0;
    c->dev_count = 3;
    c->gpu_count = 1;
    c->rdma_count = 1;
    struct pna_container_device *d = f->devs;
    d[0] = (struct pna_container_device){ .kind = PNA_DEV_GPU, .family = PNA_DEVF_DRM_RENDER, .type = 'c',
                                    .has_numbers = true, .major = 226, .minor = 128, .unit = 128,
                                    .gpu_index = gpu ? gpu->index : 0 };
    snprintf(d[0].path, sizeof d[0].path, "/dev/dri/renderD128");
    d[1] = (struct pna_container_device){ .kind = PNA_DEV_GPU, .family = PNA_DEVF_KFD, .unit = -1 };
    snprintf(d[1].path, sizeof d[1].path, "/dev/kfd");
    d[2] = (struct pna_container_device){ .kind = PNA_DEV_RDMA, .family = PNA_DEVF_IB_UVERBS, .unit = 0 };
    snprintf(d[2].path, sizeof d[2].path, "/dev/infiniband/uverbs0");
    snprintf(d[2].rdma_dev, sizeof d[2].rdma_dev, "mlx5_0");
    struct pna_container *e = &f->rows[1];
    pna_container_init(e);
    e->runtime = PNA_RUNTIME_DOCKER;
    e->state = PNA_CSTATE_EXITED;
    e->id = "9a9a";
    e->name = "sidecar \"quoted\"";
    e->dev_first = 3;
    f->snap.set.rows = f->rows;
    f->snap.set.count = 2;
    f->snap.set.devs = f->devs;
    f->snap.set.dev_count = 3;
    f->snap.containerd_seen = true;
    f->snap.oom_kills = 5;

    snprintf(f->kubelet.node_name, sizeof f->kubelet.node_name, "k8s-node-7");
    f->kubelet.base.taken_ms = NOW_MS - 1000;
    struct pna_pod *p = f->pods;
    snprintf(p[0].namespace_, sizeof p[0].namespace_, "ml");
    snprintf(p[0].name, sizeof p[0].name, "llm-train-0");
    snprintf(p[0].uid, sizeof p[0].uid, "0e9a6b1c-1111-2222-3333-444455556666");
    p[0].phase = PNA_POD_RUNNING;
    p[0].has_ephemeral = true;
    p[0].ephemeral_used_bytes = 123456789;
    p[0].gpus_requested = 1;
    snprintf(p[1].namespace_, sizeof p[1].namespace_, "kube-system");
    snprintf(p[1].name, sizeof p[1].name, "dns");
    snprintf(p[1].uid, sizeof p[1].uid, "u2");
    p[1].phase = PNA_POD_SUCCEEDED;
    f->kubelet.pods.rows = p;
    f->kubelet.pods.count = 2;
    f->kubelet.node_fs = (struct pna_node_storage){ .valid = true, .source = PNA_STORAGE_KUBELET,
                                                    .capacity_bytes = 1000000000000ULL,
                                                    .available_bytes = 600000000000ULL,
                                                    .used_bytes = 400000000000ULL,
                                                    .usage_percent_x100 = 4000 };
    f->kubelet.gpu = (struct pna_k8s_gpu){ .valid = true, .total = 8, .allocated = 3, .rate_x100 = 3750 };
    snprintf(f->storage.path, sizeof f->storage.path, "/var/lib/kubelet");
    f->storage.base.taken_ms = NOW_MS - 500;
    f->storage.node_fs = (struct pna_node_storage){ .valid = true, .source = PNA_STORAGE_STATVFS,
                                                    .capacity_bytes = 2000, .available_bytes = 500,
                                                    .used_bytes = 1500, .usage_percent_x100 = 7500,
                                                    .inodes = 100, .inodes_free = 60 };
}

static void test_containers_storage(void)
{
    struct gpu_fixture g;
    CHECK(load_gpus(&g));
    snprintf(g.list.gpus[0].drm_render, sizeof g.list.gpus[0].drm_render, "renderD128");
    struct container_fixture f;
    fill_containers(&f, &g.list.gpus[0]);
    char sysfs[1024], err[256];
    snprintf(sysfs, sizeof sysfs, "%s/ib-sysfs/procfs/sys", unit_fixtures());
    struct pna_roots roots = { sysfs, "/nonexistent", "/nonexistent", "/nonexistent" };
    struct pna_ib_snap ib;
    memset(&ib, 0, sizeof ib);
    CHECK_INT(pna_ib_sysfs_read(&roots, &ib.model, err, sizeof err), 0);

    struct pna_http_view v;
    base_view(&v);
    v.node_name = "k8s-node-7";
    attach(&v, PNA_DOM_GPU, &g.snap.base);
    attach(&v, PNA_DOM_IB, &ib.base);
    attach(&v, PNA_DOM_CONTAINERS, &f.snap.base);
    attach(&v, PNA_DOM_KUBELET, &f.kubelet.base);
    attach(&v, PNA_DOM_STORAGE, &f.storage.base);
    size_t errors;
    char *t = render(&v, &errors);
    CHECK_U64(errors, 0);
    const char *id = "container_id=\"4c1f7d5ab4e6d9d55a0cd0b7ff81f0ddc3a1c2e0c7b0f1a2b3c4d5e6f7a8b9c0\","
                     "container=\"trainer\",pod=\"llm-train-0\",namespace=\"ml\"";
    CHECK_STR(sample(t, "primus_container_memory_usage_bytes", id), "1073741824");
    CHECK_STR(sample(t, "primus_container_memory_limit_bytes", id), "4294967296");
    CHECK_STR(sample(t, "primus_container_oom_kills_total", id), "2");
    CHECK_STR(sample(t, "primus_container_gpus", id), "1");
    CHECK_STR(sample(t, "primus_container_start_time_seconds", id), "1794999000");
    CHECK_STR(sample(t, "primus_containers", ""), "2");
    CHECK_STR(sample(t, "primus_containers_oom_kills_seen_total", ""), "5");
    /* label values are escaped */
    CHECK_STR(sample(t, "primus_container_state",
                     "container_id=\"9a9a\",container=\"sidecar \\\"quoted\\\"\",pod=\"\",namespace=\"\","
                     "state=\"stopped\""), "1");
    char dev[1024];
    snprintf(dev, sizeof dev, "%s,path=\"/dev/dri/renderD128\",kind=\"gpu\",major=\"226\",minor=\"128\","
             "gpu_pci_bus_id=\"%s\",rdma_device=\"\",source=\"specDevice\"", id, g.list.gpus[0].pci_bus_id);
    CHECK_STR(sample(t, "primus_container_device_info", dev), "1");
    snprintf(dev, sizeof dev, "gpu=\"%u\",pci_bus_id=\"%s\",uuid=\"%s\",container_id=\"%s\","
             "container=\"trainer\",pod=\"llm-train-0\",namespace=\"ml\",job=\"\"",
             (unsigned)g.list.gpus[0].vendor_index, g.list.gpus[0].pci_bus_id, g.list.gpus[0].uuid,
             f.rows[0].id);
    CHECK_STR(sample(t, "primus_gpu_holder_info", dev), "1");
    /* Every per-GPU series names the GPU's holder. */
    snprintf(dev, sizeof dev, "gpu=\"%u\",pci_bus_id=\"%s\",uuid=\"%s\","
             "container=\"trainer\",pod=\"llm-train-0\",namespace=\"ml\"",
             (unsigned)g.list.gpus[0].vendor_index, g.list.gpus[0].pci_bus_id, g.list.gpus[0].uuid);
    CHECK(strcmp(sample(t, "primus_gpu_temperature_celsius", dev), "(absent)") != 0);

    /* Storage: the kubelet's figures while fresh, and the node exporter's names unchanged. */
    CHECK_STR(sample(t, "node_ephemeral_storage_usage_bytes", "node=\"k8s-node-7\""), "400000000000");
    CHECK_STR(sample(t, "node_ephemeral_storage_available_bytes", "node=\"k8s-node-7\""), "600000000000");
    CHECK_STR(sample(t, "node_ephemeral_storage_capacity_bytes", "node=\"k8s-node-7\""), "1000000000000");
    CHECK_STR(sample(t, "node_ephemeral_storage_usage_percent", "node=\"k8s-node-7\""), "40");
    CHECK_STR(sample(t, "primus_storage_usage_ratio", ""), "0.4");
    CHECK_STR(sample(t, "primus_storage_info", "source=\"kubelet\",path=\"/var/lib/kubelet\""), "1");
    CHECK_STR(sample(t, "pod_ephemeral_storage_usage_bytes", "namespace=\"ml\",pod=\"llm-train-0\","
                                                             "node=\"k8s-node-7\""), "123456789");
    CHECK_STR(sample(t, "pod_ephemeral_storage_usage_bytes", "namespace=\"kube-system\",pod=\"dns\","
                                                             "node=\"k8s-node-7\""), "(absent)");
    CHECK_STR(sample(t, "node_k8s_gpu_allocation_rate", ""), "37.5");
    CHECK_STR(sample(t, "primus_k8s_gpu_allocation_ratio", ""), "0.375");
    CHECK_STR(sample(t, "primus_k8s_gpus_allocatable", ""), "8");
    CHECK_STR(sample(t, "primus_k8s_pods_running", ""), "1");
    free(t);

    /* No kubelet snapshot (none answers, or the poller core dropped a stale
     * one after staleAfter): statvfs of the kubelet root instead. */
    attach(&v, PNA_DOM_KUBELET, NULL);
    t = render(&v, NULL);
    CHECK_STR(sample(t, "node_ephemeral_storage_usage_bytes", "node=\"k8s-node-7\""), "1500");
    CHECK_STR(sample(t, "primus_storage_inodes_used", ""), "40");
    CHECK_STR(sample(t, "primus_storage_info", "source=\"statvfs\",path=\"/var/lib/kubelet\""), "1");
    free(t);
    attach(&v, PNA_DOM_KUBELET, &f.kubelet.base);

    /* /pods: a bare array; per-GPU nodes and uverbs nodes only. */
    unsigned status;
    char *s = dump(pna_json_pods(&v), &status);
    CHECK_INT(status, 200);
    json_t *j = json_loads(s, 0, NULL);
    CHECK(json_is_array(j));
    CHECK_INT(json_array_size(j), 2);
    json_t *c0 = json_array_get(j, 0);
    CHECK_STR(json_string_value(json_object_get(c0, "pod_name")), "llm-train-0");
    CHECK_STR(json_string_value(json_object_get(c0, "pod_uuid")), "0e9a6b1c-1111-2222-3333-444455556666");
    json_t *gl = json_object_get(json_object_get(c0, "devices"), "gpu");
    CHECK_INT(json_array_size(gl), 1);
    json_t *g0 = json_array_get(gl, 0);
    CHECK_STR(json_string_value(json_object_get(g0, "kind")), "GPU");
    CHECK_STR(json_string_value(json_object_get(g0, "path")), "/dev/dri/renderD128");
    CHECK_INT(json_integer_value(json_object_get(g0, "major")), 226);
    CHECK_INT(json_integer_value(json_object_get(g0, "minor")), 128);
    CHECK_STR(json_string_value(json_object_get(g0, "slot")), g.list.gpus[0].pci_bus_id);
    CHECK_STR(json_string_value(json_object_get(g0, "uuid")), g.list.gpus[0].uuid);
    json_t *i0 = json_array_get(json_object_get(json_object_get(c0, "devices"), "infiniband"), 0);
    CHECK_STR(json_string_value(json_object_get(i0, "name")), "mlx5_0");
    CHECK_STR(json_string_value(json_object_get(i0, "kind")), "RDMA");
    CHECK_INT(json_integer_value(json_object_get(i0, "id")), 0);
    CHECK(json_is_null(json_object_get(i0, "major")));   /* named by path only */
    CHECK(json_is_null(json_object_get(i0, "minor")));
    CHECK_STR(json_string_value(json_object_get(i0, "uuid")), "0a:7f:bc:12:45:ef:d2:3b");
    json_decref(j);
    free(s);
    pna_ib_model_free(&ib.model);
    pna_gpu_list_free(&g.list);
}

/* ---- everything at once: one exposition, lint-clean ------------------------------------ */

static void test_all_domains_promtool(void)
{
    struct pna_node_snap ns;
    memset(&ns, 0, sizeof ns);
    fill_node(&ns.node);
    struct gpu_fixture g;
    CHECK(load_gpus(&g));
    struct container_fixture f;
    fill_containers(&f, &g.list.gpus[0]);
    struct pna_pfc_snap pfc;
    CHECK(load_pfc(&pfc));
    /* the node_exporter tree: counters_ext, a saturated counter, iWARP N/A */
    char sysfs[1024], err[256];
    snprintf(sysfs, sizeof sysfs, "%s/ib-sysfs/node_exporter/sys", unit_fixtures());
    struct pna_roots roots = { sysfs, "/nonexistent", "/nonexistent", "/nonexistent" };
    struct pna_ib_snap ib;
    memset(&ib, 0, sizeof ib);
    CHECK_INT(pna_ib_sysfs_read(&roots, &ib.model, err, sizeof err), 0);
    pna_ib_derive(&ib.model, NULL);
    struct pna_poller_info pl[2];
    fill_poller(&pl[0], 1, "node", PNA_POLLER_OK, NOW_MS - 1500);
    fill_poller(&pl[1], 2, "gpu", PNA_POLLER_TIMED_OUT, NOW_MS - 4000);

    struct pna_http_view v;
    base_view(&v);
    attach(&v, PNA_DOM_NODE, &ns.base);
    attach(&v, PNA_DOM_GPU, &g.snap.base);
    attach(&v, PNA_DOM_IB, &ib.base);
    attach(&v, PNA_DOM_PFC, &pfc.base);
    attach(&v, PNA_DOM_CONTAINERS, &f.snap.base);
    attach(&v, PNA_DOM_KUBELET, &f.kubelet.base);
    attach(&v, PNA_DOM_STORAGE, &f.storage.base);
    v.base.pollers = pl;
    v.base.n_pollers = 2;

    struct pna_buf b;
    pna_buf_init(&b);
    CHECK_U64(pna_metrics_render(&b, &v), 0);
    CHECK(!b.failed);
    CHECK(strstr(pna_buf_cstr(&b), "\nprimus_ib_port_saturated{") != NULL);
    /* Every family's HELP and TYPE once: count TYPE lines against distinct names. */
    size_t types = 0;
    for (const char *p = pna_buf_cstr(&b); (p = strstr(p, "# TYPE ")); p++)
        types++;
    CHECK(types > 150);

    if (system("command -v promtool >/dev/null 2>&1") == 0) {
        char path[] = "/tmp/pna-http-metrics-XXXXXX";
        int fd = mkstemp(path);
        CHECK(fd >= 0);
        if (fd >= 0) {
            CHECK(write(fd, b.data, b.len) == (ssize_t)b.len);
            close(fd);
            char cmd[256];
            snprintf(cmd, sizeof cmd, "promtool check metrics < %s", path);
            int rc = system(cmd);
            CHECK_INT(rc, 0);
            if (rc != 0)
                fprintf(stderr, "exposition kept in %s\n", path);
            else
                unlink(path);
        }
    } else {
        printf("promtool not installed: lint check skipped\n");
    }
    pna_buf_free(&b);
    pna_pfc_model_free(&pfc.model);
    pna_ib_model_free(&ib.model);
    pna_gpu_list_free(&g.list);
}

int main(void)
{
    test_split_os();
    test_node_metrics();
    test_node_name();
    test_node_json();
    test_agent();
    test_gpu();
    test_rdma();
    test_pfc();
    test_containers_storage();
    test_all_domains_promtool();
    UNIT_END();
}
