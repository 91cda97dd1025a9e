/* snmp/phy_tables.c -- the physical layer of the RDMA ports' interfaces:
 * primusPhyTable and primusModuleTable (per interface) and
 * primusModuleLaneTable (per module lane), from the descriptors of
 * model/phy/phy_metrics.c and model/phy/module_metrics.c. */
#include "pna_autoconf.h"
#include "snmp/tables.h"

#include "model/metric_tables.h"
#include "model/oids.h"
#include "model/phy/phy.h"

/* primusPhyIfName */
static size_t phy_index(const struct pna_row *row, oid *idx)
{
    const struct pna_phy_if *pif = row->rec;
    return pna_index_put_string(idx, PNA_MAX_INDEX_LEN, pif->ifname);
}

/* primusPhyIfName, primusModuleLane */
static size_t lane_index(const struct pna_row *row, oid *idx)
{
    const struct pna_phy_if *pif = row->owner;
    size_t n = pna_index_put_string(idx, PNA_MAX_INDEX_LEN - 1, pif->ifname);
    idx[n] = row->sub;
    return n + 1;
}

static const oid phy_table_oid[] = { PNA_OID_PHY_TABLE };
static const oid module_table_oid[] = { PNA_OID_MODULE_TABLE };
static const oid module_lane_table_oid[] = { PNA_OID_MODULE_LANE_TABLE };

const struct pna_table_def pna_phy_table = {
    &pna_phy_metrics, phy_table_oid, OID_LENGTH(phy_table_oid), false, phy_index,
};
const struct pna_table_def pna_module_table = {
    &pna_module_metrics, module_table_oid, OID_LENGTH(module_table_oid), false, phy_index,
};
const struct pna_table_def pna_module_lane_table = {
    &pna_module_lane_metrics, module_lane_table_oid, OID_LENGTH(module_lane_table_oid), false,
    lane_index,
};
