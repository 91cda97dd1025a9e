/* fuzz_slurm_cgroup.c -- libFuzzer harness for the Slurm cgroup readers
 * (model/slurm/slurm.c, sources/slurm/slurm_cgroup.c): the input's first line is
 * a cgroup path for the path rule (as /proc/PID/cgroup shows one), all of it
 * a devices.list for its parser, and all of it a tree (fuzz.h's "=== PATH"
 * records) whose sys/fs/cgroup the source walks for jobs.  Checked: a job
 * the rule finds has a non-zero id and a job directory that is a prefix of
 * the path ending at a '/', which the rule reads as the same job with no
 * step; a devices.list gives at most the room it was given; the walk's
 * jobs are sorted, distinct, within PNA_SLURM_MAX_JOBS and named by paths the
 * rule reads as theirs. */
#include "pna_autoconf.h"
#include "model/slurm/slurm.h"
#include "sources/slurm/slurm_cgroup.h"
#include "fuzz.h"

#include <stdlib.h>
#include <string.h>

static void check_path(const char *path)
{
    struct pna_slurm_cgroup cg, job;
    const char *why = NULL;
    int rc = pna_slurm_cgroup_parse(path, &cg, &why);
    if (rc < -1 || rc > 1 || (rc == -1 && !why))
        abort();
    if (rc != 1)
        return;
    size_t len = strlen(path);
    if (!cg.job_id || cg.job_len > len || (path[cg.job_len] != '\0' && path[cg.job_len] != '/'))
        abort();
    char *dir = strndup(path, cg.job_len);
    if (!dir)
        abort();
    if (pna_slurm_cgroup_parse(dir, &job, &why) != 1 || job.job_id != cg.job_id || job.has_step ||
        job.job_len != cg.job_len)
        abort();
    free(dir);
}

static void check_devices(const char *text)
{
    struct pna_slurm_device d[3];
    int n = pna_slurm_parse_devices(text, d, 3);
    if (n < -1 || n > 3)
        abort();
}

static void check_tree(const uint8_t *data, size_t size)
{
    const struct pna_roots *roots = fz_tree_build(data, size);
    struct pna_slurm_snap s = { 0 };
    char err[256];
    (void)pna_slurm_present(roots, "fs/cgroup");
    if (pna_slurm_read(roots, "fs/cgroup", &s, err, sizeof err) == 0) {
        if (s.count > PNA_SLURM_MAX_JOBS)
            abort();
        for (size_t i = 0; i < s.count; i++)
            if ((i && s.jobs[i - 1].job_id >= s.jobs[i].job_id) ||
                pna_slurm_job_of_cgroup(s.jobs[i].cgroup) != s.jobs[i].job_id ||
                s.jobs[i].n_devices > PNA_SLURM_MAX_DEVICES)
                abort();
    }
    free(s.jobs);
    fz_tree_clear();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fz_cstr(data, size);
    check_devices(text);
    text[strcspn(text, "\n")] = '\0';
    check_path(text);
    free(text);
    check_tree(data, size);
    return 0;
}
