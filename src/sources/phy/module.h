/* sources/phy/module.h -- a pluggable module's identity and diagnostics
 * from its EEPROM: which pages to read (the management interface decides:
 * SFF-8636 for QSFP28/QSFP56, CMIS for QSFP-DD/OSFP), and their decoding
 * into struct pna_module (model/phy/phy.h).
 *
 * The pages are read through a callback, so the decoders run the same on
 * the kernel's answers (sources/phy/ethtool_nl.c) and on EEPROM images in
 * tests and fuzzing. */
#ifndef PNA_SOURCES_PHY_MODULE_H
#define PNA_SOURCES_PHY_MODULE_H

#include <stddef.h>
#include <stdint.h>

#include "model/phy/phy.h"

/* Read LENGTH bytes at OFFSET (0-255: 0-127 lower page, 128-255 upper page
 * PAGE of BANK) at I2C address I2C_ADDR into BUF.  0, or -1 with ERR. */
typedef int pna_module_read_fn(void *arg, uint8_t i2c_addr, uint8_t page, uint8_t bank,
                               uint32_t offset, uint32_t length, uint8_t *buf, char *err,
                               size_t errlen);

/* Identify the module, read the pages its management interface defines for
 * identity, diagnostics, flags and thresholds, and decode them into OUT.
 * Returns 0 (OUT->present true), or -1 with ERR: no module, a page that
 * could not be read, or an identifier this agent does not decode. */
int pna_module_read(pna_module_read_fn *read, void *arg, struct pna_module *out, char *err,
                    size_t errlen);

/* The decoders on a flat image: PAGES holds page 0 (lower and upper, 256
 * bytes) then the upper halves of the other pages the spec needs (see
 * sff8636.c, cmis.c).  For tests and fuzzing. */
int pna_sff8636_decode(const uint8_t *lower_upper0, const uint8_t *page3, struct pna_module *out,
                       char *err, size_t errlen);
int pna_cmis_decode(const uint8_t *lower_upper0, const uint8_t *page1, const uint8_t *page2,
                    const uint8_t *page11, struct pna_module *out, char *err, size_t errlen);

#endif
