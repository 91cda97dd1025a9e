/* sources/pci/pcie_sysfs.c -- the PCIe health of one PCI function from
 * /sys/bus/pci/devices/<addr>/ (see pcie_sysfs.h).
 *
 * Files and what the kernel writes in them (drivers/pci/pci-sysfs.c,
 * drivers/pci/pcie/aer.c):
 *   current_link_speed, max_link_speed   "16.0 GT/s PCIe"; older kernels
 *                                         "8 GT/s"; "Unknown" when the link
 *                                         is down or in low power
 *   current_link_width, max_link_width   lanes in decimal; 0 in low power
 *   aer_dev_correctable / _nonfatal / _fatal
 *                                         one "NAME N" line per error bit,
 *                                         then TOTAL_ERR_COR / _NONFATAL /
 *                                         _FATAL; only with AER enabled
 *   numa_node                             decimal, -1 for none
 *   local_cpulist                         "0-15,32-47"
 * A missing file is normal (no AER, a virtual function, an old kernel): its
 * figure is absent.  A file that is there and says something else is a
 * problem: absent as well, and counted. */
#include "pna_autoconf.h"
#include "sources/pci/pcie_sysfs.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "util/fileio.h"

#define DEVICES_DIR "/bus/pci/devices"
#define MAX_LANES 32
#define MAX_NUMA_NODE 65535
#define AER_FILE_MAX 4096

/* ---- parsers ------------------------------------------------------------------ */

static const char *skip_blanks(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

/* "16.0" -> 16000: at most six integer digits and three decimals. */
static int parse_gts(const char **p, uint32_t *mtps)
{
    const char *s = *p;
    uint32_t whole = 0, frac = 0, scale = 1000;
    int digits = 0;
    for (; isdigit((unsigned char)*s) && digits < 7; s++, digits++)
        whole = whole * 10 + (uint32_t)(*s - '0');
    if (digits == 0 || digits > 6)
        return -EINVAL;
    if (*s == '.') {
        s++;
        if (!isdigit((unsigned char)*s))
            return -EINVAL;
        for (; isdigit((unsigned char)*s); s++) {
            if (scale == 1)
                return -EINVAL; /* finer than 1 MT/s: not a PCIe rate */
            scale /= 10;
            frac += (uint32_t)(*s - '0') * scale;
        }
    }
    *mtps = whole * 1000 + frac;
    *p = s;
    return 0;
}

int pna_pcie_parse_speed(const char *text, uint32_t *mtps)
{
    const char *p = skip_blanks(text);
    if (strncmp(p, "Unknown", 7) == 0 && (p[7] == '\0' || strcmp(p + 7, " speed") == 0))
        return -ENODATA;
    uint32_t v;
    if (parse_gts(&p, &v) != 0 || strncmp(p, " GT/s", 5) != 0)
        return -EINVAL;
    p += 5;
    if (strncmp(p, " PCIe", 5) == 0)
        p += 5;
    if (*skip_blanks(p) != '\0' || v == 0)
        return -EINVAL;
    *mtps = v;
    return 0;
}

int pna_pcie_parse_width(const char *text, uint32_t *lanes)
{
    uint64_t v;
    if (pna_parse_u64(text, &v) != 0 || v > MAX_LANES)
        return -EINVAL;
    if (v == 0)
        return -ENODATA;
    *lanes = (uint32_t)v;
    return 0;
}

/* One "NAME N" line of LEN octets at LINE: the name and the number. */
static int split_aer_line(const char *line, size_t len, size_t *name_len, uint64_t *value)
{
    char buf[96];
    if (len == 0 || len >= sizeof buf)
        return -EINVAL;
    memcpy(buf, line, len);
    buf[len] = '\0';
    const char *sp = strchr(buf, ' ');
    if (!sp || sp == buf)
        return -EINVAL;
    for (const char *c = buf; c < sp; c++)
        if (!isalnum((unsigned char)*c) && *c != '_')
            return -EINVAL;
    const char *num = sp;
    int rc = pna_scan_u64(&num, value);
    if (rc != 0)
        return rc;
    if (*skip_blanks(num) != '\0')
        return -EINVAL;
    *name_len = (size_t)(sp - buf);
    return 0;
}

int pna_pcie_parse_aer(const char *text, const char *key, uint64_t *out)
{
    size_t key_len = strlen(key);
    bool found = false;
    for (const char *line = text; *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        size_t name_len;
        uint64_t v;
        int rc = split_aer_line(line, len, &name_len, &v);
        if (rc != 0)
            return rc;
        if (name_len == key_len && memcmp(line, key, key_len) == 0) {
            if (found)
                return -EINVAL; /* two totals: not the kernel's file */
            *out = v;
            found = true;
        }
        line = end ? end + 1 : line + len;
    }
    return found ? 0 : -ENOENT;
}

int pna_pcie_parse_numa(const char *text, int32_t *node)
{
    const char *p = skip_blanks(text);
    if (strcmp(p, "-1") == 0) {
        *node = -1;
        return 0;
    }
    uint64_t v;
    if (pna_parse_u64(p, &v) != 0 || v > MAX_NUMA_NODE)
        return -EINVAL;
    *node = (int32_t)v;
    return 0;
}

/* ---- reading ------------------------------------------------------------------ */

struct reader {
    char dir[PATH_MAX];
    struct pna_pcie *out;
    int problems;
};

static void note_problem(struct reader *rd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void note_problem(struct reader *rd, const char *fmt, ...)
{
    if (rd->problems++ == 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(rd->out->error, sizeof rd->out->error, fmt, ap);
        va_end(ap);
    }
}

/* "dddd:bb:dd.f", hex: anything else could name another directory. */
static bool is_pci_address(const char *s)
{
    static const char shape[] = "xxxx:xx:xx.x";
    if (strlen(s) != sizeof shape - 1)
        return false;
    for (size_t i = 0; shape[i]; i++)
        if (shape[i] == 'x' ? !isxdigit((unsigned char)s[i]) : s[i] != shape[i])
            return false;
    return true;
}

/* NAME of the device into BUF: 1 read, 0 missing, -1 a problem (counted). */
static int read_file(struct reader *rd, const char *name, char *buf, size_t cap)
{
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s/%s", rd->dir, name) >= (int)sizeof path) {
        note_problem(rd, "%s: path too long", name);
        return -1;
    }
    int rc = pna_read_text(path, buf, cap);
    if (rc == -ENOENT)
        return 0;
    if (rc < 0) {
        note_problem(rd, "%s: %s", name, strerror(-rc));
        return -1;
    }
    return 1;
}

static void read_speed(struct reader *rd, const char *name, bool *has, uint32_t *mtps)
{
    char buf[64];
    if (read_file(rd, name, buf, sizeof buf) <= 0)
        return;
    int rc = pna_pcie_parse_speed(buf, mtps);
    if (rc == 0)
        *has = true;
    else if (rc != -ENODATA)
        note_problem(rd, "%s: unexpected '%.32s'", name, buf);
}

static void read_width(struct reader *rd, const char *name, bool *has, uint32_t *lanes)
{
    char buf[32];
    if (read_file(rd, name, buf, sizeof buf) <= 0)
        return;
    int rc = pna_pcie_parse_width(buf, lanes);
    if (rc == 0)
        *has = true;
    else if (rc != -ENODATA)
        note_problem(rd, "%s: unexpected '%.32s'", name, buf);
}

static void read_aer(struct reader *rd, const char *name, const char *key, struct pna_counter *c)
{
    char buf[AER_FILE_MAX];
    if (read_file(rd, name, buf, sizeof buf) <= 0)
        return;
    if (pna_pcie_parse_aer(buf, key, &c->value) == 0)
        c->present = true;
    else
        note_problem(rd, "%s: no well-formed %s line", name, key);
}

/* Judged only when all four are known: a link in low power reports width 0
 * or speed "Unknown" for one of them, and the other alone would call it
 * restored (or downtrained) while it sleeps. */
static void judge_link(struct pna_pcie *p)
{
    p->has_downtrained = p->has_link_width && p->has_max_link_width && p->has_link_speed &&
                         p->has_max_link_speed;
    p->downtrained = p->has_downtrained && (p->link_width < p->max_link_width ||
                                            p->link_speed_mtps < p->max_link_speed_mtps);
}

static void read_locality(struct reader *rd)
{
    struct pna_pcie *p = rd->out;
    char buf[32];
    if (read_file(rd, "numa_node", buf, sizeof buf) > 0) {
        if (pna_pcie_parse_numa(buf, &p->numa_node) == 0)
            p->has_numa_node = true;
        else
            note_problem(rd, "numa_node: unexpected '%.32s'", buf);
    }
    if (read_file(rd, "local_cpulist", p->local_cpus, sizeof p->local_cpus) > 0)
        p->has_local_cpus = true;
    else
        p->local_cpus[0] = '\0';
}

static bool open_reader(struct reader *rd, const struct pna_roots *roots, const char *pci_addr,
                        struct pna_pcie *out)
{
    memset(out, 0, sizeof *out);
    rd->out = out;
    rd->problems = 0;
    if (!is_pci_address(pci_addr)) {
        note_problem(rd, "not a PCI address: '%.24s'", pci_addr);
        return false;
    }
    if (pna_path(rd->dir, sizeof rd->dir, roots->sysfs, DEVICES_DIR "/%s", pci_addr) != 0) {
        note_problem(rd, "sysfs root too long");
        return false;
    }
    return true;
}

int pna_pcie_read(const struct pna_roots *roots, const char *pci_addr, struct pna_pcie *out)
{
    struct reader rd;
    if (!open_reader(&rd, roots, pci_addr, out))
        return rd.problems;
    read_speed(&rd, "current_link_speed", &out->has_link_speed, &out->link_speed_mtps);
    read_speed(&rd, "max_link_speed", &out->has_max_link_speed, &out->max_link_speed_mtps);
    read_width(&rd, "current_link_width", &out->has_link_width, &out->link_width);
    read_width(&rd, "max_link_width", &out->has_max_link_width, &out->max_link_width);
    judge_link(out);
    read_aer(&rd, "aer_dev_correctable", "TOTAL_ERR_COR", &out->aer_correctable);
    read_aer(&rd, "aer_dev_nonfatal", "TOTAL_ERR_NONFATAL", &out->aer_nonfatal);
    read_aer(&rd, "aer_dev_fatal", "TOTAL_ERR_FATAL", &out->aer_fatal);
    read_locality(&rd);
    return rd.problems;
}

int pna_pcie_read_locality(const struct pna_roots *roots, const char *pci_addr,
                           struct pna_pcie *out)
{
    struct reader rd;
    if (!open_reader(&rd, roots, pci_addr, out))
        return rd.problems;
    read_locality(&rd);
    return rd.problems;
}
