/* sources/gpu/nvml_events.c -- XIDs through NVML's event API (see nvml.h):
 * an event set with every GPU that accepts nvmlEventTypeXidCriticalError
 * registered, each GPU's identity read once at registration, and the wait
 * for the next XID.  The thread that waits is the XID watch's
 * (watchers/gpu_xid.c): nothing here starts one. */
#include "pna_autoconf.h"
#include "sources/gpu/nvml_priv.h"
#include "util/fileio.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct event_dev {
    nvmlDevice_t dev;
    struct pna_nvml_xid ident;
};

struct pna_nvml_xid_set {
    struct pna_nvml *nv;
    nvmlEventSet_t set;
    size_t count;
    struct event_dev devs[NVML_MAX_GPUS];
};

/* Register GPU number I of NV in S, with its identity; false when it cannot
 * be named or reports no XIDs. */
static bool register_gpu(struct pna_nvml_xid_set *s, unsigned i)
{
    struct pna_nvml *nv = s->nv;
    struct dev_read r = { .nv = nv };
    struct pna_gpu g;
    memset(&g, 0, sizeof g);
    if (nv->DeviceGetHandleByIndex(i, &r.dev) != NVML_SUCCESS || !pna_nvml_read_pci(&r, &g))
        return false;
    pna_nvml_get_str(&r, nv->DeviceGetUUID, g.uuid, sizeof g.uuid);
    if (nv->DeviceRegisterEvents(r.dev, nvmlEventTypeXidCriticalError, s->set) != NVML_SUCCESS)
        return false; /* this GPU cannot report XIDs */
    struct event_dev *d = &s->devs[s->count++];
    memset(d, 0, sizeof *d);
    d->dev = r.dev;
    d->ident.index = g.index;
    pna_strlcpy(d->ident.pci_bus_id, g.pci_bus_id, sizeof d->ident.pci_bus_id);
    pna_strlcpy(d->ident.uuid, g.uuid, sizeof d->ident.uuid);
    return true;
}

int pna_nvml_xid_set_open(struct pna_nvml *nv, struct pna_nvml_xid_set **out, char *err,
                          size_t errlen)
{
    *out = NULL;
    if (!nv->EventSetCreate || !nv->DeviceRegisterEvents || !nv->EventSetWait || !nv->EventSetFree)
        return 0; /* an NVML without the event API: no XID notifications */
    struct pna_nvml_xid_set *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    s->nv = nv;
    nvmlReturn_t rc = nv->EventSetCreate(&s->set);
    if (rc != NVML_SUCCESS) {
        snprintf(err, errlen, "nvmlEventSetCreate: %s (%d)", pna_nvml_strerror(nv, rc), rc);
        free(s);
        return -1;
    }
    unsigned int count = 0;
    if (nv->DeviceGetCount(&count) == NVML_SUCCESS)
        for (unsigned i = 0; i < count && s->count < NVML_MAX_GPUS; i++)
            register_gpu(s, i);
    if (s->count == 0) {
        pna_nvml_xid_set_free(s);
        return 0;
    }
    *out = s;
    return 0;
}

size_t pna_nvml_xid_set_gpus(const struct pna_nvml_xid_set *s)
{
    return s ? s->count : 0;
}

static const struct pna_nvml_xid *ident_of(const struct pna_nvml_xid_set *s, nvmlDevice_t dev)
{
    for (size_t i = 0; i < s->count; i++)
        if (s->devs[i].dev == dev)
            return &s->devs[i].ident;
    return NULL;
}

int pna_nvml_xid_wait(struct pna_nvml_xid_set *s, unsigned timeout_ms, struct pna_nvml_xid *x)
{
    nvmlEventData_t data;
    memset(&data, 0, sizeof data);
    nvmlReturn_t rc = s->nv->EventSetWait(s->set, &data, timeout_ms);
    if (rc == NVML_ERROR_TIMEOUT)
        return 0;
    if (rc != NVML_SUCCESS)
        return -1;
    if (!(data.eventType & nvmlEventTypeXidCriticalError))
        return 0;
    const struct pna_nvml_xid *id = ident_of(s, data.device);
    memset(x, 0, sizeof *x);
    if (id)
        *x = *id;
    x->xid = data.eventData;
    return 1;
}

void pna_nvml_xid_set_free(struct pna_nvml_xid_set *s)
{
    if (!s)
        return;
    s->nv->EventSetFree(s->set);
    free(s);
}
