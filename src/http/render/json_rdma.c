/* http/render/json_rdma.c -- the node exporter's /rdma endpoint in its shape:
 *   {"code":0,"data":[{"if_index":0,"if_name":"mlx5_0",
 *    "node_guid":"98:03:9b:ff:fe:12:34:56","sys_image_guid":"...",
 *    "port_guid":"...","link_layer":"InfiniBand"}],"message":"success"}
 * one entry per RDMA device in name order (if_index is that position, as the
 * node exporter numbered ibv_devinfo's list).  GUIDs are printed as eight colon-separated
 * bytes, as the node exporter does; port_guid and link_layer are the first port's.
 * After the node exporter's members, "ports" lists each port: its number, its netdev
 * ("" for InfiniBand), the primusIbPortTable members that have a JSON name
 * ("flaps", "last_change") and, for an interface the pfc and phy pollers
 * watch, its lossless-RoCE configuration and verdict (primusRoceConfigTable)
 * under "roce", its physical layer (primusPhyTable) under "phy" and its
 * module (primusModuleTable, primusModuleLaneTable) under "module"; "pcie" is
 * the device's PCIe link, AER totals and locality (primusRdmaDeviceTable's
 * descriptors with a JSON member).  /node carries the node's verdict
 * (pna_json_roce_summary). */
#include "pna_autoconf.h"
#include "model/ib.h"
#include "model/metric_tables.h"
#include "model/pfc.h"
#include "model/phy/phy.h"
#include "http/render/render.h"

#include <string.h>

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

static const char *pfc_row_ifname(const struct pna_row *row)
{
    return ((const struct pna_pfc_if *)row->rec)->ifname;
}

static const char *phy_row_ifname(const struct pna_row *row)
{
    return ((const struct pna_phy_if *)row->rec)->ifname;
}

/* The row of table T whose interface (IFNAME_OF) is IFNAME, as a JSON object
 * of its members; NULL when T has no such row.  *REC: the row's record. */
static json_t *if_row_json(const struct pna_http_view *v, const struct pna_metric_table *t,
                           const char *ifname, const char *(*ifname_of)(const struct pna_row *),
                           const void **rec)
{
    for (size_t i = 0; i < t->rows(&v->base); i++) {
        struct pna_row row;
        if (!pna_http_row(t, v, i, &row) || strcmp(ifname_of(&row), ifname) != 0)
            continue;
        json_t *o = json_object();
        pna_json_put_members(o, t, &row);
        if (rec)
            *rec = row.rec;
        return o;
    }
    return NULL;
}

/* Port PORT of primusIbPortTable's row ROW: its members, then those of the
 * interface's rows: "roce" (primusRoceConfigTable), "phy" (primusPhyTable),
 * "module" (primusModuleTable, with its "lanes"). */
static json_t *port_json(const struct pna_http_view *v, const struct pna_ib_port *port, size_t row)
{
    json_t *o = json_pack("{s:I,s:o}", "port", (json_int_t)port->num, "netdev",
                          pna_json_text(port->netdev));
    struct pna_row r;
    if (pna_http_row(&pna_ib_port_metrics, v, row, &r))
        pna_json_put_members(o, &pna_ib_port_metrics, &r);
    if (!port->netdev[0])
        return o;
    const void *phy_if = NULL;
    json_t *roce = if_row_json(v, &pna_roce_config_metrics, port->netdev, pfc_row_ifname, NULL);
    json_t *phy = if_row_json(v, &pna_phy_metrics, port->netdev, phy_row_ifname, NULL);
    json_t *module = if_row_json(v, &pna_module_metrics, port->netdev, phy_row_ifname, &phy_if);
    if (roce)
        json_object_set_new(o, "roce", roce);
    if (phy)
        json_object_set_new(o, "phy", phy);
    if (module) {
        /* the lanes of the module (primusModuleLaneTable), in order */
        json_object_set_new(module, "lanes",
                            pna_json_child_rows(v, &pna_module_lane_metrics, phy_if));
        json_object_set_new(o, "module", module);
    }
    return o;
}

/* The ports of device D, whose first row in primusIbPortTable is FIRST_ROW. */
static json_t *ports_json(const struct pna_http_view *v, const struct pna_ib_device *d,
                          size_t first_row)
{
    json_t *list = json_array();
    for (size_t p = 0; p < d->n_ports; p++)
        json_array_append_new(list, port_json(v, &d->ports[p], first_row + p));
    return list;
}

json_t *pna_json_roce_summary(const struct pna_http_view *v)
{
    struct pna_row row;
    if (pna_roce_node_metrics.rows(&v->base) == 0 ||
        !pna_http_row(&pna_roce_node_metrics, v, 0, &row))
        return json_null();
    json_t *o = json_object();
    pna_json_put_members(o, &pna_roce_node_metrics, &row);
    return o;
}

/* Device I's PCIe members, from the descriptors of primusRdmaDeviceTable. */
static json_t *pcie_json(const struct pna_http_view *v, size_t i)
{
    struct pna_row row;
    json_t *o = json_object();
    if (pna_http_row(&pna_rdma_device_metrics, v, i, &row))
        pna_json_put_members(o, &pna_rdma_device_metrics, &row);
    return o;
}

struct pna_json_reply pna_json_rdma(const struct pna_http_view *v)
{
    json_t *list = json_array();
    size_t first_row = 0;
    const struct pna_ib_snap *ib = pna_view_snap(&v->base, PNA_DOM_IB);
    for (size_t i = 0; ib && i < ib->model.n_devices; i++) {
        const struct pna_ib_device *d = &ib->model.devices[i];
        const struct pna_ib_port *port = d->n_ports ? &d->ports[0] : NULL;
        json_t *o = json_object();
        json_object_set_new(o, "if_index", json_integer((json_int_t)i));
        json_object_set_new(o, "if_name", pna_json_text(d->name));
        json_object_set_new(o, "node_guid", guid_json(d->has_node_guid, d->node_guid));
        json_object_set_new(o, "sys_image_guid", guid_json(d->has_sys_image_guid, d->sys_image_guid));
        json_object_set_new(o, "port_guid", guid_json(port && port->has_port_guid,
                                                      port ? port->port_guid : 0));
        json_object_set_new(o, "link_layer", pna_json_text(port ? port->link_layer : ""));
        json_object_set_new(o, "ports", ports_json(v, d, first_row));
        first_row += d->n_ports;
        json_object_set_new(o, "pcie", pcie_json(v, i));
        json_array_append_new(list, o);
    }
    return pna_json_envelope(list);
}
