/* test_fileio.c -- bounded, non-blocking reads and path joining. */
#include "pna_autoconf.h"
#include "util/fileio.h"
#include "unit.h"

#include <errno.h>
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
    write_file("hex", "0x1017\n");
    snprintf(p, sizeof p, "%s/hex", tmpdir);
    CHECK_INT(pna_read_u64(p, &v), 0);
    CHECK_U64(v, 0x1017);
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
    test_text_bounds();
    test_fifo_does_not_block();
    test_alloc();
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", tmpdir);
    UNIT_END();
}
