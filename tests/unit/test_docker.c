/* test_docker.c -- the Docker source: list/inspect/event parsers on recorded
 * Engine API responses, and the client against a stub dockerd on a unix socket
 * (malformed JSON, a stalled and a closed connection, a chunked /events stream
 * with an OOM event, and a daemon restart). */
#include "pna_autoconf.h"
#include "core/roots.h"
#include "sources/containers/docker.h"
#include "sources/containers/docker_api.h"
#include "transport/http_client.h"
#include "util/rfc3339.h"
#include "core/event_loop.h"
#include "watchers/docker_events.h"
#include "containers_testutil.h"
#include "httpstub.h"

#include <pthread.h>

static char tmp[] = "/tmp/pna-docker-XXXXXX";

#define B7 "b7dfbb9478a6ae55e237d4d74f8bbb753f0817192b5081334dc78476296e2173"

static void test_parse_list(void)
{
    size_t len;
    char *text = tt_fixture("docker/telegraf/list.json", &len);
    struct pna_container_set set;
    pna_container_set_init(&set);
    char err[160] = "";
    CHECK_INT(pna_docker_parse_list(text, len, &set, err, sizeof err), 0);
    CHECK_INT(set.count, 5);
    const struct pna_container *c = &set.rows[0];
    CHECK_STR(c->id, "e2173b9478a6ae55e237d4d74f8bbb753f0817192b5081334dc78476296b7dfb");
    CHECK_STR(c->name, "etcd");                  /* "/etcd" without the API's slash */
    CHECK_STR(c->image, "quay.io/coreos/etcd:v3.3.25");
    CHECK_INT(c->state, PNA_CSTATE_RUNNING);
    CHECK(c->start_ms == 1455941930000LL);       /* "Created": 1455941930 */
    CHECK_INT(c->runtime, PNA_RUNTIME_DOCKER);
    CHECK_STR(set.rows[1].id, B7);
    CHECK_STR(set.rows[1].image, "quay.io:4443/coreos/etcd:v3.3.25");
    CHECK_STR(set.rows[2].name, "acme");
    CHECK_STR(set.rows[2].image, "");
    CHECK(set.rows[2].start_ms == 0);
    /* Labels other than the Kubernetes identity ones, and Command, never copied. */
    CHECK(!tt_contains(set.rows, set.count * sizeof *set.rows, "test_value_1"));
    CHECK(!tt_contains(set.rows, set.count * sizeof *set.rows, "advertise-client-urls"));
    free(text);

    pna_container_set_clear(&set);
    text = tt_fixture("docker/prometheus-dockerprom/containers-json.json", &len);
    CHECK_INT(pna_docker_parse_list(text, len, &set, err, sizeof err), 0);
    CHECK_INT(set.count, 6);
    CHECK_STR(set.rows[0].name, "dockersd_node_1");
    CHECK_STR(set.rows[0].image, "prom/node-exporter:v1.1.2");
    CHECK(set.rows[0].start_ms == 1616273136000LL);
    /* Its first two entries share an id (edited by its authors): one row. */
    pna_container_set_sort(&set);
    pna_container_set_merge_runtimes(&set);
    CHECK_INT(set.count, 5);
    free(text);

    /* dockershim's Kubernetes labels name the pod. */
    const char *k8s = "[{\"Id\":\"k1\",\"Names\":[\"/k8s_app_web-0_prod_uid1_0\"],\"State\":\"running\","
                      "\"Labels\":{\"io.kubernetes.pod.name\":\"web-0\",\"io.kubernetes.pod.namespace\":"
                      "\"prod\",\"io.kubernetes.pod.uid\":\"uid1\",\"io.kubernetes.container.name\":\"app\","
                      "\"secret\":\"TOPSECRET\"}}]";
    pna_container_set_clear(&set);
    CHECK_INT(pna_docker_parse_list(k8s, strlen(k8s), &set, err, sizeof err), 0);
    CHECK_STR(set.rows[0].name, "app");
    CHECK_STR(set.rows[0].pod_name, "web-0");
    CHECK_STR(set.rows[0].pod_namespace, "prod");
    CHECK_STR(set.rows[0].pod_uid, "uid1");
    CHECK(!tt_contains(set.rows, sizeof set.rows[0], "TOPSECRET"));

    /* Malformed: nothing appended, one line of error. */
    const char *bad[] = { "{\"Id\":1}", "[{\"Id\":\"x\"", "", "null" };
    for (size_t i = 0; i < 4; i++) {
        pna_container_set_clear(&set);
        err[0] = '\0';
        CHECK_INT(pna_docker_parse_list(bad[i], strlen(bad[i]), &set, err, sizeof err), -1);
        CHECK_INT(set.count, 0);
        CHECK(err[0] && !strchr(err, '\n'));
    }
    /* Entries without an Id are skipped, not fatal. */
    const char *partial = "[{\"Names\":[\"/x\"]},5,{\"Id\":\"ok\"}]";
    CHECK_INT(pna_docker_parse_list(partial, strlen(partial), &set, err, sizeof err), 0);
    CHECK_INT(set.count, 1);
    CHECK_STR(set.rows[0].name, "");
    pna_container_set_free(&set);
}

static void test_parse_inspect(void)
{
    size_t len;
    char *text = tt_fixture("docker/telegraf/inspect_" B7 ".json", &len);
    struct pna_docker_inspect in;
    char err[160];
    CHECK_INT(pna_docker_parse_inspect(text, len, &in, NULL, err, sizeof err), 0);
    CHECK_INT(in.state, PNA_CSTATE_RUNNING);
    CHECK_INT(in.pid, 1234);
    struct tm tm = { .tm_year = 2018 - 1900, .tm_mon = 5, .tm_mday = 14, .tm_hour = 5,
                     .tm_min = 48, .tm_sec = 53 };
    CHECK(in.start_ms == (int64_t)timegm(&tm) * 1000 + 266);  /* "2018-06-14T05:48:53.266176036Z" */
    CHECK(!in.oom_killed);
    CHECK(!in.has_mem_limit);          /* HostConfig is null */
    CHECK_INT(in.ndevs, 0);
    CHECK(!tt_contains(&in, sizeof in, "loremipsum"));   /* Config.Env */
    free(text);

    text = tt_fixture("docker/telegraf/inspect_non_running_123456789.json", &len);
    CHECK_INT(pna_docker_parse_inspect(text, len, &in, NULL, err, sizeof err), 0);
    CHECK_INT(in.state, PNA_CSTATE_EXITED);
    CHECK_INT(in.pid, 0);
    CHECK(in.start_ms == 1704067200000LL);  /* 2024-01-01T00:00:00Z */
    free(text);

    const char *gpu = "{\"State\":{\"Status\":\"running\",\"Pid\":42,\"OOMKilled\":true,"
                      "\"StartedAt\":\"0001-01-01T00:00:00Z\"},\"HostConfig\":{\"Memory\":268435456,"
                      "\"Devices\":[{\"PathOnHost\":\"/dev/infiniband/uverbs1\",\"PathInContainer\":"
                      "\"/dev/infiniband/uverbs1\",\"CgroupPermissions\":\"rwm\"},{\"PathOnHost\":"
                      "\"/dev/dri/renderD129\"}],\"DeviceRequests\":[{\"Driver\":\"nvidia\",\"Count\":0,"
                      "\"DeviceIDs\":[\"0\",\"GPU-8f3e\",\"2\"],\"Capabilities\":[[\"gpu\"]]}]},"
                      "\"Config\":{\"Env\":[\"TOKEN=TOPSECRET\"],\"Cmd\":[\"--pw=TOPSECRET\"]}}";
    pna_docker_host_paths hosts;
    CHECK_INT(pna_docker_parse_inspect(gpu, strlen(gpu), &in, &hosts, err, sizeof err), 0);
    CHECK(in.oom_killed);
    CHECK(in.start_ms == 0);
    CHECK(in.has_mem_limit && in.mem_limit_bytes == 268435456);
    CHECK_INT(in.ndevs, 4);
    CHECK_STR(in.devs[0].path, "/dev/infiniband/uverbs1");
    CHECK_INT(in.devs[0].kind, PNA_DEV_RDMA);
    CHECK_STR(in.devs[1].path, "/dev/dri/renderD129");
    CHECK_STR(in.devs[2].path, "/dev/nvidia0");
    CHECK_INT(in.devs[2].kind, PNA_DEV_GPU);
    CHECK_STR(in.devs[3].path, "/dev/nvidia2");
    CHECK(!tt_contains(&in, sizeof in, "TOPSECRET"));
    /* Host paths beside, for the numbers: "" where Docker gave none (GPU requests). */
    CHECK_STR(hosts[0], "/dev/infiniband/uverbs1");
    CHECK_STR(hosts[1], "/dev/dri/renderD129");
    CHECK_STR(hosts[2], "");

    /* A device renamed in the container: the path is the container's, the
     * host path is what names the device. */
    const char *renamed = "{\"State\":{\"Status\":\"running\"},\"HostConfig\":{\"Devices\":"
                          "[{\"PathOnHost\":\"/dev/dri/renderD129\",\"PathInContainer\":"
                          "\"/dev/dri/renderD128\",\"CgroupPermissions\":\"rwm\"}]}}";
    CHECK_INT(pna_docker_parse_inspect(renamed, strlen(renamed), &in, &hosts, err, sizeof err), 0);
    CHECK_STR(in.devs[0].path, "/dev/dri/renderD128");
    CHECK_STR(hosts[0], "/dev/dri/renderD129");

    CHECK_INT(pna_docker_parse_inspect("{\"State\":5}", 11, &in, NULL, err, sizeof err), -1);
    CHECK_INT(pna_docker_parse_inspect("{\"Sta", 5, &in, NULL, err, sizeof err), -1);
}

static void test_parse_events(void)
{
    size_t len;
    char *text = tt_fixture("docker/deck-chores-events_00.jsonl", &len);
    /* The expected counts, straight from the raw lines. */
    int want_container = 0, want_kill = 0, want_die = 0;
    int got_container = 0, got_kill = 0, got_die = 0, lines = 0, exit137 = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        lines++;
        bool is_c = strstr(line, "\"Type\":\"container\"") != NULL;
        want_container += is_c;
        want_kill += is_c && strstr(line, "\"Action\":\"kill\"");
        want_die += is_c && strstr(line, "\"Action\":\"die\"");
        struct pna_docker_event ev;
        CHECK_INT(pna_docker_parse_event(line, strlen(line), &ev), 0);
        if (strcmp(ev.type, "container") != 0)
            continue;
        got_container++;
        got_kill += strcmp(ev.action, "kill") == 0;
        if (strcmp(ev.action, "die") == 0) {
            got_die++;
            exit137 += ev.has_exit_code && ev.exit_code == 137;   /* "exitCode":"137" */
            CHECK_INT(strlen(ev.id), 64);
            CHECK(ev.time_ns > 1570389773000000000LL);
        }
    }
    CHECK_INT(lines, 31);
    CHECK_INT(got_container, want_container);
    CHECK_INT(got_kill, want_kill);
    CHECK_INT(got_die, want_die);
    CHECK_INT(exit137, want_die);
    CHECK(want_die == 3 && want_kill == 6);
    free(text);

    struct pna_docker_event ev;
    const char *legacy = "{\"status\":\"oom\",\"id\":\"abc\",\"from\":\"img\",\"time\":1449151310}";
    CHECK_INT(pna_docker_parse_event(legacy, strlen(legacy), &ev), 0);
    CHECK_STR(ev.type, "container");
    CHECK_STR(ev.action, "oom");
    CHECK_STR(ev.id, "abc");
    CHECK(ev.time_ns == 1449151310000000000LL);
    const char *exec = "{\"Type\":\"container\",\"Action\":\"exec_start: sh -c 'echo TOPSECRET'\","
                       "\"Actor\":{\"ID\":\"x\"}}";
    CHECK_INT(pna_docker_parse_event(exec, strlen(exec), &ev), 0);
    CHECK_STR(ev.action, "exec_start");
    CHECK(!tt_contains(&ev, sizeof ev, "TOPSECRET"));
    CHECK_INT(pna_docker_parse_event("not json", 8, &ev), -1);
    CHECK_INT(pna_docker_parse_event("[1]", 3, &ev), -1);
    CHECK_INT(pna_docker_parse_event("{}", 2, &ev), -1);
}

static void test_rfc3339(void)
{
    CHECK(pna_parse_rfc3339_ms("1970-01-01T00:00:01Z") == 1000);
    CHECK(pna_parse_rfc3339_ms("1970-01-01T00:00:01.5Z") == 1500);
    CHECK(pna_parse_rfc3339_ms("1970-01-01T02:00:00+02:00") == 0);
    CHECK(pna_parse_rfc3339_ms("1970-01-01T00:00:00-00:30") == 1800000);
    CHECK(pna_parse_rfc3339_ms("0001-01-01T00:00:00Z") == 0);
    CHECK(pna_parse_rfc3339_ms("2024-13-01T00:00:00Z") == -1);
    CHECK(pna_parse_rfc3339_ms("2024-01-01") == -1);
    CHECK(pna_parse_rfc3339_ms("2024-01-01T00:00:00") == -1);
    CHECK(pna_parse_rfc3339_ms("2024-01-01T00:00:00Zjunk") == -1);
    CHECK(pna_parse_rfc3339_ms(NULL) == -1);
}

static char sock[600];

static struct httpstub *start_daemon(void)
{
    struct httpstub *s = httpstub_start_unix(sock);
    char p[600];
    tt_fixture_path(p, sizeof p, "docker/telegraf/list.json");
    httpstub_route_file(s, "/containers/json", 200, p);
    tt_fixture_path(p, sizeof p, "docker/telegraf/inspect_" B7 ".json");
    httpstub_route_file(s, "/containers/" B7 "/json", 200, p);
    return s;
}

static void test_client(void)
{
    struct httpstub *s = start_daemon();
    CHECK(s != NULL);
    if (!s)
        return;
    char p[600];
    struct pna_roots roots = { tmp, tmp, tmp, tmp };
    struct pna_docker *d = pna_docker_new(sock, 400);
    struct pna_container_set set;
    pna_container_set_init(&set);
    char err[160] = "";
    CHECK_INT(pna_docker_collect(d, &roots, NULL, &set, err, sizeof err), 0);
    CHECK_INT(set.count, 5);
    const struct pna_container *b7 = NULL;
    for (size_t i = 0; i < set.count; i++)
        if (!strcmp(set.rows[i].id, B7))
            b7 = &set.rows[i];
    CHECK(b7 && b7->pid == 1234 && b7->start_ms == 1528955333266LL);
    CHECK(b7 && b7->state == PNA_CSTATE_RUNNING);
    /* Four containers have no inspect answer (404): rows anyway, errors counted. */
    CHECK_INT(pna_docker_inspects(d), 5);
    CHECK_INT(pna_docker_errors(d), 4);
    CHECK_INT(httpstub_hits(s, "/containers/" B7 "/json"), 1);

    /* Next poll: the inspected one is not asked again, the failed ones are. */
    pna_container_set_clear(&set);
    CHECK_INT(pna_docker_collect(d, &roots, NULL, &set, err, sizeof err), 0);
    CHECK_INT(httpstub_hits(s, "/containers/" B7 "/json"), 1);
    CHECK_INT(pna_docker_inspects(d), 9);
    /* An event said it changed: asked again. */
    pna_docker_invalidate(d, B7);
    pna_container_set_clear(&set);
    CHECK_INT(pna_docker_collect(d, &roots, NULL, &set, err, sizeof err), 0);
    CHECK_INT(httpstub_hits(s, "/containers/" B7 "/json"), 2);
    /* dockerd sends an event before the view its list reads is updated: the
     * list still says paused, the inspect made for the event says running,
     * and the inspect wins. */
    static const char stale_list[] =
        "[{\"Id\":\"" B7 "\",\"Names\":[\"/b7\"],\"Image\":\"img\","
        "\"State\":\"paused\",\"Created\":1528955333}]";
    httpstub_route(s, "/containers/json", 200, stale_list, sizeof stale_list - 1);
    pna_docker_invalidate(d, B7);
    pna_container_set_clear(&set);
    CHECK_INT(pna_docker_collect(d, &roots, NULL, &set, err, sizeof err), 0);
    CHECK_INT(set.count, 1);
    CHECK(set.count == 1 && set.rows[0].state == PNA_CSTATE_RUNNING);
    /* Without an event the list's state stands (it is the newer then). */
    pna_container_set_clear(&set);
    CHECK_INT(pna_docker_collect(d, &roots, NULL, &set, err, sizeof err), 0);
    CHECK(set.count == 1 && set.rows[0].state == PNA_CSTATE_PAUSED);
    tt_fixture_path(p, sizeof p, "docker/telegraf/list.json");
    httpstub_route_file(s, "/containers/json", 200, p);

    /* Malformed JSON: an error, counted, and nothing appended. */
    httpstub_mode(s, "/containers/json", STUB_MALFORMED);
    pna_container_set_clear(&set);
    uint32_t errors = pna_docker_errors(d);
    CHECK_INT(pna_docker_collect(d, &roots, NULL, &set, err, sizeof err), -1);
    CHECK(strstr(err, "/containers/json") != NULL);
    CHECK_INT(pna_docker_errors(d), errors + 1);
    CHECK_INT(set.count, 0);

    /* Closed without an answer: an error, at once. */
    httpstub_mode(s, "/containers/json", STUB_CLOSE);
    int64_t t0 = tt_mono_ms();
    CHECK_INT(pna_docker_collect(d, &roots, NULL, &set, err, sizeof err), -1);
    CHECK(tt_mono_ms() - t0 < 400);

    /* Accepted and never answered: the deadline ends it. */
    httpstub_mode(s, "/containers/json", STUB_STALL);
    t0 = tt_mono_ms();
    CHECK_INT(pna_docker_collect(d, &roots, NULL, &set, err, sizeof err), -1);
    int64_t took = tt_mono_ms() - t0;
    printf("stalled dockerd: error after %lld ms (deadline 400 ms): %s\n", (long long)took, err);
    CHECK(took >= 350 && took < 1400);
    CHECK(strstr(err, "timed out") != NULL);

    /* A body over the caller's bound is an error, not a truncation. */
    httpstub_mode(s, "/containers/json", STUB_OK);
    struct pna_hclient *h = pna_hclient_new();
    struct pna_hclient_target t = { .unix_socket = sock, .base_url = "http://localhost",
                                 .timeout_ms = 500 };
    char *body = NULL;
    size_t blen;
    long status;
    CHECK_INT(pna_hclient_get(h, &t, "/containers/json", 100, &body, &blen, &status, err, sizeof err), -1);
    CHECK(strstr(err, "body over 100 bytes") != NULL);
    /* A socket that cannot be connected to says why, not libcurl's "Failed to
     * connect to localhost port 80". */
    char missing[600], plain[600];
    snprintf(missing, sizeof missing, "%s/none.sock", tmp);
    snprintf(plain, sizeof plain, "%s/plain.sock", tmp);
    tt_write(tmp, "plain.sock", "");
    struct pna_hclient_target bad = t;
    bad.unix_socket = missing;
    CHECK_INT(pna_hclient_get(h, &bad, "/containers/json", 1000, &body, &blen, &status, err, sizeof err), -1);
    CHECK(strstr(err, "none.sock: no such socket") != NULL);
    bad.unix_socket = plain;
    CHECK_INT(pna_hclient_get(h, &bad, "/containers/json", 1000, &body, &blen, &status, err, sizeof err), -1);
    CHECK(strstr(err, "plain.sock: not a socket") != NULL);
    CHECK_INT(pna_hclient_get(h, &t, "/nope", 1000, &body, &blen, &status, err, sizeof err), -1);
    CHECK_INT(status, 404);
    CHECK(strstr(err, "HTTP 404") != NULL);
    CHECK_INT(pna_hclient_get(h, &t, "/containers/json", 1 << 20, &body, &blen, &status, err, sizeof err), 0);
    CHECK_INT(status, 200);
    free(body);
    pna_hclient_free(h);

    /* dockerd gone: an error at once. */
    httpstub_stop(s);
    t0 = tt_mono_ms();
    CHECK_INT(pna_docker_collect(d, &roots, NULL, &set, err, sizeof err), -1);
    CHECK(tt_mono_ms() - t0 < 400);
    pna_container_set_free(&set);
    pna_docker_free(d);
}

struct evlog {
    pthread_mutex_t lock;
    int container, oom;
    char last_oom_id[80];
    int connected;             /* stream openings seen */
    int events_at_connect;     /* l->container when the stream last opened */
};

static void on_connect(void *arg)
{
    struct evlog *l = arg;
    pthread_mutex_lock(&l->lock);
    l->connected++;
    l->events_at_connect = l->container;
    pthread_mutex_unlock(&l->lock);
}

static void on_event(void *arg, const struct pna_docker_event *ev)
{
    struct evlog *l = arg;
    pthread_mutex_lock(&l->lock);
    l->container++;
    if (!strcmp(ev->action, "oom")) {
        l->oom++;
        snprintf(l->last_oom_id, sizeof l->last_oom_id, "%s", ev->id);
    }
    pthread_mutex_unlock(&l->lock);
}

static int ooms(struct evlog *l)
{
    pthread_mutex_lock(&l->lock);
    int n = l->oom;
    pthread_mutex_unlock(&l->lock);
    return n;
}

/* No real /events stream with an "oom" was found (see SOURCES.md): this line
 * follows the recorded stream's shape (legacy and modern fields together). */
#define OOM_LINE "{\"status\":\"oom\",\"id\":\"" B7 "\",\"from\":\"quay.io:4443/coreos/etcd:v3.3.25\"," \
    "\"Type\":\"container\",\"Action\":\"oom\",\"Actor\":{\"ID\":\"" B7 "\",\"Attributes\":" \
    "{\"image\":\"quay.io:4443/coreos/etcd:v3.3.25\",\"name\":\"etcd2\"}},\"scope\":\"local\"," \
    "\"time\":1570390200,\"timeNano\":1570390200123456789}\n"

static void stream_routes(struct httpstub *s)
{
    char p[600];
    tt_fixture_path(p, sizeof p, "docker/deck-chores-events_00.jsonl");
    httpstub_route_file(s, "/events", 200, p);
    httpstub_stream(s, "/events", 2, OOM_LINE);
}

static void test_events_stream(void)
{
    struct httpstub *s = httpstub_start_unix(sock);
    stream_routes(s);
    struct evlog l = { .lock = PTHREAD_MUTEX_INITIALIZER };
    char err[160];
    struct pna_loop *loop = pna_loop_new(err, sizeof err);
    CHECK(loop && pna_loop_start(loop, err, sizeof err) == 0);
    struct pna_docker_events *e =
        pna_docker_events_start(loop, sock, 500, 100, on_event, on_connect, &l);
    int64_t t0 = tt_mono_ms();
    while (ooms(&l) < 1 && tt_mono_ms() - t0 < 5000)
        tt_sleep_ms(10);
    CHECK_INT(ooms(&l), 1);
    CHECK_STR(l.last_oom_id, B7);
    CHECK_INT(l.container, 21 + 1);   /* the recording's container events, then the OOM */
    CHECK_INT(pna_docker_events_connects(e), 1);

    /* dockerd restarts: the stream ends, the client retries, and the new
     * daemon's stream arrives. */
    httpstub_stop(s);
    tt_sleep_ms(300);
    s = httpstub_start_unix(sock);
    stream_routes(s);
    t0 = tt_mono_ms();
    while (ooms(&l) < 2 && tt_mono_ms() - t0 < 5000)
        tt_sleep_ms(10);
    printf("events: reconnected and got the OOM again %lld ms after the restart\n",
           (long long)(tt_mono_ms() - t0));
    CHECK_INT(ooms(&l), 2);
    CHECK_INT(pna_docker_events_connects(e), 2);
    /* Each opening was told before the stream's first event (the caller
     * rescans what it missed while the stream was down). */
    CHECK_INT(l.connected, 2);
    CHECK_INT(l.events_at_connect, 21 + 1);
    CHECK(pna_docker_events_failures(e) >= 1);

    /* Stopping does not wait for the (idle, open) stream to end. */
    t0 = tt_mono_ms();
    pna_docker_events_stop(e);
    CHECK(tt_mono_ms() - t0 < 1500);
    httpstub_stop(s);

    /* A daemon that accepts and never answers: retried, not stuck. */
    s = httpstub_start_unix(sock);
    httpstub_route(s, "/events", 200, "", 0);
    httpstub_mode(s, "/events", STUB_STALL);
    e = pna_docker_events_start(loop, sock, 300, 100, on_event, on_connect, &l);
    /* Each stalled attempt ends at its 300 ms deadline (a timer on the
     * loop), then waits 200, 400, 800 ms: four attempts in 3.5 s. */
    tt_sleep_ms(3500);
    CHECK(pna_docker_events_failures(e) >= 2);
    CHECK_INT(pna_docker_events_connects(e), 0);
    pna_docker_events_stop(e);
    httpstub_stop(s);
    pna_loop_free(loop);
}

int main(void)
{
    if (!mkdtemp(tmp))
        return 99;
    snprintf(sock, sizeof sock, "%s/docker.sock", tmp);
    test_parse_list();
    test_parse_inspect();
    test_parse_events();
    test_rfc3339();
    test_client();
    test_events_stream();
    tt_rmrf(tmp);
    UNIT_END();
}
