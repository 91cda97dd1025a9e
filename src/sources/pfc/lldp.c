/* sources/pfc/lldp.c -- the LLDP neighbours lldpd knows, read over its
 * control socket with liblldpctl (see lldp.h).
 *
 * What is asked: the interface list, then each interface's port (one request
 * each, as `lldpcli show neighbors` does), and of each port the first
 * neighbour lldpd shows (hidden ones, which lldpd's smart filter keeps out
 * of `lldpcli show neighbors`, are skipped).  No request that changes
 * lldpd is ever sent: no configuration, no subscription.
 *
 * Never hanging the poller thread: liblldpctl does no I/O of its own when it
 * is given callbacks, so the connection is ours, a non-blocking unix socket,
 * and the callbacks wait with poll() for what is left of one deadline set for
 * the whole read (connect, every request, every answer).  An lldpd that
 * accepts and never answers costs TIMEOUT_MS, then the read fails with
 * "lldpd did not answer within N ms".
 *
 * Strings come from whatever sent the LLDP frame: control characters become
 * '?' (pna_copy_display) and long ones are cut at a character boundary.
 *
 * The age: lldpctl_k_port_age is not an age but a time(2) stamp, the moment
 * lldpd last took the neighbour's advertisement as new (first heard, or its
 * content changed); an identical frame only refreshes an internal stamp that
 * liblldpctl does not expose.  age_s is now minus that stamp, what lldpcli
 * prints as "age".  lldpd is on this node, so both clocks are the same one;
 * a stamp in the future (the clock was set back) reads as 0. */
#include "pna_autoconf.h"
#include "sources/pfc/lldp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cache.h"        /* pna_mono_ms() */
#include "model/containers.h" /* pna_copy_display() */
#include "util/array.h"
#include "util/fileio.h"

void pna_lldp_table_free(struct pna_lldp_table *t)
{
    if (!t)
        return;
    free(t->v);
    t->v = NULL;
    t->n = 0;
}

const struct pna_lldp_neighbor *pna_lldp_find(const struct pna_lldp_table *t, const char *ifname)
{
    if (!t || !ifname)
        return NULL;
    size_t lo = 0, hi = t->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(ifname, t->v[mid].ifname);
        if (c == 0)
            return &t->v[mid].n;
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}

#ifndef HAVE_LLDPCTL

int pna_lldp_read(const char *socket_path, int timeout_ms, struct pna_lldp_table *out, char *err,
                  size_t errlen)
{
    (void)socket_path;
    (void)timeout_ms;
    memset(out, 0, sizeof *out);
    snprintf(err, errlen, "built without liblldpctl");
    return -1;
}

#else

#include <errno.h>
#include <lldp-const.h>
#include <lldpctl.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define MAC_LEN 6
#define CONNECT_RETRY_MS 5  /* lldpd's listen backlog is full: try again */

/* The connection under liblldpctl, and how its I/O ended. */
struct lldp_io {
    int fd;                 /* non-blocking unix stream socket */
    int64_t deadline_ms;    /* CLOCK_MONOTONIC, for the whole read */
    bool timed_out;
    bool hung_up;           /* lldpd closed (or reset) the connection */
    int sys_errno;          /* a read or write that failed otherwise, else 0 */
};

/* What one read builds. */
struct lldp_build {
    struct pna_lldp_table *t;
    size_t cap;
    time_t now;
    lldpctl_error_t error;  /* the request that failed, else 0 */
    bool nomem;
};

/* A read or write failed with E: a hang-up, or something else. */
static void io_failed(struct lldp_io *io, int e)
{
    if (e == EPIPE || e == ECONNRESET)
        io->hung_up = true;
    else
        io->sys_errno = e;
}

static int left_ms(const struct lldp_io *io)
{
    int64_t left = io->deadline_ms - pna_mono_ms();
    return left <= 0 ? 0 : left > INT32_MAX ? INT32_MAX : (int)left;
}

/* Wait until the socket is ready for EVENTS, at most until the deadline.
 * 0 when ready (or in error: the read or write that follows says which),
 * -1 when the deadline passed or poll() failed. */
static int io_wait(struct lldp_io *io, short events)
{
    for (;;) {
        int left = left_ms(io);
        if (left == 0) {
            io->timed_out = true;
            return -1;
        }
        struct pollfd p = {.fd = io->fd, .events = events};
        int rc = poll(&p, 1, left);
        if (rc > 0)
            return 0;
        if (rc == 0) {
            io->timed_out = true;
            return -1;
        }
        if (errno != EINTR) {
            io->sys_errno = errno;
            return -1;
        }
    }
}

/* liblldpctl's send callback: the whole message, or a failure.  liblldpctl
 * moves on to the answer after one call whatever it returned, so a partial
 * write is finished here. */
static ssize_t io_send(lldpctl_conn_t *conn, const uint8_t *data, size_t length, void *user)
{
    (void)conn;
    struct lldp_io *io = user;
    size_t done = 0;
    while (done < length) {
        ssize_t n = send(io->fd, data + done, length - done, MSG_NOSIGNAL);
        if (n > 0) {
            done += (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            if (io_wait(io, POLLOUT) != 0)
                return LLDPCTL_ERR_CALLBACK_FAILURE;
            continue;
        }
        io_failed(io, n < 0 ? errno : EPIPE);
        return LLDPCTL_ERR_CALLBACK_FAILURE;
    }
    return (ssize_t)length;
}

/* liblldpctl's receive callback: some bytes, end of file or a failure.  The
 * buffer is the library's own (malloc'd, writable) despite its const. */
static ssize_t io_recv(lldpctl_conn_t *conn, const uint8_t *data, size_t length, void *user)
{
    (void)conn;
    struct lldp_io *io = user;
    for (;;) {
        ssize_t n = recv(io->fd, (void *)data, length, 0);
        if (n > 0)
            return n;
        if (n == 0) {
            io->hung_up = true;
            return LLDPCTL_ERR_EOF;
        }
        if (errno == EINTR)
            continue;
        if (errno != EAGAIN && errno != EWOULDBLOCK) {
            io_failed(io, errno);
            return LLDPCTL_ERR_CALLBACK_FAILURE;
        }
        if (io_wait(io, POLLIN) != 0)
            return LLDPCTL_ERR_CALLBACK_FAILURE;
    }
}

static void sleep_ms(int ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000};
    nanosleep(&ts, NULL);
}

static void connect_error(const char *path, int e, int timeout_ms, char *err, size_t errlen)
{
    switch (e) {
    case ENOENT:
        snprintf(err, errlen, "lldpd is not running (no %s)", path);
        break;
    case ECONNREFUSED:
        snprintf(err, errlen, "lldpd is not running (%s refuses connections)", path);
        break;
    case EACCES:
    case EPERM:
        snprintf(err, errlen,
                 "%s: permission denied (connecting needs write access to lldpd's socket: "
                 "its group, _lldpd on Debian)", path);
        break;
    case EAGAIN:
        snprintf(err, errlen, "lldpd did not answer within %d ms", timeout_ms);
        break;
    default:
        snprintf(err, errlen, "%s: connect: %s", path, strerror(e));
    }
}

/* Connect to PATH before IO's deadline.  Returns the socket, or -1 with ERR. */
static int lldp_connect(const char *path, const struct lldp_io *io, int timeout_ms, char *err,
                        size_t errlen)
{
    struct sockaddr_un sa;
    memset(&sa, 0, sizeof sa);
    sa.sun_family = AF_UNIX;
    if (strlen(path) >= sizeof sa.sun_path) {
        snprintf(err, errlen, "%.60s...: socket path too long", path);
        return -1;
    }
    memcpy(sa.sun_path, path, strlen(path));
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        snprintf(err, errlen, "%s: socket: %s", path, strerror(errno));
        return -1;
    }
    /* A unix socket connects at once, or says EAGAIN while the listener's
     * backlog is full (it cannot be waited for with poll()). */
    while (connect(fd, (const struct sockaddr *)&sa, sizeof sa) != 0) {
        int e = errno;
        int left = left_ms(io);
        if ((e == EAGAIN || e == EINTR) && left > 0) {
            sleep_ms(left < CONNECT_RETRY_MS ? left : CONNECT_RETRY_MS);
            continue;
        }
        close(fd);
        connect_error(path, e, timeout_ms, err, errlen);
        return -1;
    }
    return fd;
}

/* liblldpctl logs to stderr by default; its lines are for its developers
 * ("cryptic", its header says), and every failure here ends as one line in
 * ERR anyway. */
static void discard_log(int severity, const char *msg)
{
    (void)severity;
    (void)msg;
}

static pthread_once_t quiet_once = PTHREAD_ONCE_INIT;

static void quiet_library(void)
{
    lldpctl_log_callback(discard_log);
}

static void copy_str(char *dst, size_t cap, const char *src)
{
    pna_copy_display(dst, src ? src : "", cap);
}

/* A chassis or port id: a MAC (SUBTYPE_KEY says MAC_SUBTYPE, 6 octets) as
 * aa:bb:cc:dd:ee:ff, anything else as lldpd prints it. */
static void id_text(lldpctl_atom_t *a, lldpctl_key_t subtype_key, lldpctl_key_t id_key,
                    long mac_subtype, char *out, size_t cap)
{
    size_t len = 0;
    const uint8_t *id = lldpctl_atom_get_buffer(a, id_key, &len);
    if (id && len == MAC_LEN && lldpctl_atom_get_int(a, subtype_key) == mac_subtype) {
        snprintf(out, cap, "%02x:%02x:%02x:%02x:%02x:%02x", id[0], id[1], id[2], id[3], id[4],
                 id[5]);
        return;
    }
    copy_str(out, cap, lldpctl_atom_get_str(a, id_key));
}

static void first_mgmt(lldpctl_atom_t *chassis, char *out, size_t cap)
{
    out[0] = '\0';
    lldpctl_atom_t *list = lldpctl_atom_get(chassis, lldpctl_k_chassis_mgmt);
    lldpctl_atom_t *m;
    lldpctl_atom_foreach(list, m) {
        copy_str(out, cap, lldpctl_atom_get_str(m, lldpctl_k_mgmt_ip));
        lldpctl_atom_dec_ref(m); /* leaving the loop: the macro does not */
        break;
    }
    lldpctl_atom_dec_ref(list);
}

/* The neighbour's PFC Configuration TLV among the TLVs lldpd kept as custom
 * ones (none when lldpd is built without them: the list is then NULL). */
static void find_pfc(lldpctl_atom_t *nb, struct pna_lldp_neighbor *n)
{
    lldpctl_atom_t *list = lldpctl_atom_get(nb, lldpctl_k_custom_tlvs);
    lldpctl_atom_t *tlv;
    lldpctl_atom_foreach(list, tlv) {
        size_t oui_len = 0, len = 0;
        const uint8_t *oui = lldpctl_atom_get_buffer(tlv, lldpctl_k_custom_tlv_oui, &oui_len);
        long subtype = lldpctl_atom_get_int(tlv, lldpctl_k_custom_tlv_oui_subtype);
        const uint8_t *info = lldpctl_atom_get_buffer(tlv, lldpctl_k_custom_tlv_oui_info_string,
                                                      &len);
        if (pna_lldp_org_tlv_pfc(oui, oui_len, subtype, info, len, n)) {
            lldpctl_atom_dec_ref(tlv);
            break;
        }
    }
    lldpctl_atom_dec_ref(list);
}

static uint32_t age_of(long lastchange, time_t now)
{
    if (lastchange <= 0 || (time_t)lastchange >= now)
        return 0;
    time_t d = now - (time_t)lastchange;
    return d > (time_t)UINT32_MAX ? UINT32_MAX : (uint32_t)d;
}

static void fill_neighbor(lldpctl_atom_t *nb, time_t now, struct pna_lldp_neighbor *n)
{
    memset(n, 0, sizeof *n);
    n->present = true;
    lldpctl_atom_t *chassis = lldpctl_atom_get(nb, lldpctl_k_port_chassis);
    copy_str(n->sys_name, sizeof n->sys_name, lldpctl_atom_get_str(chassis, lldpctl_k_chassis_name));
    id_text(chassis, lldpctl_k_chassis_id_subtype, lldpctl_k_chassis_id,
            LLDP_CHASSISID_SUBTYPE_LLADDR, n->chassis_id, sizeof n->chassis_id);
    first_mgmt(chassis, n->mgmt_addr, sizeof n->mgmt_addr);
    lldpctl_atom_dec_ref(chassis);
    id_text(nb, lldpctl_k_port_id_subtype, lldpctl_k_port_id, LLDP_PORTID_SUBTYPE_LLADDR,
            n->port_id, sizeof n->port_id);
    copy_str(n->port_descr, sizeof n->port_descr, lldpctl_atom_get_str(nb, lldpctl_k_port_descr));
    long pvid = lldpctl_atom_get_int(nb, lldpctl_k_port_vlan_pvid); /* 0 not sent, <0 no 802.1 */
    n->pvid = pvid > 0 && pvid <= UINT16_MAX ? (uint16_t)pvid : 0;
    n->age_s = age_of(lldpctl_atom_get_int(nb, lldpctl_k_port_age), now);
    find_pfc(nb, n);
}

/* The first neighbour of NEIGHBORS that lldpd does not hide; the caller owns
 * the reference. */
static lldpctl_atom_t *first_visible(lldpctl_atom_t *neighbors)
{
    lldpctl_atom_t *nb;
    lldpctl_atom_foreach(neighbors, nb) {
        if (lldpctl_atom_get_int(nb, lldpctl_k_port_hidden) <= 0)
            return nb; /* leaving the loop keeps the loop's reference */
    }
    return NULL;
}

static int entry_cmp(const void *a, const void *b)
{
    return strcmp(((const struct pna_lldp_entry *)a)->ifname,
                  ((const struct pna_lldp_entry *)b)->ifname);
}

static struct pna_lldp_entry *table_add(struct lldp_build *b)
{
    if (PNA_ARRAY_RESERVE(b->t->v, b->cap, b->t->n + 1) != 0)
        return NULL;
    struct pna_lldp_entry *e = &b->t->v[b->t->n++];
    memset(e, 0, sizeof *e);
    return e;
}

/* One interface: 0, or -1 with B's error set. */
static int read_interface(lldpctl_conn_t *conn, lldpctl_atom_t *iface, struct lldp_build *b)
{
    lldpctl_atom_t *port = lldpctl_get_port(iface); /* a request to lldpd */
    if (!port) {
        b->error = lldpctl_last_error(conn);
        return -1;
    }
    int rc = 0;
    lldpctl_atom_t *neighbors = lldpctl_atom_get(port, lldpctl_k_port_neighbors);
    lldpctl_atom_t *nb = first_visible(neighbors);
    if (nb) {
        struct pna_lldp_entry *e = table_add(b);
        if (e) {
            const char *name = lldpctl_atom_get_str(iface, lldpctl_k_interface_name);
            pna_strlcpy(e->ifname, name ? name : "", sizeof e->ifname);
            fill_neighbor(nb, b->now, &e->n);
        } else {
            b->nomem = true;
            rc = -1;
        }
        lldpctl_atom_dec_ref(nb);
    }
    lldpctl_atom_dec_ref(neighbors);
    lldpctl_atom_dec_ref(port);
    return rc;
}

static int read_interfaces(lldpctl_conn_t *conn, struct lldp_build *b)
{
    lldpctl_atom_t *ifaces = lldpctl_get_interfaces(conn); /* a request to lldpd */
    if (!ifaces) {
        b->error = lldpctl_last_error(conn);
        return -1;
    }
    int rc = 0;
    lldpctl_atom_t *iface;
    lldpctl_atom_foreach(ifaces, iface) {
        if ((rc = read_interface(conn, iface, b)) != 0) {
            lldpctl_atom_dec_ref(iface);
            break;
        }
    }
    lldpctl_atom_dec_ref(ifaces);
    return rc;
}

static void describe_failure(const struct lldp_io *io, const struct lldp_build *b, int timeout_ms,
                             char *err, size_t errlen)
{
    if (b->nomem)
        snprintf(err, errlen, "lldpd's neighbours: out of memory");
    else if (io->timed_out)
        snprintf(err, errlen, "lldpd did not answer within %d ms", timeout_ms);
    else if (io->hung_up || b->error == LLDPCTL_ERR_EOF)
        snprintf(err, errlen, "lldpd closed the connection before answering");
    else if (io->sys_errno)
        snprintf(err, errlen, "lldpd's socket: %s", strerror(io->sys_errno));
    else
        snprintf(err, errlen, "lldpd's answer: %s", lldpctl_strerror(b->error));
}

int pna_lldp_read(const char *socket_path, int timeout_ms, struct pna_lldp_table *out, char *err,
                  size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (!socket_path || !socket_path[0] || timeout_ms <= 0) {
        snprintf(err, errlen, "lldpd: no socket path or no timeout given");
        return -1;
    }
    pthread_once(&quiet_once, quiet_library);
    struct lldp_io io = {.fd = -1, .deadline_ms = pna_mono_ms() + timeout_ms};
    io.fd = lldp_connect(socket_path, &io, timeout_ms, err, errlen);
    if (io.fd < 0)
        return -1;
    struct lldp_build b = {.t = out, .now = time(NULL)};
    int rc = -1;
    /* lldpctl_new(), not _new_name(): with callbacks of ours the library
     * never opens a socket, so it has no use for the name. */
    lldpctl_conn_t *conn = lldpctl_new(io_send, io_recv, &io);
    if (!conn) {
        b.nomem = true;
    } else {
        rc = read_interfaces(conn, &b);
        lldpctl_release(conn);
    }
    close(io.fd);
    if (rc != 0) {
        describe_failure(&io, &b, timeout_ms, err, errlen);
        pna_lldp_table_free(out);
        return -1;
    }
    if (out->n > 1)
        qsort(out->v, out->n, sizeof *out->v, entry_cmp);
    return 0;
}

#endif /* HAVE_LLDPCTL */
