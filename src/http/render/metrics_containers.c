/* http/render/metrics_containers.c -- /metrics for containers (primusContainers,
 * primusContainerTable, primusContainerDeviceTable): the descriptors of
 * model/containers_metrics.c.
 *
 * Every per-container series carries container_id (the full ID, the MIB's
 * index), container (its name), pod and namespace (empty outside Kubernetes).
 * Only identity and resource figures exist in the model: nothing from a
 * container's environment, command line or annotations reaches a label. */
#include "pna_autoconf.h"
#include "http/render/render.h"

#include "model/containers.h"
#include "model/metric_tables.h"

static void identity(const struct pna_container *c, struct pna_row_labels *out)
{
    out->l[0] = (struct pna_prom_label){ "container_id", c->id };
    out->l[1] = (struct pna_prom_label){ "container", c->name };
    out->l[2] = (struct pna_prom_label){ "pod", c->pod_name };
    out->l[3] = (struct pna_prom_label){ "namespace", c->pod_namespace };
    out->n = 4;
}

/* container_id, container, pod, namespace */
static void container_labels(const struct pna_http_view *v, const struct pna_row *row,
                             struct pna_row_labels *out)
{
    (void)v;
    identity(row->rec, out);
}

/* the device's container's; its own path, kind... are descriptors' labels */
static void device_labels(const struct pna_http_view *v, const struct pna_row *row,
                          struct pna_row_labels *out)
{
    (void)v;
    identity(row->owner, out);
}

void pna_metrics_containers(struct pna_prom *p, const struct pna_http_view *v)
{
    if (!v->containers)
        return;
    pna_prom_table(p, v, &pna_container_scalar_metrics, NULL);
    pna_prom_table(p, v, &pna_container_metrics, container_labels);
    pna_prom_table(p, v, &pna_container_device_metrics, device_labels);
}
