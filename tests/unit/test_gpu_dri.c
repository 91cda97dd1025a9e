/* test_gpu_dri.c -- /dev/dri/by-path to GPU mapping.  The recorded `ls -l
 * /dev/dri/by-path` outputs (tests/fixtures/amdgpu-sysfs/dev-dri-by-path) are
 * turned back into real symlink trees under a temporary directory; rocm-smi's
 * upper-case bus ids recorded on the same machine must find their nodes. */
#include "pna_autoconf.h"
#include "sources/gpu/dri_map.h"
#include "unit.h"

#include <errno.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <unistd.h>

struct link {
    char name[128];
    char target[128];
};

/* "lrwxrwxrwx 1 root root 13 May 12 06:52 pci-0000:41:00.0-render -> ../renderD128" */
static size_t read_ls(const char *rel, struct link *out, size_t cap)
{
    char path[4096], line[512];
    snprintf(path, sizeof path, "%s/amdgpu-sysfs/dev-dri-by-path/%s", unit_fixtures(), rel);
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    size_t n = 0;
    while (f && n < cap && fgets(line, sizeof line, f)) {
        char *arrow = strstr(line, " -> ");
        if (line[0] != 'l' || !arrow)
            continue;
        *arrow = '\0';
        char *name = strrchr(line, ' ');
        char *target = arrow + 4;
        target[strcspn(target, "\r\n")] = '\0';
        if (!name)
            continue;
        snprintf(out[n].name, sizeof out[n].name, "%s", name + 1);
        snprintf(out[n].target, sizeof out[n].target, "%s", target);
        n++;
    }
    if (f)
        fclose(f);
    return n;
}

static void make_tree(const char *root, const struct link *links, size_t n)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/dri", root);
    CHECK_INT(mkdir(path, 0755), 0);
    snprintf(path, sizeof path, "%s/dri/by-path", root);
    CHECK_INT(mkdir(path, 0755), 0);
    for (size_t i = 0; i < n; i++) {
        snprintf(path, sizeof path, "%s/dri/by-path/%s", root, links[i].name);
        CHECK_INT(symlink(links[i].target, path), 0);
    }
}

static void remove_tree(const char *root)
{
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    CHECK_INT(system(cmd), 0);
}

/* 4 x MI100 (ROCm issue 1482): render nodes only, and rocm-smi --showbus
 * from the same machine in upper case. */
static void test_mi100(void)
{
    struct link links[16];
    size_t n = read_ls("rocm-issue-1482-4xMI100-ls-by-path.txt", links, 16);
    CHECK_INT(n, 4);
    char root[] = "/tmp/pna-dri-XXXXXX";
    CHECK(mkdtemp(root) != NULL);
    make_tree(root, links, n);

    struct pna_roots roots = { "/sys", "/proc", root, "/" };
    struct pna_dri_map map;
    char err[160];
    CHECK_INT(pna_dri_map_load(&roots, &map, err, sizeof err), 0);
    CHECK_INT(map.count, 4);
    for (size_t i = 0; i < n; i++) {
        /* "pci-0000:41:00.0-render" -> bus "0000:41:00.0", node "renderD128" */
        char bus[32];
        snprintf(bus, sizeof bus, "%.*s", (int)(strlen(links[i].name) - 4 - 7), links[i].name + 4);
        const struct pna_dri_entry *e = pna_dri_map_find(&map, bus);
        CHECK(e != NULL);
        if (e) {
            CHECK_STR(e->render, links[i].target + 3);
            CHECK_STR(e->card, "");
        }
    }

    /* rocm-smi prints 0000:D7:00.0; by-path says 0000:d7:00.0 */
    char path[4096], line[256];
    snprintf(path, sizeof path, "%s/amdgpu-sysfs/dev-dri-by-path/"
             "rocm-issue-1482-4xMI100-rocm-smi-showbus.txt", unit_fixtures());
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    struct pna_gpu gpus[8];
    size_t ngpus = 0;
    memset(gpus, 0, sizeof gpus);
    while (f && ngpus < 8 && fgets(line, sizeof line, f)) {
        char *p = strstr(line, "PCI Bus: ");
        if (!p)
            continue;
        p += 9;
        p[strcspn(p, "\r\n ")] = '\0';
        CHECK(strchr(p, 'D') || strchr(p, 'E') || strcmp(p, "0000:41:00.0") == 0);
        CHECK_INT(pna_gpu_set_pci(&gpus[ngpus], p), 0);
        ngpus++;
    }
    if (f)
        fclose(f);
    CHECK_INT(ngpus, 4);
    pna_dri_map_apply(&map, gpus, ngpus);
    /* showbus lists GPU[0..3] in the same order as the render minors */
    static const char *const want[] = { "renderD128", "renderD129", "renderD130", "renderD131" };
    for (size_t i = 0; i < ngpus; i++) {
        CHECK_STR(gpus[i].drm_render, want[i]);
        CHECK(!gpus[i].has_drm_card_id);
    }
    pna_dri_map_free(&map);
    remove_tree(root);
}

/* Intel iGPU (device plugin README): card1 next to renderD128, so the card
 * number is not the render minor minus 128. */
static void test_card_and_render(void)
{
    struct link links[8];
    size_t n = read_ls("intel-gpu-plugin-readme-ls-by-path.txt", links, 8);
    CHECK_INT(n, 2);
    char root[] = "/tmp/pna-dri-XXXXXX";
    CHECK(mkdtemp(root) != NULL);
    make_tree(root, links, n);
    struct pna_roots roots = { "/sys", "/proc", root, "/" };
    struct pna_dri_map map;
    char err[160];
    CHECK_INT(pna_dri_map_load(&roots, &map, err, sizeof err), 0);
    CHECK_INT(map.count, 1);
    const struct pna_dri_entry *e = pna_dri_map_find(&map, "00:02.0");
    CHECK(e != NULL);
    if (e) {
        CHECK_STR(e->card, "card1");
        CHECK_STR(e->render, "renderD128");
        CHECK_U64(e->key, 2u << 3);
    }
    struct pna_gpu g;
    memset(&g, 0, sizeof g);
    pna_gpu_set_pci(&g, "0000:00:02.0");
    pna_dri_map_apply(&map, &g, 1);
    CHECK_STR(g.drm_card, "card1");
    CHECK(g.has_drm_card_id && g.drm_card_id == 1);
    CHECK_STR(g.drm_render, "renderD128");
    pna_dri_map_free(&map);
    remove_tree(root);
}

/* Missing directory, junk entries, odd targets. */
static void test_bad_input(void)
{
    struct pna_roots roots = { "/sys", "/proc", "/nonexistent-devfs", "/" };
    struct pna_dri_map map;
    char err[160];
    CHECK_INT(pna_dri_map_load(&roots, &map, err, sizeof err), 0);
    CHECK_INT(map.count, 0);
    CHECK(pna_dri_map_find(&map, "0000:00:02.0") == NULL);
    pna_dri_map_free(&map);

    char root[] = "/tmp/pna-dri-XXXXXX";
    CHECK(mkdtemp(root) != NULL);
    struct link links[] = {
        { "pci-0000:03:00.0-card", "../card0" },
        { "pci-0000:03:00.0-render", "../renderD128" },
        { "platform-simple-framebuffer.0-card", "../card9" }, /* no PCI address */
        { "pci-zzzz:03:00.0-card", "../card5" },               /* bad address */
        { "pci-0000:04:00.0-card", "../../etc/passwd" },       /* not a DRM node */
        { "pci-0000:05:00.0-render", "../renderDx" },
        { "pci-0000:06:00.0-console", "../card6" },            /* unknown kind */
        { "pci--card", "../card7" },
    };
    make_tree(root, links, sizeof links / sizeof links[0]);
    /* a plain file among the links */
    char path[4096];
    snprintf(path, sizeof path, "%s/dri/by-path/pci-0000:07:00.0-card", root);
    FILE *f = fopen(path, "w");
    if (f)
        fclose(f);
    roots.devfs = root;
    CHECK_INT(pna_dri_map_load(&roots, &map, err, sizeof err), 0);
    CHECK_INT(map.count, 1);
    const struct pna_dri_entry *e = pna_dri_map_find(&map, "0000:03:00.0");
    CHECK(e && strcmp(e->card, "card0") == 0 && strcmp(e->render, "renderD128") == 0);
    CHECK(pna_dri_map_find(&map, "not a bus id") == NULL);
    pna_dri_map_free(&map);
    remove_tree(root);
}

int main(void)
{
    test_mi100();
    test_card_and_render();
    test_bad_input();
    UNIT_END();
}
