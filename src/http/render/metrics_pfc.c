/* http/render/metrics_pfc.c -- /metrics for pause and PFC (primusPfc): the
 * descriptors of model/pfc_metrics.c, labelled interface (and priority), and
 * every other ethtool statistic under the driver's name; the lossless-RoCE
 * configuration and verdicts (model/lossless/lossless_metrics.c). */
#include "pna_autoconf.h"
#include "http/render/render.h"

#include <stdio.h>

#include "model/metric_tables.h"
#include "model/pfc.h"

/* interface */
static void interface_labels(const struct pna_http_view *v, const struct pna_row *row,
                             struct pna_row_labels *out)
{
    (void)v;
    const struct pna_pfc_if *pif = row->rec;
    out->l[0] = (struct pna_prom_label){ "interface", pif->ifname };
    out->n = 1;
}

/* interface, priority */
static void priority_labels(const struct pna_http_view *v, const struct pna_row *row,
                            struct pna_row_labels *out)
{
    (void)v;
    const struct pna_pfc_if *pif = row->owner;
    snprintf(out->buf, sizeof out->buf, "%u", (unsigned)row->sub);
    out->l[0] = (struct pna_prom_label){ "interface", pif->ifname };
    out->l[1] = (struct pna_prom_label){ "priority", out->buf };
    out->n = 2;
}

/* interface, statistic */
static void statistic_labels(const struct pna_http_view *v, const struct pna_row *row,
                             struct pna_row_labels *out)
{
    (void)v;
    const struct pna_pfc_if *pif = row->owner;
    const struct pna_eth_stat *s = row->rec;
    out->l[0] = (struct pna_prom_label){ "interface", pif->ifname };
    out->l[1] = (struct pna_prom_label){ "statistic", s->name };
    out->n = 2;
}

void pna_metrics_pfc(struct pna_prom *p, const struct pna_http_view *v)
{
    if (!v->pfc)
        return;
    pna_prom_table(p, v, &pna_pause_metrics, interface_labels);
    pna_prom_table(p, v, &pna_pfc_metrics, priority_labels);
    pna_prom_table(p, v, &pna_ethtool_metrics, statistic_labels);
    pna_prom_table(p, v, &pna_roce_node_metrics, NULL);
    pna_prom_table(p, v, &pna_roce_config_metrics, interface_labels);
}
