/* http/render/metrics_phy.c -- /metrics for the physical layer of the RDMA
 * ports' interfaces: primusPhyTable and primusModuleTable labelled
 * interface, primusModuleLaneTable labelled interface and lane (the
 * descriptors of model/phy/). */
#include "pna_autoconf.h"
#include "http/render/render.h"

#include <stdio.h>

#include "model/metric_tables.h"
#include "model/phy/phy.h"

/* interface */
static void interface_labels(const struct pna_http_view *v, const struct pna_row *row,
                             struct pna_row_labels *out)
{
    (void)v;
    const struct pna_phy_if *pif = row->rec;
    out->l[0] = (struct pna_prom_label){ "interface", pif->ifname };
    out->n = 1;
}

/* interface, lane */
static void lane_labels(const struct pna_http_view *v, const struct pna_row *row,
                        struct pna_row_labels *out)
{
    (void)v;
    const struct pna_phy_if *pif = row->owner;
    snprintf(out->buf, sizeof out->buf, "%u", (unsigned)row->sub);
    out->l[0] = (struct pna_prom_label){ "interface", pif->ifname };
    out->l[1] = (struct pna_prom_label){ "lane", out->buf };
    out->n = 2;
}

void pna_metrics_phy(struct pna_prom *p, const struct pna_http_view *v)
{
    if (!v->phy)
        return;
    pna_prom_table(p, v, &pna_phy_metrics, interface_labels);
    pna_prom_table(p, v, &pna_module_metrics, interface_labels);
    pna_prom_table(p, v, &pna_module_lane_metrics, lane_labels);
}
