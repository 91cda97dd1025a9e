/* test_module.c -- the module EEPROM reader and decoders (sources/phy/
 * module.c, sff8636.c, cmis.c) on the images of tests/fixtures/module/.
 *
 * Those images are BUILT from the specifications by build_images.py, not
 * dumped from modules (no real dump was available; see the README there).
 * Two carry the values of real `ethtool -m` captures, stored beside them:
 * their every decoded value is checked against the capture's text, parsed
 * here, with the capture's units and rounding (mA, mW, V, degrees C and F).
 * The other two (a QSFP28 and an SFP) hold made-up values, repeated below.
 * Then malformed input: short images, a failing read, impossible fields. */
#include "pna_autoconf.h"
#include "sources/phy/module.h"

#include <ctype.h>
#include <stdint.h>

#include "unit.h"
#include "util/fileio.h"

#define ARISTA_IMAGE "arista-qdd-400g-xdr4-cmis4.bin"
#define ARISTA_TEXT "arista-qdd-400g-xdr4-cmis4-ethtool-m.txt"
#define MELLANOX_IMAGE "mellanox-mcp1660-qsfpdd-dac-cmis3.bin"
#define MELLANOX_TEXT "mellanox-mcp1660-qsfpdd-dac-ethtool-m.txt"
#define QSFP28_IMAGE "qsfp28-sff8636-made-up.bin"
#define SFP_IMAGE "sfp-sff8472-made-up.bin"

/* ---- the images and the read callback ------------------------------------ */

/* An image as build_images.py lays it out: page 00h (256 bytes), then the
 * upper halves of pages 01h, 02h, 03h and 11h. */
struct image {
    uint8_t *data;
    size_t len;
    int fail_page;               /* a page whose read fails, -1 none */
    char reads[64];              /* the pages asked for, "00 00u 01u ..." */
};

static long slot_of(uint8_t page)
{
    switch (page) {
    case 0x01: return 256;
    case 0x02: return 384;
    case 0x03: return 512;
    case 0x11: return 640;
    default: return -1;
    }
}

static int serve(void *arg, uint8_t i2c_addr, uint8_t page, uint8_t bank, uint32_t offset,
                 uint32_t length, uint8_t *buf, char *err, size_t errlen)
{
    struct image *img = arg;
    size_t used = strlen(img->reads);
    snprintf(img->reads + used, sizeof img->reads - used, "%s%02x%s", used ? " " : "", page,
             offset >= 128 ? "u" : "");
    /* What the kernel accepts: address A0h, bank 0 here, no read across the
     * lower/upper boundary. */
    CHECK_INT(i2c_addr, 0x50);
    CHECK_INT(bank, 0);
    CHECK(offset + length <= 256 && (offset >= 128 || offset + length <= 128));
    if (page == img->fail_page) {
        snprintf(err, errlen, "injected failure");
        return -1;
    }
    long at = page == 0 ? (long)offset : slot_of(page);
    if (at < 0 || (page != 0 && offset < 128)) {
        snprintf(err, errlen, "no such page in the image");
        return -1;
    }
    if (page != 0)
        at += (long)offset - 128;
    if ((size_t)at + length > img->len) {
        snprintf(err, errlen, "beyond the image's %zu bytes", img->len);
        return -1;
    }
    memcpy(buf, img->data + at, length);
    return 0;
}

static struct image load(const char *name)
{
    char path[PATH_MAX];
    char *data = NULL;
    size_t len = 0;
    snprintf(path, sizeof path, "%s/module/%s", unit_fixtures(), name);
    if (pna_read_alloc(path, 65536, &data, &len) != 0) {
        fprintf(stderr, "cannot read %s\n", path);
        exit(99);
    }
    return (struct image){(uint8_t *)data, len, -1, ""};
}

static int read_image(struct image *img, struct pna_module *m, char *err, size_t errlen)
{
    img->reads[0] = '\0';
    err[0] = '\0';
    return pna_module_read(serve, img, m, err, errlen);
}

/* ---- the capture text ------------------------------------------------------ */

#define MAX_FIELDS 256

struct capture {
    char key[MAX_FIELDS][64];
    char value[MAX_FIELDS][96];
    int n;
};

/* "Key   : value" lines; the key's inner runs of spaces squeezed to one. */
static void load_capture(const char *name, struct capture *c)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/module/%s", unit_fixtures(), name);
    FILE *f = fopen(path, "r");
    if (!f) {
        perror(path);
        exit(99);
    }
    char line[256];
    c->n = 0;
    while (fgets(line, sizeof line, f) && c->n < MAX_FIELDS) {
        char *colon = strstr(line, ": ");
        if (!colon)
            continue;
        *colon = '\0';
        char *k = c->key[c->n], *v = colon + 2;
        size_t n = 0;
        for (char *s = line; *s && n + 1 < sizeof c->key[0]; s++)
            if (!isspace((unsigned char)*s) || (n && k[n - 1] != ' '))
                k[n++] = isspace((unsigned char)*s) ? ' ' : *s;
        while (n && k[n - 1] == ' ')
            n--;
        k[n] = '\0';
        v[strcspn(v, "\n")] = '\0';
        snprintf(c->value[c->n], sizeof c->value[0], "%s", v);
        c->n++;
    }
    fclose(f);
}

static const char *field(const struct capture *c, const char *key)
{
    for (int i = 0; i < c->n; i++)
        if (strcmp(c->key[i], key) == 0)
            return c->value[i];
    fprintf(stderr, "capture has no \"%s\"\n", key);
    exit(99);
}

static bool on(const struct capture *c, const char *key)
{
    const char *v = field(c, key);
    if (strcmp(v, "On") != 0 && strcmp(v, "Off") != 0) {
        fprintf(stderr, "\"%s\" is neither On nor Off: %s\n", key, v);
        exit(99);
    }
    return strcmp(v, "On") == 0;
}

/* A decimal with exactly DECIMALS digits after the point ("-5.00",
 * "83.806"), as an integer of its last digit's unit: exact, no floats. */
static int64_t fixed(const char *s, int decimals)
{
    bool neg = *s == '-';
    s += neg;
    int64_t v = 0;
    int after = -1;
    for (; isdigit((unsigned char)*s) || *s == '.'; s++) {
        if (*s == '.') {
            after = 0;
            continue;
        }
        v = v * 10 + (*s - '0');
        after += after >= 0;
    }
    if (after != decimals) {
        fprintf(stderr, "\"%s\": expected %d decimals\n", s, decimals);
        exit(99);
    }
    return neg ? -v : v;
}

static int64_t round_div(int64_t n, int64_t d)
{
    return n >= 0 ? (n + d / 2) / d : -((-n + d / 2) / d);
}

/* "70.49 degrees C / 158.89 degrees F" against thousandths of a degree:
 * both as ethtool rounds them, to hundredths. */
static void check_temperature(const char *text, int64_t mc)
{
    const char *f = strstr(text, "/ ");
    CHECK(f != NULL);
    if (!f)
        return;
    CHECK_INT(round_div(mc, 10), fixed(text, 2));
    CHECK_INT(round_div(mc * 9 + 160000, 50), fixed(f + 2, 2));
}

static int64_t microvolts(const char *text) /* "3.2186 V" */
{
    return fixed(text, 4) * 100;
}

static int64_t microamperes(const char *text) /* "83.806 mA" */
{
    return fixed(text, 3);
}

static int64_t tenth_microwatts(const char *text) /* "1.5975 mW / 2.03 dBm" */
{
    return fixed(text, 4);
}

/* ---- the capture against the decoded module -------------------------------- */

static void check_identity(const struct capture *c, const struct pna_module *m)
{
    const char *id = field(c, "Identifier");
    CHECK_INT(m->identifier, strtol(id, NULL, 16));
    const char *paren = strchr(id, '(');
    CHECK(m->identifier_text[0] != '\0');
    CHECK(paren && strncmp(paren + 1, m->identifier_text, strlen(m->identifier_text)) == 0);
    const char *rev = field(c, "Revision compliance");
    CHECK(strncmp(rev, "Rev. ", 5) == 0);
    CHECK_STR(m->spec_revision, rev + 5);
    CHECK_STR(m->vendor, field(c, "Vendor name"));
    CHECK_STR(m->vendor_oui, field(c, "Vendor OUI"));
    CHECK_STR(m->part_number, field(c, "Vendor PN"));
    CHECK_STR(m->revision, field(c, "Vendor rev"));
    CHECK_STR(m->serial, field(c, "Vendor SN"));
    /* The date code is an 8-byte field; the Mellanox capture prints a "_"
     * after it (an artefact of the parser that printed it). */
    char date[9];
    snprintf(date, sizeof date, "%s", field(c, "Date code"));
    for (size_t n = strlen(date); n && date[n - 1] == ' ';)
        date[--n] = '\0';
    CHECK_STR(m->date_code, date);
}

static const char *const KINDS[4] = {"high alarm", "low alarm", "high warning", "low warning"};
static const unsigned BITS[4] = {PNA_MODULE_FLAG_HIGH_ALARM, PNA_MODULE_FLAG_LOW_ALARM,
                                 PNA_MODULE_FLAG_HIGH_WARNING, PNA_MODULE_FLAG_LOW_WARNING};

static void check_flags(const struct capture *c, const char *fmt, int lane, uint8_t flags)
{
    char key[96];
    for (int k = 0; k < 4; k++) {
        snprintf(key, sizeof key, fmt, KINDS[k], lane);
        CHECK_INT(!!(flags & BITS[k]), on(c, key));
    }
}

static void check_lane(const struct capture *c, const struct pna_module *m, int n)
{
    const struct pna_module_lane *l = &m->lane[n - 1];
    char key[96];
    snprintf(key, sizeof key, "Laser tx bias current (Channel %d)", n);
    int64_t bias = microamperes(field(c, key));
    snprintf(key, sizeof key, "Transmit avg optical power (Channel %d)", n);
    int64_t tx = tenth_microwatts(field(c, key));
    snprintf(key, sizeof key, "Rcvr signal avg optical power (Channel %d)", n);
    int64_t rx = tenth_microwatts(field(c, key));
    if ((uint32_t)n > m->lanes) {
        /* A media lane the module does not have (4 lasers of 8 host lanes):
         * dark in the capture, not described by the decoder. */
        CHECK(!l->has_bias && !l->has_tx_power && !l->has_rx_power && !l->has_flags);
        CHECK(bias == 0 && tx == 0 && rx == 0);
        return;
    }
    CHECK(l->has_bias && l->has_tx_power && l->has_rx_power && l->has_flags);
    CHECK_INT(l->bias_ua, bias);
    CHECK_INT(l->tx_power_dw, tx);
    CHECK_INT(l->rx_power_dw, rx);
    check_flags(c, "Laser bias current %s (Chan %d)", n, l->bias_flags);
    check_flags(c, "Laser tx power %s (Channel %d)", n, l->tx_power_flags);
    check_flags(c, "Laser rx power %s (Channel %d)", n, l->rx_power_flags);
}

static void thresholds_text(const struct capture *c, const char *prefix, const char *out[4])
{
    static char keys[4][96];
    for (int k = 0; k < 4; k++) {
        snprintf(keys[k], sizeof keys[k], "%s %s threshold", prefix, KINDS[k]);
        out[k] = field(c, keys[k]);
    }
}

static void check_thresholds(const struct capture *c, const char *prefix,
                             const struct pna_module_thresholds *t,
                             int64_t (*unit)(const char *))
{
    const char *text[4];
    thresholds_text(c, prefix, text);
    CHECK(t->present);
    CHECK_INT(t->high_alarm, unit(text[0]));
    CHECK_INT(t->low_alarm, unit(text[1]));
    CHECK_INT(t->high_warning, unit(text[2]));
    CHECK_INT(t->low_warning, unit(text[3]));
}

static void check_temp_thresholds(const struct capture *c, const struct pna_module_thresholds *t)
{
    const char *text[4];
    thresholds_text(c, "Module temperature", text);
    CHECK(t->present);
    check_temperature(text[0], t->high_alarm);
    check_temperature(text[1], t->low_alarm);
    check_temperature(text[2], t->high_warning);
    check_temperature(text[3], t->low_warning);
}

static void test_arista(void)
{
    struct capture *c = calloc(1, sizeof *c);
    load_capture(ARISTA_TEXT, c);
    struct image img = load(ARISTA_IMAGE);
    struct pna_module m;
    char err[160];
    CHECK_INT(read_image(&img, &m, err, sizeof err), 0);
    CHECK_STR(err, "");
    CHECK_STR(img.reads, "00 00u 01u 02u 11u");
    CHECK(m.present);
    CHECK_INT(m.spec, PNA_MODULE_SPEC_CMIS);
    CHECK(!m.flat_memory);
    check_identity(c, &m);
    /* Not in the capture: the application the image was built with
     * (400GBASE-DR4, 4 media lanes), as the part number says. */
    CHECK_STR(m.media, "400GBASE-DR4");
    CHECK_INT(m.lanes, 4);

    CHECK(m.has_temperature && m.has_voltage && m.has_module_flags);
    check_temperature(field(c, "Module temperature"), m.temperature_mc);
    CHECK_INT(m.voltage_uv, microvolts(field(c, "Module voltage")));
    check_flags(c, "Module temperature %s%.0d", 0, m.temperature_flags);
    check_flags(c, "Module voltage %s%.0d", 0, m.voltage_flags);
    CHECK_INT(m.temperature_flags, PNA_MODULE_FLAG_HIGH_WARNING);
    for (int n = 1; n <= 8; n++)
        check_lane(c, &m, n);

    check_temp_thresholds(c, &m.temperature_thr);
    check_thresholds(c, "Module voltage", &m.voltage_thr, microvolts);
    check_thresholds(c, "Laser bias current", &m.bias_thr, microamperes);
    check_thresholds(c, "Laser output power", &m.tx_power_thr, tenth_microwatts);
    check_thresholds(c, "Laser rx power", &m.rx_power_thr, tenth_microwatts);
    free(img.data);
    free(c);
}

static void test_mellanox_flat(void)
{
    struct capture *c = calloc(1, sizeof *c);
    load_capture(MELLANOX_TEXT, c);
    struct image img = load(MELLANOX_IMAGE);
    struct pna_module m;
    char err[160];
    CHECK_INT(read_image(&img, &m, err, sizeof err), 0);
    CHECK_STR(img.reads, "00 00u"); /* flat memory: no other page asked for */
    CHECK(m.present && m.flat_memory);
    CHECK_INT(m.spec, PNA_MODULE_SPEC_CMIS);
    check_identity(c, &m);
    /* The passive cable's 0.00 degrees and 0.0000 V are no readings: absent. */
    CHECK_INT(fixed(field(c, "Module temperature"), 2), 0);
    CHECK_INT(fixed(field(c, "Module voltage"), 4), 0);
    CHECK(!m.has_temperature && !m.has_voltage && !m.has_module_flags);
    CHECK(!m.temperature_thr.present && !m.voltage_thr.present && !m.bias_thr.present &&
          !m.tx_power_thr.present && !m.rx_power_thr.present);
    for (int i = 0; i < PNA_MODULE_MAX_LANES; i++)
        CHECK(!m.lane[i].has_bias && !m.lane[i].has_tx_power && !m.lane[i].has_rx_power &&
              !m.lane[i].has_flags);
    /* Not in the capture: the application the image was built with. */
    CHECK_STR(m.media, "Copper cable");
    CHECK_INT(m.lanes, 8);
    free(img.data);
    free(c);
}

/* ---- the made-up images ------------------------------------------------------ */

static void test_qsfp28(void)
{
    struct image img = load(QSFP28_IMAGE);
    struct pna_module m;
    char err[160];
    CHECK_INT(read_image(&img, &m, err, sizeof err), 0);
    CHECK_STR(img.reads, "00 00u 03u");
    CHECK_INT(m.spec, PNA_MODULE_SPEC_SFF8636);
    CHECK_INT(m.identifier, 0x11);
    CHECK_STR(m.identifier_text, "QSFP28 or later with SFF-8636");
    CHECK_STR(m.spec_revision, "2.8-2.10");
    CHECK_STR(m.vendor, "SPEC-BUILT");
    CHECK_STR(m.vendor_oui, "ac:de:48");
    CHECK_STR(m.part_number, "QSFP28-SR4-TEST");
    CHECK_STR(m.revision, "B1");
    CHECK_STR(m.serial, "SN0000000001");
    CHECK_STR(m.date_code, "230115AB");
    CHECK_STR(m.media, "100GBASE-SR4 or 25GBASE-SR");
    CHECK_INT(m.lanes, 4);
    CHECK(m.has_temperature && m.has_voltage && m.has_module_flags);
    CHECK_INT(m.temperature_mc, 41500);      /* 10624 / 256 degrees */
    CHECK_INT(m.voltage_uv, 3294500);        /* 32945 x 100 uV */
    CHECK_INT(m.temperature_flags, PNA_MODULE_FLAG_HIGH_WARNING);
    CHECK_INT(m.voltage_flags, 0);
    static const uint32_t rx[4] = {8123, 7950, 412, 8800}, bias[4] = {3300, 3350, 3410, 3290},
                          tx[4] = {6512, 6600, 6403, 7010};
    for (int i = 0; i < 4; i++) {
        const struct pna_module_lane *l = &m.lane[i];
        CHECK(l->has_bias && l->has_tx_power && l->has_rx_power && l->has_flags);
        CHECK_INT(l->rx_power_dw, rx[i]);
        CHECK_INT(l->bias_ua, bias[i] * 2);  /* 2 uA units */
        CHECK_INT(l->tx_power_dw, tx[i]);
        CHECK_INT(l->rx_power_flags,
                  i == 2 ? PNA_MODULE_FLAG_LOW_ALARM | PNA_MODULE_FLAG_LOW_WARNING : 0);
        CHECK_INT(l->bias_flags, i == 1 ? PNA_MODULE_FLAG_HIGH_WARNING : 0);
        CHECK_INT(l->tx_power_flags, i == 3 ? PNA_MODULE_FLAG_HIGH_ALARM : 0);
    }
    CHECK(!m.lane[4].has_bias && !m.lane[4].has_flags);
    CHECK_INT(m.temperature_thr.high_alarm, 75000);
    CHECK_INT(m.temperature_thr.low_alarm, -5000);
    CHECK_INT(m.temperature_thr.high_warning, 70000);
    CHECK_INT(m.temperature_thr.low_warning, 0);
    CHECK_INT(m.voltage_thr.high_alarm, 3630000);
    CHECK_INT(m.voltage_thr.low_alarm, 2970000);
    CHECK_INT(m.voltage_thr.high_warning, 3465000);
    CHECK_INT(m.voltage_thr.low_warning, 3135000);
    CHECK_INT(m.rx_power_thr.high_alarm, 34674);
    CHECK_INT(m.rx_power_thr.low_warning, 2512);
    CHECK_INT(m.bias_thr.high_alarm, 15000);
    CHECK_INT(m.bias_thr.low_alarm, 2000);
    CHECK_INT(m.bias_thr.high_warning, 14000);
    CHECK_INT(m.bias_thr.low_warning, 3000);
    CHECK_INT(m.tx_power_thr.high_alarm, 31623);
    CHECK_INT(m.tx_power_thr.low_alarm, 1995);

    /* No TX power monitor (byte 220 bit 2 clear): TX power absent. */
    img.data[220] &= (uint8_t)~0x04;
    CHECK_INT(read_image(&img, &m, err, sizeof err), 0);
    CHECK(!m.lane[0].has_tx_power && m.lane[0].has_bias && !m.tx_power_thr.present);

    /* Flat memory (byte 2 bit 2): page 00h only, no diagnostics. */
    img.data[2] |= 0x04;
    img.len = 256;
    CHECK_INT(read_image(&img, &m, err, sizeof err), 0);
    CHECK_STR(img.reads, "00 00u");
    CHECK(m.present && m.flat_memory && !m.has_temperature && !m.has_voltage);
    CHECK(!m.lane[0].has_bias && !m.lane[0].has_flags && !m.bias_thr.present);
    CHECK_STR(m.serial, "SN0000000001");
    free(img.data);
}

static void test_sfp(void)
{
    struct image img = load(SFP_IMAGE);
    struct pna_module m;
    char err[160];
    CHECK_INT(read_image(&img, &m, err, sizeof err), 0);
    CHECK_STR(img.reads, "00"); /* A0h's first half is all it needs */
    CHECK(m.present);
    CHECK_INT(m.spec, PNA_MODULE_SPEC_SFF8472);
    CHECK_INT(m.identifier, 0x03);
    CHECK_STR(m.identifier_text, "SFP/SFP+/SFP28");
    CHECK_STR(m.spec_revision, "12.3");
    CHECK_STR(m.vendor, "SPEC-BUILT SFP");
    CHECK_STR(m.vendor_oui, "ac:de:48");
    CHECK_STR(m.part_number, "SFP-10G-SR-TEST");
    CHECK_STR(m.revision, "A");
    CHECK_STR(m.serial, "SFPSN00042");
    CHECK_STR(m.date_code, "210630");
    CHECK_STR(m.media, "10GBASE-SR");
    CHECK_INT(m.lanes, 1);
    CHECK(!m.has_temperature && !m.has_voltage && !m.has_module_flags);
    CHECK(!m.lane[0].has_bias && !m.temperature_thr.present);
    free(img.data);
}

/* ---- malformed input ----------------------------------------------------------- */

/* Reading IMG must fail with an error containing WHAT, and leave no module. */
static void expect_failure(struct image *img, const char *what)
{
    struct pna_module m;
    char err[160];
    memset(&m, 0xA5, sizeof m);
    CHECK_INT(read_image(img, &m, err, sizeof err), -1);
    CHECK(!m.present && m.spec == PNA_MODULE_SPEC_UNKNOWN && m.lanes == 0);
    if (!strstr(err, what)) {
        unit_checks++;
        unit_failures++;
        fprintf(stderr, "error \"%s\" does not say \"%s\"\n", err, what);
    }
}

static void test_malformed(void)
{
    struct image img = load(ARISTA_IMAGE);
    size_t full = img.len;

    img.fail_page = 0x11;
    expect_failure(&img, "upper page 11h: injected failure");
    img.fail_page = -1;

    img.len = 640; /* no page 11h */
    expect_failure(&img, "upper page 11h: beyond the image");
    img.len = 200; /* page 00h cut short */
    expect_failure(&img, "upper page 00h");
    img.len = 100;
    expect_failure(&img, "lower page 00h");
    img.len = full;

    img.data[0] = 0x1A; /* SFP-DD: its own management interface */
    expect_failure(&img, "identifier 0x1a");
    img.data[0] = 0x00;
    expect_failure(&img, "identifier 0x00 (Unknown or unspecified)");
    img.data[0] = 0x18;

    img.data[1] = 0x00;
    expect_failure(&img, "CMIS revision 0.0 does not exist");
    img.data[1] = 0x40;

    img.data[128] = 0x03; /* the upper page is an SFP's */
    expect_failure(&img, "upper page 00h identifier 0x03 contradicts");
    img.data[128] = 0x18;

    img.data[88] = 0x8A; /* 10 media lanes */
    expect_failure(&img, "application 1 claims 10 media lanes");
    img.data[88] = 0x84;

    uint8_t *lane_monitors = &img.data[256 + 160 - 128];
    *lane_monitors |= 0x18; /* bias multiplier 11b: reserved */
    expect_failure(&img, "reserved TX bias multiplier");

    /* Bias multiplier x2 (01b): twice the microamperes, thresholds too. */
    *lane_monitors = (uint8_t)((*lane_monitors & ~0x18) | 0x08);
    struct pna_module m;
    char err[160];
    CHECK_INT(read_image(&img, &m, err, sizeof err), 0);
    CHECK_INT(m.lane[0].bias_ua, 2 * 83806);
    CHECK_INT(m.bias_thr.high_alarm, 2 * 130000);
    *lane_monitors &= (uint8_t)~0x18;

    /* Page 01h says no RX power monitor: RX power absent, not zero. */
    *lane_monitors &= (uint8_t)~0x04;
    CHECK_INT(read_image(&img, &m, err, sizeof err), 0);
    CHECK(!m.lane[0].has_rx_power && m.lane[0].has_tx_power && !m.rx_power_thr.present);
    *lane_monitors |= 0x04;

    /* A vendor name with control characters and NUL padding. */
    memcpy(&img.data[129], "Ari\x07sta\x1b\0\0\0\0\0\0\0\0\0", 16);
    CHECK_INT(read_image(&img, &m, err, sizeof err), 0);
    CHECK_STR(m.vendor, "Ari?sta?");

    /* The decoders alone: a paged module without its pages, the wrong spec. */
    CHECK_INT(pna_cmis_decode(img.data, NULL, NULL, NULL, &m, err, sizeof err), -1);
    CHECK(strstr(err, "without its page 01h") != NULL);
    CHECK_INT(pna_sff8636_decode(img.data, NULL, &m, err, sizeof err), -1);
    CHECK(strstr(err, "is not an SFF-8636 module") != NULL);
    free(img.data);

    struct image q = load(QSFP28_IMAGE);
    CHECK_INT(pna_sff8636_decode(q.data, NULL, &m, err, sizeof err), -1);
    CHECK(strstr(err, "without its page 03h") != NULL);
    CHECK_INT(pna_cmis_decode(q.data, q.data + 256, q.data + 384, q.data + 640, &m, err,
                              sizeof err),
              -1);
    CHECK(strstr(err, "is not a CMIS module") != NULL);
    q.len = 512; /* no page 03h */
    expect_failure(&q, "upper page 03h: beyond the image");
    free(q.data);
}

int main(void)
{
    test_arista();
    test_mellanox_flat();
    test_qsfp28();
    test_sfp();
    test_malformed();
    UNIT_END();
}
