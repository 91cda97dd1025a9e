/* fuzz_module.c -- libFuzzer harness for the module EEPROM decoders:
 * pna_module_read() (sources/phy/module.c) through a read callback serving
 * the input, and pna_sff8636_decode() and pna_cmis_decode() on it directly.
 * The input is an EEPROM image as tests/fixtures/module/build_images.py lays
 * it out: page 00h (256 bytes), then the upper halves of pages 01h, 02h, 03h
 * and 11h; a read beyond the input fails, as a short module read would.
 * Besides the sanitizers, the harness aborts when an answer breaks its
 * promises: 0 means present with no error, -1 absent with an error line;
 * strings terminated and printable; lanes within the model's array, and no
 * lane described beyond the count. */
#include "pna_autoconf.h"
#include "sources/phy/module.h"
#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct input {
    const uint8_t *data;
    size_t size;
};

static long slot_of(uint8_t page)
{
    switch (page) {
    case 0x00: return 0;
    case 0x01: return 256 - 128;
    case 0x02: return 384 - 128;
    case 0x03: return 512 - 128;
    case 0x11: return 640 - 128;
    default: return -1;
    }
}

static int serve(void *arg, uint8_t i2c_addr, uint8_t page, uint8_t bank, uint32_t offset,
                 uint32_t length, uint8_t *buf, char *err, size_t errlen)
{
    const struct input *in = arg;
    long base = slot_of(page);
    if (i2c_addr != 0x50 || bank != 0 || offset > 255 || length > 256 - offset)
        abort(); /* the decoders never ask for this */
    if (base < 0 || (page != 0 && offset < 128) ||
        (size_t)base + offset + length > in->size) {
        snprintf(err, errlen, "short read");
        return -1;
    }
    memcpy(buf, in->data + base + offset, length);
    return 0;
}

static void check_text(const char *s, size_t cap)
{
    size_t n = strnlen(s, cap);
    if (n == cap)
        abort();
    for (size_t i = 0; i < n; i++)
        if (s[i] < 0x20 || s[i] > 0x7e)
            abort();
}

static void check_answer(int rc, const struct pna_module *m, const char *err, size_t errlen)
{
    size_t err_len = strnlen(err, errlen);
    if (err_len == errlen)
        abort();
    if (rc == 0 && (!m->present || err_len != 0))
        abort();
    if (rc != 0 && (rc != -1 || m->present || err_len == 0))
        abort();
    if (m->lanes > PNA_MODULE_MAX_LANES)
        abort();
    for (size_t i = m->lanes; i < PNA_MODULE_MAX_LANES; i++)
        if (m->lane[i].has_bias || m->lane[i].has_tx_power || m->lane[i].has_rx_power ||
            m->lane[i].has_flags)
            abort();
    check_text(m->identifier_text, sizeof m->identifier_text);
    check_text(m->spec_revision, sizeof m->spec_revision);
    check_text(m->vendor, sizeof m->vendor);
    check_text(m->vendor_oui, sizeof m->vendor_oui);
    check_text(m->part_number, sizeof m->part_number);
    check_text(m->revision, sizeof m->revision);
    check_text(m->serial, sizeof m->serial);
    check_text(m->date_code, sizeof m->date_code);
    check_text(m->media, sizeof m->media);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct input in = {data, size};
    struct pna_module m;
    char err[160] = "";
    check_answer(pna_module_read(serve, &in, &m, err, sizeof err), &m, err, sizeof err);
    if (size < 256)
        return 0;
    /* The decoders take whole pages: copies, so a read past one is caught. */
    uint8_t *page0 = malloc(256);
    uint8_t *upper[4] = {NULL, NULL, NULL, NULL}; /* 01h, 02h, 03h, 11h */
    memcpy(page0, data, 256);
    for (int i = 0; i < 4; i++)
        if (size >= 256 + 128 * (size_t)(i + 1)) {
            upper[i] = malloc(128);
            memcpy(upper[i], data + 256 + 128 * i, 128);
        }
    err[0] = '\0';
    check_answer(pna_sff8636_decode(page0, upper[2], &m, err, sizeof err), &m, err, sizeof err);
    err[0] = '\0';
    check_answer(pna_cmis_decode(page0, upper[0], upper[1], upper[3], &m, err, sizeof err), &m,
                 err, sizeof err);
    free(page0);
    for (int i = 0; i < 4; i++)
        free(upper[i]);
    return 0;
}
