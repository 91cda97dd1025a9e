/* test_topology.c -- the GPU and RDMA distance matrix (model/topology/,
 * sources/pci/pci_path.c, pci_topology.c) on the trees of
 * tests/fixtures/topology/ (see its README.md: built from each platform's
 * description, not captured).  Every cell of the matrix read from a tree is
 * compared with the matrix written beside it in `nvidia-smi topo -m` form;
 * the rule itself on hand-made paths; and the bad trees: a loop of links, a
 * numa_node of -1, a missing parent, each a problem named, never a class. */
#include "pna_autoconf.h"
#include "sources/pci/pci_path.h"
#include "sources/pci/pci_topology.h"
#include "model/topology/alignment.h"

#include <errno.h>

#include "unit.h"

static struct pna_topo_matrix matrix;

static struct pna_roots roots_of(const char *tree, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s/topology/%s/sys", unit_fixtures(), tree);
    struct pna_roots r = PNA_ROOTS_DEFAULT;
    r.sysfs = buf;
    return r;
}

static void trim(char *s)
{
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\n'))
        s[--n] = '\0';
    size_t lead = strspn(s, " ");
    memmove(s, s + lead, n - lead + 1);
}

/* Split LINE at tabs into at most CAP fields; returns the count. */
static unsigned split_tabs(char *line, char **field, unsigned cap)
{
    unsigned n = 0;
    for (char *save = NULL, *f = strtok_r(line, "\t", &save); f && n < cap;
         f = strtok_r(NULL, "\t", &save)) {
        trim(f);
        field[n++] = f;
    }
    return n;
}

/* The NVLink count of an "NV18" cell, 0 for any other. */
static unsigned nv_links(const char *cell)
{
    return strncmp(cell, "NV", 2) == 0 ? (unsigned)atoi(cell + 2) : 0;
}

/* Read TREE's matrix into `matrix` with the NVLink counts the expected file
 * gives (what the GPU link table supplies in the agent), and compare every
 * cell, label and the affinity columns with it. */
static void check_tree(const char *tree, int problems)
{
    char dir[PATH_MAX], path[PATH_MAX + 64];
    struct pna_roots r = roots_of(tree, dir, sizeof dir);
    CHECK_INT(pna_topo_collect(&r, &matrix), problems);
    snprintf(path, sizeof path, "%s/topology/%s/expected-topo-m.txt", unit_fixtures(), tree);
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    if (!f)
        return;
    char line[4096], *field[80];
    CHECK(fgets(line, sizeof line, f) != NULL);
    unsigned cols = split_tabs(line, field, 80) - 2; /* less CPU and NUMA Affinity */
    CHECK_INT(cols, matrix.count);
    for (unsigned j = 0; j < cols && j < matrix.count; j++)
        CHECK_STR(matrix.dev[j].label, field[j]);
    for (unsigned i = 0; i < matrix.count && fgets(line, sizeof line, f); i++) {
        unsigned n = split_tabs(line, field, 80);
        CHECK(n > matrix.count);
        for (unsigned j = 0; j < matrix.count && j + 1 < n; j++)
            matrix.links[i][j] = (unsigned char)nv_links(field[j + 1]);
    }
    pna_topo_matrix_classify(&matrix);
    rewind(f);
    CHECK(fgets(line, sizeof line, f) != NULL);
    for (unsigned i = 0; i < matrix.count && fgets(line, sizeof line, f); i++) {
        unsigned n = split_tabs(line, field, 80);
        CHECK_STR(field[0], matrix.dev[i].label);
        for (unsigned j = 0; j < matrix.count && j + 1 < n; j++) {
            char cell[16];
            pna_topo_cell_text((enum pna_topo_class)matrix.cls[i][j], matrix.links[i][j], cell,
                               sizeof cell);
            trim(cell);
            if (strcmp(cell, field[j + 1]) != 0)
                fprintf(stderr, "%s: %s/%s\n", tree, field[0], matrix.dev[j].label);
            CHECK_STR(cell, field[j + 1]);
        }
        if (matrix.dev[i].kind == PNA_TOPO_GPU && n == matrix.count + 3) {
            CHECK_STR(matrix.dev[i].cpus[0] ? matrix.dev[i].cpus : "N/A", field[matrix.count + 1]);
        }
    }
    fclose(f);
}

static void test_dgx_h100(void)
{
    check_tree("dgx-h100", 0);
    /* The NIC legend: the User Guide's compute ports, in name order. */
    static const char *const nics[] = { "mlx5_0", "mlx5_3", "mlx5_4", "mlx5_5",
                                        "mlx5_6", "mlx5_9", "mlx5_10", "mlx5_11" };
    CHECK_INT(matrix.gpus, 8);
    for (unsigned j = 0; j < 8; j++)
        CHECK_STR(matrix.dev[8 + j].name, nics[j]);
    CHECK_STR(matrix.dev[0].pci_addr, "0000:1b:00.0");
    CHECK_STR(matrix.dev[7].pci_addr, "0000:df:00.0");
    /* GPU i's nearest RDMA device is NIC i alone, at PIX. */
    for (unsigned g = 0; g < 8; g++) {
        bool near[PNA_TOPO_MAX_DEVICES];
        CHECK_INT(pna_topo_nearest_nics(&matrix, g, near), PNA_TOPO_PIX);
        for (unsigned j = 8; j < 16; j++)
            CHECK(near[j] == (j == g + 8));
    }
}

static void test_two_socket(void)
{
    check_tree("two-socket", 0);
    bool near[PNA_TOPO_MAX_DEVICES];
    /* GPU3's own NIC is across the socket; its nearest is NIC2 at NODE. */
    CHECK_INT(pna_topo_nearest_nics(&matrix, 3, near), PNA_TOPO_NODE);
    CHECK(near[6] && !near[7]);
    /* GPU0: both functions of the NIC behind its first switch, at PXB. */
    CHECK_INT(pna_topo_nearest_nics(&matrix, 0, near), PNA_TOPO_PXB);
    CHECK(near[4] && near[5] && !near[6] && !near[7]);
    CHECK_STR(matrix.dev[3].name, "0000:c1:00.0"); /* the MI300X-class GPU is listed */
    /* primusGpuNearestRdma's text */
    char text[64];
    CHECK(pna_topo_nearest_text(&matrix, "0000:05:00.0", text, sizeof text));
    CHECK_STR(text, "mlx5_0,mlx5_1");
    CHECK(pna_topo_nearest_text(&matrix, "0000:c1:00.0", text, sizeof text));
    CHECK_STR(text, "mlx5_2");
    CHECK(!pna_topo_nearest_text(&matrix, "0000:06:00.0", text, sizeof text)); /* a NIC */
    CHECK_STR(text, "");
    CHECK(pna_topo_nearest_text(&matrix, "0000:05:00.0", text, 8)); /* only what fits whole */
    CHECK_STR(text, "mlx5_0");
    CHECK(pna_topo_has_gpu(&matrix, "0000:83:00.0"));
    CHECK(!pna_topo_has_gpu(&matrix, "0000:84:00.0"));
}

static void test_bad_input(void)
{
    check_tree("bad-input", 4); /* GPU1, mlx5_1, mlx5_2, mlx5_3 */
    CHECK(matrix.dev[1].placed);
    CHECK(strstr(matrix.dev[1].error, "numa_node is -1") != NULL);
    CHECK(!matrix.dev[3].placed);
    CHECK(strstr(matrix.dev[3].error, "a loop of links") != NULL);
    CHECK(!matrix.dev[4].placed);
    CHECK(strstr(matrix.dev[4].error, "parent 0000:60:01.0 missing") != NULL);
    CHECK(matrix.dev[5].error[0] != '\0'); /* mlx5_3: numa -1 as well */

    char dir[PATH_MAX], err[128];
    struct pna_roots r = roots_of("bad-input", dir, sizeof dir);
    struct pna_pci_path p;
    CHECK_INT(pna_pci_path_read(&r, "0000:41:00.0", &p, err, sizeof err), -ELOOP);
    CHECK_INT(pna_pci_path_read(&r, "0000:61:00.0", &p, err, sizeof err), -ENOENT);
    CHECK_INT(pna_pci_path_read(&r, "0000:99:00.0", &p, err, sizeof err), -ENOENT);
    CHECK_INT(pna_pci_path_read(&r, "../../etc", &p, err, sizeof err), -EINVAL);
    CHECK(strstr(err, "not a PCI address") != NULL);
    CHECK_INT(pna_pci_path_read(&r, "0000:21:00.0", &p, err, sizeof err), 0);
    CHECK(!p.has_numa_node);
    CHECK_STR(p.host_bridge, "pci0000:20");
    CHECK_INT(p.depth, 2);
}

/* A path from "pci0000:00" through HOPS (space separated). */
static struct pna_pci_path path_of(const char *bridge, int numa, const char *hops)
{
    struct pna_pci_path p;
    memset(&p, 0, sizeof p);
    snprintf(p.host_bridge, sizeof p.host_bridge, "%s", bridge);
    p.has_numa_node = numa >= 0;
    p.numa_node = numa;
    char copy[256];
    snprintf(copy, sizeof copy, "%s", hops);
    for (char *save = NULL, *h = strtok_r(copy, " ", &save); h; h = strtok_r(NULL, " ", &save))
        snprintf(p.hops[p.depth++], PNA_PCI_ADDR_CAP, "%s", h);
    return p;
}

static void test_rule(void)
{
    struct pna_pci_path gpu = path_of("pci0000:00", 0, "00:01.0 01:00.0 02:00.0 03:00.0");
    struct pna_pci_path same_switch = path_of("pci0000:00", 0, "00:01.0 01:00.0 02:01.0 04:00.0");
    struct pna_pci_path fn1 = path_of("pci0000:00", 0, "00:01.0 01:00.0 02:00.0 03:00.1");
    struct pna_pci_path deeper = path_of("pci0000:00", 0,
                                         "00:01.0 01:00.0 02:02.0 05:00.0 06:00.0 07:00.0");
    struct pna_pci_path other_port = path_of("pci0000:00", 0, "00:02.0 08:00.0");
    struct pna_pci_path other_bridge = path_of("pci0000:40", 0, "40:01.0 41:00.0");
    struct pna_pci_path other_socket = path_of("pci0000:80", 1, "80:01.0 81:00.0");
    struct pna_pci_path no_numa = path_of("pci0000:c0", -1, "c0:01.0 c1:00.0");
    CHECK_INT(pna_topo_classify(&gpu, &gpu), PNA_TOPO_SELF);
    CHECK_INT(pna_topo_classify(&gpu, &same_switch), PNA_TOPO_PIX);
    CHECK_INT(pna_topo_classify(&gpu, &fn1), PNA_TOPO_PIX);
    CHECK_INT(pna_topo_classify(&gpu, &deeper), PNA_TOPO_PXB);
    CHECK_INT(pna_topo_classify(&deeper, &gpu), PNA_TOPO_PXB);
    CHECK_INT(pna_topo_classify(&gpu, &other_port), PNA_TOPO_PHB);
    CHECK_INT(pna_topo_classify(&gpu, &other_bridge), PNA_TOPO_NODE);
    CHECK_INT(pna_topo_classify(&gpu, &other_socket), PNA_TOPO_SYS);
    CHECK_INT(pna_topo_classify(&gpu, &no_numa), PNA_TOPO_UNKNOWN);
    CHECK_INT(pna_topo_classify(&no_numa, &gpu), PNA_TOPO_UNKNOWN);
    CHECK_INT(pna_topo_with_links(PNA_TOPO_SYS, 12), PNA_TOPO_NVLINK);
    CHECK_INT(pna_topo_with_links(PNA_TOPO_SELF, 12), PNA_TOPO_SELF);
    CHECK_INT(pna_topo_with_links(PNA_TOPO_PHB, 0), PNA_TOPO_PHB);
    CHECK_STR(pna_topo_class_name(PNA_TOPO_NODE), "NODE");
    CHECK_STR(pna_topo_class_name(PNA_TOPO_UNKNOWN), "unknown");
}

/* Matrix index of the device labelled LABEL ("GPU3", "NIC1"). */
static unsigned dev_index(const char *label)
{
    for (unsigned i = 0; i < matrix.count; i++)
        if (!strcmp(matrix.dev[i].label, label))
            return i;
    CHECK(!"no such device");
    return 0;
}

static struct pna_alignment judge(const char *gpus, const char *nics)
{
    unsigned g[8], n[8];
    size_t ng = 0, nn = 0;
    char copy[128];
    snprintf(copy, sizeof copy, "%s", gpus);
    for (char *save = NULL, *t = strtok_r(copy, " ", &save); t; t = strtok_r(NULL, " ", &save))
        g[ng++] = dev_index(t);
    snprintf(copy, sizeof copy, "%s", nics);
    for (char *save = NULL, *t = strtok_r(copy, " ", &save); t; t = strtok_r(NULL, " ", &save))
        n[nn++] = dev_index(t);
    struct pna_alignment a;
    pna_alignment_judge(&matrix, g, ng, n, nn, &a);
    return a;
}

/* Holders on the two-socket tree (NIC0..3 are mlx5_0..3) and the bad one. */
static void test_alignment(void)
{
    check_tree("two-socket", 0);
    struct pna_alignment a = judge("GPU2", "NIC2");
    CHECK_INT(a.verdict, PNA_ALIGN_ALIGNED);
    CHECK_STR(a.reason, "");
    CHECK_INT(a.worst_gpu, -1);
    a = judge("GPU0", "NIC0 NIC1"); /* PXB */
    CHECK_INT(a.verdict, PNA_ALIGN_ALIGNED);
    a = judge("GPU0 GPU1", "NIC0");  /* GPU1 is PHB from mlx5_0 */
    CHECK_INT(a.verdict, PNA_ALIGN_SAME_NODE);
    CHECK_STR(a.reason, "GPU1: nearest own NIC mlx5_0 at PHB");
    CHECK_INT(a.worst_gpu, (int)dev_index("GPU1"));
    a = judge("GPU3", "NIC3");       /* its NIC is across the socket */
    CHECK_INT(a.verdict, PNA_ALIGN_MISALIGNED);
    CHECK_STR(a.reason, "GPU3: nearest own NIC mlx5_3 at SYS");
    CHECK_INT(a.worst_nic, (int)dev_index("NIC3"));
    a = judge("GPU3", "NIC2 NIC3");  /* mlx5_2 is on its node: NODE wins over SYS */
    CHECK_INT(a.verdict, PNA_ALIGN_SAME_NODE);
    CHECK_STR(a.reason, "GPU3: nearest own NIC mlx5_2 at NODE");
    a = judge("GPU1 GPU3 GPU2", "NIC0 NIC2");  /* worst first */
    CHECK_INT(a.verdict, PNA_ALIGN_SAME_NODE);
    CHECK_STR(a.reason, "GPU1: nearest own NIC mlx5_0 at PHB; GPU3: nearest own NIC mlx5_2 at NODE");
    a = judge("GPU0 GPU3", "NIC0");
    CHECK_INT(a.verdict, PNA_ALIGN_MISALIGNED);
    CHECK_STR(a.reason, "GPU3: nearest own NIC mlx5_0 at SYS");
    a = judge("GPU0", "");           /* a GPU held with no NIC is not judged */
    CHECK_INT(a.verdict, PNA_ALIGN_NOT_APPLICABLE);
    a = judge("", "NIC0");
    CHECK_INT(a.verdict, PNA_ALIGN_NOT_APPLICABLE);

    check_tree("bad-input", 4);
    a = judge("GPU0", "NIC1");       /* mlx5_1's place is unknown (a loop) */
    CHECK_INT(a.verdict, PNA_ALIGN_UNREADABLE);
    CHECK_STR(a.reason, "GPU0: distance to every own NIC unknown");
    a = judge("GPU0", "NIC0 NIC1");  /* one known NIC is enough */
    CHECK_INT(a.verdict, PNA_ALIGN_ALIGNED);

    CHECK(pna_alignment_worse(PNA_ALIGN_ALIGNED, PNA_ALIGN_SAME_NODE));
    CHECK(pna_alignment_worse(PNA_ALIGN_SAME_NODE, PNA_ALIGN_MISALIGNED));
    CHECK(!pna_alignment_worse(PNA_ALIGN_MISALIGNED, PNA_ALIGN_ALIGNED));
    CHECK(!pna_alignment_worse(PNA_ALIGN_UNKNOWN, PNA_ALIGN_MISALIGNED));
    CHECK(!pna_alignment_worse(PNA_ALIGN_ALIGNED, PNA_ALIGN_UNREADABLE));
    CHECK(!pna_alignment_worse(PNA_ALIGN_ALIGNED, PNA_ALIGN_NOT_APPLICABLE));
    CHECK_STR(pna_alignment_verdict_names[PNA_ALIGN_SAME_NODE], "sameNode");
}

int main(void)
{
    test_rule();
    test_dgx_h100();
    test_two_socket();
    test_bad_input();
    test_alignment();
    UNIT_END();
}
