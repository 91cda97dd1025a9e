/* sources/containers/oci_spec.c -- read a container's identity and devices from
 * its OCI runtime spec with jansson (see oci_spec.h for what is, and is not,
 * read). */
#include "pna_autoconf.h"
#include "sources/containers/oci_spec.h"
#include "sources/containers/cdi.h"
#include "sources/containers/devmap.h"
#include "core/roots.h"
#include "util/array.h"
#include "util/json_load.h"
#include "util/fileio.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* containerd's CRI plugin (pkg/cri/annotations) writes these into every spec. */
#define CRI_TYPE "io.kubernetes.cri.container-type"
#define CRI_NAME "io.kubernetes.cri.container-name"
#define CRI_POD "io.kubernetes.cri.sandbox-name"
#define CRI_NAMESPACE "io.kubernetes.cri.sandbox-namespace"
#define CRI_POD_UID "io.kubernetes.cri.sandbox-uid"
#define CRI_IMAGE "io.kubernetes.cri.image-name"

/* CRI-O writes its own annotations (pkg/annotations of cri-o) and copies
 * the kubelet's io.kubernetes.* labels into the spec; read only where the
 * containerd CRI ones above are absent. */
#define CRIO_TYPE "io.kubernetes.cri-o.ContainerType"
#define CRIO_IMAGE "io.kubernetes.cri-o.ImageName"
#define KUBE_CONTAINER "io.kubernetes.container.name"
#define KUBE_POD "io.kubernetes.pod.name"
#define KUBE_NAMESPACE "io.kubernetes.pod.namespace"
#define KUBE_POD_UID "io.kubernetes.pod.uid"
/* Podman (libpod) marks the specs it writes with this annotation. */
#define LIBPOD_MANAGER "io.container.manager"

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

/* A JSON string value copied, or NULL (absent, not a string: no copy needed). */
static int dup_str(const json_t *obj, const char *key, char **out)
{
    const char *v = jstr(obj, key);
    *out = NULL;
    if (!v)
        return 0;
    *out = strdup(v);
    return *out ? 0 : -1;
}

static int read_identity(const json_t *ann, struct pna_oci_facts *f)
{
    const char *type = ann ? jstr(ann, CRI_TYPE) : NULL;
    f->sandbox = type && strcmp(type, "sandbox") == 0;
    if (!ann)
        return 0;
    if (dup_str(ann, CRI_NAME, &f->name) < 0 || dup_str(ann, CRI_POD, &f->pod_name) < 0 ||
        dup_str(ann, CRI_NAMESPACE, &f->pod_namespace) < 0 ||
        dup_str(ann, CRI_POD_UID, &f->pod_uid) < 0 || dup_str(ann, CRI_IMAGE, &f->image) < 0)
        return -1;
    return 0;
}

/* A string annotation copied into *OUT when *OUT is still NULL. */
static int dup_if_unset(const json_t *ann, const char *key, char **out)
{
    return *out ? 0 : dup_str(ann, key, out);
}

/* CRI-O's and Podman's marks, after read_identity(): what containerd's CRI
 * annotations did not already say. */
static int read_crio_identity(const json_t *ann, struct pna_oci_facts *f)
{
    if (!ann)
        return 0;
    const char *type = jstr(ann, CRIO_TYPE);
    if (type && strcmp(type, "sandbox") == 0)
        f->sandbox = true;
    const char *manager = jstr(ann, LIBPOD_MANAGER);
    f->libpod = manager && strcmp(manager, "libpod") == 0;
    if (dup_if_unset(ann, KUBE_CONTAINER, &f->name) < 0 ||
        dup_if_unset(ann, KUBE_POD, &f->pod_name) < 0 ||
        dup_if_unset(ann, KUBE_NAMESPACE, &f->pod_namespace) < 0 ||
        dup_if_unset(ann, KUBE_POD_UID, &f->pod_uid) < 0 ||
        dup_if_unset(ann, CRIO_IMAGE, &f->image) < 0)
        return -1;
    return 0;
}

static int apply_identity(const struct pna_oci_facts *f, const char *id,
                          struct pna_container_set *set, struct pna_container *c)
{
    /* Outside Kubernetes a containerd container has no name but its id. */
    if (pna_container_set_display(set, &c->id, id, PNA_CTR_ID_CAP) < 0 ||
        pna_container_set_display(set, &c->name, f->name ? f->name : id, PNA_CTR_NAME_CAP) < 0 ||
        pna_container_set_display(set, &c->pod_name, f->pod_name, PNA_CTR_POD_NAME_CAP) < 0 ||
        pna_container_set_display(set, &c->pod_namespace, f->pod_namespace,
                                  PNA_CTR_POD_NAMESPACE_CAP) < 0 ||
        pna_container_set_display(set, &c->pod_uid, f->pod_uid, PNA_CTR_POD_UID_CAP) < 0 ||
        pna_container_set_display(set, &c->image, f->image, PNA_CTR_IMAGE_CAP) < 0)
        return -1;
    return 0;
}

static void read_memory_limit(const json_t *resources, struct pna_oci_facts *f)
{
    json_t *mem = json_object_get(resources, "memory");
    json_t *lim = json_object_get(mem, "limit");
    /* runc treats -1 and 0 as "no limit". */
    if (json_is_integer(lim) && json_integer_value(lim) > 0) {
        f->has_mem_limit = true;
        f->mem_limit_bytes = (uint64_t)json_integer_value(lim);
    }
}

/* linux.devices: every node the runtime created in the container. */
static int read_spec_devices(const json_t *devices, struct pna_oci_facts *f)
{
    size_t i;
    json_t *d;
    json_array_foreach(devices, i, d) {
        const char *path = jstr(d, "path");
        if (!path || !*path)
            continue;
        if (PNA_ARRAY_RESERVE(f->devs, f->devs_cap, f->ndevs + 1) != 0)
            return -1;
        struct pna_container_device *dev = &f->devs[f->ndevs++];
        memset(dev, 0, sizeof *dev);
        pna_copy_display(dev->path, path, sizeof dev->path);
        dev->type = jtype(d);
        dev->has_numbers = jnum(d, "major", &dev->major) && jnum(d, "minor", &dev->minor);
        dev->source = PNA_DEVS_SPEC_DEVICE;
        pna_devmap_classify(dev);
    }
    return 0;
}

/* linux.resources.devices: the allow rules that name one device by number. */
static int read_allow_rules(const json_t *rules, struct pna_oci_facts *f)
{
    size_t i;
    json_t *r;
    json_array_foreach(rules, i, r) {
        if (!json_is_true(json_object_get(r, "allow")))
            continue;
        struct pna_oci_rule rule = { .type = jtype(r) };
        if (rule.type != 'c' && rule.type != 'b')
            continue;
        if (!jnum(r, "major", &rule.major) || !jnum(r, "minor", &rule.minor))
            continue;   /* a wildcard rule grants a class, not a device */
        if (PNA_ARRAY_RESERVE(f->rules, f->rules_cap, f->nrules + 1) != 0)
            return -1;
        f->rules[f->nrules++] = rule;
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

static int keep_cdi_name(const char *name, void *arg)
{
    struct pna_oci_facts *f = arg;
    char *copy = strdup(name);
    if (!copy || PNA_ARRAY_RESERVE(f->cdi, f->cdi_cap, f->ncdi + 1) != 0) {
        free(copy);
        return -1;
    }
    f->cdi[f->ncdi++] = copy;
    return 0;
}

/* The CDI device names of the cdi.k8s.io/ annotations, in their order. */
static int read_cdi_names(const json_t *ann, struct pna_oci_facts *f)
{
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)ann, key, v) {
        if (strncmp(key, CDI_ANNOTATION_PREFIX, strlen(CDI_ANNOTATION_PREFIX)) != 0 ||
            !json_is_string(v))
            continue;
        if (each_item(json_string_value(v), keep_cdi_name, f) < 0)
            return -1;
    }
    return 0;
}

/* NVIDIA_VISIBLE_DEVICES from process.env (see oci_spec.h): the one
 * variable looked at, and only when it selects GPUs. */
static int read_nvidia_env(const json_t *env, struct pna_oci_facts *f)
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
    f->nvidia = strdup(value);
    return f->nvidia ? 0 : -1;
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
static int add_allowed_devices(const struct pna_oci_facts *f, const struct pna_roots *roots,
                               struct pna_container_set *set)
{
    for (size_t i = 0; i < f->nrules; i++) {
        const struct pna_oci_rule *r = &f->rules[i];
        struct pna_container_device dev = { 0 };
        dev.type = r->type;
        dev.major = r->major;
        dev.minor = r->minor;
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
        /* Without sysfs to name it, pna_container_set_add_device() gives it
         * the MIB's by-number name. */
        if (pna_container_set_add_device(set, &dev) < 0)
            return -1;
    }
    return 0;
}

/* The nodes of the CDI devices named, from the node's CDI specs. */
static int add_cdi_devices(const struct pna_oci_facts *f, const struct pna_roots *roots,
                           const struct pna_cdi_registry *cdi, struct pna_container_set *set,
                           struct pna_oci_info *info)
{
    for (size_t k = 0; k < f->ncdi; k++) {
        const struct pna_cdi_node *nodes[PNA_CDI_MAX_NODES];
        int n = pna_cdi_resolve(cdi, f->cdi[k], nodes, PNA_CDI_MAX_NODES);
        if (n < 0) {
            info->unresolved++;
            continue;
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
                pna_devmap_host_numbers(roots, cn->host_path[0] ? cn->host_path : cn->path, &dev);
            if (pna_container_set_add_device(set, &dev) < 0)
                return -1;
        }
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

/* The GPUs NVIDIA_VISIBLE_DEVICES selects, as /dev/nvidiaN. */
static int add_nvidia_gpus(const char *value, const struct pna_roots *roots,
                           struct pna_container_set *set, struct pna_oci_info *info)
{
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

void pna_oci_facts_free(struct pna_oci_facts *f)
{
    if (!f)
        return;
    free(f->name);
    free(f->pod_name);
    free(f->pod_namespace);
    free(f->pod_uid);
    free(f->image);
    free(f->devs);
    free(f->rules);
    for (size_t i = 0; i < f->ncdi; i++)
        free(f->cdi[i]);
    free(f->cdi);
    free(f->nvidia);
    free(f->cgroups_path);
    pna_oci_pod_labels_free(&f->labels);
    memset(f, 0, sizeof *f);
}

static int read_root(const json_t *root, const struct pna_label_allow *allow,
                     struct pna_oci_facts *f)
{
    json_t *ann = json_object_get(root, "annotations");
    if (!json_is_object(ann))
        ann = NULL;
    json_t *linux_ = json_object_get(root, "linux");
    const char *cg = jstr(linux_, "cgroupsPath");
    if (cg) {
        char shown[sizeof ((struct pna_oci_info *)0)->cgroups_path];
        pna_copy_display(shown, cg, sizeof shown);
        if (!(f->cgroups_path = strdup(shown)))
            return -1;
    }
    json_t *resources = json_object_get(linux_, "resources");
    read_memory_limit(resources, f);
    if (read_identity(ann, f) < 0 || read_crio_identity(ann, f) < 0 ||
        read_spec_devices(json_object_get(linux_, "devices"), f) < 0 ||
        read_allow_rules(json_object_get(resources, "devices"), f) < 0 ||
        (ann && read_cdi_names(ann, f) < 0) ||
        read_nvidia_env(json_object_get(json_object_get(root, "process"), "env"), f) < 0 ||
        pna_oci_read_pod_labels(ann, allow, &f->labels) < 0)
        return -1;
    return 0;
}

int pna_oci_facts_read(const char *text, size_t len, const char *id, struct pna_oci_facts *f,
                       char *err, size_t errlen)
{
    return pna_oci_facts_read_labels(text, len, id, NULL, f, err, errlen);
}

int pna_oci_facts_read_labels(const char *text, size_t len, const char *id,
                              const struct pna_label_allow *allow, struct pna_oci_facts *f,
                              char *err, size_t errlen)
{
    memset(f, 0, sizeof *f);
    char what[PNA_CONTAINER_ID_MAX + 16];
    snprintf(what, sizeof what, "spec of %s", id);
    json_t *root = pna_json_load(text, len, PNA_OCI_MAX_BYTES, true, what, err, errlen);
    if (!root)
        return -1;
    int rc = read_root(root, allow, f);
    json_decref(root);
    if (rc < 0) {
        pna_oci_facts_free(f);
        snprintf(err, errlen, "out of memory");
    }
    return rc;
}

int pna_oci_facts_apply(const struct pna_oci_facts *f, const char *id,
                        const struct pna_roots *roots, const struct pna_cdi_registry *cdi,
                        struct pna_container_set *set, struct pna_oci_info *info, char *err,
                        size_t errlen)
{
    memset(info, 0, sizeof *info);
    info->sandbox = f->sandbox;
    info->has_mem_limit = f->has_mem_limit;
    info->mem_limit_bytes = f->mem_limit_bytes;
    if (f->cgroups_path)
        pna_strlcpy(info->cgroups_path, f->cgroups_path, sizeof info->cgroups_path);
    struct pna_container *c = pna_container_set_add(set);
    if (!c) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    c->runtime = PNA_RUNTIME_CONTAINERD;
    if (apply_identity(f, id, set, c) < 0)
        goto oom;
    if (info->has_mem_limit) {
        c->has_limit = true;
        c->mem_limit_bytes = info->mem_limit_bytes;
    }
    for (size_t i = 0; i < f->ndevs; i++)
        if (pna_container_set_add_device(set, &f->devs[i]) < 0)
            goto oom;
    if (add_allowed_devices(f, roots, set) < 0 || add_cdi_devices(f, roots, cdi, set, info) < 0 ||
        (roots && f->nvidia && add_nvidia_gpus(f->nvidia, roots, set, info) < 0))
        goto oom;
    return 0;
oom:
    pna_container_set_drop_last(set);
    snprintf(err, errlen, "out of memory");
    return -1;
}

int pna_oci_parse(const char *text, size_t len, const char *id, const struct pna_roots *roots,
                  const struct pna_cdi_registry *cdi, struct pna_container_set *set,
                  struct pna_oci_info *info, char *err, size_t errlen)
{
    struct pna_oci_facts f;
    memset(info, 0, sizeof *info);
    if (pna_oci_facts_read(text, len, id, &f, err, errlen) < 0)
        return -1;
    int rc = pna_oci_facts_apply(&f, id, roots, cdi, set, info, err, errlen);
    pna_oci_facts_free(&f);
    return rc;
}
