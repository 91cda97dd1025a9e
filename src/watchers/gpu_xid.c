/* watchers/gpu_xid.c -- the XID watch (see gpu_xid.h): a thread of its own
 * waits on the NVML source's XID set in half-second slices, so that a stop
 * request is seen soon, and hands each XID to the poller's callback.
 *
 * Thread ownership: the set and the callback are the watch thread's while it
 * runs; the owner's thread only sets `stop` and reads `exited`. */
#include "pna_autoconf.h"
#include "watchers/gpu_xid.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WAIT_SLICE_MS 500
#define STOP_GRACE_MS 2000

struct pna_xid_watch {
    struct pna_nvml_xid_set *set; /* on the owner's NVML handle, closed only after a stop */
    pna_nvml_xid_fn fn;
    void *arg;
    pthread_t thread;
    atomic_bool stop;
    atomic_bool exited;           /* set by the thread as its last act */
};

static void sleep_ms(unsigned ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

static void *watch_main(void *arg)
{
    struct pna_xid_watch *w = arg;
    while (!atomic_load(&w->stop)) {
        struct pna_nvml_xid x;
        int rc = pna_nvml_xid_wait(w->set, WAIT_SLICE_MS, &x);
        if (rc > 0)
            w->fn(&x, w->arg);
        else if (rc < 0)
            sleep_ms(1000);   /* GPU lost or driver trouble: the poller reports it; do not spin */
    }
    atomic_store(&w->exited, true);
    return NULL;
}

int pna_xid_watch_start(struct pna_nvml *nv, pna_nvml_xid_fn fn, void *arg,
                        struct pna_xid_watch **out, char *err, size_t errlen)
{
    *out = NULL;
    struct pna_nvml_xid_set *set = NULL;
    if (pna_nvml_xid_set_open(nv, &set, err, errlen) != 0)
        return -1;
    if (!set)
        return 0;
    struct pna_xid_watch *w = calloc(1, sizeof *w);
    if (!w) {
        snprintf(err, errlen, "out of memory");
        pna_nvml_xid_set_free(set);
        return -1;
    }
    w->set = set;
    w->fn = fn;
    w->arg = arg;
    int e = pthread_create(&w->thread, NULL, watch_main, w);
    if (e != 0) {
        snprintf(err, errlen, "cannot start the XID listener: %s", strerror(e));
        pna_nvml_xid_set_free(set);
        free(w);
        return -1;
    }
    *out = w;
    return 0;
}

size_t pna_xid_watch_gpus(const struct pna_xid_watch *w)
{
    return w ? pna_nvml_xid_set_gpus(w->set) : 0;
}

int pna_xid_watch_stop(struct pna_xid_watch *w)
{
    if (!w)
        return 0;
    atomic_store(&w->stop, true);
    /* The thread comes out of NVML every slice; give it a few. */
    for (int waited = 0; waited < STOP_GRACE_MS && !atomic_load(&w->exited); waited += 50)
        sleep_ms(50);
    if (!atomic_load(&w->exited)) {
        pthread_detach(w->thread);   /* stuck in the driver: never freed under it */
        return 1;
    }
    pthread_join(w->thread, NULL);
    pna_nvml_xid_set_free(w->set);
    free(w);
    return 0;
}
