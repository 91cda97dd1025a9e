/* acctpoll.c -- the GPU poll's cost with accounting against the same poll
 * without it, on a generated node (bench/gen_node.py: GPUs of the test NVML,
 * containers), in the same run.  A benchmark helper (bench/run.sh), not a
 * test.
 *
 *   acctpoll --sysfs DIR --procfs DIR --rootfs DIR --devfs DIR --nvml LIB --polls N
 *
 * The gpu poller runs once, then the containers poller (its snapshot is the
 * holders' source, its device nodes resolved to the GPUs);
 * then N rounds of one gpu poll, published, and one accounting poll of that
 * snapshot (the accounting poller charging every GPU to its holders), each
 * timed on its own, alternating so both see the same machine.  No state file
 * is written (accountingStateFile ""): its write is once a minute, not per
 * poll.  Prints one line:
 *   gpus=G containers=C holder_rows=R gpu_poll_us=X accounting_us=Y
 *   overhead_pct=P row_bytes=B
 * where X and Y are medians of wall time per poll, P = Y / X x 100, and B is
 * the ledger's bytes per holder row (its only memory that grows: there is
 * none per container). */
#include "pna_autoconf.h"
#include "core/config.h"
#include "core/events.h"
#include "core/poller.h"
#include "model/accounting/usage.h"
#include "model/containers.h"
#include "model/gpu/gpu.h"
#include "pollers/pollers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double wall_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, long n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void *start(const struct pna_poller_ops *ops, struct pna_config *cfg, void *settings)
{
    void *st = NULL;
    char err[256] = "";
    if (ops->init(&st, cfg, settings, err, sizeof err) != 0) {
        fprintf(stderr, "acctpoll: %s init: %s\n", ops->name, err);
        exit(1);
    }
    return st;
}

/* One poll of OPS, published as the core publishes it; its wall time. */
static double poll_once(const struct pna_poller_ops *ops, void *st)
{
    struct pna_snap *out = NULL;
    char err[256] = "";
    double t0 = wall_us();
    if (pna_poller_collect(ops, st, &out, err, sizeof err) != 0) {
        fprintf(stderr, "acctpoll: %s: %s\n", ops->name, err);
        exit(1);
    }
    double t = wall_us() - t0;
    pna_cache_publish(ops->domain, out);
    return t;
}

int main(int argc, char **argv)
{
    struct pna_config cfg;
    pna_config_defaults(&cfg);
    struct pna_gpu_settings gpu_set;
    struct pna_containers_settings ctr_set;
    struct pna_accounting_settings acct_set;
    pna_config_poller_defaults(&pna_gpu_poller, &gpu_set);
    pna_config_poller_defaults(&pna_containers_poller, &ctr_set);
    pna_config_poller_defaults(&pna_accounting_poller, &acct_set);
    acct_set.state_file = "";
    long polls = 50;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--sysfs"))
            cfg.roots.sysfs = argv[i + 1];
        else if (!strcmp(argv[i], "--procfs"))
            cfg.roots.procfs = argv[i + 1];
        else if (!strcmp(argv[i], "--rootfs"))
            cfg.roots.rootfs = argv[i + 1];
        else if (!strcmp(argv[i], "--devfs"))
            cfg.roots.devfs = argv[i + 1];
        else if (!strcmp(argv[i], "--nvml"))
            gpu_set.nvml_library = argv[i + 1];
        else if (!strcmp(argv[i], "--polls"))
            polls = strtol(argv[i + 1], NULL, 10);
    }
    if (polls < 1)
        polls = 1;
    pna_events_init(1000);
    void *ctr = start(&pna_containers_poller, &cfg, &ctr_set);
    void *gpu = start(&pna_gpu_poller, &cfg, &gpu_set);
    void *acct = start(&pna_accounting_poller, &cfg, &acct_set);
    poll_once(&pna_gpu_poller, gpu);
    poll_once(&pna_containers_poller, ctr);   /* after the GPUs: it resolves device nodes by them */
    poll_once(&pna_accounting_poller, acct);   /* the first sample of every GPU */
    double *g = calloc((size_t)polls, sizeof *g), *a = calloc((size_t)polls, sizeof *a);
    if (!g || !a)
        return 1;
    for (long i = 0; i < polls; i++) {
        g[i] = poll_once(&pna_gpu_poller, gpu);
        a[i] = poll_once(&pna_accounting_poller, acct);
    }
    const struct pna_gpu_snap *gs = (const struct pna_gpu_snap *)pna_cache_acquire(PNA_DOM_GPU);
    const struct pna_containers_snap *cs =
        (const struct pna_containers_snap *)pna_cache_acquire(PNA_DOM_CONTAINERS);
    const struct pna_usage_snap *us = (const struct pna_usage_snap *)pna_cache_acquire(PNA_DOM_ACCOUNTING);
    double mg = median(g, polls), ma = median(a, polls);
    printf("gpus=%zu containers=%zu holder_rows=%zu gpu_poll_us=%.0f accounting_us=%.0f "
           "overhead_pct=%.1f row_bytes=%zu\n", gs ? gs->count : 0, cs ? cs->set.count : 0,
           us ? us->l.n_rows : 0, mg, ma, mg > 0 ? ma / mg * 100 : 0, sizeof(struct pna_usage_row));
    pna_snap_release((struct pna_snap *)gs);
    pna_snap_release((struct pna_snap *)cs);
    pna_snap_release((struct pna_snap *)us);
    pna_accounting_poller.fini(acct);
    pna_gpu_poller.fini(gpu);
    pna_containers_poller.fini(ctr);
    pna_cache_clear();
    free(g);
    free(a);
    return 0;
}
