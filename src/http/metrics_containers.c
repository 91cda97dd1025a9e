/* http/metrics_containers.c -- /metrics for containers (primusContainers,
 * primusContainerTable, primusContainerDeviceTable), and the join between a
 * container's device nodes and the GPU rows that the GPU metrics and /pods use.
 *
 * Device ownership (which GPU, which RDMA device) is the collector's: each
 * device node carries its GPU's PCI key and RDMA device name.
 *
 * Every per-container series carries container_id (the full ID, the MIB's
 * index), container (its name), pod and namespace (empty outside Kubernetes).
 * Only identity and resource figures exist in the model: nothing from a
 * container's environment, command line or annotations reaches a label. */
#include "pna_autoconf.h"
#include "model/containers.h"
#include "model/gpu.h"
#include "http/render.h"

#include <stdio.h>
#include <string.h>

const struct pna_gpu *pna_http_device_gpu(const struct pna_http_view *v,
                                          const struct pna_container_device *d)
{
    if (!v->gpu || !d->gpu_index)
        return NULL;
    return pna_gpu_find(v->gpu->gpus, v->gpu->count, d->gpu_index);
}

/* "dddd:bb:dd.f" from a PCI key (primusGpuIndex): known even when the GPU
 * poller has no row for it. */
static void pci_key_text(uint32_t key, char *buf, size_t cap)
{
    snprintf(buf, cap, "%04x:%02x:%02x.%x", (unsigned)(key >> 16), (unsigned)((key >> 8) & 0xff),
             (unsigned)((key >> 3) & 0x1f), (unsigned)(key & 7));
}

static const char *runtime_name(uint8_t rt)
{
    switch (rt) {
    case PNA_RUNTIME_CONTAINERD: return "containerd";
    case PNA_RUNTIME_DOCKER: return "docker";
    }
    return "other";
}

/* primusContainerState labels, in the MIB's spelling. */
static const char *state_name(uint8_t st)
{
    switch (st) {
    case PNA_CSTATE_CREATED: return "created";
    case PNA_CSTATE_RUNNING: return "running";
    case PNA_CSTATE_PAUSED: return "paused";
    case PNA_CSTATE_EXITED: return "stopped";
    }
    return "unknown";
}

static const char *kind_name(uint8_t kind)
{
    switch (kind) {
    case PNA_DEV_GPU: return "gpu";
    case PNA_DEV_RDMA: return "rdma";
    }
    return "other";
}

#define ID_LABELS 4
static void id_labels(struct pna_prom_label *l, const struct pna_container *c)
{
    l[0] = (struct pna_prom_label){ "container_id", c->id };
    l[1] = (struct pna_prom_label){ "container", c->name };
    l[2] = (struct pna_prom_label){ "pod", c->pod_name };
    l[3] = (struct pna_prom_label){ "namespace", c->pod_namespace };
}

enum container_metric { CM_START, CM_MEM_USAGE, CM_MEM_LIMIT, CM_OOM, CM_GPUS, CM_RDMA, CM_COUNT };

static const struct {
    const char *name;
    enum pna_prom_type type;
    const char *help;
} container_metrics[CM_COUNT] = {
    [CM_START] = { "primus_container_start_time_seconds", PNA_PROM_GAUGE,
                   "When the container's task started, seconds since 1970-01-01 UTC "
                   "(primusContainerStartTime)." },
    [CM_MEM_USAGE] = { "primus_container_memory_usage_bytes", PNA_PROM_GAUGE,
                       "Memory the container's cgroup uses (primusContainerMemUsage)." },
    [CM_MEM_LIMIT] = { "primus_container_memory_limit_bytes", PNA_PROM_GAUGE,
                       "The container's memory limit; absent when unlimited "
                       "(primusContainerMemLimit)." },
    [CM_OOM] = { "primus_container_oom_kills_total", PNA_PROM_COUNTER,
                 "Processes of the container killed by the OOM killer (primusContainerOomKills)." },
    [CM_GPUS] = { "primus_container_gpus", PNA_PROM_GAUGE,
                  "GPUs the container holds (primusContainerGpuCount)." },
    [CM_RDMA] = { "primus_container_rdma_devices", PNA_PROM_GAUGE,
                  "RDMA devices the container holds (primusContainerRdmaCount)." },
};

static void container_sample(struct pna_prom *p, enum container_metric m,
                             const struct pna_container_set *set, size_t i)
{
    const struct pna_container *c = &set->rows[i];
    struct pna_prom_label l[ID_LABELS];
    id_labels(l, c);
    switch (m) {
    case CM_START:
        if (c->start_ms > 0)
            pna_prom_fixed(p, l, ID_LABELS, c->start_ms, 3);
        break;
    case CM_MEM_USAGE:
        if (c->has_memory)
            pna_prom_u64(p, l, ID_LABELS, c->mem_usage_bytes);
        break;
    case CM_MEM_LIMIT:
        if (c->has_limit)
            pna_prom_u64(p, l, ID_LABELS, c->mem_limit_bytes);
        break;
    case CM_OOM:
        if (c->has_oom)
            pna_prom_u64(p, l, ID_LABELS, c->oom_kills);
        break;
    case CM_GPUS: pna_prom_u64(p, l, ID_LABELS, c->gpu_count); break;
    case CM_RDMA: pna_prom_u64(p, l, ID_LABELS, c->rdma_count); break;
    case CM_COUNT:
        break;
    }
}

static void container_rows(struct pna_prom *p, const struct pna_http_view *v)
{
    const struct pna_container_set *set = &v->containers->set;
    pna_prom_family(p, "primus_container_info", PNA_PROM_GAUGE,
                    "One series per container: pod UID, image, runtime, runtime namespace and "
                    "cgroup path; always 1 (primusContainerTable identity columns).");
    for (size_t i = 0; i < set->count; i++) {
        const struct pna_container *c = &set->rows[i];
        struct pna_prom_label l[ID_LABELS + 5];
        id_labels(l, c);
        l[ID_LABELS + 0] = (struct pna_prom_label){ "pod_uid", c->pod_uid };
        l[ID_LABELS + 1] = (struct pna_prom_label){ "image", c->image };
        l[ID_LABELS + 2] = (struct pna_prom_label){ "runtime", runtime_name(c->runtime) };
        l[ID_LABELS + 3] = (struct pna_prom_label){ "runtime_namespace", c->rt_namespace };
        l[ID_LABELS + 4] = (struct pna_prom_label){ "cgroup_path", c->cgroup_path };
        pna_prom_u64(p, l, ID_LABELS + 5, 1);
    }
    pna_prom_family(p, "primus_container_state", PNA_PROM_GAUGE,
                    "The container's primusContainerState (created, running, paused, stopped, "
                    "unknown) as the state label; always 1.");
    for (size_t i = 0; i < set->count; i++) {
        struct pna_prom_label l[ID_LABELS + 1];
        id_labels(l, &set->rows[i]);
        l[ID_LABELS] = (struct pna_prom_label){ "state", state_name(set->rows[i].state) };
        pna_prom_u64(p, l, ID_LABELS + 1, 1);
    }
    for (int m = 0; m < CM_COUNT; m++) {
        pna_prom_family(p, container_metrics[m].name, container_metrics[m].type,
                        container_metrics[m].help);
        for (size_t i = 0; i < set->count; i++)
            container_sample(p, (enum container_metric)m, set, i);
    }
}

static void device_rows(struct pna_prom *p, const struct pna_http_view *v)
{
    const struct pna_container_set *set = &v->containers->set;
    pna_prom_family(p, "primus_container_device_info", PNA_PROM_GAUGE,
                    "One series per container and device node it holds: path, kind (gpu, rdma, "
                    "other), major and minor numbers, and the GPU (PCI address) or RDMA device "
                    "it belongs to; always 1 (primusContainerDeviceTable).");
    for (size_t i = 0; i < set->count; i++) {
        size_t n;
        const struct pna_container_device *devs = pna_container_devices(set, i, &n);
        for (size_t k = 0; k < n; k++) {
            const struct pna_container_device *d = &devs[k];
            char major[16] = "", minor[16] = "";
            if (d->has_numbers) {
                snprintf(major, sizeof major, "%u", (unsigned)d->major);
                snprintf(minor, sizeof minor, "%u", (unsigned)d->minor);
            }
            char gpu[24] = "";
            if (d->gpu_index)
                pci_key_text(d->gpu_index, gpu, sizeof gpu);
            struct pna_prom_label l[ID_LABELS + 6];
            id_labels(l, &set->rows[i]);
            l[ID_LABELS + 0] = (struct pna_prom_label){ "path", d->path };
            l[ID_LABELS + 1] = (struct pna_prom_label){ "kind", kind_name(d->kind) };
            l[ID_LABELS + 2] = (struct pna_prom_label){ "major", major };
            l[ID_LABELS + 3] = (struct pna_prom_label){ "minor", minor };
            l[ID_LABELS + 4] = (struct pna_prom_label){ "gpu_pci_bus_id", gpu };
            l[ID_LABELS + 5] = (struct pna_prom_label){ "rdma_device", d->rdma_dev };
            pna_prom_u64(p, l, ID_LABELS + 6, 1);
        }
    }
}

static void runtime_scalars(struct pna_prom *p, const struct pna_containers_snap *s)
{
    pna_prom_gauge_u64(p, "primus_containers", "Containers the runtimes know (primusContainerCount).",
                       s->set.count);
    pna_prom_family(p, "primus_containers_oom_kills_seen_total", PNA_PROM_COUNTER,
                    "OOM kills seen in any container since the agent started, gone containers "
                    "included (primusContainerOomKillsTotal).");
    pna_prom_u64(p, NULL, 0, s->oom_kills);
    pna_prom_family(p, "primus_containers_runtime_up", PNA_PROM_GAUGE,
                    "1 when the runtime was seen at the last poll (containerd's state "
                    "directory exists, dockerd answered), else 0.");
    const struct pna_prom_label cd[] = { { "runtime", "containerd" } };
    const struct pna_prom_label dk[] = { { "runtime", "docker" } };
    pna_prom_u64(p, cd, 1, s->containerd_seen ? 1 : 0);
    pna_prom_u64(p, dk, 1, s->docker_seen ? 1 : 0);
    pna_prom_family(p, "primus_containers_docker_errors_total", PNA_PROM_COUNTER,
                    "Failed requests to the Docker Engine API since the agent started.");
    pna_prom_u64(p, NULL, 0, s->docker_errors);
    pna_prom_family(p, "primus_containers_devices_dropped_total", PNA_PROM_COUNTER,
                    "Device nodes left out because a container had more than the agent keeps.");
    pna_prom_u64(p, NULL, 0, s->set.devices_dropped);
}

void pna_metrics_containers(struct pna_prom *p, const struct pna_http_view *v)
{
    if (!v->containers)
        return;
    runtime_scalars(p, v->containers);
    container_rows(p, v);
    device_rows(p, v);
}
