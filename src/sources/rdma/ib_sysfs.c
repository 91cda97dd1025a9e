/* sources/rdma/ib_sysfs.c -- translate /sys/class/infiniband into the IB model
 * (model/ib.h).
 *
 * Layout read, per device D and port N (every path under the sysfs root):
 *   class/infiniband/D/{node_type,node_guid,sys_image_guid,fw_ver,hca_type,
 *                       board_id,node_desc}, D/device -> PCI function,
 *                       D/hw_counters/NAME (device-level, hfi1)
 *   D/ports/N/{link_layer,state,phys_state,rate,lid,sm_lid,lid_mask_count,gids/0}
 *   D/ports/N/counters/NAME, counters_ext/NAME_64 (old mlx4 kernels),
 *   D/ports/N/hw_counters/NAME
 *   D/ports/N/gid_attrs/ndevs/0 or D/device/net/IF -> class/net/IF/ifindex (RoCE)
 * Kernel quirks handled: "N: TEXT" state files (only the number is trusted),
 * "N/A (no PMA)" counters (iWARP: absent), data counters in 4-octet words,
 * trailing blank lines, files without a final newline. */
#include "pna_autoconf.h"
#include "sources/rdma/ib_sysfs.h"
#include "util/array.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/counter.h"
#include "util/clock.h"
#include "util/fileio.h"

#define CLASS_DIR "class/infiniband"

struct reader {
    const struct pna_roots *roots;
    struct pna_ib_model *m;
};

/* ---- problems: counted, the first kept, never printed ---- */

static void note_problem(struct reader *rd, char *obj_err, size_t obj_cap, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void note_problem(struct reader *rd, char *obj_err, size_t obj_cap, const char *fmt, ...)
{
    char line[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    rd->m->problems++;
    if (!rd->m->problem[0])
        pna_strlcpy(rd->m->problem, line, sizeof rd->m->problem);
    if (obj_err && !obj_err[0])
        pna_strlcpy(obj_err, line, obj_cap);
}

/* DIR + "/" + NAME into BUF; false (and BUF empty) when it does not fit. */
static bool join(char *buf, size_t cap, const char *dir, const char *name)
{
    int n = snprintf(buf, cap, "%s/%s", dir, name);
    if (n < 0 || (size_t)n >= cap) {
        buf[0] = '\0';
        return false;
    }
    return true;
}

/* ---- directory listing ---- */

struct names {
    char **v;
    size_t n;
    bool truncated;
};

static void names_free(struct names *ns)
{
    for (size_t i = 0; i < ns->n; i++)
        free(ns->v[i]);
    free(ns->v);
    ns->v = NULL;
    ns->n = 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* List PATH (no dot entries), sorted by strcmp, at most MAX names.
 * Returns 0 or -errno. */
static int list_dir(const char *path, size_t max, struct names *out)
{
    memset(out, 0, sizeof *out);
    DIR *dir = opendir(path);
    if (!dir)
        return -errno;
    size_t cap = 0;
    struct dirent *de;
    int rc = 0;
    while ((de = readdir(dir)) != NULL) {
        if (de->d_name[0] == '.')
            continue;
        if (out->n == max) {
            out->truncated = true;
            break;
        }
        if (PNA_ARRAY_RESERVE(out->v, cap, out->n + 1) != 0) {
            rc = -ENOMEM;
            break;
        }
        if (!(out->v[out->n] = strdup(de->d_name))) {
            rc = -ENOMEM;
            break;
        }
        out->n++;
    }
    closedir(dir);
    if (rc) {
        names_free(out);
        return rc;
    }
    if (out->n > 1)
        qsort(out->v, out->n, sizeof *out->v, cmp_str);
    return 0;
}

/* ---- small parsers ---- */

/* "4: ACTIVE" -> 4.  Only the number is used: drivers and fixtures disagree on
 * the text, and the number is what the IB spec defines. */
static int parse_numbered(const char *text, int32_t *out)
{
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (end == text || errno || v < 0 || v > 255 || (*end && *end != ':'))
        return -EINVAL;
    *out = (int32_t)v;
    return 0;
}

/* Four groups of up to four hex digits separated by ':' ("0a7f:bc12:45ef:d23b"). */
static int parse_guid_groups(const char *s, int groups, uint64_t *out)
{
    uint64_t v = 0;
    for (int g = 0; g < groups; g++) {
        int digits = 0;
        uint64_t part = 0;
        while (digits < 4 && ((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f') ||
                              (*s >= 'A' && *s <= 'F'))) {
            int d = *s <= '9' ? *s - '0' : (*s | 0x20) - 'a' + 10;
            part = part << 4 | (uint64_t)d;
            s++;
            digits++;
        }
        if (digits == 0)
            return -EINVAL;
        v = v << 16 | part;
        if (g < groups - 1) {
            if (*s != ':')
                return -EINVAL;
            s++;
        }
    }
    if (*s)
        return -EINVAL;
    *out = v;
    return 0;
}

/* GID "fe80:0000:0000:0000:0002:c903:00f1:a0b1": low 64 bits = port GUID. */
static int gid_interface_id(const char *gid, uint64_t *out)
{
    const char *p = gid;
    for (int colons = 0; colons < 4; p++) {
        if (!*p)
            return -EINVAL;
        if (*p == ':')
            colons++;
    }
    return parse_guid_groups(p, 4, out);
}

/* "100 Gb/sec (4X EDR)", "2.5 Gb/sec (1X SDR)", "10 Gb/sec (4X)". */
static int parse_rate(const char *text, uint64_t *mbps, uint32_t *width)
{
    const char *p = text;
    uint64_t whole = 0, frac = 0, frac_div = 1;
    if (*p < '0' || *p > '9')
        return -EINVAL;
    while (*p >= '0' && *p <= '9' && whole < UINT64_C(1) << 40)
        whole = whole * 10 + (uint64_t)(*p++ - '0');
    if (*p == '.') {
        p++;
        while (*p >= '0' && *p <= '9') {
            if (frac_div < 1000000) {
                frac = frac * 10 + (uint64_t)(*p - '0');
                frac_div *= 10;
            }
            p++;
        }
    }
    while (*p == ' ')
        p++;
    if (strncmp(p, "Gb/sec", 6) != 0)
        return -EINVAL;
    *mbps = whole * 1000 + frac * 1000 / frac_div;
    *width = 0;
    const char *paren = strchr(p, '(');
    if (paren) {
        char *end;
        unsigned long w = strtoul(paren + 1, &end, 10);
        if (end != paren + 1 && *end == 'X' && w <= 64)
            *width = (uint32_t)w;
    }
    return 0;
}

static bool is_pci_address(const char *s)
{
    /* DDDD:BB:SS.F, the domain possibly longer (VMD uses 10000:...). */
    const char *colon = strchr(s, ':');
    if (!colon || colon == s || colon - s > 8)
        return false;
    for (const char *p = s; p < colon; p++)
        if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
            return false;
    const char *r = colon + 1;
    return strlen(r) == 7 && r[2] == ':' && r[5] == '.' && r[6] >= '0' && r[6] <= '7';
}

/* ---- attribute reads ---- */

/* Read DIR/NAME as text.  A missing file is normal (drivers differ): 0 with
 * "" and no problem; other failures are noted against OBJ_ERR.
 * Returns 1 when text was read, 0 when absent or failed. */
static int read_attr(struct reader *rd, const char *dir, const char *name, char *buf, size_t cap,
                     char *obj_err, size_t obj_cap, const char *who)
{
    char path[PATH_MAX];
    buf[0] = '\0';
    if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path) {
        note_problem(rd, obj_err, obj_cap, "%s %s: path too long", who, name);
        return 0;
    }
    int n = pna_read_text(path, buf, cap);
    if (n >= 0)
        return 1;
    if (n != -ENOENT)
        note_problem(rd, obj_err, obj_cap, "%s %s: %s", who, name, strerror(-n));
    buf[0] = '\0';
    return 0;
}

/* ---- devices ---- */

static void read_guid_attr(struct reader *rd, struct pna_ib_device *d, const char *dir,
                           const char *name, char *text, size_t text_cap, bool *has,
                           uint64_t *value)
{
    char buf[64];
    if (!read_attr(rd, dir, name, buf, sizeof buf, d->error, sizeof d->error, d->name))
        return;
    if (parse_guid_groups(buf, 4, value) == 0) {
        *has = true;
        pna_strlcpy(text, buf, text_cap);
    } else {
        note_problem(rd, d->error, sizeof d->error, "%s %s: not a GUID: '%.40s'", d->name, name,
                     buf);
    }
}

/* The last component of the symlink DIR/NAME into OUT, or "" when it is not a
 * symlink (fixture trees; software devices such as rxe have no parent). */
static void link_basename(const char *dir, const char *name, char *out, size_t cap)
{
    char path[PATH_MAX], target[PATH_MAX];
    out[0] = '\0';
    if (!join(path, sizeof path, dir, name))
        return;
    ssize_t n = readlink(path, target, sizeof target - 1);
    if (n <= 0)
        return;
    target[n] = '\0';
    const char *base = strrchr(target, '/');
    pna_strlcpy(out, base ? base + 1 : target, cap);
}

static void read_parent_device(const char *dir, struct pna_ib_device *d)
{
    char base[PATH_MAX];
    link_basename(dir, "device", base, sizeof base);
    if (is_pci_address(base))
        pna_strlcpy(d->pci_addr, base, sizeof d->pci_addr);
    link_basename(dir, "device/driver", d->driver, sizeof d->driver);
}

/* Its verbs node: the uverbsN of class/infiniband_verbs whose ibdev is D
 * (the number joins a process's open /dev/infiniband/uverbsN to the device). */
static void read_uverbs(struct reader *rd, struct pna_ib_device *d)
{
    char dir[PATH_MAX];
    if (pna_path(dir, sizeof dir, rd->roots->sysfs, "/class/infiniband_verbs") != 0)
        return;
    DIR *dh = opendir(dir);
    if (!dh)
        return;
    const struct dirent *e;
    while (!d->has_uverbs && (e = readdir(dh)) != NULL) {
        char path[PATH_MAX], name[64], *end;
        if (strncmp(e->d_name, "uverbs", 6) != 0 || !e->d_name[6])
            continue;
        unsigned long n = strtoul(e->d_name + 6, &end, 10);
        if (*end || n > 63 ||
            snprintf(path, sizeof path, "%s/%s/ibdev", dir, e->d_name) >= (int)sizeof path ||
            pna_read_text(path, name, sizeof name) < 0 || strcmp(name, d->name) != 0)
            continue;
        d->has_uverbs = true;
        d->uverbs = (uint32_t)n;
    }
    closedir(dh);
}

/* DIR/hw_counters/<name>; "lifespan" is a setting (ms the driver caches the
 * values), not a counter. */
static int read_hw_counters(struct reader *rd, const char *dir, const char *who, char *obj_err,
                            size_t obj_cap, struct pna_hw_counter **out, size_t *n_out)
{
    char path[PATH_MAX];
    struct names ns;
    *out = NULL;
    *n_out = 0;
    if (snprintf(path, sizeof path, "%s/hw_counters", dir) >= (int)sizeof path)
        return 0;
    int rc = list_dir(path, PNA_IB_MAX_HW_COUNTERS, &ns);
    if (rc == -ENOMEM)
        return -1;
    if (rc < 0) {
        if (rc != -ENOENT)
            note_problem(rd, obj_err, obj_cap, "%s hw_counters: %s", who, strerror(-rc));
        return 0;
    }
    if (ns.truncated)
        note_problem(rd, obj_err, obj_cap, "%s hw_counters: more than %d, rest ignored", who,
                     PNA_IB_MAX_HW_COUNTERS);
    struct pna_hw_counter *hw = ns.n ? calloc(ns.n, sizeof *hw) : NULL;
    if (ns.n && !hw) {
        names_free(&ns);
        return -1;
    }
    size_t n = 0;
    for (size_t i = 0; i < ns.n; i++) {
        char buf[64];
        uint64_t v;
        if (strcmp(ns.v[i], "lifespan") == 0 || strlen(ns.v[i]) >= sizeof hw[n].name)
            continue;
        if (!read_attr(rd, path, ns.v[i], buf, sizeof buf, obj_err, obj_cap, who))
            continue;
        if (pna_parse_u64(buf, &v) != 0) {
            if (strncmp(buf, "N/A", 3) != 0)
                note_problem(rd, obj_err, obj_cap, "%s hw_counters/%s: not a number: '%.40s'",
                             who, ns.v[i], buf);
            continue;
        }
        pna_strlcpy(hw[n].name, ns.v[i], sizeof hw[n].name);
        hw[n].raw = hw[n].value = v;
        n++;
    }
    names_free(&ns);
    /* names came sorted from list_dir(): the array is in name order */
    *out = hw;
    *n_out = n;
    return 0;
}

/* ---- ports ---- */

/* One standard counter: prefer counters_ext/<ext>, else counters/<file>.
 * "N/A (no PMA)" and a missing file leave it absent. */
static void read_port_counter(struct reader *rd, struct pna_ib_port *port, const char *pdir,
                              const char *who, bool have_ext, int i)
{
    const struct pna_ib_counter_desc *desc = &pna_ib_counter_descs[i];
    struct pna_counter *c = &port->counters[i];
    char buf[64], sub[PATH_MAX];
    uint64_t raw;

    if (have_ext && desc->ext_file) {
        join(sub, sizeof sub, pdir, "counters_ext");
        if (read_attr(rd, sub, desc->ext_file, buf, sizeof buf, port->error, sizeof port->error,
                      who) &&
            pna_parse_u64(buf, &raw) == 0) {
            c->value = raw * desc->scale;
            c->present = true;
            c->from_ext = true;
            return;
        }
    }
    join(sub, sizeof sub, pdir, "counters");
    if (!read_attr(rd, sub, desc->file, buf, sizeof buf, port->error, sizeof port->error, who))
        return;
    if (pna_parse_u64(buf, &raw) != 0) {
        if (strncmp(buf, "N/A", 3) != 0)
            note_problem(rd, port->error, sizeof port->error,
                         "%s counters/%s: not a number: '%.40s'", who, desc->file, buf);
        return;
    }
    if (raw > UINT64_MAX / desc->scale) {
        note_problem(rd, port->error, sizeof port->error, "%s counters/%s: out of range", who,
                     desc->file);
        return;
    }
    c->value = raw * desc->scale;
    c->present = true;
    c->saturated = pna_counter_saturated(raw, desc->width_bits);
}

static void read_port_state(struct reader *rd, struct pna_ib_port *port, const char *pdir,
                            const char *who)
{
    char buf[96];
    if (read_attr(rd, pdir, "state", buf, sizeof buf, port->error, sizeof port->error, who)) {
        pna_strlcpy(port->state_text, buf, sizeof port->state_text);
        if (parse_numbered(buf, &port->state) == 0 && port->state <= PNA_IB_STATE_ACTIVE_DEFER) {
            port->has_state = true;
        } else {
            port->state = PNA_IB_STATE_UNKNOWN;
            note_problem(rd, port->error, sizeof port->error, "%s state: unexpected '%.40s'", who,
                         buf);
        }
    }
    if (read_attr(rd, pdir, "phys_state", buf, sizeof buf, port->error, sizeof port->error, who)) {
        pna_strlcpy(port->phys_state_text, buf, sizeof port->phys_state_text);
        if (parse_numbered(buf, &port->phys_state) == 0) {
            port->has_phys_state = true;
        } else {
            port->phys_state = 0;
            note_problem(rd, port->error, sizeof port->error, "%s phys_state: unexpected '%.40s'",
                         who, buf);
        }
    }
    if (read_attr(rd, pdir, "link_layer", buf, sizeof buf, port->error, sizeof port->error, who))
        pna_strlcpy(port->link_layer, buf, sizeof port->link_layer);
    if (read_attr(rd, pdir, "rate", buf, sizeof buf, port->error, sizeof port->error, who)) {
        pna_strlcpy(port->rate_text, buf, sizeof port->rate_text);
        if (parse_rate(buf, &port->rate_mbps, &port->width) != 0)
            note_problem(rd, port->error, sizeof port->error, "%s rate: unexpected '%.40s'", who,
                         buf);
    }
}

static void read_port_addresses(struct reader *rd, struct pna_ib_port *port, const char *pdir,
                                const char *who)
{
    char buf[96];
    uint64_t v;
    /* lid and sm_lid are the two port attributes the kernel prints in hex
     * ("0x1a7"); every counter and lid_mask_count is decimal. */
    if (read_attr(rd, pdir, "lid", buf, sizeof buf, port->error, sizeof port->error, who) &&
        pna_parse_hex_u64(buf, &v) == 0 && v <= UINT32_MAX) {
        port->has_lid = true;
        port->lid = (uint32_t)v;
    }
    if (read_attr(rd, pdir, "sm_lid", buf, sizeof buf, port->error, sizeof port->error, who) &&
        pna_parse_hex_u64(buf, &v) == 0 && v <= UINT32_MAX) {
        port->has_sm_lid = true;
        port->sm_lid = (uint32_t)v;
    }
    if (read_attr(rd, pdir, "lid_mask_count", buf, sizeof buf, port->error, sizeof port->error,
                  who) &&
        pna_parse_u64(buf, &v) == 0 && v <= UINT32_MAX)
        port->lid_mask_count = (uint32_t)v;
    char gids[PATH_MAX];
    join(gids, sizeof gids, pdir, "gids");
    if (read_attr(rd, gids, "0", buf, sizeof buf, port->error, sizeof port->error, who)) {
        pna_strlcpy(port->gid0, buf, sizeof port->gid0);
        if (strcmp(port->link_layer, "Ethernet") != 0 &&
            gid_interface_id(buf, &port->port_guid) == 0)
            port->has_port_guid = true;
    }
}

/* The Ethernet netdev of a RoCE port: gid_attrs/ndevs/0 names it on current
 * kernels (reading it fails with EINVAL while GID 0 has no netdev, which is
 * not a problem); otherwise the PCI function's net/ directory, matched on
 * dev_port for multi-port functions (mlx4). */
static void find_netdev(struct reader *rd, struct pna_ib_port *port, const char *ddir,
                        const char *pdir)
{
    char path[PATH_MAX], buf[64];
    if (join(path, sizeof path, pdir, "gid_attrs/ndevs/0") &&
        pna_read_text(path, buf, sizeof buf) > 0 && !strchr(buf, '/')) {
        pna_strlcpy(port->netdev, buf, sizeof port->netdev);
    } else {
        struct names ns;
        if (!join(path, sizeof path, ddir, "device/net") || list_dir(path, 64, &ns) != 0)
            return;
        for (size_t i = 0; i < ns.n && !port->netdev[0]; i++) {
            uint64_t dev_port = 0;
            char p2[PATH_MAX];
            if (ns.n > 1) {
                char p1[PATH_MAX];
                if (!join(p1, sizeof p1, path, ns.v[i]) || !join(p2, sizeof p2, p1, "dev_port") ||
                    pna_read_u64(p2, &dev_port) != 0 || dev_port + 1 != port->num)
                    continue;
            }
            pna_strlcpy(port->netdev, ns.v[i], sizeof port->netdev);
        }
        names_free(&ns);
    }
    if (!port->netdev[0])
        return;
    uint64_t ifindex;
    if (pna_path(path, sizeof path, rd->roots->sysfs, "/class/net/%s/ifindex", port->netdev) == 0 &&
        pna_read_u64(path, &ifindex) == 0 && ifindex <= INT32_MAX)
        port->ifindex = (int32_t)ifindex;
}

static int read_port(struct reader *rd, const struct pna_ib_device *d, const char *ddir,
                     struct pna_ib_port *port)
{
    char pdir[PATH_MAX], who[96], sub[PATH_MAX];
    struct stat st;
    int n = snprintf(pdir, sizeof pdir, "%s/ports/%u", ddir, port->num);
    snprintf(who, sizeof who, "%s/%u", d->name, port->num);
    if (n < 0 || (size_t)n >= sizeof pdir) {
        note_problem(rd, port->error, sizeof port->error, "%s: path too long", who);
        return 0;
    }

    read_port_state(rd, port, pdir, who);
    read_port_addresses(rd, port, pdir, who);
    if (strcmp(port->link_layer, "Ethernet") == 0)
        find_netdev(rd, port, ddir, pdir);

    join(sub, sizeof sub, pdir, "counters");
    if (stat(sub, &st) != 0 && errno != ENOENT)
        note_problem(rd, port->error, sizeof port->error, "%s counters: %s", who, strerror(errno));
    join(sub, sizeof sub, pdir, "counters_ext");
    bool have_ext = stat(sub, &st) == 0 && S_ISDIR(st.st_mode);
    for (int i = 0; i < PNA_IBC_COUNT; i++)
        read_port_counter(rd, port, pdir, who, have_ext, i);
    return read_hw_counters(rd, pdir, who, port->error, sizeof port->error, &port->hw,
                            &port->n_hw);
}

static int cmp_port(const void *a, const void *b)
{
    uint32_t x = ((const struct pna_ib_port *)a)->num, y = ((const struct pna_ib_port *)b)->num;
    return x < y ? -1 : x > y;
}

static int read_ports(struct reader *rd, struct pna_ib_device *d, const char *ddir)
{
    char path[PATH_MAX];
    struct names ns;
    join(path, sizeof path, ddir, "ports");
    int rc = list_dir(path, PNA_IB_MAX_PORTS, &ns);
    if (rc == -ENOMEM)
        return -1;
    if (rc < 0) {
        note_problem(rd, d->error, sizeof d->error, "%s ports: %s", d->name, strerror(-rc));
        return 0;
    }
    if (ns.truncated)
        note_problem(rd, d->error, sizeof d->error, "%s: more than %d ports, rest ignored",
                     d->name, PNA_IB_MAX_PORTS);
    d->ports = ns.n ? calloc(ns.n, sizeof *d->ports) : NULL;
    if (ns.n && !d->ports) {
        names_free(&ns);
        return -1;
    }
    for (size_t i = 0; i < ns.n; i++) {
        uint64_t num;
        if (pna_parse_u64(ns.v[i], &num) != 0 || num > 255) {
            note_problem(rd, d->error, sizeof d->error, "%s ports/%.32s: not a port number",
                         d->name, ns.v[i]);
            continue;
        }
        d->ports[d->n_ports].num = (uint32_t)num;
        d->n_ports++;
    }
    names_free(&ns);
    if (d->n_ports > 1)
        qsort(d->ports, d->n_ports, sizeof *d->ports, cmp_port);
    for (size_t i = 0; i < d->n_ports; i++)
        if (read_port(rd, d, ddir, &d->ports[i]) < 0)
            return -1;
    return 0;
}

static void read_device_attrs(struct reader *rd, struct pna_ib_device *d, const char *ddir)
{
    char buf[160];
    if (read_attr(rd, ddir, "node_type", buf, sizeof buf, d->error, sizeof d->error, d->name)) {
        static const char *const types[] = { "", "CA", "switch", "router", "RNIC", "usNIC",
                                             "usNIC UDP", "unspecified" };
        if (parse_numbered(buf, &d->node_type) == 0 && d->node_type < 8)
            pna_strlcpy(d->node_type_text, types[d->node_type], sizeof d->node_type_text);
        else {
            d->node_type = 0;
            note_problem(rd, d->error, sizeof d->error, "%s node_type: unexpected '%.40s'",
                         d->name, buf);
        }
    }
    read_attr(rd, ddir, "fw_ver", d->fw_ver, sizeof d->fw_ver, d->error, sizeof d->error, d->name);
    read_attr(rd, ddir, "hca_type", d->hca_type, sizeof d->hca_type, d->error, sizeof d->error,
              d->name);
    read_attr(rd, ddir, "board_id", d->board_id, sizeof d->board_id, d->error, sizeof d->error,
              d->name);
    read_attr(rd, ddir, "node_desc", d->node_desc, sizeof d->node_desc, d->error,
              sizeof d->error, d->name);
    read_guid_attr(rd, d, ddir, "node_guid", d->node_guid_text, sizeof d->node_guid_text,
                   &d->has_node_guid, &d->node_guid);
    read_guid_attr(rd, d, ddir, "sys_image_guid", d->sys_image_guid_text,
                   sizeof d->sys_image_guid_text, &d->has_sys_image_guid, &d->sys_image_guid);
    read_parent_device(ddir, d);
    read_uverbs(rd, d);
}

int pna_ib_sysfs_read(const struct pna_roots *roots, struct pna_ib_model *out, char *err,
                      size_t errlen)
{
    struct reader rd = { roots, out };
    char cdir[PATH_MAX];
    struct names ns;

    memset(out, 0, sizeof *out);
    out->sample_mono_ms = pna_mono_ms();
    if (pna_path(cdir, sizeof cdir, roots->sysfs, "/%s", CLASS_DIR) != 0) {
        snprintf(err, errlen, "sysfs root too long");
        return -1;
    }
    int rc = list_dir(cdir, PNA_IB_MAX_DEVICES, &ns);
    if (rc == -ENOENT)
        return 0; /* no RDMA stack loaded: no devices */
    if (rc < 0) {
        snprintf(err, errlen, "%s: %s", cdir, strerror(-rc));
        return -1;
    }
    if (ns.truncated)
        note_problem(&rd, NULL, 0, "more than %d RDMA devices, rest ignored", PNA_IB_MAX_DEVICES);
    out->devices = ns.n ? calloc(ns.n, sizeof *out->devices) : NULL;
    if (ns.n && !out->devices)
        goto nomem;
    for (size_t i = 0; i < ns.n; i++) {
        struct pna_ib_device *d = &out->devices[out->n_devices];
        char ddir[PATH_MAX];
        if (strlen(ns.v[i]) >= sizeof d->name ||
            snprintf(ddir, sizeof ddir, "%s/%s", cdir, ns.v[i]) >= (int)sizeof ddir) {
            note_problem(&rd, NULL, 0, "RDMA device name too long: %.40s...", ns.v[i]);
            continue;
        }
        pna_strlcpy(d->name, ns.v[i], sizeof d->name);
        out->n_devices++;
        read_device_attrs(&rd, d, ddir);
        if (read_hw_counters(&rd, ddir, d->name, d->error, sizeof d->error, &d->hw, &d->n_hw) < 0 ||
            read_ports(&rd, d, ddir) < 0)
            goto nomem;
    }
    names_free(&ns);
    return 0;
nomem:
    names_free(&ns);
    pna_ib_model_free(out);
    snprintf(err, errlen, "out of memory reading %s", cdir);
    return -1;
}
