/* snmp/container_tables.c -- primusContainers (count, OOM kills, the container
 * and container-to-device tables), primusStorage (node ephemeral storage and
 * the pod storage table) and primusKubernetes, from the descriptors of
 * model/containers_metrics.c and model/storage_metrics.c.
 *
 * Containers are indexed by their full ID and pods by their UID (strings), so
 * a living row keeps its OID whatever else comes and goes. */
#include "pna_autoconf.h"
#include "snmp/tables.h"

#include "model/containers.h"
#include "model/metric_tables.h"
#include "model/oids.h"
#include "model/kubernetes/podres.h"
#include "model/storage.h"

/* The model's name limits are the MIB's index SIZEs. */
_Static_assert(PNA_CONTAINER_ID_MAX == PNA_MAX_CONTAINER_ID_LEN, "primusContainerId SIZE");
_Static_assert(PNA_CONTAINER_DEVICE_NAME_MAX == PNA_MAX_CONTAINER_DEVICE_PATH_LEN,
               "primusContainerDevicePath SIZE");
_Static_assert(PNA_POD_UID_MAX == PNA_MAX_POD_UID_LEN, "primusPodUid SIZE");
/* primusContainerId and primusContainerDevicePath fit one index: 1 + 76 + 1 + 36. */
_Static_assert(2 + PNA_CONTAINER_ID_MAX + PNA_CONTAINER_DEVICE_NAME_MAX <= PNA_MAX_INDEX_LEN,
               "container device index");

/* primusContainerId */
static size_t container_index(const struct pna_row *row, oid *idx)
{
    const struct pna_container *c = row->rec;
    return pna_index_put_string(idx, PNA_MAX_INDEX_LEN, c->id);
}

/* primusContainerId, primusContainerDevicePath (the device's name in the model) */
static size_t device_index(const struct pna_row *row, oid *idx)
{
    const struct pna_container *c = row->owner;
    const struct pna_container_device *d = row->rec;
    size_t n = pna_index_put_string(idx, PNA_MAX_INDEX_LEN, c->id);
    return n + pna_index_put_string(idx + n, PNA_MAX_INDEX_LEN - n, d->path);
}

/* primusPodResourceIndex */
static size_t podres_index(const struct pna_row *row, oid *idx)
{
    const struct pna_podres_row *r = row->rec;
    idx[0] = r->index;
    return 1;
}

/* primusPodUid */
static size_t pod_index(const struct pna_row *row, oid *idx)
{
    const struct pna_pod *p = row->rec;
    return pna_index_put_string(idx, PNA_MAX_INDEX_LEN, p->uid);
}

static const oid containers_oid[] = { PNA_OID_CONTAINERS };
static const oid container_table_oid[] = { PNA_OID_CONTAINER_TABLE };
static const oid device_table_oid[] = { PNA_OID_CONTAINER_DEVICE_TABLE };
static const oid storage_oid[] = { PNA_OID_STORAGE };
static const oid pod_table_oid[] = { PNA_OID_POD_STORAGE_TABLE };
static const oid k8s_oid[] = { PNA_OID_KUBERNETES };
static const oid podres_table_oid[] = { PNA_OID_POD_RESOURCE_TABLE };

const struct pna_scalar_def pna_container_scalars = {
    &pna_container_scalar_metrics, containers_oid, OID_LENGTH(containers_oid),
};
const struct pna_table_def pna_container_table = {
    &pna_container_metrics, container_table_oid, OID_LENGTH(container_table_oid), false,
    container_index,
};
const struct pna_table_def pna_container_device_table = {
    &pna_container_device_metrics, device_table_oid, OID_LENGTH(device_table_oid), false,
    device_index,
};
const struct pna_scalar_def pna_storage_scalars = {
    &pna_storage_metrics, storage_oid, OID_LENGTH(storage_oid),
};
const struct pna_table_def pna_pod_storage_table = {
    &pna_pod_metrics, pod_table_oid, OID_LENGTH(pod_table_oid), false, pod_index,
};
const struct pna_scalar_def pna_kubernetes_scalars = {
    &pna_k8s_metrics, k8s_oid, OID_LENGTH(k8s_oid),
};
const struct pna_table_def pna_podres_table = {
    &pna_podres_metrics, podres_table_oid, OID_LENGTH(podres_table_oid), false, podres_index,
};
