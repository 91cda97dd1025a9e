/* test_gpu_model.c -- PCI addresses into GPU row keys, and the sorted GPU list. */
#include "pna_autoconf.h"
#include "model/gpu/gpu.h"
#include "unit.h"

static void test_pci_forms(void)
{
    struct pna_gpu g;
    memset(&g, 0, sizeof g);
    /* NVML / nvidia-smi: 8-digit domain, upper-case hex */
    CHECK_INT(pna_gpu_set_pci(&g, "00000000:C1:1F.7"), 0);
    CHECK_STR(g.pci_bus_id, "0000:c1:1f.7");
    CHECK_INT(g.pci_domain, 0);
    CHECK_INT(g.pci_bus, 0xc1);
    CHECK_INT(g.pci_dev, 0x1f);
    CHECK_INT(g.pci_fn, 7);
    CHECK_U64(g.index, (0xc1u << 8) | (0x1fu << 3) | 7u);

    /* udev / sysfs form; the key puts the domain above the bus */
    CHECK_INT(pna_gpu_set_pci(&g, "0001:00:06.0"), 0);
    CHECK_STR(g.pci_bus_id, "0001:00:06.0");
    CHECK_U64(g.index, (1u << 16) | (6u << 3));
    CHECK_U64(g.index, pna_gpu_pci_key(1, 0, 6, 0));

    /* no domain */
    CHECK_INT(pna_gpu_set_pci(&g, "41:00.0"), 0);
    CHECK_STR(g.pci_bus_id, "0000:41:00.0");

    /* case makes no difference (rocm-smi prints upper case, udev lower) */
    char a[24], b[24];
    CHECK_INT(pna_gpu_canon_bus_id("0000:D7:00.0", a, sizeof a), 0);
    CHECK_INT(pna_gpu_canon_bus_id("0000:d7:00.0", b, sizeof b), 0);
    CHECK_STR(a, b);

    /* malformed */
    CHECK_INT(pna_gpu_set_pci(&g, ""), -1);
    CHECK_INT(pna_gpu_set_pci(&g, "0000:00:20.0"), -1);   /* device > 31 */
    CHECK_INT(pna_gpu_set_pci(&g, "0000:00:06.8"), -1);   /* function > 7 */
    CHECK_INT(pna_gpu_set_pci(&g, "0000:100:06.0"), -1);  /* bus > ff */
    CHECK_INT(pna_gpu_set_pci(&g, "0000:00:06"), -1);
    CHECK_INT(pna_gpu_set_pci(&g, "0000:00:06.0 junk"), -1);
    CHECK_INT(pna_gpu_set_pci(&g, "GPU-9523b415"), -1);
}

static void test_list(void)
{
    struct pna_gpu_list l = { 0 };
    const char *ids[] = { "0000:e2:00.0", "0000:41:00.0", "0000:dc:00.0", "0000:d7:00.0",
                          "0001:00:00.0", "0000:00:06.0" };
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        struct pna_gpu *g = pna_gpu_list_add(&l);
        CHECK(g != NULL);
        CHECK_INT(pna_gpu_set_pci(g, ids[i]), 0);
    }
    pna_gpu_list_sort(&l);
    CHECK_INT(l.count, 6);
    CHECK_STR(l.gpus[0].pci_bus_id, "0000:00:06.0");
    CHECK_STR(l.gpus[1].pci_bus_id, "0000:41:00.0");
    CHECK_STR(l.gpus[4].pci_bus_id, "0000:e2:00.0");
    CHECK_STR(l.gpus[5].pci_bus_id, "0001:00:00.0");
    for (size_t i = 1; i < l.count; i++)
        CHECK(l.gpus[i - 1].index < l.gpus[i].index);
    const struct pna_gpu *f = pna_gpu_find(l.gpus, l.count, pna_gpu_pci_key(0, 0xdc, 0, 0));
    CHECK(f != NULL && strcmp(f->pci_bus_id, "0000:dc:00.0") == 0);
    CHECK(pna_gpu_find(l.gpus, l.count, 12345) == NULL);
    CHECK(pna_gpu_find(l.gpus, 0, l.gpus[0].index) == NULL);
    pna_gpu_list_free(&l);
    CHECK_INT(l.count, 0);

    CHECK_STR(pna_gpu_source_name(PNA_GPU_SRC_NVML), "nvml");
    CHECK_STR(pna_gpu_source_name(PNA_GPU_SRC_AMDGPU_SYSFS), "amdgpu-sysfs");
    CHECK_STR(pna_gpu_vendor_name(PNA_GPU_VND_AMD), "amd");
}

int main(void)
{
    test_pci_forms();
    test_list();
    UNIT_END();
}
