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
 * (/dev/kfd, nvidiactl, rdma_cm) are not listed, as in the seed.  path is the
 * node as the container sees it; major and minor (null when unknown) name the
 * host's device, which is what the entry was attributed by. */
#include "pna_autoconf.h"
#include "model/containers.h"
#include "model/gpu/gpu.h"
#include "model/ib.h"
#include "http/render/render.h"

#include <stdio.h>

/* The GPU row a container's device node belongs to (the PCI key the source
 * resolved), or NULL: a shared node such as /dev/kfd, or no such GPU row. */
static const struct pna_gpu *device_gpu(const struct pna_http_view *v,
                                        const struct pna_container_device *d)
{
    if (!v->gpu || !d->gpu_index)
        return NULL;
    return pna_gpu_find(v->gpu->gpus, v->gpu->count, d->gpu_index);
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
    size_t i = (size_t)(g - v->gpu->gpus);
    json_t *o = json_object();
    json_object_set_new(o, "name", pna_json_text(g->name));
    json_object_set_new(o, "id", json_integer(pna_http_gpu_number(v->gpu, i)));
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
    const struct pna_ib_device *dev = v->ib && d->rdma_dev[0] ? pna_ib_find_device(v->ib, d->rdma_dev)
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

struct pna_json_reply pna_json_pods(const struct pna_http_view *v)
{
    json_t *list = json_array();
    const struct pna_container_set *set = v->containers ? &v->containers->set : NULL;
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
        json_t *o = json_object();
        json_object_set_new(o, "id", pna_json_text(c->id));
        json_object_set_new(o, "pod_name", pna_json_text(c->pod_name));
        json_object_set_new(o, "pod_namespace", pna_json_text(c->pod_namespace));
        json_object_set_new(o, "pod_uuid", pna_json_text(c->pod_uid));
        json_object_set_new(o, "devices", devices);
        json_array_append_new(list, o);
    }
    struct pna_json_reply r = { 200, list };
    return r;
}
