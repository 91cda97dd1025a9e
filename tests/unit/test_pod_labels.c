/* test_pod_labels.c -- the podLabels allow-list (its validation and globs),
 * the set of served pod labels (key index strings, the per-pod bound, values
 * over 63 characters, index order, duplicates), and the three sources: the
 * kubelet's pod list (metadata.labels, with 5,000 labels on a pod and a value
 * of 64 KiB), a CRI-O sandbox's OCI spec (io.kubernetes.cri-o.Labels) and a
 * Docker container list with a cri-dockerd pod sandbox.  The CRI-O and Docker
 * inputs are built from the runtimes' documented naming (no attributable
 * capture exists: tests/fixtures/SOURCES.md, pod-labels/). */
#include "pna_autoconf.h"
#include "model/kubernetes/pod_labels.h"
#include "sources/containers/docker.h"
#include "sources/containers/oci_spec.h"
#include "sources/kubernetes/kubelet.h"
#include "util/label_allow.h"
#include "containers_testutil.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct pna_label_allow allow_of(const char *text)
{
    struct pna_label_allow a;
    char why[256];
    memset(&a, 0, sizeof a);
    CHECK_INT(pna_label_allow_add(&a, text, why, sizeof why), 0);
    return a;
}

static void test_allow_list(void)
{
    struct pna_label_allow a = allow_of("team,app.kubernetes.io/*,*-queue");
    CHECK_U64(a.count, 3);
    CHECK(pna_label_allowed(&a, "team"));
    CHECK(!pna_label_allowed(&a, "teams"));
    CHECK(!pna_label_allowed(&a, "Team"));
    CHECK(pna_label_allowed(&a, "app.kubernetes.io/name"));
    CHECK(pna_label_allowed(&a, "app.kubernetes.io/"));   /* '*' matches nothing too */
    CHECK(!pna_label_allowed(&a, "app.kubernetes.io"));
    CHECK(pna_label_allowed(&a, "gpu-queue"));
    CHECK(!pna_label_allowed(&a, "gpu-queue2"));
    CHECK(!pna_label_allowed(NULL, "team"));
    struct pna_label_allow none;
    memset(&none, 0, sizeof none);
    CHECK(!pna_label_allowed(&none, "team"));   /* the default serves none */

    const char *bad[] = { "", "team,", ",team", "a b", "a?b", "a[b]", "a\\b", "/name", "prefix/",
                          "a/b/c", "na\"me", "x=y" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct pna_label_allow b;
        char why[256] = "";
        memset(&b, 0, sizeof b);
        CHECK_INT(pna_label_allow_add(&b, bad[i], why, sizeof why), -1);
        CHECK(strstr(why, "is not a label key") != NULL);
    }
    /* a name of 64 characters, a prefix of 254 */
    char longname[80], longprefix[300];
    memset(longname, 'n', 64);
    longname[64] = '\0';
    memset(longprefix, 'p', 254);
    snprintf(longprefix + 254, sizeof longprefix - 254, "/n");
    struct pna_label_allow b;
    char why[256];
    memset(&b, 0, sizeof b);
    CHECK_INT(pna_label_allow_add(&b, longname, why, sizeof why), -1);
    CHECK_INT(pna_label_allow_add(&b, longprefix, why, sizeof why), -1);
    /* at most PNA_LABEL_ALLOW_MAX patterns */
    for (int i = 0; i < PNA_LABEL_ALLOW_MAX; i++)
        CHECK_INT(pna_label_allow_add(&b, "k", why, sizeof why), 0);
    CHECK_INT(pna_label_allow_add(&b, "k", why, sizeof why), -1);
    CHECK(strstr(why, "more than") != NULL);
    /* the config loader's parser: each word is a comma list */
    struct pna_label_allow c;
    memset(&c, 0, sizeof c);
    char *words[] = { "a,b", "c" };
    CHECK_INT(pna_label_allow_parse(&c, words, 2, why, sizeof why), 0);
    CHECK_U64(c.count, 3);
    CHECK_INT(pna_label_allow_parse(&c, words, 0, why, sizeof why), -1);
}

static void test_key_id(void)
{
    char id[PNA_POD_LABEL_KEY_ID_MAX + 1];
    pna_pod_label_key_id("team", id);
    CHECK_STR(id, "team");
    char key[400];
    memset(key, 'k', 48);
    key[48] = '\0';
    pna_pod_label_key_id(key, id);
    CHECK_STR(id, key);                        /* 48 characters: the key itself */
    snprintf(key, sizeof key, "%s", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.example.com/name");
    pna_pod_label_key_id(key, id);
    CHECK_U64(strlen(id), 48);
    CHECK(strncmp(id, key, 39) == 0 && id[39] == '~');
    /* FNV-1a 32 of the key, computed here by its definition */
    uint32_t h = 2166136261u;
    for (const char *p = key; *p; p++)
        h = (h ^ (unsigned char)*p) * 16777619u;
    char hex[9];
    snprintf(hex, sizeof hex, "%08x", (unsigned)h);
    CHECK_STR(id + 40, hex);
    /* two long keys with one head differ in their hash */
    char id2[PNA_POD_LABEL_KEY_ID_MAX + 1];
    key[strlen(key) - 1] = 'f';
    pna_pod_label_key_id(key, id2);
    CHECK(strcmp(id, id2) != 0 && strncmp(id, id2, 40) == 0);
}

static void test_set_bounds(void)
{
    struct pna_label_allow a = allow_of("*");
    struct pna_pod_label_set set;
    pna_pod_label_set_init(&set);
    struct pna_pod_label_pod p1 = { "uid-b", "ns", "pod-b" }, p2 = { "uid-aa", "ns", "pod-a" };
    pna_pod_label_set_begin_pod(&set);
    char key[32];
    for (int i = 0; i < 100; i++) {
        snprintf(key, sizeof key, "k%03d", i);
        CHECK_INT(pna_pod_label_set_add(&set, &a, &p1, key, "v"), i < 64 ? 0 : 2);
    }
    CHECK_U64(set.count, 64);
    CHECK_U64(set.dropped, 36);
    CHECK(strstr(set.drop_note, "pod ns/pod-b: label k064: over the 64 labels") != NULL);
    pna_pod_label_set_begin_pod(&set);
    char value[70];
    memset(value, 'v', 64);
    value[64] = '\0';
    CHECK_INT(pna_pod_label_set_add(&set, &a, &p2, "long", value), 2);   /* 64 characters */
    value[63] = '\0';
    CHECK_INT(pna_pod_label_set_add(&set, &a, &p2, "max", value), 0);    /* 63: kept whole */
    CHECK_INT(pna_pod_label_set_add(&set, &a, &p2, "bad key!", "x"), 2);
    CHECK_INT(pna_pod_label_set_add(&set, &a, &p2, "dup", "1"), 0);
    CHECK_INT(pna_pod_label_set_add(&set, &a, &p2, "dup", "2"), 0);
    struct pna_pod_label_pod nouid = { "", "ns", "x" };
    CHECK_INT(pna_pod_label_set_add(&set, &a, &nouid, "team", "x"), 2);
    struct pna_label_allow only = allow_of("team");
    CHECK_INT(pna_pod_label_set_add(&set, &only, &p2, "other", "x"), 1);  /* not allowed: not counted */
    CHECK_U64(set.dropped, 39);
    pna_pod_label_set_finish(&set);
    CHECK_U64(set.dropped, 40);                /* the second "dup" */
    CHECK_U64(set.count, 64 + 2);
    /* index order: the shorter UID first, then the key id by length, then bytes */
    CHECK_STR(set.rows[0].pod_uid, "uid-b");
    CHECK_STR(set.rows[63].pod_uid, "uid-b");
    CHECK_STR(set.rows[64].pod_uid, "uid-aa");
    CHECK_STR(set.rows[64].key, "dup");
    CHECK_STR(set.rows[65].key, "max");
    size_t n;
    const struct pna_pod_label *r = pna_pod_label_set_find_pod(&set, "uid-aa", &n);
    CHECK(r == &set.rows[64] && n == 2);
    CHECK(pna_pod_label_set_find_pod(&set, "uid-c", &n) == NULL && n == 0);
    pna_pod_label_set_free(&set);
}

/* A PodList of two pods: 5,000 labels on one, a 64 KiB value on the other. */
static char *bad_pod_list(size_t *len)
{
    json_t *bulk = json_object(), *huge = json_object();
    char key[32], val[32];
    for (int i = 0; i < 5000; i++) {
        snprintf(key, sizeof key, "bulk-%04d", i);
        snprintf(val, sizeof val, "v%d", i);
        json_object_set_new(bulk, key, json_string(val));
    }
    char *big = malloc(65537);
    memset(big, 'x', 65536);
    big[65536] = '\0';
    json_object_set_new(huge, "team", json_string(big));
    json_object_set_new(huge, "queue", json_string("gpu-a"));
    free(big);
    json_t *items = json_array();
    json_array_append_new(items, json_pack("{s:{s:s,s:s,s:s,s:o},s:{s:s}}", "metadata", "name", "bulk",
                                           "namespace", "batch", "uid", "u-1", "labels", bulk,
                                           "status", "phase", "Running"));
    json_array_append_new(items, json_pack("{s:{s:s,s:s,s:s,s:o},s:{s:s}}", "metadata", "name", "huge",
                                           "namespace", "batch", "uid", "u-2", "labels", huge,
                                           "status", "phase", "Running"));
    json_t *root = json_pack("{s:s,s:o}", "kind", "PodList", "items", items);
    char *text = json_dumps(root, 0);
    json_decref(root);
    *len = strlen(text);
    return text;
}

static void test_kubelet_labels(void)
{
    size_t len;
    char *text = tt_fixture("kubelet/nri-kubernetes-k8s-1.35/pods.json", &len);
    struct pna_label_allow a = allow_of("app,app.kubernetes.io/*");
    struct pna_pod_set pods;
    struct pna_pod_label_set labels;
    uint32_t gpus = 0;
    char err[256];
    pna_pod_set_init(&pods);
    pna_pod_label_set_init(&labels);
    CHECK_INT(pna_kubelet_parse_pods_labels(text, len, &pods, &gpus, &a, &labels, err, sizeof err), 0);
    /* the recorded list, read here with jansson: app on 15 pods, 6 app.kubernetes.io/ keys */
    json_t *ref = json_loadb(text, len, 0, NULL);
    size_t want = 0, i;
    json_t *it;
    json_array_foreach(json_object_get(ref, "items"), i, it) {
        const char *k;
        json_t *v;
        json_object_foreach(json_object_get(json_object_get(it, "metadata"), "labels"), k, v)
            want += pna_label_allowed(&a, k);
    }
    json_decref(ref);
    CHECK_U64(labels.count, want);
    CHECK(want > 15);
    CHECK_U64(labels.dropped, 0);
    for (size_t r = 0; r < labels.count; r++)
        CHECK(!strcmp(labels.rows[r].key, "app") || !strncmp(labels.rows[r].key, "app.kubernetes.io/", 18));
    /* without an allow-list nothing is read, as the plain parser */
    struct pna_pod_label_set none;
    pna_pod_label_set_init(&none);
    struct pna_pod_set pods2;
    pna_pod_set_init(&pods2);
    CHECK_INT(pna_kubelet_parse_pods_labels(text, len, &pods2, &gpus, NULL, &none, err, sizeof err), 0);
    CHECK_U64(none.count, 0);
    CHECK_U64(pods2.count, pods.count);
    pna_pod_set_free(&pods2);
    pna_pod_set_free(&pods);
    pna_pod_label_set_free(&labels);
    free(text);

    /* bad input: bounded, counted, the pods themselves kept */
    text = bad_pod_list(&len);
    a = allow_of("bulk-*,team,queue");
    pna_pod_set_init(&pods);
    pna_pod_label_set_init(&labels);
    CHECK_INT(pna_kubelet_parse_pods_labels(text, len, &pods, &gpus, &a, &labels, err, sizeof err), 0);
    CHECK_U64(pods.count, 2);
    CHECK_U64(labels.count, 64 + 1);            /* 64 of bulk's, huge's queue */
    CHECK_U64(labels.dropped, 5000 - 64 + 1);   /* and the 64 KiB team */
    for (size_t r = 0; r < labels.count; r++)
        CHECK(strlen(labels.rows[r].value) <= PNA_POD_LABEL_VALUE_MAX);
    pna_pod_set_free(&pods);
    pna_pod_label_set_free(&labels);
    free(text);
}

static void test_crio_sandbox(void)
{
    size_t len;
    char *text = tt_fixture("pod-labels/crio-sandbox-config.json", &len);
    struct pna_label_allow a = allow_of("team,queue,app.kubernetes.io/*,io.kubernetes.*,secret.*");
    struct pna_oci_facts f;
    char err[256];
    CHECK_INT(pna_oci_facts_read_labels(text, len, "sb", &a, &f, err, sizeof err), 0);
    CHECK_U64(f.labels.count, 3);    /* not owner-email; not the kubelet's io.kubernetes.* */
    CHECK_STR(f.labels.pod_uid, "7c1e4b7a-3f0d-4c55-9d2e-1b6a8f0e4c21");
    CHECK_STR(f.labels.pod_name, "trainer-0");
    CHECK_STR(f.labels.pod_namespace, "ml");
    struct pna_pod_label_set set;
    pna_pod_label_set_init(&set);
    CHECK_INT(pna_oci_pod_labels_add(&f.labels, &a, &set), 0);
    pna_pod_label_set_finish(&set);
    CHECK_U64(set.count, 3);
    const char *want[][2] = { { "team", "vision" }, { "queue", "gpu-a" },
                              { "app.kubernetes.io/name", "trainer" } };
    for (size_t w = 0; w < 3; w++) {
        bool found = false;
        for (size_t r = 0; r < set.count; r++)
            found |= !strcmp(set.rows[r].key, want[w][0]) && !strcmp(set.rows[r].value, want[w][1]) &&
                     !strcmp(set.rows[r].pod_name, "trainer-0");
        CHECK(found);
    }
    for (size_t r = 0; r < set.count; r++)
        CHECK(strstr(set.rows[r].value, "annotation-not-served") == NULL);
    pna_pod_label_set_free(&set);
    pna_oci_facts_free(&f);
    /* the plain reader takes no label */
    CHECK_INT(pna_oci_facts_read(text, len, "sb", &f, err, sizeof err), 0);
    CHECK_U64(f.labels.count, 0);
    pna_oci_facts_free(&f);
    free(text);

    /* a container's io.kubernetes.cri-o.Labels are not its pod's */
    text = tt_fixture("pod-labels/crio-container-config.json", &len);
    CHECK_INT(pna_oci_facts_read_labels(text, len, "c", &a, &f, err, sizeof err), 0);
    CHECK_U64(f.labels.count, 0);
    pna_oci_facts_free(&f);
    free(text);

    /* a bad annotation is counted, not fatal */
    const char *bad = "{\"annotations\":{\"io.kubernetes.cri-o.ContainerType\":\"sandbox\","
                      "\"io.kubernetes.cri-o.Labels\":\"[1,2\",\"io.kubernetes.pod.uid\":\"u\"}}";
    CHECK_INT(pna_oci_facts_read_labels(bad, strlen(bad), "b", &a, &f, err, sizeof err), 0);
    CHECK(f.labels.bad);
    pna_pod_label_set_init(&set);
    CHECK_INT(pna_oci_pod_labels_add(&f.labels, &a, &set), 0);
    CHECK_U64(set.count, 0);
    CHECK_U64(set.dropped, 1);
    CHECK(strstr(set.drop_note, "not a JSON object") != NULL);
    pna_pod_label_set_free(&set);
    pna_oci_facts_free(&f);
}

static void test_docker_sandbox(void)
{
    size_t len;
    char *text = tt_fixture("pod-labels/docker-list-sandbox.json", &len);
    struct pna_label_allow a = allow_of("team,queue,app.kubernetes.io/*,annotation.*,io.kubernetes.*");
    struct pna_container_set ctrs;
    struct pna_pod_label_set set;
    char err[256];
    pna_container_set_init(&ctrs);
    pna_pod_label_set_init(&set);
    CHECK_INT(pna_docker_parse_list_labels(text, len, &ctrs, &a, &set, err, sizeof err), 0);
    CHECK_U64(ctrs.count, 2);                /* both containers are rows as before */
    pna_pod_label_set_finish(&set);
    CHECK_U64(set.count, 3);                 /* the sandbox's team, queue, app.kubernetes.io/name */
    for (size_t r = 0; r < set.count; r++) {
        CHECK_STR(set.rows[r].pod_uid, "7c1e4b7a-3f0d-4c55-9d2e-1b6a8f0e4c21");
        CHECK_STR(set.rows[r].pod_namespace, "ml");
        CHECK(strcmp(set.rows[r].value, "container-label") != 0);
        CHECK(strncmp(set.rows[r].key, "annotation.", 11) != 0);
        CHECK(strncmp(set.rows[r].key, "io.kubernetes.", 14) != 0);
    }
    pna_pod_label_set_free(&set);
    pna_container_set_free(&ctrs);
    free(text);
}

int main(void)
{
    test_allow_list();
    test_key_id();
    test_set_bounds();
    test_kubelet_labels();
    test_crio_sandbox();
    test_docker_sandbox();
    UNIT_END();
}
