/* model/topology/topology_metrics.c -- primusTopoTable: the PCIe distance of
 * every ordered pair of the node's GPUs and RDMA devices, in nvidia-smi topo
 * -m's classes, from the topology snapshot (model/topology/topology.h).
 *
 * On /metrics a pair is primus_topology_distance{a,b}, the class's number
 * (smaller is closer: 2 NVLink/XGMI, 3 PIX, 4 PXB, 5 PHB, 6 NODE, 7 SYS, 0
 * unknown), and the state set primus_topology_link{a,b,class}. */
#include "pna_autoconf.h"
#include "model/metric_tables.h"
#include "model/oids.h"
#include "model/topology/topology.h"

static const struct pna_topo_snap *topo_snap(const struct pna_view *v)
{
    return pna_view_snap(v, PNA_DOM_TOPOLOGY);
}

static size_t topo_rows(const struct pna_view *v)
{
    return topo_snap(v) ? topo_snap(v)->pair_count : 0;
}

static bool topo_row(const struct pna_view *v, size_t i, struct pna_row *out)
{
    out->rec = &topo_snap(v)->pairs[i];
    return true;
}

/* The MIB's PrimusTopoClass, by value (enum pna_topo_class). */
static const char *const class_names[] = {
    [PNA_TOPO_UNKNOWN] = "unknown", [PNA_TOPO_SELF] = "self", [PNA_TOPO_NVLINK] = "nvlink",
    [PNA_TOPO_PIX] = "pix", [PNA_TOPO_PXB] = "pxb", [PNA_TOPO_PHB] = "phb",
    [PNA_TOPO_NODE] = "node", [PNA_TOPO_SYS] = "sys",
};
static const struct pna_enum class_enum = PNA_ENUM(class_names);

static void get_class(const struct pna_row *r, struct pna_value *out)
{
    pna_value_i64(out, ((const struct pna_topo_pair *)r->rec)->cls);
}

static const struct pna_metric topo_metrics[] = {
    { .column = 3, .object = "primusTopoClass", .syntax = PNA_SYNTAX_INTEGER, .get = get_class,
      .enums = &class_enum, .family = "primus_topology_distance", .type = PNA_FAMILY_GAUGE,
      .json = "class",
      .help = "How far apart devices a and b are, as nvidia-smi topo -m's class: 2 NVLink or "
              "XGMI, 3 PIX, 4 PXB, 5 PHB, 6 NODE, 7 SYS, 0 unknown (smaller is closer)" },
    { .get = get_class, .enums = &class_enum, .family = "primus_topology_link",
      .type = PNA_FAMILY_STATESET, .label = "class",
      .help = "primusTopoClass of devices a and b as a state set: one series per class, 1 for "
              "the pair's" },
};

static const struct pna_key_part topo_key[] = {
    PNA_KEY_INDEX_FIELD("primusTopoDeviceA", "a", PNA_KEY_FROM_REC, struct pna_topo_pair, a),
    PNA_KEY_INDEX_FIELD("primusTopoDeviceB", "b", PNA_KEY_FROM_REC, struct pna_topo_pair, b),
};

const struct pna_metric_table pna_topo_metrics = {
    .object = "primusTopoTable",
    .kind = PNA_TABLE_ROWS,
    .domain = PNA_DOM_TOPOLOGY,
    .view = PNA_VIEW_DOMAIN(PNA_DOM_TOPOLOGY),
    PNA_TABLE_OID(PNA_OID_TOPOLOGY, 10),
    PNA_KEY(topo_key),
    .metrics = topo_metrics,
    .count = sizeof topo_metrics / sizeof topo_metrics[0],
    .rows = topo_rows,
    .row = topo_row,
    .info_family = "primus_topology_pair_info",
    .info_help = "One series per ordered pair of GPUs and RDMA devices; always 1",
};
