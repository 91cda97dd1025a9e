/* model/row_index.h -- integer row indexes that stay with their row: a
 * living row keeps the index it had, a new one gets a hash of its identity,
 * probing upwards past indexes in use.  Shared by the container, pod and
 * pod-resources tables. */
#ifndef PNA_MODEL_ROW_INDEX_H
#define PNA_MODEL_ROW_INDEX_H

#include <stddef.h>
#include <stdint.h>

/* FNV-1a of SALT and S, folded into 1..2^31-1 (SNMP index values are > 0). */
uint32_t pna_row_index_hash(uint8_t salt, const char *s);

/* OLD[i] is the index row i had before (0: new), KEY(CTX, i) its identity's
 * hash.  Writes a unique index per row into OUT[i]. */
void pna_row_index_assign(size_t n, const uint32_t *old, uint32_t *out,
                          uint32_t (*key)(const void *ctx, size_t i), const void *ctx);

#endif
