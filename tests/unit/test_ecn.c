/* test_ecn.c -- the mlx5 ECN/CNP reader and the RDMA CM ToS reader
 * (sources/pfc/ecn.c) on tests/fixtures/ecn/ (see its README.md): a real
 * mlx5 ecn tree, a tree built from spiderpool's values, and built malformed
 * values; and that a ToS read creates nothing under configfs. */
#include "pna_autoconf.h"
#include "sources/pfc/ecn.h"

#include <unistd.h>

#include "unit.h"

static struct pna_roots roots_of(const char *tree, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s/ecn/%s/sys", unit_fixtures(), tree);
    struct pna_roots r = PNA_ROOTS_DEFAULT;
    r.sysfs = buf;
    return r;
}

static void check_ecn(const struct pna_ecn *e, uint8_t np_known, uint8_t np_en, uint8_t rp_known,
                      uint8_t rp_en, int dscp, int prio)
{
    CHECK(e->present);
    CHECK_INT(e->np_known, np_known);
    CHECK_INT(e->np_enabled, np_en);
    CHECK_INT(e->rp_known, rp_known);
    CHECK_INT(e->rp_enabled, rp_en);
    CHECK_INT(e->cnp_dscp, dscp);
    CHECK_INT(e->cnp_802p_prio, prio);
}

static void check_absent(const struct pna_ecn *e)
{
    CHECK(!e->present);
    CHECK_INT(e->np_known | e->rp_known | e->np_enabled | e->rp_enabled, 0);
    CHECK_INT(e->cnp_dscp, -1);
    CHECK_INT(e->cnp_802p_prio, -1);
}

/* prometheus/procfs's mlx5 tree: np 1,1,0,1,1,0,1,1 and rp 1,1,0,1,1,0,1,0
 * for priorities 0..7, CNPs on DSCP 48, priority 6. */
static void test_real(void)
{
    char dir[PATH_MAX];
    struct pna_roots r = roots_of("real-procfs", dir, sizeof dir);
    struct pna_ecn e;
    pna_ecn_read(&r, "eth0", &e);
    check_ecn(&e, 0xff, 0xdb, 0xff, 0x5b, 48, 6);
    pna_ecn_read(&r, "eth1", &e);
    check_absent(&e);
    CHECK_INT(pna_roce_tos_read(&r, "mlx5_0", 1), -1); /* no configfs there */
}

/* spiderpool's eth0/mlx5_0: all 16 switches on, CNP DSCP 48, cma_roce_tos 160. */
static void test_spiderpool(void)
{
    char dir[PATH_MAX];
    struct pna_roots r = roots_of("built-spiderpool", dir, sizeof dir);
    struct pna_ecn e;
    pna_ecn_read(&r, "eth0", &e);
    check_ecn(&e, 0xff, 0xff, 0xff, 0xff, 48, 6);
    CHECK_INT(pna_roce_tos_read(&r, "mlx5_0", 1), 160);
    CHECK_INT(pna_roce_tos_read(&r, "mlx5_0", 2), -1);
    CHECK_INT(pna_roce_tos_read(&r, "mlx5_1", 1), -1);
}

/* roce_np/enable: 0 "0x1", 1 "abc", 2 empty, 3 "01", 4 "2", 5 missing,
 * 6 "1", 7 "0" without a newline; no roce_rp; cnp_dscp "010" (ten: decimal),
 * cnp_802p_prio "0x6". */
static void test_malformed(void)
{
    char dir[PATH_MAX];
    struct pna_roots r = roots_of("built-malformed", dir, sizeof dir);
    struct pna_ecn e;
    pna_ecn_read(&r, "bad0", &e);
    check_ecn(&e, 0xc8, 0x48, 0x00, 0x00, 10, -1);
    pna_ecn_read(&r, "bad1", &e); /* ecn is a file */
    check_absent(&e);
    CHECK_INT(pna_roce_tos_read(&r, "mlx5_0", 1), -1);  /* "0xa0" */
    CHECK_INT(pna_roce_tos_read(&r, "mlx5_0", 2), 160); /* "0160" */
    CHECK_INT(pna_roce_tos_read(&r, "mlx5_1", 1), -1);  /* "256" */
    CHECK_INT(pna_roce_tos_read(&r, "mlx5_2", 1), -1);  /* empty */
}

/* Names that would leave their directory are not read. */
static void test_names(void)
{
    char dir[PATH_MAX];
    struct pna_roots r = roots_of("built-spiderpool", dir, sizeof dir);
    struct pna_ecn e;
    static const char *const bad[] = {"", ".", "..", "../net/eth0", "eth0/"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        pna_ecn_read(&r, bad[i], &e);
        check_absent(&e);
        CHECK_INT(pna_roce_tos_read(&r, bad[i], 1), -1);
    }
}

/* configfs makes an RDMA CM directory when someone creates it: reading a
 * device that has none must not. */
static void test_no_mkdir(void)
{
    char tmpl[] = "/tmp/pna-test-ecn-XXXXXX";
    char *root = mkdtemp(tmpl);
    CHECK(root != NULL);
    if (!root)
        return;
    unit_put(root, "kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_tos", "106\n");
    struct pna_roots r = PNA_ROOTS_DEFAULT;
    r.sysfs = root;
    CHECK_INT(pna_roce_tos_read(&r, "mlx5_0", 1), 106);
    CHECK_INT(pna_roce_tos_read(&r, "mlx5_3", 1), -1);
    char p[PATH_MAX];
    struct stat st;
    snprintf(p, sizeof p, "%s/kernel/config/rdma_cm/mlx5_3", root);
    CHECK(stat(p, &st) != 0);
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    CHECK_INT(system(cmd), 0);
}

int main(void)
{
    test_real();
    test_spiderpool();
    test_malformed();
    test_names();
    test_no_mkdir();
    UNIT_END();
}
