/* ethnl_shim.c -- a test preload library: a kernel that refuses
 * ETHTOOL_FLAG_STATS on ETHTOOL_MSG_LINKSTATE_GET, as Linux 5.10 to 6.1 do
 * (their LINKSTATE header policy predates the link down counter of 6.2 and
 * answers the flag with EINVAL, "reserved bit set").  Debian 12 runs 6.1,
 * and this machine's kernel accepts the flag, so the reader's retry without
 * it (sources/phy/ethtool_nl.c, ask()) needs a stand-in to be tested.
 *
 * With LD_PRELOAD=libethnlshim.so, mnl_socket_sendto() looks at each
 * generic netlink request: a LINKSTATE_GET (command 6, not the controller)
 * whose header (attribute 1) has ETHTOOL_A_HEADER_FLAGS with the STATS bit
 * (4) goes to the kernel with bit 3 (8) in its place, which every kernel's
 * policy refuses the same way; the kernel's own EINVAL comes back.  Each
 * rewrite appends one line to the file PNA_TEST_ETHNL_LOG names, when set.
 * Every other message goes out unchanged.
 *
 * Never installed; built by make check. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#define EXPORT __attribute__((visibility("default")))

#define LINKSTATE_GET 6
#define HEADER_ATTR 1
#define HEADER_FLAGS 3
#define FLAG_STATS 4u
#define FLAG_RESERVED 8u

static uint16_t rd16(const uint8_t *p)
{
    uint16_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* The offset of the header's FLAGS payload in MSG (LEN octets), or 0. */
static size_t flags_at(const uint8_t *msg, size_t len)
{
    size_t at = NLMSG_HDRLEN + GENL_HDRLEN;
    while (at + 4 <= len) {
        size_t alen = rd16(msg + at);
        if (alen < 4 || alen > len - at)
            return 0;
        if ((rd16(msg + at + 2) & NLA_TYPE_MASK) == HEADER_ATTR) {
            size_t in = at + 4, end = at + alen;
            while (in + 4 <= end) {
                size_t ilen = rd16(msg + in);
                if (ilen < 4 || ilen > end - in)
                    return 0;
                if ((rd16(msg + in + 2) & NLA_TYPE_MASK) == HEADER_FLAGS && ilen == 8)
                    return in + 4;
                in += (ilen + 3) & ~(size_t)3;
            }
            return 0;
        }
        at += (alen + 3) & ~(size_t)3;
    }
    return 0;
}

EXPORT ssize_t mnl_socket_sendto(const struct mnl_socket *nl, const void *buf, size_t len)
{
    static ssize_t (*real)(const struct mnl_socket *, const void *, size_t);
    if (!real)
        real = (ssize_t(*)(const struct mnl_socket *, const void *, size_t))dlsym(
            RTLD_NEXT, "mnl_socket_sendto");
    if (!real)
        abort();
    uint8_t copy[4096];
    const struct nlmsghdr *nlh = buf;
    if (len < NLMSG_HDRLEN + GENL_HDRLEN || len > sizeof copy || nlh->nlmsg_type <= GENL_ID_CTRL)
        return real(nl, buf, len);
    memcpy(copy, buf, len);
    if (copy[NLMSG_HDRLEN] != LINKSTATE_GET)
        return real(nl, buf, len);
    size_t at = flags_at(copy, len);
    uint32_t flags;
    if (!at)
        return real(nl, buf, len);
    memcpy(&flags, copy + at, sizeof flags);
    if (!(flags & FLAG_STATS))
        return real(nl, buf, len);
    flags = (flags & ~FLAG_STATS) | FLAG_RESERVED;
    memcpy(copy + at, &flags, sizeof flags);
    const char *log = getenv("PNA_TEST_ETHNL_LOG");
    FILE *f = log ? fopen(log, "a") : NULL;
    if (f) {
        fprintf(f, "LINKSTATE_GET seq %u: ETHTOOL_FLAG_STATS refused\n", (unsigned)nlh->nlmsg_seq);
        fclose(f);
    }
    return real(nl, copy, len);
}
