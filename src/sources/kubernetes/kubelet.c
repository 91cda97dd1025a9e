/* sources/kubernetes/kubelet.c -- pods, ephemeral storage and GPU requests from
 * the kubelet API (see kubelet.h). */
#include "pna_autoconf.h"
#include "sources/kubernetes/kubelet.h"
#include "transport/http_client.h"
#include "model/containers.h"
#include "util/fileio.h"
#include "util/json_load.h"

#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *jstr(const json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

/* ---- quantities -------------------------------------------------------------------- */

int pna_k8s_quantity_milli(const char *s, int64_t *out)
{
    if (!s || !*s)
        return -1;
    const char *p = s;
    int64_t whole = 0, frac = 0, frac_div = 1;
    if (!isdigit((unsigned char)*p) && *p != '.')
        return -1;
    for (; isdigit((unsigned char)*p); p++) {
        if (whole > INT64_MAX / 10 / 1000000000000LL)
            return -1;
        whole = whole * 10 + (*p - '0');
    }
    if (*p == '.') {
        p++;
        for (; isdigit((unsigned char)*p); p++)
            if (frac_div < 1000000) {
                frac = frac * 10 + (*p - '0');
                frac_div *= 10;
            }
    }
    /* Suffix multipliers, in thousandths ("m" is one thousandth). */
    static const struct { const char *sfx; int64_t mul_milli; } sfx[] = {
        { "", 1000 }, { "m", 1 }, { "k", 1000LL * 1000 }, { "M", 1000LL * 1000000 },
        { "G", 1000LL * 1000000000 }, { "Ki", 1000LL * 1024 }, { "Mi", 1000LL * 1048576 },
        { "Gi", 1000LL * 1073741824 },
    };
    for (size_t i = 0; i < sizeof sfx / sizeof sfx[0]; i++) {
        if (strcmp(p, sfx[i].sfx) != 0)
            continue;
        int64_t m = sfx[i].mul_milli;
        /* frac * m / frac_div < m: leave room for it */
        if (whole > (INT64_MAX - m) / m)
            return -1;
        *out = whole * m + frac * m / frac_div;
        return 0;
    }
    return -1;
}

/* A GPU resource: "<vendor domain>/gpu", or Intel's per-driver names. */
static bool is_gpu_resource(const char *name)
{
    const char *slash = strchr(name, '/');
    if (!slash || slash == name)
        return false;
    if (strcmp(slash + 1, "gpu") == 0)
        return true;
    return strcmp(name, "gpu.intel.com/i915") == 0 || strcmp(name, "gpu.intel.com/xe") == 0;
}

/* A + B for non-negative A and B, stopping at INT64_MAX: GPU counts come from
 * outside and may be absurd, and signed overflow is undefined. */
static int64_t add_sat(int64_t a, int64_t b)
{
    return a > INT64_MAX - b ? INT64_MAX : a + b;
}

static int64_t resource_gpus_milli(const json_t *resources_map)
{
    int64_t total = 0;
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)resources_map, key, v) {
        if (!is_gpu_resource(key))
            continue;
        int64_t q = 0;
        if (json_is_string(v))
            pna_k8s_quantity_milli(json_string_value(v), &q);
        else if (json_is_integer(v) && json_integer_value(v) > 0)
            q = json_integer_value(v) <= INT64_MAX / 1000 ? json_integer_value(v) * 1000 : INT64_MAX;
        total = add_sat(total, q);
    }
    return total;
}

/* Extended resources cannot be overcommitted: limit and request are equal
 * when both are set, and the request defaults to the limit. */
static int64_t container_gpus_milli(const json_t *container)
{
    json_t *res = json_object_get(container, "resources");
    int64_t lim = resource_gpus_milli(json_object_get(res, "limits"));
    return lim ? lim : resource_gpus_milli(json_object_get(res, "requests"));
}

static uint32_t pod_gpus(const json_t *spec)
{
    int64_t sum = 0, init_max = 0;
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(spec, "containers"), i, c)
        sum = add_sat(sum, container_gpus_milli(c));
    json_array_foreach(json_object_get(spec, "initContainers"), i, c) {
        const char *rp = jstr(c, "restartPolicy");
        int64_t g = container_gpus_milli(c);
        if (rp && strcmp(rp, "Always") == 0)
            sum = add_sat(sum, g); /* a sidecar runs alongside the containers */
        else if (g > init_max)
            init_max = g;
    }
    int64_t eff = sum > init_max ? sum : init_max;
    /* GPUs are whole devices; a fractional quantity rounds up. */
    int64_t whole = eff / 1000 + (eff % 1000 != 0);
    return whole > UINT32_MAX ? UINT32_MAX : (uint32_t)whole;
}

/* Sum of the app containers' ephemeral-storage limits, in bytes. */
static uint64_t pod_ephemeral_limit(const json_t *spec)
{
    uint64_t sum = 0;
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(spec, "containers"), i, c) {
        json_t *lim = json_object_get(json_object_get(json_object_get(c, "resources"), "limits"),
                                      "ephemeral-storage");
        int64_t milli;
        if (json_is_string(lim) && pna_k8s_quantity_milli(json_string_value(lim), &milli) == 0)
            sum += (uint64_t)(milli / 1000);
    }
    return sum;
}

static uint8_t phase_from_text(const char *s)
{
    if (!s)
        return PNA_POD_UNKNOWN;
    if (!strcmp(s, "Pending"))
        return PNA_POD_PENDING;
    if (!strcmp(s, "Running"))
        return PNA_POD_RUNNING;
    if (!strcmp(s, "Succeeded"))
        return PNA_POD_SUCCEEDED;
    if (!strcmp(s, "Failed"))
        return PNA_POD_FAILED;
    return PNA_POD_UNKNOWN;
}

/* A UID is kept whole or not at all: a cut one could name another pod. */
static void copy_uid(char dst[PNA_POD_UID_MAX + 1], const char *uid)
{
    if (uid && strlen(uid) <= PNA_POD_UID_MAX)
        pna_copy_display(dst, uid, PNA_POD_UID_MAX + 1);
    else
        dst[0] = '\0';
}

/* The allowed labels of pod P (its metadata META) into LABELS; -1 when out of memory. */
static int read_labels(const json_t *meta, const struct pna_pod *p,
                       const struct pna_label_allow *allow, struct pna_pod_label_set *labels)
{
    json_t *obj = json_object_get(meta, "labels");
    if (!json_is_object(obj))
        return 0;
    struct pna_pod_label_pod pod = { p->uid, p->namespace_, p->name };
    pna_pod_label_set_begin_pod(labels);
    const char *key;
    json_t *v;
    json_object_foreach(obj, key, v) {
        if (json_is_string(v) &&
            pna_pod_label_set_add(labels, allow, &pod, key, json_string_value(v)) < 0)
            return -1;
    }
    return 0;
}

int pna_kubelet_parse_pods(const char *text, size_t len, struct pna_pod_set *pods,
                           uint32_t *gpus_allocated, char *err, size_t errlen)
{
    return pna_kubelet_parse_pods_labels(text, len, pods, gpus_allocated, NULL, NULL, err, errlen);
}

int pna_kubelet_parse_pods_labels(const char *text, size_t len, struct pna_pod_set *pods,
                                  uint32_t *gpus_allocated, const struct pna_label_allow *allow,
                                  struct pna_pod_label_set *labels, char *err, size_t errlen)
{
    json_t *root = pna_json_load(text, len, 0, true, "/pods", err, errlen);
    if (!root)
        return -1;
    json_t *items = json_object_get(root, "items");
    if (!json_is_array(items)) {
        snprintf(err, errlen, "/pods: no items array");
        json_decref(root);
        return -1;
    }
    size_t before = pods->count, i;
    uint32_t allocated = 0;
    json_t *it;
    json_array_foreach(items, i, it) {
        json_t *meta = json_object_get(it, "metadata");
        const char *name = jstr(meta, "name");
        if (!name)
            continue;
        struct pna_pod *p = pna_pod_set_add(pods);
        if (!p) {
            pods->count = before;
            snprintf(err, errlen, "out of memory");
            json_decref(root);
            return -1;
        }
        pna_copy_display(p->name, name, sizeof p->name);
        pna_copy_display(p->namespace_, jstr(meta, "namespace"), sizeof p->namespace_);
        copy_uid(p->uid, jstr(meta, "uid"));
        p->phase = phase_from_text(jstr(json_object_get(it, "status"), "phase"));
        p->gpus_requested = pod_gpus(json_object_get(it, "spec"));
        p->ephemeral_limit_bytes = pod_ephemeral_limit(json_object_get(it, "spec"));
        if (p->phase != PNA_POD_SUCCEEDED && p->phase != PNA_POD_FAILED)
            allocated += p->gpus_requested;
        if (labels && allow && allow->count && read_labels(meta, p, allow, labels) < 0) {
            pods->count = before;
            snprintf(err, errlen, "out of memory");
            json_decref(root);
            return -1;
        }
    }
    json_decref(root);
    if (labels)
        pna_pod_label_set_finish(labels);
    *gpus_allocated += allocated;
    return 0;
}

static bool get_u64(const json_t *obj, const char *key, uint64_t *out)
{
    json_t *v = json_object_get(obj, key);
    if (!json_is_integer(v) || json_integer_value(v) < 0)
        return false;
    *out = (uint64_t)json_integer_value(v);
    return true;
}

static struct pna_pod *find_pod(struct pna_pod_set *pods, const char *uid, const char *ns,
                                const char *name)
{
    for (size_t i = 0; i < pods->count; i++) {
        struct pna_pod *p = &pods->rows[i];
        if (uid && *uid ? strcmp(p->uid, uid) == 0
                        : strcmp(p->name, name) == 0 && strcmp(p->namespace_, ns) == 0)
            return p;
    }
    return NULL;
}

int pna_kubelet_parse_summary(const char *text, size_t len, struct pna_pod_set *pods,
                              struct pna_node_storage *node_fs, char *node_name, size_t name_cap,
                              char *err, size_t errlen)
{
    json_t *root = pna_json_load(text, len, 0, true, "/stats/summary", err, errlen);
    if (!root)
        return -1;
    json_t *node = json_object_get(root, "node");
    if (!json_is_object(node)) {
        snprintf(err, errlen, "/stats/summary: no node object");
        json_decref(root);
        return -1;
    }
    pna_copy_display(node_name, jstr(node, "nodeName"), name_cap);
    memset(node_fs, 0, sizeof *node_fs);
    json_t *fs = json_object_get(node, "fs");
    if (get_u64(fs, "capacityBytes", &node_fs->capacity_bytes) &&
        get_u64(fs, "availableBytes", &node_fs->available_bytes)) {
        node_fs->valid = true;
        node_fs->source = PNA_STORAGE_KUBELET;
        if (!get_u64(fs, "usedBytes", &node_fs->used_bytes))
            node_fs->used_bytes = 0;
        get_u64(fs, "inodes", &node_fs->inodes);
        get_u64(fs, "inodesFree", &node_fs->inodes_free);
        pna_node_storage_finish(node_fs);
    }
    /* Pods are joined by uid; a few hundred per node makes the linear search fine. */
    size_t i;
    json_t *ps;
    json_array_foreach(json_object_get(root, "pods"), i, ps) {
        json_t *ref = json_object_get(ps, "podRef");
        const char *name = jstr(ref, "name"), *ns = jstr(ref, "namespace"), *uid = jstr(ref, "uid");
        if (!name)
            continue;
        char cuid[PNA_POD_UID_MAX + 1], cname[254], cns[64];
        copy_uid(cuid, uid);
        pna_copy_display(cname, name, sizeof cname);
        pna_copy_display(cns, ns, sizeof cns);
        struct pna_pod *p = find_pod(pods, cuid, cns, cname);
        if (!p) {
            p = pna_pod_set_add(pods);
            if (!p) {
                snprintf(err, errlen, "out of memory");
                json_decref(root);
                return -1;
            }
            memcpy(p->name, cname, sizeof p->name);
            memcpy(p->namespace_, cns, sizeof p->namespace_);
            memcpy(p->uid, cuid, sizeof p->uid);
        }
        json_t *eph = json_object_get(ps, "ephemeral-storage");
        if (get_u64(eph, "usedBytes", &p->ephemeral_used_bytes))
            p->has_ephemeral = true;
        if (get_u64(eph, "inodesUsed", &p->ephemeral_inodes_used))
            p->has_inodes = true;
    }
    json_decref(root);
    return 0;
}

/* ---- fetching -------------------------------------------------------------------------- */

static bool file_exists(const char *p)
{
    struct stat st;
    return p && *p && stat(p, &st) == 0;
}

/* The token is re-read every poll: projected service-account tokens rotate. */
static char *read_token(const char *file)
{
    char *tok = NULL;
    size_t len = 0;
    if (!file_exists(file) || pna_read_alloc(file, PNA_KUBELET_TOKEN_MAX, &tok, &len) < 0)
        return NULL;
    while (len > 0 && isspace((unsigned char)tok[len - 1]))
        tok[--len] = '\0';
    return tok;
}

static void wipe_free(char *s)
{
    if (!s)
        return;
    memset(s, 0, strlen(s));
    free(s);
}

int pna_kubelet_fetch(struct pna_hclient *http, const struct pna_kubelet_opts *o,
                      struct pna_kubelet_result *result, char *err, size_t errlen)
{
    memset(result, 0, sizeof *result);
    char *token = read_token(o->token_file);
    struct pna_hclient_target t = {
        .base_url = o->url, .bearer_token = token,
        .ca_file = file_exists(o->ca_file) ? o->ca_file : NULL,
        .insecure = o->insecure, .timeout_ms = o->timeout_ms,
        .connect_timeout_ms = o->timeout_ms,
    };
    char *body = NULL;
    size_t len = 0;
    int rc = pna_hclient_get(http, &t, "/pods", PNA_KUBELET_BODY_MAX, &body, &len, NULL, err,
                             errlen);
    if (rc == 0) {
        rc = pna_kubelet_parse_pods_labels(body, len, &result->pods, &result->gpus_allocated,
                                           o->pod_labels, &result->labels, err, errlen);
        free(body);
        body = NULL;
    }
    if (rc == 0)
        rc = pna_hclient_get(http, &t, "/stats/summary", PNA_KUBELET_BODY_MAX, &body, &len, NULL,
                             err, errlen);
    if (rc == 0) {
        rc = pna_kubelet_parse_summary(body, len, &result->pods, &result->node_fs,
                                       result->node_name, sizeof result->node_name, err, errlen);
        free(body);
    }
    wipe_free(token);
    if (rc < 0) {
        pna_pod_set_free(&result->pods);
        pna_pod_label_set_free(&result->labels);
    }
    return rc;
}
