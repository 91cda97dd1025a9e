/* http/render/json_pods.c -- the node exporter's /pods endpoint in its shape: a bare
 * array (no envelope), one entry per container with its pod and the GPU and
 * RDMA devices it was given:
 *   [{"id","pod_name","pod_namespace","pod_uuid",
 *     "devices":{"gpu":[{"name","id","path","major","minor","kind":"GPU","uuid",
 *                        "serial","slot"}],
 *                "infiniband":[{"name","id","path","major","minor","kind":"RDMA","uuid"}]}}]
 * A GPU entry is a device node that belongs to one GPU (card, render node,
 * /dev/nvidiaN): name is the GPU's product name, id its number, slot its PCI
 * address, uuid its UUID.  An infiniband entry is a uverbs node: name is its RDMA
 * device, id the uverbs number, uuid the device's node GUID.  Shared nodes
 * (/dev/kfd, nvidiactl, rdma_cm) are not listed, as in the node exporter's.  path is the
 * node as the container sees it; major and minor (null when unknown) name the
 * host's device, which is what the entry was attributed by.
 *
 * Beyond the node exporter's: "container" (its name in the pod) and "pod_resources", the
 * device ids the kubelet assigned it (primusPodResourceTable:
 * [{"resource","device_id","kind","numa_node"}], and for a DRA claim's
 * device also "claim_namespace","claim","driver","pool","dra_device",
 * "cdi_device", the members of its descriptors); a container the kubelet
 * assigned devices to but whose runtime record the agent does not see is an
 * entry of its own with an empty id and no device nodes. */
#include "pna_autoconf.h"
#include "model/containers.h"
#include "model/gpu/gpu.h"
#include "model/ib.h"
#include "model/kubernetes/podres.h"
#include "http/render/render.h"

#include <stdio.h>
#include <string.h>

/* The GPU row a container's device node belongs to (the PCI key the source
 * resolved), or NULL: a shared node such as /dev/kfd, or no such GPU row. */
static const struct pna_gpu *device_gpu(const struct pna_http_view *v,
                                        const struct pna_container_device *d)
{
    const struct pna_gpu_snap *gs = pna_view_snap(&v->base, PNA_DOM_GPU);
    if (!gs || !d->gpu_index)
        return NULL;
    return pna_gpu_find(gs->gpus, gs->count, d->gpu_index);
}

/* What every device entry has: its path in the container and its numbers. */
static void put_node(json_t *o, const struct pna_container_device *d)
{
    json_object_set_new(o, "path", pna_json_text(d->path));
    json_object_set_new(o, "major", d->has_numbers ? json_integer(d->major) : json_null());
    json_object_set_new(o, "minor", d->has_numbers ? json_integer(d->minor) : json_null());
}

static json_t *gpu_device(const struct pna_http_view *v, const struct pna_container_device *d,
                          const struct pna_gpu *g)
{
    const struct pna_gpu_snap *gs = pna_view_snap(&v->base, PNA_DOM_GPU);
    size_t i = (size_t)(g - gs->gpus);
    json_t *o = json_object();
    json_object_set_new(o, "name", pna_json_text(g->name));
    json_object_set_new(o, "id", json_integer(pna_gpu_number(gs, i)));
    put_node(o, d);
    json_object_set_new(o, "kind", json_string("GPU"));
    json_object_set_new(o, "uuid", pna_json_text(g->uuid));
    json_object_set_new(o, "serial", pna_json_text(g->serial));
    json_object_set_new(o, "slot", pna_json_text(g->pci_bus_id));
    return o;
}

static json_t *rdma_device(const struct pna_http_view *v, const struct pna_container_device *d)
{
    char guid[32] = "";
    const struct pna_ib_snap *ib = pna_view_snap(&v->base, PNA_DOM_IB);
    const struct pna_ib_device *dev = ib && d->rdma_dev[0] ? pna_ib_find_device(&ib->model, d->rdma_dev)
                                                           : NULL;
    if (dev && dev->has_node_guid)
        pna_http_guid_text(dev->node_guid, guid, sizeof guid);
    json_t *o = json_object();
    json_object_set_new(o, "name", pna_json_text(d->rdma_dev));
    json_object_set_new(o, "id", json_integer(d->unit));
    put_node(o, d);
    json_object_set_new(o, "kind", json_string("RDMA"));
    json_object_set_new(o, "uuid", pna_json_text(guid));
    return o;
}

static bool same_holder(const struct pna_podres_row *r, const char *ns, const char *pod,
                        const char *container)
{
    return r->assigned && strcmp(r->pod_namespace, ns) == 0 && strcmp(r->pod_name, pod) == 0 &&
           strcmp(r->container, container) == 0;
}

/* A DRA claim's device: its claim and what names it. */
static void put_dra(json_t *o, const struct pna_podres_dra *d)
{
    json_object_set_new(o, "claim_namespace", pna_json_text(d->claim_namespace));
    json_object_set_new(o, "claim", pna_json_text(d->claim_name));
    json_object_set_new(o, "driver", pna_json_text(d->driver));
    json_object_set_new(o, "pool", pna_json_text(d->pool));
    json_object_set_new(o, "dra_device", pna_json_text(d->device));
    json_object_set_new(o, "cdi_device", pna_json_text(d->cdi_device));
}

/* The device ids the kubelet assigned to container CONTAINER of pod NS/POD. */
static json_t *pod_resources(const struct pna_podres_snap *ps, const char *ns, const char *pod,
                             const char *container)
{
    json_t *list = json_array();
    for (size_t i = 0; ps && pod[0] && i < ps->count; i++) {
        const struct pna_podres_row *r = &ps->rows[i];
        if (!same_holder(r, ns, pod, container))
            continue;
        json_t *o = json_object();
        json_object_set_new(o, "resource", pna_json_text(r->resource));
        json_object_set_new(o, "device_id", pna_json_text(r->id));
        json_object_set_new(o, "kind", json_string(pna_podres_kind_name(r->kind)));
        json_object_set_new(o, "numa_node", r->numa_node >= 0 ? json_integer(r->numa_node) : json_null());
        if (r->dra)
            put_dra(o, r->dra);
        json_array_append_new(list, o);
    }
    return list;
}

static json_t *pod_entry(const char *id, const char *container, const char *pod, const char *ns,
                         const char *uid, json_t *devices, json_t *podres)
{
    json_t *o = json_object();
    json_object_set_new(o, "id", pna_json_text(id));
    json_object_set_new(o, "container", pna_json_text(container));
    json_object_set_new(o, "pod_name", pna_json_text(pod));
    json_object_set_new(o, "pod_namespace", pna_json_text(ns));
    json_object_set_new(o, "pod_uuid", pna_json_text(uid));
    json_object_set_new(o, "devices", devices);
    json_object_set_new(o, "pod_resources", podres);
    return o;
}

/* Whether SET has a runtime record of the container pod-resources row R names. */
static bool has_record(const struct pna_container_set *set, const struct pna_podres_row *r)
{
    for (size_t i = 0; set && i < set->count; i++)
        if (same_holder(r, set->rows[i].pod_namespace, set->rows[i].pod_name, set->rows[i].name))
            return true;
    return false;
}

/* An entry per container the kubelet assigned devices to and the agent sees
 * no runtime record of (rows are sorted by namespace, pod, container). */
static void kubelet_only_entries(json_t *list, const struct pna_podres_snap *ps,
                                 const struct pna_container_set *set)
{
    const struct pna_podres_row *last = NULL;
    for (size_t i = 0; ps && i < ps->count; i++) {
        const struct pna_podres_row *r = &ps->rows[i];
        if (!r->assigned || (last && same_holder(last, r->pod_namespace, r->pod_name, r->container)))
            continue;
        last = r;
        if (has_record(set, r))
            continue;
        json_t *devices = json_object();
        json_object_set_new(devices, "gpu", json_array());
        json_object_set_new(devices, "infiniband", json_array());
        json_array_append_new(list, pod_entry("", r->container, r->pod_name, r->pod_namespace, "",
                                              devices, pod_resources(ps, r->pod_namespace,
                                                                     r->pod_name, r->container)));
    }
}

struct pna_json_reply pna_json_pods(const struct pna_http_view *v)
{
    const struct pna_podres_snap *ps = pna_view_snap(&v->base, PNA_DOM_PODRES);
    json_t *list = json_array();
    const struct pna_containers_snap *cs = pna_view_snap(&v->base, PNA_DOM_CONTAINERS);
    const struct pna_container_set *set = cs ? &cs->set : NULL;
    for (size_t i = 0; set && i < set->count; i++) {
        const struct pna_container *c = &set->rows[i];
        json_t *gpus = json_array(), *ib = json_array();
        size_t n;
        const struct pna_container_device *devs = pna_container_devices(set, i, &n);
        for (size_t k = 0; k < n; k++) {
            const struct pna_gpu *g = device_gpu(v, &devs[k]);
            if (g)
                json_array_append_new(gpus, gpu_device(v, &devs[k], g));
            else if (devs[k].family == PNA_DEVF_IB_UVERBS)
                json_array_append_new(ib, rdma_device(v, &devs[k]));
        }
        json_t *devices = json_object();
        json_object_set_new(devices, "gpu", gpus);
        json_object_set_new(devices, "infiniband", ib);
        json_array_append_new(list, pod_entry(c->id, c->name, c->pod_name, c->pod_namespace,
                                              c->pod_uid, devices,
                                              pod_resources(ps, c->pod_namespace, c->pod_name, c->name)));
    }
    kubelet_only_entries(list, ps, set);
    struct pna_json_reply r = { 200, list };
    return r;
}
