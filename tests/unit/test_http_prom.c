/* test_http_prom.c -- the Prometheus text writer and the response buffer:
 * escaping, HELP/TYPE once per family, the counter "_total" rule, name checks,
 * UTF-8 clean-up, exact number formatting, and a buffer that grows without a
 * fixed limit. */
#include "pna_autoconf.h"
#include "http/buf.h"
#include "http/render/prom.h"
#include "unit.h"

#include <string.h>

static int count_substr(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

static void test_buf_grows(void)
{
    struct pna_buf b;
    pna_buf_init(&b);
    CHECK_STR(pna_buf_cstr(&b), "");
    /* 3 MiB through printf and append: no truncation anywhere. */
    for (int i = 0; i < 100000; i++)
        pna_buf_printf(&b, "line %06d %s\n", i, "0123456789");
    CHECK_U64(b.len, 100000u * 23u);
    CHECK(!b.failed);
    CHECK(strncmp(b.data + b.len - 23, "line 099999 0123456789\n", 23) == 0);
    char big[10000];
    memset(big, 'x', sizeof big);
    pna_buf_append(&b, big, sizeof big);
    CHECK_U64(b.len, 100000u * 23u + sizeof big);
    CHECK_INT(b.data[b.len], 0);
    size_t len;
    char *p = pna_buf_steal(&b, &len);
    CHECK_U64(len, 100000u * 23u + sizeof big);
    CHECK(b.data == NULL && b.len == 0);
    free(p);
    pna_buf_free(&b);
}

static void test_utf8(void)
{
    struct pna_buf b;
    pna_buf_init(&b);
    /* valid: ASCII, 2-, 3- and 4-byte forms kept */
    pna_buf_put_utf8(&b, "a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80z");
    CHECK_STR(pna_buf_cstr(&b), "a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80z");
    pna_buf_reset(&b);
    /* invalid: stray continuation, overlong '/', truncated sequence, surrogate */
    pna_buf_put_utf8(&b, "\x80" "\xc0\xaf" "\xe2\x82" "\xed\xa0\x80" "!");
    CHECK_STR(pna_buf_cstr(&b), "???" "??" "???" "!");
    pna_buf_free(&b);
}

static void test_escaping(void)
{
    struct pna_buf b;
    pna_buf_init(&b);
    pna_prom_escape_label(&b, "a\\b\"c\nd");
    CHECK_STR(pna_buf_cstr(&b), "a\\\\b\\\"c\\nd");
    pna_buf_reset(&b);
    /* HELP text escapes backslash and newline but not the double quote */
    pna_prom_escape_help(&b, "say \"hi\"\\\n");
    CHECK_STR(pna_buf_cstr(&b), "say \"hi\"\\\\\\n");
    pna_buf_reset(&b);
    pna_prom_escape_label(&b, "bad\xff byte");
    CHECK_STR(pna_buf_cstr(&b), "bad? byte");
    pna_buf_free(&b);
}

static void test_names(void)
{
    CHECK(pna_prom_valid_name("primus_gpu_power_watts"));
    CHECK(pna_prom_valid_name("_x1"));
    CHECK(!pna_prom_valid_name("1abc"));
    CHECK(!pna_prom_valid_name("a-b"));
    CHECK(!pna_prom_valid_name("a:b"));     /* colons are for recording rules */
    CHECK(!pna_prom_valid_name(""));
    CHECK(pna_prom_valid_label_name("gpu_id"));
    CHECK(!pna_prom_valid_label_name("__name__"));
    CHECK(!pna_prom_valid_label_name("9x"));
    char n[64];
    pna_prom_name_join(n, sizeof n, "rdma_stat_", "rx-read.requests:x");
    CHECK_STR(n, "rdma_stat_rx_read_requests_x");
    pna_prom_name_join(n, sizeof n, "", "9lives");
    CHECK_STR(n, "_lives");
    pna_prom_name_join(n, 8, "abcdef", "ghij");
    CHECK_STR(n, "abcdefg");
}

static void test_families(void)
{
    struct pna_buf b;
    pna_buf_init(&b);
    struct pna_prom p;
    pna_prom_init(&p, &b);

    const struct pna_prom_label l1[] = { { "device", "mlx5_0" }, { "port", "1" } };
    const struct pna_prom_label l2[] = { { "device", "mlx5_1" }, { "port", "1" } };
    CHECK_INT(pna_prom_family(&p, "x_bytes_total", PNA_PROM_COUNTER, "Bytes.\nSecond line"), 0);
    pna_prom_u64(&p, l1, 2, 18446744073709551615ULL);
    pna_prom_u64(&p, l2, 2, 0);
    /* a family with no sample leaves nothing */
    pna_prom_family(&p, "empty_family", PNA_PROM_GAUGE, "never written");
    pna_prom_family(&p, "temp_celsius", PNA_PROM_GAUGE, "T");
    pna_prom_i64(&p, NULL, 0, -5);
    pna_prom_family(&p, "hw_gpu_count", PNA_PROM_UNTYPED, "a replaced exporter's name");
    pna_prom_u64(&p, NULL, 0, 8);

    const char *t = pna_buf_cstr(&b);
    CHECK(strstr(t, "# HELP x_bytes_total Bytes.\\nSecond line\n# TYPE x_bytes_total counter\n"
                    "x_bytes_total{device=\"mlx5_0\",port=\"1\"} 18446744073709551615\n"
                    "x_bytes_total{device=\"mlx5_1\",port=\"1\"} 0\n") == t);
    CHECK(strstr(t, "empty_family") == NULL);
    CHECK(strstr(t, "# TYPE temp_celsius gauge\ntemp_celsius -5\n") != NULL);
    CHECK(strstr(t, "# TYPE hw_gpu_count untyped\nhw_gpu_count 8\n") != NULL);
    CHECK_INT(count_substr(t, "# HELP "), 3);
    CHECK_INT(count_substr(t, "# TYPE "), 3);
    CHECK_U64(p.families, 3);
    CHECK_U64(p.samples, 4);
    CHECK_U64(p.errors, 0);

    /* starting a family again (a bug) writes no second header and is counted */
    pna_prom_family(&p, "x_bytes_total", PNA_PROM_COUNTER, "again");
    pna_prom_u64(&p, NULL, 0, 1);
    CHECK_INT(count_substr(pna_buf_cstr(&b), "# TYPE x_bytes_total"), 1);
    CHECK_U64(p.errors, 1);

    /* a counter without _total, a bad metric name, a bad label name: dropped */
    size_t before = b.len;
    CHECK_INT(pna_prom_family(&p, "uptime_seconds", PNA_PROM_COUNTER, "x"), -1);
    pna_prom_u64(&p, NULL, 0, 1);
    CHECK_INT(pna_prom_family(&p, "bad-name", PNA_PROM_GAUGE, "x"), -1);
    pna_prom_u64(&p, NULL, 0, 1);
    pna_prom_family(&p, "good_name", PNA_PROM_GAUGE, "x");
    const struct pna_prom_label bad[] = { { "bad-label", "v" } };
    pna_prom_u64(&p, bad, 1, 1);
    CHECK_U64(b.len, before);
    CHECK_U64(p.errors, 4);

    pna_prom_free(&p);
    pna_buf_free(&b);
}

static void test_many_families(void)
{
    /* Past the name set's first sizes: every header still written once. */
    struct pna_buf b;
    pna_buf_init(&b);
    struct pna_prom p;
    pna_prom_init(&p, &b);
    char name[64];
    for (int i = 0; i < 2000; i++) {
        snprintf(name, sizeof name, "rdma_stat_counter_%d", i);
        pna_prom_family(&p, name, PNA_PROM_UNTYPED, "h");
        pna_prom_u64(&p, NULL, 0, (uint64_t)i);
    }
    for (int i = 0; i < 2000; i += 97) {
        snprintf(name, sizeof name, "rdma_stat_counter_%d", i);
        pna_prom_family(&p, name, PNA_PROM_UNTYPED, "h");
        pna_prom_u64(&p, NULL, 0, 1);
    }
    CHECK_U64(p.families, 2000);
    CHECK_U64(p.errors, 21);
    CHECK_INT(count_substr(pna_buf_cstr(&b), "# TYPE "), 2000);
    pna_prom_free(&p);
    pna_buf_free(&b);
}

static const char *render_fixed(int64_t v, unsigned decimals)
{
    static char out[64];
    struct pna_buf b;
    pna_buf_init(&b);
    struct pna_prom p;
    pna_prom_init(&p, &b);
    pna_prom_family(&p, "v", PNA_PROM_GAUGE, "");
    pna_prom_fixed(&p, NULL, 0, v, decimals);
    snprintf(out, sizeof out, "%s", strstr(pna_buf_cstr(&b), "\nv ") + 3);
    out[strcspn(out, "\n")] = '\0';
    pna_prom_free(&p);
    pna_buf_free(&b);
    return out;
}

static const char *render_double(double v)
{
    static char out[64];
    struct pna_buf b;
    pna_buf_init(&b);
    struct pna_prom p;
    pna_prom_init(&p, &b);
    pna_prom_family(&p, "v", PNA_PROM_GAUGE, "");
    pna_prom_double(&p, NULL, 0, v);
    snprintf(out, sizeof out, "%s", strstr(pna_buf_cstr(&b), "\nv ") + 3);
    out[strcspn(out, "\n")] = '\0';
    pna_prom_free(&p);
    pna_buf_free(&b);
    return out;
}

static void test_numbers(void)
{
    CHECK_STR(render_fixed(1234, 4), "0.1234");
    CHECK_STR(render_fixed(10000, 4), "1");
    CHECK_STR(render_fixed(5, 4), "0.0005");
    CHECK_STR(render_fixed(1500, 3), "1.5");
    CHECK_STR(render_fixed(-5, 1), "-0.5");
    CHECK_STR(render_fixed(0, 2), "0");
    CHECK_STR(render_fixed(INT64_MIN, 0), "-9223372036854775808");
    CHECK_STR(render_fixed(1795358394123, 3), "1795358394.123");
    CHECK_STR(render_double(0.1), "0.1");
    CHECK_STR(render_double(1.0 / 3.0), "0.33333333333333331");
    CHECK_STR(render_double(0.0 / 0.0), "NaN");
    CHECK_STR(render_double(-1.0 / 0.0), "-Inf");
}

int main(void)
{
    test_buf_grows();
    test_utf8();
    test_escaping();
    test_names();
    test_families();
    test_many_families();
    test_numbers();
    UNIT_END();
}
