/* sources/containers/oci_spec.c -- read a container's identity and devices from
 * its OCI runtime spec with jansson (see oci_spec.h for what is, and is not,
 * read). */
#include "pna_autoconf.h"
#include "sources/containers/oci_spec.h"
#include "sources/containers/cdi.h"
#include "sources/containers/devmap.h"
#include "core/roots.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

/* containerd's CRI plugin (pkg/cri/annotations) writes these into every spec. */
#define CRI_TYPE "io.kubernetes.cri.container-type"
#define CRI_NAME "io.kubernetes.cri.container-name"
#define CRI_POD "io.kubernetes.cri.sandbox-name"
#define CRI_NAMESPACE "io.kubernetes.cri.sandbox-namespace"
#define CRI_POD_UID "io.kubernetes.cri.sandbox-uid"
#define CRI_IMAGE "io.kubernetes.cri.image-name"

/* The CDI annotation format: key "cdi.k8s.io/<anything>", value a comma list
 * of fully qualified device names ("nvidia.com/gpu=0,nvidia.com/gpu=1"). */
#define CDI_ANNOTATION_PREFIX "cdi.k8s.io/"
#define NVIDIA_ENV "NVIDIA_VISIBLE_DEVICES="
#define NVIDIA_MAJOR 195

static const char *jstr(const json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

/* An integer field as a device number; false when absent, negative (the
 * spec's wildcard) or too large. */
static bool jnum(const json_t *obj, const char *key, uint32_t *out)
{
    json_t *v = json_object_get(obj, key);
    if (!json_is_integer(v))
        return false;
    json_int_t n = json_integer_value(v);
    if (n < 0 || n > (json_int_t)UINT32_MAX)
        return false;
    *out = (uint32_t)n;
    return true;
}

static char jtype(const json_t *obj)
{
    const char *t = jstr(obj, "type");
    return t && strlen(t) == 1 ? t[0] : 0;
}

static void read_identity(const json_t *ann, const char *id, struct pna_container *c,
                          struct pna_oci_info *info)
{
    pna_copy_display(c->id, id, sizeof c->id);
    const char *type = ann ? jstr(ann, CRI_TYPE) : NULL;
    info->sandbox = type && strcmp(type, "sandbox") == 0;
    const char *name = ann ? jstr(ann, CRI_NAME) : NULL;
    /* Outside Kubernetes a containerd container has no name but its id. */
    pna_copy_display(c->name, name ? name : id, sizeof c->name);
    if (!ann)
        return;
    pna_copy_display(c->pod_name, jstr(ann, CRI_POD), sizeof c->pod_name);
    pna_copy_display(c->pod_namespace, jstr(ann, CRI_NAMESPACE), sizeof c->pod_namespace);
    pna_copy_display(c->pod_uid, jstr(ann, CRI_POD_UID), sizeof c->pod_uid);
    pna_copy_display(c->image, jstr(ann, CRI_IMAGE), sizeof c->image);
}

static void read_memory_limit(const json_t *resources, struct pna_oci_info *info)
{
    json_t *mem = json_object_get(resources, "memory");
    json_t *lim = json_object_get(mem, "limit");
    /* runc treats -1 and 0 as "no limit". */
    if (json_is_integer(lim) && json_integer_value(lim) > 0) {
        info->has_mem_limit = true;
        info->mem_limit_bytes = (uint64_t)json_integer_value(lim);
    }
}

static int add_spec_devices(const json_t *devices, struct pna_container_set *set)
{
    size_t i;
    json_t *d;
    json_array_foreach(devices, i, d) {
        const char *path = jstr(d, "path");
        if (!path || !*path)
            continue;
        struct pna_container_device dev = { 0 };
        pna_copy_display(dev.path, path, sizeof dev.path);
        dev.type = jtype(d);
        dev.has_numbers = jnum(d, "major", &dev.major) && jnum(d, "minor", &dev.minor);
        dev.source = PNA_DEVS_SPEC_DEVICE;
        pna_devmap_classify(&dev);
        if (pna_container_set_add_device(set, &dev) < 0)
            return -1;
    }
    return 0;
}

static bool already_listed(const struct pna_container_set *set, char type, uint32_t major,
                           uint32_t minor)
{
    const struct pna_container *c = &set->rows[set->count - 1];
    for (uint32_t i = 0; i < c->dev_count; i++) {
        const struct pna_container_device *d = &set->devs[c->dev_first + i];
        if (d->has_numbers && d->major == major && d->minor == minor &&
            (d->type == type || !d->type || !type))
            return true;
    }
    return false;
}

/* The cgroup allow-list names devices by number only.  Runtimes put a long
 * default list there (null, zero, tty, pts...), so only entries that are GPU
 * or RDMA devices and not already in linux.devices become rows. */
static int add_allowed_devices(const json_t *rules, const struct pna_roots *roots,
                               struct pna_container_set *set)
{
    size_t i;
    json_t *r;
    json_array_foreach(rules, i, r) {
        if (!json_is_true(json_object_get(r, "allow")))
            continue;
        struct pna_container_device dev = { 0 };
        dev.type = jtype(r);
        if (dev.type != 'c' && dev.type != 'b')
            continue;
        if (!jnum(r, "major", &dev.major) || !jnum(r, "minor", &dev.minor))
            continue;   /* a wildcard rule grants a class, not a device */
        dev.has_numbers = true;
        dev.source = PNA_DEVS_CGROUP;
        if (already_listed(set, dev.type, dev.major, dev.minor))
            continue;
        if (roots &&
            pna_devmap_resolve(roots, dev.type, dev.major, dev.minor, dev.path, sizeof dev.path) < 0)
            dev.path[0] = '\0';
        pna_devmap_classify(&dev);
        if (dev.kind == PNA_DEV_OTHER)
            continue;
        if (!dev.path[0])   /* no sysfs to name it: the MIB's by-number name */
            snprintf(dev.path, sizeof dev.path, "/dev/%s/%u:%u", dev.type == 'b' ? "block" : "char",
                     dev.major, dev.minor);
        if (pna_container_set_add_device(set, &dev) < 0)
            return -1;
    }
    return 0;
}

/* Calls FN on each comma-separated item of LIST, blanks around it dropped;
 * stops at the first negative return. */
static int each_item(const char *list, int (*fn)(const char *item, void *arg), void *arg)
{
    char item[256];
    while (*list) {
        size_t n = strcspn(list, ",");
        const char *b = list, *e = list + n;
        while (b < e && (*b == ' ' || *b == '\t'))
            b++;
        while (e > b && (e[-1] == ' ' || e[-1] == '\t'))
            e--;
        if (e > b && (size_t)(e - b) < sizeof item) {
            memcpy(item, b, (size_t)(e - b));
            item[e - b] = '\0';
            int rc = fn(item, arg);
            if (rc < 0)
                return rc;
        }
        list += n + (list[n] == ',');
    }
    return 0;
}

struct cdi_ctx {
    const struct pna_roots *roots;
    const struct pna_cdi_registry *cdi;
    struct pna_container_set *set;
    struct pna_oci_info *info;
};

static int add_cdi_device(const char *name, void *arg)
{
    struct cdi_ctx *x = arg;
    const struct pna_cdi_node *nodes[PNA_CDI_MAX_NODES];
    int n = pna_cdi_resolve(x->cdi, name, nodes, PNA_CDI_MAX_NODES);
    if (n < 0) {
        x->info->unresolved++;
        return 0;
    }
    for (int i = 0; i < n; i++) {
        const struct pna_cdi_node *cn = nodes[i];
        struct pna_container_device dev = { 0 };
        pna_copy_display(dev.path, cn->path, sizeof dev.path);
        dev.type = cn->type;
        dev.has_numbers = cn->has_numbers;
        dev.major = cn->major;
        dev.minor = cn->minor;
        dev.source = PNA_DEVS_CDI;
        pna_devmap_classify(&dev);
        /* No numbers in the spec: the runtime takes them from the host's
         * node, and so does the agent. */
        if (!dev.has_numbers)
            pna_devmap_host_numbers(x->roots, cn->host_path[0] ? cn->host_path : cn->path, &dev);
        if (pna_container_set_add_device(x->set, &dev) < 0)
            return -1;
    }
    return 0;
}

/* The CDI devices the cdi.k8s.io/ annotations name. */
static int add_cdi_devices(const json_t *ann, const struct pna_roots *roots,
                           const struct pna_cdi_registry *cdi, struct pna_container_set *set,
                           struct pna_oci_info *info)
{
    struct cdi_ctx x = { roots, cdi, set, info };
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)ann, key, v) {
        if (strncmp(key, CDI_ANNOTATION_PREFIX, strlen(CDI_ANNOTATION_PREFIX)) != 0 ||
            !json_is_string(v))
            continue;
        if (each_item(json_string_value(v), add_cdi_device, &x) < 0)
            return -1;
    }
    return 0;
}

struct nvidia_ctx {
    const struct pna_nvidia_gpu *gpus;
    size_t ngpus;
    bool want[PNA_DEVMAP_MAX_NVIDIA_GPUS];
    unsigned unresolved;
};

static int pick_nvidia_gpu(const char *item, void *arg)
{
    struct nvidia_ctx *x = arg;
    if (strspn(item, "0123456789") == strlen(item) && strlen(item) <= 4) {
        unsigned long i = strtoul(item, NULL, 10);
        if (i < x->ngpus)
            x->want[i] = true;
        else
            x->unresolved++;
        return 0;
    }
    if (strncmp(item, "GPU-", 4) == 0) {
        for (size_t i = 0; i < x->ngpus; i++)
            if (strcmp(x->gpus[i].uuid, item) == 0) {
                x->want[i] = true;
                return 0;
            }
    }
    /* An unknown GPU UUID; a MIG UUID (no MIG UUID to capability map yet);
     * or a form this agent does not know ("0:1"). */
    x->unresolved++;
    return 0;
}

/* NVIDIA_VISIBLE_DEVICES from process.env (see oci_spec.h).  The value is
 * looked at here and nowhere else. */
static int add_nvidia_env(const json_t *env, const struct pna_roots *roots,
                          struct pna_container_set *set, struct pna_oci_info *info)
{
    const char *value = NULL;
    size_t i;
    json_t *e;
    json_array_foreach(env, i, e) {
        const char *s = json_string_value(e);
        /* As the runtime's own reading: the last entry wins. */
        if (s && strncmp(s, NVIDIA_ENV, strlen(NVIDIA_ENV)) == 0)
            value = s + strlen(NVIDIA_ENV);
    }
    if (!value || !*value || strcmp(value, "none") == 0 || strcmp(value, "void") == 0)
        return 0;
    struct pna_nvidia_gpu gpus[PNA_DEVMAP_MAX_NVIDIA_GPUS];
    struct nvidia_ctx x = { .gpus = gpus };
    x.ngpus = pna_devmap_nvidia_gpus(roots, gpus, PNA_DEVMAP_MAX_NVIDIA_GPUS);
    if (strcmp(value, "all") == 0) {
        for (size_t k = 0; k < x.ngpus; k++)
            x.want[k] = true;
    } else {
        each_item(value, pick_nvidia_gpu, &x);
    }
    info->unresolved += x.unresolved;
    for (size_t k = 0; k < x.ngpus; k++) {
        if (!x.want[k])
            continue;
        if (gpus[k].minor < 0) {
            info->unresolved++;
            continue;
        }
        struct pna_container_device dev = { 0 };
        snprintf(dev.path, sizeof dev.path, "/dev/nvidia%d", gpus[k].minor);
        dev.type = 'c';
        dev.has_numbers = true;
        dev.major = NVIDIA_MAJOR;
        dev.minor = (uint32_t)gpus[k].minor;
        dev.source = PNA_DEVS_NVIDIA_ENV;
        pna_devmap_classify(&dev);
        if (pna_container_set_add_device(set, &dev) < 0)
            return -1;
    }
    return 0;
}

int pna_oci_parse(const char *text, size_t len, const char *id, const struct pna_roots *roots,
                  const struct pna_cdi_registry *cdi, struct pna_container_set *set,
                  struct pna_oci_info *info, char *err, size_t errlen)
{
    memset(info, 0, sizeof *info);
    if (len > PNA_OCI_MAX_BYTES) {
        snprintf(err, errlen, "spec of %s is %zu bytes, over the %u limit", id, len,
                 PNA_OCI_MAX_BYTES);
        return -1;
    }
    json_error_t jerr;
    json_t *root = json_loadb(text, len, 0, &jerr);
    if (!root) {
        snprintf(err, errlen, "spec of %s: line %d: %s", id, jerr.line, jerr.text);
        return -1;
    }
    if (!json_is_object(root)) {
        snprintf(err, errlen, "spec of %s: not a JSON object", id);
        json_decref(root);
        return -1;
    }
    struct pna_container *c = pna_container_set_add(set);
    if (!c) {
        snprintf(err, errlen, "out of memory");
        json_decref(root);
        return -1;
    }
    c->runtime = PNA_RUNTIME_CONTAINERD;
    json_t *ann = json_object_get(root, "annotations");
    read_identity(json_is_object(ann) ? ann : NULL, id, c, info);

    json_t *linux_ = json_object_get(root, "linux");
    const char *cg = jstr(linux_, "cgroupsPath");
    if (cg)
        pna_copy_display(info->cgroups_path, cg, sizeof info->cgroups_path);
    json_t *resources = json_object_get(linux_, "resources");
    read_memory_limit(resources, info);
    if (info->has_mem_limit) {
        c->has_limit = true;
        c->mem_limit_bytes = info->mem_limit_bytes;
    }
    if (add_spec_devices(json_object_get(linux_, "devices"), set) < 0 ||
        add_allowed_devices(json_object_get(resources, "devices"), roots, set) < 0 ||
        (json_is_object(ann) && add_cdi_devices(ann, roots, cdi, set, info) < 0) ||
        (roots && add_nvidia_env(json_object_get(json_object_get(root, "process"), "env"), roots,
                                 set, info) < 0)) {
        pna_container_set_drop_last(set);
        snprintf(err, errlen, "out of memory");
        json_decref(root);
        return -1;
    }
    json_decref(root);
    return 0;
}
