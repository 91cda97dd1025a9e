/* snmp/pfc_tables.c -- primusPfc: primusPauseTable (per interface),
 * primusPfcTable (per interface and priority) and primusEthtoolCounterTable
 * (every other ethtool statistic under the driver's name), from the
 * descriptors of model/pfc_metrics.c; the node's lossless-RoCE scalars
 * (primusPfc 1-5) and primusRoceConfigTable, from those of
 * model/lossless/lossless_metrics.c. */
#include "pna_autoconf.h"
#include "snmp/tables.h"

#include "model/metric_tables.h"
#include "model/oids.h"
#include "model/pfc.h"

/* primusPfcIfName */
static size_t pause_index(const struct pna_row *row, oid *idx)
{
    const struct pna_pfc_if *pif = row->rec;
    return pna_index_put_string(idx, PNA_MAX_INDEX_LEN, pif->ifname);
}

/* primusPfcIfName, primusPfcPriority */
static size_t pfc_index(const struct pna_row *row, oid *idx)
{
    const struct pna_pfc_if *pif = row->owner;
    size_t n = pna_index_put_string(idx, PNA_MAX_INDEX_LEN - 1, pif->ifname);
    idx[n] = row->sub;
    return n + 1;
}

/* primusPfcIfName, primusEthtoolCounterName */
static size_t ethtool_index(const struct pna_row *row, oid *idx)
{
    const struct pna_pfc_if *pif = row->owner;
    const struct pna_eth_stat *s = row->rec;
    size_t n = pna_index_put_string(idx, PNA_MAX_INDEX_LEN, pif->ifname);
    return n + pna_index_put_string(idx + n, PNA_MAX_INDEX_LEN - n, s->name);
}

static const oid pause_table_oid[] = { PNA_OID_PAUSE_TABLE };
static const oid roce_config_table_oid[] = { PNA_OID_ROCE_CONFIG_TABLE };
static const oid pfc_group_oid[] = { PNA_OID_PFC };
static const oid pfc_table_oid[] = { PNA_OID_PFC_TABLE };
static const oid ethtool_table_oid[] = { PNA_OID_ETHTOOL_COUNTER_TABLE };

const struct pna_table_def pna_pause_table = {
    &pna_pause_metrics, pause_table_oid, OID_LENGTH(pause_table_oid), false, pause_index,
};
const struct pna_table_def pna_pfc_table = {
    &pna_pfc_metrics, pfc_table_oid, OID_LENGTH(pfc_table_oid), false, pfc_index,
};
const struct pna_table_def pna_ethtool_counter_table = {
    &pna_ethtool_metrics, ethtool_table_oid, OID_LENGTH(ethtool_table_oid), false, ethtool_index,
};
const struct pna_scalar_def pna_roce_node_scalars = {
    &pna_roce_node_metrics, pfc_group_oid, OID_LENGTH(pfc_group_oid),
};
/* primusPfcIfName, as primusPauseTable */
const struct pna_table_def pna_roce_config_table = {
    &pna_roce_config_metrics, roce_config_table_oid, OID_LENGTH(roce_config_table_oid), false,
    pause_index,
};
