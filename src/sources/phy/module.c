/* sources/phy/module.c -- reading a pluggable module's EEPROM through a
 * pna_module_read_fn (see module.h): page 00h first, whose identifier byte
 * (SFF-8024) says which management interface the rest follows, then the
 * pages that interface keeps its diagnostics in, decoded by sff8636.c or
 * cmis.c.  An SFP (SFF-8472) is identified from its A0h page only.
 *
 * Reads never cross the 128-byte boundary between the lower page and an
 * upper page: the kernel's module EEPROM interface refuses such reads. */
#include "pna_autoconf.h"
#include "sources/phy/module.h"

#include <stdio.h>
#include <string.h>

#include "sources/phy/sff8024.h"

#define I2C_ADDR_A0 0x50
#define HALF 128

/* SFF-8472 A0h offsets. */
#define SFP_COMPLIANCE_10G 3       /* bits 7-4: 10GBASE-ER, -LRM, -LR, -SR */
#define SFP_VENDOR_NAME 20
#define SFP_EXT_COMPLIANCE 36
#define SFP_VENDOR_OUI 37
#define SFP_VENDOR_PN 40
#define SFP_VENDOR_REV 56
#define SFP_VENDOR_SN 68
#define SFP_DATE_CODE 84
#define SFP_8472_COMPLIANCE 94

struct reader {
    pna_module_read_fn *read;
    void *arg;
    char *err;
    size_t errlen;
};

/* The 128 bytes of PAGE's half at OFFSET (0 lower, 128 upper) into BUF. */
static int read_half(struct reader *r, uint8_t page, uint32_t offset, uint8_t *buf)
{
    char why[160] = "";
    if (r->read(r->arg, I2C_ADDR_A0, page, 0, offset, HALF, buf, why, sizeof why) == 0)
        return 0;
    snprintf(r->err, r->errlen, "%s page %02xh: %s", offset ? "upper" : "lower", page,
             why[0] ? why : "read failed");
    return -1;
}

static const char *sff8472_revision(uint8_t code)
{
    static const char *const names[] = {
        "", "9.3", "9.5", "10.2", "10.4", "11.0", "11.3", "11.4", "12.3",
    };
    return code < sizeof names / sizeof names[0] ? names[code] : "";
}

static void sfp_media(const uint8_t *a0, struct pna_module *out)
{
    static const char *const ethernet_10g[] = {"10GBASE-SR", "10GBASE-LR", "10GBASE-LRM",
                                               "10GBASE-ER"};
    const char *name = pna_sff8024_ext_compliance_name(a0[SFP_EXT_COMPLIANCE]);
    for (int bit = 7; bit >= 4 && !*name; bit--)
        if (a0[SFP_COMPLIANCE_10G] & 1u << bit)
            name = ethernet_10g[bit - 4];
    snprintf(out->media, sizeof out->media, "%s", name);
}

/* An SFP's identity from the first 128 bytes of A0h.  Its diagnostics (A2h)
 * are not decoded: the fabric's RDMA ports carry QSFP and larger modules. */
static void sfp_identity(const uint8_t *a0, struct pna_module *out)
{
    memset(out, 0, sizeof *out);
    out->spec = PNA_MODULE_SPEC_SFF8472;
    out->identifier = a0[0];
    snprintf(out->identifier_text, sizeof out->identifier_text, "%s",
             pna_sff8024_identifier_name(a0[0]));
    snprintf(out->spec_revision, sizeof out->spec_revision, "%s",
             sff8472_revision(a0[SFP_8472_COMPLIANCE]));
    pna_module_text(out->vendor, sizeof out->vendor, a0 + SFP_VENDOR_NAME, 16);
    pna_module_oui(out->vendor_oui, sizeof out->vendor_oui, a0 + SFP_VENDOR_OUI);
    pna_module_text(out->part_number, sizeof out->part_number, a0 + SFP_VENDOR_PN, 16);
    pna_module_text(out->revision, sizeof out->revision, a0 + SFP_VENDOR_REV, 4);
    pna_module_text(out->serial, sizeof out->serial, a0 + SFP_VENDOR_SN, 16);
    pna_module_text(out->date_code, sizeof out->date_code, a0 + SFP_DATE_CODE, 8);
    sfp_media(a0, out);
    out->lanes = 1;
    out->present = true;
}

static int read_sff8636(struct reader *r, const uint8_t *page0, struct pna_module *out)
{
    uint8_t page3[HALF];
    bool flat = page0[2] & 0x04;
    if (!flat && read_half(r, 0x03, HALF, page3) != 0)
        return -1;
    return pna_sff8636_decode(page0, flat ? NULL : page3, out, r->err, r->errlen);
}

static int read_cmis(struct reader *r, const uint8_t *page0, struct pna_module *out)
{
    uint8_t page1[HALF], page2[HALF], page11[HALF];
    bool flat = page0[2] & 0x80;
    if (flat)
        return pna_cmis_decode(page0, NULL, NULL, NULL, out, r->err, r->errlen);
    if (read_half(r, 0x01, HALF, page1) != 0 || read_half(r, 0x02, HALF, page2) != 0 ||
        read_half(r, 0x11, HALF, page11) != 0)
        return -1;
    return pna_cmis_decode(page0, page1, page2, page11, out, r->err, r->errlen);
}

int pna_module_read(pna_module_read_fn *read, void *arg, struct pna_module *out, char *err,
                    size_t errlen)
{
    struct reader r = {read, arg, err, errlen};
    uint8_t page0[2 * HALF];
    memset(out, 0, sizeof *out);
    if (read_half(&r, 0x00, 0, page0) != 0)
        return -1;
    enum pna_module_spec spec = pna_sff8024_spec(page0[0]);
    if (spec == PNA_MODULE_SPEC_UNKNOWN) {
        snprintf(err, errlen, "identifier 0x%02x (%s): no management interface decoded here",
                 page0[0], pna_sff8024_identifier_name(page0[0]));
        return -1;
    }
    if (spec == PNA_MODULE_SPEC_SFF8472) {
        sfp_identity(page0, out);
        return 0;
    }
    if (read_half(&r, 0x00, HALF, page0 + HALF) != 0)
        return -1;
    int rc = spec == PNA_MODULE_SPEC_SFF8636 ? read_sff8636(&r, page0, out)
                                             : read_cmis(&r, page0, out);
    if (rc != 0)
        memset(out, 0, sizeof *out);
    return rc;
}
