/* test_containers_index.c -- no index of primusContainerTable,
 * primusContainerDeviceTable or primusPodStorageTable exceeds the MIB's SIZEs
 * (container ID 1..76, device path 1..36, pod UID 1..64) or the table
 * engine's PNA_MAX_INDEX_LEN:
 *   - a device path over 36 characters is named /dev/char/MAJ:MIN (block:
 *     /dev/block/MAJ:MIN) by the model, as the MIB says; without numbers such
 *     a device is dropped and counted; one node under two paths is one row;
 *   - with a long container ID the path's share of the engine's index is
 *     smaller, and the device table falls back to the numbers there too;
 *   - IDs over 76 characters never become rows (containerd scan), and a bad
 *     one put in a snapshot directly is not shown nor counted;
 *   - pods whose UID is missing or over 64 characters are not shown.
 * Every table is walked with GETNEXT and each index is decoded and checked. */
#include "pna_autoconf.h"
#include "sources/containers/containerd.h"
#include "sources/kubernetes/kubelet.h"
#include "model/containers.h"
#include "model/storage.h"
#include "core/roots.h"
#include "snmp/table.h"
#include "model/metric_tables.h"
#include "model/oids.h"
#include "util/fileio.h"
#include "containers_testutil.h"
#include "snmp_testutil.h"

static char tmp[] = "/tmp/pna-ctr-index-XXXXXX";

static const oid container_entry[] = { PNA_OID_CONTAINERS, 10, 1 }  /* primusContainerEntry */;
static const oid device_entry[] = { PNA_OID_CONTAINERS, 20, 1 }  /* primusContainerDeviceEntry */;
static const oid pod_entry[] = { PNA_OID_STORAGE, 10, 1 }  /* primusPodStorageEntry */;

/* "x" repeated N times (N < 200). */
static const char *rep(char x, size_t n)
{
    static char buf[4][200];
    static int k;
    char *b = buf[k++ % 4];
    memset(b, x, n);
    b[n] = '\0';
    return b;
}

static void destroy_containers(struct pna_snap *snap)
{
    struct pna_containers_snap *s = (struct pna_containers_snap *)snap;
    pna_container_set_free(&s->set);
    free(s);
}

static struct pna_containers_snap *new_containers(void)
{
    struct pna_containers_snap *s = calloc(1, sizeof *s);
    pna_container_set_init(&s->set);
    pna_snap_init(&s->base, destroy_containers);
    return s;
}

static struct pna_container *add_container(struct pna_containers_snap *s, const char *id)
{
    struct pna_container *c = pna_container_set_add(&s->set);
    pna_container_set_text(&s->set, &c->id, id, PNA_CTR_ID_CAP);
    c->name = "n";
    c->runtime = PNA_RUNTIME_CONTAINERD;
    c->state = PNA_CSTATE_RUNNING;
    return c;
}

static int add_dev(struct pna_containers_snap *s, const char *path, char type, int major,
                   int minor)
{
    struct pna_container_device d = { 0 };
    pna_strlcpy(d.path, path, sizeof d.path);
    d.type = type;
    d.has_numbers = major >= 0;
    d.major = major >= 0 ? (uint32_t)major : 0;
    d.minor = minor >= 0 ? (uint32_t)minor : 0;
    d.kind = PNA_DEV_OTHER;
    d.unit = -1;
    return pna_container_set_add_device(&s->set, &d);
}

/* Decode one length-prefixed string of an index at *POS into OUT; false when
 * the index is malformed. */
static bool take_string(const oid *idx, size_t len, size_t *pos, char *out, size_t cap)
{
    if (*pos >= len)
        return false;
    size_t n = idx[(*pos)++];
    if (n >= cap || *pos + n > len)
        return false;
    for (size_t i = 0; i < n; i++) {
        if (idx[*pos + i] > 255)
            return false;
        out[i] = (char)idx[*pos + i];
    }
    out[n] = '\0';
    *pos += n;
    return true;
}

struct walked {
    size_t rows;
    char s1[8][128], s2[8][128];   /* the first rows' index strings */
    bool ok;                       /* every index within the SIZEs, ascending */
};

/* Walk column COL of DEF; each index is NSTR strings, the first at most MAX1,
 * the second at most MAX2 characters, and at least 1 each. */
static void walk(const struct pna_metric_table *def, const oid *entry, size_t elen, unsigned col,
                 int nstr, size_t max1, size_t max2, struct walked *w)
{
    memset(w, 0, sizeof *w);
    w->ok = true;
    oid cur[MAX_OID_LEN], next[MAX_OID_LEN], prev[MAX_OID_LEN];
    size_t cur_len = elen + 1, next_len, prev_len = 0;
    memcpy(cur, entry, elen * sizeof(oid));
    cur[elen] = col;
    for (;;) {
        struct pna_cell c;
        struct pna_view held;
        int rc = pna_table_getnext(def, cur, cur_len, next, &next_len, &c, &held);
        pna_view_release(&held);
        if (rc != 0 || next_len <= elen + 1 || next[elen] != col ||
            memcmp(next, entry, elen * sizeof(oid)) != 0)
            break;
        const oid *idx = next + elen + 1;
        size_t ilen = next_len - elen - 1, pos = 0;
        char a[200] = "", b[200] = "";
        bool good = ilen <= PNA_MAX_INDEX_LEN && take_string(idx, ilen, &pos, a, sizeof a) &&
                    strlen(a) >= 1 && strlen(a) <= max1;
        if (good && nstr == 2)
            good = take_string(idx, ilen, &pos, b, sizeof b) && strlen(b) >= 1 && strlen(b) <= max2;
        good = good && pos == ilen;
        if (prev_len && snmp_oid_compare(prev, prev_len, next, next_len) >= 0)
            good = false;
        if (!good) {
            fprintf(stderr, "bad index in %s: \"%s\" \"%s\" (%zu sub-ids)\n", def->metrics->object, a, b, ilen);
            w->ok = false;
        }
        if (w->rows < 8) {
            snprintf(w->s1[w->rows], sizeof w->s1[0], "%s", a);
            snprintf(w->s2[w->rows], sizeof w->s2[0], "%s", b);
        }
        w->rows++;
        memcpy(prev, next, next_len * sizeof(oid));
        prev_len = next_len;
        memcpy(cur, next, next_len * sizeof(oid));
        cur_len = next_len;
    }
}

/* GET column COL of the device row (ID, NAME): 0 and OUT, or -1. */
static int get_dev(const char *id, const char *name, unsigned col, struct pna_cell *out)
{
    oid o[MAX_OID_LEN];
    size_t n = OID_LENGTH(device_entry);
    memcpy(o, device_entry, n * sizeof(oid));
    o[n++] = col;
    n += pna_index_put_string(o + n, 200, id);
    n += pna_index_put_string(o + n, 200, name);
    struct pna_view held;
    int rc = pna_table_get(&pna_container_device_metrics, o, n, out, &held);
    pna_view_release(&held);
    return rc;
}

static bool has_walked(const struct walked *w, const char *s1, const char *s2)
{
    for (size_t i = 0; i < w->rows && i < 8; i++)
        if (!strcmp(w->s1[i], s1) && (!s2 || !strcmp(w->s2[i], s2)))
            return true;
    return false;
}

/* The model's naming rule, no SNMP involved. */
static void test_model_names(void)
{
    struct pna_containers_snap *s = new_containers();
    add_container(s, "c1");
    const char *long_path = "/dev/vendor-accelerators/by-id/accel-0001";   /* 41 */
    CHECK(strlen(long_path) > PNA_CONTAINER_DEVICE_NAME_MAX);
    CHECK_INT(add_dev(s, long_path, 'c', 511, 3), 0);
    CHECK_STR(s->set.devs[0].path, "/dev/char/511:3");
    CHECK_INT(add_dev(s, "/dev/disk/by-id/nvme-VENDOR_SSD_SERIAL0001-part1", 'b', 259, 1), 0);
    CHECK_STR(s->set.devs[1].path, "/dev/block/259:1");
    /* Too long and no numbers (a Docker device given by path only): no name. */
    CHECK_INT(add_dev(s, "/dev/some/very/long/path/without/numbers/x", 'c', -1, -1), 1);
    CHECK_U64(s->set.devices_dropped, 1);
    /* Exactly 36 characters is kept as it is. */
    const char *p36 = "/dev/infiniband/uverbs0123456789abcd";
    CHECK_INT(strlen(p36), 36);
    CHECK_INT(add_dev(s, p36, 'c', 231, 200), 0);
    CHECK_STR(s->set.devs[2].path, p36);
    /* The same node again, by another path or by its numbers' name: one row. */
    CHECK_INT(add_dev(s, "/dev/accel0", 'c', 511, 3), 0);
    CHECK_INT(add_dev(s, "/dev/char/511:3", 'c', 511, 3), 0);
    CHECK_INT(s->set.rows[0].dev_count, 3);
    /* Linux's largest numbers still fit the MIB's 36 (and the 23 promised). */
    struct pna_container_device big = { .has_numbers = true, .type = 'b', .major = 4095, .minor = 1048575 };
    char name[64];
    CHECK_INT(pna_container_device_number_name(&big, name, sizeof name), 23);
    CHECK_STR(name, "/dev/block/4095:1048575");
    struct pna_container_device none = { .has_numbers = false };
    CHECK_INT(pna_container_device_number_name(&none, name, sizeof name), 0);
    CHECK(!pna_container_id_ok(""));
    CHECK(pna_container_id_ok(rep('a', 76)));
    CHECK(!pna_container_id_ok(rep('a', 77)));
    pna_snap_release(&s->base);
}

static void test_tables(void)
{
    struct pna_containers_snap *s = new_containers();
    /* A Docker/Kubernetes-length ID (64). */
    const char *id64 = rep('d', 64);
    add_container(s, id64);
    add_dev(s, "/dev/dri/renderD128", 'c', 226, 128);
    const char *p33 = "/dev/nvidia-caps/nvidia-cap123456";    /* 33: within 36 */
    CHECK_INT(strlen(p33), 33);
    add_dev(s, p33, 'c', 508, 1);
    /* containerd's longest ID (76) still leaves the MIB's 36 for the path. */
    const char *id76 = rep('e', 76);
    add_container(s, id76);
    const char *p36 = "/dev/infiniband/uverbs0-abcdefghijkl";  /* exactly 36 */
    CHECK_INT(strlen(p36), 36);
    add_dev(s, p36, 'c', 231, 192);
    const char *p37 = "/dev/infiniband/uverbs0-abcdefghijklm"; /* 37 -> /dev/char/231:193 */
    add_dev(s, p37, 'c', 231, 193);
    add_dev(s, "/dev/kfd", 'c', 235, 0);
    /* An ID no runtime makes, put in directly: never shown, never counted. */
    struct pna_container *bad = add_container(s, rep('f', 79));
    (void)bad;
    add_dev(s, "/dev/kfd", 'c', 235, 0);
    pna_container_set_sort(&s->set);
    pna_container_set_assign_indexes(&s->set, NULL);
    pna_cache_publish(PNA_DOM_CONTAINERS, &s->base);

    struct walked w;
    walk(&pna_container_metrics, container_entry, OID_LENGTH(container_entry),
         mib_column("primusContainerName"), 1, PNA_MAX_CONTAINER_ID_LEN, 0, &w);
    CHECK(w.ok);
    CHECK_INT(w.rows, 2);
    CHECK(has_walked(&w, id64, NULL) && has_walked(&w, id76, NULL));
    struct pna_cell c;
    CHECK_INT(scalar_cell(&pna_container_scalar_metrics, mib_column("primusContainerCount"), &c), 0);
    CHECK_U64(c.u, 2);

    /* The longest ID with the longest path: the index holds both (114). */
    walk(&pna_container_device_metrics, device_entry, OID_LENGTH(device_entry),
         mib_column("primusContainerDeviceKind"), 2, PNA_MAX_CONTAINER_ID_LEN,
         PNA_MAX_CONTAINER_DEVICE_PATH_LEN, &w);
    CHECK(w.ok);
    CHECK_INT(w.rows, 5);
    CHECK(has_walked(&w, id64, "/dev/dri/renderD128"));
    CHECK(has_walked(&w, id64, p33));
    CHECK(has_walked(&w, id76, p36));
    CHECK(has_walked(&w, id76, "/dev/char/231:193"));
    CHECK(has_walked(&w, id76, "/dev/kfd"));
    /* The cells answer under the name the index shows, not the long path. */
    CHECK_INT(get_dev(id76, p36, mib_column("primusContainerDeviceMinor"), &c), 0);
    CHECK_U64(c.u, 192);
    CHECK_INT(get_dev(id76, "/dev/char/231:193", mib_column("primusContainerDeviceMinor"), &c), 0);
    CHECK_U64(c.u, 193);
    CHECK_INT(get_dev(id76, p37, mib_column("primusContainerDeviceMajor"), &c), -1);
    pna_cache_drop(PNA_DOM_CONTAINERS);
}

/* containerd: a bundle whose directory name is over 76 characters is skipped
 * and counted, not cut. */
static void test_containerd_long_id(void)
{
    char root[700], rel[400];
    snprintf(root, sizeof root, "%s/root", tmp);
    const char *spec = "{\"ociVersion\":\"1.1.0\",\"linux\":{\"devices\":["
                       "{\"path\":\"/dev/vendor-accelerators/by-id/accel-0001\",\"type\":\"c\","
                       "\"major\":511,\"minor\":3}]}}";
    snprintf(rel, sizeof rel, "run/containerd/io.containerd.runtime.v2.task/default/%s/config.json",
             rep('g', 76));
    tt_write(root, rel, spec);
    snprintf(rel, sizeof rel, "run/containerd/io.containerd.runtime.v2.task/default/%s/config.json",
             rep('h', 77));
    tt_write(root, rel, spec);
    struct pna_roots roots = { root, root, root, root };
    struct pna_container_set set;
    pna_container_set_init(&set);
    struct pna_containerd_stats st;
    char err[160];
    CHECK_INT(pna_containerd_scan(&roots, "run/containerd", NULL, NULL, &set, &st, err, sizeof err), 0);
    CHECK_INT(set.count, 1);
    CHECK_STR(set.rows[0].id, rep('g', 76));
    CHECK_INT(st.bad_specs, 1);
    CHECK(strstr(st.last_error, "longer than 76") != NULL);
    CHECK_INT(set.dev_count, 1);
    CHECK_STR(set.devs[0].path, "/dev/char/511:3");   /* the spec's 41-character path */
    pna_container_set_free(&set);
}

static void destroy_kubelet(struct pna_snap *snap)
{
    struct pna_kubelet_snap *k = (struct pna_kubelet_snap *)snap;
    pna_pod_set_free(&k->pods);
    free(k);
}

static void test_pods(void)
{
    /* /pods with a normal UUID, a 64-character UID (the MIB's maximum), one
     * over it and one without. */
    char text[2048];
    snprintf(text, sizeof text,
             "{\"kind\":\"PodList\",\"items\":["
             "{\"metadata\":{\"name\":\"a\",\"namespace\":\"ns\",\"uid\":\"559f50c7-6133-4901-a283-262ff4358722\"},\"status\":{\"phase\":\"Running\"}},"
             "{\"metadata\":{\"name\":\"b\",\"namespace\":\"ns\",\"uid\":\"%s\"},\"status\":{\"phase\":\"Running\"}},"
             "{\"metadata\":{\"name\":\"c\",\"namespace\":\"ns\",\"uid\":\"%s\"},\"status\":{\"phase\":\"Running\"}},"
             "{\"metadata\":{\"name\":\"d\",\"namespace\":\"ns\"},\"status\":{\"phase\":\"Running\"}}]}",
             rep('u', 64), rep('v', 65));
    struct pna_kubelet_snap *k = calloc(1, sizeof *k);
    pna_pod_set_init(&k->pods);
    uint32_t alloc = 0;
    char err[160];
    CHECK_INT(pna_kubelet_parse_pods(text, strlen(text), &k->pods, &alloc, err, sizeof err), 0);
    CHECK_INT(k->pods.count, 4);
    pna_pod_set_sort(&k->pods);
    CHECK_STR(k->pods.rows[2].name, "c");
    CHECK_STR(k->pods.rows[2].uid, "");      /* not cut to 64 */
    pna_pod_set_assign_indexes(&k->pods, NULL);
    pna_snap_init(&k->base, destroy_kubelet);
    pna_cache_publish(PNA_DOM_KUBELET, &k->base);
    struct walked w;
    walk(&pna_pod_metrics, pod_entry, OID_LENGTH(pod_entry), mib_column("primusPodName"), 1,
         PNA_MAX_POD_UID_LEN, 0, &w);
    CHECK(w.ok);
    CHECK_INT(w.rows, 2);
    CHECK(has_walked(&w, "559f50c7-6133-4901-a283-262ff4358722", NULL));
    CHECK(has_walked(&w, rep('u', 64), NULL));
    pna_cache_drop(PNA_DOM_KUBELET);
}

int main(void)
{
    if (!mkdtemp(tmp))
        return 99;
    test_model_names();
    test_tables();
    test_containerd_long_id();
    test_pods();
    pna_cache_clear();
    tt_rmrf(tmp);
    UNIT_END();
}
