/* watchers/gpu_xid.c -- the XID listener (see nvml.h): a thread of
 * its own waits on an NVML event set in half-second slices, so that a stop
 * request is seen soon, and hands each XID to the poller's callback. */
#include "pna_autoconf.h"
#include "sources/gpu/nvml_priv.h"
#include "util/fileio.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static const struct pna_nvml_xid *event_ident(const struct pna_nvml *nv, nvmlDevice_t dev)
{
    for (size_t i = 0; i < nv->ev_count; i++)
        if (nv->ev_devs[i].dev == dev)
            return &nv->ev_devs[i].ident;
    return NULL;
}

static void sleep_ms(unsigned ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

static void *event_main(void *arg)
{
    struct pna_nvml *nv = arg;
    while (!atomic_load(&nv->ev_stop)) {
        nvmlEventData_t data;
        memset(&data, 0, sizeof data);
        /* Short slices so a stop request is seen within half a second. */
        nvmlReturn_t rc = nv->EventSetWait(nv->ev_set, &data, 500);
        if (rc == NVML_SUCCESS) {
            if (!(data.eventType & nvmlEventTypeXidCriticalError))
                continue;
            const struct pna_nvml_xid *id = event_ident(nv, data.device);
            struct pna_nvml_xid x;
            memset(&x, 0, sizeof x);
            if (id)
                x = *id;
            x.xid = data.eventData;
            nv->ev_fn(&x, nv->ev_arg);
        } else if (rc != NVML_ERROR_TIMEOUT) {
            /* GPU lost or driver trouble: the poller reports it; do not spin. */
            sleep_ms(1000);
        }
    }
    atomic_store(&nv->ev_exited, true);
    return NULL;
}

int pna_nvml_events_start(struct pna_nvml *nv, pna_nvml_xid_fn fn, void *arg, char *err,
                          size_t errlen)
{
    if (atomic_load(&nv->ev_running) || nv->ev_detached)
        return 0;
    if (!nv->EventSetCreate || !nv->DeviceRegisterEvents || !nv->EventSetWait || !nv->EventSetFree)
        return 0; /* an NVML without the event API: no XID notifications */
    nvmlReturn_t rc = nv->EventSetCreate(&nv->ev_set);
    if (rc != NVML_SUCCESS) {
        snprintf(err, errlen, "nvmlEventSetCreate: %s (%d)", pna_nvml_strerror(nv, rc), rc);
        return -1;
    }
    unsigned int count = 0;
    nv->ev_count = 0;
    if (nv->DeviceGetCount(&count) == NVML_SUCCESS) {
        for (unsigned i = 0; i < count && nv->ev_count < NVML_MAX_GPUS; i++) {
            struct dev_read r = { .nv = nv };
            struct pna_gpu g;
            memset(&g, 0, sizeof g);
            if (nv->DeviceGetHandleByIndex(i, &r.dev) != NVML_SUCCESS || !pna_nvml_read_pci(&r, &g))
                continue;
            pna_nvml_get_str(&r, nv->DeviceGetUUID, g.uuid, sizeof g.uuid);
            if (nv->DeviceRegisterEvents(r.dev, nvmlEventTypeXidCriticalError, nv->ev_set) !=
                NVML_SUCCESS)
                continue; /* this GPU cannot report XIDs */
            struct nvml_event_dev *d = &nv->ev_devs[nv->ev_count++];
            memset(d, 0, sizeof *d);
            d->dev = r.dev;
            d->ident.index = g.index;
            pna_strlcpy(d->ident.pci_bus_id, g.pci_bus_id, sizeof d->ident.pci_bus_id);
            pna_strlcpy(d->ident.uuid, g.uuid, sizeof d->ident.uuid);
        }
    }
    if (nv->ev_count == 0) {
        nv->EventSetFree(nv->ev_set);
        nv->ev_set = NULL;
        return 0;
    }
    nv->ev_fn = fn;
    nv->ev_arg = arg;
    atomic_store(&nv->ev_stop, false);
    atomic_store(&nv->ev_exited, false);
    int e = pthread_create(&nv->ev_thread, NULL, event_main, nv);
    if (e != 0) {
        snprintf(err, errlen, "cannot start the XID listener: %s", strerror(e));
        nv->EventSetFree(nv->ev_set);
        nv->ev_set = NULL;
        return -1;
    }
    atomic_store(&nv->ev_running, true);
    return 0;
}

void pna_nvml_events_stop(struct pna_nvml *nv)
{
    if (!atomic_load(&nv->ev_running))
        return;
    atomic_store(&nv->ev_stop, true);
    /* The listener wakes every 500 ms; give it a few slices. */
    for (int i = 0; i < 40 && !atomic_load(&nv->ev_exited); i++)
        sleep_ms(50);
    if (atomic_load(&nv->ev_exited)) {
        pthread_join(nv->ev_thread, NULL);
        nv->EventSetFree(nv->ev_set);
        nv->ev_set = NULL;
    } else {
        pthread_detach(nv->ev_thread); /* stuck in the driver */
        nv->ev_detached = true;
    }
    atomic_store(&nv->ev_running, false);
}

int pna_nvml_events_running(const struct pna_nvml *nv)
{
    return nv && atomic_load(&nv->ev_running);
}
