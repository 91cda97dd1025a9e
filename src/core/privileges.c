/* core/privileges.c -- drop the capabilities the agent does not need (see
 * privileges.h).  Raw capget/capset, so the agent needs no libcap.
 *
 * Kept, and why:
 *   CAP_DAC_READ_SEARCH  containerd's task bundles are root-only directories
 *   CAP_SYS_PTRACE       /proc/<pid> of container processes where /proc is
 *                        mounted with hidepid
 *   CAP_NET_BIND_SERVICE the HTTP bridge binds after the drop (a port < 1024)
 *   CAP_NET_ADMIN        only while pluggable modules are read: the kernel asks
 *                        it of ETHTOOL_MSG_MODULE_EEPROM_GET (reading a
 *                        module's EEPROM goes over its I2C bus); the agent
 *                        sends no other request that needs it
 * Everything else (DAC_OVERRIDE, SYS_ADMIN, NET_RAW, SETUID, KILL,
 * SYS_MODULE...) goes.  The AgentX socket snmpd makes is root's (agentXPerms
 * sets its group and mode), so reconnecting needs no override. */
#include "pna_autoconf.h"
#include "core/privileges.h"

#include <errno.h>
#include <stdbool.h>
#include <linux/capability.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static const int kept_caps[] = { CAP_DAC_READ_SEARCH, CAP_NET_BIND_SERVICE, CAP_SYS_PTRACE };

static uint64_t kept_mask(bool module_reads)
{
    uint64_t m = module_reads ? UINT64_C(1) << CAP_NET_ADMIN : 0;
    for (size_t i = 0; i < sizeof kept_caps / sizeof kept_caps[0]; i++)
        m |= UINT64_C(1) << kept_caps[i];
    return m;
}

/* The highest capability number this kernel knows. */
static int last_cap(void)
{
    int cap = CAP_LAST_CAP;
    FILE *f = fopen("/proc/sys/kernel/cap_last_cap", "r");
    if (f) {
        if (fscanf(f, "%d", &cap) != 1)
            cap = CAP_LAST_CAP;
        fclose(f);
    }
    return cap < 63 ? cap : 63;
}

static int get_caps(struct __user_cap_data_struct data[2])
{
    struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
    return (int)syscall(SYS_capget, &hdr, data);
}

static int set_caps(uint64_t effective, uint64_t permitted)
{
    struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
    struct __user_cap_data_struct data[2];
    memset(data, 0, sizeof data);
    data[0].effective = (uint32_t)effective;
    data[1].effective = (uint32_t)(effective >> 32);
    data[0].permitted = (uint32_t)permitted;
    data[1].permitted = (uint32_t)(permitted >> 32);
    return (int)syscall(SYS_capset, &hdr, data);
}

int pna_drop_privileges(bool module_reads, char *why, size_t whylen)
{
    /* Zeroed although capget fills both halves: valgrind's capget marks only
     * the first as written, and the agent started with a narrow bounding set
     * (systemd's CapabilityBoundingSet) then branches on the second. */
    struct __user_cap_data_struct data[2];
    memset(data, 0, sizeof data);
    if (get_caps(data) != 0) {
        snprintf(why, whylen, "capget: %s", strerror(errno));
        return -1;
    }
    uint64_t permitted = ((uint64_t)data[1].permitted << 32) | data[0].permitted;
    uint64_t keep = permitted & kept_mask(module_reads);
    /* The bounding set first: dropping from it needs CAP_SETPCAP, which the
     * capset below gives up.  EINVAL: a capability this kernel lacks. */
    if (permitted & (UINT64_C(1) << CAP_SETPCAP)) {
        int last = last_cap();
        for (int cap = 0; cap <= last; cap++) {
            if (keep & (UINT64_C(1) << cap))
                continue;
            if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno != EINVAL) {
                snprintf(why, whylen, "dropping capability %d from the bounding set: %s", cap,
                         strerror(errno));
                return -1;
            }
        }
    }
    if (permitted != keep && set_caps(keep, keep) != 0) {
        snprintf(why, whylen, "capset: %s", strerror(errno));
        return -1;
    }
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
        snprintf(why, whylen, "no_new_privs: %s", strerror(errno));
        return -1;
    }
    return 0;
}
