/* test_gpu_health.c -- the verdict on a GPU (model/gpu/gpu_health.c): each
 * rule of docs/gpu.md on its own, the order of severity and of reasons, and
 * the XID catalogue's classes. */
#include "pna_autoconf.h"
#include "model/gpu/gpu.h"
#include "unit.h"

/* A GPU every rule can read, healthy: ECC, row remapping, XIDs, recovery
 * action, PCIe width and thresholds all known and fine. */
static struct pna_gpu healthy(void)
{
    struct pna_gpu g;
    memset(&g, 0, sizeof g);
    g.has_ecc_volatile = g.has_remapped_rows = g.has_xid = g.has_recovery_action = true;
    g.has_pcie_width = g.has_pcie_width_max = true;
    g.pcie_width = g.pcie_width_max = 16;
    g.has_temp = g.has_temp_slowdown = true;
    g.temp_c = 40;
    g.temp_slowdown_c = 87;
    g.recovery_action = PNA_GPU_RECOVERY_NONE;
    return g;
}

static void expect(const struct pna_gpu *g, enum pna_gpu_verdict want, const char *reason)
{
    char got[PNA_GPU_HEALTH_REASON_MAX];
    CHECK_INT(pna_gpu_health(g, got, sizeof got), want);
    CHECK_STR(got, reason);
}

static void test_critical_rules(void)
{
    struct pna_gpu g = healthy();
    expect(&g, PNA_VERDICT_OK, "");

    g = healthy();
    g.lost = true;
    expect(&g, PNA_VERDICT_CRITICAL, "the GPU fell off the bus or stopped answering");

    g = healthy();
    g.worst_xid = 79;
    expect(&g, PNA_VERDICT_CRITICAL, "XID 79 since the agent started: needs a reboot");
    g.worst_xid = 48;
    expect(&g, PNA_VERDICT_CRITICAL, "XID 48 since the agent started: needs a reset");

    g = healthy();
    g.recovery_action = PNA_GPU_RECOVERY_RESET;
    expect(&g, PNA_VERDICT_CRITICAL, "the driver recommends a GPU reset");
    g.recovery_action = PNA_GPU_RECOVERY_REBOOT;
    expect(&g, PNA_VERDICT_CRITICAL, "the driver recommends a node reboot");
    g.recovery_action = PNA_GPU_RECOVERY_DRAIN_AND_RESET;
    expect(&g, PNA_VERDICT_CRITICAL, "the driver recommends draining the GPU and a reset");

    g = healthy();
    g.remap_failure = true;
    expect(&g, PNA_VERDICT_CRITICAL, "row remapping failed");

    g = healthy();
    g.ecc_uncorrected_volatile = 3;
    expect(&g, PNA_VERDICT_CRITICAL, "3 uncorrected ECC errors since the driver loaded");

    g = healthy();
    g.has_fabric = true;
    g.fabric_state = PNA_GPU_FABRIC_COMPLETED;
    expect(&g, PNA_VERDICT_OK, "");
    g.fabric_failed = true;
    expect(&g, PNA_VERDICT_CRITICAL, "NVSwitch fabric registration failed");
}

static void test_warning_rules(void)
{
    struct pna_gpu g = healthy();
    g.remap_pending = true;
    expect(&g, PNA_VERDICT_WARNING, "a row remapping waits for a GPU reset");

    g = healthy();
    g.recovery_action = PNA_GPU_RECOVERY_DRAIN_P2P;
    expect(&g, PNA_VERDICT_WARNING, "the driver recommends draining peer-to-peer traffic");

    /* a link down counts only when it was up once */
    g = healthy();
    g.link_count = 2;
    g.links[0] = (struct pna_gpu_link){ .number = 0, .has_state = true, .up = true };
    g.links[1] = (struct pna_gpu_link){ .number = 5, .has_state = true, .up = false };
    expect(&g, PNA_VERDICT_OK, "");
    g.links[1].went_down = true;
    expect(&g, PNA_VERDICT_WARNING, "link 5 is down");

    g = healthy();
    g.pcie_width = 8;
    expect(&g, PNA_VERDICT_WARNING, "PCIe link trained at x8 of x16");
    /* the generation is not judged: idle GPUs lower it */
    g = healthy();
    g.has_pcie_gen = g.has_pcie_gen_max = true;
    g.pcie_gen = 1;
    g.pcie_gen_max = 5;
    expect(&g, PNA_VERDICT_OK, "");

    g = healthy();
    g.worst_xid = 94;
    expect(&g, PNA_VERDICT_WARNING, "XID 94 since the agent started");
    g.worst_xid = 13; /* the application's fault */
    expect(&g, PNA_VERDICT_OK, "");

    g = healthy();
    g.has_fabric = true;
    g.fabric_state = PNA_GPU_FABRIC_IN_PROGRESS;
    expect(&g, PNA_VERDICT_WARNING, "NVSwitch fabric registration not finished");

    g = healthy();
    g.temp_c = 87;
    expect(&g, PNA_VERDICT_WARNING, "at its slowdown temperature");
}

/* Critical wins over warning whatever the order of the rules; within a
 * level the first rule gives the reason. */
static void test_severity_order(void)
{
    struct pna_gpu g = healthy();
    g.remap_pending = true;
    g.pcie_width = 4;
    g.worst_xid = 79;
    expect(&g, PNA_VERDICT_CRITICAL, "XID 79 since the agent started: needs a reboot");
    g.worst_xid = 0;
    expect(&g, PNA_VERDICT_WARNING, "a row remapping waits for a GPU reset");
    g.lost = true;
    expect(&g, PNA_VERDICT_CRITICAL, "the GPU fell off the bus or stopped answering");
}

static void test_unknown(void)
{
    struct pna_gpu g;
    memset(&g, 0, sizeof g);
    expect(&g, PNA_VERDICT_UNKNOWN, "the source offers no health signal");
    g.has_temp = true; /* a temperature without a threshold is no signal */
    g.temp_c = 99;
    expect(&g, PNA_VERDICT_UNKNOWN, "the source offers no health signal");
    g.lost = true;     /* lost is always known */
    expect(&g, PNA_VERDICT_CRITICAL, "the GPU fell off the bus or stopped answering");
}

static void test_xid_classes(void)
{
    CHECK_INT(pna_gpu_xid_class(79), PNA_XID_REBOOT);
    static const uint32_t reset[] = { 48, 61, 62, 64, 95, 119, 120, 140 };
    for (size_t i = 0; i < sizeof reset / sizeof reset[0]; i++)
        CHECK_INT(pna_gpu_xid_class(reset[i]), PNA_XID_RESET);
    static const uint32_t warn[] = { 63, 74, 92, 94, 154 };
    for (size_t i = 0; i < sizeof warn / sizeof warn[0]; i++)
        CHECK_INT(pna_gpu_xid_class(warn[i]), PNA_XID_WARNING);
    static const uint32_t app[] = { 13, 31, 43, 45, 0, 9999 };
    for (size_t i = 0; i < sizeof app / sizeof app[0]; i++)
        CHECK_INT(pna_gpu_xid_class(app[i]), PNA_XID_APPLICATION);
    /* the worst of a sequence stays */
    uint32_t worst = 0;
    static const uint32_t seq[] = { 13, 63, 79, 94, 31 };
    for (size_t i = 0; i < sizeof seq / sizeof seq[0]; i++)
        worst = pna_gpu_xid_worse(worst, seq[i]);
    CHECK_INT(worst, 79);
    CHECK_INT(pna_gpu_xid_worse(48, 95), 48); /* equal classes keep the first */
}

int main(void)
{
    test_critical_rules();
    test_warning_rules();
    test_severity_order();
    test_unknown();
    test_xid_classes();
    UNIT_END();
}
