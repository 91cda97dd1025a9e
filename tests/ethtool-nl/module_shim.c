/* module_shim.c -- a test preload library: a pluggable module in an
 * interface that has none (a veth), answered from an EEPROM image.
 *
 * No virtual interface reads a module, so an end-to-end test of
 * primusModuleTable and its notifications through the agent, snmpd and the
 * bridge needs a stand-in for the kernel's ETHTOOL_MSG_MODULE_EEPROM_GET.
 * With LD_PRELOAD=libmoduleshim.so and PNA_TEST_MODULE_DIR=DIR, the agent's
 * module EEPROM request for interface IF is answered from DIR/IF.bin, in the
 * layout of tests/fixtures/module/ (page 00h, then the upper halves of pages
 * 01h, 02h, 03h and 11h), read again at every request so that a test changes
 * the module by replacing the file.  The answer is the message the kernel
 * would send (ETHTOOL_MSG_MODULE_EEPROM_GET_REPLY with the header and
 * ETHTOOL_A_MODULE_EEPROM_DATA, the request's sequence number), sent to the
 * agent's socket from a second generic netlink socket of the same process
 * (netlink delivers a unicast between user sockets to a sender with
 * CAP_NET_ADMIN, which the agent keeps for module reads).  A page the image
 * does not have is refused with EINVAL, as the kernel refuses one a module
 * lacks.  Without the file the request goes to the kernel as usual.
 *
 * Never installed; built by make check. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <libmnl/libmnl.h>
#include <limits.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

struct request {
    char ifname[IF_NAMESIZE + 1];
    uint32_t offset, length;
    uint8_t page, bank;
};

static void read_attrs(const struct nlattr *nest, struct request *r);

static int attr_cb(const struct nlattr *a, void *data)
{
    struct request *r = data;
    switch (mnl_attr_get_type(a)) {
    case ETHTOOL_A_MODULE_EEPROM_HEADER: read_attrs(a, r); break;
    case ETHTOOL_A_MODULE_EEPROM_OFFSET: r->offset = mnl_attr_get_u32(a); break;
    case ETHTOOL_A_MODULE_EEPROM_LENGTH: r->length = mnl_attr_get_u32(a); break;
    case ETHTOOL_A_MODULE_EEPROM_PAGE: r->page = mnl_attr_get_u8(a); break;
    case ETHTOOL_A_MODULE_EEPROM_BANK: r->bank = mnl_attr_get_u8(a); break;
    }
    return MNL_CB_OK;
}

static int header_cb(const struct nlattr *a, void *data)
{
    struct request *r = data;
    if (mnl_attr_get_type(a) == ETHTOOL_A_HEADER_DEV_NAME)
        snprintf(r->ifname, sizeof r->ifname, "%s", mnl_attr_get_str(a));
    return MNL_CB_OK;
}

static void read_attrs(const struct nlattr *nest, struct request *r)
{
    mnl_attr_parse_nested(nest, header_cb, r);
}

/* Where page PAGE (bank 0), OFFSET, lies in the image; -1 when not there. */
static long image_offset(const struct request *r)
{
    static const uint8_t pages[] = { 0x01, 0x02, 0x03, 0x11 };
    if (r->offset < 256 && r->page == 0)
        return r->offset;
    if (r->bank != 0 || r->offset < 128)
        return -1;
    for (size_t i = 0; i < sizeof pages; i++)
        if (pages[i] == r->page)
            return 256 + 128 * (long)i + (r->offset - 128);
    return -1;
}

/* The image's LENGTH octets for R into OUT; 0, or -1 when it has none. */
static int image_read(const char *dir, const struct request *r, uint8_t *out)
{
    char path[PATH_MAX];
    long at = image_offset(r);
    if (at < 0 || r->length == 0 || r->length > 128 ||
        snprintf(path, sizeof path, "%s/%s.bin", dir, r->ifname) >= (int)sizeof path)
        return -1;
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    int ok = fseek(f, at, SEEK_SET) == 0 && fread(out, 1, r->length, f) == r->length;
    fclose(f);
    return ok ? 0 : -1;
}

static bool has_image(const char *dir, const char *ifname)
{
    char path[PATH_MAX];
    return snprintf(path, sizeof path, "%s/%s.bin", dir, ifname) < (int)sizeof path &&
           access(path, R_OK) == 0;
}

/* The kernel's answer to REQ: the data, or an NLMSG_ERROR. */
static size_t build_answer(const struct nlmsghdr *req, const struct request *r, const char *dir,
                           char *buf)
{
    uint8_t data[128];
    struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
    nlh->nlmsg_seq = req->nlmsg_seq;
    if (image_read(dir, r, data) != 0) {
        nlh->nlmsg_type = NLMSG_ERROR;
        struct nlmsgerr *e = mnl_nlmsg_put_extra_header(nlh, sizeof *e);
        e->error = -EINVAL;
        e->msg = *req;
        return nlh->nlmsg_len;
    }
    nlh->nlmsg_type = req->nlmsg_type;
    struct genlmsghdr *g = mnl_nlmsg_put_extra_header(nlh, sizeof *g);
    g->cmd = ETHTOOL_MSG_MODULE_EEPROM_GET_REPLY;
    g->version = ETHTOOL_GENL_VERSION;
    struct nlattr *hdr = mnl_attr_nest_start(nlh, ETHTOOL_A_MODULE_EEPROM_HEADER);
    mnl_attr_put_strz(nlh, ETHTOOL_A_HEADER_DEV_NAME, r->ifname);
    mnl_attr_nest_end(nlh, hdr);
    mnl_attr_put(nlh, ETHTOOL_A_MODULE_EEPROM_DATA, r->length, data);
    return nlh->nlmsg_len;
}

/* The socket the answers come from, and its port (one poller thread asks). */
static int sender_fd = -1;
static uint32_t sender_port;

static int open_sender(void)
{
    if (sender_fd >= 0)
        return 0;
    int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
    struct sockaddr_nl me = { .nl_family = AF_NETLINK };
    socklen_t len = sizeof me;
    if (fd < 0 || bind(fd, (struct sockaddr *)&me, sizeof me) != 0 ||
        getsockname(fd, (struct sockaddr *)&me, &len) != 0) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    sender_fd = fd;
    sender_port = me.nl_pid;
    return 0;
}

/* Send MSG to the agent's socket NL, as the kernel's answer to it. */
static ssize_t deliver(const struct mnl_socket *nl, char *msg, size_t len)
{
    if (open_sender() != 0)
        return -1;
    struct sockaddr_nl to = { .nl_family = AF_NETLINK, .nl_pid = mnl_socket_get_portid(nl) };
    ((struct nlmsghdr *)msg)->nlmsg_pid = to.nl_pid;
    ssize_t rc = sendto(sender_fd, msg, len, 0, (struct sockaddr *)&to, sizeof to);
    if (rc < 0)
        fprintf(stderr, "module shim: answering port %u: %s\n", (unsigned)to.nl_pid,
                strerror(errno));
    return rc;
}

EXPORT ssize_t recvmsg(int fd, struct msghdr *mh, int flags)
{
    static ssize_t (*real)(int, struct msghdr *, int);
    if (!real)
        real = (ssize_t(*)(int, struct msghdr *, int))dlsym(RTLD_NEXT, "recvmsg");
    if (!real)
        abort();
    ssize_t got = real(fd, mh, flags);
    struct sockaddr_nl *from = mh ? mh->msg_name : NULL;
    if (got >= 0 && from && mh->msg_namelen >= sizeof *from && from->nl_family == AF_NETLINK &&
        sender_fd >= 0 && from->nl_pid == sender_port)
        from->nl_pid = 0;
    return got;
}

EXPORT ssize_t mnl_socket_sendto(const struct mnl_socket *nl, const void *buf, size_t len)
{
    static ssize_t (*real)(const struct mnl_socket *, const void *, size_t);
    if (!real)
        real = (ssize_t(*)(const struct mnl_socket *, const void *, size_t))dlsym(
            RTLD_NEXT, "mnl_socket_sendto");
    if (!real)
        abort();
    const char *dir = getenv("PNA_TEST_MODULE_DIR");
    const struct nlmsghdr *nlh = buf;
    if (!dir || len < NLMSG_HDRLEN + GENL_HDRLEN || nlh->nlmsg_type <= GENL_ID_CTRL ||
        !mnl_nlmsg_ok(nlh, (int)len))
        return real(nl, buf, len);
    const struct genlmsghdr *g = mnl_nlmsg_get_payload(nlh);
    if (g->cmd != ETHTOOL_MSG_MODULE_EEPROM_GET)
        return real(nl, buf, len);
    struct request r = { .page = 0 };
    mnl_attr_parse(nlh, sizeof *g, attr_cb, &r);
    if (!r.ifname[0] || !has_image(dir, r.ifname))
        return real(nl, buf, len);
    static char answer[8192];   /* one page of data and its headers fit many times over */
    memset(answer, 0, sizeof answer);
    size_t n = build_answer(nlh, &r, dir, answer);
    return deliver(nl, answer, n) < 0 ? -1 : (ssize_t)len;
}
