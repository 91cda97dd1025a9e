/* test_fileio.c -- bounded, non-blocking reads and path joining. */
#include "pna_autoconf.h"
#include "util/fileio.h"
#include "unit.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmpdir[] = "/tmp/pna-fileio-XXXXXX";

static void write_file(const char *name, const char *content)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", tmpdir, name);
    FILE *f = fopen(p, "w");
    fputs(content, f);
    fclose(f);
}

static void test_path(void)
{
    char buf[64];
    CHECK_INT(pna_path(buf, sizeof buf, "/", "proc/%s", "stat"), 0);
    CHECK_STR(buf, "proc/stat");
    CHECK_INT(pna_path(buf, sizeof buf, "/host/sys/", "/class/%d", 7), 0);
    CHECK_STR(buf, "/host/sys/class/7");
    CHECK_INT(pna_path(buf, 8, "/host", "/sys/class"), -ENAMETOOLONG);
}

static void test_numbers(void)
{
    char p[512];
    uint64_t v = 0;
    write_file("n", "4294967295\n");
    snprintf(p, sizeof p, "%s/n", tmpdir);
    CHECK_INT(pna_read_u64(p, &v), 0);
    CHECK_U64(v, 4294967295u);
    /* Kernel files are decimal: a hex file is not a number to pna_read_u64
     * (strtoull with base 0 made it 4119), only to the reader that says hex. */
    write_file("hex", "0x1017\n");
    snprintf(p, sizeof p, "%s/hex", tmpdir);
    v = 7;
    CHECK_INT(pna_read_u64(p, &v), -EINVAL);
    CHECK_U64(v, 7);   /* untouched on error */
    CHECK_INT(pna_read_hex_u64(p, &v), 0);
    CHECK_U64(v, 0x1017);
    /* memory.current holding "010" is ten bytes, not eight. */
    write_file("octal", "010\n");
    snprintf(p, sizeof p, "%s/octal", tmpdir);
    CHECK_INT(pna_read_u64(p, &v), 0);
    CHECK_U64(v, 10);
    /* iWARP devices have no PMA: the counter is absent, not zero. */
    write_file("na", "N/A (no PMA)\n");
    snprintf(p, sizeof p, "%s/na", tmpdir);
    CHECK_INT(pna_read_u64(p, &v), -EINVAL);
    write_file("big", "99999999999999999999999\n");
    snprintf(p, sizeof p, "%s/big", tmpdir);
    CHECK_INT(pna_read_u64(p, &v), -ERANGE);
    snprintf(p, sizeof p, "%s/missing", tmpdir);
    CHECK_INT(pna_read_u64(p, &v), -ENOENT);
}

/* The attack: numbers read as C literals.  Each case below was accepted,
 * with another value, by the strtoull(text, &end, 0) parser. */
static void test_decimal_only(void)
{
    uint64_t v = 0;
    CHECK_INT(pna_parse_u64("010", &v), 0);
    CHECK_U64(v, 10);                                 /* was 8 */
    CHECK_INT(pna_parse_u64("0010\n", &v), 0);
    CHECK_U64(v, 10);
    CHECK_INT(pna_parse_u64("0", &v), 0);
    CHECK_U64(v, 0);
    CHECK_INT(pna_parse_u64("  42 \n", &v), 0);
    CHECK_U64(v, 42);
    CHECK_INT(pna_parse_u64("0x10", &v), -EINVAL);    /* was 16 */
    CHECK_INT(pna_parse_u64("0X10", &v), -EINVAL);
    CHECK_INT(pna_parse_u64("0x", &v), -EINVAL);
    CHECK_INT(pna_parse_u64("1e3", &v), -EINVAL);
    CHECK_INT(pna_parse_u64("-1", &v), -EINVAL);
    CHECK_INT(pna_parse_u64("+1", &v), -EINVAL);
    CHECK_INT(pna_parse_u64("", &v), -EINVAL);
    CHECK_INT(pna_parse_u64(" \n", &v), -EINVAL);
    CHECK_INT(pna_parse_u64("1 2", &v), -EINVAL);
    CHECK_INT(pna_parse_u64("12kB", &v), -EINVAL);
    CHECK_INT(pna_parse_u64("18446744073709551615", &v), 0);
    CHECK_U64(v, UINT64_MAX);
    CHECK_INT(pna_parse_u64("18446744073709551616", &v), -ERANGE);
    CHECK_INT(pna_parse_u64("18446744073709551619", &v), -ERANGE);
    CHECK_INT(pna_parse_u64("18446744073709551620", &v), -ERANGE);
    CHECK_INT(pna_parse_u64("99999999999999999999", &v), -ERANGE);
    CHECK_INT(pna_parse_u64("18446744073709551614", &v), 0);
    CHECK_U64(v, UINT64_MAX - 1);
    CHECK_INT(pna_parse_u64("0000000000000000000000000000018446744073709551615", &v), 0);
    CHECK_U64(v, UINT64_MAX);
}

/* The few hex files (an InfiniBand port's lid: "0x1a7") say so by their reader. */
static void test_hex(void)
{
    uint64_t v = 0;
    CHECK_INT(pna_parse_hex_u64("0x1a7\n", &v), 0);
    CHECK_U64(v, 0x1a7);
    CHECK_INT(pna_parse_hex_u64("0X1A7", &v), 0);
    CHECK_U64(v, 0x1a7);
    CHECK_INT(pna_parse_hex_u64("1a7", &v), 0);
    CHECK_U64(v, 0x1a7);
    CHECK_INT(pna_parse_hex_u64("010", &v), 0);
    CHECK_U64(v, 0x10);
    CHECK_INT(pna_parse_hex_u64("0x0", &v), 0);
    CHECK_U64(v, 0);
    CHECK_INT(pna_parse_hex_u64("ffffffffffffffff", &v), 0);
    CHECK_U64(v, UINT64_MAX);
    CHECK_INT(pna_parse_hex_u64("0x10000000000000000", &v), -ERANGE);
    CHECK_INT(pna_parse_hex_u64("fffffffffffffffff", &v), -ERANGE);
    CHECK_INT(pna_parse_hex_u64("0xfffffffffffffffe", &v), 0);
    CHECK_U64(v, UINT64_MAX - 1);
    CHECK_INT(pna_parse_hex_u64("0x", &v), -EINVAL);
    CHECK_INT(pna_parse_hex_u64("0xg", &v), -EINVAL);
    CHECK_INT(pna_parse_hex_u64("-0x1", &v), -EINVAL);
    CHECK_INT(pna_parse_hex_u64("0x0x1", &v), -EINVAL);
    CHECK_INT(pna_parse_hex_u64("", &v), -EINVAL);
}

/* Fields of a line: "cpu  4705 150 ..." and "MemTotal:  16314340 kB". */
static void test_scan(void)
{
    uint64_t v = 0;
    const char *line = "  4705\t150 9\nnext 5", *p = line;
    CHECK_INT(pna_scan_u64(&p, &v), 0);
    CHECK_U64(v, 4705);
    CHECK_INT(pna_scan_u64(&p, &v), 0);
    CHECK_U64(v, 150);
    CHECK_INT(pna_scan_u64(&p, &v), 0);
    CHECK_U64(v, 9);
    const char *at_eol = p;
    CHECK_INT(pna_scan_u64(&p, &v), -EINVAL);   /* does not run onto the next line */
    CHECK(p == at_eol);
    const char *kb = "  16314340 kB";
    p = kb;
    CHECK_INT(pna_scan_u64(&p, &v), 0);
    CHECK_U64(v, 16314340);
    CHECK_STR(p, " kB");
    const char *bad[] = { "0x10 kB", "-5 kB", "+5", "12kB", "1.5", "", "kB" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        p = bad[i];
        v = 99;
        CHECK_INT(pna_scan_u64(&p, &v), -EINVAL);
        CHECK(p == bad[i]);
        CHECK_U64(v, 99);
    }
    p = "99999999999999999999 kB";
    CHECK_INT(pna_scan_u64(&p, &v), -ERANGE);
}

/* A file read through its directory's descriptor. */
static void test_read_at(void)
{
    char buf[32];
    write_file("at", "oom_kill 3\n");
    int fd = open(tmpdir, O_RDONLY | O_DIRECTORY);
    CHECK(fd >= 0);
    CHECK_INT(pna_read_text_at(fd, "at", buf, sizeof buf), 10);
    CHECK_STR(buf, "oom_kill 3");
    CHECK_INT(pna_read_text_at(fd, "missing", buf, sizeof buf), -ENOENT);
    CHECK_STR(buf, "");
    CHECK_INT(pna_read_text_at(fd, "at", buf, 4), -EFBIG);
    close(fd);
}

static void test_text_bounds(void)
{
    char p[512], buf[8];
    write_file("long", "0123456789\n");
    snprintf(p, sizeof p, "%s/long", tmpdir);
    CHECK_INT(pna_read_text(p, buf, sizeof buf), -EFBIG);
    write_file("fit", "0123456\n");
    snprintf(p, sizeof p, "%s/fit", tmpdir);
    CHECK_INT(pna_read_text(p, buf, sizeof buf), 7);
    CHECK_STR(buf, "0123456");

    /* The same bounds for one-read attributes, opened by name or kept open
     * and read from their start (pread: a second read gives the same). */
    int dir = open(tmpdir, O_RDONLY | O_DIRECTORY);
    CHECK(dir >= 0);
    CHECK_INT(pna_read_attr_at(dir, "long", buf, sizeof buf), -EFBIG);
    CHECK_INT(pna_read_attr_at(dir, "fit", buf, sizeof buf), 7);
    int fd = pna_open_attr_at(dir, "fit");
    CHECK(fd >= 0);
    for (int i = 0; i < 2; i++) {
        CHECK_INT(pna_read_attr_fd(fd, buf, sizeof buf), 7);
        CHECK_STR(buf, "0123456");
    }
    close(fd);
    fd = pna_open_attr_at(dir, "long");
    CHECK_INT(pna_read_attr_fd(fd, buf, sizeof buf), -EFBIG);
    CHECK_STR(buf, "");
    close(fd);
    CHECK_INT(pna_open_attr_at(dir, "missing"), -ENOENT);
    close(dir);
}

/* A FIFO with no writer must not block the reader. */
static void test_fifo_does_not_block(void)
{
    char p[512], buf[16];
    snprintf(p, sizeof p, "%s/fifo", tmpdir);
    CHECK_INT(mkfifo(p, 0600), 0);
    int rc = pna_read_text(p, buf, sizeof buf);
    CHECK(rc == 0 || rc == -EAGAIN);
    char *big = NULL;
    size_t len = 0;
    rc = pna_read_alloc(p, 1024, &big, &len);
    CHECK(rc == 0 || rc == -EAGAIN);
    free(big);
}

static void test_alloc(void)
{
    char p[512];
    char *data = NULL;
    size_t len = 0;
    write_file("json", "{\"a\": 1}\n");
    snprintf(p, sizeof p, "%s/json", tmpdir);
    CHECK_INT(pna_read_alloc(p, 1024, &data, &len), 0);
    CHECK_INT(len, 9);
    CHECK_STR(data, "{\"a\": 1}\n");
    free(data);
    CHECK_INT(pna_read_alloc(p, 4, &data, &len), -EFBIG);
}

int main(void)
{
    if (!mkdtemp(tmpdir))
        return 99;
    test_path();
    test_numbers();
    test_decimal_only();
    test_hex();
    test_scan();
    test_read_at();
    test_text_bounds();
    test_fifo_does_not_block();
    test_alloc();
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", tmpdir);
    UNIT_END();
}
