/* test_slurm.c -- the Slurm jobs of a node from its cgroup tree.
 *
 * The cgroup trees here are built for this test from the layout Slurm's
 * cgroup plugins document and make (slurm's cgroup.conf and cgroup_v2
 * documentation; v1 as slurmd 22.05 made it on a Debian 12 node:
 * memory/slurm_<node>/uid_0/job_1/step_batch/task_0), not captured from a
 * node: the figures in them are made up.  Checked:
 *   - the path rule: v1 and v2 layouts, named and numbered steps, Slurm's own
 *     directories that hold no job, and names Slurm does not make (job_abc,
 *     job ids over 32 bits, long names, a job inside a job, a level below a
 *     task) rejected with a reason;
 *   - devices.list: the devices kept, "a *:* rwm" as not constrained;
 *   - the source on a v1 tree (memory and devices hierarchies) and a v2 tree
 *     (system.slice/<node>_slurmstepd.scope, the uid from a task's process):
 *     jobs, steps, memory, start time, devices, rejections counted and named;
 *   - the poller: a job whose cgroup goes away ends with one slurmJobEnd
 *     event naming it, the first poll ends nothing;
 *   - the joins: the job holding a GPU (its process's cgroup, or its device
 *     list), a MIG device and an AMD partition, and what each job holds;
 *   - the device nodes a job's processes have open: this test's own process
 *     in a built cgroup.procs, holding a uverbs and a GPU node made with
 *     mknod and opened O_PATH (no driver is there to open them for I/O;
 *     /proc/PID/fd leads to the node all the same), /dev/null not kept; the
 *     RDMA device whose uverbs number it is then has the job as holder. */
#include "pna_autoconf.h"

#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "core/config.h"
#include "core/events.h"
#include "core/view.h"
#include "model/gpu/gpu.h"
#include "model/slurm/slurm.h"
#include "model/slurm/slurm_holders.h"
#include "pollers/pollers.h"
#include "model/ib.h"
#include "sources/slurm/slurm_cgroup.h"
#include "sources/slurm/slurm_fds.h"
#include "containers_testutil.h"

/* ---- the path rule ------------------------------------------------------------ */

static void check_job(const char *path, uint32_t job, int has_uid, uint32_t uid, int has_step,
                      uint32_t step, const char *job_dir)
{
    struct pna_slurm_cgroup cg;
    const char *why = "";
    int rc = pna_slurm_cgroup_parse(path, &cg, &why);
    if (rc != 1)
        fprintf(stderr, "%s: %d (%s)\n", path, rc, why);
    CHECK_INT(rc, 1);
    CHECK_INT(cg.job_id, job);
    CHECK_INT(cg.has_uid, has_uid);
    if (has_uid)
        CHECK_INT(cg.uid, uid);
    CHECK_INT(cg.has_step, has_step);
    if (has_step)
        CHECK_U64(cg.step, step);
    CHECK_INT(cg.job_len, strlen(job_dir));
    CHECK(strncmp(path, job_dir, strlen(job_dir)) == 0);
    CHECK_INT(pna_slurm_job_of_cgroup(path), job);
}

static void check_none(const char *path)
{
    struct pna_slurm_cgroup cg;
    const char *why = "";
    int rc = pna_slurm_cgroup_parse(path, &cg, &why);
    if (rc != 0)
        fprintf(stderr, "%s: %d (%s), expected not a job\n", path, rc, why);
    CHECK_INT(rc, 0);
    CHECK_INT(pna_slurm_job_of_cgroup(path), 0);
}

static void check_rejected(const char *path, const char *reason)
{
    struct pna_slurm_cgroup cg;
    const char *why = "";
    int rc = pna_slurm_cgroup_parse(path, &cg, &why);
    if (rc != -1)
        fprintf(stderr, "%s: %d, expected rejected (%s)\n", path, rc, reason);
    CHECK_INT(rc, -1);
    CHECK_STR(why, reason);
    CHECK_INT(pna_slurm_job_of_cgroup(path), 0);
}

static void test_paths(void)
{
    /* v1: the memory hierarchy's path of a task (what /proc/PID/cgroup shows) */
    check_job("/slurm/uid_1000/job_42/step_0/task_0", 42, 1, 1000, 1, 0, "/slurm/uid_1000/job_42");
    check_job("/slurm_n1/uid_0/job_1/step_batch/task_0", 1, 1, 0, 1, PNA_SLURM_STEP_BATCH,
              "/slurm_n1/uid_0/job_1");
    check_job("/slurm_n1/uid_0/job_1/step_batch", 1, 1, 0, 1, PNA_SLURM_STEP_BATCH,
              "/slurm_n1/uid_0/job_1");
    check_job("/slurm_n1/uid_7/job_4294967295/step_extern", 4294967295u, 1, 7, 1,
              PNA_SLURM_STEP_EXTERN, "/slurm_n1/uid_7/job_4294967295");
    check_job("/slurm/uid_1000/job_3/step_interactive/task_special", 3, 1, 1000, 1,
              PNA_SLURM_STEP_INTERACTIVE, "/slurm/uid_1000/job_3");
    check_job("/slurm/uid_1000/job_3", 3, 1, 1000, 0, 0, "/slurm/uid_1000/job_3");
    /* slurmd in a container: Slurm's part below the container's own */
    check_job("/docker/0123abcd/slurm/uid_5/job_9/step_2", 9, 1, 5, 1, 2,
              "/docker/0123abcd/slurm/uid_5/job_9");
    /* v2: the unified path, with and without the node's name and system.slice */
    check_job("/system.slice/n1_slurmstepd.scope/job_77/step_0/user/task_0", 77, 0, 0, 1, 0,
              "/system.slice/n1_slurmstepd.scope/job_77");
    check_job("/system.slice/slurmstepd.scope/job_77/step_batch/slurm", 77, 0, 0, 1,
              PNA_SLURM_STEP_BATCH, "/system.slice/slurmstepd.scope/job_77");
    check_job("/slurmstepd.scope/job_5/step_4294967279", 5, 0, 0, 1, PNA_SLURM_STEP_NUMBERED_MAX,
              "/slurmstepd.scope/job_5");
    check_job("/system.slice/n1_slurmstepd.scope/job_77", 77, 0, 0, 0, 0,
              "/system.slice/n1_slurmstepd.scope/job_77");

    /* no job: not Slurm's, or Slurm's own directories above the jobs */
    check_none("/");
    check_none("");
    check_none("/user.slice/user-1000.slice/session-3.scope");
    check_none("/kubepods.slice/kubepods-pod1.slice/cri-containerd-ab.scope");
    check_none("/slurm_n1");
    check_none("/slurm_n1/uid_0");
    check_none("/slurm_n1/system");
    check_none("/slurmbackup/uid_0/job_1");        /* not "slurm" or "slurm_<node>" */
    check_none("/system.slice/n1_slurmstepd.scope");
    check_none("/system.slice/n1_slurmstepd.scope/system");
    check_none("/system.slice/_slurmstepd.scope/job_1");   /* no node before the '_' */
    check_none("/system.slice/slurmd.service");

    /* names Slurm does not make */
    check_rejected("/slurm/uid_1000/job_abc/step_0", "bad job id");
    check_rejected("/slurm/uid_1000/job_99999999999999999999/step_0", "bad job id");
    check_rejected("/slurm/uid_1000/job_4294967296", "bad job id");
    check_rejected("/slurm/uid_1000/job_0", "bad job id");
    check_rejected("/slurm/uid_1000/job_007", "bad job id");
    check_rejected("/slurm/uid_1000/job_-1", "bad job id");
    check_rejected("/slurm/uid_1000/job_", "bad job id");
    check_rejected("/slurm/uid_abc/job_1", "bad uid");
    check_rejected("/slurm/uid_1000/notajob", "not a job directory");
    check_rejected("/slurm/uid_1000/job_1/job_2", "not a step in a job");
    check_rejected("/slurm/uid_1000/job_1/step_abc", "bad step");
    check_rejected("/slurm/uid_1000/job_1/step_4294967280", "bad step");
    check_rejected("/slurm/uid_1000/job_1/stuff", "not a step in a job");
    check_rejected("/slurm/uid_1000/job_1/step_0/step_1", "unexpected directory in a step");
    check_rejected("/slurm/uid_1000/job_1/step_0/task_0/deeper", "nested too deep");
    check_rejected("/system.slice/n1_slurmstepd.scope/job_1/step_0/slurm/task_0",
                   "nested too deep");
    check_rejected("/system.slice/n1_slurmstepd.scope/job_1/step_0/user/task_0/x",
                   "nested too deep");
    check_rejected("/system.slice/n1_slurmstepd.scope/job_x", "bad job id");
    check_rejected("/system.slice/n1_slurmstepd.scope/other", "not a job directory");
    char longname[400];
    snprintf(longname, sizeof longname, "/slurm/uid_1/job_1/step_%0200d", 1);
    check_rejected(longname, "name too long");
    snprintf(longname, sizeof longname, "/system.slice/%0120d_slurmstepd.scope/job_1", 7);
    check_rejected(longname, "name too long");
}

static void test_devices(void)
{
    struct pna_slurm_device d[4];
    CHECK_INT(pna_slurm_parse_devices("c 195:0 rwm\nc 195:255 rwm\nb 8:* r\nc 231:192 rw\n"
                                      "c 10:200 rwm\n", d, 4), 4);
    CHECK_INT(d[0].type, 'c');
    CHECK_INT(d[0].major, 195);
    CHECK_INT(d[0].minor, 0);
    CHECK_INT(d[2].type, 'b');
    CHECK_INT(d[2].minor, -1);
    CHECK_INT(d[3].major, 231);
    CHECK_INT(d[3].minor, 192);
    CHECK_INT(pna_slurm_parse_devices("a *:* rwm\n", d, 4), -1);
    CHECK_INT(pna_slurm_parse_devices("", d, 4), 0);
    CHECK_INT(pna_slurm_parse_devices("c *:* m\nx 1:2 r\nc 1:x r\nc 195:\n", d, 4), 0);
    struct pna_slurm_job j = { .devices_known = true, .n_devices = 1 };
    j.devices[0] = (struct pna_slurm_device){ 'c', 195, -1 };
    CHECK(pna_slurm_job_allows(&j, 195, 3));
    CHECK(!pna_slurm_job_allows(&j, 226, 3));
    j.devices_known = false;
    CHECK(!pna_slurm_job_allows(&j, 195, 3));
}

/* ---- the source ------------------------------------------------------------------- */

static char tmp[] = "/tmp/pna-slurm-XXXXXX";

/* A v1 job: memory and devices hierarchies, steps STEPS (comma-separated). */
static void v1_job(const char *sys, const char *user_dir, uint32_t job, const char *steps,
                   const char *usage, const char *limit, const char *devices)
{
    char rel[512];
    snprintf(rel, sizeof rel, "fs/cgroup/memory/slurm_n1/%s/job_%u/memory.usage_in_bytes",
             user_dir, (unsigned)job);
    tt_write(sys, rel, usage);
    snprintf(rel, sizeof rel, "fs/cgroup/memory/slurm_n1/%s/job_%u/memory.limit_in_bytes",
             user_dir, (unsigned)job);
    tt_write(sys, rel, limit);
    char list[256];
    snprintf(list, sizeof list, "%s", steps);
    for (char *save = NULL, *s = strtok_r(list, ",", &save); s; s = strtok_r(NULL, ",", &save)) {
        snprintf(rel, sizeof rel, "fs/cgroup/memory/slurm_n1/%s/job_%u/%s/task_0/cgroup.procs",
                 user_dir, (unsigned)job, s);
        tt_write(sys, rel, "");
    }
    if (devices) {
        snprintf(rel, sizeof rel, "fs/cgroup/devices/slurm_n1/%s/job_%u/devices.list", user_dir,
                 (unsigned)job);
        tt_write(sys, rel, devices);
    }
}

static void test_v1_tree(const char *sys)
{
    v1_job(sys, "uid_1000", 42, "step_batch,step_extern,step_0", "73400320\n", "209715200\n",
           "c 195:3 rwm\nc 231:192 rwm\nc 231:193 rwm\nc 231:0 rwm\nc 1:3 rwm\n");
    v1_job(sys, "uid_0", 7, "step_0", "1048576\n", "9223372036854771712\n", "a *:* rwm\n");
    v1_job(sys, "uid_1000", 43, "step_batch", "4096\n", "8192\n", NULL);
    /* garbage: a job id Slurm cannot make, a bad step, a too long name, a
     * bad uid; and Slurm's own directories that hold no job */
    v1_job(sys, "uid_1000", 0, "step_0", "1\n", "2\n", NULL);   /* job_0 */
    tt_write(sys, "fs/cgroup/memory/slurm_n1/uid_1000/job_abc/memory.usage_in_bytes", "1\n");
    tt_write(sys, "fs/cgroup/memory/slurm_n1/uid_1000/job_99999999999999999999/x", "");
    tt_write(sys, "fs/cgroup/memory/slurm_n1/uid_1000/job_42/step_bogus/cgroup.procs", "");
    tt_write(sys, "fs/cgroup/memory/slurm_n1/uid_x/job_5/memory.usage_in_bytes", "1\n");
    tt_write(sys, "fs/cgroup/memory/slurm_n1/system/cgroup.procs", "");
    tt_write(sys, "fs/cgroup/memory/user.slice/cgroup.procs", "");
    tt_write(sys, "fs/cgroup/freezer/slurm_n1/uid_1000/job_42/freezer.state", "THAWED\n");

    struct pna_roots roots = { sys, "/proc", "/dev", "/" };
    CHECK(pna_slurm_present(&roots, "fs/cgroup"));
    struct pna_slurm_snap s = { 0 };
    char err[256] = "";
    CHECK_INT(pna_slurm_read(&roots, "fs/cgroup", &s, err, sizeof err), 0);
    CHECK_INT(s.layout, PNA_SLURM_LAYOUT_V1);
    CHECK_INT(s.count, 3);
    CHECK_U64(s.rejected, 5);
    CHECK(strstr(err, "5 cgroup names Slurm does not make") != NULL);
    if (s.count == 3) {
        const struct pna_slurm_job *a = &s.jobs[0], *b = &s.jobs[1], *c = &s.jobs[2];
        CHECK_INT(a->job_id, 7);
        CHECK_INT(b->job_id, 42);
        CHECK_INT(c->job_id, 43);
        CHECK(b->has_uid);
        CHECK_INT(b->uid, 1000);
        CHECK_INT(a->uid, 0);
        CHECK_INT(b->steps, 3);   /* step_bogus is not one */
        CHECK_INT(a->steps, 1);
        CHECK(b->has_mem_usage && b->has_mem_limit);
        CHECK_U64(b->mem_usage_bytes, 73400320);
        CHECK_U64(b->mem_limit_bytes, 209715200);
        CHECK(a->has_mem_usage && !a->has_mem_limit);   /* v1's "no limit" */
        CHECK_STR(b->cgroup, "/slurm_n1/uid_1000/job_42");
        CHECK(b->devices_known);
        CHECK_INT(b->n_devices, 5);
        CHECK(!a->devices_known);   /* "a *:* rwm": not constrained */
        CHECK(!c->devices_known);   /* no devices.list */
        uint32_t rdma = 0;
        CHECK(pna_slurm_job_rdma(b, &rdma));
        CHECK_INT(rdma, 2);         /* uverbs 192 and 193; 231:0 is umad0 */
        CHECK(!pna_slurm_job_rdma(a, &rdma));
        /* the job directory's change time: made just now, by this test */
        time_t now = time(NULL);
        CHECK(b->start_s > now - 600 && b->start_s <= now + 1);
    }
    free(s.jobs);
}

static void test_v2_tree(const char *sys, const char *proc)
{
    const char *scope = "fs/cgroup/system.slice/n1_slurmstepd.scope";
    char rel[512];
    tt_write(sys, "fs/cgroup/cgroup.controllers", "cpuset cpu io memory pids\n");
    snprintf(rel, sizeof rel, "%s/system/cgroup.procs", scope);
    tt_write(sys, rel, "301\n");
    snprintf(rel, sizeof rel, "%s/job_77/memory.current", scope);
    tt_write(sys, rel, "52428800\n");
    snprintf(rel, sizeof rel, "%s/job_77/memory.max", scope);
    tt_write(sys, rel, "max\n");
    snprintf(rel, sizeof rel, "%s/job_77/step_batch/slurm/cgroup.procs", scope);
    tt_write(sys, rel, "310\n");
    snprintf(rel, sizeof rel, "%s/job_77/step_batch/user/task_0/cgroup.procs", scope);
    tt_write(sys, rel, "311\n312\n");
    snprintf(rel, sizeof rel, "%s/job_77/step_0/user/task_0/cgroup.procs", scope);
    tt_write(sys, rel, "");
    snprintf(rel, sizeof rel, "%s/job_12345678901/memory.current", scope);
    tt_write(sys, rel, "1\n");
    /* the plain scope name, at the top */
    tt_write(sys, "fs/cgroup/slurmstepd.scope/job_78/memory.current", "4096\n");
    tt_write(sys, "fs/cgroup/slurmstepd.scope/job_78/memory.max", "1073741824\n");
    /* the task's process: /proc/311, owned by this test's user */
    tt_write(proc, "311/status", "Name:\tpython3\n");

    struct pna_roots roots = { sys, proc, "/dev", "/" };
    CHECK(pna_slurm_present(&roots, "fs/cgroup"));
    struct pna_slurm_snap s = { 0 };
    char err[256] = "";
    CHECK_INT(pna_slurm_read(&roots, "fs/cgroup", &s, err, sizeof err), 0);
    CHECK_INT(s.layout, PNA_SLURM_LAYOUT_V2);
    CHECK_INT(s.count, 2);
    CHECK_U64(s.rejected, 1);
    CHECK(strstr(err, "job_12345678901: bad job id") != NULL);
    if (s.count == 2) {
        const struct pna_slurm_job *j = &s.jobs[0];
        CHECK_INT(j->job_id, 77);
        CHECK_INT(j->steps, 2);
        CHECK(j->has_uid);
        CHECK_INT(j->uid, getuid());
        CHECK_U64(j->mem_usage_bytes, 52428800);
        CHECK(!j->has_mem_limit);
        CHECK(!j->devices_known);   /* v2: an eBPF program, not a list */
        CHECK_INT(s.jobs[1].job_id, 78);
        CHECK(!s.jobs[1].has_uid);  /* no task, no process: no user */
        CHECK_U64(s.jobs[1].mem_limit_bytes, 1073741824);
    }
    free(s.jobs);
}

static void test_user_name(void)
{
    struct passwd *pw = getpwuid(0);
    char name[64];
    CHECK_INT(pna_slurm_user_name(0, name, sizeof name), pw != NULL);
    if (pw)
        CHECK_STR(name, pw->pw_name);
    /* a uid the passwd database has no name for */
    if (!getpwuid(4000000000u)) {
        CHECK(!pna_slurm_user_name(4000000000u, name, sizeof name));
        CHECK_STR(name, "");
    }
}

/* ---- the poller and its events ---------------------------------------------------- */

static struct pna_event ended[8];
static size_t n_ended;

static void keep_event(const struct pna_event *ev, void *arg)
{
    (void)arg;
    if (n_ended < sizeof ended / sizeof ended[0])
        ended[n_ended++] = *ev;
}

static void poll_once(void *state)
{
    struct pna_snap *out = NULL;
    char err[256] = "";
    CHECK_INT(pna_poller_collect(&pna_slurm_poller, state, &out, err, sizeof err), 0);
    CHECK(out != NULL);
    if (out)
        pna_cache_publish(PNA_DOM_SLURM, out);
}

static void test_poller(const char *sys)
{
    struct pna_config cfg;
    pna_config_defaults(&cfg);
    cfg.roots.sysfs = sys;
    struct pna_slurm_settings set;
    pna_config_poller_defaults(&pna_slurm_poller, &set);
    CHECK_STR(set.cgroup_root, "fs/cgroup");
    void *state = NULL;
    char err[256] = "";
    CHECK_INT(pna_slurm_poller.init(&state, &cfg, &set, err, sizeof err), 0);
    CHECK_INT(pna_events_init(16), 0);
    poll_once(state);
    pna_events_drain(keep_event, NULL);
    CHECK_INT(n_ended, 0);   /* the first poll ends nothing */

    char dir[PATH_MAX + 64];
    snprintf(dir, sizeof dir, "%s/fs/cgroup/memory/slurm_n1/uid_1000/job_43", sys);
    tt_rmrf(dir);
    poll_once(state);
    pna_events_drain(keep_event, NULL);
    CHECK_INT(n_ended, 1);
    if (n_ended == 1) {
        CHECK_INT(ended[0].type, PNA_EV_SLURM_JOB_END);
        CHECK_INT(ended[0].u.slurm_job.job_id, 43);
        CHECK_INT(ended[0].u.slurm_job.uid, 1000);
        CHECK_STR(ended[0].subject, "slurm job 43");
    }
    poll_once(state);
    pna_events_drain(keep_event, NULL);
    CHECK_INT(n_ended, 1);   /* said once */

    struct pna_view v;
    pna_view_take(&v, PNA_VIEW_DOMAIN(PNA_DOM_SLURM));
    const struct pna_slurm_snap *s = pna_view_snap(&v, PNA_DOM_SLURM);
    CHECK(s && s->count == 2);
    if (s && s->count == 2) {
        struct passwd *pw = getpwuid(0);
        CHECK_STR(s->jobs[0].user, pw ? pw->pw_name : "");
    }
    pna_view_release(&v);
    pna_slurm_poller.fini(state);
    pna_events_shutdown();
    pna_cache_clear();
}

/* ---- the joins ------------------------------------------------------------------- */

static void destroy_gpu(struct pna_snap *snap)
{
    struct pna_gpu_snap *s = (struct pna_gpu_snap *)snap;
    free(s->gpus);
    free(s->procs);
    free(s->migs);
    free(s->parts);
    free(s);
}

static void test_joins(void)
{
    struct pna_gpu_snap *gs = calloc(1, sizeof *gs);
    CHECK(gs != NULL);
    if (!gs)
        return;
    gs->count = 2;
    gs->gpus = calloc(2, sizeof *gs->gpus);
    gs->gpus[0].index = 0x4e00;
    gs->gpus[0].has_minor = true;
    gs->gpus[0].minor = 3;
    gs->gpus[1].index = 0xc100;
    snprintf(gs->gpus[1].drm_render, sizeof gs->gpus[1].drm_render, "renderD129");
    gs->proc_count = 3;
    gs->procs = calloc(3, sizeof *gs->procs);
    gs->procs[0] = (struct pna_gpu_proc){ .gpu_index = 0x4e00, .pid = 10, .has_instance = true,
                                          .gpu_instance = 3, .compute_instance = 1 };
    snprintf(gs->procs[0].cgroup, sizeof gs->procs[0].cgroup,
             "/system.slice/n1_slurmstepd.scope/job_90/step_0/user/task_0");
    gs->procs[1] = (struct pna_gpu_proc){ .gpu_index = 0x4e00, .pid = 11 };
    snprintf(gs->procs[1].cgroup, sizeof gs->procs[1].cgroup, "/slurm_n1/uid_1/job_abc/step_0");
    gs->procs[2] = (struct pna_gpu_proc){ .gpu_index = 0xc100, .pid = 12 };
    snprintf(gs->procs[2].cgroup, sizeof gs->procs[2].cgroup, "/user.slice");
    gs->mig_count = 1;
    gs->migs = calloc(1, sizeof *gs->migs);
    gs->migs[0] = (struct pna_gpu_mig){ .gpu_index = 0x4e00, .gpu_instance = 3,
                                        .compute_instance = 1 };
    gs->part_count = 1;
    gs->parts = calloc(1, sizeof *gs->parts);
    gs->parts[0] = (struct pna_gpu_partition){ .gpu_index = 0xc100, .has_render = true,
                                               .render_minor = 130 };
    pna_snap_init(&gs->base, destroy_gpu);
    pna_cache_publish(PNA_DOM_GPU, &gs->base);

    struct pna_slurm_snap *ss = calloc(1, sizeof *ss);
    struct pna_slurm_job *a = pna_slurm_add(ss), *b = pna_slurm_add(ss);
    a->job_id = 95;   /* allowed the AMD GPU's render node and the partition's */
    a->devices_known = true;
    a->n_devices = 2;
    a->devices[0] = (struct pna_slurm_device){ 'c', 226, 129 };
    a->devices[1] = (struct pna_slurm_device){ 'c', 226, 130 };
    b->job_id = 90;   /* its process on the H100's MIG device */
    pna_slurm_sort(ss);
    pna_snap_init(&ss->base, (void (*)(struct pna_snap *))pna_slurm_snap_free);
    pna_cache_publish(PNA_DOM_SLURM, &ss->base);

    struct pna_view v;
    pna_view_take(&v, PNA_VIEW_DOMAIN(PNA_DOM_GPU) | PNA_VIEW_DOMAIN(PNA_DOM_SLURM));
    const struct pna_gpu_snap *g = pna_view_snap(&v, PNA_DOM_GPU);
    const struct pna_slurm_snap *s = pna_view_snap(&v, PNA_DOM_SLURM);
    CHECK_INT(pna_slurm_gpu_job(&v, &g->gpus[0]), 90);
    CHECK_INT(pna_slurm_gpu_job(&v, &g->gpus[1]), 95);
    CHECK_INT(pna_slurm_mig_job(&v, &g->migs[0]), 90);
    CHECK_INT(pna_slurm_partition_job(&v, &g->parts[0]), 95);
    CHECK_INT(s->jobs[0].job_id, 90);
    CHECK_INT(pna_slurm_job_gpus(&v, &s->jobs[0]), 1);
    CHECK_INT(pna_slurm_job_migs(&v, &s->jobs[0]), 1);
    CHECK_INT(pna_slurm_job_gpus(&v, &s->jobs[1]), 1);
    CHECK_INT(pna_slurm_job_migs(&v, &s->jobs[1]), 0);
    uint32_t jobs[PNA_SLURM_HOLDERS_MAX];
    CHECK_INT(pna_slurm_gpu_jobs(&v, &g->gpus[0], jobs), 1);   /* job_abc is no job */
    pna_view_release(&v);
    pna_cache_clear();
}

/* Open NAME (a node made with mknod under DIR) O_PATH; -1 when it cannot be
 * made (not root). */
static int node_fd(const char *dir, const char *name, unsigned ma, unsigned mi)
{
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path)
        return -1;
    if (mknod(path, S_IFCHR | 0600, makedev(ma, mi)) != 0)
        return -1;
    return open(path, O_PATH | O_CLOEXEC);
}

static void test_opened(void)
{
    char job[sizeof tmp + 32], dev[sizeof tmp + 32], line[32];
    snprintf(job, sizeof job, "%s/opened/job_7", tmp);
    snprintf(dev, sizeof dev, "%s/opened", tmp);
    snprintf(line, sizeof line, "%d\n", (int)getpid());
    tt_write(job, "step_0/task_0/cgroup.procs", line);
    int uv = node_fd(dev, "uverbs3", 231, 195), gpu = node_fd(dev, "nvidia2", 195, 2);
    int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (uv < 0 || gpu < 0) {
        printf("# SKIP the open-devices read: mknod refused (%s)\n", strerror(errno));
        return;
    }
    struct pna_roots roots = { "/sys", "/proc", "/dev", "/" };
    struct pna_slurm_job j = { .job_id = 7 };
    struct pna_slurm_fd_stats st = { 0 };
    pna_slurm_read_opened(&roots, job, &j, &st);
    CHECK(j.opened_known);
    CHECK_INT(st.pids, 1);
    CHECK_INT(j.n_opened, 2);
    CHECK(pna_slurm_job_allows(&j, 231, 195));
    CHECK(pna_slurm_job_allows(&j, 195, 2));
    CHECK(!pna_slurm_job_allows(&j, 1, 3));   /* /dev/null: no device of interest */
    uint32_t u[4];
    CHECK_INT(pna_slurm_job_uverbs(&j, u, 4), 1);
    CHECK_INT(u[0], 3);
    uint32_t n = 0;
    CHECK(pna_slurm_job_rdma(&j, &n) && n == 1);

    /* The join: mlx5_3's verbs node is uverbs3, so job 7 uses it; mlx5_0's is not. */
    struct pna_slurm_snap *ss = calloc(1, sizeof *ss);
    *pna_slurm_add(ss) = j;
    pna_snap_init(&ss->base, (void (*)(struct pna_snap *))pna_slurm_snap_free);
    pna_cache_publish(PNA_DOM_SLURM, &ss->base);
    struct pna_ib_device d3 = { .name = "mlx5_3", .has_uverbs = true, .uverbs = 3 };
    struct pna_ib_device d0 = { .name = "mlx5_0", .has_uverbs = true, .uverbs = 0 };
    struct pna_view v;
    pna_view_take(&v, PNA_VIEW_DOMAIN(PNA_DOM_SLURM));
    CHECK_INT(pna_slurm_rdma_job(&v, &d3), 7);
    CHECK_INT(pna_slurm_rdma_job(&v, &d0), 0);
    pna_view_release(&v);
    pna_cache_clear();
    close(uv);
    close(gpu);
    close(null);
}

int main(void)
{
    test_paths();
    test_devices();
    test_user_name();
    CHECK(mkdtemp(tmp) != NULL);
    char v1[PATH_MAX], v2[PATH_MAX], proc[PATH_MAX];
    snprintf(v1, sizeof v1, "%s/v1", tmp);
    snprintf(v2, sizeof v2, "%s/v2", tmp);
    snprintf(proc, sizeof proc, "%s/proc", tmp);
    test_v1_tree(v1);
    test_v2_tree(v2, proc);
    test_poller(v1);
    test_joins();
    test_opened();
    tt_rmrf(tmp);
    UNIT_END();
}
