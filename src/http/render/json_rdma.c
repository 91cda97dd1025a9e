/* http/render/json_rdma.c -- the node exporter's /rdma endpoint in its shape:
 *   {"code":0,"data":[{"if_index":0,"if_name":"mlx5_0",
 *    "node_guid":"98:03:9b:ff:fe:12:34:56","sys_image_guid":"...",
 *    "port_guid":"...","link_layer":"InfiniBand"}],"message":"success"}
 * one entry per RDMA device in name order (if_index is that position, as the
 * seed numbered ibv_devinfo's list).  GUIDs are printed as eight colon-separated
 * bytes, as the seed does; port_guid and link_layer are the first port's. */
#include "pna_autoconf.h"
#include "model/ib.h"
#include "http/render/render.h"

#include <inttypes.h>
#include <stdio.h>

void pna_http_guid_text(uint64_t guid, char *buf, size_t cap)
{
    snprintf(buf, cap, "%02x:%02x:%02x:%02x:%02x:%02x:%02x:%02x",
             (unsigned)(guid >> 56) & 0xff, (unsigned)(guid >> 48) & 0xff,
             (unsigned)(guid >> 40) & 0xff, (unsigned)(guid >> 32) & 0xff,
             (unsigned)(guid >> 24) & 0xff, (unsigned)(guid >> 16) & 0xff,
             (unsigned)(guid >> 8) & 0xff, (unsigned)guid & 0xff);
}

static json_t *guid_json(bool have, uint64_t guid)
{
    char text[32] = "";
    if (have)
        pna_http_guid_text(guid, text, sizeof text);
    return pna_json_text(text);
}

struct pna_json_reply pna_json_rdma(const struct pna_http_view *v)
{
    json_t *list = json_array();
    for (size_t i = 0; v->ib && i < v->ib->n_devices; i++) {
        const struct pna_ib_device *d = &v->ib->devices[i];
        const struct pna_ib_port *port = d->n_ports ? &d->ports[0] : NULL;
        json_t *o = json_object();
        json_object_set_new(o, "if_index", json_integer((json_int_t)i));
        json_object_set_new(o, "if_name", pna_json_text(d->name));
        json_object_set_new(o, "node_guid", guid_json(d->has_node_guid, d->node_guid));
        json_object_set_new(o, "sys_image_guid", guid_json(d->has_sys_image_guid, d->sys_image_guid));
        json_object_set_new(o, "port_guid", guid_json(port && port->has_port_guid,
                                                      port ? port->port_guid : 0));
        json_object_set_new(o, "link_layer", pna_json_text(port ? port->link_layer : ""));
        json_array_append_new(list, o);
    }
    return pna_json_envelope(list);
}
