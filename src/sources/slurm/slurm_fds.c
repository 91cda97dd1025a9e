/* sources/slurm/slurm_fds.c -- see slurm_fds.h. */
#include "pna_autoconf.h"
#include "sources/slurm/slurm_fds.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "util/fileio.h"

/* cgroup.procs of one cgroup: a pid per line; a job's step is a few
 * hundred processes at most. */
#define PROCS_MAX 65536

struct opened_read {
    const struct pna_roots *roots;
    struct pna_slurm_job *job;
    struct pna_slurm_fd_stats *st;
    unsigned pids;
    char *procs;                 /* PROCS_MAX bytes of scratch */
};

/* Majors of the nodes kept (the kernel's devices.txt; NVIDIA's is fixed by
 * its driver): the GPU's /dev/nvidiaN, DRM render nodes, InfiniBand uverbs. */
static bool device_of_interest(dev_t rdev)
{
    unsigned ma = major(rdev), mi = minor(rdev);
    return (ma == PNA_SLURM_NVIDIA_MAJOR && mi < 255) ||
           (ma == PNA_SLURM_DRM_MAJOR && mi >= 128) ||
           (ma == PNA_SLURM_INFINIBAND_MAJOR && mi >= PNA_SLURM_UVERBS_FIRST_MINOR);
}

static void keep_device(struct pna_slurm_job *job, dev_t rdev)
{
    struct pna_slurm_device d = { 'c', major(rdev), (int32_t)minor(rdev) };
    for (size_t i = 0; i < job->n_opened; i++)
        if (job->opened[i].major == d.major && job->opened[i].minor == d.minor)
            return;
    if (job->n_opened < PNA_SLURM_MAX_DEVICES)
        job->opened[job->n_opened++] = d;
}

/* The descriptors of process PID. */
static void read_process(struct opened_read *r, unsigned pid)
{
    char path[600];
    if (pna_path(path, sizeof path, r->roots->procfs, "/%u/fd", pid) != 0)
        return;
    int dfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
    if (!d) {
        if (errno == EACCES || errno == EPERM)
            r->st->denied++;
        if (dfd >= 0)
            close(dfd);
        return;   /* ENOENT: the process ended since cgroup.procs was read */
    }
    r->st->pids++;
    r->job->opened_known = true;
    unsigned n = 0;
    const struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        if (++n > PNA_SLURM_FD_MAX_FDS) {
            r->st->capped++;
            break;
        }
        struct stat st;
        /* follows the link: the open file's own inode */
        if (fstatat(dirfd(d), e->d_name, &st, 0) == 0 && S_ISCHR(st.st_mode) &&
            device_of_interest(st.st_rdev))
            keep_device(r->job, st.st_rdev);
    }
    closedir(d);
}

static void read_procs(struct opened_read *r, const char *dir)
{
    char path[1100];
    if (snprintf(path, sizeof path, "%s/cgroup.procs", dir) >= (int)sizeof path ||
        pna_read_text(path, r->procs, PROCS_MAX) < 0)
        return;
    for (char *line = r->procs, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        uint64_t pid;
        if (pna_parse_u64(line, &pid) != 0 || pid == 0 || pid > 0x7fffffff)
            continue;
        if (r->pids++ >= PNA_SLURM_FD_MAX_PIDS) {
            r->st->capped++;
            return;
        }
        read_process(r, (unsigned)pid);
    }
}

/* DIR's processes, then its child cgroups' to DEPTH. */
static void read_cgroup(struct opened_read *r, const char *dir, int depth)
{
    read_procs(r, dir);
    if (depth >= PNA_SLURM_FD_MAX_DEPTH)
        return;
    DIR *d = opendir(dir);
    if (!d)
        return;
    const struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        char child[1100];
        if (e->d_name[0] == '.' || (e->d_type != DT_DIR && e->d_type != DT_UNKNOWN) ||
            snprintf(child, sizeof child, "%s/%s", dir, e->d_name) >= (int)sizeof child)
            continue;
        struct stat st;
        if (e->d_type == DT_UNKNOWN && (lstat(child, &st) != 0 || !S_ISDIR(st.st_mode)))
            continue;
        read_cgroup(r, child, depth + 1);
    }
    closedir(d);
}

void pna_slurm_read_opened(const struct pna_roots *roots, const char *job_dir,
                           struct pna_slurm_job *job, struct pna_slurm_fd_stats *st)
{
    struct opened_read r = { roots, job, st, 0, malloc(PROCS_MAX) };
    if (!r.procs)
        return;
    read_cgroup(&r, job_dir, 0);
    free(r.procs);
}
