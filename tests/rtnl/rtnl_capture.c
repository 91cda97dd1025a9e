/* rtnl_capture.c -- records the rtnetlink link messages the kernel sends
 * about one interface, as the link watcher receives them, for the fixtures
 * of tests/fixtures/rtnl/ (see its README.md).
 *
 *   rtnl_capture IFNAME DIR COUNT          the next COUNT RTM_NEWLINK /
 *                                          RTM_DELLINK notifications about
 *                                          IFNAME (group RTNLGRP_LINK)
 *   rtnl_capture --dump IFNAME DIR         IFNAME's message in the answer to
 *                                          an RTM_GETLINK dump
 *
 * Each message is written as it arrived, one file per message:
 * DIR/<kind>-<n>-carrier<0|1>.bin (kind "newlink", "dellink" or "dump"; the
 * carrier as the parser reads it, so a file's name says what the test
 * expects).  Prints "ready" on stdout once subscribed, so a script can change
 * the link after it.  Plain sockets: built with or without libmnl. */
#include "pna_autoconf.h"
#include "sources/rdma/rtnl_link.h"

#include <errno.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int open_socket(unsigned groups)
{
    int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
    struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = groups };
    if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
        perror("rtnl_capture: netlink socket");
        exit(1);
    }
    return fd;
}

static void request_dump(int fd)
{
    struct {
        struct nlmsghdr nh;
        struct rtgenmsg g;
    } req = { .nh = { .nlmsg_len = sizeof req, .nlmsg_type = RTM_GETLINK,
                      .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP, .nlmsg_seq = 1 },
              .g = { .rtgen_family = AF_UNSPEC } };
    if (send(fd, &req, sizeof req, 0) < 0) {
        perror("rtnl_capture: send");
        exit(1);
    }
}

static void save(const char *dir, const char *kind, unsigned n, const struct pna_rtnl_link *l,
                 const void *msg, size_t len)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s-%u-carrier%d.bin", dir, kind, n, l->carrier ? 1 : 0);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(msg, 1, len, f) != len || fclose(f) != 0) {
        perror(path);
        exit(1);
    }
    printf("%s: %zu octets, flags 0x%x, carrier %d, operstate %u\n", path, len, l->flags,
           l->carrier, l->operstate);
}

/* Save each message of BUF about IFNAME; returns how many.  Sets *DONE at
 * NLMSG_DONE. */
static unsigned take(const char *ifname, const char *dir, const char *kind, unsigned first,
                     const unsigned char *buf, size_t len, int *done)
{
    unsigned saved = 0;
    size_t off = 0;
    while (off < len) {
        struct nlmsghdr nh;
        memcpy(&nh, buf + off, sizeof nh);
        if (nh.nlmsg_type == NLMSG_DONE)
            *done = 1;
        struct pna_rtnl_link l;
        long used = pna_rtnl_link_parse(buf + off, len - off, &l);
        if (used <= 0) {
            fprintf(stderr, "rtnl_capture: %s\n", l.error);
            exit(1);
        }
        if (l.ifindex > 0 && strcmp(l.ifname, ifname) == 0) {
            const char *k = kind ? kind : l.deleted ? "dellink" : "newlink";
            save(dir, k, first + saved, &l, buf + off, nh.nlmsg_len);
            saved++;
        }
        off += (size_t)used;
    }
    return saved;
}

int main(int argc, char **argv)
{
    static unsigned char buf[65536];
    int dump = argc == 4 && strcmp(argv[1], "--dump") == 0;
    if (!dump && argc != 4) {
        fprintf(stderr, "usage: rtnl_capture IFNAME DIR COUNT | --dump IFNAME DIR\n");
        return 2;
    }
    const char *ifname = argv[dump ? 2 : 1], *dir = argv[dump ? 3 : 2];
    unsigned want = dump ? 1 : (unsigned)strtoul(argv[3], NULL, 10);
    int fd = open_socket(dump ? 0 : RTMGRP_LINK);
    if (dump)
        request_dump(fd);
    printf("ready\n");
    fflush(stdout);
    unsigned got = 0;
    int done = 0;
    while (got < want && !done) {
        ssize_t n = recv(fd, buf, sizeof buf, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            perror("rtnl_capture: recv");
            return 1;
        }
        got += take(ifname, dir, dump ? "dump" : NULL, got, buf, (size_t)n, &done);
        fflush(stdout);
    }
    close(fd);
    return got >= want ? 0 : 1;
}
