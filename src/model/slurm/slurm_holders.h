/* model/slurm/slurm_holders.h -- which Slurm job holds a GPU, a MIG device or an
 * AMD compute partition, and what each job holds: joins of the slurm and
 * gpu snapshots of one view, made at answer time.
 *
 * A job holds a GPU when one of the GPU's processes (the gpu snapshot's,
 * with their cgroups from /proc/PID/cgroup) runs in one of the job's
 * cgroups, or when the job's v1 devices.list (Slurm's ConstrainDevices) lets
 * it open the GPU's device node: /dev/nvidiaN (char 195:N) of an NVIDIA GPU,
 * the render node /dev/dri/renderDN (char 226:N) of an AMD GPU or partition.
 * A MIG device is held through its processes only (its access capability's
 * major number is the driver's, chosen at load).  An RDMA device is a
 * /dev/infiniband/uverbsN (char 231, minors 192 and up) the job's
 * devices.list lets it open. */
#ifndef PNA_MODEL_SLURM_HOLDERS_H
#define PNA_MODEL_SLURM_HOLDERS_H

#include <stdbool.h>
#include <stdint.h>

#include "core/view.h"
#include "model/gpu/gpu.h"
#include "model/slurm/slurm.h"

/* Distinct jobs one GPU row names at most (its holder series). */
#define PNA_SLURM_HOLDERS_MAX 32

/* The jobs holding GPU G in view V (which holds PNA_DOM_GPU and
 * PNA_DOM_SLURM where present), ascending, at most PNA_SLURM_HOLDERS_MAX, into
 * JOBS; returns how many. */
size_t pna_slurm_gpu_jobs(const struct pna_view *v, const struct pna_gpu *g, uint32_t *jobs);

/* The lowest job holding G, M or P; 0 none. */
uint32_t pna_slurm_gpu_job(const struct pna_view *v, const struct pna_gpu *g);
uint32_t pna_slurm_mig_job(const struct pna_view *v, const struct pna_gpu_mig *m);
uint32_t pna_slurm_partition_job(const struct pna_view *v, const struct pna_gpu_partition *p);

/* The Slurm job using RDMA device D (its verbs node open in one of the
 * job's processes, or allowed by a devices.list that constrains): the
 * lowest job id of several, 0 when none. */
struct pna_ib_device;
uint32_t pna_slurm_rdma_job(const struct pna_view *v, const struct pna_ib_device *d);
/* All of them, ascending, at most PNA_SLURM_HOLDERS_MAX, into JOBS; how many. */
size_t pna_slurm_rdma_jobs(const struct pna_view *v, const struct pna_ib_device *d,
                           uint32_t *jobs);

/* What job J holds: GPUs, MIG devices (of the gpu snapshot in V), and RDMA
 * devices (its devices.list; false when the list is not known). */
uint32_t pna_slurm_job_gpus(const struct pna_view *v, const struct pna_slurm_job *j);
uint32_t pna_slurm_job_migs(const struct pna_view *v, const struct pna_slurm_job *j);
bool pna_slurm_job_rdma(const struct pna_slurm_job *j, uint32_t *count);

#endif
