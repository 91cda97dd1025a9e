/* test_accounting.c -- the GPU accounting rules (model/accounting/usage.h) and
 * the state file (sources/accounting/state_file.h).
 *
 * The samples are built for this test (energy counters, power limits and
 * claims chosen so that each rule gives a figure that can be worked out by
 * hand); they are not captures.  Every check that the holders' energy plus
 * the idle residual is the GPU's counter is exact, to the millijoule. */
#include "pna_autoconf.h"
#include "unit.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "model/accounting/usage.h"
#include "sources/accounting/state_file.h"

static struct pna_usage_sample sample(uint32_t index, int64_t t_ms, uint64_t energy_mj)
{
    return (struct pna_usage_sample){ .index = index, .pci_bus_id = "0000:17:00.0",
                                      .uuid = "GPU-7f3a", .taken_ms = t_ms, .has_energy = true,
                                      .energy_mj = energy_mj, .has_power_limit = true,
                                      .power_limit_mw = 700000 };
}

static struct pna_usage_claim claim(const char *id, const char *ns, const char *pod,
                                    uint64_t weight, uint8_t rule)
{
    struct pna_usage_claim c = { .rule = rule, .weight = weight, .has_sm = true, .sm_bp = 5000,
                                 .has_mem = true, .mem_bytes = 1000 };
    c.who.kind = PNA_USAGE_CONTAINER;
    snprintf(c.who.id, sizeof c.who.id, "%s", id);
    snprintf(c.who.pod_namespace, sizeof c.who.pod_namespace, "%s", ns);
    snprintf(c.who.pod, sizeof c.who.pod, "%s", pod);
    return c;
}

static uint64_t holders_energy(const struct pna_usage_ledger *l, uint32_t gpu)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < l->n_rows; i++)
        if (l->rows[i].gpu_index == gpu)
            sum += l->rows[i].f.energy_mj;
    return sum;
}

static const struct pna_usage_row *row(struct pna_usage_ledger *l, const struct pna_usage_claim *c)
{
    return pna_usage_row_of(l, 1, &c->who, false, 0);
}

/* One holder: all of it; then nobody: idle; holders + idle == counter. */
static void test_whole(void)
{
    struct pna_usage_ledger l = { 0 };
    char why[200];
    struct pna_usage_sample s = sample(1, 1000, 5000000);
    struct pna_usage_gpu *g = pna_usage_gpu_of(&l, &s, s.taken_ms);
    struct pna_usage_claim a = claim("ctr-a", "ml", "train-0", 1, PNA_USAGE_WHOLE);
    CHECK_INT(pna_usage_charge_gpu(&l, g, &s, &a, 1, 1, why, sizeof why), PNA_USAGE_FIRST);
    CHECK_U64(g->idle_mj, 5000000);              /* before accounting: idle */
    s = sample(1, 11000, 5123457);               /* 123457 mJ in 10 s */
    CHECK_INT(pna_usage_charge_gpu(&l, g, &s, &a, 1, 1, why, sizeof why), PNA_USAGE_CHARGED);
    CHECK_U64(row(&l, &a)->f.energy_mj, 123457);
    CHECK_U64(row(&l, &a)->f.held_ms, 10000);
    CHECK_U64(row(&l, &a)->f.sm_active_ms, 5000);       /* 50 % active */
    CHECK_U64(row(&l, &a)->f.mem_byte_s, 10000);        /* 1000 bytes x 10 s */
    s = sample(1, 21000, 5200000);
    CHECK_INT(pna_usage_charge_gpu(&l, g, &s, NULL, 0, 1, why, sizeof why), PNA_USAGE_CHARGED);
    /* the change (a to nobody): the first half to a */
    CHECK_U64(row(&l, &a)->f.energy_mj, 123457 + 38271);
    CHECK_U64(holders_energy(&l, 1) + g->idle_mj, 5200000);
    CHECK_U64(pna_usage_pod(&l, "ml", "train-0", false, 0)->f.energy_mj, 123457 + 38271);
    pna_usage_ledger_free(&l);
}

/* Time slicing by process samples (weights 30 and 10 of 40), evenly without
 * them, rounding down with the rest idle; MIG by slices of 7. */
static void test_shares(void)
{
    struct pna_usage_ledger l = { 0 };
    char why[200];
    struct pna_usage_claim c[2] = { claim("ctr-a", "ml", "a", 30, PNA_USAGE_PROCESS),
                                    claim("ctr-b", "ml", "b", 10, PNA_USAGE_PROCESS) };
    struct pna_usage_sample s = sample(1, 0, 0);
    struct pna_usage_gpu *g = pna_usage_gpu_of(&l, &s, 0);
    pna_usage_charge_gpu(&l, g, &s, c, 2, 40, why, sizeof why);
    s = sample(1, 4000, 1001);
    pna_usage_charge_gpu(&l, g, &s, c, 2, 40, why, sizeof why);
    CHECK_U64(row(&l, &c[0])->f.energy_mj, 750);        /* 1001 x 30/40 rounded down */
    CHECK_U64(row(&l, &c[1])->f.energy_mj, 250);
    CHECK_U64(g->idle_mj, 1);
    CHECK_U64(row(&l, &c[0])->f.held_ms, 3000);
    c[0].weight = c[1].weight = 1;
    c[0].rule = c[1].rule = PNA_USAGE_EVEN;
    s = sample(1, 8000, 2001);
    pna_usage_charge_gpu(&l, g, &s, c, 2, 2, why, sizeof why);
    CHECK_U64(row(&l, &c[1])->f.energy_mj, 250 + 500);
    CHECK_U64(holders_energy(&l, 1) + g->idle_mj, 2001);
    CHECK_INT(row(&l, &c[1])->rule, PNA_USAGE_EVEN);
    pna_usage_ledger_free(&l);

    /* MIG: a 3g and a 1c.3g holder of seven slices; three slices nobody's */
    CHECK_INT(pna_usage_mig_slices("3g.40gb"), 3);
    CHECK_INT(pna_usage_mig_slices("1c.3g.40gb"), 1);
    CHECK_INT(pna_usage_mig_slices("1g.10gb+me"), 1);
    CHECK_INT(pna_usage_mig_slices("bogus"), 0);
    CHECK_INT(pna_usage_gpu_slices("NVIDIA A30"), 4);
    CHECK_INT(pna_usage_gpu_slices("NVIDIA H100 80GB HBM3"), 7);
    struct pna_usage_ledger m = { 0 };
    struct pna_usage_claim mc[2] = { claim("mig-a", "", "", 3, PNA_USAGE_MIG),
                                     claim("mig-b", "", "", 1, PNA_USAGE_MIG) };
    s = sample(1, 0, 700);
    g = pna_usage_gpu_of(&m, &s, 0);
    pna_usage_charge_gpu(&m, g, &s, mc, 2, 7, why, sizeof why);
    s = sample(1, 7000, 7700);
    pna_usage_charge_gpu(&m, g, &s, mc, 2, 7, why, sizeof why);
    CHECK_U64(pna_usage_row_of(&m, 1, &mc[0].who, false, 0)->f.energy_mj, 3000);
    CHECK_U64(pna_usage_row_of(&m, 1, &mc[1].who, false, 0)->f.energy_mj, 1000);
    CHECK_U64(pna_usage_row_of(&m, 1, &mc[0].who, false, 0)->f.held_ms, 3000);
    CHECK_U64(g->idle_mj, 700 + 3000);
    pna_usage_ledger_free(&m);
}

/* Backwards, and more than the power limit allows: nothing charged, counted,
 * idle restarts at the counter with a new discontinuity time. */
static void test_rejected(void)
{
    struct pna_usage_ledger l = { 0 };
    char why[200] = "";
    struct pna_usage_claim a = claim("ctr-a", "ml", "a", 1, PNA_USAGE_WHOLE);
    struct pna_usage_sample s = sample(1, 1000, 900000);
    struct pna_usage_gpu *g = pna_usage_gpu_of(&l, &s, 1000);
    pna_usage_charge_gpu(&l, g, &s, &a, 1, 1, why, sizeof why);
    s = sample(1, 2000, 800000);
    CHECK_INT(pna_usage_charge_gpu(&l, g, &s, &a, 1, 1, why, sizeof why), PNA_USAGE_REJECTED);
    CHECK(strstr(why, "backwards") != NULL);
    CHECK(row(&l, &a) == NULL);
    CHECK_U64(g->idle_mj, 800000);
    CHECK_INT(g->created_ms, 2000);
    /* 700 W x 1 s = 700000 mJ at most; 700001 is beyond */
    s = sample(1, 3000, 1500001);
    CHECK_INT(pna_usage_charge_gpu(&l, g, &s, &a, 1, 1, why, sizeof why), PNA_USAGE_REJECTED);
    CHECK(strstr(why, "power limit") != NULL);
    CHECK_U64(g->rejected, 2);
    s = sample(1, 4000, 2200001);                /* exactly the limit: charged */
    CHECK_INT(pna_usage_charge_gpu(&l, g, &s, &a, 1, 1, why, sizeof why), PNA_USAGE_CHARGED);
    CHECK_U64(row(&l, &a)->f.energy_mj, 700000);
    CHECK_U64(g->charged_mj + g->idle_mj, 2200001);
    pna_usage_ledger_free(&l);
}

/* No counter: power x time; no power either: time only. */
static void test_power_time(void)
{
    struct pna_usage_ledger l = { 0 };
    char why[200];
    struct pna_usage_claim a = claim("ctr-a", "ml", "a", 1, PNA_USAGE_WHOLE);
    struct pna_usage_sample s = { .index = 2, .pci_bus_id = "0000:c1:00.0", .taken_ms = 0,
                                  .has_power = true, .power_mw = 250000 };
    struct pna_usage_gpu *g = pna_usage_gpu_of(&l, &s, 0);
    pna_usage_charge_gpu(&l, g, &s, &a, 1, 1, why, sizeof why);
    s.taken_ms = 2000;
    CHECK_INT(pna_usage_charge_gpu(&l, g, &s, &a, 1, 1, why, sizeof why), PNA_USAGE_CHARGED);
    const struct pna_usage_row *r = pna_usage_row_of(&l, 2, &a.who, false, 0);
    CHECK_U64(r->f.energy_mj, 500000);
    CHECK_INT(r->energy_from, PNA_USAGE_FROM_POWER);
    s.has_power = false;
    s.taken_ms = 3000;
    CHECK_INT(pna_usage_charge_gpu(&l, g, &s, &a, 1, 1, why, sizeof why), PNA_USAGE_NO_ENERGY);
    CHECK_U64(r->f.held_ms, 3000);
    CHECK_U64(r->f.energy_mj, 500000);
    pna_usage_ledger_free(&l);
}

/* A gone holder's row and its pod stay for the retention, then go. */
static void test_retention(void)
{
    struct pna_usage_ledger l = { 0 };
    char why[200];
    struct pna_usage_claim a = claim("ctr-a", "ml", "a", 1, PNA_USAGE_WHOLE);
    struct pna_usage_sample s = sample(1, 0, 0);
    struct pna_usage_gpu *g = pna_usage_gpu_of(&l, &s, 0);
    pna_usage_charge_gpu(&l, g, &s, &a, 1, 1, why, sizeof why);
    s = sample(1, 1000, 10);
    pna_usage_charge_gpu(&l, g, &s, &a, 1, 1, why, sizeof why);
    pna_usage_age(&l, 5000, 10000);
    CHECK_INT(l.n_rows, 1);
    CHECK(!l.rows[0].held);
    pna_usage_age(&l, 12000, 10000);
    CHECK_INT(l.n_rows, 0);
    CHECK_INT(l.n_pods, 0);
    pna_usage_ledger_free(&l);
}

/* Written and read back whole; truncated, corrupt and out-of-order files refused. */
static void test_state_file(void)
{
    struct pna_usage_ledger l = { 0 }, back = { 0 };
    char why[300], path[] = "/tmp/pna-acct-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    struct pna_usage_claim c[2] = { claim("ctr-a", "ml", "a", 3, PNA_USAGE_PROCESS),
                                    claim("ctr-b", "ml", "b", 1, PNA_USAGE_PROCESS) };
    c[1].who.job = 60917;
    struct pna_usage_sample s = sample(1, 0, 100);
    struct pna_usage_gpu *g = pna_usage_gpu_of(&l, &s, 0);
    pna_usage_charge_gpu(&l, g, &s, c, 2, 4, why, sizeof why);
    s = sample(1, 3333, 7777);
    pna_usage_charge_gpu(&l, g, &s, c, 2, 4, why, sizeof why);
    CHECK_INT(pna_usage_state_write(path, &l, true, 4000, why, sizeof why), 0);
    bool clean = false;
    CHECK_INT(pna_usage_state_read(path, &back, &clean, why, sizeof why), 0);
    CHECK(clean);
    CHECK_INT(back.n_rows, 2);
    CHECK_INT(back.n_pods, 2);
    CHECK_INT(back.n_jobs, 1);
    CHECK_INT(back.n_gpus, 1);
    if (back.n_rows == 2 && back.n_gpus == 1) {
        CHECK(memcmp(&back.rows[0].f, &l.rows[0].f, sizeof l.rows[0].f) == 0);
        CHECK(memcmp(&back.rows[0].who, &l.rows[0].who, sizeof l.rows[0].who) == 0);
        CHECK_INT(back.rows[1].who.job, 60917);
        CHECK(!back.rows[0].held);   /* held is the running agent's, never restored */
        CHECK(memcmp(&back.rows[1].f, &l.rows[1].f, sizeof l.rows[1].f) == 0);
        CHECK_U64(back.gpus[0].counter_mj, 7777);
        CHECK_U64(back.gpus[0].idle_mj, g->idle_mj);
        CHECK_STR(back.gpus[0].uuid, "GPU-7f3a");
    }
    pna_usage_ledger_free(&back);

    FILE *f = fopen(path, "r+");
    CHECK(f != NULL);
    if (f) {
        char buf[8192];
        size_t n = fread(buf, 1, sizeof buf, f);
        fclose(f);
        CHECK(truncate(path, (off_t)(n / 2)) == 0);
        CHECK_INT(pna_usage_state_read(path, &back, &clean, why, sizeof why), -1);
        CHECK(strstr(why, "not JSON") != NULL);
        CHECK_INT(back.n_rows, 0);
    }
    const char *bad[] = {
        "{\"version\":2,\"clean\":true,\"gpus\":[],\"rows\":[],\"pods\":[],\"jobs\":[]}",
        "{\"version\":1,\"clean\":1,\"gpus\":[],\"rows\":[],\"pods\":[],\"jobs\":[]}",
        "{\"version\":1,\"clean\":true,\"gpus\":[{\"index\":-1}],\"rows\":[],\"pods\":[],\"jobs\":[]}",
        "{\"version\":1,\"clean\":true,\"gpus\":[],\"rows\":[],\"pods\":[],\"jobs\":"
        "[{\"namespace\":\"\",\"pod\":\"\",\"job\":9,\"has_energy\":true,\"energy_mj\":1,\"held_ms\":1,\"has_sm_active\":"
        "false,\"sm_active_ms\":0,\"has_mem\":false,\"mem_byte_s\":0,\"mem_byte_ms_rem\":0,\"created_ms\":0,"
        "\"last_seen_ms\":0},{\"namespace\":\"\",\"pod\":\"\",\"job\":9,\"has_energy\":true,\"energy_mj\":1,"
        "\"held_ms\":1,\"has_sm_active\":false,\"sm_active_ms\":0,\"has_mem\":false,\"mem_byte_s\":0,"
        "\"mem_byte_ms_rem\":0,\"created_ms\":0,\"last_seen_ms\":0}]}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK_INT(pna_usage_state_parse(bad[i], strlen(bad[i]), &back, &clean, why, sizeof why), -1);
        CHECK_INT(back.n_jobs + back.n_gpus, 0);
    }
    unlink(path);
    CHECK_INT(pna_usage_state_read(path, &back, &clean, why, sizeof why), 1);
    pna_usage_ledger_free(&l);
}

int main(void)
{
    test_whole();
    test_shares();
    test_rejected();
    test_power_time();
    test_retention();
    test_state_file();
    UNIT_END();
}
