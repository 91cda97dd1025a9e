/* test_cstorage.c -- CRI-O's and Podman's containers from a containers/storage
 * tree: the CRI-O fixture (tests/fixtures/crio: a Kubernetes pod container
 * with a CDI GPU and an RDMA device, a sidecar whose pid was reused, the
 * pod's sandbox), Podman's pidfile rule on this machine's own procfs, and
 * bad input (a malformed state.json served from the last good one, a
 * malformed config.json counted and skipped, a container directory that
 * vanished, a malformed containers.json), and the sandbox's pod labels
 * that podLabels allows. */
#include "pna_autoconf.h"
#include "sources/containers/cdi.h"
#include "sources/containers/cstorage.h"
#include "sources/containers/cstorage_json.h"
#include "core/roots.h"
#include "util/label_allow.h"
#include "containers_testutil.h"

#include <fcntl.h>
#include <jansson.h>
#include <sys/stat.h>
#include <unistd.h>

#define TRAINER "c4f1a8e2b6d03957f1e8c2a4b6d8f0e2c4a6b8d0f2e4c6a8b0d2f4e6c8a0b2d4"
#define SHIPPER "9a0b1c2d3e4f5061728394a5b6c7d8e9f0a1b2c3d4e5f60718293a4b5c6d7e8f"
#define GRAPH "var/lib/containers/storage"
#define RUN "run/containers/storage"
#define CTRS GRAPH "/overlay-containers"

static char tmp[] = "/tmp/pna-cstorage-XXXXXX";
static char empty[600];

static const struct pna_container *find(const struct pna_container_set *set, const char *id)
{
    for (size_t i = 0; i < set->count; i++)
        if (strcmp(set->rows[i].id, id) == 0)
            return &set->rows[i];
    return NULL;
}

static const struct pna_container_device *device(const struct pna_container_set *set,
                                                 const struct pna_container *c, const char *path)
{
    for (uint32_t i = 0; i < c->dev_count; i++)
        if (strcmp(set->devs[c->dev_first + i].path, path) == 0)
            return &set->devs[c->dev_first + i];
    return NULL;
}

static int scan(struct pna_cstorage *cs, const struct pna_roots *roots,
                const struct pna_cdi_registry *cdi, struct pna_container_set *set,
                struct pna_cstorage_stats *st)
{
    char err[200];
    pna_container_set_clear(set);
    return pna_cstorage_scan(cs, roots, GRAPH, RUN, NULL, cdi, set, st, err, sizeof err);
}

/* The fixture as it is. */
static void test_crio_fixture(void)
{
    char rootfs[1024], procfs[1024];
    tt_fixture_path(rootfs, sizeof rootfs, "crio/rootfs");
    tt_fixture_path(procfs, sizeof procfs, "crio/proc");
    struct pna_roots roots = { empty, procfs, empty, rootfs };
    struct pna_cdi_registry *cdi = pna_cdi_registry_new();
    pna_cdi_registry_refresh(cdi, &roots);
    struct pna_cstorage *cs = pna_cstorage_new();
    struct pna_container_set set;
    struct pna_cstorage_stats st;
    pna_container_set_init(&set);
    CHECK_INT(scan(cs, &roots, cdi, &set, &st), 0);
    CHECK_INT(st.containers, 3);
    CHECK_INT(st.sandboxes, 1);
    CHECK_INT(st.crio, 2);
    CHECK_INT(st.podman, 0);
    CHECK_INT(st.bad_specs + st.bad_states, 0);
    CHECK_INT((int)set.count, 2);
    const struct pna_container *t = find(&set, TRAINER);
    CHECK(t != NULL);
    if (t) {
        CHECK_INT(t->runtime, PNA_RUNTIME_CRIO);
        CHECK_STR(t->name, "trainer");
        CHECK_STR(t->pod_name, "trainer-0");
        CHECK_STR(t->pod_namespace, "ml-team");
        CHECK_STR(t->pod_uid, "5f0c2b9e-8d1a-4c3e-9b7a-2e6f1d4c8a90");
        CHECK_STR(t->image, "registry.example.com/ml/trainer:2.4");
        CHECK_INT(t->state, PNA_CSTATE_RUNNING);   /* /proc/40233 has initStartTime */
        CHECK_INT(t->pid, 40233);
        CHECK(t->start_ms == 1796666533250LL);   /* "started" */
        CHECK(t->has_limit && t->mem_limit_bytes == 17179869184ULL);
        /* CRI-O's systemd cgroupsPath, as the slices nest */
        CHECK_STR(t->cgroup_path, "/kubepods.slice/kubepods-burstable.slice/"
                                  "kubepods-burstable-pod5f0c2b9e_8d1a_4c3e_9b7a_2e6f1d4c8a90.slice/"
                                  "crio-" TRAINER ".scope");
        const struct pna_container_device *d = device(&set, t, "/dev/infiniband/uverbs0");
        CHECK(d && d->source == PNA_DEVS_SPEC_DEVICE && d->major == 231 && d->minor == 192);
        /* nvidia.com/gpu=0 through the node's CDI spec (the real nvidia-ctk one) */
        d = device(&set, t, "/dev/nvidia0");
        CHECK(d && d->source == PNA_DEVS_CDI && d->kind == PNA_DEV_GPU);
        d = device(&set, t, "/dev/dri/renderD128");
        CHECK(d && d->source == PNA_DEVS_CDI);
    }
    const struct pna_container *s = find(&set, SHIPPER);
    CHECK(s != NULL);
    if (s) {
        /* state.json says running, but /proc/40377 started later: not its process */
        CHECK_INT(s->state, PNA_CSTATE_EXITED);
        CHECK_INT(s->pid, 0);
        CHECK_STR(s->name, "log-shipper");
        CHECK(s->has_limit && s->mem_limit_bytes == 268435456ULL);
    }
    pna_container_set_free(&set);
    pna_cstorage_free(cs);
    pna_cdi_registry_free(cdi);
}

/* The sandbox's io.kubernetes.cri-o.Labels, with "app" and one glob allowed:
 * two labels of the pod kept, pod-template-hash and the kubelet's own keys
 * not; a later scan gives only its own sandboxes' labels. */
static void test_crio_pod_labels(void)
{
    char rootfs[1024], procfs[1024], why[200];
    tt_fixture_path(rootfs, sizeof rootfs, "crio/rootfs");
    tt_fixture_path(procfs, sizeof procfs, "crio/proc");
    struct pna_roots roots = { empty, procfs, empty, rootfs };
    struct pna_label_allow allow = { 0 };
    CHECK_INT(pna_label_allow_add(&allow, "app,team.example.com/*,io.kubernetes.*", why, sizeof why), 0);
    struct pna_cstorage *cs = pna_cstorage_new();
    struct pna_container_set set;
    struct pna_cstorage_stats st;
    struct pna_pod_label_set labels;
    pna_container_set_init(&set);
    pna_pod_label_set_init(&labels);
    pna_cstorage_read_pod_labels(cs, &allow);
    CHECK_INT(scan(cs, &roots, NULL, &set, &st), 0);
    CHECK_INT(pna_cstorage_take_pod_labels(cs, &labels), 0);
    pna_pod_label_set_finish(&labels);
    CHECK_INT((int)labels.count, 2);
    for (size_t i = 0; i < labels.count; i++) {
        const struct pna_pod_label *l = &labels.rows[i];
        CHECK_STR(l->pod_uid, "5f0c2b9e-8d1a-4c3e-9b7a-2e6f1d4c8a90");
        CHECK_STR(l->pod_name, "trainer-0");
        CHECK_STR(l->pod_namespace, "ml-team");
        CHECK(strcmp(l->key, "app") == 0 ? strcmp(l->value, "trainer") == 0
                                         : strcmp(l->key, "team.example.com/queue") == 0 &&
                                               strcmp(l->value, "gpu-a100") == 0);
    }
    CHECK_INT((int)labels.dropped, 0);
    pna_pod_label_set_free(&labels);
    /* Nothing allowed: the next scan keeps none. */
    pna_cstorage_read_pod_labels(cs, NULL);
    CHECK_INT(scan(cs, &roots, NULL, &set, &st), 0);
    CHECK_INT(pna_cstorage_take_pod_labels(cs, &labels), 0);
    CHECK_INT((int)labels.count, 0);
    pna_pod_label_set_free(&labels);
    pna_container_set_free(&set);
    pna_cstorage_free(cs);
}

/* Copy the fixture's files for one container into ROOT. */
static void copy_file(const char *root, const char *rel)
{
    char src[1200];
    size_t len;
    snprintf(src, sizeof src, "crio/rootfs/%s", rel);
    char *t = tt_fixture(src, &len);
    tt_write_bytes(root, rel, t, len);
    free(t);
}

static void test_bad_input(void)
{
    char root[800], procfs[1024];
    snprintf(root, sizeof root, "%s/bad", tmp);
    tt_fixture_path(procfs, sizeof procfs, "crio/proc");
    copy_file(root, CTRS "/" TRAINER "/userdata/config.json");
    copy_file(root, CTRS "/" TRAINER "/userdata/state.json");
    copy_file(root, CTRS "/" SHIPPER "/userdata/config.json");
    copy_file(root, CTRS "/" SHIPPER "/userdata/state.json");
    struct pna_roots roots = { empty, procfs, empty, root };
    struct pna_cstorage *cs = pna_cstorage_new();
    struct pna_container_set set;
    struct pna_cstorage_stats st;
    pna_container_set_init(&set);
    CHECK_INT(scan(cs, &roots, NULL, &set, &st), 0);
    CHECK_INT((int)set.count, 2);

    /* state.json cut half-way through a write: the last good one is served */
    tt_write(root, CTRS "/" TRAINER "/userdata/state.json", "{\"status\": \"stopp");
    CHECK_INT(scan(cs, &roots, NULL, &set, &st), 0);
    CHECK_INT(st.bad_states, 1);
    CHECK(strstr(st.last_error, TRAINER) != NULL && strstr(st.last_error, "state.json") != NULL);
    const struct pna_container *t = find(&set, TRAINER);
    CHECK(t && t->state == PNA_CSTATE_RUNNING && t->pid == 40233);
    /* ... and again at the next scan, while it stays bad */
    CHECK_INT(scan(cs, &roots, NULL, &set, &st), 0);
    t = find(&set, TRAINER);
    CHECK(t && t->state == PNA_CSTATE_RUNNING);
    /* a pid that is not one */
    tt_write(root, CTRS "/" TRAINER "/userdata/state.json", "{\"status\":\"running\",\"pid\":-4}");
    CHECK_INT(scan(cs, &roots, NULL, &set, &st), 0);
    CHECK_INT(st.bad_states, 1);

    /* a malformed spec: counted, that container not listed, the other one is */
    tt_write(root, CTRS "/" SHIPPER "/userdata/config.json", "{\"annotations\": [");
    CHECK_INT(scan(cs, &roots, NULL, &set, &st), 0);
    CHECK_INT(st.bad_specs, 1);
    CHECK(find(&set, SHIPPER) == NULL && find(&set, TRAINER) != NULL);

    /* a container directory whose userdata went (removed mid-poll): no row,
     * no error; a new container seen before its state.json: state unknown
     * (no state.json, no pidfile: created) */
    char p[1200];
    snprintf(p, sizeof p, "%s/" CTRS "/" SHIPPER "/userdata", root);
    tt_rmrf(p);
    CHECK_INT(scan(cs, &roots, NULL, &set, &st), 0);
    CHECK_INT(st.bad_specs + st.bad_states, 1);   /* the trainer's state.json only */
    CHECK(find(&set, SHIPPER) == NULL);

    /* a malformed containers.json: counted, the specs still read */
    copy_file(root, CTRS "/" TRAINER "/userdata/state.json");
    tt_write(root, CTRS "/containers.json", "[{\"id\": 5}, ");
    CHECK_INT(scan(cs, &roots, NULL, &set, &st), 0);
    CHECK_INT(st.bad_specs, 1);
    CHECK(strstr(st.last_error, "containers.json") != NULL);
    CHECK(find(&set, TRAINER) != NULL);

    /* state.json gone for a moment (between two writes): the last one stands */
    tt_write(root, CTRS "/containers.json", "[]");
    CHECK_INT(scan(cs, &roots, NULL, &set, &st), 0);
    snprintf(p, sizeof p, "%s/" CTRS "/" TRAINER "/userdata/state.json", root);
    CHECK_INT(unlink(p), 0);
    CHECK_INT(scan(cs, &roots, NULL, &set, &st), 0);
    CHECK_INT(st.bad_states, 0);
    t = find(&set, TRAINER);
    CHECK(t && t->state == PNA_CSTATE_RUNNING && t->pid == 40233);

    /* no store at all */
    struct pna_roots none = { empty, procfs, empty, empty };
    CHECK_INT(scan(cs, &none, NULL, &set, &st), 1);
    pna_container_set_free(&set);
    pna_cstorage_free(cs);
}

/* A Podman container: its spec is a Podman one (io.container.manager:
 * libpod); its state is the pidfile's process in this machine's procfs. */
static void put_podman(const char *root, const char *id, const char *name)
{
    char rel[1200], *spec = tt_fixture("crio/rootfs/" CTRS "/" SHIPPER "/userdata/config.json", NULL);
    json_t *j = json_loads(spec, 0, NULL);
    free(spec);
    CHECK(j != NULL);
    if (!j)
        return;
    json_object_set_new(j, "annotations",
                        json_pack("{s:s,s:s}", "io.container.manager", "libpod",
                                  "io.kubernetes.cri-o.TTY", "false"));
    char *out = json_dumps(j, JSON_COMPACT);
    json_decref(j);
    snprintf(rel, sizeof rel, CTRS "/%s/userdata/config.json", id);
    tt_write(root, rel, out);
    free(out);
    char idx[512];
    snprintf(idx, sizeof idx, "[{\"id\":\"%s\",\"names\":[\"%s\"],\"metadata\":"
             "\"{\\\"image-name\\\":\\\"localhost/bb:1\\\",\\\"name\\\":\\\"%s\\\"}\"}]", id,
             name, name);
    tt_write(root, CTRS "/containers.json", idx);
}

static void test_podman_pidfile(void)
{
    char root[800];
    snprintf(root, sizeof root, "%s/podman", tmp);
    const char *id = "46f5c2c05c521e4a2b68490decaac78aa621d410d5ed6a98f1d907b945c49838";
    put_podman(root, id, "web");
    struct pna_roots roots = { empty, "/proc", empty, root };
    struct pna_cstorage *cs = pna_cstorage_new();
    struct pna_container_set set;
    struct pna_cstorage_stats st;
    pna_container_set_init(&set);

    /* created: no pidfile yet */
    CHECK_INT(scan(cs, &roots, NULL, &set, &st), 0);
    CHECK_INT(st.podman, 1);
    const struct pna_container *c = find(&set, id);
    CHECK(c && c->runtime == PNA_RUNTIME_PODMAN && c->state == PNA_CSTATE_CREATED);
    CHECK(c && strcmp(c->name, "web") == 0 && strcmp(c->image, "localhost/bb:1") == 0);

    /* running: this test's own process, started before the pidfile */
    char rel[1200], num[32];
    snprintf(rel, sizeof rel, RUN "/overlay-containers/%s/userdata/pidfile", id);
    snprintf(num, sizeof num, "%d\n", (int)getpid());
    tt_write(root, rel, num);
    CHECK_INT(scan(cs, &roots, NULL, &set, &st), 0);
    c = find(&set, id);
    CHECK(c && c->state == PNA_CSTATE_RUNNING && c->pid == (int32_t)getpid());

    /* a pidfile written long before the process under its pid started: that
     * pid was reused, the container exited */
    CHECK_INT(tt_date(root, rel, 946684800), 0);   /* 2000-01-01 */
    CHECK_INT(scan(cs, &roots, NULL, &set, &st), 0);
    c = find(&set, id);
    CHECK(c && c->state == PNA_CSTATE_EXITED && c->pid == 0);
    pna_container_set_free(&set);
    pna_cstorage_free(cs);
}

static int parse(const char *text, struct pna_crio_state *s)
{
    char err[200];
    return pna_crio_state_parse(text, strlen(text), s, err, sizeof err);
}

static void test_state_parse(void)
{
    struct pna_crio_state s;
    CHECK_INT(parse("{\"status\":\"paused\",\"pid\":7,\"initPid\":8,\"initStartTime\":\"99\","
                    "\"oomKilled\":true,\"started\":\"0001-01-01T00:00:00Z\"}", &s), 0);
    CHECK_INT(s.state, PNA_CSTATE_PAUSED);
    CHECK_INT(s.pid, 8);   /* initPid wins */
    CHECK(s.has_start_ticks && s.start_ticks == 99 && s.oom_killed && s.started_ms == 0);
    CHECK_INT(parse("{\"status\":\"sleeping\"}", &s), 0);
    CHECK_INT(s.state, PNA_CSTATE_UNKNOWN);
    CHECK_INT(parse("[]", &s), -1);
    CHECK_INT(parse("{\"pid\":1073741824}", &s), -1);
    CHECK_INT(parse("{\"pid\":\"3\"}", &s), -1);
}

int main(void)
{
    if (!mkdtemp(tmp))
        return 99;
    snprintf(empty, sizeof empty, "%s/empty", tmp);
    tt_mkdirs(empty);
    test_state_parse();
    test_crio_fixture();
    test_crio_pod_labels();
    test_bad_input();
    test_podman_pidfile();
    tt_rmrf(tmp);
    UNIT_END();
}
