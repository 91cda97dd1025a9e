/* model/containers_metrics.c -- the served values of the containers domain
 * (primusContainers): the container count and OOM-kill total,
 * primusContainerTable and primusContainerDeviceTable, one descriptor per
 * value (see metric.h, containers.h).
 *
 * A container is indexed by its full ID (1..76 characters); a record whose ID
 * cannot be an index is shown nowhere (the sources already leave such IDs out:
 * this keeps a bad one from ever reaching an OID or a label).  Only identity
 * and resource figures exist in the model: nothing from a container's
 * environment, command line or annotations is ever served. */
#include "pna_autoconf.h"
#include "model/metric_tables.h"

#include <stdio.h>
#include <string.h>

#include "model/containers.h"
#include "model/metric.h"
#include "model/oids.h"

/* The model's name limits are the MIB's index SIZEs. */
_Static_assert(PNA_CONTAINER_ID_MAX == PNA_MAX_CONTAINER_ID_LEN, "primusContainerId SIZE");
_Static_assert(PNA_CONTAINER_DEVICE_NAME_MAX == PNA_MAX_CONTAINER_DEVICE_PATH_LEN,
               "primusContainerDevicePath SIZE");
/* primusContainerId and primusContainerDevicePath fit one index: 1 + 76 + 1 + 36. */
_Static_assert(2 + PNA_CONTAINER_ID_MAX + PNA_CONTAINER_DEVICE_NAME_MAX <= PNA_KEY_INDEX_MAX,
               "container device index");

static const struct pna_containers_snap *containers_snap(const struct pna_view *v)
{
    return pna_view_snap(v, PNA_DOM_CONTAINERS);
}

#define U32 PNA_SYNTAX_UNSIGNED
#define C64 PNA_SYNTAX_COUNTER64
#define INT PNA_SYNTAX_INTEGER
#define TEXT PNA_SYNTAX_TEXT
#define GAUGE PNA_FAMILY_GAUGE
#define COUNTER PNA_FAMILY_COUNTER

/* ---- primusContainers scalars ------------------------------------------------- */

static size_t snap_rows(const struct pna_view *v)
{
    return containers_snap(v) ? 1 : 0;
}

static bool snap_row(const struct pna_view *v, size_t i, struct pna_row *out)
{
    (void)i;
    out->rec = containers_snap(v);
    return true;
}

/* The rows primusContainerTable shows. */
static void get_count(const struct pna_row *r, struct pna_value *out)
{
    const struct pna_containers_snap *s = r->rec;
    uint64_t n = 0;
    for (size_t i = 0; i < s->set.count; i++)
        n += pna_container_id_ok(s->set.rows[i].id);
    pna_value_u64(out, n);
}

static void get_containerd_up(const struct pna_row *r, struct pna_value *out)
{
    pna_value_u64(out, ((const struct pna_containers_snap *)r->rec)->containerd_seen);
}

static void get_docker_up(const struct pna_row *r, struct pna_value *out)
{
    pna_value_u64(out, ((const struct pna_containers_snap *)r->rec)->docker_seen);
}

/* CRI-O and Podman share the store and have no socket the agent asks: both
 * series say whether the store was read. */
static void get_storage_up(const struct pna_row *r, struct pna_value *out)
{
    pna_value_u64(out, ((const struct pna_containers_snap *)r->rec)->storage_seen);
}

static void get_devices_dropped(const struct pna_row *r, struct pna_value *out)
{
    pna_value_u64(out, ((const struct pna_containers_snap *)r->rec)->set.devices_dropped);
}

#define SNAP(member) PNA_FIELD(struct pna_containers_snap, member)

static const struct pna_metric container_scalar_metrics[] = {
    { .column = 1, .object = "primusContainerCount", .syntax = U32,
      .get = get_count, .family = "primus_containers", .type = GAUGE,
      .help = "Containers the runtimes know" },
    { .column = 2, .object = "primusContainerOomKillsTotal",
      .syntax = C64, .field = SNAP(oom_kills), .family = "primus_containers_oom_kills_seen_total",
      .type = COUNTER,
      .help = "OOM kills seen in any container since the agent started, gone containers included" },
    { .get = get_containerd_up, .family = "primus_containers_runtime_up", .type = GAUGE,
      .label = "runtime", .label_value = "containerd",
      .help = "1 when the runtime was seen at the last poll (containerd's state directory exists, "
              "dockerd answered; crio and podman: their containers/storage store was read), "
              "else 0" },
    { .get = get_docker_up, .family = "primus_containers_runtime_up", .type = GAUGE,
      .label = "runtime", .label_value = "docker" },
    { .get = get_storage_up, .family = "primus_containers_runtime_up", .type = GAUGE,
      .label = "runtime", .label_value = "crio" },
    { .get = get_storage_up, .family = "primus_containers_runtime_up", .type = GAUGE,
      .label = "runtime", .label_value = "podman" },
    { .field = SNAP(docker_errors), .family = "primus_containers_docker_errors_total", .type = COUNTER,
      .help = "Failed requests to the Docker Engine API since the agent started" },
    { .get = get_devices_dropped, .family = "primus_containers_devices_dropped_total", .type = COUNTER,
      .help = "Device nodes left out because a container had more than the agent keeps" },
};

const struct pna_metric_table pna_container_scalar_metrics = {
    .object = "primusContainers",
    .kind = PNA_TABLE_SCALARS,
    .domain = PNA_DOM_CONTAINERS,
    .view = PNA_VIEW_DOMAIN(PNA_DOM_CONTAINERS),
    PNA_TABLE_OID(PNA_OID_CONTAINERS),
    .metrics = container_scalar_metrics,
    .count = sizeof container_scalar_metrics / sizeof container_scalar_metrics[0],
    .rows = snap_rows,
    .row = snap_row,
};

/* ---- primusContainerTable --------------------------------------------------------- */

static size_t container_rows(const struct pna_view *v)
{
    return containers_snap(v) ? containers_snap(v)->set.count : 0;
}

static bool container_row(const struct pna_view *v, size_t i, struct pna_row *out)
{
    const struct pna_container *c = &containers_snap(v)->set.rows[i];
    out->rec = c;
    return pna_container_id_ok(c->id);
}

static const struct pna_container *container_of(const struct pna_row *r)
{
    return r->rec;
}

static const char *const runtime_names[] = {
    [PNA_CONTAINER_RUNTIME_CONTAINERD] = "containerd", [PNA_CONTAINER_RUNTIME_DOCKER] = "docker",
    [PNA_CONTAINER_RUNTIME_CRIO] = "crio", [PNA_CONTAINER_RUNTIME_PODMAN] = "podman",
    [PNA_CONTAINER_RUNTIME_OTHER] = "other",
};
static const struct pna_enum runtime_enum = PNA_ENUM(runtime_names);

static void get_runtime(const struct pna_row *r, struct pna_value *out)
{
    switch (container_of(r)->runtime) {
    case PNA_RUNTIME_CONTAINERD: pna_value_i64(out, PNA_CONTAINER_RUNTIME_CONTAINERD); return;
    case PNA_RUNTIME_DOCKER: pna_value_i64(out, PNA_CONTAINER_RUNTIME_DOCKER); return;
    case PNA_RUNTIME_CRIO: pna_value_i64(out, PNA_CONTAINER_RUNTIME_CRIO); return;
    case PNA_RUNTIME_PODMAN: pna_value_i64(out, PNA_CONTAINER_RUNTIME_PODMAN); return;
    }
    pna_value_i64(out, PNA_CONTAINER_RUNTIME_OTHER);
}

static const char *const state_names[] = {
    [PNA_CONTAINER_STATE_CREATED] = "created", [PNA_CONTAINER_STATE_RUNNING] = "running",
    [PNA_CONTAINER_STATE_PAUSED] = "paused", [PNA_CONTAINER_STATE_STOPPED] = "stopped",
    [PNA_CONTAINER_STATE_UNKNOWN] = "unknown",
};
static const struct pna_enum state_enum = PNA_ENUM(state_names);

static void get_state(const struct pna_row *r, struct pna_value *out)
{
    switch (container_of(r)->state) {
    case PNA_CSTATE_CREATED: pna_value_i64(out, PNA_CONTAINER_STATE_CREATED); return;
    case PNA_CSTATE_RUNNING: pna_value_i64(out, PNA_CONTAINER_STATE_RUNNING); return;
    case PNA_CSTATE_PAUSED: pna_value_i64(out, PNA_CONTAINER_STATE_PAUSED); return;
    case PNA_CSTATE_EXITED: pna_value_i64(out, PNA_CONTAINER_STATE_STOPPED); return;
    }
    pna_value_i64(out, PNA_CONTAINER_STATE_UNKNOWN);
}

/* Whole seconds since 1970; none (0) when not started or unknown. */
static void get_start_time(const struct pna_row *r, struct pna_value *out)
{
    int64_t ms = container_of(r)->start_ms;
    if (ms > 0)
        pna_value_u64(out, (uint64_t)(ms / 1000));
    else
        pna_value_none(out);
}

/* The limit; none (0, "unlimited") when the cgroup was read and sets none. */
static void get_mem_limit(const struct pna_row *r, struct pna_value *out)
{
    const struct pna_container *c = container_of(r);
    if (c->has_limit)
        pna_value_u64(out, c->mem_limit_bytes);
    else if (c->has_memory)
        pna_value_none(out);
}

/* containerd's namespace ("k8s.io"); Docker's own containers live in its
 * "moby" namespace, which is Docker's business: empty for them. */
static void get_runtime_ns(const struct pna_row *r, struct pna_value *out)
{
    const struct pna_container *c = container_of(r);
    pna_value_text(out, c->runtime == PNA_RUNTIME_CONTAINERD ? c->rt_namespace : "");
}

#define CONTAINER(member) PNA_FIELD(struct pna_container, member)
#define CONTAINER_IF(member, has) PNA_FIELD_IF(struct pna_container, member, has)

static const struct pna_metric container_metrics[] = {
    { .column = 2, .object = "primusContainerRuntime", .syntax = INT, .get = get_runtime,
      .enums = &runtime_enum, .label = "runtime" },
    { .column = 3, .object = "primusContainerName", .syntax = TEXT, .field = CONTAINER(name) },
    { .column = 4, .object = "primusContainerPodName", .syntax = TEXT, .field = CONTAINER(pod_name) },
    { .column = 5, .object = "primusContainerPodNamespace", .syntax = TEXT,
      .field = CONTAINER(pod_namespace) },
    { .column = 6, .object = "primusContainerPodUid", .syntax = TEXT, .field = CONTAINER(pod_uid),
      .label = "pod_uid" },
    { .column = 7, .object = "primusContainerImage", .syntax = TEXT, .field = CONTAINER(image),
      .label = "image" },
    { .column = 8, .object = "primusContainerState", .syntax = INT, .get = get_state,
      .enums = &state_enum, .family = "primus_container_state", .type = PNA_FAMILY_STATE,
      .label = "state",
      .help = "The container's state (created, running, paused, stopped, unknown) as the state "
              "label; always 1" },
    { .column = 9, .object = "primusContainerStartTime", .syntax = U32, .get = get_start_time,
      .family = "primus_container_start_time_seconds", .type = GAUGE,
      .help = "When the container's task started, seconds since 1970-01-01 UTC" },
    { .column = 10, .object = "primusContainerCgroupPath", .syntax = TEXT,
      .field = CONTAINER(cgroup_path), .label = "cgroup_path" },
    { .column = 11, .object = "primusContainerMemUsage", .syntax = C64,
      .field = CONTAINER_IF(mem_usage_bytes, has_memory), .family = "primus_container_memory_usage_bytes",
      .type = GAUGE, .help = "Memory the container's cgroup uses" },
    { .column = 12, .object = "primusContainerMemLimit", .syntax = C64, .get = get_mem_limit,
      .family = "primus_container_memory_limit_bytes", .type = GAUGE,
      .help = "The container's memory limit; absent when unlimited" },
    { .column = 13, .object = "primusContainerOomKills", .syntax = C64,
      .field = CONTAINER_IF(oom_kills, has_oom), .family = "primus_container_oom_kills_total",
      .type = COUNTER, .help = "Processes of the container killed by the OOM killer" },
    { .column = 14, .object = "primusContainerGpuCount", .syntax = U32, .field = CONTAINER(gpu_count),
      .family = "primus_container_gpus", .type = GAUGE, .help = "GPUs the container holds" },
    { .column = 15, .object = "primusContainerRdmaCount", .syntax = U32, .field = CONTAINER(rdma_count),
      .family = "primus_container_rdma_devices", .type = GAUGE,
      .help = "RDMA devices the container holds" },
    { .column = 16, .object = "primusContainerRuntimeNs", .syntax = TEXT, .get = get_runtime_ns,
      .label = "runtime_namespace" },
    { .column = 17, .object = "primusContainerMemWorkingSet", .syntax = C64,
      .field = CONTAINER_IF(mem_working_set_bytes, has_working_set),
      .family = "primus_container_memory_working_set_bytes", .type = GAUGE,
      .help = "The container's working set: memory usage less inactive file cache, as the "
              "kubelet and docker stats count it" },
};

/* Containers are indexed by their full ID, so a living row keeps its OID
 * whatever else comes and goes; the labels add its name, pod and namespace
 * (empty outside Kubernetes).  Only identity: nothing from a container's
 * environment, command line or annotations reaches a label. */
#define CONTAINER_KEY_PARTS(from)                                                            \
    PNA_KEY_INDEX_FIELD("primusContainerId", "container_id", from, struct pna_container, id), \
    PNA_KEY_LABEL_FIELD("container", from, struct pna_container, name),                      \
    PNA_KEY_LABEL_FIELD("pod", from, struct pna_container, pod_name),                        \
    PNA_KEY_LABEL_FIELD("namespace", from, struct pna_container, pod_namespace)

static const struct pna_key_part container_key[] = { CONTAINER_KEY_PARTS(PNA_KEY_FROM_REC) };

const struct pna_metric_table pna_container_metrics = {
    .object = "primusContainerTable",
    .kind = PNA_TABLE_ROWS,
    .domain = PNA_DOM_CONTAINERS,
    .view = PNA_VIEW_DOMAIN(PNA_DOM_CONTAINERS),
    PNA_TABLE_OID(PNA_OID_CONTAINERS, 10),
    PNA_KEY(container_key),
    .metrics = container_metrics,
    .count = sizeof container_metrics / sizeof container_metrics[0],
    .rows = container_rows,
    .row = container_row,
    .info_family = "primus_container_info",
    .info_help = "One series per container: pod UID, image, runtime, runtime namespace and cgroup "
                 "path; always 1",
};

/* ---- primusContainerDeviceTable ------------------------------------------------------ */

/* Rows: the set's device array (grouped per container in row order).  REC is
 * the device, PARENT its container.  The model names every device within the
 * MIB's SIZE (its path, or its numbers when the path is longer: see
 * pna_container_set_add_device), so the index is the container's ID and
 * that name. */
static size_t device_rows(const struct pna_view *v)
{
    return containers_snap(v) ? containers_snap(v)->set.dev_count : 0;
}

static bool device_row(const struct pna_view *v, size_t i, struct pna_row *out)
{
    const struct pna_container_set *set = &containers_snap(v)->set;
    const struct pna_container *c = pna_container_of_device(set, i);
    out->rec = &set->devs[i];
    out->parent = c;
    size_t n = strlen(set->devs[i].path);
    return c && pna_container_id_ok(c->id) && n >= 1 && n <= PNA_CONTAINER_DEVICE_NAME_MAX;
}

static const char *const kind_names[] = {
    [PNA_CONTAINER_DEVICE_KIND_GPU] = "gpu", [PNA_CONTAINER_DEVICE_KIND_RDMA] = "rdma",
    [PNA_CONTAINER_DEVICE_KIND_OTHER] = "other",
};
static const struct pna_enum kind_enum = PNA_ENUM(kind_names);

static void get_kind(const struct pna_row *r, struct pna_value *out)
{
    const struct pna_container_device *d = r->rec;
    pna_value_i64(out, d->kind == PNA_DEV_GPU    ? PNA_CONTAINER_DEVICE_KIND_GPU
                       : d->kind == PNA_DEV_RDMA ? PNA_CONTAINER_DEVICE_KIND_RDMA
                                                 : PNA_CONTAINER_DEVICE_KIND_OTHER);
}

/* The GPU it belongs to, as its PCI address (primusGpuIndex's source); "" none. */
static void get_gpu_pci(const struct pna_row *r, struct pna_value *out)
{
    const struct pna_container_device *d = r->rec;
    if (d->gpu_index)
        pna_value_printf(out, "%04x:%02x:%02x.%x", (unsigned)(d->gpu_index >> 16),
                         (unsigned)((d->gpu_index >> 8) & 0xff), (unsigned)((d->gpu_index >> 3) & 0x1f),
                         (unsigned)(d->gpu_index & 7));
    else
        pna_value_text(out, "");
}

static const char *const source_names[] = {
    [PNA_CONTAINER_DEVICE_SOURCE_SPEC_DEVICE] = "specDevice",
    [PNA_CONTAINER_DEVICE_SOURCE_CGROUP] = "cgroup",
    [PNA_CONTAINER_DEVICE_SOURCE_DOCKER_REQUEST] = "dockerRequest",
    [PNA_CONTAINER_DEVICE_SOURCE_POD_RESOURCES] = "podResources",
    [PNA_CONTAINER_DEVICE_SOURCE_CDI] = "cdi",
    [PNA_CONTAINER_DEVICE_SOURCE_NVIDIA_RUNTIME_ENV] = "nvidiaRuntimeEnv",
    [PNA_CONTAINER_DEVICE_SOURCE_DRA_CLAIM] = "draClaim",
};
static const struct pna_enum source_enum = PNA_ENUM(source_names);

/* How the device was found (the model's precedence already chose one). */
static void get_source(const struct pna_row *r, struct pna_value *out)
{
    const struct pna_container_device *d = r->rec;
    switch (d->source) {
    case PNA_DEVS_CGROUP: pna_value_i64(out, PNA_CONTAINER_DEVICE_SOURCE_CGROUP); return;
    case PNA_DEVS_DOCKER_REQUEST:
        pna_value_i64(out, PNA_CONTAINER_DEVICE_SOURCE_DOCKER_REQUEST);
        return;
    case PNA_DEVS_POD_RESOURCES:
        pna_value_i64(out, PNA_CONTAINER_DEVICE_SOURCE_POD_RESOURCES);
        return;
    case PNA_DEVS_CDI: pna_value_i64(out, PNA_CONTAINER_DEVICE_SOURCE_CDI); return;
    case PNA_DEVS_NVIDIA_ENV:
        pna_value_i64(out, PNA_CONTAINER_DEVICE_SOURCE_NVIDIA_RUNTIME_ENV);
        return;
    case PNA_DEVS_DRA_CLAIM: pna_value_i64(out, PNA_CONTAINER_DEVICE_SOURCE_DRA_CLAIM); return;
    }
    pna_value_i64(out, PNA_CONTAINER_DEVICE_SOURCE_SPEC_DEVICE);
}

#define DEVICE(member) PNA_FIELD(struct pna_container_device, member)
#define DEVICE_IF(member, has) PNA_FIELD_IF(struct pna_container_device, member, has)

static const struct pna_metric device_metrics[] = {
    { .field = DEVICE(path), .label = "path" },
    { .column = 2, .object = "primusContainerDeviceKind", .syntax = INT, .get = get_kind,
      .enums = &kind_enum, .label = "kind" },
    { .column = 3, .object = "primusContainerDeviceMajor", .syntax = U32,
      .field = DEVICE_IF(major, has_numbers), .label = "major" },
    { .column = 4, .object = "primusContainerDeviceMinor", .syntax = U32,
      .field = DEVICE_IF(minor, has_numbers), .label = "minor" },
    { .column = 5, .object = "primusContainerDeviceGpu", .syntax = U32, .field = DEVICE(gpu_index) },
    { .get = get_gpu_pci, .label = "gpu_pci_bus_id" },
    { .column = 6, .object = "primusContainerDeviceRdma", .syntax = TEXT, .field = DEVICE(rdma_dev),
      .label = "rdma_device" },
    { .column = 7, .object = "primusContainerDeviceSource", .syntax = INT, .get = get_source,
      .enums = &source_enum, .label = "source" },
};

/* The container's key, then the device's path (in the index only: its
 * descriptor serves it as the "path" label). */
static const struct pna_key_part device_key[] = {
    CONTAINER_KEY_PARTS(PNA_KEY_FROM_PARENT),
    PNA_KEY_INDEX_FIELD("primusContainerDevicePath", NULL, PNA_KEY_FROM_REC,
                        struct pna_container_device, path),
};

const struct pna_metric_table pna_container_device_metrics = {
    .object = "primusContainerDeviceTable",
    .kind = PNA_TABLE_ROWS,
    .domain = PNA_DOM_CONTAINERS,
    .view = PNA_VIEW_DOMAIN(PNA_DOM_CONTAINERS),
    PNA_TABLE_OID(PNA_OID_CONTAINERS, 20),
    PNA_KEY(device_key),
    .metrics = device_metrics,
    .count = sizeof device_metrics / sizeof device_metrics[0],
    .rows = device_rows,
    .row = device_row,
    .info_family = "primus_container_device_info",
    .info_help = "One series per container and device node it holds: path, kind (gpu, rdma, "
                 "other), major and minor numbers, the GPU (PCI address) or RDMA device it "
                 "belongs to, and the source it was found through; always 1",
};
