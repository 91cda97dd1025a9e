/* test_storage.c -- node ephemeral storage from statvfs() (checked against
 * df(1) on the same directory), the usage ratio rules, and which source the
 * node figures come from. */
#include "pna_autoconf.h"
#include "sources/storage/statvfs.h"
#include "core/roots.h"
#include "containers_testutil.h"

static char tmp[] = "/tmp/pna-storage-XXXXXX";

static uint64_t diff(uint64_t a, uint64_t b)
{
    return a > b ? a - b : b - a;
}

static void test_statvfs_vs_df(void)
{
    tt_mkdirs(tmp);
    char kdir[600];
    snprintf(kdir, sizeof kdir, "%s/var/lib/kubelet", tmp);
    tt_mkdirs(kdir);
    struct pna_roots roots = { tmp, tmp, tmp, tmp };
    struct pna_node_storage s;
    char path[512], err[160];
    CHECK_INT(pna_storage_statvfs(&roots, "var/lib/kubelet", &s, path, sizeof path, err, sizeof err), 0);
    CHECK_STR(path, kdir);
    CHECK(s.valid);
    CHECK_INT(s.source, PNA_STORAGE_STATVFS);
    CHECK(s.capacity_bytes > 0);
    CHECK(s.used_bytes <= s.capacity_bytes);
    CHECK(s.available_bytes <= s.capacity_bytes);

    /* df is an independent reader of the same filesystem. */
    char cmd[800];
    snprintf(cmd, sizeof cmd, "df -B1 --output=size,used,avail '%s' 2>/dev/null | tail -n 1", kdir);
    FILE *f = popen(cmd, "r");
    unsigned long long size = 0, used = 0, avail = 0;
    int n = f ? fscanf(f, "%llu %llu %llu", &size, &used, &avail) : 0;
    if (f)
        pclose(f);
    if (n == 3) {
        CHECK_U64(s.capacity_bytes, size);
        /* Other writers may move used/avail between the two reads: allow 64 MiB. */
        CHECK(diff(s.used_bytes, used) < (64u << 20));
        CHECK(diff(s.available_bytes, avail) < (64u << 20));
        printf("statvfs %s: capacity %llu used %llu avail %llu (%u.%02u %%); df: %llu %llu %llu\n",
               kdir, (unsigned long long)s.capacity_bytes, (unsigned long long)s.used_bytes,
               (unsigned long long)s.available_bytes, s.usage_percent_x100 / 100,
               s.usage_percent_x100 % 100, size, used, avail);
    } else {
        printf("SKIP df comparison: df gave no figures\n");
    }

    CHECK(pna_storage_statvfs(&roots, "var/lib/nokubelet", &s, path, sizeof path, err,
                              sizeof err) == -ENOENT);
    CHECK(!s.valid);
    CHECK(strstr(err, "nokubelet") != NULL);
}

static void test_ratio(void)
{
    struct pna_node_storage s = { .capacity_bytes = 1000, .available_bytes = 250 };
    pna_node_storage_finish(&s);
    CHECK_U64(s.used_bytes, 750);           /* no used figure: capacity - available */
    CHECK_INT(s.usage_percent_x100, 7500);
    struct pna_node_storage k = { .capacity_bytes = 3, .used_bytes = 1, .available_bytes = 1 };
    pna_node_storage_finish(&k);
    CHECK_U64(k.used_bytes, 1);             /* a given used figure is kept */
    CHECK_INT(k.usage_percent_x100, 3333);
    struct pna_node_storage z = { 0 };
    pna_node_storage_finish(&z);
    CHECK_INT(z.usage_percent_x100, 0);
    /* Exabyte filesystems do not overflow the ratio. */
    struct pna_node_storage big = { .capacity_bytes = UINT64_MAX / 2, .used_bytes = UINT64_MAX / 4 };
    pna_node_storage_finish(&big);
    CHECK_INT(big.usage_percent_x100, 5000);
}

static void test_pick(void)
{
    struct pna_kubelet_snap k;
    struct pna_storage_snap v;
    memset(&k, 0, sizeof k);
    memset(&v, 0, sizeof v);
    k.node_fs.valid = true;
    k.node_fs.source = PNA_STORAGE_KUBELET;
    v.node_fs.valid = true;
    v.node_fs.source = PNA_STORAGE_STATVFS;
    /* The kubelet's whenever it has figures: a kubelet that stops answering
     * loses its snapshot after staleAfter, so no age rule of its own. */
    CHECK(pna_node_storage_pick(&k, &v) == &k.node_fs);
    CHECK(pna_node_storage_pick(NULL, &v) == &v.node_fs);
    k.node_fs.valid = false;
    CHECK(pna_node_storage_pick(&k, &v) == &v.node_fs);
    v.node_fs.valid = false;
    CHECK(pna_node_storage_pick(&k, &v) == NULL);
    CHECK(pna_node_storage_pick(NULL, NULL) == NULL);
}

int main(void)
{
    if (!mkdtemp(tmp))
        return 99;
    test_statvfs_vs_df();
    test_ratio();
    test_pick();
    tt_rmrf(tmp);
    UNIT_END();
}
