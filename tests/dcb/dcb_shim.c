/* dcb_shim.c -- a test preload library: the kernel's DCB netlink answers for
 * interfaces that have none (a veth), taken from recorded or built replies.
 *
 * No virtual interface answers DCB_CMD_IEEE_GET, so an end-to-end test of the
 * lossless-RoCE verdicts through the agent, snmpd and the bridge needs a
 * stand-in for the kernel.  With LD_PRELOAD=libdcbshim.so and
 * PNA_TEST_DCB_DIR=DIR, an RTM_GETDCB request of the agent for interface IF is
 * answered from DIR/IF.bin (the messages a recording holds, as
 * tests/fixtures/dcb/ has them; re-read at each request, so a test changes
 * the configuration by replacing the file): the messages whose DCB command is
 * the request's, with the request's sequence number.  Without that file the
 * request goes to the kernel as usual.  Everything but mnl_socket_sendto and
 * mnl_socket_recvfrom is libmnl's own, and so is every other message.
 *
 * Never installed; built by make check. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <libmnl/libmnl.h>
#include <limits.h>
#include <net/if.h>
#include <linux/dcbnl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#define EXPORT __attribute__((visibility("default")))

/* The request waiting for its answer (one at a time: the agent asks and then
 * reads, on one thread per socket). */
static __thread struct {
    const struct mnl_socket *nl;
    uint32_t seq;
    uint8_t cmd;
    char ifname[IF_NAMESIZE + 1];
} pending;

/* IF's recording, or NULL; *LEN its size. */
static char *recording(const char *ifname, size_t *len)
{
    const char *dir = getenv("PNA_TEST_DCB_DIR");
    char path[PATH_MAX];
    if (!dir || snprintf(path, sizeof path, "%s/%s.bin", dir, ifname) >= (int)sizeof path)
        return NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = malloc(65536);
    *len = buf ? fread(buf, 1, 65536, f) : 0;
    fclose(f);
    return buf;
}

/* The interface a DCB request names (DCB_ATTR_IFNAME), into OUT. */
static int request_ifname(const struct nlmsghdr *nlh, char *out, size_t cap)
{
    size_t at = NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(struct dcbmsg));
    while (at + sizeof(struct nlattr) <= nlh->nlmsg_len) {
        const struct nlattr *a = (const struct nlattr *)((const char *)nlh + at);
        if (a->nla_len < sizeof *a || at + a->nla_len > nlh->nlmsg_len)
            return -1;
        if ((a->nla_type & NLA_TYPE_MASK) == DCB_ATTR_IFNAME) {
            snprintf(out, cap, "%.*s", (int)(a->nla_len - sizeof *a), (const char *)(a + 1));
            return 0;
        }
        at += NLA_ALIGN(a->nla_len);
    }
    return -1;
}

EXPORT ssize_t mnl_socket_sendto(const struct mnl_socket *nl, const void *buf, size_t len)
{
    static ssize_t (*real)(const struct mnl_socket *, const void *, size_t);
    if (!real)
        real = (ssize_t(*)(const struct mnl_socket *, const void *, size_t))dlsym(RTLD_NEXT, __func__);
    const struct nlmsghdr *nlh = buf;
    if (len >= NLMSG_HDRLEN + sizeof(struct dcbmsg) && nlh->nlmsg_type == RTM_GETDCB) {
        const struct dcbmsg *dm = (const void *)((const char *)buf + NLMSG_HDRLEN);
        char ifname[IF_NAMESIZE + 1];
        size_t n;
        char *rec;
        if (request_ifname(nlh, ifname, sizeof ifname) == 0 && (rec = recording(ifname, &n))) {
            free(rec);
            pending.nl = nl;
            pending.seq = nlh->nlmsg_seq;
            pending.cmd = dm->cmd;
            snprintf(pending.ifname, sizeof pending.ifname, "%s", ifname);
            return (ssize_t)len;
        }
    }
    return real(nl, buf, len);
}

/* The DCB command a recorded message answers: its own, or the refused
 * request's that an NLMSG_ERROR carries. */
static int answers(const struct nlmsghdr *m)
{
    const char *p = (const char *)m + NLMSG_HDRLEN;
    if (m->nlmsg_type == NLMSG_ERROR &&
        m->nlmsg_len >= NLMSG_HDRLEN + sizeof(struct nlmsgerr) + sizeof(struct dcbmsg))
        return ((const struct dcbmsg *)(p + sizeof(struct nlmsgerr)))->cmd;
    if (m->nlmsg_type == RTM_GETDCB && m->nlmsg_len >= NLMSG_HDRLEN + sizeof(struct dcbmsg))
        return ((const struct dcbmsg *)p)->cmd;
    return -1;
}

/* Copy the messages of REC that answer the pending command into OUT. */
static size_t answer(const char *rec, size_t len, char *out, size_t cap)
{
    size_t used = 0;
    for (size_t at = 0; at + NLMSG_HDRLEN <= len;) {
        const struct nlmsghdr *m = (const struct nlmsghdr *)(rec + at);
        size_t mlen = m->nlmsg_len;
        if (mlen < NLMSG_HDRLEN || at + mlen > len)
            break;
        if (answers(m) == pending.cmd && used + mlen <= cap) {
            memcpy(out + used, m, mlen);
            ((struct nlmsghdr *)(out + used))->nlmsg_seq = pending.seq;
            used += NLMSG_ALIGN(mlen) <= cap - used ? NLMSG_ALIGN(mlen) : mlen;
        }
        at += NLMSG_ALIGN(mlen);
    }
    return used;
}

EXPORT ssize_t mnl_socket_recvfrom(const struct mnl_socket *nl, void *buf, size_t bufsiz)
{
    static ssize_t (*real)(const struct mnl_socket *, void *, size_t);
    if (!real)
        real = (ssize_t(*)(const struct mnl_socket *, void *, size_t))dlsym(RTLD_NEXT, __func__);
    if (!pending.nl || pending.nl != nl)
        return real(nl, buf, bufsiz);
    pending.nl = NULL;
    size_t len;
    char *rec = recording(pending.ifname, &len);
    size_t n = rec ? answer(rec, len, buf, bufsiz) : 0;
    free(rec);
    return (ssize_t)n;
}
