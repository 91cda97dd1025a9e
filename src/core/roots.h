/* core/roots.h -- the directories every collector reads under.
 *
 * Nothing in the agent opens an absolute host path directly: it joins one of these
 * roots with the kernel's usual relative path (see pna_path()).  In a container
 * that mounts the host at /host they are /host/sys, /host/proc...; in tests they
 * point at fixture trees. */
#ifndef PNA_ROOTS_H
#define PNA_ROOTS_H

struct pna_roots {
    const char *sysfs;  /* default "/sys" */
    const char *procfs; /* default "/proc" */
    const char *devfs;  /* default "/dev" */
    const char *rootfs; /* default "/": /etc/os-release, /run, /var/lib... */
};

#define PNA_ROOTS_DEFAULT { "/sys", "/proc", "/dev", "/" }

#endif
