/* http/render/json_topology.c -- /topology: the node's GPU and RDMA distance
 * matrix in the node exporter's envelope:
 *   {"code":0,"data":{"devices":[{"name":"GPU0","kind":"gpu",
 *     "pci_addr":"0000:1b:00.0","host_bridge":"pci0000:15","numa_node":0,
 *     "local_cpus":"0-55","error":""}],
 *    "pairs":[{"a":"GPU0","b":"mlx5_0","class":"pix","matrix":"PIX"}]},
 *   "message":"success"}
 * "pairs" are primusTopoTable's rows: their key and their descriptors' JSON
 * members ("class", the MIB's label), and "matrix", the cell as
 * `nvidia-smi topo -m` and `--topo` print it ("NV18", "PIX", "unknown").
 * "devices" are the topology snapshot's: numa_node is null when unknown,
 * host_bridge "" when the device could not be placed (error says why).
 * Without a topology snapshot, data is null. */
#include "pna_autoconf.h"
#include "model/metric_tables.h"
#include "model/topology/topology.h"
#include "http/render/render.h"

static json_t *device_json(const struct pna_topo_device *d)
{
    json_t *o = json_object();
    json_object_set_new(o, "name", pna_json_text(d->name));
    json_object_set_new(o, "kind", pna_json_text(d->kind == PNA_TOPO_GPU ? "gpu" : "rdma"));
    json_object_set_new(o, "pci_addr", pna_json_text(d->pci_addr));
    json_object_set_new(o, "host_bridge", pna_json_text(d->placed ? d->path.host_bridge : ""));
    json_object_set_new(o, "numa_node", d->placed && d->path.has_numa_node
                                            ? json_integer(d->path.numa_node) : json_null());
    json_object_set_new(o, "local_cpus", pna_json_text(d->cpus));
    json_object_set_new(o, "error", pna_json_text(d->error));
    return o;
}

static json_t *pairs_json(const struct pna_http_view *v)
{
    const struct pna_metric_table *t = &pna_topo_metrics;
    json_t *a = json_array();
    for (size_t i = 0; i < t->rows(&v->base); i++) {
        struct pna_row row;
        if (!pna_http_row(t, v, i, &row))
            continue;
        const struct pna_topo_pair *p = row.rec;
        json_t *o = json_object();
        pna_json_put_own_key(o, t, &row);
        pna_json_put_members(o, t, &row);
        char cell[16];
        pna_topo_cell_text((enum pna_topo_class)p->cls, p->nvlinks, cell, sizeof cell);
        json_object_set_new(o, "matrix", pna_json_text(cell[0] == ' ' ? "X" : cell));
        json_array_append_new(a, o);
    }
    return a;
}

struct pna_json_reply pna_json_topology(const struct pna_http_view *v)
{
    const struct pna_topo_snap *s = pna_view_snap(&v->base, PNA_DOM_TOPOLOGY);
    if (!s)
        return pna_json_envelope(json_null());
    json_t *devices = json_array();
    for (unsigned i = 0; i < s->matrix.count; i++)
        json_array_append_new(devices, device_json(&s->matrix.dev[i]));
    return pna_json_envelope(json_pack("{s:o,s:o}", "devices", devices, "pairs", pairs_json(v)));
}
