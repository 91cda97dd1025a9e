/* sources/containers/docker.c -- pure parsers of Docker Engine API answers:
 * the container list, one container's inspect document and /events lines
 * (see docker.h).  No I/O: the requests are in docker_api.c and the event
 * stream in watchers/docker_events.c. */
#include "pna_autoconf.h"
#include "sources/containers/docker.h"
#include "sources/containers/devmap.h"
#include "util/json_load.h"
#include "util/rfc3339.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Labels dockershim put on Kubernetes containers: identity only. */
#define LBL_POD "io.kubernetes.pod.name"
#define LBL_NAMESPACE "io.kubernetes.pod.namespace"
#define LBL_POD_UID "io.kubernetes.pod.uid"
#define LBL_CONTAINER "io.kubernetes.container.name"

static const char *jstr(const json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

static uint8_t state_from_text(const char *s)
{
    if (!s)
        return PNA_CSTATE_UNKNOWN;
    if (!strcmp(s, "running") || !strcmp(s, "restarting"))
        return PNA_CSTATE_RUNNING;
    if (!strcmp(s, "paused"))
        return PNA_CSTATE_PAUSED;
    if (!strcmp(s, "created"))
        return PNA_CSTATE_CREATED;
    if (!strcmp(s, "exited") || !strcmp(s, "dead") || !strcmp(s, "removing"))
        return PNA_CSTATE_EXITED;
    return PNA_CSTATE_UNKNOWN;
}

/* ---- parsers ------------------------------------------------------------------------- */

static int fill_from_list_entry(const json_t *o, struct pna_container_set *set,
                                struct pna_container *c)
{
    c->runtime = PNA_RUNTIME_DOCKER;
    json_t *names = json_object_get(o, "Names");
    const char *name = json_string_value(json_array_get(names, 0));
    if (name && name[0] == '/')
        name++;   /* the API reports names with a leading slash */
    json_t *labels = json_object_get(o, "Labels");
    if (!json_is_object(labels))
        labels = NULL;
    const char *cname = labels ? jstr(labels, LBL_CONTAINER) : NULL;
    if (pna_container_set_display(set, &c->id, jstr(o, "Id"), PNA_CTR_ID_CAP) < 0 ||
        pna_container_set_display(set, &c->name, cname ? cname : name, PNA_CTR_NAME_CAP) < 0 ||
        pna_container_set_display(set, &c->image, jstr(o, "Image"), PNA_CTR_IMAGE_CAP) < 0)
        return -1;
    c->state = state_from_text(jstr(o, "State"));
    json_t *created = json_object_get(o, "Created");
    if (json_is_integer(created) && json_integer_value(created) > 0 &&
        json_integer_value(created) <= INT64_MAX / 1000)
        c->start_ms = (int64_t)json_integer_value(created) * 1000;
    if (labels &&
        (pna_container_set_display(set, &c->pod_name, jstr(labels, LBL_POD),
                                   PNA_CTR_POD_NAME_CAP) < 0 ||
         pna_container_set_display(set, &c->pod_namespace, jstr(labels, LBL_NAMESPACE),
                                   PNA_CTR_POD_NAMESPACE_CAP) < 0 ||
         pna_container_set_display(set, &c->pod_uid, jstr(labels, LBL_POD_UID),
                                   PNA_CTR_POD_UID_CAP) < 0))
        return -1;
    return 0;
}

#define LBL_TYPE "io.kubernetes.docker.type"

/* The allowed pod labels of list entry O when it is a pod sandbox. */
static int sandbox_labels(const json_t *o, const struct pna_label_allow *allow,
                          struct pna_pod_label_set *labels)
{
    json_t *l = json_object_get(o, "Labels");
    const char *type = jstr(l, LBL_TYPE);
    if (!type || strcmp(type, "podsandbox") != 0)
        return 0;
    struct pna_pod_label_pod pod = { jstr(l, LBL_POD_UID), jstr(l, LBL_NAMESPACE), jstr(l, LBL_POD) };
    pna_pod_label_set_begin_pod(labels);
    const char *key;
    json_t *v;
    json_object_foreach(l, key, v) {
        if (json_is_string(v) && !pna_pod_label_kubelet_key(key) &&
            pna_pod_label_set_add(labels, allow, &pod, key, json_string_value(v)) < 0)
            return -1;
    }
    return 0;
}

int pna_docker_parse_list(const char *text, size_t len, struct pna_container_set *set,
                          char *err, size_t errlen)
{
    return pna_docker_parse_list_labels(text, len, set, NULL, NULL, err, errlen);
}

int pna_docker_parse_list_labels(const char *text, size_t len, struct pna_container_set *set,
                                 const struct pna_label_allow *allow,
                                 struct pna_pod_label_set *labels, char *err, size_t errlen)
{
    json_t *root = pna_json_load(text, len, 0, false, "/containers/json", err, errlen);
    if (!root)
        return -1;
    if (!json_is_array(root)) {
        snprintf(err, errlen, "/containers/json: not a JSON array");
        json_decref(root);
        return -1;
    }
    size_t before = set->count, i;
    json_t *o;
    json_array_foreach(root, i, o) {
        const char *id = jstr(o, "Id");
        if (!json_is_object(o) || !pna_container_id_ok(id))
            continue;   /* no id (or one no engine makes: over 76) cannot be a row */
        struct pna_container *c = pna_container_set_add(set);
        if (!c || fill_from_list_entry(o, set, c) < 0 ||
            (labels && allow && allow->count && sandbox_labels(o, allow, labels) < 0)) {
            while (set->count > before)
                pna_container_set_drop_last(set);
            snprintf(err, errlen, "out of memory");
            json_decref(root);
            return -1;
        }
    }
    json_decref(root);
    return 0;
}

static void add_inspect_device(struct pna_docker_inspect *out, pna_docker_host_paths *hosts,
                               const char *path, const char *host_path, uint8_t source)
{
    if (!path || !*path || out->ndevs >= PNA_DOCKER_INSPECT_DEVS)
        return;
    if (hosts)
        pna_copy_display((*hosts)[out->ndevs], host_path, sizeof (*hosts)[0]);
    struct pna_container_device *d = &out->devs[out->ndevs++];
    memset(d, 0, sizeof *d);
    pna_copy_display(d->path, path, sizeof d->path);
    d->type = 'c';
    d->source = source;
    pna_devmap_classify(d);
}

/* --gpus hands GPUs over as DeviceRequests, not Devices; numeric ids are
 * NVIDIA minor numbers, which is what /dev/nvidiaN is named after. */
static void add_gpu_requests(const json_t *reqs, struct pna_docker_inspect *out,
                             pna_docker_host_paths *hosts)
{
    size_t i, j;
    json_t *r, *idv;
    json_array_foreach(reqs, i, r) {
        json_array_foreach(json_object_get(r, "DeviceIDs"), j, idv) {
            const char *id = json_string_value(idv);
            char path[32];
            if (!id || !*id || strlen(id) > 4 || strspn(id, "0123456789") != strlen(id))
                continue;
            snprintf(path, sizeof path, "/dev/nvidia%s", id);
            add_inspect_device(out, hosts, path, NULL, PNA_DEVS_DOCKER_REQUEST);
        }
    }
}

int pna_docker_parse_inspect(const char *text, size_t len, struct pna_docker_inspect *out,
                             pna_docker_host_paths *hosts, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->state = PNA_CSTATE_UNKNOWN;
    json_t *root = pna_json_load(text, len, 0, false, "/containers/{id}/json", err, errlen);
    if (!root)
        return -1;
    json_t *st = json_object_get(root, "State");
    if (!json_is_object(root) || !json_is_object(st)) {
        snprintf(err, errlen, "/containers/{id}/json: no State object");
        json_decref(root);
        return -1;
    }
    out->state = state_from_text(jstr(st, "Status"));
    json_t *pid = json_object_get(st, "Pid");
    if (json_is_integer(pid) && json_integer_value(pid) > 0 && json_integer_value(pid) < (1 << 30))
        out->pid = (int32_t)json_integer_value(pid);
    int64_t started = pna_parse_rfc3339_ms(jstr(st, "StartedAt"));
    out->start_ms = started > 0 ? started : 0;
    out->oom_killed = json_is_true(json_object_get(st, "OOMKilled"));
    json_t *hc = json_object_get(root, "HostConfig");
    json_t *mem = json_object_get(hc, "Memory");
    if (json_is_integer(mem) && json_integer_value(mem) > 0) {
        out->has_mem_limit = true;
        out->mem_limit_bytes = (uint64_t)json_integer_value(mem);
    }
    size_t i;
    json_t *d;
    json_array_foreach(json_object_get(hc, "Devices"), i, d) {
        const char *in = jstr(d, "PathInContainer"), *host = jstr(d, "PathOnHost");
        add_inspect_device(out, hosts, in && *in ? in : host, host, PNA_DEVS_SPEC_DEVICE);
    }
    add_gpu_requests(json_object_get(hc, "DeviceRequests"), out, hosts);
    json_decref(root);
    return 0;
}

int pna_docker_parse_event(const char *line, size_t len, struct pna_docker_event *ev)
{
    memset(ev, 0, sizeof *ev);
    json_error_t jerr;
    json_t *o = json_loadb(line, len, 0, &jerr);
    if (!o)
        return -1;
    if (!json_is_object(o)) {
        json_decref(o);
        return -1;
    }
    const char *type = jstr(o, "Type");
    const char *action = jstr(o, "Action");
    json_t *actor = json_object_get(o, "Actor");
    json_t *attrs = json_object_get(actor, "Attributes");
    const char *id = jstr(actor, "ID");
    /* Before API 1.22 only status/id/from existed, for containers only. */
    if (!type && jstr(o, "status"))
        type = "container";
    if (!action)
        action = jstr(o, "status");
    if (!id)
        id = jstr(o, "id");
    if (!type || !action) {
        json_decref(o);
        return -1;
    }
    pna_copy_display(ev->type, type, sizeof ev->type);
    /* "exec_start: sh -c ..." and "health_status: healthy" carry command text
     * after the colon: keep the verb only. */
    size_t verb = strcspn(action, ":");
    char tmp[32];
    snprintf(tmp, sizeof tmp, "%.*s", (int)(verb < sizeof tmp - 1 ? verb : sizeof tmp - 1), action);
    pna_copy_display(ev->action, tmp, sizeof ev->action);
    pna_copy_display(ev->id, id, sizeof ev->id);
    pna_copy_display(ev->name, jstr(attrs, "name"), sizeof ev->name);
    json_t *tn = json_object_get(o, "timeNano"), *t = json_object_get(o, "time");
    if (json_is_integer(tn))
        ev->time_ns = json_integer_value(tn);
    else if (json_is_integer(t) && json_integer_value(t) >= 0 &&
             json_integer_value(t) <= INT64_MAX / 1000000000LL)
        ev->time_ns = json_integer_value(t) * 1000000000LL;   /* else unknown (0) */
    /* exitCode is a string in the API. */
    const char *code = jstr(attrs, "exitCode");
    if (code && *code) {
        char *end;
        long v = strtol(code, &end, 10);
        if (!*end) {
            ev->has_exit_code = true;
            ev->exit_code = (int)v;
        }
    }
    json_decref(o);
    return 0;
}
